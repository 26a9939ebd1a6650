/* GraphDefs as TensorFlow 1 writes them: calls of library functions written as nodes whose op is
 * the function's name (function.Defun), _Arg/_Retval nodes in a top-level graph, and the shapes of
 * a v1 while loop's Enter nodes. The .pb files under tests/data were written by TensorFlow
 * (tests/data/make_tf1_graphs.py, which also prints the values expected here); the error cases are
 * built by hand with graph_def_writer.h. */
#include <stdio.h>
#include <stdlib.h>

#include "graph_def_writer.h"
#include "kernel_test_util.h"

static uint8_t *read_data(const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", GRAFT_TEST_DATA_DIR, name);
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    print_error("cannot open %s\n", path);
    fail();
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc((size_t)n + 1);
  *len = fread(buf, 1, (size_t)n, f);
  fclose(f);
  return buf;
}

/* Imports bytes into g with no name prefix, as tf.import_graph_def(name='') does. */
static void import_bytes(graft_graph *g, const void *data, size_t len) {
  graft_import_options *opts = NULL;
  GT_OK(graft_import_options_new(&opts));
  GT_OK(graft_import_options_set_prefix(opts, ""));
  GT_OK(graft_graph_import_graph_def(NULL, g, data, len, opts));
  graft_import_options_free(opts);
}

static void import_data(graft_graph *g, const char *name) {
  size_t len = 0;
  uint8_t *data = read_data(name, &len);
  import_bytes(g, data, len);
  free(data);
}

static int import_bytes_rc(graft_graph *g, const void *data, size_t len) {
  graft_import_options *opts = NULL;
  GT_OK(graft_import_options_new(&opts));
  GT_OK(graft_import_options_set_prefix(opts, ""));
  int rc = graft_graph_import_graph_def(NULL, g, data, len, opts);
  graft_import_options_free(opts);
  return rc;
}

static graft_op *op_named(graft_graph *g, const char *name) {
  graft_op *op = NULL;
  GT_OK(graft_graph_op_by_name(&op, g, name));
  return op;
}

/* Fetches output (name, index) with x fed [3, -2] (defun_tf1.pb's feed). */
static graft_tensor *fetch_with_x(graft_session *s, graft_graph *g, const char *name, int index) {
  graft_output feed = {op_named(g, "x"), 0};
  graft_tensor *x = tensor(GRAFT_FLOAT32, D(2), (const float[]){3, -2});
  graft_output fetch = {op_named(g, name), index};
  graft_tensor *out = NULL;
  GT_OK(graft_session_run(&out, s, &feed, &x, 1, &fetch, 1, NULL, 0));
  graft_tensor_free(x);
  return out;
}

/* TensorFlow's values for defun_tf1.pb with x = [3, -2]. */
static void check_defun_values(graft_graph *g) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  expect(fetch_with_x(s, g, "call", 0), GRAFT_FLOAT32, D(2), (const float[]){7, -2});
  expect(fetch_with_x(s, g, "call", 1), GRAFT_FLOAT32, D(2), (const float[]){2, -4});
  expect(fetch_with_x(s, g, "z", 0), GRAFT_FLOAT32, D(2), (const float[]){9, -6});
  expect(fetch_with_x(s, g, "outer", 0), GRAFT_FLOAT32, D(2), (const float[]){13, 7});  /* Outer calls Inner */
  expect(fetch_with_x(s, g, "noisy", 0), GRAFT_FLOAT32, D(2), (const float[]){3, -2});
  graft_session_free(s);
}

