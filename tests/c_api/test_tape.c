/* Gradient tapes (graft/tape.h): watched tensors and variables, persistent tapes, nested tapes
 * (second derivatives), pausing, calls of traced functions on a tape, a tape inside a traced
 * function, matrices and broadcasting, and the errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eager_test_util.h"

static int setup(void **state) {
  graft_context *ctx = NULL;
  GT_OK(graft_context_new(&ctx));
  *state = ctx;
  return 0;
}

static int teardown(void **state) {
  graft_context_free(*state);
  return 0;
}

static graft_value *grad1(graft_tape *tape, const graft_value *target, const graft_value *source) {
  graft_value *g = NULL;
  GT_OK(graft_tape_gradient(&g, tape, &target, 1, &source, 1, NULL, GRAFT_UNCONNECTED_NONE));
  return g;
}

static void test_watched_tensor(void **state) {
  graft_context *ctx = *state;
  graft_value *x = f32(ctx, 3), *other = f32(ctx, 5);
  graft_tape *tape = NULL;
  GT_OK(graft_tape_new(&tape, ctx, 0, 1));
  assert_true(graft_tape_is_recording(tape));
  GT_OK(graft_tape_watch(tape, x));
  graft_value *y = op2(ctx, "Mul", x, x);  /* x^2 */
  graft_value *z = op2(ctx, "Mul", y, other); /* 5 x^2 */
  GT_OK(graft_tape_stop(tape));
  assert_false(graft_tape_is_recording(tape));
  graft_value *g[2] = {NULL, NULL};
  const graft_value *sources[2] = {x, other};
  GT_OK(graft_tape_gradient(g, tape, (const graft_value *const[]){z}, 1, sources, 2, NULL, GRAFT_UNCONNECTED_NONE));
  expect_floats(g[0], (const float[]){30}, 1); /* 10 x */
  assert_null(g[1]);                            /* not watched: no gradient, as TensorFlow */
  graft_value_free(g[0]);
  /* Not persistent: one gradient call only. */
  GT_ERR(GRAFT_EPRECONDITION, graft_tape_gradient(g, tape, (const graft_value *const[]){z}, 1, sources, 1, NULL,
                                                  GRAFT_UNCONNECTED_NONE),
         "persistent");
  graft_tape_free(tape);
  graft_value_free(x);
  graft_value_free(other);
  graft_value_free(y);
  graft_value_free(z);
}

static void test_persistent_and_unconnected_zero(void **state) {
  graft_context *ctx = *state;
  graft_value *x = f32(ctx, 3), *u = f32s(ctx, (const double[]){1, 2}, (const int64_t[]){2}, 1);
  graft_tape *tape = NULL;
  GT_OK(graft_tape_new(&tape, ctx, 1, 1));
  GT_OK(graft_tape_watch(tape, x));
  GT_OK(graft_tape_watch(tape, u));
  graft_value *y = op2(ctx, "Square", x, NULL);
  graft_value *z = op2(ctx, "Square", y, NULL); /* x^4 */
  graft_value *dz = grad1(tape, z, x);
  expect_floats(dz, (const float[]){108}, 1); /* 4 x^3 */
  graft_value *dy = grad1(tape, y, x);
  expect_floats(dy, (const float[]){6}, 1);
  graft_value *dyy = grad1(tape, y, y); /* a target that is its own source */
  expect_floats(dyy, (const float[]){1}, 1);
  graft_value *gz = NULL;
  GT_OK(graft_tape_gradient(&gz, tape, (const graft_value *const[]){z}, 1, (const graft_value *const[]){u}, 1, NULL,
                            GRAFT_UNCONNECTED_ZERO));
  expect_floats(gz, (const float[]){0, 0}, 2);
  graft_value *gn = grad1(tape, z, u);
  assert_null(gn);
  graft_tape_free(tape);
  graft_value *vals[] = {x, u, y, z, dz, dy, dyy, gz};
  for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); ++i) graft_value_free(vals[i]);
}

