/* CPU training kernels (kernels/cpu/training_kernels.cc): ApplyGradientDescent, ApplyAdam,
 * ApplyMomentum, ApplyAdagrad and ApplyRMSProp on TensorFlow 1 reference variables, their
 * ResourceApply forms (and ResourceApplyKerasMomentum, ResourceApplyAdagradV2) on resource
 * variables, their row-wise ResourceSparseApply forms (checked against the dense updates), and the
 * random ops (RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt) with
 * their seed semantics. Expected updates are literal tables worked out by hand or with
 * Python (Adam); random outputs are checked for range, shape, reproducibility and moments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"

/* ---- Helpers ------------------------------------------------------------------------------ */

#include "kernel_test_util.h"

static inline void expect_f64_near(graft_tensor *t, const int64_t *dims, int ndims, const double *values, double tol) {
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

/* Fetched float32 values against double-precision ones: |got - want| <= rel * |want| + abs.
 * Frees t. */
static void expect_f32_close(graft_tensor *t, const double *want, int n, double rel, double abs, const char *what) {
  const float *got = graft_tensor_data(t);
  for (int i = 0; i < n; ++i) {
    if (!(fabs(got[i] - want[i]) <= rel * fabs(want[i]) + abs)) {
      print_error("%s element %d: %.9g, expected %.9g\n", what, i, (double)got[i], want[i]);
      fail();
    }
  }
  graft_tensor_free(t);
}

/* ---- Variables ------------------------------------------------------------------------------ */

static graft_op *ref_var(graft_graph *g, const char *name, graft_dtype dt, const int64_t *dims, int ndims) {
  graft_op_desc *d = desc(g, "VariableV2", name);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", dt));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", dims, ndims));
  return fin(d);
}

static graft_op *res_op(graft_graph *g, const char *type, const char *name, graft_op *h, graft_op *v, graft_dtype dt) {
  graft_op_desc *d = desc(g, type, name);
  in(d, h);
  if (v) in(d, v);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", dt));
  return fin(d);
}


static void test_apply_gradient_descent(void **state) {
  graft_graph *g = *state;
  graft_op *w = ref_var(g, "w", GRAFT_FLOAT32, D(3));
  graft_op *init = make_binary(g, "Assign", "init", w, konst(g, "w0", GRAFT_FLOAT32, D(3), (const float[]){1, 2, 3}));
  graft_op *alpha = make_const(g, "alpha", 0.5f);
  graft_op *delta = konst(g, "delta", GRAFT_FLOAT32, D(3), (const float[]){2, -2, 4});
  graft_op *apply = op3(g, "ApplyGradientDescent", "apply", w, alpha, delta);
  graft_op *read = op1(g, "Identity", "read", w);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fa = {apply, 0};
  graft_tensor *out = NULL;
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(&out, s, NULL, NULL, 0, &fa, 1, NULL, 0), "ApplyGradientDescent op 'apply'",
         "uninitialized value w");
  session_run_target(s, init);
  graft_tensor *before = session_fetch(s, read);
  /* w -= 0.5 * delta; the output is the variable's new value. */
  expect(session_fetch(s, apply), GRAFT_FLOAT32, D(3), (const float[]){0, 3, 1});
  session_run_target(s, apply);
  expect(session_fetch(s, read), GRAFT_FLOAT32, D(3), (const float[]){-1, 4, -1});
  /* A value read before the updates is unchanged by them. */
  expect(before, GRAFT_FLOAT32, D(3), (const float[]){1, 2, 3});
  graft_session_free(s);

  /* float64, and the run-time shape errors with fed alpha / delta. */
  graft_op *v = ref_var(g, "v", GRAFT_FLOAT64, D(2));
  graft_op *vinit = make_binary(g, "Assign", "vinit", v, konst(g, "v0", GRAFT_FLOAT64, D(2), (const double[]){1, 1}));
  graft_op *pa = ph(g, "pa", GRAFT_FLOAT64);
  graft_op *pd = ph(g, "pd", GRAFT_FLOAT64);
  graft_op *vapply = op3(g, "ApplyGradientDescent", "vapply", v, pa, pd);
  GT_OK(graft_session_new(&s, g, NULL));
  session_run_target(s, vinit);
  graft_output feeds[2] = {{pa, 0}, {pd, 0}};
  graft_tensor *vals[2] = {tensor(GRAFT_FLOAT64, SCALAR, (const double[]){0.25}),
                           tensor(GRAFT_FLOAT64, D(2), (const double[]){4, -8})};
  graft_output fv = {vapply, 0};
  GT_OK(graft_session_run(&out, s, feeds, vals, 2, &fv, 1, NULL, 0));
  expect(out, GRAFT_FLOAT64, D(2), (const double[]){0, 3});
  graft_tensor_free(vals[0]);
  vals[0] = tensor(GRAFT_FLOAT64, D(2), (const double[]){1, 1});
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, feeds, vals, 2, &fv, 1, NULL, 0), "ApplyGradientDescent op 'vapply'",
         "alpha is not a scalar: [2]");
  graft_tensor_free(vals[0]);
  graft_tensor_free(vals[1]);
  vals[0] = tensor(GRAFT_FLOAT64, SCALAR, (const double[]){1});
  vals[1] = tensor(GRAFT_FLOAT64, D(3), (const double[]){1, 1, 1});
  GT_ERR(GRAFT_EINVAL, graft_session_run(&out, s, feeds, vals, 2, &fv, 1, NULL, 0), "ApplyGradientDescent op 'vapply'",
         "var and delta do not have the same shape[2] [3]");
  graft_tensor_free(vals[0]);
  graft_tensor_free(vals[1]);
  graft_session_free(s);
}

