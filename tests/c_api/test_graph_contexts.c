/* Control dependencies, device scopes and functions, colocation, containers and gradient
 * override maps: the graph seed's examples. */
#include <stdlib.h>

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

/* with g.control_dependencies([a, b]): ... with g.control_dependencies([c, d]): ... */
static void test_nested_control_dependencies(void **state) {
  graft_graph *g = *state;
  graft_op *a = make_noop(g, "a"), *b = make_noop(g, "b"), *c = make_noop(g, "c"), *d = make_noop(g, "d");
  graft_op *ab[2] = {a, b}, *cd[2] = {c, d};
  GT_OK(graft_graph_push_control_dependencies(g, ab, 2));
  graft_op *x = make_noop(g, "x");
  GT_OK(graft_graph_push_control_dependencies(g, cd, 2));
  graft_op *y = make_noop(g, "y");
  GT_OK(graft_graph_pop_control_dependencies(g));
  GT_OK(graft_graph_pop_control_dependencies(g));
  graft_op *z = make_noop(g, "z");
  assert_int_equal(graft_op_num_control_inputs(x), 2);
  assert_true(has_control_input(x, a) && has_control_input(x, b));
  /* The union of all active contexts. */
  assert_int_equal(graft_op_num_control_inputs(y), 4);
  assert_true(has_control_input(y, a) && has_control_input(y, b) && has_control_input(y, c) && has_control_input(y, d));
  assert_int_equal(graft_op_num_control_inputs(z), 0);
  /* Control outputs are the reverse edges. */
  assert_int_equal(graft_op_num_control_outputs(a), 2);
  assert_ptr_equal(graft_op_control_output(a, 0), x);
  assert_ptr_equal(graft_op_control_output(a, 1), y);
}

/* control_dependencies(None) clears the outer contexts for an inner block. */
static void test_none_clears_control_dependencies(void **state) {
  graft_graph *g = *state;
  graft_op *a = make_noop(g, "a"), *b = make_noop(g, "b"), *c = make_noop(g, "c"), *d = make_noop(g, "d");
  graft_op *ab[2] = {a, b}, *cd[2] = {c, d};
  GT_OK(graft_graph_push_control_dependencies(g, ab, 2));
  GT_OK(graft_graph_push_no_control_dependencies(g));
  graft_op *x = make_noop(g, "x");
  GT_OK(graft_graph_push_control_dependencies(g, cd, 2));
  graft_op *y = make_noop(g, "y");
  GT_OK(graft_graph_pop_control_dependencies(g));
  GT_OK(graft_graph_pop_control_dependencies(g));
  graft_op *w = make_noop(g, "w");
  GT_OK(graft_graph_pop_control_dependencies(g));
  assert_int_equal(graft_op_num_control_inputs(x), 0);
  assert_int_equal(graft_op_num_control_inputs(y), 2);
  assert_true(has_control_input(y, c) && has_control_input(y, d));
  assert_false(has_control_input(y, a));
  assert_int_equal(graft_op_num_control_inputs(w), 2);
  GT_ERR(GRAFT_EPRECONDITION, graft_graph_pop_control_dependencies(g), "no control dependencies");
}

/* "The control dependencies context applies only to ops that are constructed within it." */
static void test_only_ops_created_inside(void **state) {
  graft_graph *g = *state;
  graft_op *pred = make_noop(g, "pred");
  graft_op *m = make_matrix(g, "m", 2, 2);
  graft_op *wrong = make_binary(g, "MatMul", "wrong", m, m); /* created outside */
  GT_OK(graft_graph_push_control_dependencies(g, &pred, 1));
  graft_op *use = make_binary(g, "AddV2", "use", wrong, wrong); /* merely uses it inside */
  graft_op *right = make_binary(g, "MatMul", "right", m, m);
  GT_OK(graft_graph_pop_control_dependencies(g));
  assert_int_equal(graft_op_num_control_inputs(wrong), 0);
  assert_true(has_control_input(use, pred));
  assert_true(has_control_input(right, pred));
  /* An op that already feeds a data input is not added as a control input too. */
  GT_OK(graft_graph_push_control_dependencies(g, &m, 1));
  graft_op *again = make_binary(g, "MatMul", "again", m, m);
  GT_OK(graft_graph_pop_control_dependencies(g));
  assert_int_equal(graft_op_num_control_inputs(again), 0);
  /* Explicit control inputs add to the context's. */
  graft_op_desc *d = NULL;
  GT_OK(graft_graph_push_control_dependencies(g, &pred, 1));
  GT_OK(graft_op_desc_new(&d, g, "NoOp", "both"));
  GT_OK(graft_op_desc_add_control_input(d, m));
  GT_OK(graft_op_desc_add_control_input(d, pred));
  graft_op *both = NULL;
  GT_OK(graft_op_desc_finish(&both, d));
  GT_OK(graft_graph_pop_control_dependencies(g));
  assert_int_equal(graft_op_num_control_inputs(both), 2);
}