static void test_variables_watched_when_read(void **state) {
  graft_context *ctx = *state;
  graft_value *init = f32s(ctx, (const double[]){1, 2, 3}, (const int64_t[]){3}, 1);
  graft_value *v = NULL;
  GT_OK(graft_variable_new(&v, ctx, init, "w"));
  graft_value *three = f32(ctx, 3);
  for (int watch = 1; watch >= 0; --watch) {
    graft_tape *tape = NULL;
    GT_OK(graft_tape_new(&tape, ctx, 0, watch));
    graft_value *r = NULL;
    GT_OK(graft_variable_read(&r, ctx, v));
    graft_value *sq = op2(ctx, "Square", r, NULL);
    graft_value *y = op2(ctx, "Mul", sq, three); /* 3 v^2 */
    assert_int_equal(graft_tape_num_watched_variables(tape), watch);
    graft_value *g = grad1(tape, y, v);
    if (watch) {
      expect_floats(g, (const float[]){6, 12, 18}, 3);
      graft_value *w = NULL;
      GT_OK(graft_tape_watched_variable(&w, tape, 0));
      graft_value_free(w);
      GT_ERR(GRAFT_ERANGE, graft_tape_watched_variable(&w, tape, 1), "out of range");
    } else {
      assert_null(g);
    }
    graft_value_free(g);
    graft_value_free(r);
    graft_value_free(sq);
    graft_value_free(y);
    graft_tape_free(tape);
  }
  /* A non-trainable variable is not watched when read, only when watched explicitly. */
  assert_true(graft_variable_is_trainable(v));
  GT_OK(graft_variable_set_trainable(v, 0));
  assert_false(graft_variable_is_trainable(v));
  for (int explicit_watch = 0; explicit_watch <= 1; ++explicit_watch) {
    graft_tape *tape = NULL;
    GT_OK(graft_tape_new(&tape, ctx, 0, 1));
    if (explicit_watch) GT_OK(graft_tape_watch(tape, v));
    graft_value *r = NULL;
    GT_OK(graft_variable_read(&r, ctx, v));
    graft_value *y = op2(ctx, "Mul", r, three);
    assert_int_equal(graft_tape_num_watched_variables(tape), explicit_watch);
    graft_value *g = grad1(tape, y, v);
    if (explicit_watch) {
      expect_floats(g, (const float[]){3, 3, 3}, 3);
    } else {
      assert_null(g);
    }
    graft_value_free(g);
    graft_value_free(r);
    graft_value_free(y);
    graft_tape_free(tape);
  }
  GT_ERR(GRAFT_EINVAL, graft_variable_set_trainable(three, 1), "graft_variable_set_trainable", "not a variable");
  assert_false(graft_variable_is_trainable(three));
  graft_value_free(three);
  graft_value_free(v);
  graft_value_free(init);
}

static void test_nested_tapes_second_derivative(void **state) {
  graft_context *ctx = *state;
  graft_value *x = f32(ctx, 3);
  graft_tape *outer = NULL, *inner = NULL;
  GT_OK(graft_tape_new(&outer, ctx, 0, 1));
  GT_OK(graft_tape_watch(outer, x));
  GT_OK(graft_tape_new(&inner, ctx, 0, 1));
  GT_OK(graft_tape_watch(inner, x));
  graft_value *x2 = op2(ctx, "Square", x, NULL);
  graft_value *y = op2(ctx, "Mul", x2, x); /* x^3 */
  graft_value *t = op2(ctx, "Sin", x, NULL);
  graft_value *s = op2(ctx, "AddV2", y, t); /* x^3 + sin x */
  graft_value *dy = grad1(inner, s, x);      /* 3x^2 + cos x, recorded by outer */
  graft_tape_free(inner);
  expect_floats(dy, (const float[]){(float)(27 + cos(3.0))}, 1);
  graft_value *d2y = grad1(outer, dy, x); /* 6x - sin x */
  expect_floats(d2y, (const float[]){(float)(18 - sin(3.0))}, 1);
  graft_tape_free(outer);
  graft_value *vals[] = {x, x2, y, t, s, dy, d2y};
  for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); ++i) graft_value_free(vals[i]);
}

