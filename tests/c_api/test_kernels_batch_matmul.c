/* CPU kernel for BatchMatMulV2 (kernels/cpu/batch_matmul_kernels.cc): products per batch
 * entry with broadcast batch dims, adj_x / adj_y, every registered dtype.
 * Expected values are literal tables worked out by hand; run-time errors are provoked
 * through placeholders so that graph construction cannot catch them first. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

#define V(...) ((const int32_t[]){__VA_ARGS__})
#define V64(...) ((const int64_t[]){__VA_ARGS__})
#define F(...) ((const float[]){__VA_ARGS__})
#define F64(...) ((const double[]){__VA_ARGS__})

static int uniq;

static const char *nm(const char *prefix) {
  static char buf[8][48];
  char *b = buf[++uniq % 8];
  snprintf(b, sizeof buf[0], "%s%d", prefix, uniq);
  return b;
}

static graft_op *bmm(graft_graph *g, graft_op *x, graft_op *y, int adj_x, int adj_y) {
  graft_op_desc *d = desc(g, "BatchMatMulV2", nm("bmm"));
  in(d, x);
  in(d, y);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "adj_x", (graft_bool)adj_x));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "adj_y", (graft_bool)adj_y));
  return fin(d);
}

static graft_op *k(graft_graph *g, graft_dtype dt, const int64_t *dims, int ndims, const void *v) {
  return konst(g, nm("k"), dt, dims, ndims, v);
}

/* Element i of a numeric tensor of dt set to v (complex: real part v, imaginary 0). */
static void put(graft_dtype dt, void *buf, int i, double v) {
  switch (dt) {
    case GRAFT_FLOAT32: ((float *)buf)[i] = (float)v; break;
    case GRAFT_FLOAT64: ((double *)buf)[i] = v; break;
    case GRAFT_INT16: ((int16_t *)buf)[i] = (int16_t)v; break;
    case GRAFT_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case GRAFT_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case GRAFT_UINT8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case GRAFT_UINT16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case GRAFT_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case GRAFT_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case GRAFT_COMPLEX64: ((float *)buf)[2 * i] = (float)v; ((float *)buf)[2 * i + 1] = 0; break;
    case GRAFT_COMPLEX128: ((double *)buf)[2 * i] = v; ((double *)buf)[2 * i + 1] = 0; break;
    default: fail_msg("put: dtype %d", (int)dt);
  }
}

static void put_all(graft_dtype dt, void *buf, const double *v, int n) {
  for (int i = 0; i < n; ++i) put(dt, buf, i, v[i]);
}

