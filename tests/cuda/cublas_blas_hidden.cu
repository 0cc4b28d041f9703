/*
 * cublas_blas_hidden.cu - the preloaded libtorchfl.so must keep its BLAS
 * private: no sgemm_/cdotc_/cblas_* from OpenBLAS may appear in the global
 * symbol scope, where they would interpose on the BLAS a host program
 * exports (libtorch_cpu.so exports sgemm_, cdotc_, ...; OpenBLAS's
 * complex-returning cdotc_ has another ABI and gave PyTorch wrong CPU
 * results).  Run under the preload like every CUDA program test.
 */
#include "check.h"
#include <dlfcn.h>

int main(void)
{
    /* the preload is really there (a CUDA runtime call resolves) */
    int n = -1;
    CHECK_OK(cudaGetDeviceCount(&n));
    CHECK(n >= 1);
    static const char *names[] = { "sgemm_", "dgemm_", "cdotc_", "zdotu_", "sgetrf_",
                                   "cblas_sgemm", "cblas_cdotc_sub", "openblas_set_num_threads",
                                   "goto_set_num_threads" };
    for (const char *name : names) {
        void *p = dlsym(RTLD_DEFAULT, name);
        if (p) {
            Dl_info info;
            const char *from = dladdr(p, &info) && info.dli_fname ? info.dli_fname : "?";
            fprintf(stderr, "%s is visible in the global scope (from %s)\n", name, from);
            tfl_failures++;
        }
    }
    TEST_DONE();
}
