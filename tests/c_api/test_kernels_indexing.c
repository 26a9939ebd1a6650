/* CPU kernels for indexing (kernels/cpu/indexing_kernels.cc): StridedSlice, GatherV2,
 * GatherNd, Pad and PadV2.
 * Expected values are literal tables worked out by hand from Python slicing semantics;
 * run-time errors are provoked through placeholders so that graph construction cannot
 * catch them first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph_test_util.h"

/* ---- Helpers ------------------------------------------------------------------------------ */

#include "kernel_test_util.h"

/* StridedSlice of x with begin, end, strides given as int32 vectors of n and the five masks
 * (begin, end, ellipsis, new_axis, shrink_axis). */
static graft_op *sslice(graft_graph *g, const char *name, graft_op *x, graft_op *b, graft_op *e, graft_op *s,
                        const int masks[5]) {
  graft_op_desc *d = desc(g, "StridedSlice", name);
  in(d, x);
  in(d, b);
  in(d, e);
  in(d, s);
  static const char *const names[5] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"};
  for (int i = 0; i < 5; ++i) GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), names[i], masks[i]));
  return fin(d);
}

static int uniq;

static graft_op *ss(graft_graph *g, graft_op *x, int n, const int32_t *b, const int32_t *e, const int32_t *s,
                    int bm, int em, int elm, int nam, int sam) {
  char nb[32], ne[32], ns[32], name[32];
  ++uniq;
  snprintf(nb, sizeof nb, "b%d", uniq);
  snprintf(ne, sizeof ne, "e%d", uniq);
  snprintf(ns, sizeof ns, "s%d", uniq);
  snprintf(name, sizeof name, "ss%d", uniq);
  const int64_t dn[1] = {n};
  const int masks[5] = {bm, em, elm, nam, sam};
  return sslice(g, name, x, konst(g, nb, GRAFT_INT32, dn, 1, b), konst(g, ne, GRAFT_INT32, dn, 1, e),
                konst(g, ns, GRAFT_INT32, dn, 1, s), masks);
}

#define V(...) ((const int32_t[]){__VA_ARGS__})

/* ---- StridedSlice ------------------------------------------------------------------------ */

