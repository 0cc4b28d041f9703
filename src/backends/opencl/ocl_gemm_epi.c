/*
 * ocl_gemm_epi.c - the OpenCL C side of the OpenCL backend's GEMM
 * (ocl_gemm.c): the steps CLBlast does not do.
 *
 *   gemm_convert   a strided batch of matrices from one element type to
 *                  another (fp16/bf16 operands widened to fp32 for SGEMM),
 *                  or copied bit for bit when the types match (C into D
 *                  before a GEMM that accumulates into D)
 *   gemm_finish    D = epilogue(src + beta*C) narrowed to D's type: the
 *                  fp32 result of a low-precision GEMM, D itself (in place)
 *                  after an fp32/fp64 GEMM, or nothing (k == 0, alpha == 0)
 *   gemm_bgrad_op  the BGRADA/BGRADB bias gradients: sums of op(A)'s rows
 *                  or op(B)'s columns
 *
 * The formulas are those of the host backend (gemm_epilogue.c,
 * gemm_lowp.c), in the same order of operations; FP_CONTRACT is off so no
 * multiply-add is fused where the host rounds twice.  ACC, the epilogue's
 * arithmetic type, is set by the build options: double where the host
 * uses double (its general epilogue path), float for its fp32 fast path
 * (bias/ReLU/GELU only).
 *
 * Every matrix argument is five values, MAT(x): the buffer, the byte
 * offset of batch entry 0, the leading dimension and the batch stride in
 * elements, and the element type (tfl_dtype numbering).  The one
 * exception is a ReLU bit mask (aux of RELU_AUX/DRELU): its ld and stride
 * count bits and an entry starts at byte (stride * entry) / 8, as on the
 * host.
 */

#include "backends/opencl/ocl_src.h"

/* Declared here for ocl_gemm.c, which declares it too (no shared header
 * for one string). */
extern const char ocl_gemm_cl_src[];

