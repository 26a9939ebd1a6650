/* CPU kernels for shapes and data movement (kernels/cpu/shape_kernels.cc): Shape, ShapeN,
 * Size, Rank, Reshape, ExpandDims, Squeeze, Fill, Range, Tile, Transpose, ConcatV2, Pack,
 * Unpack, Slice, ZerosLike, OnesLike, BroadcastTo, Cast, DynamicStitch, InvertPermutation,
 * BroadcastGradientArgs, ReverseV2, SpaceToBatchND, BatchToSpaceND, EnsureShape. Expected values are literal tables worked out by hand (or, for the
 * larger transposes, by index arithmetic in this file); run-time errors are provoked through
 * placeholders so that graph construction cannot catch them first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph_test_util.h"

/* ---- Helpers ------------------------------------------------------------------------------ */

#include "kernel_test_util.h"

/* ---- Shape, ShapeN, Size, Rank ---------------------------------------------------------- */

static void test_shape_size_rank(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  graft_op *e = konst(g, "e", GRAFT_BOOL, D(0, 4), NULL);
  graft_op *sc = konst(g, "sc", GRAFT_INT8, SCALAR, (const int8_t[]){7});
  graft_op *str = strings(g, "str", D(3), (const char *const[]){"a", "b", "c"});
  graft_op *s32 = op1(g, "Shape", "s32", x);
  graft_op_desc *d = desc(g, "Shape", "s64");
  in(d, x);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "out_type", GRAFT_INT64));
  graft_op *s64 = fin(d);
  expect(run(g, s32), GRAFT_INT32, D(2), (const int32_t[]){2, 3});
  expect(run(g, s64), GRAFT_INT64, D(2), (const int64_t[]){2, 3});
  expect(run(g, op1(g, "Shape", "se", e)), GRAFT_INT32, D(2), (const int32_t[]){0, 4});
  expect(run(g, op1(g, "Shape", "ssc", sc)), GRAFT_INT32, D(0), NULL);
  expect(run(g, op1(g, "Shape", "sstr", str)), GRAFT_INT32, D(1), (const int32_t[]){3});
  /* ShapeN: one output per input (of one dtype). */
  graft_op *fe = konst(g, "fe", GRAFT_FLOAT32, D(0, 4), NULL);
  graft_op *f3 = konst(g, "f3", GRAFT_FLOAT32, D(3), (const float[]){1, 2, 3});
  d = desc(g, "ShapeN", "sn");
  graft_output list[3] = {{x, 0}, {fe, 0}, {f3, 0}};
  GT_OK(graft_op_desc_add_input_list(d, list, 3));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "out_type", GRAFT_INT64));
  graft_op *sn = fin(d);
  expect(run_feeds(g, sn, 0, 0, NULL, NULL), GRAFT_INT64, D(2), (const int64_t[]){2, 3});
  expect(run_feeds(g, sn, 1, 0, NULL, NULL), GRAFT_INT64, D(2), (const int64_t[]){0, 4});
  expect(run_feeds(g, sn, 2, 0, NULL, NULL), GRAFT_INT64, D(1), (const int64_t[]){3});
  /* Size and Rank. */
  expect(run(g, op1(g, "Size", "n", x)), GRAFT_INT32, SCALAR, (const int32_t[]){6});
  d = desc(g, "Size", "n64");
  in(d, e);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "out_type", GRAFT_INT64));
  expect(run(g, fin(d)), GRAFT_INT64, SCALAR, (const int64_t[]){0});
  expect(run(g, op1(g, "Size", "nsc", sc)), GRAFT_INT32, SCALAR, (const int32_t[]){1});
  expect(run(g, op1(g, "Rank", "r", x)), GRAFT_INT32, SCALAR, (const int32_t[]){2});
  expect(run(g, op1(g, "Rank", "rsc", sc)), GRAFT_INT32, SCALAR, (const int32_t[]){0});
  expect(run(g, op1(g, "Rank", "rstr", str)), GRAFT_INT32, SCALAR, (const int32_t[]){1});
  /* Of a fed value of unknown shape. */
  graft_op *p = ph(g, "p", GRAFT_FLOAT64);
  graft_op *ps = op1(g, "Shape", "ps", p);
  graft_tensor *v = tensor(GRAFT_FLOAT64, D(1, 2, 3, 0), NULL);
  expect(run_feeds(g, ps, 0, 1, &p, &v), GRAFT_INT32, D(4), (const int32_t[]){1, 2, 3, 0});
}

/* ---- Reshape, ExpandDims, Squeeze ----------------------------------------------------------- */

static void test_reshape(void **state) {
  graft_graph *g = *state;
  const float vals[6] = {1, 2, 3, 4, 5, 6};
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(2, 3), vals);
  graft_op *r1 = make_binary(g, "Reshape", "r1", x, konst(g, "s1", GRAFT_INT32, D(2), (const int32_t[]){3, 2}));
  expect(run(g, r1), GRAFT_FLOAT32, D(3, 2), vals);
  graft_op *r2 = make_binary(g, "Reshape", "r2", x, konst(g, "s2", GRAFT_INT32, D(1), (const int32_t[]){-1}));
  expect(run(g, r2), GRAFT_FLOAT32, D(6), vals);
  graft_op *r3 = make_binary(g, "Reshape", "r3", x, konst(g, "s3", GRAFT_INT64, D(3), (const int64_t[]){-1, 1, 2}));
  expect(run(g, r3), GRAFT_FLOAT32, D(3, 1, 2), vals);
  /* Chained: the reshaped value feeds an in-place elementwise op, the original is intact. */
  graft_op *sq = op1(g, "Square", "sq", r1);
  expect(run(g, sq), GRAFT_FLOAT32, D(3, 2), (const float[]){1, 4, 9, 16, 25, 36});
  graft_op *both = make_binary(g, "AddV2", "both", op1(g, "Neg", "neg", r2), r2);
  expect(run(g, both), GRAFT_FLOAT32, D(6), (const float[]){0, 0, 0, 0, 0, 0});
  /* To and from scalars, empty tensors, strings. */
  graft_op *one = konst(g, "one", GRAFT_INT32, D(1, 1), (const int32_t[]){42});
  graft_op *r4 = make_binary(g, "Reshape", "r4", one, konst(g, "s4", GRAFT_INT32, D(0), NULL));
  expect(run(g, r4), GRAFT_INT32, SCALAR, (const int32_t[]){42});
  graft_op *e = konst(g, "e", GRAFT_FLOAT32, D(0, 3), NULL);
  graft_op *r5 = make_binary(g, "Reshape", "r5", e, konst(g, "s5", GRAFT_INT32, D(3), (const int32_t[]){3, 0, 5}));
  expect(run(g, r5), GRAFT_FLOAT32, D(3, 0, 5), NULL);
  graft_op *st = strings(g, "st", D(4), (const char *const[]){"w", "x", "y", "z"});
  graft_op *r6 = make_binary(g, "Reshape", "r6", st, konst(g, "s6", GRAFT_INT32, D(2), (const int32_t[]){2, -1}));
  expect_strings(run(g, r6), D(2, 2), (const char *const[]){"w", "x", "y", "z"});
  /* Run-time errors, with the shape fed. */
  graft_op *s = ph(g, "s", GRAFT_INT32);
  graft_op *r = make_binary(g, "Reshape", "r", x, s);
  expect_error(g, r, s, i32v(D(2), (const int32_t[]){2, 2}), GRAFT_EINVAL, "Reshape op 'r'",
               "Input to reshape is a tensor with 6 values, but the requested shape has 4");
  expect_error(g, r, s, i32v(D(2), (const int32_t[]){-1, 4}), GRAFT_EINVAL, "Reshape op 'r'",
               "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4");
  expect_error(g, r, s, i32v(D(2), (const int32_t[]){-1, -1}), GRAFT_EINVAL, "Reshape op 'r'",
               "Only one input size may be -1, not both 0 and 1");
  expect_error(g, r, s, i32v(D(2), (const int32_t[]){-2, -3}), GRAFT_EINVAL, "Reshape op 'r'",
               "Size 0 must be non-negative, not -2");
  expect_error(g, r, s, i32v(D(2, 1), (const int32_t[]){6, 1}), GRAFT_EINVAL, "Reshape op 'r'", "sizes input must be 1-D");
  expect_error(g, r, s, i32v(D(2), (const int32_t[]){-1, 0}), GRAFT_EINVAL, "Reshape op 'r'",
               "Input to reshape is a tensor with 6 values, but the requested shape has 0");
}

/* -1 with empty tensors, TensorFlow 2.21's rule (checked against TensorFlow): when the shape
 * has a 0 size, -1 is the product of the input's non-zero dims over that of the shape's
 * non-zero sizes, and an input with a 0 dim needs no exact multiple. */
