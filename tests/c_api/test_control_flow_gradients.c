/* Symbolic gradients through control flow (graft/gradients.h), checked against the analytic
 * values: a functional If and While whose branch, condition and body functions are traced with
 * graft_function_new and added to the graph's library, a While nested in a While's body; the
 * same loop built as a TensorFlow 1 loop (Enter/Merge/Switch/LoopCond/NextIteration/Exit), a
 * TensorFlow 1 loop nested in another, a TensorFlow 1 cond (Switch/Merge), also inside a loop;
 * errors: a loop body with an op that has no gradient names the op, a malformed TensorFlow 1
 * loop names what is wrong, and both leave the graph as it was; the stack ops (StackV2, ...)
 * that While gradients keep each iteration's values in; gradients through calls of imported
 * functions (graph_def_writer.h) that recurse or nest past the runtime's limit of 64 fail
 * cleanly, naming the function, where they used to overflow the stack. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft/control_flow.h"
#include "eager_test_util.h"
#include "graph_def_writer.h"
#include "graph_test_util.h"

typedef struct {
  graft_context *ctx;
  graft_graph *g;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  GT_OK(graft_context_new(&f->ctx));
  GT_OK(graft_graph_new(&f->g));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  graft_graph_free(f->g);
  graft_context_free(f->ctx);
  free(f);
  return 0;
}

#define OUT(op, i) ((graft_output){(op), (i)})

static int append(graft_value_list *outputs, graft_value *v) {
  int rc = graft_value_list_append(outputs, v);
  graft_value_free(v);
  return rc;
}

/* ---- traced functions ---------------------------------------------------------------- */

static int then_fn(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)ud;
  assert_int_equal(nargs, 2);
  return append(outputs, op2(ctx, "Mul", args[0].value, args[1].value));
}

static int else_fn(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)ud;
  assert_int_equal(nargs, 2);
  return append(outputs, op2(ctx, "Sin", args[0].value, NULL));
}

/* Loop variables (i: int32, x, w: float32 vectors): while i < 3: x = x * w; i += 1. */
static int loop_cond(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)ud;
  assert_int_equal(nargs, 3);
  graft_value *three = i32(ctx, 3);
  int rc = append(outputs, op2(ctx, "Less", args[0].value, three));
  graft_value_free(three);
  return rc;
}

static int loop_body(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  const int check = ud != NULL; /* the body with an op that has no gradient */
  assert_int_equal(nargs, 3);
  graft_value *one = i32(ctx, 1);
  int rc = append(outputs, op2(ctx, "AddV2", args[0].value, one));
  graft_value_free(one);
  graft_value *x = op2(ctx, "Mul", args[1].value, args[2].value);
  if (check) {
    graft_op_call *c = NULL;
    GT_OK(graft_op_call_new(&c, ctx, "CheckNumerics"));
    GT_OK(graft_op_call_add_input(c, x));
    GT_OK(graft_attrs_set_string(graft_op_call_attrs(c), "message", "m", 1));
    GT_OK(graft_op_call_set_name(c, "check_x"));
    graft_value *checked = NULL;
    int n = 0;
    GT_OK(graft_op_call_execute(&checked, 1, &n, c));
    graft_op_call_free(c);
    graft_value_free(x);
    x = checked;
  }
  if (rc == GRAFT_OK) rc = append(outputs, x);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, args[2].value);
  return rc;
}

/* A body whose x grows: (i, x, w) -> (i + 1, pad(2 x, one zero at the end), w). */
static int growing_body(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)ud;
  assert_int_equal(nargs, 3);
  graft_value *one = i32(ctx, 1), *two = f32(ctx, 2), *paddings = NULL;
  const int64_t pad[2] = {0, 1}, pad_dims[2] = {1, 2};
  GT_OK(graft_value_from_host(&paddings, ctx, GRAFT_HOST_INT64, pad, pad_dims, 2, GRAFT_INT32));
  int rc = append(outputs, op2(ctx, "AddV2", args[0].value, one));
  graft_value *twice = op2(ctx, "Mul", args[1].value, two);
  if (rc == GRAFT_OK) rc = append(outputs, op2(ctx, "Pad", twice, paddings));
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, args[2].value);
  graft_value_free(twice);
  graft_value_free(one);
  graft_value_free(two);
  graft_value_free(paddings);
  return rc;
}

/* The body of an outer loop: (i, x, w) -> (i + 1, inner(x), w) where the inner loop (traced
 * with graft_while_loop, so a While inside the body function) multiplies x by w three times. */
