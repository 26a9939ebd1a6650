/* Symbolic gradients (graft/gradients.h): y = x*x + 3x gives 2x + 3; broadcasting is summed
 * away; an x that no y depends on gets none (or zeros); an op without a gradient is an error
 * naming the op and its type, and leaves the graph as it was; integer paths stop; gradients
 * from two consumers are summed; a gradient function written in C (through an override map). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"

static int setup(void **state) {
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  *state = g;
  return 0;
}

static int teardown(void **state) {
  graft_graph_free(*state);
  return 0;
}

static graft_output out0(graft_op *op) { return (graft_output){op, 0}; }

static graft_op *unary_op(graft_graph *g, const char *type, graft_op *x) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, NULL));
  GT_OK(graft_op_desc_add_input(d, out0(x)));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *cast_op(graft_graph *g, graft_op *x, graft_dtype to) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Cast", NULL));
  GT_OK(graft_op_desc_add_input(d, out0(x)));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "DstT", to));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* Runs the graph feeding x (float32 of shape dims) and fetching t; expects want (n values). */
static void expect_values(graft_graph *g, graft_op *x, const int64_t *dims, int ndims, const float *xv, graft_output t,
                          const float *want, int n) {
  size_t count = 1;
  for (int i = 0; i < ndims; ++i) count *= (size_t)dims[i];
  graft_tensor *feed = NULL;
  GT_OK(graft_tensor_new(&feed, GRAFT_FLOAT32, dims, ndims, xv, sizeof(float) * count));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output feeds[1] = {out0(x)};
  graft_tensor *result = NULL;
  GT_OK(graft_session_run(&result, s, feeds, &feed, 1, &t, 1, NULL, 0));
  assert_int_equal(graft_tensor_num_elements(result), n);
  const float *got = graft_tensor_data(result);
  for (int i = 0; i < n; ++i) {
    if (fabsf(got[i] - want[i]) > 1e-5f * (1.0f + fabsf(want[i]))) {
      print_error("element %d: got %g, expected %g\n", i, (double)got[i], (double)want[i]);
      fail();
    }
  }
  graft_tensor_free(result);
  graft_tensor_free(feed);
  graft_session_free(s);
}

/* y = x*x + 3x: dy/dx = 2x + 3, summed over two consumers of x (Mul uses it twice, Mul by 3 once). */
static void test_polynomial(void **state) {
  graft_graph *g = *state;
  int64_t dims[1] = {4};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, dims, 1);
  graft_op *xx = make_binary(g, "Mul", "xx", x, x);
  graft_op *three = make_const(g, "three", 3.0f);
  graft_op *x3 = make_binary(g, "Mul", "x3", three, x);
  graft_op *y = make_binary(g, "AddV2", "y", xx, x3);
  graft_output ys[1] = {out0(y)}, xs[1] = {out0(x)}, dx[1];
  GT_OK(graft_graph_add_gradients(dx, g, ys, 1, xs, 1, NULL, NULL));
  assert_non_null(dx[0].op);
  assert_non_null(strstr(graft_op_name(dx[0].op), "gradients"));
  float xv[4] = {-2, 0, 1, 2.5f}, want[4] = {-1, 3, 5, 8};
  expect_values(g, x, dims, 1, xv, dx[0], want, 4);
}

/* z = a + b with a [2,3] and b [3]: dz/db sums over the broadcast axis; with grad_ys. */
static void test_broadcasting(void **state) {
  graft_graph *g = *state;
  int64_t da[2] = {2, 3}, db[1] = {3};
  graft_op *a = make_placeholder(g, "a", GRAFT_FLOAT32, da, 2);
  float bv[3] = {1, 2, 3};
  graft_op *b = make_const_f32(g, "b", db, 1, bv);
  graft_op *z = make_binary(g, "Mul", "z", a, b);
  float gv[6] = {1, 2, 3, 4, 5, 6};
  graft_op *gz = make_const_f32(g, "gz", da, 2, gv);
  graft_output ys[1] = {out0(z)}, xs[2] = {out0(a), out0(b)}, grads[2], grad_ys[1] = {out0(gz)};
  GT_OK(graft_graph_add_gradients(grads, g, ys, 1, xs, 2, grad_ys, "my_grads"));
  assert_non_null(grads[0].op);
  assert_non_null(grads[1].op);
  assert_int_equal(strncmp(graft_op_name(grads[1].op), "my_grads/", 9), 0);
  float av[6] = {1, 1, 1, 2, 2, 2};
  /* d/da = gz * b; d/db = sum over rows of gz * a. */
  float want_a[6] = {1, 4, 9, 4, 10, 18}, want_b[3] = {1 + 8, 2 + 10, 3 + 12};
  expect_values(g, a, da, 2, av, grads[0], want_a, 6);
  expect_values(g, a, da, 2, av, grads[1], want_b, 3);
}

