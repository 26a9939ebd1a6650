/* A graph run across the processes of an MPI job (issue #24): mpirun -np 3, cluster spec
 * "worker:2,ps:1" (worker/0 = rank 0, the client; worker/1 = rank 1; ps/0 = rank 2). Every
 * rank builds the same graph and a session with the same spec; rank 0 runs the cases, the
 * others serve until it frees its session:
 *  - ops on /job:worker/task:1 between ops of the client: tensors go there and back, a feed goes
 *    where it is consumed, a remote op's output is fetched;
 *  - a variable on /job:ps/task:0 updated from both workers, keeping its value across runs;
 *  - a control dependency across processes;
 *  - a remote op that fails: the client's run fails with its error and its task, and the next
 *    run works;
 *  - errors found before anything runs: a spec that is not the job's, a job the spec lacks,
 *    serving from the client.
 * Mode "killed RESULT" (run_killed_peer.sh, 2 ranks, spec "worker:2"): worker/1 is killed after
 * making its session; the client's run of an op there fails with a deadline error naming the
 * edge and the rank instead of hanging, and rank 0 writes "ok" to RESULT. */
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../c_api/graph_test_util.h"

static int g_rank;
static graft_graph *g_graph;
static graft_session *g_session;
static graft_op *g_x, *g_c, *g_b, *g_y, *g_check, *g_init, *g_update, *g_read, *g_after, *g_chief;

static graft_op *op2(graft_graph *g, const char *type, const char *name, const char *device, graft_op *a, graft_op *b) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  if (a != NULL) GT_OK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  if (b != NULL) GT_OK(graft_op_desc_add_input(d, (graft_output){b, 0}));
  if (device != NULL) GT_OK(graft_op_desc_set_device(d, device));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *var_op(graft_graph *g, const char *type, const char *name, const char *device, graft_op *handle,
                        graft_op *value) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, (graft_output){handle, 0}));
  if (value) GT_OK(graft_op_desc_add_input(d, (graft_output){value, 0}));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  if (device != NULL) GT_OK(graft_op_desc_set_device(d, device));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* The same graph on every rank. */
static void build_graph(void) {
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  const char *w1 = "/job:worker/task:1", *ps = "/job:ps/task:0";
  g_x = make_placeholder(g, "x", GRAFT_FLOAT32, (const int64_t[]){2}, 1);
  graft_op *two = make_const(g, "two", 2.0f);
  float av[2] = {1, 2};
  graft_op *a = make_const_f32(g, "a", (const int64_t[]){2}, 1, av);
  g_b = op2(g, "Mul", "b", w1, a, two);        /* worker/1: a * 2 */
  g_c = op2(g, "AddV2", "c", NULL, g_b, a);    /* client: b + a */
  g_y = op2(g, "Mul", "y", w1, g_x, two);      /* worker/1: the feed x * 2 */
  graft_op_desc *d = NULL;                     /* worker/1: fails on a NaN in x */
  GT_OK(graft_op_desc_new(&d, g, "CheckNumerics", "check"));
  GT_OK(graft_op_desc_add_input(d, (graft_output){g_x, 0}));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "message", "x is bad", 8));
  GT_OK(graft_op_desc_set_device(d, w1));
  GT_OK(graft_op_desc_finish(&g_check, d));
  /* A variable on the parameter server, updated from worker/0 (1) and worker/1 (b's sum). */
  GT_OK(graft_op_desc_new(&d, g, "VarHandleOp", "v"));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", NULL, 0));
  GT_OK(graft_op_desc_set_device(d, ps));
  graft_op *v = NULL;
  GT_OK(graft_op_desc_finish(&v, d));
  g_init = var_op(g, "AssignVariableOp", "init", NULL, v, make_const(g, "ten", 10.0f));
  graft_op *axis = make_const_of(g, "axis", GRAFT_INT32, NULL, 0, (const int32_t[]){0}, sizeof(int32_t));
  graft_op *bsum = op2(g, "Sum", "bsum", w1, g_b, axis);          /* worker/1: 2 + 4 = 6 */
  graft_op *one = make_const(g, "one", 1.0f);                      /* worker/0 */
  graft_op *u0 = var_op(g, "AssignAddVariableOp", "u0", NULL, v, one);
  graft_op *u1 = var_op(g, "AssignAddVariableOp", "u1", w1, v, bsum);
  graft_op *both[2] = {u0, u1};
  GT_OK(graft_graph_push_control_dependencies(g, both, 2));
  g_update = op2(g, "NoOp", "update_all", w1, NULL, NULL);  /* a control edge from ps to worker/1 */
  GT_OK(graft_graph_pop_control_dependencies(g));
  g_read = var_op(g, "ReadVariableOp", "read", NULL, v, NULL);
  /* On ps (where v is), after worker/1's NoOp: a control edge from worker/1 to ps. */
  GT_OK(graft_graph_push_control_dependencies(g, &g_update, 1));
  g_after = var_op(g, "ReadVariableOp", "after", NULL, v, NULL);
  GT_OK(graft_graph_pop_control_dependencies(g));
  g_chief = op2(g, "Identity", "on_chief", "/job:chief/task:0", a, NULL);
  g_graph = g;
}

