/*
 * bench_executor: the cost of running graphs through a session, against baselines measured
 * in the same run: per-op overhead on a chain of scalar adds; a callable against
 * graft_session_run; 100 independent small ops on 1 and 2 threads (and from 2 callers); MatMul against a direct cblas_sgemm; an MLP 784-512-512-10 against its kernels
 * called directly; the MLP's peak memory against its weights plus its largest activation.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>
#include <graft/graft.h>

#include "bench_util.h"

static graft_op *constant(graft_graph *g, const char *name, const int64_t *dims, int ndims, const float *values) {
  int64_t n = 1;
  for (int i = 0; i < ndims; ++i) n *= dims[i];
  graft_tensor *t = NULL;
  CHECK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, ndims, values, values ? sizeof(float) * (size_t)n : 0));
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Const", name));
  CHECK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *op = NULL;
  CHECK(graft_op_desc_finish(&op, d));
  graft_tensor_free(t);
  return op;
}

static graft_op *placeholder(graft_graph *g, const char *name, const int64_t *dims, int ndims) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Placeholder", name));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, ndims));
  graft_op *op = NULL;
  CHECK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *op2(graft_graph *g, const char *type, graft_op *a, graft_op *b) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, type, NULL));
  CHECK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  if (b) CHECK(graft_op_desc_add_input(d, (graft_output){b, 0}));
  graft_op *op = NULL;
  CHECK(graft_op_desc_finish(&op, d));
  return op;
}

/* Runs fetch repeatedly (with run options, when given); the fastest of `rounds` rounds of
 * iters runs, in ns per run. */
static double time_rounds_options(graft_session *s, graft_output *fetches, int nfetch, graft_output *feeds,
                                  graft_tensor **vals, int nfeed, int iters, int rounds,
                                  const graft_run_options *options) {
  graft_tensor *outs[128];
  double best = 1e300;
  for (int round = 0; round < rounds; ++round) {
    double t0 = now_ns();
    for (int i = 0; i < iters; ++i) {
      CHECK(graft_session_run_with_options(outs, s, feeds, vals, nfeed, fetches, nfetch, NULL, 0, options));
      for (int k = 0; k < nfetch; ++k) graft_tensor_free(outs[k]);
    }
    double dt = (now_ns() - t0) / iters;
    if (dt < best) best = dt;
  }
  return best;
}

static double time_rounds(graft_session *s, graft_output *fetches, int nfetch, graft_output *feeds, graft_tensor **vals,
                          int nfeed, int iters, int rounds) {
  return time_rounds_options(s, fetches, nfetch, feeds, vals, nfeed, iters, rounds, NULL);
}

static double time_run(graft_session *s, graft_output *fetches, int nfetch, graft_output *feeds, graft_tensor **vals,
                       int nfeed, int iters) {
  return time_rounds(s, fetches, nfetch, feeds, vals, nfeed, iters, 5);
}

/* Rounds of Graft and of the baseline alternate, so that a slow spell of the machine (a
 * shared VM) does not land on one side only; each side keeps its best round. */
enum { kInterleavedRounds = 9 };

