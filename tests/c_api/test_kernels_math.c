/* CPU math kernels (kernels/cpu/math_kernels.cc): Div, FloorDiv, FloorMod, TruncateDiv,
 * TruncateMod (TensorFlow's sign rules, "Integer division by zero"), Pow, DivNoNan, Atan2,
 * comparisons, logical ops, Select / SelectV2, and the unary functions and activations, with
 * broadcasting, empty tensors and scalars, and Bucketize and DenseBincount. Expected values are
 * literal tables worked out by hand or with Python's math module (floor division and % are
 * Python's own); Bucketize's and DenseBincount's are TensorFlow 2.21's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph_test_util.h"

/* ---- Helpers ------------------------------------------------------------------------------ */

#include "kernel_test_util.h"


static void expect_f64_near(graft_tensor *t, const int64_t *dims, int ndims, const double *values, double tol) {
  assert_int_equal(graft_tensor_dtype(t), GRAFT_FLOAT64);
  expect_dims(t, dims, ndims);
  const double *p = graft_tensor_data(t);
  for (int64_t i = 0; i < count(dims, ndims); ++i) {
    if (!(fabs(p[i] - values[i]) <= tol)) {
      print_error("element %lld: %.17g, expected %.17g\n", (long long)i, p[i], values[i]);
      fail();
    }
  }
  graft_tensor_free(t);
}

/* ---- Division family ------------------------------------------------------------------------- */

static void test_integer_division(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, D(6), (const int32_t[]){7, -7, 7, -7, 0, 6});
  graft_op *y = konst(g, "y", GRAFT_INT32, D(6), (const int32_t[]){2, 2, -2, -2, 3, 3});
  /* The raw Div op truncates toward zero for integers (as TruncateDiv). */
  expect(run(g, make_binary(g, "Div", "div", x, y)), GRAFT_INT32, D(6), (const int32_t[]){3, -3, -3, 3, 0, 2});
  expect(run(g, make_binary(g, "TruncateDiv", "tdiv", x, y)), GRAFT_INT32, D(6), (const int32_t[]){3, -3, -3, 3, 0, 2});
  /* Python's //: 7//2, -7//2, 7//-2, -7//-2, 0//3, 6//3. */
  expect(run(g, make_binary(g, "FloorDiv", "fdiv", x, y)), GRAFT_INT32, D(6), (const int32_t[]){3, -4, -4, 3, 0, 2});
  /* Python's %: the divisor's sign. */
  expect(run(g, make_binary(g, "FloorMod", "fmod", x, y)), GRAFT_INT32, D(6), (const int32_t[]){1, 1, -1, -1, 0, 0});
  /* C's %: the dividend's sign. */
  expect(run(g, make_binary(g, "TruncateMod", "tmod", x, y)), GRAFT_INT32, D(6), (const int32_t[]){1, -1, 1, -1, 0, 0});
  /* INT64_MIN / -1 wraps instead of trapping; the modulo is 0. */
  graft_op *m = konst(g, "m", GRAFT_INT64, D(2), (const int64_t[]){INT64_MIN, INT64_MIN});
  graft_op *n = konst(g, "n", GRAFT_INT64, D(2), (const int64_t[]){-1, 3});
  expect(run(g, make_binary(g, "Div", "mdiv", m, n)), GRAFT_INT64, D(2),
         (const int64_t[]){INT64_MIN, -3074457345618258602LL});
  expect(run(g, make_binary(g, "FloorDiv", "mfdiv", m, n)), GRAFT_INT64, D(2),
         (const int64_t[]){INT64_MIN, -3074457345618258603LL});
  expect(run(g, make_binary(g, "FloorMod", "mfmod", m, n)), GRAFT_INT64, D(2), (const int64_t[]){0, 1});
  expect(run(g, make_binary(g, "TruncateMod", "mtmod", m, n)), GRAFT_INT64, D(2), (const int64_t[]){0, -2});
  /* Unsigned and narrow types; broadcasting a scalar and a row. */
  graft_op *u = konst(g, "u", GRAFT_UINT8, D(2, 2), (const uint8_t[]){7, 200, 9, 255});
  graft_op *u2 = konst(g, "u2", GRAFT_UINT8, SCALAR, (const uint8_t[]){2});
  expect(run(g, make_binary(g, "FloorDiv", "ufdiv", u, u2)), GRAFT_UINT8, D(2, 2), (const uint8_t[]){3, 100, 4, 127});
  expect(run(g, make_binary(g, "FloorMod", "ufmod", u, u2)), GRAFT_UINT8, D(2, 2), (const uint8_t[]){1, 0, 1, 1});
  graft_op *col = konst(g, "col", GRAFT_INT16, D(2, 1), (const int16_t[]){-9, 9});
  graft_op *row = konst(g, "row", GRAFT_INT16, D(3), (const int16_t[]){2, -4, 5});
  expect(run(g, make_binary(g, "FloorDiv", "bfdiv", col, row)), GRAFT_INT16, D(2, 3),
         (const int16_t[]){-5, 2, -2, 4, -3, 1});
  expect(run(g, make_binary(g, "FloorMod", "bfmod", col, row)), GRAFT_INT16, D(2, 3),
         (const int16_t[]){1, -1, 1, 1, -3, 4});
  graft_op *e = konst(g, "e", GRAFT_INT32, D(0), NULL);
  expect(run(g, make_binary(g, "Div", "ediv", e, konst(g, "three", GRAFT_INT32, SCALAR, (const int32_t[]){3}))),
         GRAFT_INT32, D(0), NULL);
  /* Division by zero is an error naming the op. */
  graft_op *p = ph(g, "p", GRAFT_INT32);
  const char *ops[5] = {"Div", "FloorDiv", "FloorMod", "TruncateDiv", "TruncateMod"};
  for (int k = 0; k < 5; ++k) {
    char name[32], where[64];
    snprintf(name, sizeof name, "z%d", k);
    snprintf(where, sizeof where, "%s op '%s'", ops[k], name);
    graft_op *z = make_binary(g, ops[k], name, x, p);
    expect_error(g, z, p, i32v(D(6), (const int32_t[]){1, 1, 0, 1, 1, 1}), GRAFT_EINVAL, where, "Integer division by zero");
  }
}

