/* Creating ops (with every validation error), looking ops and tensors up, attributes, shapes,
 * finalize, versions, feeding and fetching, random seeds, and concurrent lookups. */
#include <pthread.h>
#include <stdio.h>
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

/* The seed's Tensor.get_shape example: matmul shapes and the incompatible case. */
static void test_matmul_shapes(void **state) {
  graft_graph *g = *state;
  graft_op *c = make_matrix(g, "c", 2, 3);
  graft_op *d = make_matrix(g, "d", 4, 2);
  assert_output_shape(c, 0, "(2, 3)");
  assert_output_shape(d, 0, "(4, 2)");
  graft_op_desc *desc = NULL;
  graft_op *e = NULL;
  GT_OK(graft_op_desc_new(&desc, g, "MatMul", "e"));
  GT_OK(graft_op_desc_add_input(desc, (graft_output){c, 0}));
  GT_OK(graft_op_desc_add_input(desc, (graft_output){d, 0}));
  GT_ERR(GRAFT_ESHAPE, graft_op_desc_finish(&e, desc), "MatMul op 'e'");
  assert_null(e);
  int64_t before = graft_graph_num_ops(g);
  graft_op *f = NULL;
  GT_OK(graft_op_desc_new(&desc, g, "MatMul", "f"));
  GT_OK(graft_op_desc_add_input(desc, (graft_output){c, 0}));
  GT_OK(graft_op_desc_add_input(desc, (graft_output){d, 0}));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(desc), "transpose_a", 1));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(desc), "transpose_b", 1));
  GT_OK(graft_op_desc_finish(&f, desc));
  assert_output_shape(f, 0, "(3, 4)");
  assert_int_equal(graft_graph_num_ops(g), before + 1);
  assert_int_equal(graft_output_dtype((graft_output){f, 0}), GRAFT_FLOAT32);
  /* Inputs, consumers. */
  assert_int_equal(graft_op_num_inputs(f), 2);
  assert_ptr_equal(graft_op_input(f, 0).op, c);
  assert_ptr_equal(graft_op_input(f, 1).op, d);
  assert_null(graft_op_input(f, 2).op);
  assert_int_equal(graft_op_input_dtype(f, 0), GRAFT_FLOAT32);
  assert_int_equal(graft_output_num_consumers((graft_output){c, 0}), 1);
  graft_op *consumer = NULL;
  int idx = -1;
  GT_OK(graft_output_consumer(&consumer, &idx, (graft_output){d, 0}, 0));
  assert_ptr_equal(consumer, f);
  assert_int_equal(idx, 1);
  GT_ERR(GRAFT_ERANGE, graft_output_consumer(&consumer, &idx, (graft_output){d, 0}, 1), "consumer 1");
}