/* function.Defun calls import as calls: they run, differentiate, and export as calls. */
static void test_defun_calls(void **state) {
  graft_graph *g = *state;
  import_data(g, "defun_tf1.pb");
  assert_string_equal(graft_op_type(op_named(g, "call")), "PartitionedCall");
  assert_string_equal(graft_op_type(op_named(g, "outer_call")), "PartitionedCall");
  /* Noisy's body holds RandomUniform: a stateful call, never merged or dropped. */
  assert_string_equal(graft_op_type(op_named(g, "noisy_call")), "StatefulPartitionedCall");
  assert_int_equal(graft_op_num_outputs(op_named(g, "call")), 2);
  check_defun_values(g);

  /* d outer / d x = 2 x y + 1, through the call of Outer and Outer's call of Inner. */
  graft_output y = {op_named(g, "outer"), 0}, x = {op_named(g, "x"), 0}, dx;
  GT_OK(graft_graph_add_gradients(&dx, g, &y, 1, &x, 1, NULL, NULL));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_tensor *xv = tensor(GRAFT_FLOAT32, D(2), (const float[]){3, -2});
  graft_tensor *out = NULL;
  GT_OK(graft_session_run(&out, s, &x, &xv, 1, &dx, 1, NULL, 0));
  expect(out, GRAFT_FLOAT32, D(2), (const float[]){7, -7});
  graft_tensor_free(xv);
  graft_session_free(s);

  /* Exported and imported again, the calls give the same values. */
  void *bytes = NULL;
  size_t len = 0;
  GT_OK(graft_graph_export_graph_def(&bytes, &len, g, -1, 0));
  graft_graph *h = NULL;
  GT_OK(graft_graph_new(&h));
  import_bytes(h, bytes, len);
  check_defun_values(h);
  graft_graph_free(h);
  graft_buffer_free(bytes);
}

/* A GraphDef with library function f(x: float32) -> y = x + x and node `c` of op "f" taking
 * `inputs`; extra: an attr to put on the call (NULL: none). */
static gw_buf call_by_name(const char *const *inputs, int ninputs, int x_dtype, const char *extra) {
  gw_buf gd = {0}, lib = {0}, x = {0}, i = {0}, c = {0};
  gw_function(&lib, "f", NULL);
  gw_node(&x, "x", "Placeholder", NULL, 0);
  gw_attr_type(&x, "dtype", x_dtype);
  gw_msg(&gd, 1, &x);
  gw_node(&i, "i", "Placeholder", NULL, 0);
  gw_attr_type(&i, "dtype", 3 /* int32 */);
  gw_msg(&gd, 1, &i);
  gw_node(&c, "c", "f", inputs, ninputs);
  if (extra != NULL) gw_attr_type(&c, extra, GW_FLOAT);
  gw_attr_type(&c, "_private", GW_FLOAT); /* the graph's own attrs are kept */
  gw_msg(&gd, 1, &c);
  gw_msg(&gd, 2, &lib);
  return gd;
}

static void test_defun_call_errors(void **state) {
  graft_graph *g = *state;
  const char *one[1] = {"x"}, *two[2] = {"x", "x"}, *int_in[1] = {"i"};

  /* The right call runs: c = x + x. */
  gw_buf ok = call_by_name(one, 1, GW_FLOAT, NULL);
  import_bytes(g, ok.data, ok.len);
  gw_free(&ok);
  graft_op *x = op_named(g, "x");
  graft_tensor *xv = tensor(GRAFT_FLOAT32, D(2), (const float[]){1.5f, -4});
  expect(run_feeds(g, op_named(g, "c"), 0, 1, &x, &xv), GRAFT_FLOAT32, D(2), (const float[]){3, -8});

  graft_graph *h = NULL;
  GT_OK(graft_graph_new(&h));
  gw_buf bad = call_by_name(two, 2, GW_FLOAT, NULL);
  GT_ERR(GRAFT_EINVAL, import_bytes_rc(h, bad.data, bad.len), "node 'c' (f)", "function 'f' with 2 inputs",
         "takes 1 argument");
  gw_free(&bad);
  bad = call_by_name(NULL, 0, GW_FLOAT, NULL);
  GT_ERR(GRAFT_EINVAL, import_bytes_rc(h, bad.data, bad.len), "node 'c' (f)", "with 0 inputs");
  gw_free(&bad);
  bad = call_by_name(int_in, 1, GW_FLOAT, NULL);
  GT_ERR(GRAFT_EDTYPE, import_bytes_rc(h, bad.data, bad.len), "node 'c' (f)", "argument 'x' is float32",
         "input 0 is int32");
  gw_free(&bad);
  bad = call_by_name(one, 1, GW_FLOAT, "T");
  GT_ERR(GRAFT_EINVAL, import_bytes_rc(h, bad.data, bad.len), "node 'c' (f)", "attr 'T'", "does not declare");
  gw_free(&bad);
  assert_int_equal(graft_graph_num_ops(h), 0);  /* all or nothing */
  graft_graph_free(h);
}

/* _Arg/_Retval in a top-level graph: an _Arg is fed, a _Retval's input is fetched; running either
 * is an error, as in TensorFlow's session. */