static void test_float_division(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(4), (const float[]){7.5f, -7.5f, 7.5f, -7.5f});
  graft_op *y = konst(g, "y", GRAFT_FLOAT32, D(4), (const float[]){2, 2, -2, -2});
  expect(run(g, make_binary(g, "Div", "div", x, y)), GRAFT_FLOAT32, D(4), (const float[]){3.75f, -3.75f, -3.75f, 3.75f});
  expect(run(g, make_binary(g, "FloorDiv", "fdiv", x, y)), GRAFT_FLOAT32, D(4), (const float[]){3, -4, -4, 3});
  /* Python: 7.5 % 2, -7.5 % 2, 7.5 % -2, -7.5 % -2. */
  expect(run(g, make_binary(g, "FloorMod", "fmod", x, y)), GRAFT_FLOAT32, D(4), (const float[]){1.5f, 0.5f, -0.5f, -1.5f});
  expect(run(g, make_binary(g, "TruncateMod", "tmod", x, y)), GRAFT_FLOAT32, D(4),
         (const float[]){1.5f, -1.5f, 1.5f, -1.5f});
  graft_op *xd = konst(g, "xd", GRAFT_FLOAT64, D(3), (const double[]){1, -1, 0});
  graft_op *zero = konst(g, "zero", GRAFT_FLOAT64, SCALAR, (const double[]){0});
  graft_tensor *t = run(g, make_binary(g, "Div", "dz", xd, zero));
  const double *p = graft_tensor_data(t);
  assert_true(p[0] == INFINITY && p[1] == -INFINITY && isnan(p[2]));
  graft_tensor_free(t);
  graft_op *two = konst(g, "two", GRAFT_FLOAT64, SCALAR, (const double[]){2});
  expect(run(g, make_binary(g, "FloorDiv", "fd2", two, xd)), GRAFT_FLOAT64, D(3), (const double[]){2, -2, INFINITY});
  /* Complex division. */
  graft_op *c = konst(g, "c", GRAFT_COMPLEX64, D(1), (const float[]){1, 2});
  graft_op *cd = konst(g, "cd", GRAFT_COMPLEX64, D(1), (const float[]){3, 4});
  expect(run(g, make_binary(g, "Div", "cdiv", c, cd)), GRAFT_COMPLEX64, D(1), (const float[]){0.44f, 0.08f});
  /* DivNoNan: 0 wherever the divisor is 0. */
  graft_op *a = konst(g, "a", GRAFT_FLOAT32, D(3), (const float[]){1, 2, 0});
  graft_op *b = konst(g, "b", GRAFT_FLOAT32, D(3), (const float[]){0, 4, 0});
  expect(run(g, make_binary(g, "DivNoNan", "dnn", a, b)), GRAFT_FLOAT32, D(3), (const float[]){0, 0.5f, 0});
  expect(run(g, make_binary(g, "DivNoNan", "dnnd", xd, zero)), GRAFT_FLOAT64, D(3), (const double[]){0, 0, 0});
}

static void test_pow_atan2(void **state) {
  graft_graph *g = *state;
  graft_op *b = konst(g, "b", GRAFT_FLOAT32, D(3), (const float[]){2, 4, 9});
  graft_op *e = konst(g, "e", GRAFT_FLOAT32, D(3), (const float[]){3, 0.5f, -1});
  expect_f32_near(run(g, make_binary(g, "Pow", "pf", b, e)), D(3), (const float[]){8, 2, 1.0f / 9}, 1e-6f);
  graft_op *bi = konst(g, "bi", GRAFT_INT32, D(5), (const int32_t[]){2, -3, 0, 5, 2});
  graft_op *ei = konst(g, "ei", GRAFT_INT32, D(5), (const int32_t[]){10, 3, 0, 1, 31});
  /* 2^31 wraps to INT32_MIN. */
  expect(run(g, make_binary(g, "Pow", "pi", bi, ei)), GRAFT_INT32, D(5), (const int32_t[]){1024, -27, 1, 5, INT32_MIN});
  graft_op *bl = konst(g, "bl", GRAFT_INT64, D(2, 1), (const int64_t[]){3, -2});
  graft_op *el = konst(g, "el", GRAFT_INT64, D(2), (const int64_t[]){2, 5});
  expect(run(g, make_binary(g, "Pow", "pl", bl, el)), GRAFT_INT64, D(2, 2), (const int64_t[]){9, 243, 4, -32});
  graft_op *pe = ph(g, "pe", GRAFT_INT32);
  graft_op *pw = make_binary(g, "Pow", "pw", bi, pe);
  expect_error(g, pw, pe, i32v(D(5), (const int32_t[]){1, 1, -1, 1, 1}), GRAFT_EINVAL, "Pow op 'pw'",
               "Integers to negative integer powers are not allowed");
  graft_op *y = konst(g, "y", GRAFT_FLOAT64, D(4), (const double[]){1, 1, -1, 0});
  graft_op *x = konst(g, "x", GRAFT_FLOAT64, D(4), (const double[]){1, -1, -1, 1});
  expect_f64_near(run(g, make_binary(g, "Atan2", "at", y, x)), D(4),
                  (const double[]){0.7853981633974483, 2.356194490192345, -2.356194490192345, 0}, 1e-15);
}