static void test_stop_recording(void **state) {
  graft_context *ctx = *state;
  graft_value *x = f32(ctx, 2);
  graft_tape *tape = NULL;
  GT_OK(graft_tape_new(&tape, ctx, 1, 1));
  GT_OK(graft_tape_watch(tape, x));
  graft_value *y = op2(ctx, "Square", x, NULL);
  GT_OK(graft_tape_stop(tape));
  GT_ERR(GRAFT_EPRECONDITION, graft_tape_stop(tape), "not recording");
  graft_value *z = op2(ctx, "Mul", y, x); /* not recorded */
  GT_OK(graft_tape_start(tape));
  GT_ERR(GRAFT_EPRECONDITION, graft_tape_start(tape), "already recording");
  graft_value *w = op2(ctx, "Mul", y, x); /* recorded */
  graft_value *gz = grad1(tape, z, x);
  assert_null(gz);
  graft_value *gw = grad1(tape, w, x);
  expect_floats(gw, (const float[]){12}, 1); /* 3 x^2 */
  graft_tape_free(tape);
  graft_value *vals[] = {x, y, z, w, gw};
  for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); ++i) graft_value_free(vals[i]);
}

static void test_matmul_broadcast_and_output_gradients(void **state) {
  graft_context *ctx = *state;
  graft_value *a = f32s(ctx, (const double[]){1, 2, 3, 4, 5, 6}, (const int64_t[]){2, 3}, 2);
  graft_value *b = f32s(ctx, (const double[]){1, 0, 0, 1, 1, 1}, (const int64_t[]){3, 2}, 2);
  graft_value *bias = f32s(ctx, (const double[]){10, 20}, (const int64_t[]){2}, 1);
  graft_tape *tape = NULL;
  GT_OK(graft_tape_new(&tape, ctx, 0, 1));
  GT_OK(graft_tape_watch(tape, a));
  GT_OK(graft_tape_watch(tape, bias));
  graft_value *m = op2(ctx, "MatMul", a, b);    /* [2,2] */
  graft_value *y = op2(ctx, "AddV2", m, bias);  /* bias broadcast over rows */
  graft_value *dy = f32s(ctx, (const double[]){1, 2, 3, 4}, (const int64_t[]){2, 2}, 2);
  graft_value *g[2] = {NULL, NULL};
  GT_OK(graft_tape_gradient(g, tape, (const graft_value *const[]){y}, 1, (const graft_value *const[]){a, bias}, 2,
                            (const graft_value *const[]){dy}, GRAFT_UNCONNECTED_NONE));
  /* da = dy b^T, dbias = sum of dy over rows. */
  expect_floats(g[0], (const float[]){1, 2, 3, 3, 4, 7}, 6);
  expect_floats(g[1], (const float[]){4, 6}, 2);
  graft_tape_free(tape);
  graft_value *vals[] = {a, b, bias, m, y, dy, g[0], g[1]};
  for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); ++i) graft_value_free(vals[i]);
}

/* f(x) = x^2 + sin(x), traced, then called eagerly on a tape. */
static int square_sin(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)ud;
  (void)nargs;
  graft_value *sq = op2(ctx, "Square", args[0].value, NULL);
  graft_value *s = op2(ctx, "Sin", args[0].value, NULL);
  graft_value *sum = op2(ctx, "AddV2", sq, s);
  int rc = graft_value_list_append(outputs, sum);
  graft_value_free(sq);
  graft_value_free(s);
  graft_value_free(sum);
  return rc;
}