static void test_reshape_empty_minus_one(void **state) {
  graft_graph *g = *state;
  struct {
    int64_t in[3];
    int in_rank;
    int32_t sizes[3];
    int nsizes;
    int64_t want[3];
  } cases[] = {
      {{0}, 1, {-1, 0}, 2, {1, 0}},
      {{2, 0}, 2, {-1, 0}, 2, {2, 0}},
      {{0, 3}, 2, {-1, 0}, 2, {3, 0}},
      {{0, 3}, 2, {0, -1}, 2, {0, 3}},
      {{0, 3}, 2, {-1, 3}, 2, {0, 3}},
      {{0, 3}, 2, {2, -1}, 2, {2, 0}},
      {{0}, 1, {0, -1}, 2, {0, 1}},
      {{0}, 1, {-1}, 1, {0}},
      {{2, 0}, 2, {-1, 0, 4}, 3, {0, 0, 4}},
      {{0, 2, 3}, 3, {-1, 0, 4}, 3, {1, 0, 4}},
      {{3, 0, 4}, 3, {4, 0, -1}, 3, {4, 0, 3}},
      {{5, 0}, 2, {0, -1, 0}, 3, {0, 5, 0}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char name[32];
    snprintf(name, sizeof name, "x%zu", i);
    graft_op *x = konst(g, name, GRAFT_FLOAT32, cases[i].in, cases[i].in_rank, NULL);
    snprintf(name, sizeof name, "s%zu", i);
    graft_op *s = ph(g, name, GRAFT_INT32);
    snprintf(name, sizeof name, "r%zu", i);
    graft_op *r = make_binary(g, "Reshape", name, x, s);
    graft_tensor *sizes = i32v(D(cases[i].nsizes), cases[i].sizes);
    expect(run_feeds(g, r, 0, 1, &s, &sizes), GRAFT_FLOAT32, cases[i].want, cases[i].nsizes, NULL);
  }
  /* The shape function agrees where the sizes are constant: [0] to [-1, 0]. */
  graft_op *e = konst(g, "e", GRAFT_FLOAT32, D(0), NULL);
  graft_op *rc = make_binary(g, "Reshape", "rc", e, konst(g, "sc", GRAFT_INT32, D(2), (const int32_t[]){-1, 0}));
  expect(run(g, rc), GRAFT_FLOAT32, D(1, 0), NULL);
  /* A non-empty input cannot fill a shape with a 0 size. */
  graft_op *v = konst(g, "v", GRAFT_FLOAT32, D(6), (const float[]){1, 2, 3, 4, 5, 6});
  graft_op *s = ph(g, "s", GRAFT_INT32);
  graft_op *r = make_binary(g, "Reshape", "r", v, s);
  expect_error(g, r, s, i32v(D(2), (const int32_t[]){-1, 0}), GRAFT_EINVAL, "Reshape op 'r'",
               "Input to reshape is a tensor with 6 values, but the requested shape has 0");
  expect_error(g, r, s, i32v(D(3), (const int32_t[]){-1, 0, 4}), GRAFT_EINVAL, "Reshape op 'r'",
               "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4");
}

static void test_expand_squeeze(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT64, D(2), (const int64_t[]){7, 8});
  graft_op *e0 = make_binary(g, "ExpandDims", "e0", x, konst(g, "d0", GRAFT_INT32, SCALAR, (const int32_t[]){0}));
  expect(run(g, e0), GRAFT_INT64, D(1, 2), (const int64_t[]){7, 8});
  graft_op *e1 = make_binary(g, "ExpandDims", "e1", x, konst(g, "d1", GRAFT_INT64, SCALAR, (const int64_t[]){-1}));
  expect(run(g, e1), GRAFT_INT64, D(2, 1), (const int64_t[]){7, 8});
  graft_op *sc = konst(g, "sc", GRAFT_BOOL, SCALAR, (const uint8_t[]){1});
  graft_op *e2 = make_binary(g, "ExpandDims", "e2", sc, konst(g, "d2", GRAFT_INT32, D(1), (const int32_t[]){0}));
  expect(run(g, e2), GRAFT_BOOL, D(1), (const uint8_t[]){1});
  graft_op *dim = ph(g, "dim", GRAFT_INT32);
  graft_op *ed = make_binary(g, "ExpandDims", "ed", x, dim);
  expect_error(g, ed, dim, i32v(SCALAR, (const int32_t[]){2}), GRAFT_EINVAL, "ExpandDims op 'ed'",
               "Tried to expand dim index 2 for tensor with 1 dimensions.");
  expect_error(g, ed, dim, i32v(SCALAR, (const int32_t[]){-3}), GRAFT_EINVAL, "ExpandDims op 'ed'",
               "Tried to expand dim index -3");

  graft_op *y = konst(g, "y", GRAFT_FLOAT32, D(1, 2, 1), (const float[]){1.5f, 2.5f});
  expect(run(g, op1(g, "Squeeze", "q0", y)), GRAFT_FLOAT32, D(2), (const float[]){1.5f, 2.5f});
  graft_op_desc *d = desc(g, "Squeeze", "q1");
  in(d, y);
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "squeeze_dims", (const int64_t[]){-1}, 1));
  expect(run(g, fin(d)), GRAFT_FLOAT32, D(1, 2), (const float[]){1.5f, 2.5f});
  graft_op *one = konst(g, "one", GRAFT_INT32, D(1, 1), (const int32_t[]){5});
  expect(run(g, op1(g, "Squeeze", "q2", one)), GRAFT_INT32, SCALAR, (const int32_t[]){5});
  graft_op *p = ph(g, "p", GRAFT_FLOAT32);
  d = desc(g, "Squeeze", "q");
  in(d, p);
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "squeeze_dims", (const int64_t[]){1}, 1));
  graft_op *q = fin(d);
  expect_error(g, q, p, tensor(GRAFT_FLOAT32, D(1, 2, 3), NULL), GRAFT_EINVAL, "Squeeze op 'q'",
               "Can not squeeze dim[1], expected a dimension of 1, got 2");
  expect_error(g, q, p, tensor(GRAFT_FLOAT32, D(4), NULL), GRAFT_EINVAL, "Squeeze op 'q'",
               "Tried to squeeze dim index 1 for tensor with 1 dimensions.");
}

/* ---- Fill, ZerosLike, OnesLike, Range ------------------------------------------------------ */

static void test_fill_like(void **state) {
  graft_graph *g = *state;
  graft_op *dims = konst(g, "dims", GRAFT_INT32, D(2), (const int32_t[]){2, 3});
  graft_op *f = make_binary(g, "Fill", "f", dims, make_const(g, "v", 7.5f));
  expect(run(g, f), GRAFT_FLOAT32, D(2, 3), (const float[]){7.5f, 7.5f, 7.5f, 7.5f, 7.5f, 7.5f});
  graft_op *dims64 = konst(g, "dims64", GRAFT_INT64, D(1), (const int64_t[]){3});
  graft_op *fb = make_binary(g, "Fill", "fb", dims64, konst(g, "t", GRAFT_BOOL, SCALAR, (const uint8_t[]){1}));
  expect(run(g, fb), GRAFT_BOOL, D(3), (const uint8_t[]){1, 1, 1});
  graft_op *fi = make_binary(g, "Fill", "fi", konst(g, "none", GRAFT_INT32, D(0), NULL),
                             konst(g, "iv", GRAFT_INT16, SCALAR, (const int16_t[]){-9}));
  expect(run(g, fi), GRAFT_INT16, SCALAR, (const int16_t[]){-9});
  graft_op *fe = make_binary(g, "Fill", "fe", konst(g, "zd", GRAFT_INT32, D(2), (const int32_t[]){0, 2}),
                             konst(g, "dv", GRAFT_FLOAT64, SCALAR, (const double[]){1}));
  expect(run(g, fe), GRAFT_FLOAT64, D(0, 2), NULL);
  graft_op *fs = make_binary(g, "Fill", "fs", dims, strings(g, "sv", SCALAR, (const char *const[]){"hi"}));
  expect_strings(run(g, fs), D(2, 3), (const char *const[]){"hi", "hi", "hi", "hi", "hi", "hi"});
  graft_op *pd = ph(g, "pd", GRAFT_INT32);
  graft_op *fp = make_binary(g, "Fill", "fp", pd, make_const(g, "v2", 1.0f));
  expect_error(g, fp, pd, i32v(D(2), (const int32_t[]){2, -1}), GRAFT_EINVAL, "Fill op 'fp'", "Dimension -1 must be >= 0");
  expect_error(g, fp, pd, i32v(D(1, 1), (const int32_t[]){2}), GRAFT_EINVAL, "Fill op 'fp'", "dims must be a vector");

  /* ZerosLike / OnesLike over several dtypes. */
  graft_op *xf = konst(g, "xf", GRAFT_FLOAT32, D(2), (const float[]){3, -4});
  graft_op *xd = konst(g, "xd", GRAFT_FLOAT64, D(1), (const double[]){3});
  graft_op *xi = konst(g, "xi", GRAFT_INT32, D(3), (const int32_t[]){1, 2, 3});
  graft_op *xl = konst(g, "xl", GRAFT_INT64, D(1, 1), (const int64_t[]){9});
  graft_op *xu = konst(g, "xu", GRAFT_UINT8, D(2), (const uint8_t[]){9, 8});
  graft_op *xb = konst(g, "xb", GRAFT_BOOL, D(2), (const uint8_t[]){1, 0});
  graft_op *xe = konst(g, "xe", GRAFT_FLOAT32, D(0), NULL);
  expect(run(g, op1(g, "ZerosLike", "zf", xf)), GRAFT_FLOAT32, D(2), (const float[]){0, 0});
  expect(run(g, op1(g, "OnesLike", "of", xf)), GRAFT_FLOAT32, D(2), (const float[]){1, 1});
  expect(run(g, op1(g, "ZerosLike", "zd", xd)), GRAFT_FLOAT64, D(1), (const double[]){0});
  expect(run(g, op1(g, "OnesLike", "od", xd)), GRAFT_FLOAT64, D(1), (const double[]){1});
  expect(run(g, op1(g, "ZerosLike", "zi", xi)), GRAFT_INT32, D(3), (const int32_t[]){0, 0, 0});
  expect(run(g, op1(g, "OnesLike", "oi", xi)), GRAFT_INT32, D(3), (const int32_t[]){1, 1, 1});
  expect(run(g, op1(g, "ZerosLike", "zl", xl)), GRAFT_INT64, D(1, 1), (const int64_t[]){0});
  expect(run(g, op1(g, "OnesLike", "ol", xl)), GRAFT_INT64, D(1, 1), (const int64_t[]){1});
  expect(run(g, op1(g, "ZerosLike", "zu", xu)), GRAFT_UINT8, D(2), (const uint8_t[]){0, 0});
  expect(run(g, op1(g, "OnesLike", "ou", xu)), GRAFT_UINT8, D(2), (const uint8_t[]){1, 1});
  expect(run(g, op1(g, "ZerosLike", "zb", xb)), GRAFT_BOOL, D(2), (const uint8_t[]){0, 0});
  expect(run(g, op1(g, "OnesLike", "ob", xb)), GRAFT_BOOL, D(2), (const uint8_t[]){1, 1});
  expect(run(g, op1(g, "OnesLike", "oe", xe)), GRAFT_FLOAT32, D(0), NULL);
}

static graft_op *range(graft_graph *g, const char *name, graft_dtype dt, const void *start, const void *limit,
                       const void *delta) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s/start", name);
  graft_op *a = konst(g, buf, dt, SCALAR, start);
  snprintf(buf, sizeof buf, "%s/limit", name);
  graft_op *b = konst(g, buf, dt, SCALAR, limit);
  snprintf(buf, sizeof buf, "%s/delta", name);
  graft_op *c = konst(g, buf, dt, SCALAR, delta);
  return op3(g, "Range", name, a, b, c);
}

