/* Running graphs: feeds, fetches, targets, pruning, control dependencies, variables across
 * runs, parallel and concurrent runs, callables, and every error path. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph_test_util.h"

static int setup(void **state) {
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  *state = g;
  return 0;
}

static int teardown(void **state) {
  graft_graph_free(*state);
  return 0;
}

static graft_tensor *scalar_f(float v) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, NULL, 0, &v, sizeof v));
  return t;
}

static float fetch_scalar(graft_session *s, graft_op *op, const graft_output *feeds, graft_tensor *const *values,
                          int nfeeds) {
  graft_tensor *out = NULL;
  graft_output f = {op, 0};
  GT_OK(graft_session_run(&out, s, feeds, values, nfeeds, &f, 1, NULL, 0));
  assert_int_equal(graft_tensor_dtype(out), GRAFT_FLOAT32);
  float v = *(const float *)graft_tensor_data(out);
  graft_tensor_free(out);
  return v;
}

static void test_feed_and_fetch(void **state) {
  graft_graph *g = *state;
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, NULL, 0);
  graft_op *y = make_placeholder(g, "y", GRAFT_FLOAT32, NULL, 0);
  graft_op *z = make_binary(g, "AddV2", "z", x, y);
  graft_op *w = make_binary(g, "Mul", "w", z, z);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output feeds[2] = {{x, 0}, {y, 0}};
  graft_tensor *values[2] = {scalar_f(3), scalar_f(4)};
  assert_true(fetch_scalar(s, z, feeds, values, 2) == 7.0f);
  assert_true(fetch_scalar(s, w, feeds, values, 2) == 49.0f);
  /* Feeding an intermediate tensor cuts the graph there: x and y are not needed. */
  graft_output fz = {z, 0};
  graft_tensor *ten = scalar_f(10);
  assert_true(fetch_scalar(s, w, &fz, &ten, 1) == 100.0f);
  /* Several fetches at once, in order. */
  graft_output fetches[2] = {{w, 0}, {z, 0}};
  graft_tensor *outs[2] = {NULL, NULL};
  GT_OK(graft_session_run(outs, s, feeds, values, 2, fetches, 2, NULL, 0));
  assert_true(*(const float *)graft_tensor_data(outs[0]) == 49.0f);
  assert_true(*(const float *)graft_tensor_data(outs[1]) == 7.0f);
  /* The caller's fed values are untouched (never reused in place). */
  assert_true(*(const float *)graft_tensor_data(values[0]) == 3.0f);
  graft_tensor_free(outs[0]);
  graft_tensor_free(outs[1]);
  graft_tensor_free(ten);
  graft_tensor_free(values[0]);
  graft_tensor_free(values[1]);
  graft_session_free(s);
}

/* Which fetched outputs a caller may take over without a copy (graft_tensor_is_exclusive):
 * what a kernel made for the run, not a fed value, a constant or a variable's value. */
