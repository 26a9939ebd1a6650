/* CPU reduction kernels (kernels/cpu/reduction_kernels.cc): Sum, Mean, Prod, Max, Min, All,
 * Any over constant and fed reduction_indices (negative axes, keep_dims, several axes, empty
 * reductions giving the identity) for every dtype they claim, and ArgMax / ArgMin. Expected
 * values are literal tables worked out by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph_test_util.h"

/* ---- Helpers ------------------------------------------------------------------------------ */

#include "kernel_test_util.h"

static inline void put(graft_dtype dt, void *dst, int i, double v) {
  switch (dt) {
    case GRAFT_FLOAT32: ((float *)dst)[i] = (float)v; break;
    case GRAFT_FLOAT64: ((double *)dst)[i] = v; break;
    case GRAFT_INT8: ((int8_t *)dst)[i] = (int8_t)v; break;
    case GRAFT_INT16: ((int16_t *)dst)[i] = (int16_t)v; break;
    case GRAFT_INT32: ((int32_t *)dst)[i] = (int32_t)v; break;
    case GRAFT_INT64: ((int64_t *)dst)[i] = (int64_t)v; break;
    case GRAFT_UINT8: ((uint8_t *)dst)[i] = (uint8_t)v; break;
    case GRAFT_UINT16: ((uint16_t *)dst)[i] = (uint16_t)v; break;
    case GRAFT_UINT32: ((uint32_t *)dst)[i] = (uint32_t)v; break;
    case GRAFT_UINT64: ((uint64_t *)dst)[i] = (uint64_t)v; break;
    case GRAFT_BOOL: ((uint8_t *)dst)[i] = v != 0; break;
    default: fail();
  }
}

/* ---- Reductions ------------------------------------------------------------------------------ */

static graft_op *reduce(graft_graph *g, const char *type, const char *name, graft_op *x, graft_op *axes, int keep) {
  graft_op_desc *d = desc(g, type, name);
  in(d, x);
  in(d, axes);
  if (keep) GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "keep_dims", 1));
  return fin(d);
}

static graft_op *axes32(graft_graph *g, const char *name, const int64_t *dims, int ndims, const int32_t *v) {
  return konst(g, name, GRAFT_INT32, dims, ndims, v);
}

