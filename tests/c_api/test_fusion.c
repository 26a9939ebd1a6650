/* The fusion rewrite (core/runtime/fusion.h): Conv2D / MatMul + BiasAdd (+ an activation) run
 * as one fused kernel. Every pattern is run with fusion on and off and the results compared
 * (tolerance 1e-5 relative: the fused kernel applies the same float operations in the same
 * order, so they agree to rounding of the activation functions); the number of ops run shows
 * the fusion happened; patterns that must not fuse (a fetched or shared intermediate) still
 * give the unfused results; the user's graph and its GraphDef never hold a fused
 * op; a bias of the wrong size is an error through the fused kernel too. Convolutions:
 * Conv2D (Winograd and im2col paths, NHWC and NCHW) and DepthwiseConv2dNative, with BiasAdd or
 * a folded inference batch norm. */
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

static graft_op *const_ramp(graft_graph *g, const char *name, const int64_t *dims, int nd, float scale) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= dims[i];
  float *v = malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) v[i] = scale * (float)((int)((i * 37) % 19) - 9);
  graft_op *op = make_const_f32(g, name, dims, nd, v);
  free(v);
  return op;
}

static graft_op *unary(graft_graph *g, const char *type, const char *name, graft_op *x) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  if (strcmp(type, "LeakyRelu") == 0) GT_OK(graft_attrs_set_float(graft_op_desc_attrs(d), "alpha", 0.3f));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *bias_add(graft_graph *g, const char *name, graft_op *x, graft_op *b, const char *format) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "BiasAdd", name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){b, 0}));
  if (format) GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "data_format", format, strlen(format)));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *matmul(graft_graph *g, const char *name, graft_op *a, graft_op *b, int tb) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "MatMul", name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){b, 0}));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "transpose_b", tb));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *conv(graft_graph *g, const char *name, graft_op *x, graft_op *f, const char *format) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Conv2D", name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  const int64_t strides[4] = {1, 1, 1, 1};
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, 4));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", "SAME", 4));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "data_format", format, strlen(format)));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* Runs fetches (feeding x with xv when x is set) with the fusion rewrite on or off; returns the
 * values and sets *ops to the number of ops run. */
static void run_with(graft_graph *g, int fuse, graft_op *x, graft_tensor *xv, graft_op **fetch_ops, int nfetch,
                     graft_tensor **out, int64_t *ops) {
  graft_session_options o = GRAFT_SESSION_OPTIONS_INIT;
  o.num_threads = 1;
  o.disabled_rewrites = fuse ? 0 : GRAFT_REWRITE_FUSION;
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, &o));
  graft_output feed = {x, 0};
  graft_output fetches[4];
  for (int i = 0; i < nfetch; ++i) fetches[i] = (graft_output){fetch_ops[i], 0};
  GT_OK(graft_session_run(out, s, x ? &feed : NULL, x ? &xv : NULL, x ? 1 : 0, fetches, nfetch, NULL, 0));
  *ops = graft_session_last_ops_run(s);
  graft_session_free(s);
}

static void expect_same(const graft_tensor *a, const graft_tensor *b, const char *what) {
  assert_int_equal(graft_tensor_num_elements(a), graft_tensor_num_elements(b));
  const int64_t n = graft_tensor_num_elements(a);
  if (graft_tensor_dtype(a) != GRAFT_FLOAT32) { /* the same operations: the same bits */
    assert_memory_equal(graft_tensor_data(a), graft_tensor_data(b), graft_tensor_byte_size(a));
    return;
  }
  const float *p = graft_tensor_data(a), *q = graft_tensor_data(b);
  for (int64_t i = 0; i < n; ++i) {
    if (!(fabsf(p[i] - q[i]) <= 1e-5f * (1.0f + fabsf(q[i])))) {
      print_error("%s element %lld: fused %.9g, unfused %.9g\n", what, (long long)i, p[i], q[i]);
      fail();
    }
  }
}

/* Fused and unfused results of n fetches; returns (ops run unfused) - (ops run fused). */
static int64_t compare_fusion_n(graft_graph *g, graft_op *x, graft_tensor *xv, graft_op **fetches, int n,
                                const char *what) {
  graft_tensor *fused[4], *plain[4];
  int64_t ops_fused = 0, ops_plain = 0;
  run_with(g, 1, x, xv, fetches, n, fused, &ops_fused);
  run_with(g, 0, x, xv, fetches, n, plain, &ops_plain);
  for (int i = 0; i < n; ++i) {
    expect_same(fused[i], plain[i], what);
    graft_tensor_free(fused[i]);
    graft_tensor_free(plain[i]);
  }
  return ops_plain - ops_fused;
}

