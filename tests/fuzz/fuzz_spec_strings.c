/*
 * libFuzzer target for the spec strings the C API parses: the first byte of an input picks
 * what the rest (up to its first NUL byte) is parsed as:
 *   0  a device spec (graft_device_spec_parse): one that parses prints as a string that parses
 *      to the same parts and prints the same (the canonical form is a fixed point); merged with
 *      itself it stays the same, merged onto "/job:a/replica:1/task:2/device:CPU:3" it keeps
 *      every part it sets;
 *   1  a tensor or op name looked up in a graph of ops with one, two and three outputs
 *      (graft_graph_tensor_by_name, graft_graph_op_by_name): a tensor found prints
 *      (graft_output_name) as a name that finds the same tensor;
 *   2  an Einsum equation, run eagerly on float operands of rank the equation's terms ask for
 *      (dimensions 2; an ellipsis adds one), which goes through the equation parser and, when
 *      it parses, the kernel.
 * Errors are expected; a failure without a message is a bug.
 */
#include "fuzz_common.h"

#define CHECK_OK(call)                                                                     \
  do {                                                                                     \
    int rc_ = (call);                                                                      \
    if (rc_ != GRAFT_OK) fuzz_bug("%s failed: %s: %s", #call, graft_status_name(rc_), graft_error_last()); \
  } while (0)

static void expect_message(int rc, const char *what, const char *text) {
  if (rc == GRAFT_OK) return;
  const char *m = graft_error_last();
  if (m == NULL || m[0] == '\0') fuzz_bug("%s('%s') failed with %s and no message", what, text, graft_status_name(rc));
}

static int same_str(const char *a, const char *b) {
  return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void device_spec(const char *text) {
  graft_device_spec *spec = NULL;
  int rc = graft_device_spec_parse(&spec, text);
  expect_message(rc, "graft_device_spec_parse", text);
  if (rc != GRAFT_OK) return;
  const char *printed = graft_device_spec_string(spec);
  graft_device_spec *again = NULL;
  rc = graft_device_spec_parse(&again, printed);
  if (rc != GRAFT_OK) fuzz_bug("device spec '%s' prints as '%s', which does not parse: %s", text, printed, graft_error_last());
  if (strcmp(graft_device_spec_string(again), printed) != 0 ||
      !same_str(graft_device_spec_job(again), graft_device_spec_job(spec)) ||
      graft_device_spec_replica(again) != graft_device_spec_replica(spec) ||
      graft_device_spec_task(again) != graft_device_spec_task(spec) ||
      !same_str(graft_device_spec_device_type(again), graft_device_spec_device_type(spec)) ||
      graft_device_spec_device_index(again) != graft_device_spec_device_index(spec)) {
    fuzz_bug("device spec '%s' prints as '%s', which parses as '%s'", text, printed, graft_device_spec_string(again));
  }
  graft_device_spec *self = NULL, *base = NULL, *merged = NULL;
  CHECK_OK(graft_device_spec_merge(&self, spec, spec));
  if (strcmp(graft_device_spec_string(self), printed) != 0) fuzz_bug("device spec '%s' merged with itself changes", text);
  CHECK_OK(graft_device_spec_parse(&base, "/job:a/replica:1/task:2/device:CPU:3"));
  CHECK_OK(graft_device_spec_merge(&merged, base, spec));
  if ((graft_device_spec_job(spec) != NULL && !same_str(graft_device_spec_job(merged), graft_device_spec_job(spec))) ||
      (graft_device_spec_task(spec) >= 0 && graft_device_spec_task(merged) != graft_device_spec_task(spec)) ||
      (graft_device_spec_replica(spec) >= 0 && graft_device_spec_replica(merged) != graft_device_spec_replica(spec))) {
    fuzz_bug("device spec '%s' merged onto a full spec gives '%s'", text, graft_device_spec_string(merged));
  }
  graft_device_spec_free(merged);
  graft_device_spec_free(base);
  graft_device_spec_free(self);
  graft_device_spec_free(again);
  graft_device_spec_free(spec);
}

/* Ops "a" (one output), "b/c" (two), "b/c_1" (three): Unpack of a [n] constant. */
static graft_graph *names_graph(void) {
  static graft_graph *g;
  if (g != NULL) return g;
  CHECK_OK(graft_graph_new(&g));
  static const char *const names[] = {"a", "b/c", "b/c_1"};
  for (int i = 0; i < 3; ++i) {
    int64_t dims[1] = {i + 1};
    graft_tensor *t = NULL;
    CHECK_OK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, 1, NULL, 0));
    graft_op_desc *d = NULL;
    graft_op *c = NULL, *u = NULL;
    CHECK_OK(graft_op_desc_new(&d, g, "Const", NULL));
    CHECK_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
    CHECK_OK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
    CHECK_OK(graft_op_desc_finish(&c, d));
    graft_tensor_free(t);
    char name[16];
    snprintf(name, sizeof name, "%s/", names[i]); /* a trailing '/': exactly this name */
    CHECK_OK(graft_op_desc_new(&d, g, "Unpack", name));
    CHECK_OK(graft_op_desc_add_input(d, (graft_output){c, 0}));
    CHECK_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num", i + 1));
    CHECK_OK(graft_op_desc_finish(&u, d));
  }
  return g;
}

