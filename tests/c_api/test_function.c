/* Eager execution and traced functions (tf.function semantics) through the C API, following
 * the seeds' examples: x ** 2 + y, traces per dtype and shape, host arguments retracing per
 * value, input signatures, reduce_retracing, variables created once and captured by handle,
 * pure-functional state, side effects on every call, host side effects only while tracing,
 * nested calls through the function library, the host-function op, and the errors. */
#include <string.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

static graft_value *call1(graft_function *f, graft_context *ctx, const graft_arg *args, int n) {
  graft_value *out = NULL;
  int nout = 0;
  GT_OK(graft_function_call(&out, 1, &nout, f, ctx, args, n));
  assert_int_equal(nout, 1);
  return out;
}

static graft_arg val(const graft_value *v) { return (graft_arg){GRAFT_ARG_VALUE, v, 0, 0, NULL, 0}; }
static graft_arg int_arg(int64_t i) { return (graft_arg){GRAFT_ARG_INT, NULL, i, 0, NULL, 0}; }

/* ---- x ** 2 + y ------------------------------------------------------------------------ */

typedef struct {
  int traces; /* host side effect: counts the callback's runs */
} counter;

static int square_plus(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  ((counter *)ud)->traces++;
  assert_int_equal(nargs, 2);
  assert_true(graft_context_is_tracing(ctx));
  assert_true(graft_value_is_symbolic(args[0].value));
  graft_value *sq = op2(ctx, "Square", args[0].value, NULL);
  graft_value *sum = op2(ctx, "AddV2", sq, args[1].value);
  int rc = graft_value_list_append(outputs, sum);
  graft_value_free(sq);
  graft_value_free(sum);
  return rc;
}

static void test_square_plus_and_traces_per_signature(void **state) {
  graft_context *ctx = *state;
  counter c = {0};
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "square_plus", square_plus, &c, NULL));
  graft_value *x = f32s(ctx, (const double[]){2, 3}, (const int64_t[]){2}, 1);
  graft_value *y = f32s(ctx, (const double[]){2}, (const int64_t[]){1}, 1);
  graft_arg args[2] = {val(x), val(y)};
  graft_value *r = call1(f, ctx, args, 2);
  assert_false(graft_value_is_symbolic(r));
  expect_floats(r, (const float[]){6, 11}, 2);
  graft_value_free(r);
  /* Same signature: no retrace, the host side effect does not happen again. */
  r = call1(f, ctx, args, 2);
  expect_floats(r, (const float[]){6, 11}, 2);
  graft_value_free(r);
  assert_int_equal(graft_function_tracing_count(f), 1);
  assert_int_equal(c.traces, 1);

  /* Another dtype, another shape: a trace each. */
  graft_value *xi = i32(ctx, 3), *yi = i32(ctx, 1);
  graft_arg iargs[2] = {val(xi), val(yi)};
  r = call1(f, ctx, iargs, 2);
  assert_int_equal(graft_value_dtype(r), GRAFT_INT32);
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, r));
  assert_int_equal(*(const int32_t *)graft_tensor_data(t), 10);
  graft_tensor_free(t);
  graft_value_free(r);
  graft_value *x3 = f32s(ctx, (const double[]){1, 2, 3}, (const int64_t[]){3}, 1);
  graft_arg args3[2] = {val(x3), val(y)};
  r = call1(f, ctx, args3, 2);
  expect_floats(r, (const float[]){3, 6, 11}, 3);
  graft_value_free(r);
  assert_int_equal(graft_function_tracing_count(f), 3);

  /* The same signature gives the same concrete function (f1 is f2); others differ. */
  graft_concrete_function *c1 = NULL, *c2 = NULL, *c3 = NULL;
  GT_OK(graft_function_get_concrete(&c1, f, ctx, args, 2));
  GT_OK(graft_function_get_concrete(&c2, f, ctx, args, 2));
  GT_OK(graft_function_get_concrete(&c3, f, ctx, iargs, 2));
  assert_ptr_equal(c1, c2);
  assert_ptr_not_equal(c1, c3);
  assert_int_equal(graft_function_tracing_count(f), 3);
  /* Its graph: two Placeholders, Square, AddV2; the inputs and output are tensors of it. */
  assert_int_equal(graft_concrete_function_num_inputs(c1), 2);
  assert_int_equal(graft_concrete_function_num_outputs(c1), 1);
  assert_int_equal(graft_concrete_function_num_captured(c1), 0);
  graft_output out = graft_concrete_function_output(c1, 0);
  assert_string_equal(graft_op_type(out.op), "AddV2");
  assert_int_equal(graft_graph_num_ops(graft_concrete_function_graph(c1)), 4);
  /* A concrete function is callable with tensors. */
  graft_value *ins[2] = {x, y};
  int nout = 0;
  GT_OK(graft_concrete_function_call(&r, 1, &nout, c1, ctx, (const graft_value *const *)ins, 2));
  expect_floats(r, (const float[]){6, 11}, 2);
  graft_value_free(r);
  /* A different polymorphic function never shares traces. */
  counter c_other = {0};
  graft_function *g = NULL;
  GT_OK(graft_function_new(&g, "square_plus", square_plus, &c_other, NULL));
  graft_concrete_function *g1 = NULL;
  GT_OK(graft_function_get_concrete(&g1, g, ctx, args, 2));
  assert_ptr_not_equal(g1, c1);
  assert_string_not_equal(graft_concrete_function_name(g1), graft_concrete_function_name(c1));
  assert_int_equal(c_other.traces, 1);

  graft_function_free(g);
  graft_function_free(f);
  graft_value_free(x);
  graft_value_free(y);
  graft_value_free(xi);
  graft_value_free(yi);
  graft_value_free(x3);
}

/* ---- Symbolic gradients inside a trace (graft_value_from_output) ------------------------- */

/* Returns x^2 and its gradient 2x: the gradient is added to the trace graph with
 * graft_graph_add_gradients and becomes a symbolic value again with graft_value_from_output. */
static int square_and_gradient(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs,
                               void *ud) {
  (void)ud;
  assert_int_equal(nargs, 1);
  graft_value *sq = op2(ctx, "Square", args[0].value, NULL);
  graft_graph *g = NULL;
  GT_OK(graft_context_trace_graph(&g, ctx));
  graft_output y, x, dx;
  GT_OK(graft_value_output(&y, sq));
  GT_OK(graft_value_output(&x, args[0].value));
  GT_OK(graft_graph_add_gradients(&dx, g, &y, 1, &x, 1, NULL, NULL));
  graft_value *dv = NULL;
  GT_OK(graft_value_from_output(&dv, ctx, dx));
  assert_true(graft_value_is_symbolic(dv));
  /* A tensor of another graph is refused. */
  graft_graph *other = NULL;
  GT_OK(graft_graph_new(&other));
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, other, "Placeholder", "c"));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *c = NULL;
  GT_OK(graft_op_desc_finish(&c, d));
  graft_value *bad = NULL;
  GT_ERR(GRAFT_EINVAL, graft_value_from_output(&bad, ctx, (graft_output){c, 0}), "graft_value_from_output",
         "not a tensor of the graph being traced");
  assert_null(bad);
  graft_graph_free(other);
  graft_graph_free(g);
  int rc = graft_value_list_append(outputs, sq);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, dv);
  graft_value_free(sq);
  graft_value_free(dv);
  return rc;
}

