/*
 * example_ops: an op library (graft/kernel.h) that adds three ops to Graft when loaded with
 * graft_library_load (Python graft.load_op_library, and the other bindings' equivalents):
 *
 *   ZeroOut(to_zero: int32) -> zeroed: int32      TensorFlow's classic first custom op: the first
 *                                                  element kept, every other one zero.
 *   Swish(x: T) -> y: T, T in {float, double}     y = x * sigmoid(x), with a gradient:
 *   SwishGrad(dy: T, x: T) -> dx: T               dx = dy * (s + x * s * (1 - s)), s = sigmoid(x).
 *
 * Only Graft's C API is used, so the library works whatever compiler built Graft.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <graft/graft.h>

/* ---- Shape functions ---------------------------------------------------------------------- */

/* Output 0 has the shape of input 0. */
static int same_shape(graft_shape_context *ctx, void *user_data) {
  (void)user_data;
  graft_shape *shape = NULL;
  int rc = graft_shape_context_input_shape(&shape, ctx, 0);
  if (rc == GRAFT_OK) rc = graft_shape_context_set_output_shape(ctx, 0, shape);
  graft_shape_free(shape);
  return rc;
}

/* ---- Kernels ------------------------------------------------------------------------------ */

/* Allocates output 0 with the dims of tensor like. */
static int output_like(graft_tensor **out, graft_kernel_context *ctx, const graft_tensor *like) {
  int64_t dims[16];
  const int rank = graft_tensor_rank(like);
  if (rank > 16) return graft_error_set(GRAFT_EUNIMPLEMENTED, "example_ops: more than 16 dimensions");
  for (int i = 0; i < rank; ++i) dims[i] = graft_tensor_dim(like, i);
  return graft_kernel_context_allocate_output(out, ctx, 0, graft_tensor_dtype(like), dims, rank);
}

static int zero_out(graft_kernel_context *ctx, void *state) {
  (void)state;
  const graft_tensor *in = graft_kernel_context_input(ctx, 0);
  graft_tensor *out = NULL;
  int rc = output_like(&out, ctx, in);
  if (rc != GRAFT_OK) return rc;
  const int64_t n = graft_tensor_num_elements(in);
  int32_t *o = graft_tensor_data(out);
  if (n > 0) {
    memset(o, 0, sizeof(int32_t) * (size_t)n);
    o[0] = ((const int32_t *)graft_tensor_data(in))[0];
  }
  return GRAFT_OK;
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* Swish and SwishGrad in one kernel function per op, for float and double. */
static int swish(graft_kernel_context *ctx, void *state) {
  (void)state;
  const graft_tensor *x = graft_kernel_context_input(ctx, 0);
  graft_tensor *y = NULL;
  int rc = output_like(&y, ctx, x);
  if (rc != GRAFT_OK) return rc;
  const int64_t n = graft_tensor_num_elements(x);
  if (graft_tensor_dtype(x) == GRAFT_FLOAT64) {
    const double *in = graft_tensor_data(x);
    double *out = graft_tensor_data(y);
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] * sigmoid(in[i]);
  } else {
    const float *in = graft_tensor_data(x);
    float *out = graft_tensor_data(y);
    for (int64_t i = 0; i < n; ++i) out[i] = (float)(in[i] * sigmoid(in[i]));
  }
  return GRAFT_OK;
}

static double swish_slope(double x) {
  const double s = sigmoid(x);
  return s + x * s * (1.0 - s);
}

static int swish_grad(graft_kernel_context *ctx, void *state) {
  (void)state;
  const graft_tensor *dy = graft_kernel_context_input(ctx, 0), *x = graft_kernel_context_input(ctx, 1);
  const int64_t n = graft_tensor_num_elements(x);
  if (graft_tensor_num_elements(dy) != n) {
    return graft_error_set(GRAFT_ESHAPE, "SwishGrad: dy and x must have the same number of elements");
  }
  graft_tensor *dx = NULL;
  int rc = output_like(&dx, ctx, x);
  if (rc != GRAFT_OK) return rc;
  if (graft_tensor_dtype(x) == GRAFT_FLOAT64) {
    const double *g = graft_tensor_data(dy), *in = graft_tensor_data(x);
    double *out = graft_tensor_data(dx);
    for (int64_t i = 0; i < n; ++i) out[i] = g[i] * swish_slope(in[i]);
  } else {
    const float *g = graft_tensor_data(dy), *in = graft_tensor_data(x);
    float *out = graft_tensor_data(dx);
    for (int64_t i = 0; i < n; ++i) out[i] = (float)(g[i] * swish_slope(in[i]));
  }
  return GRAFT_OK;
}

