/* CPU kernels for the losses (kernels/cpu/nn_kernels.cc): L2Loss, SoftmaxCrossEntropyWithLogits
 * (with broadcast labels) and SparseSoftmaxCrossEntropyWithLogits (int32 and int64 labels),
 * both outputs (loss and backprop), and the out-of-range label error naming the op. Expected
 * values computed from the formulas (logsumexp(x) - x[label], softmax - labels). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

#define F(...) ((const float[]){__VA_ARGS__})
#define F64(...) ((const double[]){__VA_ARGS__})

static graft_tensor *run_output(graft_graph *g, graft_op *op, int index) { return run_feeds(g, op, index, 0, NULL, NULL); }

static void test_l2loss(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(2, 2), F(1, -2, 3, 0.5f));
  expect_f32_near(run(g, op1(g, "L2Loss", "l2", x)), NULL, 0, F(7.125f), 1e-6f);
  graft_op *x64 = konst(g, "x64", GRAFT_FLOAT64, D(3), F64(1, 2, 2));
  expect(run(g, op1(g, "L2Loss", "l2_64", x64)), GRAFT_FLOAT64, NULL, 0, F64(4.5));
  graft_op *empty = konst(g, "empty", GRAFT_FLOAT32, D(0), NULL);
  expect(run(g, op1(g, "L2Loss", "l2_0", empty)), GRAFT_FLOAT32, NULL, 0, F(0));
}

/* Row r's loss and backprop of logits x[rows, n] against a one-hot or dense label row. */
static void reference(const float *x, const float *labels, int rows, int n, float *loss, float *back) {
  for (int r = 0; r < rows; ++r) {
    double mx = x[r * n], sum = 0, total = 0, l = 0;
    for (int i = 0; i < n; ++i) mx = fmax(mx, x[r * n + i]);
    for (int i = 0; i < n; ++i) sum += exp(x[r * n + i] - mx);
    double lse = mx + log(sum);
    for (int i = 0; i < n; ++i) {
      total += labels[r * n + i];
      l += labels[r * n + i] * (lse - x[r * n + i]);
    }
    loss[r] = (float)l;
    for (int i = 0; i < n; ++i) back[r * n + i] = (float)(exp(x[r * n + i] - lse) * total - labels[r * n + i]);
  }
}

static void test_sparse_cross_entropy(void **state) {
  graft_graph *g = *state;
  const float x[] = {1, 2, 3, -1, 0, 4, 0.5f, 0.5f, 0.5f};
  const float onehot[] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
  float loss[3], back[9];
  reference(x, onehot, 3, 3, loss, back);
  graft_op *logits = konst(g, "logits", GRAFT_FLOAT32, D(3, 3), x);
  for (int k = 0; k < 2; ++k) {
    graft_op *labels = k ? konst(g, "l64", GRAFT_INT64, D(3), ((const int64_t[]){2, 0, 1}))
                         : konst(g, "l32", GRAFT_INT32, D(3), ((const int32_t[]){2, 0, 1}));
    graft_op_desc *d = desc(g, "SparseSoftmaxCrossEntropyWithLogits", k ? "sparse64" : "sparse32");
    in(d, logits);
    in(d, labels);
    graft_op *op = fin(d);
    expect_f32_near(run_output(g, op, 0), D(3), loss, 1e-5f);
    expect_f32_near(run_output(g, op, 1), D(3, 3), back, 1e-6f);
  }
  /* A label outside [0, classes): an error naming the op, at run time. */
  graft_op *pl = ph(g, "pl", GRAFT_INT32);
  graft_op_desc *d = desc(g, "SparseSoftmaxCrossEntropyWithLogits", "bad_labels");
  in(d, logits);
  in(d, pl);
  graft_op *bad = fin(d);
  expect_error(g, bad, pl, tensor(GRAFT_INT32, D(3), ((const int32_t[]){0, 3, 1})), GRAFT_EINVAL,
               "SparseSoftmaxCrossEntropyWithLogits op 'bad_labels'", "label 3 at index 1 is outside the valid range [0, 3)");
  expect_error(g, bad, pl, tensor(GRAFT_INT32, D(3), ((const int32_t[]){0, -1, 1})), GRAFT_EINVAL,
               "SparseSoftmaxCrossEntropyWithLogits op 'bad_labels'", "label -1");
}

static void test_dense_cross_entropy(void **state) {
  graft_graph *g = *state;
  const float x[] = {1, 2, 3, -1, 0, 4};
  const float y[] = {0.2f, 0.3f, 0.5f, 1, 0, 0};
  float loss[2], back[6];
  reference(x, y, 2, 3, loss, back);
  graft_op *logits = konst(g, "logits", GRAFT_FLOAT32, D(2, 3), x);
  graft_op_desc *d = desc(g, "SoftmaxCrossEntropyWithLogits", "dense");
  in(d, logits);
  in(d, konst(g, "labels", GRAFT_FLOAT32, D(2, 3), y));
  graft_op *op = fin(d);
  expect_f32_near(run_output(g, op, 0), D(2), loss, 1e-5f);
  expect_f32_near(run_output(g, op, 1), D(2, 3), back, 1e-6f);
  /* Labels [1, 3] broadcast over the batch. */
  const float yb[] = {0.2f, 0.3f, 0.5f, 0.2f, 0.3f, 0.5f};
  reference(x, yb, 2, 3, loss, back);
  d = desc(g, "SoftmaxCrossEntropyWithLogits", "broadcast");
  in(d, logits);
  in(d, konst(g, "labels_b", GRAFT_FLOAT32, D(1, 3), yb));
  op = fin(d);
  expect_f32_near(run_output(g, op, 0), D(2), loss, 1e-5f);
  expect_f32_near(run_output(g, op, 1), D(2, 3), back, 1e-6f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_l2loss, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sparse_cross_entropy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dense_cross_entropy, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
