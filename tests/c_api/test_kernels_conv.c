/* CPU convolution kernels (kernels/cpu/conv_kernels.cc): Conv2D in NHWC with SAME, VALID and
 * EXPLICIT padding, strides, dilations and batches, checked against a naive direct
 * convolution written here (TensorFlow's output-size and padding rules), plus a small
 * hand-computed case and run-time errors naming the op; MaxPool and AvgPool on hand-computed
 * windows; Conv2D, DepthwiseConv2dNative and the pools in NCHW with TensorFlow's values; the activation gradients and BiasAddGrad on hand-computed values;
 * Conv3D (SAME with strides and dilations, VALID, NCDHW), MaxPool3D / AvgPool3D and grouped
 * Conv2D against TensorFlow 2.21's values, and their errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"

static int setup(void **state) {
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  *state = g;
  return 0;
}

static int teardown(void **state) {
  graft_graph_free(*state);
  return 0;
}

/* Conv2D of x and f; pads: 8 explicit paddings for "EXPLICIT", else NULL. */
static graft_op *conv(graft_graph *g, const char *name, graft_op *x, graft_op *f, int sh, int sw, const char *padding,
                      int dh, int dw, const int64_t *pads, const char *format) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Conv2D", name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  const int64_t strides[4] = {1, sh, sw, 1};
  const int64_t dil[4] = {1, dh, dw, 1};
  if (format && strcmp(format, "NCHW") == 0) {
    const int64_t s2[4] = {1, 1, sh, sw};
    GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", s2, 4));
  } else {
    GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, 4));
    GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "dilations", dil, 4));
  }
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", padding, strlen(padding)));
  if (pads) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "explicit_paddings", pads, 8));
  if (format) GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "data_format", format, strlen(format)));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_tensor *run(graft_graph *g, graft_op *op) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output f = {op, 0};
  graft_tensor *out = NULL;
  GT_OK(graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0));
  graft_session_free(s);
  return out;
}

/* Naive direct convolution, NHWC x [N,H,W,C], f [KH,KW,C,OC]; returns the output (malloc'd)
 * and its spatial size. */
static float *naive_conv(const float *x, int n, int h, int w, int c, const float *f, int kh, int kw, int oc, int sh,
                         int sw, int dh, int dw, const char *padding, const int64_t *pads, int *oh_out, int *ow_out) {
  int ekh = (kh - 1) * dh + 1, ekw = (kw - 1) * dw + 1;
  int oh, ow, ph, pw;
  if (strcmp(padding, "VALID") == 0) {
    oh = h >= ekh ? (h - ekh) / sh + 1 : 0;
    ow = w >= ekw ? (w - ekw) / sw + 1 : 0;
    ph = pw = 0;
  } else if (strcmp(padding, "SAME") == 0) {
    oh = (h + sh - 1) / sh;
    ow = (w + sw - 1) / sw;
    int th = (oh - 1) * sh + ekh - h, tw = (ow - 1) * sw + ekw - w;
    ph = th > 0 ? th / 2 : 0;
    pw = tw > 0 ? tw / 2 : 0;
  } else {
    oh = (h + (int)pads[2] + (int)pads[3] - ekh) / sh + 1;
    ow = (w + (int)pads[4] + (int)pads[5] - ekw) / sw + 1;
    ph = (int)pads[2];
    pw = (int)pads[4];
  }
  float *y = calloc((size_t)(n * oh * ow * oc) + 1, sizeof(float));
  for (int b = 0; b < n; ++b)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox)
        for (int o = 0; o < oc; ++o) {
          double acc = 0;
          for (int i = 0; i < kh; ++i)
            for (int j = 0; j < kw; ++j) {
              int iy = oy * sh - ph + i * dh, ix = ox * sw - pw + j * dw;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              for (int ch = 0; ch < c; ++ch)
                acc += (double)x[((b * h + iy) * w + ix) * c + ch] * f[((i * kw + j) * c + ch) * oc + o];
            }
          y[((b * oh + oy) * ow + ox) * oc + o] = (float)acc;
        }
  *oh_out = oh;
  *ow_out = ow;
  return y;
}

/* Runs Conv2D on pseudo-random data and compares with the naive reference. */
static void check_conv(graft_graph *g, const char *name, int n, int h, int w, int c, int kh, int kw, int oc, int sh,
                       int sw, int dh, int dw, const char *padding, const int64_t *pads) {
  size_t nx = (size_t)(n * h * w * c), nf = (size_t)(kh * kw * c * oc);
  float *x = malloc(nx * sizeof(float)), *f = malloc(nf * sizeof(float));
  for (size_t i = 0; i < nx; ++i) x[i] = (float)((int)((i * 7919u) % 23u) - 11) / 8.0f;
  for (size_t i = 0; i < nf; ++i) f[i] = (float)((int)((i * 104729u) % 17u) - 8) / 4.0f;
  char xn[64], fn[64];
  snprintf(xn, sizeof xn, "%s_x", name);
  snprintf(fn, sizeof fn, "%s_f", name);
  graft_op *xo = make_const_f32(g, xn, (const int64_t[]){n, h, w, c}, 4, x);
  graft_op *fo = make_const_f32(g, fn, (const int64_t[]){kh, kw, c, oc}, 4, f);
  graft_tensor *t = run(g, conv(g, name, xo, fo, sh, sw, padding, dh, dw, pads, NULL));
  int oh = 0, ow = 0;
  float *ref = naive_conv(x, n, h, w, c, f, kh, kw, oc, sh, sw, dh, dw, padding, pads, &oh, &ow);
  assert_int_equal(graft_tensor_dtype(t), GRAFT_FLOAT32);
  assert_int_equal(graft_tensor_rank(t), 4);
  assert_int_equal(graft_tensor_dim(t, 0), n);
  assert_int_equal(graft_tensor_dim(t, 1), oh);
  assert_int_equal(graft_tensor_dim(t, 2), ow);
  assert_int_equal(graft_tensor_dim(t, 3), oc);
  const float *p = graft_tensor_data(t);
  for (int i = 0; i < n * oh * ow * oc; ++i) {
    if (!(fabsf(p[i] - ref[i]) <= 1e-3f * (1.0f + fabsf(ref[i])))) {
      print_error("%s element %d: %.9g, expected %.9g\n", name, i, p[i], ref[i]);
      fail();
    }
  }
  graft_tensor_free(t);
  free(ref);
  free(x);
  free(f);
}