static int outer_body(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)ud;
  assert_int_equal(nargs, 3);
  graft_value *zero = i32(ctx, 0);
  const graft_value *vars[3] = {zero, args[1].value, args[2].value};
  graft_value *inner[3] = {NULL, NULL, NULL};
  int n = 0;
  int rc = graft_while_loop(inner, 3, &n, ctx, loop_cond, NULL, loop_body, NULL, vars, 3);
  graft_value_free(zero);
  if (rc != GRAFT_OK) return rc;
  graft_value *one = i32(ctx, 1);
  rc = append(outputs, op2(ctx, "AddV2", args[0].value, one));
  graft_value_free(one);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, inner[1]);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, args[2].value);
  for (int i = 0; i < 3; ++i) graft_value_free(inner[i]);
  return rc;
}

/* Traces fn for specs and adds it to g's library; its name (valid while *fn_out lives). */
static const char *add_function(fixture *f, const char *name, graft_trace_fn fn, void *ud,
                                const graft_tensor_spec *specs, int n, graft_function **fn_out) {
  GT_OK(graft_function_new(fn_out, name, fn, ud, NULL));
  graft_concrete_function *cf = NULL;
  GT_OK(graft_function_get_concrete_for_specs(&cf, *fn_out, f->ctx, specs, n));
  GT_OK(graft_concrete_function_add_to_graph(cf, f->g));
  return graft_concrete_function_name(cf);
}

/* ---- running ------------------------------------------------------------------------- */

typedef struct {
  graft_op *op;
  graft_tensor *value;
} feed;

static graft_tensor *f32_tensor(const float *v, int64_t n) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, &n, 1, v, sizeof(float) * (size_t)n));
  return t;
}

/* Runs g with the feeds and checks fetch against want (n floats). */
static void expect(graft_graph *g, const feed *feeds, int nfeeds, graft_output fetch, const float *want, int n) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output outs[4];
  graft_tensor *vals[4];
  for (int i = 0; i < nfeeds; ++i) {
    outs[i] = OUT(feeds[i].op, 0);
    vals[i] = feeds[i].value;
  }
  graft_tensor *result = NULL;
  GT_OK(graft_session_run(&result, s, outs, vals, nfeeds, &fetch, 1, NULL, 0));
  assert_int_equal(graft_tensor_num_elements(result), n);
  const float *got = graft_tensor_data(result);
  for (int i = 0; i < n; ++i) {
    if (fabsf(got[i] - want[i]) > 1e-5f * (1.0f + fabsf(want[i]))) {
      print_error("element %d: got %g, expected %g\n", i, (double)got[i], (double)want[i]);
      fail();
    }
  }
  graft_tensor_free(result);
  graft_session_free(s);
}

static const int64_t kDims[1] = {2};

/* ---- functional If ----------------------------------------------------------------------- */

/* y = If(p, then: a * b, else: sin(a)): dy/da = b or cos(a), dy/db = a or 0. */
static void test_if(void **state) {
  fixture *f = *state;
  graft_tensor_spec specs[2] = {{GRAFT_FLOAT32, kDims, 1, NULL}, {GRAFT_FLOAT32, kDims, 1, NULL}};
  graft_function *tf = NULL, *ef = NULL;
  const char *then_name = add_function(f, "then_branch", then_fn, NULL, specs, 2, &tf);
  const char *else_name = add_function(f, "else_branch", else_fn, NULL, specs, 2, &ef);
  graft_op *p = make_placeholder(f->g, "p", GRAFT_BOOL, NULL, 0);
  graft_op *a = make_placeholder(f->g, "a", GRAFT_FLOAT32, kDims, 1);
  graft_op *b = make_placeholder(f->g, "b", GRAFT_FLOAT32, kDims, 1);
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, f->g, "StatelessIf", "cond"));
  GT_OK(graft_op_desc_add_input(d, OUT(p, 0)));
  graft_output ins[2] = {OUT(a, 0), OUT(b, 0)};
  GT_OK(graft_op_desc_add_input_list(d, ins, 2));
  graft_dtype tout[1] = {GRAFT_FLOAT32};
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "Tout", tout, 1));
  GT_OK(graft_attrs_set_func(graft_op_desc_attrs(d), "then_branch", then_name));
  GT_OK(graft_attrs_set_func(graft_op_desc_attrs(d), "else_branch", else_name));
  graft_op *y = NULL;
  GT_OK(graft_op_desc_finish(&y, d));

  graft_output ys[1] = {OUT(y, 0)}, xs[2] = {OUT(a, 0), OUT(b, 0)}, grads[2];
  GT_OK(graft_graph_add_gradients(grads, f->g, ys, 1, xs, 2, NULL, NULL));
  assert_non_null(grads[0].op);
  assert_non_null(grads[1].op);
  assert_string_equal(graft_op_type(grads[0].op), "StatelessIf");

  const float av[2] = {0.5f, -2.0f}, bv[2] = {3.0f, 4.0f};
  graft_tensor *at = f32_tensor(av, 2), *bt = f32_tensor(bv, 2), *pt = NULL;
  for (int taken = 0; taken < 2; ++taken) {
    const uint8_t pv = (uint8_t)taken;
    GT_OK(graft_tensor_new(&pt, GRAFT_BOOL, NULL, 0, &pv, sizeof pv));
    feed feeds[3] = {{p, pt}, {a, at}, {b, bt}};
    float da[2], db[2];
    for (int i = 0; i < 2; ++i) {
      da[i] = taken ? bv[i] : cosf(av[i]);
      db[i] = taken ? av[i] : 0.0f;
    }
    expect(f->g, feeds, 3, grads[0], da, 2);
    expect(f->g, feeds, 3, grads[1], db, 2);
    graft_tensor_free(pt);
  }
  graft_tensor_free(at);
  graft_tensor_free(bt);
  graft_function_free(tf);
  graft_function_free(ef);
}