static void test_range(void **state) {
  graft_graph *g = *state;
  expect(run(g, range(g, "r1", GRAFT_INT32, (int32_t[]){0}, (int32_t[]){5}, (int32_t[]){1})), GRAFT_INT32, D(5),
         (const int32_t[]){0, 1, 2, 3, 4});
  expect(run(g, range(g, "r2", GRAFT_INT32, (int32_t[]){5}, (int32_t[]){0}, (int32_t[]){-2})), GRAFT_INT32, D(3),
         (const int32_t[]){5, 3, 1});
  expect(run(g, range(g, "r3", GRAFT_INT64, (int64_t[]){10}, (int64_t[]){10}, (int64_t[]){3})), GRAFT_INT64, D(0),
         NULL);
  expect(run(g, range(g, "r4", GRAFT_INT64, (int64_t[]){-3}, (int64_t[]){4}, (int64_t[]){3})), GRAFT_INT64, D(3),
         (const int64_t[]){-3, 0, 3});
  /* Floats: ceil(|(limit - start) / delta|) elements, computed in the dtype, and the values by
   * repeated addition (0.3f + 0.3f + 0.3f rounds to 0.90000004f). */
  expect(run(g, range(g, "r5", GRAFT_FLOAT32, (float[]){0}, (float[]){1}, (float[]){0.3f})), GRAFT_FLOAT32, D(4),
         (const float[]){0.0f, 0.3f, 0.3f + 0.3f, 0.3f + 0.3f + 0.3f});
  /* 0.3f / 0.1f is 3.0000000447 exactly but rounds to 3 in float32: 3 elements, not 4. */
  expect_f32_near(run(g, range(g, "r8", GRAFT_FLOAT32, (float[]){0}, (float[]){0.3f}, (float[]){0.1f})), D(3),
                  (const float[]){0.0f, 0.1f, 0.2f}, 1e-7f);
  expect(run(g, range(g, "r6", GRAFT_FLOAT64, (double[]){1}, (double[]){-1}, (double[]){-0.5})), GRAFT_FLOAT64, D(4),
         (const double[]){1, 0.5, 0, -0.5});
  expect(run(g, range(g, "r7", GRAFT_FLOAT32, (float[]){2}, (float[]){2.5f}, (float[]){1})), GRAFT_FLOAT32, D(1),
         (const float[]){2});
  /* Errors. */
  graft_op *st = ph(g, "st", GRAFT_INT32);
  graft_op *r = op3(g, "Range", "r", st, konst(g, "lim", GRAFT_INT32, SCALAR, (const int32_t[]){4}),
                    konst(g, "dl", GRAFT_INT32, SCALAR, (const int32_t[]){1}));
  expect_error(g, r, st, i32v(SCALAR, (const int32_t[]){9}), GRAFT_EINVAL, "Range op 'r'",
               "Requires start <= limit when delta > 0: 9/4");
  graft_op *dl = ph(g, "dl2", GRAFT_INT32);
  graft_op *rd = op3(g, "Range", "rd", konst(g, "s0", GRAFT_INT32, SCALAR, (const int32_t[]){0}),
                     konst(g, "l0", GRAFT_INT32, SCALAR, (const int32_t[]){4}), dl);
  expect_error(g, rd, dl, i32v(SCALAR, (const int32_t[]){0}), GRAFT_EINVAL, "Range op 'rd'", "Requires delta != 0: 0");
  expect_error(g, rd, dl, i32v(SCALAR, (const int32_t[]){-1}), GRAFT_EINVAL, "Range op 'rd'",
               "Requires start >= limit when delta < 0: 0/4");
}

/* Ranges at the ends of the integer dtypes: the value after the last element passes the
 * dtype's limit and is never stored (it was computed with signed overflow); a count no memory
 * holds is an error before any allocation. Inputs are fed, so the kernel computes them. */
static void test_range_limits(void **state) {
  graft_graph *g = *state;
  graft_op *s32 = ph(g, "s32", GRAFT_INT32), *l32 = ph(g, "l32", GRAFT_INT32), *d32 = ph(g, "d32", GRAFT_INT32);
  graft_op *r32 = op3(g, "Range", "r32", s32, l32, d32);
  graft_op *f32[] = {s32, l32, d32};
  graft_tensor *v32[] = {i32v(SCALAR, (const int32_t[]){INT32_MAX - 2}), i32v(SCALAR, (const int32_t[]){INT32_MAX}),
                         i32v(SCALAR, (const int32_t[]){5})};
  expect(run_feeds(g, r32, 0, 3, f32, v32), GRAFT_INT32, D(1), (const int32_t[]){INT32_MAX - 2});
  graft_tensor *w32[] = {i32v(SCALAR, (const int32_t[]){INT32_MIN + 3}), i32v(SCALAR, (const int32_t[]){INT32_MIN}),
                         i32v(SCALAR, (const int32_t[]){-2})};
  expect(run_feeds(g, r32, 0, 3, f32, w32), GRAFT_INT32, D(2), (const int32_t[]){INT32_MIN + 3, INT32_MIN + 1});

  graft_op *s64 = ph(g, "s64", GRAFT_INT64), *l64 = ph(g, "l64", GRAFT_INT64), *d64 = ph(g, "d64", GRAFT_INT64);
  graft_op *r64 = op3(g, "Range", "r64", s64, l64, d64);
  graft_op *f64[] = {s64, l64, d64};
  graft_tensor *v64[] = {tensor(GRAFT_INT64, SCALAR, (const int64_t[]){INT64_MAX - 3}),
                         tensor(GRAFT_INT64, SCALAR, (const int64_t[]){INT64_MAX}),
                         tensor(GRAFT_INT64, SCALAR, (const int64_t[]){2})};
  expect(run_feeds(g, r64, 0, 3, f64, v64), GRAFT_INT64, D(2), (const int64_t[]){INT64_MAX - 3, INT64_MAX - 1});
  graft_tensor *w64[] = {tensor(GRAFT_INT64, SCALAR, (const int64_t[]){INT64_MIN + 1}),
                         tensor(GRAFT_INT64, SCALAR, (const int64_t[]){INT64_MIN}),
                         tensor(GRAFT_INT64, SCALAR, (const int64_t[]){INT64_MIN})};
  expect(run_feeds(g, r64, 0, 3, f64, w64), GRAFT_INT64, D(1), (const int64_t[]){INT64_MIN + 1});

  /* 2^50 elements (8 PiB), and INT64_MAX of them: errors, not allocations. */
  graft_op *big = op3(g, "Range", "big", konst(g, "b0", GRAFT_INT64, SCALAR, (const int64_t[]){0}), s64,
                      konst(g, "b1", GRAFT_INT64, SCALAR, (const int64_t[]){1}));
  expect_error(g, big, s64, tensor(GRAFT_INT64, SCALAR, (const int64_t[]){(int64_t)1 << 50}), GRAFT_ENOMEM,
               "Range op 'big'", "has 1125899906842624 elements, more than fit in the machine's");
  expect_error(g, big, s64, tensor(GRAFT_INT64, SCALAR, (const int64_t[]){INT64_MAX}), GRAFT_ENOMEM, "Range op 'big'",
               "has 9223372036854775807 elements");
  graft_op *fbig = op3(g, "Range", "fbig", konst(g, "fb0", GRAFT_FLOAT32, SCALAR, (const float[]){0}),
                       konst(g, "fb1", GRAFT_FLOAT32, SCALAR, (const float[]){1e30f}), ph(g, "fd", GRAFT_FLOAT32));
  graft_op *fd = NULL;
  GT_OK(graft_graph_op_by_name(&fd, g, "fd"));
  expect_error(g, fbig, fd, tensor(GRAFT_FLOAT32, SCALAR, (const float[]){1e12f}), GRAFT_ENOMEM, "Range op 'fbig'",
               "elements, more than fit");
}

/* ---- Tile, Transpose, BroadcastTo, Slice --------------------------------------------------- */

