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

#define TFL_CONFIG_BACKEND_KEYS 32

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
    int device_count;           /* device.count, TORCHFL_DEVICE_COUNT (host) */
    int nccl_timeout_s;         /* nccl.timeout, TORCHFL_NCCL_TIMEOUT: how
                                 * long a collective waits for its peers   */
    int exec_threads;           /* host.threads; 0 = CPU count             */
    int blas_threads;           /* host.blas_threads; 0 = CPU count        */
    char source[1024];          /* the file that was read, or "defaults"   */
    /* Keys of a backend's own section ([opencl] device = 1): torchfl does
     * not interpret them; the plugin reads them through tfl_host_api's
     * config(), where TORCHFL_<SECTION>_<KEY> (upper case) overrides them. */
    struct { char key[64]; char value[256]; } backend_keys[TFL_CONFIG_BACKEND_KEYS];
    int nbackend_keys;
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

/* Called once per problem (bad line, bad environment value) with a
 * one-line message "FILE:LINE: reason" or "VAR=value: reason". */
typedef void (*tfl_config_error_fn)(void *ctx, const char *msg);

/* Like tfl_config_parse_file, but reports every bad line through on_error
 * (may be NULL), skips it and goes on.  Returns the number of bad lines,
 * or -1 if the file cannot be read (reported too). */
int tfl_config_parse_file_ex(const char *path, tfl_config *cfg,
                             tfl_config_error_fn on_error, void *ctx);
/* Like tfl_config_apply_env, but reports every bad variable; returns
 * their number.  Bad values are ignored (the earlier value stays). */
int tfl_config_apply_env_ex(tfl_config *cfg, tfl_config_error_fn on_error,
                            void *ctx);
/* The file the search order picks right now ($TORCHFL_CONFIG, ./, ~/,
 * /etc), copied into buf; 0 if found (or named by $TORCHFL_CONFIG), -1
 * when none exists (built-in defaults apply). */
int tfl_config_find_file(char *buf, size_t len);
/* defaults + the file the search order finds + environment, uncached.
 * What tfl_config_get() does once; exposed for tests and `torchfl`. */
void tfl_config_load(tfl_config *cfg, tfl_config_error_fn on_error, void *ctx);
/* Canonical text of a key's value in cfg (sizes in bytes, "8.0" for the
 * compute capability...) into buf; -1 if the key is unknown. */
int tfl_config_format(const tfl_config *cfg, const char *key,
                      char *buf, size_t len);
/* The documented keys, NULL-terminated, in file order. */
const char *const *tfl_config_keys(void);

/* The process-wide config, loaded once (thread-safe). */
const tfl_config *tfl_config_get(void);
/* Value of a key in the process-wide config, in the canonical text of
 * tfl_config_format (file, environment or default), or NULL if the key
 * is unknown.  The string lives as long as the process. */
const char *tfl_config_value(const char *key);

#endif