static float fetch1(graft_op *op, int i, const float *feed) {
  graft_output f = {op, 0};
  graft_tensor *out = NULL, *fv = NULL;
  graft_output fx = {g_x, 0};
  if (feed != NULL) GT_OK(graft_tensor_new(&fv, GRAFT_FLOAT32, (const int64_t[]){2}, 1, feed, 2 * sizeof(float)));
  GT_OK(graft_session_run(&out, g_session, feed ? &fx : NULL, feed ? &fv : NULL, feed ? 1 : 0, &f, 1, NULL, 0));
  float r = ((const float *)graft_tensor_data(out))[i];
  graft_tensor_free(out);
  graft_tensor_free(fv);
  return r;
}

static void test_tensors_cross_processes(void **state) {
  (void)state;
  assert_float_equal(fetch1(g_c, 0, NULL), 3.0f, 0);  /* (1*2) + 1 */
  assert_float_equal(fetch1(g_c, 1, NULL), 6.0f, 0);
  assert_float_equal(fetch1(g_b, 1, NULL), 4.0f, 0);  /* fetched from worker/1 */
  const float x[2] = {5, -7};
  assert_float_equal(fetch1(g_y, 0, x), 10.0f, 0);    /* fed on the client, consumed on worker/1 */
  assert_float_equal(fetch1(g_y, 1, x), -14.0f, 0);
  assert_float_equal(fetch1(g_x, 1, x), -7.0f, 0);    /* a fed tensor fetched back */
}

static void test_parameter_server_variable(void **state) {
  (void)state;
  GT_OK(graft_session_run(NULL, g_session, NULL, NULL, 0, NULL, 0, &g_init, 1));
  assert_float_equal(fetch1(g_read, 0, NULL), 10.0f, 0);
  for (int step = 1; step <= 3; ++step) {
    /* Both workers' updates (control edges from ps to worker/1), then the read on ps after
     * worker/1's NoOp (a control edge back), fetched by the client. */
    assert_float_equal(fetch1(g_after, 0, NULL), 10.0f + 7.0f * (float)step, 0);
  }
  assert_float_equal(fetch1(g_read, 0, NULL), 31.0f, 0);
}

static void test_remote_failure(void **state) {
  (void)state;
  const float nan_x[2] = {1, NAN};
  graft_output f = {g_check, 0}, fx = {g_x, 0};
  graft_tensor *fv = NULL, *out = NULL;
  GT_OK(graft_tensor_new(&fv, GRAFT_FLOAT32, (const int64_t[]){2}, 1, nan_x, sizeof nan_x));
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, g_session, &fx, &fv, 1, &f, 1, NULL, 0), "on /job:worker/task:1",
         "CheckNumerics op 'check'", "x is bad", "NaN");
  graft_tensor_free(fv);
  const float fine[2] = {1, 2};
  assert_float_equal(fetch1(g_check, 1, fine), 2.0f, 0);
  assert_float_equal(fetch1(g_c, 1, NULL), 6.0f, 0);
}

