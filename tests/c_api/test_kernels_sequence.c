/* CPU kernels along sequences (kernels/cpu/sequence_kernels.cc): OneHot, Where, Cumsum, Cumprod,
 * TopKV2 and Unique.
 * Expected values are literal tables worked out by hand from TensorFlow's documented
 * semantics; run-time errors are provoked through placeholders so that graph construction
 * cannot catch them first. */
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
#define B(...) ((const uint8_t[]){__VA_ARGS__})

static graft_tensor *run_i(graft_graph *g, graft_op *op, int i) { return run_feeds(g, op, i, 0, NULL, NULL); }

static int uniq;

/* A fresh name with a prefix. */
static const char *nm(const char *prefix) {
  static char buf[8][48];
  char *b = buf[++uniq % 8];
  snprintf(b, sizeof buf[0], "%s%d", prefix, uniq);
  return b;
}

static graft_op *one_hot(graft_graph *g, graft_op *idx, graft_op *depth, graft_op *on, graft_op *off, int axis) {
  graft_op_desc *d = desc(g, "OneHot", nm("oh"));
  in(d, idx);
  in(d, depth);
  in(d, on);
  in(d, off);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "axis", axis));
  return fin(d);
}

static graft_op *i32s(graft_graph *g, int32_t v) { return konst(g, nm("c"), GRAFT_INT32, SCALAR, &v); }

static graft_op *cumsum(graft_graph *g, graft_op *x, graft_op *axis, int exclusive, int reverse) {
  graft_op_desc *d = desc(g, "Cumsum", nm("cs"));
  in(d, x);
  in(d, axis);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "exclusive", (graft_bool)exclusive));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "reverse", (graft_bool)reverse));
  return fin(d);
}

static graft_op *cumprod(graft_graph *g, graft_op *x, graft_op *axis, int exclusive, int reverse) {
  graft_op_desc *d = desc(g, "Cumprod", nm("cp"));
  in(d, x);
  in(d, axis);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "exclusive", (graft_bool)exclusive));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "reverse", (graft_bool)reverse));
  return fin(d);
}

static graft_op *top_k(graft_graph *g, graft_op *x, graft_op *k, graft_dtype index_type) {
  graft_op_desc *d = desc(g, "TopKV2", nm("tk"));
  in(d, x);
  in(d, k);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "index_type", index_type));
  return fin(d);
}

static graft_op *unique(graft_graph *g, graft_op *x, graft_dtype out_idx) {
  graft_op_desc *d = desc(g, "Unique", nm("u"));
  in(d, x);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "out_idx", out_idx));
  return fin(d);
}