static void test_tile(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  graft_op *t1 = make_binary(g, "Tile", "t1", x, konst(g, "m1", GRAFT_INT32, D(2), (const int32_t[]){2, 1}));
  expect(run(g, t1), GRAFT_FLOAT32, D(4, 3), (const float[]){1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
  graft_op *t2 = make_binary(g, "Tile", "t2", x, konst(g, "m2", GRAFT_INT64, D(2), (const int64_t[]){1, 2}));
  expect(run(g, t2), GRAFT_FLOAT32, D(2, 6), (const float[]){1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
  graft_op *t3 = make_binary(g, "Tile", "t3", x, konst(g, "m3", GRAFT_INT32, D(2), (const int32_t[]){2, 2}));
  expect(run(g, t3), GRAFT_FLOAT32, D(4, 6),
         (const float[]){1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6, 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
  graft_op *t4 = make_binary(g, "Tile", "t4", x, konst(g, "m4", GRAFT_INT32, D(2), (const int32_t[]){0, 3}));
  expect(run(g, t4), GRAFT_FLOAT32, D(0, 9), NULL);
  graft_op *b = konst(g, "b", GRAFT_BOOL, D(2, 1, 1), (const uint8_t[]){1, 0});
  graft_op *t5 = make_binary(g, "Tile", "t5", b, konst(g, "m5", GRAFT_INT32, D(3), (const int32_t[]){1, 2, 2}));
  expect(run(g, t5), GRAFT_BOOL, D(2, 2, 2), (const uint8_t[]){1, 1, 1, 1, 0, 0, 0, 0});
  graft_op *s = strings(g, "s", D(2), (const char *const[]){"a", "b"});
  graft_op *t6 = make_binary(g, "Tile", "t6", s, konst(g, "m6", GRAFT_INT32, D(1), (const int32_t[]){3}));
  expect_strings(run(g, t6), D(6), (const char *const[]){"a", "b", "a", "b", "a", "b"});
  graft_op *sc = konst(g, "sc", GRAFT_INT64, SCALAR, (const int64_t[]){5});
  graft_op *t7 = make_binary(g, "Tile", "t7", sc, konst(g, "m7", GRAFT_INT32, D(0), NULL));
  expect(run(g, t7), GRAFT_INT64, SCALAR, (const int64_t[]){5});
  graft_op *m = ph(g, "m", GRAFT_INT32);
  graft_op *t = make_binary(g, "Tile", "t", x, m);
  expect_error(g, t, m, i32v(D(2), (const int32_t[]){1, -1}), GRAFT_EINVAL, "Tile op 't'",
               "Expected multiples[1] >= 0, but got -1");
  expect_error(g, t, m, i32v(D(3), (const int32_t[]){1, 1, 1}), GRAFT_EINVAL, "Tile op 't'",
               "Expected multiples argument to be a vector of length 2 but got length 3");
}

static void test_transpose(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(2, 3), (const int32_t[]){1, 2, 3, 4, 5, 6});
  graft_op *t1 = make_binary(g, "Transpose", "t1", x, konst(g, "p1", GRAFT_INT32, D(2), (const int32_t[]){1, 0}));
  expect(run(g, t1), GRAFT_INT32, D(3, 2), (const int32_t[]){1, 4, 2, 5, 3, 6});
  graft_op *t2 = make_binary(g, "Transpose", "t2", x, konst(g, "p2", GRAFT_INT64, D(2), (const int64_t[]){0, 1}));
  expect(run(g, t2), GRAFT_INT32, D(2, 3), (const int32_t[]){1, 2, 3, 4, 5, 6});
  /* [2,3,4] with perm [2,0,1]: out[k][i][j] = in[i][j][k]. */
  double in3[24], want[24];
  for (int i = 0; i < 24; ++i) in3[i] = i * 1.5;
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) want[(k * 2 + i) * 3 + j] = in3[(i * 3 + j) * 4 + k];
    }
  }
  graft_op *y = konst(g, "y", GRAFT_FLOAT64, D(2, 3, 4), in3);
  graft_op *t3 = make_binary(g, "Transpose", "t3", y, konst(g, "p3", GRAFT_INT32, D(3), (const int32_t[]){2, 0, 1}));
  expect(run(g, t3), GRAFT_FLOAT64, D(4, 2, 3), want);
  graft_op *s = strings(g, "s", D(2, 2), (const char *const[]){"a", "b", "c", "d"});
  graft_op *t4 = make_binary(g, "Transpose", "t4", s, konst(g, "p4", GRAFT_INT32, D(2), (const int32_t[]){1, 0}));
  expect_strings(run(g, t4), D(2, 2), (const char *const[]){"a", "c", "b", "d"});
  graft_op *e = konst(g, "e", GRAFT_UINT16, D(0, 2), NULL);
  graft_op *t5 = make_binary(g, "Transpose", "t5", e, konst(g, "p5", GRAFT_INT32, D(2), (const int32_t[]){1, 0}));
  expect(run(g, t5), GRAFT_UINT16, D(2, 0), NULL);
  graft_op *p = ph(g, "p", GRAFT_INT32);
  graft_op *t = make_binary(g, "Transpose", "t", x, p);
  expect_error(g, t, p, i32v(D(2), (const int32_t[]){0, 0}), GRAFT_EINVAL, "Transpose op 't'", "1 is missing from {0,0}.");
  expect_error(g, t, p, i32v(D(2), (const int32_t[]){0, 2}), GRAFT_EINVAL, "Transpose op 't'", "2 is out of range [0 .. 2)");
  expect_error(g, t, p, i32v(D(3), (const int32_t[]){0, 1, 2}), GRAFT_EINVAL, "Transpose op 't'",
               "transpose expects a vector of size 2. But input(1) is a vector of size 3");
  /* Negative entries count from the end (TensorFlow 2.21's values and messages); normalised,
   * perm must still be a permutation. */
  expect(run_feeds(g, t, 0, 1, &p, (graft_tensor *[]){i32v(D(2), (const int32_t[]){-1, 0})}), GRAFT_INT32, D(3, 2),
         (const int32_t[]){1, 4, 2, 5, 3, 6});
  expect(run_feeds(g, t, 0, 1, &p, (graft_tensor *[]){i32v(D(2), (const int32_t[]){-2, -1})}), GRAFT_INT32, D(2, 3),
         (const int32_t[]){1, 2, 3, 4, 5, 6});
  expect_error(g, t, p, i32v(D(2), (const int32_t[]){-1, -1}), GRAFT_EINVAL, "Transpose op 't'", "0 is missing from {1,1}.");
  expect_error(g, t, p, i32v(D(2), (const int32_t[]){-1, 1}), GRAFT_EINVAL, "Transpose op 't'", "0 is missing from {1,1}.");
  expect_error(g, t, p, i32v(D(2), (const int32_t[]){0, -3}), GRAFT_EINVAL, "Transpose op 't'", "-1 is out of range [0 .. 2)");
  /* A constant negative perm: the shape function normalises it too. */
  graft_op *tn = make_binary(g, "Transpose", "tn", y, konst(g, "pn", GRAFT_INT64, D(3), (const int64_t[]){-1, 0, -2}));
  expect(run(g, tn), GRAFT_FLOAT64, D(4, 2, 3), want); /* perm [2, 0, 1], as t3 */
  graft_op_desc *d = desc(g, "Transpose", "tbad");
  in(d, x);
  in(d, konst(g, "pbad", GRAFT_INT32, D(2), (const int32_t[]){-1, 1}));
  graft_op *bad = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&bad, d), "tbad", "not a permutation");
}

static void test_broadcast_to(void **state) {
  graft_graph *g = *state;
  graft_op *v = konst(g, "v", GRAFT_FLOAT32, D(3), (const float[]){1, 2, 3});
  graft_op *b1 = make_binary(g, "BroadcastTo", "b1", v, konst(g, "s1", GRAFT_INT32, D(2), (const int32_t[]){2, 3}));
  expect(run(g, b1), GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 1, 2, 3});
  graft_op *c = konst(g, "c", GRAFT_INT64, D(2, 1), (const int64_t[]){4, 5});
  graft_op *b2 = make_binary(g, "BroadcastTo", "b2", c, konst(g, "s2", GRAFT_INT64, D(3), (const int64_t[]){2, 2, 3}));
  expect(run(g, b2), GRAFT_INT64, D(2, 2, 3), (const int64_t[]){4, 4, 4, 5, 5, 5, 4, 4, 4, 5, 5, 5});
  graft_op *sc = konst(g, "sc", GRAFT_BOOL, SCALAR, (const uint8_t[]){1});
  graft_op *b3 = make_binary(g, "BroadcastTo", "b3", sc, konst(g, "s3", GRAFT_INT32, D(2), (const int32_t[]){2, 2}));
  expect(run(g, b3), GRAFT_BOOL, D(2, 2), (const uint8_t[]){1, 1, 1, 1});
  graft_op *b4 = make_binary(g, "BroadcastTo", "b4", v, konst(g, "s4", GRAFT_INT32, D(2), (const int32_t[]){0, 3}));
  expect(run(g, b4), GRAFT_FLOAT32, D(0, 3), NULL);
  graft_op *s = ph(g, "s", GRAFT_INT32);
  graft_op *b = make_binary(g, "BroadcastTo", "b", v, s);
  expect_error(g, b, s, i32v(D(2), (const int32_t[]){2, 4}), GRAFT_EINVAL, "BroadcastTo op 'b'",
               "Incompatible shapes: [3] vs. [2,4]");
  expect_error(g, b, s, i32v(D(1), (const int32_t[]){1}), GRAFT_EINVAL, "BroadcastTo op 'b'",
               "Unable to broadcast tensor of shape [3] to tensor of shape [1]");
  expect_error(g, b, s, i32v(D(0), NULL), GRAFT_EINVAL, "BroadcastTo op 'b'",
               "Rank of input (1) must be no greater than rank of output shape (0).");
  /* An empty result is made before the shapes are checked, as TensorFlow's. */
  graft_tensor *sv = i32v(D(2), (const int32_t[]){0, 2});
  expect(run_feeds(g, b, 0, 1, &s, &sv), GRAFT_FLOAT32, D(0, 2), NULL);
}

