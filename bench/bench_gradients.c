/*
 * Gradients and training, each against a baseline measured in the same run:
 *  1. A training step of the 784-512-512-10 ReLU perceptron with softmax cross-entropy and
 *     Adam: Graft's graph (graft_graph_add_gradients + ResourceApplyAdam, one graft_session_run
 *     a step) against the same step's kernels called directly (cblas_sgemm and plain loops).
 *  2. Building the gradient of a chain of N Tanh ops (graft_graph_add_gradients) against
 *     building the chain itself.
 *  3. An eager gradient tape: ops run while a tape records, and graft_tape_gradient, against
 *     the same eager ops with no tape.
 *  4. An embedding step (rows = ResourceGather(table, ids), loss = sum(rows^2), SGD): with the
 *     dense gradient of graft_graph_add_gradients (UnsortedSegmentSum into the whole table,
 *     ResourceApplyGradientDescent), and with the gradient kept as rows by
 *     graft_graph_add_gradients_sparse (ResourceScatterSub of those rows), against the same
 *     step as a C loop.
 *  5. The gradient of N nested calls of one traced function (50 ops), against building the calls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "bench_util.h"

static unsigned long long rng = 42;
static float uniform(float lo, float hi) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (float)((rng >> 40) & 0xffffff) / (float)0x1000000;
}

static float *random_floats(size_t n, float lo, float hi) {
  float *v = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) v[i] = lo == hi ? lo : uniform(lo, hi);
  return v;
}

static graft_tensor *tensor(const int64_t *dims, int ndims, const float *v) {
  size_t n = 1;
  for (int i = 0; i < ndims; ++i) n *= (size_t)dims[i];
  graft_tensor *t = NULL;
  CHECK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, ndims, v, n * sizeof(float)));
  return t;
}

static graft_output op(graft_graph *g, const char *type, const graft_output *in, int n, graft_op **out_op) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, type, NULL));
  for (int i = 0; i < n; ++i) CHECK(graft_op_desc_add_input(d, in[i]));
  graft_op *o = NULL;
  CHECK(graft_op_desc_finish(&o, d));
  if (out_op) *out_op = o;
  return (graft_output){o, 0};
}

static graft_output constant(graft_graph *g, graft_tensor *t) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Const", NULL));
  CHECK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", graft_tensor_dtype(t)));
  graft_op *o = NULL;
  CHECK(graft_op_desc_finish(&o, d));
  graft_tensor_free(t);
  return (graft_output){o, 0};
}

static graft_output placeholder(graft_graph *g, const int64_t *dims, int ndims) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Placeholder", NULL));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, ndims));
  graft_op *o = NULL;
  CHECK(graft_op_desc_finish(&o, d));
  return (graft_output){o, 0};
}

/* ---- 1. Training step ------------------------------------------------------------------- */

/* The model: 784-512-512-10, ReLU, softmax cross-entropy, Adam. */
enum { kLayers = 3 };
static const int kSizes[kLayers + 1] = {784, 512, 512, 10};
static const float kLr = 1e-3f, kBeta1 = 0.9f, kBeta2 = 0.999f, kEps = 1e-7f;

typedef struct {
  float *w[kLayers], *b[kLayers];
} params;

static params init_params(void) {
  params p;
  for (int l = 0; l < kLayers; ++l) {
    const float limit = sqrtf(6.0f / (float)(kSizes[l] + kSizes[l + 1]));
    p.w[l] = random_floats((size_t)kSizes[l] * (size_t)kSizes[l + 1], -limit, limit);
    p.b[l] = random_floats((size_t)kSizes[l + 1], 0, 0);
  }
  return p;
}

static void free_params(params *p) {
  for (int l = 0; l < kLayers; ++l) {
    free(p->w[l]);
    free(p->b[l]);
  }
}

/* The baseline: the same step's kernels called directly (cblas_sgemm for the products, plain
 * loops for bias, ReLU, softmax cross-entropy and Adam). */