static void test_fetches_exclusive(void **state) {
  graft_graph *g = *state;
  const int64_t dims[1] = {3};
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, dims, 1);
  graft_op *c = make_const_f32(g, "c", dims, 1, (const float[]){1, 2, 3});
  graft_op *sum = make_binary(g, "AddV2", "sum", x, c);
  graft_op *ident = NULL;
  {
    graft_op_desc *d = NULL;
    GT_OK(graft_op_desc_new(&d, g, "Identity", "ident"));
    GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
    GT_OK(graft_op_desc_finish(&ident, d));
  }
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_tensor *fed = NULL;
  GT_OK(graft_tensor_new(&fed, GRAFT_FLOAT32, dims, 1, (const float[]){10, 20, 30}, 12));
  graft_output feed = {x, 0};
  graft_output fetches[4] = {{sum, 0}, {x, 0}, {ident, 0}, {c, 0}};
  graft_tensor *outs[4] = {NULL, NULL, NULL, NULL};
  GT_OK(graft_session_run(outs, s, &feed, &fed, 1, fetches, 4, NULL, 0));
  assert_int_equal(graft_tensor_is_exclusive(outs[0]), 1);
  assert_true(((const float *)graft_tensor_data(outs[0]))[2] == 33.0f);
  for (int i = 1; i < 4; ++i) assert_int_equal(graft_tensor_is_exclusive(outs[i]), 0);
  /* Writing the taken output changes nothing the next run sees. */
  ((float *)graft_tensor_data(outs[0]))[0] = -1.0f;
  graft_tensor *again = NULL;
  GT_OK(graft_session_run(&again, s, &feed, &fed, 1, fetches, 1, NULL, 0));
  assert_true(((const float *)graft_tensor_data(again))[0] == 11.0f);
  graft_tensor_free(again);
  for (int i = 0; i < 4; ++i) graft_tensor_free(outs[i]);
  /* The fed handle alone holds its buffer again once the run's outputs are gone. */
  assert_int_equal(graft_tensor_is_exclusive(fed), 1);
  graft_tensor_free(fed);
  graft_session_free(s);
}

static void test_matmul_and_broadcast(void **state) {
  graft_graph *g = *state;
  graft_op *a = make_matrix(g, "a", 2, 3);
  graft_op *b = make_matrix(g, "b", 3, 2);
  graft_op *mm = make_binary(g, "MatMul", "mm", a, b);
  graft_op *bias = make_const(g, "bias", 0.5f);
  graft_op *sum = make_binary(g, "AddV2", "sum", mm, bias);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_tensor *out = NULL;
  graft_output f = {sum, 0};
  GT_OK(graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0));
  assert_int_equal(graft_tensor_rank(out), 2);
  assert_int_equal(graft_tensor_dim(out, 0), 2);
  const float *v = graft_tensor_data(out);
  /* [[1,2,3],[4,5,6]] x [[1,2],[3,4],[5,6]] = [[22,28],[49,64]] */
  assert_true(v[0] == 22.5f && v[1] == 28.5f && v[2] == 49.5f && v[3] == 64.5f);
  graft_tensor_free(out);
  graft_session_free(s);
}

static void test_errors(void **state) {
  graft_graph *g = *state;
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, (const int64_t[]){-1, 3}, 2);
  graft_op *y = make_placeholder(g, "y", GRAFT_FLOAT32, NULL, -1);
  graft_op *mm = make_binary(g, "MatMul", "mm", x, y);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_tensor *out = NULL;
  graft_output f = {mm, 0};
  /* A placeholder that is needed but not fed. */
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0), "placeholder tensor 'x'");
  /* Wrong dtype, incompatible shape. */
  graft_output feeds[2] = {{x, 0}, {y, 0}};
  int32_t iv[6] = {0};
  graft_tensor *ints = NULL;
  GT_OK(graft_tensor_new(&ints, GRAFT_INT32, (const int64_t[]){2, 3}, 2, iv, sizeof iv));
  graft_tensor *bad_shape = NULL;
  GT_OK(graft_tensor_new(&bad_shape, GRAFT_FLOAT32, (const int64_t[]){2, 4}, 2, NULL, 0));
  graft_tensor *good = NULL;
  GT_OK(graft_tensor_new(&good, GRAFT_FLOAT32, (const int64_t[]){2, 3}, 2, NULL, 0));
  graft_tensor *vals[2] = {ints, good};
  GT_ERR(GRAFT_EDTYPE, graft_session_run(&out, s, feeds, vals, 2, &f, 1, NULL, 0), "'x:0'", "int32", "float32");
  vals[0] = bad_shape;
  GT_ERR(GRAFT_ESHAPE, graft_session_run(&out, s, feeds, vals, 2, &f, 1, NULL, 0), "'x:0'", "(2, 4)", "(None, 3)");
  /* An error inside a kernel names the op; the session stays usable. */
  vals[0] = good;
  vals[1] = good;
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, feeds, vals, 2, &f, 1, NULL, 0), "MatMul op 'mm'", "incompatible");
  graft_tensor *ok_y = NULL;
  GT_OK(graft_tensor_new(&ok_y, GRAFT_FLOAT32, (const int64_t[]){3, 1}, 2, NULL, 0));
  vals[1] = ok_y;
  GT_OK(graft_session_run(&out, s, feeds, vals, 2, &f, 1, NULL, 0));
  assert_int_equal(graft_tensor_dim(out, 1), 1);
  graft_tensor_free(out);
  /* Unfeedable and unfetchable tensors; feeding twice; nothing to run. */
  GT_OK(graft_graph_prevent_feeding(g, (graft_output){x, 0}));
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, feeds, vals, 2, &f, 1, NULL, 0), "'x:0' may not be fed");
  GT_OK(graft_graph_prevent_fetching(g, mm));
  graft_output fy = {y, 0};
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &fy, &ok_y, 1, &f, 1, NULL, 0), "'mm:0' may not be fetched");
  graft_output twice[2] = {{y, 0}, {y, 0}};
  graft_tensor *tv[2] = {ok_y, ok_y};
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, twice, tv, 2, &fy, 1, NULL, 0), "fed twice");
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, NULL, NULL, 0, NULL, 0, NULL, 0), "nothing to run");
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, NULL, NULL, 1, &fy, 1, NULL, 0), "'feeds'");
  graft_tensor_free(ints);
  graft_tensor_free(bad_shape);
  graft_tensor_free(good);
  graft_tensor_free(ok_y);
  graft_session_free(s);
}

