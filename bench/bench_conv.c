/*
 * bench_conv: Conv2D 3x3 SAME (NHWC) through a session, the input fed via a Placeholder so
 * nothing is constant-folded, in GFLOP/s against this machine's cblas_sgemm rate on the
 * same-sized product (the im2col gemm the kernel performs), measured in the same run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>
#include <graft/graft.h>

#include "bench_util.h"

static float *filled(size_t n) {
  float *v = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) v[i] = (float)((int)(i % 13) - 6) / 16.0f;
  return v;
}

/* Best-of time in ns of reps runs of the conv through a session. */
static double time_conv(int n, int h, int w, int c, int oc, int reps) {
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  int64_t xd[4] = {n, h, w, c}, fd[4] = {3, 3, c, oc};
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Placeholder", "x"));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", xd, 4));
  graft_op *x = NULL;
  CHECK(graft_op_desc_finish(&x, d));
  size_t nf = (size_t)(9 * c * oc), nx = (size_t)n * h * w * c;
  float *fv = filled(nf), *xv = filled(nx);
  graft_tensor *ft = NULL;
  CHECK(graft_tensor_new(&ft, GRAFT_FLOAT32, fd, 4, fv, nf * sizeof(float)));
  CHECK(graft_op_desc_new(&d, g, "Const", "f"));
  CHECK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", ft));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *f = NULL;
  CHECK(graft_op_desc_finish(&f, d));
  graft_tensor_free(ft);
  CHECK(graft_op_desc_new(&d, g, "Conv2D", "conv"));
  CHECK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  CHECK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  const int64_t strides[4] = {1, 1, 1, 1};
  CHECK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, 4));
  CHECK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", "SAME", 4));
  graft_op *conv = NULL;
  CHECK(graft_op_desc_finish(&conv, d));
  graft_session *s = NULL;
  CHECK(graft_session_new(&s, g, NULL));
  graft_output fetch = {conv, 0}, feed = {x, 0};
  double best = 1e300;
  for (int r = 0; r < reps + 1; ++r) {
    graft_tensor *xt = NULL;
    CHECK(graft_tensor_new(&xt, GRAFT_FLOAT32, xd, 4, xv, nx * sizeof(float)));
    graft_tensor *out = NULL;
    double t0 = now_ns();
    CHECK(graft_session_run(&out, s, &feed, &xt, 1, &fetch, 1, NULL, 0));
    double t = now_ns() - t0;
    if (r > 0 && t < best) best = t; /* the first run prepares the kernels */
    graft_tensor_free(out);
    graft_tensor_free(xt);
  }
  graft_session_free(s);
  graft_graph_free(g);
  free(fv);
  free(xv);
  return best;
}

/* Best-of time in ns of cblas_sgemm m x n x k. */
static double time_sgemm(int m, int n, int k, int reps) {
  float *a = filled((size_t)m * k), *b = filled((size_t)k * n), *c = malloc((size_t)m * n * sizeof(float));
  double best = 1e300;
  for (int r = 0; r < reps + 1; ++r) {
    double t0 = now_ns();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
    double t = now_ns() - t0;
    if (r > 0 && t < best) best = t;
  }
  free(a);
  free(b);
  free(c);
  return best;
}

int main(void) {
  struct {
    const char *name;
    int n, h, w, c, oc, reps;
  } cases[] = {
      {"Conv2D 3x3 SAME 1x56x56x64 -> 64", 1, 56, 56, 64, 64, 20},
      {"Conv2D 3x3 SAME 32x28x28x128 -> 128", 32, 28, 28, 128, 128, 3},
  };
  printf("%-38s %12s %12s %14s %14s %7s\n", "case", "conv ms", "sgemm ms", "conv GFLOP/s", "sgemm GFLOP/s", "ratio");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    int m = cases[i].n * cases[i].h * cases[i].w, k = 9 * cases[i].c, nn = cases[i].oc;
    double flops = 2.0 * m * (double)k * nn;
    double tg = time_sgemm(m, nn, k, cases[i].reps);
    double tc = time_conv(cases[i].n, cases[i].h, cases[i].w, cases[i].c, cases[i].oc, cases[i].reps);
    printf("%-38s %12.3f %12.3f %14.2f %14.2f %7.3f\n", cases[i].name, tc / 1e6, tg / 1e6, flops / tc, flops / tg,
           tg / tc);
  }
  return 0;
}
