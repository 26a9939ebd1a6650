/* TensorFlow 1 control flow in the executor: a loop that sums 1..N, a nested loop, a cond,
 * dead branches, loop-invariant values, and loops run on several threads and from several
 * callers at once. Graphs are built as TensorFlow 1 builds them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

static graft_op *int_const(graft_graph *g, const char *name, int32_t v, graft_op *control) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_INT32, NULL, 0, &v, sizeof v));
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Const", name));
  GT_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_INT32));
  if (control) GT_OK(graft_op_desc_add_control_input(d, control));
  graft_tensor_free(t);
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *unary(graft_graph *g, const char *type, const char *name, graft_output x) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, x));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *enter(graft_graph *g, const char *name, graft_output x, const char *frame, int constant) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Enter", name));
  GT_OK(graft_op_desc_add_input(d, x));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "frame_name", frame, strlen(frame)));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "is_constant", constant));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *merge2(graft_graph *g, const char *name, graft_output a, graft_output b) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Merge", name));
  graft_output ins[2] = {a, b};
  GT_OK(graft_op_desc_add_input_list(d, ins, 2));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *binary(graft_graph *g, const char *type, const char *name, graft_output a, graft_output b) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, type, name));
  GT_OK(graft_op_desc_add_input(d, a));
  GT_OK(graft_op_desc_add_input(d, b));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

#define OUT(op, i) ((graft_output){(op), (i)})

/*
 * while i <= n: s += i; i += 1   (i = 1, s = 0), as tf.while_loop builds it in TensorFlow 1.
 * Returns the Exit of s; *exit_i gets the Exit of i. `outer_n` is the bound in the enclosing
 * frame; frame names the loop.
 */
static graft_op *sum_loop(graft_graph *g, const char *prefix, graft_output outer_n, graft_output start_s,
                          const char *frame, graft_op **exit_i) {
  char name[64];
#define N(suffix) (snprintf(name, sizeof name, "%s/%s", prefix, suffix), name)
  graft_op *i0 = int_const(g, N("i0"), 1, outer_n.op);
  graft_op *ie = enter(g, N("i_enter"), OUT(i0, 0), frame, 0);
  graft_op *se = enter(g, N("s_enter"), start_s, frame, 0);
  graft_op *ne = enter(g, N("n_enter"), outer_n, frame, 1);
  graft_op *im = merge2(g, N("i_merge"), OUT(ie, 0), OUT(ie, 0));
  graft_op *sm = merge2(g, N("s_merge"), OUT(se, 0), OUT(se, 0));
  graft_op *cond = binary(g, "LessEqual", N("cond"), OUT(im, 0), OUT(ne, 0));
  graft_op *lc = unary(g, "LoopCond", N("loop_cond"), OUT(cond, 0));
  graft_op *isw = binary(g, "Switch", N("i_switch"), OUT(im, 0), OUT(lc, 0));
  graft_op *ssw = binary(g, "Switch", N("s_switch"), OUT(sm, 0), OUT(lc, 0));
  graft_op *ix = unary(g, "Exit", N("i_exit"), OUT(isw, 0));
  graft_op *sx = unary(g, "Exit", N("s_exit"), OUT(ssw, 0));
  graft_op *ib = unary(g, "Identity", N("i_body"), OUT(isw, 1));
  graft_op *sb = unary(g, "Identity", N("s_body"), OUT(ssw, 1));
  graft_op *one = int_const(g, N("one"), 1, ib); /* in the frame through its control input */
  graft_op *inew = binary(g, "AddV2", N("i_new"), OUT(ib, 0), OUT(one, 0));
  graft_op *snew = binary(g, "AddV2", N("s_new"), OUT(sb, 0), OUT(ib, 0));
  graft_op *inext = unary(g, "NextIteration", N("i_next"), OUT(inew, 0));
  graft_op *snext = unary(g, "NextIteration", N("s_next"), OUT(snew, 0));
  GT_OK(graft_graph_update_merge_input(g, im, 1, OUT(inext, 0)));
  GT_OK(graft_graph_update_merge_input(g, sm, 1, OUT(snext, 0)));
#undef N
  if (exit_i) *exit_i = ix;
  return sx;
}

static int32_t run_int(graft_session *s, graft_op *fetch, graft_op *feed, int32_t value) {
  graft_tensor *v = NULL, *out = NULL;
  GT_OK(graft_tensor_new(&v, GRAFT_INT32, NULL, 0, &value, sizeof value));
  graft_output f = {fetch, 0}, fd = {feed, 0};
  int rc = graft_session_run(&out, s, &fd, &v, feed ? 1 : 0, &f, 1, NULL, 0);
  if (rc != GRAFT_OK) print_error("run failed: %s\n", graft_error_last());
  assert_int_equal(rc, GRAFT_OK);
  int32_t r = *(const int32_t *)graft_tensor_data(out);
  graft_tensor_free(out);
  graft_tensor_free(v);
  return r;
}

