/* CPU kernels for convolution and pooling gradients and related layers
 * (kernels/cpu/nn_grad_kernels.cc): MaxPoolGrad, AvgPoolGrad, Conv2DBackpropInput,
 * Conv2DBackpropFilter, DepthwiseConv2dNative and FusedBatchNormV3 (inference and training).
 * Expected values are literal tables computed offline by a small pure-Python script straight
 * from the forward definitions (each product x * filter of the forward convolution adds
 * filter * dy to dx and x * dy to dfilter; each pooling window hands its gradient to its
 * first maximum, or equally to its cells inside the input). Each case's forward result is
 * checked too, with the existing Conv2D / MaxPool / AvgPool kernels, which ties the tables'
 * geometry to theirs. Run-time errors are provoked through placeholders. The 3-D gradient ops
 * (kernels/cpu/conv3d_kernels.cc: Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3DGrad,
 * AvgPool3DGrad), Conv3D's gradient function and the grouped Conv2D backprop ops are checked
 * against TensorFlow 2.21's values. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

#define V(...) ((const int32_t[]){__VA_ARGS__})
#define F(...) ((const float[]){__VA_ARGS__})
#define F64(...) ((const double[]){__VA_ARGS__})
#define L(...) ((const int64_t[]){__VA_ARGS__})

static int uniq;

static const char *nm(const char *prefix) {
  static char buf[8][48];
  char *b = buf[++uniq % 8];
  snprintf(b, sizeof buf[0], "%s%d", prefix, uniq);
  return b;
}

static graft_op *k(graft_graph *g, graft_dtype dt, const int64_t *dims, int ndims, const void *v) {
  return konst(g, nm("k"), dt, dims, ndims, v);
}

static void set_str(graft_op_desc *d, const char *name, const char *v) {
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), name, v, strlen(v)));
}

/* Window attrs: strides (sh, sw), dilations (dh, dw), padding, 8 explicit paddings or NULL,
 * data_format or NULL. */
typedef struct {
  int sh, sw, dh, dw;
  const char *padding;
  const int64_t *pads;
  const char *format;
} win;

/* A convolution-like op of 2 or 3 inputs (c may be NULL). */
static graft_op *conv_op(graft_graph *g, const char *type, graft_op *a, graft_op *b, graft_op *c, win w) {
  graft_op_desc *d = desc(g, type, nm("conv"));
  in(d, a);
  in(d, b);
  if (c) in(d, c);
  const int64_t strides[4] = {1, w.sh, w.sw, 1}, dil[4] = {1, w.dh ? w.dh : 1, w.dw ? w.dw : 1, 1};
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, 4));
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "dilations", dil, 4));
  set_str(d, "padding", w.padding);
  if (w.pads) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "explicit_paddings", w.pads, 8));
  if (w.format) set_str(d, "data_format", w.format);
  return fin(d);
}

/* A pooling op (MaxPool, AvgPool and their gradients) with a (kh, kw) window. */
static graft_op *pool_op(graft_graph *g, const char *type, graft_op *a, graft_op *b, graft_op *c, int kh, int kw,
                         int sh, int sw, const char *padding) {
  graft_op_desc *d = desc(g, type, nm("pool"));
  in(d, a);
  if (b) in(d, b);
  if (c) in(d, c);
  const int64_t ksize[4] = {1, kh, kw, 1}, strides[4] = {1, sh, sw, 1};
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "ksize", ksize, 4));
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, 4));
  set_str(d, "padding", padding);
  return fin(d);
}

static void to_f64(const float *in_v, double *out, int n) {
  for (int i = 0; i < n; ++i) out[i] = in_v[i];
}

/* ---- Conv2DBackpropInput / Conv2DBackpropFilter ------------------------------------------ */

typedef struct {
  int64_t xs[4], fs[4], ys[4];
  win w;
  const float *x, *f, *dy, *conv, *dx, *df;
} conv_case;

static const conv_case kConvCases[] = {
    {{1, 3, 3, 2}, {2, 2, 2, 2}, {1, 2, 2, 2}, {1, 1, 1, 1, "VALID", NULL, NULL},
     F(-2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1), F(0, -2, 1, -1, 2, 0, -2, 1, -1, 2, 0, -2, 1, -1, 2, 0),
     F(-1, 4, 0, -4, 1, -3, 2, -2), F(12, 1, -21, 6, 4, 9, 6, -21),
     F(-8, -5, 6, 10, 0, -4, 15, -4, -7, 5, 8, -6, -7, 6, -2, 6, 4, 4),
     F(8, -18, -3, 20, 0, 9, -4, -9, -2, -14, 8, -18, -3, 20, 0, 9)},
    {{1, 5, 5, 1}, {3, 3, 1, 2}, {1, 3, 3, 2}, {2, 2, 1, 1, "SAME", NULL, NULL},
     F(-2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1),
     F(0, -2, 1, -1, 2, 0, -2, 1, -1, 2, 0, -2, 1, -1, 2, 0, -2, 1),
     F(-1, 4, 0, -4, 1, -3, 2, -2, 3, -1, 4, 0, -4, 1, -3, 2, -2, 3),
     F(6, -10, -17, 10, 10, -10, 7, 3, 13, -1, 4, -8, 5, 1, -6, 1, 1, 3),
     F(9, -12, -8, 3, -7, 2, 16, 4, 6, 6, -6, -3, -5, -6, -4, -1, -14, 1, -15, 3, 6, 6, 7, 3, 8),
     F(15, -7, -11, 5, 14, -8, -6, -7, -12, 0, -4, 22, -6, -10, 10, 8, -7, -11)},
    {{1, 5, 5, 1}, {2, 2, 1, 1}, {1, 3, 3, 1}, {1, 1, 2, 2, "VALID", NULL, NULL},
     F(-2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1), F(0, -2, 1, -1),
     F(-1, 4, 0, -4, 1, -3, 2, -2, 3), F(-5, -1, 10, 8, -2, -5, -7, -3, 8),
     F(0, 0, 2, -8, 0, 0, 0, 8, -2, 6, -1, 4, -3, 0, -6, -4, 1, 1, -1, 3, 2, -2, 1, 2, -3), F(22, 1, -6, -6)},
    {{2, 3, 4, 1}, {2, 3, 1, 1}, {2, 2, 5, 1}, {2, 1, 1, 1, "EXPLICIT", L(0, 0, 1, 0, 2, 1, 0, 0), NULL},
     F(-2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1), F(0, -2, 1, -1, 2, 0),
     F(-1, 4, 0, -4, 1, -3, 2, -2, 3, -1, 4, 0, -4, 1, -3, 2, -2, 3, -1, 4),
     F(0, -4, 8, -1, -3, -3, 14, -5, -5, -1, 0, 4, -2, -4, 8, 1, -3, -5, 16, -5),
     F(8, 4, -9, 2, -7, 6, -8, 5, 6, -7, 7, -2, 4, -9, 5, -6, 6, -8, 5, -9, -7, 7, -6, 8), F(4, -2, 0, -1, -25, 35)},
    {{1, 4, 4, 1}, {3, 3, 1, 1}, {1, 2, 2, 1}, {2, 2, 1, 1, "SAME", NULL, NULL},
     F(-2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3), F(0, -2, 1, -1, 2, 0, -2, 1, -1), F(-1, 4, 0, -4),
     F(-2, -3, -5, 14), F(0, 2, -1, -8, 1, -2, -4, 8, 2, -1, -7, 12, 0, 0, 4, -8), F(10, 5, -1, 11, -22, 0, -7, -13, 1)},
};