typedef struct {
  int batch;
  int64_t t;
  float *act[kLayers + 1]; /* act[0] = x (borrowed), act[l] = ReLU outputs, act[kLayers] = logits */
  float *delta[kLayers];   /* the gradient at each layer's output */
  float *dw[kLayers], *db[kLayers], *mw[kLayers], *vw[kLayers], *mb[kLayers], *vb[kLayers];
} scratch;

static scratch new_scratch(int batch) {
  scratch s;
  memset(&s, 0, sizeof s);
  s.batch = batch;
  for (int l = 0; l < kLayers; ++l) {
    const size_t out = (size_t)kSizes[l + 1], wn = (size_t)kSizes[l] * out;
    s.act[l + 1] = malloc(sizeof(float) * (size_t)batch * out);
    s.delta[l] = malloc(sizeof(float) * (size_t)batch * out);
    s.dw[l] = malloc(sizeof(float) * wn);
    s.db[l] = malloc(sizeof(float) * out);
    s.mw[l] = calloc(wn, sizeof(float));
    s.vw[l] = calloc(wn, sizeof(float));
    s.mb[l] = calloc(out, sizeof(float));
    s.vb[l] = calloc(out, sizeof(float));
  }
  return s;
}

static void free_scratch(scratch *s) {
  for (int l = 0; l < kLayers; ++l) {
    float *all[] = {s->act[l + 1], s->delta[l], s->dw[l], s->db[l], s->mw[l], s->vw[l], s->mb[l], s->vb[l]};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free(all[i]);
  }
}

static void adam(float *p, const float *g, float *m, float *v, size_t n, float lr_t) {
  for (size_t i = 0; i < n; ++i) {
    m[i] += (g[i] - m[i]) * (1 - kBeta1);
    v[i] += (g[i] * g[i] - v[i]) * (1 - kBeta2);
    p[i] -= lr_t * m[i] / (sqrtf(v[i]) + kEps);
  }
}

static float hand_step(params *p, scratch *s, const float *x, const float *y) {
  const int b = s->batch;
  s->act[0] = (float *)x;
  for (int l = 0; l < kLayers; ++l) {
    const int in = kSizes[l], out = kSizes[l + 1];
    float *a = s->act[l + 1];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, b, out, in, 1, s->act[l], in, p->w[l], out, 0, a, out);
    for (int i = 0; i < b; ++i) {
      for (int j = 0; j < out; ++j) {
        float z = a[i * out + j] + p->b[l][j];
        a[i * out + j] = l + 1 < kLayers && z < 0 ? 0 : z;
      }
    }
  }
  const int k = kSizes[kLayers];
  double loss = 0;
  for (int i = 0; i < b; ++i) {
    const float *row = s->act[kLayers] + i * k;
    float mx = -INFINITY, sum = 0;
    for (int j = 0; j < k; ++j) mx = row[j] > mx ? row[j] : mx;
    for (int j = 0; j < k; ++j) sum += expf(row[j] - mx);
    for (int j = 0; j < k; ++j) {
      const float logp = row[j] - mx - logf(sum);
      loss -= y[i * k + j] * logp;
      s->delta[kLayers - 1][i * k + j] = (expf(logp) - y[i * k + j]) / (float)b;
    }
  }
  for (int l = kLayers - 1; l >= 0; --l) {
    const int in = kSizes[l], out = kSizes[l + 1];
    const float *d = s->delta[l];
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, in, out, b, 1, s->act[l], in, d, out, 0, s->dw[l], out);
    memset(s->db[l], 0, sizeof(float) * (size_t)out);
    for (int i = 0; i < b; ++i) {
      for (int j = 0; j < out; ++j) s->db[l][j] += d[i * out + j];
    }
    if (l > 0) {
      float *prev = s->delta[l - 1];
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, b, in, out, 1, d, out, p->w[l], out, 0, prev, in);
      for (int64_t e = 0; e < (int64_t)b * in; ++e) prev[e] = s->act[l][e] > 0 ? prev[e] : 0;
    }
  }
  s->t += 1;
  const float lr_t = kLr * sqrtf(1 - powf(kBeta2, (float)s->t)) / (1 - powf(kBeta1, (float)s->t));
  for (int l = 0; l < kLayers; ++l) {
    adam(p->w[l], s->dw[l], s->mw[l], s->vw[l], (size_t)kSizes[l] * (size_t)kSizes[l + 1], lr_t);
    adam(p->b[l], s->db[l], s->mb[l], s->vb[l], (size_t)kSizes[l + 1], lr_t);
  }
  return (float)(loss / b);
}