static void test_loop_sums_1_to_n(void **state) {
  graft_graph *g = *state;
  graft_op *n = make_placeholder(g, "n", GRAFT_INT32, NULL, 0);
  graft_op *s0 = int_const(g, "s0", 0, NULL);
  graft_op *exit_i = NULL;
  graft_op *sum = sum_loop(g, "loop", OUT(n, 0), OUT(s0, 0), "loop", &exit_i);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  assert_int_equal(run_int(s, sum, n, 10), 55);
  assert_int_equal(run_int(s, sum, n, 100), 5050);
  assert_int_equal(run_int(s, sum, n, 0), 0);     /* no iteration at all */
  assert_int_equal(run_int(s, exit_i, n, 7), 8);  /* the counter leaves at n + 1 */
  /* The graph exports and imports again, loops included, and gives the same result. */
  void *bytes = NULL;
  size_t len = 0;
  GT_OK(graft_graph_export_graph_def(&bytes, &len, g, -1, 0));
  graft_graph *h = NULL;
  GT_OK(graft_graph_new(&h));
  graft_import_options *o = NULL;
  GT_OK(graft_import_options_new(&o));
  GT_OK(graft_import_options_set_prefix(o, ""));
  GT_OK(graft_graph_import_graph_def(NULL, h, bytes, len, o));
  graft_op *hn = NULL, *hsum = NULL;
  GT_OK(graft_graph_op_by_name(&hn, h, "n"));
  GT_OK(graft_graph_op_by_name(&hsum, h, "loop/s_exit"));
  graft_session *hs = NULL;
  GT_OK(graft_session_new(&hs, h, NULL));
  assert_int_equal(run_int(hs, hsum, hn, 10), 55);
  graft_session_free(hs);
  graft_graph_free(h);
  graft_import_options_free(o);
  graft_buffer_free(bytes);
  graft_session_free(s);
}

/* for j in 1..n: total += sum(1..j)  — a loop inside a loop. */
static void test_nested_loop(void **state) {
  graft_graph *g = *state;
  graft_op *n = make_placeholder(g, "n", GRAFT_INT32, NULL, 0);
  graft_op *t0 = int_const(g, "t0", 0, NULL);
  graft_op *j0 = int_const(g, "j0", 1, NULL);
  graft_op *je = enter(g, "outer/j_enter", OUT(j0, 0), "outer", 0);
  graft_op *te = enter(g, "outer/t_enter", OUT(t0, 0), "outer", 0);
  graft_op *ne = enter(g, "outer/n_enter", OUT(n, 0), "outer", 1);
  graft_op *jm = merge2(g, "outer/j_merge", OUT(je, 0), OUT(je, 0));
  graft_op *tm = merge2(g, "outer/t_merge", OUT(te, 0), OUT(te, 0));
  graft_op *cond = binary(g, "LessEqual", "outer/cond", OUT(jm, 0), OUT(ne, 0));
  graft_op *lc = unary(g, "LoopCond", "outer/loop_cond", OUT(cond, 0));
  graft_op *jsw = binary(g, "Switch", "outer/j_switch", OUT(jm, 0), OUT(lc, 0));
  graft_op *tsw = binary(g, "Switch", "outer/t_switch", OUT(tm, 0), OUT(lc, 0));
  graft_op *tx = unary(g, "Exit", "outer/t_exit", OUT(tsw, 0));
  graft_op *jb = unary(g, "Identity", "outer/j_body", OUT(jsw, 1));
  graft_op *tb = unary(g, "Identity", "outer/t_body", OUT(tsw, 1));
  graft_op *zero = int_const(g, "outer/zero", 0, jb);
  /* The inner loop sums 1..j, starting from 0, inside the outer frame. */
  graft_op *inner = sum_loop(g, "outer/inner", OUT(jb, 0), OUT(zero, 0), "inner", NULL);
  graft_op *one = int_const(g, "outer/one", 1, jb);
  graft_op *jnew = binary(g, "AddV2", "outer/j_new", OUT(jb, 0), OUT(one, 0));
  graft_op *tnew = binary(g, "AddV2", "outer/t_new", OUT(tb, 0), OUT(inner, 0));
  graft_op *jn = unary(g, "NextIteration", "outer/j_next", OUT(jnew, 0));
  graft_op *tn = unary(g, "NextIteration", "outer/t_next", OUT(tnew, 0));
  GT_OK(graft_graph_update_merge_input(g, jm, 1, OUT(jn, 0)));
  GT_OK(graft_graph_update_merge_input(g, tm, 1, OUT(tn, 0)));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  /* sum_{j=1..4} j(j+1)/2 = 1 + 3 + 6 + 10 = 20 */
  assert_int_equal(run_int(s, tx, n, 4), 20);
  assert_int_equal(run_int(s, tx, n, 10), 220);
  /* Many outer iterations, each with an inner frame that ends with it. */
  assert_int_equal(run_int(s, tx, n, 300), 300 * 301 * 302 / 6);
  graft_session_free(s);
}

/* A cond inside a loop body: t = sum over i in [0, n) of (i < 3 ? 1 : 10). From the second
 * iteration on the cond's Merge must still wait for its live branch (a dead branch arriving
 * first used to end the loop). */