static void test_gradients_inside_a_trace(void **state) {
  graft_context *ctx = *state;
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "square_and_gradient", square_and_gradient, NULL, NULL));
  graft_value *x = f32s(ctx, (const double[]){2, -3}, (const int64_t[]){2}, 1);
  graft_arg args[1] = {val(x)};
  graft_value *out[2] = {NULL, NULL};
  int nout = 0;
  GT_OK(graft_function_call(out, 2, &nout, f, ctx, args, 1));
  assert_int_equal(nout, 2);
  expect_floats(out[0], (const float[]){4, 9}, 2);
  expect_floats(out[1], (const float[]){4, -6}, 2);
  graft_value_free(out[0]);
  graft_value_free(out[1]);
  /* Outside a trace there is no trace graph. */
  graft_value *none = NULL;
  GT_ERR(GRAFT_EPRECONDITION, graft_value_from_output(&none, ctx, (graft_output){NULL, 0}), "graft_value_from_output",
         "no function of the context is being traced");
  graft_value_free(x);
  graft_function_free(f);
}

/* ---- Host arguments: trace-time constants, a trace per value ------------------------------ */

static int times_n(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)ud;
  assert_int_equal(nargs, 2);
  assert_int_equal(args[1].kind, GRAFT_ARG_INT);
  graft_value *n = f32(ctx, (double)args[1].i); /* a constant of the trace */
  assert_true(graft_value_is_symbolic(n));
  graft_value *r = op2(ctx, "Mul", args[0].value, n);
  int rc = graft_value_list_append(outputs, r);
  graft_value_free(n);
  graft_value_free(r);
  return rc;
}

static void test_host_arguments_retrace_per_value(void **state) {
  graft_context *ctx = *state;
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "times_n", times_n, NULL, NULL));
  graft_value *x = f32(ctx, 1.5);
  graft_arg a2[2] = {val(x), int_arg(2)}, a3[2] = {val(x), int_arg(3)};
  graft_value *r = call1(f, ctx, a2, 2);
  expect_floats(r, (const float[]){3}, 1);
  graft_value_free(r);
  r = call1(f, ctx, a3, 2);
  expect_floats(r, (const float[]){4.5f}, 1);
  graft_value_free(r);
  r = call1(f, ctx, a2, 2);
  graft_value_free(r);
  assert_int_equal(graft_function_tracing_count(f), 2);
  graft_function_free(f);
  graft_value_free(x);
}

/* ---- Input signature: one trace for a vector and a matrix (shape None) -------------------- */

static int plus_one(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)ud;
  (void)nargs;
  graft_value *one = f32(ctx, 1);
  graft_value *r = op2(ctx, "AddV2", args[0].value, one);
  int rc = graft_value_list_append(outputs, r);
  graft_value_free(one);
  graft_value_free(r);
  return rc;
}

static void test_input_signature(void **state) {
  graft_context *ctx = *state;
  graft_tensor_spec spec = {GRAFT_FLOAT32, NULL, -1, "x"};
  graft_function_options o = GRAFT_FUNCTION_OPTIONS_INIT;
  o.input_signature = &spec;
  o.ninput_signature = 1;
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "plus_one", plus_one, NULL, &o));
  graft_value *vector = f32s(ctx, (const double[]){1, 1}, (const int64_t[]){2}, 1);
  graft_value *matrix = f32s(ctx, (const double[]){3}, (const int64_t[]){1, 1}, 2);
  graft_concrete_function *cv = NULL, *cm = NULL;
  graft_arg av = val(vector), am = val(matrix);
  GT_OK(graft_function_get_concrete(&cv, f, ctx, &av, 1));
  GT_OK(graft_function_get_concrete(&cm, f, ctx, &am, 1));
  assert_ptr_equal(cv, cm);
  graft_value *r = call1(f, ctx, &am, 1);
  expect_floats(r, (const float[]){4}, 1);
  graft_value_free(r);
  /* A host number is converted to the signature's dtype. */
  graft_arg host = int_arg(41);
  r = call1(f, ctx, &host, 1);
  expect_floats(r, (const float[]){42}, 1);
  graft_value_free(r);
  assert_int_equal(graft_function_tracing_count(f), 1);
  /* By specs: a vector of unknown length is the same concrete function. */
  graft_concrete_function *cs = NULL;
  graft_tensor_spec vec = {GRAFT_FLOAT32, (const int64_t[]){-1}, 1, NULL};
  GT_OK(graft_function_get_concrete_for_specs(&cs, f, ctx, &vec, 1));
  assert_ptr_equal(cs, cv);
  graft_tensor_spec ints = {GRAFT_INT32, NULL, -1, NULL};
  GT_ERR(GRAFT_EINVAL, graft_function_get_concrete_for_specs(&cs, f, ctx, &ints, 1), "input signature");
  /* A mismatch names the argument. */
  graft_value *wrong = i32(ctx, 1);
  graft_arg aw = val(wrong);
  graft_value *out = NULL;
  int n = 0;
  GT_ERR(GRAFT_EDTYPE, graft_function_call(&out, 1, &n, f, ctx, &aw, 1), "argument 'x'", "float32", "int32");
  graft_arg two[2] = {av, av};
  GT_ERR(GRAFT_EINVAL, graft_function_call(&out, 1, &n, f, ctx, two, 2), "input signature of 1");
  assert_null(out);
  graft_value_free(wrong);
  graft_value_free(vector);
  graft_value_free(matrix);
  graft_function_free(f);
}

static void test_reduce_retracing(void **state) {
  graft_context *ctx = *state;
  graft_function_options o = GRAFT_FUNCTION_OPTIONS_INIT;
  o.reduce_retracing = 1;
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "plus_one", plus_one, NULL, &o));
  for (int len = 1; len <= 4; ++len) {
    double v[4] = {1, 2, 3, 4};
    graft_value *x = f32s(ctx, v, (const int64_t[]){len}, 1);
    graft_arg a = val(x);
    graft_value *r = call1(f, ctx, &a, 1);
    int64_t n = 0;
    float *got = floats_of(r, &n);
    assert_int_equal(n, len);
    assert_float_equal(got[len - 1], (float)len + 1, 0);
    free(got);
    graft_value_free(r);
    graft_value_free(x);
  }
  /* [1] then [2] traces a relaxed (None,) signature that serves [3] and [4]. */
  assert_int_equal(graft_function_tracing_count(f), 2);
  graft_function_free(f);
}

/* ---- Variables ----------------------------------------------------------------------- */

typedef struct {
  graft_value *v; /* created on the first trace */
} module;

/* if self.v is None: self.v = Variable(ones_like(x)); return self.v * x */
static int module_call(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  module *m = ud;
  if (m->v == NULL) {
    graft_value *ones = op2(ctx, "OnesLike", args[0].value, NULL);
    int rc = graft_variable_new(&m->v, ctx, ones, "v");
    graft_value_free(ones);
    if (rc != GRAFT_OK) return rc;
  }
  graft_value *read = NULL;
  int rc = graft_variable_read(&read, ctx, m->v);
  if (rc != GRAFT_OK) return rc;
  graft_value *r = op2(ctx, "Mul", read, args[0].value);
  rc = graft_value_list_append(outputs, r);
  graft_value_free(read);
  graft_value_free(r);
  return rc;
}

