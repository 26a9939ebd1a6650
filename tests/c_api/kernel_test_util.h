/* Helpers shared by the kernel tests (test_kernels_*.c): tensors and constants from literal
 * tables, small graphs, running them, and checking results and errors. */
#ifndef GRAFT_KERNEL_TEST_UTIL_H
#define GRAFT_KERNEL_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph_test_util.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* dims argument pairs: D(2, 3) -> (const int64_t[]){2, 3}, 2 */
#define D(...) ((const int64_t[]){__VA_ARGS__}), N_OF(((const int64_t[]){__VA_ARGS__}))
#define SCALAR NULL, 0

static inline int setup(void **state) {
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  *state = g;
  return 0;
}

static inline int teardown(void **state) {
  graft_graph_free(*state);
  return 0;
}

static inline int64_t count(const int64_t *dims, int ndims) {
  int64_t n = 1;
  for (int i = 0; i < ndims; ++i) n *= dims[i];
  return n;
}

static inline graft_tensor *tensor(graft_dtype dt, const int64_t *dims, int ndims, const void *data) {
  graft_tensor *t = NULL;
  size_t bytes = (size_t)count(dims, ndims) * graft_dtype_size(dt);
  GT_OK(graft_tensor_new(&t, dt, dims, ndims, data && bytes ? data : NULL, data && bytes ? bytes : 0));
  return t;
}

static inline graft_op *const_t(graft_graph *g, const char *name, graft_tensor *t) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Const", name));
  GT_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", graft_tensor_dtype(t)));
  graft_tensor_free(t);
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static inline graft_op *konst(graft_graph *g, const char *name, graft_dtype dt, const int64_t *dims, int ndims,
                       const void *data) {
  return const_t(g, name, tensor(dt, dims, ndims, data));
}

static inline graft_op *strings(graft_graph *g, const char *name, const int64_t *dims, int ndims, const char *const *s) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new_strings(&t, dims, ndims, s, NULL, (size_t)count(dims, ndims)));
  return const_t(g, name, t);
}

/* Runs target in session s (no feeds, no fetches). */
static inline void session_run_target(graft_session *s, graft_op *target) {
  GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &target, 1));
}

/* Output 0 of op, run in session s (free it with graft_tensor_free). */
static inline graft_tensor *session_fetch(graft_session *s, graft_op *op) {
  graft_output f = {op, 0};
  graft_tensor *out = NULL;
  GT_OK(graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0));
  return out;
}

/* A resource variable's handle (VarHandleOp) of dtype and shape. */
static inline graft_op *res_var(graft_graph *g, const char *name, graft_dtype dt, const int64_t *dims, int ndims) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "VarHandleOp", name));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", dt));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, ndims));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static inline graft_op *ph(graft_graph *g, const char *name, graft_dtype dt) { return make_placeholder(g, name, dt, NULL, -1); }

static inline graft_op_desc *desc(graft_graph *g, const char *type, const char *name) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  return d;
}

static inline void in(graft_op_desc *d, graft_op *op) { GT_OK(graft_op_desc_add_input(d, (graft_output){op, 0})); }

static inline graft_op *fin(graft_op_desc *d) {
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static inline graft_op *op1(graft_graph *g, const char *type, const char *name, graft_op *a) {
  graft_op_desc *d = desc(g, type, name);
  in(d, a);
  return fin(d);
}

static inline graft_op *op3(graft_graph *g, const char *type, const char *name, graft_op *a, graft_op *b, graft_op *c) {
  graft_op_desc *d = desc(g, type, name);
  in(d, a);
  in(d, b);
  in(d, c);
  return fin(d);
}

/* Runs the graph for output index of op with up to 4 feeds (placeholder, value: taken). */
static inline graft_tensor *run_feeds(graft_graph *g, graft_op *op, int index, int nfeeds, graft_op **fops,
                               graft_tensor **vals) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output feeds[4];
  for (int i = 0; i < nfeeds; ++i) feeds[i] = (graft_output){fops[i], 0};
  graft_output f = {op, index};
  graft_tensor *out = NULL;
  GT_OK(graft_session_run(&out, s, feeds, vals, nfeeds, &f, 1, NULL, 0));
  graft_session_free(s);
  for (int i = 0; i < nfeeds; ++i) graft_tensor_free(vals[i]);
  return out;
}

static inline graft_tensor *run(graft_graph *g, graft_op *op) { return run_feeds(g, op, 0, 0, NULL, NULL); }

/* Expects a run with one feed to fail with code, naming the op and containing needle. */
static inline void expect_error(graft_graph *g, graft_op *op, graft_op *feed, graft_tensor *value, int code,
                         const char *where, const char *needle) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output f = {op, 0};
  graft_output fd = {feed, 0};
  graft_tensor *out = NULL;
  GT_ERR(code, graft_session_run(&out, s, feed ? &fd : NULL, feed ? &value : NULL, feed ? 1 : 0, &f, 1, NULL, 0),
         where, needle);
  graft_session_free(s);
  graft_tensor_free(value);
}

static inline void expect_dims(const graft_tensor *t, const int64_t *dims, int ndims) {
  assert_int_equal(graft_tensor_rank(t), ndims);
  for (int i = 0; i < ndims; ++i) assert_int_equal(graft_tensor_dim(t, i), dims[i]);
}

/* Checks dtype, dims and the exact bytes of the elements, then frees t. */
static inline void expect(graft_tensor *t, graft_dtype dt, const int64_t *dims, int ndims, const void *values) {
  assert_non_null(t);
  assert_int_equal(graft_tensor_dtype(t), dt);
  expect_dims(t, dims, ndims);
  size_t bytes = (size_t)count(dims, ndims) * graft_dtype_size(dt);
  assert_int_equal(graft_tensor_byte_size(t), bytes);
  if (bytes > 0) assert_memory_equal(graft_tensor_data(t), values, bytes);
  graft_tensor_free(t);
}

static inline void expect_f32_near(graft_tensor *t, const int64_t *dims, int ndims, const float *values, float tol) {
  assert_int_equal(graft_tensor_dtype(t), GRAFT_FLOAT32);
  expect_dims(t, dims, ndims);
  const float *p = graft_tensor_data(t);
  for (int64_t i = 0; i < count(dims, ndims); ++i) {
    if (!(fabsf(p[i] - values[i]) <= tol)) {
      print_error("element %lld: %.9g, expected %.9g\n", (long long)i, p[i], values[i]);
      fail();
    }
  }
  graft_tensor_free(t);
}

static inline void expect_strings(graft_tensor *t, const int64_t *dims, int ndims, const char *const *values) {
  assert_int_equal(graft_tensor_dtype(t), GRAFT_STRING);
  expect_dims(t, dims, ndims);
  for (int64_t i = 0; i < count(dims, ndims); ++i) {
    const char *s = NULL;
    size_t len = 0;
    GT_OK(graft_tensor_string(&s, &len, t, i));
    assert_int_equal(len, strlen(values[i]));
    assert_memory_equal(s, values[i], len);
  }
  graft_tensor_free(t);
}

static inline graft_tensor *i32v(const int64_t *dims, int ndims, const int32_t *v) { return tensor(GRAFT_INT32, dims, ndims, v); }

#endif /* GRAFT_KERNEL_TEST_UTIL_H */