/* Graft: the same model as a graph; one graft_session_run a step. */
typedef struct {
  graft_graph *g;
  graft_session *s;
  graft_output x, y, b1_power, b2_power, loss;
  graft_op *updates[2 * kLayers];
} model;

static graft_output variable(graft_graph *g, const char *name, const int64_t *dims, int nd, const float *init,
                             graft_op **assign, graft_output *read) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "VarHandleOp", name));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, nd));
  CHECK(graft_attrs_set_string(graft_op_desc_attrs(d), "shared_name", name, strlen(name)));
  graft_op *h = NULL;
  CHECK(graft_op_desc_finish(&h, d));
  graft_output handle = {h, 0};
  graft_output in[2] = {handle, constant(g, tensor(dims, nd, init))};
  op(g, "AssignVariableOp", in, 2, assign);
  if (read) {
    CHECK(graft_op_desc_new(&d, g, "ReadVariableOp", NULL));
    CHECK(graft_op_desc_add_input(d, handle));
    CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
    graft_op *r = NULL;
    CHECK(graft_op_desc_finish(&r, d));
    *read = (graft_output){r, 0};
    graft_shape *shape = NULL;
    CHECK(graft_shape_new(&shape, dims, nd));
    CHECK(graft_output_set_shape(*read, shape));
    graft_shape_free(shape);
  }
  return handle;
}

