/* Saving SavedModels: a graph with a resource variable and a TensorFlow 1 reference variable,
 * trained a step in one session, saved with a signature, reloaded: the same signature gives the
 * same results, and the variables hold the saved values. Errors: uninitialized variables, a
 * non-empty directory, bad signature definitions. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kernel_test_util.h"

typedef struct {
  graft_graph *g;
  graft_op *x, *w, *b, *y, *init, *step;
} model;

static graft_op *var_handle(graft_graph *g, const char *name, const int64_t *dims, int ndims) {
  graft_op_desc *d = desc(g, "VarHandleOp", name);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, ndims));
  return fin(d);
}

/* y = x @ read(w) + b, with w a resource variable [2, 1] and b a VariableV2 [1];
 * init sets w = [[1], [2]], b = [0.5]; step adds 1 to w and b. */
static model build(void) {
  model m;
  GT_OK(graft_graph_new(&m.g));
  graft_graph *g = m.g;
  m.x = make_placeholder(g, "x", GRAFT_FLOAT32, (const int64_t[]){-1, 2}, 2);
  m.w = var_handle(g, "w", (const int64_t[]){2, 1}, 2);
  graft_op_desc *d = desc(g, "VariableV2", "b");
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", (const int64_t[]){1}, 1));
  m.b = fin(d);
  d = desc(g, "ReadVariableOp", "w/read");
  in(d, m.w);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *wr = fin(d);
  graft_op *xw = make_binary(g, "MatMul", "xw", m.x, wr);
  m.y = make_binary(g, "Add", "y", xw, m.b);

  graft_op *w0 = konst(g, "w0", GRAFT_FLOAT32, D(2, 1), (const float[]){1, 2});
  graft_op *b0 = konst(g, "b0", GRAFT_FLOAT32, D(1), (const float[]){0.5f});
  d = desc(g, "AssignVariableOp", "w/assign");
  in(d, m.w);
  in(d, w0);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *wa = fin(d);
  graft_op *ba = make_binary(g, "Assign", "b/assign", m.b, b0);
  d = desc(g, "NoOp", "init");
  GT_OK(graft_op_desc_add_control_input(d, wa));
  GT_OK(graft_op_desc_add_control_input(d, ba));
  m.init = fin(d);

  graft_op *one = konst(g, "one", GRAFT_FLOAT32, D(2, 1), (const float[]){1, 1});
  graft_op *one_b = konst(g, "one_b", GRAFT_FLOAT32, D(1), (const float[]){1});
  d = desc(g, "AssignAddVariableOp", "w/step");
  in(d, m.w);
  in(d, one);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *ws = fin(d);
  graft_op *bs = make_binary(g, "AssignAdd", "b/step", m.b, one_b);
  d = desc(g, "NoOp", "step");
  GT_OK(graft_op_desc_add_control_input(d, ws));
  GT_OK(graft_op_desc_add_control_input(d, bs));
  m.step = fin(d);
  return m;
}

static void make_temp_dir(char *buf) {
  strcpy(buf, "/tmp/graft_save_XXXXXX");
  assert_non_null(mkdtemp(buf));
}