/* ---- functional While -------------------------------------------------------------------- */

static graft_op *int_const(graft_graph *g, const char *name, int32_t v, graft_op *control) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_INT32, NULL, 0, &v, sizeof v));
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Const", name));
  GT_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_INT32));
  if (control) GT_OK(graft_op_desc_add_control_input(d, control));
  graft_tensor_free(t);
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* A StatelessWhile over (0, x, w) with loop_cond and body (traced with user data ud). */
static graft_op *functional_loop(fixture *f, graft_op *x, graft_op *w, graft_trace_fn body_fn, void *ud,
                                 graft_function **fns) {
  const int64_t any[1] = {-1};
  const int growing = body_fn == growing_body; /* x's length changes: traced for any length */
  graft_tensor_spec specs[3] = {{GRAFT_INT32, NULL, 0, NULL},
                                {GRAFT_FLOAT32, growing ? any : kDims, 1, NULL},
                                {GRAFT_FLOAT32, kDims, 1, NULL}};
  const char *cond = add_function(f, "loop_cond", loop_cond, NULL, specs, 3, &fns[0]);
  const char *body = add_function(f, "loop_body", body_fn, ud, specs, 3, &fns[1]);
  graft_op *i0 = int_const(f->g, "i0", 0, NULL);
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, f->g, "StatelessWhile", "loop"));
  graft_output ins[3] = {OUT(i0, 0), OUT(x, 0), OUT(w, 0)};
  GT_OK(graft_op_desc_add_input_list(d, ins, 3));
  GT_OK(graft_attrs_set_func(graft_op_desc_attrs(d), "cond", cond));
  GT_OK(graft_attrs_set_func(graft_op_desc_attrs(d), "body", body));
  if (growing) {
    const int64_t *dims[3] = {NULL, any, kDims};
    const int ndims[3] = {0, 1, 1};
    GT_OK(graft_attrs_set_shape_list(graft_op_desc_attrs(d), "output_shapes", dims, ndims, 3));
  }
  graft_op *loop = NULL;
  GT_OK(graft_op_desc_finish(&loop, d));
  return loop;
}

/* y = x * w^p: dy/dx = w^p, dy/dw = p x w^(p-1) (times the upstream gradient, here ones). */
static void check_power(graft_graph *g, graft_op *x, graft_op *w, const graft_output *grads, int p) {
  const float xv[2] = {1.5f, -2.0f}, wv[2] = {0.5f, 1.25f};
  graft_tensor *xt = f32_tensor(xv, 2), *wt = f32_tensor(wv, 2);
  feed feeds[2] = {{x, xt}, {w, wt}};
  float dx[2], dw[2];
  for (int i = 0; i < 2; ++i) {
    dx[i] = powf(wv[i], (float)p);
    dw[i] = (float)p * xv[i] * powf(wv[i], (float)(p - 1));
  }
  expect(g, feeds, 2, grads[0], dx, 2);
  expect(g, feeds, 2, grads[1], dw, 2);
  graft_tensor_free(xt);
  graft_tensor_free(wt);
}

static void test_while(void **state) {
  fixture *f = *state;
  graft_op *x = make_placeholder(f->g, "x", GRAFT_FLOAT32, kDims, 1);
  graft_op *w = make_placeholder(f->g, "w", GRAFT_FLOAT32, kDims, 1);
  graft_function *fns[2] = {NULL, NULL};
  graft_op *loop = functional_loop(f, x, w, loop_body, NULL, fns);
  graft_output ys[1] = {OUT(loop, 1)}, xs[2] = {OUT(x, 0), OUT(w, 0)}, grads[2];
  GT_OK(graft_graph_add_gradients(grads, f->g, ys, 1, xs, 2, NULL, NULL));
  check_power(f->g, x, w, grads, 3);
  graft_function_free(fns[0]);
  graft_function_free(fns[1]);
}

