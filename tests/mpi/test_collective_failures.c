/* A collective whose peer never comes, run under mpirun with 2 ranks. Mode "late": rank 1
 * does not run the all-reduce that rank 0 runs with timeout_seconds 1; rank 0 fails with
 * GRAFT_EDEADLINE naming rank 1, and both then meet at a barrier and finish cleanly. Mode
 * "killed": rank 1 is killed (SIGKILL) before the all-reduce; rank 0 fails the same way
 * instead of hanging (mpirun is told not to abort the job when a rank dies, and its own exit
 * status reports the killed rank: run_killed_peer.sh checks rank 0's result file instead). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../c_api/graph_test_util.h"

static int32_t one = 1;

static graft_op *key(graft_graph *g, int32_t v) { return make_const_of(g, NULL, GRAFT_INT32, NULL, 0, &v, sizeof v); }

/* rank 0's all-reduce with timeout_seconds 1 fails within a few seconds, naming rank 1. */
static void expect_timeout(int size) {
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "CollectiveReduceV2", "reduce"));
  float x = 1;
  GT_OK(graft_op_desc_add_input(d, (graft_output){make_const(g, "x", x), 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){key(g, size), 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){key(g, one), 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){key(g, 5), 0}));
  GT_OK(graft_op_desc_add_input_list(d, NULL, 0));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "merge_op", "Add", 3));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "final_op", "Id", 2));
  GT_OK(graft_attrs_set_float(graft_op_desc_attrs(d), "timeout_seconds", 1.0f));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output f = {op, 0};
  graft_tensor *out = NULL;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  GT_ERR(GRAFT_EDEADLINE, graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0), "CollectiveReduceV2 op 'reduce'",
         "timed out after 1 s waiting for rank 1", "instance_key 5");
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  assert_true(seconds >= 0.9 && seconds < 10);
  graft_session_free(s);
  graft_graph_free(g);
}

static const char *g_mode = "late";
static const char *g_result = NULL; /* "killed": rank 0 writes "ok" here after its check passed */

static void test_peer_missing(void **state) {
  (void)state;
  int rank = 0, size = 0;
  GT_OK(graft_distributed_rank(&rank));
  GT_OK(graft_distributed_size(&size));
  assert_int_equal(size, 2);
  if (strcmp(g_mode, "killed") == 0) {
    if (rank == 1) raise(SIGKILL);
    if (rank == 0) {
      expect_timeout(size);
      FILE *f = fopen(g_result, "w");
      assert_non_null(f);
      fputs("ok\n", f);
      fclose(f);
    }
    return;
  }
  if (rank == 0) expect_timeout(size);
  GT_OK(graft_distributed_barrier());
}

int main(int argc, char **argv) {
  if (argc > 1) g_mode = argv[1];
  if (strcmp(g_mode, "killed") == 0) {
    if (argc < 3) return 2;
    g_result = argv[2];
  }
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_peer_missing)};
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  /* After a killed peer MPI cannot finalize cleanly (it would wait for the dead rank). */
  if (strcmp(g_mode, "killed") == 0) {
    fflush(stdout);
    _Exit(failed);
  }
  if (graft_distributed_finalize() != GRAFT_OK) {
    fprintf(stderr, "test_collective_failures: %s\n", graft_error_last());
    return 1;
  }
  return failed;
}
