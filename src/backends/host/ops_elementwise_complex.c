/*
 * ops_elementwise_complex.c - the host elementwise op on complex numbers
 * (complex64/complex128 operands, see torchfl/ops/elementwise.h).
 *
 * Complex ops are rare next to the real ones (no training step of a real
 * model uses them), so this path favours being plainly right over speed:
 * each element is read into a double complex, the op runs in double
 * complex arithmetic and the result is rounded into the output type.
 * complex64 results are thus within an ulp of PyTorch's complex<float>.
 */
#include "backends/host/ops_elementwise_complex.h"
#include "backends/host/ops_elementwise_fp16.h"

#include <complex.h>
#include <math.h>
#include <string.h>

typedef double _Complex cdouble;

static int is_complex(int dt)
{
    return dt == TFL_DT_C64 || dt == TFL_DT_C128;
}

int host_ew_complex_op(const tfl_elementwise_op *op)
{
    if (is_complex(op->compute))
        return 1;
    for (int k = 0; k <= op->ninputs && k < TFL_EW_MAX_OPERANDS; k++)
        if (is_complex(op->operand[k].dtype))
            return 1;
    return 0;
}

static int loadable(int dt)
{
    switch (dt) {
    case TFL_DT_C64: case TFL_DT_C128: case TFL_DT_F32: case TFL_DT_F64: case TFL_DT_F16:
    case TFL_DT_BF16: case TFL_DT_I64: case TFL_DT_I32: case TFL_DT_I8: case TFL_DT_U8:
    case TFL_DT_BOOL:
        return 1;
    default:
        return 0;
    }
}

int host_ew_complex_supported(const tfl_elementwise_op *op)
{
    int n;
    switch (op->code) {
    case TFL_EW_FILL: n = 0; break;
    case TFL_EW_COPY: case TFL_EW_NEG: case TFL_EW_RECIPROCAL: case TFL_EW_CONJ:
    case TFL_EW_NEG_CONJ:
        n = 1; break;
    case TFL_EW_ADD: case TFL_EW_MUL: case TFL_EW_DIV: case TFL_EW_EQ: case TFL_EW_NE:
    case TFL_EW_MASKED_FILL: case TFL_EW_POLAR: case TFL_EW_COMPLEX:
        n = 2; break;
    case TFL_EW_WHERE: n = 3; break;
    default: return 0;
    }
    if (op->ninputs != n || op->ndim < 1 || op->ndim > TFL_EW_MAX_DIMS ||
        op->operand[0].is_scalar || !loadable(op->operand[0].dtype))
        return 0;
    for (int k = 1; k <= n; k++)
        if (!op->operand[k].is_scalar && !loadable(op->operand[k].dtype))
            return 0;
    return 1;
}

static cdouble load1(int dt, const char *p)
{
    switch (dt) {
    case TFL_DT_C64: { float v[2]; memcpy(v, p, 8); return CMPLX(v[0], v[1]); }
    case TFL_DT_C128: { double v[2]; memcpy(v, p, 16); return CMPLX(v[0], v[1]); }
    case TFL_DT_F32: { float v; memcpy(&v, p, 4); return v; }
    case TFL_DT_F64: { double v; memcpy(&v, p, 8); return v; }
    case TFL_DT_F16: { uint16_t v; memcpy(&v, p, 2); return tfl_half_to_float(v); }
    case TFL_DT_BF16: { uint16_t v; memcpy(&v, p, 2); return tfl_bf16_to_float(v); }
    case TFL_DT_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case TFL_DT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case TFL_DT_I8: return (int8_t)*p;
    case TFL_DT_U8: return (uint8_t)*p;
    default: return *p != 0;
    }
}

static void store1(int dt, char *p, cdouble v)
{
    double re = creal(v);
    switch (dt) {
    case TFL_DT_C64: { float w[2] = { (float)re, (float)cimag(v) }; memcpy(p, w, 8); break; }
    case TFL_DT_C128: { double w[2] = { re, cimag(v) }; memcpy(p, w, 16); break; }
    case TFL_DT_F32: { float w = (float)re; memcpy(p, &w, 4); break; }
    case TFL_DT_F64: memcpy(p, &re, 8); break;
    case TFL_DT_F16: { uint16_t h = tfl_float_to_half((float)re); memcpy(p, &h, 2); break; }
    case TFL_DT_BF16: { uint16_t h = tfl_float_to_bf16((float)re); memcpy(p, &h, 2); break; }
    /* float -> integer of a value out of range is undefined in C: saturate */
    case TFL_DT_I64: case TFL_DT_I32: case TFL_DT_I8: case TFL_DT_U8: {
        int64_t w = isnan(re) ? 0 : re >= 9.2e18 ? INT64_MAX : re <= -9.2e18 ? INT64_MIN
                                                                             : (int64_t)re;
        if (dt == TFL_DT_I64) memcpy(p, &w, 8);
        else if (dt == TFL_DT_I32) { int32_t x = (int32_t)w; memcpy(p, &x, 4); }
        else *p = (char)w;
        break;
    }
    default: *p = v != 0; break;
    }
}

static cdouble input(const tfl_elementwise_op *op, int k, char *const ptr[],
                     const int64_t st[], int64_t i)
{
    const tfl_ew_operand *o = &op->operand[k];
    if (o->is_scalar)
        return CMPLX(o->value_f, o->value_im);
    return load1(o->dtype, ptr[k] + i * st[k]);
}

tfl_status host_ew_complex_row(const tfl_elementwise_op *op, char *const ptr[],
                               const int64_t st[], int64_t n)
{
    const cdouble p0 = CMPLX(op->param_f[0], op->param_im[0]);
    const int od = op->operand[0].dtype;
    for (int64_t i = 0; i < n; i++) {
        cdouble a = op->ninputs >= 1 ? input(op, 1, ptr, st, i) : 0;
        cdouble b = op->ninputs >= 2 ? input(op, 2, ptr, st, i) : 0;
        cdouble r;
        switch (op->code) {
        case TFL_EW_FILL: r = p0; break;
        case TFL_EW_COPY: r = a; break;
        case TFL_EW_ADD: r = a + p0 * b; break;
        case TFL_EW_MUL: r = a * b; break;
        case TFL_EW_DIV: r = a / b; break;
        case TFL_EW_NEG: r = -a; break;
        case TFL_EW_RECIPROCAL: r = 1.0 / a; break;
        case TFL_EW_CONJ: r = conj(a); break;
        case TFL_EW_NEG_CONJ: r = -conj(a); break;
        case TFL_EW_EQ: r = a == b; break;
        case TFL_EW_NE: r = a != b; break;
        case TFL_EW_MASKED_FILL: r = b != 0 ? p0 : a; break;
        case TFL_EW_POLAR: r = CMPLX(creal(a) * cos(creal(b)), creal(a) * sin(creal(b))); break;
        case TFL_EW_COMPLEX: r = CMPLX(creal(a), creal(b)); break;
        case TFL_EW_WHERE: r = a != 0 ? b : input(op, 3, ptr, st, i); break;
        default: return TFL_ERR_UNSUPPORTED;
        }
        store1(od, ptr[0] + i * st[0], r);
    }
    return TFL_OK;
}