/* 1x3x3x1 input 1..9, 2x2 filter of ones: hand-computed sums of each window. */
static void test_conv2d_hand(void **state) {
  graft_graph *g = *state;
  const float xv[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const float fv[4] = {1, 1, 1, 1};
  graft_op *x = make_const_f32(g, "x", (const int64_t[]){1, 3, 3, 1}, 4, xv);
  graft_op *f = make_const_f32(g, "f", (const int64_t[]){2, 2, 1, 1}, 4, fv);
  /* VALID: 2x2 windows. */
  graft_tensor *t = run(g, conv(g, "valid", x, f, 1, 1, "VALID", 1, 1, NULL, NULL));
  assert_int_equal(graft_tensor_dim(t, 1), 2);
  assert_int_equal(graft_tensor_dim(t, 2), 2);
  const float want_valid[4] = {12, 16, 24, 28};
  assert_memory_equal(graft_tensor_data(t), want_valid, sizeof want_valid);
  graft_tensor_free(t);
  /* SAME: pad total 1 per dim, all of it after (TF puts the odd pixel at the end). */
  t = run(g, conv(g, "same", x, f, 1, 1, "SAME", 1, 1, NULL, NULL));
  const float want_same[9] = {12, 16, 9, 24, 28, 15, 15, 17, 9};
  assert_int_equal(graft_tensor_dim(t, 1), 3);
  assert_memory_equal(graft_tensor_data(t), want_same, sizeof want_same);
  graft_tensor_free(t);
  /* SAME stride 2: out 2x2, pad total max((2-1)*2+2-3, 0) = 1, after. */
  t = run(g, conv(g, "same2", x, f, 2, 2, "SAME", 1, 1, NULL, NULL));
  const float want_same2[4] = {12, 9, 15, 9};
  assert_int_equal(graft_tensor_dim(t, 1), 2);
  assert_memory_equal(graft_tensor_data(t), want_same2, sizeof want_same2);
  graft_tensor_free(t);
  /* Dilation 2 VALID: the 2x2 filter spans 3x3, one output = 1+3+7+9. */
  t = run(g, conv(g, "dil", x, f, 1, 1, "VALID", 2, 2, NULL, NULL));
  const float want_dil[1] = {20};
  assert_int_equal(graft_tensor_dim(t, 1), 1);
  assert_memory_equal(graft_tensor_data(t), want_dil, sizeof want_dil);
  graft_tensor_free(t);
  /* EXPLICIT: one row of zeros above only. */
  const int64_t pads[8] = {0, 0, 1, 0, 0, 0, 0, 0};
  t = run(g, conv(g, "expl", x, f, 1, 1, "EXPLICIT", 1, 1, pads, NULL));
  const float want_expl[6] = {3, 5, 12, 16, 24, 28};
  assert_int_equal(graft_tensor_dim(t, 1), 3);
  assert_int_equal(graft_tensor_dim(t, 2), 2);
  assert_memory_equal(graft_tensor_data(t), want_expl, sizeof want_expl);
  graft_tensor_free(t);
}

static void test_conv2d_naive(void **state) {
  graft_graph *g = *state;
  check_conv(g, "same_s1", 1, 7, 6, 3, 3, 3, 4, 1, 1, 1, 1, "SAME", NULL);
  check_conv(g, "valid_s1", 1, 7, 6, 3, 3, 3, 4, 1, 1, 1, 1, "VALID", NULL);
  check_conv(g, "same_s2", 2, 8, 7, 3, 3, 3, 5, 2, 2, 1, 1, "SAME", NULL);
  check_conv(g, "valid_s2", 2, 8, 7, 3, 3, 2, 5, 2, 1, 1, 1, "VALID", NULL);
  check_conv(g, "same_d2", 3, 9, 9, 2, 3, 3, 3, 1, 1, 2, 2, "SAME", NULL);
  check_conv(g, "valid_d2", 3, 9, 9, 2, 3, 2, 3, 1, 1, 2, 1, "VALID", NULL);
  check_conv(g, "one_by_one", 2, 4, 5, 6, 1, 1, 7, 1, 1, 1, 1, "SAME", NULL);
  check_conv(g, "one_by_one_s2", 2, 5, 5, 6, 1, 1, 7, 2, 2, 1, 1, "VALID", NULL);
  const int64_t pads[8] = {0, 0, 1, 2, 0, 3, 0, 0};
  check_conv(g, "explicit", 2, 6, 5, 3, 3, 3, 4, 2, 1, 1, 1, "EXPLICIT", pads);
  check_conv(g, "wide", 4, 12, 11, 16, 5, 5, 8, 2, 2, 1, 1, "SAME", NULL);
}

/* The Winograd paths (kernels/cpu/winograd.cc: 3x3, stride 1, 16 or more channels in and out;
 * F(4x4, 3x3) for outputs of 4x4 and more, F(2x2, 3x3) below) against the naive reference:
 * partial tiles at the borders, every padding, batches; then the error bound stated in
 * winograd.h on wide filters of values in [-1, 1], relative to the output's largest magnitude. */
static void check_winograd_error(graft_graph *g, const char *name, int h, int w, int c, int oc, double bound) {
  size_t nx = (size_t)(h * w * c), nf = (size_t)(9 * c * oc);
  float *x = malloc(nx * sizeof(float)), *f = malloc(nf * sizeof(float));
  unsigned seed = 12345u;
  for (size_t i = 0; i < nx; ++i) x[i] = (float)((seed = seed * 1103515245u + 12345u) >> 8) / 8388608.0f - 1.0f;
  for (size_t i = 0; i < nf; ++i) f[i] = (float)((seed = seed * 1103515245u + 12345u) >> 8) / 8388608.0f - 1.0f;
  char xn[64], fn[64];
  snprintf(xn, sizeof xn, "%s_x", name);
  snprintf(fn, sizeof fn, "%s_f", name);
  graft_op *xo = make_const_f32(g, xn, (const int64_t[]){1, h, w, c}, 4, x);
  graft_op *fo = make_const_f32(g, fn, (const int64_t[]){3, 3, c, oc}, 4, f);
  graft_tensor *t = run(g, conv(g, name, xo, fo, 1, 1, "SAME", 1, 1, NULL, NULL));
  int oh = 0, ow = 0;
  float *ref = naive_conv(x, 1, h, w, c, f, 3, 3, oc, 1, 1, 1, 1, "SAME", NULL, &oh, &ow);
  const float *p = graft_tensor_data(t);
  double max_ref = 0, max_err = 0;
  for (int i = 0; i < oh * ow * oc; ++i) {
    max_ref = fmax(max_ref, fabs(ref[i]));
    max_err = fmax(max_err, fabs((double)p[i] - ref[i]));
  }
  if (!(max_err <= bound * max_ref)) {
    print_error("%s: largest error %.3g of the output's largest magnitude, bound %.3g\n", name, max_err / max_ref,
                bound);
    fail();
  }
  graft_tensor_free(t);
  free(ref);
  free(x);
  free(f);
}

static void test_conv2d_winograd(void **state) {
  graft_graph *g = *state;
  check_conv(g, "w4_same", 1, 8, 8, 16, 3, 3, 16, 1, 1, 1, 1, "SAME", NULL);
  check_conv(g, "w4_ragged", 3, 9, 7, 17, 3, 3, 20, 1, 1, 1, 1, "SAME", NULL);
  check_conv(g, "w4_valid", 2, 11, 10, 16, 3, 3, 24, 1, 1, 1, 1, "VALID", NULL);
  const int64_t pads[8] = {0, 0, 2, 0, 1, 3, 0, 0};
  check_conv(g, "w4_explicit", 2, 6, 7, 18, 3, 3, 16, 1, 1, 1, 1, "EXPLICIT", pads);
  check_conv(g, "w4_wide", 1, 13, 12, 130, 3, 3, 70, 1, 1, 1, 1, "SAME", NULL);
  check_conv(g, "w2_small", 2, 3, 2, 16, 3, 3, 16, 1, 1, 1, 1, "SAME", NULL);
  check_conv(g, "w2_valid", 1, 5, 6, 32, 3, 3, 16, 1, 1, 1, 1, "VALID", NULL);
  check_winograd_error(g, "err_f4", 16, 16, 256, 32, 2e-5);
  check_winograd_error(g, "err_f2", 3, 3, 256, 32, 2e-6);
}

/* A fed filter that changes between runs of one session: the Winograd filter transform the
 * kernel keeps must follow it. */
static void test_conv2d_winograd_filter_changes(void **state) {
  graft_graph *g = *state;
  float xv[4 * 4 * 16], f1[9 * 16 * 16], f2[9 * 16 * 16];
  for (int i = 0; i < 4 * 4 * 16; ++i) xv[i] = (float)(i % 5) - 2;
  for (int i = 0; i < 9 * 16 * 16; ++i) {
    f1[i] = (float)(i % 3);
    f2[i] = -(float)(i % 7);
  }
  graft_op *x = make_const_f32(g, "x", (const int64_t[]){1, 4, 4, 16}, 4, xv);
  graft_op *f = make_placeholder(g, "f", GRAFT_FLOAT32, NULL, -1);
  graft_op *c = conv(g, "c", x, f, 1, 1, "SAME", 1, 1, NULL, NULL);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  const float *fs[3] = {f1, f2, f1};
  for (int r = 0; r < 3; ++r) {
    graft_tensor *ft = NULL;
    GT_OK(graft_tensor_new(&ft, GRAFT_FLOAT32, (const int64_t[]){3, 3, 16, 16}, 4, fs[r], sizeof f1));
    graft_output feed = {f, 0}, fetch = {c, 0};
    graft_tensor *out = NULL;
    GT_OK(graft_session_run(&out, s, &feed, &ft, 1, &fetch, 1, NULL, 0));
    int oh = 0, ow = 0;
    float *ref = naive_conv(xv, 1, 4, 4, 16, fs[r], 3, 3, 16, 1, 1, 1, 1, "SAME", NULL, &oh, &ow);
    const float *p = graft_tensor_data(out);
    float max_ref = 0;
    for (int i = 0; i < 4 * 4 * 16; ++i) max_ref = fmaxf(max_ref, fabsf(ref[i]));
    for (int i = 0; i < 4 * 4 * 16; ++i) {
      if (!(fabsf(p[i] - ref[i]) <= 2e-5f * max_ref)) {
        print_error("run %d element %d: %.9g, expected %.9g\n", r, i, p[i], ref[i]);
        fail();
      }
    }
    free(ref);
    graft_tensor_free(out);
    graft_tensor_free(ft);
  }
  graft_session_free(s);
}

static void test_conv2d_errors(void **state) {
  graft_graph *g = *state;
  graft_op *f = make_const_f32(g, "f", (const int64_t[]){1, 1, 2, 1}, 4, (const float[]){1, 1});
  graft_session *s = NULL;
  graft_tensor *out = NULL;
  /* A filter depth that does not match, fed at run time so shape inference cannot catch it. */
  int64_t pdims[4] = {-1, -1, -1, -1};
  graft_op *ph = make_placeholder(g, "ph", GRAFT_FLOAT32, pdims, 4);
  graft_op *bad = conv(g, "bad_conv", ph, f, 1, 1, "VALID", 1, 1, NULL, NULL);
  graft_tensor *v = NULL;
  float three[3] = {1, 2, 3};
  GT_OK(graft_tensor_new(&v, GRAFT_FLOAT32, (const int64_t[]){1, 1, 1, 3}, 4, three, sizeof three));
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fb = {bad, 0};
  graft_output fd = {ph, 0};
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &fd, &v, 1, &fb, 1, NULL, 0), "bad_conv", "Conv2D",
         "depth");
  graft_session_free(s);
  /* A filter with no elements (no output channels) is an error, as TensorFlow's, not zeros. */
  graft_op *fph = make_placeholder(g, "fph", GRAFT_FLOAT32, pdims, 4);
  graft_op *empty = conv(g, "empty_filter", ph, fph, 1, 1, "VALID", 1, 1, NULL, NULL);
  graft_tensor *fv = NULL;
  GT_OK(graft_tensor_new(&fv, GRAFT_FLOAT32, (const int64_t[]){1, 1, 3, 0}, 4, NULL, 0));
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output feeds[2] = {{ph, 0}, {fph, 0}};
  graft_tensor *values[2] = {v, fv};
  graft_output fe = {empty, 0};
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, feeds, values, 2, &fe, 1, NULL, 0), "empty_filter", "Conv2D",
         "filter must not have zero elements");
  graft_session_free(s);
  /* Strides and window sizes past int32 (TensorFlow keeps them in int): an error naming the
   * op and the attr, as the graph is run. */
  const char *types[2] = {"Conv2D", "MaxPool"};
  for (int k = 0; k < 2; ++k) {
    graft_op_desc *d = NULL;
    char name[32];
    snprintf(name, sizeof name, "huge_%s", types[k]);
    GT_OK(graft_op_desc_new(&d, g, types[k], name));
    GT_OK(graft_op_desc_add_input(d, (graft_output){ph, 0}));
    if (k == 0) GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
    const int64_t huge[4] = {1, 4294967297LL, 1, 1}, ones[4] = {1, 1, 1, 1};
    GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", huge, 4));
    if (k == 1) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "ksize", ones, 4));
    GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", "VALID", 5));
    graft_op *op = NULL;
    GT_OK(graft_op_desc_finish(&op, d));
    GT_OK(graft_session_new(&s, g, NULL));
    graft_output fh = {op, 0};
    graft_tensor *x = NULL;
    GT_OK(graft_tensor_new(&x, GRAFT_FLOAT32, (const int64_t[]){1, 1, 1, 2}, 4, (const float[]){1, 2}, 8));
    GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &fd, &x, 1, &fh, 1, NULL, 0), name, types[k],
           "strides must be at most 2147483647 (int32), got 4294967297");
    graft_tensor_free(x);
    graft_session_free(s);
  }
  graft_tensor_free(fv);
  graft_tensor_free(v);
}