static void test_variables_created_once_and_captured(void **state) {
  graft_context *ctx = *state;
  module m = {NULL};
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "module", module_call, &m, NULL));
  graft_value *x = f32s(ctx, (const double[]){1, 2}, (const int64_t[]){2}, 1);
  graft_arg a = val(x);
  graft_value *r = call1(f, ctx, &a, 1);
  expect_floats(r, (const float[]){1, 2}, 2);
  graft_value_free(r);
  assert_non_null(m.v);
  /* The variable is captured by handle: an assignment outside is seen without retracing. */
  graft_value *twos = f32s(ctx, (const double[]){2, 2}, (const int64_t[]){2}, 1);
  GT_OK(graft_variable_assign(ctx, m.v, twos));
  r = call1(f, ctx, &a, 1);
  expect_floats(r, (const float[]){2, 4}, 2);
  graft_value_free(r);
  assert_int_equal(graft_function_tracing_count(f), 1);
  graft_concrete_function *c = NULL;
  GT_OK(graft_function_get_concrete(&c, f, ctx, &a, 1));
  assert_int_equal(graft_concrete_function_num_captured(c), 1);
  graft_value *cap = NULL;
  GT_OK(graft_concrete_function_captured_value(&cap, c, 0));
  assert_int_equal(graft_value_dtype(cap), GRAFT_RESOURCE);
  /* The captured value is another handle of the module's variable, and of no other one. */
  assert_true(graft_variable_same(cap, m.v));
  assert_true(graft_variable_same(m.v, cap));
  graft_value *copy = NULL;
  GT_OK(graft_value_copy(&copy, m.v));
  assert_true(graft_variable_same(copy, cap));
  graft_value_free(copy);
  graft_value *other = NULL;
  GT_OK(graft_variable_new(&other, ctx, twos, "other"));
  assert_false(graft_variable_same(cap, other));
  assert_false(graft_variable_same(cap, twos)); /* a tensor, not a handle */
  assert_false(graft_variable_same(twos, twos));
  assert_false(graft_variable_same(cap, NULL));
  assert_false(graft_variable_same(NULL, NULL));
  graft_value_free(other);
  graft_value_free(cap);
  /* A later trace (another shape) that tries to create a variable fails. */
  graft_value_free(m.v);
  m.v = NULL;
  graft_value *x3 = f32s(ctx, (const double[]){1, 2, 3}, (const int64_t[]){3}, 1);
  graft_arg a3 = val(x3);
  graft_value *out = NULL;
  int n = 0;
  GT_ERR(GRAFT_EPRECONDITION, graft_function_call(&out, 1, &n, f, ctx, &a3, 1), "module", "first trace",
         "variables are created once");
  graft_value_free(x);
  graft_value_free(x3);
  graft_value_free(twos);
  graft_value_free(m.v);
  graft_function_free(f);
}

/* state = f(state, x): state += x; return state (pure functional) */
static int add_state(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *r = op2(ctx, "AddV2", args[0].value, args[1].value);
  int rc = graft_value_list_append(outputs, r);
  graft_value_free(r);
  return rc;
}

static void test_pure_functional_state(void **state) {
  graft_context *ctx = *state;
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "add_state", add_state, NULL, NULL));
  graft_value *s = i32(ctx, 1), *x = i32(ctx, 2);
  for (int i = 0; i < 3; ++i) {
    graft_arg a[2] = {val(s), val(x)};
    graft_value *next = call1(f, ctx, a, 2);
    graft_value_free(s);
    s = next;
  }
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, s));
  assert_int_equal(*(const int32_t *)graft_tensor_data(t), 7);
  graft_tensor_free(t);
  assert_int_equal(graft_function_tracing_count(f), 1);
  graft_value_free(s);
  graft_value_free(x);
  graft_function_free(f);
}

/* ---- Side effects on every call, in order ------------------------------------------------- */

typedef struct {
  graft_value *counter;
  const char *log_path;
} effects;

/* counter += 1 (result unused); print "call"; return x. Stateful ops run on every call. */
static int side_effects(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  effects *e = ud;
  graft_value *one = i32(ctx, 1);
  int rc = graft_variable_assign_add(ctx, e->counter, one);
  graft_value_free(one);
  if (rc != GRAFT_OK) return rc;
  graft_value *count = NULL;
  rc = graft_variable_read(&count, ctx, e->counter);
  if (rc != GRAFT_OK) return rc;
  graft_op_call *fmt = NULL;
  GT_OK(graft_op_call_new(&fmt, ctx, "StringFormat"));
  GT_OK(graft_op_call_add_input_list(fmt, (const graft_value *const *)&count, 1));
  GT_OK(graft_attrs_set_string(graft_op_call_attrs(fmt), "template", "count {}", strlen("count {}")));
  GT_OK(graft_attrs_set_string(graft_op_call_attrs(fmt), "placeholder", "{}", strlen("{}")));
  graft_value *text = NULL;
  int n = 0;
  GT_OK(graft_op_call_execute(&text, 1, &n, fmt));
  graft_op_call_free(fmt);
  graft_op_call *print = NULL;
  GT_OK(graft_op_call_new(&print, ctx, "PrintV2"));
  GT_OK(graft_op_call_add_input(print, text));
  char stream[600];
  snprintf(stream, sizeof stream, "file://%s", e->log_path);
  GT_OK(graft_attrs_set_string(graft_op_call_attrs(print), "output_stream", stream, strlen(stream)));
  GT_OK(graft_op_call_execute(NULL, 0, &n, print));
  graft_op_call_free(print);
  graft_value_free(text);
  graft_value_free(count);
  return graft_value_list_append(outputs, args[0].value);
}

static void test_side_effects_every_call_in_order(void **state) {
  graft_context *ctx = *state;
  char path[] = "/tmp/graft_print_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  effects e = {NULL, path};
  graft_value *zero = i32(ctx, 0);
  GT_OK(graft_variable_new(&e.counter, ctx, zero, "counter"));
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "side_effects", side_effects, &e, NULL));
  graft_value *x = f32(ctx, 5);
  graft_arg a = val(x);
  for (int i = 0; i < 3; ++i) {
    graft_value *r = call1(f, ctx, &a, 1);
    expect_floats(r, (const float[]){5}, 1);
    graft_value_free(r);
  }
  assert_int_equal(graft_function_tracing_count(f), 1);
  graft_value *v = NULL;
  GT_OK(graft_variable_read(&v, ctx, e.counter));
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, v));
  assert_int_equal(*(const int32_t *)graft_tensor_data(t), 3);
  graft_tensor_free(t);
  graft_value_free(v);
  /* The print ran after each increment: it saw 1, 2, 3. */
  FILE *in = fopen(path, "r");
  char buf[256] = {0};
  size_t got = fread(buf, 1, sizeof buf - 1, in);
  fclose(in);
  buf[got] = '\0';
  assert_string_equal(buf, "count 1\ncount 2\ncount 3\n");
  remove(path);
  graft_value_free(x);
  graft_value_free(zero);
  graft_value_free(e.counter);
  graft_function_free(f);
}

/* ---- Calling a function from another: a call op and the function library ------------------ */

typedef struct {
  graft_function *inner;
} outer_data;

static int outer(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  outer_data *d = ud;
  graft_arg inner_args[2] = {args[0], args[0]};
  graft_value *r = NULL;
  int n = 0;
  int rc = graft_function_call(&r, 1, &n, d->inner, ctx, inner_args, 2);
  if (rc != GRAFT_OK) return rc;
  graft_value *twice = op2(ctx, "Mul", r, r);
  rc = graft_value_list_append(outputs, twice);
  graft_value_free(r);
  graft_value_free(twice);
  return rc;
}

