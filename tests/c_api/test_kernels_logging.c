/* CPU kernels for checks and logging (kernels/cpu/logging_kernels.cc): CheckNumerics.
 * Run-time errors are provoked through placeholders so that graph construction cannot catch
 * them first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph_test_util.h"

/* ---- Helpers ------------------------------------------------------------------------------ */

#include "kernel_test_util.h"

static graft_op *check(graft_graph *g, const char *name, graft_op *x, const char *message) {
  graft_op_desc *d = desc(g, "CheckNumerics", name);
  in(d, x);
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "message", message, strlen(message)));
  return fin(d);
}

static graft_tensor *f32(const int64_t *dims, int ndims, const float *v) { return tensor(GRAFT_FLOAT32, dims, ndims, v); }

/* ---- CheckNumerics ----------------------------------------------------------------------- */

static void test_check_numerics(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(3), (const float[]){1, -2.5f, 0});
  expect(run(g, check(g, "c1", x, "ok")), GRAFT_FLOAT32, D(3), (const float[]){1, -2.5f, 0});
  graft_op *xd = konst(g, "xd", GRAFT_FLOAT64, SCALAR, (const double[]){3.25});
  expect(run(g, check(g, "c2", xd, "ok")), GRAFT_FLOAT64, SCALAR, (const double[]){3.25});
  graft_op *e = konst(g, "e", GRAFT_FLOAT32, D(0), NULL);
  expect(run(g, check(g, "c3", e, "ok")), GRAFT_FLOAT32, D(0), NULL);
  graft_op *p = ph(g, "p", GRAFT_FLOAT32);
  graft_op *c = check(g, "c", p, "bad value");
  expect_error(g, c, p, f32(D(2), (const float[]){1, NAN}), GRAFT_EINVAL, "CheckNumerics op 'c'",
               "bad value : Tensor had NaN values");
  expect_error(g, c, p, f32(D(2), (const float[]){-INFINITY, 1}), GRAFT_EINVAL, "CheckNumerics op 'c'",
               "bad value : Tensor had Inf values");
  expect_error(g, c, p, f32(D(2, 1), (const float[]){INFINITY, NAN}), GRAFT_EINVAL, "CheckNumerics op 'c'",
               "bad value : Tensor had Inf and NaN values");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_check_numerics, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_logging", tests, NULL, NULL);
}