static void test_batch_matmul(void **state) {
  graft_graph *g = *state;
  /* x [2, 2, 3] times y [3, 2]: y is broadcast over x's batch. */
  graft_op *x = k(g, GRAFT_FLOAT32, D(2, 2, 3), F(1, 2, 3, 4, 5, 6, -1, 0, 1, 2, -2, 0.5f));
  graft_op *y = k(g, GRAFT_FLOAT32, D(3, 2), F(1, 0, 0, 1, 1, 1));
  expect(run(g, bmm(g, x, y, 0, 0)), GRAFT_FLOAT32, D(2, 2, 2), F(4, 5, 10, 11, 0, 1, 2.5f, -1.5f));
  /* The same first product through adj_x (x given transposed) and adj_y (y given
   * transposed), float64. */
  graft_op *xt = k(g, GRAFT_FLOAT64, D(1, 3, 2), F64(1, 4, 2, 5, 3, 6));
  graft_op *yd = k(g, GRAFT_FLOAT64, D(3, 2), F64(1, 0, 0, 1, 1, 1));
  expect(run(g, bmm(g, xt, yd, 1, 0)), GRAFT_FLOAT64, D(1, 2, 2), F64(4, 5, 10, 11));
  graft_op *xd = k(g, GRAFT_FLOAT64, D(2, 3), F64(1, 2, 3, 4, 5, 6));
  graft_op *yt = k(g, GRAFT_FLOAT64, D(2, 3), F64(1, 0, 1, 0, 1, 1));
  expect(run(g, bmm(g, xd, yt, 0, 1)), GRAFT_FLOAT64, D(2, 2), F64(4, 5, 10, 11));
  expect(run(g, bmm(g, xt, yt, 1, 1)), GRAFT_FLOAT64, D(1, 2, 2), F64(4, 5, 10, 11));
  /* Both sides broadcast: x [2, 1, 1, 2] (rows [1, 2], [3, 4]) and y [1, 3, 2, 1] (columns
   * [1, 0], [0, 1], [1, 1]) give out[i, j] = x[i] . y[j], [2, 3, 1, 1]; float (BLAS) and
   * int32 (loop). */
  graft_op *xb = k(g, GRAFT_FLOAT32, D(2, 1, 1, 2), F(1, 2, 3, 4));
  graft_op *yb = k(g, GRAFT_FLOAT32, D(1, 3, 2, 1), F(1, 0, 0, 1, 1, 1));
  expect(run(g, bmm(g, xb, yb, 0, 0)), GRAFT_FLOAT32, D(2, 3, 1, 1), F(1, 2, 3, 3, 4, 7));
  graft_op *xi = k(g, GRAFT_INT32, D(2, 1, 1, 2), V(1, 2, 3, 4));
  graft_op *yi = k(g, GRAFT_INT32, D(1, 3, 2, 1), V(1, 0, 0, 1, 1, 1));
  expect(run(g, bmm(g, xi, yi, 0, 0)), GRAFT_INT32, D(2, 3, 1, 1), V(1, 2, 3, 3, 4, 7));
  /* Batch dims of different ranks: y [2, 2] against x [3, 1, 2]: x's rows [1, 1], [2, 0],
   * [0, 3] times [[1, 2], [3, 4]]. */
  graft_op *x3 = k(g, GRAFT_INT64, D(3, 1, 2), V64(1, 1, 2, 0, 0, 3));
  graft_op *y3 = k(g, GRAFT_INT64, D(2, 2), V64(1, 2, 3, 4));
  expect(run(g, bmm(g, y3, x3, 0, 1)), GRAFT_INT64, D(3, 2, 1), V64(3, 7, 2, 6, 6, 12));
  expect(run(g, bmm(g, x3, y3, 0, 0)), GRAFT_INT64, D(3, 1, 2), V64(4, 6, 2, 4, 9, 12));
  /* Complex: adj conjugates. (1+2i)(3+4i) = -5+10i, conj(1+2i)(3+4i) = 11-2i,
   * (1+2i)conj(3+4i) = 11+2i. */
  graft_op *ca = k(g, GRAFT_COMPLEX64, D(1, 1), F(1, 2));
  graft_op *cb = k(g, GRAFT_COMPLEX64, D(1, 1), F(3, 4));
  expect(run(g, bmm(g, ca, cb, 0, 0)), GRAFT_COMPLEX64, D(1, 1), F(-5, 10));
  expect(run(g, bmm(g, ca, cb, 1, 0)), GRAFT_COMPLEX64, D(1, 1), F(11, -2));
  graft_op *za = k(g, GRAFT_COMPLEX128, D(1, 1), F64(1, 2));
  graft_op *zb = k(g, GRAFT_COMPLEX128, D(1, 1), F64(3, 4));
  expect(run(g, bmm(g, za, zb, 0, 1)), GRAFT_COMPLEX128, D(1, 1), F64(11, 2));
  /* [1+i, 2] times [i, 1-i]^T: (1+i)i + 2(1-i) = 1-i; with x given as a column and adj_x,
   * conj(1-i) = 1+i and conj(2) = 2 give the same row. */
  graft_op *cr = k(g, GRAFT_COMPLEX128, D(1, 2), F64(1, 1, 2, 0));
  graft_op *cc = k(g, GRAFT_COMPLEX128, D(2, 1), F64(0, 1, 1, -1));
  expect(run(g, bmm(g, cr, cc, 0, 0)), GRAFT_COMPLEX128, D(1, 1), F64(1, -1));
  graft_op *ccol = k(g, GRAFT_COMPLEX128, D(2, 1), F64(1, -1, 2, 0));
  expect(run(g, bmm(g, ccol, cc, 1, 0)), GRAFT_COMPLEX128, D(1, 1), F64(1, -1));
  /* Empty: k = 0 gives zeros; no rows; no batch entries. */
  expect(run(g, bmm(g, k(g, GRAFT_FLOAT32, D(2, 0), NULL), k(g, GRAFT_FLOAT32, D(0, 3), NULL), 0, 0)), GRAFT_FLOAT32,
         D(2, 3), F(0, 0, 0, 0, 0, 0));
  expect(run(g, bmm(g, k(g, GRAFT_INT32, D(2, 0), NULL), k(g, GRAFT_INT32, D(0, 1), NULL), 0, 0)), GRAFT_INT32, D(2, 1),
         V(0, 0));
  expect(run(g, bmm(g, k(g, GRAFT_FLOAT32, D(0, 3), NULL), y, 0, 0)), GRAFT_FLOAT32, D(0, 2), NULL);
  expect(run(g, bmm(g, k(g, GRAFT_FLOAT32, D(0, 2, 3), NULL), y, 0, 0)), GRAFT_FLOAT32, D(0, 2, 2), NULL);
}

