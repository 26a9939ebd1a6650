/*
 * bench_opencl: the OpenCL device (issue #18) against the CPU path, measured in the same run,
 * through the public C API only: each case builds one graph twice, once with every op placed on
 * the OpenCL device (graft_op_desc_set_device) and once unplaced (the CPU), and runs it through a
 * session. Every run feeds host tensors and fetches host tensors, so every device figure includes
 * the copies in and out and waiting for the device's queue to finish.
 *
 *   bench_opencl [--device /device:GPU:0] [--large] [--quick]
 *
 * Cases:
 *   - first runs: the process's first AddV2 and MatMul runs on each device (the device's
 *     programs built or loaded from the disk cache; CLBlast's GEMM compiled), in ms.
 *   - latency: a 1-element AddV2 run (feed, launch, finish, fetch), per run; a chain of 100
 *     1-element AddV2, per op (the run's time / 100: what each further tiny op costs, launch
 *     and the executor's step included).
 *   - MatMul n x n float32, n = 512, 1024 (and 4096 with --large: minutes on PoCL): a chain of
 *     4 MatMuls (X <- X B) so that the two copies in and one out are spread over 4 products;
 *     GFLOP/s, device vs CPU. Also one fed MatMul, copies included.
 *   - elementwise: AddV2 of 16M floats and a scalar, GB/s (read + write), from the time of a chain
 *     of 9 adds minus a chain of 1; against the host<->device copy: the 1-add run minus one add
 *     is the copy in and out of 64 MiB each.
 *   - the MLP 784-512-512-10 (MatMul, BiasAdd, Relu; Softmax last) batch 64, weights as
 *     constants, per run on each device.
 *
 * The ratio column is always the device's speed over the CPU's: above 1, the device is faster
 * (for times, CPU time / device time). With no OpenCL device (none installed, or
 * GRAFT_OPENCL=0) it says so and exits 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graft/graft.h>

#include "bench_util.h"

static const char *device; /* "/device:OPENCL:0": where the device side's ops go */
static int quick;          /* --quick: fewer rounds (a smoke run) */

static graft_op *finish(graft_op_desc *d, const char *on) {
  if (on) CHECK(graft_op_desc_set_device(d, on));
  graft_op *op = NULL;
  CHECK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *constant(graft_graph *g, const int64_t *dims, int ndims, const float *values, const char *on) {
  int64_t n = 1;
  for (int i = 0; i < ndims; ++i) n *= dims[i];
  graft_tensor *t = NULL;
  CHECK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, ndims, values, sizeof(float) * (size_t)n));
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Const", NULL));
  CHECK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_tensor_free(t);
  return finish(d, on);
}

static graft_op *placeholder(graft_graph *g, const int64_t *dims, int ndims) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Placeholder", NULL));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, ndims));
  return finish(d, NULL);
}

static graft_op *op(graft_graph *g, const char *type, graft_op *a, graft_op *b, const char *on) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, type, NULL));
  CHECK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  if (b) CHECK(graft_op_desc_add_input(d, (graft_output){b, 0}));
  return finish(d, on);
}

static void fill(float *v, size_t n, unsigned seed, float scale) {
  unsigned s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = scale * ((float)(s >> 8) / 16777216.0f - 0.5f);
  }
}

static graft_tensor *tensor(const int64_t *dims, int ndims, const float *values) {
  int64_t n = 1;
  for (int i = 0; i < ndims; ++i) n *= dims[i];
  graft_tensor *t = NULL;
  CHECK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, ndims, values, sizeof(float) * (size_t)n));
  return t;
}

/* A session over g, with one feed and one fetch: its runs timed. */
struct runner {
  graft_session *s;
  graft_output feed, fetch;
  graft_tensor *value;
};

static struct runner runner_new(graft_graph *g, graft_op *x, graft_op *y, graft_tensor *value) {
  struct runner r = {NULL, {x, 0}, {y, 0}, value};
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.num_threads = 1;
  CHECK(graft_session_new(&r.s, g, &opts));
  return r;
}

