/* Deadlines and cancellation (graft/run_options.h): a loop that never ends, as a traced
 * function's StatelessWhile, stopped by a timeout or by a token cancelled from another
 * thread, through a session, a callable, a function call and a concrete function call; the
 * errors name the op; everything stays usable; bad options are refused. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eager_test_util.h"
#include "graph_test_util.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* while i < limit: i = i + 1 (limit is the function's second argument: a huge one never ends
 * in a test's time). */
static int count_cond(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  graft_value *r = op2(ctx, "Less", args[0].value, (const graft_value *)ud);
  int rc = graft_value_list_append(outputs, r);
  graft_value_free(r);
  return rc;
}

static int count_body(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  graft_value *one = i32(ctx, 1);
  graft_value *next = op2(ctx, "AddV2", args[0].value, one);
  int rc = graft_value_list_append(outputs, next);
  graft_value_free(one);
  graft_value_free(next);
  return rc;
}

static int count_to(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs, void *ud) {
  (void)nargs;
  (void)ud;
  const graft_value *start = args[0].value;
  graft_value *res = NULL;
  int n = 0;
  int rc = graft_while_loop(&res, 1, &n, ctx, count_cond, (void *)args[1].value, count_body, NULL, &start, 1);
  if (rc == GRAFT_OK) rc = graft_value_list_append(outputs, res);
  graft_value_free(res);
  return rc;
}

static graft_arg val(const graft_value *v) { return (graft_arg){GRAFT_ARG_VALUE, v, 0, 0, NULL, 0}; }

typedef struct {
  graft_context *ctx;
  graft_function *f;
  graft_concrete_function *cf;
  graft_graph *g; /* the concrete function's graph: a session runs its StatelessWhile */
} fixture;

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  GT_OK(graft_context_new(&fx->ctx));
  GT_OK(graft_function_new(&fx->f, "count_to", count_to, NULL, NULL));
  graft_value *zero = i32(fx->ctx, 0), *lim = i32(fx->ctx, 10);
  graft_arg a[2] = {val(zero), val(lim)};
  GT_OK(graft_function_get_concrete(&fx->cf, fx->f, fx->ctx, a, 2));
  fx->g = graft_concrete_function_graph(fx->cf);
  graft_value_free(zero);
  graft_value_free(lim);
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  graft_function_free(fx->f);
  graft_context_free(fx->ctx);
  free(fx);
  return 0;
}

static graft_tensor *scalar_i32(int32_t v) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_INT32, NULL, 0, &v, sizeof v));
  return t;
}

/* Runs the loop from 0 to limit through a session over the function's graph. */
static int session_count(graft_session *s, const fixture *fx, int32_t limit, const graft_run_options *options,
                         int32_t *result) {
  graft_output feeds[2] = {graft_concrete_function_input(fx->cf, 0), graft_concrete_function_input(fx->cf, 1)};
  graft_tensor *values[2] = {scalar_i32(0), scalar_i32(limit)};
  graft_output fetch = graft_concrete_function_output(fx->cf, 0);
  graft_tensor *out = NULL;
  int rc = graft_session_run_with_options(&out, s, feeds, values, 2, &fetch, 1, NULL, 0, options);
  if (rc == GRAFT_OK) {
    *result = *(const int32_t *)graft_tensor_data(out);
    graft_tensor_free(out);
  }
  graft_tensor_free(values[0]);
  graft_tensor_free(values[1]);
  return rc;
}

/* A session over the loop's graph, a new token, and run options carrying it. */
static graft_session *session_with_token(const fixture *fx, graft_cancellation **token, graft_run_options *opts) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, fx->g, NULL));
  GT_OK(graft_cancellation_new(token));
  *opts = (graft_run_options)GRAFT_RUN_OPTIONS_INIT;
  opts->cancellation = *token;
  return s;
}