static void test_nested_call_and_function_library(void **state) {
  graft_context *ctx = *state;
  counter c = {0};
  graft_function *inner = NULL, *f = NULL;
  GT_OK(graft_function_new(&inner, "square_plus", square_plus, &c, NULL));
  outer_data d = {inner};
  GT_OK(graft_function_new(&f, "outer", outer, &d, NULL));
  graft_value *x = f32(ctx, 3);
  graft_arg a = val(x);
  graft_value *r = call1(f, ctx, &a, 1);
  expect_floats(r, (const float[]){144}, 1); /* (3*3 + 3)^2 */
  graft_value_free(r);
  graft_concrete_function *cf = NULL;
  GT_OK(graft_function_get_concrete(&cf, f, ctx, &a, 1));
  graft_graph *g = graft_concrete_function_graph(cf);
  /* The inner function is in the outer graph's library, called by a PartitionedCall. */
  assert_int_equal(graft_graph_num_functions(g), 1);
  graft_concrete_function *ci = NULL;
  graft_arg ia[2] = {a, a};
  GT_OK(graft_function_get_concrete(&ci, inner, ctx, ia, 2));
  assert_string_equal(graft_graph_function_name(g, 0), graft_concrete_function_name(ci));
  int calls = 0;
  for (int64_t i = 0; i < graft_graph_num_ops(g); ++i) {
    calls += strcmp(graft_op_type(graft_graph_op(g, i)), "PartitionedCall") == 0;
  }
  assert_int_equal(calls, 1);

  /* The FunctionDef exports with the GraphDef of a graph that calls it, and imports back. */
  graft_graph *host = NULL;
  GT_OK(graft_graph_new(&host));
  GT_OK(graft_concrete_function_add_to_graph(cf, host));
  assert_int_equal(graft_graph_num_functions(host), 2);
  void *bytes = NULL;
  size_t len = 0;
  GT_OK(graft_graph_export_graph_def(&bytes, &len, host, -1, 0));
  graft_graph *back = NULL;
  GT_OK(graft_graph_new(&back));
  GT_OK(graft_graph_import_graph_def(NULL, back, bytes, len, NULL));
  assert_int_equal(graft_graph_num_functions(back), 2);
  /* ... and runs there through a call op in a session. */
  graft_op_desc *desc = NULL;
  graft_tensor *three = NULL;
  GT_OK(graft_tensor_new(&three, GRAFT_FLOAT32, NULL, 0, (const float[]){3}, 4));
  GT_OK(graft_op_desc_new(&desc, back, "Const", "x"));
  GT_OK(graft_attrs_set_tensor(graft_op_desc_attrs(desc), "value", three));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(desc), "dtype", GRAFT_FLOAT32));
  graft_op *xc = NULL;
  GT_OK(graft_op_desc_finish(&xc, desc));
  GT_OK(graft_op_desc_new(&desc, back, "StatefulPartitionedCall", "call"));
  graft_output xin = {xc, 0};
  GT_OK(graft_op_desc_add_input_list(desc, &xin, 1));
  GT_OK(graft_attrs_set_func(graft_op_desc_attrs(desc), "f", graft_concrete_function_name(cf)));
  graft_dtype tout = GRAFT_FLOAT32;
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(desc), "Tout", &tout, 1));
  graft_op *call = NULL;
  GT_OK(graft_op_desc_finish(&call, desc));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, back, NULL));
  graft_output fetch = {call, 0};
  graft_tensor *res = NULL;
  GT_OK(graft_session_run(&res, s, NULL, NULL, 0, &fetch, 1, NULL, 0));
  assert_float_equal(*(const float *)graft_tensor_data(res), 144.0f, 0);
  graft_tensor_free(res);
  graft_session_free(s);
  /* The gradient through both calls (the outer StatefulPartitionedCall and the inner
   * PartitionedCall, each a call of its callee's gradient function): d/dx (x^2 + x)^2 =
   * 2 (x^2 + x)(2x + 1) = 168 at 3. */
  graft_output dx = {NULL, 0};
  GT_OK(graft_graph_add_gradients(&dx, back, &fetch, 1, &xin, 1, NULL, NULL));
  assert_non_null(dx.op);
  GT_OK(graft_session_new(&s, back, NULL));
  GT_OK(graft_session_run(&res, s, NULL, NULL, 0, &dx, 1, NULL, 0));
  assert_float_equal(*(const float *)graft_tensor_data(res), 168.0f, 1e-4);
  graft_tensor_free(res);
  graft_session_free(s);
  /* The gradient functions are built once per callee: a second call of the same function
   * adds a call of the same gradient function, no new function. */
  const int nfunctions = graft_graph_num_functions(back);
  assert_int_equal(nfunctions, 4); /* outer, inner and their gradient functions */
  GT_OK(graft_op_desc_new(&desc, back, "StatefulPartitionedCall", "call2"));
  GT_OK(graft_op_desc_add_input_list(desc, &xin, 1));
  GT_OK(graft_attrs_set_func(graft_op_desc_attrs(desc), "f", graft_concrete_function_name(cf)));
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(desc), "Tout", &tout, 1));
  graft_op *call2 = NULL;
  GT_OK(graft_op_desc_finish(&call2, desc));
  graft_output both[2] = {fetch, {call2, 0}}, dx2 = {NULL, 0};
  GT_OK(graft_graph_add_gradients(&dx2, back, both, 2, &xin, 1, NULL, "twice"));
  assert_int_equal(graft_graph_num_functions(back), nfunctions);
  GT_OK(graft_session_new(&s, back, NULL));
  GT_OK(graft_session_run(&res, s, NULL, NULL, 0, &dx2, 1, NULL, 0));
  assert_float_equal(*(const float *)graft_tensor_data(res), 336.0f, 1e-3);
  graft_tensor_free(res);
  graft_session_free(s);
  /* A call whose inputs do not match its function: its gradient is an error saying so, and
   * the graph is left as it was. */
  {
    graft_output two[2] = {xin, xin};
    GT_OK(graft_op_desc_new(&desc, back, "StatefulPartitionedCall", "bad_call"));
    GT_OK(graft_op_desc_add_input_list(desc, two, 2));
    GT_OK(graft_attrs_set_func(graft_op_desc_attrs(desc), "f", graft_concrete_function_name(cf)));
    GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(desc), "Tout", &tout, 1));
    graft_op *bad = NULL;
    GT_OK(graft_op_desc_finish(&bad, desc));
    const int64_t nops = graft_graph_num_ops(back);
    graft_output bad_out = {bad, 0}, dbad = {NULL, 0};
    GT_ERR(GRAFT_EINVAL, graft_graph_add_gradients(&dbad, back, &bad_out, 1, &xin, 1, NULL, NULL), "bad_call",
           "takes 1 arguments, but the call has 2 inputs");
    assert_int_equal(graft_graph_num_ops(back), nops);
  }
  graft_tensor_free(three);
  graft_buffer_free(bytes);
  graft_graph_free(back);
  graft_graph_free(host);
  graft_value_free(x);
  graft_function_free(f);
  graft_function_free(inner);
}


/* ---- cond and while_loop ------------------------------------------------------------------ */

static int double_it(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *r = op2(ctx, "AddV2", args[0].value, args[0].value);
  int rc = graft_value_list_append(outputs, r);
  graft_value_free(r);
  return rc;
}

static int negate(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *r = op2(ctx, "Neg", args[0].value, NULL);
  int rc = graft_value_list_append(outputs, r);
  graft_value_free(r);
  return rc;
}

/* f(x) = cond(x > 0, 2x, -x) */
static int branchy(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *zero = f32(ctx, 0);
  graft_value *pred = op2(ctx, "Greater", args[0].value, zero);
  graft_value *r = NULL;
  int n = 0;
  int rc = graft_cond(&r, 1, &n, ctx, pred, &args[0].value, 1, double_it, NULL, negate, NULL);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, r);
  graft_value_free(zero);
  graft_value_free(pred);
  graft_value_free(r);
  return rc;
}