static void remove_tree(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

static graft_signature_def *predict_signature(model *m) {
  graft_signature_def *sd = NULL;
  GT_OK(graft_signature_def_new(&sd, "predict", NULL));
  GT_OK(graft_signature_def_add(sd, GRAFT_SIGNATURE_INPUT, "x", (graft_output){m->x, 0}));
  GT_OK(graft_signature_def_add(sd, GRAFT_SIGNATURE_OUTPUT, "y", (graft_output){m->y, 0}));
  return sd;
}

static void test_round_trip(void **state) {
  (void)state;
  model m = build();
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, m.g, NULL));
  GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &m.init, 1));
  GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &m.step, 1)); /* w = [[2], [3]], b = [1.5] */

  char root[64], dir[128];
  make_temp_dir(root);
  snprintf(dir, sizeof dir, "%s/model", root);
  graft_signature_def *sd = predict_signature(&m);
  const char *tags[2] = {"serve", "train"};
  GT_OK(graft_saved_model_save(s, dir, tags, 2, (const graft_signature_def *const *)&sd, 1));

  /* Reload with the same tags: the signature gives x @ w + b with the saved values. */
  graft_saved_model *loaded = NULL;
  GT_ERR(GRAFT_ENOTFOUND, graft_saved_model_load(&loaded, dir, NULL, 0, NULL), "{serve, train}");
  GT_OK(graft_saved_model_load(&loaded, dir, tags, 2, NULL));
  const graft_signature *sig = NULL;
  GT_OK(graft_saved_model_signature(&sig, loaded, "predict"));
  assert_string_equal(graft_signature_method_name(sig), "tensorflow/serving/predict");
  assert_string_equal(graft_signature_tensor_name(sig, GRAFT_SIGNATURE_INPUT, 0), "x:0");
  graft_shape *shape = NULL;
  GT_OK(graft_signature_shape(&shape, sig, GRAFT_SIGNATURE_INPUT, 0));
  assert_string_equal(graft_shape_string(shape), "(None, 2)");
  graft_shape_free(shape);

  graft_tensor *x = tensor(GRAFT_FLOAT32, D(2, 2), (const float[]){1, 1, 2, -1});
  const char *in_key = "x", *out_key = "y";
  graft_tensor *y = NULL;
  GT_OK(graft_saved_model_run(&y, loaded, "predict", &in_key, &x, 1, &out_key, 1));
  expect_f32_near(y, D(2, 1), (const float[]){1 * 2 + 1 * 3 + 1.5f, 2 * 2 - 3 + 1.5f}, 1e-6f);

  /* The original session gives the same. */
  graft_output xo = {m.x, 0}, yo = {m.y, 0};
  GT_OK(graft_session_run(&y, s, &xo, &x, 1, &yo, 1, NULL, 0));
  expect_f32_near(y, D(2, 1), (const float[]){6.5f, 2.5f}, 1e-6f);

  /* The reloaded variables are live state: a step on the loaded model's session changes them. */
  graft_op *step = NULL;
  GT_OK(graft_graph_op_by_name(&step, graft_saved_model_graph(loaded), "step"));
  GT_OK(graft_session_run(NULL, graft_saved_model_session(loaded), NULL, NULL, 0, NULL, 0, &step, 1));
  GT_OK(graft_saved_model_run(&y, loaded, "predict", &in_key, &x, 1, &out_key, 1));
  expect_f32_near(y, D(2, 1), (const float[]){1 * 3 + 1 * 4 + 2.5f, 2 * 3 - 4 + 2.5f}, 1e-6f);

  /* The saver's save subgraph, which TensorFlow's Saver needs to load the model at all:
   * fetching save/control_dependency with save/filename fed writes the variables there, and
   * save/restore_all brings them back after a change. */
  graft_graph *lg = graft_saved_model_graph(loaded);
  graft_session *ls = graft_saved_model_session(loaded);
  graft_op *fname = NULL, *save_dep = NULL, *restore_all = NULL;
  GT_OK(graft_graph_op_by_name(&fname, lg, "save/filename"));
  GT_OK(graft_graph_op_by_name(&save_dep, lg, "save/control_dependency"));
  GT_OK(graft_graph_op_by_name(&restore_all, lg, "save/restore_all"));
  char prefix[200];
  snprintf(prefix, sizeof prefix, "%s/ckpt", root);
  const char *prefix_s = prefix;
  graft_tensor *prefix_t = NULL, *saved_to = NULL;
  GT_OK(graft_tensor_new_strings(&prefix_t, NULL, 0, &prefix_s, NULL, 1));
  graft_output fname_o = {fname, 0}, save_o = {save_dep, 0};
  GT_OK(graft_session_run(&saved_to, ls, &fname_o, &prefix_t, 1, &save_o, 1, NULL, 0));
  expect_strings(saved_to, NULL, 0, &prefix_s); /* frees saved_to */
  GT_OK(graft_session_run(NULL, ls, NULL, NULL, 0, NULL, 0, &step, 1)); /* w = [[4], [5]], b = [3.5] */
  GT_OK(graft_session_run(NULL, ls, &fname_o, &prefix_t, 1, NULL, 0, &restore_all, 1));
  GT_OK(graft_saved_model_run(&y, loaded, "predict", &in_key, &x, 1, &out_key, 1));
  expect_f32_near(y, D(2, 1), (const float[]){1 * 3 + 1 * 4 + 2.5f, 2 * 3 - 4 + 2.5f}, 1e-6f);
  graft_tensor_free(prefix_t);

  /* Saving again into the same directory is refused and changes nothing. */
  GT_ERR(GRAFT_EEXISTS, graft_saved_model_save(s, dir, NULL, 0, (const graft_signature_def *const *)&sd, 1), dir,
         "not empty");

  graft_tensor_free(x);
  graft_saved_model_free(loaded);
  graft_signature_def_free(sd);
  graft_session_free(s);
  graft_graph_free(m.g);
  remove_tree(root);
}

