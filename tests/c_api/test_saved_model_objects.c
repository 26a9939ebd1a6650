/* The object graph of a TensorFlow 2 SavedModel (tests/data/object_graph_module, written by
 * tests/data/make_object_graph_model.py with TensorFlow 2.21, which printed the expected
 * values): objects by path through lists, dicts and a variable reached by two paths, variables
 * read, tf.functions called (one traced twice, nested arguments, a side effect seen by later
 * calls, a captured constant, an asset, lookup tables), their structures, and the errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static graft_saved_model *load_module(void) {
  graft_saved_model *m = NULL;
  GT_OK(graft_saved_model_load(&m, GRAFT_TEST_DATA_DIR "/object_graph_module", NULL, 0, NULL));
  return m;
}

static graft_tensor *floats(const int64_t *dims, int ndims, const float *v, size_t n) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, ndims, v, n * sizeof(float)));
  return t;
}

static void expect_floats(graft_tensor *t, const float *want, size_t n) {
  assert_int_equal(graft_tensor_dtype(t), GRAFT_FLOAT32);
  assert_int_equal(graft_tensor_num_elements(t), (int64_t)n);
  const float *got = graft_tensor_data(t);
  for (size_t i = 0; i < n; ++i) assert_true(fabsf(got[i] - want[i]) <= 1e-5f * (1.0f + fabsf(want[i])));
}

static const graft_signature *function_at(graft_saved_model *m, const char *path, int i) {
  const graft_signature *f = NULL;
  GT_OK(graft_saved_model_function_at(&f, m, path, i));
  return f;
}

static void test_objects_and_children(void **state) {
  (void)state;
  graft_saved_model *m = load_module();
  graft_saved_object_kind kind = -1;
  GT_OK(graft_saved_model_object_kind(&kind, m, ""));
  assert_int_equal(kind, GRAFT_SAVED_OBJECT_USER);
  char *children = NULL;
  GT_OK(graft_saved_model_object_children(&children, m, ""));
  assert_non_null(strstr(children, "layers\n"));
  assert_non_null(strstr(children, "table\n"));
  assert_non_null(strstr(children, "predict\n"));
  graft_string_free(children);
  GT_OK(graft_saved_model_object_kind(&kind, m, "layers"));
  assert_int_equal(kind, GRAFT_SAVED_OBJECT_LIST);
  GT_OK(graft_saved_model_object_kind(&kind, m, "table"));
  assert_int_equal(kind, GRAFT_SAVED_OBJECT_DICT);
  GT_OK(graft_saved_model_object_kind(&kind, m, "layers.1"));
  assert_int_equal(kind, GRAFT_SAVED_OBJECT_USER);
  GT_OK(graft_saved_model_object_children(&children, m, "layers"));
  assert_string_equal(children, "0\n1\n");
  graft_string_free(children);

  GT_OK(graft_saved_model_object_kind(&kind, m, "layers.0.w"));
  assert_int_equal(kind, GRAFT_SAVED_OBJECT_VARIABLE);
  GT_OK(graft_saved_model_object_kind(&kind, m, "poly"));
  assert_int_equal(kind, GRAFT_SAVED_OBJECT_FUNCTION);
  GT_OK(graft_saved_model_object_kind(&kind, m, "vocab"));
  assert_int_equal(kind, GRAFT_SAVED_OBJECT_ASSET);
  GT_OK(graft_saved_model_object_kind(&kind, m, "signatures.serving_default"));
  assert_int_equal(kind, GRAFT_SAVED_OBJECT_CONCRETE_FUNCTION);

  GT_ERR(GRAFT_ENOTFOUND, graft_saved_model_object_kind(&kind, m, "layers.7"), "'layers' has no child '7'", "0, 1");
  GT_ERR(GRAFT_ENOTFOUND, graft_saved_model_object_kind(&kind, m, "nope.x"), "(root)", "no child 'nope'");
  GT_ERR(GRAFT_EINVAL, graft_saved_model_object_kind(NULL, m, ""), "out");
  graft_saved_model_free(m);
}

static void test_variables_through_lists_dicts_and_shared_paths(void **state) {
  (void)state;
  graft_saved_model *m = load_module();
  graft_tensor *v = NULL;
  GT_OK(graft_saved_model_variable_read(&v, m, "layers.0.w"));
  float w0[12];
  for (int i = 0; i < 12; ++i) w0[i] = (float)i / 10.0f;
  expect_floats(v, w0, 12);
  graft_tensor_free(v);
  GT_OK(graft_saved_model_variable_read(&v, m, "table.shift"));
  const float shift[2] = {1.0f, -1.0f};
  expect_floats(v, shift, 2);
  graft_tensor_free(v);
  /* layers[1].b and shared are one variable. */
  GT_OK(graft_saved_model_variable_read(&v, m, "shared"));
  const float half[2] = {0.5f, 0.5f};
  expect_floats(v, half, 2);
  graft_tensor_free(v);
  int id1 = -1, id2 = -2;
  GT_OK(graft_saved_model_object_id(&id1, m, "shared"));
  GT_OK(graft_saved_model_object_id(&id2, m, "layers.1.b"));
  assert_int_equal(id1, id2);
  GT_OK(graft_saved_model_object_id(&id2, m, "layers.0.b"));
  assert_int_not_equal(id1, id2);
  GT_ERR(GRAFT_EINVAL, graft_saved_model_variable_read(&v, m, "layers.0"), "'layers.0' is not a variable");
  char *path = NULL;
  GT_OK(graft_saved_model_asset_path(&path, m, "vocab"));
  assert_non_null(strstr(path, "/assets/vocab.txt"));
  graft_string_free(path);
  graft_saved_model_free(m);
}

