/* The collective ops across the processes of an MPI job (run by ctest under mpirun with 2 and
 * 4 ranks; every rank runs every test, in the same order): all-reduces of each dtype, merge op
 * and final op over sizes from empty to more than a chunk per rank, a gather of different
 * first dimensions, a broadcast, and the errors (a group_size that is not the job's, a bad
 * instance_key, ranks with different shapes or scalars to gather, after which the process's
 * collectives still work; ranks running different collectives under one key, which aborts
 * them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../c_api/graph_test_util.h"

static int g_rank, g_size;

static graft_op *scalar_i32(graft_graph *g, int32_t v) {
  return make_const_of(g, NULL, GRAFT_INT32, NULL, 0, &v, sizeof v);
}

static graft_op *cast(graft_graph *g, graft_op *x, graft_dtype to) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Cast", NULL));
  GT_OK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "DstT", to));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* A collective op of type with its three keys (input and shape may be NULL). */
static graft_op_desc *collective(graft_graph *g, const char *type, const char *name, graft_op *input, int32_t group_size,
                                 int32_t instance_key) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  if (input != NULL) GT_OK(graft_op_desc_add_input(d, (graft_output){input, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){scalar_i32(g, group_size), 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){scalar_i32(g, 1), 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){scalar_i32(g, instance_key), 0}));
  return d;
}

static graft_op *all_reduce(graft_graph *g, graft_op *input, int32_t group_size, int32_t instance_key, const char *merge,
                            const char *final_op) {
  graft_op_desc *d = collective(g, "CollectiveReduceV2", "reduce", input, group_size, instance_key);
  GT_OK(graft_op_desc_add_input_list(d, NULL, 0));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "merge_op", merge, strlen(merge)));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "final_op", final_op, strlen(final_op)));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/* Runs fetch in a new session of g; the float64 copy of its values (n of them) in *out. */
static int run1(graft_graph *g, graft_op *fetch, graft_tensor **out) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output f = {fetch, 0};
  int rc = graft_session_run(out, s, NULL, NULL, 0, &f, 1, NULL, 0);
  graft_session_free(s);
  return rc;
}

/* This rank's value at i, and what each reduction of every rank's values gives. */
static double value(int rank, int64_t i) { return (double)(i % 13) - 6 + rank; }

static double expected(const char *merge, const char *final_op, int64_t i, int integer) {
  double acc = value(0, i);
  for (int r = 1; r < g_size; ++r) {
    double v = value(r, i);
    if (strcmp(merge, "Add") == 0) acc += v;
    if (strcmp(merge, "Mul") == 0) acc *= v;
    if (strcmp(merge, "Min") == 0) acc = fmin(acc, v);
    if (strcmp(merge, "Max") == 0) acc = fmax(acc, v);
  }
  if (strcmp(final_op, "Div") == 0) acc = integer ? trunc(acc / g_size) : acc / g_size;
  return acc;
}

static int32_t g_next_key = 100;

/* One all-reduce of n values of dtype (made as float64 and cast), checked on every element. */
static void check_reduce(graft_dtype dtype, int64_t n, const char *merge, const char *final_op) {
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  double *data = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  for (int64_t i = 0; i < n; ++i) data[i] = value(g_rank, i);
  graft_op *x = make_const_of(g, "x", GRAFT_FLOAT64, (const int64_t[]){n}, 1, data, sizeof(double) * (size_t)n);
  graft_op *reduced = all_reduce(g, cast(g, x, dtype), g_size, g_next_key++, merge, final_op);
  graft_tensor *out = NULL;
  GT_OK(run1(g, cast(g, reduced, GRAFT_FLOAT64), &out));
  assert_int_equal(graft_tensor_dim(out, 0), n);
  const double *got = graft_tensor_data(out);
  const int integer = dtype == GRAFT_INT32 || dtype == GRAFT_INT64;
  for (int64_t i = 0; i < n; ++i) {
    double want = expected(merge, final_op, i, integer);
    double tol = (dtype == GRAFT_FLOAT16 || dtype == GRAFT_BFLOAT16) ? fabs(want) * 1e-2 : 1e-9;
    if (fabs(got[i] - want) > tol) {
      print_error("%s %s/%s n=%lld: element %lld is %g, not %g\n", graft_dtype_name(dtype), merge, final_op,
                  (long long)n, (long long)i, got[i], want);
      fail();
    }
  }
  graft_tensor_free(out);
  free(data);
  graft_graph_free(g);
}

