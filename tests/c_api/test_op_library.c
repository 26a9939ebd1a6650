/*
 * Op libraries (graft/library.h, graft/kernel.h): examples/plugin's library (ZeroOut, Swish and
 * SwishGrad) loaded at run time works where built-in ops do — graphs and sessions, eager ops,
 * symbolic gradients, GraphDef round trips, sessions on several threads, a SavedModel that a
 * fresh process loads only once the library is loaded — and libraries that are not op
 * libraries, were built for a newer Graft or fail halfway register nothing.
 */
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"
#include "graph_test_util.h"
#include "kernel_test_util.h"

extern char **environ;

static graft_library *load_example(void) {
  graft_library *lib = NULL;
  GT_OK(graft_library_load(&lib, GRAFT_EXAMPLE_OPS));
  return lib;
}

static void test_load_lists_the_ops(void **state) {
  (void)state;
  graft_library *lib = load_example();
  assert_int_equal(graft_library_op_count(lib), 3);
  assert_string_equal(graft_library_op_name(lib, 0), "ZeroOut");
  assert_string_equal(graft_library_op_name(lib, 1), "Swish");
  assert_string_equal(graft_library_op_name(lib, 2), "SwishGrad");
  assert_null(graft_library_op_name(lib, 3));
  assert_non_null(strstr(graft_library_path(lib), "graft_example_ops"));
  assert_true(graft_op_is_registered("Swish"));
  assert_int_equal(graft_gradient_lookup("Swish"), GRAFT_GRADIENT_FUNCTION);
  assert_int_equal(graft_gradient_lookup("ZeroOut"), GRAFT_GRADIENT_NONE);
  /* Loading it again registers nothing again. */
  graft_library *again = load_example();
  assert_string_equal(graft_library_path(again), graft_library_path(lib));
  assert_int_equal(graft_library_op_count(again), 3);
  graft_library_free(again);
  graft_library_free(lib);
}

static double swish(double x) { return x / (1.0 + exp(-x)); }
static double swish_slope(double x) {
  const double s = 1.0 / (1.0 + exp(-x));
  return s + x * s * (1.0 - s);
}

static void test_graph_session_and_gradients(void **state) {
  graft_graph *g = *state;
  graft_library_free(load_example());
  const int32_t z[] = {5, 3, 1, 9};
  graft_tensor *zeroed = run(g, op1(g, "ZeroOut", "zero", konst(g, "z", GRAFT_INT32, D(2, 2), z)));
  expect(zeroed, GRAFT_INT32, D(2, 2), (const int32_t[]){5, 0, 0, 0});
  const float xs[] = {-2.0f, -0.5f, 0.0f, 1.5f, 4.0f};
  graft_op *x = konst(g, "x", GRAFT_FLOAT32, D(5), xs);
  graft_op *y = op1(g, "Swish", "swish", x);
  float want[5], slope[5];
  for (int i = 0; i < 5; ++i) {
    want[i] = (float)swish(xs[i]);
    slope[i] = (float)swish_slope(xs[i]);
  }
  expect_f32_near(run(g, y), D(5), want, 1e-6f);
  /* dy/dx through the library's gradient function and its SwishGrad kernel. */
  graft_output dx;
  graft_output ys = {y, 0}, xo = {x, 0};
  GT_OK(graft_graph_add_gradients(&dx, g, &ys, 1, &xo, 1, NULL, NULL));
  assert_string_equal(graft_op_type(dx.op), "SwishGrad");
  expect_f32_near(run_feeds(g, dx.op, dx.index, 0, NULL, NULL), D(5), slope, 1e-6f);
  /* float64 through the type constraint; an int32 Swish is refused when made. */
  const double xd[] = {-1.0, 2.0};
  graft_tensor *yd = run(g, op1(g, "Swish", "swish64", konst(g, "xd", GRAFT_FLOAT64, D(2), xd)));
  assert_true(fabs(((const double *)graft_tensor_data(yd))[1] - swish(2.0)) < 1e-12);
  graft_tensor_free(yd);
  graft_op_desc *bad = desc(g, "Swish", "swish_int");
  in(bad, konst(g, "xi", GRAFT_INT32, D(1), z));
  graft_op *unused = NULL;
  GT_ERR(GRAFT_EDTYPE, graft_op_desc_finish(&unused, bad), "Swish");
}

