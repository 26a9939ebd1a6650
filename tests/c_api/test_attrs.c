/* One attr vocabulary (graft/attrs.h) for graph op descriptions and eager op calls, the declared
 * type of an attr, host data to tensors (graft_tensor_from_host) and the dtype table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"

/* The same attrs set through a description and through an op call reach the same op. */
static void test_same_setters_for_desc_and_call(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op *a = make_matrix(g, "a", 2, 3);
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "MatMul", "m"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  graft_attrs *attrs = graft_op_desc_attrs(d);
  assert_non_null(attrs);
  GT_OK(graft_attrs_set_bool(attrs, "transpose_b", 1));
  graft_op *m = NULL;
  GT_OK(graft_op_desc_finish(&m, d));
  graft_bool tb = 0;
  GT_OK(graft_op_get_attr_bool(&tb, m, "transpose_b"));
  assert_int_equal(tb, 1);

  graft_context *ctx = NULL;
  GT_OK(graft_context_new(&ctx));
  graft_op_call *call = NULL;
  GT_OK(graft_op_call_new(&call, ctx, "Fill"));
  graft_value *dims = NULL, *val = NULL;
  GT_OK(graft_value_from_host(&dims, ctx, GRAFT_HOST_INT64, (const int64_t[]){2}, (const int64_t[]){1}, 1,
                              GRAFT_DTYPE_INVALID));
  GT_OK(graft_value_from_host(&val, ctx, GRAFT_HOST_DOUBLE, (const double[]){1.5}, NULL, 0, GRAFT_DTYPE_INVALID));
  GT_OK(graft_op_call_add_input(call, dims));
  GT_OK(graft_op_call_add_input(call, val));
  /* Setters an op call lacked before: float, bool, string and shape lists. */
  graft_attrs *ca = graft_op_call_attrs(call);
  GT_OK(graft_attrs_set_float_list(ca, "_unused_floats", (const float[]){1, 2}, 2));
  GT_OK(graft_attrs_set_bool_list(ca, "_unused_bools", (const graft_bool[]){1}, 1));
  const void *strs[] = {"x", "y\0z"};
  GT_OK(graft_attrs_set_string_list(ca, "_unused_strings", strs, (const size_t[]){1, 3}, 2));
  GT_OK(graft_attrs_set_shape_list(ca, "_unused_shapes", (const int64_t *const[]){NULL}, (const int[]){-1}, 1));
  graft_value *out[1] = {NULL};
  int n = 0;
  GT_OK(graft_op_call_execute(out, 1, &n, call));
  assert_int_equal(n, 1);
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, out[0]));
  assert_int_equal(graft_tensor_dtype(t), GRAFT_FLOAT32);
  assert_true(((const float *)graft_tensor_data(t))[1] == 1.5f);
  graft_tensor_free(t);
  graft_value_free(out[0]);
  graft_value_free(dims);
  graft_value_free(val);
  graft_op_call_free(call);
  graft_context_free(ctx);
  graft_graph_free(g);
}

static void test_declared_type(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Conv2D", "c"));
  graft_attrs *a = graft_op_desc_attrs(d);
  graft_attr_type t = -1;
  GT_OK(graft_attrs_declared_type(&t, a, "strides"));
  assert_int_equal(t, GRAFT_ATTR_INT_LIST);
  GT_OK(graft_attrs_declared_type(&t, a, "padding"));
  assert_int_equal(t, GRAFT_ATTR_STRING);
  GT_OK(graft_attrs_declared_type(&t, a, "use_cudnn_on_gpu"));
  assert_int_equal(t, GRAFT_ATTR_BOOL);
  GT_OK(graft_attrs_declared_type(&t, a, "T"));
  assert_int_equal(t, GRAFT_ATTR_TYPE);
  GT_ERR(GRAFT_ENOTFOUND, graft_attrs_declared_type(&t, a, "stride"), "Conv2D", "'stride'");
  GT_ERR(GRAFT_EINVAL, graft_attrs_declared_type(&t, NULL, "x"), "attrs");
  graft_op_desc_free(d);

  GT_OK(graft_op_desc_new(&d, g, "NoSuchFunction", "f"));
  GT_ERR(GRAFT_ENOTFOUND, graft_attrs_declared_type(&t, graft_op_desc_attrs(d), "x"), "NoSuchFunction",
         "no definition");
  graft_op_desc_free(d);
  assert_null(graft_op_desc_attrs(NULL));
  assert_null(graft_op_call_attrs(NULL));
  graft_graph_free(g);
}