/* Only the needed subgraph runs: an unfed placeholder elsewhere does not matter, and a
 * failing op that is not needed does not run. */
static void test_pruning(void **state) {
  graft_graph *g = *state;
  graft_op *unused = make_placeholder(g, "unused", GRAFT_FLOAT32, NULL, 0);
  make_binary(g, "AddV2", "never", unused, unused);
  graft_op *c = make_const(g, "c", 2.0f);
  graft_op *sq = make_binary(g, "Mul", "sq", c, c);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  assert_true(fetch_scalar(s, sq, NULL, NULL, 0) == 4.0f);
  graft_session_free(s);
}

static graft_op *var_handle(graft_graph *g, const char *name) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "VarHandleOp", name));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", NULL, 0));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *var_op(graft_graph *g, const char *type, const char *name, graft_op *handle, graft_op *value) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){handle, 0}));
  if (value) GT_OK(graft_op_desc_add_input(d, (graft_output){value, 0}));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* Resource variables keep their value across runs; control dependencies order the effects. */
static void test_resource_variables(void **state) {
  graft_graph *g = *state;
  graft_op *v = var_handle(g, "v");
  graft_op *one = make_const(g, "one", 1.0f);
  graft_op *ten = make_const(g, "ten", 10.0f);
  graft_op *init = var_op(g, "AssignVariableOp", "init", v, ten);
  graft_op *incr = var_op(g, "AssignAddVariableOp", "incr", v, one);
  GT_OK(graft_graph_push_control_dependencies(g, &incr, 1));
  graft_op *read_after = var_op(g, "ReadVariableOp", "read_after", v, NULL);
  GT_OK(graft_graph_pop_control_dependencies(g));
  graft_op *read = var_op(g, "ReadVariableOp", "read", v, NULL);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_tensor *out = NULL;
  graft_output fr = {read, 0};
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(&out, s, NULL, NULL, 0, &fr, 1, NULL, 0), "ReadVariableOp op 'read'",
         "'v'", "not initialized");
  GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &init, 1));
  assert_true(fetch_scalar(s, read, NULL, NULL, 0) == 10.0f);
  assert_true(fetch_scalar(s, read_after, NULL, NULL, 0) == 11.0f);
  assert_true(fetch_scalar(s, read_after, NULL, NULL, 0) == 12.0f);
  assert_true(fetch_scalar(s, read, NULL, NULL, 0) == 12.0f);
  /* Another session has its own state. */
  graft_session *s2 = NULL;
  GT_OK(graft_session_new(&s2, g, NULL));
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(&out, s2, NULL, NULL, 0, &fr, 1, NULL, 0), "not initialized");
  graft_session_free(s2);
  graft_session_free(s);
}