static void test_slice(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(3, 4), (const int32_t[]){0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  graft_op *s1 = op3(g, "Slice", "s1", x, konst(g, "b1", GRAFT_INT32, D(2), (const int32_t[]){1, 1}),
                     konst(g, "z1", GRAFT_INT32, D(2), (const int32_t[]){2, -1}));
  expect(run(g, s1), GRAFT_INT32, D(2, 3), (const int32_t[]){11, 12, 13, 21, 22, 23});
  graft_op *s2 = op3(g, "Slice", "s2", x, konst(g, "b2", GRAFT_INT64, D(2), (const int64_t[]){0, 2}),
                     konst(g, "z2", GRAFT_INT64, D(2), (const int64_t[]){3, 1}));
  expect(run(g, s2), GRAFT_INT32, D(3, 1), (const int32_t[]){2, 12, 22});
  graft_op *s3 = op3(g, "Slice", "s3", x, konst(g, "b3", GRAFT_INT32, D(2), (const int32_t[]){0, 0}),
                     konst(g, "z3", GRAFT_INT32, D(2), (const int32_t[]){-1, -1}));
  expect(run(g, s3), GRAFT_INT32, D(3, 4), (const int32_t[]){0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  graft_op *s4 = op3(g, "Slice", "s4", x, konst(g, "b4", GRAFT_INT32, D(2), (const int32_t[]){3, 0}),
                     konst(g, "z4", GRAFT_INT32, D(2), (const int32_t[]){0, 4}));
  expect(run(g, s4), GRAFT_INT32, D(0, 4), NULL);
  graft_op *st = strings(g, "st", D(3), (const char *const[]){"p", "q", "r"});
  graft_op *s5 = op3(g, "Slice", "s5", st, konst(g, "b5", GRAFT_INT32, D(1), (const int32_t[]){1}),
                     konst(g, "z5", GRAFT_INT32, D(1), (const int32_t[]){2}));
  expect_strings(run(g, s5), D(2), (const char *const[]){"q", "r"});
  graft_op *b = ph(g, "b", GRAFT_INT32);
  graft_op *s = op3(g, "Slice", "s", x, b, konst(g, "z", GRAFT_INT32, D(2), (const int32_t[]){1, 2}));
  expect_error(g, s, b, i32v(D(2), (const int32_t[]){4, 0}), GRAFT_EINVAL, "Slice op 's'",
               "Expected begin[0] in [0, 3], but got 4");
  expect_error(g, s, b, i32v(D(2), (const int32_t[]){0, 3}), GRAFT_EINVAL, "Slice op 's'",
               "Expected size[1] in [0, 1], but got 2");
  expect_error(g, s, b, i32v(D(3), (const int32_t[]){0, 0, 0}), GRAFT_EINVAL, "Slice op 's'",
               "Expected begin and size arguments to be 1-D tensors of size 2");
}

/* ---- ConcatV2, Pack, Unpack ----------------------------------------------------------------- */

static graft_op *concat(graft_graph *g, const char *name, graft_op **xs, int n, graft_op *axis) {
  graft_op_desc *d = desc(g, "ConcatV2", name);
  graft_output list[8];
  for (int i = 0; i < n; ++i) list[i] = (graft_output){xs[i], 0};
  GT_OK(graft_op_desc_add_input_list(d, list, n));
  in(d, axis);
  return fin(d);
}

static void test_concat(void **state) {
  graft_graph *g = *state;
  graft_op *a = konst(g, "a", GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4});
  graft_op *b = konst(g, "b", GRAFT_FLOAT32, D(2, 1), (const float[]){5, 6});
  graft_op *c = konst(g, "c", GRAFT_FLOAT32, D(1, 2), (const float[]){7, 8});
  graft_op *e = konst(g, "e", GRAFT_FLOAT32, D(2, 0), NULL);
  graft_op *ax1 = konst(g, "ax1", GRAFT_INT32, SCALAR, (const int32_t[]){1});
  graft_op *axm2 = konst(g, "axm2", GRAFT_INT64, SCALAR, (const int64_t[]){-2});
  expect(run(g, concat(g, "c1", (graft_op *[]){a, b}, 2, ax1)), GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 5, 3, 4, 6});
  expect(run(g, concat(g, "c2", (graft_op *[]){a, c, a}, 3, axm2)), GRAFT_FLOAT32, D(5, 2),
         (const float[]){1, 2, 3, 4, 7, 8, 1, 2, 3, 4});
  expect(run(g, concat(g, "c3", (graft_op *[]){e, b, e, a}, 4, ax1)), GRAFT_FLOAT32, D(2, 3),
         (const float[]){5, 1, 2, 6, 3, 4});
  graft_op *s1 = strings(g, "s1", D(1), (const char *const[]){"x"});
  graft_op *s2 = strings(g, "s2", D(2), (const char *const[]){"y", "z"});
  graft_op *ax0 = konst(g, "ax0", GRAFT_INT32, SCALAR, (const int32_t[]){0});
  expect_strings(run(g, concat(g, "c4", (graft_op *[]){s2, s1}, 2, ax0)), D(3), (const char *const[]){"y", "z", "x"});
  graft_op *u = konst(g, "u", GRAFT_UINT8, D(1), (const uint8_t[]){200});
  expect(run(g, concat(g, "c5", (graft_op *[]){u, u, u}, 3, ax0)), GRAFT_UINT8, D(3), (const uint8_t[]){200, 200, 200});
  /* Errors, with the second value fed. */
  graft_op *p = ph(g, "p", GRAFT_FLOAT32);
  graft_op *cp = concat(g, "cp", (graft_op *[]){a, p}, 2, ax1);
  expect_error(g, cp, p, tensor(GRAFT_FLOAT32, D(2), NULL), GRAFT_EINVAL, "ConcatV2 op 'cp'",
               "Ranks of all input tensors should match: shape[0] = [2,2] vs. shape[1] = [2]");
  expect_error(g, cp, p, tensor(GRAFT_FLOAT32, D(3, 1), NULL), GRAFT_EINVAL, "ConcatV2 op 'cp'",
               "Dimension 0 in both shapes must be equal: shape[0] = [2,2] vs. shape[1] = [3,1]");
  graft_op *pa = ph(g, "pa", GRAFT_INT32);
  graft_op *ca = concat(g, "ca", (graft_op *[]){a, a}, 2, pa);
  expect_error(g, ca, pa, i32v(SCALAR, (const int32_t[]){2}), GRAFT_EINVAL, "ConcatV2 op 'ca'",
               "Expected concatenating dimensions in the range [-2, 2), but got 2");
}

static void test_pack_unpack(void **state) {
  graft_graph *g = *state;
  graft_op *a = konst(g, "a", GRAFT_INT32, D(2), (const int32_t[]){1, 2});
  graft_op *b = konst(g, "b", GRAFT_INT32, D(2), (const int32_t[]){3, 4});
  graft_op *c = konst(g, "c", GRAFT_INT32, D(2), (const int32_t[]){5, 6});
  graft_output list[3] = {{a, 0}, {b, 0}, {c, 0}};
  graft_op_desc *d = desc(g, "Pack", "p0");
  GT_OK(graft_op_desc_add_input_list(d, list, 3));
  expect(run(g, fin(d)), GRAFT_INT32, D(3, 2), (const int32_t[]){1, 2, 3, 4, 5, 6});
  d = desc(g, "Pack", "p1");
  GT_OK(graft_op_desc_add_input_list(d, list, 3));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "axis", -1));
  expect(run(g, fin(d)), GRAFT_INT32, D(2, 3), (const int32_t[]){1, 3, 5, 2, 4, 6});
  graft_op *s1 = make_const(g, "s1", 1.5f), *s2 = make_const(g, "s2", -2.0f);
  graft_output sl[2] = {{s1, 0}, {s2, 0}};
  d = desc(g, "Pack", "p2");
  GT_OK(graft_op_desc_add_input_list(d, sl, 2));
  expect(run(g, fin(d)), GRAFT_FLOAT32, D(2), (const float[]){1.5f, -2.0f});
  graft_op *pp = ph(g, "pp", GRAFT_INT32);
  graft_output pl[2] = {{a, 0}, {pp, 0}};
  d = desc(g, "Pack", "pk");
  GT_OK(graft_op_desc_add_input_list(d, pl, 2));
  graft_op *pk = fin(d);
  expect_error(g, pk, pp, i32v(D(3), (const int32_t[]){1, 2, 3}), GRAFT_EINVAL, "Pack op 'pk'",
               "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]");

  graft_op *m = konst(g, "m", GRAFT_FLOAT64, D(3, 2), (const double[]){1, 2, 3, 4, 5, 6});
  d = desc(g, "Unpack", "u0");
  in(d, m);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num", 3));
  graft_op *u0 = fin(d);
  expect(run_feeds(g, u0, 0, 0, NULL, NULL), GRAFT_FLOAT64, D(2), (const double[]){1, 2});
  expect(run_feeds(g, u0, 2, 0, NULL, NULL), GRAFT_FLOAT64, D(2), (const double[]){5, 6});
  d = desc(g, "Unpack", "u1");
  in(d, m);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num", 2));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "axis", -1));
  graft_op *u1 = fin(d);
  expect(run_feeds(g, u1, 0, 0, NULL, NULL), GRAFT_FLOAT64, D(3), (const double[]){1, 3, 5});
  expect(run_feeds(g, u1, 1, 0, NULL, NULL), GRAFT_FLOAT64, D(3), (const double[]){2, 4, 6});
  graft_op *up = ph(g, "up", GRAFT_FLOAT64);
  d = desc(g, "Unpack", "u");
  in(d, up);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num", 3));
  graft_op *u = fin(d);
  expect_error(g, u, up, tensor(GRAFT_FLOAT64, D(2, 3), NULL), GRAFT_EINVAL, "Unpack op 'u'",
               "Input shape axis 0 must equal 3, got 2");
}

/* ---- Cast ------------------------------------------------------------------------------------ */

static void put(graft_dtype dt, void *dst, int i, double v) {
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

static graft_op *cast(graft_graph *g, const char *name, graft_op *x, graft_dtype dst) {
  graft_op_desc *d = desc(g, "Cast", name);
  in(d, x);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "DstT", dst));
  return fin(d);
}

/* Every pair of 11 dtypes, on values every one of them holds exactly. */
static void test_cast_all_pairs(void **state) {
  graft_graph *g = *state;
  const graft_dtype types[] = {GRAFT_FLOAT32, GRAFT_FLOAT64, GRAFT_INT8,   GRAFT_INT16,  GRAFT_INT32, GRAFT_INT64,
                               GRAFT_UINT8,   GRAFT_UINT16,  GRAFT_UINT32, GRAFT_UINT64, GRAFT_BOOL};
  const double vals[4] = {0, 1, 5, 100};
  enum { NT = sizeof types / sizeof types[0] };
  graft_op *casts[NT][NT];
  char name[32];
  for (int s = 0; s < NT; ++s) {
    uint8_t buf[4 * 8];
    for (int i = 0; i < 4; ++i) put(types[s], buf, i, vals[i]);
    snprintf(name, sizeof name, "src%d", s);
    graft_op *src = konst(g, name, types[s], D(4), buf);
    for (int t = 0; t < NT; ++t) {
      snprintf(name, sizeof name, "cast%d_%d", s, t);
      casts[s][t] = cast(g, name, src, types[t]);
    }
  }
  graft_output fetches[NT * NT];
  for (int s = 0; s < NT; ++s) {
    for (int t = 0; t < NT; ++t) fetches[s * NT + t] = (graft_output){casts[s][t], 0};
  }
  graft_session *sess = NULL;
  GT_OK(graft_session_new(&sess, g, NULL));
  graft_tensor *outs[NT * NT];
  GT_OK(graft_session_run(outs, sess, NULL, NULL, 0, fetches, NT * NT, NULL, 0));
  for (int s = 0; s < NT; ++s) {
    for (int t = 0; t < NT; ++t) {
      uint8_t want[4 * 8];
      /* A bool source holds 0, 1, 1, 1. */
      for (int i = 0; i < 4; ++i) put(types[t], want, i, types[s] == GRAFT_BOOL ? (vals[i] != 0) : vals[i]);
      expect(outs[s * NT + t], types[t], D(4), want);
    }
  }
  graft_session_free(sess);
}

