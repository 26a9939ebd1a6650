/*
 * graft/dtype.h: element types of tensors.
 *
 * The values are TensorFlow's DataType enum numbers, so GraphDefs and checkpoints written by
 * TensorFlow carry the same numbers. A reference dtype (the type of a TensorFlow 1 reference
 * variable's output) is its base dtype + GRAFT_DTYPE_REF_OFFSET, e.g. GRAFT_FLOAT32_REF = 101.
 * Values may be added in later versions; existing ones never change.
 *
 * Names are TensorFlow's Python names ("float32", "int64", "string", "float32_ref", ...).
 *
 * Thread safety: every function here is a pure function and may be called from any thread.
 */
#ifndef GRAFT_DTYPE_H
#define GRAFT_DTYPE_H

#include "graft/common.h"

GRAFT_BEGIN_DECL

#define GRAFT_DTYPE_REF_OFFSET 100

/*
 * A dtype is an int32_t holding one of the values below (a fixed-width integer rather than
 * an enum type, so that its size is the same everywhere and any value may be passed in and
 * checked).
 */
typedef int32_t graft_dtype;

enum graft_dtype_value {
  GRAFT_DTYPE_INVALID = 0,
  GRAFT_FLOAT32 = 1,
  GRAFT_FLOAT64 = 2,
  GRAFT_INT32 = 3,
  GRAFT_UINT8 = 4,
  GRAFT_INT16 = 5,
  GRAFT_INT8 = 6,
  GRAFT_STRING = 7,
  GRAFT_COMPLEX64 = 8,
  GRAFT_INT64 = 9,
  GRAFT_BOOL = 10,
  GRAFT_QINT8 = 11,
  GRAFT_QUINT8 = 12,
  GRAFT_QINT32 = 13,
  GRAFT_BFLOAT16 = 14,
  GRAFT_QINT16 = 15,
  GRAFT_QUINT16 = 16,
  GRAFT_UINT16 = 17,
  GRAFT_COMPLEX128 = 18,
  GRAFT_FLOAT16 = 19,
  GRAFT_RESOURCE = 20,
  GRAFT_VARIANT = 21,
  GRAFT_UINT32 = 22,
  GRAFT_UINT64 = 23,

  GRAFT_FLOAT32_REF = 101,
  GRAFT_FLOAT64_REF = 102,
  GRAFT_INT32_REF = 103,
  GRAFT_UINT8_REF = 104,
  GRAFT_INT16_REF = 105,
  GRAFT_INT8_REF = 106,
  GRAFT_STRING_REF = 107,
  GRAFT_COMPLEX64_REF = 108,
  GRAFT_INT64_REF = 109,
  GRAFT_BOOL_REF = 110,
  GRAFT_QINT8_REF = 111,
  GRAFT_QUINT8_REF = 112,
  GRAFT_QINT32_REF = 113,
  GRAFT_BFLOAT16_REF = 114,
  GRAFT_QINT16_REF = 115,
  GRAFT_QUINT16_REF = 116,
  GRAFT_UINT16_REF = 117,
  GRAFT_COMPLEX128_REF = 118,
  GRAFT_FLOAT16_REF = 119,
  GRAFT_RESOURCE_REF = 120,
  GRAFT_VARIANT_REF = 121,
  GRAFT_UINT32_REF = 122,
  GRAFT_UINT64_REF = 123
};

/* 1 if dtype is one of the values above other than GRAFT_DTYPE_INVALID. */
GRAFT_API graft_bool graft_dtype_is_valid(graft_dtype dtype);

/*
 * The dtype table, for bindings that build theirs from it: writes every dtype that is not a
 * reference (GRAFT_FLOAT32 .. GRAFT_UINT64, in code order) to out, up to capacity of them, and
 * returns how many there are (out may be NULL with capacity 0 to ask the count). Thread-safe.
 */
GRAFT_API int graft_dtype_list(graft_dtype *out, int capacity);

/* The dtype's name ("float32", "int64_ref", ...); NULL for an invalid dtype. Static: never freed. */
GRAFT_API const char *graft_dtype_name(graft_dtype dtype);

/*
 * Looks a dtype up by name: every name graft_dtype_name() gives, and TensorFlow's aliases
 * "half", "float", "double" (and their "_ref" forms). GRAFT_EDTYPE for any other name.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_dtype_from_name(graft_dtype *out, const char *name);

/*
 * Bytes per element in a tensor of this dtype (the base dtype's, for a reference dtype);
 * 0 for dtypes without a fixed size (string, resource, variant) and for invalid values.
 */
GRAFT_API size_t graft_dtype_size(graft_dtype dtype);

/* Classification, as TensorFlow's DType properties; a reference dtype answers as its base. */
GRAFT_API graft_bool graft_dtype_is_floating(graft_dtype dtype);  /* real floating point */
GRAFT_API graft_bool graft_dtype_is_complex(graft_dtype dtype);
GRAFT_API graft_bool graft_dtype_is_integer(graft_dtype dtype);   /* not quantized, not bool */
GRAFT_API graft_bool graft_dtype_is_quantized(graft_dtype dtype);
GRAFT_API graft_bool graft_dtype_is_unsigned(graft_dtype dtype);  /* uint8/16/32/64 only */
GRAFT_API graft_bool graft_dtype_is_bool(graft_dtype dtype);
GRAFT_API graft_bool graft_dtype_is_ref(graft_dtype dtype);

/* The non-reference dtype; GRAFT_DTYPE_INVALID for an invalid value. */
GRAFT_API graft_dtype graft_dtype_base(graft_dtype dtype);
/* The reference dtype; GRAFT_DTYPE_INVALID for an invalid value. */
GRAFT_API graft_dtype graft_dtype_as_ref(graft_dtype dtype);
/* The dtype of the real part: float32 for complex64, float64 for complex128, else the base. */
GRAFT_API graft_dtype graft_dtype_real(graft_dtype dtype);

/*
 * 1 if a tensor of dtype other converts implicitly to dtype self: T accepts T and T_ref;
 * T_ref accepts only T_ref.
 */
GRAFT_API graft_bool graft_dtype_is_compatible_with(graft_dtype self, graft_dtype other);

/*
 * The smallest (most negative) and largest finite values of a numeric dtype. GRAFT_EDTYPE,
 * naming the dtype, for types that have none: bool, string, complex, quantized, resource,
 * variant. The double forms are exact for every dtype except int64/uint64 (rounded to the
 * nearest double); the integer forms are exact and serve integer dtypes only.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_dtype_min(double *out, graft_dtype dtype);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_dtype_max(double *out, graft_dtype dtype);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_dtype_int_min(int64_t *out, graft_dtype dtype);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_dtype_int_max(uint64_t *out, graft_dtype dtype);

GRAFT_END_DECL

#endif /* GRAFT_DTYPE_H */
