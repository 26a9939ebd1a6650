/* CPU kernels for splitting and mirror padding (kernels/cpu/split_kernels.cc): Split, SplitV
 * and MirrorPad.
 * Expected values are literal tables worked out by hand from TensorFlow's documented
 * semantics; run-time errors are provoked through placeholders so that graph construction
 * cannot catch them first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

#define V(...) ((const int32_t[]){__VA_ARGS__})
#define V64(...) ((const int64_t[]){__VA_ARGS__})
#define F(...) ((const float[]){__VA_ARGS__})
#define F64(...) ((const double[]){__VA_ARGS__})

static graft_tensor *run_i(graft_graph *g, graft_op *op, int i) { return run_feeds(g, op, i, 0, NULL, NULL); }

static graft_op *split(graft_graph *g, const char *name, graft_op *dim, graft_op *x, int n) {
  graft_op_desc *d = desc(g, "Split", name);
  in(d, dim);
  in(d, x);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num_split", n));
  return fin(d);
}

static graft_op *splitv(graft_graph *g, const char *name, graft_op *x, graft_op *sizes, graft_op *dim, int n) {
  graft_op_desc *d = desc(g, "SplitV", name);
  in(d, x);
  in(d, sizes);
  in(d, dim);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num_split", n));
  return fin(d);
}

static graft_op *mpad(graft_graph *g, const char *name, graft_op *x, graft_op *pads, const char *mode) {
  graft_op_desc *d = desc(g, "MirrorPad", name);
  in(d, x);
  in(d, pads);
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "mode", mode, strlen(mode)));
  return fin(d);
}

static graft_op *scalar_i32(graft_graph *g, const char *name, int32_t v) { return konst(g, name, GRAFT_INT32, SCALAR, &v); }

/* ---- Split ------------------------------------------------------------------------------- */