/* ---- Comparisons, logical ops, Select ---------------------------------------------------- */

static void test_comparisons(void **state) {
  graft_graph *g = *state;
  graft_op *a = konst(g, "a", GRAFT_FLOAT32, D(3), (const float[]){1, 2, 3});
  graft_op *b = konst(g, "b", GRAFT_FLOAT32, SCALAR, (const float[]){2});
  expect(run(g, make_binary(g, "Less", "lt", a, b)), GRAFT_BOOL, D(3), (const uint8_t[]){1, 0, 0});
  expect(run(g, make_binary(g, "LessEqual", "le", a, b)), GRAFT_BOOL, D(3), (const uint8_t[]){1, 1, 0});
  expect(run(g, make_binary(g, "Greater", "gt", a, b)), GRAFT_BOOL, D(3), (const uint8_t[]){0, 0, 1});
  expect(run(g, make_binary(g, "GreaterEqual", "ge", a, b)), GRAFT_BOOL, D(3), (const uint8_t[]){0, 1, 1});
  expect(run(g, make_binary(g, "Equal", "eq", a, b)), GRAFT_BOOL, D(3), (const uint8_t[]){0, 1, 0});
  expect(run(g, make_binary(g, "NotEqual", "ne", a, b)), GRAFT_BOOL, D(3), (const uint8_t[]){1, 0, 1});
  /* Broadcasting [2,1] against [3]. */
  graft_op *c = konst(g, "c", GRAFT_INT64, D(2, 1), (const int64_t[]){2, -1});
  graft_op *r = konst(g, "r", GRAFT_INT64, D(3), (const int64_t[]){1, 2, 3});
  expect(run(g, make_binary(g, "Greater", "bgt", c, r)), GRAFT_BOOL, D(2, 3), (const uint8_t[]){1, 0, 0, 0, 0, 0});
  expect(run(g, make_binary(g, "LessEqual", "ble", r, c)), GRAFT_BOOL, D(2, 3), (const uint8_t[]){1, 1, 0, 0, 0, 0});
  graft_op *u = konst(g, "u", GRAFT_UINT8, D(2), (const uint8_t[]){0, 255});
  graft_op *u1 = konst(g, "u1", GRAFT_UINT8, D(2), (const uint8_t[]){1, 1});
  expect(run(g, make_binary(g, "Less", "ult", u, u1)), GRAFT_BOOL, D(2), (const uint8_t[]){1, 0});
  /* NaN is unequal to everything, itself included. */
  graft_op *n = konst(g, "n", GRAFT_FLOAT64, D(2), (const double[]){NAN, 1});
  expect(run(g, make_binary(g, "Equal", "neq", n, n)), GRAFT_BOOL, D(2), (const uint8_t[]){0, 1});
  expect(run(g, make_binary(g, "NotEqual", "nne", n, n)), GRAFT_BOOL, D(2), (const uint8_t[]){1, 0});
  expect(run(g, make_binary(g, "Less", "nlt", n, n)), GRAFT_BOOL, D(2), (const uint8_t[]){0, 0});
  /* bool, string and complex equality. */
  graft_op *t = konst(g, "t", GRAFT_BOOL, D(2), (const uint8_t[]){1, 0});
  graft_op *tt = konst(g, "tt", GRAFT_BOOL, SCALAR, (const uint8_t[]){1});
  expect(run(g, make_binary(g, "Equal", "beq", t, tt)), GRAFT_BOOL, D(2), (const uint8_t[]){1, 0});
  graft_op *s = strings(g, "s", D(3), (const char *const[]){"a", "bb", ""});
  graft_op *s2 = strings(g, "s2", SCALAR, (const char *const[]){"bb"});
  expect(run(g, make_binary(g, "Equal", "seq", s, s2)), GRAFT_BOOL, D(3), (const uint8_t[]){0, 1, 0});
  expect(run(g, make_binary(g, "NotEqual", "sne", s2, s)), GRAFT_BOOL, D(3), (const uint8_t[]){1, 0, 1});
  graft_op *z = konst(g, "z", GRAFT_COMPLEX128, D(2), (const double[]){1, 2, 1, -2});
  graft_op *z1 = konst(g, "z1", GRAFT_COMPLEX128, SCALAR, (const double[]){1, 2});
  expect(run(g, make_binary(g, "Equal", "zeq", z, z1)), GRAFT_BOOL, D(2), (const uint8_t[]){1, 0});
  /* Empty against a scalar. */
  graft_op *em = konst(g, "em", GRAFT_INT32, D(0, 2), NULL);
  graft_op *one = konst(g, "one", GRAFT_INT32, SCALAR, (const int32_t[]){1});
  expect(run(g, make_binary(g, "Less", "elt", em, one)), GRAFT_BOOL, D(0, 2), NULL);
  /* Shapes that do not broadcast: an error, or with incompatible_shape_error = false a
   * scalar false (Equal) / true (NotEqual). */
  graft_op *p = ph(g, "p", GRAFT_FLOAT32);
  graft_op *eq = make_binary(g, "Equal", "eqp", a, p);
  expect_error(g, eq, p, tensor(GRAFT_FLOAT32, D(2), NULL), GRAFT_EINVAL, "Equal op 'eqp'", "[3] vs. [2]");
  graft_op_desc *d = desc(g, "Equal", "eqs");
  in(d, a);
  in(d, p);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "incompatible_shape_error", 0));
  graft_op *eqs = fin(d);
  graft_tensor *v = tensor(GRAFT_FLOAT32, D(2), NULL);
  expect(run_feeds(g, eqs, 0, 1, &p, &v), GRAFT_BOOL, SCALAR, (const uint8_t[]){0});
  d = desc(g, "NotEqual", "nes");
  in(d, a);
  in(d, p);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "incompatible_shape_error", 0));
  graft_op *nes = fin(d);
  v = tensor(GRAFT_FLOAT32, D(2), NULL);
  expect(run_feeds(g, nes, 0, 1, &p, &v), GRAFT_BOOL, SCALAR, (const uint8_t[]){1});
  v = tensor(GRAFT_FLOAT32, D(3), (const float[]){1, 0, 3});
  expect(run_feeds(g, nes, 0, 1, &p, &v), GRAFT_BOOL, D(3), (const uint8_t[]){0, 1, 0});
  graft_op *lt = make_binary(g, "Less", "ltp", a, p);
  expect_error(g, lt, p, tensor(GRAFT_FLOAT32, D(2, 2), NULL), GRAFT_EINVAL, "Less op 'ltp'", "[3] vs. [2,2]");
}