static void test_arg_retval(void **state) {
  graft_graph *g = *state;
  import_data(g, "arg_retval.pb");
  graft_op *a = op_named(g, "a"), *b = op_named(g, "b"), *m = op_named(g, "m"), *r = op_named(g, "r");
  assert_string_equal(graft_op_type(a), "_Arg");
  assert_string_equal(graft_op_type(r), "_Retval");
  assert_int_equal(graft_op_num_outputs(r), 0);
  assert_output_shape(a, 0, "<unknown>");
  assert_output_shape(b, 0, "(2,)");  /* from its _output_shapes, as TensorFlow's import */

  graft_op *fops[2] = {a, b};
  graft_tensor *vals[2] = {tensor(GRAFT_FLOAT32, SCALAR, (const float[]){3}),
                           tensor(GRAFT_FLOAT32, D(2), (const float[]){4, 5})};
  expect(run_feeds(g, m, 0, 2, fops, vals), GRAFT_FLOAT32, D(2), (const float[]){12, 15});

  expect_error(g, m, b, tensor(GRAFT_FLOAT32, D(2), (const float[]){4, 5}), GRAFT_EINVAL, "_Arg 'a'",
               "must feed a value");
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output feeds[2] = {{a, 0}, {b, 0}};
  graft_tensor *fv[2] = {tensor(GRAFT_FLOAT32, SCALAR, (const float[]){3}),
                         tensor(GRAFT_FLOAT32, D(2), (const float[]){4, 5})};
  GT_ERR(GRAFT_EINVAL, graft_session_run(NULL, s, feeds, fv, 2, NULL, 0, &r, 1), "_Retval 'r'", "fetch its input 'm:0'");
  graft_tensor_free(fv[0]);
  graft_tensor_free(fv[1]);
  graft_session_free(s);

  /* The nodes export as they came. */
  void *bytes = NULL;
  size_t len = 0;
  GT_OK(graft_graph_export_graph_def(&bytes, &len, g, -1, 0));
  graft_graph *h = NULL;
  GT_OK(graft_graph_new(&h));
  import_bytes(h, bytes, len);
  assert_string_equal(graft_op_type(op_named(h, "a")), "_Arg");
  assert_string_equal(graft_op_type(op_named(h, "r")), "_Retval");
  graft_graph_free(h);
  graft_buffer_free(bytes);

  /* The attrs are checked as for any op. */
  gw_buf gd = {0}, n = {0};
  gw_node(&n, "arg", "_Arg", NULL, 0);
  gw_attr_type(&n, "T", GW_FLOAT);
  gw_msg(&gd, 1, &n);
  h = NULL;
  GT_OK(graft_graph_new(&h));
  GT_ERR(GRAFT_EINVAL, import_bytes_rc(h, gd.data, gd.len), "'arg'", "index");
  gw_free(&gd);
  graft_graph_free(h);
}

/* The shapes TensorFlow's import gives a v1 loop's Enters: a loop variable's (is_constant false)
 * is unknown, since it may change from one iteration to the next; a loop invariant's
 * (is_constant true) is its input's. */
static void test_enter_shapes(void **state) {
  graft_graph *g = *state;
  import_data(g, "while_tf1.pb");
  assert_output_shape(op_named(g, "loop/Enter"), 0, "<unknown>");    /* i0: () outside */
  assert_output_shape(op_named(g, "loop/Enter_1"), 0, "<unknown>");  /* x: (2, 3) outside */
  assert_output_shape(op_named(g, "loop/Sum/Enter"), 0, "(4,)");
  assert_output_shape(op_named(g, "loop/Sum"), 0, "()");
  assert_output_shape(op_named(g, "loop/Exit_1"), 0, "<unknown>");

  graft_op *x = op_named(g, "x");
  float ones[6] = {1, 1, 1, 1, 1, 1}, want[6] = {64, 64, 64, 64, 64, 64};
  graft_tensor *xv = tensor(GRAFT_FLOAT32, D(2, 3), ones);
  expect(run_feeds(g, op_named(g, "loop/Exit_1"), 0, 1, &x, &xv), GRAFT_FLOAT32, D(2, 3), want);
  expect(run(g, op_named(g, "loop/Exit")), GRAFT_INT32, SCALAR, (const int32_t[]){3});
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_defun_calls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_defun_call_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_arg_retval, setup, teardown),
      cmocka_unit_test_setup_teardown(test_enter_shapes, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