static graft_op *pool(graft_graph *g, const char *type, const char *name, graft_op *x, int k, int st,
                      const char *padding) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  const int64_t ks[4] = {1, k, k, 1}, ss[4] = {1, st, st, 1};
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "ksize", ks, 4));
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", ss, 4));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", padding, strlen(padding)));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static void expect_pool(graft_graph *g, graft_op *op, int n, int oh, int ow, const float *want) {
  graft_tensor *t = run(g, op);
  assert_int_equal(graft_tensor_rank(t), 4);
  assert_int_equal(graft_tensor_dim(t, 0), n);
  assert_int_equal(graft_tensor_dim(t, 1), oh);
  assert_int_equal(graft_tensor_dim(t, 2), ow);
  assert_int_equal(graft_tensor_dim(t, 3), 1);
  const float *p = graft_tensor_data(t);
  for (int i = 0; i < n * oh * ow; ++i) {
    if (!(fabsf(p[i] - want[i]) <= 1e-6f)) {
      print_error("element %d: %.9g, expected %.9g\n", i, p[i], want[i]);
      fail();
    }
  }
  graft_tensor_free(t);
}

/* Batch of two 3x3 single-channel images: 1..9 and -1..-9. Hand-computed windows; SAME
 * padding cells are ignored (AvgPool divides by the valid count). */