static void test_eager_and_graph_def(void **state) {
  graft_graph *g = *state;
  graft_library_free(load_example());
  graft_context *ctx = NULL;
  GT_OK(graft_context_new(&ctx));
  const int64_t v[] = {7, 8, 9};
  graft_value *in_v = NULL;
  GT_OK(graft_value_from_host(&in_v, ctx, GRAFT_HOST_INT64, v, D(3), GRAFT_INT32));
  graft_op_call *call = NULL;
  GT_OK(graft_op_call_new(&call, ctx, "ZeroOut"));
  GT_OK(graft_op_call_add_input(call, in_v));
  graft_value *out_v = NULL;
  int n = 0;
  GT_OK(graft_op_call_execute(&out_v, 1, &n, call));
  graft_tensor *t = NULL;
  GT_OK(graft_value_to_tensor(&t, out_v));
  expect(t, GRAFT_INT32, D(3), (const int32_t[]){7, 0, 0});
  graft_op_call_free(call);
  graft_value_free(in_v);
  graft_value_free(out_v);
  graft_context_free(ctx);
  /* A GraphDef with the library's op, exported and imported into another graph. */
  const int32_t z[] = {4, 4};
  op1(g, "ZeroOut", "zero_out", konst(g, "z", GRAFT_INT32, D(2), z));
  void *data = NULL;
  size_t len = 0;
  GT_OK(graft_graph_export_graph_def(&data, &len, g, -1, 0));
  graft_graph *g2 = NULL;
  GT_OK(graft_graph_new(&g2));
  graft_import_results *results = NULL;
  GT_OK(graft_graph_import_graph_def(&results, g2, data, len, NULL));
  graft_import_results_free(results);
  graft_buffer_free(data);
  graft_op *imported = NULL;
  if (graft_graph_op_by_name(&imported, g2, "zero_out") != GRAFT_OK) GT_OK(graft_graph_op_by_name(&imported, g2, "import/zero_out"));
  expect(run(g2, imported), GRAFT_INT32, D(2), (const int32_t[]){4, 0});
  graft_graph_free(g2);
}

typedef struct {
  graft_session *session;
  graft_output fetch;
  int failures;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  for (int i = 0; i < 200; ++i) {
    graft_tensor *out = NULL;
    if (graft_session_run(&out, w->session, NULL, NULL, 0, &w->fetch, 1, NULL, 0) != GRAFT_OK ||
        fabsf(((const float *)graft_tensor_data(out))[0] - (float)swish(1.0)) > 1e-6f) {
      w->failures++;
    }
    graft_tensor_free(out);
  }
  return NULL;
}

static void test_sessions_on_several_threads(void **state) {
  graft_graph *g = *state;
  graft_library_free(load_example());
  const float one = 1.0f;
  graft_op *y = op1(g, "Swish", "swish", konst(g, "x", GRAFT_FLOAT32, SCALAR, &one));
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  worker w[4];
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i) {
    w[i] = (worker){s, {y, 0}, 0};
    assert_int_equal(pthread_create(&threads[i], NULL, work, &w[i]), 0);
  }
  for (int i = 0; i < 4; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(w[i].failures, 0);
  }
  graft_session_free(s);
}

static void test_bad_libraries_register_nothing(void **state) {
  (void)state;
  graft_library_free(load_example());
  graft_library *lib = NULL;
  GT_ERR(GRAFT_ENOTFOUND, graft_library_load(&lib, "/nonexistent/libnothing.so"), "/nonexistent/libnothing.so");
  GT_ERR(GRAFT_ENOTFOUND, graft_library_load(&lib, "libm.so.6"), "not a Graft op library");
  GT_ERR(GRAFT_EUNIMPLEMENTED, graft_library_load(&lib, GRAFT_FUTURE_OPS), "kernel ABI version 999");
  /* Fails halfway: the op it defined first and its gradient are not registered either. */
  GT_ERR(GRAFT_EEXISTS, graft_library_load(&lib, GRAFT_CLASH_OPS), "ZeroOut", "graft_example_ops",
         "nothing of it was registered");
  assert_false(graft_op_is_registered("ClashFirst"));
  assert_int_equal(graft_gradient_lookup("ClashFirst"), GRAFT_GRADIENT_UNREGISTERED);
  GT_ERR(GRAFT_EPRECONDITION, graft_library_load(&lib, GRAFT_FAILING_OPS), "license server is unreachable");
  assert_false(graft_op_is_registered("FailingFirst"));
  assert_null(lib);
  /* The C API refuses bad kernel builders. */
  graft_kernel_builder *k = NULL;
  GT_ERR(GRAFT_EINVAL, graft_kernel_builder_new(&k, "ZeroOut", "CPU", NULL, NULL, NULL, NULL), "compute");
  GT_ERR(GRAFT_EINVAL, graft_library_load(&lib, NULL), "path");
}