static void test_function_call_on_tape(void **state) {
  graft_context *ctx = *state;
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "square_sin", square_sin, NULL, NULL));
  graft_value *x = f32(ctx, 0.5);
  graft_arg arg = {GRAFT_ARG_VALUE, x, 0, 0, NULL, 0};
  graft_value *warm = NULL;
  int n = 0;
  GT_OK(graft_function_call(&warm, 1, &n, f, ctx, &arg, 1)); /* traced and run without a tape */
  graft_tape *tape = NULL;
  GT_OK(graft_tape_new(&tape, ctx, 0, 1));
  GT_OK(graft_tape_watch(tape, x));
  graft_value *y = NULL;
  GT_OK(graft_function_call(&y, 1, &n, f, ctx, &arg, 1));
  graft_value *g = grad1(tape, y, x);
  int64_t k = 0;
  float *a = floats_of(warm, &k), *b = floats_of(y, &k);
  assert_float_equal(a[0], b[0], 1e-7); /* the same value either way */
  free(a);
  free(b);
  expect_floats(g, (const float[]){(float)(2 * 0.5 + cos(0.5))}, 1);
  assert_int_equal(graft_function_tracing_count(f), 1);
  graft_tape_free(tape);
  graft_value *vals[] = {x, warm, y, g};
  for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); ++i) graft_value_free(vals[i]);
  graft_function_free(f);
}

/* g(x) = d/dx (x^3), computed with a tape inside the traced function. */
static int cube_grad(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)ud;
  (void)nargs;
  graft_tape *tape = NULL;
  int rc = graft_tape_new(&tape, ctx, 0, 1);
  if (rc != GRAFT_OK) return rc;
  const graft_value *x = args[0].value;
  graft_value *x2 = op2(ctx, "Square", x, NULL);
  graft_value *y = op2(ctx, "Mul", x2, x);
  graft_value *g = NULL;
  rc = graft_tape_gradient(&g, tape, (const graft_value *const[]){y}, 1, &x, 1, NULL, GRAFT_UNCONNECTED_NONE);
  if (rc == GRAFT_OK) {
    assert_true(graft_value_is_symbolic(g));
    rc = graft_value_list_append(outputs, g);
  }
  graft_tape_free(tape);
  graft_value_free(x2);
  graft_value_free(y);
  graft_value_free(g);
  return rc;
}

static void test_tape_in_traced_function(void **state) {
  graft_context *ctx = *state;
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "cube_grad", cube_grad, NULL, NULL));
  graft_value *x = f32s(ctx, (const double[]){1, 2}, (const int64_t[]){2}, 1);
  graft_arg arg = {GRAFT_ARG_VALUE, x, 0, 0, NULL, 0};
  graft_value *y = NULL;
  int n = 0;
  GT_OK(graft_function_call(&y, 1, &n, f, ctx, &arg, 1));
  expect_floats(y, (const float[]){3, 12}, 2);
  graft_value_free(y);
  graft_value_free(x);
  graft_function_free(f);
}

static void test_errors(void **state) {
  graft_context *ctx = *state;
  graft_value *x = f32(ctx, 2), *i = i32(ctx, 3);
  graft_tape *tape = NULL;
  GT_ERR(GRAFT_EINVAL, graft_tape_new(NULL, ctx, 0, 1), "out");
  GT_ERR(GRAFT_EINVAL, graft_tape_new(&tape, NULL, 0, 1), "ctx");
  GT_OK(graft_tape_new(&tape, ctx, 1, 1));
  GT_ERR(GRAFT_EINVAL, graft_tape_watch(tape, NULL), "value");
  GT_OK(graft_tape_watch(tape, i)); /* integers are ignored, as TensorFlow */
  GT_OK(graft_tape_watch(tape, x));
  graft_value *y = op2(ctx, "Square", x, NULL);
  graft_value *g = NULL;
  const graft_value *ys[] = {y}, *xs[] = {x};
  GT_ERR(GRAFT_EINVAL, graft_tape_gradient(&g, tape, ys, 0, xs, 1, NULL, GRAFT_UNCONNECTED_NONE), "target");
  GT_ERR(GRAFT_EINVAL, graft_tape_gradient(&g, tape, ys, 1, xs, 1, NULL, 7), "unconnected");
  GT_ERR(GRAFT_EINVAL, graft_tape_gradient(NULL, tape, ys, 1, xs, 1, NULL, GRAFT_UNCONNECTED_NONE), "out_grads");
  const graft_value *bad_dy[] = {i};
  GT_ERR(GRAFT_EINVAL, graft_tape_gradient(&g, tape, ys, 1, xs, 1, bad_dy, GRAFT_UNCONNECTED_NONE),
         "output gradient 0", "int32");
  const graft_value *null_src[] = {NULL};
  GT_ERR(GRAFT_EINVAL, graft_tape_gradient(&g, tape, ys, 1, null_src, 1, NULL, GRAFT_UNCONNECTED_NONE), "sources[0]");
  /* An op without a gradient function on the path: the error names the op type. */
  graft_value *r = op2(ctx, "Round", y, NULL);
  graft_value *gr = grad1(tape, r, x);
  assert_null(gr); /* Round is registered as not differentiable: no gradient flows */
  graft_tape_free(tape);
  graft_value *vals[] = {x, i, y, r};
  for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); ++k) graft_value_free(vals[k]);
  graft_tape_free(NULL);
  assert_false(graft_tape_is_recording(NULL));
  assert_int_equal(graft_tape_num_watched_variables(NULL), 0);
}