static graft_tensor *run_once(const struct runner *r) {
  graft_tensor *out = NULL;
  CHECK(graft_session_run(&out, r->s, &r->feed, (graft_tensor *const *)&r->value, 1, &r->fetch, 1, NULL, 0));
  return out;
}

/* One round: iters runs, ns per run. */
static double round_ns(const struct runner *r, int iters) {
  double t0 = now_ns();
  for (int i = 0; i < iters; ++i) graft_tensor_free(run_once(r));
  return (now_ns() - t0) / iters;
}

/* Best ns per run of a and b, their rounds alternated (a shared VM's slow spells land on both);
 * iterations sized so that a round of each takes about budget_ms. The first run (preparing the
 * run, building the device's programs) is not timed. */
static void time_pair(const struct runner *a, const struct runner *b, double budget_ms, double *a_ns, double *b_ns) {
  graft_tensor_free(run_once(a));
  graft_tensor_free(run_once(b));
  double ta = round_ns(a, 1), tb = round_ns(b, 1);
  int ia = (int)fmax(1, fmin(100000, budget_ms * 1e6 / ta)), ib = (int)fmax(1, fmin(100000, budget_ms * 1e6 / tb));
  int rounds = quick ? 2 : 5;
  *a_ns = *b_ns = 1e300;
  for (int k = 0; k < rounds; ++k) {
    *a_ns = fmin(*a_ns, round_ns(a, ia));
    if (b) *b_ns = fmin(*b_ns, round_ns(b, ib));
  }
}

static void runner_free(struct runner *r) { graft_session_free(r->s); }

static double max_abs_diff(const graft_tensor *a, const graft_tensor *b) {
  const float *x = graft_tensor_data(a), *y = graft_tensor_data(b);
  int64_t n = graft_tensor_num_elements(a);
  double m = 0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs((double)x[i] - (double)y[i]));
  return m;
}

static void row(const char *label, double dev, double cpu, double ratio, const char *note) {
  printf("%-50s %12.2f %12.2f %9.3f  %s\n", label, dev, cpu, ratio, note ? note : "");
}

/* A chain of n AddV2 (x + 1) on one device (on: NULL for the CPU) over a fed tensor of dims. */
static graft_op *add_chain(graft_graph *g, graft_op *x, int n, const char *on) {
  float one = 1.0f;
  graft_op *c = constant(g, NULL, 0, &one, on);
  graft_op *cur = x;
  for (int i = 0; i < n; ++i) cur = op(g, "AddV2", cur, c, on);
  return cur;
}

static void bench_latency(void) {
  int64_t dims[1] = {1};
  float v = 0;
  graft_tensor *xt = tensor(dims, 1, &v);
  int lengths[2] = {1, 100};
  for (int li = 0; li < 2; ++li) {
    int n = lengths[li];
    graft_graph *g = NULL;
    CHECK(graft_graph_new(&g));
    graft_op *x = placeholder(g, dims, 1);
    graft_op *yd = add_chain(g, x, n, device), *yc = add_chain(g, x, n, NULL);
    struct runner d = runner_new(g, x, yd, xt), c = runner_new(g, x, yc, xt);
    double dn, cn;
    time_pair(&d, &c, 200, &dn, &cn);
    graft_tensor *rd = run_once(&d);
    if (((const float *)graft_tensor_data(rd))[0] != (float)n) {
      fprintf(stderr, "bench_opencl: the chain of %d adds gave %g\n", n, ((const float *)graft_tensor_data(rd))[0]);
      exit(1);
    }
    graft_tensor_free(rd);
    if (n == 1) {
      row("1-element AddV2 run: feed, launch, finish, fetch (us)", dn / 1e3, cn / 1e3, cn / dn, "");
    } else {
      row("chain of 100 1-element AddV2, per op (us)", dn / 1e3 / n, cn / 1e3 / n, cn / dn, "");
    }
    runner_free(&d);
    runner_free(&c);
    graft_graph_free(g);
  }
  graft_tensor_free(xt);
}