static model build_model(const params *init) {
  model m;
  CHECK(graft_graph_new(&m.g));
  graft_graph *g = m.g;
  const int64_t xd[2] = {GRAFT_UNKNOWN_DIM, kSizes[0]}, yd[2] = {GRAFT_UNKNOWN_DIM, kSizes[kLayers]};
  m.x = placeholder(g, xd, 2);
  m.y = placeholder(g, yd, 2);
  m.b1_power = placeholder(g, NULL, 0);
  m.b2_power = placeholder(g, NULL, 0);
  graft_output handles[2 * kLayers], reads[2 * kLayers], slots[2 * kLayers][2];
  graft_op *inits[6 * kLayers];
  int ninit = 0;
  for (int l = 0; l < kLayers; ++l) {
    const int64_t wd[2] = {kSizes[l], kSizes[l + 1]}, bd[1] = {kSizes[l + 1]};
    const size_t wn = (size_t)wd[0] * (size_t)wd[1];
    float *zeros = calloc(wn, sizeof(float));
    for (int which = 0; which < 2; ++which) {
      const int i = 2 * l + which;
      const int64_t *dims = which == 0 ? wd : bd;
      const int nd = which == 0 ? 2 : 1;
      char name[32];
      snprintf(name, sizeof name, "p%d", i);
      handles[i] = variable(g, name, dims, nd, which == 0 ? init->w[l] : init->b[l], &inits[ninit++], &reads[i]);
      for (int k = 0; k < 2; ++k) {
        snprintf(name, sizeof name, "p%d/%s", i, k == 0 ? "m" : "v");
        slots[i][k] = variable(g, name, dims, nd, zeros, &inits[ninit++], NULL);
      }
    }
    free(zeros);
  }
  graft_output h = m.x;
  for (int l = 0; l < kLayers; ++l) {
    graft_output mm[2] = {h, reads[2 * l]};
    graft_output ba[2] = {op(g, "MatMul", mm, 2, NULL), reads[2 * l + 1]};
    h = op(g, "BiasAdd", ba, 2, NULL);
    if (l + 1 < kLayers) h = op(g, "Relu", &h, 1, NULL);
  }
  graft_output ce_in[2] = {h, m.y};
  graft_output ce = op(g, "SoftmaxCrossEntropyWithLogits", ce_in, 2, NULL);
  int32_t axis = 0;
  graft_tensor *axes = NULL;
  CHECK(graft_tensor_new(&axes, GRAFT_INT32, (const int64_t[]){1}, 1, &axis, sizeof axis));
  graft_output mean_in[2] = {ce, constant(g, axes)};
  m.loss = op(g, "Mean", mean_in, 2, NULL);
  graft_output grads[2 * kLayers];
  CHECK(graft_graph_add_gradients(grads, g, &m.loss, 1, reads, 2 * kLayers, NULL, NULL));
  graft_output hyper[4] = {constant(g, tensor(NULL, 0, &kLr)), constant(g, tensor(NULL, 0, &kBeta1)),
                           constant(g, tensor(NULL, 0, &kBeta2)), constant(g, tensor(NULL, 0, &kEps))};
  for (int i = 0; i < 2 * kLayers; ++i) {
    graft_output in[10] = {handles[i], slots[i][0], slots[i][1], m.b1_power, m.b2_power,
                           hyper[0],   hyper[1],    hyper[2],    hyper[3],   grads[i]};
    op(g, "ResourceApplyAdam", in, 10, &m.updates[i]);
  }
  /* GRAFT_BENCH_SESSION_THREADS: the session's num_threads (default 0, one per core). */
  graft_session_options options = GRAFT_SESSION_OPTIONS_INIT;
  const char *threads = getenv("GRAFT_BENCH_SESSION_THREADS");
  if (threads) options.num_threads = atoi(threads);
  CHECK(graft_session_new(&m.s, g, &options));
  CHECK(graft_session_run(NULL, m.s, NULL, NULL, 0, NULL, 0, inits, ninit));
  return m;
}

static float graft_step(model *m, graft_tensor *x, graft_tensor *y, int64_t t) {
  const float p1 = powf(kBeta1, (float)t), p2 = powf(kBeta2, (float)t);
  graft_tensor *powers[2] = {tensor(NULL, 0, &p1), tensor(NULL, 0, &p2)};
  graft_output feeds[4] = {m->x, m->y, m->b1_power, m->b2_power};
  graft_tensor *values[4] = {x, y, powers[0], powers[1]};
  graft_tensor *loss = NULL;
  CHECK(graft_session_run(&loss, m->s, feeds, values, 4, &m->loss, 1, m->updates, 2 * kLayers));
  float l = *(const float *)graft_tensor_data(loss);
  graft_tensor_free(loss);
  graft_tensor_free(powers[0]);
  graft_tensor_free(powers[1]);
  return l;
}