/* A SavedModel using ZeroOut, loaded by a fresh process (this program run with --child): first
 * without the library (the error names the op and says to load a library), then with it. */
static int child(const char *dir) {
  graft_saved_model *m = NULL;
  if (graft_saved_model_load(&m, dir, NULL, 0, NULL) == GRAFT_OK) {
    fprintf(stderr, "child: the SavedModel loaded without the library\n");
    return 2;
  }
  const char *msg = graft_error_last();
  if (strstr(msg, "ZeroOut") == NULL || strstr(msg, "load that library") == NULL) {
    fprintf(stderr, "child: unexpected error: %s\n", msg);
    return 3;
  }
  graft_library *lib = NULL;
  if (graft_library_load(&lib, GRAFT_EXAMPLE_OPS) != GRAFT_OK) return 4;
  graft_library_free(lib);
  if (graft_saved_model_load(&m, dir, NULL, 0, NULL) != GRAFT_OK) {
    fprintf(stderr, "child: %s\n", graft_error_last());
    return 5;
  }
  const int64_t dims[1] = {3};
  const int32_t v[3] = {6, 6, 6};
  graft_tensor *x = NULL, *y = NULL;
  if (graft_tensor_new(&x, GRAFT_INT32, dims, 1, v, sizeof v) != GRAFT_OK) return 6;
  const char *in_key = "x", *out_key = "y";
  int rc = graft_saved_model_run(&y, m, "serving_default", &in_key, &x, 1, &out_key, 1);
  const int32_t *o = rc == GRAFT_OK ? graft_tensor_data(y) : NULL;
  const int ok = o != NULL && o[0] == 6 && o[1] == 0 && o[2] == 0;
  graft_tensor_free(x);
  graft_tensor_free(y);
  graft_saved_model_free(m);
  return ok ? 0 : 7;
}

static void test_saved_model_loads_once_the_library_is(void **state) {
  graft_graph *g = *state;
  graft_library_free(load_example());
  graft_op *x = make_placeholder(g, "x", GRAFT_INT32, D(-1));
  graft_op *y = op1(g, "ZeroOut", "y", x);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_signature_def *sig = NULL;
  GT_OK(graft_signature_def_new(&sig, "serving_default", NULL));
  GT_OK(graft_signature_def_add(sig, GRAFT_SIGNATURE_INPUT, "x", (graft_output){x, 0}));
  GT_OK(graft_signature_def_add(sig, GRAFT_SIGNATURE_OUTPUT, "y", (graft_output){y, 0}));
  char dir[] = "/tmp/graft_op_library_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char model[sizeof dir + 8];
  snprintf(model, sizeof model, "%s/model", dir);
  const graft_signature_def *sigs[1] = {sig};
  GT_OK(graft_saved_model_save(s, model, NULL, 0, sigs, 1));
  graft_signature_def_free(sig);
  graft_session_free(s);
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  assert_true(n > 0);
  self[n] = '\0';
  char *argv[] = {self, "--child", model, NULL};
  pid_t pid = 0;
  assert_int_equal(posix_spawn(&pid, self, NULL, NULL, argv, environ), 0);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  char cmd[sizeof dir + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0) return child(argv[2]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load_lists_the_ops),
      cmocka_unit_test_setup_teardown(test_graph_session_and_gradients, setup, teardown),
      cmocka_unit_test_setup_teardown(test_eager_and_graph_def, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sessions_on_several_threads, setup, teardown),
      cmocka_unit_test(test_bad_libraries_register_nothing),
      cmocka_unit_test_setup_teardown(test_saved_model_loads_once_the_library_is, setup, teardown),
  };
  return cmocka_run_group_tests_name("op_library", tests, NULL, NULL);
}