static void test_plan_errors(void **state) {
  (void)state;
  graft_output f = {g_chief, 0};
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, g_session, NULL, NULL, 0, &f, 1, NULL, 0), "op 'on_chief'",
         "/job:chief is not in the cluster spec 'worker:2,ps:1'");
  GT_ERR(GRAFT_EPRECONDITION, graft_session_serve(g_session), "the client (/job:worker/task:0) runs the session");
  assert_float_equal(fetch1(g_c, 0, NULL), 3.0f, 0);
}

/* Mode "killed": see the top of the file. */
static int killed_peer(const char *result) {
  build_graph();
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.cluster = "worker:2";
  if (graft_session_new(&g_session, g_graph, &opts) != GRAFT_OK) {
    fprintf(stderr, "rank %d: %s\n", g_rank, graft_error_last());
    return 1;
  }
  if (g_rank == 1) raise(SIGKILL);
  graft_output f = {g_b, 0};
  graft_tensor *out = NULL;
  int rc = graft_session_run(&out, g_session, NULL, NULL, 0, &f, 1, NULL, 0);
  const char *msg = graft_error_last();
  printf("rank 0: the run gave %s: %s\n", graft_status_name(rc), msg);
  fflush(stdout);
  if (rc == GRAFT_EDEADLINE && strstr(msg, "rank 1") != NULL && strstr(msg, "'b:0'") != NULL) {
    FILE *file = fopen(result, "w");
    if (file != NULL) {
      fputs("ok\n", file);
      fclose(file);
    }
  }
  _Exit(0); /* MPI cannot finalize with a dead rank */
}

int main(int argc, char **argv) {
  if (graft_distributed_rank(&g_rank) != GRAFT_OK) {
    fprintf(stderr, "test_cluster_session: %s\n", graft_error_last());
    return 1;
  }
  if (argc > 2 && strcmp(argv[1], "killed") == 0) return killed_peer(argv[2]);
  build_graph();
  /* Errors of the spec, on every rank, before any message. */
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  graft_session *bad = NULL;
  opts.cluster = "worker:5";
  int rc = graft_session_new(&bad, g_graph, &opts);
  int failed = rc != GRAFT_EINVAL || strstr(graft_error_last(), "has 5 tasks but the job has 3 processes") == NULL;
  opts.cluster = "worker";
  rc = graft_session_new(&bad, g_graph, &opts);
  failed |= rc != GRAFT_EINVAL || strstr(graft_error_last(), "'worker' is not job:count") == NULL;
  if (failed) fprintf(stderr, "rank %d: a bad cluster spec gave: %s\n", g_rank, graft_error_last());

  opts.cluster = "worker:2,ps:1";
  if (graft_session_new(&g_session, g_graph, &opts) != GRAFT_OK) {
    fprintf(stderr, "rank %d: %s\n", g_rank, graft_error_last());
    return 1;
  }
  if (g_rank == 0) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensors_cross_processes), cmocka_unit_test(test_parameter_server_variable),
        cmocka_unit_test(test_remote_failure), cmocka_unit_test(test_plan_errors)};
    failed |= cmocka_run_group_tests(tests, NULL, NULL);
  } else {
    graft_output f = {g_c, 0};
    graft_tensor *out = NULL;
    if (graft_session_run(&out, g_session, NULL, NULL, 0, &f, 1, NULL, 0) != GRAFT_EPRECONDITION ||
        strstr(graft_error_last(), "serves it (graft_session_serve)") == NULL) {
      fprintf(stderr, "rank %d: running from a server gave: %s\n", g_rank, graft_error_last());
      failed = 1;
    }
    if (graft_session_serve(g_session) != GRAFT_OK) {
      fprintf(stderr, "rank %d: serve: %s\n", g_rank, graft_error_last());
      failed = 1;
    }
  }
  graft_session_free(g_session);
  graft_graph_free(g_graph);
  if (graft_distributed_finalize() != GRAFT_OK) {
    fprintf(stderr, "rank %d: %s\n", g_rank, graft_error_last());
    return 1;
  }
  return failed;
}