/* x grows by one element in each of three iterations (and doubles): the result is
 * (8 x0, 8 x1, 0, 0, 0), so each element of x gets 8 (the backward loop's gradients shrink back
 * as the forward values grew). */
static void test_while_changing_shape(void **state) {
  fixture *f = *state;
  graft_op *x = make_placeholder(f->g, "x", GRAFT_FLOAT32, kDims, 1);
  graft_op *w = make_placeholder(f->g, "w", GRAFT_FLOAT32, kDims, 1);
  graft_function *fns[2] = {NULL, NULL};
  graft_op *loop = functional_loop(f, x, w, growing_body, NULL, fns);
  graft_output ys[1] = {OUT(loop, 1)}, xs[1] = {OUT(x, 0)}, grads[1];
  GT_OK(graft_graph_add_gradients(grads, f->g, ys, 1, xs, 1, NULL, NULL));
  const float xv[2] = {1, 2}, eight[2] = {8, 8};
  graft_tensor *xt = f32_tensor(xv, 2), *wt = f32_tensor(xv, 2);
  feed feeds[2] = {{x, xt}, {w, wt}};
  expect(f->g, feeds, 2, grads[0], eight, 2);
  graft_tensor_free(xt);
  graft_tensor_free(wt);
  graft_function_free(fns[0]);
  graft_function_free(fns[1]);
}

/* Three iterations of an outer loop whose body runs an inner loop of three: x * w^9. */
static void test_nested_while(void **state) {
  fixture *f = *state;
  graft_op *x = make_placeholder(f->g, "x", GRAFT_FLOAT32, kDims, 1);
  graft_op *w = make_placeholder(f->g, "w", GRAFT_FLOAT32, kDims, 1);
  graft_function *fns[2] = {NULL, NULL};
  graft_op *loop = functional_loop(f, x, w, outer_body, NULL, fns);
  graft_output ys[1] = {OUT(loop, 1)}, xs[2] = {OUT(x, 0), OUT(w, 0)}, grads[2];
  GT_OK(graft_graph_add_gradients(grads, f->g, ys, 1, xs, 2, NULL, NULL));
  check_power(f->g, x, w, grads, 9);
  graft_function_free(fns[0]);
  graft_function_free(fns[1]);
}

static void test_while_without_a_gradient(void **state) {
  fixture *f = *state;
  graft_op *x = make_placeholder(f->g, "x", GRAFT_FLOAT32, kDims, 1);
  graft_op *w = make_placeholder(f->g, "w", GRAFT_FLOAT32, kDims, 1);
  graft_function *fns[2] = {NULL, NULL};
  int check = 1;
  graft_op *loop = functional_loop(f, x, w, loop_body, &check, fns);
  const int64_t before = graft_graph_version(f->g);
  const int nfunctions = graft_graph_num_functions(f->g);
  graft_output ys[1] = {OUT(loop, 1)}, xs[2] = {OUT(x, 0), OUT(w, 0)}, grads[2];
  GT_ERR(GRAFT_ENOTFOUND, graft_graph_add_gradients(grads, f->g, ys, 1, xs, 2, NULL, NULL), "'loop'", "check_x",
         "CheckNumerics");
  assert_int_equal(graft_graph_version(f->g), before);
  assert_int_equal(graft_graph_num_functions(f->g), nfunctions);
  graft_function_free(fns[0]);
  graft_function_free(fns[1]);
}

/* ---- TensorFlow 1 loop and cond -------------------------------------------------------- */

static graft_op *op1(graft_graph *g, const char *type, const char *name, graft_output x) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, x));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *op2g(graft_graph *g, const char *type, const char *name, graft_output a, graft_output b) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, a));
  GT_OK(graft_op_desc_add_input(d, b));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *enter(graft_graph *g, const char *name, graft_output x, const char *frame, int constant) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Enter", name));
  GT_OK(graft_op_desc_add_input(d, x));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "frame_name", frame, strlen(frame)));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "is_constant", constant));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *merge2(graft_graph *g, const char *name, graft_output a) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Merge", name));
  graft_output ins[2] = {a, a};
  GT_OK(graft_op_desc_add_input_list(d, ins, 2));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* The body of a TensorFlow 1 loop: the next x from the loop's x and w. */
typedef graft_output (*tf1_body_fn)(graft_graph *g, const char *prefix, graft_output x, graft_output w, graft_op *anchor);