/* TensorFlow 1 reference variables: VariableV2, Assign, reads through Identity. */
static void test_ref_variables(void **state) {
  graft_graph *g = *state;
  graft_op_desc *d = NULL;
  graft_op *var = NULL, *assign = NULL, *add = NULL, *id = NULL;
  GT_OK(graft_op_desc_new(&d, g, "VariableV2", "w"));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", NULL, 0));
  GT_OK(graft_op_desc_finish(&var, d));
  assert_int_equal(graft_output_dtype((graft_output){var, 0}), GRAFT_FLOAT32_REF);
  graft_op *five = make_const(g, "five", 5.0f);
  assign = make_binary(g, "Assign", "w/Assign", var, five);
  add = make_binary(g, "AssignAdd", "w/AssignAdd", var, five);
  GT_OK(graft_op_desc_new(&d, g, "Identity", "w/read"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){var, 0}));
  GT_OK(graft_op_desc_finish(&id, d));
  assert_int_equal(graft_output_dtype((graft_output){id, 0}), GRAFT_FLOAT32);
  graft_op *doubled = make_binary(g, "Mul", "doubled", id, five);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_tensor *out = NULL;
  graft_output fd = {doubled, 0};
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(&out, s, NULL, NULL, 0, &fd, 1, NULL, 0), "uninitialized");
  GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &assign, 1));
  assert_true(fetch_scalar(s, doubled, NULL, NULL, 0) == 25.0f);
  GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &add, 1));
  assert_true(fetch_scalar(s, id, NULL, NULL, 0) == 10.0f);
  /* Fetching the reference itself gives its current value. */
  assert_true(fetch_scalar(s, var, NULL, NULL, 0) == 10.0f);
  graft_session_free(s);
}

/* 100 independent chains run on 2 threads give the same results as on 1. */
static void test_parallel_matches_sequential(void **state) {
  graft_graph *g = *state;
  enum { N = 100 };
  graft_op *outs[N];
  char name[32];
  for (int i = 0; i < N; ++i) {
    snprintf(name, sizeof name, "c%d", i);
    graft_op *c = make_const(g, name, (float)i);
    snprintf(name, sizeof name, "sq%d", i);
    graft_op *sq = make_binary(g, "Mul", name, c, c);
    snprintf(name, sizeof name, "plus%d", i);
    outs[i] = make_binary(g, "AddV2", name, sq, c);
  }
  graft_output fetches[N];
  for (int i = 0; i < N; ++i) fetches[i] = (graft_output){outs[i], 0};
  for (int threads = 1; threads <= 2; ++threads) {
    graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
    opts.num_threads = threads;
    opts.track_memory = 1;
    graft_session *s = NULL;
    GT_OK(graft_session_new(&s, g, &opts));
    for (int rep = 0; rep < 20; ++rep) {
      graft_tensor *vals[N];
      GT_OK(graft_session_run(vals, s, NULL, NULL, 0, fetches, N, NULL, 0));
      for (int i = 0; i < N; ++i) {
        assert_true(*(const float *)graft_tensor_data(vals[i]) == (float)(i * i + i));
        graft_tensor_free(vals[i]);
      }
    }
    assert_true(graft_session_last_peak_bytes(s) > 0);
    graft_session_free(s);
  }
  graft_session_options bad = GRAFT_SESSION_OPTIONS_INIT;
  bad.num_threads = -1;
  graft_session *s = NULL;
  GT_ERR(GRAFT_EINVAL, graft_session_new(&s, g, &bad), "num_threads");
  /* Thread counts are capped: 100000 used to abort the process (std::terminate when thread
   * creation failed with threads already started); now it is an error naming the field. */
  bad.num_threads = 100000;
  GT_ERR(GRAFT_EINVAL, graft_session_new(&s, g, &bad), "options.num_threads is 100000", "1024");
  assert_null(s);
  bad.num_threads = GRAFT_SESSION_MAX_THREADS + 1;
  GT_ERR(GRAFT_EINVAL, graft_session_new(&s, g, &bad), "options.num_threads is 1025");
  /* The same options for a SavedModel's session are checked before anything is read. */
  graft_saved_model *m = NULL;
  GT_ERR(GRAFT_EINVAL, graft_saved_model_load(&m, "/nonexistent", NULL, 0, &bad), "options.num_threads is 1025");
  assert_null(m);
}