/* Integers wrap around on overflow. */
static void test_integer_wrap(void **state) {
  graft_graph *g = *state;
  expect(run(g, bmm(g, k(g, GRAFT_INT32, D(1, 1), V(65536)), k(g, GRAFT_INT32, D(1, 1), V(65536)), 0, 0)), GRAFT_INT32,
         D(1, 1), V(0));
  expect(run(g, bmm(g, k(g, GRAFT_UINT8, D(1, 2), ((const uint8_t[]){200, 100})),
                    k(g, GRAFT_UINT8, D(2, 1), ((const uint8_t[]){2, 1})), 0, 0)),
         GRAFT_UINT8, D(1, 1), ((const uint8_t[]){244}));
  expect(run(g, bmm(g, k(g, GRAFT_INT16, D(1, 1), ((const int16_t[]){300})),
                    k(g, GRAFT_INT16, D(1, 1), ((const int16_t[]){-300})), 0, 0)),
         GRAFT_INT16, D(1, 1), ((const int16_t[]){-24464}));
  expect(run(g, bmm(g, k(g, GRAFT_UINT16, D(1, 1), ((const uint16_t[]){65535})),
                    k(g, GRAFT_UINT16, D(1, 1), ((const uint16_t[]){65535})), 0, 0)),
         GRAFT_UINT16, D(1, 1), ((const uint16_t[]){1}));
  expect(run(g, bmm(g, k(g, GRAFT_UINT32, D(1, 1), ((const uint32_t[]){4294967295u})),
                    k(g, GRAFT_UINT32, D(1, 1), ((const uint32_t[]){2})), 0, 0)),
         GRAFT_UINT32, D(1, 1), ((const uint32_t[]){4294967294u}));
  expect(run(g, bmm(g, k(g, GRAFT_UINT64, D(1, 1), ((const uint64_t[]){UINT64_C(1) << 63})),
                    k(g, GRAFT_UINT64, D(1, 1), ((const uint64_t[]){2})), 0, 0)),
         GRAFT_UINT64, D(1, 1), ((const uint64_t[]){0}));
  expect(run(g, bmm(g, k(g, GRAFT_INT64, D(1, 1), V64(INT64_MAX)), k(g, GRAFT_INT64, D(1, 1), V64(2)), 0, 0)), GRAFT_INT64,
         D(1, 1), V64(-2));
}

/* Every registered dtype: [[1, 2], [3, 4]] times [[5, 6], [7, 8]], also with adj_x. */
static void test_all_dtypes(void **state) {
  graft_graph *g = *state;
  static const graft_dtype dts[] = {GRAFT_FLOAT32, GRAFT_FLOAT64, GRAFT_COMPLEX64, GRAFT_COMPLEX128,
                                    GRAFT_INT16,   GRAFT_INT32,   GRAFT_INT64,     GRAFT_UINT8,
                                    GRAFT_UINT16,  GRAFT_UINT32,  GRAFT_UINT64};
  for (int i = 0; i < N_OF(dts); ++i) {
    graft_dtype dt = dts[i];
    unsigned char a[64], b[64], want[64];
    put_all(dt, a, F64(1, 2, 3, 4), 4);
    put_all(dt, b, F64(5, 6, 7, 8), 4);
    graft_op *x = k(g, dt, D(2, 2), a), *y = k(g, dt, D(2, 2), b);
    put_all(dt, want, F64(19, 22, 43, 50), 4);
    expect(run(g, bmm(g, x, y, 0, 0)), dt, D(2, 2), want);
    put_all(dt, want, F64(26, 30, 38, 44), 4);
    expect(run(g, bmm(g, x, y, 1, 0)), dt, D(2, 2), want);
    put_all(dt, want, F64(17, 23, 39, 53), 4);
    expect(run(g, bmm(g, x, y, 0, 1)), dt, D(2, 2), want);
  }
}

static void test_errors(void **state) {
  graft_graph *g = *state;
  graft_op *px = ph(g, "px", GRAFT_FLOAT32);
  graft_op *y = k(g, GRAFT_FLOAT32, D(2, 2), F(1, 2, 3, 4));
  graft_op *bad = bmm(g, px, y, 0, 0);
  expect_error(g, bad, px, tensor(GRAFT_FLOAT32, D(2), F(1, 2)), GRAFT_EINVAL, "BatchMatMulV2 op",
               "In[0] ndims must be >= 2: 1");
  expect_error(g, bad, px, tensor(GRAFT_FLOAT32, D(2, 3), F(1, 2, 3, 4, 5, 6)), GRAFT_EINVAL, "BatchMatMulV2 op",
               "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,2]");
  graft_op *y3 = k(g, GRAFT_FLOAT32, D(3, 2, 2), F(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  graft_op *bad2 = bmm(g, px, y3, 0, 0);
  expect_error(g, bad2, px, tensor(GRAFT_FLOAT32, D(2, 2, 2), F(0, 0, 0, 0, 0, 0, 0, 0)), GRAFT_EINVAL,
               "BatchMatMulV2 op", "In[0] and In[1] must have compatible batch dimensions: [2,2,2] vs. [3,2,2]");
  graft_op *bad3 = bmm(g, y, px, 0, 0);
  expect_error(g, bad3, px, tensor(GRAFT_FLOAT32, SCALAR, F(1)), GRAFT_EINVAL, "BatchMatMulV2 op",
               "In[1] ndims must be >= 2: 0");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_batch_matmul, setup, teardown),
      cmocka_unit_test_setup_teardown(test_integer_wrap, setup, teardown),
      cmocka_unit_test_setup_teardown(test_all_dtypes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_batch_matmul", tests, NULL, NULL);
}
