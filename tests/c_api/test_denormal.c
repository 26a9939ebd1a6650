/* Subnormals flushed to zero and rounding to nearest, as TensorFlow's CPU kernels run: in
 * session runs (on the calling thread and on the pool's workers), in folded constants, eagerly,
 * and in traced function calls; and the caller's own floating-point mode is the same after each
 * call as before it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#define MXCSR_MODE_BITS 0xffc0u /* the control bits; the low six are sticky exception flags */
#define MXCSR_FLUSH_BITS 0x8040u /* FTZ | DAZ */
#else
#define HAVE_MXCSR 0
#endif

#include "eager_test_util.h"
#include "kernel_test_util.h"

#define SUBNORMAL 1e-39f /* below FLT_MIN (1.18e-38) */

static unsigned mode_now(void) {
#if HAVE_MXCSR
  return _mm_getcsr() & MXCSR_MODE_BITS;
#else
  return 0;
#endif
}

/* The host thread computes with subnormals (the default mode), before and after calls. */
static void expect_host_keeps_subnormals(void) {
  volatile float x = SUBNORMAL, one = 1.0f;
  assert_true(x * one != 0.0f);
}

static void expect_zero(float v, int negative) {
  if (v != 0.0f || (signbit(v) != 0) != negative) {
    print_error("got %.9g, expected %s0\n", (double)v, negative ? "-" : "+");
    fail();
  }
}

/* a * b and FloorDiv(c, d) through a session with placeholders (nothing folds). */
static void test_session_run(void **state) {
  graft_graph *g = *state;
  unsigned before = mode_now();
  graft_op *a = make_placeholder(g, "a", GRAFT_FLOAT32, NULL, -1), *b = make_placeholder(g, "b", GRAFT_FLOAT32, NULL, -1);
  graft_op *mul = make_binary(g, "Mul", "mul", a, b);
  graft_op *div = make_binary(g, "FloorDiv", "div", a, b);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output feeds[2] = {{a, 0}, {b, 0}}, fetches[2] = {{mul, 0}, {div, 0}};
  /* subnormal input (DAZ); subnormal product (FTZ); TensorFlow's FloorDiv(-1, 3.4e38) = -0 */
  graft_tensor *vals[2] = {tensor(GRAFT_FLOAT32, D(3), (const float[]){SUBNORMAL, 1e-20f, -1}),
                           tensor(GRAFT_FLOAT32, D(3), (const float[]){1, 1e-20f, 3.4e38f})};
  graft_tensor *out[2] = {NULL, NULL};
  GT_OK(graft_session_run(out, s, feeds, vals, 2, fetches, 2, NULL, 0));
  const float *m = graft_tensor_data(out[0]), *d = graft_tensor_data(out[1]);
  expect_zero(m[0], 0);
  expect_zero(m[1], 0);
  assert_true(m[2] == -3.4e38f);
  expect_zero(d[2], 1);
  assert_int_equal(mode_now(), before);
  expect_host_keeps_subnormals();
  for (int i = 0; i < 2; ++i) {
    graft_tensor_free(vals[i]);
    graft_tensor_free(out[i]);
  }
  graft_session_free(s);
}

/* Constants folded while the run is prepared give what the kernel gives when run. */
static void test_folded_constant(void **state) {
  graft_graph *g = *state;
  unsigned before = mode_now();
  graft_op *c = make_const(g, "c", SUBNORMAL), *one = make_const(g, "one", 1.0f);
  graft_tensor *t = run(g, make_binary(g, "Mul", "mul", c, one));
  expect_zero(*(const float *)graft_tensor_data(t), 0);
  graft_tensor_free(t);
  assert_int_equal(mode_now(), before);
}

/* A run wide enough to go parallel: its steps run on the pool's worker and the calling thread. */
static void test_parallel_run(void **state) {
  graft_graph *g = *state;
  enum { N = 40 };
  unsigned before = mode_now();
  graft_op *a = make_placeholder(g, "a", GRAFT_FLOAT32, NULL, -1);
  graft_output fetches[N];
  for (int i = 0; i < N; ++i) {
    char name[16];
    snprintf(name, sizeof name, "c%d", i);
    graft_op *k = make_const(g, name, 1.0f + (float)i);  /* distinct: nothing merges */
    fetches[i] = (graft_output){make_binary(g, "Mul", NULL, a, k), 0};
  }
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.num_threads = 2;
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, &opts));
  graft_output feed = {a, 0};
  graft_tensor *out[N];
  for (int round = 0; round < 20; ++round) {
    graft_tensor *v = tensor(GRAFT_FLOAT32, SCALAR, (const float[]){1e-39f / 2});
    GT_OK(graft_session_run(out, s, &feed, &v, 1, fetches, N, NULL, 0));
    graft_tensor_free(v);
    for (int i = 0; i < N; ++i) {
      expect_zero(*(const float *)graft_tensor_data(out[i]), 0);
      graft_tensor_free(out[i]);
    }
  }
  graft_session_free(s);
  assert_int_equal(mode_now(), before);
}