static void bench_training(void) {
  printf("Training step: 784-512-512-10 ReLU perceptron, softmax cross-entropy, Adam\n");
  printf("%-8s %14s %14s %8s %12s %12s\n", "batch", "graft (us)", "kernels (us)", "ratio", "graft loss", "kernel loss");
  const int batches[] = {64, 256};
  for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; ++bi) {
    const int bsz = batches[bi];
    float *x = random_floats((size_t)bsz * (size_t)kSizes[0], 0, 1);
    float *y = random_floats((size_t)bsz * (size_t)kSizes[kLayers], 0, 0);
    for (int i = 0; i < bsz; ++i) y[i * kSizes[kLayers] + (i % kSizes[kLayers])] = 1;
    rng = 42;
    params hand = init_params();
    rng = 42;
    params init = init_params();
    model m = build_model(&init);
    scratch s = new_scratch(bsz);
    graft_tensor *xt = tensor((const int64_t[]){bsz, kSizes[0]}, 2, x);
    graft_tensor *yt = tensor((const int64_t[]){bsz, kSizes[kLayers]}, 2, y);
    const int steps = bsz >= 256 ? 20 : 50;
    int64_t t = 0;
    float lg = 0, lh = 0;
    for (int i = 0; i < 3; ++i) {  // warm-up; both take the same steps
      lg = graft_step(&m, xt, yt, ++t);
      lh = hand_step(&hand, &s, x, y);
    }
    double best_g = 1e30, best_h = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      double t0 = now_ns();
      for (int i = 0; i < steps; ++i) lg = graft_step(&m, xt, yt, ++t);
      double t1 = now_ns();
      if (!getenv("GRAFT_BENCH_GRAFT_ONLY")) {
        for (int i = 0; i < steps; ++i) lh = hand_step(&hand, &s, x, y);
      }
      double t2 = now_ns();
      if ((t1 - t0) / steps < best_g) best_g = (t1 - t0) / steps;
      if ((t2 - t1) / steps < best_h) best_h = (t2 - t1) / steps;
    }
    printf("%-8d %14.1f %14.1f %8.2f %12.5f %12.5f\n", bsz, best_g / 1e3, best_h / 1e3, best_g / best_h, lg, lh);
    graft_tensor_free(xt);
    graft_tensor_free(yt);
    free_scratch(&s);
    graft_session_free(m.s);
    graft_graph_free(m.g);
    free_params(&hand);
    free_params(&init);
    free(x);
    free(y);
  }
  printf("(the same initial values and steps: the losses agree)\n\n");
}

/* ---- 2. Building a gradient ---------------------------------------------------------------- */

static void bench_gradient_build(void) {
  printf("Building the gradient of a chain of N Tanh ops\n");
  printf("%-8s %16s %16s %8s %12s\n", "N", "gradient (us)", "forward (us)", "ratio", "ops added");
  const int sizes[] = {100, 1000, 4000};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    const int n = sizes[k];
    double best_f = 1e30, best_g = 1e30;
    int64_t added = 0;
    for (int rep = 0; rep < 5; ++rep) {
      graft_graph *g = NULL;
      CHECK(graft_graph_new(&g));
      double t0 = now_ns();
      graft_output x = placeholder(g, (const int64_t[]){16}, 1), y = x;
      for (int i = 0; i < n; ++i) y = op(g, "Tanh", &y, 1, NULL);
      double t1 = now_ns();
      int64_t before = graft_graph_num_ops(g);
      graft_output dx;
      CHECK(graft_graph_add_gradients(&dx, g, &y, 1, &x, 1, NULL, NULL));
      double t2 = now_ns();
      added = graft_graph_num_ops(g) - before;
      if (t1 - t0 < best_f) best_f = t1 - t0;
      if (t2 - t1 < best_g) best_g = t2 - t1;
      graft_graph_free(g);
    }
    printf("%-8d %16.1f %16.1f %8.2f %12lld\n", n, best_g / 1e3, best_f / 1e3, best_g / best_f, (long long)added);
  }
  printf("\n");
}

/* ---- 3. Eager gradient tape ----------------------------------------------------------------- */

static graft_value *eager_op(graft_context *ctx, const char *type, const graft_value *a, const graft_value *b) {
  graft_op_call *call = NULL;
  CHECK(graft_op_call_new(&call, ctx, type));
  CHECK(graft_op_call_add_input(call, a));
  if (b) CHECK(graft_op_call_add_input(call, b));
  graft_value *out = NULL;
  int n = 0;
  CHECK(graft_op_call_execute(&out, 1, &n, call));
  graft_op_call_free(call);
  return out;
}