static void test_resource_apply_gradient_descent(void **state) {
  graft_graph *g = *state;
  graft_op *h = res_var(g, "h", GRAFT_FLOAT32, D(2, 2));
  graft_op *init = res_op(g, "AssignVariableOp", "init", h, konst(g, "h0", GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4}),
                          GRAFT_FLOAT32);
  graft_op *apply = op3(g, "ResourceApplyGradientDescent", "apply", h, make_const(g, "alpha", 2.0f),
                        konst(g, "delta", GRAFT_FLOAT32, D(2, 2), (const float[]){0.5f, 0.25f, -1, 0}));
  graft_op *read = res_op(g, "ReadVariableOp", "read", h, NULL, GRAFT_FLOAT32);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  GT_ERR(GRAFT_EPRECONDITION, graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &apply, 1),
         "ResourceApplyGradientDescent op 'apply'", "uninitialized value h");
  session_run_target(s, init);
  graft_tensor *before = session_fetch(s, read);
  session_run_target(s, apply);
  expect(session_fetch(s, read), GRAFT_FLOAT32, D(2, 2), (const float[]){0, 1.5f, 5, 4});
  session_run_target(s, apply);
  expect(session_fetch(s, read), GRAFT_FLOAT32, D(2, 2), (const float[]){-1, 1, 7, 4});
  expect(before, GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4});
  graft_session_free(s);
}

/* Adam from var [1, 2], m = v = 0, lr 0.1, beta1 0.9, beta2 0.999, epsilon 1e-8: step 1 with
 * grad [0.5, -1] and beta powers 0.9 / 0.999, step 2 with grad [0.25, 1] and powers
 * 0.81 / 0.998001 (values from Python, double precision). */
static const double kAdamVar[2][2][2] = {
    {{0.9000000632455132, 2.0999999683772335}, {0.806782152117492, 2.0947368116596685}},
    {{0.8100001201664752, 2.1899999399167434}, {0.6928118890341057, 2.1326315316952864}}, /* nesterov */
};
static const double kAdamM[2][2] = {{0.05, -0.1}, {0.07, 0.01}};
static const double kAdamV[2][2] = {{0.00025, 0.001}, {0.00031225, 0.001999}};

static graft_op *adam_op(graft_graph *g, const char *type, const char *name, graft_op *const *vars, graft_op *const *scalars,
                         graft_op *grad, int nesterov) {
  graft_op_desc *d = desc(g, type, name);
  for (int i = 0; i < 3; ++i) in(d, vars[i]);
  for (int i = 0; i < 6; ++i) in(d, scalars[i]);
  in(d, grad);
  if (nesterov) GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "use_nesterov", 1));
  return fin(d);
}

static void check_adam(int nesterov, int resource, graft_graph *g) {
  const char *pre = nesterov ? "n" : "p";
  char name[64];
  graft_op *vars[3], *inits[3], *reads[3];
  const char *vn[3] = {"var", "m", "v"};
  const double start[3][2] = {{1, 2}, {0, 0}, {0, 0}};
  for (int i = 0; i < 3; ++i) {
    snprintf(name, sizeof name, "%s%s%s", pre, resource ? "r" : "", vn[i]);
    vars[i] = resource ? res_var(g, name, GRAFT_FLOAT64, D(2)) : ref_var(g, name, GRAFT_FLOAT64, D(2));
    snprintf(name, sizeof name, "%s%s%s/init_value", pre, resource ? "r" : "", vn[i]);
    graft_op *value = konst(g, name, GRAFT_FLOAT64, D(2), start[i]);
    snprintf(name, sizeof name, "%s%s%s/init", pre, resource ? "r" : "", vn[i]);
    inits[i] = resource ? res_op(g, "AssignVariableOp", name, vars[i], value, GRAFT_FLOAT64)
                        : make_binary(g, "Assign", name, vars[i], value);
    snprintf(name, sizeof name, "%s%s%s/read", pre, resource ? "r" : "", vn[i]);
    reads[i] = resource ? res_op(g, "ReadVariableOp", name, vars[i], NULL, GRAFT_FLOAT64) : op1(g, "Identity", name, vars[i]);
  }
  graft_op *ph_b1p = NULL, *ph_b2p = NULL, *scalars[6], *pgrad = NULL;
  snprintf(name, sizeof name, "%s%sb1p", pre, resource ? "r" : "");
  ph_b1p = make_placeholder(g, name, GRAFT_FLOAT64, NULL, -1);
  snprintf(name, sizeof name, "%s%sb2p", pre, resource ? "r" : "");
  ph_b2p = make_placeholder(g, name, GRAFT_FLOAT64, NULL, -1);
  const double consts[4] = {0.1, 0.9, 0.999, 1e-8};
  scalars[0] = ph_b1p;
  scalars[1] = ph_b2p;
  for (int i = 0; i < 4; ++i) {
    snprintf(name, sizeof name, "%s%sc%d", pre, resource ? "r" : "", i);
    scalars[2 + i] = konst(g, name, GRAFT_FLOAT64, SCALAR, &consts[i]);
  }
  snprintf(name, sizeof name, "%s%sgrad", pre, resource ? "r" : "");
  pgrad = make_placeholder(g, name, GRAFT_FLOAT64, (const int64_t[]){2}, 1);
  snprintf(name, sizeof name, "%s%sadam", pre, resource ? "r" : "");
  graft_op *adam = adam_op(g, resource ? "ResourceApplyAdam" : "ApplyAdam", name, vars, scalars, pgrad, nesterov);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  for (int i = 0; i < 3; ++i) session_run_target(s, inits[i]);
  const double powers[2][2] = {{0.9, 0.999}, {0.81, 0.998001}};
  const double grads[2][2] = {{0.5, -1}, {0.25, 1}};
  for (int step = 0; step < 2; ++step) {
    graft_output feeds[3] = {{ph_b1p, 0}, {ph_b2p, 0}, {pgrad, 0}};
    graft_tensor *vals[3] = {tensor(GRAFT_FLOAT64, SCALAR, &powers[step][0]), tensor(GRAFT_FLOAT64, SCALAR, &powers[step][1]),
                             tensor(GRAFT_FLOAT64, D(2), grads[step])};
    GT_OK(graft_session_run(NULL, s, feeds, vals, 3, NULL, 0, &adam, 1));
    for (int i = 0; i < 3; ++i) graft_tensor_free(vals[i]);
    expect_f64_near(session_fetch(s, reads[0]), D(2), kAdamVar[nesterov][step], 1e-12);
    expect_f64_near(session_fetch(s, reads[1]), D(2), kAdamM[step], 1e-15);
    expect_f64_near(session_fetch(s, reads[2]), D(2), kAdamV[step], 1e-15);
  }
  /* A scalar input that is not a scalar. */
  graft_output feeds[3] = {{ph_b1p, 0}, {ph_b2p, 0}, {pgrad, 0}};
  graft_tensor *vals[3] = {tensor(GRAFT_FLOAT64, SCALAR, &powers[0][0]), tensor(GRAFT_FLOAT64, SCALAR, &powers[0][1]),
                           tensor(GRAFT_FLOAT64, D(2), grads[0])};
  graft_tensor_free(vals[0]);
  vals[0] = tensor(GRAFT_FLOAT64, D(1), &powers[0][0]);
  GT_ERR(GRAFT_EINVAL, graft_session_run(NULL, s, feeds, vals, 3, NULL, 0, &adam, 1), "beta1_power is not a scalar: [1]");
  for (int i = 0; i < 3; ++i) graft_tensor_free(vals[i]);
  graft_session_free(s);
}