static void bench_chain(void) {
  enum { N = 1000 };
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  float one = 1.0f;
  graft_op *c = constant(g, "one", NULL, 0, &one);
  graft_op *x = placeholder(g, "x", NULL, 0);
  graft_op *cur = x;
  for (int i = 0; i < N; ++i) cur = op2(g, "AddV2", cur, c);
  /* Unfused (the executor's cost per op), then fused into one loop (the default); unfused
   * again with a deadline and a cancellation token (checked before every op). */
  double ns_fused = 0, ns = 0, ns_options = 0;
  float xv = 0;
  graft_tensor *xt = NULL;
  CHECK(graft_tensor_new(&xt, GRAFT_FLOAT32, NULL, 0, &xv, sizeof xv));
  graft_output feed = {x, 0}, fetch = {cur, 0};
  graft_session *s = NULL;
  for (int fused = 0; fused < 2; ++fused) {
    graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
    opts.num_threads = 1;
    opts.disabled_rewrites = fused ? 0 : GRAFT_REWRITE_FUSION;
    CHECK(graft_session_new(&s, g, &opts));
    *(fused ? &ns_fused : &ns) = time_run(s, &fetch, 1, &feed, &xt, 1, 200);
    if (!fused) {
      graft_cancellation *token = NULL;
      CHECK(graft_cancellation_new(&token));
      graft_run_options ro = GRAFT_RUN_OPTIONS_INIT;
      ro.timeout_ms = 600000;
      ro.cancellation = token;
      ns_options = time_rounds_options(s, &fetch, 1, &feed, &xt, 1, 200, 5, &ro);
      graft_cancellation_free(token);
      graft_session_free(s);
    }
  }
  /* The baseline: the same 1000 adds as a plain C loop. */
  volatile float acc = 0;
  double t0 = now_ns();
  for (int r = 0; r < 2000; ++r) {
    float v = 0;
    for (int i = 0; i < N; ++i) v += acc + 1.0f;
    acc = v * 0;
  }
  double base = (now_ns() - t0) / 2000;
  printf("%-44s %12.1f %14.1f %10.1f\n", "chain of 1000 scalar AddV2, 1 thread (ns/op)", ns / N, base / N, ns / base);
  printf("%-44s %12.1f %14.1f %10.1f\n", "the same chain fused (ns/op)", ns_fused / N, base / N, ns_fused / base);
  printf("%-44s %12.1f %14.1f %10.1f\n", "unfused, with a deadline and a token (ns/op)", ns_options / N, base / N,
         ns_options / base);
  graft_tensor_free(xt);
  graft_session_free(s);
  graft_graph_free(g);
}

/* The per-run cost of a one-op graph: a callable (prepared once) against graft_session_run
 * (which looks the prepared run up by its feeds and fetches on every call). */
static void bench_callable(void) {
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  float one = 1.0f;
  graft_op *x = placeholder(g, "x", NULL, 0);
  graft_op *y = op2(g, "AddV2", x, constant(g, "one", NULL, 0, &one));
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.num_threads = 1;
  graft_session *s = NULL;
  CHECK(graft_session_new(&s, g, &opts));
  graft_tensor *xt = NULL;
  CHECK(graft_tensor_new(&xt, GRAFT_FLOAT32, NULL, 0, &one, sizeof one));
  graft_output feed = {x, 0}, fetch = {y, 0};
  graft_callable *c = NULL;
  CHECK(graft_session_make_callable(&c, s, &feed, 1, &fetch, 1, NULL, 0));
  enum { kIters = 100000 };
  double via_run = 1e300, via_callable = 1e300;
  for (int round = 0; round < kInterleavedRounds; ++round) {
    via_run = fmin(via_run, time_rounds(s, &fetch, 1, &feed, &xt, 1, kIters, 1));
    double t0 = now_ns();
    for (int i = 0; i < kIters; ++i) {
      graft_tensor *out = NULL;
      CHECK(graft_callable_run(&out, c, &xt, 1));
      graft_tensor_free(out);
    }
    via_callable = fmin(via_callable, (now_ns() - t0) / kIters);
  }
  printf("%-44s %12.0f %14.0f %10.2f\n", "1-op graph, ns/run: callable vs session_run", via_callable, via_run,
         via_run / via_callable);
  graft_callable_free(c);
  graft_tensor_free(xt);
  graft_session_free(s);
  graft_graph_free(g);
}

/* One caller thread's share of a throughput run: `iters` runs of the same session. */
struct caller {
  graft_session *s;
  graft_output *fetches;
  int nfetch;
  graft_output feed;
  graft_tensor *value;
  int iters;
};

static void *caller_main(void *p) {
  struct caller *c = p;
  graft_tensor *outs[128];
  for (int i = 0; i < c->iters; ++i) {
    CHECK(graft_session_run(outs, c->s, &c->feed, &c->value, 1, c->fetches, c->nfetch, NULL, 0));
    for (int k = 0; k < c->nfetch; ++k) graft_tensor_free(outs[k]);
  }
  return NULL;
}

