/*
 * libFuzzer target for the GraphDef importer (graft_graph_import_graph_def).
 *
 * Every input is imported into a fresh graph with the default options. The last byte of the
 * input (it is imported too) picks extra work:
 *   bit 0      also import the bytes again, into another fresh graph, with prefix "" and one
 *              return element naming an op of the first import;
 *   bits 1..2  that element's form: "op", "op:0", "op:<num_outputs>" (out of range) or
 *              "op:-1" (malformed);
 *   bits 3..7  which op (modulo the number of ops).
 * Any import that succeeds is exported, the export is imported into a fresh graph (prefix ""),
 * and that graph's export must be byte-identical to the first one. Then the imported graph is
 * run (kernels under fuzzed attrs and shapes): its Placeholders fed small tensors of their
 * dtype and shape (unknown dimensions 2), the outputs no op consumes fetched, the ops with no
 * outputs run as targets, under fuzz_common.h's memory cap and run deadline, in its temporary
 * directory. Inputs that name an op touching files or printing anywhere in their bytes (in a
 * node or in a library function: ReadFile, WriteFile, SaveV2, RestoreV2, MergeV2Checkpoints,
 * MatchingFiles, InitializeTableFromTextFile, Print) are not run.
 *
 * Errors in the input are expected and ignored. What aborts (a bug in Graft) is: a failed
 * import that leaves ops or functions behind (imports are all or nothing), a graph that
 * imported but does not export, an export that does not import again or does not come back
 * byte for byte, return elements that do not match what was asked for, a run that fails
 * without a message, and tensor memory still counted in use once the graph is freed.
 *
 * Built with -fsanitize=fuzzer for libFuzzer, and with tests/fuzz/replay_main.c (no libFuzzer)
 * to replay the corpus and the regressions in the ordinary test runs.
 */
#include "fuzz_common.h"

static graft_graph *new_graph(void) {
  graft_graph *g = NULL;
  if (graft_graph_new(&g) != GRAFT_OK) fuzz_bug("graft_graph_new failed: %s", graft_error_last());
  return g;
}

/* Import options with prefix "" and, when element is not NULL, that return element. */
static graft_import_options *unprefixed_options(const char *element) {
  graft_import_options *opts = NULL;
  if (graft_import_options_new(&opts) != GRAFT_OK) fuzz_bug("graft_import_options_new failed: %s", graft_error_last());
  if (graft_import_options_set_prefix(opts, "") != GRAFT_OK) fuzz_bug("set_prefix failed: %s", graft_error_last());
  if (element != NULL && graft_import_options_add_return_element(opts, element) != GRAFT_OK) {
    fuzz_bug("add_return_element(\"%s\") failed: %s", element, graft_error_last());
  }
  return opts;
}

/* After a failed import into an empty graph, the graph must still be empty. */
static void check_unchanged(const graft_graph *g, int rc, const char *what) {
  if (rc == GRAFT_OK) return;
  int64_t ops = graft_graph_num_ops(g);
  int functions = graft_graph_num_functions(g);
  if (ops != 0 || functions != 0) {
    fuzz_bug("%s failed (%s: %s) but left %lld ops and %d functions in the graph", what, graft_status_name(rc),
             graft_error_last(), (long long)ops, functions);
  }
}

/* export(g) -> import into a fresh graph (prefix "") -> export: the two exports are equal. */
static void check_round_trip(const graft_graph *g, const char *what) {
  void *first = NULL, *second = NULL;
  size_t first_len = 0, second_len = 0;
  int rc = graft_graph_export_graph_def(&first, &first_len, g, -1, 0);
  if (rc != GRAFT_OK) {
    fuzz_bug("%s: a graph that imported does not export: %s: %s", what, graft_status_name(rc), graft_error_last());
  }
  graft_graph *h = new_graph();
  graft_import_options *opts = unprefixed_options(NULL);
  rc = graft_graph_import_graph_def(NULL, h, first, first_len, opts);
  if (rc != GRAFT_OK) {
    fuzz_bug("%s: Graft's own export (%zu bytes) does not import again: %s: %s", what, first_len,
             graft_status_name(rc), graft_error_last());
  }
  if (graft_graph_num_ops(h) != graft_graph_num_ops(g)) {
    fuzz_bug("%s: the graph has %lld ops, its export imports as %lld", what, (long long)graft_graph_num_ops(g),
             (long long)graft_graph_num_ops(h));
  }
  rc = graft_graph_export_graph_def(&second, &second_len, h, -1, 0);
  if (rc != GRAFT_OK) {
    fuzz_bug("%s: the re-imported graph does not export: %s: %s", what, graft_status_name(rc), graft_error_last());
  }
  if (first_len != second_len || memcmp(first, second, first_len) != 0) {
    size_t at = 0;
    while (at < first_len && at < second_len && ((const uint8_t *)first)[at] == ((const uint8_t *)second)[at]) ++at;
    fuzz_bug("%s: export -> import -> export is not byte-identical (%zu vs %zu bytes, first difference at byte %zu)",
             what, first_len, second_len, at);
  }
  graft_buffer_free(first);
  graft_buffer_free(second);
  graft_import_options_free(opts);
  graft_graph_free(h);
}