/* ---- Swish's gradient: SwishGrad(dy, x) ----------------------------------------------------- */

static int swish_gradient(graft_gradient_context *ctx, void *user_data) {
  (void)user_data;
  graft_output dy;
  int rc = graft_gradient_context_output_grad(&dy, ctx, 0);
  if (rc != GRAFT_OK || dy.op == NULL) return rc;  /* no gradient flows back */
  graft_op *forward = graft_gradient_context_op(ctx);
  graft_op_desc *d = NULL;
  rc = graft_op_desc_new(&d, graft_gradient_context_graph(ctx), "SwishGrad", NULL);
  if (rc != GRAFT_OK) return rc;
  rc = graft_op_desc_add_input(d, dy);
  if (rc == GRAFT_OK) rc = graft_op_desc_add_input(d, graft_op_input(forward, 0));
  if (rc != GRAFT_OK) {
    graft_op_desc_free(d);
    return rc;
  }
  graft_op *grad = NULL;
  rc = graft_op_desc_finish(&grad, d);
  if (rc != GRAFT_OK) return rc;
  graft_output dx = {grad, 0};
  return graft_gradient_context_set_input_grad(ctx, 0, dx);
}

/* ---- Registration ------------------------------------------------------------------------- */

/* Registers op `name` with the given argument and attribute specs (NULL-terminated lists). */
static int add_op(const char *name, const char *const *inputs, const char *const *outputs, const char *const *attrs) {
  graft_op_def_builder *b = NULL;
  int rc = graft_op_def_builder_new(&b, name);
  for (const char *const *s = inputs; rc == GRAFT_OK && *s; ++s) rc = graft_op_def_builder_add_input(b, *s);
  for (const char *const *s = outputs; rc == GRAFT_OK && *s; ++s) rc = graft_op_def_builder_add_output(b, *s);
  for (const char *const *s = attrs; rc == GRAFT_OK && *s; ++s) rc = graft_op_def_builder_add_attr(b, *s);
  if (rc == GRAFT_OK) rc = graft_op_def_builder_set_shape_fn(b, same_shape, NULL);
  if (rc != GRAFT_OK) {
    graft_op_def_builder_free(b);
    return rc;
  }
  return graft_op_register(b);
}

static int add_kernel(const char *op, graft_kernel_compute_fn compute, const graft_dtype *types, int ntypes) {
  graft_kernel_builder *k = NULL;
  int rc = graft_kernel_builder_new(&k, op, "CPU", NULL, compute, NULL, NULL);
  if (rc == GRAFT_OK && ntypes > 0) rc = graft_kernel_builder_type_constraint(k, "T", types, ntypes);
  if (rc != GRAFT_OK) {
    graft_kernel_builder_free(k);
    return rc;
  }
  return graft_kernel_register(k);
}

static int init(void) {
  static const char *const zero_in[] = {"to_zero: int32", NULL}, *const zero_out_[] = {"zeroed: int32", NULL};
  static const char *const none[] = {NULL};
  static const char *const swish_in[] = {"x: T", NULL}, *const swish_out[] = {"y: T", NULL};
  static const char *const grad_in[] = {"dy: T", "x: T", NULL}, *const grad_out[] = {"dx: T", NULL};
  static const char *const float_t[] = {"T: {float, double} = DT_FLOAT", NULL};
  static const graft_dtype floats[] = {GRAFT_FLOAT32, GRAFT_FLOAT64};
  int rc = add_op("ZeroOut", zero_in, zero_out_, none);
  if (rc == GRAFT_OK) rc = add_op("Swish", swish_in, swish_out, float_t);
  if (rc == GRAFT_OK) rc = add_op("SwishGrad", grad_in, grad_out, float_t);
  if (rc == GRAFT_OK) rc = add_kernel("ZeroOut", zero_out, NULL, 0);
  if (rc == GRAFT_OK) rc = add_kernel("Swish", swish, floats, 2);
  if (rc == GRAFT_OK) rc = add_kernel("SwishGrad", swish_grad, floats, 2);
  if (rc == GRAFT_OK) rc = graft_gradient_register("Swish", swish_gradient, NULL);
  if (rc == GRAFT_OK) rc = graft_gradient_register_none("ZeroOut");
  return rc;
}

GRAFT_DEFINE_OP_LIBRARY(init)