static int64_t compare_fusion(graft_graph *g, graft_op *x, graft_tensor *xv, graft_op *fetch, const char *what) {
  return compare_fusion_n(g, x, xv, &fetch, 1, what);
}

static graft_tensor *ramp_tensor(const int64_t *dims, int nd) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= dims[i];
  float *v = malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) v[i] = 0.25f * (float)((int)((i * 13) % 11) - 5);
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, nd, v, sizeof(float) * (size_t)n));
  free(v);
  return t;
}

static const char *const kActivations[] = {NULL, "Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"};

static void test_matmul_patterns(void **state) {
  graft_graph *g = *state;
  const int64_t xd[2] = {5, 7};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, xd, 2);
  graft_tensor *xv = ramp_tensor(xd, 2);
  for (int tb = 0; tb < 2; ++tb) {
    for (size_t a = 0; a < sizeof kActivations / sizeof kActivations[0]; ++a) {
      char name[64];
      snprintf(name, sizeof name, "mm%d_%zu", tb, a);
      const int64_t wd[2] = {tb ? 6 : 7, tb ? 7 : 6};
      const int64_t bd[1] = {6};
      char wn[80], bn[80], an[80], cn[80];
      snprintf(wn, sizeof wn, "%s_w", name);
      snprintf(bn, sizeof bn, "%s_b", name);
      snprintf(an, sizeof an, "%s_bias_add", name);
      snprintf(cn, sizeof cn, "%s_act", name);
      graft_op *y = bias_add(g, an, matmul(g, name, x, const_ramp(g, wn, wd, 2, 0.5f), tb),
                             const_ramp(g, bn, bd, 1, 0.75f), NULL);
      const int absorbed = kActivations[a] ? 2 : 1;
      if (kActivations[a]) y = unary(g, kActivations[a], cn, y);
      assert_int_equal(compare_fusion(g, x, xv, y, name), absorbed);
    }
  }
  graft_tensor_free(xv);
}

static void test_conv_patterns(void **state) {
  graft_graph *g = *state;
  /* 16 channels in and out: the Winograd path with its epilogue; 3: the im2col path. */
  const int channels[2] = {16, 3};
  for (int ci = 0; ci < 2; ++ci) {
    for (int nchw = 0; nchw < 2; ++nchw) {
      const int c = channels[ci];
      const char *format = nchw ? "NCHW" : "NHWC";
      char name[64], xn[80], fn[80], bn[80], an[80], rn[80];
      snprintf(name, sizeof name, "conv%d_%s", c, format);
      snprintf(xn, sizeof xn, "%s_x", name);
      snprintf(fn, sizeof fn, "%s_f", name);
      snprintf(bn, sizeof bn, "%s_b", name);
      snprintf(an, sizeof an, "%s_bias_add", name);
      snprintf(rn, sizeof rn, "%s_relu", name);
      const int64_t xd[4] = {2, nchw ? c : 9, nchw ? 9 : 8, nchw ? 8 : c};
      const int64_t fd[4] = {3, 3, c, c};
      const int64_t bd[1] = {c};
      graft_op *x = make_placeholder(g, xn, GRAFT_FLOAT32, xd, 4);
      graft_tensor *xv = ramp_tensor(xd, 4);
      graft_op *y = unary(g, "Relu", rn,
                          bias_add(g, an, conv(g, name, x, const_ramp(g, fn, fd, 4, 0.125f), format),
                                   const_ramp(g, bn, bd, 1, 0.5f), format));
      assert_int_equal(compare_fusion(g, x, xv, y, name), 2);
      graft_tensor_free(xv);
    }
  }
}

static graft_op *batch_norm(graft_graph *g, const char *name, graft_op *x, graft_op *const params[4], int training) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "FusedBatchNormV3", name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  for (int i = 0; i < 4; ++i) GT_OK(graft_op_desc_add_input(d, (graft_output){params[i], 0}));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "U", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_float(graft_op_desc_attrs(d), "epsilon", 0.001f));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "is_training", training));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* A batch norm's scale, offset, mean and variance for 16 channels (variant 0 or 1: two
 * different sets), as Consts named prefix + "scale", ... */
