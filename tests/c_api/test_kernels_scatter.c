/* The scatters into tensors (kernels/cpu/scatter_nd_kernels.cc): ScatterNd (duplicates summed:
 * integers wrap, bools OR, strings concatenate) and TensorScatterUpdate / Add / Sub / Max / Min
 * (duplicates applied in order), slices of any depth, bad_indices_policy "IGNORE", and the
 * errors TensorFlow's CPU kernels give (a bad index named with its position and value, shapes
 * that do not fit, indices into an empty output). Expected values are TensorFlow 2.21's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

#define I32S(...) ((const int32_t[]){__VA_ARGS__})
#define F32S(...) ((const float[]){__VA_ARGS__})

static graft_op *scatter_nd(graft_graph *g, const char *name, graft_op *indices, graft_op *updates, graft_op *shape,
                            const char *policy) {
  graft_op_desc *d = desc(g, "ScatterNd", name);
  in(d, indices);
  in(d, updates);
  in(d, shape);
  if (policy) GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "bad_indices_policy", policy, strlen(policy)));
  return fin(d);
}

static graft_op *tensor_scatter(graft_graph *g, const char *type, const char *name, graft_op *t, graft_op *indices,
                                graft_op *updates, const char *policy) {
  graft_op_desc *d = desc(g, type, name);
  in(d, t);
  in(d, indices);
  in(d, updates);
  if (policy) GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "bad_indices_policy", policy, strlen(policy)));
  return fin(d);
}

static void test_scatter_nd(void **state) {
  graft_graph *g = *state;
  /* Elements, a duplicate index summed. */
  graft_op *idx = konst(g, "idx", GRAFT_INT32, D(3, 1), I32S(1, 1, 3));
  graft_op *sum = scatter_nd(g, "sum", idx, konst(g, "u", GRAFT_FLOAT32, D(3), F32S(1, 2, 5)),
                             konst(g, "shape", GRAFT_INT32, D(1), I32S(4)), NULL);
  assert_output_shape(sum, 0, "(4,)");
  expect(run(g, sum), GRAFT_FLOAT32, D(4), F32S(0, 3, 0, 5));
  /* Rows of a matrix, int64 indices. */
  graft_op *rows = konst(g, "rows", GRAFT_INT64, D(2, 1), ((const int64_t[]){1, 0}));
  expect(run(g, scatter_nd(g, "slices", rows, konst(g, "ru", GRAFT_INT32, D(2, 2), I32S(1, 2, 3, 4)),
                           konst(g, "rshape", GRAFT_INT64, D(2), ((const int64_t[]){3, 2})), NULL)),
         GRAFT_INT32, D(3, 2), I32S(3, 4, 1, 2, 0, 0));
  /* Integer sums wrap. */
  graft_op *zero = konst(g, "zero", GRAFT_INT32, D(2, 1), I32S(0, 0));
  graft_op *two = konst(g, "two", GRAFT_INT32, D(1), I32S(2));
  expect(run(g, scatter_nd(g, "wrap", zero, konst(g, "big", GRAFT_INT32, D(2), I32S(2147483647, 1)), two, NULL)),
         GRAFT_INT32, D(2), I32S(-2147483647 - 1, 0));
  /* Bools OR, strings concatenate. */
  expect(run(g, scatter_nd(g, "bools", zero, konst(g, "b", GRAFT_BOOL, D(2), ((const uint8_t[]){1, 0})), two, NULL)),
         GRAFT_BOOL, D(2), ((const uint8_t[]){1, 0}));
  const char *const ab[] = {"a", "b"};
  const char *const ab_out[] = {"ab", ""};
  expect_strings(run(g, scatter_nd(g, "strs", zero, strings(g, "s", D(2), ab), two, NULL)), D(2), ab_out);
  /* Depth-2 indices into a matrix: single elements. */
  graft_op *pairs = konst(g, "pairs", GRAFT_INT32, D(2, 2), I32S(0, 1, 2, 2));
  expect(run(g, scatter_nd(g, "pairs_out", pairs, konst(g, "pu", GRAFT_FLOAT32, D(2), F32S(7, 8)),
                           konst(g, "pshape", GRAFT_INT32, D(2), I32S(3, 3)), NULL)),
         GRAFT_FLOAT32, D(3, 3), F32S(0, 7, 0, 0, 0, 0, 0, 0, 8));
  /* IGNORE skips a bad index. */
  graft_op *bad = konst(g, "bad", GRAFT_INT32, D(2, 1), I32S(1, 7));
  expect(run(g, scatter_nd(g, "ignore", bad, konst(g, "iu", GRAFT_FLOAT32, D(2), F32S(5, 6)),
                           konst(g, "ishape", GRAFT_INT32, D(1), I32S(4)), "IGNORE")),
         GRAFT_FLOAT32, D(4), F32S(0, 5, 0, 0));
  /* No updates at all. */
  expect(run(g, scatter_nd(g, "none", konst(g, "noidx", GRAFT_INT32, D(0, 1), NULL),
                           konst(g, "nou", GRAFT_FLOAT32, D(0), NULL), konst(g, "nshape", GRAFT_INT32, D(1), I32S(3)),
                           NULL)),
         GRAFT_FLOAT32, D(3), F32S(0, 0, 0));
}