static void test_attributes_and_defaults(void **state) {
  graft_graph *g = *state;
  graft_op *m = make_matrix(g, "m", 2, 2);
  graft_op *mm = make_binary(g, "MatMul", "mm", m, m);
  /* Defaults are filled in. */
  graft_bool b = 1;
  GT_OK(graft_op_get_attr_bool(&b, mm, "transpose_a"));
  assert_false(b);
  graft_dtype t;
  GT_OK(graft_op_get_attr_type(&t, mm, "T"));
  assert_int_equal(t, GRAFT_FLOAT32);
  graft_attr_type type;
  int list_size = 0;
  GT_OK(graft_op_attr_type(&type, &list_size, mm, "T"));
  assert_int_equal(type, GRAFT_ATTR_TYPE);
  assert_int_equal(list_size, -1);
  /* Attribute names are sorted. */
  int n = graft_op_num_attrs(mm);
  assert_true(n >= 3);
  for (int i = 1; i < n; ++i) assert_true(strcmp(graft_op_attr_name(mm, i - 1), graft_op_attr_name(mm, i)) < 0);
  assert_null(graft_op_attr_name(mm, n));
  /* The Const's value comes back as a tensor sharing the data. */
  graft_tensor *value = NULL;
  GT_OK(graft_op_get_attr_tensor(&value, m, "value"));
  assert_int_equal(graft_tensor_num_elements(value), 4);
  assert_true(((const float *)graft_tensor_data(value))[3] == 4.0f);
  graft_tensor_free(value);
  /* Wrong getter, missing attr. */
  int64_t i64;
  GT_ERR(GRAFT_EINVAL, graft_op_get_attr_int(&i64, mm, "T"), "attr 'T' is a type, not a int");
  GT_ERR(GRAFT_ENOTFOUND, graft_op_get_attr_int(&i64, mm, "nope"), "MatMul op 'mm' has no attr 'nope'");
  /* List attributes. */
  int64_t dims[4] = {1, 2, 3, 4};
  graft_op_desc *d = NULL;
  graft_op *tr = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Const", "perm"));
  int32_t perm_v[2] = {1, 0};
  int64_t perm_dims[1] = {2};
  graft_tensor *perm_t = NULL;
  GT_OK(graft_tensor_new(&perm_t, GRAFT_INT32, perm_dims, 1, perm_v, sizeof perm_v));
  GT_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", perm_t));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_INT32));
  graft_op *perm = NULL;
  GT_OK(graft_op_desc_finish(&perm, d));
  graft_tensor_free(perm_t);
  GT_OK(graft_op_desc_new(&d, g, "Transpose", "tr"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){m, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){perm, 0}));
  GT_OK(graft_op_desc_finish(&tr, d));
  assert_output_shape(tr, 0, "(2, 2)");
  /* An int list attribute set and read back. */
  graft_op *ph = make_placeholder(g, "img", GRAFT_FLOAT32, dims, 4);
  graft_op *filter = make_placeholder(g, "filter", GRAFT_FLOAT32, (const int64_t[]){3, 3, 4, 8}, 4);
  graft_op *conv = NULL;
  int64_t strides[4] = {1, 1, 1, 1};
  GT_OK(graft_op_desc_new(&d, g, "Conv2D", "conv"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){ph, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){filter, 0}));
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, 4));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", "SAME", 4));
  GT_OK(graft_op_desc_finish(&conv, d));
  int64_t back[4] = {0};
  GT_OK(graft_op_get_attr_int_list(back, 4, conv, "strides"));
  assert_int_equal(back[3], 1);
  GT_ERR(GRAFT_ERANGE, graft_op_get_attr_int_list(back, 3, conv, "strides"), "capacity 3");
  GT_OK(graft_op_attr_type(&type, &list_size, conv, "strides"));
  assert_int_equal(type, GRAFT_ATTR_INT_LIST);
  assert_int_equal(list_size, 4);
  graft_shape *shape = NULL;
  GT_OK(graft_op_get_attr_shape(&shape, ph, "shape"));
  assert_string_equal(graft_shape_string(shape), "(1, 2, 3, 4)");
  graft_shape_free(shape);
}