/* The first runs in the process, before anything else touched the device: a 64-element AddV2
 * (Graft's elementwise program: built, or loaded from the disk cache) and a 64x64 MatMul
 * (CLBlast compiles its GEMM kernels for the device and precision on first use, once per
 * process: it keeps no disk cache), against a second run of each. */
static void bench_first_runs(void) {
  int64_t dims[2] = {64, 64};
  float *v = calloc(64 * 64, sizeof(float));
  for (int k = 0; k < 2; ++k) {
    int is_mm = k == 1;
    graft_tensor *xt = tensor(dims, is_mm ? 2 : 1, v);
    graft_graph *g = NULL;
    CHECK(graft_graph_new(&g));
    graft_op *x = placeholder(g, dims, is_mm ? 2 : 1);
    graft_op *yd = is_mm ? op(g, "MatMul", x, x, device) : add_chain(g, x, 1, device);
    graft_op *yc = is_mm ? op(g, "MatMul", x, x, NULL) : add_chain(g, x, 1, NULL);
    struct runner d = runner_new(g, x, yd, xt), c = runner_new(g, x, yc, xt);
    double t0 = now_ns();
    graft_tensor_free(run_once(&d));
    double first_d = now_ns() - t0;
    t0 = now_ns();
    graft_tensor_free(run_once(&c));
    double first_c = now_ns() - t0;
    double second_d = round_ns(&d, 1), second_c = round_ns(&c, 1);
    char label[96], note[96];
    snprintf(label, sizeof label, "first %s run in the process (ms)", is_mm ? "64x64 MatMul" : "64-element AddV2");
    snprintf(note, sizeof note, "(second run: %.3f / %.3f ms)", second_d / 1e6, second_c / 1e6);
    row(label, first_d / 1e6, first_c / 1e6, first_c / first_d, note);
    runner_free(&d);
    runner_free(&c);
    graft_graph_free(g);
    graft_tensor_free(xt);
  }
  free(v);
}

/* X <- X B, `chain` times, n x n; B scaled so that values stay near 1. */
static void bench_matmul(int n, int chain) {
  int64_t dims[2] = {n, n};
  size_t count = (size_t)n * (size_t)n;
  float *a = malloc(sizeof(float) * count), *b = malloc(sizeof(float) * count);
  fill(a, count, 1, 2.0f);
  fill(b, count, 2, 2.0f * sqrtf(3.0f / (float)n));
  graft_tensor *xt = tensor(dims, 2, a);
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  graft_op *x = placeholder(g, dims, 2);
  graft_op *bd = constant(g, dims, 2, b, device), *bc = constant(g, dims, 2, b, NULL);
  graft_op *yd = x, *yc = x;
  for (int i = 0; i < chain; ++i) {
    yd = op(g, "MatMul", yd, bd, device);
    yc = op(g, "MatMul", yc, bc, NULL);
  }
  graft_op *one_d = op(g, "MatMul", x, bd, device), *one_c = op(g, "MatMul", x, bc, NULL);
  double flops = 2.0 * n * (double)n * n;
  double budget = n >= 4096 ? 1 : 300;
  struct runner d = runner_new(g, x, yd, xt), c = runner_new(g, x, yc, xt);
  double dn, cn;
  time_pair(&d, &c, budget, &dn, &cn);
  graft_tensor *rd = run_once(&d), *rc = run_once(&c);
  char label[96], note[64];
  snprintf(note, sizeof note, "(max |diff| %.1e)", max_abs_diff(rd, rc));
  snprintf(label, sizeof label, "MatMul %d float32, chain of %d (GFLOP/s)", n, chain);
  row(label, chain * flops / dn, chain * flops / cn, cn / dn, note);
  graft_tensor_free(rd);
  graft_tensor_free(rc);
  runner_free(&d);
  runner_free(&c);
  d = runner_new(g, x, one_d, xt);
  c = runner_new(g, x, one_c, xt);
  time_pair(&d, &c, budget, &dn, &cn);
  snprintf(label, sizeof label, "MatMul %d float32, one, copies in+out (GFLOP/s)", n);
  row(label, flops / dn, flops / cn, cn / dn, "");
  runner_free(&d);
  runner_free(&c);
  graft_graph_free(g);
  graft_tensor_free(xt);
  free(a);
  free(b);
}