/* Runs per second of one session called from `callers` threads at once (best of 5). */
static double throughput(graft_session *s, graft_output *fetches, int nfetch, graft_output feed, graft_tensor *value,
                         int callers) {
  enum { kIters = 400 };
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    pthread_t th[2];
    struct caller c = {s, fetches, nfetch, feed, value, kIters};
    double t0 = now_ns();
    for (int i = 0; i < callers; ++i) pthread_create(&th[i], NULL, caller_main, &c);
    for (int i = 0; i < callers; ++i) pthread_join(th[i], NULL);
    double rate = callers * kIters / ((now_ns() - t0) / 1e9);
    if (rate > best) best = rate;
  }
  return best;
}

/* 100 independent Mul+Tanh chains on vectors of `width` floats: one run on 1 and on 2
 * threads (the speed-up of one run), and the same graph run from 1 and 2 caller threads at
 * once (throughput). */
static void bench_independent(int width) {
  enum { N = 100 };
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  graft_output fetches[N];
  float *v = malloc(sizeof(float) * (size_t)width), *ci = malloc(sizeof(float) * (size_t)width);
  for (int i = 0; i < width; ++i) v[i] = (float)i / (float)width;
  int64_t dims[1] = {width};
  /* A fed input, so that nothing can be folded into a constant ahead of the run. */
  graft_op *x = placeholder(g, "x", dims, 1);
  for (int i = 0; i < N; ++i) {
    char name[32];
    snprintf(name, sizeof name, "c%d", i);
    /* Distinct constants: equal ones would be merged by common-subexpression elimination,
     * and the 100 chains with them. */
    for (int j = 0; j < width; ++j) ci[j] = v[j] + (float)i / 128.0f;
    graft_op *c = constant(g, name, dims, 1, ci);
    graft_op *m = op2(g, "Mul", x, c);
    graft_op *e = op2(g, "Tanh", m, NULL);
    fetches[i] = (graft_output){e, 0};
  }
  graft_tensor *xt = NULL;
  CHECK(graft_tensor_new(&xt, GRAFT_FLOAT32, dims, 1, v, sizeof(float) * (size_t)width));
  graft_output feed = {x, 0};
  graft_session *s[3] = {NULL};
  for (int threads = 1; threads <= 2; ++threads) {
    graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
    opts.num_threads = threads;
    CHECK(graft_session_new(&s[threads], g, &opts));
  }
  int iters = width >= 1024 ? 20 : 200;
  double per_run[3] = {1e300, 1e300, 1e300};
  for (int round = 0; round < kInterleavedRounds; ++round) {
    for (int threads = 1; threads <= 2; ++threads) {
      per_run[threads] = fmin(per_run[threads], time_rounds(s[threads], fetches, N, &feed, &xt, 1, iters, 1));
    }
  }
  char label[64];
  snprintf(label, sizeof label, "100 independent Mul+Tanh (%d floats), us/run", width);
  printf("%-44s %12.1f %14.1f %10.2f\n", label, per_run[2] / 1000, per_run[1] / 1000, per_run[1] / per_run[2]);
  printf("%-44s %12s %14s %10s\n", "", "(2 threads)", "(1 thread)", "(speed-up)");
  /* Throughput: the same graph run from 1 and from 2 caller threads at once, each run on its
   * caller's thread (one immutable prepared executor, per-run state per run). */
  double one = throughput(s[1], fetches, N, feed, xt, 1), two = throughput(s[1], fetches, N, feed, xt, 2);
  snprintf(label, sizeof label, "  same, runs/s from 2 callers vs 1");
  printf("%-44s %12.0f %14.0f %10.2f\n", label, two, one, two / one);
  graft_tensor_free(xt);
  graft_session_free(s[1]);
  graft_session_free(s[2]);
  graft_graph_free(g);
  free(v);
  free(ci);
}