static void test_functions_run(void **state) {
  (void)state;
  graft_saved_model *m = load_module();
  const float x[6] = {1.0f, 2.0f, 3.0f, -1.0f, 0.5f, 2.0f};
  const int64_t dims[2] = {2, 3};
  graft_tensor *in = floats(dims, 2, x, 6);
  const graft_signature *predict = function_at(m, "predict", 0);
  assert_int_equal(graft_signature_count(predict, GRAFT_SIGNATURE_INPUT), 1);
  assert_string_equal(graft_signature_key(predict, GRAFT_SIGNATURE_INPUT, 0), "x");
  graft_tensor *out = NULL;
  const char *key = "x";
  GT_OK(graft_saved_model_run(&out, m, graft_signature_name(predict), &key, &in, 1, NULL, 0));
  const float want[4] = {14.24f, 15.92f, 8.36f, 8.38f};
  expect_floats(out, want, 4);
  graft_tensor_free(out);

  /* A layer's own __call__, reached through the list. */
  const graft_signature *call0 = function_at(m, "layers.0.__call__", 0);
  GT_OK(graft_saved_model_run(&out, m, graft_signature_name(call0), &key, &in, 1, NULL, 0));
  const float want0[8] = {3.7f, 4.3f, 4.9f, 5.5f, 2.3f, 2.45f, 2.6f, 2.75f};
  expect_floats(out, want0, 8);
  graft_tensor_free(out);
  graft_tensor_free(in);

  /* A captured constant and an asset. */
  const float v2[2] = {1.0f, 2.0f};
  const int64_t two = 2;
  in = floats(&two, 1, v2, 2);
  const graft_signature *add = function_at(m, "add_offset", 0);
  key = graft_signature_key(add, GRAFT_SIGNATURE_INPUT, 0);
  GT_OK(graft_saved_model_run(&out, m, graft_signature_name(add), &key, &in, 1, NULL, 0));
  const float want_add[2] = {11.0f, 22.0f};
  expect_floats(out, want_add, 2);
  graft_tensor_free(out);
  graft_tensor_free(in);
  const graft_signature *vocab = function_at(m, "read_vocab", 0);
  GT_OK(graft_saved_model_run(&out, m, graft_signature_name(vocab), NULL, NULL, 0, NULL, 0));
  assert_int_equal(graft_tensor_dtype(out), GRAFT_STRING);
  size_t len = 0;
  const char *text = NULL;
  GT_OK(graft_tensor_string(&text, &len, out, 0));
  assert_int_equal(len, 11);
  assert_memory_equal(text, "alpha\nbeta\n", 11);
  graft_tensor_free(out);

  /* A side effect: each call of bump adds one, and the variable shows it. */
  const graft_signature *bump = function_at(m, "bump", 0);
  for (int64_t i = 1; i <= 2; ++i) {
    GT_OK(graft_saved_model_run(&out, m, graft_signature_name(bump), NULL, NULL, 0, NULL, 0));
    assert_int_equal(*(const int64_t *)graft_tensor_data(out), i);
    graft_tensor_free(out);
  }
  GT_OK(graft_saved_model_variable_read(&out, m, "steps"));
  assert_int_equal(*(const int64_t *)graft_tensor_data(out), 2);
  graft_tensor_free(out);
  graft_saved_model_free(m);
}

