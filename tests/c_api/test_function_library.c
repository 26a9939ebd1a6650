/* Large function libraries through GraphDef import: 100k unused functions import and run in
 * linear time, 60 nested calls among 20k unused functions, a 10k-deep call chain stops at the
 * nesting limit quickly (and says so, not "calls itself"), real recursion (direct, mutual)
 * says "calls itself", a function called twice at every level is prepared once per level,
 * duplicate function names across and within GraphDefs, and preparing the same nested calls
 * from several threads at once. The GraphDefs are written by graph_def_writer.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "graph_def_writer.h"
#include "test_util.h"

/* A generous bound: the quadratic library handling took 10-20 s for these cases (three times
 * that under AddressSanitizer, where the linear one takes 2-5 s on a busy 2-core machine). */
#if defined(__SANITIZE_ADDRESS__)
#define MAX_SECONDS 15.0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MAX_SECONDS 15.0
#endif
#endif
#ifndef MAX_SECONDS
#define MAX_SECONDS 5.0
#endif

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void import_into(graft_graph *g, const gw_buf *gd) {
  graft_import_options *opts = NULL;
  GT_OK(graft_import_options_new(&opts));
  GT_OK(graft_import_options_set_prefix(opts, ""));
  GT_OK(graft_graph_import_graph_def(NULL, g, gd->data, gd->len, opts));
  graft_import_options_free(opts);
}

/* Runs g's "call" in a new session: GRAFT_OK with *out set, or the failure's code. */
static int run_call(graft_graph *g, float *out) {
  graft_op *call = NULL;
  GT_OK(graft_graph_op_by_name(&call, g, "call"));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fetch = {call, 0};
  graft_tensor *t = NULL;
  int rc = graft_session_run(&t, s, NULL, NULL, 0, &fetch, 1, NULL, 0);
  if (rc == GRAFT_OK) {
    *out = *(const float *)graft_tensor_data(t);
    graft_tensor_free(t);
  }
  graft_session_free(s);
  return rc;
}

/* Imports gd into a new graph and runs its call, which must return want. */
static void expect_call_value(const gw_buf *gd, float want) {
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  import_into(g, gd);
  float got = 0;
  GT_OK(run_call(g, &got));
  assert_float_equal(got, want, 0);
  graft_graph_free(g);
}

/* Imports gd into a new graph and runs its call, which must fail with code and each needle
 * in its message. */
#define EXPECT_RUN_ERROR(gd, code, ...)                      \
  do {                                                       \
    graft_graph *g_ = NULL;                                  \
    GT_OK(graft_graph_new(&g_));                             \
    import_into(g_, (gd));                                   \
    float unused_ = 0;                                       \
    GT_ERR((code), run_call(g_, &unused_), __VA_ARGS__);     \
    graft_graph_free(g_);                                    \
  } while (0)

static void test_many_unused_functions(void **state) {
  (void)state;
  gw_buf gd = gw_chain_graph_def(0, 100000, 1.5f);
  double t0 = now_s();
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  import_into(g, &gd);
  assert_int_equal(graft_graph_num_functions(g), 100001);
  assert_string_equal(graft_graph_function_name(g, 0), "unused_0");
  assert_string_equal(graft_graph_function_name(g, 100000), "chain_0");
  float got = 0;
  GT_OK(run_call(g, &got));
  assert_float_equal(got, 3.0f, 0);
  double elapsed = now_s() - t0;
  if (elapsed > MAX_SECONDS) {
    print_error("import + run took %.2f s\n", elapsed);
    fail();
  }
  /* The library exports unchanged and imports again (a second import of the same functions
   * into the same graph is accepted). */
  void *bytes = NULL;
  size_t len = 0;
  GT_OK(graft_graph_export_graph_def(&bytes, &len, g, -1, 0));
  graft_graph *back = NULL;
  GT_OK(graft_graph_new(&back));
  GT_OK(graft_graph_import_graph_def(NULL, back, bytes, len, NULL));
  assert_int_equal(graft_graph_num_functions(back), 100001);
  GT_OK(graft_graph_import_graph_def(NULL, g, bytes, len, NULL));
  assert_int_equal(graft_graph_num_functions(g), 100001);
  graft_buffer_free(bytes);
  graft_graph_free(back);
  graft_graph_free(g);
  gw_free(&gd);
}