/* AddV2 of 16M floats and a scalar: kernel GB/s from the difference of a chain of 9 and of 1;
 * copies from the 1-add run minus one add. */
static void bench_elementwise(void) {
  enum { kLong = 9 };
  const int64_t n = (int64_t)16 << 20;
  int64_t dims[1] = {n};
  float *v = malloc(sizeof(float) * (size_t)n);
  fill(v, (size_t)n, 3, 1.0f);
  graft_tensor *xt = tensor(dims, 1, v);
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  graft_op *x = placeholder(g, dims, 1);
  double t[2][2]; /* [device, cpu][chain 1, chain kLong] */
  int lengths[2] = {1, kLong};
  for (int li = 0; li < 2; ++li) {
    struct runner d = runner_new(g, x, add_chain(g, x, lengths[li], device), xt);
    struct runner c = runner_new(g, x, add_chain(g, x, lengths[li], NULL), xt);
    time_pair(&d, &c, 500, &t[0][li], &t[1][li]);
    runner_free(&d);
    runner_free(&c);
  }
  double bytes = 2.0 * sizeof(float) * (double)n; /* each add reads n floats and writes n */
  double add_d = (t[0][1] - t[0][0]) / (kLong - 1), add_c = (t[1][1] - t[1][0]) / (kLong - 1);
  double kernel_d = bytes / add_d, kernel_c = bytes / add_c;
  row("AddV2 16M float32, GB/s (read + write)", kernel_d, kernel_c, kernel_d / kernel_c, "");
  /* The rest of the 1-add run: feed to the device and fetch back 64 MiB each (on the CPU: the
   * run's own cost, no copy). */
  double copy_ns = t[0][0] - add_d;
  double copy_gbs = bytes / copy_ns;
  row("host->device + device->host copy of 64 MiB, GB/s", copy_gbs, NAN, NAN, "");
  printf("%-50s %12.3f   (device AddV2 GB/s / copy GB/s)\n", "elementwise vs copy bandwidth", kernel_d / copy_gbs);
  graft_graph_free(g);
  graft_tensor_free(xt);
  free(v);
}

/* The MLP 784-512-512-10 (MatMul, BiasAdd, Relu; Softmax), weights as constants. */
static graft_op *mlp(graft_graph *g, graft_op *x, float *const *w, const char *on) {
  int64_t d1[2] = {784, 512}, d2[2] = {512, 512}, d3[2] = {512, 10}, v512[1] = {512}, v10[1] = {10};
  graft_op *h = op(g, "MatMul", x, constant(g, d1, 2, w[0], on), on);
  h = op(g, "Relu", op(g, "BiasAdd", h, constant(g, v512, 1, w[1], on), on), NULL, on);
  h = op(g, "MatMul", h, constant(g, d2, 2, w[2], on), on);
  h = op(g, "Relu", op(g, "BiasAdd", h, constant(g, v512, 1, w[3], on), on), NULL, on);
  h = op(g, "MatMul", h, constant(g, d3, 2, w[4], on), on);
  h = op(g, "BiasAdd", h, constant(g, v10, 1, w[5], on), on);
  return op(g, "Softmax", h, NULL, on);
}