static void test_token(void **state) {
  (void)state;
  graft_cancellation *c = NULL;
  GT_OK(graft_cancellation_new(&c));
  assert_false(graft_cancellation_is_cancelled(c));
  graft_cancellation_cancel(c);
  assert_true(graft_cancellation_is_cancelled(c));
  graft_cancellation_cancel(c); /* twice: still cancelled */
  assert_true(graft_cancellation_is_cancelled(c));
  graft_cancellation_reset(c);
  assert_false(graft_cancellation_is_cancelled(c));
  graft_cancellation_free(c);
  /* NULL everywhere is harmless. */
  graft_cancellation_cancel(NULL);
  graft_cancellation_reset(NULL);
  assert_false(graft_cancellation_is_cancelled(NULL));
  graft_cancellation_free(NULL);
  GT_ERR(GRAFT_EINVAL, graft_cancellation_new(NULL), "out");
  assert_string_equal(graft_status_name(GRAFT_EDEADLINE), "GRAFT_EDEADLINE");
  assert_string_equal(graft_status_str(GRAFT_EDEADLINE), "deadline exceeded");
}

static void test_session_deadline(void **state) {
  fixture *fx = *state;
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, fx->g, NULL));
  int32_t got = -1;
  /* Options that change nothing: a finite loop finishes with its result. */
  graft_run_options none = GRAFT_RUN_OPTIONS_INIT;
  GT_OK(session_count(s, fx, 1000, &none, &got));
  assert_int_equal(got, 1000);
  GT_OK(session_count(s, fx, 7, NULL, &got));
  assert_int_equal(got, 7);
  /* 2^31 - 1 iterations do not end within 50 ms: the deadline stops the loop inside. */
  graft_run_options opts = GRAFT_RUN_OPTIONS_INIT;
  opts.timeout_ms = 50;
  double t0 = now_s();
  GT_ERR(GRAFT_EDEADLINE, session_count(s, fx, 2147483647, &opts, &got), "graft_session_run_with_options",
         "passed its deadline (", " op '", "iteration");
  double took = now_s() - t0;
  assert_true(took >= 0.045);
  assert_true(took < 5.0);
  /* The session is usable afterwards, with and without a deadline. */
  GT_OK(session_count(s, fx, 12, &opts, &got));
  assert_int_equal(got, 12);
  GT_OK(session_count(s, fx, 3, NULL, &got));
  assert_int_equal(got, 3);
  /* Bad options. */
  graft_run_options bad = GRAFT_RUN_OPTIONS_INIT;
  bad.timeout_ms = -1;
  GT_ERR(GRAFT_EINVAL, session_count(s, fx, 3, &bad, &got), "timeout_ms", "-1");
  bad = (graft_run_options)GRAFT_RUN_OPTIONS_INIT;
  bad.version = 0;
  GT_ERR(GRAFT_EINVAL, session_count(s, fx, 3, &bad, &got), "version");
  graft_session_free(s);
}

typedef struct {
  graft_cancellation *token;
  int delay_ms;
} canceller_args;

static void *cancel_later(void *p) {
  canceller_args *a = p;
  usleep((useconds_t)a->delay_ms * 1000);
  graft_cancellation_cancel(a->token);
  return NULL;
}