static void test_pools(void **state) {
  graft_graph *g = *state;
  const float xv[18] = {1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, -3, -4, -5, -6, -7, -8, -9};
  graft_op *x = make_const_f32(g, "x", (const int64_t[]){2, 3, 3, 1}, 4, xv);
  expect_pool(g, pool(g, "MaxPool", "max_valid", x, 2, 1, "VALID"), 2, 2, 2,
              (const float[]){5, 6, 8, 9, -1, -2, -4, -5});
  /* SAME stride 2: pad total 1, all after; windows rows {0,1},{2} x cols {0,1},{2}. */
  expect_pool(g, pool(g, "MaxPool", "max_same2", x, 2, 2, "SAME"), 2, 2, 2,
              (const float[]){5, 6, 8, 9, -1, -3, -7, -9});
  expect_pool(g, pool(g, "AvgPool", "avg_same2", x, 2, 2, "SAME"), 2, 2, 2,
              (const float[]){3, 4.5f, 7.5f, 9, -3, -4.5f, -7.5f, -9});
  expect_pool(g, pool(g, "AvgPool", "avg_valid", x, 2, 1, "VALID"), 2, 2, 2,
              (const float[]){3, 4, 6, 7, -3, -4, -6, -7});
  /* SAME 3x3 stride 1: one cell of padding each side; corners average 4, edges 6, centre 9. */
  expect_pool(g, pool(g, "AvgPool", "avg_same3", x, 3, 1, "SAME"), 2, 3, 3,
              (const float[]){3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7, -3, -3.5f, -4, -4.5f, -5, -5.5f, -6, -6.5f, -7});
  expect_pool(g, pool(g, "MaxPool", "max_same3", x, 3, 1, "SAME"), 2, 3, 3,
              (const float[]){5, 6, 6, 8, 9, 9, 8, 9, 9, -1, -1, -2, -1, -1, -2, -4, -4, -5});
  /* A rank-3 input fed at run time: the error names the op. */
  graft_op *ph = make_placeholder(g, "ph", GRAFT_FLOAT32, NULL, -1);
  graft_op *bad = pool(g, "AvgPool", "bad_pool", ph, 2, 1, "VALID");
  graft_tensor *v = NULL;
  float one[1] = {1};
  GT_OK(graft_tensor_new(&v, GRAFT_FLOAT32, (const int64_t[]){1, 1, 1}, 3, one, sizeof one));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fb = {bad, 0}, fd = {ph, 0};
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &fd, &v, 1, &fb, 1, NULL, 0), "bad_pool", "AvgPool", "4-dimensional");
  graft_session_free(s);
  graft_tensor_free(v);
}

/* ---- Wide channels: depthwise convolutions and pools against naive loops ----------------
 * The kernels fold channels in register blocks (32 floats, 16 doubles, then a quarter block,
 * then one by one) and split output rows over threads: channel counts of 45 (float) and 23
 * (double) go through every stage, and enough rows for several threads. */

static graft_op *window_op(graft_graph *g, const char *type, const char *name, graft_op *x, graft_op *f, int k,
                           int st, int dil, const char *padding) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  if (f) GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  const int64_t ks[4] = {1, k, k, 1}, ss[4] = {1, st, st, 1}, ds[4] = {1, dil, dil, 1};
  if (!f) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "ksize", ks, 4));
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", ss, 4));
  if (f) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "dilations", ds, 4));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", padding, strlen(padding)));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* TensorFlow's output size and leading padding of one spatial dim. */
static void window_geometry(int in, int k, int st, int dil, const char *padding, int *out, int *pad) {
  int ek = (k - 1) * dil + 1;
  if (strcmp(padding, "VALID") == 0) {
    *out = in >= ek ? (in - ek) / st + 1 : 0;
    *pad = 0;
  } else {
    *out = (in + st - 1) / st;
    int total = (*out - 1) * st + ek - in;
    *pad = total > 0 ? total / 2 : 0;
  }
}

/* kind: 'd' depthwise (filter [k,k,c,mult]), 'm' max pool, 'a' average pool; doubles in, out. */
static double *naive_window(char kind, const double *x, int n, int h, int w, int c, const double *f, int mult, int k,
                            int st, int dil, const char *padding, int *oh, int *ow) {
  int ph, pw;
  window_geometry(h, k, st, dil, padding, oh, &ph);
  window_geometry(w, k, st, dil, padding, ow, &pw);
  int oc = kind == 'd' ? c * mult : c;
  double *y = calloc((size_t)(n * *oh * *ow * oc) + 1, sizeof(double));
  for (int b = 0; b < n; ++b)
    for (int oy = 0; oy < *oh; ++oy)
      for (int ox = 0; ox < *ow; ++ox)
        for (int o = 0; o < oc; ++o) {
          int ch = kind == 'd' ? o / mult : o, count = 0;
          double acc = kind == 'm' ? -INFINITY : 0;
          for (int i = 0; i < k; ++i)
            for (int j = 0; j < k; ++j) {
              int iy = oy * st - ph + i * dil, ix = ox * st - pw + j * dil;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              double v = x[((b * h + iy) * w + ix) * c + ch];
              if (kind == 'd') acc += v * f[(i * k + j) * oc + o];
              else if (kind == 'm') acc = v > acc ? v : acc;
              else acc += v;
              ++count;
            }
          y[((b * *oh + oy) * *ow + ox) * oc + o] = kind == 'a' ? acc / count : acc;
        }
  return y;
}

