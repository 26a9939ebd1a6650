/* Row-wise ops and their gradients: the unsorted segment reductions (UnsortedSegmentSum, Prod,
 * Max, Min: negative ids dropped, empty segments hold the identity, out-of-range ids and
 * shapes that are not a prefix are errors), the sorted ones (SegmentSum, Mean, Prod, Max, Min:
 * empty segments hold 0 (1 for Prod), unsorted or negative ids are errors; values from
 * TensorFlow 2.21), ResourceGather, ResourceScatter* and
 * VariableShape on resource variables (updates in place, a failed update leaves the variable
 * as it was, a reader's earlier value stays intact), and the dense gradients of GatherV2 (rows
 * gathered twice add up, any axis), ResourceGather (flowing to the variable's handle) and
 * UnsortedSegmentSum (dropped rows get zeros), and gradients kept as rows
 * (graft_graph_add_gradients_sparse). Expected values are worked out by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

static graft_op *typed_op(graft_graph *g, const char *type, const char *name, graft_op *const *inputs, int n,
                          graft_dtype dt) {
  graft_op_desc *d = desc(g, type, name);
  for (int i = 0; i < n; ++i) in(d, inputs[i]);
  if (dt != GRAFT_DTYPE_INVALID) GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", dt));
  return fin(d);
}


static graft_tensor *fetch_output(graft_session *s, graft_output f) {
  graft_tensor *out = NULL;
  GT_OK(graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0));
  return out;
}

/* ---- Unsorted segment reductions ---------------------------------------------------------- */

static graft_op *segment(graft_graph *g, const char *type, const char *name, graft_op *data, graft_op *ids, int32_t n) {
  return op3(g, type, name, data, ids, konst(g, NULL, GRAFT_INT32, NULL, 0, &n));
}

static void test_unsorted_segment_reductions(void **state) {
  graft_graph *g = *state;
  graft_op *data = konst(g, "data", GRAFT_FLOAT32, D(4, 2), (const float[]){1, 2, 3, 4, 5, 6, 7, -8});
  graft_op *ids = konst(g, "ids", GRAFT_INT32, D(4), (const int32_t[]){0, -1, 0, 2});
  graft_op *sum = segment(g, "UnsortedSegmentSum", "sum", data, ids, 3);
  assert_output_shape(sum, 0, "(3, 2)");
  expect(run(g, sum), GRAFT_FLOAT32, D(3, 2), (const float[]){6, 8, 0, 0, 7, -8});
  expect(run(g, segment(g, "UnsortedSegmentProd", "prod", data, ids, 3)), GRAFT_FLOAT32, D(3, 2),
         (const float[]){5, 12, 1, 1, 7, -8});
  const float lo = -3.40282347e+38f, hi = 3.40282347e+38f;
  expect(run(g, segment(g, "UnsortedSegmentMax", "max", data, ids, 3)), GRAFT_FLOAT32, D(3, 2),
         (const float[]){5, 6, lo, lo, 7, -8});
  expect(run(g, segment(g, "UnsortedSegmentMin", "min", data, ids, 3)), GRAFT_FLOAT32, D(3, 2),
         (const float[]){1, 2, hi, hi, 7, -8});
  /* Integer data, 2-D ids (a prefix of data's shape). */
  graft_op *idata = konst(g, "idata", GRAFT_INT64, D(2, 2, 1), (const int64_t[]){1, 10, 100, 1000});
  graft_op *ids2 = konst(g, "ids2", GRAFT_INT64, D(2, 2), (const int64_t[]){1, 1, 0, 1});
  expect(run(g, segment(g, "UnsortedSegmentSum", "isum", idata, ids2, 2)), GRAFT_INT64, D(2, 1),
         (const int64_t[]){100, 1011});
}

/* ---- Sorted segment reductions ----------------------------------------------------------- */

static graft_op *op2(graft_graph *g, const char *type, const char *name, graft_op *a, graft_op *b) {
  graft_op_desc *d = desc(g, type, name);
  in(d, a);
  in(d, b);
  return fin(d);
}