static void test_session_and_callable_cancel(void **state) {
  fixture *fx = *state;
  graft_cancellation *token = NULL;
  graft_run_options opts;
  graft_session *s = session_with_token(fx, &token, &opts);
  int32_t got = -1;
  /* Cancelled from another thread while the loop runs. */
  canceller_args ca = {token, 30};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, cancel_later, &ca), 0);
  GT_ERR(GRAFT_ECANCELLED, session_count(s, fx, 2147483647, &opts, &got), "was cancelled (", " op '");
  pthread_join(th, NULL);
  /* A cancelled token stops the next run at once; reset, it runs again. */
  GT_ERR(GRAFT_ECANCELLED, session_count(s, fx, 5, &opts, &got), "cancelled");
  graft_cancellation_reset(token);
  GT_OK(session_count(s, fx, 5, &opts, &got));
  assert_int_equal(got, 5);

  /* The same through a callable; a deadline and a token together: whichever comes first. */
  graft_output feeds[2] = {graft_concrete_function_input(fx->cf, 0), graft_concrete_function_input(fx->cf, 1)};
  graft_output fetch = graft_concrete_function_output(fx->cf, 0);
  graft_callable *c = NULL;
  GT_OK(graft_session_make_callable(&c, s, feeds, 2, &fetch, 1, NULL, 0));
  graft_tensor *values[2] = {scalar_i32(0), scalar_i32(2147483647)};
  graft_tensor *out = NULL;
  opts.timeout_ms = 40;
  GT_ERR(GRAFT_EDEADLINE, graft_callable_run_with_options(&out, c, values, 2, &opts),
         "graft_callable_run_with_options", "deadline");
  assert_null(out);
  opts.timeout_ms = 60000;
  ca.delay_ms = 20;
  assert_int_equal(pthread_create(&th, NULL, cancel_later, &ca), 0);
  GT_ERR(GRAFT_ECANCELLED, graft_callable_run_with_options(&out, c, values, 2, &opts), "cancelled");
  pthread_join(th, NULL);
  graft_cancellation_reset(token);
  graft_tensor_free(values[1]);
  values[1] = scalar_i32(9);
  GT_OK(graft_callable_run_with_options(&out, c, values, 2, &opts));
  assert_int_equal(*(const int32_t *)graft_tensor_data(out), 9);
  graft_tensor_free(out);
  GT_ERR(GRAFT_EINVAL, graft_callable_run_with_options(&out, NULL, values, 2, &opts), "callable");
  graft_tensor_free(values[0]);
  graft_tensor_free(values[1]);
  graft_callable_free(c);
  graft_cancellation_free(token);
  graft_session_free(s);
}

static void test_function_calls(void **state) {
  fixture *fx = *state;
  graft_value *zero = i32(fx->ctx, 0), *big = i32(fx->ctx, 2147483647), *six = i32(fx->ctx, 6);
  graft_arg a[2] = {val(zero), val(big)};
  graft_value *out = NULL;
  int n = 0;
  graft_run_options opts = GRAFT_RUN_OPTIONS_INIT;
  opts.timeout_ms = 40;
  GT_ERR(GRAFT_EDEADLINE, graft_function_call_with_options(&out, 1, &n, fx->f, fx->ctx, a, 2, &opts),
         "graft_function_call_with_options", "deadline", "count_to");
  assert_null(out);
  const graft_value *in[2] = {zero, big};
  graft_cancellation *token = NULL;
  GT_OK(graft_cancellation_new(&token));
  graft_cancellation_cancel(token);
  opts.timeout_ms = 0;
  opts.cancellation = token;
  GT_ERR(GRAFT_ECANCELLED, graft_concrete_function_call_with_options(&out, 1, &n, fx->cf, fx->ctx, in, 2, &opts),
         "graft_concrete_function_call_with_options", "cancelled");
  /* Both stay usable. */
  a[1] = val(six);
  in[1] = six;
  graft_cancellation_reset(token);
  GT_OK(graft_function_call_with_options(&out, 1, &n, fx->f, fx->ctx, a, 2, &opts));
  int64_t count = 0;
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, out));
  count = *(const int32_t *)graft_tensor_data(t);
  assert_int_equal(count, 6);
  graft_tensor_free(t);
  graft_value_free(out);
  GT_OK(graft_concrete_function_call_with_options(&out, 1, &n, fx->cf, fx->ctx, in, 2, NULL));
  graft_value_free(out);
  opts.timeout_ms = -5;
  GT_ERR(GRAFT_EINVAL, graft_concrete_function_call_with_options(&out, 1, &n, fx->cf, fx->ctx, in, 2, &opts),
         "timeout_ms");
  graft_cancellation_free(token);
  graft_value_free(zero);
  graft_value_free(big);
  graft_value_free(six);
}

