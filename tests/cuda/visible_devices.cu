// visible_devices.cu - CUDA_VISIBLE_DEVICES, multiple host devices, and an
// unknown backend (cudaErrorNoDevice, process alive).  The parent runs
// itself as a child under each environment; the child reports what the
// runtime says.
#include "check.h"
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static int child(const char *want)
{
    int n = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (strcmp(want, "nodev") == 0) {
        CHECK_ERR(e, cudaErrorNoDevice);
        CHECK(n == 0);
        void *p = NULL;
        CHECK_ERR(cudaMalloc(&p, 16), cudaErrorNoDevice);   // still no crash
        CHECK_ERR(cudaSetDevice(0), cudaErrorNoDevice);
    } else {
        CHECK_OK(e);
        CHECK(n == atoi(want));
        for (int d = 0; d < n; d++) {
            CHECK_OK(cudaSetDevice(d));
            void *p = NULL;
            CHECK_OK(cudaMalloc(&p, 1024));
            cudaPointerAttributes a;
            CHECK_OK(cudaPointerGetAttributes(&a, p));
            CHECK(a.device == d);
            CHECK_OK(cudaFree(p));
        }
        CHECK_ERR(cudaSetDevice(n), cudaErrorInvalidDevice);
    }
    TEST_DONE();
}

static int run(const char *self, const char *want, const char *conf, const char *visible,
               const char *backend)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("TORCHFL_CONFIG", conf, 1);
        if (visible) setenv("CUDA_VISIBLE_DEVICES", visible, 1);
        else unsetenv("CUDA_VISIBLE_DEVICES");
        if (backend) setenv("FL_BACKEND", backend, 1);
        else unsetenv("FL_BACKEND");
        execl(self, self, want, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "child want=%s visible=%s backend=%s failed\n", want,
                visible ? visible : "(unset)", backend ? backend : "(unset)");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return child(argv[1]);
    char conf[] = "/tmp/tfl_visible_XXXXXX";
    int fd = mkstemp(conf);
    const char text[] = "device.count = 3\n";
    CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
    close(fd);
    tfl_failures += run(argv[0], "3", conf, NULL, NULL);
    tfl_failures += run(argv[0], "2", conf, "2,0", NULL);
    tfl_failures += run(argv[0], "1", conf, "1,7,0", NULL);   // 7 invalid: list ends
    tfl_failures += run(argv[0], "1", conf, "2,2", NULL);     // repeat ends the list
    tfl_failures += run(argv[0], "nodev", conf, "", NULL);    // empty: no devices
    tfl_failures += run(argv[0], "nodev", conf, NULL, "ascend"); // no such backend
    unlink(conf);
    TEST_DONE();
}