static void test_reduce_dtypes_and_sizes(void **state) {
  (void)state;
  const graft_dtype dtypes[] = {GRAFT_FLOAT32, GRAFT_FLOAT64, GRAFT_INT32, GRAFT_INT64, GRAFT_FLOAT16, GRAFT_BFLOAT16};
  const int64_t sizes[] = {0, 1, 3, 1000, 300001};
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d) {
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) check_reduce(dtypes[d], sizes[s], "Add", "Id");
  }
  /* 12 MB: chunks of several 1 MiB segments, more than the four scratch slots. */
  check_reduce(GRAFT_FLOAT32, (3 << 20) + 5, "Add", "Id");
}

static void test_reduce_merge_and_final_ops(void **state) {
  (void)state;
  const char *merges[] = {"Add", "Mul", "Min", "Max"};
  for (int m = 0; m < 4; ++m) {
    check_reduce(GRAFT_FLOAT32, 1001, merges[m], "Id");
    check_reduce(GRAFT_INT64, 1001, merges[m], "Div");
  }
  check_reduce(GRAFT_FLOAT64, 1001, "Add", "Div");
  check_reduce(GRAFT_FLOAT16, 1001, "Max", "Div");
}

/* Rank r gathers r rows of 3 (rank 0 none): the result has every rank's rows, in rank order. */
static void test_gather(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  int64_t rows = g_rank;
  float data[64];
  for (int64_t i = 0; i < rows * 3; ++i) data[i] = (float)(g_rank * 100 + i);
  graft_op *x = make_const_f32(g, "x", (const int64_t[]){rows, 3}, 2, data);
  graft_op_desc *d = collective(g, "CollectiveGatherV2", "gather", x, g_size, g_next_key++);
  GT_OK(graft_op_desc_add_input_list(d, NULL, 0));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  assert_output_shape(op, 0, "(None, 3)");
  graft_tensor *out = NULL;
  GT_OK(run1(g, op, &out));
  assert_int_equal(graft_tensor_dim(out, 0), (int64_t)g_size * (g_size - 1) / 2);
  const float *got = graft_tensor_data(out);
  int64_t at = 0;
  for (int r = 0; r < g_size; ++r) {
    for (int64_t i = 0; i < r * 3; ++i) assert_float_equal(got[at++], (float)(r * 100 + i), 0);
  }
  graft_tensor_free(out);
  graft_graph_free(g);
}

/* Rank size-1 broadcasts a 2x3 int32 tensor; the others receive it. */
static void test_broadcast(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  const int root = g_size - 1;
  const int32_t key = g_next_key++;
  graft_op *op = NULL;
  if (g_rank == root) {
    int32_t data[6] = {1, 2, 3, 4, 5, 6};
    graft_op *x = make_const_of(g, "x", GRAFT_INT32, (const int64_t[]){2, 3}, 2, data, sizeof data);
    GT_OK(graft_op_desc_finish(&op, collective(g, "CollectiveBcastSendV2", "send", x, g_size, key)));
  } else {
    graft_op_desc *d = collective(g, "CollectiveBcastRecvV2", "recv", NULL, g_size, key);
    int32_t dims[2] = {2, 3};
    GT_OK(graft_op_desc_add_input(d, (graft_output){make_const_of(g, "shape", GRAFT_INT32, (const int64_t[]){2}, 1, dims,
                                                                  sizeof dims), 0}));
    GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "T", GRAFT_INT32));
    GT_OK(graft_op_desc_finish(&op, d));
    assert_output_shape(op, 0, "(2, 3)");
  }
  graft_tensor *out = NULL;
  GT_OK(run1(g, op, &out));
  const int32_t *got = graft_tensor_data(out);
  for (int i = 0; i < 6; ++i) assert_int_equal(got[i], i + 1);
  graft_tensor_free(out);
  graft_graph_free(g);
}

/* Errors found before any message is sent: the process's collectives stay usable. */
static void test_key_errors(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  graft_op *x = make_const(g, "x", 1.0f);
  graft_op *wrong_size = all_reduce(g, x, g_size + 1, 7, "Add", "Id");
  graft_tensor *out = NULL;
  char want[96];
  snprintf(want, sizeof want, "group_size is %d but the job has %d processes", g_size + 1, g_size);
  GT_ERR(GRAFT_EINVAL, run1(g, wrong_size, &out), "CollectiveReduceV2 op 'reduce'", want);
  graft_op *negative_key = all_reduce(g, x, g_size, -3, "Add", "Id");
  GT_ERR(GRAFT_EINVAL, run1(g, negative_key, &out), "instance_key -3 is outside 0..");
  graft_graph_free(g);
  check_reduce(GRAFT_FLOAT32, 10, "Add", "Id");
}

