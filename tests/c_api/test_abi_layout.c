/*
 * The layout of every struct of the public headers and the values of their enums, asserted at
 * compile time for the supported 64-bit platforms (LP64 and LLP64 give the same numbers here:
 * no field is a long).
 *
 * Each of these is part of the ABI: a program compiled against the headers has these sizes,
 * offsets and values built in. Changing one breaks every program built before, so it needs a
 * SONAME bump (GRAFT_SOVERSION in graft/version.h) and a new abi/libgraft.abi
 * (scripts/update-abi-baseline.sh); docs/c-api.md, "ABI stability". Options structs grow only
 * at the end, with a new *_VERSION. A new struct or enum gets its asserts here.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "test_util.h"

#define ABI_SIZE(type, size, align)                                                         \
  _Static_assert(sizeof(type) == (size), #type ": its size changed, which breaks the ABI"); \
  _Static_assert(alignof(type) == (align), #type ": its alignment changed, which breaks the ABI")
#define ABI_FIELD(type, field, offset, size)                                                      \
  _Static_assert(offsetof(type, field) == (offset), #type "." #field ": its offset changed, which breaks the ABI"); \
  _Static_assert(sizeof(((type *)0)->field) == (size), #type "." #field ": its size changed, which breaks the ABI")
#define ABI_VALUE(name, value) _Static_assert((name) == (value), #name ": its value changed, which breaks the ABI")

/* Scalar types of the signatures. Enum types are int-sized with every compiler we support. */
ABI_SIZE(graft_bool, 4, 4);
ABI_SIZE(graft_dtype, 4, 4);
ABI_SIZE(graft_status, 4, 4);
ABI_SIZE(graft_attr_type, 4, 4);
ABI_SIZE(graft_item_kind, 4, 4);
ABI_SIZE(graft_gradient_kind, 4, 4);
ABI_SIZE(graft_unconnected_gradients, 4, 4);
ABI_SIZE(enum graft_dtype_value, 4, 4);

#if UINTPTR_MAX == UINT64_MAX

/* graph.h */
ABI_SIZE(graft_output, 16, 8);
ABI_FIELD(graft_output, op, 0, 8);
ABI_FIELD(graft_output, index, 8, 4);

ABI_SIZE(graft_collection_item, 48, 8);
ABI_FIELD(graft_collection_item, kind, 0, 4);
ABI_FIELD(graft_collection_item, op, 8, 8);
ABI_FIELD(graft_collection_item, tensor, 16, 16);
ABI_FIELD(graft_collection_item, string, 32, 8);
ABI_FIELD(graft_collection_item, value, 40, 8);

/* function.h */
ABI_SIZE(graft_arg, 48, 8);
ABI_FIELD(graft_arg, kind, 0, 4);
ABI_FIELD(graft_arg, value, 8, 8);
ABI_FIELD(graft_arg, i, 16, 8);
ABI_FIELD(graft_arg, f, 24, 8);
ABI_FIELD(graft_arg, s, 32, 8);
ABI_FIELD(graft_arg, b, 40, 4);

ABI_SIZE(graft_tensor_spec, 32, 8);
ABI_FIELD(graft_tensor_spec, dtype, 0, 4);
ABI_FIELD(graft_tensor_spec, dims, 8, 8);
ABI_FIELD(graft_tensor_spec, ndims, 16, 4);
ABI_FIELD(graft_tensor_spec, name, 24, 8);

ABI_SIZE(graft_function_options, 24, 8);
ABI_FIELD(graft_function_options, version, 0, 4);
ABI_FIELD(graft_function_options, input_signature, 8, 8);
ABI_FIELD(graft_function_options, ninput_signature, 16, 4);
ABI_FIELD(graft_function_options, reduce_retracing, 20, 4);

/* session.h */
ABI_SIZE(graft_session_options, 48, 8);
ABI_FIELD(graft_session_options, version, 0, 4);
ABI_FIELD(graft_session_options, num_threads, 4, 4);
ABI_FIELD(graft_session_options, track_memory, 8, 4);
ABI_FIELD(graft_session_options, disabled_rewrites, 12, 4);
ABI_FIELD(graft_session_options, default_device, 16, 8);
ABI_FIELD(graft_session_options, strict_placement, 24, 4);
ABI_FIELD(graft_session_options, max_memory_bytes, 32, 8);
ABI_FIELD(graft_session_options, cluster, 40, 8); /* version 4 */

