/*
 * Gradients and training, each against a baseline measured in the same run:
 *  1. A training step of a 784-256-10 ReLU perceptron with softmax cross-entropy and gradient
 *     descent: Graft's graph (graft_graph_add_gradients + ResourceApplyGradientDescent, one
 *     graft_session_run a step) against the same step written by hand over cblas_sgemm.
 *  2. Building the gradient of a chain of N Tanh ops (graft_graph_add_gradients) against
 *     building the chain itself.
 *  3. An eager gradient tape: ops run while a tape records, and graft_tape_gradient, against
 *     the same eager ops with no tape.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "bench_util.h"

enum { kIn = 784, kHidden = 256, kOut = 10 };

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

typedef struct {
  float *w1, *b1, *w2, *b2;
} params;

static params init_params(void) {
  params p;
  const float l1 = sqrtf(6.0f / (kIn + kHidden)), l2 = sqrtf(6.0f / (kHidden + kOut));
  p.w1 = random_floats((size_t)kIn * kHidden, -l1, l1);
  p.b1 = random_floats(kHidden, 0, 0);
  p.w2 = random_floats((size_t)kHidden * kOut, -l2, l2);
  p.b2 = random_floats(kOut, 0, 0);
  return p;
}

static void free_params(params *p) {
  free(p->w1);
  free(p->b1);
  free(p->w2);
  free(p->b2);
}

/* The baseline: forward, softmax cross-entropy, backward and the update by hand. */
typedef struct {
  int batch;
  float *z1, *h, *logits, *dl, *dh, *dw1, *db1, *dw2, *db2;
} scratch;

static scratch new_scratch(int batch) {
  scratch s = {batch,
               malloc(sizeof(float) * (size_t)batch * kHidden),
               malloc(sizeof(float) * (size_t)batch * kHidden),
               malloc(sizeof(float) * (size_t)batch * kOut),
               malloc(sizeof(float) * (size_t)batch * kOut),
               malloc(sizeof(float) * (size_t)batch * kHidden),
               malloc(sizeof(float) * (size_t)kIn * kHidden),
               malloc(sizeof(float) * kHidden),
               malloc(sizeof(float) * (size_t)kHidden * kOut),
               malloc(sizeof(float) * kOut)};
  return s;
}

static void free_scratch(scratch *s) {
  float *all[] = {s->z1, s->h, s->logits, s->dl, s->dh, s->dw1, s->db1, s->dw2, s->db2};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free(all[i]);
}

static float hand_step(params *p, scratch *s, const float *x, const float *y, float lr) {
  const int b = s->batch;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, b, kHidden, kIn, 1, x, kIn, p->w1, kHidden, 0, s->z1, kHidden);
  for (int i = 0; i < b; ++i) {
    for (int j = 0; j < kHidden; ++j) {
      float z = s->z1[i * kHidden + j] + p->b1[j];
      s->z1[i * kHidden + j] = z;
      s->h[i * kHidden + j] = z > 0 ? z : 0;
    }
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, b, kOut, kHidden, 1, s->h, kHidden, p->w2, kOut, 0, s->logits,
              kOut);
  double loss = 0;
  for (int i = 0; i < b; ++i) {
    float *row = s->logits + i * kOut, mx = -INFINITY, sum = 0;
    for (int j = 0; j < kOut; ++j) {
      row[j] += p->b2[j];
      if (row[j] > mx) mx = row[j];
    }
    for (int j = 0; j < kOut; ++j) sum += expf(row[j] - mx);
    for (int j = 0; j < kOut; ++j) {
      float logp = row[j] - mx - logf(sum);
      loss -= y[i * kOut + j] * logp;
      s->dl[i * kOut + j] = (expf(logp) - y[i * kOut + j]) / (float)b;
    }
  }
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, kHidden, kOut, b, 1, s->h, kHidden, s->dl, kOut, 0, s->dw2, kOut);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, b, kHidden, kOut, 1, s->dl, kOut, p->w2, kOut, 0, s->dh, kHidden);
  memset(s->db2, 0, sizeof(float) * kOut);
  memset(s->db1, 0, sizeof(float) * kHidden);
  for (int i = 0; i < b; ++i) {
    for (int j = 0; j < kOut; ++j) s->db2[j] += s->dl[i * kOut + j];
    for (int j = 0; j < kHidden; ++j) {
      float d = s->z1[i * kHidden + j] > 0 ? s->dh[i * kHidden + j] : 0;
      s->dh[i * kHidden + j] = d;
      s->db1[j] += d;
    }
  }
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, kIn, kHidden, b, 1, x, kIn, s->dh, kHidden, 0, s->dw1, kHidden);
  cblas_saxpy(kIn * kHidden, -lr, s->dw1, 1, p->w1, 1);
  cblas_saxpy(kHidden, -lr, s->db1, 1, p->b1, 1);
  cblas_saxpy(kHidden * kOut, -lr, s->dw2, 1, p->w2, 1);
  cblas_saxpy(kOut, -lr, s->db2, 1, p->b2, 1);
  return (float)(loss / b);
}