static void test_sum_axes(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  graft_op *a0 = axes32(g, "a0", D(1), (const int32_t[]){0});
  graft_op *a1 = axes32(g, "a1", SCALAR, (const int32_t[]){1});
  graft_op *am1 = konst(g, "am1", GRAFT_INT64, D(1), (const int64_t[]){-1});
  graft_op *a01 = axes32(g, "a01", D(2), (const int32_t[]){1, 0});
  graft_op *none = axes32(g, "none", D(0), NULL);
  expect(run(g, reduce(g, "Sum", "s0", x, a0, 0)), GRAFT_FLOAT32, D(3), (const float[]){5, 7, 9});
  expect(run(g, reduce(g, "Sum", "s1", x, a1, 0)), GRAFT_FLOAT32, D(2), (const float[]){6, 15});
  expect(run(g, reduce(g, "Sum", "s2", x, am1, 1)), GRAFT_FLOAT32, D(2, 1), (const float[]){6, 15});
  expect(run(g, reduce(g, "Sum", "s3", x, a01, 0)), GRAFT_FLOAT32, SCALAR, (const float[]){21});
  expect(run(g, reduce(g, "Sum", "s4", x, a01, 1)), GRAFT_FLOAT32, D(1, 1), (const float[]){21});
  expect(run(g, reduce(g, "Sum", "s5", x, none, 0)), GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  /* [2,3,4] holding 0..23: over axes 0 and 2, j -> 60 + 32 j; over axis 1, (i, k) -> 36 i + 12 + 3 k. */
  int32_t v[24];
  for (int i = 0; i < 24; ++i) v[i] = i;
  graft_op *y = konst(g, "y", GRAFT_INT32, D(2, 3, 4), v);
  graft_op *a02 = axes32(g, "a02", D(2), (const int32_t[]){0, 2});
  expect(run(g, reduce(g, "Sum", "t0", y, a02, 0)), GRAFT_INT32, D(3), (const int32_t[]){60, 92, 124});
  expect(run(g, reduce(g, "Sum", "t1", y, a02, 1)), GRAFT_INT32, D(1, 3, 1), (const int32_t[]){60, 92, 124});
  expect(run(g, reduce(g, "Sum", "t2", y, a1, 0)), GRAFT_INT32, D(2, 4),
         (const int32_t[]){12, 15, 18, 21, 48, 51, 54, 57});
  graft_op *a12 = axes32(g, "a12", D(2), (const int32_t[]){-1, 1});
  expect(run(g, reduce(g, "Sum", "t3", y, a12, 0)), GRAFT_INT32, D(2), (const int32_t[]){66, 210});
  /* Size-1 dims among the reduced ones. */
  graft_op *z = konst(g, "z", GRAFT_FLOAT64, D(1, 3, 1), (const double[]){1.5, 2.5, 3});
  graft_op *a2 = axes32(g, "a2", D(1), (const int32_t[]){2});
  expect(run(g, reduce(g, "Sum", "u0", z, a2, 0)), GRAFT_FLOAT64, D(1, 3), (const double[]){1.5, 2.5, 3});
  expect(run(g, reduce(g, "Sum", "u1", z, a01, 0)), GRAFT_FLOAT64, D(1), (const double[]){7});
  /* A scalar with no axes; fed axes. */
  graft_op *sc = konst(g, "sc", GRAFT_INT64, SCALAR, (const int64_t[]){-4});
  expect(run(g, reduce(g, "Sum", "u2", sc, none, 0)), GRAFT_INT64, SCALAR, (const int64_t[]){-4});
  graft_op *pa = ph(g, "pa", GRAFT_INT32);
  graft_op *fed = reduce(g, "Sum", "fed", x, pa, 0);
  graft_tensor *av = i32v(D(1), (const int32_t[]){-2});
  expect(run_feeds(g, fed, 0, 1, &pa, &av), GRAFT_FLOAT32, D(3), (const float[]){5, 7, 9});
  graft_op *fedk = reduce(g, "Sum", "fedk", x, pa, 1);
  av = i32v(D(2), (const int32_t[]){0, 1});
  expect(run_feeds(g, fedk, 0, 1, &pa, &av), GRAFT_FLOAT32, D(1, 1), (const float[]){21});
  /* Errors. */
  expect_error(g, fed, pa, i32v(D(1), (const int32_t[]){2}), GRAFT_EINVAL, "Sum op 'fed'",
               "Invalid reduction dimension 2 for input with 2 dimensions.");
  expect_error(g, fed, pa, i32v(D(1), (const int32_t[]){-3}), GRAFT_EINVAL, "Sum op 'fed'",
               "Invalid reduction dimension -3 for input with 2 dimensions.");
  expect_error(g, fed, pa, i32v(D(2), (const int32_t[]){1, -1}), GRAFT_EINVAL, "Sum op 'fed'",
               "Axes contains duplicate dimension: 1");
  expect_error(g, fed, pa, i32v(D(1, 1), (const int32_t[]){1}), GRAFT_EINVAL, "Sum op 'fed'", "reduction_indices");
}

static void test_mean_prod_max_min(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 4, 5, 9});
  graft_op *a0 = axes32(g, "a0", D(1), (const int32_t[]){0});
  graft_op *a1 = axes32(g, "a1", D(1), (const int32_t[]){1});
  graft_op *a01 = axes32(g, "a01", D(2), (const int32_t[]){0, 1});
  expect(run(g, reduce(g, "Mean", "m1", x, a1, 0)), GRAFT_FLOAT32, D(2), (const float[]){2, 6});
  expect(run(g, reduce(g, "Mean", "m0", x, a0, 1)), GRAFT_FLOAT32, D(1, 3), (const float[]){2.5f, 3.5f, 6});
  expect(run(g, reduce(g, "Mean", "m01", x, a01, 0)), GRAFT_FLOAT32, SCALAR, (const float[]){4});
  /* Integer means divide in the integer type (truncating). */
  graft_op *xi = konst(g, "xi", GRAFT_INT32, D(3, 2), (const int32_t[]){1, 2, 3, 5, -3, -4});
  expect(run(g, reduce(g, "Mean", "mi", xi, a1, 0)), GRAFT_INT32, D(3), (const int32_t[]){1, 4, -3});
  graft_op *xu = konst(g, "xu", GRAFT_UINT8, D(3), (const uint8_t[]){200, 200, 201});
  /* ... accumulating in 64 bits, as TensorFlow's: (200 + 200 + 201) / 3, no uint8 overflow. */
  expect(run(g, reduce(g, "Mean", "mu", xu, a0, 0)), GRAFT_UINT8, SCALAR, (const uint8_t[]){200});
  graft_op *x16 = konst(g, "x16", GRAFT_INT16, D(2), (const int16_t[]){-32768, -32767});
  expect(run(g, reduce(g, "Mean", "m16", x16, a0, 0)), GRAFT_INT16, SCALAR, (const int16_t[]){-32767});
  graft_op *xl = konst(g, "xl", GRAFT_INT64, D(2, 3), (const int64_t[]){1, 2, 3, 4, 5, 6});
  expect(run(g, reduce(g, "Prod", "p1", xl, a1, 0)), GRAFT_INT64, D(2), (const int64_t[]){6, 120});
  expect(run(g, reduce(g, "Prod", "p0", xl, a0, 0)), GRAFT_INT64, D(3), (const int64_t[]){4, 10, 18});
  graft_op *xd = konst(g, "xd", GRAFT_FLOAT64, D(2, 2), (const double[]){1, 5, 7, 2});
  expect(run(g, reduce(g, "Max", "mx0", xd, a0, 0)), GRAFT_FLOAT64, D(2), (const double[]){7, 5});
  expect(run(g, reduce(g, "Min", "mn1", xd, a1, 0)), GRAFT_FLOAT64, D(2), (const double[]){1, 2});
  expect(run(g, reduce(g, "Max", "mx01", xd, a01, 1)), GRAFT_FLOAT64, D(1, 1), (const double[]){7});
  graft_op *neg = konst(g, "neg", GRAFT_INT16, D(3), (const int16_t[]){-7, -2, -9});
  expect(run(g, reduce(g, "Max", "mxn", neg, a0, 0)), GRAFT_INT16, SCALAR, (const int16_t[]){-2});
  expect(run(g, reduce(g, "Min", "mnn", neg, a0, 0)), GRAFT_INT16, SCALAR, (const int16_t[]){-9});
  /* NaN propagates through Max and Min; Sum of infinities. */
  graft_op *xn = konst(g, "xn", GRAFT_FLOAT32, D(3), (const float[]){1, NAN, 3});
  graft_tensor *t = run(g, reduce(g, "Max", "mxnan", xn, a0, 0));
  assert_true(isnan(*(const float *)graft_tensor_data(t)));
  graft_tensor_free(t);
  t = run(g, reduce(g, "Min", "mnnan", xn, a0, 0));
  assert_true(isnan(*(const float *)graft_tensor_data(t)));
  graft_tensor_free(t);
  /* Integer sums wrap in the element type. */
  graft_op *x8 = konst(g, "x8", GRAFT_INT8, D(2), (const int8_t[]){100, 100});
  expect(run(g, reduce(g, "Sum", "s8", x8, a0, 0)), GRAFT_INT8, SCALAR, (const int8_t[]){-56});
}