static graft_op *shape4(graft_graph *g, const int64_t *s) {
  const int32_t v[4] = {(int32_t)s[0], (int32_t)s[1], (int32_t)s[2], (int32_t)s[3]};
  return k(g, GRAFT_INT32, D(4), v);
}

static void test_conv_backprop(void **state) {
  graft_graph *g = *state;
  for (int i = 0; i < N_OF(kConvCases); ++i) {
    const conv_case *c = &kConvCases[i];
    graft_op *x = k(g, GRAFT_FLOAT32, c->xs, 4, c->x), *f = k(g, GRAFT_FLOAT32, c->fs, 4, c->f);
    graft_op *dy = k(g, GRAFT_FLOAT32, c->ys, 4, c->dy);
    expect(run(g, conv_op(g, "Conv2D", x, f, NULL, c->w)), GRAFT_FLOAT32, c->ys, 4, c->conv);
    expect(run(g, conv_op(g, "Conv2DBackpropInput", shape4(g, c->xs), f, dy, c->w)), GRAFT_FLOAT32, c->xs, 4, c->dx);
    expect(run(g, conv_op(g, "Conv2DBackpropFilter", x, shape4(g, c->fs), dy, c->w)), GRAFT_FLOAT32, c->fs, 4, c->df);
    /* float64, the same values. */
    double xd[64], fd[64], yd[64], want[64];
    to_f64(c->x, xd, (int)count(c->xs, 4));
    to_f64(c->f, fd, (int)count(c->fs, 4));
    to_f64(c->dy, yd, (int)count(c->ys, 4));
    graft_op *fdo = k(g, GRAFT_FLOAT64, c->fs, 4, fd), *ydo = k(g, GRAFT_FLOAT64, c->ys, 4, yd);
    to_f64(c->dx, want, (int)count(c->xs, 4));
    expect(run(g, conv_op(g, "Conv2DBackpropInput", shape4(g, c->xs), fdo, ydo, c->w)), GRAFT_FLOAT64, c->xs, 4, want);
    to_f64(c->df, want, (int)count(c->fs, 4));
    expect(run(g, conv_op(g, "Conv2DBackpropFilter", k(g, GRAFT_FLOAT64, c->xs, 4, xd), shape4(g, c->fs), ydo, c->w)),
           GRAFT_FLOAT64, c->fs, 4, want);
  }
  /* int32 Conv2DBackpropInput (case 0), and input_sizes with rows and cols only (case 1). */
  const conv_case *c = &kConvCases[0];
  int32_t fi[16], yi[8], want[18];
  for (int i = 0; i < 16; ++i) fi[i] = (int32_t)c->f[i];
  for (int i = 0; i < 8; ++i) yi[i] = (int32_t)c->dy[i];
  for (int i = 0; i < 18; ++i) want[i] = (int32_t)c->dx[i];
  expect(run(g, conv_op(g, "Conv2DBackpropInput", shape4(g, c->xs), k(g, GRAFT_INT32, c->fs, 4, fi),
                        k(g, GRAFT_INT32, c->ys, 4, yi), c->w)),
         GRAFT_INT32, c->xs, 4, want);
  c = &kConvCases[1];
  expect(run(g, conv_op(g, "Conv2DBackpropInput", k(g, GRAFT_INT32, D(2), V(5, 5)), k(g, GRAFT_FLOAT32, c->fs, 4, c->f),
                        k(g, GRAFT_FLOAT32, c->ys, 4, c->dy), c->w)),
         GRAFT_FLOAT32, c->xs, 4, c->dx);
  /* Empty: a batch of 0 gives an empty input gradient and a zero filter gradient. */
  const win valid = {1, 1, 1, 1, "VALID", NULL, NULL};
  graft_op *f0 = k(g, GRAFT_FLOAT32, D(1, 1, 1, 2), F(1, 2));
  graft_op *dy0 = k(g, GRAFT_FLOAT32, D(0, 2, 2, 2), NULL);
  expect(run(g, conv_op(g, "Conv2DBackpropInput", k(g, GRAFT_INT32, D(4), V(0, 2, 2, 1)), f0, dy0, valid)),
         GRAFT_FLOAT32, D(0, 2, 2, 1), NULL);
  expect(run(g, conv_op(g, "Conv2DBackpropFilter", k(g, GRAFT_FLOAT32, D(0, 2, 2, 1), NULL),
                        k(g, GRAFT_INT32, D(4), V(1, 1, 1, 2)), dy0, valid)),
         GRAFT_FLOAT32, D(1, 1, 1, 2), F(0, 0));
}

