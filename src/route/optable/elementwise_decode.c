/*
 * elementwise_decode.c - read one elementwise launch's parameters into a
 * tfl_elementwise_op, following the plan built from the kernel's name
 * (elementwise_table.h; layouts in pt_abi.h and CUDALoops.cuh):
 *
 *   vectorized: (int N, F f, std::array<char*, n> data)
 *   unrolled:   (int N, F f, array data, TrivialOffsetCalculator ic, oc,
 *                loader, storer)  - LoadWithCast<k>/StoreWithCast<1> hold
 *                the operands' c10::ScalarTypes
 *   legacy:     (int N, lambda{ OffsetCalculator<n> oc; array data; F f;
 *                [ScalarType dtypes[n]]; nvcc's 8-byte pointer })
 */
#include "route/optable/elementwise_table.h"
#include "route/optable/pt_abi.h"
#include "torchfl/ops/elementwise.h"

#include <stdio.h>
#include <string.h>

const char *tfl_ew_code_name(int code)
{
    static const char *names[TFL_EW_CODE_COUNT] = {
        "fill", "copy", "add", "mul", "div", "neg", "abs", "exp", "log", "sqrt", "rsqrt",
        "sin", "cos", "tanh", "sigmoid", "reciprocal", "sign", "logical_not", "pow",
        "square", "cube", "inv_square", "clamp", "clamp_min", "clamp_max", "clamp_t",
        "maximum", "minimum", "where", "eq", "ne", "lt", "le", "gt", "ge", "threshold",
        "gelu", "gelu_tanh", "gelu_backward", "gelu_tanh_backward", "silu", "silu_backward",
        "tanh_backward", "sigmoid_backward", "softplus", "softplus_backward", "leaky_relu",
        "leaky_relu_backward", "masked_fill", "erf", "log1p", "expm1", "floor", "ceil",
        "round", "trunc", "logical_and", "logical_or", "logical_xor", "bitwise_not", "lerp",
        "lerp_scalar", "addcmul", "addcdiv", "div_trunc", "div_floor", "fmod", "remainder",
        "atan2", "bitwise_and", "bitwise_or", "bitwise_xor", "div_trunc", "div_floor",
        "arange", "log2", "log10", "tan", "atan", "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh", "frac", "mish", "log_sigmoid", "hypot", "copysign", "logaddexp", "fmax", "fmin", "xlogy",
    };
    return code >= 0 && code < TFL_EW_CODE_COUNT && names[code] ? names[code] : "?";
}

/* Load/StoreWithCast<k> (plan value k+1; 0 = ...WithoutCast, empty):
 * ScalarType dtypes[max(k,1)] padded to 4, uint32_t sizes[max(k,1)]. */
static size_t cast_size(int planned)
{
    if (!planned)
        return 1;
    size_t k = planned - 1 > 0 ? (size_t)planned - 1 : 1;
    return tfl_pt_align(k, 4) + 4 * k;
}

int tfl_ew_param_layout(const tfl_ew_plan *p, size_t *off, size_t *size, int max)
{
    size_t o[8], s[8];
    int n = 0;
    size_t data_bytes = 8 * (size_t)p->ntensors;
    o[n] = 0; s[n++] = 4;                                        /* N */
    if (p->form == TFL_EWF_INDEX) {
        s[0] = (size_t)p->index_bytes;
        o[n] = 8; s[n++] = p->fn.size;
        o[n] = tfl_pt_align(8 + p->fn.size, 8); s[n++] = 8;     /* scalar_t* out */
    } else if (p->form == TFL_EWF_LEGACY) {
        /* a functor aligned beyond 8 (complex<double>) aligns the lambda */
        size_t fal = p->fn.align > 8 ? p->fn.align : 8;
        size_t lam = tfl_pt_align(tfl_pt_align(tfl_pt_offset_calc_size(p->ntensors), 8)
                                  + data_bytes, fal) + p->fn.size;
        if (p->legacy_cast)
            lam += (size_t)p->ntensors;
        lam = tfl_pt_align(tfl_pt_align(lam, 8) + 8, fal);      /* nvcc pointer */
        o[n] = tfl_pt_align(4, fal); s[n++] = lam;
    } else {
        size_t at = tfl_pt_align(4, p->fn.align);
        o[n] = at; s[n++] = p->fn.size;
        at = tfl_pt_align(at + p->fn.size, 8);
        o[n] = at; s[n++] = data_bytes;
        at += data_bytes;
        if (p->form == TFL_EWF_UNROLLED) {
            o[n] = at; s[n++] = 1; at += 1;                      /* ic */
            o[n] = at; s[n++] = 1; at += 1;                      /* oc */
            size_t ls = cast_size(p->load_cast), ss = cast_size(p->store_cast);
            at = tfl_pt_align(at, p->load_cast ? 4 : 1);
            o[n] = at; s[n++] = ls; at += ls;
            at = tfl_pt_align(at, p->store_cast ? 4 : 1);
            o[n] = at; s[n++] = ss;
        }
    }
    for (int i = 0; i < n && i < max; i++) {
        off[i] = o[i];
        size[i] = s[i];
    }
    return n;
}