static void test_logical(void **state) {
  graft_graph *g = *state;
  graft_op *a = konst(g, "a", GRAFT_BOOL, D(4), (const uint8_t[]){0, 0, 1, 1});
  graft_op *b = konst(g, "b", GRAFT_BOOL, D(4), (const uint8_t[]){0, 1, 0, 1});
  graft_op *t = konst(g, "t", GRAFT_BOOL, SCALAR, (const uint8_t[]){1});
  expect(run(g, make_binary(g, "LogicalAnd", "and", a, b)), GRAFT_BOOL, D(4), (const uint8_t[]){0, 0, 0, 1});
  expect(run(g, make_binary(g, "LogicalOr", "or", a, b)), GRAFT_BOOL, D(4), (const uint8_t[]){0, 1, 1, 1});
  expect(run(g, op1(g, "LogicalNot", "not", a)), GRAFT_BOOL, D(4), (const uint8_t[]){1, 1, 0, 0});
  expect(run(g, make_binary(g, "LogicalAnd", "and_s", t, b)), GRAFT_BOOL, D(4), (const uint8_t[]){0, 1, 0, 1});
  graft_op *col = konst(g, "col", GRAFT_BOOL, D(2, 1), (const uint8_t[]){0, 1});
  expect(run(g, make_binary(g, "LogicalOr", "or_b", col, a)), GRAFT_BOOL, D(2, 4),
         (const uint8_t[]){0, 0, 1, 1, 1, 1, 1, 1});
}