/* The eager op call of the traced function's While (its cond and body, known to the context
 * once the function has been called eagerly) from start to limit. */
static graft_op_call *eager_while(const fixture *fx, const graft_value *start, const graft_value *limit) {
  graft_op *loop = NULL;
  for (int64_t i = 0; i < graft_graph_num_ops(fx->g) && loop == NULL; ++i) {
    graft_op *op = graft_graph_op(fx->g, i);
    if (strstr(graft_op_type(op), "While") != NULL) loop = op;
  }
  assert_non_null(loop);
  const char *cond = NULL, *body = NULL;
  graft_dtype types[8];
  GT_OK(graft_op_get_attr_func(&cond, loop, "cond"));
  GT_OK(graft_op_get_attr_func(&body, loop, "body"));
  int ntypes = graft_op_num_inputs(loop);
  assert_int_equal(ntypes, 2); /* the counter and the captured limit */
  GT_OK(graft_op_get_attr_type_list(types, 8, loop, "T"));
  graft_op_call *call = NULL;
  GT_OK(graft_op_call_new(&call, fx->ctx, graft_op_type(loop)));
  const graft_value *in[2] = {start, limit};
  GT_OK(graft_op_call_add_input_list(call, in, 2));
  GT_OK(graft_attrs_set_type_list(graft_op_call_attrs(call), "T", types, ntypes));
  GT_OK(graft_attrs_set_func(graft_op_call_attrs(call), "cond", cond));
  GT_OK(graft_attrs_set_func(graft_op_call_attrs(call), "body", body));
  return call;
}

/* An eager op that runs graphs of its own (the While of the traced function): it stops at the
 * deadline, a cancelled token stops it before it runs, and the same op then runs to its end. */
static void test_eager_op_call(void **state) {
  fixture *fx = *state;
  graft_value *zero = i32(fx->ctx, 0), *big = i32(fx->ctx, 2147483647), *five = i32(fx->ctx, 5);
  graft_value *out[2] = {NULL, NULL};
  int n = 0;
  /* A call of the function under a tape (op by op through the context) makes its cond and
   * body known to the context. */
  const graft_value *in[2] = {zero, five};
  graft_tape *tape = NULL;
  GT_OK(graft_tape_new(&tape, fx->ctx, 0, 1));
  GT_OK(graft_concrete_function_call_with_options(out, 1, &n, fx->cf, fx->ctx, in, 2, NULL));
  graft_value_free(out[0]);
  out[0] = NULL;
  graft_tape_free(tape);
  graft_op_call *call = eager_while(fx, zero, big);
  graft_run_options opts = GRAFT_RUN_OPTIONS_INIT;
  opts.timeout_ms = 40;
  double t0 = now_s();
  GT_ERR(GRAFT_EDEADLINE, graft_op_call_execute_with_options(out, 2, &n, call, &opts),
         "graft_op_call_execute_with_options", "deadline", "iteration");
  assert_true(now_s() - t0 < 5.0);
  assert_null(out[0]);
  graft_cancellation *token = NULL;
  GT_OK(graft_cancellation_new(&token));
  graft_cancellation_cancel(token);
  opts.timeout_ms = 0;
  opts.cancellation = token;
  GT_ERR(GRAFT_ECANCELLED, graft_op_call_execute_with_options(out, 2, &n, call, &opts), "While");
  opts.timeout_ms = -1;
  opts.cancellation = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_call_execute_with_options(out, 2, &n, call, &opts), "timeout_ms");
  graft_op_call_free(call);
  /* From 0 to 5 it runs to its end, with options and without. */
  call = eager_while(fx, zero, five);
  graft_cancellation_reset(token);
  opts.timeout_ms = 60000;
  opts.cancellation = token;
  GT_OK(graft_op_call_execute_with_options(out, 2, &n, call, &opts));
  assert_int_equal(n, 2);
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, out[0]));
  assert_int_equal(*(const int32_t *)graft_tensor_data(t), 5);
  graft_tensor_free(t);
  graft_value_free(out[0]);
  graft_value_free(out[1]);
  GT_OK(graft_op_call_execute_with_options(out, 2, &n, call, NULL));
  graft_value_free(out[0]);
  graft_value_free(out[1]);
  graft_op_call_free(call);
  graft_cancellation_free(token);
  graft_value_free(zero);
  graft_value_free(big);
  graft_value_free(five);
}