/* while i < n: x = body(x, w); i += 1, as TensorFlow 1's while_loop builds it (w loop-invariant),
 * in frame `prefix`; anchor (or NULL) puts the initial counter into an enclosing frame. The
 * Exit of x. */
static graft_op *tf1_loop(graft_graph *g, const char *prefix, graft_output x, graft_output w, int n,
                          tf1_body_fn body, graft_op *anchor) {
  char name[64];
#define N(suffix) (snprintf(name, sizeof name, "%s/%s", prefix, suffix), name)
  graft_op *i0 = int_const(g, N("i0"), 0, anchor);
  graft_op *ie = enter(g, N("i_enter"), OUT(i0, 0), prefix, 0);
  graft_op *xe = enter(g, N("x_enter"), x, prefix, 0);
  graft_op *we = enter(g, N("w_enter"), w, prefix, 1);
  graft_op *im = merge2(g, N("i_merge"), OUT(ie, 0));
  graft_op *xm = merge2(g, N("x_merge"), OUT(xe, 0));
  graft_op *limit = int_const(g, N("limit"), n, im);
  graft_op *less = op2g(g, "Less", N("less"), OUT(im, 0), OUT(limit, 0));
  graft_op *lc = op1(g, "LoopCond", N("cond"), OUT(less, 0));
  graft_op *isw = op2g(g, "Switch", N("i_switch"), OUT(im, 0), OUT(lc, 0));
  graft_op *xsw = op2g(g, "Switch", N("x_switch"), OUT(xm, 0), OUT(lc, 0));
  graft_op *xexit = op1(g, "Exit", N("x_exit"), OUT(xsw, 0));
  (void)op1(g, "Exit", N("i_exit"), OUT(isw, 0));
  graft_op *ib = op1(g, "Identity", N("i_body"), OUT(isw, 1));
  graft_op *xb = op1(g, "Identity", N("x_body"), OUT(xsw, 1));
  graft_op *one = int_const(g, N("one"), 1, ib);
  graft_op *inew = op2g(g, "AddV2", N("i_new"), OUT(ib, 0), OUT(one, 0));
  char inner[64];
  snprintf(inner, sizeof inner, "%s/inner", prefix);
  graft_output xnew = body(g, inner, OUT(xb, 0), OUT(we, 0), ib);
  graft_op *inext = op1(g, "NextIteration", N("i_next"), OUT(inew, 0));
  graft_op *xnext = op1(g, "NextIteration", N("x_next"), xnew);
  GT_OK(graft_graph_update_merge_input(g, im, 1, OUT(inext, 0)));
  GT_OK(graft_graph_update_merge_input(g, xm, 1, OUT(xnext, 0)));
#undef N
  return xexit;
}

static graft_output times_w(graft_graph *g, const char *prefix, graft_output x, graft_output w, graft_op *anchor) {
  (void)anchor;
  char name[64];
  snprintf(name, sizeof name, "%s_mul", prefix);
  return OUT(op2g(g, "Mul", name, x, w), 0);
}

/* A cond in the loop body: x * w in the first iteration (i < 1), x afterwards. anchor is the
 * body's counter i. */
static graft_output times_w_once(graft_graph *g, const char *prefix, graft_output x, graft_output w, graft_op *anchor) {
  char name[64];
#define N(suffix) (snprintf(name, sizeof name, "%s/%s", prefix, suffix), name)
  graft_op *one = int_const(g, N("one"), 1, anchor);
  graft_op *first = op2g(g, "Less", N("first"), OUT(anchor, 0), OUT(one, 0));
  graft_op *sx = op2g(g, "Switch", N("x_switch"), x, OUT(first, 0));
  graft_op *sw = op2g(g, "Switch", N("w_switch"), w, OUT(first, 0));
  graft_op *mul = op2g(g, "Mul", N("mul"), OUT(sx, 1), OUT(sw, 1));
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Merge", N("merge")));
  graft_output ins[2] = {OUT(sx, 0), OUT(mul, 0)};
  GT_OK(graft_op_desc_add_input_list(d, ins, 2));
  graft_op *merge = NULL;
  GT_OK(graft_op_desc_finish(&merge, d));
#undef N
  return OUT(merge, 0);
}

/* An inner loop of three iterations of times_w. */
static graft_output inner_loop(graft_graph *g, const char *prefix, graft_output x, graft_output w, graft_op *anchor) {
  return OUT(tf1_loop(g, prefix, x, w, 3, times_w, anchor), 0);
}