static void test_control_dependency_errors(void **state) {
  graft_graph *g = *state;
  graft_graph *other = NULL;
  GT_OK(graft_graph_new(&other));
  graft_op *foreign = make_noop(other, "foreign");
  GT_ERR(GRAFT_EINVAL, graft_graph_push_control_dependencies(g, &foreign, 1), "another graph");
  graft_op *none[1] = {NULL};
  GT_ERR(GRAFT_EINVAL, graft_graph_push_control_dependencies(g, none, 1), "ops[0]");
  /* Nothing was pushed. */
  GT_ERR(GRAFT_EPRECONDITION, graft_graph_pop_control_dependencies(g), "no control dependencies");
  graft_graph_free(other);
}

/* with g.device('/gpu:0'): ... with g.device(None): ... */
static void test_device_scopes(void **state) {
  graft_graph *g = *state;
  GT_OK(graft_graph_push_device(g, "/gpu:0"));
  graft_op *on_gpu = make_noop(g, "on_gpu");
  GT_OK(graft_graph_push_device(g, NULL));
  graft_op *nowhere = make_noop(g, "nowhere");
  GT_OK(graft_graph_pop_device(g));
  GT_OK(graft_graph_push_device(g, "/job:worker/task:1"));
  graft_op *merged = make_noop(g, "merged");
  GT_OK(graft_graph_pop_device(g));
  GT_OK(graft_graph_pop_device(g));
  graft_op *plain = make_noop(g, "plain");
  assert_string_equal(graft_op_device(on_gpu), "/device:GPU:0");
  assert_string_equal(graft_op_device(nowhere), "");
  assert_string_equal(graft_op_device(merged), "/job:worker/task:1/device:GPU:0");
  assert_string_equal(graft_op_device(plain), "");
  GT_ERR(GRAFT_EPRECONDITION, graft_graph_pop_device(g), "no device scope");
  GT_ERR(GRAFT_EINVAL, graft_graph_push_device(g, "/gpu:x"), "'/gpu:x'", "gpu:x");
  GT_ERR(GRAFT_EINVAL, graft_graph_push_device(g, "/bogus:1"), "unknown component", "bogus:1");
  GT_ERR(GRAFT_EPRECONDITION, graft_graph_pop_device(g), "no device scope");
  /* An explicit device on the op is used as given (canonical). */
  graft_op_desc *d = NULL;
  graft_op *op = NULL;
  GT_OK(graft_graph_push_device(g, "/gpu:1"));
  GT_OK(graft_op_desc_new(&d, g, "NoOp", "explicit"));
  GT_OK(graft_op_desc_set_device(d, "/cpu:0"));
  GT_OK(graft_op_desc_finish(&op, d));
  GT_OK(graft_graph_pop_device(g));
  assert_string_equal(graft_op_device(op), "/device:CPU:0");
  GT_OK(graft_op_desc_new(&d, g, "NoOp", "bad_device"));
  GT_OK(graft_op_desc_set_device(d, "/device:"));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "NoOp op 'bad_device'", "device spec");
}

/* The seed's DeviceSpec scopes: inner components take precedence over outer ones. */
static void test_device_spec_scopes(void **state) {
  graft_graph *g = *state;
  GT_OK(graft_graph_push_device(g, "/job:train"));
  GT_OK(graft_graph_push_device(g, "/job:ps/device:GPU:0"));
  graft_op *ps = make_noop(g, "ps");
  GT_OK(graft_graph_push_device(g, "/device:GPU:1"));
  graft_op *inner = make_noop(g, "inner");
  GT_OK(graft_graph_pop_device(g));
  GT_OK(graft_graph_pop_device(g));
  graft_op *train = make_noop(g, "train");
  GT_OK(graft_graph_pop_device(g));
  assert_string_equal(graft_op_device(ps), "/job:ps/device:GPU:0");
  /* The seed's prose example prints /job:train/device:GPU:1 here, contradicting its own rule
   * that inner scopes win; TensorFlow itself gives /job:ps/device:GPU:1, as Graft does. */
  assert_string_equal(graft_op_device(inner), "/job:ps/device:GPU:1");
  assert_string_equal(graft_op_device(train), "/job:train");
}

/* The seed's matmul_on_gpu device function. */
static const char *matmul_on_gpu(const graft_op *op, void *payload) {
  int *calls = payload;
  ++*calls;
  return strcmp(graft_op_type(op), "MatMul") == 0 ? "/gpu:0" : "/cpu:0";
}

