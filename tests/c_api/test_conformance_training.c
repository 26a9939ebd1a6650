/* TensorFlow's conformance training graph: a TensorFlow 1 linear regression (VariableV2-style
 * variables, a gradient graph with Shape/Fill/DynamicStitch/Tile/BroadcastGradientArgs/Sum,
 * and ApplyGradientDescent) imported from regression_tf1_train.pb and trained with Graft on
 * y = 0.1 x + 0.3. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph_test_util.h"

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc((size_t)n + 1);
  *len = fread(buf, 1, (size_t)n, f);
  fclose(f);
  return buf;
}

/* A fixed linear congruential sequence in [0, 1): the same data on every run. */
static float next_unit(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / 16777216.0f;
}

static float fetch_first(graft_session *s, graft_graph *g, const char *name) {
  graft_output t;
  GT_OK(graft_graph_tensor_by_name(&t, g, name));
  graft_tensor *out = NULL;
  GT_OK(graft_session_run(&out, s, NULL, NULL, 0, &t, 1, NULL, 0));
  assert_int_equal(graft_tensor_dtype(out), GRAFT_FLOAT32);
  assert_int_equal(graft_tensor_num_elements(out), 1);
  float v = *(const float *)graft_tensor_data(out);
  graft_tensor_free(out);
  return v;
}

static void test_train_regression(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/graphs/regression_tf1_train.pb", GRAFT_CONFORMANCE_DIR);
  size_t len = 0;
  uint8_t *data = read_file(path, &len);
  if (data == NULL) {
    print_message("conformance graph %s not found: skipped (no ../shared/conformance)\n", path);
    skip();
  }
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_import_options *opts = NULL;
  GT_OK(graft_import_options_new(&opts));
  GT_OK(graft_import_options_set_prefix(opts, ""));
  GT_OK(graft_graph_import_graph_def(NULL, g, data, len, opts));
  graft_import_options_free(opts);
  free(data);

  graft_op *init = NULL, *train = NULL;
  GT_OK(graft_graph_op_by_name(&init, g, "init"));
  GT_OK(graft_graph_op_by_name(&train, g, "train"));
  graft_output feeds[2];
  GT_OK(graft_graph_tensor_by_name(&feeds[0], g, "x:0"));
  GT_OK(graft_graph_tensor_by_name(&feeds[1], g, "y:0"));

  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  /* Before init the variables are uninitialized. */
  graft_output w_out;
  GT_OK(graft_graph_tensor_by_name(&w_out, g, "w:0"));
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(&out, s, NULL, NULL, 0, &w_out, 1, NULL, 0), "uninitialized");
  GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &init, 1));
  /* w starts in random_uniform's [-1, 1), b at 0. */
  float w0 = fetch_first(s, g, "w:0");
  float b0 = fetch_first(s, g, "b:0");
  assert_true(w0 >= -1.0f && w0 < 1.0f);
  assert_true(b0 == 0.0f);

  uint32_t lcg = 12345u;
  float prev_err = fabsf(w0 - 0.1f) + fabsf(b0 - 0.3f);
  for (int step = 0; step < 200; ++step) {
    float x = next_unit(&lcg);
    float y = 0.1f * x + 0.3f;
    graft_tensor *values[2] = {NULL, NULL};
    GT_OK(graft_tensor_new(&values[0], GRAFT_FLOAT32, NULL, 0, &x, sizeof x));
    GT_OK(graft_tensor_new(&values[1], GRAFT_FLOAT32, NULL, 0, &y, sizeof y));
    GT_OK(graft_session_run(NULL, s, feeds, values, 2, NULL, 0, &train, 1));
    graft_tensor_free(values[0]);
    graft_tensor_free(values[1]);
    if (step == 49) {
      /* Training makes progress early on. */
      float err = fabsf(fetch_first(s, g, "w:0") - 0.1f) + fabsf(fetch_first(s, g, "b:0") - 0.3f);
      assert_true(err < prev_err);
      prev_err = err;
    }
  }
  float w = fetch_first(s, g, "w:0");
  float b = fetch_first(s, g, "b:0");
  print_message("after 200 steps: w = %.8f (from %.6f), b = %.8f\n", w, w0, b);
  /* Tolerance 1e-4. The data are noise-free and the graph's learning rate is 0.5, so each
   * step is w -= e x, b -= e with e = w x + b - y: the error contracts geometrically. Worked
   * out in double precision (Python) for this x sequence, 200 steps from any w in [-1, 1)
   * leave |w - 0.1| < 7.1e-7 and |b - 0.3| < 6.1e-8; float32 rounding adds errors of order
   * 1e-7. 1e-4 leaves a wide margin for both, while a wrong gradient (sign, factor, reduction
   * axes, broadcast reduction) or a lost update leaves errors of order 0.1 or diverges. */
  assert_true(fabsf(w - 0.1f) < 1e-4f);
  assert_true(fabsf(b - 0.3f) < 1e-4f);
  assert_true(fabsf(w - 0.1f) + fabsf(b - 0.3f) < prev_err);

  /* A second session starts over from init: its variables are its own. */
  graft_session *s2 = NULL;
  GT_OK(graft_session_new(&s2, g, NULL));
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(&out, s2, NULL, NULL, 0, &w_out, 1, NULL, 0), "uninitialized");
  graft_session_free(s2);
  graft_session_free(s);
  graft_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_train_regression),
  };
  return cmocka_run_group_tests_name("conformance_training", tests, NULL, NULL);
}