static void test_scatter_nd_errors(void **state) {
  graft_graph *g = *state;
  graft_op *idx = ph(g, "idx", GRAFT_INT32);
  graft_op *op = scatter_nd(g, "sc", idx, konst(g, "u", GRAFT_FLOAT32, D(2), F32S(1, 2)),
                            konst(g, "shape", GRAFT_INT32, D(1), I32S(4)), NULL);
  expect_error(g, op, idx, tensor(GRAFT_INT32, D(2, 1), I32S(1, 5)), GRAFT_EINVAL, "ScatterNd op 'sc'",
               "indices[1] = [5] does not index into shape [4]");
  expect_error(g, op, idx, tensor(GRAFT_INT32, D(2, 1), I32S(-1, 0)), GRAFT_EINVAL, "ScatterNd op 'sc'",
               "indices[0] = [-1] does not index into shape [4]");
  expect_error(g, op, idx, tensor(GRAFT_INT32, D(3, 1), I32S(0, 1, 2)), GRAFT_EINVAL, "ScatterNd op 'sc'",
               "Dimensions [0,1) of indices[shape=[3,1]] must match dimensions [0,1) of updates[shape=[2]]");
  expect_error(g, op, idx, tensor(GRAFT_INT32, SCALAR, I32S(1)), GRAFT_EINVAL, "ScatterNd op 'sc'",
               "Indices shape must have rank at least one. Found:[]");
  /* Depth 2, an index tuple named by its position in 3-D indices. */
  graft_op *idx2 = ph(g, "idx2", GRAFT_INT32);
  graft_op *op2 = scatter_nd(g, "sc2", idx2, konst(g, "u2", GRAFT_FLOAT32, D(1, 2), F32S(1, 2)),
                             konst(g, "shape2", GRAFT_INT32, D(2), I32S(3, 3)), NULL);
  expect_error(g, op2, idx2, tensor(GRAFT_INT32, D(1, 2, 2), I32S(0, 1, 2, 3)), GRAFT_EINVAL, "ScatterNd op 'sc2'",
               "indices[0,1] = [2, 3] does not index into shape [3,3]");
  /* A negative dimension in shape. */
  graft_op *shape = ph(g, "shape3", GRAFT_INT32);
  graft_op *op3_ = scatter_nd(g, "sc3", konst(g, "i3", GRAFT_INT32, D(1, 1), I32S(0)),
                              konst(g, "u3", GRAFT_FLOAT32, D(1), F32S(1)), shape, NULL);
  expect_error(g, op3_, shape, tensor(GRAFT_INT32, D(1), I32S(-1)), GRAFT_EINVAL, "ScatterNd op 'sc3'",
               "Dimension -1 must be >= 0");
  /* Known while building: updates that do not fit the constant shape. */
  graft_op_desc *d = desc(g, "ScatterNd", "bad_shape");
  in(d, konst(g, "i4", GRAFT_INT32, D(1, 1), I32S(0)));
  in(d, konst(g, "u4", GRAFT_FLOAT32, D(1, 3), F32S(1, 2, 3)));
  in(d, konst(g, "s4", GRAFT_INT32, D(2), I32S(4, 2)));
  graft_op *built = NULL;
  GT_ERR(GRAFT_ESHAPE, graft_op_desc_finish(&built, d), "ScatterNd", "updates (shape (1, 3))");
}