/* An x that y does not depend on: none, or zeros with GRAFT_UNCONNECTED_ZERO. */
static void test_unconnected(void **state) {
  graft_graph *g = *state;
  int64_t dims[1] = {2};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, dims, 1);
  graft_op *u = make_placeholder(g, "u", GRAFT_FLOAT32, dims, 1);
  graft_op *y = unary_op(g, "Square", x);
  graft_output ys[1] = {out0(y)}, xs[2] = {out0(x), out0(u)}, grads[2];
  GT_OK(graft_graph_add_gradients(grads, g, ys, 1, xs, 2, NULL, NULL));
  assert_non_null(grads[0].op);
  assert_null(grads[1].op);
  GT_OK(graft_graph_add_gradients_ex(grads, g, ys, 1, xs, 2, NULL, NULL, 0, GRAFT_UNCONNECTED_ZERO, NULL));
  assert_non_null(grads[1].op);
  assert_string_equal(graft_op_type(grads[1].op), "ZerosLike");
  /* stop_gradients: y's own op stops, so x gets nothing. */
  GT_OK(graft_graph_add_gradients_ex(grads, g, ys, 1, xs, 1, NULL, ys, 1, GRAFT_UNCONNECTED_NONE, NULL));
  assert_null(grads[0].op);
}

/* An op on the path without a gradient function: an error naming it and its type, and the
 * graph keeps no op of the attempt. */
static void test_missing_gradient(void **state) {
  graft_graph *g = *state;
  int64_t dims[1] = {2};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, dims, 1);
  graft_op *sq = unary_op(g, "Square", x);
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "CheckNumerics", "check"));
  GT_OK(graft_op_desc_add_input(d, out0(sq)));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "message", "m", 1));
  graft_op *check = NULL;
  GT_OK(graft_op_desc_finish(&check, d));
  int64_t before = graft_graph_version(g);
  graft_output ys[1] = {out0(check)}, xs[1] = {out0(x)}, grads[1];
  GT_ERR(GRAFT_ENOTFOUND, graft_graph_add_gradients(grads, g, ys, 1, xs, 1, NULL, NULL), "'check'", "CheckNumerics");
  assert_int_equal(graft_graph_version(g), before);
  graft_op *found = NULL;
  assert_int_not_equal(graft_graph_op_by_name(&found, g, "gradients/OnesLike"), GRAFT_OK);
  /* A second try uses the same names ("gradients", not "gradients_1"). */
  GT_OK(graft_graph_add_gradients(grads, g, (graft_output[]){out0(sq)}, 1, xs, 1, NULL, NULL));
  assert_int_equal(strncmp(graft_op_name(grads[0].op), "gradients/", 10), 0);
}

/* A path through an integer cast stops; the float path still gives its gradient. */
static void test_integer_path(void **state) {
  graft_graph *g = *state;
  int64_t dims[1] = {3};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, dims, 1);
  graft_op *i = cast_op(g, x, GRAFT_INT32);
  graft_op *f = cast_op(g, i, GRAFT_FLOAT32);
  graft_output ys[1] = {out0(f)}, xs[1] = {out0(x)}, grads[1];
  GT_OK(graft_graph_add_gradients(grads, g, ys, 1, xs, 1, NULL, NULL));
  assert_null(grads[0].op);
  graft_op *y = make_binary(g, "AddV2", "y", f, x);
  ys[0] = out0(y);
  GT_OK(graft_graph_add_gradients(grads, g, ys, 1, xs, 1, NULL, NULL));
  assert_non_null(grads[0].op);
  float xv[3] = {1.5f, -2, 7}, want[3] = {1, 1, 1};
  expect_values(g, x, dims, 1, xv, grads[0], want, 3);
}