static void test_tf1_loop(void **state) {
  fixture *f = *state;
  graft_op *x = make_placeholder(f->g, "x", GRAFT_FLOAT32, kDims, 1);
  graft_op *w = make_placeholder(f->g, "w", GRAFT_FLOAT32, kDims, 1);
  graft_op *exit = tf1_loop(f->g, "loop", OUT(x, 0), OUT(w, 0), 3, times_w, NULL);
  graft_output ys[1] = {OUT(exit, 0)}, xs[2] = {OUT(x, 0), OUT(w, 0)}, grads[2];
  GT_OK(graft_graph_add_gradients(grads, f->g, ys, 1, xs, 2, NULL, NULL));
  check_power(f->g, x, w, grads, 3);
}

/* Two iterations of an outer loop whose body is an inner loop of three: x * w^6. */
static void test_tf1_nested_loop(void **state) {
  fixture *f = *state;
  graft_op *x = make_placeholder(f->g, "x", GRAFT_FLOAT32, kDims, 1);
  graft_op *w = make_placeholder(f->g, "w", GRAFT_FLOAT32, kDims, 1);
  graft_op *exit = tf1_loop(f->g, "outer", OUT(x, 0), OUT(w, 0), 2, inner_loop, NULL);
  graft_output ys[1] = {OUT(exit, 0)}, xs[2] = {OUT(x, 0), OUT(w, 0)}, grads[2];
  GT_OK(graft_graph_add_gradients(grads, f->g, ys, 1, xs, 2, NULL, NULL));
  check_power(f->g, x, w, grads, 6);
}

/* Three iterations of a loop whose body multiplies by w in a cond taken only the first time:
 * x * w. */
static void test_tf1_cond_inside_a_loop(void **state) {
  fixture *f = *state;
  graft_op *x = make_placeholder(f->g, "x", GRAFT_FLOAT32, kDims, 1);
  graft_op *w = make_placeholder(f->g, "w", GRAFT_FLOAT32, kDims, 1);
  graft_op *exit = tf1_loop(f->g, "loop", OUT(x, 0), OUT(w, 0), 3, times_w_once, NULL);
  graft_output ys[1] = {OUT(exit, 0)}, xs[2] = {OUT(x, 0), OUT(w, 0)}, grads[2];
  GT_OK(graft_graph_add_gradients(grads, f->g, ys, 1, xs, 2, NULL, NULL));
  check_power(f->g, x, w, grads, 1);
}

/* cond(p, a * b, sin(a)) with Switch and Merge. */
static void test_tf1_cond(void **state) {
  fixture *f = *state;
  graft_graph *g = f->g;
  graft_op *p = make_placeholder(g, "p", GRAFT_BOOL, NULL, 0);
  graft_op *a = make_placeholder(g, "a", GRAFT_FLOAT32, kDims, 1);
  graft_op *b = make_placeholder(g, "b", GRAFT_FLOAT32, kDims, 1);
  graft_op *sa = op2g(g, "Switch", "cond/a", OUT(a, 0), OUT(p, 0));
  graft_op *sb = op2g(g, "Switch", "cond/b", OUT(b, 0), OUT(p, 0));
  graft_op *mul = op2g(g, "Mul", "cond/mul", OUT(sa, 1), OUT(sb, 1));
  graft_op *sin = op1(g, "Sin", "cond/sin", OUT(sa, 0));
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Merge", "cond/merge"));
  graft_output ins[2] = {OUT(sin, 0), OUT(mul, 0)};
  GT_OK(graft_op_desc_add_input_list(d, ins, 2));
  graft_op *merge = NULL;
  GT_OK(graft_op_desc_finish(&merge, d));
  graft_output ys[1] = {OUT(merge, 0)}, xs[2] = {OUT(a, 0), OUT(b, 0)}, grads[2];
  GT_OK(graft_graph_add_gradients(grads, g, ys, 1, xs, 2, NULL, NULL));
  const float av[2] = {0.5f, -2.0f}, bv[2] = {3.0f, 4.0f};
  graft_tensor *at = f32_tensor(av, 2), *bt = f32_tensor(bv, 2);
  for (int taken = 0; taken < 2; ++taken) {
    const uint8_t pv = (uint8_t)taken;
    graft_tensor *pt = NULL;
    GT_OK(graft_tensor_new(&pt, GRAFT_BOOL, NULL, 0, &pv, sizeof pv));
    feed feeds[3] = {{p, pt}, {a, at}, {b, bt}};
    float da[2];
    for (int i = 0; i < 2; ++i) da[i] = taken ? bv[i] : cosf(av[i]);
    expect(g, feeds, 3, grads[0], da, 2);
    if (taken) expect(g, feeds, 3, grads[1], av, 2);
    graft_tensor_free(pt);
  }
  graft_tensor_free(at);
  graft_tensor_free(bt);
}