static void test_empty_reductions(void **state) {
  graft_graph *g = *state;
  graft_op *e = konst(g, "e", GRAFT_FLOAT32, D(0, 3), NULL);
  graft_op *a0 = axes32(g, "a0", D(1), (const int32_t[]){0});
  graft_op *a1 = axes32(g, "a1", D(1), (const int32_t[]){1});
  expect(run(g, reduce(g, "Sum", "s", e, a0, 0)), GRAFT_FLOAT32, D(3), (const float[]){0, 0, 0});
  expect(run(g, reduce(g, "Prod", "p", e, a0, 0)), GRAFT_FLOAT32, D(3), (const float[]){1, 1, 1});
  expect(run(g, reduce(g, "Max", "mx", e, a0, 1)), GRAFT_FLOAT32, D(1, 3), (const float[]){-INFINITY, -INFINITY, -INFINITY});
  expect(run(g, reduce(g, "Min", "mn", e, a0, 0)), GRAFT_FLOAT32, D(3), (const float[]){INFINITY, INFINITY, INFINITY});
  graft_tensor *t = run(g, reduce(g, "Mean", "m", e, a0, 0));
  assert_int_equal(graft_tensor_num_elements(t), 3);
  for (int i = 0; i < 3; ++i) assert_true(isnan(((const float *)graft_tensor_data(t))[i]));
  graft_tensor_free(t);
  /* Reducing the non-empty axis of an empty tensor gives an empty result. */
  expect(run(g, reduce(g, "Sum", "s1", e, a1, 0)), GRAFT_FLOAT32, D(0), NULL);
  graft_op *ei = konst(g, "ei", GRAFT_INT32, D(0), NULL);
  expect(run(g, reduce(g, "Max", "mxi", ei, a0, 0)), GRAFT_INT32, SCALAR, (const int32_t[]){INT32_MIN});
  expect(run(g, reduce(g, "Min", "mni", ei, a0, 0)), GRAFT_INT32, SCALAR, (const int32_t[]){INT32_MAX});
  expect(run(g, reduce(g, "Mean", "mei", ei, a0, 0)), GRAFT_INT32, SCALAR, (const int32_t[]){0});
  expect(run(g, reduce(g, "Prod", "pi", ei, a0, 0)), GRAFT_INT32, SCALAR, (const int32_t[]){1});
  graft_op *eu = konst(g, "eu", GRAFT_UINT8, D(2, 0), NULL);
  expect(run(g, reduce(g, "Min", "mnu", eu, a1, 0)), GRAFT_UINT8, D(2), (const uint8_t[]){255, 255});
  expect(run(g, reduce(g, "Max", "mxu", eu, a1, 0)), GRAFT_UINT8, D(2), (const uint8_t[]){0, 0});
  graft_op *ed = konst(g, "ed", GRAFT_FLOAT64, D(0), NULL);
  expect(run(g, reduce(g, "Max", "mxd", ed, a0, 0)), GRAFT_FLOAT64, SCALAR, (const double[]){-INFINITY});
  graft_op *eb = konst(g, "eb", GRAFT_BOOL, D(0), NULL);
  expect(run(g, reduce(g, "All", "all", eb, a0, 0)), GRAFT_BOOL, SCALAR, (const uint8_t[]){1});
  expect(run(g, reduce(g, "Any", "any", eb, a0, 0)), GRAFT_BOOL, SCALAR, (const uint8_t[]){0});
}