/* Graft: the same model as a graph. */
typedef struct {
  graft_graph *g;
  graft_session *s;
  graft_output x, y, loss;
  graft_op *updates[4];
} model;

static model build_model(const params *init, float lr) {
  model m;
  CHECK(graft_graph_new(&m.g));
  graft_graph *g = m.g;
  const int64_t xd[2] = {GRAFT_UNKNOWN_DIM, kIn}, yd[2] = {GRAFT_UNKNOWN_DIM, kOut};
  m.x = placeholder(g, xd, 2);
  m.y = placeholder(g, yd, 2);
  const int64_t dims[4][2] = {{kIn, kHidden}, {kHidden, 0}, {kHidden, kOut}, {kOut, 0}};
  const int nd[4] = {2, 1, 2, 1};
  const float *vals[4] = {init->w1, init->b1, init->w2, init->b2};
  graft_output handles[4], reads[4];
  graft_op *inits[4];
  for (int i = 0; i < 4; ++i) {
    char name[16];
    snprintf(name, sizeof name, "p%d", i);
    graft_op_desc *d = NULL;
    CHECK(graft_op_desc_new(&d, g, "VarHandleOp", name));
    CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
    CHECK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims[i], nd[i]));
    CHECK(graft_attrs_set_string(graft_op_desc_attrs(d), "shared_name", name, strlen(name)));
    graft_op *h = NULL;
    CHECK(graft_op_desc_finish(&h, d));
    handles[i] = (graft_output){h, 0};
    graft_output assign[2] = {handles[i], constant(g, tensor(dims[i], nd[i], vals[i]))};
    op(g, "AssignVariableOp", assign, 2, &inits[i]);
    CHECK(graft_op_desc_new(&d, g, "ReadVariableOp", NULL));
    CHECK(graft_op_desc_add_input(d, handles[i]));
    CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
    graft_op *r = NULL;
    CHECK(graft_op_desc_finish(&r, d));
    reads[i] = (graft_output){r, 0};
    graft_shape *shape = NULL;
    CHECK(graft_shape_new(&shape, dims[i], nd[i]));
    CHECK(graft_output_set_shape(reads[i], shape));
    graft_shape_free(shape);
  }
  graft_output a[2] = {m.x, reads[0]};
  graft_output h = op(g, "MatMul", a, 2, NULL);
  graft_output b[2] = {h, reads[1]};
  h = op(g, "Relu", (graft_output[]){op(g, "BiasAdd", b, 2, NULL)}, 1, NULL);
  graft_output c[2] = {h, reads[2]};
  graft_output logits = op(g, "MatMul", c, 2, NULL);
  graft_output d2[2] = {logits, reads[3]};
  logits = op(g, "BiasAdd", d2, 2, NULL);
  graft_output ce_in[2] = {logits, m.y};
  graft_output ce = op(g, "SoftmaxCrossEntropyWithLogits", ce_in, 2, NULL);
  int32_t axis = 0;
  graft_tensor *axes = NULL;
  CHECK(graft_tensor_new(&axes, GRAFT_INT32, (const int64_t[]){1}, 1, &axis, sizeof axis));
  graft_output mean_in[2] = {ce, constant(g, axes)};
  m.loss = op(g, "Mean", mean_in, 2, NULL);
  graft_output grads[4];
  CHECK(graft_graph_add_gradients(grads, g, &m.loss, 1, reads, 4, NULL, NULL));
  graft_output alpha = constant(g, tensor(NULL, 0, &lr));
  for (int i = 0; i < 4; ++i) {
    graft_output in[3] = {handles[i], alpha, grads[i]};
    op(g, "ResourceApplyGradientDescent", in, 3, &m.updates[i]);
  }
  CHECK(graft_session_new(&m.s, g, NULL));
  CHECK(graft_session_run(NULL, m.s, NULL, NULL, 0, NULL, 0, inits, 4));
  return m;
}