static void test_split(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(2, 6), V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  graft_op *s1 = split(g, "s1", scalar_i32(g, "d1", 1), x, 3);
  expect(run_i(g, s1, 0), GRAFT_INT32, D(2, 2), V(0, 1, 6, 7));
  expect(run_i(g, s1, 1), GRAFT_INT32, D(2, 2), V(2, 3, 8, 9));
  expect(run_i(g, s1, 2), GRAFT_INT32, D(2, 2), V(4, 5, 10, 11));
  /* A negative split_dim counts from the end. */
  graft_op *s2 = split(g, "s2", scalar_i32(g, "d2", -2), x, 2);
  expect(run_i(g, s2, 0), GRAFT_INT32, D(1, 6), V(0, 1, 2, 3, 4, 5));
  expect(run_i(g, s2, 1), GRAFT_INT32, D(1, 6), V(6, 7, 8, 9, 10, 11));
  /* One piece is the input; pieces of size 1; float64. */
  expect(run(g, split(g, "s3", scalar_i32(g, "d3", 0), x, 1)), GRAFT_INT32, D(2, 6),
         V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  graft_op *v = konst(g, "v", GRAFT_FLOAT64, D(4), F64(1.5, -2, 3.25, 4));
  graft_op *s4 = split(g, "s4", scalar_i32(g, "d4", 0), v, 4);
  expect(run_i(g, s4, 0), GRAFT_FLOAT64, D(1), F64(1.5));
  expect(run_i(g, s4, 3), GRAFT_FLOAT64, D(1), F64(4));
  /* The middle dim of a rank-3 input: y = arange(12).reshape(2, 2, 3). */
  graft_op *y = konst(g, "y", GRAFT_FLOAT32, D(2, 2, 3), F(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  graft_op *s5 = split(g, "s5", scalar_i32(g, "d5", 1), y, 2);
  expect(run_i(g, s5, 0), GRAFT_FLOAT32, D(2, 1, 3), F(0, 1, 2, 6, 7, 8));
  expect(run_i(g, s5, 1), GRAFT_FLOAT32, D(2, 1, 3), F(3, 4, 5, 9, 10, 11));
  /* Empty: a zero-sized split dim, and a zero-sized other dim. */
  graft_op *e = konst(g, "e", GRAFT_INT32, D(0, 4), NULL);
  graft_op *s6 = split(g, "s6", scalar_i32(g, "d6", 0), e, 2);
  expect(run_i(g, s6, 1), GRAFT_INT32, D(0, 4), NULL);
  graft_op *s7 = split(g, "s7", scalar_i32(g, "d7", 1), e, 2);
  expect(run_i(g, s7, 0), GRAFT_INT32, D(0, 2), NULL);
  /* Strings. */
  graft_op *st = strings(g, "st", D(4), (const char *const[]){"a", "bb", "", "d"});
  graft_op *s8 = split(g, "s8", scalar_i32(g, "d8", 0), st, 2);
  expect_strings(run_i(g, s8, 0), D(2), (const char *const[]){"a", "bb"});
  expect_strings(run_i(g, s8, 1), D(2), (const char *const[]){"", "d"});
  /* Run-time errors, with split_dim fed. */
  graft_op *pd = ph(g, "pd", GRAFT_INT32);
  graft_op *bad = split(g, "bad", pd, x, 4);
  expect_error(g, bad, pd, i32v(SCALAR, V(1)), GRAFT_EINVAL, "Split op 'bad'",
               "Number of ways to split should evenly divide the split dimension, but got split_dim 1 (size = 6) and "
               "num_split 4");
  expect_error(g, bad, pd, i32v(SCALAR, V(2)), GRAFT_EINVAL, "Split op 'bad'",
               "-input rank(-2) <= split_dim < input rank (2), but got 2");
  expect_error(g, bad, pd, i32v(SCALAR, V(-3)), GRAFT_EINVAL, "Split op 'bad'", "but got -3");
  graft_op *sc = konst(g, "sc", GRAFT_INT32, SCALAR, V(5));
  graft_op *bad2 = split(g, "bad2", pd, sc, 1);
  expect_error(g, bad2, pd, i32v(SCALAR, V(0)), GRAFT_EINVAL, "Split op 'bad2'",
               "-input rank(-0) <= split_dim < input rank (0), but got 0");
  /* 2^31 - 1 pieces: refused when the op is made, before hundreds of GB of outputs are. */
  int64_t before = graft_graph_num_ops(g);
  graft_op_desc *d = desc(g, "Split", "huge");
  in(d, pd);
  in(d, x);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num_split", 2147483647));
  graft_op *huge = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&huge, d), "Split op 'huge'",
         "attr 'num_split' = 2147483647 asks for more than the 1048576 outputs an op may have");
  assert_int_equal(graft_graph_num_ops(g), before);
}

/* ---- SplitV ------------------------------------------------------------------------------ */

static void test_split_v(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT64, D(2, 6), V64(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  /* Sizes [1, -1, 2] along dim 1: the -1 takes the 3 left over. */
  graft_op *s1 = splitv(g, "s1", x, konst(g, "z1", GRAFT_INT32, D(3), V(1, -1, 2)), scalar_i32(g, "d1", 1), 3);
  expect(run_i(g, s1, 0), GRAFT_INT64, D(2, 1), V64(0, 6));
  expect(run_i(g, s1, 1), GRAFT_INT64, D(2, 3), V64(1, 2, 3, 7, 8, 9));
  expect(run_i(g, s1, 2), GRAFT_INT64, D(2, 2), V64(4, 5, 10, 11));
  /* int64 sizes with an empty piece, along dim -2. */
  graft_op *s2 = splitv(g, "s2", x, konst(g, "z2", GRAFT_INT64, D(2), V64(2, 0)), scalar_i32(g, "d2", -2), 2);
  expect(run_i(g, s2, 0), GRAFT_INT64, D(2, 6), V64(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  expect(run_i(g, s2, 1), GRAFT_INT64, D(0, 6), NULL);
  /* int8 sizes; a -1 that gets nothing; a single piece. */
  graft_op *v = konst(g, "v", GRAFT_FLOAT32, D(5), F(1, 2, 3, 4, 5));
  graft_op *s3 = splitv(g, "s3", v, konst(g, "z3", GRAFT_INT8, D(3), (const int8_t[]){2, 3, -1}), scalar_i32(g, "d3", 0),
                        3);
  expect(run_i(g, s3, 0), GRAFT_FLOAT32, D(2), F(1, 2));
  expect(run_i(g, s3, 1), GRAFT_FLOAT32, D(3), F(3, 4, 5));
  expect(run_i(g, s3, 2), GRAFT_FLOAT32, D(0), NULL);
  expect(run(g, splitv(g, "s4", v, konst(g, "z4", GRAFT_INT32, D(1), V(5)), scalar_i32(g, "d4", 0), 1)), GRAFT_FLOAT32,
         D(5), F(1, 2, 3, 4, 5));
  /* Strings. */
  graft_op *st = strings(g, "st", D(3), (const char *const[]){"p", "q", "r"});
  graft_op *s5 = splitv(g, "s5", st, konst(g, "z5", GRAFT_INT32, D(2), V(-1, 1)), scalar_i32(g, "d5", 0), 2);
  expect_strings(run_i(g, s5, 0), D(2), (const char *const[]){"p", "q"});
  expect_strings(run_i(g, s5, 1), D(1), (const char *const[]){"r"});
  /* Run-time errors, with size_splits (or split_dim) fed. */
  graft_op *pz = ph(g, "pz", GRAFT_INT32);
  graft_op *bad = splitv(g, "bad", x, pz, scalar_i32(g, "d6", 1), 3);
  expect_error(g, bad, pz, i32v(D(3), V(-1, -1, 6)), GRAFT_EINVAL, "SplitV op 'bad'",
               "There can only be one -1 in the input.");
  expect_error(g, bad, pz, i32v(D(3), V(1, 2, 2)), GRAFT_EINVAL, "SplitV op 'bad'",
               "Determined shape must either match input shape along split_dim exactly if fully specified, or be less "
               "than the size of the input along split_dim if not fully specified.  Got: 5");
  expect_error(g, bad, pz, i32v(D(3), V(1, -1, 7)), GRAFT_EINVAL, "SplitV op 'bad'", "Got: 8");
  /* A negative size (other than -1) counts in the total first, as in TensorFlow. */
  expect_error(g, bad, pz, i32v(D(3), V(1, -2, 7)), GRAFT_EINVAL, "SplitV op 'bad'",
               "Split size at index 1 must be >= 0. Got: -2");
  expect_error(g, bad, pz, i32v(D(3), V(1, -2, 2)), GRAFT_EINVAL, "SplitV op 'bad'", "Got: 1");
  expect_error(g, bad, pz, i32v(D(2), V(3, 3)), GRAFT_EINVAL, "SplitV op 'bad'",
               "size of the split_tensor must be 1-D and have the same elements as outputs got 1 -D and 2 elements");
  graft_op *pd = ph(g, "pd", GRAFT_INT32);
  graft_op *bad2 = splitv(g, "bad2", x, konst(g, "z7", GRAFT_INT32, D(2), V(1, 1)), pd, 2);
  expect_error(g, bad2, pd, i32v(SCALAR, V(-3)), GRAFT_EINVAL, "SplitV op 'bad2'",
               "-input rank(-2) <= split_dim < input rank (2), but got -3");
}

/* ---- MirrorPad --------------------------------------------------------------------------- */

static void test_mirror_pad(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(2, 3), V(1, 2, 3, 4, 5, 6));
  graft_op *p = konst(g, "p", GRAFT_INT32, D(2, 2), V(1, 1, 2, 2));
  /* REFLECT: rows 1 0 1 0, cols 2 1 0 1 2 1 0. */
  expect(run(g, mpad(g, "r1", x, p, "REFLECT")), GRAFT_INT32, D(4, 7),
         V(6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1));
  /* SYMMETRIC: rows 0 0 1 1, cols 1 0 0 1 2 2 1. */
  expect(run(g, mpad(g, "s1", x, p, "SYMMETRIC")), GRAFT_INT32, D(4, 7),
         V(2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5));
  /* Vectors with int64 paddings, the most each mode allows. */
  graft_op *v = konst(g, "v", GRAFT_FLOAT32, D(3), F(1, 2, 3));
  expect(run(g, mpad(g, "r2", v, konst(g, "p2", GRAFT_INT64, D(1, 2), V64(2, 2)), "REFLECT")), GRAFT_FLOAT32, D(7),
         F(3, 2, 1, 2, 3, 2, 1));
  expect(run(g, mpad(g, "s2", v, konst(g, "p3", GRAFT_INT64, D(1, 2), V64(3, 3)), "SYMMETRIC")), GRAFT_FLOAT32, D(9),
         F(3, 2, 1, 1, 2, 3, 3, 2, 1));
  /* Only after, only one dim of a rank-3 input: z = arange(8).reshape(2, 2, 2), pad dim 2 by [0, 1]. */
  graft_op *z = konst(g, "z", GRAFT_FLOAT64, D(2, 2, 2), F64(0, 1, 2, 3, 4, 5, 6, 7));
  expect(run(g, mpad(g, "r3", z, konst(g, "p4", GRAFT_INT32, D(3, 2), V(0, 0, 0, 0, 0, 1)), "REFLECT")), GRAFT_FLOAT64,
         D(2, 2, 3), F64(0, 1, 0, 2, 3, 2, 4, 5, 4, 6, 7, 6));
  /* A scalar; an empty input (SYMMETRIC may pad a zero-sized dim by 0); strings. */
  expect(run(g, mpad(g, "s3", konst(g, "sc", GRAFT_INT32, SCALAR, V(9)), konst(g, "p5", GRAFT_INT32, D(0, 2), NULL),
                     "REFLECT")),
         GRAFT_INT32, SCALAR, V(9));
  expect(run(g, mpad(g, "s4", konst(g, "e", GRAFT_INT32, D(0, 2), NULL), konst(g, "p6", GRAFT_INT32, D(2, 2), V(0, 0, 1, 1)),
                     "SYMMETRIC")),
         GRAFT_INT32, D(0, 4), NULL);
  graft_op *st = strings(g, "st", D(2), (const char *const[]){"a", "b"});
  expect_strings(run(g, mpad(g, "s5", st, konst(g, "p7", GRAFT_INT32, D(1, 2), V(1, 2)), "SYMMETRIC")), D(5),
                 (const char *const[]){"a", "a", "b", "b", "a"});
  /* Run-time errors, with paddings fed. */
  graft_op *pp = ph(g, "pp", GRAFT_INT32);
  graft_op *bad = mpad(g, "bad", x, pp, "REFLECT");
  expect_error(g, bad, pp, i32v(D(2, 2), V(0, 0, 0, 3)), GRAFT_EINVAL, "MirrorPad op 'bad'",
               "paddings must be less than the dimension size: 0, 3 not less than 3");
  expect_error(g, bad, pp, i32v(D(2, 2), V(-1, 0, 0, 0)), GRAFT_EINVAL, "MirrorPad op 'bad'",
               "paddings must be non-negative: -1 0");
  expect_error(g, bad, pp, i32v(D(1, 2), V(0, 0)), GRAFT_EINVAL, "MirrorPad op 'bad'",
               "The first dimension of paddings must be the rank of inputs");
  expect_error(g, bad, pp, i32v(D(2, 3), V(0, 0, 0, 0, 0, 0)), GRAFT_EINVAL, "MirrorPad op 'bad'",
               "paddings must be a matrix with 2 columns");
  graft_op *bad2 = mpad(g, "bad2", x, pp, "SYMMETRIC");
  expect_error(g, bad2, pp, i32v(D(2, 2), V(0, 0, 4, 0)), GRAFT_EINVAL, "MirrorPad op 'bad2'",
               "paddings must be no greater than the dimension size: 4, 0 greater than 3");
}

/* ---- Every dtype ------------------------------------------------------------------------- */

/* A [2, 2] tensor of dt whose element i has every byte i + 1 (bool: i % 2). */
static graft_op *pattern(graft_graph *g, const char *name, graft_dtype dt, unsigned char *bytes) {
  size_t sz = graft_dtype_size(dt);
  for (size_t i = 0; i < 4; ++i) memset(bytes + i * sz, dt == GRAFT_BOOL ? (int)(i % 2) : (int)(i + 1), sz);
  return konst(g, name, dt, D(2, 2), bytes);
}

/* The elements of bytes (of size sz each) at the positions in at, concatenated. */
static void pick(unsigned char *out, const unsigned char *bytes, size_t sz, const int *at, int n) {
  for (int i = 0; i < n; ++i) memcpy(out + (size_t)i * sz, bytes + (size_t)at[i] * sz, sz);
}

static void test_all_dtypes(void **state) {
  graft_graph *g = *state;
  static const graft_dtype dts[] = {GRAFT_FLOAT32,  GRAFT_FLOAT64, GRAFT_INT32,  GRAFT_UINT8,   GRAFT_INT16,
                                    GRAFT_INT8,     GRAFT_COMPLEX64, GRAFT_INT64, GRAFT_BOOL,    GRAFT_QINT8,
                                    GRAFT_QUINT8,   GRAFT_QINT32,  GRAFT_BFLOAT16, GRAFT_QINT16, GRAFT_QUINT16,
                                    GRAFT_UINT16,   GRAFT_COMPLEX128, GRAFT_FLOAT16, GRAFT_UINT32, GRAFT_UINT64};
  for (int k = 0; k < N_OF(dts); ++k) {
    graft_dtype dt = dts[k];
    size_t sz = graft_dtype_size(dt);
    unsigned char bytes[64], want[96];
    char n1[32], n2[32], n3[32];
    snprintf(n1, sizeof n1, "x%d", k);
    graft_op *x = pattern(g, n1, dt, bytes);
    snprintf(n1, sizeof n1, "split%d", k);
    snprintf(n2, sizeof n2, "split%d_d", k);
    graft_op *s = split(g, n1, scalar_i32(g, n2, 1), x, 2);
    pick(want, bytes, sz, (const int[]){1, 3}, 2);
    expect(run_i(g, s, 1), dt, D(2, 1), want);
    snprintf(n1, sizeof n1, "splitv%d", k);
    snprintf(n2, sizeof n2, "splitv%d_z", k);
    snprintf(n3, sizeof n3, "splitv%d_d", k);
    graft_op *sv = splitv(g, n1, x, konst(g, n2, GRAFT_INT32, D(2), V(1, -1)), scalar_i32(g, n3, 0), 2);
    pick(want, bytes, sz, (const int[]){2, 3}, 2);
    expect(run_i(g, sv, 1), dt, D(1, 2), want);
    snprintf(n1, sizeof n1, "mpad%d", k);
    snprintf(n2, sizeof n2, "mpad%d_p", k);
    graft_op *mp = mpad(g, n1, x, konst(g, n2, GRAFT_INT32, D(2, 2), V(0, 0, 1, 0)), "SYMMETRIC");
    pick(want, bytes, sz, (const int[]){0, 0, 1, 2, 2, 3}, 6);
    expect(run(g, mp), dt, D(2, 3), want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_split, setup, teardown),
      cmocka_unit_test_setup_teardown(test_split_v, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mirror_pad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_all_dtypes, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_split", tests, NULL, NULL);
}