tfl_status tfl_ew_decode(const tfl_ew_plan *p, const void *const *args,
                         tfl_elementwise_op *op, int64_t *count, char *err, size_t errlen)
{
    const tfl_ew_functor *fn = &p->fn;
    int nt = p->ntensors;
    int32_t n32;
    memcpy(&n32, args[0], 4);
    if (p->form == TFL_EWF_INDEX && p->index_bytes == 8) {
        int64_t n64;
        memcpy(&n64, args[0], 8);
        if (n64 > INT32_MAX) {
            snprintf(err, errlen, "elementwise %s: %lld elements", fn->name, (long long)n64);
            return TFL_ERR_UNSUPPORTED;
        }
        n32 = (int32_t)n64;
    }
    if (n32 < 0) {
        snprintf(err, errlen, "elementwise %s: negative element count %d", fn->name, (int)n32);
        return TFL_ERR_INVALID;
    }
    *count = n32;
    if (n32 == 0)
        return TFL_OK;

    tfl_dtype dt[TFL_EW_MAX_OPERANDS];
    dt[0] = fn->out_dt;
    for (int i = 1; i < nt; i++)
        dt[i] = fn->in_dt[i - 1];
    char *data[TFL_EW_MAX_OPERANDS];
    const unsigned char *fb;
    int64_t strides[TFL_EW_MAX_OPERANDS][TFL_PT_MAX_DIMS];
    memset(strides, 0, sizeof strides);
    memset(op, 0, sizeof *op);

    if (p->form == TFL_EWF_LEGACY) {
        const unsigned char *lam = args[1];
        size_t data_off = tfl_pt_align(tfl_pt_offset_calc_size(nt), 8);
        if (!tfl_pt_offset_calc_decode(lam, nt, &op->ndim, op->shape, strides)) {
            snprintf(err, errlen, "elementwise %s: bad OffsetCalculator", fn->name);
            return TFL_ERR_UNSUPPORTED;
        }
        memcpy(data, lam + data_off, 8 * (size_t)nt);
        fb = lam + tfl_pt_align(data_off + 8 * (size_t)nt, fn->align > 8 ? fn->align : 8);
        if (p->legacy_cast) {
            const unsigned char *st = fb + fn->size;
            for (int i = 0; i < nt; i++)
                if (!tfl_pt_scalar_type(st[i], &dt[i])) {
                    snprintf(err, errlen, "elementwise %s: operand %d has ScalarType %d "
                             "(not mapped)", fn->name, i, st[i]);
                    return TFL_ERR_UNSUPPORTED;
                }
        }
        if (op->ndim == 0) {
            op->ndim = 1;
            op->shape[0] = 1;
        }
        int64_t total = 1;
        for (int d = 0; d < op->ndim; d++)
            total *= op->shape[d];
        if (total != n32) {
            snprintf(err, errlen, "elementwise %s: shape does not match N=%d", fn->name, (int)n32);
            return TFL_ERR_UNSUPPORTED;
        }
    } else if (p->form == TFL_EWF_INDEX) {
        fb = args[1];
        memcpy(data, args[2], 8);
        op->ndim = 1;
        op->shape[0] = n32;
        strides[0][0] = (int64_t)tfl_dtype_size(dt[0]);
    } else {
        fb = args[1];
        memcpy(data, args[2], 8 * (size_t)nt);
        if (p->form == TFL_EWF_UNROLLED) {
            const unsigned char *ld = args[5], *stc = args[6];
            for (int i = 0; i < p->load_cast - 1; i++)
                if (!tfl_pt_scalar_type(ld[i], &dt[1 + i])) {
                    snprintf(err, errlen, "elementwise %s: input %d has ScalarType %d "
                             "(not mapped)", fn->name, i, ld[i]);
                    return TFL_ERR_UNSUPPORTED;
                }
            if (p->store_cast && !tfl_pt_scalar_type(stc[0], &dt[0])) {
                snprintf(err, errlen, "elementwise %s: output has ScalarType %d (not mapped)",
                         fn->name, stc[0]);
                return TFL_ERR_UNSUPPORTED;
            }
        }
        op->ndim = 1;
        op->shape[0] = n32;
        for (int i = 0; i < nt; i++)
            strides[i][0] = (int64_t)tfl_dtype_size(dt[i]);
    }
    for (int i = 0; i < nt; i++)
        if (!tfl_dtype_size(dt[i])) {
            snprintf(err, errlen, "elementwise %s: unknown operand type", fn->name);
            return TFL_ERR_UNSUPPORTED;
        }

    /* Scalars captured in the functor. */
    int code = fn->code;
    tfl_ew_operand cst;
    memset(&cst, 0, sizeof cst);
    for (int k = 0; k < fn->nfield; k++) {
        const tfl_ew_field *f = &fn->field[k];
        double vf, vim = 0;
        int64_t vi;
        if (f->dtype == TFL_DT_C64) {            /* c10::complex<float> {re, im} */
            float c[2];
            memcpy(c, fb + f->off, 8);
            vf = c[0]; vim = c[1]; vi = (int64_t)0;
        } else if (f->dtype == TFL_DT_C128) {
            double c[2];
            memcpy(c, fb + f->off, 16);
            vf = c[0]; vim = c[1]; vi = (int64_t)0;
        } else if (!tfl_pt_load_scalar(fb + f->off, (tfl_dtype)f->dtype, &vf, &vi)) {
            return TFL_ERR_UNSUPPORTED;
        }
        switch (f->role) {
        case TFL_EWP_PARAM0: case TFL_EWP_PARAM1: case TFL_EWP_PARAM2: case TFL_EWP_PARAM3: {
            int slot = f->role <= TFL_EWP_PARAM1 ? f->role : f->role - TFL_EWP_PARAM2 + 2;
            op->param_f[slot] = vf;
            op->param_i[slot] = vi;
            op->param_im[slot] = vim;
            break;
        }
        case TFL_EWP_SELECT:
            if (vi < 0 || vi >= fn->nsel) {
                snprintf(err, errlen, "elementwise %s: unknown variant %lld", fn->name,
                         (long long)vi);
                return TFL_ERR_UNSUPPORTED;
            }
            code = fn->sel[vi];
            break;
        case TFL_EWP_IGNORE:
            break;
        default:
            cst.is_scalar = 1;
            cst.dtype = f->dtype;
            cst.value_f = vf;
            cst.value_i = vi;
            cst.value_im = vim;
            break;
        }
    }
    op->code = (tfl_ew_code)code;
    op->compute = fn->compute;
    op->ninputs = fn->arity + (fn->const_pos ? 1 : 0);
    for (int i = 0, t = 0; i <= op->ninputs; i++) {
        tfl_ew_operand *o = &op->operand[i];
        if (i > 0 && i == fn->const_pos) {
            *o = cst;
            continue;
        }
        o->dtype = dt[t];
        o->data = data[t];
        memcpy(o->strides, strides[t], sizeof o->strides);
        t++;
    }
    return TFL_OK;
}