static void test_cond_inside_a_loop(void **state) {
  graft_graph *g = *state;
  graft_op *n = make_placeholder(g, "n", GRAFT_INT32, NULL, 0);
  graft_op *i0 = int_const(g, "i0", 0, NULL);
  graft_op *t0 = int_const(g, "t0", 0, NULL);
  graft_op *ie = enter(g, "l/i_enter", OUT(i0, 0), "l", 0);
  graft_op *te = enter(g, "l/t_enter", OUT(t0, 0), "l", 0);
  graft_op *ne = enter(g, "l/n_enter", OUT(n, 0), "l", 1);
  graft_op *im = merge2(g, "l/i_merge", OUT(ie, 0), OUT(ie, 0));
  graft_op *tm = merge2(g, "l/t_merge", OUT(te, 0), OUT(te, 0));
  graft_op *cond = binary(g, "Less", "l/cond", OUT(im, 0), OUT(ne, 0));
  graft_op *lc = unary(g, "LoopCond", "l/loop_cond", OUT(cond, 0));
  graft_op *isw = binary(g, "Switch", "l/i_switch", OUT(im, 0), OUT(lc, 0));
  graft_op *tsw = binary(g, "Switch", "l/t_switch", OUT(tm, 0), OUT(lc, 0));
  graft_op *tx = unary(g, "Exit", "l/t_exit", OUT(tsw, 0));
  graft_op *ib = unary(g, "Identity", "l/i_body", OUT(isw, 1));
  graft_op *tb = unary(g, "Identity", "l/t_body", OUT(tsw, 1));
  graft_op *three = int_const(g, "l/three", 3, ib);
  graft_op *small = binary(g, "Less", "l/small", OUT(ib, 0), OUT(three, 0));
  graft_op *csw = binary(g, "Switch", "l/c_switch", OUT(tb, 0), OUT(small, 0));
  graft_op *one = int_const(g, "l/one", 1, ib);
  graft_op *ten = int_const(g, "l/ten", 10, ib);
  graft_op *yes = binary(g, "AddV2", "l/c_true", OUT(csw, 1), OUT(one, 0));
  graft_op *no = binary(g, "AddV2", "l/c_false", OUT(csw, 0), OUT(ten, 0));
  graft_op *cm = merge2(g, "l/c_merge", OUT(no, 0), OUT(yes, 0));
  graft_op *inew = binary(g, "AddV2", "l/i_new", OUT(ib, 0), OUT(one, 0));
  graft_op *in = unary(g, "NextIteration", "l/i_next", OUT(inew, 0));
  graft_op *tn = unary(g, "NextIteration", "l/t_next", OUT(cm, 0));
  GT_OK(graft_graph_update_merge_input(g, im, 1, OUT(in, 0)));
  GT_OK(graft_graph_update_merge_input(g, tm, 1, OUT(tn, 0)));
  for (int threads = 1; threads <= 4; threads *= 4) {
    graft_session_options o = GRAFT_SESSION_OPTIONS_INIT;
    o.num_threads = threads;
    graft_session *s = NULL;
    GT_OK(graft_session_new(&s, g, &o));
    assert_int_equal(run_int(s, tx, n, 0), 0);
    assert_int_equal(run_int(s, tx, n, 2), 2);
    assert_int_equal(run_int(s, tx, n, 5), 23);
    assert_int_equal(run_int(s, tx, n, 100), 3 + 97 * 10);
    graft_session_free(s);
  }
}

/*
 * for i in 1..n: x = x @ [[1, 1], [0, 1]]   (x = [[1, k]]): x ends as [[1, k + n]]. MatMul is
 * not a cheap kernel, so the frame engine shares this graph's work with the pool.
 */
static graft_op *matmul_loop(graft_graph *g, const char *prefix, graft_output outer_n, int k) {
  char name[64];
#define N(suffix) (snprintf(name, sizeof name, "%s/%s", prefix, suffix), name)
  const int64_t row[2] = {1, 2}, square[2] = {2, 2};
  graft_op *x0 = make_const_f32(g, N("x0"), row, 2, (const float[]){1, (float)k});
  graft_op *a = make_const_f32(g, N("a"), square, 2, (const float[]){1, 1, 0, 1});
  graft_op *i0 = int_const(g, N("i0"), 1, NULL);
  graft_op *ie = enter(g, N("i_enter"), OUT(i0, 0), prefix, 0);
  graft_op *xe = enter(g, N("x_enter"), OUT(x0, 0), prefix, 0);
  graft_op *ne = enter(g, N("n_enter"), outer_n, prefix, 1);
  graft_op *ae = enter(g, N("a_enter"), OUT(a, 0), prefix, 1);
  graft_op *im = merge2(g, N("i_merge"), OUT(ie, 0), OUT(ie, 0));
  graft_op *xm = merge2(g, N("x_merge"), OUT(xe, 0), OUT(xe, 0));
  graft_op *cond = binary(g, "LessEqual", N("cond"), OUT(im, 0), OUT(ne, 0));
  graft_op *lc = unary(g, "LoopCond", N("loop_cond"), OUT(cond, 0));
  graft_op *isw = binary(g, "Switch", N("i_switch"), OUT(im, 0), OUT(lc, 0));
  graft_op *xsw = binary(g, "Switch", N("x_switch"), OUT(xm, 0), OUT(lc, 0));
  graft_op *xx = unary(g, "Exit", N("x_exit"), OUT(xsw, 0));
  graft_op *ib = unary(g, "Identity", N("i_body"), OUT(isw, 1));
  graft_op *one = int_const(g, N("one"), 1, ib);
  graft_op *inew = binary(g, "AddV2", N("i_new"), OUT(ib, 0), OUT(one, 0));
  graft_op *xnew = binary(g, "MatMul", N("x_new"), OUT(xsw, 1), OUT(ae, 0));
  graft_op *inext = unary(g, "NextIteration", N("i_next"), OUT(inew, 0));
  graft_op *xnext = unary(g, "NextIteration", N("x_next"), OUT(xnew, 0));
  GT_OK(graft_graph_update_merge_input(g, im, 1, OUT(inext, 0)));
  GT_OK(graft_graph_update_merge_input(g, xm, 1, OUT(xnext, 0)));
#undef N
  return xx;
}