static void test_apply_adam(void **state) {
  check_adam(0, 0, *state);
  check_adam(1, 0, *state);
  check_adam(0, 1, *state);
  check_adam(1, 1, *state);
}

/* ResourceApplyMomentum (a slot-variable update, split like Adam's) on the same large float32
 * variable: two steps of accum = accum * momentum + g; var -= lr * accum. */
static void test_apply_momentum_large_float(void **state) {
  graft_graph *g = *state;
  enum { kN = 100003 };
  const int64_t dims[1] = {kN};
  float *start = malloc(kN * sizeof(float)), *grad = malloc(kN * sizeof(float)), *zeros = calloc(kN, sizeof(float));
  double *w = malloc(kN * sizeof(double)), *acc = calloc(kN, sizeof(double));
  assert_true(start && grad && zeros && w && acc);
  for (int i = 0; i < kN; ++i) {
    w[i] = start[i] = (float)((i % 1013) - 506) / 100.0f;
    grad[i] = (float)((i * 7919) % 2003 - 1001) / 997.0f;
  }
  graft_op *var = res_var(g, "mvar", GRAFT_FLOAT32, dims, 1), *accum = res_var(g, "maccum", GRAFT_FLOAT32, dims, 1);
  graft_op *inits[2] = {res_op(g, "AssignVariableOp", "mvar/init", var, konst(g, "mvar/value", GRAFT_FLOAT32, dims, 1, start),
                               GRAFT_FLOAT32),
                        res_op(g, "AssignVariableOp", "maccum/init", accum,
                               konst(g, "maccum/value", GRAFT_FLOAT32, dims, 1, zeros), GRAFT_FLOAT32)};
  graft_op *reads[2] = {res_op(g, "ReadVariableOp", "mvar/read", var, NULL, GRAFT_FLOAT32),
                        res_op(g, "ReadVariableOp", "maccum/read", accum, NULL, GRAFT_FLOAT32)};
  const float lr = 0.05f, momentum = 0.9f;
  graft_op_desc *d = desc(g, "ResourceApplyMomentum", "momentum");
  in(d, var);
  in(d, accum);
  in(d, konst(g, "mlr", GRAFT_FLOAT32, SCALAR, &lr));
  in(d, konst(g, "mgrad", GRAFT_FLOAT32, dims, 1, grad));
  in(d, konst(g, "mmomentum", GRAFT_FLOAT32, SCALAR, &momentum));
  graft_op *apply = fin(d);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, inits, 2));
  for (int step = 0; step < 2; ++step) {
    session_run_target(s, apply);
    for (int i = 0; i < kN; ++i) {
      acc[i] = acc[i] * (double)momentum + grad[i];
      w[i] -= (double)lr * acc[i];
    }
    expect_f32_close(session_fetch(s, reads[0]), w, kN, 1e-5, 1e-5, "var");
    expect_f32_close(session_fetch(s, reads[1]), acc, kN, 1e-5, 1e-5, "accum");
  }
  graft_session_free(s);
  free(start);
  free(grad);
  free(zeros);
  free(w);
  free(acc);
}

/* ---- Updates with slot variables ------------------------------------------------------------ */

/* One slot-variable update op: var [1, 2] and its slots (starting at slot0), the inputs after
 * them (`after`, NAN standing for the fed grad), two steps with grads [0.5, -1] and [0.25, 1];
 * the expected var and slots after each step (from NumPy, double precision). */
struct SlotCase {
  const char *type;
  int nslots;
  double slot0[3][2];
  int nafter;
  double after[7];
  int nesterov;
  double var[2][2];
  double slots[2][3][2]; /* [step][slot][element] */
};

static const struct SlotCase kSlotCases[] = {
    {"Momentum", 1, {{0, 0}}, 3, {0.1, NAN, 0.9}, 0, {{0.95, 2.1}, {0.88, 2.09}}, {{{0.5, -1}}, {{0.7, 0.1}}}},
    {"Momentum", 1, {{0, 0}}, 3, {0.1, NAN, 0.9}, 1, {{0.905, 2.19}, {0.817, 2.081}}, {{{0.5, -1}}, {{0.7, 0.1}}}},
    {"KerasMomentum", 1, {{0, 0}}, 3, {0.1, NAN, 0.9}, 0, {{0.95, 2.1}, {0.88, 2.09}},
     {{{-0.05, 0.1}}, {{-0.07, -0.01}}}},
    {"KerasMomentum", 1, {{0, 0}}, 3, {0.1, NAN, 0.9}, 1, {{0.905, 2.19}, {0.817, 2.081}},
     {{{-0.05, 0.1}}, {{-0.07, -0.01}}}},
    {"Adagrad", 1, {{0.1, 0.1}}, 2, {0.1, NAN}, 0,
     {{0.9154845745271484, 2.0953462589245593}, {0.8765596273190722, 2.026339702990324}},
     {{{0.35, 1.1}}, {{0.4125, 2.1}}}},
    {"AdagradV2", 1, {{0.1, 0.1}}, 3, {0.1, 0.5, NAN}, 0,
     {{0.9541960108450191, 2.0645657468435474}, {0.9323096063937489, 2.0132610076749557}},
     {{{0.35, 1.1}}, {{0.4125, 2.1}}}},
    {"RMSProp", 2, {{1, 1}, {0, 0}}, 5, {0.1, 0.9, 0.5, 0.01, NAN}, 0,
     {{0.9482912310004981, 2.099503719020999}, {0.8953005787942843, 2.0497518595104998}},
     {{{0.925, 1.0}, {0.05170876899950192, -0.09950371902099893}},
      {{0.83875, 1.0}, {0.052990652206213816, 0.049751859510499465}}}},
    {"CenteredRMSProp", 3, {{0, 0}, {1, 1}, {0, 0}}, 5, {0.1, 0.9, 0.5, 0.01, NAN}, 0,
     {{0.9482219626921502, 2.1}, {0.8951180040300382, 2.0504913546865002}},
     {{{0.05, -0.1}, {0.925, 1.0}, {0.05177803730784977, -0.1}},
      {{0.07, 0.01}, {0.83875, 1.0}, {0.05310395866211206, 0.04950864531349994}}}},
    /* vhat starts above v in element 0, so the maximum keeps it. */
    {"AdamWithAmsgrad", 3, {{0, 0}, {0, 0}, {0.0005, 0.0005}}, 7, {0.9, 0.999, 0.1, 0.9, 0.999, 1e-8, NAN}, 0,
     {{0.9292893535041077, 2.0999999683772335}, {0.8302944484098584, 2.0929271337171556}},
     {{{0.05, -0.1}, {0.00025, 0.001}, {0.0005, 0.001}},
      {{0.07, 0.01}, {0.00031225, 0.001999}, {0.0005, 0.001999}}}},
};