static void test_select(void **state) {
  graft_graph *g = *state;
  graft_op *c = konst(g, "c", GRAFT_BOOL, D(3), (const uint8_t[]){1, 0, 1});
  graft_op *t = konst(g, "t", GRAFT_INT32, D(3), (const int32_t[]){1, 2, 3});
  graft_op *e = konst(g, "e", GRAFT_INT32, D(3), (const int32_t[]){10, 20, 30});
  expect(run(g, op3(g, "Select", "s", c, t, e)), GRAFT_INT32, D(3), (const int32_t[]){1, 20, 3});
  expect(run(g, op3(g, "SelectV2", "s2", c, t, e)), GRAFT_INT32, D(3), (const int32_t[]){1, 20, 3});
  /* Select: a vector condition picks rows. */
  graft_op *rc = konst(g, "rc", GRAFT_BOOL, D(2), (const uint8_t[]){0, 1});
  graft_op *mt = konst(g, "mt", GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4});
  graft_op *me = konst(g, "me", GRAFT_FLOAT32, D(2, 2), (const float[]){-1, -2, -3, -4});
  expect(run(g, op3(g, "Select", "rows", rc, mt, me)), GRAFT_FLOAT32, D(2, 2), (const float[]){-1, -2, 3, 4});
  graft_op *sc = konst(g, "sc", GRAFT_BOOL, SCALAR, (const uint8_t[]){0});
  expect(run(g, op3(g, "Select", "scal", sc, mt, me)), GRAFT_FLOAT32, D(2, 2), (const float[]){-1, -2, -3, -4});
  /* SelectV2 broadcasts all three: [2,1] condition, [3] then, scalar else. */
  graft_op *bc = konst(g, "bc", GRAFT_BOOL, D(2, 1), (const uint8_t[]){1, 0});
  graft_op *bt = konst(g, "bt", GRAFT_FLOAT64, D(3), (const double[]){1, 2, 3});
  graft_op *be = konst(g, "be", GRAFT_FLOAT64, SCALAR, (const double[]){0});
  expect(run(g, op3(g, "SelectV2", "bsel", bc, bt, be)), GRAFT_FLOAT64, D(2, 3), (const double[]){1, 2, 3, 0, 0, 0});
  graft_op *ce = konst(g, "ce", GRAFT_BOOL, D(0, 3), NULL);
  expect(run(g, op3(g, "SelectV2", "esel", ce, bt, be)), GRAFT_FLOAT64, D(0, 3), NULL);
  graft_op *st = strings(g, "st", D(3), (const char *const[]){"a", "b", "c"});
  graft_op *se = strings(g, "se", SCALAR, (const char *const[]){"-"});
  expect_strings(run(g, op3(g, "SelectV2", "ssel", c, st, se)), D(3), (const char *const[]){"a", "-", "c"});
  graft_op *bb = konst(g, "bb", GRAFT_BOOL, D(3), (const uint8_t[]){0, 1, 1});
  expect(run(g, op3(g, "Select", "bsel2", c, bb, c)), GRAFT_BOOL, D(3), (const uint8_t[]){0, 0, 1});
  /* Errors. */
  graft_op *p = ph(g, "p", GRAFT_INT32);
  graft_op *bad = op3(g, "Select", "bad", c, t, p);
  expect_error(g, bad, p, i32v(D(2), (const int32_t[]){1, 2}), GRAFT_EINVAL, "Select op 'bad'",
               "'then' and 'else' must have the same size");
  graft_op *pc = ph(g, "pc", GRAFT_BOOL);
  graft_op *bad2 = op3(g, "SelectV2", "bad2", pc, t, e);
  expect_error(g, bad2, pc, tensor(GRAFT_BOOL, D(2), NULL), GRAFT_EINVAL, "SelectV2 op 'bad2'",
               "condition [2], then [3], and else [3] must be broadcastable");
  graft_op *bad3 = op3(g, "Select", "bad3", pc, mt, me);
  expect_error(g, bad3, pc, tensor(GRAFT_BOOL, D(3), NULL), GRAFT_EINVAL, "Select op 'bad3'",
               "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3");
  graft_op *bad4 = op3(g, "Select", "bad4", pc, t, e);
  expect_error(g, bad4, pc, tensor(GRAFT_BOOL, D(2), NULL), GRAFT_EINVAL, "Select op 'bad4'",
               "must have the same size and shape.  Input 0: [2] != input 1: [3]");
}

/* ---- Unary functions and activations -------------------------------------------------------- */

static graft_op *unary(graft_graph *g, const char *type, const char *name, graft_op *x) { return op1(g, type, name, x); }