static void test_conv_backprop_errors(void **state) {
  graft_graph *g = *state;
  const conv_case *c = &kConvCases[0];
  graft_op *f = k(g, GRAFT_FLOAT32, c->fs, 4, c->f);
  graft_op *x = k(g, GRAFT_FLOAT32, c->xs, 4, c->x);
  graft_op *pdy = ph(g, "pdy", GRAFT_FLOAT32);
  graft_op *bad = conv_op(g, "Conv2DBackpropInput", shape4(g, c->xs), f, pdy, c->w);
  float zeros[18] = {0};
  expect_error(g, bad, pdy, tensor(GRAFT_FLOAT32, D(1, 3, 3, 2), zeros), GRAFT_EINVAL, "Conv2DBackpropInput op",
               "Conv2DBackpropInput: out_backprop shape [1,3,3,2] does not match the computed output shape [1,2,2,2]");
  graft_op *bad2 = conv_op(g, "Conv2DBackpropFilter", x, shape4(g, c->fs), pdy, c->w);
  expect_error(g, bad2, pdy, tensor(GRAFT_FLOAT32, D(1, 1, 2, 2), zeros), GRAFT_EINVAL, "Conv2DBackpropFilter op",
               "out_backprop shape [1,1,2,2] does not match the computed output shape [1,2,2,2]");
  graft_op *psz = ph(g, "psz", GRAFT_INT32);
  graft_op *dy = k(g, GRAFT_FLOAT32, c->ys, 4, c->dy);
  graft_op *bad3 = conv_op(g, "Conv2DBackpropFilter", x, psz, dy, c->w);
  expect_error(g, bad3, psz, i32v(D(4), V(2, 2, 3, 2)), GRAFT_EINVAL, "Conv2DBackpropFilter op",
               "Conv2DBackpropFilter: input depth must equal filter depth: 2 vs 3");
  expect_error(g, bad3, psz, i32v(D(3), V(2, 2, 2)), GRAFT_EINVAL, "Conv2DBackpropFilter op",
               "filter_sizes must be 1-dimensional and 4 elements");
  graft_op *bad4 = conv_op(g, "Conv2DBackpropInput", psz, f, dy, c->w);
  expect_error(g, bad4, psz, i32v(D(4), V(1, -3, 3, 2)), GRAFT_EINVAL, "Conv2DBackpropInput op", "negative dimension");
  /* NCHW is not supported on CPU. */
  graft_op *pch = ph(g, "pch", GRAFT_FLOAT32);
  win nchw = c->w;
  nchw.format = "NCHW";
  graft_op *bad5 = conv_op(g, "Conv2DBackpropFilter", pch, shape4(g, c->fs), dy, nchw);
  expect_error(g, bad5, pch, tensor(GRAFT_FLOAT32, D(1, 2, 3, 3), zeros), GRAFT_EUNIMPLEMENTED,
               "Conv2DBackpropFilter op", "data_format NCHW is not supported on CPU");
}

/* ---- MaxPoolGrad / AvgPoolGrad ----------------------------------------------------------- */

typedef struct {
  int64_t xs[4], ys[4];
  int kh, kw, sh, sw;
  const char *padding;
  const float *x, *maxpool, *dy, *maxgrad, *avggrad;
} pool_case;

