/* Object lifetimes across the C API: graph references (graft_graph_share / _free), sessions that
 * keep their graph, symbolic values that escape their trace (after it succeeded or failed) and
 * stay inspectable but are "out of scope" as inputs, a function calling itself while traced. */
#include <stdlib.h>

#include "eager_test_util.h"
#include "graph_test_util.h"

/* ---- graphs and sessions -------------------------------------------------------------- */

static graft_op *mul(graft_graph *g, const char *name, graft_op *a, graft_op *b) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Mul", name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){b, 0}));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static float run_scalar(graft_session *s, graft_op *fetch, graft_op *feed, float v) {
  graft_tensor *in = NULL, *out = NULL;
  GT_OK(graft_tensor_new(&in, GRAFT_FLOAT32, NULL, 0, &v, sizeof v));
  graft_output f = {fetch, 0}, x = {feed, 0};
  GT_OK(graft_session_run(&out, s, &x, &in, 1, &f, 1, NULL, 0));
  float r = *(const float *)graft_tensor_data(out);
  graft_tensor_free(in);
  graft_tensor_free(out);
  return r;
}

/* A session keeps running after its graph's last reference is released, and so do its ops. */
static void test_session_outlives_graph(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, NULL, 0);
  graft_op *y = mul(g, "y", x, x);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_graph_free(g);
  assert_float_equal(run_scalar(s, y, x, 3.0f), 9.0f, 0);
  assert_string_equal(graft_op_name(y), "y");
  graft_session_free(s);
}

/* graft_graph_share: a second reference keeps the graph after the first is released; the op's
 * borrowed handle is the same handle. */
static void test_graph_share(void **state) {
  (void)state;
  graft_graph *g = NULL, *again = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, NULL, 0);
  assert_ptr_equal(graft_op_graph(x), g);
  GT_OK(graft_graph_share(&again, graft_op_graph(x)));
  assert_ptr_equal(again, g);
  graft_graph_free(g);
  assert_int_equal(graft_graph_num_ops(again), 1);
  graft_op *y = mul(again, "y", x, x);
  assert_string_equal(graft_op_type(y), "Mul");
  graft_graph_free(again);
  GT_ERR(GRAFT_EINVAL, graft_graph_share(NULL, NULL), "graft_graph_share", "NULL");
}

/* Releasing a handle when no reference is left (the graph lives on in its session) does
 * nothing: the session keeps running. */
static void test_free_without_reference_is_noop(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, NULL, 0);
  graft_op *y = mul(g, "y", x, x);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_graph_free(g);
  graft_graph_free(g); /* no reference left: ignored */
  assert_float_equal(run_scalar(s, y, x, 2.0f), 4.0f, 0);
  /* A new reference to the graph the session keeps alive. */
  graft_graph *again = NULL;
  GT_OK(graft_graph_share(&again, graft_op_graph(y)));
  assert_int_equal(graft_graph_num_ops(again), 2);
  graft_graph_free(again);
  graft_session_free(s);
}

/* ---- symbolic values that escape their trace ---------------------------------------------- */

struct escape {
  graft_value *kept;  /* a copy of the symbolic x * 2 */
  graft_graph *graph; /* a reference to the trace's graph */
  int fail;           /* return an error after keeping the value */
};

static int keep_double(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  struct escape *e = ud;
  graft_value *two = f32(ctx, 2.0);
  graft_value *y = op2(ctx, "Mul", args[0].value, two);
  graft_value_free(two);
  GT_OK(graft_value_copy(&e->kept, y));
  GT_OK(graft_context_trace_graph(&e->graph, ctx));
  if (e->fail) {
    graft_value_free(y);
    return graft_error_set(GRAFT_EINVAL, "the callback failed on purpose");
  }
  int rc = graft_value_list_append(outputs, y);
  graft_value_free(y);
  return rc;
}

static int use_kept(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)args;
  (void)nargs;
  const struct escape *e = ud;
  graft_op_call *c = NULL;
  GT_OK(graft_op_call_new(&c, ctx, "Neg"));
  GT_OK(graft_op_call_add_input(c, e->kept));
  graft_value *out = NULL;
  int n = 0;
  int rc = graft_op_call_execute(&out, 1, &n, c);
  graft_op_call_free(c);
  if (rc != GRAFT_OK) return rc;
  rc = graft_value_list_append(outputs, out);
  graft_value_free(out);
  return rc;
}

/* The escaped value is still inspectable; eagerly and in another trace it is out of scope. */
static void check_escaped(graft_context *ctx, struct escape *e) {
  assert_non_null(e->kept);
  assert_true(graft_value_is_symbolic(e->kept));
  assert_int_equal(graft_value_dtype(e->kept), GRAFT_FLOAT32);
  graft_shape *shape = NULL;
  GT_OK(graft_value_shape(&shape, e->kept));
  assert_int_equal(graft_shape_rank(shape), 0);
  graft_shape_free(shape);
  graft_output o;
  GT_OK(graft_value_output(&o, e->kept));
  assert_string_equal(graft_op_type(o.op), "Mul");
  assert_ptr_equal(graft_op_graph(o.op), e->graph);
  assert_true(graft_graph_num_ops(e->graph) >= 3);

  /* Eagerly: an error naming the tensor. */
  graft_op_call *c = NULL;
  GT_OK(graft_op_call_new(&c, ctx, "Neg"));
  GT_OK(graft_op_call_add_input(c, e->kept));
  graft_value *out = NULL;
  int n = 0;
  GT_ERR(GRAFT_EINVAL, graft_op_call_execute(&out, 1, &n, c), "Neg op", "out of scope", ":0'");
  graft_op_call_free(c);

  /* In another function's trace: the same error, and the function stays usable. */
  graft_function *g = NULL;
  GT_OK(graft_function_new(&g, "use_kept", use_kept, e, NULL));
  graft_value *x = f32(ctx, 1.0);
  graft_arg a = {GRAFT_ARG_VALUE, x, 0, 0, NULL, 0};
  GT_ERR(GRAFT_EINVAL, graft_function_call(&out, 1, &n, g, ctx, &a, 1), "use_kept", "out of scope");
  graft_value_free(x);
  graft_function_free(g);
}