static void test_cond(void **state) {
  graft_context *ctx = *state;
  /* Eagerly: the taken branch runs at once. */
  graft_value *x = f32(ctx, 3), *t = NULL;
  GT_OK(graft_value_from_host(&t, ctx, GRAFT_HOST_BOOL, (const graft_bool[]){0}, NULL, 0, GRAFT_DTYPE_INVALID));
  graft_value *r = NULL;
  int n = 0;
  GT_OK(graft_cond(&r, 1, &n, ctx, t, (const graft_value *const *)&x, 1, double_it, NULL, negate, NULL));
  expect_floats(r, (const float[]){-3}, 1);
  graft_value_free(r);
  /* Traced: one StatelessIf serving both branches. */
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "branchy", branchy, NULL, NULL));
  graft_arg a = val(x);
  r = call1(f, ctx, &a, 1);
  expect_floats(r, (const float[]){6}, 1);
  graft_value_free(r);
  graft_value *m = f32(ctx, -2);
  graft_arg am = val(m);
  r = call1(f, ctx, &am, 1);
  expect_floats(r, (const float[]){2}, 1);
  graft_value_free(r);
  assert_int_equal(graft_function_tracing_count(f), 1);
  graft_concrete_function *cf = NULL;
  GT_OK(graft_function_get_concrete(&cf, f, ctx, &a, 1));
  graft_graph *g = graft_concrete_function_graph(cf);
  int ifs = 0;
  for (int64_t i = 0; i < graft_graph_num_ops(g); ++i) ifs += strcmp(graft_op_type(graft_graph_op(g, i)), "StatelessIf") == 0;
  assert_int_equal(ifs, 1);
  assert_int_equal(graft_graph_num_functions(g), 2);
  graft_value_free(x);
  graft_value_free(t);
  graft_value_free(m);
  graft_function_free(f);
}

/* while i <= n: (i, s) = (i + 1, s + i), with n captured from the enclosing trace. */
static int sum_cond(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  graft_value *r = op2(ctx, "LessEqual", args[0].value, (const graft_value *)ud);
  int rc = graft_value_list_append(outputs, r);
  graft_value_free(r);
  return rc;
}

static int sum_body(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *one = i32(ctx, 1);
  graft_value *i1 = op2(ctx, "AddV2", args[0].value, one);
  graft_value *s1 = op2(ctx, "AddV2", args[1].value, args[0].value);
  int rc = graft_value_list_append(outputs, i1);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, s1);
  graft_value_free(one);
  graft_value_free(i1);
  graft_value_free(s1);
  return rc;
}

static int sum_to(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *vars[2] = {i32(ctx, 1), i32(ctx, 0)};
  graft_value *res[2] = {NULL, NULL};
  int n = 0;
  int rc = graft_while_loop(res, 2, &n, ctx, sum_cond, (void *)args[0].value, sum_body, NULL,
                            (const graft_value *const *)vars, 2);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, res[1]);
  for (int i = 0; i < 2; ++i) {
    graft_value_free(vars[i]);
    graft_value_free(res[i]);
  }
  return rc;
}

static int32_t int_of(graft_value *v) {
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, v));
  int32_t r = *(const int32_t *)graft_tensor_data(t);
  graft_tensor_free(t);
  graft_value_free(v);
  return r;
}

static void test_while_loop(void **state) {
  graft_context *ctx = *state;
  graft_value *n10 = i32(ctx, 10), *n100 = i32(ctx, 100);
  graft_arg a10 = val(n10);
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "sum_to", sum_to, NULL, NULL));
  assert_int_equal(int_of(call1(f, ctx, &a10, 1)), 55);
  graft_arg a100 = val(n100);
  assert_int_equal(int_of(call1(f, ctx, &a100, 1)), 5050);
  assert_int_equal(graft_function_tracing_count(f), 1);
  graft_concrete_function *cf = NULL;
  GT_OK(graft_function_get_concrete(&cf, f, ctx, &a10, 1));
  graft_graph *g = graft_concrete_function_graph(cf);
  int whiles = 0;
  for (int64_t i = 0; i < graft_graph_num_ops(g); ++i) whiles += strcmp(graft_op_type(graft_graph_op(g, i)), "StatelessWhile") == 0;
  assert_int_equal(whiles, 1);
  /* The same loop run eagerly (no trace). */
  graft_value *vars[2] = {i32(ctx, 1), i32(ctx, 0)};
  graft_value *res[2] = {NULL, NULL};
  int n = 0;
  GT_OK(graft_while_loop(res, 2, &n, ctx, sum_cond, n10, sum_body, NULL, (const graft_value *const *)vars, 2));
  assert_int_equal(n, 2);
  assert_int_equal(int_of(res[1]), 55);
  assert_int_equal(int_of(res[0]), 11);
  graft_value_free(vars[0]);
  graft_value_free(vars[1]);
  graft_value_free(n10);
  graft_value_free(n100);
  graft_function_free(f);
}

/* Shapes through a traced while loop, as TensorFlow's: (i, v) = (i + 1, tile(v, [grow])) while
 * i < 3, from v = [1] (shape (1,)). With grow 1 the shape stays and the loop's output keeps it;
 * with grow 2 it changes, which needs a shape invariant. */
typedef struct {
  int64_t grow;
  const graft_shape *invariant; /* for v, or NULL */
  int rc;                       /* graft_while_loop's */
  int64_t out_dims[4];          /* the static shape of the loop's output v */
  int out_rank;
} grow_data;

static int grow_cond(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *three = i32(ctx, 3);
  graft_value *r = op2(ctx, "Less", args[0].value, three);
  int rc = graft_value_list_append(outputs, r);
  graft_value_free(three);
  graft_value_free(r);
  return rc;
}

static int grow_body(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  grow_data *d = ud;
  graft_value *one = i32(ctx, 1), *multiples = NULL;
  const int64_t dims[1] = {1};
  GT_OK(graft_value_from_host(&multiples, ctx, GRAFT_HOST_INT64, &d->grow, dims, 1, GRAFT_INT32));
  graft_value *i1 = op2(ctx, "AddV2", args[0].value, one);
  graft_value *v1 = op2(ctx, "Tile", args[1].value, multiples);
  int rc = graft_value_list_append(outputs, i1);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, v1);
  graft_value_free(one);
  graft_value_free(multiples);
  graft_value_free(i1);
  graft_value_free(v1);
  return rc;
}

static int grow_fn(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)args;
  (void)nargs;
  grow_data *d = ud;
  const int64_t one = 1, dims[1] = {1};
  graft_value *vars[2] = {i32(ctx, 0), NULL};
  GT_OK(graft_value_from_host(&vars[1], ctx, GRAFT_HOST_INT64, &one, dims, 1, GRAFT_INT32));
  const graft_shape *invariants[2] = {NULL, d->invariant};
  graft_value *res[2] = {NULL, NULL};
  int n = 0;
  d->rc = graft_while_loop_with_shapes(res, 2, &n, ctx, grow_cond, NULL, grow_body, d, (const graft_value *const *)vars,
                                       2, d->invariant ? invariants : NULL);
  int rc = d->rc;
  if (rc == GRAFT_OK) {
    graft_shape *shape = NULL;
    GT_OK(graft_value_shape(&shape, res[1]));
    d->out_rank = graft_shape_rank(shape);
    if (d->out_rank > 0) GT_OK(graft_shape_dims(d->out_dims, 4, shape));
    graft_shape_free(shape);
    rc = graft_value_list_append(outputs, res[1]);
  }
  for (int i = 0; i < 2; ++i) {
    graft_value_free(vars[i]);
    graft_value_free(res[i]);
  }
  return rc;
}

static graft_value *run_grow(graft_context *ctx, grow_data *d) {
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "grow", grow_fn, d, NULL));
  graft_value *out = NULL;
  int n = 0;
  int rc = graft_function_call(&out, 1, &n, f, ctx, NULL, 0);
  graft_function_free(f);
  return rc == GRAFT_OK ? out : NULL;
}