/* The import with prefix "" and a return element naming an op of `imported` (the default import
 * of the same bytes, whose names all start with "import/"). */
static void import_with_return_element(const uint8_t *data, size_t size, const graft_graph *imported, uint8_t selector) {
  int64_t num_ops = graft_graph_num_ops(imported);
  if (num_ops <= 0) return;
  const graft_op *op = graft_graph_op(imported, (int64_t)(selector >> 3) % num_ops);
  const char *full = op ? graft_op_name(op) : NULL;
  if (full == NULL || strncmp(full, "import/", 7) != 0) {
    fuzz_bug("op of the default import is named '%s', not 'import/...'", full ? full : "(null)");
  }
  const char *name = full + 7;
  int outputs = graft_op_num_outputs(op);
  int form = (selector >> 1) & 3;
  int index = form == 1 ? 0 : form == 2 ? outputs : -1;
  size_t cap = strlen(name) + 16;
  char *element = malloc(cap);
  if (element == NULL) abort();
  if (form == 0) {
    snprintf(element, cap, "%s", name);
  } else {
    snprintf(element, cap, "%s:%d", name, index);
  }
  /* An op always resolves; a tensor only for an index in range. */
  int should_resolve = form == 0 || (form == 1 && outputs > 0);

  graft_graph *g = new_graph();
  graft_import_options *opts = unprefixed_options(element);
  graft_import_results *results = NULL;
  int rc = graft_graph_import_graph_def(&results, g, data, size, opts);
  check_unchanged(g, rc, "import with prefix \"\" and a return element");
  if (rc == GRAFT_OK) {
    if (!should_resolve) fuzz_bug("return element '%s' resolved, but '%s' has %d outputs", element, name, outputs);
    if (graft_import_results_num_elements(results) != 1) {
      fuzz_bug("asked for 1 return element, got %d", graft_import_results_num_elements(results));
    }
    graft_op *got_op = NULL;
    graft_output got_tensor = {NULL, -1};
    if (graft_import_results_element(&got_op, &got_tensor, results, 0) != GRAFT_OK) {
      fuzz_bug("graft_import_results_element(0) failed: %s", graft_error_last());
    }
    const graft_op *got = form == 0 ? got_op : got_tensor.op;
    if (got == NULL || strcmp(graft_op_name(got), name) != 0 || (form != 0 && got_tensor.index != index)) {
      fuzz_bug("return element '%s' came back as %s:%d", element, got ? graft_op_name(got) : "(null)",
               form == 0 ? 0 : got_tensor.index);
    }
    check_round_trip(g, "import with prefix \"\"");
  } else if (should_resolve) {
    /* The same bytes imported with the default prefix into an empty graph. */
    fuzz_bug("import with prefix \"\" and return element '%s' failed (%s: %s), the default import did not", element,
             graft_status_name(rc), graft_error_last());
  }
  graft_import_results_free(results);
  graft_import_options_free(opts);
  graft_graph_free(g);
  free(element);
}

/* Whether the input names an op whose run would read, write or print outside the process's
 * memory: op types are plain strings in the wire bytes, in nodes and library functions alike,
 * so a search of the bytes finds them wherever they are (and some harmless inputs too). */
static int touches_files(const uint8_t *data, size_t size) {
  static const char *const denied[] = {"ReadFile", "WriteFile", "SaveV2", "RestoreV2", "MergeV2Checkpoints",
                                       "MatchingFiles", "InitializeTableFromTextFile", "Print"};
  for (size_t i = 0; i < sizeof denied / sizeof denied[0]; ++i) {
    size_t n = strlen(denied[i]);
    for (size_t at = 0; at + n <= size; ++at)
      if (data[at] == (uint8_t)denied[i][0] && memcmp(data + at, denied[i], n) == 0) return 1;
  }
  return 0;
}

