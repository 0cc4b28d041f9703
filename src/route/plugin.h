/*
 * plugin.h - find, load, check and choose backends.
 *
 * A backend is either built in (host) or a plugin libtorchfl-<name>.so in
 * the plugin search path:
 *   1. plugin.path / $TORCHFL_PLUGIN_PATH, ':'-separated, in order;
 *   2. <directory of libtorchfl.so>/plugins;
 *   3. <directory of libtorchfl.so> itself.
 * The first file of a name wins.  A plugin is loaded once and stays loaded
 * for the life of the process; its table is copied into a zeroed
 * full-size tfl_backend so entries an older plugin lacks read as NULL.
 */
#ifndef TFL_PLUGIN_H
#define TFL_PLUGIN_H

#include <stddef.h>

#include "torchfl/backend.h"

#define TFL_BACKEND_MAX 32

typedef enum tfl_backend_state {
    TFL_BK_READY = 0,     /* probe says it can run: selectable         */
    TFL_BK_NOT_READY = 1, /* loaded, but probe failed (why says why)   */
    TFL_BK_BROKEN = 2     /* cannot be loaded: dlopen, entry, ABI      */
} tfl_backend_state;

typedef struct tfl_backend_desc {
    char name[64];
    char path[1024];           /* the shared object; "" when built in   */
    int builtin;
    int priority;
    tfl_backend_state state;
    char why[512];             /* reason when not ready / broken        */
    const tfl_backend *table;  /* NULL when broken; lives forever       */
} tfl_backend_desc;

/* The directories searched, ':'-joined, in order. */
void tfl_plugin_search_path(char *buf, size_t len);

/* Every backend found (host first, then plugins in search order), each
 * probed now.  Returns how many were written (at most max). */
int tfl_backend_list(tfl_backend_desc *out, int max);

/* name: "auto", "host" or a plugin name; NULL or "" = the configured one
 * (config key backend / $FL_BACKEND).  "auto" is the ready plugin of
 * highest priority >= 0, else host (always ready; plugins of negative
 * priority rank below it and are only chosen by name).
 * Returns NULL when the backend is unknown, broken or not ready, with a
 * one-line reason in why naming the backend, the directories searched
 * and the backends available.  Does not call init(). */
const tfl_backend *tfl_backend_select(const char *name, char *why, size_t why_len);

/* What torchfl lends a backend's init(): logging and config lookups. */
const tfl_host_api *tfl_plugin_host_api(void);

/* Number of op kinds the backend runs natively, asked with a float32
 * representative of each kind (for `torchfl detect`). */
int tfl_backend_op_count(const tfl_backend *b);

#endif