struct run_job {
  graft_session *s;
  graft_op *x, *y;
  int id;
  int failures;
};

static void *run_many(void *arg) {
  struct run_job *job = arg;
  for (int i = 0; i < 200; ++i) {
    float xv = (float)job->id, yv = (float)i;
    graft_tensor *vals[2] = {NULL, NULL};
    if (graft_tensor_new(&vals[0], GRAFT_FLOAT32, NULL, 0, &xv, sizeof xv) != GRAFT_OK) job->failures++;
    if (graft_tensor_new(&vals[1], GRAFT_FLOAT32, NULL, 0, &yv, sizeof yv) != GRAFT_OK) job->failures++;
    graft_output feeds[2] = {{job->x, 0}, {job->y, 0}};
    graft_output f;
    if (graft_graph_tensor_by_name(&f, graft_op_graph(job->x), "z") != GRAFT_OK) job->failures++;
    graft_tensor *out = NULL;
    if (graft_session_run(&out, job->s, feeds, vals, 2, &f, 1, NULL, 0) != GRAFT_OK) {
      job->failures++;
    } else if (*(const float *)graft_tensor_data(out) != xv * 10 + yv) {
      job->failures++;
    }
    graft_tensor_free(out);
    graft_tensor_free(vals[0]);
    graft_tensor_free(vals[1]);
  }
  return NULL;
}

/* Eight threads run the same session at once, each with its own feeds. */
static void test_concurrent_runs(void **state) {
  graft_graph *g = *state;
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, NULL, 0);
  graft_op *y = make_placeholder(g, "y", GRAFT_FLOAT32, NULL, 0);
  graft_op *ten = make_const(g, "ten", 10.0f);
  graft_op *x10 = make_binary(g, "Mul", "x10", x, ten);
  make_binary(g, "AddV2", "z", x10, y);
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.num_threads = 2;
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, &opts));
  enum { THREADS = 8 };
  pthread_t threads[THREADS];
  struct run_job jobs[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    jobs[t] = (struct run_job){s, x, y, t, 0};
    assert_int_equal(pthread_create(&threads[t], NULL, run_many, &jobs[t]), 0);
  }
  for (int t = 0; t < THREADS; ++t) {
    assert_int_equal(pthread_join(threads[t], NULL), 0);
    assert_int_equal(jobs[t].failures, 0);
  }
  graft_session_free(s);
}

/* Callables: a run prepared once and run many times (also from 4 threads at once), targets
 * for their effects, and the errors: bad arguments when made, wrong feeds when run. */
struct callable_job {
  graft_callable *c;
  int seed, failures;
};

static void *run_callable_many(void *p) {
  struct callable_job *job = p;
  for (int i = 0; i < 200; ++i) {
    float xv = (float)(job->seed * 1000 + i);
    graft_tensor *v = scalar_f(xv), *out = NULL;
    if (graft_callable_run(&out, job->c, &v, 1) != GRAFT_OK || *(const float *)graft_tensor_data(out) != xv * 10 + 1) {
      job->failures++;
    }
    graft_tensor_free(out);
    graft_tensor_free(v);
  }
  return NULL;
}

