/*
 * cubin_layouts.h - the op-table unit tests' check that a family states,
 * for real kernel names of the wheels, exactly the parameter layout their
 * sm_80 cubins record ("offset:size ...", as `torchfl wheel --list` and
 * scripts/wheel_kernels.py read it).  Each test keeps its own table of
 * names and layouts; this is the comparison they share (static inline: every
 * test is its own program).
 */
#ifndef TFL_TEST_CUBIN_LAYOUTS_H
#define TFL_TEST_CUBIN_LAYOUTS_H

#include <stdio.h>
#include <string.h>

#include "route/optable.h"

/* A kernel's mangled name and the layout its cubin records. */
typedef struct cubin_layout {
    const char *mangled, *layout;
} cubin_layout;

/* Does family f claim `mangled` and state exactly the layout `want`?  1
 * yes; 0 no, with what differs on stderr (not claimed, claimed without a
 * layout, or both layouts). */
static inline int cubin_layout_ok(const tfl_kfamily *f, const char *mangled, const char *want)
{
    char got[2048];
    if (tfl_kfamily_layout_text(f, mangled, got, sizeof got)) {
        if (strcmp(got, want) == 0)
            return 1;
        fprintf(stderr, "%s %s: layout %s, the cubin's %s\n", f->name, mangled, got, want);
        return 0;
    }
    void *cookie = NULL;
    fprintf(stderr, "%s %s: %s (the cubin's layout %s)\n", f->name, mangled,
            f->match(mangled, &cookie) ? "claimed without a layout" : "not claimed", want);
    return 0;
}

/* cubin_layout_ok for each of the n rows of t: one check a row added to
 * *checks (unless NULL), one failure a differing row to *failures. */
static inline void check_cubin_layouts(const tfl_kfamily *f, const cubin_layout *t, size_t n,
                                       int *checks, int *failures)
{
    for (size_t i = 0; i < n; i++) {
        if (checks)
            (*checks)++;
        if (!cubin_layout_ok(f, t[i].mangled, t[i].layout))
            (*failures)++;
    }
}

#endif