/* Element i of a numeric tensor of dt set to v (complex: real part v, imaginary 0). */
static void put(graft_dtype dt, void *buf, int i, double v) {
  switch (dt) {
    case GRAFT_FLOAT32: ((float *)buf)[i] = (float)v; break;
    case GRAFT_FLOAT64: ((double *)buf)[i] = v; break;
    case GRAFT_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
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

/* n elements of dt whose element i has every byte pattern[i]. */
static void fill_bytes(graft_dtype dt, unsigned char *buf, const int *pattern, int n) {
  size_t sz = graft_dtype_size(dt);
  for (int i = 0; i < n; ++i) memset(buf + (size_t)i * sz, pattern[i], sz);
}

/* ---- OneHot ------------------------------------------------------------------------------ */

static void test_one_hot(void **state) {
  graft_graph *g = *state;
  graft_op *on = konst(g, "on", GRAFT_FLOAT32, SCALAR, F(5));
  graft_op *off = konst(g, "off", GRAFT_FLOAT32, SCALAR, F(0));
  /* axis -1, int64 indices, out of range (-1, 3) gives a row of off values. */
  expect(run(g, one_hot(g, konst(g, "i1", GRAFT_INT64, D(4), V64(0, 2, -1, 3)), i32s(g, 3), on, off, -1)), GRAFT_FLOAT32,
         D(4, 3), F(5, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0));
  /* axis 0: out[j, i] = indices[i] == j. */
  graft_op *on_i = konst(g, "on_i", GRAFT_INT32, SCALAR, V(1));
  graft_op *off_i = konst(g, "off_i", GRAFT_INT32, SCALAR, V(-1));
  expect(run(g, one_hot(g, konst(g, "i2", GRAFT_INT32, D(3), V(0, 2, 3)), i32s(g, 3), on_i, off_i, 0)), GRAFT_INT32,
         D(3, 3), V(1, -1, -1, -1, -1, -1, -1, 1, -1));
  /* axis 1 of [2, 2] uint8 indices, bool values: out[p, j, s] = indices[p, s] == j. */
  graft_op *on_b = konst(g, "on_b", GRAFT_BOOL, SCALAR, B(1));
  graft_op *off_b = konst(g, "off_b", GRAFT_BOOL, SCALAR, B(0));
  expect(run(g, one_hot(g, konst(g, "i3", GRAFT_UINT8, D(2, 2), B(0, 1, 1, 0)), i32s(g, 2), on_b, off_b, 1)), GRAFT_BOOL,
         D(2, 2, 2), B(1, 0, 0, 1, 0, 1, 1, 0));
  /* int8 indices (a negative one), float64 values. */
  graft_op *on_d = konst(g, "on_d", GRAFT_FLOAT64, SCALAR, F64(2.5));
  graft_op *off_d = konst(g, "off_d", GRAFT_FLOAT64, SCALAR, F64(0.5));
  expect(run(g, one_hot(g, konst(g, "i4", GRAFT_INT8, D(2), ((const int8_t[]){-1, 1})), i32s(g, 2), on_d, off_d, -1)),
         GRAFT_FLOAT64, D(2, 2), F64(0.5, 0.5, 0.5, 2.5));
  /* A scalar index gives a vector; depth 0; empty indices. */
  expect(run(g, one_hot(g, konst(g, "i5", GRAFT_INT32, SCALAR, V(1)), i32s(g, 3), on_i, off_i, -1)), GRAFT_INT32, D(3),
         V(-1, 1, -1));
  expect(run(g, one_hot(g, konst(g, "i6", GRAFT_INT32, D(2), V(0, 1)), i32s(g, 0), on_i, off_i, -1)), GRAFT_INT32,
         D(2, 0), NULL);
  expect(run(g, one_hot(g, konst(g, "i7", GRAFT_INT32, D(0), NULL), i32s(g, 3), on_i, off_i, 0)), GRAFT_INT32, D(3, 0),
         NULL);
  /* Strings. */
  graft_op *on_s = strings(g, "on_s", SCALAR, (const char *const[]){"y"});
  graft_op *off_s = strings(g, "off_s", SCALAR, (const char *const[]){"n"});
  expect_strings(run(g, one_hot(g, konst(g, "i8", GRAFT_INT32, D(2), V(1, 0)), i32s(g, 2), on_s, off_s, -1)), D(2, 2),
                 (const char *const[]){"n", "y", "y", "n"});
  /* Run-time errors. */
  graft_op *pd = ph(g, "pd", GRAFT_INT32);
  graft_op *bad = one_hot(g, konst(g, "i9", GRAFT_INT32, D(2), V(0, 1)), pd, on_i, off_i, -1);
  expect_error(g, bad, pd, i32v(SCALAR, V(-1)), GRAFT_EINVAL, "OneHot op", "depth must be non-negative, got: -1");
  expect_error(g, bad, pd, i32v(D(1), V(2)), GRAFT_EINVAL, "OneHot op", "depth must be a scalar, but got: [1]");
  graft_op *pon = ph(g, "pon", GRAFT_FLOAT32);
  graft_op *bad2 = one_hot(g, konst(g, "i10", GRAFT_INT32, D(2), V(0, 1)), i32s(g, 2), pon, off, -1);
  expect_error(g, bad2, pon, tensor(GRAFT_FLOAT32, D(2), F(1, 2)), GRAFT_EINVAL, "OneHot op",
               "on_value must be a scalar, but got: [2]");
  graft_op *poff = ph(g, "poff", GRAFT_FLOAT32);
  graft_op *bad3 = one_hot(g, konst(g, "i11", GRAFT_INT32, D(2), V(0, 1)), i32s(g, 2), on, poff, -1);
  expect_error(g, bad3, poff, tensor(GRAFT_FLOAT32, D(1), F(1)), GRAFT_EINVAL, "OneHot op",
               "off_value must be a scalar, but got: [1]");
  graft_op *pi = ph(g, "pi", GRAFT_INT32);
  graft_op *bad4 = one_hot(g, pi, i32s(g, 2), on, off, 2);
  expect_error(g, bad4, pi, i32v(D(2), V(0, 1)), GRAFT_EINVAL, "OneHot op",
               "Expected axis to be -1 or between [0, 1).  But received: 2");
}

static void test_one_hot_dtypes(void **state) {
  graft_graph *g = *state;
  static const graft_dtype dts[] = {GRAFT_FLOAT32, GRAFT_FLOAT64,   GRAFT_INT32,   GRAFT_UINT8,  GRAFT_INT16,
                                    GRAFT_INT8,    GRAFT_COMPLEX64, GRAFT_INT64,   GRAFT_BOOL,   GRAFT_QINT8,
                                    GRAFT_QUINT8,  GRAFT_QINT32,    GRAFT_BFLOAT16, GRAFT_QINT16, GRAFT_QUINT16,
                                    GRAFT_UINT16,  GRAFT_COMPLEX128, GRAFT_FLOAT16, GRAFT_UINT32, GRAFT_UINT64};
  graft_op *idx = konst(g, "idx", GRAFT_INT64, D(2), V64(1, 0));
  graft_op *depth = i32s(g, 2);
  for (int k = 0; k < N_OF(dts); ++k) {
    graft_dtype dt = dts[k];
    unsigned char on[16], off[16], want[64];
    const int pon = dt == GRAFT_BOOL ? 1 : 7, poff = dt == GRAFT_BOOL ? 0 : 3;
    fill_bytes(dt, on, &pon, 1);
    fill_bytes(dt, off, &poff, 1);
    fill_bytes(dt, want, (const int[]){poff, pon, pon, poff}, 4);
    graft_op *o = one_hot(g, idx, depth, konst(g, nm("on"), dt, SCALAR, on), konst(g, nm("off"), dt, SCALAR, off), -1);
    expect(run(g, o), dt, D(2, 2), want);
  }
}

/* ---- Where ------------------------------------------------------------------------------- */

static void test_where(void **state) {
  graft_graph *g = *state;
  graft_op *b = konst(g, "b", GRAFT_BOOL, D(2, 3), B(1, 0, 1, 0, 0, 1));
  expect(run(g, op1(g, "Where", "w1", b)), GRAFT_INT64, D(3, 2), V64(0, 0, 0, 2, 1, 2));
  /* Floats: -0 is zero, NaN is not. */
  graft_op *f = konst(g, "f", GRAFT_FLOAT32, D(4), F(0.0f, -0.0f, 1.5f, NAN));
  expect(run(g, op1(g, "Where", "w2", f)), GRAFT_INT64, D(2, 1), V64(2, 3));
  /* Rank 3, int64. */
  graft_op *i = konst(g, "i", GRAFT_INT64, D(2, 1, 2), V64(0, 3, 4, 0));
  expect(run(g, op1(g, "Where", "w3", i)), GRAFT_INT64, D(2, 3), V64(0, 0, 1, 1, 0, 0));
  /* Scalars: one row of no coordinates, or none; empty input; nothing true. */
  expect(run(g, op1(g, "Where", "w4", konst(g, "s1", GRAFT_INT32, SCALAR, V(7)))), GRAFT_INT64, D(1, 0), NULL);
  expect(run(g, op1(g, "Where", "w5", konst(g, "s0", GRAFT_INT32, SCALAR, V(0)))), GRAFT_INT64, D(0, 0), NULL);
  expect(run(g, op1(g, "Where", "w6", konst(g, "e", GRAFT_FLOAT64, D(0, 3), NULL))), GRAFT_INT64, D(0, 2), NULL);
  expect(run(g, op1(g, "Where", "w7", konst(g, "z", GRAFT_BOOL, D(2, 2), B(0, 0, 0, 0)))), GRAFT_INT64, D(0, 2), NULL);
  /* complex64: non-zero if either part is. */
  graft_op *c = konst(g, "c", GRAFT_COMPLEX64, D(3), F(0, 0, 0, 1, 2, 0));
  expect(run(g, op1(g, "Where", "w8", c)), GRAFT_INT64, D(2, 1), V64(1, 2));
  /* float16 / bfloat16 bits: +0 and -0 are zero, the smallest subnormal is not. */
  const uint16_t hb[4] = {0x0000, 0x8000, 0x3c00, 0x0001};
  expect(run(g, op1(g, "Where", "w9", konst(g, "h", GRAFT_FLOAT16, D(4), hb))), GRAFT_INT64, D(2, 1), V64(2, 3));
  expect(run(g, op1(g, "Where", "w10", konst(g, "bf", GRAFT_BFLOAT16, D(4), hb))), GRAFT_INT64, D(2, 1), V64(2, 3));
  /* uint16 has no sign bit: 0x8000 is not zero. */
  expect(run(g, op1(g, "Where", "w11", konst(g, "u16", GRAFT_UINT16, D(4), hb))), GRAFT_INT64, D(3, 1), V64(1, 2, 3));
  /* Every registered dtype: elements 1 and 3 non-zero. */
  static const graft_dtype dts[] = {GRAFT_FLOAT32, GRAFT_FLOAT64, GRAFT_INT32,   GRAFT_UINT8,    GRAFT_INT16,
                                    GRAFT_INT8,    GRAFT_COMPLEX64, GRAFT_INT64, GRAFT_BOOL,     GRAFT_QINT8,
                                    GRAFT_QUINT8,  GRAFT_QINT32,  GRAFT_BFLOAT16, GRAFT_QINT16, GRAFT_QUINT16,
                                    GRAFT_UINT16,  GRAFT_COMPLEX128, GRAFT_FLOAT16, GRAFT_UINT32, GRAFT_UINT64};
  for (int k = 0; k < N_OF(dts); ++k) {
    unsigned char buf[64];
    fill_bytes(dts[k], buf, (const int[]){0, 1, 0, 1}, 4);
    expect(run(g, op1(g, "Where", nm("w"), konst(g, nm("x"), dts[k], D(4), buf))), GRAFT_INT64, D(2, 1), V64(1, 3));
  }
}

/* ---- Cumprod ----------------------------------------------------------------------------- */

static void test_cumprod(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(2, 3), F(1, 2, 3, 4, 5, 6));
  graft_op *a0 = i32s(g, 0), *a1 = i32s(g, 1);
  expect(run(g, cumprod(g, x, a1, 0, 0)), GRAFT_FLOAT32, D(2, 3), F(1, 2, 6, 4, 20, 120));
  expect(run(g, cumprod(g, x, a0, 0, 0)), GRAFT_FLOAT32, D(2, 3), F(1, 2, 3, 4, 10, 18));
  expect(run(g, cumprod(g, x, a1, 1, 0)), GRAFT_FLOAT32, D(2, 3), F(1, 1, 2, 1, 4, 20));
  expect(run(g, cumprod(g, x, a1, 0, 1)), GRAFT_FLOAT32, D(2, 3), F(6, 6, 3, 120, 30, 6));
  expect(run(g, cumprod(g, x, a1, 1, 1)), GRAFT_FLOAT32, D(2, 3), F(6, 3, 1, 30, 6, 1));
  /* Integers wrap around: 65536 * 65536 in int32 is 0. */
  graft_op *w = konst(g, "w", GRAFT_INT32, D(2), V(65536, 65536));
  expect(run(g, cumprod(g, w, a0, 0, 0)), GRAFT_INT32, D(2), V(65536, 0));
  /* complex64: (1 + i)(2 - 3i) = 5 - i. */
  graft_op *c = konst(g, "c", GRAFT_COMPLEX64, D(2), F(1, 1, 2, -3));
  expect(run(g, cumprod(g, c, a0, 0, 0)), GRAFT_COMPLEX64, D(2), F(1, 1, 5, -1));
  graft_op *pa = ph(g, "pa", GRAFT_INT32);
  expect_error(g, cumprod(g, x, pa, 0, 0), pa, i32v(SCALAR, V(2)), GRAFT_EINVAL, "Cumprod op",
               "ScanOp: Expected scan axis in the range [-2, 2), but got 2");
}

/* ---- Cumsum ------------------------------------------------------------------------------ */

static void test_cumsum(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(2, 3), F(1, 2, 3, 4, 5, 6));
  graft_op *a0 = i32s(g, 0), *a1 = i32s(g, 1);
  graft_op *am1 = konst(g, "am1", GRAFT_INT64, SCALAR, V64(-1));
  expect(run(g, cumsum(g, x, a1, 0, 0)), GRAFT_FLOAT32, D(2, 3), F(1, 3, 6, 4, 9, 15));
  expect(run(g, cumsum(g, x, a0, 0, 0)), GRAFT_FLOAT32, D(2, 3), F(1, 2, 3, 5, 7, 9));
  expect(run(g, cumsum(g, x, am1, 1, 0)), GRAFT_FLOAT32, D(2, 3), F(0, 1, 3, 0, 4, 9));
  expect(run(g, cumsum(g, x, a1, 0, 1)), GRAFT_FLOAT32, D(2, 3), F(6, 5, 3, 15, 11, 6));
  expect(run(g, cumsum(g, x, a1, 1, 1)), GRAFT_FLOAT32, D(2, 3), F(5, 3, 0, 11, 6, 0));
  expect(run(g, cumsum(g, x, a0, 1, 1)), GRAFT_FLOAT32, D(2, 3), F(4, 5, 6, 0, 0, 0));
  /* The middle axis of a rank-3 input: y = arange(8).reshape(2, 2, 2). */
  graft_op *y = konst(g, "y", GRAFT_INT64, D(2, 2, 2), V64(0, 1, 2, 3, 4, 5, 6, 7));
  expect(run(g, cumsum(g, y, a1, 0, 0)), GRAFT_INT64, D(2, 2, 2), V64(0, 1, 2, 4, 4, 5, 10, 12));
  /* Integers wrap around. */
  graft_op *w = konst(g, "w", GRAFT_INT32, D(2), V(2147483647, 1));
  expect(run(g, cumsum(g, w, a0, 0, 0)), GRAFT_INT32, D(2), V(2147483647, (int32_t)(-2147483647 - 1)));
  /* complex64. */
  graft_op *c = konst(g, "c", GRAFT_COMPLEX64, D(2), F(1, 1, 2, -3));
  expect(run(g, cumsum(g, c, a0, 0, 0)), GRAFT_COMPLEX64, D(2), F(1, 1, 3, -2));
  /* Empty. */
  expect(run(g, cumsum(g, konst(g, "e", GRAFT_FLOAT64, D(0, 2), NULL), a0, 0, 0)), GRAFT_FLOAT64, D(0, 2), NULL);
  /* Every registered dtype: [1, 2, 3] -> [1, 3, 6], exclusive reverse [5, 3, 0]. */
  static const graft_dtype dts[] = {GRAFT_FLOAT32, GRAFT_FLOAT64, GRAFT_INT8,   GRAFT_INT16,     GRAFT_INT32,
                                    GRAFT_INT64,   GRAFT_UINT8,   GRAFT_UINT16, GRAFT_UINT32,    GRAFT_UINT64,
                                    GRAFT_COMPLEX64, GRAFT_COMPLEX128};
  for (int k = 0; k < N_OF(dts); ++k) {
    unsigned char in_b[64], want[64];
    put_all(dts[k], in_b, F64(1, 2, 3), 3);
    graft_op *v = konst(g, nm("v"), dts[k], D(3), in_b);
    put_all(dts[k], want, F64(1, 3, 6), 3);
    expect(run(g, cumsum(g, v, a0, 0, 0)), dts[k], D(3), want);
    put_all(dts[k], want, F64(5, 3, 0), 3);
    expect(run(g, cumsum(g, v, a0, 1, 1)), dts[k], D(3), want);
  }
  /* Run-time errors, with the axis fed. */
  graft_op *pa = ph(g, "pa", GRAFT_INT32);
  graft_op *bad = cumsum(g, x, pa, 0, 0);
  expect_error(g, bad, pa, i32v(SCALAR, V(2)), GRAFT_EINVAL, "Cumsum op",
               "ScanOp: Expected scan axis in the range [-2, 2), but got 2");
  expect_error(g, bad, pa, i32v(SCALAR, V(-3)), GRAFT_EINVAL, "Cumsum op",
               "ScanOp: Expected scan axis in the range [-2, 2), but got -1");
  expect_error(g, bad, pa, i32v(D(1), V(0)), GRAFT_EINVAL, "Cumsum op", "ScanOp: axis must be a scalar, not [1]");
  graft_op *bad2 = cumsum(g, konst(g, "sc", GRAFT_FLOAT32, SCALAR, F(1)), pa, 0, 0);
  expect_error(g, bad2, pa, i32v(SCALAR, V(0)), GRAFT_EINVAL, "Cumsum op",
               "ScanOp: Expected scan axis in the range [0, 0), but got 0");
}