/* ---- Host functions (EagerPyFunc): differentiable once ------------------------------------ */

/* x^3, computed with eager ops of the context given as user data. */
static int host_cube(graft_tensor **outputs, int capacity, int *noutputs, graft_tensor *const *inputs, int ninputs,
                     void *ud) {
  graft_context *ctx = ud;
  if (ninputs != 1 || capacity < 1) return graft_error_set(GRAFT_EINVAL, "host_cube takes one tensor");
  graft_value *x = NULL;
  int rc = graft_value_from_tensor(&x, inputs[0]);
  if (rc != GRAFT_OK) return rc;
  graft_value *x2 = op2(ctx, "Mul", x, x);
  graft_value *x3 = op2(ctx, "Mul", x2, x);
  rc = graft_value_to_tensor(&outputs[0], x3);
  *noutputs = 1;
  graft_value_free(x);
  graft_value_free(x2);
  graft_value_free(x3);
  return rc;
}

/* 2x, computed on the host from the tensor's bytes: no op the tape can see. */
static int host_double_bytes(graft_tensor **outputs, int capacity, int *noutputs, graft_tensor *const *inputs,
                             int ninputs, void *ud) {
  (void)ud;
  if (ninputs != 1 || capacity < 1) return graft_error_set(GRAFT_EINVAL, "host_double_bytes takes one tensor");
  float r = 2 * *(const float *)graft_tensor_data(inputs[0]);
  *noutputs = 1;
  return graft_tensor_new(&outputs[0], GRAFT_FLOAT32, NULL, 0, &r, sizeof r);
}

static graft_value *call_host(graft_context *ctx, const char *token, graft_value *x) {
  graft_value *r = NULL;
  int n = 0;
  graft_dtype tout = GRAFT_FLOAT32;
  GT_OK(graft_host_function_call(&r, 1, &n, ctx, token, (const graft_value *const *)&x, 1, &tout, 1));
  return r;
}

