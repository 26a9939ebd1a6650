/*
 * train_mlp: trains a 2-layer perceptron with Graft's public C API only.
 *
 * The data are generated: 256 points x in [-1, 1]^2 and the target y = sin(3 x0) * x1 + x0^2.
 * The model, pred = tanh(x W1 + b1) W2 + b2 (2 -> 32 -> 1), has its parameters in resource
 * variables (VarHandleOp, initialized by AssignVariableOp, read by ReadVariableOp). The loss is
 * the mean squared error; graft_graph_add_gradients adds its gradient with respect to each
 * parameter's read, and one ResourceApplyAdam op per parameter (with its m and v slot
 * variables) applies Adam. beta1^t and beta2^t are fed every step, so the update is TensorFlow's
 * Adam: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), var -= lr_t * m / (sqrt(v) + epsilon).
 *
 * It prints the loss every 50 steps and exits with 0 when the final loss is below a tenth of
 * the first (1 otherwise): ctest runs it as examples.train_mlp.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graft/graft.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    if ((call) != GRAFT_OK) {                                                         \
      fprintf(stderr, "train_mlp: %s:%d: %s\n", __FILE__, __LINE__, graft_error_last()); \
      exit(2);                                                                        \
    }                                                                                 \
  } while (0)

enum { kExamples = 256, kIn = 2, kHidden = 32, kOut = 1, kSteps = 400, kParams = 4 };

/* A small deterministic generator (an LCG), uniform in [lo, hi). */
static unsigned long long rng_state = 12345;
static float uniform(float lo, float hi) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (float)((rng_state >> 40) & 0xffffff) / (float)0x1000000;
}

static graft_tensor *tensor(const int64_t *dims, int ndims, const float *v) {
  size_t n = 1;
  for (int i = 0; i < ndims; ++i) n *= (size_t)dims[i];
  graft_tensor *t = NULL;
  CHECK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, ndims, v, n * sizeof(float)));
  return t;
}

static graft_output constant_tensor(graft_graph *g, const char *name, graft_tensor *t) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Const", name));
  CHECK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", graft_tensor_dtype(t)));
  graft_op *op = NULL;
  CHECK(graft_op_desc_finish(&op, d));
  graft_tensor_free(t);
  return (graft_output){op, 0};
}

static graft_output scalar(graft_graph *g, const char *name, float v) {
  return constant_tensor(g, name, tensor(NULL, 0, &v));
}

static graft_output placeholder(graft_graph *g, const char *name, const int64_t *dims, int ndims) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Placeholder", name));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, ndims));
  graft_op *op = NULL;
  CHECK(graft_op_desc_finish(&op, d));
  return (graft_output){op, 0};
}

/* An op of inputs (n of them); returns its output 0 (or the op, through *op_out). */
static graft_output op(graft_graph *g, const char *type, const char *name, const graft_output *inputs, int n,
                       graft_op **op_out) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, type, name));
  for (int i = 0; i < n; ++i) CHECK(graft_op_desc_add_input(d, inputs[i]));
  graft_op *o = NULL;
  CHECK(graft_op_desc_finish(&o, d));
  if (op_out) *op_out = o;
  return (graft_output){o, 0};
}

/* A resource variable: its handle, and an AssignVariableOp of init (appended to inits). */
static graft_output variable(graft_graph *g, const char *name, const int64_t *dims, int ndims, graft_tensor *init,
                             graft_op **inits, int *ninits) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "VarHandleOp", name));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, ndims));
  CHECK(graft_attrs_set_string(graft_op_desc_attrs(d), "shared_name", name, strlen(name)));
  graft_op *h = NULL;
  CHECK(graft_op_desc_finish(&h, d));
  char init_name[128];
  snprintf(init_name, sizeof init_name, "%s/Assign", name);
  graft_output assign_in[2] = {{h, 0}, constant_tensor(g, NULL, init)};
  op(g, "AssignVariableOp", init_name, assign_in, 2, &inits[(*ninits)++]);
  return (graft_output){h, 0};
}