static void check_window(graft_graph *g, char kind, graft_dtype dt, int n, int h, int w, int c, int mult, int k,
                         int st, int dil, const char *padding) {
  static int serial = 0;
  char name[64], xn[64], fname[64];
  snprintf(name, sizeof name, "win%d", ++serial);
  snprintf(xn, sizeof xn, "win%d_x", serial);
  snprintf(fname, sizeof fname, "win%d_f", serial);
  size_t nx = (size_t)(n * h * w * c), nf = (size_t)(k * k * c * mult);
  size_t es = dt == GRAFT_FLOAT64 ? sizeof(double) : sizeof(float);
  double *x = malloc(nx * sizeof(double)), *f = malloc(nf * sizeof(double));
  void *xs = malloc(nx * es), *fs = malloc(nf * es);
  for (size_t i = 0; i < nx; ++i) x[i] = (double)((int)((i * 7919u) % 23u) - 11) / 8.0;
  for (size_t i = 0; i < nf; ++i) f[i] = (double)((int)((i * 104729u) % 17u) - 8) / 4.0;
  for (size_t i = 0; i < nx; ++i) {
    if (dt == GRAFT_FLOAT64) ((double *)xs)[i] = x[i];
    else ((float *)xs)[i] = (float)x[i];
  }
  for (size_t i = 0; i < nf; ++i) {
    if (dt == GRAFT_FLOAT64) ((double *)fs)[i] = f[i];
    else ((float *)fs)[i] = (float)f[i];
  }
  graft_op *xo = make_const_of(g, xn, dt, (const int64_t[]){n, h, w, c}, 4, xs, nx * es);
  graft_op *fo = kind == 'd' ? make_const_of(g, fname, dt, (const int64_t[]){k, k, c, mult}, 4, fs, nf * es) : NULL;
  const char *type = kind == 'd' ? "DepthwiseConv2dNative" : kind == 'm' ? "MaxPool" : "AvgPool";
  graft_tensor *t = run(g, window_op(g, type, name, xo, fo, k, st, dil, padding));
  int oh = 0, ow = 0, oc = kind == 'd' ? c * mult : c;
  double *ref = naive_window(kind, x, n, h, w, c, f, mult, k, st, dil, padding, &oh, &ow);
  assert_int_equal(graft_tensor_dtype(t), dt);
  assert_int_equal(graft_tensor_dim(t, 1), oh);
  assert_int_equal(graft_tensor_dim(t, 2), ow);
  assert_int_equal(graft_tensor_dim(t, 3), oc);
  for (int i = 0; i < n * oh * ow * oc; ++i) {
    double got = dt == GRAFT_FLOAT64 ? ((const double *)graft_tensor_data(t))[i]
                                     : ((const float *)graft_tensor_data(t))[i];
    if (!(fabs(got - ref[i]) <= 1e-5 * (1.0 + fabs(ref[i])))) {
      print_error("%s (%s) element %d: %.9g, expected %.9g\n", name, type, i, got, ref[i]);
      fail();
    }
  }
  graft_tensor_free(t);
  free(ref);
  free(x);
  free(f);
  free(xs);
  free(fs);
}

static void test_wide_windows(void **state) {
  graft_graph *g = *state;
  check_window(g, 'd', GRAFT_FLOAT32, 2, 19, 11, 45, 1, 3, 1, 1, "SAME");
  check_window(g, 'd', GRAFT_FLOAT32, 2, 19, 11, 45, 1, 3, 2, 1, "SAME");
  check_window(g, 'd', GRAFT_FLOAT32, 1, 12, 13, 64, 1, 3, 1, 2, "VALID");
  check_window(g, 'd', GRAFT_FLOAT32, 1, 9, 7, 5, 3, 5, 2, 1, "SAME"); /* multiplier 3 */
  check_window(g, 'd', GRAFT_FLOAT64, 2, 10, 9, 23, 1, 3, 1, 1, "SAME");
  check_window(g, 'm', GRAFT_FLOAT32, 2, 19, 11, 37, 1, 3, 2, 1, "SAME");
  check_window(g, 'm', GRAFT_FLOAT32, 2, 20, 12, 37, 1, 2, 2, 1, "VALID");
  check_window(g, 'a', GRAFT_FLOAT32, 2, 19, 11, 37, 1, 3, 2, 1, "SAME");
  check_window(g, 'a', GRAFT_FLOAT64, 1, 7, 7, 130, 1, 7, 7, 1, "SAME"); /* a global pool */
  check_window(g, 'm', GRAFT_FLOAT64, 1, 9, 9, 19, 1, 3, 1, 1, "SAME");
  /* MaxPool and NaN: a NaN never wins a window (as TensorFlow's CPU kernel). */
  const float xn[4] = {NAN, 1.0f, -2.0f, NAN};
  graft_op *x = make_const_f32(g, "nan_x", (const int64_t[]){1, 2, 2, 1}, 4, xn);
  expect_pool(g, pool(g, "MaxPool", "nan_max", x, 2, 2, "VALID"), 1, 1, 1, (const float[]){1.0f});
}

static graft_op *op_fmt(graft_graph *g, const char *name, graft_op *x, const char *format) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "BiasAddGrad", name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "data_format", format, strlen(format)));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *binop(graft_graph *g, const char *type, const char *name, graft_op *a, graft_op *b) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){b, 0}));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static void expect_vec(graft_tensor *t, int n, const float *want) {
  assert_int_equal(graft_tensor_dtype(t), GRAFT_FLOAT32);
  int64_t total = 1;
  for (int i = 0; i < graft_tensor_rank(t); ++i) total *= graft_tensor_dim(t, i);
  assert_int_equal(total, n);
  const float *p = graft_tensor_data(t);
  for (int i = 0; i < n; ++i) {
    if (!(fabsf(p[i] - want[i]) <= 1e-6f)) {
      print_error("element %d: %.9g, expected %.9g\n", i, p[i], want[i]);
      fail();
    }
  }
  graft_tensor_free(t);
}

/* Activation gradients, hand-computed; the boundaries 0 and 6 get no gradient. */
/* An NCHW op (TensorFlow's CPU kernels take NCHW too): x [1,2,3,3] = 0, 0.1, ..., 1.7; the
 * expected values are TensorFlow 2.21's. */
static graft_op *nchw_op(graft_graph *g, const char *type, const char *name, graft_op *x, graft_op *f,
                         const int64_t *window, const int64_t *strides, const char *padding, const int64_t *pads) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  if (f) GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  if (window) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "ksize", window, 4));
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, 4));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", padding, strlen(padding)));
  if (pads) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "explicit_paddings", pads, 8));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "data_format", "NCHW", 4));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static void expect_nchw(graft_graph *g, graft_op *op, const int64_t *dims, const float *want) {
  graft_tensor *t = run(g, op);
  assert_int_equal(graft_tensor_rank(t), 4);
  int64_t n = 1;
  for (int i = 0; i < 4; ++i) {
    assert_int_equal(graft_tensor_dim(t, i), dims[i]);
    n *= dims[i];
  }
  const float *p = graft_tensor_data(t);
  for (int64_t i = 0; i < n; ++i) {
    if (!(fabsf(p[i] - want[i]) <= 1e-5f)) {
      print_error("%s element %lld: %.7g, expected %.7g\n", graft_op_name(op), (long long)i, p[i], want[i]);
      fail();
    }
  }
  graft_tensor_free(t);
}