static void test_unary_math(void **state) {
  graft_graph *g = *state;
  graft_op *s = konst(g, "s", GRAFT_FLOAT32, D(4), (const float[]){-2, 0, 3, -0.0f});
  graft_tensor *t = run(g, unary(g, "Sign", "sign", s));
  const float *p = graft_tensor_data(t);
  assert_true(p[0] == -1 && p[1] == 0 && p[2] == 1 && p[3] == 0 && signbit(p[3]));
  graft_tensor_free(t);
  graft_op *si = konst(g, "si", GRAFT_INT32, D(3), (const int32_t[]){-5, 0, 7});
  expect(run(g, unary(g, "Sign", "signi", si)), GRAFT_INT32, D(3), (const int32_t[]){-1, 0, 1});
  graft_op *sn = konst(g, "sn", GRAFT_FLOAT64, D(1), (const double[]){NAN});
  t = run(g, unary(g, "Sign", "signn", sn));
  assert_true(isnan(*(const double *)graft_tensor_data(t)));
  graft_tensor_free(t);
  graft_op *r = konst(g, "r", GRAFT_FLOAT32, D(3), (const float[]){2, -4, 0});
  expect(run(g, unary(g, "Reciprocal", "rec", r)), GRAFT_FLOAT32, D(3), (const float[]){0.5f, -0.25f, INFINITY});
  graft_op *x = konst(g, "x", GRAFT_FLOAT64, D(3), (const double[]){0, 1, 1e-10});
  expect_f64_near(run(g, unary(g, "Expm1", "expm1", x)), D(3), (const double[]){0, 1.718281828459045, 1.00000000005e-10},
                  1e-15);
  expect_f64_near(run(g, unary(g, "Log1p", "log1p", x)), D(3), (const double[]){0, 0.6931471805599453, 9.9999999995e-11},
                  1e-15);
  graft_op *ang = konst(g, "ang", GRAFT_FLOAT64, D(3), (const double[]){0, 0.7853981633974483, 1.5707963267948966});
  expect_f64_near(run(g, unary(g, "Sin", "sin", ang)), D(3), (const double[]){0, 0.7071067811865476, 1}, 1e-15);
  expect_f64_near(run(g, unary(g, "Cos", "cos", ang)), D(3), (const double[]){1, 0.7071067811865476, 6.123233995736766e-17},
                  1e-15);
  graft_op *ang4 = konst(g, "ang4", GRAFT_FLOAT32, D(2), (const float[]){0, 0.7853981633974483f});
  expect_f32_near(run(g, unary(g, "Tan", "tan", ang4)), D(2), (const float[]){0, 1}, 1e-6f);
  graft_op *ex = konst(g, "ex", GRAFT_FLOAT64, D(3), (const double[]){0, 1, -0.5});
  expect_f64_near(run(g, unary(g, "Erf", "erf", ex)), D(3), (const double[]){0, 0.8427007929497149, -0.5204998778130465},
                  1e-15);
  /* erfc(x) = 1 - erf(x), without the cancellation for large x: erfc(10) = 2.09e-45. */
  expect_f64_near(run(g, unary(g, "Erfc", "erfc", ex)), D(3), (const double[]){1, 0.15729920705028513, 1.5204998778130465},
                  1e-15);
  graft_op *big = konst(g, "big", GRAFT_FLOAT64, D(1), (const double[]){10});
  graft_tensor *tail = run(g, unary(g, "Erfc", "erfc_tail", big));
  assert_true(fabs(*(const double *)graft_tensor_data(tail) / 2.088487583762545e-45 - 1) < 1e-12);
  graft_tensor_free(tail);
  graft_op *f = konst(g, "f", GRAFT_FLOAT32, D(4), (const float[]){-1.5f, 1.5f, 2.0f, -0.2f});
  expect(run(g, unary(g, "Floor", "floor", f)), GRAFT_FLOAT32, D(4), (const float[]){-2, 1, 2, -1});
  expect(run(g, unary(g, "Ceil", "ceil", f)), GRAFT_FLOAT32, D(4), (const float[]){-1, 2, 2, -0.0f});
  /* Round and Rint: half to even. */
  graft_op *h = konst(g, "h", GRAFT_FLOAT64, D(9), (const double[]){0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6, -3.7});
  const double even[9] = {0, 2, 2, -0.0, -2, -2, 2, 3, -4};
  expect(run(g, unary(g, "Round", "round", h)), GRAFT_FLOAT64, D(9), even);
  expect(run(g, unary(g, "Rint", "rint", h)), GRAFT_FLOAT64, D(9), even);
  graft_op *hf = konst(g, "hf", GRAFT_FLOAT32, D(3), (const float[]){3.5f, 4.5f, 1e20f});
  expect(run(g, unary(g, "Round", "roundf", hf)), GRAFT_FLOAT32, D(3), (const float[]){4, 4, 1e20f});
  graft_op *ri = konst(g, "ri", GRAFT_INT64, D(2), (const int64_t[]){-3, 8});
  expect(run(g, unary(g, "Round", "roundi", ri)), GRAFT_INT64, D(2), (const int64_t[]){-3, 8});
  /* Predicates. */
  graft_op *v = konst(g, "v", GRAFT_FLOAT32, D(4), (const float[]){1, NAN, INFINITY, -INFINITY});
  expect(run(g, unary(g, "IsNan", "isnan", v)), GRAFT_BOOL, D(4), (const uint8_t[]){0, 1, 0, 0});
  expect(run(g, unary(g, "IsInf", "isinf", v)), GRAFT_BOOL, D(4), (const uint8_t[]){0, 0, 1, 1});
  expect(run(g, unary(g, "IsFinite", "isfinite", v)), GRAFT_BOOL, D(4), (const uint8_t[]){1, 0, 0, 0});
  graft_op *vd = konst(g, "vd", GRAFT_FLOAT64, D(0), NULL);
  expect(run(g, unary(g, "IsNan", "isnane", vd)), GRAFT_BOOL, D(0), NULL);
}

static void test_activations(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(4), (const float[]){-1, 3, 7, 0});
  expect(run(g, unary(g, "Relu6", "relu6", x)), GRAFT_FLOAT32, D(4), (const float[]){0, 3, 6, 0});
  graft_op *xi = konst(g, "xi", GRAFT_INT32, D(3), (const int32_t[]){-4, 5, 100});
  expect(run(g, unary(g, "Relu6", "relu6i", xi)), GRAFT_INT32, D(3), (const int32_t[]){0, 5, 6});
  graft_op *xd = konst(g, "xd", GRAFT_FLOAT64, D(3), (const double[]){-1, 0, 2});
  expect_f64_near(run(g, unary(g, "Elu", "elu", xd)), D(3), (const double[]){-0.6321205588285577, 0, 2}, 1e-15);
  expect_f64_near(run(g, unary(g, "Selu", "selu", xd)), D(3), (const double[]){-1.1113307378125628, 0, 2.101401974710961},
                  1e-15);
  graft_op *l = konst(g, "l", GRAFT_FLOAT32, D(3), (const float[]){-2, 3, 0});
  expect_f32_near(run(g, unary(g, "LeakyRelu", "leaky", l)), D(3), (const float[]){-0.4f, 3, 0}, 1e-7f);
  graft_op_desc *d = desc(g, "LeakyRelu", "leaky1");
  in(d, l);
  GT_OK(graft_attrs_set_float(graft_op_desc_attrs(d), "alpha", 0.1f));
  expect_f32_near(run(g, fin(d)), D(3), (const float[]){-0.2f, 3, 0}, 1e-7f);
  graft_op *ld = konst(g, "ld", GRAFT_FLOAT64, D(1), (const double[]){-10});
  expect_f64_near(run(g, unary(g, "LeakyRelu", "leakyd", ld)), D(1), (const double[]){-2}, 1e-6);
  /* Softplus: log(1 + e^x), = x for large x, = e^x for very negative x. */
  graft_op *sp = konst(g, "sp", GRAFT_FLOAT64, D(5), (const double[]){0, 1, -1, 100, -100});
  expect_f64_near(run(g, unary(g, "Softplus", "softplus", sp)), D(5),
                  (const double[]){0.6931471805599453, 1.3132616875182228, 0.31326168751822286, 100, 3.720075976020836e-44},
                  1e-15);
  graft_op *spf = konst(g, "spf", GRAFT_FLOAT32, D(2), (const float[]){0, 1000});
  expect_f32_near(run(g, unary(g, "Softplus", "softplusf", spf)), D(2), (const float[]){0.6931472f, 1000}, 1e-6f);
  graft_op *ss = konst(g, "ss", GRAFT_FLOAT32, D(3), (const float[]){-3, 1, 0});
  expect(run(g, unary(g, "Softsign", "softsign", ss)), GRAFT_FLOAT32, D(3), (const float[]){-0.75f, 0.5f, 0});
  /* In place through a chain, with the input still fetched. */
  graft_op *chain = unary(g, "Relu6", "chain", unary(g, "Softsign", "inner", ss));
  graft_output fetches[2] = {{chain, 0}, {ss, 0}};
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_tensor *outs[2];
  GT_OK(graft_session_run(outs, s, NULL, NULL, 0, fetches, 2, NULL, 0));
  expect(outs[0], GRAFT_FLOAT32, D(3), (const float[]){0, 0.5f, 0});
  expect(outs[1], GRAFT_FLOAT32, D(3), (const float[]){-3, 1, 0});
  graft_session_free(s);
}