/* run_options.h */
ABI_SIZE(graft_run_options, 24, 8);
ABI_FIELD(graft_run_options, version, 0, 4);
ABI_FIELD(graft_run_options, timeout_ms, 8, 8);
ABI_FIELD(graft_run_options, cancellation, 16, 8);

#endif /* 64-bit */

/* Versions of the options structs, which the library reads to know which fields a caller set. */
ABI_VALUE(GRAFT_SESSION_OPTIONS_VERSION, 4);
ABI_VALUE(GRAFT_RUN_OPTIONS_VERSION, 1);
ABI_VALUE(GRAFT_FUNCTION_OPTIONS_VERSION, 1);

/* error.h */
ABI_VALUE(GRAFT_OK, 0);
ABI_VALUE(GRAFT_EUNKNOWN, -1);
ABI_VALUE(GRAFT_EINVAL, -2);
ABI_VALUE(GRAFT_ENOTFOUND, -3);
ABI_VALUE(GRAFT_EEXISTS, -4);
ABI_VALUE(GRAFT_EDTYPE, -5);
ABI_VALUE(GRAFT_ESHAPE, -6);
ABI_VALUE(GRAFT_ERANGE, -7);
ABI_VALUE(GRAFT_ENOMEM, -8);
ABI_VALUE(GRAFT_EPRECONDITION, -9);
ABI_VALUE(GRAFT_EUNIMPLEMENTED, -10);
ABI_VALUE(GRAFT_EINTERNAL, -11);
ABI_VALUE(GRAFT_EDATALOSS, -12);
ABI_VALUE(GRAFT_EDEVICE, -13);
ABI_VALUE(GRAFT_ECANCELLED, -14);
ABI_VALUE(GRAFT_EDEADLINE, -15);

/* dtype.h: TensorFlow's DataType numbers; a reference dtype is its dtype + 100. */
ABI_VALUE(GRAFT_DTYPE_REF_OFFSET, 100);
ABI_VALUE(GRAFT_DTYPE_INVALID, 0);
ABI_VALUE(GRAFT_FLOAT32, 1);
ABI_VALUE(GRAFT_FLOAT64, 2);
ABI_VALUE(GRAFT_INT32, 3);
ABI_VALUE(GRAFT_UINT8, 4);
ABI_VALUE(GRAFT_INT16, 5);
ABI_VALUE(GRAFT_INT8, 6);
ABI_VALUE(GRAFT_STRING, 7);
ABI_VALUE(GRAFT_COMPLEX64, 8);
ABI_VALUE(GRAFT_INT64, 9);
ABI_VALUE(GRAFT_BOOL, 10);
ABI_VALUE(GRAFT_QINT8, 11);
ABI_VALUE(GRAFT_QUINT8, 12);
ABI_VALUE(GRAFT_QINT32, 13);
ABI_VALUE(GRAFT_BFLOAT16, 14);
ABI_VALUE(GRAFT_QINT16, 15);
ABI_VALUE(GRAFT_QUINT16, 16);
ABI_VALUE(GRAFT_UINT16, 17);
ABI_VALUE(GRAFT_COMPLEX128, 18);
ABI_VALUE(GRAFT_FLOAT16, 19);
ABI_VALUE(GRAFT_RESOURCE, 20);
ABI_VALUE(GRAFT_VARIANT, 21);
ABI_VALUE(GRAFT_UINT32, 22);
ABI_VALUE(GRAFT_UINT64, 23);
ABI_VALUE(GRAFT_FLOAT32_REF, 101);
ABI_VALUE(GRAFT_FLOAT64_REF, 102);
ABI_VALUE(GRAFT_INT32_REF, 103);
ABI_VALUE(GRAFT_UINT8_REF, 104);
ABI_VALUE(GRAFT_INT16_REF, 105);
ABI_VALUE(GRAFT_INT8_REF, 106);
ABI_VALUE(GRAFT_STRING_REF, 107);
ABI_VALUE(GRAFT_COMPLEX64_REF, 108);
ABI_VALUE(GRAFT_INT64_REF, 109);
ABI_VALUE(GRAFT_BOOL_REF, 110);
ABI_VALUE(GRAFT_QINT8_REF, 111);
ABI_VALUE(GRAFT_QUINT8_REF, 112);
ABI_VALUE(GRAFT_QINT32_REF, 113);
ABI_VALUE(GRAFT_BFLOAT16_REF, 114);
ABI_VALUE(GRAFT_QINT16_REF, 115);
ABI_VALUE(GRAFT_QUINT16_REF, 116);
ABI_VALUE(GRAFT_UINT16_REF, 117);
ABI_VALUE(GRAFT_COMPLEX128_REF, 118);
ABI_VALUE(GRAFT_FLOAT16_REF, 119);
ABI_VALUE(GRAFT_RESOURCE_REF, 120);
ABI_VALUE(GRAFT_VARIANT_REF, 121);
ABI_VALUE(GRAFT_UINT32_REF, 122);
ABI_VALUE(GRAFT_UINT64_REF, 123);