static void check_slot_update(graft_graph *g, const struct SlotCase *c, int resource, int index) {
  char name[64], type[64];
  snprintf(type, sizeof type, "%sApply%s", resource ? "Resource" : "", c->type);
  if (!resource && (strcmp(c->type, "KerasMomentum") == 0 || strcmp(c->type, "AdagradV2") == 0 ||
                    strcmp(c->type, "AdamWithAmsgrad") == 0)) {
    return; /* resource forms only, as in TensorFlow */
  }
  const int nvars = 1 + c->nslots;
  graft_op *vars[4], *inits[4], *reads[4];
  for (int i = 0; i < nvars; ++i) {
    const double start[2] = {i == 0 ? 1 : c->slot0[i - 1][0], i == 0 ? 2 : c->slot0[i - 1][1]};
    snprintf(name, sizeof name, "c%d_%d_var%d", index, resource, i);
    vars[i] = resource ? res_var(g, name, GRAFT_FLOAT64, D(2)) : ref_var(g, name, GRAFT_FLOAT64, D(2));
    snprintf(name, sizeof name, "c%d_%d_var%d/init_value", index, resource, i);
    graft_op *value = konst(g, name, GRAFT_FLOAT64, D(2), start);
    snprintf(name, sizeof name, "c%d_%d_var%d/init", index, resource, i);
    inits[i] = resource ? res_op(g, "AssignVariableOp", name, vars[i], value, GRAFT_FLOAT64)
                        : make_binary(g, "Assign", name, vars[i], value);
    snprintf(name, sizeof name, "c%d_%d_var%d/read", index, resource, i);
    reads[i] = resource ? res_op(g, "ReadVariableOp", name, vars[i], NULL, GRAFT_FLOAT64) : op1(g, "Identity", name, vars[i]);
  }
  snprintf(name, sizeof name, "c%d_%d_grad", index, resource);
  graft_op *grad = make_placeholder(g, name, GRAFT_FLOAT64, NULL, -1); /* any shape: checked at run time */
  snprintf(name, sizeof name, "c%d_%d_apply", index, resource);
  graft_op_desc *d = desc(g, type, name);
  for (int i = 0; i < nvars; ++i) in(d, vars[i]);
  for (int i = 0; i < c->nafter; ++i) {
    if (isnan(c->after[i])) {
      in(d, grad);
    } else {
      snprintf(name, sizeof name, "c%d_%d_s%d", index, resource, i);
      in(d, konst(g, name, GRAFT_FLOAT64, SCALAR, &c->after[i]));
    }
  }
  if (c->nesterov) GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "use_nesterov", 1));
  graft_op *apply = fin(d);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  const double grads[2][2] = {{0.5, -1}, {0.25, 1}};
  {
    graft_output feed = {grad, 0};
    graft_tensor *val = tensor(GRAFT_FLOAT64, D(2), grads[0]);
    GT_ERR(GRAFT_EPRECONDITION, graft_session_run(NULL, s, &feed, &val, 1, NULL, 0, &apply, 1), type,
           "uninitialized value");
    graft_tensor_free(val);
  }
  for (int i = 0; i < nvars; ++i) session_run_target(s, inits[i]);
  for (int step = 0; step < 2; ++step) {
    graft_output feed = {grad, 0};
    graft_tensor *val = tensor(GRAFT_FLOAT64, D(2), grads[step]);
    if (!resource) {
      /* The reference form's output is the updated variable. */
      graft_output f = {apply, 0};
      graft_tensor *out = NULL;
      GT_OK(graft_session_run(&out, s, &feed, &val, 1, &f, 1, NULL, 0));
      expect_f64_near(out, D(2), c->var[step], 1e-12);
    } else {
      GT_OK(graft_session_run(NULL, s, &feed, &val, 1, NULL, 0, &apply, 1));
    }
    graft_tensor_free(val);
    expect_f64_near(session_fetch(s, reads[0]), D(2), c->var[step], 1e-12);
    for (int i = 1; i < nvars; ++i) expect_f64_near(session_fetch(s, reads[i]), D(2), c->slots[step][i - 1], 1e-12);
  }
  /* A grad of another shape. */
  graft_output feed = {grad, 0};
  graft_tensor *val = tensor(GRAFT_FLOAT64, D(2), grads[0]);
  graft_tensor_free(val);
  val = tensor(GRAFT_FLOAT64, D(3), (const double[]){1, 2, 3});
  GT_ERR(GRAFT_EINVAL, graft_session_run(NULL, s, &feed, &val, 1, NULL, 0, &apply, 1), type,
         "var and grad do not have the same shape");
  graft_tensor_free(val);
  graft_session_free(s);
}

/* Adam on a float32 variable large enough to be split over the intra-op threads (and, on x86-64
 * with GCC, run in its AVX-512 or AVX2 build), with an odd tail: two steps against the update
 * worked out here in double precision, plain and nesterov. */