static void test_strided_slice(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(3, 4), V(0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23));
  graft_op *v = konst(g, "v", GRAFT_INT32, D(6), V(0, 1, 2, 3, 4, 5));
  /* x[0:3:2, 1:4:2] */
  expect(run(g, ss(g, x, 2, V(0, 1), V(3, 4), V(2, 2), 0, 0, 0, 0, 0)), GRAFT_INT32, D(2, 2), V(1, 3, 21, 23));
  /* v[::-1], v[4:1:-2], v[-2:-5:-1] */
  expect(run(g, ss(g, v, 1, V(0), V(0), V(-1), 1, 1, 0, 0, 0)), GRAFT_INT32, D(6), V(5, 4, 3, 2, 1, 0));
  expect(run(g, ss(g, v, 1, V(4), V(1), V(-2), 0, 0, 0, 0, 0)), GRAFT_INT32, D(2), V(4, 2));
  expect(run(g, ss(g, v, 1, V(-2), V(-5), V(-1), 0, 0, 0, 0, 0)), GRAFT_INT32, D(3), V(4, 3, 2));
  /* v[-1:-7:-1] stops before -7 clamps to -1 (before the start): all six reversed. */
  expect(run(g, ss(g, v, 1, V(-1), V(-100), V(-1), 0, 0, 0, 0, 0)), GRAFT_INT32, D(6), V(5, 4, 3, 2, 1, 0));
  /* x[::-1, 3:0:-2] */
  expect(run(g, ss(g, x, 2, V(0, 3), V(0, 0), V(-1, -2), 1, 1, 0, 0, 0)), GRAFT_INT32, D(3, 2),
         V(23, 21, 13, 11, 3, 1));
  /* Shrink: x[1] (implicit ellipsis after it), x[-1, 2] (a scalar). */
  expect(run(g, ss(g, x, 1, V(1), V(2), V(1), 0, 0, 0, 0, 1)), GRAFT_INT32, D(4), V(10, 11, 12, 13));
  expect(run(g, ss(g, x, 2, V(-1, 2), V(0, 3), V(1, 1), 0, 0, 0, 0, 3)), GRAFT_INT32, SCALAR, V(22));
  /* x[..., newaxis] and x[newaxis, ..., 1] */
  expect(run(g, ss(g, x, 2, V(0, 0), V(0, 0), V(1, 1), 0, 0, 1, 2, 0)), GRAFT_INT32, D(3, 4, 1),
         V(0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23));
  expect(run(g, ss(g, x, 3, V(0, 0, 1), V(0, 0, 2), V(1, 1, 1), 0, 0, 2, 1, 4)), GRAFT_INT32, D(1, 3), V(1, 11, 21));
  /* x[:2, 2:] with masks; a masked begin ignores its value. */
  expect(run(g, ss(g, x, 2, V(0, 2), V(2, 0), V(1, 1), 0, 2, 0, 0, 0)), GRAFT_INT32, D(2, 2), V(2, 3, 12, 13));
  expect(run(g, ss(g, x, 2, V(99, 2), V(2, 0), V(1, 1), 1, 2, 0, 0, 0)), GRAFT_INT32, D(2, 2), V(2, 3, 12, 13));
  /* Out-of-range bounds clamp: x[1:100, -100:2]; empty: x[2:1]; v[1:4:-1]. */
  expect(run(g, ss(g, x, 2, V(1, -100), V(100, 2), V(1, 1), 0, 0, 0, 0, 0)), GRAFT_INT32, D(2, 2),
         V(10, 11, 20, 21));
  expect(run(g, ss(g, x, 1, V(2), V(1), V(1), 0, 0, 0, 0, 0)), GRAFT_INT32, D(0, 4), NULL);
  expect(run(g, ss(g, v, 1, V(1), V(4), V(-1), 0, 0, 0, 0, 0)), GRAFT_INT32, D(0), NULL);
  /* Ellipsis in the middle of a rank-3 input: y[1, ..., 0] of y = arange(12).reshape(2, 3, 2). */
  graft_op *y = konst(g, "y", GRAFT_INT32, D(2, 3, 2), V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  expect(run(g, ss(g, y, 3, V(1, 0, 0), V(2, 0, 1), V(1, 1, 1), 0, 0, 2, 0, 5)), GRAFT_INT32, D(3), V(6, 8, 10));
  /* y[:, ::-2, 1] */
  expect(run(g, ss(g, y, 3, V(0, 0, 1), V(0, 0, 2), V(1, -2, 1), 3, 3, 0, 0, 4)), GRAFT_INT32, D(2, 2),
         V(5, 1, 11, 7));
  /* A scalar input with an empty spec is itself; strings move too. */
  graft_op *sc = konst(g, "sc", GRAFT_FLOAT32, SCALAR, (const float[]){2.5f});
  graft_op *eb = konst(g, "eb", GRAFT_INT32, D(0), NULL);
  graft_op *ee = konst(g, "ee", GRAFT_INT32, D(0), NULL);
  graft_op *es = konst(g, "es", GRAFT_INT32, D(0), NULL);
  const int none[5] = {0, 0, 0, 0, 0};
  expect(run(g, sslice(g, "ssc", sc, eb, ee, es, none)), GRAFT_FLOAT32, SCALAR, (const float[]){2.5f});
  graft_op *st = strings(g, "st", D(4), (const char *const[]){"a", "b", "c", "d"});
  expect_strings(run(g, ss(g, st, 1, V(3), V(0), V(-2), 0, 1, 0, 0, 0)), D(2), (const char *const[]){"d", "b"});
  /* Run-time errors, with a bound fed. */
  graft_op *pb = ph(g, "pb", GRAFT_INT32);
  graft_op *ps = ph(g, "ps", GRAFT_INT32);
  const int shrink[5] = {0, 0, 0, 0, 1};
  graft_op *bad = sslice(g, "bad", x, pb, konst(g, "be", GRAFT_INT32, D(1), V(6)), konst(g, "bs", GRAFT_INT32, D(1), V(1)),
                         shrink);
  expect_error(g, bad, pb, i32v(D(1), V(5)), GRAFT_EINVAL, "StridedSlice op 'bad'",
               "slice index 5 of dimension 0 out of bounds.");
  expect_error(g, bad, pb, i32v(D(1), V(-4)), GRAFT_EINVAL, "StridedSlice op 'bad'",
               "slice index -4 of dimension 0 out of bounds.");
  graft_op *bad2 = sslice(g, "bad2", v, konst(g, "b2b", GRAFT_INT32, D(1), V(0)), konst(g, "b2e", GRAFT_INT32, D(1), V(6)),
                          ps, none);
  expect_error(g, bad2, ps, i32v(D(1), V(0)), GRAFT_EINVAL, "StridedSlice op 'bad2'", "strides[0] must be non-zero");
}