const char ocl_gemm_cl_src[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#ifdef HAS_FP64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#endif\n"
    /* tfl_dtype numbering (ocl_gemm.c asserts it) */
    "#define DT_F32 0\n"
    "#define DT_F64 1\n"
    "#define DT_F16 2\n"
    "#define DT_BF16 3\n"
    /* epilogue bits, as ocl_gemm.c's E_* */
    "#define F_BIAS 1\n"
    "#define F_RELU 2\n"
    "#define F_GELU 4\n"
    "#define F_AUX_GELU 8\n"
    "#define F_AUX_MASK 16\n"
    "#define F_DRELU 32\n"
    "#define F_DGELU 64\n"
    "#define F_BGRAD_D 128\n"
    "#define F_SRC 1024\n"
    "#define F_C 2048\n"
    "#ifdef ACC_DOUBLE\n"
    "#define K0 0.7978845608028654\n"
    "#define K1 0.044715\n"
    "#else\n"
    "#define K0 0.7978845608028654f\n"
    "#define K1 0.044715f\n"
    "#endif\n"
    "#define ESZ(t) ((ulong)((t) == DT_F64 ? 8 : (t) == DT_F32 ? 4 : 2))\n"
    "#define MAT(x) __global char *x##_p, ulong x##_o, ulong x##_ld, ulong x##_st, int x##_t\n"
    "#define AT(x, bi) (x##_p + x##_o + (bi) * x##_st * ESZ(x##_t))\n"
    "\n"
    /* fp32/fp16/bf16 elements as float: ocl_ldf / ocl_stf (the host's
     * rounding, NaN as common/half.h stores it) */
    OCL_SRC_LOWP
    "\n"
    /* any element as ACC; stores narrow through float like the host's */
    "ACC ld_a(int t, __global const char *p, ulong i)\n"
    "{\n"
    "#ifdef HAS_FP64\n"
    "    if (t == DT_F64)\n"
    "        return (ACC)((__global const double *)p)[i];\n"
    "#endif\n"
    "    return (ACC)ocl_ldf(t, p, i);\n"
    "}\n"
    "\n"
    "void st_a(int t, __global char *p, ulong i, ACC v)\n"
    "{\n"
    "#ifdef HAS_FP64\n"
    "    if (t == DT_F64) {\n"
    "        ((__global double *)p)[i] = (double)v;\n"
    "        return;\n"
    "    }\n"
    "#endif\n"
    "    ocl_stf(t, p, i, (float)v);\n"
    "}\n"
    "\n"
    "ACC gelu(ACC x)\n"
    "{\n"
    "    return (ACC)0.5 * x * ((ACC)1 + tanh(K0 * (x + K1 * x * x * x)));\n"
    "}\n"
    "\n"
    "ACC gelu_grad(ACC x)\n"
    "{\n"
    "    ACC t = tanh(K0 * (x + K1 * x * x * x));\n"
    "    return (ACC)0.5 * ((ACC)1 + t) +\n"
    "           (ACC)0.5 * x * ((ACC)1 - t * t) * K0 * ((ACC)1 + (ACC)3 * K1 * x * x);\n"
    "}\n"
    "\n"
    /* src + beta*C in D's compute precision: fp64 for an fp64 GEMM, else
     * fp32 (the low-precision GEMM's fp32 result plus beta * (float)C) */
    "ACC base(int f, int dt, __global const char *s, ulong si,\n"
    "                __global const char *c, ulong ci, int ct, ulong beta_bits)\n"
    "{\n"
    "#ifdef HAS_FP64\n"
    "    if (dt == DT_F64) {\n"
    "        double x = 0.0;\n"
    "        if (f & F_SRC)\n"
    "            x = ((__global const double *)s)[si];\n"
    "        if (f & F_C) {\n"
    "            double y = as_double(beta_bits) * ((__global const double *)c)[ci];\n"
    "            x = (f & F_SRC) ? x + y : y;\n"
    "        }\n"
    "        return (ACC)x;\n"
    "    }\n"
    "#endif\n"
    "    float x = 0.0f;\n"
    "    if (f & F_SRC)\n"
    "        x = ((__global const float *)s)[si];\n"
    "    if (f & F_C) {\n"
    "        float y = as_float((uint)beta_bits) * ocl_ldf(ct, c, ci);\n"
    "        x = (f & F_SRC) ? x + y : y;\n"
    "    }\n"
    "    return (ACC)x;\n"
    "}\n"
    "\n"
    "__kernel void gemm_convert(ulong rows, ulong cols, ulong batch, MAT(s), MAT(d))\n"
    "{\n"
    "    ulong g = get_global_id(0);\n"
    "    ulong i = g % rows, r = g / rows, j = r % cols, bi = r / cols;\n"
    "    if (bi >= batch)\n"
    "        return;\n"
    "    __global const char *sb = AT(s, bi);\n"
    "    __global char *db = AT(d, bi);\n"
    "    ulong si = i + j * s_ld, di = i + j * d_ld;\n"
    "    if (s_t == d_t) {\n"
    "        if (ESZ(s_t) == 8)\n"
    "            ((__global ulong *)db)[di] = ((__global const ulong *)sb)[si];\n"
    "        else if (ESZ(s_t) == 4)\n"
    "            ((__global uint *)db)[di] = ((__global const uint *)sb)[si];\n"
    "        else\n"
    "            ((__global ushort *)db)[di] = ((__global const ushort *)sb)[si];\n"
    "        return;\n"
    "    }\n"
    "    ocl_stf(d_t, db, di, ocl_ldf(s_t, sb, si));\n"
    "}\n"
    "\n"
    /* One work item: rows [i0, i0+rpi) x columns [j0, j0+cpi) of one batch
     * entry.  rpi is 8 when a ReLU mask is written (one item owns each
     * mask byte), cpi is n for BGRAD_D (one item sums a whole row). */
    "__kernel void gemm_finish(ulong m, ulong n, ulong batch, ulong rpi, ulong cpi, int f,\n"
    "                          ulong beta_bits, MAT(s), MAT(c), MAT(d), MAT(b), MAT(a))\n"
    "{\n"
    "    ulong rgn = (m + rpi - 1) / rpi, cbn = (n + cpi - 1) / cpi;\n"
    "    ulong g = get_global_id(0);\n"
    "    ulong rg = g % rgn, r = g / rgn, cb = r % cbn, bi = r / cbn;\n"
    "    if (bi >= batch)\n"
    "        return;\n"
    "    ulong i0 = rg * rpi, i1 = min(m, i0 + rpi), j0 = cb * cpi, j1 = min(n, j0 + cpi);\n"
    "    __global const char *sb = AT(s, bi), *cbuf = AT(c, bi);\n"
    "    __global char *db = AT(d, bi), *bb = AT(b, bi);\n"
    "    __global char *ab = (f & (F_AUX_MASK | F_DRELU)) ? a_p + a_o + (bi * a_st) / 8\n"
    "                                                     : AT(a, bi);\n"
    "    ACC acc[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };\n"
    "    for (ulong j = j0; j < j1; j++) {\n"
    "        uint bits = 0;\n"
    "        for (ulong i = i0; i < i1; i++) {\n"
    "            ACC v = base(f, d_t, sb, i + j * s_ld, cbuf, i + j * c_ld, c_t, beta_bits);\n"
    "            ulong ai = i + j * a_ld;\n"
    "            if (f & F_BIAS)\n"
    "                v += ld_a(b_t, bb, i);\n"
    "            if (f & F_AUX_GELU)\n"
    "                st_a(a_t, ab, ai, v);\n"
    "            if (f & F_AUX_MASK)\n"
    "                bits |= (v > (ACC)0 ? 1u : 0u) << (i - i0);\n"
    "            if (f & F_RELU)\n"
    "                v = v > (ACC)0 ? v : (isnan(v) ? v : (ACC)0);\n"
    "            if (f & F_GELU)\n"
    "                v = gelu(v);\n"
    "            if ((f & F_DRELU) && !((((__global const uchar *)ab)[ai >> 3] >> (ai & 7)) & 1u))\n"
    "                v = (ACC)0;\n"
    "            if (f & F_DGELU)\n"
    "                v *= gelu_grad(ld_a(a_t, ab, ai));\n"
    "            if (f & F_BGRAD_D)\n"
    "                acc[i - i0] += v;\n"
    "            st_a(d_t, db, i + j * d_ld, v);\n"
    "        }\n"
    "        if (f & F_AUX_MASK) {\n"
    "            /* bits past row m in the last byte are not ours: kept */\n"
    "            __global uchar *mb = (__global uchar *)ab + ((j * a_ld + i0) >> 3);\n"
    "            uint keep = ~((1u << (i1 - i0)) - 1u) & 0xffu;\n"
    "            *mb = (uchar)((*mb & keep) | bits);\n"
    "        }\n"
    "    }\n"
    "    if (f & F_BGRAD_D)\n"
    "        for (ulong i = i0; i < i1; i++)\n"
    "            st_a(b_t, bb, i, acc[i - i0]);\n"
    "}\n"
    "\n"
    /* bias[o] = sum over p < k of s[o*so + p*sp], in order (as the host) */
    "__kernel void gemm_bgrad_op(ulong len, ulong k, ulong batch, ulong so, ulong sp,\n"
    "                            MAT(s), MAT(b))\n"
    "{\n"
    "    ulong g = get_global_id(0), o = g % len, bi = g / len;\n"
    "    if (bi >= batch)\n"
    "        return;\n"
    "    __global const char *sb = AT(s, bi);\n"
    "    ACC acc = 0;\n"
    "    for (ulong p = 0; p < k; p++)\n"
    "        acc += ld_a(s_t, sb, o * so + p * sp);\n"
    "    st_a(b_t, AT(b, bi), o, acc);\n"
    "}\n";