static void bn_params(graft_graph *g, const char *prefix, int variant, graft_op *params[4]) {
  static const char *const names[4] = {"scale", "offset", "mean", "var"};
  const int64_t pd[1] = {16};
  float v[4][16];
  for (int i = 0; i < 16; ++i) {
    v[0][i] = variant ? 1.5f - 0.0625f * (float)i : 0.5f + 0.0625f * (float)i;
    v[1][i] = variant ? 0.125f * (float)(i % 4) : 0.25f * (float)(i % 5) - 0.5f;
    v[2][i] = variant ? 0.25f * (float)(i % 3) - 0.25f : 0.125f * (float)(i % 7) - 0.375f;
    v[3][i] = variant ? 0.5f + 0.125f * (float)(i % 5) : 0.75f + 0.25f * (float)(i % 3);
  }
  for (int k = 0; k < 4; ++k) {
    char name[32];
    snprintf(name, sizeof name, "%s%s", prefix, names[k]);
    params[k] = make_const_f32(g, name, pd, 1, v[k]);
  }
}

/* Conv2D + inference-mode FusedBatchNormV3 (+ Relu6): the batch norm folded into the constant
 * filter and a bias. Unfused: the filter and the 4 parameters (5 Consts), Conv2D, the batch
 * norm and Relu6; fused: the folded filter and bias, and the fused convolution. A training-mode
 * batch norm, or a fed filter, is not folded. */
static void test_batch_norm_folding(void **state) {
  graft_graph *g = *state;
  const int64_t xd[4] = {2, 6, 5, 16}, fd[4] = {3, 3, 16, 16};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, xd, 4);
  graft_tensor *xv = ramp_tensor(xd, 4);
  graft_op *params[4];
  bn_params(g, "", 0, params);
  graft_op *filter = const_ramp(g, "filter", fd, 4, 0.0625f);
  graft_op *y = unary(g, "Relu6", "relu6", batch_norm(g, "bn", conv(g, "conv", x, filter, "NHWC"), params, 0));
  assert_int_equal(compare_fusion(g, x, xv, y, "conv + batch norm + relu6"), 5);
  graft_op *plain_bn = batch_norm(g, "bn_alone", conv(g, "conv2", x, filter, "NHWC"), params, 0);
  assert_int_equal(compare_fusion(g, x, xv, plain_bn, "conv + batch norm"), 4); /* no Relu6 to take in */
  /* Training mode: the batch's statistics, nothing to fold (the Relu6 alone is not fused). */
  graft_op *trained = unary(g, "Relu6", "relu6_t", batch_norm(g, "bn_t", conv(g, "conv_t", x, filter, "NHWC"), params, 1));
  assert_int_equal(compare_fusion(g, x, xv, trained, "training"), 0);
  graft_tensor_free(xv);
}

static graft_op *depthwise(graft_graph *g, const char *name, graft_op *x, graft_op *f) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "DepthwiseConv2dNative", name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  const int64_t strides[4] = {1, 2, 1, 1};
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, 4));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", "SAME", 4));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* DepthwiseConv2dNative (channel multiplier 2, stride 2 rows) + BiasAdd + Relu6, and + an
 * inference batch norm (folded into the depthwise filter, output channel c * 2 + q) + Relu:
 * MobileNet's layers. */
static void test_depthwise_patterns(void **state) {
  graft_graph *g = *state;
  const int64_t xd[4] = {2, 7, 6, 8}, fd[4] = {3, 3, 8, 2}, pd[1] = {16};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, xd, 4);
  graft_tensor *xv = ramp_tensor(xd, 4);
  graft_op *filter = const_ramp(g, "dw_filter", fd, 4, 0.125f);
  graft_op *y = unary(g, "Relu6", "dw_relu6",
                      bias_add(g, "dw_bias_add", depthwise(g, "dw", x, filter), const_ramp(g, "dw_bias", pd, 1, 0.25f), NULL));
  assert_int_equal(compare_fusion(g, x, xv, y, "depthwise + bias + relu6"), 2);
  graft_op *params[4];
  bn_params(g, "dw_", 1, params);
  graft_op *z = unary(g, "Relu", "dw_relu", batch_norm(g, "dw_bn", depthwise(g, "dw2", x, filter), params, 0));
  assert_int_equal(compare_fusion(g, x, xv, z, "depthwise + batch norm + relu"), 5);
  graft_tensor_free(xv);
}