/* ClipByValue: scalar bounds or bounds of t's shape; other shapes are an error naming the bound. */
static void test_clip_by_value(void **state) {
  graft_graph *g = *state;
  graft_op *t = konst(g, "t", GRAFT_FLOAT32, D(4), (const float[]){-2, 0.25f, 3, 1});
  graft_op *lo = make_const(g, "lo", -1.0f);
  graft_op *hi = konst(g, "hi", GRAFT_FLOAT32, D(4), (const float[]){1, 0, 2, 5});
  expect(run(g, op3(g, "ClipByValue", "clip", t, lo, hi)), GRAFT_FLOAT32, D(4), (const float[]){-1, 0, 2, 1});
  graft_op *it = konst(g, "it", GRAFT_INT32, D(3), (const int32_t[]){-7, 4, 9});
  int32_t zero = 0, five = 5;
  expect(run(g, op3(g, "ClipByValue", "iclip", it, konst(g, "z", GRAFT_INT32, NULL, 0, &zero),
                    konst(g, "f", GRAFT_INT32, NULL, 0, &five))),
         GRAFT_INT32, D(3), (const int32_t[]){0, 4, 5});
  /* min > max: max(min(t, max), min), so min wins (TensorFlow 2.21: [6, 6, 6] for min 6, max 4). */
  int32_t six = 6, four = 4;
  expect(run(g, op3(g, "ClipByValue", "crossed", it, konst(g, "six", GRAFT_INT32, NULL, 0, &six),
                    konst(g, "four", GRAFT_INT32, NULL, 0, &four))),
         GRAFT_INT32, D(3), (const int32_t[]){6, 6, 6});
  graft_op *bad = ph(g, "bad", GRAFT_FLOAT32);
  graft_op *clip = op3(g, "ClipByValue", "bad_clip", t, bad, hi);
  expect_error(g, clip, bad, tensor(GRAFT_FLOAT32, D(2), (const float[]){0, 0}), GRAFT_EINVAL,
               "ClipByValue op 'bad_clip'", "clip_value_min must be a scalar or have the shape of t [4], not [2]");
}

/* ---- Bucketize ----------------------------------------------------------------------------- */

static graft_op *bucketize(graft_graph *g, const char *name, graft_op *x, const float *bounds, int n) {
  graft_op_desc *d = desc(g, "Bucketize", name);
  in(d, x);
  GT_OK(graft_attrs_set_float_list(graft_op_desc_attrs(d), "boundaries", bounds, n));
  return fin(d);
}

static void test_bucketize(void **state) {
  graft_graph *g = *state;
  const float bounds[] = {0, 1, 3, 5};
  /* A value equal to a boundary starts its bucket; NaN is past the last. */
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(7), (const float[]){-5, 0, 1, 2.5f, 10, NAN, 3});
  graft_op *b = bucketize(g, "b", x, bounds, 4);
  assert_output_shape(b, 0, "(7,)");
  expect(run(g, b), GRAFT_INT32, D(7), (const int32_t[]){0, 1, 2, 2, 4, 4, 3});
  const float half[] = {0, 1.5f, 3};
  graft_op *ix = konst(g, "ix", GRAFT_INT64, D(2, 2), (const int64_t[]){-5, 0, 1, 7});
  expect(run(g, bucketize(g, "ib", ix, half, 3)), GRAFT_INT32, D(2, 2), (const int32_t[]){0, 1, 1, 3});
  graft_op *dx = konst(g, "dx", GRAFT_FLOAT64, D(2), (const double[]){1.5, 1.4999999});
  expect(run(g, bucketize(g, "db", dx, half, 3)), GRAFT_INT32, D(2), (const int32_t[]){2, 1});
  /* No boundaries: one bucket. */
  expect(run(g, bucketize(g, "none", x, NULL, 0)), GRAFT_INT32, D(7), (const int32_t[]){0, 0, 0, 0, 0, 0, 0});
  const float unsorted[] = {3, 1};
  expect_error(g, bucketize(g, "unsorted", x, unsorted, 2), NULL, NULL, GRAFT_EINVAL, "unsorted",
               "Expected sorted boundaries");
}

/* ---- DenseBincount (TensorFlow 2.21's values and messages) ------------------------------- */

