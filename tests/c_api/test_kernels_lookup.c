/* Lookup tables (HashTableV2, MutableHashTableV2 and their ops): a static table filled once —
 * from tensors or a vocabulary file — and found in by many runs; initializing it again with
 * the same entries is accepted, with others refused; a mutable table's inserts, removals and
 * export; the errors, each naming the op. Expected values are TensorFlow 2.21's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "kernel_test_util.h"

static graft_op *table(graft_graph *g, const char *type, const char *name, graft_dtype key, graft_dtype value) {
  graft_op_desc *d = desc(g, type, name);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "key_dtype", key));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "value_dtype", value));
  return fin(d);
}

static graft_op *op2(graft_graph *g, const char *type, const char *name, graft_op *a, graft_op *b) {
  graft_op_desc *d = desc(g, type, name);
  in(d, a);
  in(d, b);
  return fin(d);
}

static void test_static_table_from_tensors(void **state) {
  graft_graph *g = *state;
  graft_op *t = table(g, "HashTableV2", "table", GRAFT_INT64, GRAFT_FLOAT32);
  const int64_t keys[3] = {1, 5, 9};
  const float vals[3] = {0.5f, 1.5f, 2.5f};
  graft_op *init = op3(g, "LookupTableImportV2", "init", t, konst(g, "k", GRAFT_INT64, D(3), keys),
                       konst(g, "v", GRAFT_FLOAT32, D(3), vals));
  const int64_t query[2][2] = {{5, 2}, {9, 1}};
  const float dflt = -1.0f;
  graft_op *find = op3(g, "LookupTableFindV2", "find", t, konst(g, "q", GRAFT_INT64, D(2, 2), query),
                       konst(g, "d", GRAFT_FLOAT32, SCALAR, &dflt));
  graft_op *size = op1(g, "LookupTableSizeV2", "size", t);

  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  /* Finding before initializing is TensorFlow's error. */
  graft_output f = {find, 0};
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0), "find",
         "not initialized");
  session_run_target(s, init);
  out = session_fetch(s, find);
  expect_f32_near(out, D(2, 2), (const float[]){1.5f, -1.0f, 2.5f, 0.5f}, 0.0f);
  out = session_fetch(s, size);
  assert_int_equal(*(const int64_t *)graft_tensor_data(out), 3);
  graft_tensor_free(out);
  /* The same entries again: accepted (a SavedModel's init op may run twice); others refused. */
  session_run_target(s, init);
  const float other[3] = {0.0f, 1.5f, 2.5f};
  graft_op *reinit = op3(g, "LookupTableImportV2", "reinit", t, konst(g, "k2", GRAFT_INT64, D(3), keys),
                         konst(g, "v2", GRAFT_FLOAT32, D(3), other));
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &reinit, 1), "reinit",
         "already initialized with different data");
  /* Inserting into a static table is refused. */
  graft_op *ins = op3(g, "LookupTableInsertV2", "ins", t, konst(g, "k3", GRAFT_INT64, D(3), keys),
                      konst(g, "v3", GRAFT_FLOAT32, D(3), other));
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &ins, 1), "ins", "static");
  graft_session_free(s);
}

static void test_errors_name_the_op(void **state) {
  graft_graph *g = *state;
  graft_op *t = table(g, "HashTableV2", "strtab", GRAFT_STRING, GRAFT_INT64);
  const char *keys[2] = {"a", "a"};
  const int64_t vals[2] = {1, 2};
  graft_op *dup = op3(g, "LookupTableImportV2", "dup", t, strings(g, "k", D(2), keys),
                      konst(g, "v", GRAFT_INT64, D(2), vals));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &dup, 1), "dup",
         "key 'a' is given twice");
  /* Keys of the wrong dtype. */
  const int64_t ik[1] = {3};
  const int64_t d = -1;
  graft_op *bad = op3(g, "LookupTableFindV2", "bad", t, konst(g, "ik", GRAFT_INT64, D(1), ik),
                      konst(g, "d", GRAFT_INT64, SCALAR, &d));
  graft_output f = {bad, 0};
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EDTYPE, graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0), "bad", "keys are string");
  graft_session_free(s);
  /* Unsupported dtypes are refused when the table op is made or run. */
  graft_op_desc *dd = desc(g, "HashTableV2", "halves");
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(dd), "key_dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(dd), "value_dtype", GRAFT_INT64));
  graft_op *ft = NULL;
  int rc = graft_op_desc_finish(&ft, dd);
  if (rc == GRAFT_OK) {
    graft_op *sz = op1(g, "LookupTableSizeV2", "fsize", ft);
    expect_error(g, sz, NULL, NULL, GRAFT_EUNIMPLEMENTED, "halves", "key_dtype float32");
  } else {
    assert_non_null(strstr(graft_error_last(), "float32"));
  }
}