/* A fetched or shared intermediate keeps its op. */
static void test_not_fused(void **state) {
  graft_graph *g = *state;
  const int64_t xd[2] = {3, 4}, wd[2] = {4, 2}, bd[1] = {2};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, xd, 2);
  graft_tensor *xv = ramp_tensor(xd, 2);
  graft_op *mm = matmul(g, "mm", x, const_ramp(g, "w", wd, 2, 1), 0);
  graft_op *ba = bias_add(g, "ba", mm, const_ramp(g, "b", bd, 1, 1), NULL);
  graft_op *relu = unary(g, "Relu", "relu", ba);
  /* The sum fetched beside the activation: MatMul + BiasAdd fuse, the Relu stays. */
  graft_op *both[2] = {relu, ba};
  assert_int_equal(compare_fusion_n(g, x, xv, both, 2, "fetched sum"), 1);
  /* The product used twice: it stays a MatMul and BiasAdd; Relu and AddV2 (whose side is the
   * product, of the same static shape) become one elementwise chain. */
  graft_op *mm2 = matmul(g, "mm2", x, const_ramp(g, "w2", wd, 2, 1), 0);
  graft_op *sum = make_binary(g, "AddV2", "sum", unary(g, "Relu", "relu2", bias_add(g, "ba2", mm2, const_ramp(g, "b2", bd, 1, 1), NULL)),
                              mm2);
  assert_int_equal(compare_fusion(g, x, xv, sum, "shared product"), 1);
  graft_tensor_free(xv);
}

static graft_op *binop(graft_graph *g, const char *type, const char *name, graft_op *a, graft_op *b) {
  return make_binary(g, type, name, a, b);
}

/* Elementwise chains: every fusable op in one chain with scalar and trailing-dim sides on
 * either hand, fused into one op. */
static void test_elementwise_chain(void **state) {
  graft_graph *g = *state;
  const int64_t xd[2] = {5, 7}, bd[1] = {7};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, xd, 2);
  graft_tensor *xv = ramp_tensor(xd, 2);
  const float half = 0.5f;
  graft_op *c = make_const_f32(g, "half", NULL, 0, &half);
  graft_op *b = const_ramp(g, "row", bd, 1, 0.125f);
  graft_op *y = unary(g, "Sin", "s0", x);
  y = binop(g, "Mul", "s1", y, c);
  y = binop(g, "AddV2", "s2", b, y);
  y = unary(g, "Relu", "s3", y);
  y = binop(g, "Sub", "s4", c, y);
  y = unary(g, "Exp", "s5", y);
  y = binop(g, "Maximum", "s6", y, b);
  y = binop(g, "Minimum", "s7", c, y);
  y = unary(g, "Square", "s8", y);
  y = unary(g, "Neg", "s9", y);
  y = unary(g, "Abs", "s10", y);
  y = unary(g, "Sqrt", "s11", y);
  y = binop(g, "Add", "s12", y, c);
  y = unary(g, "Rsqrt", "s13", y);
  y = unary(g, "Log", "s14", y);
  y = unary(g, "Tanh", "s15", y);
  y = unary(g, "Sigmoid", "s16", y);
  y = unary(g, "Cos", "s17", y);
  y = binop(g, "SquaredDifference", "s18", b, y);
  assert_int_equal(compare_fusion(g, x, xv, y, "chain"), 18);
  graft_tensor_free(xv);
}

/* x * sin(x)-like chains whose side is the chain's own input, a leading unknown dim, double,
 * an intermediate fetched, and sides that broadcast the chain (not fused). */