static void test_while_loop_shapes(void **state) {
  graft_context *ctx = *state;
  /* The shape stays: the output's static shape is (1,). */
  grow_data same = {1, NULL, -1, {0}, -9};
  graft_value *v = run_grow(ctx, &same);
  assert_non_null(v);
  assert_int_equal(same.out_rank, 1);
  assert_int_equal(same.out_dims[0], 1);
  graft_value_free(v);
  /* It changes without an invariant: an error naming the variable and both shapes. */
  grow_data grows = {2, NULL, -1, {0}, -9};
  assert_null(run_grow(ctx, &grows));
  assert_int_equal(grows.rc, GRAFT_EINVAL);
  const char *msg = graft_error_last();
  assert_non_null(strstr(msg, "loop variable 1 enters the loop with shape (1,), but has shape (2,) after one iteration"));
  /* With the invariant (None,): 8 elements, and the output's static shape is (None,). */
  const int64_t unknown[1] = {-1};
  graft_shape *inv = NULL;
  GT_OK(graft_shape_new(&inv, unknown, 1));
  grows.invariant = inv;
  v = run_grow(ctx, &grows);
  assert_non_null(v);
  assert_int_equal(grows.out_rank, 1);
  assert_int_equal(grows.out_dims[0], -1);
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, v));
  assert_int_equal(graft_tensor_num_elements(t), 8);
  graft_tensor_free(t);
  graft_value_free(v);
  graft_shape_free(inv);
  /* An invariant the entry shape does not fit: (2,) for (1,). */
  const int64_t two[1] = {2};
  GT_OK(graft_shape_new(&inv, two, 1));
  grows.invariant = inv;
  assert_null(run_grow(ctx, &grows));
  assert_int_equal(grows.rc, GRAFT_EINVAL);
  assert_non_null(strstr(graft_error_last(), "is not compatible with its initial shape"));
  graft_shape_free(inv);
}

/* The seed's TensorArray example: ta.write(i, x[i] + 1) for each i, then ta.stack(), with a
 * dynamically sized tensor list carried through a while loop. */
static int ta_cond(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  graft_value *r = op2(ctx, "Less", args[0].value, (const graft_value *)ud);
  int rc = graft_value_list_append(outputs, r);
  graft_value_free(r);
  return rc;
}

typedef struct {
  const graft_value *x;
} ta_data;

static int ta_body(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  ta_data *d = ud;
  graft_value *zero = i32(ctx, 0), *one = i32(ctx, 1);
  graft_op_call *c = NULL;
  GT_OK(graft_op_call_new(&c, ctx, "GatherV2"));
  GT_OK(graft_op_call_add_input(c, d->x));
  GT_OK(graft_op_call_add_input(c, args[0].value));
  GT_OK(graft_op_call_add_input(c, zero));
  graft_value *xi = NULL;
  int n = 0;
  GT_OK(graft_op_call_execute(&xi, 1, &n, c));
  graft_op_call_free(c);
  graft_value *plus = op2(ctx, "AddV2", xi, one);
  GT_OK(graft_op_call_new(&c, ctx, "TensorListPushBack"));
  GT_OK(graft_op_call_add_input(c, args[1].value));
  GT_OK(graft_op_call_add_input(c, plus));
  GT_OK(graft_attrs_set_type(graft_op_call_attrs(c), "element_dtype", GRAFT_INT32));
  graft_value *list = NULL;
  int rc = graft_op_call_execute(&list, 1, &n, c);
  graft_op_call_free(c);
  graft_value *i1 = op2(ctx, "AddV2", args[0].value, one);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, i1);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, list);
  graft_value_free(zero);
  graft_value_free(one);
  graft_value_free(xi);
  graft_value_free(plus);
  graft_value_free(list);
  graft_value_free(i1);
  return rc;
}

static int tensor_array(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *elem_shape = i32(ctx, -1), *zero = i32(ctx, 0);
  graft_op_call *c = NULL;
  GT_OK(graft_op_call_new(&c, ctx, "TensorListReserve"));
  GT_OK(graft_op_call_add_input(c, elem_shape));
  GT_OK(graft_op_call_add_input(c, zero));
  GT_OK(graft_attrs_set_type(graft_op_call_attrs(c), "element_dtype", GRAFT_INT32));
  graft_value *list = NULL;
  int n = 0;
  GT_OK(graft_op_call_execute(&list, 1, &n, c));
  graft_op_call_free(c);
  graft_value *size = op2(ctx, "Size", args[0].value, NULL);
  ta_data d = {args[0].value};
  graft_value *vars[2] = {zero, list};
  graft_value *res[2] = {NULL, NULL};
  int rc = graft_while_loop(res, 2, &n, ctx, ta_cond, size, ta_body, &d, (const graft_value *const *)vars, 2);
  graft_value *stacked = NULL;
  if (rc == GRAFT_OK) {
    GT_OK(graft_op_call_new(&c, ctx, "TensorListStack"));
    GT_OK(graft_op_call_add_input(c, res[1]));
    GT_OK(graft_op_call_add_input(c, elem_shape));
    GT_OK(graft_attrs_set_type(graft_op_call_attrs(c), "element_dtype", GRAFT_INT32));
    rc = graft_op_call_execute(&stacked, 1, &n, c);
    graft_op_call_free(c);
  }
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, stacked);
  graft_value_free(elem_shape);
  graft_value_free(zero);
  graft_value_free(list);
  graft_value_free(size);
  graft_value_free(res[0]);
  graft_value_free(res[1]);
  graft_value_free(stacked);
  return rc;
}

static void test_tensor_array_loop(void **state) {
  graft_context *ctx = *state;
  graft_value *x = NULL;
  GT_OK(graft_value_from_host(&x, ctx, GRAFT_HOST_INT64, (const int64_t[]){1, 2, 3}, (const int64_t[]){3}, 1,
                              GRAFT_DTYPE_INVALID));
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "tensor_array", tensor_array, NULL, NULL));
  graft_arg a = val(x);
  graft_value *r = call1(f, ctx, &a, 1);
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, r));
  assert_int_equal(graft_tensor_dtype(t), GRAFT_INT32);
  assert_int_equal(graft_tensor_num_elements(t), 3);
  const int32_t *p = graft_tensor_data(t);
  assert_int_equal(p[0], 2);
  assert_int_equal(p[1], 3);
  assert_int_equal(p[2], 4);
  graft_tensor_free(t);
  graft_value_free(r);
  /* The same function eagerly-free of Python: the loop length follows the input. */
  graft_value *y = NULL;
  GT_OK(graft_value_from_host(&y, ctx, GRAFT_HOST_INT64, (const int64_t[]){10, 20, 30, 40, 50}, (const int64_t[]){5},
                              1, GRAFT_DTYPE_INVALID));
  graft_arg b = val(y);
  r = call1(f, ctx, &b, 1);
  GT_OK(graft_value_to_tensor(&t, r));
  assert_int_equal(graft_tensor_num_elements(t), 5);
  assert_int_equal(((const int32_t *)graft_tensor_data(t))[4], 51);
  graft_tensor_free(t);
  graft_value_free(r);
  assert_int_equal(graft_function_tracing_count(f), 2); /* [3] and [5]: two shapes */
  graft_value_free(x);
  graft_value_free(y);
  graft_function_free(f);
}

/* ---- The host-function op ---------------------------------------------------------------- */

static int host_double(graft_tensor **outputs, int capacity, int *noutputs, graft_tensor *const *inputs, int ninputs,
                       void *ud) {
  (void)ud;
  if (ninputs != 1 || capacity < 1) return graft_error_set(GRAFT_EINVAL, "host_double takes one tensor");
  float v = *(const float *)graft_tensor_data(inputs[0]);
  if (v < 0) return graft_error_set(GRAFT_EINVAL, "negative input (raised by the host)");
  float r = 2 * v;
  int rc = graft_tensor_new(&outputs[0], GRAFT_FLOAT32, NULL, 0, &r, sizeof r);
  *noutputs = 1;
  return rc;
}