/* ---- GatherV2 ---------------------------------------------------------------------------- */

static graft_op *gather(graft_graph *g, const char *name, graft_op *p, graft_op *i, graft_op *a, int batch_dims) {
  graft_op_desc *d = desc(g, "GatherV2", name);
  in(d, p);
  in(d, i);
  in(d, a);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "batch_dims", batch_dims));
  return fin(d);
}

static void test_gather(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(3, 4), V(0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23));
  graft_op *a0 = konst(g, "a0", GRAFT_INT32, SCALAR, V(0));
  graft_op *a1 = konst(g, "a1", GRAFT_INT64, SCALAR, (const int64_t[]){1});
  graft_op *am1 = konst(g, "am1", GRAFT_INT32, SCALAR, V(-1));
  expect(run(g, gather(g, "g1", x, konst(g, "i1", GRAFT_INT32, D(2), V(2, 0)), a0, 0)), GRAFT_INT32, D(2, 4),
         V(20, 21, 22, 23, 0, 1, 2, 3));
  expect(run(g, gather(g, "g2", x, konst(g, "i2", GRAFT_INT64, D(2, 1), (const int64_t[]){3, 0}), a1, 0)), GRAFT_INT32,
         D(3, 2, 1), V(3, 0, 13, 10, 23, 20));
  expect(run(g, gather(g, "g3", x, konst(g, "i3", GRAFT_INT32, SCALAR, V(1)), am1, 0)), GRAFT_INT32, D(3),
         V(1, 11, 21));
  /* batch_dims = 1: out[b, k] = x[b, idx[b, k]]. */
  expect(run(g, gather(g, "g4", x, konst(g, "i4", GRAFT_INT32, D(3, 2), V(0, 3, 1, 1, 2, 0)), a1, 1)), GRAFT_INT32,
         D(3, 2), V(0, 3, 11, 11, 22, 20));
  /* Empty indices, strings. */
  expect(run(g, gather(g, "g5", x, konst(g, "i5", GRAFT_INT32, D(0), NULL), a0, 0)), GRAFT_INT32, D(0, 4), NULL);
  graft_op *st = strings(g, "st", D(3), (const char *const[]){"p", "q", "r"});
  expect_strings(run(g, gather(g, "g6", st, konst(g, "i6", GRAFT_INT32, D(4), V(2, 2, 0, 1)), a0, 0)), D(4),
                 (const char *const[]){"r", "r", "p", "q"});
  /* Run-time errors. */
  graft_op *pi = ph(g, "pi", GRAFT_INT32);
  graft_op *bad = gather(g, "bad", x, pi, a0, 0);
  expect_error(g, bad, pi, i32v(D(2, 2), V(0, 1, 5, 2)), GRAFT_EINVAL, "GatherV2 op 'bad'",
               "indices[1,0] = 5 is not in [0, 3)");
  expect_error(g, bad, pi, i32v(D(1), V(-1)), GRAFT_EINVAL, "GatherV2 op 'bad'", "indices[0] = -1 is not in [0, 3)");
  graft_op *pa = ph(g, "pa", GRAFT_INT32);
  graft_op *bad2 = gather(g, "bad2", x, konst(g, "i7", GRAFT_INT32, D(1), V(0)), pa, 0);
  expect_error(g, bad2, pa, i32v(SCALAR, V(2)), GRAFT_EINVAL, "GatherV2 op 'bad2'",
               "Expected axis in the range [-2, 2), but got 2");
}

