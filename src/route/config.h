/*
 * config.h - torchfl's configuration: file, environment, defaults.
 *
 * Search order for the file: $TORCHFL_CONFIG, ./torchfl.conf,
 * ~/.config/torchfl/torchfl.conf, /etc/torchfl/torchfl.conf, else built-in
 * defaults.  Environment variables override the file.  Every key is
 * documented in config/torchfl.conf.
 */
#ifndef TFL_CONFIG_H
#define TFL_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef enum tfl_fallback_mode {
    TFL_FALLBACK_STRICT = 0,
    TFL_FALLBACK_WARN = 1,
    TFL_FALLBACK_SILENT = 2
} tfl_fallback_mode;

typedef struct tfl_config {
    char backend[64];           /* FL_BACKEND: auto | host | <plugin>      */
    tfl_fallback_mode fallback; /* TORCH_FL_FALLBACK_MODE                  */
    char fallback_device[64];   /* TORCH_FL_FALLBACK_DEVICE: host          */
    char op_blacklist[1024];    /* TORCH_FL_OP_BLACKLIST, comma separated  */
    uint64_t mem_pool_size;     /* TORCH_FL_MEM_POOL_SIZE bytes; 0 = RAM   */
    int stream_num;             /* TORCH_FL_STREAM_NUM                     */
    int log_level;              /* TORCHFL_LOG                             */
    char stats_path[1024];      /* TORCHFL_STATS; "" = off                 */
    char plugin_path[2048];     /* TORCHFL_PLUGIN_PATH, ':' separated      */
    int cc_major, cc_minor;     /* device.compute_capability               */
    int device_count;           /* device.count (host backend)             */
    int exec_threads;           /* host.threads; 0 = CPU count             */
    int blas_threads;           /* host.blas_threads; 0 = CPU count        */
    char source[1024];          /* the file that was read, or "defaults"   */
} tfl_config;

/* Parse one file into cfg (on top of what cfg holds).  On a bad line
 * returns -1 with "FILE:LINE: reason" in err.  Unit-testable. */
int tfl_config_parse_file(const char *path, tfl_config *cfg,
                          char *err, size_t errlen);
/* Apply environment overrides; -1 with a message on a bad value. */
int tfl_config_apply_env(tfl_config *cfg, char *err, size_t errlen);
void tfl_config_defaults(tfl_config *cfg);
/* Parse "8G", "512M", "1024" ...; -1 on garbage. */
int tfl_config_parse_size(const char *s, uint64_t *out);

/* The process-wide config, loaded once (thread-safe). */
const tfl_config *tfl_config_get(void);
/* Raw string value of a key as the file/env gave it, or NULL. */
const char *tfl_config_value(const char *key);

#endif