/* Eight independent loops (frames loop0..loop7): scalar sums, which run on the calling thread,
 * and MatMul loops, whose work the pool shares; on 1, 2 and 4 threads, and the 4-thread session
 * from 4 callers at once, with the same results. */
struct parallel_loops {
  graft_session *s;
  graft_op *total, *n;
  graft_op *mat[8];
};

static void check_loops(const struct parallel_loops *pl, int32_t n) {
  assert_int_equal(run_int(pl->s, pl->total, pl->n, n), 8 * (n * (n + 1) / 2) + 28);
  graft_tensor *v = NULL;
  GT_OK(graft_tensor_new(&v, GRAFT_INT32, NULL, 0, &n, sizeof n));
  graft_output fetch[8], feed = {pl->n, 0};
  for (int k = 0; k < 8; ++k) fetch[k] = (graft_output){pl->mat[k], 0};
  graft_tensor *out[8];
  GT_OK(graft_session_run(out, pl->s, &feed, &v, 1, fetch, 8, NULL, 0));
  for (int k = 0; k < 8; ++k) {
    const float *x = graft_tensor_data(out[k]);
    assert_true(x[0] == 1.0f && x[1] == (float)(k + n));
    graft_tensor_free(out[k]);
  }
  graft_tensor_free(v);
}

static void *run_loops(void *p) {
  for (int i = 0; i < 8; ++i) check_loops(p, 30 + i);
  return NULL;
}

static void test_loops_on_many_threads(void **state) {
  graft_graph *g = *state;
  graft_op *n = make_placeholder(g, "n", GRAFT_INT32, NULL, 0);
  struct parallel_loops pl = {NULL, NULL, n, {NULL}};
  graft_output sums[8];
  for (int k = 0; k < 8; ++k) {
    char prefix[16], start[16];
    snprintf(prefix, sizeof prefix, "loop%d", k);
    snprintf(start, sizeof start, "start%d", k);
    graft_op *s0 = int_const(g, start, k, NULL);
    sums[k] = OUT(sum_loop(g, prefix, OUT(n, 0), OUT(s0, 0), prefix, NULL), 0);
    snprintf(prefix, sizeof prefix, "mat%d", k);
    pl.mat[k] = matmul_loop(g, prefix, OUT(n, 0), k);
  }
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "AddN", "total"));
  GT_OK(graft_op_desc_add_input_list(d, sums, 8));
  GT_OK(graft_op_desc_finish(&pl.total, d));
  for (int threads = 1; threads <= 4; threads *= 2) {
    graft_session_options o = GRAFT_SESSION_OPTIONS_INIT;
    o.num_threads = threads;
    GT_OK(graft_session_new(&pl.s, g, &o));
    check_loops(&pl, 50);
    check_loops(&pl, 0); /* no iteration: the starting values */
    if (threads == 4) {
      pthread_t th[4];
      for (int i = 0; i < 4; ++i) assert_int_equal(pthread_create(&th[i], NULL, run_loops, &pl), 0);
      for (int i = 0; i < 4; ++i) pthread_join(th[i], NULL);
    }
    graft_session_free(pl.s);
  }
}

