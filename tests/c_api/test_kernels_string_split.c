/* Splitting strings (kernels/cpu/string_split_kernels.cc): StringSplitV2 (a separator, or runs
 * of whitespace when it is empty; maxsplit) and StringSplit (v1: any of the delimiter's
 * characters, single bytes for an empty one; skip_empty), their SparseTensor outputs (indices,
 * values, dense_shape), static shapes and errors. Expected values are TensorFlow 2.21's
 * (tf.raw_ops.StringSplitV2 / StringSplit on the same strings), including its whitespace
 * splitting with maxsplit (" a" with maxsplit 1 gives "a" and ""; maxsplit 0 the whole string). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

static graft_op *split(graft_graph *g, const char *type, const char *name, graft_op *input, graft_op *sep,
                       const char *attr, int64_t value) {
  graft_op_desc *d = desc(g, type, name);
  in(d, input);
  in(d, sep);
  if (attr != NULL && strcmp(attr, "skip_empty") == 0) {
    GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), attr, (int)value));
  } else if (attr != NULL) {
    GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), attr, value));
  }
  return fin(d);
}

static graft_op *scalar_str(graft_graph *g, const char *name, const char *s) {
  return strings(g, name, SCALAR, (const char *const[]){s});
}

/* Checks the three outputs of a split: n tokens, their (row, position) pairs and the dense shape. */
static void expect_split(graft_graph *g, graft_op *op, int64_t n, const int64_t *indices, const char *const *values,
                         int64_t rows, int64_t width) {
  expect(run_feeds(g, op, 0, 0, NULL, NULL), GRAFT_INT64, (const int64_t[]){n, 2}, 2, indices);
  expect_strings(run_feeds(g, op, 1, 0, NULL, NULL), (const int64_t[]){n}, 1, values);
  expect(run_feeds(g, op, 2, 0, NULL, NULL), GRAFT_INT64, D(2), (const int64_t[]){rows, width});
}

static void test_v2_whitespace(void **state) {
  graft_graph *g = *state;
  graft_op *x = strings(g, "x", D(5), (const char *const[]){"a b  c", "", "   ", " x\ty\n", "1,,2"});
  graft_op *ws = split(g, "StringSplitV2", "ws", x, scalar_str(g, "empty", ""), NULL, 0);
  assert_output_shape(ws, 0, "(None, 2)");
  assert_output_shape(ws, 1, "(None,)");
  assert_output_shape(ws, 2, "(2,)");
  expect_split(g, ws, 6, (const int64_t[]){0, 0, 0, 1, 0, 2, 3, 0, 3, 1, 4, 0},
               (const char *const[]){"a", "b", "c", "x", "y", "1,,2"}, 5, 3);
  /* maxsplit: the rest of the string, from its first non-space, is the last token. */
  graft_op *y = strings(g, "y", D(3), (const char *const[]){"a b  c ", "  lead  trail  ", " a"});
  graft_op *sep = scalar_str(g, "sep", "");
  expect_split(g, split(g, "StringSplitV2", "one", y, sep, "maxsplit", 1), 6,
               (const int64_t[]){0, 0, 0, 1, 1, 0, 1, 1, 2, 0, 2, 1},
               (const char *const[]){"a", "b  c ", "lead", "trail  ", "a", ""}, 3, 2);
  expect_split(g, split(g, "StringSplitV2", "zero", y, sep, "maxsplit", 0), 3, (const int64_t[]){0, 0, 1, 0, 2, 0},
               (const char *const[]){"a b  c ", "  lead  trail  ", " a"}, 3, 1);
}

