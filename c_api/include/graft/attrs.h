/*
 * graft/attrs.h: the attributes of an op being made, one family of setters for both ways of
 * making an op: a graph op description (graft_op_desc_attrs) and an eager or traced op call
 * (graft_op_call_attrs).
 *
 *   graft_attrs *a = graft_op_desc_attrs(desc);
 *   graft_attrs_set_bool(a, "transpose_a", 1);
 *
 * graft_attrs_declared_type tells the type the op's definition gives an attribute, so that a
 * caller holding an untyped value (a host language's number, list or string) can pick the
 * right setter instead of guessing from the value.
 *
 * Values are copied. Setters do not check the value against the op's definition: the op
 * description's finish, or the op call's execute, does, and names the op and attribute.
 *
 * Ownership: a graft_attrs is borrowed from its description or call, valid until that is
 * finished or freed. Threading: as the description or call it belongs to (one thread at a time).
 */
#ifndef GRAFT_ATTRS_H
#define GRAFT_ATTRS_H

#include "graft/common.h"
#include "graft/dtype.h"
#include "graft/tensor.h"

GRAFT_BEGIN_DECL

typedef struct graft_attrs graft_attrs;

/* Attribute types (TensorFlow's AttrValue kinds), as returned by graft_attrs_declared_type and
 * graft_op_attr_type. */
typedef int32_t graft_attr_type;
enum graft_attr_type_value {
  GRAFT_ATTR_NONE = 0,
  GRAFT_ATTR_STRING = 1,
  GRAFT_ATTR_INT = 2,
  GRAFT_ATTR_FLOAT = 3,
  GRAFT_ATTR_BOOL = 4,
  GRAFT_ATTR_TYPE = 5,
  GRAFT_ATTR_SHAPE = 6,
  GRAFT_ATTR_TENSOR = 7,
  GRAFT_ATTR_FUNC = 8,
  GRAFT_ATTR_PLACEHOLDER = 9,
  GRAFT_ATTR_STRING_LIST = 10,
  GRAFT_ATTR_INT_LIST = 11,
  GRAFT_ATTR_FLOAT_LIST = 12,
  GRAFT_ATTR_BOOL_LIST = 13,
  GRAFT_ATTR_TYPE_LIST = 14,
  GRAFT_ATTR_SHAPE_LIST = 15,
  GRAFT_ATTR_TENSOR_LIST = 16,
  GRAFT_ATTR_FUNC_LIST = 17
};

/*
 * The type the op type's definition declares for attribute name. GRAFT_ENOTFOUND, naming the op
 * type and the attribute, when the definition has no such attribute or the op type has no
 * definition (a library function called as an op): such attributes take whatever type is set.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_declared_type(graft_attr_type *out_type, const graft_attrs *attrs,
                                                              const char *name);

GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_int(graft_attrs *attrs, const char *name, int64_t value);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_float(graft_attrs *attrs, const char *name, float value);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_bool(graft_attrs *attrs, const char *name, graft_bool value);
/* GRAFT_EDTYPE for a value that is no dtype. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_type(graft_attrs *attrs, const char *name, graft_dtype value);
/* Bytes, not NUL-terminated (value may be NULL when length is 0). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_string(graft_attrs *attrs, const char *name, const void *value,
                                                           size_t length);
/* A shape: ndims -1 for an unknown rank (dims may then be NULL), dims[i] -1 for an unknown dimension. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_shape(graft_attrs *attrs, const char *name, const int64_t *dims,
                                                          int ndims);
/* The tensor's contents are shared, not copied: do not write to it afterwards. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_tensor(graft_attrs *attrs, const char *name,
                                                           const graft_tensor *value);
/* A function: the name of a function of the graph's library (or of an op) to call. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_func(graft_attrs *attrs, const char *name,
                                                         const char *function_name);

/* Lists: n values (values may be NULL when n is 0). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_int_list(graft_attrs *attrs, const char *name,
                                                             const int64_t *values, int n);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_float_list(graft_attrs *attrs, const char *name,
                                                               const float *values, int n);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_bool_list(graft_attrs *attrs, const char *name,
                                                              const graft_bool *values, int n);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_type_list(graft_attrs *attrs, const char *name,
                                                              const graft_dtype *values, int n);
/* String i is lengths[i] bytes at values[i]. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_string_list(graft_attrs *attrs, const char *name,
                                                                const void *const *values, const size_t *lengths,
                                                                int n);
/* Shape i has ndims[i] dimensions at dims[i] (ndims[i] -1: unknown rank). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_shape_list(graft_attrs *attrs, const char *name,
                                                               const int64_t *const *dims, const int *ndims, int n);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_tensor_list(graft_attrs *attrs, const char *name,
                                                                const graft_tensor *const *values, int n);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_attrs_set_func_list(graft_attrs *attrs, const char *name,
                                                              const char *const *function_names, int n);

GRAFT_END_DECL

#endif /* GRAFT_ATTRS_H */