static int uses_host(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *r = NULL;
  int n = 0;
  graft_dtype tout = GRAFT_FLOAT32;
  int rc = graft_host_function_call(&r, 1, &n, ctx, "graft_test_double", &args[0].value, 1, &tout, 1);
  if (rc != GRAFT_OK) return rc;
  graft_value *plus = op2(ctx, "AddV2", r, args[0].value);
  rc = graft_value_list_append(outputs, plus);
  graft_value_free(r);
  graft_value_free(plus);
  return rc;
}

typedef struct {
  graft_context *ctx;
  graft_function *f;
  graft_value *x;
  int wrong; /* updated with __atomic builtins */
} host_thread_args;

static void *host_thread(void *p) {
  host_thread_args *a = p;
  graft_arg arg = val(a->x);
  for (int i = 0; i < 50; ++i) {
    graft_value *r = NULL;
    int n = 0;
    graft_tensor *t = NULL;
    if (graft_function_call(&r, 1, &n, a->f, a->ctx, &arg, 1) != GRAFT_OK || graft_value_to_tensor(&t, r) != GRAFT_OK ||
        *(const float *)graft_tensor_data(t) != 12.0f) {
      __atomic_add_fetch(&a->wrong, 1, __ATOMIC_SEQ_CST);
    }
    graft_tensor_free(t);
    graft_value_free(r);
  }
  return NULL;
}

static void test_host_function_op(void **state) {
  graft_context *ctx = *state;
  GT_OK(graft_host_function_register("graft_test_double", host_double, NULL, NULL));
  GT_ERR(GRAFT_EEXISTS, graft_host_function_register("graft_test_double", host_double, NULL, NULL), "graft_test_double");
  /* Eagerly. */
  graft_value *x = f32(ctx, 4);
  graft_value *r = NULL;
  int n = 0;
  graft_dtype tout = GRAFT_FLOAT32;
  GT_OK(graft_host_function_call(&r, 1, &n, ctx, "graft_test_double", (const graft_value *const *)&x, 1, &tout, 1));
  expect_floats(r, (const float[]){8}, 1);
  graft_value_free(r);
  /* Inside a traced function: it runs on every call. */
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "uses_host", uses_host, NULL, NULL));
  graft_arg a = val(x);
  for (int i = 0; i < 2; ++i) {
    r = call1(f, ctx, &a, 1);
    expect_floats(r, (const float[]){12}, 1);
    graft_value_free(r);
  }
  /* Several threads run it at once. */
  host_thread_args ta = {ctx, f, x, 0};
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i) assert_int_equal(pthread_create(&threads[i], NULL, host_thread, &ta), 0);
  for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  assert_int_equal(ta.wrong, 0);
  /* The host's error fails the call with its message. */
  graft_value *neg = f32(ctx, -1);
  graft_arg an = val(neg);
  GT_ERR(GRAFT_EINVAL, graft_function_call(&r, 1, &n, f, ctx, &an, 1), "graft_test_double", "negative input (raised by the host)");
  /* A wrong declared dtype is caught. */
  graft_dtype wrong = GRAFT_INT32;
  GT_ERR(GRAFT_EDTYPE, graft_host_function_call(&r, 1, &n, ctx, "graft_test_double", (const graft_value *const *)&x, 1, &wrong, 1),
         "output 0 is float32", "int32");
  /* Unregistered: a clear error naming the token. */
  GT_OK(graft_host_function_unregister("graft_test_double"));
  GT_ERR(GRAFT_ENOTFOUND, graft_function_call(&r, 1, &n, f, ctx, &a, 1), "graft_test_double", "not registered");
  graft_value_free(neg);
  graft_value_free(x);
  graft_function_free(f);
}

/* ---- Errors --------------------------------------------------------------------------- */

static int failing(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)ctx;
  (void)args;
  (void)nargs;
  (void)outputs;
  (void)ud;
  return graft_error_set(GRAFT_EINVAL, "the host raised ValueError");
}

static void test_errors(void **state) {
  graft_context *ctx = *state;
  graft_value *out = NULL;
  graft_op_call *c = NULL;
  GT_ERR(GRAFT_ENOTFOUND, graft_op_call_new(&c, ctx, "NoSuchOp"), "NoSuchOp");
  /* Eager kernel errors name the op; the context stays usable. */
  graft_value *a = f32s(ctx, (const double[]){1, 2}, (const int64_t[]){2}, 1);
  graft_value *b = f32s(ctx, (const double[]){1, 2, 3}, (const int64_t[]){3}, 1);
  GT_OK(graft_op_call_new(&c, ctx, "AddV2"));
  GT_OK(graft_op_call_add_input(c, a));
  GT_OK(graft_op_call_add_input(c, b));
  int n = 0;
  GT_ERR(GRAFT_EINVAL, graft_op_call_execute(&out, 1, &n, c), "AddV2");
  graft_op_call_free(c);
  graft_value *ok = op2(ctx, "AddV2", a, a);
  expect_floats(ok, (const float[]){2, 4}, 2);
  graft_value_free(ok);
  /* convert_to_tensor: values must fit. */
  double half = 1.5;
  GT_ERR(GRAFT_EDTYPE, graft_value_from_host(&out, ctx, GRAFT_HOST_DOUBLE, &half, NULL, 0, GRAFT_INT32), "int32");
  int64_t big = 300;
  GT_ERR(GRAFT_EINVAL, graft_value_from_host(&out, ctx, GRAFT_HOST_INT64, &big, NULL, 0, GRAFT_UINT8), "uint8");
  const char *s = "text";
  GT_ERR(GRAFT_EDTYPE, graft_value_from_host(&out, ctx, GRAFT_HOST_STRING, &s, NULL, 0, GRAFT_FLOAT32), "float32");
  /* Host numbers as float16 and bfloat16: rounded to nearest even through float32. */
  const double h[3] = {1.5, 70000, 0.1};
  const int64_t three[1] = {3};
  graft_tensor *ht = NULL;
  GT_OK(graft_value_from_host(&out, ctx, GRAFT_HOST_DOUBLE, h, three, 1, GRAFT_FLOAT16));
  GT_OK(graft_value_to_tensor(&ht, out));
  assert_memory_equal(graft_tensor_data(ht), ((const uint16_t[]){0x3e00, 0x7c00, 0x2e66}), 6);
  graft_tensor_free(ht);
  graft_value_free(out);
  GT_OK(graft_value_from_host(&out, ctx, GRAFT_HOST_DOUBLE, h, three, 1, GRAFT_BFLOAT16));
  GT_OK(graft_value_to_tensor(&ht, out));
  assert_memory_equal(graft_tensor_data(ht), ((const uint16_t[]){0x3fc0, 0x4789, 0x3dcd}), 6);
  graft_tensor_free(ht);
  graft_value_free(out);
  int64_t wide = 1LL << 40;
  GT_OK(graft_value_from_host(&out, ctx, GRAFT_HOST_INT64, &wide, NULL, 0, GRAFT_DTYPE_INVALID));
  assert_int_equal(graft_value_dtype(out), GRAFT_INT64);
  graft_value_free(out);
  out = NULL;
  /* A symbolic value has no contents. */
  graft_tensor *t = NULL;
  GT_ERR(GRAFT_EINVAL, graft_value_to_tensor(&t, NULL), "value");
  /* The callback's error fails the call with its message. */
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "failing", failing, NULL, NULL));
  graft_arg arg = val(a);
  GT_ERR(GRAFT_EINVAL, graft_function_call(&out, 1, &n, f, ctx, &arg, 1), "failing", "the host raised ValueError");
  assert_int_equal(graft_function_tracing_count(f), 1);
  assert_null(out);
  graft_function_free(f);
  graft_value_free(a);
  graft_value_free(b);
}

/* graft_context_clear_caches: a seeded random op continues its sequence while its kernel is
 * cached, and starts it again after the cache is cleared (tf.random.set_seed). */
/* ---- the trace's graph, built on with the graph API ------------------------------------ */