static const char *no_device(const graft_op *op, void *payload) {
  (void)op;
  (void)payload;
  return NULL;
}

static void test_device_function(void **state) {
  graft_graph *g = *state;
  int calls = 0;
  GT_OK(graft_graph_push_device_function(g, matmul_on_gpu, &calls));
  graft_op *m = make_matrix(g, "m", 2, 2);
  graft_op *mm = make_binary(g, "MatMul", "mm", m, m);
  GT_OK(graft_graph_push_device(g, "/job:w"));
  graft_op *inner = make_binary(g, "MatMul", "inner", m, m);
  GT_OK(graft_graph_pop_device(g));
  GT_OK(graft_graph_push_device_function(g, no_device, NULL));
  graft_op *cleared = make_noop(g, "cleared");
  GT_OK(graft_graph_pop_device(g));
  GT_OK(graft_graph_pop_device(g));
  assert_string_equal(graft_op_device(m), "/device:CPU:0");
  assert_string_equal(graft_op_device(mm), "/device:GPU:0");
  /* The function decides outright (after inner scopes ran). */
  assert_string_equal(graft_op_device(inner), "/device:GPU:0");
  /* An inner function returning no device; the outer function then decides. */
  assert_string_equal(graft_op_device(cleared), "/device:CPU:0");
  assert_int_equal(calls, 4);
  GT_ERR(GRAFT_EINVAL, graft_graph_push_device_function(g, NULL, NULL), "'fn'");
}

/* with g.colocate_with(a): b = constant(1.0); c = add(a, b) */
static void test_colocation(void **state) {
  graft_graph *g = *state;
  GT_OK(graft_graph_push_device(g, "/gpu:1"));
  graft_op *a = make_const(g, "a", 1.0f);
  GT_OK(graft_graph_pop_device(g));
  GT_OK(graft_graph_push_device(g, "/cpu:0"));
  GT_OK(graft_graph_push_colocation(g, a, 0));
  graft_op *b = make_const(g, "b", 1.0f);
  graft_op *c = make_binary(g, "AddV2", "c", a, b);
  GT_OK(graft_graph_pop_colocation(g));
  GT_OK(graft_graph_pop_device(g));
  char *group = NULL;
  assert_int_equal(graft_op_num_colocation_groups(b), 1);
  GT_OK(graft_op_colocation_group(&group, b, 0));
  assert_string_equal(group, "loc:@a");
  graft_string_free(group);
  GT_OK(graft_op_colocation_group(&group, c, 0));
  assert_string_equal(group, "loc:@a");
  graft_string_free(group);
  /* Colocated ops go where `a` goes, whatever the device scope. */
  assert_string_equal(graft_op_device(b), "/device:GPU:1");
  assert_string_equal(graft_op_device(c), "/device:GPU:1");
  /* An op's own group, and colocating with an op that is itself colocated. */
  GT_OK(graft_op_colocation_group(&group, a, 0));
  assert_string_equal(group, "loc:@a");
  graft_string_free(group);
  GT_ERR(GRAFT_ERANGE, graft_op_colocation_group(&group, a, 1), "out of range");
  GT_OK(graft_graph_push_colocation(g, b, 0));
  graft_op *d = make_noop(g, "d");
  GT_OK(graft_graph_pop_colocation(g));
  GT_OK(graft_op_colocation_group(&group, d, 0));
  assert_string_equal(group, "loc:@a");
  graft_string_free(group);
  /* ignore_existing: only the innermost colocation applies. */
  graft_op *e = make_noop(g, "e");
  GT_OK(graft_graph_push_colocation(g, a, 0));
  GT_OK(graft_graph_push_colocation(g, e, 0));
  graft_op *both = make_noop(g, "both");
  GT_OK(graft_graph_push_colocation(g, e, 1));
  graft_op *only_e = make_noop(g, "only_e");
  GT_OK(graft_graph_pop_colocation(g));
  GT_OK(graft_graph_pop_colocation(g));
  GT_OK(graft_graph_pop_colocation(g));
  assert_int_equal(graft_op_num_colocation_groups(both), 2);
  assert_int_equal(graft_op_num_colocation_groups(only_e), 1);
  GT_OK(graft_op_colocation_group(&group, only_e, 0));
  assert_string_equal(group, "loc:@e");
  graft_string_free(group);
  GT_ERR(GRAFT_EPRECONDITION, graft_graph_pop_colocation(g), "no colocation");
}