static void test_elementwise_edges(void **state) {
  graft_graph *g = *state;
  const int64_t xd[2] = {4, 6};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, xd, 2);
  graft_tensor *xv = ramp_tensor(xd, 2);
  graft_op *a = unary(g, "Exp", "a", x);
  graft_op *self = binop(g, "Mul", "self", unary(g, "Sin", "sa", a), a);
  /* Exp alone (its value used twice), then Sin and Mul with a as both start and side. */
  assert_int_equal(compare_fusion(g, x, xv, self, "side is the start"), 1);
  graft_tensor_free(xv);

  const int64_t ud[2] = {-1, 4}, rd[1] = {4};
  graft_op *u = make_placeholder(g, "u", GRAFT_FLOAT32, ud, 2);
  graft_tensor *uv = ramp_tensor((const int64_t[]){3, 4}, 2);
  graft_op *ua = binop(g, "AddV2", "ua", unary(g, "Tanh", "ut", u), const_ramp(g, "ur", rd, 1, 1));
  graft_op *uy = unary(g, "Square", "uq", ua);
  assert_int_equal(compare_fusion(g, u, uv, uy, "unknown leading dim"), 2);
  /* A fetched intermediate ends a chain: Tanh + AddV2, then Square alone. */
  graft_op *pair[2] = {uy, ua};
  assert_int_equal(compare_fusion_n(g, u, uv, pair, 2, "fetched intermediate"), 1);
  graft_tensor_free(uv);

  /* double */
  graft_op *xd64 = make_placeholder(g, "xd64", GRAFT_FLOAT64, xd, 2);
  const double dv[24] = {0.5, -1, 2, 0.25, 3, -0.75, 1, 1, 0, -2, 0.5, 0.125, 0.5, -1, 2, 0.25, 3, -0.75, 1, 1, 0, -2, 0.5, 0.125};
  graft_tensor *dt = NULL;
  GT_OK(graft_tensor_new(&dt, GRAFT_FLOAT64, xd, 2, dv, sizeof dv));
  graft_op *dy = unary(g, "Sigmoid", "dsig", unary(g, "Sin", "dsin", xd64));
  assert_int_equal(compare_fusion(g, xd64, dt, dy, "double"), 1);
  graft_tensor_free(dt);

  /* [3, 1] + [1, 4] broadcasts to [3, 4]: not a chain side. */
  const int64_t cd[2] = {3, 1}, rd2[2] = {1, 4};
  graft_op *col = make_placeholder(g, "col", GRAFT_FLOAT32, cd, 2);
  graft_tensor *colv = ramp_tensor(cd, 2);
  graft_op *bc = unary(g, "Exp", "be", binop(g, "Mul", "bm", unary(g, "Neg", "bn", col), const_ramp(g, "brow", rd2, 2, 1)));
  /* The Mul changes the shape: it neither extends Neg's chain nor starts one (no input has
   * its shape), so nothing fuses; the result is the broadcast [3, 4]. */
  assert_int_equal(compare_fusion(g, col, colv, bc, "broadcasting side"), 0);
  graft_tensor *out = NULL;
  int64_t ops = 0;
  run_with(g, 1, col, colv, &bc, 1, &out, &ops);
  assert_int_equal(graft_tensor_num_elements(out), 12);
  graft_tensor_free(out);
  graft_tensor_free(colv);
}

/* After fused runs, the graph has no fused op and its GraphDef names none. */
static void test_graph_untouched(void **state) {
  graft_graph *g = *state;
  const int64_t xd[2] = {2, 3}, wd[2] = {3, 3}, bd[1] = {3};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, xd, 2);
  graft_tensor *xv = ramp_tensor(xd, 2);
  graft_op *y = unary(g, "Tanh", "tanh", bias_add(g, "ba", matmul(g, "mm", x, const_ramp(g, "w", wd, 2, 1), 0),
                                                   const_ramp(g, "b", bd, 1, 1), NULL));
  assert_int_equal(compare_fusion(g, x, xv, y, "tanh"), 2);
  void *data = NULL;
  size_t len = 0;
  GT_OK(graft_graph_export_graph_def(&data, &len, g, -1, 0));
  const char *needle = "_GraftFused";
  for (size_t i = 0; i + strlen(needle) <= len; ++i) assert_false(memcmp((const char *)data + i, needle, strlen(needle)) == 0);
  graft_buffer_free(data);
  graft_op *none = NULL;
  assert_int_equal(graft_graph_op_by_name(&none, g, "mm/_fused_input0"), GRAFT_ENOTFOUND);
  graft_tensor_free(xv);
}

/* A bias of the wrong size, known only when the run feeds it: the fused kernel's error. */
static void test_bias_error(void **state) {
  graft_graph *g = *state;
  const int64_t xd[2] = {2, 3}, wd[2] = {3, 4};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, xd, 2);
  graft_op *b = make_placeholder(g, "b", GRAFT_FLOAT32, NULL, -1);
  graft_op *y = unary(g, "Relu", "relu", bias_add(g, "ba", matmul(g, "mm", x, const_ramp(g, "w", wd, 2, 1), 0), b, NULL));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_tensor *xv = ramp_tensor(xd, 2), *bv = ramp_tensor((const int64_t[]){3}, 1);
  graft_output feeds[2] = {{x, 0}, {b, 0}}, fetch = {y, 0};
  graft_tensor *values[2] = {xv, bv};
  graft_tensor *out = NULL;
  assert_int_equal(graft_session_run(&out, s, feeds, values, 2, &fetch, 1, NULL, 0), GRAFT_EINVAL);
  assert_non_null(strstr(graft_error_last(), "bias"));
  graft_session_free(s);
  graft_tensor_free(xv);
  graft_tensor_free(bv);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_matmul_patterns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conv_patterns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_batch_norm_folding, setup, teardown),
      cmocka_unit_test_setup_teardown(test_depthwise_patterns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_not_fused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_elementwise_chain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_elementwise_edges, setup, teardown),
      cmocka_unit_test_setup_teardown(test_graph_untouched, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bias_error, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