static void escape_from(graft_context *ctx, int fail) {
  struct escape e = {NULL, NULL, fail};
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "keep_double", keep_double, &e, NULL));
  graft_value *x = f32(ctx, 1.5);
  graft_arg a = {GRAFT_ARG_VALUE, x, 0, 0, NULL, 0};
  graft_value *out = NULL;
  int n = 0;
  if (fail) {
    GT_ERR(GRAFT_EINVAL, graft_function_call(&out, 1, &n, f, ctx, &a, 1), "failed on purpose");
  } else {
    GT_OK(graft_function_call(&out, 1, &n, f, ctx, &a, 1));
    expect_floats(out, (const float[]){3.0f}, 1);
    graft_value_free(out);
  }
  graft_value_free(x);
  graft_function_free(f); /* the concrete function (if any) and the trace are gone */
  check_escaped(ctx, &e);
  graft_value_free(e.kept);
  graft_graph_free(e.graph); /* the last user of the trace's graph */
}

static void test_escape_successful_trace(void **state) { escape_from(*state, 0); }
static void test_escape_failed_trace(void **state) { escape_from(*state, 1); }

/* A concrete function's graph, shared, outlives the function. */
static void test_concrete_graph_outlives_function(void **state) {
  graft_context *ctx = *state;
  struct escape e = {NULL, NULL, 0};
  graft_function *f = NULL;
  GT_OK(graft_function_new(&f, "keep_double", keep_double, &e, NULL));
  graft_value *x = f32(ctx, 1.0);
  graft_arg a = {GRAFT_ARG_VALUE, x, 0, 0, NULL, 0};
  graft_concrete_function *cf = NULL;
  GT_OK(graft_function_get_concrete(&cf, f, ctx, &a, 1));
  graft_graph *g = NULL;
  GT_OK(graft_graph_share(&g, graft_concrete_function_graph(cf)));
  int64_t nops = graft_graph_num_ops(g);
  graft_value_free(e.kept);
  graft_graph_free(e.graph);
  graft_function_free(f);
  graft_value_free(x);
  assert_int_equal(graft_graph_num_ops(g), nops);
  graft_op *found = NULL;
  GT_OK(graft_graph_op_by_name(&found, g, "Mul"));
  graft_graph_free(g);
}

/* ---- a function that calls itself while being traced ------------------------------------ */

struct self_call {
  graft_function *f;
  int depth;
  int vary; /* call with a new host argument each time (never the same signature) */
};

static int call_self(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  struct self_call *s = ud;
  ++s->depth;
  graft_arg a = args[0];
  if (s->vary) a.i = args[0].i + 1;
  graft_value *out = NULL;
  int n = 0;
  int rc = graft_function_call(&out, 1, &n, s->f, ctx, &a, 1);
  if (rc != GRAFT_OK) return rc;
  rc = graft_value_list_append(outputs, out);
  graft_value_free(out);
  return rc;
}

static void test_function_calls_itself(void **state) {
  graft_context *ctx = *state;
  struct self_call s = {NULL, 0, 0};
  GT_OK(graft_function_new(&s.f, "recurse", call_self, &s, NULL));
  graft_arg a = {GRAFT_ARG_INT, NULL, 7, 0, NULL, 0};
  graft_value *out = NULL;
  int n = 0;
  GT_ERR(GRAFT_EINVAL, graft_function_call(&out, 1, &n, s.f, ctx, &a, 1), "recurse", "calls itself");
  assert_int_equal(s.depth, 1);
  /* With a new signature every time, the nesting limit stops it. */
  s.vary = 1;
  s.depth = 0;
  GT_ERR(GRAFT_ENOMEM, graft_function_call(&out, 1, &n, s.f, ctx, &a, 1), "nested too deeply", "limit");
  assert_true(s.depth >= 50 && s.depth <= 200);
  assert_false(graft_context_is_tracing(ctx));
  graft_function_free(s.f);
}

static int setup(void **state) {
  graft_context *ctx = NULL;
  if (graft_context_new(&ctx) != GRAFT_OK) return -1;
  *state = ctx;
  return 0;
}

static int teardown(void **state) {
  graft_context_free(*state);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_session_outlives_graph),
      cmocka_unit_test(test_graph_share),
      cmocka_unit_test(test_free_without_reference_is_noop),
      cmocka_unit_test_setup_teardown(test_escape_successful_trace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_escape_failed_trace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_concrete_graph_outlives_function, setup, teardown),
      cmocka_unit_test_setup_teardown(test_function_calls_itself, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