/* cond(x > 0, x * 2, -x) with Switch and Merge: only the taken branch runs. */
static void test_cond(void **state) {
  graft_graph *g = *state;
  graft_op *x = make_placeholder(g, "x", GRAFT_INT32, NULL, 0);
  graft_op *zero = int_const(g, "zero", 0, NULL);
  graft_op *pred = binary(g, "Greater", "pred", OUT(x, 0), OUT(zero, 0));
  graft_op *sw = binary(g, "Switch", "switch", OUT(x, 0), OUT(pred, 0));
  graft_op *two = int_const(g, "two", 2, NULL);
  graft_op *then_v = binary(g, "Mul", "then", OUT(sw, 1), OUT(two, 0));
  graft_op *else_v = unary(g, "Neg", "else", OUT(sw, 0));
  graft_op *m = merge2(g, "merge", OUT(else_v, 0), OUT(then_v, 0));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  assert_int_equal(run_int(s, m, x, 5), 10);
  assert_int_equal(run_int(s, m, x, -3), 3);
  /* value_index says which branch was taken. */
  int32_t v = 5;
  graft_tensor *in = NULL, *outs[2] = {NULL, NULL};
  GT_OK(graft_tensor_new(&in, GRAFT_INT32, NULL, 0, &v, sizeof v));
  graft_output fetches[2] = {{m, 0}, {m, 1}}, feed = {x, 0};
  GT_OK(graft_session_run(outs, s, &feed, &in, 1, fetches, 2, NULL, 0));
  assert_int_equal(*(const int32_t *)graft_tensor_data(outs[1]), 1);
  graft_tensor_free(outs[0]);
  graft_tensor_free(outs[1]);
  /* Fetching the untaken branch is an error naming it. */
  graft_output dead = {then_v, 0};
  v = -1;
  graft_tensor_free(in);
  GT_OK(graft_tensor_new(&in, GRAFT_INT32, NULL, 0, &v, sizeof v));
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &feed, &in, 1, &dead, 1, NULL, 0), "Mul op 'then'", "untaken branch");
  graft_tensor_free(in);
  graft_session_free(s);
}

/* A Switch whose data is fed waits for its pred, computed from the same feed (the feed's
 * arrival once counted as the pred's, and the Switch ran without a pred). */
static void test_switch_of_a_fed_value(void **state) {
  graft_graph *g = *state;
  graft_op *x = make_placeholder(g, "x", GRAFT_INT32, NULL, 0);
  graft_op *xi = unary(g, "Identity", "xi", OUT(x, 0));
  graft_op *eq = binary(g, "Equal", "eq", OUT(xi, 0), OUT(x, 0));
  graft_op *pred = unary(g, "Identity", "pred", OUT(eq, 0));
  graft_op *sw = binary(g, "Switch", "switch", OUT(x, 0), OUT(pred, 0));
  graft_op *taken = unary(g, "Identity", "taken", OUT(sw, 1));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  assert_int_equal(run_int(s, taken, x, 7), 7);
  graft_session_free(s);
}

static void test_update_merge_input_errors(void **state) {
  graft_graph *g = *state;
  graft_op *a = int_const(g, "a", 1, NULL);
  graft_op *m = merge2(g, "m", OUT(a, 0), OUT(a, 0));
  graft_op *id = unary(g, "Identity", "id", OUT(a, 0));
  GT_ERR(GRAFT_EINVAL, graft_graph_update_merge_input(g, id, 0, OUT(a, 0)), "'id' is a Identity");
  GT_ERR(GRAFT_EINVAL, graft_graph_update_merge_input(g, m, 1, OUT(id, 0)), "must come from a NextIteration");
  graft_op *f = make_const(g, "f", 1.0f);
  graft_op *nf = unary(g, "NextIteration", "nf", OUT(f, 0));
  GT_ERR(GRAFT_EDTYPE, graft_graph_update_merge_input(g, m, 1, OUT(nf, 0)), "float32");
  graft_op *ni = unary(g, "NextIteration", "ni", OUT(a, 0));
  GT_ERR(GRAFT_ERANGE, graft_graph_update_merge_input(g, m, 2, OUT(ni, 0)), "no input 2");
  GT_OK(graft_graph_update_merge_input(g, m, 1, OUT(ni, 0)));
  assert_ptr_equal(graft_op_input(m, 1).op, ni);
  assert_int_equal(graft_output_num_consumers(OUT(ni, 0)), 1);
}