static void bench_mlp(int batch) {
  size_t sizes[6] = {784 * 512, 512, 512 * 512, 512, 512 * 10, 10};
  float *w[6];
  for (int i = 0; i < 6; ++i) {
    w[i] = malloc(sizes[i] * sizeof(float));
    fill(w[i], sizes[i], (unsigned)(10 + i), 0.1f);
  }
  int64_t dims[2] = {batch, 784};
  float *xv = malloc(sizeof(float) * 784 * (size_t)batch);
  fill(xv, 784 * (size_t)batch, 99, 1.0f);
  graft_tensor *xt = tensor(dims, 2, xv);
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  int64_t xdims[2] = {-1, 784};
  graft_op *x = placeholder(g, xdims, 2);
  struct runner d = runner_new(g, x, mlp(g, x, w, device), xt), c = runner_new(g, x, mlp(g, x, w, NULL), xt);
  double dn, cn;
  time_pair(&d, &c, 300, &dn, &cn);
  graft_tensor *rd = run_once(&d), *rc = run_once(&c);
  char label[96], note[64];
  snprintf(note, sizeof note, "(max |diff| %.1e)", max_abs_diff(rd, rc));
  snprintf(label, sizeof label, "MLP 784-512-512-10 batch %d (us per run)", batch);
  row(label, dn / 1e3, cn / 1e3, cn / dn, note);
  graft_tensor_free(rd);
  graft_tensor_free(rc);
  runner_free(&d);
  runner_free(&c);
  graft_graph_free(g);
  graft_tensor_free(xt);
  free(xv);
  for (int i = 0; i < 6; ++i) free(w[i]);
}

/* The first OpenCL device of the list ("/device:GPU:0" before "/device:OPENCL:0"), described. */
static char found[128];
static const char *find_device(void) {
  graft_device_list *list = NULL;
  CHECK(graft_device_list_new(&list));
  const char *types[2] = {"GPU", "OPENCL"};
  for (int t = 0; t < 2 && found[0] == '\0'; ++t) {
    for (int64_t i = 0; i < graft_device_list_count(list); ++i) {
      const char *name, *type, *model, *driver;
      int64_t mem, units;
      CHECK(graft_device_list_type(&type, list, i));
      if (strcmp(type, types[t]) != 0) continue;
      CHECK(graft_device_list_name(&name, list, i));
      CHECK(graft_device_list_model(&model, list, i));
      CHECK(graft_device_list_driver(&driver, list, i));
      CHECK(graft_device_list_memory_bytes(&mem, list, i));
      CHECK(graft_device_list_compute_units(&units, list, i));
      const char *shortname = strstr(name, "/device:");
      snprintf(found, sizeof found, "%s", shortname ? shortname : name);
      printf("device: %s: %s (%s), %.1f GiB, %lld compute units\n", found, model, driver, (double)mem / (1 << 30),
             (long long)units);
      break;
    }
  }
  const char *cpu_model;
  int64_t cpu_units;
  CHECK(graft_device_list_model(&cpu_model, list, 0));
  CHECK(graft_device_list_compute_units(&cpu_units, list, 0));
  printf("cpu:    /device:CPU:0: %s, %lld hardware threads\n", cpu_model, (long long)cpu_units);
  graft_device_list_free(list);
  return found[0] ? found : NULL;
}

int main(int argc, char **argv) {
  int large = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--large") == 0) {
      large = 1;
    } else if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      device = argv[++i];
    } else {
      fprintf(stderr, "usage: bench_opencl [--device /device:TYPE:N] [--large] [--quick]\n");
      return 2;
    }
  }
  const char *first = find_device();
  if (device == NULL) device = first;
  if (device == NULL) {
    printf("no OpenCL device (none installed, or GRAFT_OPENCL=0): nothing to measure\n");
    return 0;
  }
  printf("%-50s %12s %12s %9s\n", "case", device, "CPU", "ratio");
  bench_first_runs();
  bench_latency();
  bench_matmul(512, 4);
  bench_matmul(1024, 4);
  if (large) bench_matmul(4096, 2);
  bench_elementwise();
  bench_mlp(64);
  return 0;
}