static void test_cast_semantics(void **state) {
  graft_graph *g = *state;
  /* Float to integer truncates toward zero. */
  graft_op *f = konst(g, "f", GRAFT_FLOAT32, D(6), (const float[]){-2.7f, -0.5f, 0.0f, 0.5f, 2.7f, 100.9f});
  expect(run(g, cast(g, "fi", f, GRAFT_INT32)), GRAFT_INT32, D(6), (const int32_t[]){-2, 0, 0, 0, 2, 100});
  expect(run(g, cast(g, "fl", f, GRAFT_INT64)), GRAFT_INT64, D(6), (const int64_t[]){-2, 0, 0, 0, 2, 100});
  expect(run(g, cast(g, "fb", f, GRAFT_BOOL)), GRAFT_BOOL, D(6), (const uint8_t[]){1, 1, 0, 1, 1, 1});
  graft_op_desc *d = desc(g, "Cast", "ft");
  in(d, f);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "DstT", GRAFT_INT16));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "Truncate", 1));
  expect(run(g, fin(d)), GRAFT_INT16, D(6), (const int16_t[]){-2, 0, 0, 0, 2, 100});
  graft_op *df = konst(g, "df", GRAFT_FLOAT64, D(3), (const double[]){0.1, -1e300, 2.5});
  expect(run(g, cast(g, "dff", df, GRAFT_FLOAT32)), GRAFT_FLOAT32, D(3), (const float[]){0.1f, -INFINITY, 2.5f});
  graft_op *du = konst(g, "du", GRAFT_FLOAT64, D(3), (const double[]){0.1, 254.9, 2.5});
  expect(run(g, cast(g, "dfu", du, GRAFT_UINT8)), GRAFT_UINT8, D(3), (const uint8_t[]){0, 254, 2});
  /* Integers wrap (two's complement). */
  graft_op *l = konst(g, "l", GRAFT_INT64, D(3), (const int64_t[]){4294967297LL, -1, 2147483648LL});
  expect(run(g, cast(g, "li", l, GRAFT_INT32)), GRAFT_INT32, D(3), (const int32_t[]){1, -1, INT32_MIN});
  expect(run(g, cast(g, "lu8", l, GRAFT_UINT8)), GRAFT_UINT8, D(3), (const uint8_t[]){1, 255, 0});
  graft_op *u = konst(g, "u", GRAFT_UINT8, D(2), (const uint8_t[]){200, 127});
  expect(run(g, cast(g, "ui8", u, GRAFT_INT8)), GRAFT_INT8, D(2), (const int8_t[]){-56, 127});
  graft_op *w = konst(g, "w", GRAFT_UINT16, D(1), (const uint16_t[]){65535});
  expect(run(g, cast(g, "wi", w, GRAFT_INT16)), GRAFT_INT16, D(1), (const int16_t[]){-1});
  expect(run(g, cast(g, "wl", w, GRAFT_INT64)), GRAFT_INT64, D(1), (const int64_t[]){65535});
  graft_op *n = konst(g, "n", GRAFT_INT16, D(2), (const int16_t[]){-5, 300});
  expect(run(g, cast(g, "nl", n, GRAFT_INT64)), GRAFT_INT64, D(2), (const int64_t[]){-5, 300});
  expect(run(g, cast(g, "nu", n, GRAFT_UINT32)), GRAFT_UINT32, D(2), (const uint32_t[]){4294967291u, 300});
  expect(run(g, cast(g, "nf", n, GRAFT_FLOAT64)), GRAFT_FLOAT64, D(2), (const double[]){-5, 300});
  /* int64 to float rounds to nearest: 2^53 + 1 -> 2^53 in double. */
  graft_op *big = konst(g, "big", GRAFT_INT64, D(1), (const int64_t[]){9007199254740993LL});
  expect(run(g, cast(g, "bd", big, GRAFT_FLOAT64)), GRAFT_FLOAT64, D(1), (const double[]){9007199254740992.0});
  /* Complex: real <-> complex. */
  expect(run(g, cast(g, "fc", f, GRAFT_COMPLEX64)), GRAFT_COMPLEX64, D(6),
         (const float[]){-2.7f, 0, -0.5f, 0, 0, 0, 0.5f, 0, 2.7f, 0, 100.9f, 0});
  graft_op *c = konst(g, "c", GRAFT_COMPLEX128, D(2), (const double[]){1.5, 2, -3, 4});
  expect(run(g, cast(g, "cd", c, GRAFT_FLOAT64)), GRAFT_FLOAT64, D(2), (const double[]){1.5, -3});
  expect(run(g, cast(g, "cc", c, GRAFT_COMPLEX64)), GRAFT_COMPLEX64, D(2), (const float[]){1.5f, 2, -3, 4});
  /* Empty and scalar; same dtype is an identity. */
  graft_op *e = konst(g, "e", GRAFT_INT32, D(0, 3), NULL);
  expect(run(g, cast(g, "ef", e, GRAFT_FLOAT32)), GRAFT_FLOAT32, D(0, 3), NULL);
  graft_op *sc = konst(g, "sc", GRAFT_BOOL, SCALAR, (const uint8_t[]){1});
  expect(run(g, cast(g, "scd", sc, GRAFT_FLOAT64)), GRAFT_FLOAT64, SCALAR, (const double[]){1});
  expect(run(g, cast(g, "same", u, GRAFT_UINT8)), GRAFT_UINT8, D(2), (const uint8_t[]){200, 127});
}

/* NaN, infinities and values out of range to integers: TensorFlow 2.21's CPU values (x86's
 * "integer indefinite": the lowest value of the width; narrower types through int32 and
 * uint32 through int64, keeping the low bits). Values: NaN, inf, -inf, 1e10, -1e10, 3e9, -3e9,
 * 300.7, -1.5, 1e20, 4.3e9, 2^63, 1.9e19, 2^31. */
static void test_cast_out_of_range(void **state) {
  graft_graph *g = *state;
  const double v[14] = {NAN, INFINITY, -INFINITY, 1e10, -1e10, 3e9, -3e9, 300.7, -1.5, 1e20, 4.3e9,
                        9223372036854775808.0, 1.9e19, 2147483648.0};
  graft_op *d = konst(g, "oor_d", GRAFT_FLOAT64, D(14), v);
  const int32_t i32_min = INT32_MIN;
  expect(run(g, cast(g, "oor_i32", d, GRAFT_INT32)), GRAFT_INT32, D(14),
         (const int32_t[]){i32_min, i32_min, i32_min, i32_min, i32_min, i32_min, i32_min, 300, -1, i32_min, i32_min,
                           i32_min, i32_min, i32_min});
  expect(run(g, cast(g, "oor_i64", d, GRAFT_INT64)), GRAFT_INT64, D(14),
         (const int64_t[]){INT64_MIN, INT64_MIN, INT64_MIN, 10000000000LL, -10000000000LL, 3000000000LL, -3000000000LL,
                           300, -1, INT64_MIN, 4300000000LL, INT64_MIN, INT64_MIN, 2147483648LL});
  expect(run(g, cast(g, "oor_u8", d, GRAFT_UINT8)), GRAFT_UINT8, D(14),
         (const uint8_t[]){0, 0, 0, 0, 0, 0, 0, 44, 255, 0, 0, 0, 0, 0});
  expect(run(g, cast(g, "oor_i8", d, GRAFT_INT8)), GRAFT_INT8, D(14),
         (const int8_t[]){0, 0, 0, 0, 0, 0, 0, 44, -1, 0, 0, 0, 0, 0});
  expect(run(g, cast(g, "oor_u32", d, GRAFT_UINT32)), GRAFT_UINT32, D(14),
         (const uint32_t[]){0, 0, 0, 1410065408u, 2884901888u, 3000000000u, 1294967296u, 300, 4294967295u, 0, 5032704u,
                            0, 0, 2147483648u});
  expect(run(g, cast(g, "oor_u64", d, GRAFT_UINT64)), GRAFT_UINT64, D(14),
         (const uint64_t[]){9223372036854775808ULL, 9223372036854775808ULL, 9223372036854775808ULL, 10000000000ULL,
                            18446744063709551616ULL, 3000000000ULL, 18446744070709551616ULL, 300,
                            18446744073709551615ULL, 9223372036854775808ULL, 4300000000ULL, 9223372036854775808ULL,
                            9223372036854775808ULL, 2147483648ULL});
  /* float32 the same way (4.3e9 is 4300000256 in float32). */
  float fv[14];
  for (int i = 0; i < 14; ++i) fv[i] = (float)v[i];
  graft_op *f = konst(g, "oor_f", GRAFT_FLOAT32, D(14), fv);
  expect(run(g, cast(g, "oor_fi32", f, GRAFT_INT32)), GRAFT_INT32, D(14),
         (const int32_t[]){i32_min, i32_min, i32_min, i32_min, i32_min, i32_min, i32_min, 300, -1, i32_min, i32_min,
                           i32_min, i32_min, i32_min});
  expect(run(g, cast(g, "oor_fu32", f, GRAFT_UINT32)), GRAFT_UINT32, D(14),
         (const uint32_t[]){0, 0, 0, 1410065408u, 2884901888u, 3000000000u, 1294967296u, 300, 4294967295u, 0, 5032960u,
                            0, 0, 2147483648u});
}

/* ---- DynamicStitch, InvertPermutation, BroadcastGradientArgs ------------------------------- */

