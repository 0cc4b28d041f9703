// refusal.cu - an unimplemented runtime function refuses cleanly.
//
// cudaGraphicsUnregisterResource (graphics interop) is one torchfl will
// never implement, so it reaches the generated refusal: it must return
// cudaErrorNotSupported, record it as the thread's last error
// (cudaPeekAtLastError keeps it, cudaGetLastError returns and clears it),
// and leave the process working (a later allocation succeeds).
#include "check.h"

int main(void)
{
    CHECK_ERR(cudaGetLastError(), cudaSuccess);
    CHECK_ERR(cudaGraphicsUnregisterResource(NULL), cudaErrorNotSupported);
    CHECK_ERR(cudaPeekAtLastError(), cudaErrorNotSupported);
    CHECK_ERR(cudaGetLastError(), cudaErrorNotSupported);
    CHECK_ERR(cudaGetLastError(), cudaSuccess);

    // not sticky: the runtime still works
    void *p = NULL;
    CHECK_OK(cudaMalloc(&p, 256));
    CHECK(p != NULL);
    CHECK_OK(cudaFree(p));
    CHECK_ERR(cudaGetLastError(), cudaSuccess);
    TEST_DONE();
}
