/*
 * stats.h - op statistics: what ran, how often, for how long, and where.
 *
 * Every launch and every library op is counted under a key: the op
 * ("elementwise/add", "blas/gemm") when the op table or a library maps it,
 * the kernel's mangled name when nothing does.  "Where" is the backend
 * natively, the host executor (fallback), or refused.  The report is JSON,
 * written at exit when TORCHFL_STATS names a file, or on demand with
 * torchfl_stats_dump(); `torchfl stats FILE` prints it as a table.
 */
#ifndef TFL_STATS_H
#define TFL_STATS_H

#include <stdint.h>

typedef enum tfl_ran_where {
    TFL_RAN_NATIVE = 0,    /* the selected backend ran it as an op       */
    TFL_RAN_HOSTEXEC = 1,  /* the host executor ran its PTX (fallback)  */
    TFL_RAN_REFUSED = 2,   /* nothing could run it                       */
    TFL_RAN_COUNT
} tfl_ran_where;

typedef struct tfl_stat_slot tfl_stat_slot;

/* The slot for (family, name), created on first use; never freed, so
 * callers may cache it.  family "unmapped" for kernels no family claims. */
tfl_stat_slot *tfl_stats_slot(const char *family, const char *name);
void tfl_stats_add(tfl_stat_slot *s, tfl_ran_where where, uint64_t ns);
uint64_t tfl_stats_now_ns(void);

/* Set while a kernel launch runs its ops, so that the launch is counted
 * once (under its family) and not again under each op it issues. */
extern __thread int tfl_stats_in_launch;
/* Where the ops a launch issued ran: the worst of them (a launch with one
 * op on the host counts as fallback).  Reset by the launch. */
extern __thread tfl_ran_where tfl_stats_launch_where;

/* Write the JSON report to path; 0 on success.  Exported for programs
 * (and debuggers) that want a report before exit. */
int torchfl_stats_dump(const char *path);

#endif