/* Bad values are errors naming what is wrong, and leave the attrs as they were. */
static void test_setter_errors(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Placeholder", "p"));
  graft_attrs *a = graft_op_desc_attrs(d);
  GT_ERR(GRAFT_EDTYPE, graft_attrs_set_type(a, "dtype", 99), "99");
  GT_ERR(GRAFT_EDTYPE, graft_attrs_set_type_list(a, "types", (const graft_dtype[]){1, 77}, 2), "element 1", "77");
  GT_ERR(GRAFT_EINVAL, graft_attrs_set_int_list(a, "l", NULL, 2), "values is NULL");
  GT_ERR(GRAFT_EINVAL, graft_attrs_set_int_list(a, "l", (const int64_t[]){1}, -1), "n is -1");
  GT_ERR(GRAFT_EINVAL, graft_attrs_set_string(a, "s", NULL, 3), "NULL");
  GT_ERR(GRAFT_EINVAL, graft_attrs_set_shape(a, "shape", NULL, 2), "dims is NULL");
  GT_ERR(GRAFT_EINVAL, graft_attrs_set_shape_list(a, "shapes", (const int64_t *const[]){NULL}, (const int[]){2}, 1),
         "shape 0");
  GT_ERR(GRAFT_EINVAL, graft_attrs_set_func_list(a, "f", (const char *const[]){"g", NULL}, 2), "function_names[1]");
  GT_ERR(GRAFT_EINVAL, graft_attrs_set_tensor_list(a, "t", (const graft_tensor *const[]){NULL}, 1), "values[0]");
  GT_ERR(GRAFT_EINVAL, graft_attrs_set_int(a, NULL, 1), "name");
  /* None of the failures left a value behind: a missing dtype fails the op. */
  graft_op *p = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&p, d), "dtype");
  /* A good description gets its dtype. */
  GT_OK(graft_op_desc_new(&d, g, "Placeholder", "p"));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_INT64));
  GT_OK(graft_op_desc_finish(&p, d));
  assert_int_equal(graft_output_dtype((graft_output){p, 0}), GRAFT_INT64);
  graft_graph_free(g);
}

/* One host rule: int32 for integers that fit, else int64; float32 for doubles; requested
 * dtypes must fit every element. */