/* Under a gradient tape a concrete function runs op by op: its While still stops. */
static void test_taped_call(void **state) {
  fixture *fx = *state;
  graft_tape *tape = NULL;
  GT_OK(graft_tape_new(&tape, fx->ctx, 0, 1));
  graft_value *zero = i32(fx->ctx, 0), *big = i32(fx->ctx, 2147483647), *four = i32(fx->ctx, 4);
  const graft_value *in[2] = {zero, big};
  graft_value *out = NULL;
  int n = 0;
  graft_run_options opts = GRAFT_RUN_OPTIONS_INIT;
  opts.timeout_ms = 40;
  double t0 = now_s();
  GT_ERR(GRAFT_EDEADLINE, graft_concrete_function_call_with_options(&out, 1, &n, fx->cf, fx->ctx, in, 2, &opts),
         "passed its deadline", "iteration");
  assert_true(now_s() - t0 < 5.0);
  in[1] = four;
  GT_OK(graft_concrete_function_call_with_options(&out, 1, &n, fx->cf, fx->ctx, in, 2, &opts));
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, out));
  assert_int_equal(*(const int32_t *)graft_tensor_data(t), 4);
  graft_tensor_free(t);
  graft_value_free(out);
  graft_tape_free(tape);
  graft_value_free(zero);
  graft_value_free(big);
  graft_value_free(four);
}

/* The parallel engine (two threads, more than 16 independent steps): the loop is a
 * PartitionedCall of the traced function beside 20 independent adds; the deadline stops it
 * there too, and a cancel from another thread. */
static void test_parallel_engine(void **state) {
  fixture *fx = *state;
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  GT_OK(graft_concrete_function_add_to_graph(fx->cf, g));
  graft_op *limit = make_placeholder(g, "limit", GRAFT_INT32, NULL, 0);
  int32_t zero = 0;
  graft_op *start = make_const_of(g, "start", GRAFT_INT32, NULL, 0, &zero, sizeof zero);
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "PartitionedCall", "loop"));
  graft_output args[2] = {{start, 0}, {limit, 0}};
  GT_OK(graft_op_desc_add_input_list(d, args, 2));
  const graft_dtype tin[2] = {GRAFT_INT32, GRAFT_INT32}, tout[1] = {GRAFT_INT32};
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "Tin", tin, 2));
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "Tout", tout, 1));
  GT_OK(graft_attrs_set_func(graft_op_desc_attrs(d), "f", graft_concrete_function_name(fx->cf)));
  graft_op *loop = NULL;
  GT_OK(graft_op_desc_finish(&loop, d));
  enum { kAdds = 20 };
  graft_output fetches[kAdds + 1] = {{loop, 0}};
  for (int i = 0; i < kAdds; ++i) {
    char name[16];
    snprintf(name, sizeof name, "add%d", i);
    int32_t k = i;
    graft_op *c = make_const_of(g, NULL, GRAFT_INT32, NULL, 0, &k, sizeof k);
    fetches[i + 1] = (graft_output){make_binary(g, "AddV2", name, limit, c), 0};
  }
  graft_session_options so = GRAFT_SESSION_OPTIONS_INIT;
  so.num_threads = 2;
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, &so));
  graft_output feed = {limit, 0};
  graft_tensor *outs[kAdds + 1] = {NULL};
  graft_tensor *small = scalar_i32(5), *big = scalar_i32(2147483647);
  GT_OK(graft_session_run(outs, s, &feed, &small, 1, fetches, kAdds + 1, NULL, 0));
  assert_int_equal(*(const int32_t *)graft_tensor_data(outs[0]), 5);
  assert_int_equal(*(const int32_t *)graft_tensor_data(outs[kAdds]), 5 + kAdds - 1);
  for (int i = 0; i <= kAdds; ++i) graft_tensor_free(outs[i]);
  graft_run_options opts = GRAFT_RUN_OPTIONS_INIT;
  opts.timeout_ms = 50;
  GT_ERR(GRAFT_EDEADLINE, graft_session_run_with_options(outs, s, &feed, &big, 1, fetches, kAdds + 1, NULL, 0, &opts),
         "PartitionedCall op 'loop'", "passed its deadline");
  graft_cancellation *token = NULL;
  GT_OK(graft_cancellation_new(&token));
  opts.timeout_ms = 0;
  opts.cancellation = token;
  canceller_args ca = {token, 30};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, cancel_later, &ca), 0);
  GT_ERR(GRAFT_ECANCELLED, graft_session_run_with_options(outs, s, &feed, &big, 1, fetches, kAdds + 1, NULL, 0, &opts),
         "PartitionedCall op 'loop'", "was cancelled");
  pthread_join(th, NULL);
  graft_cancellation_free(token);
  graft_tensor_free(small);
  graft_tensor_free(big);
  graft_session_free(s);
  graft_graph_free(g);
}

