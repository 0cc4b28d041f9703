/*
 * ops_conv.h - test hook of the host convolution (not part of the host
 * backend's interface, which is host_ops.h).
 */
#ifndef TFL_HOST_OPS_CONV_H
#define TFL_HOST_OPS_CONV_H

/* Which kernel host_conv uses: 0 chooses by shape (default), 1 forces
 * im2col + GEMM, 2 forces the direct loops (both compute every case). */
extern int host_conv_force_path;

#endif