static void test_tensor_from_host(void **state) {
  (void)state;
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_from_host(&t, GRAFT_HOST_INT64, (const int64_t[]){1, -2, 3}, (const int64_t[]){3}, 1,
                               GRAFT_DTYPE_INVALID));
  assert_int_equal(graft_tensor_dtype(t), GRAFT_INT32);
  assert_int_equal(((const int32_t *)graft_tensor_data(t))[1], -2);
  graft_tensor_free(t);
  GT_OK(graft_tensor_from_host(&t, GRAFT_HOST_INT64, (const int64_t[]){1, (int64_t)1 << 40}, (const int64_t[]){2}, 1,
                               GRAFT_DTYPE_INVALID));
  assert_int_equal(graft_tensor_dtype(t), GRAFT_INT64);
  graft_tensor_free(t);
  GT_OK(graft_tensor_from_host(&t, GRAFT_HOST_DOUBLE, (const double[]){0.5}, NULL, 0, GRAFT_DTYPE_INVALID));
  assert_int_equal(graft_tensor_dtype(t), GRAFT_FLOAT32);
  assert_int_equal(graft_tensor_rank(t), 0);
  graft_tensor_free(t);
  GT_OK(graft_tensor_from_host(&t, GRAFT_HOST_INT64, (const int64_t[]){7}, NULL, 0, GRAFT_FLOAT64));
  assert_true(*(const double *)graft_tensor_data(t) == 7.0);
  graft_tensor_free(t);
  GT_OK(graft_tensor_from_host(&t, GRAFT_HOST_BOOL, (const graft_bool[]){1, 0}, (const int64_t[]){2}, 1,
                               GRAFT_DTYPE_INVALID));
  assert_int_equal(graft_tensor_dtype(t), GRAFT_BOOL);
  graft_tensor_free(t);
  GT_OK(graft_tensor_from_host(&t, GRAFT_HOST_STRING, (const char *const[]){"ab", ""}, (const int64_t[]){2}, 1,
                               GRAFT_DTYPE_INVALID));
  assert_int_equal(graft_tensor_dtype(t), GRAFT_STRING);
  graft_tensor_free(t);
  /* Doubles at the top of the 64-bit ranges: 2^63 fits uint64, not int64; 2^64 (the double
   * nearest uint64's max) fits neither (converting it would be undefined). */
  GT_OK(graft_tensor_from_host(&t, GRAFT_HOST_DOUBLE, (const double[]){9223372036854775808.0}, NULL, 0, GRAFT_UINT64));
  assert_true(*(const uint64_t *)graft_tensor_data(t) == (uint64_t)1 << 63);
  graft_tensor_free(t);
  t = NULL;
  GT_ERR(GRAFT_EINVAL,
         graft_tensor_from_host(&t, GRAFT_HOST_DOUBLE, (const double[]){9223372036854775808.0}, NULL, 0, GRAFT_INT64),
         "does not fit int64");
  GT_ERR(GRAFT_EINVAL,
         graft_tensor_from_host(&t, GRAFT_HOST_DOUBLE, (const double[]){18446744073709551615.0}, NULL, 0, GRAFT_UINT64),
         "does not fit uint64");
  assert_null(t);

  t = NULL;
  GT_ERR(GRAFT_EDTYPE, graft_tensor_from_host(&t, GRAFT_HOST_DOUBLE, (const double[]){1.5}, NULL, 0, GRAFT_INT32),
         "1.5");
  assert_null(t);
  int rc = graft_tensor_from_host(&t, GRAFT_HOST_INT64, (const int64_t[]){300}, NULL, 0, GRAFT_UINT8);
  assert_int_not_equal(rc, GRAFT_OK);
  assert_non_null(strstr(graft_error_last(), "300"));
  assert_null(t);
  rc = graft_tensor_from_host(&t, GRAFT_HOST_STRING, (const char *const[]){"a"}, NULL, 0, GRAFT_FLOAT32);
  assert_int_not_equal(rc, GRAFT_OK);
  GT_ERR(GRAFT_EINVAL, graft_tensor_from_host(&t, 9, (const int64_t[]){1}, NULL, 0, 0), "host_kind 9");
  GT_ERR(GRAFT_EINVAL, graft_tensor_from_host(&t, GRAFT_HOST_INT64, NULL, (const int64_t[]){2}, 1, 0), "elements");
  GT_ERR(GRAFT_EINVAL,
         graft_tensor_from_host(&t, GRAFT_HOST_INT64, (const int64_t[]){1}, (const int64_t[]){1 << 30, 1 << 30}, 2, 0),
         "too many elements");
  GT_ERR(GRAFT_EINVAL, graft_tensor_from_host(&t, GRAFT_HOST_INT64, (const int64_t[]){1}, (const int64_t[]){-1}, 1, 0),
         "dimension 0");
  GT_ERR(GRAFT_EINVAL, graft_tensor_from_host(NULL, GRAFT_HOST_INT64, (const int64_t[]){1}, NULL, 0, 0), "out");
}

static void test_dtype_list(void **state) {
  (void)state;
  int n = graft_dtype_list(NULL, 0);
  assert_int_equal(n, 23); /* GRAFT_FLOAT32 .. GRAFT_UINT64 */
  graft_dtype all[32];
  assert_int_equal(graft_dtype_list(all, 32), n);
  for (int i = 0; i < n; ++i) {
    assert_true(graft_dtype_is_valid(all[i]));
    assert_false(graft_dtype_is_ref(all[i]));
    assert_non_null(graft_dtype_name(all[i]));
    graft_dtype back = 0;
    GT_OK(graft_dtype_from_name(&back, graft_dtype_name(all[i])));
    assert_int_equal(back, all[i]);
  }
  graft_dtype few[2] = {0, 0};
  assert_int_equal(graft_dtype_list(few, 2), n);
  assert_int_equal(few[0], GRAFT_FLOAT32);
  assert_int_equal(few[1], GRAFT_FLOAT64);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_setters_for_desc_and_call),
      cmocka_unit_test(test_declared_type),
      cmocka_unit_test(test_setter_errors),
      cmocka_unit_test(test_tensor_from_host),
      cmocka_unit_test(test_dtype_list),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