/* Runs s for one fetch and one target (either may be NULL); the status code. */
static int run_one(graft_session *s, graft_op *fetch, graft_op *target) {
  graft_tensor *out = NULL;
  graft_output f = {fetch, 0};
  int rc = graft_session_run(&out, s, NULL, NULL, 0, &f, fetch ? 1 : 0, &target, target ? 1 : 0);
  if (rc == GRAFT_OK && out) graft_tensor_free(out);
  return rc;
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
 * Const -> NextIteration -> Identity: a NextIteration outside any loop. Running it used to
 * start iteration after iteration without end; it is an error when the run is prepared, and
 * the session stays usable.
 */
static void test_next_iteration_outside_a_loop(void **state) {
  graft_graph *g = *state;
  graft_op *c = int_const(g, "c", 1, NULL);
  graft_op *ni = unary(g, "NextIteration", "ni", OUT(c, 0));
  graft_op *id = unary(g, "Identity", "id", OUT(ni, 0));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  double t0 = seconds_now();
  GT_ERR(GRAFT_EINVAL, run_one(s, id, NULL), "NextIteration op 'ni'", "not inside a loop");
  assert_true(seconds_now() - t0 < 1.0);
  GT_ERR(GRAFT_EINVAL, run_one(s, NULL, id), "NextIteration op 'ni'"); /* as a target too */
  assert_int_equal(run_int(s, c, NULL, 0), 1);                          /* still usable */
  /* The same inside a loop frame, but feeding an Identity instead of a Merge. */
  graft_op *e = enter(g, "e", OUT(c, 0), "f", 0);
  graft_op *ni2 = unary(g, "NextIteration", "ni2", OUT(e, 0));
  graft_op *id2 = unary(g, "Identity", "id2", OUT(ni2, 0));
  GT_ERR(GRAFT_EINVAL, run_one(s, NULL, id2), "NextIteration op 'ni2' feeds Identity op 'id2'", "Merge");
  /* A Merge whose every input is a NextIteration: nothing can ever enter it. */
  graft_op *m = merge2(g, "m", OUT(e, 0), OUT(e, 0));
  graft_op *body = unary(g, "Identity", "body", OUT(m, 0));
  graft_op *ni3 = unary(g, "NextIteration", "ni3", OUT(body, 0));
  GT_OK(graft_graph_update_merge_input(g, m, 0, OUT(ni3, 0)));
  GT_OK(graft_graph_update_merge_input(g, m, 1, OUT(ni3, 0)));
  GT_ERR(GRAFT_EINVAL, run_one(s, NULL, body), "Merge op 'm' has only NextIteration inputs");
  assert_int_equal(run_int(s, c, NULL, 0), 1);
  graft_session_free(s);
}

/* Frames that do not nest: each is an error naming the ops and frames, and a valid loop in
 * the same graph still runs. */
static void test_malformed_frames(void **state) {
  graft_graph *g = *state;
  graft_op *n = make_placeholder(g, "n", GRAFT_INT32, NULL, 0);
  graft_op *s0 = int_const(g, "s0", 0, NULL);
  graft_op *exit_i = NULL;
  graft_op *sum = sum_loop(g, "loop", OUT(n, 0), OUT(s0, 0), "loop", &exit_i);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  /* An Exit with no Enter before it. */
  graft_op *a = int_const(g, "a", 1, NULL);
  graft_op *x = unary(g, "Exit", "x", OUT(a, 0));
  GT_ERR(GRAFT_EINVAL, run_one(s, x, NULL), "Exit op 'x'", "not inside a loop");
  /* One input inside frame "f", the other in the root frame. */
  graft_op *e = enter(g, "e", OUT(a, 0), "f", 0);
  graft_op *mix = binary(g, "AddV2", "mix", OUT(e, 0), OUT(a, 0));
  GT_ERR(GRAFT_EINVAL, run_one(s, NULL, mix), "AddV2 op 'mix' has inputs from different frames", "Const op 'a'",
         "the root frame", "Enter op 'e'", "frame 'f'");
  /* The same through a control input. */
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Identity", "ctl"));
  GT_OK(graft_op_desc_add_input(d, OUT(a, 0)));
  GT_OK(graft_op_desc_add_control_input(d, e));
  graft_op *ctl = NULL;
  GT_OK(graft_op_desc_finish(&ctl, d));
  GT_ERR(GRAFT_EINVAL, run_one(s, NULL, ctl), "Identity op 'ctl' has inputs from different frames",
         "the control input Enter op 'e'");
  /* Two Enters of frame "inner", from different parent frames. */
  graft_op *outer = enter(g, "outer_e", OUT(a, 0), "outer", 0);
  graft_op *inner1 = enter(g, "inner_e1", OUT(outer, 0), "inner", 0);
  graft_op *inner2 = enter(g, "inner_e2", OUT(a, 0), "inner", 0);
  graft_op *both = binary(g, "AddV2", "both", OUT(inner1, 0), OUT(inner2, 0));
  GT_ERR(GRAFT_EINVAL, run_one(s, NULL, both), "Enter op 'inner_e2' enters frame 'inner' from the root frame",
         "Enter op 'inner_e1' enters it from frame 'outer'");
  /* A value inside a loop cannot be fetched, nor a loop's value fed from outside it. */
  graft_op *body = NULL;
  GT_OK(graft_graph_op_by_name(&body, g, "loop/i_body"));
  GT_ERR(GRAFT_EINVAL, run_one(s, body, NULL), "'loop/i_body:0' is in frame 'loop'", "can be fetched");
  int32_t v = 3;
  graft_tensor *tv = NULL, *out = NULL;
  GT_OK(graft_tensor_new(&tv, GRAFT_INT32, NULL, 0, &v, sizeof v));
  graft_output feed = {body, 0}, fetch = {sum, 0};
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, &feed, &tv, 1, &fetch, 1, NULL, 0),
         "the fed tensor 'loop/i_body:0' is in frame 'loop'");
  graft_tensor_free(tv);
  /* The valid loop beside them runs. */
  assert_int_equal(run_int(s, sum, n, 10), 55);
  assert_int_equal(run_int(s, exit_i, n, 20000), 20001);
  graft_session_free(s);
}

/* An Exit fed straight from the loop's Merge would leave the loop in every iteration: an error
 * instead of several values racing into one. */