static void test_host_function_gradient(void **state) {
  graft_context *ctx = *state;
  GT_OK(graft_host_function_register("graft_test_cube", host_cube, ctx, NULL));
  GT_OK(graft_host_function_register("graft_test_double_bytes", host_double_bytes, NULL, NULL));

  /* Eagerly, under a tape: d(x^3)/dx = 3x^2 = 12 at 2. */
  graft_value *x = f32(ctx, 2);
  graft_tape *tape = NULL;
  GT_OK(graft_tape_new(&tape, ctx, 1, 1));
  GT_OK(graft_tape_watch(tape, x));
  graft_value *y = call_host(ctx, "graft_test_cube", x);
  graft_value *z = call_host(ctx, "graft_test_double_bytes", x);
  GT_OK(graft_tape_stop(tape));
  expect_floats(y, (const float[]){8}, 1);
  graft_value *g = grad1(tape, y, x);
  assert_non_null(g);
  expect_floats(g, (const float[]){12}, 1);
  graft_value_free(g);
  /* The host code that reads the bytes has no ops to differentiate: zeros. */
  g = grad1(tape, z, x);
  assert_non_null(g);
  expect_floats(g, (const float[]){0}, 1);
  graft_value_free(g);
  graft_tape_free(tape);

  /* Once only: a second derivative through the gradient op is an error naming it. */
  graft_tape *outer = NULL, *inner = NULL;
  GT_OK(graft_tape_new(&outer, ctx, 0, 1));
  GT_OK(graft_tape_watch(outer, x));
  GT_OK(graft_tape_new(&inner, ctx, 0, 1));
  GT_OK(graft_tape_watch(inner, x));
  graft_value *y2 = call_host(ctx, "graft_test_cube", x);
  GT_OK(graft_tape_stop(inner));
  g = grad1(inner, y2, x);
  expect_floats(g, (const float[]){12}, 1);
  GT_OK(graft_tape_stop(outer));
  graft_value *gg = NULL;
  GT_ERR(GRAFT_ENOTFOUND,
         graft_tape_gradient(&gg, outer, (const graft_value *const *)&g, 1, (const graft_value *const *)&x, 1, NULL,
                             GRAFT_UNCONNECTED_NONE),
         "GraftHostFunctionGrad");
  assert_null(gg);
  graft_value_free(g);
  graft_value_free(y2);
  graft_tape_free(inner);
  graft_tape_free(outer);

  /* In a graph: graft_graph_add_gradients through the EagerPyFunc op, run by a session. */
  graft_graph *graph = NULL;
  GT_OK(graft_graph_new(&graph));
  graft_op_desc *desc = NULL;
  GT_OK(graft_op_desc_new(&desc, graph, "Placeholder", "x"));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(desc), "dtype", GRAFT_FLOAT32));
  graft_op *px = NULL;
  GT_OK(graft_op_desc_finish(&px, desc));
  graft_output xin = {px, 0};
  GT_OK(graft_op_desc_new(&desc, graph, "EagerPyFunc", "cube"));
  GT_OK(graft_op_desc_add_input_list(desc, &xin, 1));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(desc), "token", "graft_test_cube", strlen("graft_test_cube")));
  graft_dtype f = GRAFT_FLOAT32;
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(desc), "Tin", &f, 1));
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(desc), "Tout", &f, 1));
  graft_op *cube = NULL;
  GT_OK(graft_op_desc_finish(&cube, desc));
  graft_output yout = {cube, 0}, dx = {NULL, 0};
  GT_OK(graft_graph_add_gradients(&dx, graph, &yout, 1, &xin, 1, NULL, NULL));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, graph, NULL));
  graft_tensor *three = NULL, *res = NULL;
  GT_OK(graft_tensor_new(&three, GRAFT_FLOAT32, NULL, 0, (const float[]){3}, 4));
  GT_OK(graft_session_run(&res, s, &xin, &three, 1, &dx, 1, NULL, 0));
  assert_float_equal(*(const float *)graft_tensor_data(res), 27.0f, 1e-5);
  graft_tensor_free(res);
  /* Unregistered by the time the gradient runs: the error names the token. */
  GT_OK(graft_host_function_unregister("graft_test_cube"));
  GT_ERR(GRAFT_ENOTFOUND, graft_session_run(&res, s, &xin, &three, 1, &dx, 1, NULL, 0),
         "graft_test_cube", "not registered");
  graft_tensor_free(three);
  graft_session_free(s);
  graft_graph_free(graph);
  GT_OK(graft_host_function_unregister("graft_test_double_bytes"));
  graft_value_free(y);
  graft_value_free(z);
  graft_value_free(x);
}

