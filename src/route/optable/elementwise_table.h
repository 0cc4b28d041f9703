/*
 * elementwise_table.h - internals of the elementwise family decoder:
 * the plan built from a kernel name (form, functor, layouts) and the
 * functions that parse functor names and decode launch parameters.
 */
#ifndef TFL_ELEMENTWISE_TABLE_H
#define TFL_ELEMENTWISE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"

typedef enum tfl_ew_form {
    TFL_EWF_VECTORIZED = 1,
    TFL_EWF_UNROLLED,
    TFL_EWF_LEGACY,
    TFL_EWF_INDEX            /* elementwise_kernel_with_index (arange)      */
} tfl_ew_form;

/* Where a functor keeps one captured value and what it means. */
enum {
    TFL_EWP_PARAM0 = 0,      /* -> param_f/param_i[0]                       */
    TFL_EWP_PARAM1 = 1,      /* -> param[1]                                 */
    TFL_EWP_SELECT = 2,      /* an enum choosing the op code (sel table)    */
    TFL_EWP_CONST_A = 3,     /* the constant first input                    */
    TFL_EWP_CONST_B = 4,     /* the constant second input                   */
    TFL_EWP_PARAM2 = 5,      /* -> param[2]                                 */
    TFL_EWP_PARAM3 = 6,      /* -> param[3]                                 */
    TFL_EWP_IGNORE = 7       /* a constant the op's definition already has  */
};

typedef struct tfl_ew_field {
    uint16_t off;            /* byte offset inside the functor              */
    uint8_t role;            /* TFL_EWP_*                                   */
    uint8_t dtype;           /* tfl_dtype of the stored value (I32 = enum)  */
} tfl_ew_field;

/* What a functor type computes and how its bytes are laid out. */
typedef struct tfl_ew_functor {
    const char *name;        /* short op name (statistics)                  */
    int code;                /* tfl_ew_code, unless chosen by a SELECT field */
    const int *sel;          /* SELECT value -> tfl_ew_code                 */
    int nsel;
    int arity;               /* tensor inputs the functor takes             */
    tfl_dtype in_dt[3];      /* their element types when loaded without cast */
    tfl_dtype out_dt;        /* result type                                 */
    tfl_dtype compute;       /* the op's scalar_t                           */
    int const_pos;           /* 0, or 1/2: op input that is a constant      */
    size_t size, align;      /* sizeof / alignof the functor                */
    int nfield;
    tfl_ew_field field[5];
} tfl_ew_functor;

typedef struct tfl_ew_plan {
    tfl_ew_form form;
    int vec;                 /* vector width / legacy unroll (info only)    */
    int ntensors;            /* output + tensor inputs                      */
    int load_cast;           /* unrolled: LoadWithCast<k>: k+1 (0: without) */
    int store_cast;          /* unrolled: StoreWithCast<1>: 2 (0: without)   */
    int legacy_cast;         /* legacy: gpu_kernel_impl (dtypes captured)   */
    int index_bytes;         /* with_index: size of N (int or int64_t)      */
    tfl_ew_functor fn;
} tfl_ew_plan;

/* Parse a simplified demangled functor type name; 0 if not mapped. */
int tfl_ew_parse_functor(const char *name, tfl_ew_functor *out);

/* Functor of an elementwise_kernel_with_index kernel (arange). */
int tfl_ew_parse_index_functor(const char *name, tfl_ew_functor *out);

/* The plan for a mangled kernel name (malloc'd), or NULL. */
tfl_ew_plan *tfl_ew_plan_for(const char *mangled);

/* Parameter layout the plan expects: up to max (offset, size) pairs in
 * parameter order; returns the count.  Used to check plans against the
 * cubins' parameter tables. */
int tfl_ew_param_layout(const tfl_ew_plan *p, size_t *off, size_t *size, int max);

/* Decode one launch into op; *n receives the element count (0: nothing
 * to do).  TFL_ERR_UNSUPPORTED if this launch cannot be decoded. */
struct tfl_elementwise_op;
tfl_status tfl_ew_decode(const tfl_ew_plan *p, const void *const *args,
                         struct tfl_elementwise_op *op, int64_t *n,
                         char *err, size_t errlen);

/* Name of an op code (messages). */
const char *tfl_ew_code_name(int code);

#endif