/* A cycle through Merge and NextIteration without a LoopCond is no well-formed loop. */
static void test_tf1_loop_without_loop_cond(void **state) {
  fixture *f = *state;
  graft_graph *g = f->g;
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, kDims, 1);
  graft_op *xe = enter(g, "loop/x_enter", OUT(x, 0), "loop", 0);
  graft_op *xm = merge2(g, "loop/x_merge", OUT(xe, 0));
  graft_op *sq = op1(g, "Square", "loop/square", OUT(xm, 0));
  graft_op *next = op1(g, "NextIteration", "loop/next", OUT(sq, 0));
  GT_OK(graft_graph_update_merge_input(g, xm, 1, OUT(next, 0)));
  graft_op *exit = op1(g, "Exit", "loop/exit", OUT(sq, 0));
  const int64_t before = graft_graph_version(g);
  graft_output ys[1] = {OUT(exit, 0)}, xs[1] = {OUT(x, 0)}, grads[1];
  GT_ERR(GRAFT_EINVAL, graft_graph_add_gradients(grads, g, ys, 1, xs, 1, NULL, NULL), "frame 'loop'", "LoopCond");
  assert_int_equal(graft_graph_version(g), before);
}

/* ---- the stack ops the loop gradients keep iterations' values in ------------------------ */

static graft_op *stack_op(graft_graph *g, const char *type, const char *name, graft_output *ins, int n,
                          graft_op *after) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  for (int i = 0; i < n; ++i) GT_OK(graft_op_desc_add_input(d, ins[i]));
  if (strcmp(type, "StackV2") == 0 || strcmp(type, "StackPopV2") == 0) {
    GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "elem_type", GRAFT_FLOAT32));
  }
  if (after) GT_OK(graft_op_desc_add_control_input(d, after));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* Pushes 1 then 2, pops 2 then 1; a third pop finds the stack empty; pushing an int32 onto a
 * float32 stack is a dtype error. */
static void test_stack_ops(void **state) {
  fixture *f = *state;
  graft_graph *g = f->g;
  graft_op *unbounded = int_const(g, "unbounded", -1, NULL);
  graft_op *stack = stack_op(g, "StackV2", "stack", (graft_output[]){OUT(unbounded, 0)}, 1, NULL);
  graft_op *one = make_const(g, "one", 1.0f), *two = make_const(g, "two", 2.0f);
  graft_op *push1 = stack_op(g, "StackPushV2", "push1", (graft_output[]){OUT(stack, 0), OUT(one, 0)}, 2, NULL);
  graft_op *push2 = stack_op(g, "StackPushV2", "push2", (graft_output[]){OUT(stack, 0), OUT(two, 0)}, 2, push1);
  graft_op *pop1 = stack_op(g, "StackPopV2", "pop1", (graft_output[]){OUT(stack, 0)}, 1, push2);
  graft_op *pop2 = stack_op(g, "StackPopV2", "pop2", (graft_output[]){OUT(stack, 0)}, 1, pop1);
  graft_op *pop3 = stack_op(g, "StackPopV2", "pop3", (graft_output[]){OUT(stack, 0)}, 1, pop2);
  graft_op *wrong = stack_op(g, "StackPushV2", "wrong", (graft_output[]){OUT(stack, 0), OUT(unbounded, 0)}, 2, NULL);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fetches[2] = {OUT(pop1, 0), OUT(pop2, 0)};
  graft_tensor *outs[2] = {NULL, NULL};
  GT_OK(graft_session_run(outs, s, NULL, NULL, 0, fetches, 2, NULL, 0));
  assert_float_equal(*(const float *)graft_tensor_data(outs[0]), 2.0f, 0);
  assert_float_equal(*(const float *)graft_tensor_data(outs[1]), 1.0f, 0);
  graft_tensor_free(outs[0]);
  graft_tensor_free(outs[1]);
  graft_tensor *out = NULL;
  graft_output third = OUT(pop3, 0), bad = OUT(wrong, 0);
  GT_ERR(GRAFT_ERANGE, graft_session_run(&out, s, NULL, NULL, 0, &third, 1, NULL, 0), "pop3", "empty stack");
  GT_ERR(GRAFT_EDTYPE, graft_session_run(&out, s, NULL, NULL, 0, &bad, 1, NULL, 0), "wrong", "int32", "float32");
  graft_session_free(s);
}

/* ---- gradients through recursive and deeply nested calls ------------------------------- */

/* Imports gd (freed) into f->g: x = Const, call = PartitionedCall(x) (graph_def_writer.h). */
static void import_calls(fixture *f, gw_buf *gd) {
  graft_import_options *opts = NULL;
  GT_OK(graft_import_options_new(&opts));
  GT_OK(graft_import_options_set_prefix(opts, ""));
  GT_OK(graft_graph_import_graph_def(NULL, f->g, gd->data, gd->len, opts));
  graft_import_options_free(opts);
  gw_free(gd);
}