static void test_callables(void **state) {
  graft_graph *g = *state;
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, NULL, 0);
  graft_op *ten = make_const(g, "ten", 10.0f);
  graft_op *one = make_const(g, "one", 1.0f);
  graft_op *z = make_binary(g, "AddV2", "z", make_binary(g, "Mul", "x10", x, ten), one);
  graft_op *v = var_handle(g, "v");
  graft_op *init = var_op(g, "AssignVariableOp", "init", v, ten);
  graft_op *incr = var_op(g, "AssignAddVariableOp", "incr", v, one);
  graft_op *read = var_op(g, "ReadVariableOp", "read", v, NULL);
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.num_threads = 2;
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, &opts));
  graft_output feed = {x, 0}, fetch = {z, 0};
  graft_callable *c = NULL;
  GT_OK(graft_session_make_callable(&c, s, &feed, 1, &fetch, 1, NULL, 0));
  for (int i = 0; i < 3; ++i) {
    graft_tensor *val = scalar_f((float)i), *out = NULL;
    GT_OK(graft_callable_run(&out, c, &val, 1));
    assert_true(*(const float *)graft_tensor_data(out) == (float)(i * 10 + 1));
    graft_tensor_free(out);
    graft_tensor_free(val);
  }
  /* Wrong feeds when run: the count, a NULL value, a wrong dtype; no output is set. */
  graft_tensor *out = NULL, *wrong = NULL;
  GT_ERR(GRAFT_EINVAL, graft_callable_run(&out, c, NULL, 0), "graft_callable_run", "0 feed values", "1 feeds");
  graft_tensor *null_value = NULL;
  GT_ERR(GRAFT_EINVAL, graft_callable_run(&out, c, &null_value, 1), "feed value 0 is NULL");
  int32_t iv = 1;
  GT_OK(graft_tensor_new(&wrong, GRAFT_INT32, NULL, 0, &iv, sizeof iv));
  GT_ERR(GRAFT_EDTYPE, graft_callable_run(&out, c, &wrong, 1), "'x:0'", "int32");
  assert_null(out);
  graft_tensor_free(wrong);
  GT_ERR(GRAFT_EINVAL, graft_callable_run(&out, NULL, NULL, 0), "callable");
  /* From four threads at once. */
  pthread_t threads[4];
  struct callable_job jobs[4];
  for (int t = 0; t < 4; ++t) {
    jobs[t] = (struct callable_job){c, t, 0};
    assert_int_equal(pthread_create(&threads[t], NULL, run_callable_many, &jobs[t]), 0);
  }
  for (int t = 0; t < 4; ++t) {
    assert_int_equal(pthread_join(threads[t], NULL), 0);
    assert_int_equal(jobs[t].failures, 0);
  }
  graft_callable_free(c);
  graft_callable_free(NULL); /* harmless */
  /* Targets only: state changes across runs. */
  graft_callable *ci = NULL, *cinc = NULL, *cread = NULL;
  graft_output fr = {read, 0};
  GT_OK(graft_session_make_callable(&ci, s, NULL, 0, NULL, 0, &init, 1));
  GT_OK(graft_session_make_callable(&cinc, s, NULL, 0, NULL, 0, &incr, 1));
  GT_OK(graft_session_make_callable(&cread, s, NULL, 0, &fr, 1, NULL, 0));
  GT_OK(graft_callable_run(NULL, ci, NULL, 0));
  GT_OK(graft_callable_run(NULL, cinc, NULL, 0));
  GT_OK(graft_callable_run(NULL, cinc, NULL, 0));
  GT_OK(graft_callable_run(&out, cread, NULL, 0));
  assert_true(*(const float *)graft_tensor_data(out) == 12.0f);
  graft_tensor_free(out);
  graft_callable_free(ci);
  graft_callable_free(cinc);
  graft_callable_free(cread);
  /* Errors when made: nothing to run, a feed that may not be fed, NULLs; *out untouched. */
  graft_callable *none = NULL;
  GT_ERR(GRAFT_EINVAL, graft_session_make_callable(&none, s, NULL, 0, NULL, 0, NULL, 0), "nothing to run");
  GT_ERR(GRAFT_EINVAL, graft_session_make_callable(&none, s, &feed, 1, &feed, -1, NULL, 0), "negative");
  GT_ERR(GRAFT_EINVAL, graft_session_make_callable(NULL, s, NULL, 0, &fetch, 1, NULL, 0), "out");
  GT_ERR(GRAFT_EINVAL, graft_session_make_callable(&none, NULL, NULL, 0, &fetch, 1, NULL, 0), "session");
  graft_output twice[2] = {feed, feed};
  GT_ERR(GRAFT_EINVAL, graft_session_make_callable(&none, s, twice, 2, &fetch, 1, NULL, 0), "'x:0'", "fed twice");
  assert_null(none);
  graft_session_free(s);
}