static const pool_case kPoolCases[] = {
    {{1, 4, 4, 1}, {1, 2, 2, 1}, 2, 2, 2, 2, "VALID", F(1, 5, 2, 2, 5, 3, 2, 0, 7, 1, 4, 9, 0, 7, 9, 4), F(5, 2, 7, 9),
     F(-1, 4, 0, -4), F(0, -1, 4, 0, 0, 0, 0, 0, 0, 0, 0, -4, 0, 0, 0, 0),
     F(-0.25f, -0.25f, 1, 1, -0.25f, -0.25f, 1, 1, 0, 0, -1, -1, 0, 0, -1, -1)},
    {{1, 3, 3, 2}, {1, 2, 2, 2}, 3, 3, 2, 2, "SAME", F(-4, 1, -5, 0, 5, -1, 4, -2, 3, -3, 2, -4, 1, -5, 0, 5, -1, 4),
     F(4, 1, 5, 0, 4, 5, 3, 5), F(-1, 4, 0, -4, 1, -3, 2, -2), F(0, 4, 0, -4, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, -5, 0, 0),
     F(-0.25f, 1, -0.25f, 0, 0, -1, 0, 0.25f, 0.5f, -1.25f, 0.5f, -1.5f, 0.25f, -0.75f, 0.75f, -1.25f, 0.5f, -0.5f)},
    {{1, 3, 3, 1}, {1, 3, 3, 1}, 2, 2, 1, 1, "SAME", F(-1, -3, 2, 0, -2, 3, 1, -1, -3), F(0, 3, 3, 1, 3, 3, 1, -1, -3),
     F(-1, 4, 0, -4, 1, -3, 2, -2, 3), F(0, 0, 0, -1, 0, 2, -2, -2, 3),
     F(-0.25f, 0.75f, 1, -1.25f, 0, -0.25f, 0, -0.75f, 0.75f)},
    {{2, 5, 5, 1}, {2, 2, 2, 1}, 3, 3, 2, 2, "VALID",
     F(-2, 3, -5, 0, 5, -3, 2, -6, -1, 4, -4, 1, 6, -2, 3, -5, 0, 5, -3, 2, -6, -1, 4, -4, 1, 6, -2, 3, -5, 0, 5, -3, 2, -6,
       -1, 4, -4, 1, 6, -2, 3, -5, 0, 5, -3, 2, -6, -1, 4, -4),
     F(6, 6, 6, 6, 6, 6, 4, 6), F(-1, 4, 0, -4, 1, -3, 2, -2),
     F(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0,
       -5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
     F(-0.111111111f, -0.111111111f, 0.333333333f, 0.444444444f, 0.444444444f, -0.111111111f, -0.111111111f,
       0.333333333f, 0.444444444f, 0.444444444f, -0.111111111f, -0.111111111f, -0.111111111f, 0, 0, 0, 0,
       -0.444444444f, -0.444444444f, -0.444444444f, 0, 0, -0.444444444f, -0.444444444f, -0.444444444f, 0.111111111f,
       0.111111111f, -0.222222222f, -0.333333333f, -0.333333333f, 0.111111111f, 0.111111111f, -0.222222222f,
       -0.333333333f, -0.333333333f, 0.333333333f, 0.333333333f, -0.222222222f, -0.555555556f, -0.555555556f,
       0.222222222f, 0.222222222f, 0, -0.222222222f, -0.222222222f, 0.222222222f, 0.222222222f, 0, -0.222222222f,
       -0.222222222f)},
};

static void test_pool_grad(void **state) {
  graft_graph *g = *state;
  for (int i = 0; i < N_OF(kPoolCases); ++i) {
    const pool_case *c = &kPoolCases[i];
    graft_op *x = k(g, GRAFT_FLOAT32, c->xs, 4, c->x), *y = k(g, GRAFT_FLOAT32, c->ys, 4, c->maxpool);
    graft_op *dy = k(g, GRAFT_FLOAT32, c->ys, 4, c->dy);
    expect(run(g, pool_op(g, "MaxPool", x, NULL, NULL, c->kh, c->kw, c->sh, c->sw, c->padding)), GRAFT_FLOAT32, c->ys, 4,
           c->maxpool);
    expect(run(g, pool_op(g, "MaxPoolGrad", x, y, dy, c->kh, c->kw, c->sh, c->sw, c->padding)), GRAFT_FLOAT32, c->xs, 4,
           c->maxgrad);
    expect_f32_near(run(g, pool_op(g, "AvgPoolGrad", shape4(g, c->xs), dy, NULL, c->kh, c->kw, c->sh, c->sw, c->padding)),
                    c->xs, 4, c->avggrad, 1e-6f);
  }
  /* float64 AvgPoolGrad (case 0: exact quarters). */
  const pool_case *c = &kPoolCases[0];
  double yd[4], want[16];
  to_f64(c->dy, yd, 4);
  to_f64(c->avggrad, want, 16);
  expect(run(g, pool_op(g, "AvgPoolGrad", shape4(g, c->xs), k(g, GRAFT_FLOAT64, c->ys, 4, yd), NULL, 2, 2, 2, 2, "VALID")),
         GRAFT_FLOAT64, c->xs, 4, want);
  /* MaxPoolGrad for every registered dtype: case 0 with gradients 1 2 3 4 (the window maxima
   * are at 1, 2, 8 and 11: ties go to the first in row-major order). */
  static const graft_dtype dts[] = {GRAFT_FLOAT32, GRAFT_FLOAT64, GRAFT_INT8,   GRAFT_INT16,  GRAFT_INT32,
                                    GRAFT_INT64,   GRAFT_UINT8,   GRAFT_UINT16, GRAFT_UINT32, GRAFT_UINT64};
  for (int t = 0; t < N_OF(dts); ++t) {
    graft_dtype dt = dts[t];
    unsigned char xb[128], yb[32], gb[32], wb[128];
    size_t sz = graft_dtype_size(dt);
    for (int i = 0; i < 16; ++i) {
      double v = c->x[i], w = i == 1 ? 1 : i == 2 ? 2 : i == 8 ? 3 : i == 11 ? 4 : 0;
      /* Store v and w in dt through a double -> integer or float conversion. */
      if (dt == GRAFT_FLOAT32) {
        ((float *)xb)[i] = (float)v, ((float *)wb)[i] = (float)w;
      } else if (dt == GRAFT_FLOAT64) {
        ((double *)xb)[i] = v, ((double *)wb)[i] = w;
      } else {
        uint64_t xv = (uint64_t)v, wv = (uint64_t)w;
        memcpy(xb + (size_t)i * sz, &xv, sz); /* little-endian: the low bytes */
        memcpy(wb + (size_t)i * sz, &wv, sz);
      }
    }
    for (int i = 0; i < 4; ++i) {
      double v = c->maxpool[i], w = i + 1;
      if (dt == GRAFT_FLOAT32) {
        ((float *)yb)[i] = (float)v, ((float *)gb)[i] = (float)w;
      } else if (dt == GRAFT_FLOAT64) {
        ((double *)yb)[i] = v, ((double *)gb)[i] = w;
      } else {
        uint64_t yv = (uint64_t)v, gv = (uint64_t)w;
        memcpy(yb + (size_t)i * sz, &yv, sz);
        memcpy(gb + (size_t)i * sz, &gv, sz);
      }
    }
    expect(run(g, pool_op(g, "MaxPoolGrad", k(g, dt, c->xs, 4, xb), k(g, dt, c->ys, 4, yb), k(g, dt, c->ys, 4, gb), 2, 2, 2,
                          2, "VALID")),
           dt, c->xs, 4, wb);
  }
  /* Empty batch. */
  graft_op *e = k(g, GRAFT_FLOAT32, D(0, 2, 2, 1), NULL), *ey = k(g, GRAFT_FLOAT32, D(0, 1, 1, 1), NULL);
  expect(run(g, pool_op(g, "MaxPoolGrad", e, ey, ey, 2, 2, 2, 2, "VALID")), GRAFT_FLOAT32, D(0, 2, 2, 1), NULL);
  expect(run(g, pool_op(g, "AvgPoolGrad", k(g, GRAFT_INT32, D(4), V(0, 2, 2, 1)), ey, NULL, 2, 2, 2, 2, "VALID")),
         GRAFT_FLOAT32, D(0, 2, 2, 1), NULL);
}

static void test_pool_grad_errors(void **state) {
  graft_graph *g = *state;
  const pool_case *c = &kPoolCases[0];
  graft_op *x = k(g, GRAFT_FLOAT32, c->xs, 4, c->x), *y = k(g, GRAFT_FLOAT32, c->ys, 4, c->maxpool);
  graft_op *pg = ph(g, "pg", GRAFT_FLOAT32);
  graft_op *bad = pool_op(g, "MaxPoolGrad", x, y, pg, 2, 2, 2, 2, "VALID");
  expect_error(g, bad, pg, tensor(GRAFT_FLOAT32, D(1, 1, 1, 1), F(1)), GRAFT_EINVAL, "MaxPoolGrad op",
               "The shape of out_backprop [1,1,1,1] must be the same as the forward output shape [1,2,2,1]");
  graft_op *bad2 = pool_op(g, "MaxPoolGrad", x, pg, y, 2, 2, 2, 2, "VALID");
  expect_error(g, bad2, pg, tensor(GRAFT_FLOAT32, D(1, 2, 2, 2), F(0, 0, 0, 0, 0, 0, 0, 0)), GRAFT_EINVAL,
               "MaxPoolGrad op", "The shape of tensor_out [1,2,2,2] must be the same as the forward output shape");
  graft_op *ps = ph(g, "ps", GRAFT_INT32);
  graft_op *bad3 = pool_op(g, "AvgPoolGrad", ps, y, NULL, 2, 2, 2, 2, "VALID");
  expect_error(g, bad3, ps, i32v(D(3), V(1, 4, 4)), GRAFT_EINVAL, "AvgPoolGrad op",
               "AvgPoolGrad: orig_input_shape must be 1-dimensional and 4 elements");
  expect_error(g, bad3, ps, i32v(D(4), V(1, 6, 6, 1)), GRAFT_EINVAL, "AvgPoolGrad op",
               "The shape of out_backprop [1,2,2,1] must be the same as the forward output shape [1,3,3,1]");
}

/* ---- The 3-D gradient ops ------------------------------------------------------------------
 * Conv3DBackpropInputV2 (int32 and int64 input_sizes, NCDHW, dilations), Conv3DBackpropFilterV2,
 * MaxPool3DGrad (ties: every maximal cell gets the gradient, as TensorFlow's CPU kernel) and
 * AvgPool3DGrad against TensorFlow 2.21's values; inputs ((i * mul) % mod - off) / div. */

static graft_op *ramp5(graft_graph *g, const int64_t *dims, int mul, int mod, int off, float div) {
  int64_t n = 1;
  for (int i = 0; i < 5; ++i) n *= dims[i];
  float *v = malloc((size_t)n * sizeof(float) + 1);
  for (int64_t i = 0; i < n; ++i) v[i] = (float)((int)((i * mul) % mod) - off) / div;
  graft_op *op = k(g, GRAFT_FLOAT32, dims, 5, v);
  free(v);
  return op;
}

static graft_op *op5(graft_graph *g, const char *type, graft_op *a, graft_op *b, graft_op *c, const int64_t *ksize,
                     const int64_t *strides, const int64_t *dil, const char *padding, const char *format) {
  graft_op_desc *d = desc(g, type, nm(type));
  in(d, a);
  if (b) in(d, b);
  if (c) in(d, c);
  if (ksize) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "ksize", ksize, 5));
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, 5));
  if (dil) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "dilations", dil, 5));
  set_str(d, "padding", padding);
  if (format) set_str(d, "data_format", format);
  return fin(d);
}