/* The gradient of "call" with respect to "x" must fail with EINVAL and each needle, leaving
 * the graph as it was. */
#define EXPECT_CALL_GRADIENT_ERROR(f, ...)                                                        \
  do {                                                                                            \
    graft_op *x_ = NULL, *call_ = NULL;                                                           \
    GT_OK(graft_graph_op_by_name(&x_, (f)->g, "x"));                                              \
    GT_OK(graft_graph_op_by_name(&call_, (f)->g, "call"));                                        \
    const int64_t ops_ = graft_graph_num_ops((f)->g);                                             \
    const int functions_ = graft_graph_num_functions((f)->g);                                     \
    graft_output ys_[1] = {OUT(call_, 0)}, xs_[1] = {OUT(x_, 0)}, grads_[1];                      \
    GT_ERR(GRAFT_EINVAL, graft_graph_add_gradients(grads_, (f)->g, ys_, 1, xs_, 1, NULL, NULL), __VA_ARGS__); \
    assert_int_equal(graft_graph_num_ops((f)->g), ops_);                                          \
    assert_int_equal(graft_graph_num_functions((f)->g), functions_);                              \
  } while (0)

static void test_gradient_of_recursive_function(void **state) {
  fixture *f = *state;
  /* r(x) = r(x) + x. */
  gw_buf lib = {0};
  gw_function(&lib, "r", "r");
  gw_buf gd = gw_graph_def(&lib, "r", 1.5f);
  import_calls(f, &gd);
  EXPECT_CALL_GRADIENT_ERROR(f, "function 'r' calls itself (r -> r): cannot build its gradient");
}

static void test_gradient_of_mutually_recursive_functions(void **state) {
  fixture *f = *state;
  /* Entered through a function outside the cycle: s -> a -> b -> a. */
  gw_buf lib = {0};
  gw_function(&lib, "s", "a");
  gw_function(&lib, "a", "b");
  gw_function(&lib, "b", "a");
  gw_buf gd = gw_graph_def(&lib, "s", 1.5f);
  import_calls(f, &gd);
  EXPECT_CALL_GRADIENT_ERROR(f, "function 'a' calls itself (a -> b -> a): cannot build its gradient",
                             "the gradient of function 's'");
}

static void test_gradient_nesting_limit(void **state) {
  fixture *f = *state;
  /* 63 nested calls (64 functions), as deep as the forward run goes: chain_0(x) = 65 x. */
  gw_buf gd = gw_chain_graph_def(63, 0, 1.5f);
  import_calls(f, &gd);
  graft_op *x = NULL, *call = NULL;
  GT_OK(graft_graph_op_by_name(&x, f->g, "x"));
  GT_OK(graft_graph_op_by_name(&call, f->g, "call"));
  graft_output ys[1] = {OUT(call, 0)}, xs[1] = {OUT(x, 0)}, grads[1];
  GT_OK(graft_graph_add_gradients(grads, f->g, ys, 1, xs, 1, NULL, NULL));
  const float want = 65.0f;
  expect(f->g, NULL, 0, grads[0], &want, 1);
  /* One more is too deep, as for the forward run; the chain is not recursion. */
  graft_graph_free(f->g);
  GT_OK(graft_graph_new(&f->g));
  gd = gw_chain_graph_def(64, 0, 1.5f);
  import_calls(f, &gd);
  EXPECT_CALL_GRADIENT_ERROR(f, "the gradient of function 'chain_64' is nested too deeply (limit 64)");
  assert_null(strstr(graft_error_last(), "calls itself"));
}

static void test_gradient_of_long_call_chain(void **state) {
  fixture *f = *state;
  /* 5,000 nested calls: refused at the limit, without recursing 5,000 deep. */
  gw_buf gd = gw_chain_graph_def(5000, 0, 1.5f);
  import_calls(f, &gd);
  EXPECT_CALL_GRADIENT_ERROR(f, "function 'chain_64' is nested too deeply (limit 64)", "chain_0");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_if, setup, teardown),
      cmocka_unit_test_setup_teardown(test_while, setup, teardown),
      cmocka_unit_test_setup_teardown(test_while_changing_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nested_while, setup, teardown),
      cmocka_unit_test_setup_teardown(test_while_without_a_gradient, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tf1_loop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tf1_nested_loop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tf1_cond_inside_a_loop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tf1_cond, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tf1_loop_without_loop_cond, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stack_ops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gradient_of_recursive_function, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gradient_of_mutually_recursive_functions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gradient_nesting_limit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gradient_of_long_call_chain, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