static void test_text_file_vocabulary(void **state) {
  graft_graph *g = *state;
  char path[] = "/tmp/graft_vocab_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char text[] = "apple\tA\r\nbanana\tB\ncherry\tC\n";
  assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
  close(fd);

  /* Whole line -> line number (TextFileIndex.WHOLE_LINE, LINE_NUMBER), as a vocabulary. */
  graft_op *t = table(g, "HashTableV2", "vocab", GRAFT_STRING, GRAFT_INT64);
  const char *p = path;
  graft_op *file = strings(g, "file", SCALAR, &p);
  graft_op_desc *d = desc(g, "InitializeTableFromTextFileV2", "init");
  in(d, t);
  in(d, file);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "key_index", 0));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "value_index", -1));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "offset", 10));
  graft_op *init = fin(d);
  const char *q[4] = {"banana", "zzz", "apple", "cherry\tC"};
  const int64_t dflt = -1;
  graft_op *find = op3(g, "LookupTableFindV2", "find", t, strings(g, "q", D(4), q),
                       konst(g, "d", GRAFT_INT64, SCALAR, &dflt));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  session_run_target(s, init);
  graft_tensor *out = session_fetch(s, find);
  expect(out, GRAFT_INT64, D(4), (const int64_t[]){11, -1, 10, -1});

  /* Column 1 as the value; a vocab_size larger than the file is TensorFlow's error. */
  graft_op *t2 = table(g, "HashTableV2", "cols", GRAFT_STRING, GRAFT_STRING);
  d = desc(g, "InitializeTableFromTextFileV2", "init2");
  in(d, t2);
  in(d, file);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "key_index", 0));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "value_index", 1));
  graft_op *init2 = fin(d);
  const char *none = "?";
  graft_op *find2 = op3(g, "LookupTableFindV2", "find2", t2, strings(g, "q2", D(4), q), strings(g, "n", SCALAR, &none));
  session_run_target(s, init2);
  out = session_fetch(s, find2);
  expect_strings(out, D(4), (const char *const[]){"B", "?", "A", "?"});
  graft_op *t3 = table(g, "HashTableV2", "big", GRAFT_STRING, GRAFT_INT64);
  d = desc(g, "InitializeTableFromTextFileV2", "init3");
  in(d, t3);
  in(d, file);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "key_index", -2));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "value_index", -1));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "vocab_size", 5));
  graft_op *init3 = fin(d);
  GT_ERR(GRAFT_EINVAL, graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &init3, 1), "init3", "vocab_size",
         "expected 5");
  /* A missing file names it. */
  graft_op *t4 = table(g, "HashTableV2", "nofile", GRAFT_STRING, GRAFT_INT64);
  const char *missing = "/nonexistent/vocab.txt";
  d = desc(g, "InitializeTableFromTextFileV2", "init4");
  in(d, t4);
  in(d, strings(g, "missing", SCALAR, &missing));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "key_index", -2));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "value_index", -1));
  graft_op *init4 = fin(d);
  graft_error_clear();
  assert_int_not_equal(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &init4, 1), GRAFT_OK);
  assert_non_null(strstr(graft_error_last(), "/nonexistent/vocab.txt"));
  graft_session_free(s);
  unlink(path);
}

static void test_mutable_table(void **state) {
  graft_graph *g = *state;
  graft_op *t = table(g, "MutableHashTableV2", "mut", GRAFT_STRING, GRAFT_INT32);
  const char *k[3] = {"x", "y", "z"};
  const int32_t v[3] = {1, 2, 3};
  graft_op *ins = op3(g, "LookupTableInsertV2", "ins", t, strings(g, "k", D(3), k), konst(g, "v", GRAFT_INT32, D(3), v));
  const char *rk[1] = {"y"};
  graft_op *rm = op2(g, "LookupTableRemoveV2", "rm", t, strings(g, "rk", D(1), rk));
  const int32_t d = 0;
  graft_op *find = op3(g, "LookupTableFindV2", "find", t, strings(g, "q", D(3), k), konst(g, "d", GRAFT_INT32, SCALAR, &d));
  graft_op_desc *ed = desc(g, "LookupTableExportV2", "export");
  in(ed, t);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(ed), "Tkeys", GRAFT_STRING));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(ed), "Tvalues", GRAFT_INT32));
  graft_op *exp = fin(ed);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_tensor *out = session_fetch(s, find);  /* empty: the default everywhere, no error */
  expect(out, GRAFT_INT32, D(3), (const int32_t[]){0, 0, 0});
  session_run_target(s, ins);
  session_run_target(s, rm);
  out = session_fetch(s, find);
  expect(out, GRAFT_INT32, D(3), (const int32_t[]){1, 0, 3});
  graft_output outs[2] = {{exp, 0}, {exp, 1}};
  graft_tensor *kv[2] = {NULL, NULL};
  GT_OK(graft_session_run(kv, s, NULL, NULL, 0, outs, 2, NULL, 0));
  assert_int_equal(graft_tensor_num_elements(kv[0]), 2);
  int32_t sum = 0;
  for (int i = 0; i < 2; ++i) sum += ((const int32_t *)graft_tensor_data(kv[1]))[i];
  assert_int_equal(sum, 4);
  graft_tensor_free(kv[0]);
  graft_tensor_free(kv[1]);
  graft_session_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_static_table_from_tensors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors_name_the_op, setup, teardown),
      cmocka_unit_test_setup_teardown(test_text_file_vocabulary, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mutable_table, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