static void test_nchw(void **state) {
  graft_graph *g = *state;
  float xv[18], wv[16], dv[8];
  for (int i = 0; i < 18; ++i) xv[i] = (float)i / 10.0f;
  for (int i = 0; i < 16; ++i) wv[i] = (float)(i - 5) / 10.0f;
  for (int i = 0; i < 8; ++i) dv[i] = (float)(i - 3) / 10.0f;
  graft_op *x = make_const_f32(g, "x", (const int64_t[]){1, 2, 3, 3}, 4, xv);
  graft_op *w = make_const_f32(g, "w", (const int64_t[]){2, 2, 2, 2}, 4, wv);
  graft_op *dw = make_const_f32(g, "dw", (const int64_t[]){2, 2, 2, 1}, 4, dv);
  const int64_t one[4] = {1, 1, 1, 1}, two[4] = {1, 1, 2, 2}, win[4] = {1, 1, 2, 2};
  expect_nchw(g, nchw_op(g, "Conv2D", "conv_same", x, w, NULL, one, "SAME", NULL), (const int64_t[]){1, 2, 3, 3},
              (const float[]){1.96f, 2.12f, 0.42f, 2.44f, 2.6f, 0.42f, -0.66f, -0.74f, -0.91f, 2.48f, 2.72f, 0.74f,
                              3.2f, 3.44f, 0.86f, -0.22f, -0.26f, -0.66f});
  expect_nchw(g, nchw_op(g, "Conv2D", "conv_s2", x, w, NULL, two, "VALID", NULL), (const int64_t[]){1, 2, 1, 1},
              (const float[]){1.96f, 2.48f});
  const int64_t pads[8] = {0, 0, 0, 0, 1, 0, 0, 1};
  expect_nchw(g, nchw_op(g, "Conv2D", "conv_explicit", x, w, NULL, one, "EXPLICIT", pads),
              (const int64_t[]){1, 2, 3, 3},
              (const float[]){1.42f, 1.66f, 0.61f, 1.96f, 2.12f, 0.42f, 2.44f, 2.6f, 0.42f, 1.62f, 1.9f, 0.74f, 2.48f,
                              2.72f, 0.74f, 3.2f, 3.44f, 0.86f});
  expect_nchw(g, nchw_op(g, "MaxPool", "maxpool", x, NULL, win, one, "VALID", NULL), (const int64_t[]){1, 2, 2, 2},
              (const float[]){0.4f, 0.5f, 0.7f, 0.8f, 1.3f, 1.4f, 1.6f, 1.7f});
  expect_nchw(g, nchw_op(g, "AvgPool", "avgpool", x, NULL, win, two, "SAME", NULL), (const int64_t[]){1, 2, 2, 2},
              (const float[]){0.2f, 0.35f, 0.65f, 0.8f, 1.1f, 1.25f, 1.55f, 1.7f});
  expect_nchw(g, nchw_op(g, "DepthwiseConv2dNative", "depthwise", x, dw, NULL, one, "SAME", NULL),
              (const int64_t[]){1, 2, 3, 3},
              (const float[]){0.14f, 0.14f, -0.01f, 0.14f, 0.14f, -0.07f, -0.25f, -0.29f, -0.24f, 0.58f, 0.62f, 0.06f,
                              0.7f, 0.74f, 0.06f, -0.3f, -0.32f, -0.34f});
  /* A stride on the channel dim (NCHW position 1) is TensorFlow's error. */
  const int64_t cstride[4] = {1, 2, 1, 1};
  graft_op *bad = nchw_op(g, "Conv2D", "bad_stride", x, w, NULL, cstride, "SAME", NULL);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fo = {bad, 0};
  graft_tensor *out = NULL;
  graft_error_clear();
  assert_int_not_equal(graft_session_run(&out, s, NULL, NULL, 0, &fo, 1, NULL, 0), GRAFT_OK);
  assert_non_null(strstr(graft_error_last(), "depth"));
  graft_session_free(s);
}

static void test_activation_grads(void **state) {
  graft_graph *g = *state;
  const int64_t dims[2] = {2, 3};
  graft_op *grad = make_const_f32(g, "grad", dims, 2, (const float[]){1, 2, 3, 4, 5, 6});
  graft_op *feat = make_const_f32(g, "feat", dims, 2, (const float[]){-1, 0, 0.5f, 6, 7, 3});
  expect_vec(run(g, binop(g, "ReluGrad", "relu_grad", grad, feat)), 6, (const float[]){0, 0, 3, 4, 5, 6});
  expect_vec(run(g, binop(g, "Relu6Grad", "relu6_grad", grad, feat)), 6, (const float[]){0, 0, 3, 0, 0, 6});
  graft_op *y = make_const_f32(g, "y", dims, 2, (const float[]){0.5f, 0.25f, 0, 1, -0.5f, 0.75f});
  /* dy * y * (1 - y) */
  expect_vec(run(g, binop(g, "SigmoidGrad", "sig_grad", y, grad)), 6,
             (const float[]){0.25f, 0.375f, 0, 0, -3.75f, 1.125f});
  /* dy * (1 - y^2) */
  expect_vec(run(g, binop(g, "TanhGrad", "tanh_grad", y, grad)), 6,
             (const float[]){0.75f, 1.875f, 3, 0, 3.75f, 2.625f});
}

/* BiasAddGrad sums every dim but the channel (last for NHWC, 1 for NCHW). */
static void test_bias_add_grad(void **state) {
  graft_graph *g = *state;
  float v[24];
  for (int i = 0; i < 24; ++i) v[i] = (float)(i + 1);
  graft_op *x = make_const_f32(g, "x", (const int64_t[]){2, 3, 4}, 3, v);
  /* NHWC: channel c sums v[c], v[c+4], ... : 1+5+...+21 = 66, then +6 per channel. */
  expect_vec(run(g, op_fmt(g, "nhwc", x, "NHWC")), 4, (const float[]){66, 72, 78, 84});
  /* NCHW: channel c of [2,3,4] sums rows c of both batches: (1+2+3+4)+(13+14+15+16) = 68, then +32 per channel. */
  expect_vec(run(g, op_fmt(g, "nchw", x, "NCHW")), 3, (const float[]){68, 100, 132});
}