static void test_apply_adam_large_float(void **state) {
  graft_graph *g = *state;
  enum { kN = 100003 };
  const int64_t dims[1] = {kN};
  float *start = malloc(kN * sizeof(float)), *grad = malloc(kN * sizeof(float)), *zeros = calloc(kN, sizeof(float));
  double *w = malloc(kN * sizeof(double)), *m = malloc(kN * sizeof(double)), *v = malloc(kN * sizeof(double));
  assert_true(start && grad && zeros && w && m && v);
  for (int i = 0; i < kN; ++i) {
    start[i] = (float)((i % 1009) - 504) / 100.0f;
    grad[i] = (float)((i * 7919) % 2003 - 1001) / 997.0f;
  }
  const float values[6] = {0.9f, 0.999f, 0.01f, 0.9f, 0.999f, 1e-7f}; /* powers, lr, beta1, beta2, epsilon */
  for (int nesterov = 0; nesterov < 2; ++nesterov) {
    char name[32];
    graft_op *vars[3], *reads[3], *inits[3];
    for (int i = 0; i < 3; ++i) {
      snprintf(name, sizeof name, "big%d_%d", nesterov, i);
      vars[i] = res_var(g, name, GRAFT_FLOAT32, dims, 1);
      snprintf(name, sizeof name, "big%d_%d/value", nesterov, i);
      graft_op *value = konst(g, name, GRAFT_FLOAT32, dims, 1, i == 0 ? start : zeros);
      snprintf(name, sizeof name, "big%d_%d/init", nesterov, i);
      inits[i] = res_op(g, "AssignVariableOp", name, vars[i], value, GRAFT_FLOAT32);
      snprintf(name, sizeof name, "big%d_%d/read", nesterov, i);
      reads[i] = res_op(g, "ReadVariableOp", name, vars[i], NULL, GRAFT_FLOAT32);
    }
    graft_op *scalars[6];
    for (int i = 0; i < 6; ++i) {
      snprintf(name, sizeof name, "big%d_s%d", nesterov, i);
      scalars[i] = konst(g, name, GRAFT_FLOAT32, SCALAR, &values[i]);
    }
    snprintf(name, sizeof name, "big%d_grad", nesterov);
    graft_op *grad_op = konst(g, name, GRAFT_FLOAT32, dims, 1, grad);
    snprintf(name, sizeof name, "big%d_adam", nesterov);
    graft_op *adam = adam_op(g, "ResourceApplyAdam", name, vars, scalars, grad_op, nesterov);
    graft_session *s = NULL;
    GT_OK(graft_session_new(&s, g, NULL));
    GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, inits, 3));
    for (int i = 0; i < kN; ++i) {
      w[i] = start[i];
      m[i] = v[i] = 0;
    }
    const double b1 = values[3], b2 = values[4], eps = values[5];
    const double lr_t = (double)values[2] * sqrt(1 - (double)values[1]) / (1 - (double)values[0]);
    for (int step = 0; step < 2; ++step) {
      session_run_target(s, adam);
      for (int i = 0; i < kN; ++i) {
        const double gi = grad[i];
        m[i] += (gi - m[i]) * (1 - b1);
        v[i] += (gi * gi - v[i]) * (1 - b2);
        w[i] -= (nesterov ? gi * (1 - b1) + b1 * m[i] : m[i]) * lr_t / (sqrt(v[i]) + eps);
      }
      /* w to 1e-5 of its size; m and v (v ~ 1e-3 g^2) to 1e-5 relative. */
      expect_f32_close(session_fetch(s, reads[0]), w, kN, 1e-5, 1e-5, nesterov ? "nesterov var" : "var");
      expect_f32_close(session_fetch(s, reads[1]), m, kN, 1e-5, 1e-12, nesterov ? "nesterov m" : "m");
      expect_f32_close(session_fetch(s, reads[2]), v, kN, 1e-5, 1e-12, nesterov ? "nesterov v" : "v");
    }
    graft_session_free(s);
  }
  free(start);
  free(grad);
  free(zeros);
  free(w);
  free(m);
  free(v);
}

static void test_slot_updates(void **state) {
  for (size_t i = 0; i < sizeof kSlotCases / sizeof kSlotCases[0]; ++i) {
    check_slot_update(*state, &kSlotCases[i], 0, (int)i);
    check_slot_update(*state, &kSlotCases[i], 1, (int)i);
  }
}


/* ---- Row-wise (sparse) updates ----------------------------------------------------------- */

/* Inputs of an update, one char each: 'v' var, '1'..'3' slots, 'a'..'d' scalars, 'g' grad, 'i'
 * indices. */
typedef struct {
  const char *dense, *sparse;
  const char *dense_inputs, *sparse_inputs;
  int nslots;
  double scalars[4];
  int nesterov;
} sparse_case;

static const sparse_case kSparseCases[] = {
    {"ResourceApplyMomentum", "ResourceSparseApplyMomentum", "v1agb", "v1agib", 1, {0.1, 0.9}, 0},
    {"ResourceApplyMomentum", "ResourceSparseApplyMomentum", "v1agb", "v1agib", 1, {0.1, 0.9}, 1},
    {"ResourceApplyKerasMomentum", "ResourceSparseApplyKerasMomentum", "v1agb", "v1agib", 1, {0.1, 0.9}, 1},
    {"ResourceApplyAdagrad", "ResourceSparseApplyAdagrad", "v1ag", "v1agi", 1, {0.1}, 0},
    {"ResourceApplyAdagradV2", "ResourceSparseApplyAdagradV2", "v1abg", "v1abgi", 1, {0.1, 1e-7}, 0},
    {"ResourceApplyRMSProp", "ResourceSparseApplyRMSProp", "v12abcdg", "v12abcdgi", 2, {0.1, 0.9, 0.5, 1e-10}, 0},
    {"ResourceApplyCenteredRMSProp", "ResourceSparseApplyCenteredRMSProp", "v123abcdg", "v123abcdgi", 3,
     {0.1, 0.9, 0.5, 1e-10}, 0},
};

/* Builds var and slots ([3,2] float64: var 1..6, slots 0.5) under prefix and the update of the
 * given inputs; *inits gets the initializers, reads[0..nslots] the reads. */