static void test_sorted_segment_reductions(void **state) {
  graft_graph *g = *state;
  graft_op *data = konst(g, "data", GRAFT_FLOAT32, D(5, 2), (const float[]){1, -2, 3, 4, 5, 6, -7, 8, 2, 2});
  graft_op *ids = konst(g, "ids", GRAFT_INT32, D(5), (const int32_t[]){0, 0, 1, 3, 3});
  /* Constant ids: the row count is known while building. */
  graft_op *sum = op2(g, "SegmentSum", "sum", data, ids);
  assert_output_shape(sum, 0, "(4, 2)");
  expect(run(g, sum), GRAFT_FLOAT32, D(4, 2), (const float[]){4, 2, 5, 6, 0, 0, -5, 10});
  expect(run(g, op2(g, "SegmentMean", "mean", data, ids)), GRAFT_FLOAT32, D(4, 2),
         (const float[]){2, 1, 5, 6, 0, 0, -2.5f, 5});
  expect(run(g, op2(g, "SegmentProd", "prod", data, ids)), GRAFT_FLOAT32, D(4, 2),
         (const float[]){3, -8, 5, 6, 1, 1, -14, 16});
  expect(run(g, op2(g, "SegmentMax", "max", data, ids)), GRAFT_FLOAT32, D(4, 2), (const float[]){3, 4, 5, 6, 0, 0, 2, 8});
  expect(run(g, op2(g, "SegmentMin", "min", data, ids)), GRAFT_FLOAT32, D(4, 2),
         (const float[]){1, -2, 5, 6, 0, 0, -7, 2});
  /* Integers (the mean truncates, as TensorFlow's), int64 ids. */
  graft_op *idata = konst(g, "idata", GRAFT_INT32, D(5), (const int32_t[]){1, 2, 4, -7, 2});
  graft_op *ids64 = konst(g, "ids64", GRAFT_INT64, D(5), (const int64_t[]){0, 0, 0, 2, 2});
  expect(run(g, op2(g, "SegmentMean", "imean", idata, ids64)), GRAFT_INT32, D(3), (const int32_t[]){2, 0, -2});
  expect(run(g, op2(g, "SegmentMax", "imax", idata, ids64)), GRAFT_INT32, D(3), (const int32_t[]){4, 0, 2});
  /* No rows: no segments. */
  graft_op *none = konst(g, "none", GRAFT_FLOAT32, D(0, 3), NULL);
  graft_op *no_ids = konst(g, "no_ids", GRAFT_INT32, D(0), NULL);
  expect(run(g, op2(g, "SegmentSum", "empty", none, no_ids)), GRAFT_FLOAT32, D(0, 3), NULL);
}

static void test_sorted_segment_errors(void **state) {
  graft_graph *g = *state;
  graft_op *data = konst(g, "data", GRAFT_FLOAT32, D(3, 2), (const float[]){1, 2, 3, 4, 5, 6});
  graft_op *ids = ph(g, "ids", GRAFT_INT32);
  graft_op *sum = op2(g, "SegmentSum", "sum", data, ids);
  graft_op *max = op2(g, "SegmentMax", "max", data, ids);
  expect_error(g, sum, ids, tensor(GRAFT_INT32, D(3), (const int32_t[]){1, 0, 1}), GRAFT_EINVAL,
               "SegmentSum op 'sum'", "segment ids are not increasing");
  expect_error(g, max, ids, tensor(GRAFT_INT32, D(3), (const int32_t[]){0, 2, 1}), GRAFT_EINVAL,
               "SegmentMax op 'max'", "segment ids are not increasing");
  expect_error(g, sum, ids, tensor(GRAFT_INT32, D(3), (const int32_t[]){-1, 0, 1}), GRAFT_EINVAL,
               "SegmentSum op 'sum'", "Segment id -1 out of range [0, 2), possibly because 'segment_ids' input is not sorted.");
  expect_error(g, sum, ids, tensor(GRAFT_INT32, D(2), (const int32_t[]){0, 0}), GRAFT_EINVAL,
               "SegmentSum op 'sum'", "segment_ids should be the same size as dimension 0 of input.");
  expect_error(g, sum, ids, tensor(GRAFT_INT32, D(1, 3), (const int32_t[]){0, 0, 1}), GRAFT_EINVAL,
               "SegmentSum op 'sum'", "segment_ids should be a vector.");
  /* Known while building: ids that are not a vector, data that is a scalar. */
  graft_op_desc *d = desc(g, "SegmentSum", "bad");
  in(d, data);
  in(d, konst(g, "ids2", GRAFT_INT32, D(1, 3), (const int32_t[]){0, 0, 1}));
  graft_op *op = NULL;
  GT_ERR(GRAFT_ESHAPE, graft_op_desc_finish(&op, d), "SegmentSum", "rank");
}