static int scoped_square(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  graft_graph *g = NULL, *again = NULL;
  GT_OK(graft_context_trace_graph(&g, ctx));
  GT_OK(graft_context_trace_graph(&again, ctx));
  assert_ptr_equal(g, again); /* one handle per trace */
  /* The argument's Placeholder is already there. */
  graft_output in;
  GT_OK(graft_value_output(&in, args[0].value));
  assert_string_equal(graft_op_type(in.op), "Placeholder");
  graft_op *found = NULL;
  GT_OK(graft_graph_op_by_name(&found, g, graft_op_name(in.op)));
  assert_ptr_equal(found, in.op);
  /* A name scope pushed on the trace's graph names the ops the trace records. */
  GT_OK(graft_graph_push_name_scope(NULL, g, "inner"));
  graft_value *sq = op2(ctx, "Square", args[0].value, NULL);
  GT_OK(graft_graph_pop_name_scope(g));
  graft_output o;
  GT_OK(graft_value_output(&o, sq));
  assert_int_equal(strncmp(graft_op_name(o.op), "inner/", 6), 0);
  *(int64_t *)ud = graft_graph_num_ops(g);
  int rc = graft_value_list_append(outputs, sq);
  graft_value_free(sq);
  /* Each call gave a reference (the trace's graph lives on in the concrete function). */
  graft_graph_free(again);
  graft_graph_free(g);
  return rc;
}

static void test_trace_graph(void **state) {
  graft_context *ctx = *state;
  graft_graph *g = NULL;
  /* Not tracing: a precondition error, and nothing written. */
  assert_int_equal(graft_context_trace_graph(&g, ctx), GRAFT_EPRECONDITION);
  assert_null(g);
  assert_non_null(strstr(graft_error_last(), "graft_context_trace_graph"));
  assert_int_equal(graft_context_trace_graph(NULL, ctx), GRAFT_EINVAL);
  assert_int_equal(graft_context_trace_graph(&g, NULL), GRAFT_EINVAL);

  int64_t ops_seen = 0;
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "scoped_square", scoped_square, &ops_seen, NULL));
  graft_value *x = f32(ctx, 3);
  graft_arg a = val(x);
  graft_value *y = call1(f, ctx, &a, 1);
  const float nine = 9;
  expect_floats(y, &nine, 1);
  assert_true(ops_seen >= 2); /* the Placeholder and the Square, at least */
  /* The concrete function's graph holds the scoped op. */
  graft_concrete_function *cf = NULL;
  GT_OK(graft_function_get_concrete(&cf, f, ctx, &a, 1));
  graft_op *sq = NULL;
  GT_OK(graft_graph_op_by_name(&sq, graft_concrete_function_graph(cf), "inner/Square"));
  assert_string_equal(graft_op_type(sq), "Square");
  graft_value_free(y);
  graft_value_free(x);
  graft_function_free(f);
}

static graft_value *seeded_uniform(graft_context *ctx) {
  graft_op_call *c = NULL;
  GT_OK(graft_op_call_new(&c, ctx, "RandomUniform"));
  graft_value *shape = NULL;
  const int64_t four = 4, one = 1;
  GT_OK(graft_value_from_host(&shape, ctx, GRAFT_HOST_INT64, &four, &one, 1, GRAFT_INT32));
  GT_OK(graft_op_call_add_input(c, shape));
  GT_OK(graft_attrs_set_type(graft_op_call_attrs(c), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_int(graft_op_call_attrs(c), "seed", 7));
  GT_OK(graft_attrs_set_int(graft_op_call_attrs(c), "seed2", 1));
  graft_value *out = NULL;
  int n = 0;
  GT_OK(graft_op_call_execute(&out, 1, &n, c));
  graft_op_call_free(c);
  graft_value_free(shape);
  return out;
}

static void test_clear_caches_restarts_random_sequences(void **state) {
  graft_context *ctx = *state;
  int64_t n = 0;
  graft_value *a = seeded_uniform(ctx), *b = seeded_uniform(ctx);
  float *first = floats_of(a, &n), *second = floats_of(b, &n);
  assert_int_equal(n, 4);
  assert_memory_not_equal(first, second, 4 * sizeof(float));  /* the sequence went on */
  graft_context_clear_caches(ctx);
  graft_context_clear_caches(NULL);  /* harmless */
  graft_value *c = seeded_uniform(ctx);
  float *third = floats_of(c, &n);
  assert_memory_equal(first, third, 4 * sizeof(float));  /* and started again */
  free(first);
  free(second);
  free(third);
  graft_value_free(a);
  graft_value_free(b);
  graft_value_free(c);
}

/* ---- Variables made while tracing --------------------------------------------------------- */

typedef struct {
  int traces;
  int every_call;       /* make a variable on every trace (not only the first) */
  graft_value *made;    /* the variable made (kept) */
} var_maker;

static int scale_by_new_variable(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs,
                                 void *ud) {
  (void)nargs;
  var_maker *m = ud;
  m->traces++;
  if (m->made == NULL || m->every_call) {
    graft_value *init = f32(ctx, 2.0), *v = NULL;
    int rc = graft_variable_new(&v, ctx, init, "v");
    graft_value_free(init);
    if (rc != GRAFT_OK) return rc;
    graft_value_free(m->made);
    m->made = v;
  }
  graft_value *r = NULL;
  GT_OK(graft_variable_read(&r, ctx, m->made));
  graft_value *y = op2(ctx, "Mul", args[0].value, r);
  int rc = graft_value_list_append(outputs, y);
  graft_value_free(r);
  graft_value_free(y);
  return rc;
}

/* A first trace that makes variables is traced once more (and thrown away), as TensorFlow
 * does: a function that makes them only once works; one that makes a new one on every call is
 * an error on its first call. */
static void test_variables_made_on_the_first_trace_only(void **state) {
  graft_context *ctx = *state;
  graft_value *x = f32(ctx, 3.0);
  graft_arg a = val(x);
  var_maker once = {0, 0, NULL};
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "scale", scale_by_new_variable, &once, NULL));
  graft_value *y = call1(f, ctx, &a, 1);
  expect_floats(y, (const float[]){6}, 1);
  graft_value_free(y);
  assert_int_equal(once.traces, 2); /* the trace and its check */
  assert_int_equal(graft_function_tracing_count(f), 1);
  y = call1(f, ctx, &a, 1);
  graft_value_free(y);
  assert_int_equal(once.traces, 2);
  graft_function_free(f);
  graft_value_free(once.made);

  var_maker every = {0, 1, NULL};
  GT_OK(graft_function_new(&f, "scale_new", scale_by_new_variable, &every, NULL));
  graft_value *out = NULL;
  int nout = 0;
  GT_ERR(GRAFT_EINVAL, graft_function_call(&out, 1, &nout, f, ctx, &a, 1), "scale_new",
         "creates variables on every call");
  graft_function_free(f);
  graft_value_free(every.made);
  graft_value_free(x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_square_plus_and_traces_per_signature, setup, teardown),
      cmocka_unit_test_setup_teardown(test_variables_made_on_the_first_trace_only, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gradients_inside_a_trace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_host_arguments_retrace_per_value, setup, teardown),
      cmocka_unit_test_setup_teardown(test_input_signature, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reduce_retracing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_variables_created_once_and_captured, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pure_functional_state, setup, teardown),
      cmocka_unit_test_setup_teardown(test_side_effects_every_call_in_order, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nested_call_and_function_library, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cond, setup, teardown),
      cmocka_unit_test_setup_teardown(test_while_loop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_while_loop_shapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensor_array_loop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_host_function_op, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_trace_graph, setup, teardown),
      cmocka_unit_test_setup_teardown(test_clear_caches_restarts_random_sequences, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