static void test_v2_separator(void **state) {
  graft_graph *g = *state;
  graft_op *x = strings(g, "x", D(4), (const char *const[]){"1,,2", "", ",", "a<>b<>c"});
  expect_split(g, split(g, "StringSplitV2", "comma", x, scalar_str(g, "c", ","), NULL, 0), 7,
               (const int64_t[]){0, 0, 0, 1, 0, 2, 1, 0, 2, 0, 2, 1, 3, 0},
               (const char *const[]){"1", "", "2", "", "", "", "a<>b<>c"}, 4, 3);
  graft_op *y = strings(g, "y", D(2), (const char *const[]){"a<>b<>c", "<><>"});
  expect_split(g, split(g, "StringSplitV2", "multi", y, scalar_str(g, "m", "<>"), NULL, 0), 6,
               (const int64_t[]){0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2}, (const char *const[]){"a", "b", "c", "", "", ""},
               2, 3);
  graft_op *z = strings(g, "z", D(1), (const char *const[]){"1,2,3,4"});
  expect_split(g, split(g, "StringSplitV2", "max2", z, scalar_str(g, "c2", ","), "maxsplit", 2), 3,
               (const int64_t[]){0, 0, 0, 1, 0, 2}, (const char *const[]){"1", "2", "3,4"}, 1, 3);
  /* No rows. */
  graft_op *none = strings(g, "none", D(0), NULL);
  expect_split(g, split(g, "StringSplitV2", "nothing", none, scalar_str(g, "c3", ","), NULL, 0), 0, NULL, NULL, 0, 0);
}

static void test_v1(void **state) {
  graft_graph *g = *state;
  graft_op *x = strings(g, "x", D(3), (const char *const[]){"a,b;c", ",,x", ""});
  graft_op *delims = scalar_str(g, "d", ",;");
  expect_split(g, split(g, "StringSplit", "skip", x, delims, NULL, 0), 4, (const int64_t[]){0, 0, 0, 1, 0, 2, 1, 0},
               (const char *const[]){"a", "b", "c", "x"}, 3, 3);
  expect_split(g, split(g, "StringSplit", "keep", x, delims, "skip_empty", 0), 6,
               (const int64_t[]){0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2}, (const char *const[]){"a", "b", "c", "", "", "x"},
               3, 3);
  graft_op *y = strings(g, "y", D(3), (const char *const[]){"abc", "", "d"});
  expect_split(g, split(g, "StringSplit", "bytes", y, scalar_str(g, "e", ""), NULL, 0), 4,
               (const int64_t[]){0, 0, 0, 1, 0, 2, 2, 0}, (const char *const[]){"a", "b", "c", "d"}, 3, 3);
}

static void test_errors(void **state) {
  graft_graph *g = *state;
  /* Known shapes are checked at graph building. */
  graft_op *m = strings(g, "m", D(1, 1), (const char *const[]){"a"});
  graft_op_desc *d = desc(g, "StringSplitV2", "matrix");
  in(d, m);
  in(d, scalar_str(g, "s", ","));
  graft_op *op = NULL;
  GT_ERR(GRAFT_ESHAPE, graft_op_desc_finish(&op, d), "StringSplitV2");
  /* Unknown ones at run time. */
  graft_op *p = ph(g, "p", GRAFT_STRING);
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new_strings(&t, D(1, 1), (const char *const[]){"a"}, NULL, 1));
  expect_error(g, split(g, "StringSplitV2", "v2", p, scalar_str(g, "s2", ","), NULL, 0), p, t, GRAFT_EINVAL,
               "StringSplitV2 op 'v2'", "input must be a vector, got shape: [1,1]");
  graft_op *q = ph(g, "q", GRAFT_STRING);
  GT_OK(graft_tensor_new_strings(&t, D(1), (const char *const[]){","}, NULL, 1));
  expect_error(g, split(g, "StringSplitV2", "sep", strings(g, "v", D(1), (const char *const[]){"a"}), q, NULL, 0), q, t,
               GRAFT_EINVAL, "StringSplitV2 op 'sep'", "sep must be a scalar, got shape: [1]");
  graft_op *r = ph(g, "r", GRAFT_STRING);
  GT_OK(graft_tensor_new_strings(&t, D(1), (const char *const[]){","}, NULL, 1));
  expect_error(g, split(g, "StringSplit", "v1", strings(g, "w", D(1), (const char *const[]){"a"}), r, NULL, 0), r, t,
               GRAFT_EINVAL, "StringSplit op 'v1'", "delimiter must be a scalar, got shape: [1]");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_v2_whitespace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v2_separator, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v1, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_string_split", tests, NULL, NULL);
}