static void test_all_any(void **state) {
  graft_graph *g = *state;
  graft_op *b = konst(g, "b", GRAFT_BOOL, D(2, 2), (const uint8_t[]){1, 0, 1, 1});
  graft_op *a0 = axes32(g, "a0", D(1), (const int32_t[]){0});
  graft_op *a1 = axes32(g, "a1", D(1), (const int32_t[]){1});
  graft_op *a01 = konst(g, "a01", GRAFT_INT64, D(2), (const int64_t[]){0, 1});
  expect(run(g, reduce(g, "All", "all1", b, a1, 0)), GRAFT_BOOL, D(2), (const uint8_t[]){0, 1});
  expect(run(g, reduce(g, "All", "all0", b, a0, 1)), GRAFT_BOOL, D(1, 2), (const uint8_t[]){1, 0});
  expect(run(g, reduce(g, "Any", "any1", b, a1, 0)), GRAFT_BOOL, D(2), (const uint8_t[]){1, 1});
  expect(run(g, reduce(g, "All", "all01", b, a01, 0)), GRAFT_BOOL, SCALAR, (const uint8_t[]){0});
  graft_op *f = konst(g, "f", GRAFT_BOOL, D(3), (const uint8_t[]){0, 0, 0});
  expect(run(g, reduce(g, "Any", "anyf", f, a0, 0)), GRAFT_BOOL, SCALAR, (const uint8_t[]){0});
}

