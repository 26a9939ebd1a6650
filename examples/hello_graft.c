/*
 * hello_graft: the main example. Builds a small graph with TensorFlow's semantics (name
 * scopes, inferred shapes), runs it in a session with a fed value and a variable that keeps
 * its state across runs, writes it as a GraphDef and reads it back, and shows how errors are
 * reported.
 */
#include <stdio.h>
#include <stdlib.h>

#include <graft/graft.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != GRAFT_OK) {                                                  \
      fprintf(stderr, "error: %s\n", graft_error_last());                      \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static graft_op *constant(graft_graph *g, const char *name, const int64_t *dims, int ndims, const float *v, size_t n) {
  graft_tensor *t = NULL;
  CHECK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, ndims, v, n * sizeof(float)));
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Const", name));
  CHECK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_tensor_free(t);
  graft_op *op = NULL;
  CHECK(graft_op_desc_finish(&op, d));
  return op;
}

static graft_op *op2(graft_graph *g, const char *type, const char *name, graft_op *a, graft_op *b) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, type, name));
  CHECK(graft_op_desc_add_input(d, (graft_output){a, 0}));
  if (b) CHECK(graft_op_desc_add_input(d, (graft_output){b, 0}));
  graft_op *op = NULL;
  CHECK(graft_op_desc_finish(&op, d));
  return op;
}

static void print_tensor(const char *label, const graft_tensor *t) {
  const float *v = graft_tensor_data(t);
  printf("%s = [", label);
  for (int64_t i = 0; i < graft_tensor_num_elements(t); ++i) printf(i ? ", %g" : "%g", v[i]);
  printf("]\n");
}

int main(void) {
  CHECK(GRAFT_VERSION_CHECK());
  printf("Graft %s (ABI %d)\n", graft_version(), graft_soversion());

  /* y = relu(x @ w + b) inside a name scope; x is fed, w and b are constants. */
  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  char *scope = NULL;
  CHECK(graft_graph_push_name_scope(&scope, g, "layer"));
  graft_op_desc *d = NULL;
  graft_op *x = NULL;
  CHECK(graft_op_desc_new(&d, g, "Placeholder", "x"));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", (const int64_t[]){GRAFT_UNKNOWN_DIM, 3}, 2));
  CHECK(graft_op_desc_finish(&x, d));
  float wv[6] = {1, -1, 0.5f, 2, -0.5f, 1};
  float bv[2] = {0.25f, -3};
  graft_op *w = constant(g, "w", (const int64_t[]){3, 2}, 2, wv, 6);
  graft_op *b = constant(g, "b", (const int64_t[]){2}, 1, bv, 2);
  graft_op *y = op2(g, "Relu", "y", op2(g, "BiasAdd", NULL, op2(g, "MatMul", NULL, x, w), b), NULL);
  CHECK(graft_graph_pop_name_scope(g));
  graft_shape *shape = NULL;
  CHECK(graft_output_shape(&shape, (graft_output){y, 0}));
  printf("built %lld ops in scope '%s'; %s has inferred shape %s\n", (long long)graft_graph_num_ops(g), scope,
         graft_op_name(y), graft_shape_string(shape));
  graft_shape_free(shape);
  graft_string_free(scope);

  /* Run it twice, with batches of different sizes. */
  graft_session *s = NULL;
  CHECK(graft_session_new(&s, g, NULL));
  float xv[6] = {1, 2, 3, -1, 0, 1};
  for (int rows = 1; rows <= 2; ++rows) {
    graft_tensor *in = NULL, *out = NULL;
    CHECK(graft_tensor_new(&in, GRAFT_FLOAT32, (const int64_t[]){rows, 3}, 2, xv, sizeof(float) * 3 * (size_t)rows));
    graft_output feed = {x, 0}, fetch = {y, 0};
    CHECK(graft_session_run(&out, s, &feed, &in, 1, &fetch, 1, NULL, 0));
    print_tensor(rows == 1 ? "y (batch of 1)" : "y (batch of 2)", out);
    graft_tensor_free(out);
    graft_tensor_free(in);
  }

  /* The graph as TensorFlow's GraphDef, and back into a new graph. */
  void *bytes = NULL;
  size_t len = 0;
  CHECK(graft_graph_export_graph_def(&bytes, &len, g, -1, 0));
  graft_graph *copy = NULL;
  CHECK(graft_graph_new(&copy));
  CHECK(graft_graph_import_graph_def(NULL, copy, bytes, len, NULL));
  printf("GraphDef of %zu bytes imported again as %lld ops under 'import/'\n", len,
         (long long)graft_graph_num_ops(copy));
  graft_buffer_free(bytes);
  graft_graph_free(copy);

  /* Errors come back as a status code and a one-line message naming the op. */
  graft_op *bad = NULL;
  CHECK(graft_op_desc_new(&d, g, "MatMul", "bad"));
  CHECK(graft_op_desc_add_input(d, (graft_output){w, 0}));
  CHECK(graft_op_desc_add_input(d, (graft_output){w, 0}));
  int rc = graft_op_desc_finish(&bad, d);
  printf("MatMul of two 3x2 matrices -> %s: %s\n", graft_status_name(rc), graft_error_last());

  graft_session_free(s);
  graft_graph_free(g);
  return 0;
}
