/* hostexec_pending.c - TEMPORARY: launches fail until the PTX executor lands. */
#include "backends/host/hostexec.h"
#include <stdio.h>
#include <stdlib.h>
struct hx_module { const void *image; };
void hx_init(const hx_options *opt) { (void)opt; }
hx_module *hx_module_create(const void *image, size_t size)
{
    (void)size;
    hx_module *m = calloc(1, sizeof *m);
    if (m) m->image = image;
    return m;
}
void hx_module_destroy(hx_module *m) { free(m); }
hx_status hx_kernel_info_get(hx_module *m, const char *k, hx_kernel_info *o, char *e, size_t n)
{ (void)m; (void)o; snprintf(e, n, "kernel %s: the host executor is not built yet", k); return HX_ERR_UNSUPPORTED; }
hx_status hx_module_global(hx_module *m, const char *v, void **a, size_t *s, char *e, size_t n)
{ (void)m; (void)a; (void)s; snprintf(e, n, "variable %s: the host executor is not built yet", v); return HX_ERR_UNSUPPORTED; }
hx_status hx_launch(hx_module *m, const char *k, const hx_launch_params *p, char *e, size_t n)
{ (void)m; (void)p; snprintf(e, n, "kernel %s cannot run: the host executor is not built yet", k); return HX_ERR_UNSUPPORTED; }