static void test_polymorphic_and_nested(void **state) {
  (void)state;
  graft_saved_model *m = load_module();
  int n = 0;
  GT_OK(graft_saved_model_function_count(&n, m, "poly"));
  assert_int_equal(n, 2);
  /* The int32 trace takes a and b; its outputs are the dict flattened by sorted key. */
  const graft_signature *ints = NULL;
  for (int i = 0; i < n; ++i) {
    const graft_signature *f = function_at(m, "poly", i);
    if (graft_signature_dtype(f, GRAFT_SIGNATURE_INPUT, 0) == GRAFT_INT32) ints = f;
  }
  assert_non_null(ints);
  assert_int_equal(graft_signature_count(ints, GRAFT_SIGNATURE_INPUT), 2);
  assert_string_equal(graft_signature_key(ints, GRAFT_SIGNATURE_OUTPUT, 0), "prod");
  assert_string_equal(graft_signature_key(ints, GRAFT_SIGNATURE_OUTPUT, 1), "sum");
  char *json = NULL;
  GT_OK(graft_signature_structure(&json, ints, GRAFT_SIGNATURE_INPUT));
  assert_non_null(strstr(json, "\"arg_names\":[\"a\",\"b\",\"scale\"]"));
  assert_non_null(strstr(json, "{\"bool\":true}"));
  graft_string_free(json);
  GT_OK(graft_signature_structure(&json, ints, GRAFT_SIGNATURE_OUTPUT));
  assert_non_null(strstr(json, "{\"dict\":{\"prod\":{\"tensor\":0"));
  graft_string_free(json);

  int32_t a[2] = {1, 2}, b = 3;
  const int64_t two = 2;
  graft_tensor *ins[2] = {NULL, NULL};
  GT_OK(graft_tensor_new(&ins[0], GRAFT_INT32, &two, 1, a, sizeof a));
  GT_OK(graft_tensor_new(&ins[1], GRAFT_INT32, NULL, 0, &b, sizeof b));
  const char *keys[2] = {"a", "b"};
  graft_tensor *outs[2] = {NULL, NULL};
  GT_OK(graft_saved_model_run(outs, m, graft_signature_name(ints), keys, ins, 2, NULL, 0));
  const int32_t *prod = graft_tensor_data(outs[0]), *sum = graft_tensor_data(outs[1]);
  assert_int_equal(prod[0], 3);
  assert_int_equal(prod[1], 6);
  assert_int_equal(sum[0], 4);
  assert_int_equal(sum[1], 5);
  for (int i = 0; i < 2; ++i) graft_tensor_free(outs[i]);
  /* A float fed to the int32 trace is refused, naming the function and key. */
  graft_tensor_free(ins[0]);
  const float f2[2] = {1.0f, 2.0f};
  ins[0] = floats(&two, 1, f2, 2);
  GT_ERR(GRAFT_EDTYPE, graft_saved_model_run(outs, m, graft_signature_name(ints), keys, ins, 2, NULL, 0), "'a'",
         "int32");
  graft_tensor_free(ins[0]);
  graft_tensor_free(ins[1]);

  /* A tuple argument flattens to p_0, p_1; a tuple result to keys 0 and 1. */
  const graft_signature *pair = function_at(m, "pair", 0);
  assert_string_equal(graft_signature_key(pair, GRAFT_SIGNATURE_INPUT, 0), "p_0");
  assert_string_equal(graft_signature_key(pair, GRAFT_SIGNATURE_OUTPUT, 1), "1");
  ins[0] = floats(&two, 1, f2, 2);
  GT_OK(graft_tensor_new(&ins[1], GRAFT_INT32, NULL, 0, &b, sizeof b));
  keys[0] = "p_0";
  keys[1] = "p_1";
  GT_OK(graft_saved_model_run(outs, m, graft_signature_name(pair), keys, ins, 2, NULL, 0));
  const float want[2] = {3.0f, 6.0f};
  expect_floats(outs[0], want, 2);
  assert_int_equal(*(const int32_t *)graft_tensor_data(outs[1]), 4);
  for (int i = 0; i < 2; ++i) {
    graft_tensor_free(outs[i]);
    graft_tensor_free(ins[i]);
  }

  const graft_signature *f = NULL;
  GT_ERR(GRAFT_ERANGE, graft_saved_model_function_at(&f, m, "poly", 2), "2 concrete functions");
  GT_ERR(GRAFT_EINVAL, graft_saved_model_function_at(&f, m, "layers", 0), "'layers' is not a function");
  graft_saved_model_free(m);
}

