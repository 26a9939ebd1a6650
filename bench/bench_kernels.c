/*
 * bench_kernels: CPU kernel throughput through a session, against a plain memcpy measured in
 * the same run. Elementwise float32 AddV2, Mul and Relu on 1M elements, and Sum over the last
 * and the first axis of a 1024x1024 float32 (constant axis). Inputs are fed through
 * placeholders so nothing is constant-folded. GB/s counts the bytes the op reads plus the
 * bytes it writes; memcpy's counts the bytes it reads plus writes (2 x the buffer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <graft/graft.h>

#include "bench_util.h"

#define N_ELEM (1024 * 1024)
#define REPS 50

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

static graft_op *axis_const(graft_graph *g, const char *name, int32_t axis) {
  graft_tensor *t = NULL;
  CHECK(graft_tensor_new(&t, GRAFT_INT32, NULL, 0, &axis, sizeof axis));
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Const", name));
  CHECK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_INT32));
  graft_op *op = NULL;
  CHECK(graft_op_desc_finish(&op, d));
  graft_tensor_free(t);
  return op;
}

static graft_tensor *filled(const int64_t *dims, int ndims, float *buf) {
  for (int i = 0; i < N_ELEM; ++i) buf[i] = (float)((i % 17) - 8) * 0.25f;
  graft_tensor *t = NULL;
  CHECK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, ndims, buf, sizeof(float) * N_ELEM));
  return t;
}

/* Best-of seconds per run of fetching op with feeds p (and q when non-NULL). */
static double time_op(graft_graph *g, graft_op *op, graft_op *p, graft_tensor *pv, graft_op *q, graft_tensor *qv) {
  graft_session *s = NULL;
  CHECK(graft_session_new(&s, g, NULL));
  graft_output feeds[2] = {{p, 0}, {q, 0}};
  graft_tensor *vals[2] = {pv, qv};
  graft_output fetch = {op, 0};
  double best = 1e30;
  for (int r = 0; r < REPS + 3; ++r) {
    graft_tensor *out = NULL;
    double t0 = now_ns();
    CHECK(graft_session_run(&out, s, feeds, vals, q ? 2 : 1, &fetch, 1, NULL, 0));
    double t = (now_ns() - t0) * 1e-9;
    graft_tensor_free(out);
    if (r >= 3 && t < best) best = t;
  }
  graft_session_free(s);
  return best;
}

static double time_memcpy(size_t bytes) {
  char *a = malloc(bytes), *b = malloc(bytes);
  memset(a, 1, bytes);
  memset(b, 2, bytes);
  double best = 1e30;
  for (int r = 0; r < REPS + 3; ++r) {
    double t0 = now_ns();
    memcpy(b, a, bytes);
    __asm__ __volatile__("" : : "r"(b) : "memory");
    double t = (now_ns() - t0) * 1e-9;
    if (r >= 3 && t < best) best = t;
  }
  free(a);
  free(b);
  return best;
}

static void row(const char *name, double bytes, double secs, double memcpy_gbs) {
  double gbs = bytes / secs * 1e-9;
  printf("%-22s %10.1f us %9.2f GB/s %8.2f x memcpy\n", name, secs * 1e6, gbs, gbs / memcpy_gbs);
}

int main(void) {
  const size_t bytes = sizeof(float) * N_ELEM;
  float *buf = malloc(bytes);
  const int64_t flat[1] = {N_ELEM};
  const int64_t square[2] = {1024, 1024};
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  graft_op *p = placeholder(g, "p", flat, 1);
  graft_op *q = placeholder(g, "q", flat, 1);
  graft_op *m = placeholder(g, "m", square, 2);
  graft_op *add = op2(g, "AddV2", p, q);
  graft_op *mul = op2(g, "Mul", p, q);
  graft_op *relu = op2(g, "Relu", p, NULL);
  graft_op *sum_last = op2(g, "Sum", m, axis_const(g, "a1", 1));
  graft_op *sum_first = op2(g, "Sum", m, axis_const(g, "a0", 0));
  graft_tensor *pv = filled(flat, 1, buf), *qv = filled(flat, 1, buf), *mv = filled(square, 2, buf);

  double tm = time_memcpy(bytes);
  double memcpy_gbs = 2.0 * (double)bytes / tm * 1e-9;
  printf("bench_kernels: best of %d runs, 1M float32 elements (4 MiB per tensor)\n", REPS);
  printf("%-22s %10.1f us %9.2f GB/s %8.2f x memcpy\n", "memcpy 4 MiB", tm * 1e6, memcpy_gbs, 1.0);
  row("AddV2 1M", 3.0 * (double)bytes, time_op(g, add, p, pv, q, qv), memcpy_gbs);
  row("Mul 1M", 3.0 * (double)bytes, time_op(g, mul, p, pv, q, qv), memcpy_gbs);
  row("Relu 1M", 2.0 * (double)bytes, time_op(g, relu, p, pv, NULL, NULL), memcpy_gbs);
  row("Sum 1024x1024 axis 1", (double)bytes + 4096.0, time_op(g, sum_last, m, mv, NULL, NULL), memcpy_gbs);
  row("Sum 1024x1024 axis 0", (double)bytes + 4096.0, time_op(g, sum_first, m, mv, NULL, NULL), memcpy_gbs);

  graft_tensor_free(pv);
  graft_tensor_free(qv);
  graft_tensor_free(mv);
  graft_graph_free(g);
  free(buf);
  return 0;
}