static void test_unsorted_segment_errors(void **state) {
  graft_graph *g = *state;
  graft_op *data = konst(g, "data", GRAFT_FLOAT32, D(3), (const float[]){1, 2, 3});
  graft_op *ids = ph(g, "ids", GRAFT_INT32);
  graft_op *sum = segment(g, "UnsortedSegmentSum", "sum", data, ids, 2);
  expect_error(g, sum, ids, tensor(GRAFT_INT32, D(3), (const int32_t[]){0, 2, 1}), GRAFT_EINVAL,
               "UnsortedSegmentSum op 'sum'", "segment_ids[1] = 2 is out of range [0, 2)");
  expect_error(g, sum, ids, tensor(GRAFT_INT32, D(2), (const int32_t[]){0, 1}), GRAFT_EINVAL,
               "UnsortedSegmentSum op 'sum'", "must be a prefix of data shape [3]");
  /* Known while building: a negative count and ids that cannot be a prefix. */
  int32_t neg = -1;
  graft_op_desc *d = desc(g, "UnsortedSegmentSum", "neg");
  in(d, data);
  in(d, konst(g, "ids3", GRAFT_INT32, D(3), (const int32_t[]){0, 0, 0}));
  in(d, konst(g, "n", GRAFT_INT32, NULL, 0, &neg));
  graft_op *op = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "neg", "num_segments must be >= 0, got -1");
  d = desc(g, "UnsortedSegmentSum", "bad_prefix");
  in(d, data);
  in(d, konst(g, "ids4", GRAFT_INT32, D(2), (const int32_t[]){0, 0}));
  in(d, konst(g, "n2", GRAFT_INT32, NULL, 0, &(int32_t){1}));
  GT_ERR(GRAFT_ESHAPE, graft_op_desc_finish(&op, d), "bad_prefix", "must be a prefix of data's shape (3,)");
}

/* ---- Resource variables: gather, scatter, shape ------------------------------------------ */