/* A timeout past what the clock can hold is no deadline; a run with one finishes. */
static void test_huge_timeout(void **state) {
  fixture *fx = *state;
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, fx->g, NULL));
  graft_run_options opts = GRAFT_RUN_OPTIONS_INIT;
  opts.timeout_ms = INT64_MAX;
  int32_t got = 0;
  GT_OK(session_count(s, fx, 50, &opts, &got));
  assert_int_equal(got, 50);
  opts.timeout_ms = INT64_MAX / 1000;
  GT_OK(session_count(s, fx, 51, &opts, &got));
  assert_int_equal(got, 51);
  graft_session_free(s);
}

/* Many runs share one token from several threads; one cancel stops them all. */
typedef struct {
  fixture *fx;
  graft_session *s;
  graft_run_options *opts;
  int rc;
} runner_args;

static void *run_forever(void *p) {
  runner_args *a = p;
  int32_t got = 0;
  a->rc = session_count(a->s, a->fx, 2147483647, a->opts, &got);
  return NULL;
}

static void test_one_token_many_runs(void **state) {
  fixture *fx = *state;
  graft_cancellation *token = NULL;
  graft_run_options opts;
  graft_session *s = session_with_token(fx, &token, &opts);
  opts.timeout_ms = 60000; /* a safety net: the cancel comes first */
  enum { kRunners = 4 };
  runner_args args[kRunners];
  pthread_t th[kRunners];
  for (int i = 0; i < kRunners; ++i) {
    args[i] = (runner_args){fx, s, &opts, GRAFT_OK};
    assert_int_equal(pthread_create(&th[i], NULL, run_forever, &args[i]), 0);
  }
  usleep(50 * 1000);
  graft_cancellation_cancel(token);
  for (int i = 0; i < kRunners; ++i) {
    pthread_join(th[i], NULL);
    assert_int_equal(args[i].rc, GRAFT_ECANCELLED);
  }
  graft_cancellation_free(token);
  graft_session_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_token),
      cmocka_unit_test_setup_teardown(test_session_deadline, setup, teardown),
      cmocka_unit_test_setup_teardown(test_session_and_callable_cancel, setup, teardown),
      cmocka_unit_test_setup_teardown(test_function_calls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_one_token_many_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_taped_call, setup, teardown),
      cmocka_unit_test_setup_teardown(test_eager_op_call, setup, teardown),
      cmocka_unit_test_setup_teardown(test_huge_timeout, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parallel_engine, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