static void test_exit_with_a_value_in_every_iteration(void **state) {
  graft_graph *g = *state;
  graft_op *n = int_const(g, "n", 5, NULL);
  graft_op *i0 = int_const(g, "i0", 0, NULL);
  graft_op *ie = enter(g, "l/i_enter", OUT(i0, 0), "l", 0);
  graft_op *ne = enter(g, "l/n_enter", OUT(n, 0), "l", 1);
  graft_op *im = merge2(g, "l/i_merge", OUT(ie, 0), OUT(ie, 0));
  graft_op *cond = binary(g, "Less", "l/cond", OUT(im, 0), OUT(ne, 0));
  graft_op *lc = unary(g, "LoopCond", "l/loop_cond", OUT(cond, 0));
  graft_op *isw = binary(g, "Switch", "l/i_switch", OUT(im, 0), OUT(lc, 0));
  graft_op *ix = unary(g, "Exit", "l/i_exit", OUT(im, 0)); /* not the Switch's false side */
  graft_op *ib = unary(g, "Identity", "l/i_body", OUT(isw, 1));
  graft_op *one = int_const(g, "l/one", 1, ib);
  graft_op *inew = binary(g, "AddV2", "l/i_new", OUT(ib, 0), OUT(one, 0));
  graft_op *inext = unary(g, "NextIteration", "l/i_next", OUT(inew, 0));
  GT_OK(graft_graph_update_merge_input(g, im, 1, OUT(inext, 0)));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  GT_ERR(GRAFT_EINVAL, run_one(s, ix, NULL), "Exit op 'l/i_exit' left frame 'l' with a second value");
  graft_session_free(s);
}

static graft_op *enter_parallel(graft_graph *g, const char *name, graft_output x, const char *frame, int constant,
                                int64_t parallel_iterations) {
  graft_op_desc *d = NULL;
  GT_OK(graft_op_desc_new(&d, g, "Enter", name));
  GT_OK(graft_op_desc_add_input(d, x));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "frame_name", frame, strlen(frame)));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "is_constant", constant));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "parallel_iterations", parallel_iterations));
  graft_op *op = NULL;
  GT_OK(graft_op_desc_finish(&op, d));
  return op;
}

/*
 * while i < n: x = x + 1; i += 1   with x a float vector of `elems` (zeros at first), in frame
 * `prefix` with the given parallel_iterations. Returns the Exit of x.
 */
static graft_op *vector_loop(graft_graph *g, const char *prefix, graft_op *n, int64_t elems, int64_t parallel) {
  char name[64];
#define N(suffix) (snprintf(name, sizeof name, "%s/%s", prefix, suffix), name)
  float *zeros = calloc((size_t)elems, sizeof(float));
  graft_op *x0 = make_const_f32(g, N("x0"), &elems, 1, zeros);
  free(zeros);
  graft_op *c = make_const(g, N("c"), 1.0f);
  graft_op *i0 = int_const(g, N("i0"), 0, NULL);
  graft_op *ie = enter_parallel(g, N("i_enter"), OUT(i0, 0), prefix, 0, parallel);
  graft_op *xe = enter_parallel(g, N("x_enter"), OUT(x0, 0), prefix, 0, parallel);
  graft_op *ne = enter_parallel(g, N("n_enter"), OUT(n, 0), prefix, 1, parallel);
  graft_op *ce = enter_parallel(g, N("c_enter"), OUT(c, 0), prefix, 1, parallel);
  graft_op *im = merge2(g, N("i_merge"), OUT(ie, 0), OUT(ie, 0));
  graft_op *xm = merge2(g, N("x_merge"), OUT(xe, 0), OUT(xe, 0));
  graft_op *cond = binary(g, "Less", N("cond"), OUT(im, 0), OUT(ne, 0));
  graft_op *lc = unary(g, "LoopCond", N("loop_cond"), OUT(cond, 0));
  graft_op *isw = binary(g, "Switch", N("i_switch"), OUT(im, 0), OUT(lc, 0));
  graft_op *xsw = binary(g, "Switch", N("x_switch"), OUT(xm, 0), OUT(lc, 0));
  graft_op *xx = unary(g, "Exit", N("x_exit"), OUT(xsw, 0));
  graft_op *ib = unary(g, "Identity", N("i_body"), OUT(isw, 1));
  graft_op *xb = unary(g, "Identity", N("x_body"), OUT(xsw, 1));
  graft_op *one = int_const(g, N("one"), 1, ib);
  graft_op *inew = binary(g, "AddV2", N("i_new"), OUT(ib, 0), OUT(one, 0));
  graft_op *xnew = binary(g, "AddV2", N("x_new"), OUT(xb, 0), OUT(ce, 0));
  graft_op *inext = unary(g, "NextIteration", N("i_next"), OUT(inew, 0));
  graft_op *xnext = unary(g, "NextIteration", N("x_next"), OUT(xnew, 0));
  GT_OK(graft_graph_update_merge_input(g, im, 1, OUT(inext, 0)));
  GT_OK(graft_graph_update_merge_input(g, xm, 1, OUT(xnext, 0)));
#undef N
  return xx;
}