/* n ops: x = tanh(x * c), on a vector of 64 floats. */
static graft_value *chain(graft_context *ctx, graft_value *x, graft_value *c, int n) {
  graft_value *v = x;
  for (int i = 0; i < n; ++i) {
    graft_value *m = eager_op(ctx, "Mul", v, c);
    if (v != x) graft_value_free(v);
    v = eager_op(ctx, "Tanh", m, NULL);
    graft_value_free(m);
  }
  return v;
}

static void bench_tape(void) {
  graft_context *ctx = NULL;
  CHECK(graft_context_new(&ctx));
  float xs[64], cv = 0.9f;
  for (int i = 0; i < 64; ++i) xs[i] = uniform(-1, 1);
  graft_value *x = NULL, *c = NULL;
  graft_tensor *xt = tensor((const int64_t[]){64}, 1, xs), *ct = tensor(NULL, 0, &cv);
  CHECK(graft_value_from_tensor(&x, xt));
  CHECK(graft_value_from_tensor(&c, ct));
  graft_tensor_free(xt);
  graft_tensor_free(ct);
  printf("Eager gradient tape: n steps of x = tanh(x * c) on 64 floats (2n ops)\n");
  printf("%-8s %14s %14s %8s %16s %10s\n", "n", "taped (us)", "no tape (us)", "ratio", "gradient (us)", "grad/fwd");
  const int sizes[] = {10, 100, 1000};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    const int n = sizes[k];
    double best_plain = 1e30, best_taped = 1e30, best_grad = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
      double t0 = now_ns();
      graft_value *y = chain(ctx, x, c, n);
      double t1 = now_ns();
      graft_value_free(y);
      graft_tape *tape = NULL;
      CHECK(graft_tape_new(&tape, ctx, 0, 1));
      CHECK(graft_tape_watch(tape, x));
      double t2 = now_ns();
      y = chain(ctx, x, c, n);
      double t3 = now_ns();
      CHECK(graft_tape_stop(tape));
      graft_value *dx = NULL;
      double t4 = now_ns();
      CHECK(graft_tape_gradient(&dx, tape, (const graft_value *const *)&y, 1, (const graft_value *const *)&x, 1, NULL,
                                GRAFT_UNCONNECTED_NONE));
      double t5 = now_ns();
      graft_value_free(dx);
      graft_value_free(y);
      graft_tape_free(tape);
      if (t1 - t0 < best_plain) best_plain = t1 - t0;
      if (t3 - t2 < best_taped) best_taped = t3 - t2;
      if (t5 - t4 < best_grad) best_grad = t5 - t4;
    }
    printf("%-8d %14.1f %14.1f %8.2f %16.1f %10.2f\n", n, best_taped / 1e3, best_plain / 1e3, best_taped / best_plain,
           best_grad / 1e3, best_grad / best_plain);
  }
  graft_value_free(x);
  graft_value_free(c);
  graft_context_free(ctx);
  printf("\n");
}

/* ---- 4. Embedding rows ---------------------------------------------------------------------- */

static graft_output typed(graft_graph *g, const char *type, const graft_output *in, int n, graft_op **out_op) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, type, NULL));
  for (int i = 0; i < n; ++i) CHECK(graft_op_desc_add_input(d, in[i]));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *o = NULL;
  CHECK(graft_op_desc_finish(&o, d));
  if (out_op) *out_op = o;
  return (graft_output){o, 0};
}