static void test_resource_gather_scatter(void **state) {
  graft_graph *g = *state;
  graft_op *h = res_var(g, "table", GRAFT_FLOAT32, D(3, 2));
  graft_op *init = typed_op(g, "AssignVariableOp", "init",
                            (graft_op *[]){h, konst(g, "v0", GRAFT_FLOAT32, D(3, 2), (const float[]){1, 2, 3, 4, 5, 6})},
                            2, GRAFT_FLOAT32);
  graft_op *gather = typed_op(g, "ResourceGather", "gather",
                              (graft_op *[]){h, konst(g, "gi", GRAFT_INT32, D(2, 1), (const int32_t[]){2, 0})}, 2,
                              GRAFT_FLOAT32);
  graft_op *read = typed_op(g, "ReadVariableOp", "read", (graft_op *[]){h}, 1, GRAFT_FLOAT32);
  graft_op *add = typed_op(g, "ResourceScatterAdd", "add",
                           (graft_op *[]){h, konst(g, "ai", GRAFT_INT64, D(2), (const int64_t[]){0, 0}),
                                          konst(g, "au", GRAFT_FLOAT32, D(2, 2), (const float[]){1, 1, 10, 10})},
                           3, GRAFT_FLOAT32);
  graft_op *update = typed_op(g, "ResourceScatterUpdate", "update",
                              (graft_op *[]){h, konst(g, "ui", GRAFT_INT32, D(1), (const int32_t[]){1}),
                                             make_const(g, "us", -7.0f)},
                              3, GRAFT_FLOAT32);
  graft_op *bad = typed_op(g, "ResourceScatterSub", "bad",
                           (graft_op *[]){h, konst(g, "bi", GRAFT_INT32, D(2), (const int32_t[]){1, 3}),
                                          konst(g, "bu", GRAFT_FLOAT32, D(2, 2), (const float[]){1, 1, 1, 1})},
                           3, GRAFT_FLOAT32);
  graft_op *bad_shape = typed_op(g, "ResourceScatterMax", "bad_shape",
                                 (graft_op *[]){h, konst(g, "si", GRAFT_INT32, D(1), (const int32_t[]){1}),
                                                konst(g, "su", GRAFT_FLOAT32, D(3), (const float[]){1, 1, 1})},
                                 3, GRAFT_FLOAT32);
  graft_op_desc *d = desc(g, "VariableShape", "shape");
  in(d, h);
  graft_op *shape = fin(d);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &add, 1),
         "ResourceScatterAdd op 'add'", "uninitialized value table");
  session_run_target(s, init);
  expect(session_fetch(s, gather), GRAFT_FLOAT32, D(2, 1, 2), (const float[]){5, 6, 1, 2});
  expect(session_fetch(s, shape), GRAFT_INT32, D(2), (const int32_t[]){3, 2});
  graft_tensor *before = session_fetch(s, read);
  session_run_target(s, add); /* both updates land on row 0 */
  expect(session_fetch(s, read), GRAFT_FLOAT32, D(3, 2), (const float[]){12, 13, 3, 4, 5, 6});
  expect(before, GRAFT_FLOAT32, D(3, 2), (const float[]){1, 2, 3, 4, 5, 6}); /* the reader's value intact */
  session_run_target(s, update);                                                     /* a scalar fills the row */
  expect(session_fetch(s, read), GRAFT_FLOAT32, D(3, 2), (const float[]){12, 13, -7, -7, 5, 6});
  GT_ERR(GRAFT_EINVAL, graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &bad, 1), "ResourceScatterSub op 'bad'",
         "indices[1] = 3 is not in [0, 3)");
  GT_ERR(GRAFT_ESHAPE, graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &bad_shape, 1),
         "ResourceScatterMax op 'bad_shape'", "have shape [3], expected [1,2] or a scalar");
  /* Failed updates changed nothing (row 1 was not half-updated). */
  expect(session_fetch(s, read), GRAFT_FLOAT32, D(3, 2), (const float[]){12, 13, -7, -7, 5, 6});
  graft_session_free(s);
}

static void test_resource_gather_errors(void **state) {
  graft_graph *g = *state;
  graft_op *h = res_var(g, "v", GRAFT_FLOAT32, D(2));
  graft_op *init = typed_op(g, "AssignVariableOp", "init",
                            (graft_op *[]){h, konst(g, "v0", GRAFT_FLOAT32, D(2), (const float[]){1, 2})}, 2,
                            GRAFT_FLOAT32);
  graft_op *idx = ph(g, "idx", GRAFT_INT32);
  graft_op *gather = typed_op(g, "ResourceGather", "gather", (graft_op *[]){h, idx}, 2, GRAFT_FLOAT32);
  graft_op *wrong = typed_op(g, "ResourceGather", "wrong", (graft_op *[]){h, idx}, 2, GRAFT_INT32);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  session_run_target(s, init);
  graft_output feed = {idx, 0}, f = {gather, 0}, fw = {wrong, 0};
  graft_tensor *bad = tensor(GRAFT_INT32, D(1), (const int32_t[]){-1});
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &feed, &bad, 1, &f, 1, NULL, 0), "ResourceGather op 'gather'",
         "indices[0] = -1 is not in [0, 2)");
  GT_ERR(GRAFT_EDTYPE, graft_session_run(&out, s, &feed, &bad, 1, &fw, 1, NULL, 0), "ResourceGather op 'wrong'",
         "holds float32, not int32");
  graft_tensor_free(bad);
  graft_session_free(s);
}

