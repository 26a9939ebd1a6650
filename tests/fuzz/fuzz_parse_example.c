/*
 * libFuzzer target for ParseExample and ParseExampleV2 (kernels/cpu/parse_example_kernels.cc),
 * which parse tf.train.Example protos fed from outside. Each input holds up to four serialized
 * Examples (fuzz_common.h's records, one per slot; the whole input is one Example when it holds
 * no record), fed as the batch to a graph made once: ParseExampleV2 with dense features of
 * fixed ("f": float [2], "i": int64 [], "s": string []) and variable length ("vf": float [-1]),
 * and sparse features ("sf", "si", "ss") (Graft has no ragged features yet), and ParseExample (V1) with dense "f", "i" and sparse "sf", "ss". Every output of
 * both is fetched, under fuzz_common.h's memory cap and run deadline.
 *
 * Errors are expected (a malformed Example, a feature of another type or size). Bugs: a
 * failure without a message, and a successful run whose outputs do not have the batch size.
 */
#include "fuzz_common.h"

#define CHECK_OK(call)                                                                     \
  do {                                                                                     \
    int rc_ = (call);                                                                      \
    if (rc_ != GRAFT_OK) fuzz_bug("%s failed: %s: %s", #call, graft_status_name(rc_), graft_error_last()); \
  } while (0)

enum { kSlots = 4, kMaxFetches = 64 };

typedef struct {
  graft_graph *graph;
  graft_session *session;
  graft_callable *callable;
  int nfetches;
  int dense_f;  /* the fetch index of ParseExampleV2's dense "f" (its batch dimension is checked) */
} program;

static graft_output add_const(graft_graph *g, graft_tensor *value) {
  graft_op_desc *d = NULL;
  graft_op *op = NULL;
  CHECK_OK(graft_op_desc_new(&d, g, "Const", NULL));
  CHECK_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", graft_tensor_dtype(value)));
  CHECK_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", value));
  CHECK_OK(graft_op_desc_finish(&op, d));
  graft_tensor_free(value);
  return (graft_output){op, 0};
}

static graft_output strings_const(graft_graph *g, int rank, const char *const *s, size_t n) {
  size_t lengths[8] = {0};
  for (size_t i = 0; i < n; ++i) lengths[i] = strlen(s[i]);
  int64_t dims[1] = {(int64_t)n};
  graft_tensor *t = NULL;
  CHECK_OK(graft_tensor_new_strings(&t, dims, rank, s, lengths, n));
  return add_const(g, t);
}

static graft_output numeric_const(graft_graph *g, graft_dtype dtype, int rank, int64_t n) {
  int64_t dims[1] = {n};
  graft_tensor *t = NULL;
  CHECK_OK(graft_tensor_new(&t, dtype, dims, rank, NULL, 0));
  return add_const(g, t);
}

static program make_program(void) {
  program p;
  memset(&p, 0, sizeof p);
  CHECK_OK(graft_graph_new(&p.graph));
  graft_graph *g = p.graph;
  graft_op_desc *d = NULL;
  graft_op *serialized = NULL, *v2 = NULL, *v1 = NULL;
  int64_t batch_dims[1] = {-1};
  CHECK_OK(graft_op_desc_new(&d, g, "Placeholder", "serialized"));
  CHECK_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_STRING));
  CHECK_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", batch_dims, 1));
  CHECK_OK(graft_op_desc_finish(&serialized, d));
  graft_output in = {serialized, 0};

  /* ParseExampleV2 */
  static const char *const sparse[] = {"sf", "si", "ss"}, *const dense[] = {"f", "i", "s", "vf"},
                           *const empty = "";
  graft_output defaults[4] = {numeric_const(g, GRAFT_FLOAT32, 1, 2), numeric_const(g, GRAFT_INT64, 0, 0),
                              strings_const(g, 0, &empty, 1), numeric_const(g, GRAFT_FLOAT32, 0, 0)};
  CHECK_OK(graft_op_desc_new(&d, g, "ParseExampleV2", "v2"));
  CHECK_OK(graft_op_desc_add_input(d, in));
  CHECK_OK(graft_op_desc_add_input(d, strings_const(g, 1, NULL, 0)));
  CHECK_OK(graft_op_desc_add_input(d, strings_const(g, 1, sparse, 3)));
  CHECK_OK(graft_op_desc_add_input(d, strings_const(g, 1, dense, 4)));
  CHECK_OK(graft_op_desc_add_input(d, strings_const(g, 1, NULL, 0))); /* no ragged keys */
  CHECK_OK(graft_op_desc_add_input_list(d, defaults, 4));
  graft_attrs *a = graft_op_desc_attrs(d);
  const graft_dtype tdense[] = {GRAFT_FLOAT32, GRAFT_INT64, GRAFT_STRING, GRAFT_FLOAT32};
  const graft_dtype sparse_types[] = {GRAFT_FLOAT32, GRAFT_INT64, GRAFT_STRING};
  const int64_t two[1] = {2}, unknown[1] = {-1};
  const int64_t *const shapes[4] = {two, NULL, NULL, unknown};
  const int ranks[4] = {1, 0, 0, 1};
  CHECK_OK(graft_attrs_set_type_list(a, "Tdense", tdense, 4));
  CHECK_OK(graft_attrs_set_int(a, "num_sparse", 3));
  CHECK_OK(graft_attrs_set_type_list(a, "sparse_types", sparse_types, 3));
  CHECK_OK(graft_attrs_set_type_list(a, "ragged_value_types", NULL, 0));
  CHECK_OK(graft_attrs_set_type_list(a, "ragged_split_types", NULL, 0));
  CHECK_OK(graft_attrs_set_shape_list(a, "dense_shapes", shapes, ranks, 4));
  CHECK_OK(graft_op_desc_finish(&v2, d));

  /* ParseExample (V1): one scalar key per feature */
  graft_output v1_sparse[2] = {strings_const(g, 0, &sparse[0], 1), strings_const(g, 0, &sparse[2], 1)};
  graft_output v1_dense[2] = {strings_const(g, 0, &dense[0], 1), strings_const(g, 0, &dense[1], 1)};
  graft_output v1_defaults[2] = {numeric_const(g, GRAFT_FLOAT32, 1, 2), numeric_const(g, GRAFT_INT64, 0, 0)};
  CHECK_OK(graft_op_desc_new(&d, g, "ParseExample", "v1"));
  CHECK_OK(graft_op_desc_add_input(d, in));
  CHECK_OK(graft_op_desc_add_input(d, strings_const(g, 1, NULL, 0)));
  CHECK_OK(graft_op_desc_add_input_list(d, v1_sparse, 2));
  CHECK_OK(graft_op_desc_add_input_list(d, v1_dense, 2));
  CHECK_OK(graft_op_desc_add_input_list(d, v1_defaults, 2));
  a = graft_op_desc_attrs(d);
  const graft_dtype v1_sparse_types[] = {GRAFT_FLOAT32, GRAFT_STRING}, v1_tdense[] = {GRAFT_FLOAT32, GRAFT_INT64};
  CHECK_OK(graft_attrs_set_int(a, "Nsparse", 2));
  CHECK_OK(graft_attrs_set_int(a, "Ndense", 2));
  CHECK_OK(graft_attrs_set_type_list(a, "sparse_types", v1_sparse_types, 2));
  CHECK_OK(graft_attrs_set_type_list(a, "Tdense", v1_tdense, 2));
  CHECK_OK(graft_attrs_set_shape_list(a, "dense_shapes", shapes, ranks, 2));
  CHECK_OK(graft_op_desc_finish(&v1, d));

  graft_output fetches[kMaxFetches];
  for (int k = 0; k < graft_op_num_outputs(v2); ++k) fetches[p.nfetches++] = (graft_output){v2, k};
  p.dense_f = 3 * 3; /* sparse indices, values, shapes of 3 features, then dense "f" */
  for (int k = 0; k < graft_op_num_outputs(v1); ++k) fetches[p.nfetches++] = (graft_output){v1, k};
  graft_session_options so = GRAFT_SESSION_OPTIONS_INIT;
  so.num_threads = 1;
  CHECK_OK(graft_session_new(&p.session, g, &so));
  CHECK_OK(graft_session_make_callable(&p.callable, p.session, &in, 1, fetches, p.nfetches, NULL, 0));
  return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_set_limits();
  static program p;
  if (p.graph == NULL) p = make_program();

  fuzz_files files;
  fuzz_files_parse(&files, data, size, kSlots);
  const char *examples[kSlots];
  size_t lengths[kSlots];
  size_t batch = 0;
  for (int i = 0; i < kSlots; ++i) {
    if (files.data[i] == NULL) continue;
    examples[batch] = (const char *)files.data[i];
    lengths[batch++] = files.size[i];
  }
  if (batch == 0) {
    examples[0] = (const char *)data;
    lengths[0] = size;
    batch = 1;
  }
  int64_t dims[1] = {(int64_t)batch};
  graft_tensor *fed = NULL;
  CHECK_OK(graft_tensor_new_strings(&fed, dims, 1, examples, lengths, batch));
  graft_tensor *values[kMaxFetches] = {NULL};
  graft_run_options ro = fuzz_run_options();
  int rc = graft_callable_run_with_options(values, p.callable, &fed, 1, &ro);
  if (rc != GRAFT_OK) {
    const char *m = graft_error_last();
    if (m == NULL || m[0] == '\0') fuzz_bug("a run failed with %s and no message", graft_status_name(rc));
  } else {
    const graft_tensor *f = values[p.dense_f];
    if (graft_tensor_rank(f) != 2 || graft_tensor_dim(f, 0) != (int64_t)batch || graft_tensor_dim(f, 1) != 2) {
      fuzz_bug("dense feature \"f\" of a batch of %zu has rank %d, first dimension %lld", batch, graft_tensor_rank(f),
               (long long)graft_tensor_dim(f, 0));
    }
    for (int k = 0; k < p.nfetches; ++k) graft_tensor_free(values[k]);
  }
  graft_tensor_free(fed);
  graft_error_clear();
  return 0;
}