static graft_op *build_update(graft_graph *g, const sparse_case *c, int sparse, graft_op **inits, graft_op **reads) {
  char name[96];
  const char *prefix = sparse ? c->sparse : c->dense;
  graft_op *vars[4];
  const double var0[6] = {1, 2, 3, 4, 5, 6}, slot0[6] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
  for (int i = 0; i <= c->nslots; ++i) {
    snprintf(name, sizeof name, "%s_%d/v%d", prefix, c->nesterov, i);
    vars[i] = res_var(g, name, GRAFT_FLOAT64, D(3, 2));
    snprintf(name, sizeof name, "%s_%d/v%d/init", prefix, c->nesterov, i);
    inits[i] = res_op(g, "AssignVariableOp", name, vars[i], konst(g, NULL, GRAFT_FLOAT64, D(3, 2), i ? slot0 : var0),
                      GRAFT_FLOAT64);
    snprintf(name, sizeof name, "%s_%d/v%d/read", prefix, c->nesterov, i);
    reads[i] = res_op(g, "ReadVariableOp", name, vars[i], NULL, GRAFT_FLOAT64);
  }
  snprintf(name, sizeof name, "%s_%d/apply", prefix, c->nesterov);
  graft_op_desc *d = desc(g, sparse ? c->sparse : c->dense, name);
  for (const char *p = sparse ? c->sparse_inputs : c->dense_inputs; *p; ++p) {
    if (*p == 'v') in(d, vars[0]);
    else if (*p >= '1' && *p <= '3') in(d, vars[*p - '0']);
    else if (*p >= 'a' && *p <= 'd') in(d, konst(g, NULL, GRAFT_FLOAT64, SCALAR, &c->scalars[*p - 'a']));
    else if (*p == 'g' && sparse) in(d, konst(g, NULL, GRAFT_FLOAT64, D(2, 2), (const double[]){0.5, -1, 0.25, 1}));
    else if (*p == 'g') in(d, konst(g, NULL, GRAFT_FLOAT64, D(3, 2), (const double[]){0.25, 1, 0, 0, 0.5, -1}));
    else if (*p == 'i') in(d, konst(g, NULL, GRAFT_INT64, D(2), (const int64_t[]){2, 0}));
  }
  if (c->nesterov) GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "use_nesterov", 1));
  return fin(d);
}

/* Each sparse update changes the named rows of var and its slots exactly as the dense update
 * with the same rows does, and leaves the other rows as they were. */
static void test_sparse_slot_updates(void **state) {
  for (size_t k = 0; k < sizeof kSparseCases / sizeof kSparseCases[0]; ++k) {
    graft_graph *g = NULL;
    GT_OK(graft_graph_new(&g));
    const sparse_case *c = &kSparseCases[k];
    graft_op *dinit[4], *dread[4], *sinit[4], *sread[4];
    graft_op *dense = build_update(g, c, 0, dinit, dread);
    graft_op *sparse = build_update(g, c, 1, sinit, sread);
    graft_session *s = NULL;
    GT_OK(graft_session_new(&s, g, NULL));
    for (int i = 0; i <= c->nslots; ++i) {
      session_run_target(s, dinit[i]);
      session_run_target(s, sinit[i]);
    }
    for (int step = 0; step < 2; ++step) {
      session_run_target(s, dense);
      session_run_target(s, sparse);
    }
    for (int i = 0; i <= c->nslots; ++i) {
      graft_tensor *dt = session_fetch(s, dread[i]), *st = session_fetch(s, sread[i]);
      const double *dv = graft_tensor_data(dt), *sv = graft_tensor_data(st);
      for (int e = 0; e < 6; ++e) {
        const double want = e / 2 == 1 ? (i ? 0.5 : e + 1) : dv[e]; /* row 1: untouched */
        if (fabs(sv[e] - want) > 1e-12) {
          print_error("%s (nesterov %d) input %d element %d: %.17g, expected %.17g\n", c->sparse, c->nesterov, i, e,
                      sv[e], want);
          fail();
        }
      }
      graft_tensor_free(dt);
      graft_tensor_free(st);
    }
    graft_session_free(s);
    graft_graph_free(g);
  }
}

/* Bad rows and a grad of the wrong shape are errors that leave the variables as they were. */
static void test_sparse_update_errors(void **state) {
  graft_graph *g = *state;
  graft_op *v = res_var(g, "v", GRAFT_FLOAT32, D(2, 2)), *a = res_var(g, "a", GRAFT_FLOAT32, D(2, 2));
  graft_op *inits[2] = {res_op(g, "AssignVariableOp", "vi", v, konst(g, NULL, GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4}), GRAFT_FLOAT32),
                        res_op(g, "AssignVariableOp", "ai", a, konst(g, NULL, GRAFT_FLOAT32, D(2, 2), (const float[]){1, 1, 1, 1}), GRAFT_FLOAT32)};
  graft_op *lr = make_const(g, "lr", 0.5f);
  graft_op *idx = ph(g, "idx", GRAFT_INT32);
  graft_op_desc *d = desc(g, "ResourceSparseApplyAdagrad", "apply");
  in(d, v);
  in(d, a);
  in(d, lr);
  in(d, konst(g, NULL, GRAFT_FLOAT32, D(2, 2), (const float[]){1, 1, 1, 1}));
  in(d, idx);
  graft_op *apply = fin(d);
  graft_op *read = res_op(g, "ReadVariableOp", "read", v, NULL, GRAFT_FLOAT32);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  session_run_target(s, inits[0]);
  session_run_target(s, inits[1]);
  graft_output feed = {idx, 0};
  graft_tensor *bad = tensor(GRAFT_INT32, D(2), (const int32_t[]){1, 2});
  GT_ERR(GRAFT_EINVAL, graft_session_run(NULL, s, &feed, &bad, 1, NULL, 0, &apply, 1), "ResourceSparseApplyAdagrad op 'apply'",
         "indices[1] = 2 is not in [0, 2)");
  graft_tensor_free(bad);
  bad = tensor(GRAFT_INT32, D(1), (const int32_t[]){1});
  GT_ERR(GRAFT_EINVAL, graft_session_run(NULL, s, &feed, &bad, 1, NULL, 0, &apply, 1), "ResourceSparseApplyAdagrad op 'apply'",
         "grad must have shape [1,2]");
  graft_tensor_free(bad);
  expect(session_fetch(s, read), GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4});
  graft_session_free(s);
}

/* ---- Random ops ------------------------------------------------------------------------------ */

static graft_op *random_op(graft_graph *g, const char *type, const char *name, graft_op *shape, graft_dtype dt,
                           int64_t seed, int64_t seed2) {
  graft_op_desc *d = desc(g, type, name);
  in(d, shape);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", dt));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "seed", seed));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "seed2", seed2));
  return fin(d);
}