/* Two ys, and x used by two consumers: the gradients are summed. */
static void test_two_consumers(void **state) {
  graft_graph *g = *state;
  int64_t dims[1] = {2};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, dims, 1);
  graft_op *s = unary_op(g, "Sin", x);
  graft_op *e = unary_op(g, "Exp", x);
  graft_output ys[2] = {out0(s), out0(e)}, xs[1] = {out0(x)}, grads[1];
  GT_OK(graft_graph_add_gradients(grads, g, ys, 2, xs, 1, NULL, NULL));
  assert_string_equal(graft_op_type(grads[0].op), "AddN");
  float xv[2] = {0, 1}, want[2] = {(float)(cos(0.0) + exp(0.0)), (float)(cos(1.0) + exp(1.0))};
  expect_values(g, x, dims, 1, xv, grads[0], want, 2);
}

/* A gradient function written in C, used through a gradient override map: d/dx = 10 * g. */
static int times_ten(graft_gradient_context *ctx, void *user_data) {
  (void)user_data;
  graft_output g;
  int rc = graft_gradient_context_output_grad(&g, ctx, 0);
  if (rc != GRAFT_OK) return rc;
  graft_graph *graph = graft_gradient_context_graph(ctx);
  graft_op *ten = make_const(graph, "ten", 10.0f);
  graft_op_desc *d = NULL;
  rc = graft_op_desc_new(&d, graph, "Mul", NULL);
  if (rc != GRAFT_OK) return rc;
  if ((rc = graft_op_desc_add_input(d, g)) != GRAFT_OK || (rc = graft_op_desc_add_input(d, out0(ten))) != GRAFT_OK) {
    graft_op_desc_free(d);
    return rc;
  }
  graft_op *mul = NULL;
  rc = graft_op_desc_finish(&mul, d);
  if (rc != GRAFT_OK) return rc;
  return graft_gradient_context_set_input_grad(ctx, 0, out0(mul));
}

static void test_c_gradient_function(void **state) {
  graft_graph *g = *state;
  GT_OK(graft_gradient_register("test_gradients.TimesTen", times_ten, NULL));
  int64_t dims[1] = {2};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, dims, 1);
  const char *types[1] = {"Identity"}, *names[1] = {"test_gradients.TimesTen"};
  GT_OK(graft_graph_push_gradient_override_map(g, types, names, 1));
  graft_op *y = unary_op(g, "Identity", x);
  GT_OK(graft_graph_pop_gradient_override_map(g));
  graft_output ys[1] = {out0(y)}, xs[1] = {out0(x)}, grads[1];
  GT_OK(graft_graph_add_gradients(grads, g, ys, 1, xs, 1, NULL, NULL));
  assert_non_null(strstr(graft_op_name(grads[0].op), "gradients/Identity_grad/"));
  float xv[2] = {3, 4}, want[2] = {10, 10};
  expect_values(g, x, dims, 1, xv, grads[0], want, 2);
}

/* A gradient function that fails: its code and the message it set come back, and the graph is
 * left as it was. */
static int failing_gradient(graft_gradient_context *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
  return graft_error_set(GRAFT_EUNIMPLEMENTED, "the custom gradient is not written yet");
}

static void test_c_gradient_function_error(void **state) {
  graft_graph *g = *state;
  GT_OK(graft_gradient_register("test_gradients.Failing", failing_gradient, NULL));
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, NULL, -1);
  const char *types[1] = {"Neg"}, *names[1] = {"test_gradients.Failing"};
  GT_OK(graft_graph_push_gradient_override_map(g, types, names, 1));
  graft_op *y = unary_op(g, "Neg", x);
  GT_OK(graft_graph_pop_gradient_override_map(g));
  int64_t n = graft_graph_num_ops(g);
  graft_output ys[1] = {out0(y)}, xs[1] = {out0(x)}, grads[1];
  GT_ERR(GRAFT_EUNIMPLEMENTED, graft_graph_add_gradients(grads, g, ys, 1, xs, 1, NULL, NULL),
         "the custom gradient is not written yet");
  assert_int_equal(graft_graph_num_ops(g), n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_polynomial, setup, teardown),
      cmocka_unit_test_setup_teardown(test_broadcasting, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unconnected, setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_gradient, setup, teardown),
      cmocka_unit_test_setup_teardown(test_integer_path, setup, teardown),
      cmocka_unit_test_setup_teardown(test_two_consumers, setup, teardown),
      cmocka_unit_test_setup_teardown(test_c_gradient_function, setup, teardown),
      cmocka_unit_test_setup_teardown(test_c_gradient_function_error, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