static void tensor_name(const char *text) {
  graft_graph *g = names_graph();
  graft_op *op = NULL;
  expect_message(graft_graph_op_by_name(&op, g, text), "graft_graph_op_by_name", text);
  graft_output out = {NULL, 0};
  int rc = graft_graph_tensor_by_name(&out, g, text);
  expect_message(rc, "graft_graph_tensor_by_name", text);
  if (rc != GRAFT_OK) return;
  if (out.op == NULL || out.index < 0 || out.index >= graft_op_num_outputs(out.op)) {
    fuzz_bug("tensor name '%s' found an output out of range", text);
  }
  char *printed = NULL;
  CHECK_OK(graft_output_name(&printed, out));
  graft_output again = {NULL, 0};
  rc = graft_graph_tensor_by_name(&again, g, printed);
  if (rc != GRAFT_OK || again.op != out.op || again.index != out.index) {
    fuzz_bug("tensor name '%s' found '%s', which does not find the same tensor", text, printed);
  }
  graft_string_free(printed);
}

/* The rank of an Einsum term: one per label (any character but '.', as TensorFlow's), plus one
 * for an ellipsis. */
static int term_rank(const char *begin, const char *end) {
  int rank = 0;
  for (const char *p = begin; p < end; ++p) {
    if (p + 2 < end && p[0] == '.' && p[1] == '.' && p[2] == '.') {
      ++rank;
      p += 2;
    } else if (*p != '.') {
      ++rank;
    }
  }
  return rank;
}

static void einsum(const char *text) {
  static graft_context *ctx;
  if (ctx == NULL) CHECK_OK(graft_context_new(&ctx));
  const char *arrow = strstr(text, "->");
  const char *lhs_end = arrow != NULL ? arrow : text + strlen(text);
  graft_value *inputs[3];
  int n = 0;
  for (const char *begin = text; n < 3;) {
    const char *comma = memchr(begin, ',', (size_t)(lhs_end - begin));
    const char *end = comma != NULL ? comma : lhs_end;
    int rank = term_rank(begin, end);
    if (rank > 6) break;
    int64_t dims[6] = {2, 2, 2, 2, 2, 2};
    graft_tensor *t = NULL;
    CHECK_OK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, rank, NULL, 0));
    CHECK_OK(graft_value_from_tensor(&inputs[n++], t));
    graft_tensor_free(t);
    if (comma == NULL) break;
    begin = comma + 1;
  }
  graft_op_call *call = NULL;
  CHECK_OK(graft_op_call_new(&call, ctx, "Einsum"));
  CHECK_OK(graft_op_call_add_input_list(call, (const graft_value *const *)inputs, n));
  CHECK_OK(graft_attrs_set_string(graft_op_call_attrs(call), "equation", text, strlen(text)));
  graft_value *out = NULL;
  int nout = 0;
  int rc = graft_op_call_execute(&out, 1, &nout, call);
  expect_message(rc, "Einsum", text);
  if (rc == GRAFT_OK) graft_value_free(out);
  graft_op_call_free(call);
  for (int i = 0; i < n; ++i) graft_value_free(inputs[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_set_limits();
  if (size == 0 || size > 4096) return 0;
  char *text = malloc(size);
  if (text == NULL) abort();
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  switch (data[0] % 3) {
    case 0: device_spec(text); break;
    case 1: tensor_name(text); break;
    default: einsum(text); break;
  }
  free(text);
  graft_error_clear();
  return 0;
}