/* ---- Conv3D, MaxPool3D, AvgPool3D and grouped Conv2D (kernels/cpu/conv3d_kernels.cc,
 * conv_kernels.cc) against TensorFlow 2.21's values (tf.raw_ops on the same inputs). Inputs are
 * ((i * mul) % mod - off) / div for element i. */
static graft_op *ramp(graft_graph *g, const char *name, const int64_t *dims, int nd, int mul, int mod, int off,
                      float div) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= dims[i];
  float *v = malloc((size_t)n * sizeof(float) + 1);
  for (int64_t i = 0; i < n; ++i) v[i] = (float)((int)((i * mul) % mod) - off) / div;
  graft_op *op = make_const_f32(g, name, dims, nd, v);
  free(v);
  return op;
}

/* An op of 1 to 3 inputs with 5-entry window attrs (ksize NULL for convolutions, dil optional). */
static graft_op *win5(graft_graph *g, const char *type, const char *name, graft_op *a, graft_op *b, graft_op *c,
                      const int64_t *ksize, const int64_t *strides, const int64_t *dil, const char *padding,
                      const char *format) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  if (b) GT_OK(graft_op_desc_add_input(d, (graft_output){b, 0}));
  if (c) GT_OK(graft_op_desc_add_input(d, (graft_output){c, 0}));
  const int nk = strcmp(type, "Conv2D") == 0 ? 4 : 5;
  if (ksize) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "ksize", ksize, nk));
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, nk));
  if (dil) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "dilations", dil, nk));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", padding, strlen(padding)));
  if (format) GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "data_format", format, strlen(format)));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static void expect_close(graft_graph *g, graft_op *op, const int64_t *dims, int nd, const float *want) {
  graft_tensor *t = run(g, op);
  assert_int_equal(graft_tensor_dtype(t), GRAFT_FLOAT32);
  assert_int_equal(graft_tensor_rank(t), nd);
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) {
    assert_int_equal(graft_tensor_dim(t, i), dims[i]);
    n *= dims[i];
  }
  const float *p = graft_tensor_data(t);
  for (int64_t i = 0; i < n; ++i) {
    if (!(fabsf(p[i] - want[i]) <= 1e-4f * (1.0f + fabsf(want[i])))) {
      print_error("%s element %lld: %.9g, expected %.9g\n", graft_op_name(op), (long long)i, p[i], want[i]);
      fail();
    }
  }
  graft_tensor_free(t);
}

static const float kConv3dSame[48] = {-1, -7.25f, 8.375f, -7.875f, 6.25f, 0.625f, -1.75f, 4.5f, 2.625f, 3.375f, 0.625f, -7.875f, 0.625f, -7.625f, -0.375f, 4.5f, 0.375f, 2.25f, -0.5f, 6.25f, -7.375f, 7.625f, -4.875f, -2.75f, -1.5f, -3, -1.75f, 2.25f, -1.75f, 2.5f, -1, 2, -3.375f, 2.125f, -6.25f, 0.75f, 4, 4.75f, 3.625f, -0.375f, 0, -0.125f, -0.125f, 2.25f, 0.625f, 2.25f, -0.125f, -0.625f};
static const float kConv3dValid[8] = {5.875f, -6.875f, -8.5f, 0.375f, 0.375f, -8.5f, -6.875f, 5.875f};
static const float kConv3dNcdhw[48] = {-1, 8.375f, 6.25f, -1.75f, 2.625f, 0.625f, 0.625f, -0.375f, 0.375f, -0.5f, -7.375f, -4.875f, -1.5f, -1.75f, -1.75f, -1, -3.375f, -6.25f, 4, 3.625f, 0, -0.125f, 0.625f, -0.125f, -7.25f, -7.875f, 0.625f, 4.5f, 3.375f, -7.875f, -7.625f, 4.5f, 2.25f, 6.25f, 7.625f, -2.75f, -3, 2.25f, 2.5f, 2, 2.125f, 0.75f, 4.75f, -0.375f, -0.125f, 2.25f, 2.25f, -0.625f};
static const float kConv2dGrouped[36] = {7.125f, -6, -3.5f, -0.375f, -3.25f, 6.75f, -2.125f, -3.25f, -0.5f, -1.25f, 2.5f, 1, -0.25f, -1, 3, -1.875f, 6, -2.5f, -2.75f, 4.75f, -3.125f, 3.5f, -2, -2.25f, -1.5f, 1.625f, 0.875f, -1.125f, -1, 0.625f, 1.875f, -1.625f, 1.125f, -0.625f, 0.25f, 1.625f};
static const float kConv2dGrouped3[3] = {2.625f, -3.875f, 0.875f};
static const float kMaxPool3dSame[16] = {2.25f, 2.25f, 1.75f, 1.5f, -0.25f, -0.5f, -1.25f, -1.5f, 1.5f, 2.25f, 2, 1.75f, 0, -0.25f, -1, -1.25f};
static const float kAvgPool3dSame[16] = {0.4375f, 0.78125f, 0.875f, 0.625f, -0.625f, -0.875f, -1.375f, -1.625f, -0.375f, 0.5625f, 1.25f, 1, -0.25f, -0.5f, -1, -1.25f};
static const float kMaxPool3dValid[24] = {2.25f, 2.25f, 2.25f, 2, 1.25f, 1, 0.75f, 0.5f, -0.25f, -0.5f, -0.75f, -1, 2.25f, 2.25f, 2.25f, 2.25f, 1.5f, 1.25f, 1, 0.75f, 0, -0.25f, -0.5f, -0.75f};
static const float kAvgPool3dNcdhw[16] = {0.4375f, 0.875f, -0.625f, -1.375f, -0.375f, 1.25f, -0.25f, -1, 0.78125f, 0.625f, -0.875f, -1.625f, 0.5625f, 1, -0.5f, -1.25f};