static int times_one(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *one = f32(ctx, 1.0);
  graft_value *y = op2(ctx, "Mul", args[0].value, one);
  int rc = graft_value_list_append(outputs, y);
  graft_value_free(y);
  graft_value_free(one);
  return rc;
}

/* Eager ops and traced function calls. */
static void test_eager(void **state) {
  (void)state;
  unsigned before = mode_now();
  graft_context *ctx = NULL;
  GT_OK(graft_context_new(&ctx));
  graft_value *sub = f32(ctx, 1e-39), *one = f32(ctx, 1.0), *small = f32(ctx, 1e-20);
  graft_value *minus_one = f32(ctx, -1.0), *huge = f32(ctx, 3.4e38);
  int64_t n = 0;
  graft_value *r = op2(ctx, "Mul", sub, one);
  float *v = floats_of(r, &n);
  expect_zero(v[0], 0);
  free(v);
  graft_value_free(r);
  r = op2(ctx, "Mul", small, small);
  v = floats_of(r, &n);
  expect_zero(v[0], 0);
  free(v);
  graft_value_free(r);
  r = op2(ctx, "FloorDiv", minus_one, huge);
  v = floats_of(r, &n);
  expect_zero(v[0], 1);
  free(v);
  graft_value_free(r);
  assert_int_equal(mode_now(), before);
  expect_host_keeps_subnormals();

  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "times_one", times_one, NULL, NULL));
  graft_arg arg = {GRAFT_ARG_VALUE, sub, 0, 0, NULL, 0};
  int nout = 0;
  GT_OK(graft_function_call(&r, 1, &nout, f, ctx, &arg, 1));
  v = floats_of(r, &n);
  expect_zero(v[0], 0);
  free(v);
  graft_value_free(r);
  assert_int_equal(mode_now(), before);
  graft_function_free(f);

  graft_value_free(sub);
  graft_value_free(one);
  graft_value_free(small);
  graft_value_free(minus_one);
  graft_value_free(huge);
  graft_context_free(ctx);
}

/* A caller with a mode of its own (flushing, rounding toward zero) keeps it after a call, and
 * the kernels still round to nearest, as TensorFlow's. */
static void test_caller_mode_kept(void **state) {
#if HAVE_MXCSR
  graft_graph *g = *state;
  unsigned saved = _mm_getcsr();
  graft_op *a = make_placeholder(g, "a", GRAFT_FLOAT32, NULL, -1), *b = make_placeholder(g, "b", GRAFT_FLOAT32, NULL, -1);
  graft_op *y = make_binary(g, "AddV2", "y", a, b);
  const float tiny = 8.940697e-8f; /* 0.75 of 1's ulp: 1 + tiny is 1 + ulp to nearest, 1 toward zero */
  const unsigned modes[3] = {saved | MXCSR_FLUSH_BITS, saved | 0x6000u, saved | 0x6000u | MXCSR_FLUSH_BITS};
  for (int i = 0; i < 3; ++i) {
    _mm_setcsr(modes[i]);
    graft_op *fops[2] = {a, b};
    graft_tensor *vals[2] = {tensor(GRAFT_FLOAT32, SCALAR, (const float[]){1}),
                             tensor(GRAFT_FLOAT32, SCALAR, (const float[]){tiny})};
    graft_tensor *t = run_feeds(g, y, 0, 2, fops, vals);
    unsigned after = _mm_getcsr();
    _mm_setcsr(saved); /* cmocka's own checks run in the default mode */
    assert_int_equal(after & MXCSR_MODE_BITS, modes[i] & MXCSR_MODE_BITS);
    assert_true(*(const float *)graft_tensor_data(t) == 1.00000012f);
    graft_tensor_free(t);
  }
#else
  (void)state;
  skip();
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_session_run, setup, teardown),
      cmocka_unit_test_setup_teardown(test_folded_constant, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parallel_run, setup, teardown),
      cmocka_unit_test(test_eager),
      cmocka_unit_test_setup_teardown(test_caller_mode_kept, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
