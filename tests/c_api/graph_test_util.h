/* Helpers for the graph tests: make constants and placeholders, and find ops. */
#ifndef GRAFT_GRAPH_TEST_UTIL_H
#define GRAFT_GRAPH_TEST_UTIL_H

#include "test_util.h"

/* A Const of any numeric dtype and shape dims (ndims 0: a scalar) holding bytes of data,
 * named name (NULL: "Const"). */
static inline graft_op *make_const_of(graft_graph *g, const char *name, graft_dtype dtype, const int64_t *dims,
                                      int ndims, const void *data, size_t bytes) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, dtype, dims, ndims, data, bytes));
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Const", name));
  GT_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", dtype));
  graft_tensor_free(t);
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* The same for float32 values. */
static inline graft_op *make_const_f32(graft_graph *g, const char *name, const int64_t *dims, int ndims,
                                       const float *values) {
  size_t n = 1;
  for (int i = 0; i < ndims; ++i) n *= (size_t)dims[i];
  return make_const_of(g, name, GRAFT_FLOAT32, dims, ndims, values, sizeof(float) * n);
}

/* A float32 scalar Const named name (NULL: "Const"). */
static inline graft_op *make_const(graft_graph *g, const char *name, float value) {
  return make_const_f32(g, name, NULL, 0, &value);
}

/* A float32 matrix Const of the given shape, filled with 1..n. */
static inline graft_op *make_matrix(graft_graph *g, const char *name, int64_t rows, int64_t cols) {
  float *v = malloc(sizeof(float) * (size_t)(rows * cols));
  for (int64_t i = 0; i < rows * cols; ++i) v[i] = (float)(i + 1);
  int64_t dims[2] = {rows, cols};
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, 2, v, sizeof(float) * (size_t)(rows * cols)));
  free(v);
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Const", name));
  GT_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_tensor_free(t);
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* A Placeholder of dtype with shape dims (ndims -1: unknown rank). */
static inline graft_op *make_placeholder(graft_graph *g, const char *name, graft_dtype dtype, const int64_t *dims,
                                         int ndims) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Placeholder", name));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", dtype));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, ndims));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* A binary op (AddV2, MatMul, ...) of a and b. */
static inline graft_op *make_binary(graft_graph *g, const char *type, const char *name, graft_op *a, graft_op *b) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){b, 0}));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static inline graft_op *make_noop(graft_graph *g, const char *name) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "NoOp", name));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* Asserts the shape text of output 0 of op. */
static inline void assert_output_shape(graft_op *op, int index, const char *text) {
  graft_shape *s = NULL;
  GT_OK(graft_output_shape(&s, (graft_output){op, index}));
  assert_string_equal(graft_shape_string(s), text);
  graft_shape_free(s);
}

/* 1 if op has control input c. */
static inline int has_control_input(graft_op *op, graft_op *c) {
  for (int i = 0; i < graft_op_num_control_inputs(op); ++i) {
    if (graft_op_control_input(op, i) == c) return 1;
  }
  return 0;
}

#endif /* GRAFT_GRAPH_TEST_UTIL_H */