/* Rewrites change how much runs, never the results: constant folding, common
 * subexpressions, identity removal, each switchable off. */
/* Version 2 options: a default device and strict placement; version 1 structs still work. */
static void test_placement_options(void **state) {
  graft_graph *g = *state;
  graft_op *c2 = make_const(g, "c2", 2.0f);
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "AddV2", "far_away"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){c2, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){c2, 0}));
  GT_OK(graft_op_desc_set_device(d, "/device:GPU:9"));
  graft_op *far = NULL;
  GT_OK(graft_op_desc_finish(&far, d));
  graft_output f = {far, 0};
  graft_tensor *out = NULL;
  /* Soft placement (the default): the CPU runs it. */
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.default_device = "/device:GPU:5";
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, &opts));
  GT_OK(graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0));
  assert_true(*(const float *)graft_tensor_data(out) == 4.0f);
  graft_tensor_free(out);
  graft_session_free(s);
  /* Strict: an error naming the op (not folded away as a constant). */
  opts.default_device = NULL;
  opts.strict_placement = 1;
  opts.disabled_rewrites = GRAFT_REWRITE_CONSTANT_FOLDING;
  GT_OK(graft_session_new(&s, g, &opts));
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0), "far_away", "/device:GPU:9",
         "strict");
  graft_session_free(s);
  /* A default device that does not parse is refused, naming the field. */
  opts.default_device = "/device:GPU:x:y";
  GT_ERR(GRAFT_EINVAL, graft_session_new(&s, g, &opts), "options.default_device");
  /* A version 1 caller's struct has neither field: they are not read. */
  struct {
    uint32_t version;
    int32_t num_threads;
    graft_bool track_memory;
    graft_rewrite_flags disabled_rewrites;
  } v1 = {1, 1, 0, 0};
  GT_OK(graft_session_new(&s, g, (const graft_session_options *)(const void *)&v1));
  GT_OK(graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0));
  graft_tensor_free(out);
  graft_session_free(s);
}