static const float kConv3dBackpropInput[36] = {4.875f, -1.125f, -0.75f, -0.375f, 4.125f, -1, -1.625f, -0.625f, -0.125f, 4.625f, -1.5f, -1.375f, -1.25f, 0.5f, -0.75f, -0.625f, 4.125f, -1.25f, -0.375f, -0.375f, 3.75f, -3.5f, -5, 3.5f, -1.25f, -3, 2.75f, 2.5f, 1.875f, -4.5f, 0, -0.75f, -4.625f, 7.75f, -2, -1.5f};
static const float kConv3dBackpropFilter[48] = {2.5f, 1.0625f, -7.6875f, -4.625f, 6.875f, -4.375f, -2.1875f, 2.8125f, 3.75f, -2.0625f, 3.125f, 3.4375f, -1.6875f, -0.3125f, 1.875f, -1, -0.5f, 1.625f, -1.0625f, -0.1875f, 1.5f, -0.8125f, -0.25f, 1.125f, 1.0625f, 0.375f, -1.9375f, 1.625f, 0.0625f, -2.3125f, -2.0625f, 4.25f, -0.8125f, -1.625f, 4.375f, -1, -2, 1.75f, 0.625f, -1.375f, 1.125f, 0.375f, -1.0625f, 0.875f, 0.375f, -0.75f, 0.625f, 0.375f};
static const float kConv3dBackpropInputDilated[27] = {4.125f, -0.75f, -0.75f, 0, 0, 0, -0.875f, 0.875f, -0.625f, 3.5f, -0.875f, -0.375f, 0, 0, 0, -0.875f, 0.125f, 1.125f, -0.75f, -0.25f, 0.25f, 0, 0, 0, -1, -1.75f, 0.75f};
static const float kConv3dBackpropInputNcdhw[36] = {4.875f, -0.75f, 4.125f, -1.625f, -0.125f, -1.5f, -1.25f, -0.75f, 4.125f, -0.375f, 3.75f, -5, -1.25f, 2.75f, 1.875f, 0, -4.625f, -2, -1.125f, -0.375f, -1, -0.625f, 4.625f, -1.375f, 0.5f, -0.625f, -1.25f, -0.375f, -3.5f, 3.5f, -3, 2.5f, -4.5f, -0.75f, 7.75f, -1.5f};
static const float kMaxPool3dGrad[27] = {0, 0, 0, 0, -1.5f, 0, 0, 0.75f, 0.25f, -1.5f, 0, 0, 0, 0, 1.25f, 0, 0, 0, 0, -0.25f, 0, 0, 0, -0.75f, -1.25f, 0, 1.5f};
static const float kAvgPool3dGrad[36] = {-0.1875f, 0.15625f, -0.1875f, 0.15625f, -0.1875f, 0.15625f, -0.1875f, 0.15625f, 0.1875f, 0.0625f, 0.1875f, 0.0625f, -0.1875f, 0.15625f, -0.1875f, 0.15625f, -0.1875f, 0.15625f, -0.1875f, 0.15625f, 0.1875f, 0.0625f, 0.1875f, 0.0625f, -0.0625f, -0.1875f, -0.0625f, -0.1875f, -0.0625f, -0.1875f, -0.0625f, -0.1875f, -0.625f, 0.75f, -0.625f, 0.75f};

static void test_conv3d_grads(void **state) {
  graft_graph *g = *state;
  const int64_t s2[5] = {1, 1, 2, 1, 1};
  graft_op *f = ramp5(g, L(2, 2, 2, 2, 3), 13, 7, 3, 2.0f);
  graft_op *dy = ramp5(g, L(1, 2, 2, 3, 3), 11, 13, 6, 4.0f);
  graft_op *x = ramp5(g, L(1, 2, 3, 3, 2), 37, 19, 9, 4.0f);
  graft_op *sizes = k(g, GRAFT_INT32, L(5), 1, V(1, 2, 3, 3, 2));
  expect_f32_near(run(g, op5(g, "Conv3DBackpropInputV2", sizes, f, dy, NULL, s2, NULL, "SAME", NULL)),
                  D(1, 2, 3, 3, 2), kConv3dBackpropInput, 1e-4f);
  graft_op *fsizes = k(g, GRAFT_INT32, L(5), 1, V(2, 2, 2, 2, 3));
  expect_f32_near(run(g, op5(g, "Conv3DBackpropFilterV2", x, fsizes, dy, NULL, s2, NULL, "SAME", NULL)),
                  D(2, 2, 2, 2, 3), kConv3dBackpropFilter, 1e-4f);
  /* The same through Conv3D's gradient function. */
  graft_op *y = op5(g, "Conv3D", x, f, NULL, NULL, s2, NULL, "SAME", NULL);
  graft_output ys = {y, 0}, xs[2] = {{x, 0}, {f, 0}}, dys = {dy, 0}, dx[2];
  GT_OK(graft_graph_add_gradients(dx, g, &ys, 1, xs, 2, &dys, NULL));
  expect_f32_near(run_feeds(g, dx[0].op, dx[0].index, 0, NULL, NULL), D(1, 2, 3, 3, 2), kConv3dBackpropInput, 1e-4f);
  expect_f32_near(run_feeds(g, dx[1].op, dx[1].index, 0, NULL, NULL), D(2, 2, 2, 2, 3), kConv3dBackpropFilter, 1e-4f);
  /* int64 input_sizes (Tshape), a dilation and VALID padding. */
  graft_op *f2 = ramp5(g, L(2, 2, 1, 1, 2), 13, 7, 3, 2.0f);
  graft_op *dy2 = ramp5(g, L(1, 2, 1, 3, 2), 11, 13, 6, 4.0f);
  graft_op *sizes64 = k(g, GRAFT_INT64, L(5), 1, ((const int64_t[]){1, 3, 3, 3, 1}));
  expect_f32_near(run(g, op5(g, "Conv3DBackpropInputV2", sizes64, f2, dy2, NULL, s2, L(1, 1, 2, 1, 1), "VALID", NULL)),
                  D(1, 3, 3, 3, 1), kConv3dBackpropInputDilated, 1e-4f);
  /* NCDHW: dy transposed to [1, 3, 2, 2, 3]. */
  float dyn[36];
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 12; ++i) dyn[c * 12 + i] = (float)((int)(((i * 3 + c) * 11) % 13) - 6) / 4.0f;
  graft_op *dyc = k(g, GRAFT_FLOAT32, L(1, 3, 2, 2, 3), 5, dyn);
  graft_op *sizes_c = k(g, GRAFT_INT32, L(5), 1, V(1, 2, 2, 3, 3));
  expect_f32_near(run(g, op5(g, "Conv3DBackpropInputV2", sizes_c, f, dyc, NULL, L(1, 1, 1, 2, 1), NULL, "SAME", "NCDHW")),
                  D(1, 2, 2, 3, 3), kConv3dBackpropInputNcdhw, 1e-4f);
  /* Pooling gradients. */
  float xp[27];
  for (int i = 0; i < 27; ++i) xp[i] = (float)(i % 5);
  graft_op *xpo = k(g, GRAFT_FLOAT32, L(1, 3, 3, 3, 1), 5, xp);
  const int64_t k2[5] = {1, 2, 2, 2, 1};
  graft_op *yp = op5(g, "MaxPool3D", xpo, NULL, NULL, k2, k2, NULL, "SAME", NULL);
  graft_op *gp = ramp5(g, L(1, 2, 2, 2, 1), 11, 13, 6, 4.0f);
  expect_f32_near(run(g, op5(g, "MaxPool3DGrad", xpo, yp, gp, k2, k2, NULL, "SAME", NULL)), D(1, 3, 3, 3, 1),
                  kMaxPool3dGrad, 1e-6f);
  graft_op *g2 = ramp5(g, L(1, 2, 2, 1, 2), 11, 13, 6, 4.0f);
  graft_op *shape = k(g, GRAFT_INT32, L(5), 1, V(1, 3, 3, 2, 2));
  expect_f32_near(run(g, op5(g, "AvgPool3DGrad", shape, g2, NULL, k2, k2, NULL, "SAME", NULL)), D(1, 3, 3, 2, 2),
                  kAvgPool3dGrad, 1e-6f);
}