static void test_tensor_scatter(void **state) {
  graft_graph *g = *state;
  graft_op *t = konst(g, "t", GRAFT_FLOAT32, D(4), F32S(1, 2, 3, 4));
  graft_op *idx = konst(g, "idx", GRAFT_INT32, D(3, 1), I32S(1, 3, 1));
  graft_op *u = konst(g, "u", GRAFT_FLOAT32, D(3), F32S(10, -1, 5));
  graft_op *upd = tensor_scatter(g, "TensorScatterUpdate", "upd", t, idx, u, NULL);
  assert_output_shape(upd, 0, "(4,)");
  expect(run(g, upd), GRAFT_FLOAT32, D(4), F32S(1, 5, 3, -1));
  expect(run(g, tensor_scatter(g, "TensorScatterAdd", "add", t, idx, u, NULL)), GRAFT_FLOAT32, D(4), F32S(1, 17, 3, 3));
  expect(run(g, tensor_scatter(g, "TensorScatterSub", "sub", t, idx, u, NULL)), GRAFT_FLOAT32, D(4),
         F32S(1, -13, 3, 5));
  expect(run(g, tensor_scatter(g, "TensorScatterMax", "max", t, idx, u, NULL)), GRAFT_FLOAT32, D(4), F32S(1, 10, 3, 4));
  expect(run(g, tensor_scatter(g, "TensorScatterMin", "min", t, idx, u, NULL)), GRAFT_FLOAT32, D(4), F32S(1, 2, 3, -1));
  /* Rows of an int matrix; strings; IGNORE. */
  graft_op *m = konst(g, "m", GRAFT_INT32, D(3, 2), I32S(1, 2, 3, 4, 5, 6));
  graft_op *row = konst(g, "row", GRAFT_INT32, D(1, 1), I32S(2));
  expect(run(g, tensor_scatter(g, "TensorScatterAdd", "addrow", m, row, konst(g, "ru", GRAFT_INT32, D(1, 2), I32S(10, 20)),
                               NULL)),
         GRAFT_INT32, D(3, 2), I32S(1, 2, 3, 4, 15, 26));
  const char *const ab[] = {"a", "b"};
  const char *const z[] = {"z"};
  const char *const az[] = {"a", "z"};
  expect_strings(run(g, tensor_scatter(g, "TensorScatterUpdate", "strs", strings(g, "s", D(2), ab),
                                       konst(g, "one", GRAFT_INT32, D(1, 1), I32S(1)), strings(g, "zs", D(1), z), NULL)),
                 D(2), az);
  /* TensorScatterUpdate also takes uint16 indices. */
  graft_op *u16 = konst(g, "u16", GRAFT_UINT16, D(1, 1), ((const uint16_t[]){2}));
  expect(run(g, tensor_scatter(g, "TensorScatterUpdate", "u16upd", t, u16, konst(g, "u16u", GRAFT_FLOAT32, D(1), F32S(-9)),
                               NULL)),
         GRAFT_FLOAT32, D(4), F32S(1, 2, -9, 4));
  graft_op *bad = konst(g, "bad", GRAFT_INT32, D(2, 1), I32S(1, 7));
  expect(run(g, tensor_scatter(g, "TensorScatterAdd", "ignore", t, bad, konst(g, "iu", GRAFT_FLOAT32, D(2), F32S(5, 6)),
                               "IGNORE")),
         GRAFT_FLOAT32, D(4), F32S(1, 7, 3, 4));
}

static void test_tensor_scatter_errors(void **state) {
  graft_graph *g = *state;
  graft_op *t = konst(g, "t", GRAFT_FLOAT32, D(4), F32S(1, 2, 3, 4));
  graft_op *idx = ph(g, "idx", GRAFT_INT32);
  graft_op *u = konst(g, "u", GRAFT_FLOAT32, D(2), F32S(10, -1));
  const char *types[] = {"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMax",
                         "TensorScatterMin"};
  for (int i = 0; i < 5; ++i) {
    char name[32], where[64];
    snprintf(name, sizeof name, "op%d", i);
    snprintf(where, sizeof where, "%s op '%s'", types[i], name);
    graft_op *op = tensor_scatter(g, types[i], name, t, idx, u, NULL);
    expect_error(g, op, idx, tensor(GRAFT_INT32, D(2, 1), I32S(1, 4)), GRAFT_EINVAL, where,
                 "indices[1] = [4] does not index into shape [4]");
    expect_error(g, op, idx, tensor(GRAFT_INT32, D(3, 1), I32S(1, 2, 3)), GRAFT_EINVAL, where,
                 "Outer dimensions of indices and update must match. Indices shape: [3,1], updates shape:[2]");
    expect_error(g, op, idx, tensor(GRAFT_INT32, D(2, 2), I32S(0, 0, 1, 1)), GRAFT_EINVAL, where,
                 "Inner dimensions of output shape must match inner dimensions of updates shape. Output: [4] updates: [2]");
  }
  /* Indices into an empty tensor. */
  graft_op *empty = ph(g, "empty", GRAFT_FLOAT32);
  graft_op *op = tensor_scatter(g, "TensorScatterUpdate", "into_empty", empty,
                                konst(g, "i0", GRAFT_INT32, D(1, 1), I32S(0)), konst(g, "u0", GRAFT_FLOAT32, D(1, 0), NULL),
                                NULL);
  expect_error(g, op, empty, tensor(GRAFT_FLOAT32, D(2, 0), NULL), GRAFT_EINVAL, "TensorScatterUpdate op 'into_empty'",
               "Indices and updates specified for empty output shape");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_scatter_nd, setup, teardown),
      cmocka_unit_test_setup_teardown(test_scatter_nd_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensor_scatter, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensor_scatter_errors, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