static void fill(float *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    p[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
}

static void bench_matmul(int n) {
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  size_t count = (size_t)n * (size_t)n;
  float *a = malloc(count * sizeof(float)), *b = malloc(count * sizeof(float)), *c = malloc(count * sizeof(float));
  fill(a, count, 1);
  fill(b, count, 2);
  int64_t dims[2] = {n, n};
  graft_op *pa = placeholder(g, "a", dims, 2);
  graft_op *pb = constant(g, "b", dims, 2, b);
  graft_op *mm = op2(g, "MatMul", pa, pb);
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.num_threads = 1;
  graft_session *s = NULL;
  CHECK(graft_session_new(&s, g, &opts));
  graft_tensor *at = NULL;
  CHECK(graft_tensor_new(&at, GRAFT_FLOAT32, dims, 2, a, count * sizeof(float)));
  graft_output feed = {pa, 0}, fetch = {mm, 0};
  int iters = n >= 1024 ? 5 : (n >= 512 ? 20 : 100);
  double graft_ns = 1e300, best = 1e300;
  for (int round = 0; round < kInterleavedRounds; ++round) {
    graft_ns = fmin(graft_ns, time_rounds(s, &fetch, 1, &feed, &at, 1, iters, 1));
    double t0 = now_ns();
    for (int i = 0; i < iters; ++i) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    double dt = (now_ns() - t0) / iters;
    if (dt < best) best = dt;
  }
  char label[64];
  snprintf(label, sizeof label, "MatMul %dx%d float32 (GFLOP/s)", n, n);
  double flops = 2.0 * n * (double)n * n;
  printf("%-44s %12.1f %14.1f %10.3f\n", label, flops / graft_ns, flops / best, best / graft_ns);
  graft_tensor_free(at);
  graft_session_free(s);
  graft_graph_free(g);
  free(a);
  free(b);
  free(c);
}

/* The MLP 784-512-512-10 with its weights as constants. */
struct mlp {
  float *w1, *b1, *w2, *b2, *w3, *b3;
};

static void mlp_direct(const struct mlp *m, const float *x, int batch, float *h1, float *h2, float *out) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, 512, 784, 1.0f, x, 784, m->w1, 512, 0.0f, h1, 512);
  for (int i = 0; i < batch * 512; ++i) h1[i] = fmaxf(h1[i] + m->b1[i % 512], 0.0f);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, 512, 512, 1.0f, h1, 512, m->w2, 512, 0.0f, h2, 512);
  for (int i = 0; i < batch * 512; ++i) h2[i] = fmaxf(h2[i] + m->b2[i % 512], 0.0f);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, 10, 512, 1.0f, h2, 512, m->w3, 10, 0.0f, out, 10);
  for (int r = 0; r < batch; ++r) {
    float *row = out + r * 10, mx = -INFINITY, sum = 0;
    for (int i = 0; i < 10; ++i) {
      row[i] += m->b3[i];
      mx = fmaxf(mx, row[i]);
    }
    for (int i = 0; i < 10; ++i) sum += expf(row[i] - mx);
    for (int i = 0; i < 10; ++i) row[i] = expf(row[i] - mx) / sum;
  }
}