/* ---- Gradients ---------------------------------------------------------------------------- */

/* GatherV2 along axis 0 with a repeated index: the rows' gradients add up; the rest get 0. */
static void test_gather_gradient(void **state) {
  graft_graph *g = *state;
  graft_op *params = ph(g, "params", GRAFT_FLOAT32);
  graft_op *gather = op3(g, "GatherV2", "gather", params, konst(g, "i", GRAFT_INT32, D(3), (const int32_t[]){2, 0, 2}),
                         konst(g, "axis", GRAFT_INT32, NULL, 0, &(int32_t){0}));
  graft_op *gy = konst(g, "gy", GRAFT_FLOAT32, D(3, 2), (const float[]){1, 2, 3, 4, 5, 6});
  graft_output ys[1] = {{gather, 0}}, xs[1] = {{params, 0}}, grad_ys[1] = {{gy, 0}}, dx[1];
  GT_OK(graft_graph_add_gradients(dx, g, ys, 1, xs, 1, grad_ys, NULL));
  graft_tensor *p = tensor(GRAFT_FLOAT32, D(4, 2), (const float[]){0, 0, 0, 0, 0, 0, 0, 0});
  graft_tensor *out = run_feeds(g, dx[0].op, dx[0].index, 1, &params, &p);
  expect(out, GRAFT_FLOAT32, D(4, 2), (const float[]){3, 4, 0, 0, 6, 8, 0, 0});
}

/* GatherV2 along axis 1 (static shape): params [2,3], indices [1,1,0]. */
static void test_gather_gradient_axis1(void **state) {
  graft_graph *g = *state;
  graft_op *params = konst(g, "params", GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  graft_op *gather = op3(g, "GatherV2", "gather", params, konst(g, "i", GRAFT_INT32, D(3), (const int32_t[]){1, 1, 0}),
                         konst(g, "axis", GRAFT_INT32, NULL, 0, &(int32_t){1}));
  graft_op *gy = konst(g, "gy", GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  graft_output ys[1] = {{gather, 0}}, xs[1] = {{params, 0}}, grad_ys[1] = {{gy, 0}}, dx[1];
  GT_OK(graft_graph_add_gradients(dx, g, ys, 1, xs, 1, grad_ys, NULL));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  expect(fetch_output(s, dx[0]), GRAFT_FLOAT32, D(2, 3), (const float[]){3, 3, 0, 6, 9, 0});
  graft_session_free(s);
}

/* ResourceGather's gradient reaches the variable (its handle), summed with a full read's. */
static void test_resource_gather_gradient(void **state) {
  graft_graph *g = *state;
  graft_op *h = res_var(g, "emb", GRAFT_FLOAT32, D(3, 2));
  graft_op *init = typed_op(g, "AssignVariableOp", "init",
                            (graft_op *[]){h, konst(g, "v0", GRAFT_FLOAT32, D(3, 2), (const float[]){1, 2, 3, 4, 5, 6})},
                            2, GRAFT_FLOAT32);
  graft_op *gather = typed_op(g, "ResourceGather", "gather",
                              (graft_op *[]){h, konst(g, "i", GRAFT_INT64, D(2), (const int64_t[]){1, 1})}, 2,
                              GRAFT_FLOAT32);
  graft_op *read = typed_op(g, "ReadVariableOp", "read", (graft_op *[]){h}, 1, GRAFT_FLOAT32);
  graft_op *gy = konst(g, "gy", GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4});
  graft_op *gr = konst(g, "gr", GRAFT_FLOAT32, D(3, 2), (const float[]){100, 100, 100, 100, 100, 100});
  graft_output ys[2] = {{gather, 0}, {read, 0}}, xs[1] = {{h, 0}}, grad_ys[2] = {{gy, 0}, {gr, 0}}, dx[1];
  GT_OK(graft_graph_add_gradients(dx, g, ys, 2, xs, 1, grad_ys, NULL));
  assert_non_null(dx[0].op);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  session_run_target(s, init);
  expect(fetch_output(s, dx[0]), GRAFT_FLOAT32, D(3, 2), (const float[]){100, 100, 104, 106, 100, 100});
  graft_session_free(s);
}

/* UnsortedSegmentSum's gradient gathers each row's segment; the dropped row (id -1) gets 0. */
static void test_unsorted_segment_sum_gradient(void **state) {
  graft_graph *g = *state;
  graft_op *data = ph(g, "data", GRAFT_FLOAT32);
  graft_op *sum = segment(g, "UnsortedSegmentSum", "sum", data,
                          konst(g, "ids", GRAFT_INT32, D(3), (const int32_t[]){1, -1, 1}), 2);
  graft_op *gy = konst(g, "gy", GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4});
  graft_output ys[1] = {{sum, 0}}, xs[1] = {{data, 0}}, grad_ys[1] = {{gy, 0}}, dx[1];
  GT_OK(graft_graph_add_gradients(dx, g, ys, 1, xs, 1, grad_ys, NULL));
  graft_tensor *x = tensor(GRAFT_FLOAT32, D(3, 2), (const float[]){0, 0, 0, 0, 0, 0});
  expect(run_feeds(g, dx[0].op, dx[0].index, 1, &data, &x), GRAFT_FLOAT32, D(3, 2), (const float[]){3, 4, 0, 0, 3, 4});
}