static void test_conv3d(void **state) {
  graft_graph *g = *state;
  const int64_t one5[5] = {1, 1, 1, 1, 1};
  graft_op *x = ramp(g, "x", (const int64_t[]){1, 3, 3, 4, 2}, 5, 37, 19, 9, 4.0f);
  graft_op *f = ramp(g, "f", (const int64_t[]){2, 2, 2, 2, 2}, 5, 13, 7, 3, 2.0f);
  expect_close(g,
               win5(g, "Conv3D", "conv3d_same", x, f, NULL, NULL, (const int64_t[]){1, 1, 2, 1, 1},
                    (const int64_t[]){1, 1, 1, 2, 1}, "SAME", NULL),
               (const int64_t[]){1, 3, 2, 4, 2}, 5, kConv3dSame);
  graft_op *x2 = ramp(g, "x2", (const int64_t[]){2, 3, 4, 3, 1}, 5, 37, 19, 9, 4.0f);
  graft_op *f2 = ramp(g, "f2", (const int64_t[]){2, 2, 2, 1, 2}, 5, 13, 7, 3, 2.0f);
  expect_close(g,
               win5(g, "Conv3D", "conv3d_valid", x2, f2, NULL, NULL, (const int64_t[]){1, 2, 2, 2, 1}, NULL, "VALID",
                    NULL),
               (const int64_t[]){2, 1, 2, 1, 2}, 5, kConv3dValid);
  /* NCDHW: x transposed to [1, 2, 3, 3, 4] (element (n, c, d, h, w) of the NDHWC ramp). */
  float xn[72];
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 36; ++i) xn[c * 36 + i] = (float)((int)(((i * 2 + c) * 37) % 19) - 9) / 4.0f;
  graft_op *xc = make_const_f32(g, "xc", (const int64_t[]){1, 2, 3, 3, 4}, 5, xn);
  expect_close(g,
               win5(g, "Conv3D", "conv3d_ncdhw", xc, f, NULL, NULL, (const int64_t[]){1, 1, 1, 2, 1},
                    (const int64_t[]){1, 1, 1, 1, 2}, "SAME", "NCDHW"),
               (const int64_t[]){1, 2, 3, 2, 4}, 5, kConv3dNcdhw);
  /* Pools on a 1x3x3x3x2 ramp. */
  graft_op *xp = ramp(g, "xp", (const int64_t[]){1, 3, 3, 3, 2}, 5, 37, 19, 9, 4.0f);
  const int64_t k2[5] = {1, 2, 2, 2, 1};
  expect_close(g, win5(g, "MaxPool3D", "max3d_same", xp, NULL, NULL, k2, k2, NULL, "SAME", NULL),
               (const int64_t[]){1, 2, 2, 2, 2}, 5, kMaxPool3dSame);
  expect_close(g, win5(g, "AvgPool3D", "avg3d_same", xp, NULL, NULL, k2, k2, NULL, "SAME", NULL),
               (const int64_t[]){1, 2, 2, 2, 2}, 5, kAvgPool3dSame);
  expect_close(g,
               win5(g, "MaxPool3D", "max3d_valid", xp, NULL, NULL, (const int64_t[]){1, 2, 1, 2, 1}, one5, NULL,
                    "VALID", NULL),
               (const int64_t[]){1, 2, 3, 2, 2}, 5, kMaxPool3dValid);
  float xpn[54];
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 27; ++i) xpn[c * 27 + i] = (float)((int)(((i * 2 + c) * 37) % 19) - 9) / 4.0f;
  graft_op *xpc = make_const_f32(g, "xpc", (const int64_t[]){1, 2, 3, 3, 3}, 5, xpn);
  const int64_t k2c[5] = {1, 1, 2, 2, 2};
  expect_close(g, win5(g, "AvgPool3D", "avg3d_ncdhw", xpc, NULL, NULL, k2c, k2c, NULL, "SAME", "NCDHW"),
               (const int64_t[]){1, 2, 2, 2, 2}, 5, kAvgPool3dNcdhw);

  /* Errors, fed at run time so that shape inference cannot catch them; each names the op. */
  int64_t unknown5[5] = {-1, -1, -1, -1, -1};
  graft_op *px = make_placeholder(g, "px", GRAFT_FLOAT32, unknown5, 5);
  graft_op *bad = win5(g, "Conv3D", "bad_depth", px, f, NULL, NULL, one5, NULL, "VALID", NULL);
  float vals[24] = {0};
  graft_tensor *v = NULL;
  GT_OK(graft_tensor_new(&v, GRAFT_FLOAT32, (const int64_t[]){1, 2, 2, 2, 3}, 5, vals, sizeof(float) * 24));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fb = {bad, 0}, fd = {px, 0};
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &fd, &v, 1, &fb, 1, NULL, 0), "bad_depth", "Conv3D", "depth");
  graft_op *bad_stride = win5(g, "MaxPool3D", "bad_stride", px, NULL, NULL, k2, (const int64_t[]){2, 1, 1, 1, 1}, NULL,
                              "VALID", NULL);
  graft_output fs = {bad_stride, 0};
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &fd, &v, 1, &fs, 1, NULL, 0), "bad_stride", "MaxPool3D",
         "batch");
  graft_session_free(s);
  graft_tensor_free(v);
}

/* Grouped Conv2D: input depth a multiple of the filter's; each group convolves its slice of
 * the input channels into its slice of the output channels (TensorFlow's CPU values). */
static void test_conv2d_grouped(void **state) {
  graft_graph *g = *state;
  const int64_t one4[4] = {1, 1, 1, 1};
  graft_op *x = ramp(g, "x", (const int64_t[]){1, 3, 3, 4}, 4, 37, 19, 9, 4.0f);
  graft_op *f = ramp(g, "f", (const int64_t[]){2, 2, 2, 4}, 4, 13, 7, 3, 2.0f);
  expect_close(g, win5(g, "Conv2D", "grouped2", x, f, NULL, NULL, one4, NULL, "SAME", NULL),
               (const int64_t[]){1, 3, 3, 4}, 4, kConv2dGrouped);
  graft_op *x3 = ramp(g, "x3", (const int64_t[]){1, 4, 4, 6}, 4, 37, 19, 9, 4.0f);
  graft_op *f3 = ramp(g, "f3", (const int64_t[]){3, 3, 2, 3}, 4, 13, 7, 3, 2.0f);
  expect_close(g, win5(g, "Conv2D", "grouped3", x3, f3, NULL, NULL, (const int64_t[]){1, 2, 2, 1}, NULL, "VALID", NULL),
               (const int64_t[]){1, 1, 1, 3}, 4, kConv2dGrouped3);
  /* An output depth that is not a multiple of the groups: the error names the op. */
  int64_t unknown4[4] = {-1, -1, -1, -1};
  graft_op *px = make_placeholder(g, "px", GRAFT_FLOAT32, unknown4, 4);
  graft_op *f5 = ramp(g, "f5", (const int64_t[]){1, 1, 2, 5}, 4, 13, 7, 3, 2.0f);
  graft_op *bad = win5(g, "Conv2D", "bad_groups", px, f5, NULL, NULL, one4, NULL, "VALID", NULL);
  float vals[4] = {0};
  graft_tensor *v = NULL;
  GT_OK(graft_tensor_new(&v, GRAFT_FLOAT32, (const int64_t[]){1, 1, 1, 4}, 4, vals, sizeof vals));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fb = {bad, 0}, fd = {px, 0};
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &fd, &v, 1, &fb, 1, NULL, 0), "bad_groups", "Conv2D", "groups");
  graft_session_free(s);
  graft_tensor_free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_conv2d_hand, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv2d_naive, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv2d_winograd, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv2d_winograd_filter_changes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv2d_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pools, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wide_windows, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nchw, setup, teardown),
      cmocka_unit_test_setup_teardown(test_activation_grads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bias_add_grad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv3d, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv2d_grouped, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_conv", tests, NULL, NULL);
}