/* ---- TopKV2 ------------------------------------------------------------------------------ */

static void test_top_k(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(2, 4), F(1, 3, 3, 2, 5, -1, 7, 0));
  /* Ties keep the lower index first. */
  graft_op *t1 = top_k(g, x, i32s(g, 2), GRAFT_INT32);
  expect(run_i(g, t1, 0), GRAFT_FLOAT32, D(2, 2), F(3, 3, 7, 5));
  expect(run_i(g, t1, 1), GRAFT_INT32, D(2, 2), V(1, 2, 2, 0));
  /* k = the whole row, int64 k and int64 indices. */
  graft_op *t2 = top_k(g, x, konst(g, "k4", GRAFT_INT64, SCALAR, V64(4)), GRAFT_INT64);
  expect(run_i(g, t2, 0), GRAFT_FLOAT32, D(2, 4), F(3, 3, 2, 1, 7, 5, 0, -1));
  expect(run_i(g, t2, 1), GRAFT_INT64, D(2, 4), V64(1, 2, 3, 0, 2, 0, 3, 1));
  /* k = 0; int16 indices; an all-equal row. */
  graft_op *t3 = top_k(g, x, i32s(g, 0), GRAFT_INT32);
  expect(run_i(g, t3, 0), GRAFT_FLOAT32, D(2, 0), NULL);
  expect(run_i(g, t3, 1), GRAFT_INT32, D(2, 0), NULL);
  graft_op *t4 = top_k(g, konst(g, "v", GRAFT_INT32, D(5), V(4, 4, 4, 1, 4)), i32s(g, 3), GRAFT_INT16);
  expect(run_i(g, t4, 0), GRAFT_INT32, D(3), V(4, 4, 4));
  expect(run_i(g, t4, 1), GRAFT_INT16, D(3), ((const int16_t[]){0, 1, 2}));
  /* NaN counts as the largest. */
  graft_op *t5 = top_k(g, konst(g, "n", GRAFT_FLOAT64, D(3), F64(1, NAN, 2)), i32s(g, 2), GRAFT_INT32);
  expect(run_i(g, t5, 0), GRAFT_FLOAT64, D(2), F64(NAN, 2));
  expect(run_i(g, t5, 1), GRAFT_INT32, D(2), V(1, 2));
  /* uint8 beyond int8's range; no rows. */
  graft_op *t6 = top_k(g, konst(g, "u", GRAFT_UINT8, D(3), B(200, 7, 255)), i32s(g, 1), GRAFT_INT32);
  expect(run_i(g, t6, 0), GRAFT_UINT8, D(1), B(255));
  expect(run_i(g, t6, 1), GRAFT_INT32, D(1), V(2));
  graft_op *t7 = top_k(g, konst(g, "e", GRAFT_FLOAT32, D(0, 3), NULL), i32s(g, 2), GRAFT_INT32);
  expect(run_i(g, t7, 1), GRAFT_INT32, D(0, 2), NULL);
  /* Every registered dtype: [1, 3, 2, 3], k 2 -> [3, 3] at [1, 3]. */
  static const graft_dtype dts[] = {GRAFT_FLOAT32, GRAFT_FLOAT64, GRAFT_INT8,   GRAFT_INT16,  GRAFT_INT32,
                                    GRAFT_INT64,   GRAFT_UINT8,   GRAFT_UINT16, GRAFT_UINT32, GRAFT_UINT64};
  for (int k = 0; k < N_OF(dts); ++k) {
    unsigned char in_b[64], want[64];
    put_all(dts[k], in_b, F64(1, 3, 2, 3), 4);
    graft_op *t = top_k(g, konst(g, nm("v"), dts[k], D(4), in_b), i32s(g, 2), GRAFT_INT32);
    put_all(dts[k], want, F64(3, 3), 2);
    expect(run_i(g, t, 0), dts[k], D(2), want);
    expect(run_i(g, t, 1), GRAFT_INT32, D(2), V(1, 3));
  }
  /* Run-time errors. */
  graft_op *pk = ph(g, "pk", GRAFT_INT32);
  graft_op *bad = top_k(g, x, pk, GRAFT_INT32);
  expect_error(g, bad, pk, i32v(SCALAR, V(5)), GRAFT_EINVAL, "TopKV2 op",
               "input must have at least k columns. Had 4, needed 5");
  expect_error(g, bad, pk, i32v(SCALAR, V(-1)), GRAFT_EINVAL, "TopKV2 op", "Need k >= 0, got -1");
  expect_error(g, bad, pk, i32v(D(1), V(1)), GRAFT_EINVAL, "TopKV2 op", "k must be scalar, got shape [1]");
  graft_op *px = ph(g, "px", GRAFT_FLOAT32);
  graft_op *bad2 = top_k(g, px, i32s(g, 1), GRAFT_INT32);
  expect_error(g, bad2, px, tensor(GRAFT_FLOAT32, SCALAR, F(1)), GRAFT_EINVAL, "TopKV2 op",
               "input must be >= 1-D, got shape []");
}