static graft_op *bincount(graft_graph *g, const char *name, graft_op *x, graft_op *size, graft_op *w, int binary) {
  graft_op_desc *d = desc(g, "DenseBincount", name);
  in(d, x);
  in(d, size);
  in(d, w);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "binary_output", binary ? 1 : 0));
  return fin(d);
}

static void test_dense_bincount(void **state) {
  graft_graph *g = *state;
  int32_t five = 5, three = 3;
  int64_t four = 4;
  graft_op *x = konst(g, "bc_x", GRAFT_INT32, D(5), (const int32_t[]){1, 1, 3, 7, 0});
  graft_op *size5 = konst(g, "size5", GRAFT_INT32, SCALAR, &five);
  graft_op *none = konst(g, "no_w", GRAFT_FLOAT32, D(0), NULL);
  graft_op *w = konst(g, "bc_w", GRAFT_FLOAT32, D(5), (const float[]){0.5f, 1, 2, 3, 4});
  graft_op *counts = bincount(g, "counts", x, size5, none, 0);
  assert_output_shape(counts, 0, "(5,)");
  expect(run(g, counts), GRAFT_FLOAT32, D(5), (const float[]){1, 2, 0, 1, 0});
  expect(run(g, bincount(g, "weighted", x, size5, w, 0)), GRAFT_FLOAT32, D(5), (const float[]){4, 1.5f, 0, 2, 0});
  expect(run(g, bincount(g, "binary", x, size5, w, 1)), GRAFT_FLOAT32, D(5), (const float[]){1, 1, 0, 1, 0});
  /* A matrix counts per row; int64 values and size. */
  graft_op *m = konst(g, "bc_m", GRAFT_INT64, D(2, 3), (const int64_t[]){1, 1, 3, 7, 0, 0});
  graft_op *size4 = konst(g, "size4", GRAFT_INT64, SCALAR, &four);
  graft_op *rows = bincount(g, "rows", m, size4, konst(g, "no_wi", GRAFT_INT32, D(0), NULL), 0);
  assert_output_shape(rows, 0, "(2, 4)");
  expect(run(g, rows), GRAFT_INT32, D(2, 4), (const int32_t[]){0, 2, 0, 1, 2, 0, 0, 0});
  graft_op *wd = konst(g, "bc_wd", GRAFT_FLOAT64, D(2, 3), (const double[]){1, 2, 3, 4, 5, 6});
  expect(run(g, bincount(g, "rows_w", m, size4, wd, 0)), GRAFT_FLOAT64, D(2, 4), (const double[]){0, 3, 0, 3, 11, 0, 0, 0});
  expect(run(g, bincount(g, "rows_bin", m, size4, none, 1)), GRAFT_FLOAT32, D(2, 4), (const float[]){0, 1, 0, 1, 1, 0, 0, 0});
  /* A scalar is a vector of one. */
  int32_t two = 2;
  graft_op *size3 = konst(g, "size3", GRAFT_INT32, SCALAR, &three);
  expect(run(g, bincount(g, "scalar", konst(g, "bc_s", GRAFT_INT32, SCALAR, &two), size3, none, 0)), GRAFT_FLOAT32, D(3),
         (const float[]){0, 0, 1});
  /* Errors. */
  graft_op *p = ph(g, "bc_p", GRAFT_INT32);
  graft_op *bad = bincount(g, "bc_bad", p, size3, none, 0);
  expect_error(g, bad, p, i32v(D(2), (const int32_t[]){1, -1}), GRAFT_EINVAL, "DenseBincount op 'bc_bad'",
               "Input arr must be non-negative!");
  expect_error(g, bad, p, i32v(D(1, 2), (const int32_t[]){1, -1}), GRAFT_EINVAL, "DenseBincount op 'bc_bad'",
               "Input 'in' must be non-negative! Negative input value found: -1");
  expect_error(g, bad, p, i32v(D(1, 1, 1), (const int32_t[]){1}), GRAFT_EINVAL, "DenseBincount op 'bc_bad'",
               "Shape must be at most rank 2 but is rank 3");
  graft_op *bad_w = bincount(g, "bc_bad_w", p, size3, konst(g, "w1", GRAFT_FLOAT32, D(1), (const float[]){1}), 0);
  expect_error(g, bad_w, p, i32v(D(2), (const int32_t[]){1, 2}), GRAFT_EINVAL, "DenseBincount op 'bc_bad_w'",
               "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it acts as all weights "
               "equal to 1. Received [1]");
  graft_op *ps = ph(g, "bc_size", GRAFT_INT32);
  graft_op *bad_size = bincount(g, "bc_bad_size", x, ps, none, 0);
  int32_t neg = -1;
  expect_error(g, bad_size, ps, tensor(GRAFT_INT32, SCALAR, &neg), GRAFT_EINVAL, "DenseBincount op 'bc_bad_size'",
               "size (-1) must be non-negative");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_integer_division, setup, teardown),
      cmocka_unit_test_setup_teardown(test_float_division, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pow_atan2, setup, teardown),
      cmocka_unit_test_setup_teardown(test_comparisons, setup, teardown),
      cmocka_unit_test_setup_teardown(test_logical, setup, teardown),
      cmocka_unit_test_setup_teardown(test_select, setup, teardown),
      cmocka_unit_test_setup_teardown(test_clip_by_value, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unary_math, setup, teardown),
      cmocka_unit_test_setup_teardown(test_activations, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bucketize, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dense_bincount, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_math", tests, NULL, NULL);
}