static int same_bytes(const graft_tensor *a, const graft_tensor *b) {
  return graft_tensor_byte_size(a) == graft_tensor_byte_size(b) &&
         memcmp(graft_tensor_data(a), graft_tensor_data(b), graft_tensor_byte_size(a)) == 0;
}

static void moments(const graft_tensor *t, double *mean, double *var) {
  int64_t n = graft_tensor_num_elements(t);
  double s = 0, s2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = graft_tensor_dtype(t) == GRAFT_FLOAT32 ? ((const float *)graft_tensor_data(t))[i]
                                                      : ((const double *)graft_tensor_data(t))[i];
    s += x;
    s2 += x * x;
  }
  *mean = s / (double)n;
  *var = s2 / (double)n - *mean * *mean;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The Kolmogorov-Smirnov statistic of t's samples against cdf: the largest distance between
 * the empirical and the expected distribution functions. */
static double ks_statistic(const graft_tensor *t, double (*cdf)(double)) {
  int64_t n = graft_tensor_num_elements(t);
  double *x = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = graft_tensor_dtype(t) == GRAFT_FLOAT32 ? ((const float *)graft_tensor_data(t))[i]
                                                  : ((const double *)graft_tensor_data(t))[i];
  }
  qsort(x, (size_t)n, sizeof(double), compare_doubles);
  double d = 0;
  for (int64_t i = 0; i < n; ++i) {
    double f = cdf(x[i]);
    d = fmax(d, fmax(fabs((double)(i + 1) / (double)n - f), fabs(f - (double)i / (double)n)));
  }
  free(x);
  return d;
}

static double uniform_cdf(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }
static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2)); }
/* The standard normal restricted to (-2, 2), as TruncatedNormal draws. */
static double truncated_cdf(double x) {
  double lo = normal_cdf(-2), hi = normal_cdf(2);
  return x <= -2 ? 0 : (x >= 2 ? 1 : (normal_cdf(x) - lo) / (hi - lo));
}

static void test_random_seeds(void **state) {
  graft_graph *g = *state;
  graft_op *shape = konst(g, "shape", GRAFT_INT32, D(2), (const int32_t[]){40, 50});
  graft_op *u = random_op(g, "RandomUniform", "u", shape, GRAFT_FLOAT32, 7, 3);
  graft_op *u_other = random_op(g, "RandomUniform", "u_other", shape, GRAFT_FLOAT32, 7, 4);
  graft_op *fresh = random_op(g, "RandomUniform", "fresh", shape, GRAFT_FLOAT32, 0, 0);
  graft_session *s1 = NULL, *s2 = NULL;
  GT_OK(graft_session_new(&s1, g, NULL));
  GT_OK(graft_session_new(&s2, g, NULL));
  graft_tensor *a1 = session_fetch(s1, u), *a2 = session_fetch(s1, u);
  graft_tensor *b1 = session_fetch(s2, u), *b2 = session_fetch(s2, u);
  expect_dims(a1, D(40, 50));
  /* Fixed seeds: each run differs from the last, and a new session repeats the sequence. */
  assert_false(same_bytes(a1, a2));
  assert_true(same_bytes(a1, b1));
  assert_true(same_bytes(a2, b2));
  graft_tensor *o = session_fetch(s1, u_other);
  assert_false(same_bytes(a1, o));
  /* Seeds (0, 0): fresh randomness in each session. */
  graft_tensor *f1 = session_fetch(s1, fresh), *f2 = session_fetch(s2, fresh);
  assert_false(same_bytes(f1, f2));
  const float *p = graft_tensor_data(a1);
  for (int i = 0; i < 2000; ++i) assert_true(p[i] >= 0.0f && p[i] < 1.0f);
  double mean, var;
  moments(a1, &mean, &var);
  /* Uniform [0, 1): mean 1/2, variance 1/12; 2000 samples: standard error of the mean 0.0065. */
  assert_true(fabs(mean - 0.5) < 0.04);
  assert_true(fabs(var - 1.0 / 12) < 0.01);
  graft_tensor *all[] = {a1, a2, b1, b2, o, f1, f2};
  for (int i = 0; i < N_OF(all); ++i) graft_tensor_free(all[i]);
  graft_session_free(s1);
  graft_session_free(s2);
}