static void test_rewrites_on_and_off(void **state) {
  graft_graph *g = *state;
  graft_op *x = make_placeholder(g, "x", GRAFT_FLOAT32, NULL, 0);
  graft_op *c2 = make_const(g, "c2", 2.0f);
  graft_op *c3 = make_const(g, "c3", 3.0f);
  graft_op *k = make_binary(g, "Mul", "k", c2, c3);       /* foldable: 6 */
  graft_op *k2 = make_binary(g, "AddV2", "k2", k, c2);     /* foldable: 8 */
  graft_op *a = make_binary(g, "Mul", "a", x, k2);         /* x * 8 */
  graft_op *a_dup = make_binary(g, "Mul", "a_dup", x, k2); /* the same again */
  graft_op_desc *d = NULL;
  graft_op *id = NULL, *id2 = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Identity", "id"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){a_dup, 0}));
  GT_OK(graft_op_desc_finish(&id, d));
  GT_OK(graft_op_desc_new(&d, g, "StopGradient", "id2"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){id, 0}));
  GT_OK(graft_op_desc_finish(&id2, d));
  graft_op *sum = make_binary(g, "AddV2", "sum", a, id2);  /* 16 x */
  /* Fusion off beside each rewrite turned off, so that each one's own effect shows (without
   * CSE, a and sum would become one fused chain: test_fusion.c tests that). */
  unsigned int settings[5] = {0, GRAFT_REWRITE_CONSTANT_FOLDING | GRAFT_REWRITE_FUSION,
                              GRAFT_REWRITE_COMMON_SUBEXPRESSIONS | GRAFT_REWRITE_FUSION,
                              GRAFT_REWRITE_IDENTITY_REMOVAL | GRAFT_REWRITE_FUSION, GRAFT_REWRITE_ALL};
  int64_t ops_run[5];
  for (int i = 0; i < 5; ++i) {
    graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
    opts.disabled_rewrites = settings[i];
    graft_session *s = NULL;
    GT_OK(graft_session_new(&s, g, &opts));
    graft_output feed = {x, 0};
    graft_tensor *v = scalar_f(0.5f);
    assert_true(fetch_scalar(s, sum, &feed, &v, 1) == 8.0f);
    /* Fetching a folded tensor and an aliased one works too. */
    assert_true(fetch_scalar(s, k2, &feed, &v, 1) == 8.0f);
    assert_true(fetch_scalar(s, id2, &feed, &v, 1) == 4.0f);
    assert_true(fetch_scalar(s, sum, &feed, &v, 1) == 8.0f);
    ops_run[i] = graft_session_last_ops_run(s);
    graft_tensor_free(v);
    graft_session_free(s);
  }
  /* All off: c2, c3, k, k2, a, a_dup, id, id2, sum. All on: the folded k2, a, sum. */
  assert_int_equal(ops_run[4], 9);
  assert_int_equal(ops_run[0], 3);
  assert_true(ops_run[1] > ops_run[0] && ops_run[2] > ops_run[0] && ops_run[3] > ops_run[0]);
  /* Each session keeps its own figures: a run of another session on this thread does not
   * change them (they used to be one thread-local pair for all sessions). */
  {
    graft_session *folded = NULL, *plain = NULL;
    graft_session_options all_off = GRAFT_SESSION_OPTIONS_INIT;
    all_off.disabled_rewrites = settings[4];
    GT_OK(graft_session_new(&folded, g, NULL));
    GT_OK(graft_session_new(&plain, g, &all_off));
    graft_output feed = {x, 0};
    graft_tensor *v = scalar_f(0.5f);
    assert_true(fetch_scalar(folded, sum, &feed, &v, 1) == 8.0f);
    assert_true(fetch_scalar(plain, sum, &feed, &v, 1) == 8.0f);
    assert_int_equal(graft_session_last_ops_run(folded), 3);
    assert_int_equal(graft_session_last_ops_run(plain), 9);
    graft_tensor_free(v);
    graft_session_free(folded);
    graft_session_free(plain);
  }
  graft_session_options bad = GRAFT_SESSION_OPTIONS_INIT;
  bad.disabled_rewrites = 64;
  graft_session *s = NULL;
  GT_ERR(GRAFT_EINVAL, graft_session_new(&s, g, &bad), "disabled_rewrites");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_feed_and_fetch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_matmul_and_broadcast, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pruning, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resource_variables, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ref_variables, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parallel_matches_sequential, setup, teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_callables, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fetches_exclusive, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rewrites_on_and_off, setup, teardown),
      cmocka_unit_test_setup_teardown(test_placement_options, setup, teardown),
  };
  return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