/* Sum, Prod, Mean, Max, Min of {1, 2, 3, 4} along axis 1 of a [1, 4] in every claimed dtype. */
static void test_reduction_dtypes(void **state) {
  graft_graph *g = *state;
  const graft_dtype types[] = {GRAFT_FLOAT32, GRAFT_FLOAT64, GRAFT_INT8,   GRAFT_INT16,  GRAFT_INT32, GRAFT_INT64,
                               GRAFT_UINT8,   GRAFT_UINT16,  GRAFT_UINT32, GRAFT_UINT64};
  const double vals[4] = {1, 2, 3, 4};
  const char *ops[5] = {"Sum", "Prod", "Mean", "Max", "Min"};
  const double want[5] = {10, 24, 2, 4, 1}; /* Mean: 10 / 4 = 2.5, 2 for integers */
  graft_op *a1 = axes32(g, "a1", D(1), (const int32_t[]){1});
  for (int k = 0; k < N_OF(types); ++k) {
    uint8_t buf[32];
    for (int i = 0; i < 4; ++i) put(types[k], buf, i, vals[i]);
    char name[32];
    snprintf(name, sizeof name, "x%d", k);
    graft_op *x = konst(g, name, types[k], D(1, 4), buf);
    for (int o = 0; o < 5; ++o) {
      snprintf(name, sizeof name, "%s%d", ops[o], k);
      uint8_t w[8];
      int floating = types[k] == GRAFT_FLOAT32 || types[k] == GRAFT_FLOAT64;
      put(types[k], w, 0, o == 2 && floating ? 2.5 : want[o]);
      expect(run(g, reduce(g, ops[o], name, x, a1, 0)), types[k], D(1), w);
    }
  }
  /* Complex sums, products and means. */
  graft_op *c = konst(g, "c", GRAFT_COMPLEX64, D(2), (const float[]){1, 2, 3, -1});
  graft_op *a0 = axes32(g, "a0", D(1), (const int32_t[]){0});
  expect(run(g, reduce(g, "Sum", "cs", c, a0, 0)), GRAFT_COMPLEX64, SCALAR, (const float[]){4, 1});
  expect(run(g, reduce(g, "Prod", "cp", c, a0, 0)), GRAFT_COMPLEX64, SCALAR, (const float[]){5, 5});
  expect(run(g, reduce(g, "Mean", "cm", c, a0, 0)), GRAFT_COMPLEX64, SCALAR, (const float[]){2, 0.5f});
  graft_op *z = konst(g, "z", GRAFT_COMPLEX128, D(2), (const double[]){1, 2, 3, -1});
  expect(run(g, reduce(g, "Sum", "zs", z, a0, 0)), GRAFT_COMPLEX128, SCALAR, (const double[]){4, 1});
}

/* ---- ArgMax, ArgMin ------------------------------------------------------------------------- */