/* ---- GatherNd ---------------------------------------------------------------------------- */

static void test_gather_nd(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(3, 4), V(0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23));
  /* Full index: elements x[2, 1], x[0, 3]. */
  expect(run(g, make_binary(g, "GatherNd", "n1", x, konst(g, "i1", GRAFT_INT32, D(2, 2), V(2, 1, 0, 3)))), GRAFT_INT32,
         D(2), V(21, 3));
  /* Partial index: rows x[1], x[2] as a [2, 1, 4] (indices [2, 1, 1]). */
  expect(run(g, make_binary(g, "GatherNd", "n2", x, konst(g, "i2", GRAFT_INT64, D(2, 1, 1), (const int64_t[]){1, 2}))),
         GRAFT_INT32, D(2, 1, 4), V(10, 11, 12, 13, 20, 21, 22, 23));
  /* A single index vector gives a scalar; an empty index tuple gives the whole params. */
  expect(run(g, make_binary(g, "GatherNd", "n3", x, konst(g, "i3", GRAFT_INT32, D(2), V(1, 3)))), GRAFT_INT32, SCALAR,
         V(13));
  expect(run(g, make_binary(g, "GatherNd", "n4", x, konst(g, "i4", GRAFT_INT32, D(0), NULL))), GRAFT_INT32, D(3, 4),
         V(0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23));
  expect(run(g, make_binary(g, "GatherNd", "n5", x, konst(g, "i5", GRAFT_INT32, D(0, 1), NULL))), GRAFT_INT32, D(0, 4),
         NULL);
  graft_op *pi = ph(g, "pi", GRAFT_INT32);
  graft_op *bad = make_binary(g, "GatherNd", "bad", x, pi);
  expect_error(g, bad, pi, i32v(D(2, 2), V(0, 0, 3, 1)), GRAFT_EINVAL, "GatherNd op 'bad'",
               "indices[1] = [3, 1] does not index into param shape [3,4]");
}

/* ---- Pad, PadV2 -------------------------------------------------------------------------- */