/* Rank 0 has 5 values, the others 4: every rank fails naming both shapes. The headers were
 * exchanged in full, so nothing is in flight and later collectives work; so do they after a
 * gather of scalars, which every rank refuses alike. */
static void test_shape_mismatch(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  float data[5] = {1, 2, 3, 4, 5};
  int64_t n = g_rank == 0 ? 5 : 4;
  graft_op *x = make_const_f32(g, "x", &n, 1, data);
  graft_op *op = all_reduce(g, x, g_size, 9, "Add", "Id");
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EINVAL, run1(g, op, &out), "CollectiveReduceV2 op 'reduce'", "rank 0 has float32[5]", "has float32[4]");
  check_reduce(GRAFT_FLOAT32, 10, "Add", "Id");
  /* A placeholder of unknown rank fed a scalar: the shape function cannot refuse it. */
  graft_op_desc *pd = NULL;
  GT_OK(graft_op_desc_new(&pd, g, "Placeholder", "p"));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(pd), "dtype", GRAFT_FLOAT32));
  graft_op *p = NULL;
  GT_OK(graft_op_desc_finish(&p, pd));
  graft_op_desc *d = collective(g, "CollectiveGatherV2", "gather_scalar", p, g_size, 11);
  GT_OK(graft_op_desc_add_input_list(d, NULL, 0));
  graft_op *gather = NULL;
  GT_OK(graft_op_desc_finish(&gather, d));
  graft_tensor *scalar = NULL;
  const float two = 2.0f;
  GT_OK(graft_tensor_new(&scalar, GRAFT_FLOAT32, NULL, 0, &two, sizeof two));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output feed = {p, 0}, fetch = {gather, 0};
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &feed, &scalar, 1, &fetch, 1, NULL, 0),
         "CollectiveGatherV2 op 'gather_scalar'", "rank 0's input is a scalar");
  graft_session_free(s);
  graft_tensor_free(scalar);
  check_reduce(GRAFT_INT32, 100, "Max", "Id");
  /* Rank 0's input has 61 dimensions, more than a header describes: every rank fails alike. */
  int64_t dims[61];
  for (int i = 0; i < 61; ++i) dims[i] = 1;
  float one = 1.0f;
  graft_op *deep = make_const_f32(g, "deep", dims, g_rank == 0 ? 61 : 1, &one);
  GT_ERR(GRAFT_EINVAL, run1(g, all_reduce(g, deep, g_size, 14, "Add", "Id"), &out),
         "rank 0's input has more than 60 dimensions");
  check_reduce(GRAFT_FLOAT32, 3, "Add", "Div");
  graft_graph_free(g);
}

/* Rank 0 runs a gather where the others run an all-reduce, under one instance_key: every rank
 * fails naming both, and since the two exchange different messages, the process's collectives
 * are aborted. Last, since it aborts them. */
static void test_mixed_collectives_abort(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  float data[4] = {1, 2, 3, 4};
  graft_op *x = make_const_f32(g, "x", (const int64_t[]){4}, 1, data);
  graft_op *op = NULL;
  if (g_rank == 0) {
    graft_op_desc *d = collective(g, "CollectiveGatherV2", "mixed", x, g_size, 12);
    GT_OK(graft_op_desc_add_input_list(d, NULL, 0));
    GT_OK(graft_op_desc_finish(&op, d));
  } else {
    op = all_reduce(g, x, g_size, 12, "Add", "Id");
  }
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EINVAL, run1(g, op, &out), "with instance_key 12", "CollectiveGatherV2", "CollectiveReduceV2");
  GT_ERR(GRAFT_EINVAL, run1(g, all_reduce(g, x, g_size, 13, "Add", "Id"), &out),
         "collectives were aborted by an earlier failure");
  graft_graph_free(g);
}

int main(void) {
  if (graft_distributed_rank(&g_rank) != GRAFT_OK || graft_distributed_size(&g_size) != GRAFT_OK) {
    fprintf(stderr, "test_collectives: %s\n", graft_error_last());
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reduce_dtypes_and_sizes), cmocka_unit_test(test_reduce_merge_and_final_ops),
      cmocka_unit_test(test_gather),                  cmocka_unit_test(test_broadcast),
      cmocka_unit_test(test_key_errors),              cmocka_unit_test(test_shape_mismatch),
      cmocka_unit_test(test_mixed_collectives_abort),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  if (graft_distributed_finalize() != GRAFT_OK) {
    fprintf(stderr, "test_collectives: %s\n", graft_error_last());
    return 1;
  }
  return failed;
}