/* The int32 elements of a concrete value. */
static void expect_int32s(const graft_value *v, const int32_t *want, int64_t n) {
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, v));
  assert_int_equal(graft_tensor_dtype(t), GRAFT_INT32);
  assert_int_equal(graft_tensor_num_elements(t), n);
  assert_memory_equal(graft_tensor_data(t), want, sizeof(int32_t) * (size_t)n);
  graft_tensor_free(t);
}

/* graft_tape_gradient_sparse: a variable read by ResourceGather only gets rows (indices, the
 * variable's shape, one gradient row per index); read whole as well, a dense gradient. */
static void test_rows_from_a_tape(void **state) {
  graft_context *ctx = *state;
  graft_value *init = f32s(ctx, (const double[]){1, 2, 3, 4, 5, 6}, (const int64_t[]){3, 2}, 2);
  graft_value *v = NULL;
  GT_OK(graft_variable_new(&v, ctx, init, "emb"));
  graft_value *ids = NULL;
  GT_OK(graft_value_from_host(&ids, ctx, GRAFT_HOST_INT64, (const int64_t[]){2, 0, 2}, (const int64_t[]){3}, 1,
                              GRAFT_INT32));
  for (int also_dense = 0; also_dense <= 1; ++also_dense) {
    graft_tape *tape = NULL;
    GT_OK(graft_tape_new(&tape, ctx, 0, 1));
    graft_op_call *c = NULL;
    GT_OK(graft_op_call_new(&c, ctx, "ResourceGather"));
    GT_OK(graft_op_call_add_input(c, v));
    GT_OK(graft_op_call_add_input(c, ids));
    GT_OK(graft_attrs_set_type(graft_op_call_attrs(c), "dtype", GRAFT_FLOAT32));
    graft_value *rows = NULL;
    int n = 0;
    GT_OK(graft_op_call_execute(&rows, 1, &n, c));
    graft_op_call_free(c);
    graft_value *sq = op2(ctx, "Square", rows, NULL), *axes = NULL;
    GT_OK(graft_value_from_host(&axes, ctx, GRAFT_HOST_INT64, (const int64_t[]){0, 1}, (const int64_t[]){2}, 1,
                                GRAFT_INT32));
    graft_value *y = op2(ctx, "Sum", sq, axes);
    graft_value_free(sq);
    graft_value_free(axes);
    graft_value *r = NULL;
    if (also_dense) GT_OK(graft_variable_read(&r, ctx, v));
    graft_value *targets[2] = {y, r};
    graft_value *values = NULL, *indices = NULL, *shape = NULL;
    GT_OK(graft_tape_gradient_sparse(&values, &indices, &shape, tape, (const graft_value *const *)targets,
                                     also_dense ? 2 : 1, (const graft_value *const *)&v, 1, NULL,
                                     GRAFT_UNCONNECTED_NONE));
    if (!also_dense) {
      expect_floats(values, (const float[]){10, 12, 2, 4, 10, 12}, 6); /* 2 * each gathered row */
      expect_int32s(indices, (const int32_t[]){2, 0, 2}, 3);
      expect_int32s(shape, (const int32_t[]){3, 2}, 2);
    } else {
      assert_null(indices);
      assert_null(shape);
      expect_floats(values, (const float[]){3, 5, 1, 1, 21, 25}, 6); /* rows summed + ones */
    }
    graft_value_free(values);
    graft_value_free(indices);
    graft_value_free(shape);
    graft_value_free(r);
    graft_value_free(y);
    graft_value_free(rows);
    graft_tape_free(tape);
  }
  graft_value_free(ids);
  graft_value_free(v);
  graft_value_free(init);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_watched_tensor, setup, teardown),
      cmocka_unit_test_setup_teardown(test_persistent_and_unconnected_zero, setup, teardown),
      cmocka_unit_test_setup_teardown(test_variables_watched_when_read, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nested_tapes_second_derivative, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stop_recording, setup, teardown),
      cmocka_unit_test_setup_teardown(test_matmul_broadcast_and_output_gradients, setup, teardown),
      cmocka_unit_test_setup_teardown(test_function_call_on_tape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tape_in_traced_function, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_host_function_gradient, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rows_from_a_tape, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