static void bench_embedding(void) {
  enum { kRows = 100000, kDim = 64, kIds = 4096 };
  const float lr = 1e-3f;
  printf("Embedding step: table %dx%d, %d ids, loss sum(rows^2), SGD lr %g\n", kRows, kDim, kIds, (double)lr);
  printf("%-34s %12s %12s %8s\n", "update", "graft (us)", "C loop (us)", "ratio");
  rng = 7;
  float *table = random_floats((size_t)kRows * kDim, -1, 1);
  int32_t *ids = malloc(kIds * sizeof(int32_t));
  for (int i = 0; i < kIds; ++i) ids[i] = (int32_t)(uniform(0, 1) * (kRows - 1));
  float *hand = malloc((size_t)kRows * kDim * sizeof(float));
  memcpy(hand, table, (size_t)kRows * kDim * sizeof(float));
  float *rows = malloc((size_t)kIds * kDim * sizeof(float));
  for (int sparse = 0; sparse < 2; ++sparse) {
    graft_graph *g = NULL;
    CHECK(graft_graph_new(&g));
    graft_op *assign = NULL;
    graft_output h = variable(g, "table", (const int64_t[]){kRows, kDim}, 2, table, &assign, NULL);
    graft_tensor *idt = NULL;
    CHECK(graft_tensor_new(&idt, GRAFT_INT32, (const int64_t[]){kIds}, 1, ids, kIds * sizeof(int32_t)));
    graft_output idx = constant(g, idt);
    graft_output gin[2] = {h, idx};
    graft_output r = typed(g, "ResourceGather", gin, 2, NULL);
    graft_output sq = op(g, "Mul", (const graft_output[]){r, r}, 2, NULL);
    int32_t axes_v[2] = {0, 1};
    graft_tensor *axes = NULL;
    CHECK(graft_tensor_new(&axes, GRAFT_INT32, (const int64_t[]){2}, 1, axes_v, sizeof axes_v));
    graft_output loss = op(g, "Sum", (const graft_output[]){sq, constant(g, axes)}, 2, NULL);
    graft_output lr_t = constant(g, tensor(NULL, 0, &lr));
    graft_op *update = NULL;
    if (!sparse) {
      graft_output dh;
      CHECK(graft_graph_add_gradients(&dh, g, &loss, 1, &h, 1, NULL, NULL));
      op(g, "ResourceApplyGradientDescent", (const graft_output[]){h, lr_t, dh}, 3, &update);
    } else {
      /* The gradient as rows (values, indices): each gathered row moves by -lr * its gradient. */
      graft_output values, indices, dense_shape;
      CHECK(graft_graph_add_gradients_sparse(&values, &indices, &dense_shape, g, &loss, 1, &h, 1, NULL, NULL, 0,
                                             GRAFT_UNCONNECTED_NONE, NULL));
      graft_output delta = op(g, "Mul", (const graft_output[]){values, lr_t}, 2, NULL);
      typed(g, "ResourceScatterSub", (const graft_output[]){h, indices, delta}, 3, &update);
    }
    graft_session *s = NULL;
    CHECK(graft_session_new(&s, g, NULL));
    CHECK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &assign, 1));
    const int steps = sparse ? 200 : 20;
    double best_g = 1e30, best_h = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      double t0 = now_ns();
      for (int i = 0; i < steps; ++i) CHECK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &update, 1));
      double t1 = now_ns();
      for (int i = 0; i < steps; ++i) {
        for (int k = 0; k < kIds; ++k) memcpy(rows + (size_t)k * kDim, hand + (size_t)ids[k] * kDim, kDim * sizeof(float));
        for (int k = 0; k < kIds; ++k) {
          float *dst = hand + (size_t)ids[k] * kDim;
          const float *src = rows + (size_t)k * kDim;
          for (int j = 0; j < kDim; ++j) dst[j] -= 2 * lr * src[j];
        }
      }
      double t2 = now_ns();
      if ((t1 - t0) / steps < best_g) best_g = (t1 - t0) / steps;
      if ((t2 - t1) / steps < best_h) best_h = (t2 - t1) / steps;
    }
    printf("%-34s %12.1f %12.1f %8.2f\n",
           sparse ? "rows (ResourceScatterSub)" : "dense (UnsortedSegmentSum + Apply)", best_g / 1e3,
           best_h / 1e3, best_g / best_h);
    graft_session_free(s);
    graft_graph_free(g);
  }
  printf("(the dense step writes the whole %.1f MB table; the sparse one only the gathered rows)\n\n",
         (double)kRows * kDim * 4 / 1e6);
  free(rows);
  free(hand);
  free(ids);
  free(table);
}