static void test_pad(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(2, 2), V(1, 2, 3, 4));
  graft_op *p1 = make_binary(g, "Pad", "p1", x, konst(g, "pd1", GRAFT_INT32, D(2, 2), V(1, 0, 0, 2)));
  expect(run(g, p1), GRAFT_INT32, D(3, 4), V(0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0));
  graft_op_desc *d = desc(g, "PadV2", "p2");
  in(d, konst(g, "v", GRAFT_FLOAT32, D(3), (const float[]){1, 2, 3}));
  in(d, konst(g, "pd2", GRAFT_INT64, D(1, 2), (const int64_t[]){2, 1}));
  in(d, konst(g, "cv", GRAFT_FLOAT32, SCALAR, (const float[]){-1}));
  expect(run(g, fin(d)), GRAFT_FLOAT32, D(6), (const float[]){-1, -1, 1, 2, 3, -1});
  /* A scalar with no paddings; an empty input padded to all pad values; strings pad with "". */
  graft_op *sc = konst(g, "sc", GRAFT_INT32, SCALAR, V(7));
  expect(run(g, make_binary(g, "Pad", "p3", sc, konst(g, "pd3", GRAFT_INT32, D(0, 2), NULL))), GRAFT_INT32, SCALAR,
         V(7));
  graft_op *e = konst(g, "e", GRAFT_INT32, D(0, 2), NULL);
  expect(run(g, make_binary(g, "Pad", "p4", e, konst(g, "pd4", GRAFT_INT32, D(2, 2), V(1, 0, 0, 1)))), GRAFT_INT32,
         D(1, 3), V(0, 0, 0));
  graft_op *st = strings(g, "st", D(1), (const char *const[]){"s"});
  expect_strings(run(g, make_binary(g, "Pad", "p5", st, konst(g, "pd5", GRAFT_INT32, D(1, 2), V(1, 1)))), D(3),
                 (const char *const[]){"", "s", ""});
  graft_op *pp = ph(g, "pp", GRAFT_INT32);
  graft_op *bad = make_binary(g, "Pad", "bad", x, pp);
  expect_error(g, bad, pp, i32v(D(2, 2), V(0, -1, 0, 0)), GRAFT_EINVAL, "Pad op 'bad'",
               "Paddings must be non-negative: 0 -1");
}

/* Crafted int64 paddings: a padded size past INT64_MAX (it was computed with signed overflow),
 * and an empty output whose strides would pass it. Fed, so the kernel checks them. */
static void test_pad_overflow(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(2, 2), V(1, 2, 3, 4));
  graft_op *pp = ph(g, "pp", GRAFT_INT64);
  graft_op *p = make_binary(g, "Pad", "p", x, pp);
  expect_error(g, p, pp, tensor(GRAFT_INT64, D(2, 2), (const int64_t[]){INT64_MAX - 1, 5, 0, 0}), GRAFT_EINVAL,
               "Pad op 'p'", "paddings [9223372036854775806, 5] of dimension 0 (of size 2) overflow a 64-bit integer");
  expect_error(g, p, pp, tensor(GRAFT_INT64, D(2, 2), (const int64_t[]){0, 0, 1, INT64_MAX}), GRAFT_EINVAL,
               "Pad op 'p'", "of dimension 1 (of size 2) overflow");
  graft_op_desc *d = desc(g, "PadV2", "p2");
  in(d, x);
  in(d, pp);
  in(d, konst(g, "cv", GRAFT_INT32, SCALAR, V(9)));
  graft_op *p2 = fin(d);
  expect_error(g, p2, pp, tensor(GRAFT_INT64, D(2, 2), (const int64_t[]){INT64_MAX, INT64_MAX, 0, 0}), GRAFT_EINVAL,
               "PadV2 op 'p2'", "overflow a 64-bit integer");
  /* [0, 1, 1] padded to [0, 2^32 + 1, 2^32 + 1]: no elements, but strides past int64. */
  graft_op *e = konst(g, "e", GRAFT_INT32, D(0, 1, 1), NULL);
  graft_op *pe = make_binary(g, "Pad", "pe", e, pp);
  expect_error(g, pe, pp, tensor(GRAFT_INT64, D(3, 2), (const int64_t[]){0, 0, (int64_t)1 << 32, 0, (int64_t)1 << 32, 0}),
               GRAFT_EINVAL, "Pad op 'pe'", "has more elements than a 64-bit integer counts");
  /* Large paddings of an empty dimension that fit are fine: an empty output. */
  expect(run_feeds(g, pe, 0, 1, &pp, (graft_tensor *[]){tensor(GRAFT_INT64, D(3, 2), (const int64_t[]){0, 0, 1000, 0, 0, 0})}),
         GRAFT_INT32, D(0, 1001, 1), NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_strided_slice, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_nd, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pad_overflow, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_indexing", tests, NULL, NULL);
}
