/*
 * torch_release.h - which PyTorch is installed or loaded, and whether this
 * torchfl was validated against it (scripts/torch-releases.txt, compiled
 * in as TORCHFL_VALIDATED_TORCH).
 */
#ifndef TFL_TORCH_RELEASE_H
#define TFL_TORCH_RELEASE_H

#include <stddef.h>

typedef struct tfl_torch_info {
    char version[64];            /* "2.15.0+cu132" (torch.__version__)   */
    char cuda[16];               /* "13.2" (torch.version.cuda), or ""    */
    char libdir[1024];           /* .../site-packages/torch/lib           */
} tfl_torch_info;

/* The validated releases, newest first, space-separated ("2.15.0 ..."). */
const char *tfl_torch_validated_list(void);
/* Is this version (local suffix "+cu132" ignored) a validated release? */
int tfl_torch_validated(const char *version);
/* Read torch/version.py beside a torch/lib directory.  0 ok, -1 if it is
 * not an installed torch package. */
int tfl_torch_read(const char *libdir, tfl_torch_info *out);
/* The torch whose libtorch_cuda.so this process has loaded.  0 ok, -1 if
 * none is loaded. */
int tfl_torch_loaded(tfl_torch_info *out);
/* At first CUDA use: one warning line if the loaded torch is not a
 * validated release (nothing when no torch is loaded). */
void tfl_torch_check_loaded(void);

/* The torch whose kernels the op table decodes, for the few decoders whose
 * parameter meaning changed between releases without the kernel's name or
 * size telling (the memory-efficient attention Params, the foreach
 * tensor-list metadata and NormType): the release set with tfl_torch_use()
 * (`torchfl wheel` sets the wheel it checks; unit tests set one), else the
 * loaded torch (looked up once).  0 and *out, or -1 when there is none. */
int tfl_torch_current(tfl_torch_info *out);
/* Decode as this release from now on (NULL: the loaded one again). */
void tfl_torch_use(const tfl_torch_info *t);
/* The minor of a 2.x version ("2.14.1+cu130" -> 14), or -1. */
int tfl_torch_minor(const char *version);

#endif