/* Every validation error names the op and the problem, and leaves the graph unchanged. */
static void test_validation_errors(void **state) {
  graft_graph *g = *state;
  graft_op *f = make_const(g, "f", 1.0f);
  int64_t n = graft_graph_num_ops(g);
  graft_op_desc *d = NULL;
  graft_op *op = NULL;

  GT_OK(graft_op_desc_new(&d, g, "NoSuchOp", "x"));
  GT_ERR(GRAFT_ENOTFOUND, graft_op_desc_finish(&op, d), "'NoSuchOp'", "not registered");

  GT_OK(graft_op_desc_new(&d, g, "AddV2", "one_input"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "AddV2 op 'one_input'", "takes 2 input arguments", "(x, y)");

  graft_op *i = NULL;
  {
    int32_t v = 1;
    graft_tensor *t = NULL;
    GT_OK(graft_tensor_new(&t, GRAFT_INT32, NULL, 0, &v, sizeof v));
    GT_OK(graft_op_desc_new(&d, g, "Const", "i"));
    GT_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
    GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_INT32));
    GT_OK(graft_op_desc_finish(&i, d));
    graft_tensor_free(t);
    n++;
  }
  GT_OK(graft_op_desc_new(&d, g, "AddV2", "mixed"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){i, 0}));
  GT_ERR(GRAFT_EDTYPE, graft_op_desc_finish(&op, d), "AddV2 op 'mixed'", "input 'y' has dtype int32", "float32");

  GT_OK(graft_op_desc_new(&d, g, "Placeholder", "no_dtype"));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "Placeholder op 'no_dtype'", "missing attr 'dtype'");

  GT_OK(graft_op_desc_new(&d, g, "MatMul", "ill_typed"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "transpose_a", 1));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "MatMul op 'ill_typed'", "'transpose_a' must be bool");

  GT_OK(graft_op_desc_new(&d, g, "MatMul", "unknown_attr"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "bogus", 1));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "MatMul op 'unknown_attr'", "no attr named 'bogus'");

  /* A value outside the allowed set: MatMul on bool, LogicalNot on float, a padding string. */
  GT_OK(graft_op_desc_new(&d, g, "LogicalNot", "not_bool"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  GT_ERR(GRAFT_EDTYPE, graft_op_desc_finish(&op, d), "LogicalNot op 'not_bool'", "bool", "float32");

  graft_op *img = make_placeholder(g, "img", GRAFT_FLOAT32, (const int64_t[]){1, 4, 4, 1}, 4);
  graft_op *flt = make_placeholder(g, "flt", GRAFT_FLOAT32, (const int64_t[]){1, 1, 1, 1}, 4);
  n += 2;
  int64_t strides[4] = {1, 1, 1, 1};
  GT_OK(graft_op_desc_new(&d, g, "Conv2D", "bad_padding"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){img, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){flt, 0}));
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", strides, 4));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", "HALF", 4));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "Conv2D op 'bad_padding'", "'padding' is 'HALF'", "'SAME'");

  /* A list argument given one tensor; an output index that does not exist. */
  GT_OK(graft_op_desc_new(&d, g, "Pack", "not_a_list"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){f, 0}));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "Pack op 'not_a_list'", "list of tensors");
  GT_OK(graft_op_desc_new(&d, g, "Identity", "bad_index"));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_add_input(d, (graft_output){f, 1}), "op 'f' has no output 1");
  graft_op_desc_free(d);

  /* An input from another graph. */
  graft_graph *other = NULL;
  GT_OK(graft_graph_new(&other));
  graft_op *foreign = make_const(other, "foreign", 2.0f);
  GT_OK(graft_op_desc_new(&d, g, "Identity", "cross"));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_add_input(d, (graft_output){foreign, 0}), "another graph");
  graft_op_desc_free(d);
  graft_graph_free(other);

  /* A taken exact name. */
  GT_OK(graft_op_desc_new(&d, g, "NoOp", "f/"));
  GT_ERR(GRAFT_EEXISTS, graft_op_desc_finish(&op, d), "NoOp op 'f'", "already exists");

  assert_int_equal(graft_graph_num_ops(g), n);
  assert_null(op);
  /* A NULL description is an error too (and consumed nothing). */
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, NULL), "'desc'");
}