/* ---- Unique ------------------------------------------------------------------------------ */

static void test_unique(void **state) {
  graft_graph *g = *state;
  graft_op *u1 = unique(g, konst(g, "x", GRAFT_INT32, D(5), V(3, 1, 3, 2, 1)), GRAFT_INT32);
  expect(run_i(g, u1, 0), GRAFT_INT32, D(3), V(3, 1, 2));
  expect(run_i(g, u1, 1), GRAFT_INT32, D(5), V(0, 1, 0, 2, 1));
  /* int64 idx; floats: 0 == -0 (the first kept), every NaN distinct. */
  graft_op *u2 = unique(g, konst(g, "f", GRAFT_FLOAT32, D(5), F(0.0f, -0.0f, NAN, NAN, 1)), GRAFT_INT64);
  expect(run_i(g, u2, 0), GRAFT_FLOAT32, D(4), F(0.0f, NAN, NAN, 1));
  expect(run_i(g, u2, 1), GRAFT_INT64, D(5), V64(0, 0, 1, 2, 3));
  /* Strings, bool, complex, empty. */
  graft_op *u3 = unique(g, strings(g, "s", D(4), (const char *const[]){"b", "a", "b", ""}), GRAFT_INT32);
  expect_strings(run_i(g, u3, 0), D(3), (const char *const[]){"b", "a", ""});
  expect(run_i(g, u3, 1), GRAFT_INT32, D(4), V(0, 1, 0, 2));
  graft_op *u4 = unique(g, konst(g, "b", GRAFT_BOOL, D(3), B(1, 0, 1)), GRAFT_INT32);
  expect(run_i(g, u4, 0), GRAFT_BOOL, D(2), B(1, 0));
  expect(run_i(g, u4, 1), GRAFT_INT32, D(3), V(0, 1, 0));
  graft_op *u5 = unique(g, konst(g, "c", GRAFT_COMPLEX128, D(3), F64(1, 2, 1, 2, 2, 1)), GRAFT_INT32);
  expect(run_i(g, u5, 0), GRAFT_COMPLEX128, D(2), F64(1, 2, 2, 1));
  expect(run_i(g, u5, 1), GRAFT_INT32, D(3), V(0, 0, 1));
  graft_op *u6 = unique(g, konst(g, "e", GRAFT_INT64, D(0), NULL), GRAFT_INT64);
  expect(run_i(g, u6, 0), GRAFT_INT64, D(0), NULL);
  expect(run_i(g, u6, 1), GRAFT_INT64, D(0), NULL);
  /* Every registered dtype: elements with bytes 1 2 1 3 (bool: 0 1 0 1). */
  static const graft_dtype dts[] = {GRAFT_FLOAT32, GRAFT_FLOAT64,   GRAFT_INT32,    GRAFT_UINT8,  GRAFT_INT16,
                                    GRAFT_INT8,    GRAFT_COMPLEX64, GRAFT_INT64,    GRAFT_BOOL,   GRAFT_QINT8,
                                    GRAFT_QUINT8,  GRAFT_QINT32,    GRAFT_BFLOAT16, GRAFT_QINT16, GRAFT_QUINT16,
                                    GRAFT_UINT16,  GRAFT_COMPLEX128, GRAFT_FLOAT16, GRAFT_UINT32, GRAFT_UINT64};
  for (int k = 0; k < N_OF(dts); ++k) {
    graft_dtype dt = dts[k];
    unsigned char in_b[64], want[64];
    const int is_bool = dt == GRAFT_BOOL;
    fill_bytes(dt, in_b, is_bool ? (const int[]){0, 1, 0, 1} : (const int[]){1, 2, 1, 3}, 4);
    graft_op *u = unique(g, konst(g, nm("v"), dt, D(4), in_b), GRAFT_INT32);
    fill_bytes(dt, want, is_bool ? (const int[]){0, 1} : (const int[]){1, 2, 3}, is_bool ? 2 : 3);
    expect(run_i(g, u, 0), dt, D(is_bool ? 2 : 3), want);
    expect(run_i(g, u, 1), GRAFT_INT32, D(4), is_bool ? V(0, 1, 0, 1) : V(0, 1, 0, 2));
  }
  /* Run-time error: not a vector. */
  graft_op *px = ph(g, "px", GRAFT_INT32);
  graft_op *bad = unique(g, px, GRAFT_INT32);
  expect_error(g, bad, px, i32v(D(2, 2), V(1, 2, 3, 4)), GRAFT_EINVAL, "Unique op", "unique expects a 1D vector.");
  expect_error(g, bad, px, i32v(SCALAR, V(1)), GRAFT_EINVAL, "Unique op", "unique expects a 1D vector.");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_one_hot, setup, teardown),
      cmocka_unit_test_setup_teardown(test_one_hot_dtypes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_where, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cumprod, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cumsum, setup, teardown),
      cmocka_unit_test_setup_teardown(test_top_k, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unique, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_sequence", tests, NULL, NULL);
}