/* graft_graph_add_gradients_sparse: a variable reached only by gathers gets rows (two gathers'
 * rows concatenated, int32 and int64 indices as int64); applied with ResourceScatterSub they
 * change only those rows. A variable also read whole gets a dense gradient. */
static void test_sparse_gradient_rows(void **state) {
  graft_graph *g = *state;
  graft_op *h = res_var(g, "emb", GRAFT_FLOAT32, D(3, 2));
  graft_op *init = typed_op(g, "AssignVariableOp", "init",
                            (graft_op *[]){h, konst(g, "v0", GRAFT_FLOAT32, D(3, 2), (const float[]){1, 2, 3, 4, 5, 6})},
                            2, GRAFT_FLOAT32);
  graft_op *g1 = typed_op(g, "ResourceGather", "g1",
                          (graft_op *[]){h, konst(g, "i1", GRAFT_INT32, D(2), (const int32_t[]){2, 0})}, 2, GRAFT_FLOAT32);
  graft_op *g2 = typed_op(g, "ResourceGather", "g2",
                          (graft_op *[]){h, konst(g, "i2", GRAFT_INT64, D(1, 1), (const int64_t[]){2})}, 2, GRAFT_FLOAT32);
  graft_op *gy1 = konst(g, "gy1", GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4});
  graft_op *gy2 = konst(g, "gy2", GRAFT_FLOAT32, D(1, 1, 2), (const float[]){10, 20});
  graft_output ys[2] = {{g1, 0}, {g2, 0}}, xs[1] = {{h, 0}}, dys[2] = {{gy1, 0}, {gy2, 0}};
  graft_output values[1], indices[1], shapes[1];
  GT_OK(graft_graph_add_gradients_sparse(values, indices, shapes, g, ys, 2, xs, 1, dys, NULL, 0,
                                         GRAFT_UNCONNECTED_NONE, NULL));
  assert_non_null(indices[0].op);
  assert_non_null(shapes[0].op);
  graft_op_desc *d = desc(g, "ResourceScatterSub", "apply");
  GT_OK(graft_op_desc_add_input(d, (graft_output){h, 0}));
  GT_OK(graft_op_desc_add_input(d, indices[0]));
  GT_OK(graft_op_desc_add_input(d, values[0]));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *apply = fin(d);
  graft_op *read = typed_op(g, "ReadVariableOp", "read", (graft_op *[]){h}, 1, GRAFT_FLOAT32);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  session_run_target(s, init);
  expect(fetch_output(s, values[0]), GRAFT_FLOAT32, D(3, 2), (const float[]){1, 2, 3, 4, 10, 20});
  expect(fetch_output(s, indices[0]), GRAFT_INT64, D(3), (const int64_t[]){2, 0, 2});
  expect(fetch_output(s, shapes[0]), GRAFT_INT32, D(2), (const int32_t[]){3, 2});
  session_run_target(s, apply);
  expect(session_fetch(s, read), GRAFT_FLOAT32, D(3, 2), (const float[]){-2, -2, 3, 4, -6, -16});
  graft_session_free(s);

  /* Read whole as well: the rows are added into a dense gradient. */
  graft_op *gy3 = konst(g, "gy3", GRAFT_FLOAT32, D(3, 2), (const float[]){100, 100, 100, 100, 100, 100});
  graft_output ys3[2] = {{g1, 0}, {read, 0}}, dys3[2] = {{gy1, 0}, {gy3, 0}};
  GT_OK(graft_graph_add_gradients_sparse(values, indices, shapes, g, ys3, 2, xs, 1, dys3, NULL, 0,
                                         GRAFT_UNCONNECTED_NONE, "dense"));
  assert_null(indices[0].op);
  assert_null(shapes[0].op);
  GT_OK(graft_session_new(&s, g, NULL));
  session_run_target(s, init);
  expect(fetch_output(s, values[0]), GRAFT_FLOAT32, D(3, 2), (const float[]){103, 104, 100, 100, 101, 102});
  graft_session_free(s);
  /* The dense call gives the same sum for the gathers alone. */
  graft_output dense[1];
  GT_OK(graft_graph_add_gradients_ex(dense, g, ys, 2, xs, 1, dys, NULL, 0, GRAFT_UNCONNECTED_NONE, "plain"));
  GT_OK(graft_session_new(&s, g, NULL));
  session_run_target(s, init);
  expect(fetch_output(s, dense[0]), GRAFT_FLOAT32, D(3, 2), (const float[]){3, 4, 0, 0, 11, 22});
  graft_session_free(s);
  GT_ERR(GRAFT_EINVAL,
         graft_graph_add_gradients_sparse(values, NULL, shapes, g, ys, 2, xs, 1, dys, NULL, 0, GRAFT_UNCONNECTED_NONE, NULL),
         "graft_graph_add_gradients_sparse", "out_indices");
}