static void test_lookup(void **state) {
  graft_graph *g = *state;
  graft_op *a = make_const(g, "a", 1.0f);
  graft_op *b = make_const(g, "b", 2.0f);
  graft_op *sum = make_binary(g, "AddV2", "sum", a, b);
  graft_op *found = NULL;
  GT_OK(graft_graph_op_by_name(&found, g, "sum"));
  assert_ptr_equal(found, sum);
  GT_ERR(GRAFT_ENOTFOUND, graft_graph_op_by_name(&found, g, "nope"), "no op named 'nope'");
  graft_output t;
  GT_OK(graft_graph_tensor_by_name(&t, g, "sum:0"));
  assert_ptr_equal(t.op, sum);
  assert_int_equal(t.index, 0);
  GT_OK(graft_graph_tensor_by_name(&t, g, "sum"));
  assert_ptr_equal(t.op, sum);
  GT_ERR(GRAFT_ENOTFOUND, graft_graph_tensor_by_name(&t, g, "sum:1"), "'sum:1'", "1 output");
  GT_ERR(GRAFT_ENOTFOUND, graft_graph_tensor_by_name(&t, g, "nope:0"), "'nope'");
  GT_ERR(GRAFT_EINVAL, graft_graph_tensor_by_name(&t, g, "sum:x"), "'sum:x'", "not a tensor name");
  GT_ERR(GRAFT_EINVAL, graft_graph_tensor_by_name(&t, g, "sum:"), "'sum:'");
  char *name = NULL;
  GT_OK(graft_output_name(&name, (graft_output){sum, 0}));
  assert_string_equal(name, "sum:0");
  graft_string_free(name);
  /* Ops in creation order, with ids and versions. */
  assert_int_equal(graft_graph_num_ops(g), 3);
  assert_ptr_equal(graft_graph_op(g, 0), a);
  assert_ptr_equal(graft_graph_op(g, 2), sum);
  assert_null(graft_graph_op(g, 3));
  assert_null(graft_graph_op(g, -1));
  assert_int_equal(graft_op_id(a), 1);
  assert_int_equal(graft_op_id(sum), 3);
  assert_int_equal(graft_graph_version(g), 3);
  assert_ptr_equal(graft_op_graph(sum), g);
  assert_string_equal(graft_op_type(sum), "AddV2");
  assert_false(graft_op_is_stateful(sum));
}

static void test_set_shape(void **state) {
  graft_graph *g = *state;
  /* The seed's decode_png example: (None, None, 3) then set_shape([28, 28, 3]). */
  graft_op *image = make_placeholder(g, "image", GRAFT_UINT8, (const int64_t[]){-1, -1, 3}, 3);
  graft_shape *s = NULL;
  GT_OK(graft_shape_new(&s, (const int64_t[]){28, 28, 3}, 3));
  GT_OK(graft_output_set_shape((graft_output){image, 0}, s));
  graft_shape_free(s);
  assert_output_shape(image, 0, "(28, 28, 3)");
  GT_OK(graft_shape_new(&s, (const int64_t[]){28, 29, 3}, 3));
  GT_ERR(GRAFT_ESHAPE, graft_output_set_shape((graft_output){image, 0}, s), "'image:0'", "(28, 28, 3)", "(28, 29, 3)");
  graft_shape_free(s);
  assert_output_shape(image, 0, "(28, 28, 3)");
  /* Shape inference uses the set shape. */
  graft_op *id = NULL;
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Identity", NULL));
  GT_OK(graft_op_desc_add_input(d, (graft_output){image, 0}));
  GT_OK(graft_op_desc_finish(&id, d));
  assert_output_shape(id, 0, "(28, 28, 3)");
}

static void test_finalize(void **state) {
  graft_graph *g = *state;
  make_noop(g, "before");
  assert_false(graft_graph_finalized(g));
  graft_graph_finalize(g);
  assert_true(graft_graph_finalized(g));
  graft_op_desc *d = NULL;
  graft_op *op = NULL;
  GT_OK(graft_op_desc_new(&d, g, "NoOp", "after"));
  GT_ERR(GRAFT_EPRECONDITION, graft_op_desc_finish(&op, d), "finalized", "'after'");
  assert_int_equal(graft_graph_num_ops(g), 1);
  /* Lookups still work. */
  GT_OK(graft_graph_op_by_name(&op, g, "before"));
}

static void test_feeding_and_fetching(void **state) {
  graft_graph *g = *state;
  graft_op *a = make_const(g, "a", 1.0f);
  graft_output t = {a, 0};
  assert_true(graft_graph_is_feedable(g, t));
  assert_true(graft_graph_is_fetchable(g, a));
  GT_OK(graft_graph_prevent_feeding(g, t));
  GT_OK(graft_graph_prevent_fetching(g, a));
  assert_false(graft_graph_is_feedable(g, t));
  assert_false(graft_graph_is_fetchable(g, a));
  graft_op *b = make_const(g, "b", 1.0f);
  assert_true(graft_graph_is_feedable(g, (graft_output){b, 0}));
  GT_ERR(GRAFT_EINVAL, graft_graph_prevent_feeding(g, (graft_output){b, 3}), "no output 3");
}