/* Grouped Conv2DBackpropInput / Conv2DBackpropFilter (input depth 4, filter depth 2: 2 groups),
 * and Conv2D's gradient function on a grouped Conv2D; TensorFlow 2.21's values. */
static const float kGroupedBackpropInput[36] = {4.125f, -0.625f, 0.875f, -1.125f, -1.75f, -0.125f, -0.125f, -1.75f, -1.875f, 0.625f, -0.875f, 4.875f, -1.625f, 0.375f, 1.5f, -1, -5.125f, 7.625f, -2.125f, 2.375f, 0.5f, -2.875f, -0.5f, -2.25f, -2.5f, 3.75f, -1.25f, 2.25f, -2.875f, 0.5f, -2.125f, 4.75f, 7.625f, -5.125f, 2.75f, -3.125f};
static const float kGroupedBackpropFilter[32] = {7.5f, -2.625f, -0.9375f, 4.25f, 0.625f, 3.0625f, -0.875f, 3.8125f, -1, 2.75f, -2.375f, -2.8125f, -0.4375f, 3.25f, -1.9375f, -3.25f, 1.0625f, -1.0625f, 2.25f, -3.25f, 1.0625f, -1.125f, 2.125f, -3.4375f, 1.25f, -3.75f, -3.0625f, 3.5f, 1.875f, -3.4375f, -3.0625f, 3.1875f};

static graft_op *ramp4(graft_graph *g, const int64_t *dims, int mul, int mod, int off, float div) {
  float v[64];
  const int64_t n = dims[0] * dims[1] * dims[2] * dims[3];
  for (int64_t i = 0; i < n; ++i) v[i] = (float)((int)((i * mul) % mod) - off) / div;
  return k(g, GRAFT_FLOAT32, dims, 4, v);
}

static void test_grouped_conv_grads(void **state) {
  graft_graph *g = *state;
  const win same = {1, 1, 1, 1, "SAME", NULL, NULL};
  graft_op *f = ramp4(g, L(2, 2, 2, 4), 13, 7, 3, 2.0f);
  graft_op *dy = ramp4(g, L(1, 3, 3, 4), 11, 13, 6, 4.0f);
  graft_op *x = ramp4(g, L(1, 3, 3, 4), 37, 19, 9, 4.0f);
  expect_f32_near(run(g, conv_op(g, "Conv2DBackpropInput", k(g, GRAFT_INT32, L(4), 1, V(1, 3, 3, 4)), f, dy, same)),
                  D(1, 3, 3, 4), kGroupedBackpropInput, 1e-4f);
  expect_f32_near(run(g, conv_op(g, "Conv2DBackpropFilter", x, k(g, GRAFT_INT32, L(4), 1, V(2, 2, 2, 4)), dy, same)),
                  D(2, 2, 2, 4), kGroupedBackpropFilter, 1e-4f);
  graft_op *y = conv_op(g, "Conv2D", x, f, NULL, same);
  graft_output ys = {y, 0}, xs[2] = {{x, 0}, {f, 0}}, dys = {dy, 0}, dx[2];
  GT_OK(graft_graph_add_gradients(dx, g, &ys, 1, xs, 2, &dys, NULL));
  expect_f32_near(run_feeds(g, dx[0].op, dx[0].index, 0, NULL, NULL), D(1, 3, 3, 4), kGroupedBackpropInput, 1e-4f);
  expect_f32_near(run_feeds(g, dx[1].op, dx[1].index, 0, NULL, NULL), D(2, 2, 2, 4), kGroupedBackpropFilter, 1e-4f);
  /* An output depth (3) that is not a multiple of the groups (2). */
  graft_op *pdy = ph(g, "pdy", GRAFT_FLOAT32);
  graft_op *bad = conv_op(g, "Conv2DBackpropInput", k(g, GRAFT_INT32, L(4), 1, V(1, 3, 3, 4)),
                          ramp4(g, L(1, 1, 2, 3), 13, 7, 3, 2.0f), pdy, same);
  float zeros[27] = {0};
  expect_error(g, bad, pdy, tensor(GRAFT_FLOAT32, D(1, 3, 3, 3), zeros), GRAFT_EINVAL, "Conv2DBackpropInput op",
               "output depth must be evenly divisible by number of groups: 3 vs 2");
}