/* graph.h */
ABI_VALUE(GRAFT_ATTR_NONE, 0);
ABI_VALUE(GRAFT_ATTR_STRING, 1);
ABI_VALUE(GRAFT_ATTR_INT, 2);
ABI_VALUE(GRAFT_ATTR_FLOAT, 3);
ABI_VALUE(GRAFT_ATTR_BOOL, 4);
ABI_VALUE(GRAFT_ATTR_TYPE, 5);
ABI_VALUE(GRAFT_ATTR_SHAPE, 6);
ABI_VALUE(GRAFT_ATTR_TENSOR, 7);
ABI_VALUE(GRAFT_ATTR_FUNC, 8);
ABI_VALUE(GRAFT_ATTR_PLACEHOLDER, 9);
ABI_VALUE(GRAFT_ATTR_STRING_LIST, 10);
ABI_VALUE(GRAFT_ATTR_INT_LIST, 11);
ABI_VALUE(GRAFT_ATTR_FLOAT_LIST, 12);
ABI_VALUE(GRAFT_ATTR_BOOL_LIST, 13);
ABI_VALUE(GRAFT_ATTR_TYPE_LIST, 14);
ABI_VALUE(GRAFT_ATTR_SHAPE_LIST, 15);
ABI_VALUE(GRAFT_ATTR_TENSOR_LIST, 16);
ABI_VALUE(GRAFT_ATTR_FUNC_LIST, 17);
ABI_VALUE(GRAFT_ITEM_OP, 1);
ABI_VALUE(GRAFT_ITEM_TENSOR, 2);
ABI_VALUE(GRAFT_ITEM_STRING, 3);
ABI_VALUE(GRAFT_ITEM_VALUE, 4);

/* op_registry.h */
ABI_VALUE(GRAFT_GRADIENT_UNREGISTERED, 0);
ABI_VALUE(GRAFT_GRADIENT_FUNCTION, 1);
ABI_VALUE(GRAFT_GRADIENT_NONE, 2);

/* gradients.h */
ABI_VALUE(GRAFT_UNCONNECTED_NONE, 0);
ABI_VALUE(GRAFT_UNCONNECTED_ZERO, 1);

/* function.h */
ABI_VALUE(GRAFT_ARG_VALUE, 0);
ABI_VALUE(GRAFT_ARG_INT, 1);
ABI_VALUE(GRAFT_ARG_FLOAT, 2);
ABI_VALUE(GRAFT_ARG_STRING, 3);
ABI_VALUE(GRAFT_ARG_BOOL, 4);

/* session.h */
ABI_VALUE(GRAFT_REWRITE_CONSTANT_FOLDING, 1u);
ABI_VALUE(GRAFT_REWRITE_COMMON_SUBEXPRESSIONS, 2u);
ABI_VALUE(GRAFT_REWRITE_IDENTITY_REMOVAL, 4u);

/* The *_INIT initializers fill the fields in the order asserted above. */
static void test_options_initializers(void **state) {
  (void)state;
  graft_session_options session = GRAFT_SESSION_OPTIONS_INIT;
  assert_int_equal(session.version, GRAFT_SESSION_OPTIONS_VERSION);
  assert_int_equal(session.num_threads, 0);
  assert_int_equal(session.track_memory, 0);
  assert_int_equal(session.disabled_rewrites, 0);
  assert_null(session.default_device);
  assert_int_equal(session.strict_placement, 0);
  graft_function_options function = GRAFT_FUNCTION_OPTIONS_INIT;
  assert_int_equal(function.version, GRAFT_FUNCTION_OPTIONS_VERSION);
  assert_null(function.input_signature);
  assert_int_equal(function.ninput_signature, 0);
  assert_int_equal(function.reduce_retracing, 0);
}

/* The library loaded is the ABI these headers describe. */
static void test_loaded_soversion(void **state) {
  (void)state;
  assert_int_equal(graft_soversion(), GRAFT_SOVERSION);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_options_initializers),
      cmocka_unit_test(test_loaded_soversion),
  };
  return cmocka_run_group_tests_name("abi_layout", tests, NULL, NULL);
}