static float graft_step(model *m, graft_tensor *x, graft_tensor *y) {
  graft_output feeds[2] = {m->x, m->y};
  graft_tensor *values[2] = {x, y};
  graft_tensor *loss = NULL;
  CHECK(graft_session_run(&loss, m->s, feeds, values, 2, &m->loss, 1, m->updates, 4));
  float l = *(const float *)graft_tensor_data(loss);
  graft_tensor_free(loss);
  return l;
}

static void bench_training(void) {
  printf("Training step: 784-256-10 ReLU perceptron, softmax cross-entropy, gradient descent\n");
  printf("%-8s %14s %14s %8s %12s %12s\n", "batch", "graft (us)", "by hand (us)", "ratio", "graft loss", "hand loss");
  const int batches[] = {32, 128, 512};
  for (size_t k = 0; k < sizeof batches / sizeof batches[0]; ++k) {
    const int bsz = batches[k];
    float *x = random_floats((size_t)bsz * kIn, 0, 1);
    float *y = random_floats((size_t)bsz * kOut, 0, 0);
    for (int i = 0; i < bsz; ++i) y[i * kOut + (i % kOut)] = 1;
    params hand = init_params();
    rng = 42;
    params init = init_params();
    model m = build_model(&init, 0.1f);
    scratch s = new_scratch(bsz);
    graft_tensor *xt = tensor((const int64_t[]){bsz, kIn}, 2, x), *yt = tensor((const int64_t[]){bsz, kOut}, 2, y);
    const int steps = bsz >= 512 ? 40 : 150;
    float lg = 0, lh = 0;
    for (int i = 0; i < 5; ++i) {  // warm-up (and the two runs stay in step)
      lg = graft_step(&m, xt, yt);
      lh = hand_step(&hand, &s, x, y, 0.1f);
    }
    double best_g = 1e30, best_h = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      double t0 = now_ns();
      for (int i = 0; i < steps; ++i) lg = graft_step(&m, xt, yt);
      double t1 = now_ns();
      for (int i = 0; i < steps; ++i) lh = hand_step(&hand, &s, x, y, 0.1f);
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
  printf("(the two losses follow the same trajectory: the same initial values and updates)\n\n");
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

static graft_value *eager_op(graft_context *ctx, const char *type, graft_value *a, graft_value *b) {
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

/* bench_gradients [training|build|tape]: one section, or all of them. */
int main(int argc, char **argv) {
  CHECK(GRAFT_VERSION_CHECK());
  const char *only = argc > 1 ? argv[1] : NULL;
  if (!only || strcmp(only, "training") == 0) bench_training();
  if (!only || strcmp(only, "build") == 0) bench_gradient_build();
  if (!only || strcmp(only, "tape") == 0) bench_tape();
  return 0;
}