static void test_dynamic_stitch(void **state) {
  graft_graph *g = *state;
  /* TensorFlow's documented example. */
  graft_op *i0 = konst(g, "i0", GRAFT_INT32, SCALAR, (const int32_t[]){6});
  graft_op *i1 = konst(g, "i1", GRAFT_INT32, D(2), (const int32_t[]){4, 1});
  graft_op *i2 = konst(g, "i2", GRAFT_INT32, D(2, 2), (const int32_t[]){5, 2, 0, 3});
  graft_op *d0 = konst(g, "d0", GRAFT_FLOAT32, D(2), (const float[]){61, 62});
  graft_op *d1 = konst(g, "d1", GRAFT_FLOAT32, D(2, 2), (const float[]){41, 42, 11, 12});
  graft_op *d2 = konst(g, "d2", GRAFT_FLOAT32, D(2, 2, 2), (const float[]){51, 52, 21, 22, 1, 2, 31, 32});
  graft_op_desc *d = desc(g, "DynamicStitch", "ds");
  graft_output idx[3] = {{i0, 0}, {i1, 0}, {i2, 0}};
  graft_output dat[3] = {{d0, 0}, {d1, 0}, {d2, 0}};
  GT_OK(graft_op_desc_add_input_list(d, idx, 3));
  GT_OK(graft_op_desc_add_input_list(d, dat, 3));
  expect(run(g, fin(d)), GRAFT_FLOAT32, D(7, 2),
         (const float[]){1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62});
  /* Duplicates: the later input wins. Mean's gradient pattern: [0, 1] <- shape, [1] <- 1. */
  graft_op *ja = konst(g, "ja", GRAFT_INT32, D(2), (const int32_t[]){0, 1});
  graft_op *jb = konst(g, "jb", GRAFT_INT32, D(1), (const int32_t[]){1});
  graft_op *va = konst(g, "va", GRAFT_INT32, D(2), (const int32_t[]){4, 3});
  graft_op *vb = konst(g, "vb", GRAFT_INT32, D(1), (const int32_t[]){1});
  d = desc(g, "DynamicStitch", "dup");
  graft_output idx2[2] = {{ja, 0}, {jb, 0}};
  graft_output dat2[2] = {{va, 0}, {vb, 0}};
  GT_OK(graft_op_desc_add_input_list(d, idx2, 2));
  GT_OK(graft_op_desc_add_input_list(d, dat2, 2));
  expect(run(g, fin(d)), GRAFT_INT32, D(2), (const int32_t[]){4, 1});
  /* Strings; an index missing leaves a default (empty) element. */
  graft_op *js = konst(g, "js", GRAFT_INT32, D(2), (const int32_t[]){2, 0});
  graft_op *vs = strings(g, "vs", D(2), (const char *const[]){"two", "zero"});
  d = desc(g, "DynamicStitch", "dss");
  GT_OK(graft_op_desc_add_input_list(d, (graft_output[]){{js, 0}}, 1));
  GT_OK(graft_op_desc_add_input_list(d, (graft_output[]){{vs, 0}}, 1));
  expect_strings(run(g, fin(d)), D(3), (const char *const[]){"zero", "", "two"});
  /* A negative index. */
  graft_op *pi = ph(g, "pi", GRAFT_INT32);
  d = desc(g, "DynamicStitch", "bad");
  GT_OK(graft_op_desc_add_input_list(d, (graft_output[]){{pi, 0}}, 1));
  GT_OK(graft_op_desc_add_input_list(d, (graft_output[]){{va, 0}}, 1));
  graft_op *bad = fin(d);
  expect_error(g, bad, pi, i32v(D(2), (const int32_t[]){0, -1}), GRAFT_EINVAL, "DynamicStitch op 'bad'",
               "indices[0] is out of range");
  expect_error(g, bad, pi, i32v(D(3), (const int32_t[]){0, 1, 2}), GRAFT_EINVAL, "DynamicStitch op 'bad'",
               "does not start with indices[0].shape = [3]");
}

static void test_invert_permutation(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(5), (const int32_t[]){3, 4, 0, 2, 1});
  expect(run(g, op1(g, "InvertPermutation", "ip", x)), GRAFT_INT32, D(5), (const int32_t[]){2, 4, 3, 0, 1});
  graft_op *y = konst(g, "y", GRAFT_INT64, D(3), (const int64_t[]){1, 2, 0});
  expect(run(g, op1(g, "InvertPermutation", "ip64", y)), GRAFT_INT64, D(3), (const int64_t[]){2, 0, 1});
  graft_op *e = konst(g, "e", GRAFT_INT32, D(0), NULL);
  expect(run(g, op1(g, "InvertPermutation", "ipe", e)), GRAFT_INT32, D(0), NULL);
  graft_op *p = ph(g, "p", GRAFT_INT32);
  graft_op *ip = op1(g, "InvertPermutation", "bad", p);
  expect_error(g, ip, p, i32v(D(3), (const int32_t[]){0, 0, 1}), GRAFT_EINVAL, "InvertPermutation op 'bad'",
               "0 is duplicated in the input.");
  expect_error(g, ip, p, i32v(D(3), (const int32_t[]){0, 3, 1}), GRAFT_EINVAL, "InvertPermutation op 'bad'",
               "3 is not between 0 and 3");
  expect_error(g, ip, p, i32v(D(1, 1), (const int32_t[]){0}), GRAFT_EINVAL, "InvertPermutation op 'bad'",
               "invert_permutation expects a 1D vector.");
}

struct bga_case {
  int n0, n1;
  int32_t s0[4], s1[4];
  int nr0, nr1;
  int32_t r0[4], r1[4];
};

static void test_broadcast_gradient_args(void **state) {
  graft_graph *g = *state;
  /* r0 / r1: the dims to sum the broadcast gradient over to get back to s0 / s1. */
  const struct bga_case cases[] = {
      {3, 1, {2, 3, 5}, {1}, 0, 3, {0}, {0, 1, 2}},
      {2, 2, {2, 3}, {2, 3}, 0, 0, {0}, {0}},     /* identical: nothing */
      {1, 1, {1}, {1}, 0, 0, {0}, {0}},           /* identical, even of 1s */
      {2, 1, {1, 1}, {1}, 2, 2, {0, 1}, {0, 1}},  /* 1 against 1: both reduce */
      {2, 2, {1, 3}, {2, 1}, 1, 1, {0}, {1}},
      {0, 1, {0}, {2}, 1, 0, {0}, {0}},           /* a scalar against a vector */
      {3, 2, {2, 1, 4}, {3, 1}, 1, 2, {1}, {0, 2}},
      {1, 1, {0}, {1}, 0, 1, {0}, {0}},           /* 0 against 1 */
      {2, 0, {1, 2}, {0}, 1, 2, {0}, {0, 1}},
  };
  for (int k = 0; k < N_OF(cases); ++k) {
    const struct bga_case *c = &cases[k];
    char name[32];
    snprintf(name, sizeof name, "a%d", k);
    graft_op *a = konst(g, name, GRAFT_INT32, (const int64_t[]){c->n0}, 1, c->s0);
    snprintf(name, sizeof name, "b%d", k);
    graft_op *b = konst(g, name, GRAFT_INT32, (const int64_t[]){c->n1}, 1, c->s1);
    snprintf(name, sizeof name, "bga%d", k);
    graft_op *op = make_binary(g, "BroadcastGradientArgs", name, a, b);
    expect(run_feeds(g, op, 0, 0, NULL, NULL), GRAFT_INT32, (const int64_t[]){c->nr0}, 1, c->r0);
    expect(run_feeds(g, op, 1, 0, NULL, NULL), GRAFT_INT32, (const int64_t[]){c->nr1}, 1, c->r1);
  }
  graft_op *a64 = konst(g, "a64", GRAFT_INT64, D(2), (const int64_t[]){4, 1});
  graft_op *b64 = konst(g, "b64", GRAFT_INT64, D(1), (const int64_t[]){5});
  graft_op *op64 = make_binary(g, "BroadcastGradientArgs", "bga64", a64, b64);
  expect(run_feeds(g, op64, 0, 0, NULL, NULL), GRAFT_INT64, D(1), (const int64_t[]){1});
  expect(run_feeds(g, op64, 1, 0, NULL, NULL), GRAFT_INT64, D(1), (const int64_t[]){0});
  graft_op *p = ph(g, "p", GRAFT_INT32);
  graft_op *bad = make_binary(g, "BroadcastGradientArgs", "bad", p, konst(g, "three", GRAFT_INT32, D(1), (const int32_t[]){3}));
  expect_error(g, bad, p, i32v(D(1), (const int32_t[]){2}), GRAFT_EINVAL, "BroadcastGradientArgs op 'bad'",
               "Incompatible shapes: [2] vs. [3]");
}

/* MatrixBandPart: the band of each innermost matrix (negative: the whole triangle). */
static void test_matrix_band_part(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "mbp_x", GRAFT_FLOAT32, D(2, 3, 3), (const float[]){1, 2, 3, 4, 5, 6, 7, 8, 9,
                                                                              -1, -2, -3, -4, -5, -6, -7, -8, -9});
  int64_t one = 1, zero = 0, neg = -1, big = 4;
  graft_op *band = op3(g, "MatrixBandPart", "band", x, konst(g, "lo1", GRAFT_INT64, NULL, 0, &one),
                       konst(g, "up0", GRAFT_INT64, NULL, 0, &zero));
  expect(run(g, band), GRAFT_FLOAT32, D(2, 3, 3),
         (const float[]){1, 0, 0, 4, 5, 0, 0, 8, 9, -1, 0, 0, -4, -5, 0, 0, -8, -9});
  graft_op *upper = op3(g, "MatrixBandPart", "upper", x, konst(g, "lo0", GRAFT_INT64, NULL, 0, &zero),
                        konst(g, "upall", GRAFT_INT64, NULL, 0, &neg));
  expect(run(g, upper), GRAFT_FLOAT32, D(2, 3, 3),
         (const float[]){1, 2, 3, 0, 5, 6, 0, 0, 9, -1, -2, -3, 0, -5, -6, 0, 0, -9});
  graft_op *lo = ph(g, "mbp_lo", GRAFT_INT64);
  graft_op *bad = op3(g, "MatrixBandPart", "bad_band", x, lo, konst(g, "up1", GRAFT_INT64, NULL, 0, &one));
  expect_error(g, bad, lo, tensor(GRAFT_INT64, NULL, 0, &big), GRAFT_EINVAL, "MatrixBandPart op 'bad_band'",
               "num_lower must be negative or less or equal to number of rows (3) got: 4");
}

/* ReverseV2, SpaceToBatchND, BatchToSpaceND (kernels/cpu/reverse_kernels.cc,
 * space_batch_kernels.cc): values and error messages are TensorFlow 2.21's. */