static void test_random_seeds(void **state) {
  graft_graph *g = *state;
  graft_bool has;
  int64_t s1, s2;
  /* No graph seed, no op seed: fresh randomness. */
  GT_OK(graft_graph_op_seeds(&has, &s1, &s2, g, 0, 0));
  assert_false(has);
  /* Only an op seed: the default graph seed with it. */
  GT_OK(graft_graph_op_seeds(&has, &s1, &s2, g, 1, 7));
  assert_true(has);
  assert_int_equal(s1, 87654321);
  assert_int_equal(s2, 7);
  /* A graph seed: the op seed, or the graph's last op id when there is none. */
  graft_graph_set_seed(g, 1, 42);
  int64_t seed = 0;
  assert_true(graft_graph_seed(&seed, g));
  assert_int_equal(seed, 42);
  GT_OK(graft_graph_op_seeds(&has, &s1, &s2, g, 1, 9));
  assert_int_equal(s1, 42);
  assert_int_equal(s2, 9);
  make_noop(g, "x");
  make_noop(g, "y");
  GT_OK(graft_graph_op_seeds(&has, &s1, &s2, g, 0, 0));
  assert_int_equal(s1, 42);
  assert_int_equal(s2, 2);
  make_noop(g, "z");
  GT_OK(graft_graph_op_seeds(&has, &s1, &s2, g, 0, 0));
  assert_int_equal(s2, 3);
  /* (0, 0) is avoided. */
  graft_graph_set_seed(g, 1, 0);
  GT_OK(graft_graph_op_seeds(&has, &s1, &s2, g, 1, 0));
  assert_int_equal(s1, 0);
  assert_int_equal(s2, 2147483647);
  graft_graph_set_seed(g, 0, 0);
  assert_false(graft_graph_seed(&seed, g));
}

struct lookup_job {
  graft_graph *g;
  int n;
  int failures;
};

static void *lookup_many(void *arg) {
  struct lookup_job *job = arg;
  char name[32];
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < job->n; ++i) {
      snprintf(name, sizeof name, "op_%d", i);
      graft_op *op = NULL;
      if (graft_graph_op_by_name(&op, job->g, name) != GRAFT_OK || strcmp(graft_op_name(op), name) != 0) job->failures++;
      graft_output t;
      if (graft_graph_tensor_by_name(&t, job->g, name) != GRAFT_OK || t.op != op) job->failures++;
    }
  }
  return NULL;
}

/* "construction from one thread, lookups safe from many". */
static void test_concurrent_lookups(void **state) {
  graft_graph *g = *state;
  char name[32];
  enum { N = 300, THREADS = 8 };
  for (int i = 0; i < N; ++i) {
    snprintf(name, sizeof name, "op_%d", i);
    make_const(g, name, (float)i);
  }
  pthread_t threads[THREADS];
  struct lookup_job jobs[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    jobs[t] = (struct lookup_job){g, N, 0};
    assert_int_equal(pthread_create(&threads[t], NULL, lookup_many, &jobs[t]), 0);
  }
  /* Keep adding ops while the others look up. */
  for (int i = 0; i < 200; ++i) {
    snprintf(name, sizeof name, "late_%d", i);
    make_noop(g, name);
  }
  for (int t = 0; t < THREADS; ++t) {
    assert_int_equal(pthread_join(threads[t], NULL), 0);
    assert_int_equal(jobs[t].failures, 0);
  }
  assert_int_equal(graft_graph_num_ops(g), N + 200);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_matmul_shapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_attributes_and_defaults, setup, teardown),
      cmocka_unit_test_setup_teardown(test_validation_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_lookup, setup, teardown),
      cmocka_unit_test_setup_teardown(test_set_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_finalize, setup, teardown),
      cmocka_unit_test_setup_teardown(test_feeding_and_fetching, setup, teardown),
      cmocka_unit_test_setup_teardown(test_random_seeds, setup, teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_lookups, setup, teardown),
  };
  return cmocka_run_group_tests_name("graph_ops", tests, NULL, NULL);
}
