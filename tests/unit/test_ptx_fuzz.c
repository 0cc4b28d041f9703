/*
 * test_ptx_fuzz.c - replays the PTX fuzz seed corpus and every regression
 * input (tests/fuzz/corpus/ptx, tests/fuzz/regressions/ptx) through the
 * libFuzzer harness tests/fuzz/fuzz_ptx.c, so inputs that once crashed
 * stay checked in the ordinary build; plus mutated seeds (truncations and
 * byte flips) that must be rejected or run without crashing.
 */
#include <dirent.h>
#include <stdio.h>

#include "../fuzz/fuzz_ptx.c"

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)len + 1);
    if (p) { *n = fread(p, 1, (size_t)len, f); p[*n] = 0; }
    fclose(f);
    return p;
}

static int replay_dir(const char *sub, int mutate)
{
    char dir[1024];
    const char *here = __FILE__;
    const char *slash = strrchr(here, '/');
    int plen = slash ? (int)(slash - here) : 1;
    snprintf(dir, sizeof dir, "%.*s/../fuzz/%s", plen, slash ? here : ".", sub);
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t len = 0;
        char *p = slurp(path, &len);
        if (!p) continue;
        LLVMFuzzerTestOneInput((const uint8_t *)p, len);
        if (mutate) {
            uint32_t s = 99;
            for (int k = 0; k < 40; k++) {
                s = s * 1103515245u + 12345u;
                size_t cut = len ? (s >> 8) % len : 0;
                LLVMFuzzerTestOneInput((const uint8_t *)p, cut);       /* truncated */
                char *q = malloc(len + 1);
                memcpy(q, p, len + 1);
                for (int f = 0; f < 4 && len; f++) {
                    s = s * 1103515245u + 12345u;
                    q[(s >> 8) % len] = "{}[];,.%@!-+0x|"[(s >> 4) % 15];
                }
                LLVMFuzzerTestOneInput((const uint8_t *)q, len);
                free(q);
            }
        }
        free(p);
        n++;
    }
    closedir(d);
    return n;
}

int main(void)
{
    /* printf kernels in the corpus write to stdout: keep it quiet */
    if (!freopen("/dev/null", "w", stdout)) return 1;
    int seeds = replay_dir("corpus/ptx", 1);
    int regs = replay_dir("regressions/ptx", 0);
    fprintf(stderr, "test_ptx_fuzz: replayed %d seeds (with mutations), %d regression inputs\n",
            seeds, regs);
    if (seeds <= 0) { fprintf(stderr, "no seed corpus found next to %s\n", __FILE__); return 1; }
    if (regs < 0) { fprintf(stderr, "no regressions folder\n"); return 1; }
    return 0;
}