static int dir_is_empty(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) return 1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n == 0;
}

static void test_errors(void **state) {
  (void)state;
  model m = build();
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, m.g, NULL));
  char root[64], dir[128];
  make_temp_dir(root);
  snprintf(dir, sizeof dir, "%s/model", root);
  graft_signature_def *sd = predict_signature(&m);
  const graft_signature_def *const *sds = (const graft_signature_def *const *)&sd;

  /* Variables that were never initialized: nothing is written. */
  GT_ERR(GRAFT_EPRECONDITION, graft_saved_model_save(s, dir, NULL, 0, sds, 1), "variable 'w'", "not initialized");
  assert_true(dir_is_empty(root));

  /* Bad signature definitions. */
  GT_ERR(GRAFT_EEXISTS, graft_signature_def_add(sd, GRAFT_SIGNATURE_INPUT, "x", (graft_output){m.x, 0}), "'x'");
  GT_ERR(GRAFT_ERANGE, graft_signature_def_add(sd, GRAFT_SIGNATURE_OUTPUT, "z", (graft_output){m.y, 3}), "output 3");
  GT_ERR(GRAFT_EINVAL, graft_signature_def_add(sd, 5, "z", (graft_output){m.y, 0}), "io");
  graft_signature_def *empty = NULL;
  GT_ERR(GRAFT_EINVAL, graft_signature_def_new(&empty, "", NULL), "empty");
  GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &m.init, 1));
  const graft_signature_def *twice[2] = {sd, sd};
  GT_ERR(GRAFT_EEXISTS, graft_saved_model_save(s, dir, NULL, 0, twice, 2), "'predict'", "twice");
  /* A tensor of another graph. */
  model other = build();
  graft_signature_def *foreign = NULL;
  GT_OK(graft_signature_def_new(&foreign, "foreign", NULL));
  GT_OK(graft_signature_def_add(foreign, GRAFT_SIGNATURE_OUTPUT, "y", (graft_output){other.y, 0}));
  GT_ERR(GRAFT_EINVAL, graft_saved_model_save(s, dir, NULL, 0, (const graft_signature_def *const *)&foreign, 1),
         "'foreign'", "'y'", "not a tensor of the session's graph");
  assert_true(dir_is_empty(root));

  /* Now it works, with the default tags. */
  GT_OK(graft_saved_model_save(s, dir, NULL, 0, sds, 1));
  graft_saved_model *loaded = NULL;
  GT_OK(graft_saved_model_load(&loaded, dir, NULL, 0, NULL));
  assert_int_equal(graft_saved_model_num_signatures(loaded), 1);
  graft_saved_model_free(loaded);

  graft_signature_def_free(foreign);
  graft_signature_def_free(sd);
  graft_session_free(s);
  graft_graph_free(other.g);
  graft_graph_free(m.g);
  remove_tree(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