/* A placeholder gathered on axis 0 gets rows too; on axis 1 it gets a dense gradient. */
static void test_sparse_gradient_of_a_tensor(void **state) {
  graft_graph *g = *state;
  graft_op *params = ph(g, "params", GRAFT_FLOAT32);
  graft_op *gather = op3(g, "GatherV2", "gather", params, konst(g, "i", GRAFT_INT32, D(2, 2), (const int32_t[]){1, 0, 1, 1}),
                         konst(g, "axis", GRAFT_INT32, NULL, 0, &(int32_t){0}));
  graft_output ys[1] = {{gather, 0}}, xs[1] = {{params, 0}}, values[1], indices[1], shapes[1];
  GT_OK(graft_graph_add_gradients_sparse(values, indices, shapes, g, ys, 1, xs, 1, NULL, NULL, 0,
                                         GRAFT_UNCONNECTED_NONE, NULL));
  assert_non_null(indices[0].op);
  graft_tensor *p = tensor(GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  graft_op *fops[1] = {params};
  expect(run_feeds(g, values[0].op, values[0].index, 1, fops, &p), GRAFT_FLOAT32, D(4, 3),
         (const float[]){1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  p = tensor(GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  expect(run_feeds(g, indices[0].op, indices[0].index, 1, fops, &p), GRAFT_INT32, D(4), (const int32_t[]){1, 0, 1, 1});
  p = tensor(GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  expect(run_feeds(g, shapes[0].op, shapes[0].index, 1, fops, &p), GRAFT_INT32, D(2), (const int32_t[]){2, 3});
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_unsorted_segment_reductions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unsorted_segment_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sorted_segment_reductions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sorted_segment_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resource_gather_scatter, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resource_gather_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_gradient, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_gradient_axis1, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resource_gather_gradient, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unsorted_segment_sum_gradient, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sparse_gradient_rows, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sparse_gradient_of_a_tensor, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