/* Runs the vector loop for n iterations, checks x == n everywhere; the run's peak bytes. */
static int64_t run_vector_loop(graft_session *s, graft_op *xx, graft_op *n, int32_t iterations, int64_t elems) {
  graft_tensor *v = NULL, *out = NULL;
  GT_OK(graft_tensor_new(&v, GRAFT_INT32, NULL, 0, &iterations, sizeof iterations));
  graft_output f = {xx, 0}, fd = {n, 0};
  GT_OK(graft_session_run(&out, s, &fd, &v, 1, &f, 1, NULL, 0));
  const float *x = graft_tensor_data(out);
  assert_true(x[0] == (float)iterations && x[elems - 1] == (float)iterations);
  graft_tensor_free(out);
  graft_tensor_free(v);
  return graft_session_last_peak_bytes(s);
}

/*
 * A loop carrying a 256 KB tensor: each iteration's values go once read, and finished
 * iterations with them, so 10000 iterations peak no higher than 10 (the loop used to keep every
 * iteration's values to the end of the run). On one thread and on four.
 */
static void test_loop_memory_is_bounded(void **state) {
  graft_graph *g = *state;
  const int64_t elems = 65536, bytes = elems * 4;
  graft_op *n = make_placeholder(g, "n", GRAFT_INT32, NULL, 0);
  graft_op *xx = vector_loop(g, "v", n, elems, 10);
  for (int threads = 1; threads <= 4; threads *= 4) {
    graft_session_options o = GRAFT_SESSION_OPTIONS_INIT;
    o.num_threads = threads;
    o.track_memory = 1;
    graft_session *s = NULL;
    GT_OK(graft_session_new(&s, g, &o));
    int64_t few = run_vector_loop(s, xx, n, 10, elems);
    int64_t many = run_vector_loop(s, xx, n, 10000, elems);
    int64_t none = run_vector_loop(s, xx, n, 0, elems);
    /* The constant x0 plus a value or two in flight. */
    assert_true(few > 0 && few <= 4 * bytes);
    assert_true(many <= few + bytes);
    assert_true(none <= few);
    graft_session_free(s);
  }
}

/* parallel_iterations bounds how many iterations of a loop are alive at once (a NextIteration
 * waits for the oldest to finish): the results are the same with 1, 2 or 10, on 1 or 4 threads,
 * and from 4 callers at once. */
struct bounded_loops {
  graft_session *s;
  graft_op *n, *x[3];
};

static void check_bounded_loops(const struct bounded_loops *b, int32_t iterations) {
  graft_tensor *v = NULL, *out[3];
  GT_OK(graft_tensor_new(&v, GRAFT_INT32, NULL, 0, &iterations, sizeof iterations));
  graft_output f[3] = {{b->x[0], 0}, {b->x[1], 0}, {b->x[2], 0}}, fd = {b->n, 0};
  GT_OK(graft_session_run(out, b->s, &fd, &v, 1, f, 3, NULL, 0));
  for (int k = 0; k < 3; ++k) {
    const float *x = graft_tensor_data(out[k]);
    for (int i = 0; i < 64; ++i) assert_true(x[i] == (float)iterations);
    graft_tensor_free(out[k]);
  }
  graft_tensor_free(v);
}

static void *run_bounded_loops(void *p) {
  for (int i = 0; i < 5; ++i) check_bounded_loops(p, 200 + i);
  return NULL;
}

static void test_parallel_iterations(void **state) {
  graft_graph *g = *state;
  struct bounded_loops b = {NULL, make_placeholder(g, "n", GRAFT_INT32, NULL, 0), {NULL, NULL, NULL}};
  b.x[0] = vector_loop(g, "p1", b.n, 64, 1);
  b.x[1] = vector_loop(g, "p2", b.n, 64, 2);
  b.x[2] = vector_loop(g, "p10", b.n, 64, 10);
  for (int threads = 1; threads <= 4; threads *= 4) {
    graft_session_options o = GRAFT_SESSION_OPTIONS_INIT;
    o.num_threads = threads;
    GT_OK(graft_session_new(&b.s, g, &o));
    check_bounded_loops(&b, 0);
    check_bounded_loops(&b, 1);
    check_bounded_loops(&b, 1000);
    if (threads == 4) {
      pthread_t th[4];
      for (int i = 0; i < 4; ++i) assert_int_equal(pthread_create(&th[i], NULL, run_bounded_loops, &b), 0);
      for (int i = 0; i < 4; ++i) pthread_join(th[i], NULL);
    }
    graft_session_free(b.s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_loop_sums_1_to_n, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nested_loop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_switch_of_a_fed_value, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cond_inside_a_loop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_loops_on_many_threads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cond, setup, teardown),
      cmocka_unit_test_setup_teardown(test_update_merge_input_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_next_iteration_outside_a_loop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_malformed_frames, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit_with_a_value_in_every_iteration, setup, teardown),
      cmocka_unit_test_setup_teardown(test_loop_memory_is_bounded, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parallel_iterations, setup, teardown),
  };
  return cmocka_run_group_tests_name("control_flow", tests, NULL, NULL);
}