static void bench_mlp(void) {
  struct mlp m;
  size_t sizes[6] = {784 * 512, 512, 512 * 512, 512, 512 * 10, 10};
  float **ptrs[6] = {&m.w1, &m.b1, &m.w2, &m.b2, &m.w3, &m.b3};
  size_t weight_bytes = 0;
  for (int i = 0; i < 6; ++i) {
    *ptrs[i] = malloc(sizes[i] * sizeof(float));
    fill(*ptrs[i], sizes[i], (unsigned)(10 + i));
    weight_bytes += sizes[i] * sizeof(float);
  }
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  int64_t xdims[2] = {-1, 784};
  graft_op *x = placeholder(g, "x", xdims, 2);
  int64_t d1[2] = {784, 512}, d2[2] = {512, 512}, d3[2] = {512, 10}, v512[1] = {512}, v10[1] = {10};
  graft_op *h = op2(g, "Relu", op2(g, "BiasAdd", op2(g, "MatMul", x, constant(g, "w1", d1, 2, m.w1)),
                                   constant(g, "b1", v512, 1, m.b1)), NULL);
  h = op2(g, "Relu", op2(g, "BiasAdd", op2(g, "MatMul", h, constant(g, "w2", d2, 2, m.w2)), constant(g, "b2", v512, 1, m.b2)),
          NULL);
  graft_op *out = op2(g, "Softmax", op2(g, "BiasAdd", op2(g, "MatMul", h, constant(g, "w3", d3, 2, m.w3)),
                                        constant(g, "b3", v10, 1, m.b3)), NULL);
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.num_threads = 1;
  opts.track_memory = 1;
  graft_session *s = NULL;
  CHECK(graft_session_new(&s, g, &opts));
  int batches[2] = {1, 64};
  for (int bi = 0; bi < 2; ++bi) {
    int batch = batches[bi];
    float *xv = malloc(sizeof(float) * 784 * (size_t)batch);
    fill(xv, 784 * (size_t)batch, 99);
    int64_t dims[2] = {batch, 784};
    graft_tensor *xt = NULL;
    CHECK(graft_tensor_new(&xt, GRAFT_FLOAT32, dims, 2, xv, sizeof(float) * 784 * (size_t)batch));
    graft_output feed = {x, 0}, fetch = {out, 0};
    int iters = batch == 1 ? 2000 : 200;
    float *h1 = malloc(sizeof(float) * 512 * (size_t)batch), *h2 = malloc(sizeof(float) * 512 * (size_t)batch);
    float *o = malloc(sizeof(float) * 10 * (size_t)batch);
    double graft_ns = 1e300, best = 1e300;
    for (int round = 0; round < kInterleavedRounds; ++round) {
      graft_ns = fmin(graft_ns, time_rounds(s, &fetch, 1, &feed, &xt, 1, iters, 1));
      double t0 = now_ns();
      for (int i = 0; i < iters; ++i) mlp_direct(&m, xv, batch, h1, h2, o);
      double dt = (now_ns() - t0) / iters;
      if (dt < best) best = dt;
    }
    /* The results agree. */
    graft_tensor *res = NULL;
    CHECK(graft_session_run(&res, s, &feed, &xt, 1, &fetch, 1, NULL, 0));
    int64_t peak = graft_session_last_peak_bytes(s);
    const float *rv = graft_tensor_data(res);
    double maxdiff = 0;
    for (int i = 0; i < 10 * batch; ++i) maxdiff = fmax(maxdiff, fabs(rv[i] - o[i]));
    graft_tensor_free(res);
    char label[64];
    snprintf(label, sizeof label, "MLP 784-512-512-10 batch %d (us)", batch);
    printf("%-44s %12.1f %14.1f %10.3f   (max |diff| %.1e)\n", label, graft_ns / 1000, best / 1000, best / graft_ns,
           maxdiff);
    size_t largest_activation = sizeof(float) * 784 * (size_t)batch;
    snprintf(label, sizeof label, "MLP batch %d peak memory (KiB)", batch);
    printf("%-44s %12.1f %14.1f %10.3f\n", label, peak / 1024.0, (weight_bytes + largest_activation) / 1024.0,
           (double)peak / (double)(weight_bytes + largest_activation));
    free(h1);
    free(h2);
    free(o);
    free(xv);
    graft_tensor_free(xt);
  }
  graft_session_free(s);
  graft_graph_free(g);
  for (int i = 0; i < 6; ++i) free(*ptrs[i]);
}

int main(void) {
  printf("%-44s %12s %14s %10s\n", "case", "graft", "baseline", "ratio");
  bench_chain();
  bench_callable();
  bench_independent(64);
  bench_independent(1024);
  bench_matmul(256);
  bench_matmul(512);
  bench_matmul(1024);
  bench_mlp();
  return 0;
}