static void test_random_distributions(void **state) {
  graft_graph *g = *state;
  graft_op *shape = konst(g, "shape", GRAFT_INT64, D(1), (const int64_t[]){20000});
  graft_op *ud = random_op(g, "RandomUniform", "ud", shape, GRAFT_FLOAT64, 1, 2);
  graft_op *nf = random_op(g, "RandomStandardNormal", "nf", shape, GRAFT_FLOAT32, 1, 2);
  graft_op *nd = random_op(g, "RandomStandardNormal", "nd", shape, GRAFT_FLOAT64, 5, 0);
  graft_op *tf = random_op(g, "TruncatedNormal", "tf", shape, GRAFT_FLOAT32, 0, 9);
  graft_op *td = random_op(g, "TruncatedNormal", "td", shape, GRAFT_FLOAT64, 11, 12);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  double mean, var;
  graft_tensor *t = session_fetch(s, ud);
  const double *pd = graft_tensor_data(t);
  for (int i = 0; i < 20000; ++i) assert_true(pd[i] >= 0.0 && pd[i] < 1.0);
  moments(t, &mean, &var);
  assert_true(fabs(mean - 0.5) < 0.02 && fabs(var - 1.0 / 12) < 0.005);
  /* The shape of each distribution: a Kolmogorov-Smirnov test at the 1% level (critical
   * distance 1.63 / sqrt(n) = 0.0115 for 20000 samples). A wrong distribution with the right
   * mean and variance (a triangle, a shifted uniform) is far past it. */
  const double ks_critical = 1.63 / sqrt(20000.0);
  assert_true(ks_statistic(t, uniform_cdf) < ks_critical);
  assert_true(ks_statistic(t, normal_cdf) > ks_critical); /* the test tells distributions apart */
  graft_tensor_free(t);
  /* Standard normal: mean 0, variance 1 (20000 samples: standard errors 0.007 and 0.01). */
  graft_op *normals[2] = {nf, nd};
  for (int k = 0; k < 2; ++k) {
    t = session_fetch(s, normals[k]);
    moments(t, &mean, &var);
    assert_true(fabs(mean) < 0.05 && fabs(var - 1) < 0.05);
    assert_true(ks_statistic(t, normal_cdf) < ks_critical);
    assert_true(ks_statistic(t, truncated_cdf) > ks_critical);
    graft_tensor_free(t);
  }
  /* Truncated at two standard deviations: |x| < 2, mean 0, variance 0.77374 (Python). */
  graft_op *truncated[2] = {tf, td};
  for (int k = 0; k < 2; ++k) {
    t = session_fetch(s, truncated[k]);
    for (int i = 0; i < 20000; ++i) {
      double x = k == 0 ? ((const float *)graft_tensor_data(t))[i] : ((const double *)graft_tensor_data(t))[i];
      assert_true(fabs(x) < 2);
    }
    moments(t, &mean, &var);
    assert_true(fabs(mean) < 0.05 && fabs(var - 0.77374) < 0.04);
    assert_true(ks_statistic(t, truncated_cdf) < ks_critical);
    assert_true(ks_statistic(t, normal_cdf) > ks_critical);
    graft_tensor_free(t);
  }
  /* Empty and scalar shapes. */
  graft_op *e = random_op(g, "RandomStandardNormal", "e", konst(g, "es", GRAFT_INT32, D(2), (const int32_t[]){0, 3}),
                          GRAFT_FLOAT32, 1, 1);
  graft_op *sc = random_op(g, "TruncatedNormal", "sc", konst(g, "ss", GRAFT_INT32, D(0), NULL), GRAFT_FLOAT64, 1, 1);
  graft_session_free(s);
  GT_OK(graft_session_new(&s, g, NULL));
  t = session_fetch(s, e);
  expect_dims(t, D(0, 3));
  graft_tensor_free(t);
  t = session_fetch(s, sc);
  expect_dims(t, SCALAR);
  assert_true(fabs(*(const double *)graft_tensor_data(t)) < 2);
  graft_tensor_free(t);
  /* A negative dimension. */
  graft_op *ps = ph(g, "ps", GRAFT_INT32);
  graft_op *bad = random_op(g, "RandomUniform", "bad", ps, GRAFT_FLOAT32, 1, 1);
  expect_error(g, bad, ps, i32v(D(2), (const int32_t[]){2, -1}), GRAFT_EINVAL, "RandomUniform op 'bad'",
               "Dimension -1 must be >= 0");
  graft_session_free(s);
}

static graft_op *random_int(graft_graph *g, const char *name, graft_op *shape, graft_op *lo, graft_op *hi, int64_t seed) {
  graft_op_desc *d = desc(g, "RandomUniformInt", name);
  in(d, shape);
  in(d, lo);
  in(d, hi);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "seed", seed));
  return fin(d);
}

static void test_random_uniform_int(void **state) {
  graft_graph *g = *state;
  graft_op *shape = konst(g, "shape", GRAFT_INT32, D(2), (const int32_t[]){100, 20});
  graft_op *r = random_int(g, "r", shape, konst(g, "lo", GRAFT_INT32, SCALAR, (const int32_t[]){-3}),
                           konst(g, "hi", GRAFT_INT32, SCALAR, (const int32_t[]){5}), 42);
  graft_op *r64 = random_int(g, "r64", shape, konst(g, "lo64", GRAFT_INT64, SCALAR, (const int64_t[]){INT64_MIN}),
                             konst(g, "hi64", GRAFT_INT64, SCALAR, (const int64_t[]){INT64_MAX}), 42);
  graft_session *s = NULL, *s2 = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  GT_OK(graft_session_new(&s2, g, NULL));
  graft_tensor *t = session_fetch(s, r), *t2 = session_fetch(s2, r);
  assert_int_equal(graft_tensor_dtype(t), GRAFT_INT32);
  expect_dims(t, D(100, 20));
  assert_true(same_bytes(t, t2));
  int seen[8] = {0};
  const int32_t *p = graft_tensor_data(t);
  for (int i = 0; i < 2000; ++i) {
    assert_true(p[i] >= -3 && p[i] < 5);
    seen[p[i] + 3]++;
  }
  /* 2000 draws of 8 values: each about 250 times. */
  for (int k = 0; k < 8; ++k) assert_true(seen[k] > 150 && seen[k] < 350);
  graft_tensor_free(t);
  graft_tensor_free(t2);
  /* The full int64 range: both signs occur. */
  t = session_fetch(s, r64);
  const int64_t *q = graft_tensor_data(t);
  int neg = 0;
  for (int i = 0; i < 2000; ++i) neg += q[i] < 0;
  assert_true(neg > 800 && neg < 1200);
  graft_tensor_free(t);
  graft_session_free(s);
  graft_session_free(s2);
  /* minval >= maxval is an error, except for an empty output. */
  graft_op *plo = ph(g, "plo", GRAFT_INT32);
  graft_op *bad = random_int(g, "bad", shape, plo, konst(g, "five", GRAFT_INT32, SCALAR, (const int32_t[]){5}), 1);
  expect_error(g, bad, plo, i32v(SCALAR, (const int32_t[]){5}), GRAFT_EINVAL, "RandomUniformInt op 'bad'",
               "Need minval < maxval: 5 >= 5");
  graft_op *empty = random_int(g, "empty", konst(g, "eshape", GRAFT_INT32, D(1), (const int32_t[]){0}), plo,
                               konst(g, "zero", GRAFT_INT32, SCALAR, (const int32_t[]){0}), 1);
  graft_tensor *v = i32v(SCALAR, (const int32_t[]){5});
  expect(run_feeds(g, empty, 0, 1, &plo, &v), GRAFT_INT32, D(0), NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_apply_gradient_descent, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resource_apply_gradient_descent, setup, teardown),
      cmocka_unit_test_setup_teardown(test_apply_adam, setup, teardown),
      cmocka_unit_test_setup_teardown(test_apply_adam_large_float, setup, teardown),
      cmocka_unit_test_setup_teardown(test_apply_momentum_large_float, setup, teardown),
      cmocka_unit_test_setup_teardown(test_slot_updates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sparse_slot_updates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sparse_update_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_random_seeds, setup, teardown),
      cmocka_unit_test_setup_teardown(test_random_distributions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_random_uniform_int, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_training", tests, NULL, NULL);
}