static graft_output read_variable(graft_graph *g, graft_output handle, const int64_t *dims, int ndims) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "ReadVariableOp", NULL));
  CHECK(graft_op_desc_add_input(d, handle));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *o = NULL;
  CHECK(graft_op_desc_finish(&o, d));
  /* A read's shape is the variable's (ReadVariableOp cannot infer it). */
  graft_shape *s = NULL;
  CHECK(graft_shape_new(&s, dims, ndims));
  CHECK(graft_output_set_shape((graft_output){o, 0}, s));
  graft_shape_free(s);
  return (graft_output){o, 0};
}

static graft_tensor *filled(const int64_t *dims, int ndims, float lo, float hi) {
  size_t n = 1;
  for (int i = 0; i < ndims; ++i) n *= (size_t)dims[i];
  float *v = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) v[i] = lo == hi ? lo : uniform(lo, hi);
  graft_tensor *t = tensor(dims, ndims, v);
  free(v);
  return t;
}

int main(void) {
  CHECK(GRAFT_VERSION_CHECK());
  const float lr = 0.01f, beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-7f;

  /* The data set. */
  static float xs[kExamples * kIn], ys[kExamples * kOut];
  for (int i = 0; i < kExamples; ++i) {
    float x0 = uniform(-1, 1), x1 = uniform(-1, 1);
    xs[i * kIn] = x0;
    xs[i * kIn + 1] = x1;
    ys[i] = sinf(3 * x0) * x1 + x0 * x0;
  }

  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  const int64_t x_dims[2] = {GRAFT_UNKNOWN_DIM, kIn}, y_dims[2] = {GRAFT_UNKNOWN_DIM, kOut};
  graft_output x = placeholder(g, "x", x_dims, 2);
  graft_output y = placeholder(g, "y", y_dims, 2);
  graft_output b1_power = placeholder(g, "beta1_power", NULL, 0);
  graft_output b2_power = placeholder(g, "beta2_power", NULL, 0);

  /* Parameters (Glorot-uniform weights, zero biases) and their Adam slots. */
  const int64_t dims[kParams][2] = {{kIn, kHidden}, {kHidden}, {kHidden, kOut}, {kOut}};
  const int ndims[kParams] = {2, 1, 2, 1};
  const char *names[kParams] = {"W1", "b1", "W2", "b2"};
  const float limits[kParams] = {sqrtf(6.0f / (kIn + kHidden)), 0, sqrtf(6.0f / (kHidden + kOut)), 0};
  graft_op *inits[3 * kParams];
  int ninits = 0;
  graft_output params[kParams], reads[kParams], m[kParams], v[kParams];
  for (int p = 0; p < kParams; ++p) {
    char slot[64];
    params[p] = variable(g, names[p], dims[p], ndims[p], filled(dims[p], ndims[p], -limits[p], limits[p]), inits,
                         &ninits);
    snprintf(slot, sizeof slot, "%s/Adam", names[p]);
    m[p] = variable(g, slot, dims[p], ndims[p], filled(dims[p], ndims[p], 0, 0), inits, &ninits);
    snprintf(slot, sizeof slot, "%s/Adam_1", names[p]);
    v[p] = variable(g, slot, dims[p], ndims[p], filled(dims[p], ndims[p], 0, 0), inits, &ninits);
    reads[p] = read_variable(g, params[p], dims[p], ndims[p]);
  }

  /* Forward pass and loss. */
  graft_output in1[2] = {x, reads[0]};
  graft_output h = op(g, "MatMul", "layer1/MatMul", in1, 2, NULL);
  graft_output in2[2] = {h, reads[1]};
  h = op(g, "BiasAdd", "layer1/BiasAdd", in2, 2, NULL);
  h = op(g, "Tanh", "layer1/Tanh", &h, 1, NULL);
  graft_output in3[2] = {h, reads[2]};
  graft_output pred = op(g, "MatMul", "layer2/MatMul", in3, 2, NULL);
  graft_output in4[2] = {pred, reads[3]};
  pred = op(g, "BiasAdd", "layer2/BiasAdd", in4, 2, NULL);
  graft_output diff_in[2] = {pred, y};
  graft_output err = op(g, "Sub", "loss/Sub", diff_in, 2, NULL);
  err = op(g, "Square", "loss/Square", &err, 1, NULL);
  const int32_t axes_v[2] = {0, 1};
  graft_tensor *axes_t = NULL;
  CHECK(graft_tensor_new(&axes_t, GRAFT_INT32, (const int64_t[]){2}, 1, axes_v, sizeof axes_v));
  graft_output mean_in[2] = {err, constant_tensor(g, "loss/axes", axes_t)};
  graft_output loss = op(g, "Mean", "loss", mean_in, 2, NULL);

  /* The gradients of the loss with respect to each parameter's read, and the Adam updates. */
  graft_output grads[kParams];
  CHECK(graft_graph_add_gradients(grads, g, &loss, 1, reads, kParams, NULL, NULL));
  graft_output hyper[4] = {scalar(g, "adam/lr", lr), scalar(g, "adam/beta1", beta1), scalar(g, "adam/beta2", beta2),
                           scalar(g, "adam/epsilon", epsilon)};
  graft_op *updates[kParams];
  for (int p = 0; p < kParams; ++p) {
    if (grads[p].op == NULL) {
      fprintf(stderr, "train_mlp: no gradient flows to %s\n", names[p]);
      return 2;
    }
    char name[64];
    snprintf(name, sizeof name, "adam/update_%s", names[p]);
    graft_output in[10] = {params[p], m[p], v[p], b1_power, b2_power, hyper[0], hyper[1], hyper[2], hyper[3],
                           grads[p]};
    op(g, "ResourceApplyAdam", name, in, 10, &updates[p]);
  }
  printf("built %lld ops (the gradient and the Adam updates included)\n", (long long)graft_graph_num_ops(g));

  /* Train: full batch, kSteps steps. */
  graft_session *s = NULL;
  CHECK(graft_session_new(&s, g, NULL));
  CHECK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, inits, ninits));
  graft_tensor *x_t = tensor((const int64_t[]){kExamples, kIn}, 2, xs);
  graft_tensor *y_t = tensor((const int64_t[]){kExamples, kOut}, 2, ys);
  float first = 0, last = 0;
  for (int step = 1; step <= kSteps; ++step) {
    float p1 = powf(beta1, (float)step), p2 = powf(beta2, (float)step);
    graft_tensor *feed_values[4] = {x_t, y_t, tensor(NULL, 0, &p1), tensor(NULL, 0, &p2)};
    graft_output feeds[4] = {x, y, b1_power, b2_power};
    graft_tensor *loss_t = NULL;
    CHECK(graft_session_run(&loss_t, s, feeds, feed_values, 4, &loss, 1, updates, kParams));
    last = *(const float *)graft_tensor_data(loss_t);
    if (step == 1) first = last;
    if (step == 1 || step % 50 == 0) printf("step %4d  loss %.6f\n", step, last);
    graft_tensor_free(loss_t);
    graft_tensor_free(feed_values[2]);
    graft_tensor_free(feed_values[3]);
  }
  graft_tensor_free(x_t);
  graft_tensor_free(y_t);
  graft_session_free(s);
  graft_graph_free(g);

  /* The loss fetched with the updates is the loss before them: `last` is the next-to-last step's result. */
  int ok = isfinite(last) && last < 0.1f * first;
  printf("first loss %.6f, final loss %.6f (%.1f%% of the first): %s\n", first, last, 100.0 * last / first,
         ok ? "the loss fell" : "the loss did NOT fall enough");
  return ok ? 0 : 1;
}