static void test_nested_calls_among_unused_functions(void **state) {
  (void)state;
  gw_buf gd = gw_chain_graph_def(60, 20000, 1.5f);
  double t0 = now_s();
  expect_call_value(&gd, 62 * 1.5f); /* chain_0(x) = (depth + 2) * x */
  double elapsed = now_s() - t0;
  if (elapsed > MAX_SECONDS) {
    print_error("60 nested calls took %.2f s\n", elapsed);
    fail();
  }
  gw_free(&gd);
}

static void test_nesting_limit(void **state) {
  (void)state;
  /* 63 nested calls (64 functions) are within the limit; one more is not. */
  gw_buf ok = gw_chain_graph_def(63, 0, 1.5f);
  expect_call_value(&ok, 65 * 1.5f);
  gw_free(&ok);
  gw_buf over = gw_chain_graph_def(64, 0, 1.5f);
  EXPECT_RUN_ERROR(&over, GRAFT_EINVAL, "function 'chain_64' is nested too deeply (limit 64)");
  gw_free(&over);
}

static void test_deep_chain_fails_quickly(void **state) {
  (void)state;
  gw_buf gd = gw_chain_graph_def(10000, 0, 1.5f);
  double t0 = now_s();
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  import_into(g, &gd);
  float unused = 0;
  GT_ERR(GRAFT_EINVAL, run_call(g, &unused), "function 'chain_64' is nested too deeply (limit 64)", "chain_0");
  /* A chain is not recursion. */
  assert_null(strstr(graft_error_last(), "calls itself"));
  assert_null(strstr(graft_error_last(), "recursion"));
  double elapsed = now_s() - t0;
  if (elapsed > MAX_SECONDS) {
    print_error("the 10k-deep chain took %.2f s to fail\n", elapsed);
    fail();
  }
  graft_graph_free(g);
  gw_free(&gd);
}

static void test_recursion(void **state) {
  (void)state;
  /* Direct: r(x) = r(x) + x. */
  gw_buf lib = {0};
  gw_function(&lib, "r", "r");
  gw_buf gd = gw_graph_def(&lib, "r", 1.5f);
  EXPECT_RUN_ERROR(&gd, GRAFT_EINVAL, "function 'r' calls itself (r -> r)", "recursion");
  gw_free(&gd);
  /* Mutual, entered through a function that is not part of the cycle: s -> a -> b -> a. */
  gw_function(&lib, "s", "a");
  gw_function(&lib, "a", "b");
  gw_function(&lib, "b", "a");
  gd = gw_graph_def(&lib, "s", 1.5f);
  EXPECT_RUN_ERROR(&gd, GRAFT_EINVAL, "function 'a' calls itself (a -> b -> a)");
  gw_free(&gd);
}

/* twice_k(x) = twice_{k+1}(x) + twice_{k+1}(x): preparing every call site separately would
 * take 2^30 instantiations. */
static void test_function_called_twice_at_every_level(void **state) {
  (void)state;
  enum { DEPTH = 30 };
  gw_buf lib = {0};
  char name[32], callee[32];
  for (int i = 0; i < DEPTH; ++i) {
    snprintf(name, sizeof name, "twice_%d", i);
    snprintf(callee, sizeof callee, "twice_%d", i + 1);
    gw_function_twice(&lib, name, callee);
  }
  snprintf(name, sizeof name, "twice_%d", DEPTH);
  gw_function(&lib, name, NULL); /* the leaf: x + x */
  gw_buf gd = gw_graph_def(&lib, "twice_0", 1.0f);
  double t0 = now_s();
  expect_call_value(&gd, 2147483648.0f); /* 2^(DEPTH + 1) */
  double elapsed = now_s() - t0;
  if (elapsed > MAX_SECONDS) {
    print_error("took %.2f s\n", elapsed);
    fail();
  }
  gw_free(&gd);
}