static void test_reverse_v2(void **state) {
  graft_graph *g = *state;
  float xv[24];
  for (int i = 0; i < 24; ++i) xv[i] = (float)i;
  graft_op *x = konst(g, "rev_x", GRAFT_FLOAT32, D(2, 3, 4), xv);
  graft_op *r1 = make_binary(g, "ReverseV2", "rev1", x, konst(g, "ax1", GRAFT_INT32, D(1), (const int32_t[]){1}));
  assert_output_shape(r1, 0, "(2, 3, 4)");
  expect(run(g, r1), GRAFT_FLOAT32, D(2, 3, 4),
         (const float[]){8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15});
  graft_op *r2 = make_binary(g, "ReverseV2", "rev2", x, konst(g, "ax0m1", GRAFT_INT64, D(2), (const int64_t[]){0, -1}));
  expect(run(g, r2), GRAFT_FLOAT32, D(2, 3, 4),
         (const float[]){15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8});
  graft_op *none = make_binary(g, "ReverseV2", "rev_none", x, konst(g, "ax_none", GRAFT_INT32, D(0), NULL));
  expect(run(g, none), GRAFT_FLOAT32, D(2, 3, 4), xv);
  const char *abc[] = {"a", "b", "c"};
  graft_op *rs = make_binary(g, "ReverseV2", "rev_s", strings(g, "abc", D(3), abc),
                             konst(g, "ax_s", GRAFT_INT64, D(1), (const int64_t[]){0}));
  expect_strings(run(g, rs), D(3), (const char *const[]){"c", "b", "a"});
  graft_op *ax = ph(g, "rev_ax", GRAFT_INT32);
  graft_op *bad = make_binary(g, "ReverseV2", "rev_bad", x, ax);
  expect_error(g, bad, ax, i32v(D(2), (const int32_t[]){1, 1}), GRAFT_EINVAL, "ReverseV2 op 'rev_bad'",
               "axis 1 specified more than once.");
  expect_error(g, bad, ax, i32v(D(1), (const int32_t[]){3}), GRAFT_EINVAL, "ReverseV2 op 'rev_bad'",
               "'axis'[0] = 3 is out of valid range [0, 2");
  expect_error(g, bad, ax, i32v(D(1), (const int32_t[]){-4}), GRAFT_EINVAL, "ReverseV2 op 'rev_bad'",
               "'axis'[0] = -4 is out of valid range [0, 2");
}

static void test_space_to_batch_nd(void **state) {
  graft_graph *g = *state;
  int32_t xv[30];
  for (int i = 0; i < 30; ++i) xv[i] = i;
  graft_op *x = konst(g, "s2b_x", GRAFT_INT32, D(2, 5, 3), xv);
  graft_op *block = konst(g, "block2", GRAFT_INT32, D(1), (const int32_t[]){2});
  graft_op *pads = konst(g, "pads12", GRAFT_INT32, D(1, 2), (const int32_t[]){1, 2});
  graft_op *y = op3(g, "SpaceToBatchND", "s2b", x, block, pads);
  assert_output_shape(y, 0, "(4, 4, 3)");
  const int32_t yv[] = {0,  0,  0,  3,  4,  5, 9,  10, 11, 0,  0,  0,  0,  0,  0,  18, 19, 20, 24, 25, 26, 0,  0,  0,
                        0,  1,  2,  6,  7,  8, 12, 13, 14, 0,  0,  0,  15, 16, 17, 21, 22, 23, 27, 28, 29, 0,  0,  0};
  expect(run(g, y), GRAFT_INT32, D(4, 4, 3), yv);
  /* BatchToSpaceND with the same block and crops gives the input back. */
  graft_op *back = op3(g, "BatchToSpaceND", "b2s", y, block, pads);
  assert_output_shape(back, 0, "(2, 5, 3)");
  expect(run(g, back), GRAFT_INT32, D(2, 5, 3), xv);

  /* Two spatial dims, int64 block and paddings. */
  float x2v[12];
  for (int i = 0; i < 12; ++i) x2v[i] = (float)i;
  graft_op *x2 = konst(g, "s2b_x2", GRAFT_FLOAT32, D(1, 3, 4, 1), x2v);
  graft_op *block22 = konst(g, "block22", GRAFT_INT64, D(2), (const int64_t[]){2, 2});
  graft_op *y2 = op3(g, "SpaceToBatchND", "s2b2", x2, block22,
                     konst(g, "pads2", GRAFT_INT64, D(2, 2), (const int64_t[]){1, 0, 0, 0}));
  assert_output_shape(y2, 0, "(4, 2, 2, 1)");
  expect(run(g, y2), GRAFT_FLOAT32, D(4, 2, 2, 1), (const float[]){0, 0, 4, 6, 0, 0, 5, 7, 0, 2, 8, 10, 1, 3, 9, 11});
  graft_op *z2 = op3(g, "BatchToSpaceND", "b2s2", y2, block22,
                     konst(g, "crops2", GRAFT_INT64, D(2, 2), (const int64_t[]){0, 1, 1, 0}));
  assert_output_shape(z2, 0, "(1, 3, 3, 1)");
  expect(run(g, z2), GRAFT_FLOAT32, D(1, 3, 3, 1), (const float[]){0, 0, 0, 1, 2, 3, 5, 6, 7});

  /* Run-time errors (the input's shape or the paddings fed, so construction cannot see them). */
  graft_op *p = ph(g, "s2b_p", GRAFT_FLOAT32);
  graft_op *zero00 = konst(g, "pads00", GRAFT_INT32, D(1, 2), (const int32_t[]){0, 0});
  graft_op *bad = op3(g, "SpaceToBatchND", "s2b_bad", p, block, zero00);
  float zeros[8] = {0};
  expect_error(g, bad, p, tensor(GRAFT_FLOAT32, D(1, 3, 1), zeros), GRAFT_EINVAL, "SpaceToBatchND op 's2b_bad'",
               "padded_shape[0]=3 is not divisible by block_shape[0]=2");
  expect_error(g, bad, p, tensor(GRAFT_FLOAT32, D(4), zeros), GRAFT_EINVAL, "SpaceToBatchND op 's2b_bad'",
               "input rank should be >= 2 instead of 1");
  graft_op *pp = ph(g, "s2b_pads", GRAFT_INT32);
  graft_op *bad_pads = op3(g, "SpaceToBatchND", "s2b_negpad", konst(g, "z141", GRAFT_FLOAT32, D(1, 4, 1), zeros),
                           block, pp);
  expect_error(g, bad_pads, pp, i32v(D(1, 2), (const int32_t[]){-1, 1}), GRAFT_EINVAL,
               "SpaceToBatchND op 's2b_negpad'", "Paddings must be non-negative");
  graft_op *pb = ph(g, "s2b_block", GRAFT_INT32);
  graft_op *bad_block = op3(g, "SpaceToBatchND", "s2b_block0", konst(g, "z141b", GRAFT_FLOAT32, D(1, 4, 1), zeros),
                            pb, zero00);
  expect_error(g, bad_block, pb, i32v(D(1), (const int32_t[]){0}), GRAFT_EINVAL, "SpaceToBatchND op 's2b_block0'",
               "All values in block_shape must be positive, got value, 0 at index 0.");
  graft_op *q = ph(g, "b2s_p", GRAFT_FLOAT32);
  graft_op *bad_b2s = op3(g, "BatchToSpaceND", "b2s_bad", q, block, zero00);
  expect_error(g, bad_b2s, q, tensor(GRAFT_FLOAT32, D(3, 2, 1), zeros), GRAFT_EINVAL, "BatchToSpaceND op 'b2s_bad'",
               "Input batch dimension (3) is not divisible by product of block sizes (2)");
  graft_op *big_crop = op3(g, "BatchToSpaceND", "b2s_crop", q, block,
                           konst(g, "crops21", GRAFT_INT32, D(1, 2), (const int32_t[]){2, 1}));
  expect_error(g, big_crop, q, tensor(GRAFT_FLOAT32, D(2, 1, 1), zeros), GRAFT_EINVAL, "BatchToSpaceND op 'b2s_crop'",
               "cropped_shape[0]=-1 must be non-negative");
}

/* EnsureShape: the input when its shape is compatible with attr shape (TensorFlow 2.21's
 * message otherwise); the output's static shape is the merge. */
static void test_ensure_shape(void **state) {
  graft_graph *g = *state;
  graft_op *p = ph(g, "ens_p", GRAFT_FLOAT32);
  graft_op_desc *d = desc(g, "EnsureShape", "ens");
  in(d, p);
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", (const int64_t[]){2, -1}, 2));
  graft_op *e = fin(d);
  assert_output_shape(e, 0, "(2, None)");
  const float v[6] = {1, 2, 3, 4, 5, 6};
  graft_op *fops[1] = {p};
  graft_tensor *vals[1] = {tensor(GRAFT_FLOAT32, D(2, 3), v)};
  expect(run_feeds(g, e, 0, 1, fops, vals), GRAFT_FLOAT32, D(2, 3), v);
  expect_error(g, e, p, tensor(GRAFT_FLOAT32, D(2, 3, 1), v), GRAFT_EINVAL, "EnsureShape op 'ens'",
               "Shape of tensor ens_p [2,3,1] is not compatible with expected shape [2,?].");
  expect_error(g, e, p, tensor(GRAFT_FLOAT32, D(3, 2), v), GRAFT_EINVAL, "EnsureShape op 'ens'",
               "Shape of tensor ens_p [3,2] is not compatible with expected shape [2,?].");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_shape_size_rank, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reshape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reshape_empty_minus_one, setup, teardown),
      cmocka_unit_test_setup_teardown(test_expand_squeeze, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fill_like, setup, teardown),
      cmocka_unit_test_setup_teardown(test_range, setup, teardown),
      cmocka_unit_test_setup_teardown(test_range_limits, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tile, setup, teardown),
      cmocka_unit_test_setup_teardown(test_matrix_band_part, setup, teardown),
      cmocka_unit_test_setup_teardown(test_transpose, setup, teardown),
      cmocka_unit_test_setup_teardown(test_broadcast_to, setup, teardown),
      cmocka_unit_test_setup_teardown(test_slice, setup, teardown),
      cmocka_unit_test_setup_teardown(test_concat, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pack_unpack, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cast_all_pairs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cast_semantics, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cast_out_of_range, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dynamic_stitch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_invert_permutation, setup, teardown),
      cmocka_unit_test_setup_teardown(test_broadcast_gradient_args, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reverse_v2, setup, teardown),
      cmocka_unit_test_setup_teardown(test_space_to_batch_nd, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ensure_shape, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_shape", tests, NULL, NULL);
}