/* Stateful ops get the container of the scope; others do not. */
static void test_containers(void **state) {
  graft_graph *g = *state;
  int64_t dims[1] = {1};
  graft_op_desc *d = NULL;
  graft_op *v1 = NULL, *v3 = NULL, *v4 = NULL, *v5 = NULL;
  GT_OK(graft_graph_push_container(g, "experiment0"));
  GT_OK(graft_op_desc_new(&d, g, "VariableV2", "v1"));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, 1));
  GT_OK(graft_op_desc_finish(&v1, d));
  GT_OK(graft_graph_push_container(g, "experiment1"));
  GT_OK(graft_op_desc_new(&d, g, "VariableV2", "v3"));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, 1));
  GT_OK(graft_op_desc_finish(&v3, d));
  GT_OK(graft_graph_pop_container(g));
  GT_OK(graft_op_desc_new(&d, g, "VariableV2", "v4"));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, 1));
  GT_OK(graft_op_desc_finish(&v4, d));
  graft_op *stateless = make_const(g, "k", 1.0f);
  GT_OK(graft_graph_push_container(g, ""));
  GT_OK(graft_op_desc_new(&d, g, "VariableV2", "v5"));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, 1));
  GT_OK(graft_op_desc_finish(&v5, d));
  GT_OK(graft_graph_pop_container(g));
  GT_OK(graft_graph_pop_container(g));
  const char *s;
  size_t n;
  GT_OK(graft_op_get_attr_string(&s, &n, v1, "container"));
  assert_int_equal(n, strlen("experiment0"));
  assert_memory_equal(s, "experiment0", n);
  GT_OK(graft_op_get_attr_string(&s, &n, v3, "container"));
  assert_memory_equal(s, "experiment1", n);
  GT_OK(graft_op_get_attr_string(&s, &n, v4, "container"));
  assert_memory_equal(s, "experiment0", n);
  GT_OK(graft_op_get_attr_string(&s, &n, v5, "container"));
  assert_int_equal(n, 0);
  graft_attr_type type;
  GT_ERR(GRAFT_ENOTFOUND, graft_op_attr_type(&type, NULL, stateless, "container"), "'container'");
  GT_ERR(GRAFT_EPRECONDITION, graft_graph_pop_container(g), "no container");
}

/* with g.gradient_override_map({"Square": "CustomSquare"}): s_2 = tf.square(...) */
static void test_gradient_override_map(void **state) {
  graft_graph *g = *state;
  graft_op *c = make_const(g, "c", 5.0f);
  graft_op_desc *d = NULL;
  graft_op *s1 = NULL, *s2 = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Square", NULL));
  GT_OK(graft_op_desc_add_input(d, (graft_output){c, 0}));
  GT_OK(graft_op_desc_finish(&s1, d));
  const char *types[1] = {"Square"}, *names[1] = {"CustomSquare"};
  GT_OK(graft_graph_push_gradient_override_map(g, types, names, 1));
  GT_OK(graft_op_desc_new(&d, g, "Square", NULL));
  GT_OK(graft_op_desc_add_input(d, (graft_output){s1, 0}));
  GT_OK(graft_op_desc_finish(&s2, d));
  graft_op *other = make_noop(g, "other");
  GT_OK(graft_graph_pop_gradient_override_map(g));
  graft_attr_type type;
  GT_ERR(GRAFT_ENOTFOUND, graft_op_attr_type(&type, NULL, s1, "_gradient_op_type"), "_gradient_op_type");
  const char *s;
  size_t n;
  GT_OK(graft_op_get_attr_string(&s, &n, s2, "_gradient_op_type"));
  assert_int_equal(n, strlen("CustomSquare"));
  assert_memory_equal(s, "CustomSquare", n);
  GT_ERR(GRAFT_ENOTFOUND, graft_op_attr_type(&type, NULL, other, "_gradient_op_type"), "_gradient_op_type");
  GT_ERR(GRAFT_EPRECONDITION, graft_graph_pop_gradient_override_map(g), "no gradient override");
  const char *bad[1] = {NULL};
  GT_ERR(GRAFT_EINVAL, graft_graph_push_gradient_override_map(g, bad, names, 1), "entry 0");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_nested_control_dependencies, setup, teardown),
      cmocka_unit_test_setup_teardown(test_none_clears_control_dependencies, setup, teardown),
      cmocka_unit_test_setup_teardown(test_only_ops_created_inside, setup, teardown),
      cmocka_unit_test_setup_teardown(test_control_dependency_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_scopes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_spec_scopes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_function, setup, teardown),
      cmocka_unit_test_setup_teardown(test_colocation, setup, teardown),
      cmocka_unit_test_setup_teardown(test_containers, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gradient_override_map, setup, teardown),
  };
  return cmocka_run_group_tests_name("graph_contexts", tests, NULL, NULL);
}