static void test_duplicate_functions(void **state) {
  (void)state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  /* The same function twice in one library is accepted once. */
  gw_buf lib = {0};
  gw_function(&lib, "f", NULL);
  gw_function(&lib, "f", NULL);
  gw_buf gd = gw_graph_def(&lib, "f", 1.5f);
  import_into(g, &gd);
  gw_free(&gd);
  assert_int_equal(graft_graph_num_functions(g), 1);
  /* A different body under the same name, in one library or against the graph's, is an
   * error, and the failed import leaves the library as it was. */
  gw_function(&lib, "g", NULL);
  gw_function(&lib, "g", "f");
  gd = gw_graph_def(&lib, "g", 1.5f);
  GT_ERR(GRAFT_EEXISTS, graft_graph_import_graph_def(NULL, g, gd.data, gd.len, NULL), "different function named 'g'");
  gw_free(&gd);
  gw_function(&lib, "h", NULL);
  gw_function(&lib, "f", "h");
  gd = gw_graph_def(&lib, "h", 1.5f);
  GT_ERR(GRAFT_EEXISTS, graft_graph_import_graph_def(NULL, g, gd.data, gd.len, NULL), "different function named 'f'");
  gw_free(&gd);
  assert_int_equal(graft_graph_num_functions(g), 1);
  /* After the rollbacks the library grows again: the graph's f and a new g (g = f + x). */
  gw_function(&lib, "f", NULL);
  gw_function(&lib, "g", "f");
  gd = gw_graph_def(&lib, "g", 1.5f);
  graft_import_options *opts = NULL;
  GT_OK(graft_import_options_new(&opts));
  GT_OK(graft_import_options_set_prefix(opts, "second"));
  GT_OK(graft_graph_import_graph_def(NULL, g, gd.data, gd.len, opts));
  graft_import_options_free(opts);
  gw_free(&gd);
  assert_int_equal(graft_graph_num_functions(g), 2);
  assert_string_equal(graft_graph_function_name(g, 1), "g");
  graft_op *call = NULL;
  GT_OK(graft_graph_op_by_name(&call, g, "second/call"));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fetch = {call, 0};
  graft_tensor *t = NULL;
  GT_OK(graft_session_run(&t, s, NULL, NULL, 0, &fetch, 1, NULL, 0));
  assert_float_equal(*(const float *)graft_tensor_data(t), 4.5f, 0);
  graft_tensor_free(t);
  graft_session_free(s);
  graft_graph_free(g);
}

/* Sessions on one graph prepare the same nested calls from several threads at once. */
struct prepare_arg {
  graft_graph *g;
  int wrong;
};

static void *prepare_and_run(void *p) {
  struct prepare_arg *a = (struct prepare_arg *)p;
  for (int i = 0; i < 3; ++i) {
    float got = 0;
    if (run_call(a->g, &got) != GRAFT_OK || got != 22 * 1.5f) a->wrong++;
  }
  return NULL;
}

static void test_prepare_from_threads(void **state) {
  (void)state;
  gw_buf gd = gw_chain_graph_def(20, 1000, 1.5f);
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  import_into(g, &gd);
  gw_free(&gd);
  enum { THREADS = 4 };
  pthread_t threads[THREADS];
  struct prepare_arg args[THREADS];
  for (int i = 0; i < THREADS; ++i) {
    args[i].g = g;
    args[i].wrong = 0;
    assert_int_equal(pthread_create(&threads[i], NULL, prepare_and_run, &args[i]), 0);
  }
  for (int i = 0; i < THREADS; ++i) {
    assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(args[i].wrong, 0);
  }
  graft_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_many_unused_functions),
      cmocka_unit_test(test_nested_calls_among_unused_functions),
      cmocka_unit_test(test_nesting_limit),
      cmocka_unit_test(test_deep_chain_fails_quickly),
      cmocka_unit_test(test_recursion),
      cmocka_unit_test(test_function_called_twice_at_every_level),
      cmocka_unit_test(test_duplicate_functions),
      cmocka_unit_test(test_prepare_from_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