/* Lookup tables: a vocabulary file (an asset) and key/value tensors, initialized by the init op
 * and shared by the restored functions and the signatures. */
static void test_lookup_tables(void **state) {
  (void)state;
  graft_saved_model *m = load_module();
  graft_saved_object_kind kind;
  GT_OK(graft_saved_model_object_kind(&kind, m, "words"));
  assert_int_equal(kind, GRAFT_SAVED_OBJECT_RESOURCE);
  const char *words[3] = {"banana", "zzz", "apple"};
  const int64_t three = 3;
  graft_tensor *in = NULL;
  GT_OK(graft_tensor_new_strings(&in, &three, 1, words, NULL, 3));
  const graft_signature *ids = function_at(m, "word_ids", 0);
  const char *key = "s";
  graft_tensor *out = NULL;
  GT_OK(graft_saved_model_run(&out, m, graft_signature_name(ids), &key, &in, 1, NULL, 0));
  const int64_t *v = graft_tensor_data(out);
  assert_int_equal(v[0], 1);
  assert_int_equal(v[1], -1);
  assert_int_equal(v[2], 0);
  graft_tensor_free(out);
  GT_OK(graft_saved_model_run(&out, m, "word_ids", &key, &in, 1, NULL, 0));  /* the signature */
  assert_int_equal(((const int64_t *)graft_tensor_data(out))[0], 1);
  graft_tensor_free(out);
  graft_tensor_free(in);

  const int64_t k[2] = {5, 2};
  const int64_t two = 2;
  GT_OK(graft_tensor_new(&in, GRAFT_INT64, &two, 1, k, sizeof k));
  const graft_signature *kv = function_at(m, "kv_lookup", 0);
  key = graft_signature_key(kv, GRAFT_SIGNATURE_INPUT, 0);
  graft_tensor *outs[2] = {NULL, NULL};
  GT_OK(graft_saved_model_run(outs, m, graft_signature_name(kv), &key, &in, 1, NULL, 0));
  const float want[2] = {1.5f, -1.0f};
  expect_floats(outs[0], want, 2);
  assert_int_equal(*(const int64_t *)graft_tensor_data(outs[1]), 3);
  graft_tensor_free(outs[0]);
  graft_tensor_free(outs[1]);
  graft_tensor_free(in);
  graft_saved_model_free(m);
}

/* A TensorFlow 1 model has no object graph. */
static void test_tf1_model_has_no_objects(void **state) {
  (void)state;
  char dir[512];
  snprintf(dir, sizeof dir, "%s/savedmodels/half_plus_two_tf1", GRAFT_CONFORMANCE_DIR);
  graft_saved_model *m = NULL;
  if (graft_saved_model_load(&m, dir, NULL, 0, NULL) != GRAFT_OK) {
    print_message("%s not loadable: skipped (no ../shared/conformance)\n", dir);
    skip();
  }
  graft_saved_object_kind kind;
  GT_ERR(GRAFT_ENOTFOUND, graft_saved_model_object_kind(&kind, m, ""), "no object graph");
  graft_saved_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_objects_and_children),
      cmocka_unit_test(test_variables_through_lists_dicts_and_shared_paths),
      cmocka_unit_test(test_functions_run),
      cmocka_unit_test(test_polymorphic_and_nested),
      cmocka_unit_test(test_lookup_tables),
      cmocka_unit_test(test_tf1_model_has_no_objects),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