static void test_conv3d_grad_errors(void **state) {
  graft_graph *g = *state;
  const int64_t one[5] = {1, 1, 1, 1, 1};
  graft_op *f = ramp5(g, L(2, 2, 2, 2, 3), 13, 7, 3, 2.0f);
  graft_op *pdy = ph(g, "pdy", GRAFT_FLOAT32);
  graft_op *sizes = k(g, GRAFT_INT32, L(5), 1, V(1, 3, 3, 3, 2));
  graft_op *bi = op5(g, "Conv3DBackpropInputV2", sizes, f, pdy, NULL, one, NULL, "VALID", NULL);
  float zeros[24] = {0};
  expect_error(g, bi, pdy, tensor(GRAFT_FLOAT32, D(1, 2, 2, 2, 2), zeros), GRAFT_EINVAL, "Conv3DBackpropInputV2 op",
               "Conv3DBackpropInputV2: out_backprop shape [1,2,2,2,2] does not match the computed output shape "
               "[1,2,2,2,3]");
  graft_op *psz = ph(g, "psz", GRAFT_INT32);
  graft_op *bf = op5(g, "Conv3DBackpropFilterV2", ramp5(g, L(1, 3, 3, 3, 2), 37, 19, 9, 4.0f), psz,
                     ramp5(g, L(1, 2, 2, 2, 3), 11, 13, 6, 4.0f), NULL, one, NULL, "VALID", NULL);
  expect_error(g, bf, psz, i32v(D(4), V(2, 2, 2, 2)), GRAFT_EINVAL, "Conv3DBackpropFilterV2 op",
               "filter_sizes must be 1-dimensional and 5 elements");
  const int64_t k2[5] = {1, 2, 2, 2, 1};
  graft_op *ag = op5(g, "AvgPool3DGrad", psz, ramp5(g, L(1, 1, 1, 1, 1), 1, 2, 0, 1.0f), NULL, k2, k2, NULL, "VALID",
                     NULL);
  expect_error(g, ag, psz, i32v(D(5), V(1, 4, 4, 4, 1)), GRAFT_EINVAL, "AvgPool3DGrad op",
               "the shape of out_backprop [1,1,1,1,1] must be the forward output shape [1,2,2,2,1]");
}

/* ---- DepthwiseConv2dNative --------------------------------------------------------------- */

static void test_depthwise(void **state) {
  graft_graph *g = *state;
  const win valid = {1, 1, 1, 1, "VALID", NULL, NULL}, same2 = {2, 2, 1, 1, "SAME", NULL, NULL};
  const win dil2 = {1, 1, 2, 2, "VALID", NULL, NULL};
  const float *x18 = F(-2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1);
  const float *f16 = F(0, -2, 1, -1, 2, 0, -2, 1, -1, 2, 0, -2, 1, -1, 2, 0);
  /* Channel multiplier 2: output channel ch * 2 + q. */
  expect(run(g, conv_op(g, "DepthwiseConv2dNative", k(g, GRAFT_FLOAT32, D(1, 3, 3, 2), x18),
                        k(g, GRAFT_FLOAT32, D(2, 2, 2, 2), f16), NULL, valid)),
         GRAFT_FLOAT32, D(1, 2, 2, 4), F(5, 1, 7, 0, -10, 5, -11, 1, 2, 6, 2, 3, 1, -11, 5, -10));
  /* One channel, SAME with stride 2: the same as Conv2D (case E above). */
  const float *x16 = F(-2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3);
  expect(run(g, conv_op(g, "DepthwiseConv2dNative", k(g, GRAFT_FLOAT32, D(1, 4, 4, 1), x16),
                        k(g, GRAFT_FLOAT32, D(3, 3, 1, 1), F(0, -2, 1, -1, 2, 0, -2, 1, -1)), NULL, same2)),
         GRAFT_FLOAT32, D(1, 2, 2, 1), F(-2, -3, -5, 14));
  /* Dilation 2, float64. */
  double x32[32], f8[8];
  const float *x32f = F(-2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3, 1, -1, -3, 2, 0,
                        -2, 3, 1, -1);
  to_f64(x32f, x32, 32);
  to_f64(F(0, -2, 1, -1, 2, 0, -2, 1), f8, 8);
  expect(run(g, conv_op(g, "DepthwiseConv2dNative", k(g, GRAFT_FLOAT64, D(1, 4, 4, 2), x32),
                        k(g, GRAFT_FLOAT64, D(2, 2, 2, 1), f8), NULL, dil2)),
         GRAFT_FLOAT64, D(1, 2, 2, 2), F64(-1, -10, -12, 5, 4, 1, 0, 2));
  /* Empty batch. */
  expect(run(g, conv_op(g, "DepthwiseConv2dNative", k(g, GRAFT_FLOAT32, D(0, 3, 3, 2), NULL),
                        k(g, GRAFT_FLOAT32, D(2, 2, 2, 2), f16), NULL, valid)),
         GRAFT_FLOAT32, D(0, 2, 2, 4), NULL);
  /* Run-time error: depths differ. */
  graft_op *px = ph(g, "px", GRAFT_FLOAT32);
  graft_op *bad = conv_op(g, "DepthwiseConv2dNative", px, k(g, GRAFT_FLOAT32, D(2, 2, 2, 2), f16), NULL, valid);
  float zeros[27] = {0};
  expect_error(g, bad, px, tensor(GRAFT_FLOAT32, D(1, 3, 3, 3), zeros), GRAFT_EINVAL, "DepthwiseConv2dNative op",
               "input and filter must have the same depth: 3 vs 2");
  win nchw = valid;
  nchw.format = "NCHW";
  /* NCHW runs (TensorFlow's values are checked in test_kernels_conv.c): channels second. */
  float zeros16[16] = {0};
  expect(run(g, conv_op(g, "DepthwiseConv2dNative", k(g, GRAFT_FLOAT32, D(1, 2, 3, 3), zeros),
                        k(g, GRAFT_FLOAT32, D(2, 2, 2, 2), f16), NULL, nchw)),
         GRAFT_FLOAT32, D(1, 4, 2, 2), zeros16);
}

/* ---- FusedBatchNormV3 -------------------------------------------------------------------- */

static graft_op *batch_norm(graft_graph *g, graft_op *x, graft_op *scale, const char *format, int training) {
  graft_op_desc *d = desc(g, "FusedBatchNormV3", nm("bn"));
  in(d, x);
  in(d, scale);
  in(d, k(g, GRAFT_FLOAT32, D(3), F(0, 1, -1)));
  in(d, k(g, GRAFT_FLOAT32, D(3), F(5, 6, 7)));
  in(d, k(g, GRAFT_FLOAT32, D(3), F(4, 9, 0.25f)));
  GT_OK(graft_attrs_set_float(graft_op_desc_attrs(d), "epsilon", 0.001f));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "is_training", (graft_bool)training));
  set_str(d, "data_format", format);
  return fin(d);
}