/* ---- 5. Calls of one function ------------------------------------------------------------- */

/* x -> tanh(tanh(...(x))), 50 ops (no captured values: the function's one argument is x). */
static int tanh_chain(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *v = eager_op(ctx, "Tanh", args[0].value, NULL);
  for (int i = 1; i < 50; ++i) {
    graft_value *next = eager_op(ctx, "Tanh", v, NULL);
    graft_value_free(v);
    v = next;
  }
  int rc = graft_value_list_append(outputs, v);
  graft_value_free(v);
  return rc;
}

static void bench_calls(void) {
  printf("Gradient of N nested calls of one traced function of 50 Tanh (16 floats)\n");
  printf("%-8s %16s %16s %8s %12s %12s\n", "N", "gradient (us)", "calls (us)", "ratio", "ops added", "functions");
  graft_context *ctx = NULL;
  CHECK(graft_context_new(&ctx));
  graft_function *f = NULL;
  CHECK(graft_function_new(&f, "tanh_chain", tanh_chain, NULL, NULL));
  graft_tensor_spec spec = {GRAFT_FLOAT32, (const int64_t[]){16}, 1, "x"};
  graft_concrete_function *cf = NULL;
  CHECK(graft_function_get_concrete_for_specs(&cf, f, ctx, &spec, 1));
  const int sizes[] = {1, 10, 100};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    const int n = sizes[k];
    double best_b = 1e30, best_g = 1e30;
    int64_t added = 0;
    int functions = 0;
    for (int rep = 0; rep < 3; ++rep) {
      graft_graph *g = NULL;
      CHECK(graft_graph_new(&g));
      CHECK(graft_concrete_function_add_to_graph(cf, g));
      double t0 = now_ns();
      graft_output x = placeholder(g, (const int64_t[]){16}, 1), y = x;
      for (int i = 0; i < n; ++i) {
        graft_op_desc *d = NULL;
        CHECK(graft_op_desc_new(&d, g, "PartitionedCall", NULL));
        CHECK(graft_op_desc_add_input_list(d, &y, 1));
        CHECK(graft_attrs_set_func(graft_op_desc_attrs(d), "f", graft_concrete_function_name(cf)));
        graft_dtype tout = GRAFT_FLOAT32;
        CHECK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "Tout", &tout, 1));
        graft_op *o = NULL;
        CHECK(graft_op_desc_finish(&o, d));
        y = (graft_output){o, 0};
      }
      double t1 = now_ns();
      int64_t before = graft_graph_num_ops(g);
      graft_output dx;
      CHECK(graft_graph_add_gradients(&dx, g, &y, 1, &x, 1, NULL, NULL));
      double t2 = now_ns();
      added = graft_graph_num_ops(g) - before;
      functions = graft_graph_num_functions(g);
      if (t1 - t0 < best_b) best_b = t1 - t0;
      if (t2 - t1 < best_g) best_g = t2 - t1;
      graft_graph_free(g);
    }
    printf("%-8d %16.1f %16.1f %8.2f %12lld %12d\n", n, best_g / 1e3, best_b / 1e3, best_g / best_b, (long long)added,
           functions);
  }
  graft_function_free(f);
  graft_context_free(ctx);
  printf("\n");
}

/* bench_gradients [training|build|tape|embedding|calls]: one section, or all of them. */
int main(int argc, char **argv) {
  CHECK(GRAFT_VERSION_CHECK());
  const char *only = argc > 1 ? argv[1] : NULL;
  if (!only || strcmp(only, "training") == 0) bench_training();
  if (!only || strcmp(only, "build") == 0) bench_gradient_build();
  if (!only || strcmp(only, "tape") == 0) bench_tape();
  if (!only || strcmp(only, "embedding") == 0) bench_embedding();
  if (!only || strcmp(only, "calls") == 0) bench_calls();
  return 0;
}