static graft_op *arg(graft_graph *g, const char *type, const char *name, graft_op *x, graft_op *dim, graft_dtype out) {
  graft_op_desc *d = desc(g, type, name);
  in(d, x);
  in(d, dim);
  if (out != GRAFT_DTYPE_INVALID) GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "output_type", out));
  return fin(d);
}

static void test_arg_max_min(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(2, 3), (const float[]){1, 5, 3, 4, 2, 6});
  graft_op *d0 = axes32(g, "d0", SCALAR, (const int32_t[]){0});
  graft_op *d1 = konst(g, "d1", GRAFT_INT64, SCALAR, (const int64_t[]){1});
  graft_op *dm1 = axes32(g, "dm1", SCALAR, (const int32_t[]){-1});
  expect(run(g, arg(g, "ArgMax", "am0", x, d0, GRAFT_DTYPE_INVALID)), GRAFT_INT64, D(3), (const int64_t[]){1, 0, 1});
  expect(run(g, arg(g, "ArgMax", "am1", x, d1, GRAFT_INT32)), GRAFT_INT32, D(2), (const int32_t[]){1, 2});
  expect(run(g, arg(g, "ArgMin", "an1", x, dm1, GRAFT_INT64)), GRAFT_INT64, D(2), (const int64_t[]){0, 1});
  expect(run(g, arg(g, "ArgMin", "an0", x, d0, GRAFT_INT32)), GRAFT_INT32, D(3), (const int32_t[]){0, 1, 0});
  /* Ties give the first index. */
  graft_op *t = konst(g, "t", GRAFT_INT32, D(4), (const int32_t[]){3, 1, 3, 1});
  expect(run(g, arg(g, "ArgMax", "tmax", t, d0, GRAFT_DTYPE_INVALID)), GRAFT_INT64, SCALAR, (const int64_t[]){0});
  expect(run(g, arg(g, "ArgMin", "tmin", t, d0, GRAFT_DTYPE_INVALID)), GRAFT_INT64, SCALAR, (const int64_t[]){1});
  graft_op *b = konst(g, "b", GRAFT_BOOL, D(3), (const uint8_t[]){0, 1, 1});
  expect(run(g, arg(g, "ArgMax", "bmax", b, d0, GRAFT_DTYPE_INVALID)), GRAFT_INT64, SCALAR, (const int64_t[]){1});
  graft_op *u = konst(g, "u", GRAFT_UINT8, D(3, 1), (const uint8_t[]){7, 250, 9});
  expect(run(g, arg(g, "ArgMax", "umax", u, d0, GRAFT_INT16)), GRAFT_INT16, D(1), (const int16_t[]){1});
  graft_op *dd = konst(g, "dd", GRAFT_FLOAT64, D(2, 2), (const double[]){-1, -3, -5, 0});
  expect(run(g, arg(g, "ArgMin", "dmin", dd, d1, GRAFT_INT32)), GRAFT_INT32, D(2), (const int32_t[]){1, 0});
  /* Errors. */
  graft_op *p = ph(g, "p", GRAFT_FLOAT32);
  graft_op *am = arg(g, "ArgMax", "am", p, d0, GRAFT_DTYPE_INVALID);
  expect_error(g, am, p, tensor(GRAFT_FLOAT32, D(0, 3), NULL), GRAFT_EINVAL, "ArgMax op 'am'",
               "Reduction axis 0 is empty in shape [0,3]");
  graft_op *pd = ph(g, "pd", GRAFT_INT32);
  graft_op *an = arg(g, "ArgMin", "an", x, pd, GRAFT_DTYPE_INVALID);
  expect_error(g, an, pd, i32v(SCALAR, (const int32_t[]){2}), GRAFT_EINVAL, "ArgMin op 'an'",
               "Expected dimension in the range [-2, 2), but got 2");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_sum_axes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mean_prod_max_min, setup, teardown),
      cmocka_unit_test_setup_teardown(test_empty_reductions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_all_any, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reduction_dtypes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_arg_max_min, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_reduction", tests, NULL, NULL);
}