/* A small tensor for the Placeholder op: its dtype, its shape with unknown dimensions 2 (an
 * unknown rank: a scalar), elements from a fixed pattern; NULL when it cannot be made. */
static graft_tensor *feed_for(const graft_op *op) {
  graft_dtype dtype = GRAFT_DTYPE_INVALID;
  if (graft_op_get_attr_type(&dtype, op, "dtype") != GRAFT_OK) return NULL;
  graft_shape *shape = NULL;
  if (graft_op_get_attr_shape(&shape, op, "shape") != GRAFT_OK) shape = NULL;
  graft_tensor *t = fuzz_small_tensor(dtype, shape, 2);
  graft_shape_free(shape);
  return t;
}

#define MAX_RUN_OPS 64
#define MAX_FETCHES 16

/* Runs the graph once as described at the top; errors are expected, a missing message is not. */
static void run_imported(graft_graph *g) {
  int64_t num_ops = graft_graph_num_ops(g);
  if (num_ops <= 0 || num_ops > MAX_RUN_OPS) return;
  graft_output feeds[MAX_RUN_OPS], fetches[MAX_FETCHES];
  graft_tensor *feed_values[MAX_RUN_OPS];
  graft_op *targets[MAX_FETCHES];
  int nfeeds = 0, nfetches = 0, ntargets = 0, runnable = 1;
  for (int64_t i = 0; i < num_ops && runnable; ++i) {
    graft_op *op = graft_graph_op(g, i);
    const char *type = graft_op_type(op);
    if (strcmp(type, "Placeholder") == 0) {
      graft_tensor *t = feed_for(op);
      if (t == NULL) {
        runnable = 0;
        break;
      }
      feeds[nfeeds] = (graft_output){op, 0};
      feed_values[nfeeds++] = t;
      continue;
    }
    int outputs = graft_op_num_outputs(op);
    if (outputs == 0 && graft_op_num_control_outputs(op) == 0 && ntargets < MAX_FETCHES) targets[ntargets++] = op;
    for (int k = 0; k < outputs && nfetches < MAX_FETCHES; ++k) {
      graft_output out = {op, k};
      if (graft_output_num_consumers(out) == 0) fetches[nfetches++] = out;
    }
  }
  if (runnable && nfetches + ntargets > 0) {
    graft_session_options so = GRAFT_SESSION_OPTIONS_INIT;
    so.num_threads = 1;
    graft_session *s = NULL;
    if (graft_session_new(&s, g, &so) == GRAFT_OK) {
      graft_run_options ro = fuzz_run_options();
      graft_tensor *values[MAX_FETCHES] = {NULL};
      int rc = graft_session_run_with_options(values, s, feeds, feed_values, nfeeds, fetches, nfetches, targets,
                                              ntargets, &ro);
      if (rc != GRAFT_OK) {
        const char *message = graft_error_last();
        if (message == NULL || message[0] == '\0') fuzz_bug("a run failed with %s and no message", graft_status_name(rc));
      }
      for (int k = 0; rc == GRAFT_OK && k < nfetches; ++k) graft_tensor_free(values[k]);
      graft_session_free(s);
    }
  }
  for (int k = 0; k < nfeeds; ++k) graft_tensor_free(feed_values[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_set_limits();
  int64_t in_use = graft_memory_in_use();
  uint8_t selector = size > 0 ? data[size - 1] : 0;
  graft_graph *g = new_graph();
  graft_import_results *results = NULL;
  int rc = graft_graph_import_graph_def(&results, g, data, size, NULL);
  check_unchanged(g, rc, "import with the default options");
  if (rc == GRAFT_OK) {
    if (graft_import_results_num_elements(results) != 0) {
      fuzz_bug("asked for no return elements, got %d", graft_import_results_num_elements(results));
    }
    check_round_trip(g, "import with the default options");
    if (selector & 1) import_with_return_element(data, size, g, selector);
    if (!touches_files(data, size)) {
      fuzz_enter_dir();
      run_imported(g);
    }
  }
  graft_import_results_free(results);
  graft_graph_free(g);
  graft_error_clear();
  if (graft_memory_in_use() != in_use) {
    fuzz_bug("%lld bytes of tensor memory still in use once the graph is freed",
             (long long)(graft_memory_in_use() - in_use));
  }
  return 0;
}