static void test_batch_norm(void **state) {
  graft_graph *g = *state;
  const float *x = F(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
  graft_op *scale = k(g, GRAFT_FLOAT32, D(3), F(1, 2, 0.5f));
  graft_op *bn = batch_norm(g, k(g, GRAFT_FLOAT32, D(1, 2, 2, 3), x), scale, "NHWC", 0);
  expect_f32_near(run(g, bn), D(1, 2, 2, 3),
                  F(-1.99975005f, -1.66651853f, -4.99202392f, -0.499937512f, 0.333370367f, -1.99800598f, 0.999875023f,
                    2.33325927f, 0.99601196f, 2.49968756f, 4.33314816f, 3.9900299f),
                  2e-6f);
  expect(run_feeds(g, bn, 1, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(5, 6, 7));
  expect(run_feeds(g, bn, 2, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(4, 9, 0.25f));
  expect(run_feeds(g, bn, 3, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(5, 6, 7));
  expect(run_feeds(g, bn, 4, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(4, 9, 0.25f));
  expect(run_feeds(g, bn, 5, 0, NULL, NULL), GRAFT_FLOAT32, D(0), NULL); /* reserve space 3: empty, as TensorFlow's */
  graft_op *bn2 = batch_norm(g, k(g, GRAFT_FLOAT32, D(1, 3, 2, 2), x), scale, "NCHW", 0);
  expect_f32_near(run(g, bn2), D(1, 3, 2, 2),
                  F(-1.99975005f, -1.49981254f, -0.999875023f, -0.499937512f, 0.333370367f, 1, 1.66662963f, 2.33325927f,
                    0.99601196f, 1.99401794f, 2.99202392f, 3.9900299f),
                  2e-6f);
  /* Empty x. */
  expect(run(g, batch_norm(g, k(g, GRAFT_FLOAT32, D(0, 2, 2, 3), NULL), scale, "NHWC", 0)), GRAFT_FLOAT32, D(0, 2, 2, 3),
         NULL);
  /* Errors: a scale of the wrong size. */
  graft_op *psc = ph(g, "psc", GRAFT_FLOAT32);
  graft_op *bad2 = batch_norm(g, k(g, GRAFT_FLOAT32, D(1, 2, 2, 3), x), psc, "NHWC", 0);
  expect_error(g, bad2, psc, tensor(GRAFT_FLOAT32, D(2), F(1, 1)), GRAFT_EINVAL, "FusedBatchNormV3 op",
               "scale must have the same number of elements as the channels of x, got 2 and 3");
  expect_error(g, bad2, psc, tensor(GRAFT_FLOAT32, D(1, 3), F(1, 1, 1)), GRAFT_EINVAL, "FusedBatchNormV3 op",
               "scale must be 1-dimensional");
}

/* Training: the batch's statistics (channel means 5.5, 6.5, 7.5, biased variance 11.25); the
 * running statistics are (1 - f) * input + f * batch with the unbiased variance (15). The
 * expected values agree with TensorFlow 2.21's tf.raw_ops.FusedBatchNormV3. */
static graft_op *batch_norm_training(graft_graph *g, graft_op *x, graft_op *mean, graft_op *var, float factor) {
  graft_op_desc *d = desc(g, "FusedBatchNormV3", nm("bnt"));
  in(d, x);
  in(d, k(g, GRAFT_FLOAT32, D(3), F(1, 2, 0.5f)));
  in(d, k(g, GRAFT_FLOAT32, D(3), F(0, 1, -1)));
  in(d, mean);
  in(d, var);
  GT_OK(graft_attrs_set_float(graft_op_desc_attrs(d), "epsilon", 0.001f));
  GT_OK(graft_attrs_set_float(graft_op_desc_attrs(d), "exponential_avg_factor", factor));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "is_training", 1));
  return fin(d);
}

static void test_batch_norm_training(void **state) {
  graft_graph *g = *state;
  const float *x = F(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
  graft_op *xs = k(g, GRAFT_FLOAT32, D(1, 2, 2, 3), x);
  graft_op *bn = batch_norm_training(g, xs, k(g, GRAFT_FLOAT32, D(0), NULL), k(g, GRAFT_FLOAT32, D(0), NULL), 1.0f);
  expect_f32_near(run(g, bn), D(1, 2, 2, 3),
                  F(-1.3415812f, -1.6831623f, -1.6707906f, -0.44719372f, 0.10561256f, -1.2235969f, 0.44719372f,
                    1.8943874f, -0.77640314f, 1.3415812f, 3.6831623f, -0.32920942f),
                  2e-6f);
  expect(run_feeds(g, bn, 1, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(5.5f, 6.5f, 7.5f));
  expect(run_feeds(g, bn, 2, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(15, 15, 15));
  expect(run_feeds(g, bn, 3, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(5.5f, 6.5f, 7.5f));
  expect(run_feeds(g, bn, 4, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(11.25f, 11.25f, 11.25f));
  /* A running average: f = 0.5 of the batch, 0.5 of the given mean (5, 6, 7) and variance (4, 9, 0.25). */
  graft_op *avg = batch_norm_training(g, xs, k(g, GRAFT_FLOAT32, D(3), F(5, 6, 7)),
                                      k(g, GRAFT_FLOAT32, D(3), F(4, 9, 0.25f)), 0.5f);
  expect(run_feeds(g, avg, 1, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(5.25f, 6.25f, 7.25f));
  expect(run_feeds(g, avg, 2, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(9.5f, 12, 7.625f));
  expect_f32_near(run(g, avg), D(1, 2, 2, 3),
                  F(-1.3415812f, -1.6831623f, -1.6707906f, -0.44719372f, 0.10561256f, -1.2235969f, 0.44719372f,
                    1.8943874f, -0.77640314f, 1.3415812f, 3.6831623f, -0.32920942f),
                  2e-6f);
  /* Empty running statistics need f = 1 (a fed mean: the shape function cannot see it). */
  graft_op *pm = ph(g, "pm_train", GRAFT_FLOAT32);
  graft_op *bad = batch_norm_training(g, xs, pm, k(g, GRAFT_FLOAT32, D(3), F(4, 9, 0.25f)), 0.5f);
  expect_error(g, bad, pm, tensor(GRAFT_FLOAT32, D(0), NULL), GRAFT_EINVAL, "FusedBatchNormV3 op",
               "mean must have the same number of elements as the channels of x, got 0 and 3");
  /* An empty batch: an empty y and NaN running statistics (TensorFlow's behaviour). */
  graft_op *empty = batch_norm_training(g, k(g, GRAFT_FLOAT32, D(0, 2, 2, 3), NULL), k(g, GRAFT_FLOAT32, D(0), NULL),
                                        k(g, GRAFT_FLOAT32, D(0), NULL), 1.0f);
  expect(run(g, empty), GRAFT_FLOAT32, D(0, 2, 2, 3), NULL);
  graft_tensor *nan_mean = run_feeds(g, empty, 1, 0, NULL, NULL);
  for (int i = 0; i < 3; ++i) assert_true(isnan(((const float *)graft_tensor_data(nan_mean))[i]));
  graft_tensor_free(nan_mean);
  expect(run_feeds(g, empty, 3, 0, NULL, NULL), GRAFT_FLOAT32, D(3), F(0, 0, 0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_conv_backprop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv_backprop_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pool_grad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pool_grad_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_depthwise, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv3d_grads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv3d_grad_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_grouped_conv_grads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_batch_norm, setup, teardown),
      cmocka_unit_test_setup_teardown(test_batch_norm_training, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_nn_grad", tests, NULL, NULL);
}
