/* CPU kernels for strings, printing and assertions (kernels/cpu/string_kernels.cc):
 * StringJoin, StringFormat (TensorFlow's tensor summaries), PrintV2 (each output stream,
 * captured by putting a temporary file over fd 1 or 2) and Assert; and the regex ops on RE2
 * (kernels/cpu/regex_kernels.cc): (Static)RegexFullMatch and (Static)RegexReplace; the text and
 * ragged ops of Keras' TextVectorization (kernels/cpu/text_kernels.cc, ragged_kernels.cc). */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno, mkstemp, clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "graph_test_util.h"

/* ---- Helpers ------------------------------------------------------------------------------ */

#include "kernel_test_util.h"

static void set_string(graft_op_desc *d, const char *attr, const char *value) {
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), attr, value, strlen(value)));
}

/* StringFormat of n inputs with template and placeholder "{}"; summarize < -1: the default. */
static graft_op *format(graft_graph *g, const char *name, const char *tmpl, int64_t summarize, graft_op **inputs,
                        int n) {
  graft_op_desc *d = desc(g, "StringFormat", name);
  graft_output outs[8];
  for (int i = 0; i < n; ++i) outs[i] = (graft_output){inputs[i], 0};
  GT_OK(graft_op_desc_add_input_list(d, outs, n));
  set_string(d, "template", tmpl);
  set_string(d, "placeholder", "{}");
  if (summarize >= -1) GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "summarize", summarize));
  return fin(d);
}

/* The single string a scalar string tensor holds, compared with expected; frees t. */
static void expect_text(graft_tensor *t, const char *expected) {
  const char *values[] = {expected};
  expect_strings(t, SCALAR, values);
}

static void expect_format1(graft_graph *g, const char *name, graft_op *x, int64_t summarize, const char *expected) {
  expect_text(run(g, format(g, name, "{}", summarize, &x, 1)), expected);
}

/* Runs op as a target, with one feed when feed is not NULL (value: taken). */
static int run_target(graft_graph *g, graft_op *op, graft_op *feed, graft_tensor *value) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fd = {feed, 0};
  int rc = graft_session_run(NULL, s, feed ? &fd : NULL, feed ? &value : NULL, feed ? 1 : 0, NULL, 0, &op, 1);
  graft_session_free(s);
  graft_tensor_free(value);
  return rc;
}

static graft_tensor *bool_scalar(uint8_t v) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_BOOL, NULL, 0, &v, sizeof v));
  return t;
}

/* ---- StringJoin --------------------------------------------------------------------------- */

static void test_string_join(void **state) {
  graft_graph *g = *state;
  graft_op *v = strings(g, "v", D(2), (const char *const[]){"a", "b"});
  graft_op *s = strings(g, "s", SCALAR, (const char *const[]){"x"});
  graft_op_desc *d = desc(g, "StringJoin", "j");
  graft_output ins[] = {{v, 0}, {s, 0}, {v, 0}};
  GT_OK(graft_op_desc_add_input_list(d, ins, 3));
  set_string(d, "separator", "-");
  expect_strings(run(g, fin(d)), D(2), (const char *const[]){"a-x-a", "b-x-b"});

  graft_op_desc *d2 = desc(g, "StringJoin", "j2");
  graft_output ins2[] = {{s, 0}, {s, 0}};
  GT_OK(graft_op_desc_add_input_list(d2, ins2, 2));
  expect_text(run(g, fin(d2)), "xx");

  /* Shapes that disagree only show at run time when a placeholder hides them. */
  graft_op *p = ph(g, "p", GRAFT_STRING);
  graft_op_desc *d3 = desc(g, "StringJoin", "j3");
  graft_output ins3[] = {{v, 0}, {p, 0}};
  GT_OK(graft_op_desc_add_input_list(d3, ins3, 2));
  graft_op *j3 = fin(d3);
  graft_tensor *three = NULL;
  GT_OK(graft_tensor_new_strings(&three, D(3), (const char *const[]){"1", "2", "3"}, NULL, 3));
  expect_error(g, j3, p, three, GRAFT_EINVAL, "StringJoin op 'j3'", "Input shapes do not match: [2] vs. [3]");
}

/* ---- StringFormat ------------------------------------------------------------------------- */

static void test_format_scalars(void **state) {
  graft_graph *g = *state;
  graft_op *ins[] = {konst(g, "i", GRAFT_INT32, SCALAR, (const int32_t[]){7}),
                     konst(g, "f", GRAFT_FLOAT32, SCALAR, (const float[]){1.5f})};
  expect_text(run(g, format(g, "fmt", "x={} y={}!", -2, ins, 2)), "x=7 y=1.5!");
  /* Floats as TensorFlow prints them: 6 significant digits, 9 when 6 do not round-trip. */
  expect_format1(g, "f2", konst(g, "two", GRAFT_FLOAT32, SCALAR, (const float[]){2.0f}), 3, "2");
  expect_format1(g, "f3", konst(g, "tenth", GRAFT_FLOAT32, SCALAR, (const float[]){0.1f}), 3, "0.1");
  expect_format1(g, "f4", konst(g, "third", GRAFT_FLOAT32, SCALAR, (const float[]){1.0f / 3.0f}), 3, "0.333333343");
  expect_format1(g, "f5", konst(g, "big", GRAFT_FLOAT32, SCALAR, (const float[]){1e20f}), 3, "1e+20");
  expect_format1(g, "f6", konst(g, "inf", GRAFT_FLOAT32, D(3), (const float[]){INFINITY, -INFINITY, NAN}), 3,
                 "[inf -inf nan]");
  expect_format1(g, "f7", konst(g, "d", GRAFT_FLOAT64, D(2), (const double[]){0.1, 1.0 / 3.0}), 3,
                 "[0.1 0.33333333333333331]");
  expect_format1(g, "f8", konst(g, "i64", GRAFT_INT64, SCALAR, (const int64_t[]){-9000000000LL}), 3, "-9000000000");
  expect_format1(g, "f9", konst(g, "u8", GRAFT_UINT8, D(2), (const uint8_t[]){0, 255}), 3, "[0 255]");
  expect_format1(g, "f10", konst(g, "b", GRAFT_BOOL, D(2), (const uint8_t[]){1, 0}), 3, "[1 0]");
  /* Strings are quoted and escaped. */
  expect_format1(g, "f11", strings(g, "s", D(3), (const char *const[]){"a", "b\"c", "d\ne"}), 3,
                 "[\"a\" \"b\\\"c\" \"d\\ne\"]");
  expect_format1(g, "f12", strings(g, "s0", SCALAR, (const char *const[]){"hi"}), 3, "\"hi\"");
  /* No inputs: the template alone. */
  expect_text(run(g, format(g, "f13", "plain", -2, NULL, 0)), "plain");
}

static void test_format_shapes(void **state) {
  graft_graph *g = *state;
  int32_t r100[100];
  for (int i = 0; i < 100; ++i) r100[i] = i;
  graft_op *r10 = konst(g, "r10", GRAFT_INT32, D(10), r100);
  expect_format1(g, "v1", r10, 3, "[0 1 2 ... 7 8 9]");
  expect_format1(g, "v2", r10, -1, "[0 1 2 3 4 5 6 7 8 9]");
  expect_format1(g, "v3", r10, 5, "[0 1 2 3 4 5 6 7 8 9]");
  expect_format1(g, "v4", r10, 4, "[0 1 2 3 ... 6 7 8 9]");
  expect_format1(g, "m1", konst(g, "m", GRAFT_INT32, D(2, 2), (const int32_t[]){1, 2, 3, 4}), 3, "[[1 2]\n [3 4]]");
  expect_format1(g, "c1", konst(g, "c", GRAFT_INT32, D(2, 2, 2), (const int32_t[]){1, 2, 3, 4, 5, 6, 7, 8}), 3,
                 "[[[1 2]\n  [3 4]]\n\n [[5 6]\n  [7 8]]]");
  expect_format1(g, "e1", konst(g, "e", GRAFT_FLOAT32, D(0), NULL), 3, "[]");
  /* The example from tf.strings.format's documentation. */
  graft_op *two[] = {konst(g, "r100", GRAFT_INT32, D(10, 10), r100), r10};
  expect_text(run(g, format(g, "doc", "first: {}, second: {}, suffix", 3, two, 2)),
              "first: [[0 1 2 ... 7 8 9]\n"
              " [10 11 12 ... 17 18 19]\n"
              " [20 21 22 ... 27 28 29]\n"
              " ...\n"
              " [70 71 72 ... 77 78 79]\n"
              " [80 81 82 ... 87 88 89]\n"
              " [90 91 92 ... 97 98 99]], second: [0 1 2 ... 7 8 9], suffix");
  /* The op's own defaults: template and placeholder '%s'. */
  graft_op_desc *d = desc(g, "StringFormat", "defaults");
  graft_output x = {konst(g, "x", GRAFT_INT32, D(3), (const int32_t[]){4, 5, 6}), 0};
  GT_OK(graft_op_desc_add_input_list(d, &x, 1));
  expect_text(run(g, fin(d)), "[4 5 6]");
  /* Values only known at run time. */
  graft_op *p = ph(g, "p", GRAFT_FLOAT32);
  graft_op *fp = format(g, "fp", "p: {}", 2, &p, 1);
  graft_op *fops[] = {p};
  graft_tensor *vals[] = {tensor(GRAFT_FLOAT32, D(2, 3), (const float[]){1, 2.5f, 3, 4, 5, 6})};
  expect_text(run_feeds(g, fp, 0, 1, fops, vals), "p: [[1 2.5 3]\n [4 5 6]]");
}

static void test_format_placeholder_mismatch(void **state) {
  graft_graph *g = *state;
  graft_op *x = konst(g, "x", GRAFT_INT32, SCALAR, (const int32_t[]){1});
  graft_op_desc *d = desc(g, "StringFormat", "bad");
  graft_output in1 = {x, 0};
  GT_OK(graft_op_desc_add_input_list(d, &in1, 1));
  set_string(d, "template", "{} and {}");
  set_string(d, "placeholder", "{}");
  graft_op *op = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "StringFormat op 'bad'", "2 placeholders");
}

/* ---- PrintV2 ------------------------------------------------------------------------------ */

/* Runs op (a target) with fd (1 or 2) going to a temporary file; returns what was written,
 * to be freed. */
static char *capture(graft_graph *g, graft_op *op, int fd) {
  fflush(stdout);
  fflush(stderr);
  FILE *tmp = tmpfile();
  assert_non_null(tmp);
  int saved = dup(fd);
  assert_true(saved >= 0);
  assert_true(dup2(fileno(tmp), fd) >= 0);
  int rc = run_target(g, op, NULL, NULL);
  fflush(stdout);
  fflush(stderr);
  assert_true(dup2(saved, fd) >= 0);
  close(saved);
  GT_OK(rc);
  /* The kernel wrote through the descriptor, so the FILE's own position means nothing. */
  long n = (long)lseek(fileno(tmp), 0, SEEK_END);
  assert_true(n >= 0);
  char *text = calloc((size_t)n + 1, 1);
  assert_non_null(text);
  assert_int_equal(lseek(fileno(tmp), 0, SEEK_SET), 0);
  assert_int_equal(read(fileno(tmp), text, (size_t)n), n);
  fclose(tmp);
  return text;
}

static graft_op *print(graft_graph *g, const char *name, graft_op *x, const char *stream, const char *end) {
  graft_op_desc *d = desc(g, "PrintV2", name);
  in(d, x);
  if (stream) set_string(d, "output_stream", stream);
  if (end) set_string(d, "end", end);
  return fin(d);
}

static void expect_printed(graft_graph *g, graft_op *op, int fd, const char *expected) {
  char *text = capture(g, op, fd);
  assert_string_equal(text, expected);
  free(text);
}

static void test_print(void **state) {
  graft_graph *g = *state;
  graft_op *msg = strings(g, "msg", SCALAR, (const char *const[]){"hello"});
  expect_printed(g, print(g, "p_default", msg, NULL, NULL), 2, "hello\n");
  expect_printed(g, print(g, "p_err", msg, "stderr", "!"), 2, "hello!");
  expect_printed(g, print(g, "p_out", msg, "stdout", NULL), 1, "hello\n");
  expect_printed(g, print(g, "p_info", msg, "log(info)", NULL), 2, "[info] hello\n");
  expect_printed(g, print(g, "p_warn", msg, "log(warning)", ""), 2, "[warning] hello");
  expect_printed(g, print(g, "p_error", msg, "log(error)", NULL), 2, "[error] hello\n");
  /* Nothing goes to the other stream. */
  expect_printed(g, print(g, "p_out2", msg, "stdout", NULL), 2, "");
  /* tf.print: StringFormat then PrintV2. */
  graft_op *x = konst(g, "x", GRAFT_INT32, D(2, 2), (const int32_t[]){1, 2, 3, 4});
  expect_printed(g, print(g, "p_fmt", format(g, "fmt", "x: {}", 3, &x, 1), "stdout", NULL), 1,
                 "x: [[1 2]\n [3 4]]\n");
}

static void test_print_file(void **state) {
  graft_graph *g = *state;
  char path[] = "/tmp/graft_print_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  char stream[64];
  snprintf(stream, sizeof stream, "file://%s", path);
  graft_op *msg = strings(g, "msg", SCALAR, (const char *const[]){"line"});
  graft_op *p = print(g, "pf", msg, stream, NULL);
  GT_OK(run_target(g, p, NULL, NULL));
  GT_OK(run_target(g, p, NULL, NULL));
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char buf[64] = {0};
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  unlink(path);
  assert_int_equal(n, 10);
  assert_string_equal(buf, "line\nline\n");
}

static void test_print_errors(void **state) {
  graft_graph *g = *state;
  graft_op *msg = strings(g, "msg", SCALAR, (const char *const[]){"hello"});
  graft_op *bad = print(g, "bad", msg, "nowhere", NULL);
  GT_ERR(GRAFT_EINVAL, run_target(g, bad, NULL, NULL), "PrintV2 op 'bad'",
         "Unknown output stream: nowhere, Valid streams are: stdout stderr log(info)");
  /* A non-scalar input only shows at run time when a placeholder hides it. */
  graft_op *p = ph(g, "p", GRAFT_STRING);
  graft_op *pv = print(g, "pv", p, NULL, NULL);
  graft_tensor *two = NULL;
  GT_OK(graft_tensor_new_strings(&two, D(2), (const char *const[]){"a", "b"}, NULL, 2));
  GT_ERR(GRAFT_EINVAL, run_target(g, pv, p, two), "PrintV2 op 'pv'", "Input is expected to be scalar, but got [2]");
}

/* ---- Assert ------------------------------------------------------------------------------- */

static graft_op *assert_op(graft_graph *g, const char *name, graft_op *cond, graft_op **data, int n,
                           int64_t summarize) {
  graft_op_desc *d = desc(g, "Assert", name);
  in(d, cond);
  graft_output outs[8];
  for (int i = 0; i < n; ++i) outs[i] = (graft_output){data[i], 0};
  GT_OK(graft_op_desc_add_input_list(d, outs, n));
  if (summarize >= -1) GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "summarize", summarize));
  return fin(d);
}

static void test_assert(void **state) {
  graft_graph *g = *state;
  graft_op *c = ph(g, "c", GRAFT_BOOL);
  graft_op *data[] = {strings(g, "what", SCALAR, (const char *const[]){"x is"}),
                      konst(g, "x", GRAFT_INT32, D(5), (const int32_t[]){1, 2, 3, 4, 5}),
                      konst(g, "m", GRAFT_FLOAT32, D(2, 2), (const float[]){1.5f, 2, 3, 4}),
                      strings(g, "sv", D(2), (const char *const[]){"a b", "c"})};
  graft_op *a = assert_op(g, "a", c, data, 4, -2);
  GT_OK(run_target(g, a, c, bool_scalar(1)));
  /* The older summary layout: the first 3 elements, brackets per row, then "...". */
  GT_ERR(GRAFT_EINVAL, run_target(g, a, c, bool_scalar(0)), "Assert op 'a'",
         "assertion failed: [x is] [1 2 3...] [[1.5 2][3...]...] [a b c]");
  graft_op *all = assert_op(g, "all", c, data, 4, -1);
  GT_ERR(GRAFT_EINVAL, run_target(g, all, c, bool_scalar(0)), "Assert op 'all'",
         "assertion failed: [x is] [1 2 3 4 5] [[1.5 2][3 4]] [a b c]");
  graft_op *one = assert_op(g, "one", c, &data[1], 1, 1);
  GT_ERR(GRAFT_EINVAL, run_target(g, one, c, bool_scalar(0)), "Assert op 'one'", "assertion failed: [1...]");
  /* A one-element vector condition is accepted, as TensorFlow does; longer ones are not. */
  graft_tensor *v1 = tensor(GRAFT_BOOL, D(1), (const uint8_t[]){1});
  GT_OK(run_target(g, one, c, v1));
  graft_tensor *v2 = tensor(GRAFT_BOOL, D(2), (const uint8_t[]){1, 1});
  GT_ERR(GRAFT_EINVAL, run_target(g, one, c, v2), "Assert op 'one'", "In[0] should be a scalar: [2]");
}

/* An Assert as a control input of the value fetched: the run fails when it fails. */
static void test_assert_control(void **state) {
  graft_graph *g = *state;
  graft_op *c = ph(g, "c", GRAFT_BOOL);
  graft_op *msg = strings(g, "msg", SCALAR, (const char *const[]){"must hold"});
  graft_op *a = assert_op(g, "check", c, &msg, 1, -2);
  graft_op_desc *d = desc(g, "Identity", "y");
  in(d, konst(g, "v", GRAFT_FLOAT32, SCALAR, (const float[]){3}));
  GT_OK(graft_op_desc_add_control_input(d, a));
  graft_op *y = fin(d);
  graft_op *fops[] = {c};
  graft_tensor *vals[] = {bool_scalar(1)};
  expect(run_feeds(g, y, 0, 1, fops, vals), GRAFT_FLOAT32, SCALAR, (const float[]){3});
  expect_error(g, y, c, bool_scalar(0), GRAFT_EINVAL, "Assert op 'check'", "assertion failed: [must hold]");
}


/* ---- Regex ops (RE2) ------------------------------------------------------------------------ */

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A malloc'd string of n copies of c followed by tail. */
static char *repeat(char c, size_t n, const char *tail) {
  size_t t = strlen(tail);
  char *s = malloc(n + t + 1);
  assert_non_null(s);
  memset(s, c, n);
  memcpy(s + n, tail, t + 1);
  return s;
}

/* A malloc'd pattern of depth nested groups around "a": ((...(a)...)). */
static char *nested_groups(size_t depth) {
  char *s = malloc(2 * depth + 2);
  assert_non_null(s);
  memset(s, '(', depth);
  s[depth] = 'a';
  memset(s + depth + 1, ')', depth);
  s[2 * depth + 1] = '\0';
  return s;
}

static graft_tensor *string_vector(const char *const *values, int64_t n) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new_strings(&t, &n, 1, values, NULL, (size_t)n));
  return t;
}

static graft_op *static_full_match(graft_graph *g, const char *name, graft_op *input, const char *pattern) {
  graft_op_desc *d = desc(g, "StaticRegexFullMatch", name);
  in(d, input);
  set_string(d, "pattern", pattern);
  return fin(d);
}

static graft_op *static_replace(graft_graph *g, const char *name, graft_op *input, const char *pattern,
                                const char *rewrite, int global) {
  graft_op_desc *d = desc(g, "StaticRegexReplace", name);
  in(d, input);
  set_string(d, "pattern", pattern);
  set_string(d, "rewrite", rewrite);
  if (global >= 0) GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "replace_global", global));
  return fin(d);
}

/* Inputs std::regex overflowed the stack on (its matcher recursed once per character): RE2 is
 * linear and does not recurse on the input. */
static void test_regex_long_inputs(void **state) {
  graft_graph *g = *state;
  graft_op *x = ph(g, "x", GRAFT_STRING);
  char *k12 = repeat('a', 12000, ""), *k100 = repeat('b', 100000, ""), *k100c = repeat('a', 100000, "c");
  const char *values[] = {k12, k100, k100c};
  graft_op *m = static_full_match(g, "m", x, "(a|b)*");
  graft_op *fops[] = {x};
  graft_tensor *vals[] = {string_vector(values, 3)};
  double t0 = now_seconds();
  expect(run_feeds(g, m, 0, 1, fops, vals), GRAFT_BOOL, D(3), (const uint8_t[]){1, 1, 0});
  /* The same through RegexFullMatch, the pattern a tensor. */
  graft_op *dyn = make_binary(g, "RegexFullMatch", "dyn", x, strings(g, "p", SCALAR, (const char *const[]){"(a|b)*"}));
  vals[0] = string_vector(values, 3);
  expect(run_feeds(g, dyn, 0, 1, fops, vals), GRAFT_BOOL, D(3), (const uint8_t[]){1, 1, 0});
  /* And a replacement over the 100k-character string, every match. */
  graft_op *r = static_replace(g, "r", x, "(b)", "<\\1>", -1);
  const char *one[] = {k100};
  vals[0] = string_vector(one, 1);
  graft_tensor *out = run_feeds(g, r, 0, 1, fops, vals);
  const char *s = NULL;
  size_t len = 0;
  GT_OK(graft_tensor_string(&s, &len, out, 0));
  assert_int_equal(len, 300000);
  assert_memory_equal(s, "<b><b>", 6);
  graft_tensor_free(out);
  assert_true(now_seconds() - t0 < 10.0);
  free(k12);
  free(k100);
  free(k100c);
}

/* Deeply nested groups: std::regex's parser recursed once per group (a crash at 5k to 50k);
 * RE2 parses without recursion. RE2 (Debian's 2022 release) takes 50k groups and matches
 * correctly; a release that limits the nesting depth refuses them with a clear error: either
 * is fine, a crash is not. A pattern too large to compile is an error naming the op, with the
 * pattern shortened. */
static void test_regex_nested_groups(void **state) {
  graft_graph *g = *state;
  graft_op *x = strings(g, "x", D(2), (const char *const[]){"a", "b"});
  char *p50k = nested_groups(50000);
  graft_op *deep = static_full_match(g, "deep", x, p50k);
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output f = {deep, 0};
  graft_tensor *out = NULL;
  int rc = graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0);
  if (rc == GRAFT_OK) {
    expect(out, GRAFT_BOOL, D(2), (const uint8_t[]){1, 0});
  } else {
    assert_int_equal(rc, GRAFT_EINVAL);
    assert_non_null(strstr(graft_error_last(), "StaticRegexFullMatch op 'deep'"));
    assert_non_null(strstr(graft_error_last(), "is not a valid regular expression"));
  }
  graft_session_free(s);
  char *p500k = nested_groups(500000);
  graft_op *too_deep = static_full_match(g, "too_deep", x, p500k);
  expect_error(g, too_deep, NULL, NULL, GRAFT_EINVAL, "StaticRegexFullMatch op 'too_deep'",
               "is not a valid regular expression: ");
  /* The message quotes the start of the pattern and its length, not a megabyte of it. */
  assert_non_null(strstr(graft_error_last(), "... (1000001 characters)"));
  assert_true(strlen(graft_error_last()) < 1000);
  /* An unbalanced one: RE2 quotes the bad part, shortened too. */
  p500k[1000000] = '\0';
  graft_op *open = static_full_match(g, "open", x, p500k);
  expect_error(g, open, NULL, NULL, GRAFT_EINVAL, "StaticRegexFullMatch op 'open'", "is not a valid regular expression");
  assert_true(strlen(graft_error_last()) < 1000);
  free(p50k);
  free(p500k);
}

/* Exponential backtracking with std::regex (40 'a's: years); RE2 answers in linear time. */
static void test_regex_no_backtracking(void **state) {
  graft_graph *g = *state;
  graft_op *x = ph(g, "x", GRAFT_STRING);
  char *a40 = repeat('a', 40, ""), *a10k = repeat('a', 10000, ""), *a40b = repeat('a', 40, "b");
  const char *values[] = {a40, a10k, a40b};
  graft_op *m = static_full_match(g, "m", x, "(a*)*b");
  graft_op *fops[] = {x};
  graft_tensor *vals[] = {string_vector(values, 3)};
  double t0 = now_seconds();
  expect(run_feeds(g, m, 0, 1, fops, vals), GRAFT_BOOL, D(3), (const uint8_t[]){0, 0, 1});
  graft_op *r = static_replace(g, "r", x, "(a*)*b", "X", -1);
  vals[0] = string_vector(values, 3);
  graft_tensor *out = run_feeds(g, r, 0, 1, fops, vals);
  const char *s = NULL;
  size_t len = 0;
  GT_OK(graft_tensor_string(&s, &len, out, 2));
  assert_int_equal(len, 1);
  assert_memory_equal(s, "X", 1);
  graft_tensor_free(out);
  assert_true(now_seconds() - t0 < 5.0);
  free(a40);
  free(a10k);
  free(a40b);
}

static void test_regex_full_match(void **state) {
  graft_graph *g = *state;
  graft_op *x = strings(g, "x", D(2, 2), (const char *const[]){"abc", "b", "s3://bucket", ""});
  /* The whole string must match: "b" does not match "abc" (RE2::PartialMatch would). */
  expect(run(g, static_full_match(g, "b", x, "b")), GRAFT_BOOL, D(2, 2), (const uint8_t[]){0, 1, 0, 0});
  expect(run(g, static_full_match(g, "has_b", x, ".*b.*")), GRAFT_BOOL, D(2, 2), (const uint8_t[]){1, 1, 1, 0});
  expect(run(g, static_full_match(g, "s3", x, "^s3://.*")), GRAFT_BOOL, D(2, 2), (const uint8_t[]){0, 0, 1, 0});
  expect(run(g, static_full_match(g, "empty", x, "")), GRAFT_BOOL, D(2, 2), (const uint8_t[]){0, 0, 0, 1});
  /* RE2 syntax: \\d, (?i), character classes. */
  graft_op *y = strings(g, "y", D(3), (const char *const[]){"Model-042", "model-7", "model-x"});
  expect(run(g, static_full_match(g, "ci", y, "(?i)model-\\d+")), GRAFT_BOOL, D(3), (const uint8_t[]){1, 1, 0});
  /* RegexFullMatch: the pattern as a scalar string tensor, fed at run time. */
  graft_op *p = ph(g, "p", GRAFT_STRING);
  graft_op *dyn = make_binary(g, "RegexFullMatch", "dyn", y, p);
  graft_op *fops[] = {p};
  graft_tensor *pv = NULL;
  GT_OK(graft_tensor_new_strings(&pv, SCALAR, (const char *const[]){"model-[0-9]"}, NULL, 1));
  graft_tensor *vals[] = {pv};
  expect(run_feeds(g, dyn, 0, 1, fops, vals), GRAFT_BOOL, D(3), (const uint8_t[]){0, 1, 0});
}

static void test_regex_replace(void **state) {
  graft_graph *g = *state;
  graft_op *x = strings(g, "x", D(3), (const char *const[]){"banana", "apple", "cherry"});
  /* replace_global (the default): every match; false: the first only. */
  expect_strings(run(g, static_replace(g, "all", x, "a", "o", -1)), D(3),
                 (const char *const[]){"bonono", "opple", "cherry"});
  expect_strings(run(g, static_replace(g, "first", x, "a", "o", 0)), D(3),
                 (const char *const[]){"bonana", "opple", "cherry"});
  /* Capture groups in the rewrite: \1, \2; \0 is the whole match; \\ a backslash. */
  graft_op *mail = strings(g, "mail", D(2), (const char *const[]){"alice@example", "no address"});
  expect_strings(run(g, static_replace(g, "swap", mail, "(\\w+)@(\\w+)", "\\2 at \\1", -1)), D(2),
                 (const char *const[]){"example at alice", "no address"});
  expect_strings(run(g, static_replace(g, "whole", x, "an", "[\\0\\\\]", 1)), D(3),
                 (const char *const[]){"b[an\\][an\\]a", "apple", "cherry"});
  /* A pattern that matches the empty string, as RE2 (and TensorFlow) replace it. */
  graft_op *abc = strings(g, "abc", SCALAR, (const char *const[]){"abc"});
  expect_strings(run(g, static_replace(g, "empty", abc, "x*", "-", -1)), SCALAR, (const char *const[]){"-a-b-c-"});
  /* RegexReplace: pattern and rewrite as tensors. */
  graft_op_desc *d = desc(g, "RegexReplace", "dyn");
  in(d, x);
  in(d, strings(g, "pat", SCALAR, (const char *const[]){"([aeiou])"}));
  in(d, strings(g, "rew", SCALAR, (const char *const[]){"<\\1>"}));
  expect_strings(run(g, fin(d)), D(3), (const char *const[]){"b<a>n<a>n<a>", "<a>ppl<e>", "ch<e>rry"});
  d = desc(g, "RegexReplace", "dyn_first");
  in(d, x);
  in(d, strings(g, "pat2", SCALAR, (const char *const[]){"[aeiou]"}));
  in(d, strings(g, "rew2", SCALAR, (const char *const[]){"_"}));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "replace_global", 0));
  expect_strings(run(g, fin(d)), D(3), (const char *const[]){"b_nana", "_pple", "ch_rry"});
}

static void test_regex_errors(void **state) {
  graft_graph *g = *state;
  graft_op *x = strings(g, "x", D(2), (const char *const[]){"aa", "ab"});
  /* RE2 has no backreferences (they need backtracking): an invalid pattern, RE2's error. */
  expect_error(g, static_full_match(g, "backref", x, "(a)\\1"), NULL, NULL, GRAFT_EINVAL,
               "StaticRegexFullMatch op 'backref'", "pattern '(a)\\1' is not a valid regular expression: invalid escape sequence: \\1");
  expect_error(g, static_replace(g, "lookahead", x, "a(?=b)", "", -1), NULL, NULL, GRAFT_EINVAL,
               "StaticRegexReplace op 'lookahead'", "pattern 'a(?=b)' is not a valid regular expression");
  /* A rewrite naming a group the pattern lacks. */
  expect_error(g, static_replace(g, "group3", x, "(a)(b)", "\\3", -1), NULL, NULL, GRAFT_EINVAL,
               "StaticRegexReplace op 'group3'", "rewrite '\\3' does not fit pattern '(a)(b)'");
  /* The dynamic ops: a bad pattern fed at run time, and patterns that are not scalars. */
  graft_op *p = ph(g, "p", GRAFT_STRING);
  graft_op *dyn = make_binary(g, "RegexFullMatch", "dyn", x, p);
  graft_tensor *bad = NULL;
  GT_OK(graft_tensor_new_strings(&bad, SCALAR, (const char *const[]){"a("}, NULL, 1));
  expect_error(g, dyn, p, bad, GRAFT_EINVAL, "RegexFullMatch op 'dyn'", "pattern 'a(' is not a valid regular expression: missing )");
  expect_error(g, dyn, p, string_vector((const char *const[]){"a", "b"}, 2), GRAFT_EINVAL, "RegexFullMatch op 'dyn'",
               "pattern must be a scalar string, but has shape (2,)");
  /* A pattern of known non-scalar shape is refused when the op is made. */
  graft_op_desc *d = desc(g, "RegexFullMatch", "vec");
  in(d, x);
  in(d, x);
  graft_op *op = NULL;
  GT_ERR(GRAFT_ESHAPE, graft_op_desc_finish(&op, d), "'pattern' must have rank 0 (a scalar)");
  d = desc(g, "RegexReplace", "vec_rewrite");
  in(d, x);
  in(d, strings(g, "pat", SCALAR, (const char *const[]){"a"}));
  in(d, x);
  GT_ERR(GRAFT_ESHAPE, graft_op_desc_finish(&op, d), "'rewrite' must have rank 0 (a scalar)");
}

/* ---- Text ops of Keras' TextVectorization (kernels/cpu/text_kernels.cc, ragged_kernels.cc) ----
 * StringLower/StringUpper, AsString, StringNGrams, RaggedTensorToTensor, RaggedBincount. Expected
 * values and error messages are TensorFlow 2.21's on the same inputs. */

static graft_op *case_op(graft_graph *g, const char *type, const char *name, graft_op *x, const char *encoding) {
  graft_op_desc *d = desc(g, type, name);
  in(d, x);
  if (encoding != NULL) set_string(d, "encoding", encoding);
  return fin(d);
}

static void test_string_lower_upper(void **state) {
  graft_graph *g = *state;
  graft_op *lo = strings(g, "lo", D(8), (const char *const[]){"Hello WORLD \303\200\303\211\303\216 \303\221\303\207", "\304\200\304\236\305\201\305\222\305\270", "\316\221\316\222\316\223 \316\237\316\224\316\237\316\243 \316\243 \316\243A", "\320\224\320\236\320\234 \320\201\320\266", "\304\260stanbul \341\272\236 \307\205", "\303(abc\377\342\202", "\307\204\307\205\307\206\307\207 \310\272\310\276 \341\270\200 \342\204\246 \342\204\252 \342\204\253", "\342\205\240\342\205\253 \342\222\266\342\223\217 \357\274\241\357\274\272 \360\220\220\200"});
  /* '' (the default): ASCII letters only; 'utf-8': Unicode case mapping (İ -> i̇, final sigma,
   * the title case digraphs, Kelvin/Angstrom/Ohm, Roman numerals, circled, fullwidth, Deseret;
   * each ill-formed UTF-8 sequence becomes one U+FFFD). */
  graft_op *a = case_op(g, "StringLower", "lower_ascii", lo, NULL);
  assert_output_shape(a, 0, "(8,)");
  expect_strings(run(g, a), D(8), (const char *const[]){"hello world \303\200\303\211\303\216 \303\221\303\207", "\304\200\304\236\305\201\305\222\305\270", "\316\221\316\222\316\223 \316\237\316\224\316\237\316\243 \316\243 \316\243a", "\320\224\320\236\320\234 \320\201\320\266", "\304\260stanbul \341\272\236 \307\205", "\303(abc\377\342\202", "\307\204\307\205\307\206\307\207 \310\272\310\276 \341\270\200 \342\204\246 \342\204\252 \342\204\253", "\342\205\240\342\205\253 \342\222\266\342\223\217 \357\274\241\357\274\272 \360\220\220\200"});
  expect_strings(run(g, case_op(g, "StringLower", "lower_utf8", lo, "utf-8")), D(8), (const char *const[]){"hello world \303\240\303\251\303\256 \303\261\303\247", "\304\201\304\237\305\202\305\223\303\277", "\316\261\316\262\316\263 \316\277\316\264\316\277\317\202 \317\203 \317\203a", "\320\264\320\276\320\274 \321\221\320\266", "i\314\207stanbul \303\237 \307\206", "\357\277\275(abc\357\277\275\357\277\275", "\307\206\307\206\307\206\307\211 \342\261\245\342\261\246 \341\270\201 \317\211 k \303\245", "\342\205\260\342\205\273 \342\223\220\342\223\251 \357\275\201\357\275\232 \360\220\220\250"});
  graft_op *up = strings(g, "up", D(6), (const char *const[]){"hello \303\237 \303\240\303\251\303\256\303\277 \303\261\303\247", "\304\201\304\237\305\202\305\223 \304\261", "\316\261\316\262\316\263 \317\202 \316\220", "\320\264\320\276\320\274 \321\221\320\266", "\357\254\201 \305\211 \307\260 \302\265", "\307\206\307\205 \305\277 \342\205\260 \342\223\220 \357\275\201 \360\220\220\250"});
  expect_strings(run(g, case_op(g, "StringUpper", "upper_ascii", up, "")), D(6), (const char *const[]){"HELLO \303\237 \303\240\303\251\303\256\303\277 \303\261\303\247", "\304\201\304\237\305\202\305\223 \304\261", "\316\261\316\262\316\263 \317\202 \316\220", "\320\264\320\276\320\274 \321\221\320\266", "\357\254\201 \305\211 \307\260 \302\265", "\307\206\307\205 \305\277 \342\205\260 \342\223\220 \357\275\201 \360\220\220\250"});
  /* ß -> SS, ΐ -> Ϊ́, ﬁ -> FI, ŉ -> ʼN, ǰ -> J̌, µ -> Μ, ſ -> S, ı -> I, ǆ/ǅ -> Ǆ. */
  expect_strings(run(g, case_op(g, "StringUpper", "upper_utf8", up, "utf-8")), D(6), (const char *const[]){"HELLO SS \303\200\303\211\303\216\305\270 \303\221\303\207", "\304\200\304\236\305\201\305\222 I", "\316\221\316\222\316\223 \316\243 \316\231\314\210\314\201", "\320\224\320\236\320\234 \320\201\320\226", "FI \312\274N J\314\214 \316\234", "\307\204\307\204 S \342\205\240 \342\222\266 \357\274\241 \360\220\220\200"});
  graft_op *m = strings(g, "m", D(1, 2), (const char *const[]){"MiXeD", ""});
  expect_strings(run(g, case_op(g, "StringUpper", "matrix", m, NULL)), D(1, 2), (const char *const[]){"MIXED", ""});
  expect_error(g, case_op(g, "StringLower", "bad_encoding", lo, "UTF-8"), NULL, NULL, GRAFT_EINVAL,
               "StringLower op 'bad_encoding'", "only utf-8 or '' (no encoding) is supported, received UTF-8");
  expect_error(g, case_op(g, "StringUpper", "latin1", lo, "latin1"), NULL, NULL, GRAFT_EINVAL,
               "StringUpper op 'latin1'", "only utf-8 or '' (no encoding) is supported, received latin1");
}

/* AsString; fill NULL: not set. */
static graft_op *as_string(graft_graph *g, const char *name, graft_op *x, int64_t precision, int scientific,
                           int shortest, int64_t width, const char *fill) {
  graft_op_desc *d = desc(g, "AsString", name);
  in(d, x);
  graft_attrs *a = graft_op_desc_attrs(d);
  GT_OK(graft_attrs_set_int(a, "precision", precision));
  GT_OK(graft_attrs_set_bool(a, "scientific", scientific));
  GT_OK(graft_attrs_set_bool(a, "shortest", shortest));
  GT_OK(graft_attrs_set_int(a, "width", width));
  if (fill != NULL) set_string(d, "fill", fill);
  return fin(d);
}

static void test_as_string(void **state) {
  graft_graph *g = *state;
  graft_op *f = konst(g, "f", GRAFT_FLOAT32, D(8),
                      (const float[]){1.5f, -2.25f, 3.0f, 1e10f, 1.234567891e-5f, NAN, INFINITY, -INFINITY});
  graft_op *fs = as_string(g, "f_default", f, -1, 0, 0, -1, NULL);
  assert_output_shape(fs, 0, "(8,)");
  expect_strings(run(g, fs), D(8),
                 (const char *const[]){"1.500000", "-2.250000", "3.000000", "10000000000.000000", "0.000012", "nan",
                                       "inf", "-inf"});
  graft_op *d = konst(g, "d", GRAFT_FLOAT64, D(5), (const double[]){1.5, -2.25, 1e10, 1.234567891e-5, 0.0});
  expect_strings(run(g, as_string(g, "d_shortest", d, -1, 0, 1, -1, NULL)), D(5),
                 (const char *const[]){"1.5", "-2.25", "1e+10", "1.23457e-05", "0"});
  expect_strings(run(g, as_string(g, "d_scientific", d, -1, 1, 0, -1, NULL)), D(5),
                 (const char *const[]){"1.500000e+00", "-2.250000e+00", "1.000000e+10", "1.234568e-05", "0.000000e+00"});
  /* Shortest with a precision is %.3g. */
  expect_strings(run(g, as_string(g, "d_shortest3", d, 3, 0, 1, -1, NULL)), D(5),
                 (const char *const[]){"1.5", "-2.25", "1e+10", "1.23e-05", "0"});
  graft_op *two = konst(g, "two", GRAFT_FLOAT32, D(2), (const float[]){1.5f, -2.25f});
  expect_strings(run(g, as_string(g, "w10p2", two, 2, 0, 0, 10, NULL)), D(2), (const char *const[]){"      1.50", "     -2.25"});
  expect_strings(run(g, as_string(g, "zero", two, 2, 0, 0, 10, "0")), D(2), (const char *const[]){"0000001.50", "-000002.25"});
  expect_strings(run(g, as_string(g, "minus", two, -1, 0, 0, 10, "-")), D(2), (const char *const[]){"1.500000  ", "-2.250000 "});
  expect_strings(run(g, as_string(g, "plus", two, -1, 0, 0, 10, "+")), D(2), (const char *const[]){" +1.500000", " -2.250000"});
  expect_strings(run(g, as_string(g, "space", two, -1, 0, 0, 7, " ")), D(2), (const char *const[]){" 1.500000", "-2.250000"});
  graft_op *i = konst(g, "i", GRAFT_INT32, D(3), (const int32_t[]){1, -2, 300});
  expect_strings(run(g, as_string(g, "i_zero", i, -1, 0, 0, 5, "0")), D(3), (const char *const[]){"00001", "-0002", "00300"});
  expect_strings(run(g, as_string(g, "i_neg_width", i, -1, 0, 0, -5, NULL)), D(3), (const char *const[]){"1", "-2", "300"});
  graft_op *i8 = konst(g, "i8", GRAFT_INT8, D(2), (const int8_t[]){-5, 3});
  expect_strings(run(g, as_string(g, "i8", i8, -1, 0, 0, 4, "-")), D(2), (const char *const[]){"-5  ", "3   "});
  graft_op *i64 = konst(g, "i64", GRAFT_INT64, D(2), (const int64_t[]){INT64_MIN, INT64_MAX});
  expect_strings(run(g, as_string(g, "i64", i64, -1, 0, 0, -1, NULL)), D(2),
                 (const char *const[]){"-9223372036854775808", "9223372036854775807"});
  graft_op *u64 = konst(g, "u64", GRAFT_UINT64, D(1), (const uint64_t[]){UINT64_MAX});
  expect_strings(run(g, as_string(g, "u64", u64, -1, 0, 0, -1, NULL)), D(1), (const char *const[]){"18446744073709551615"});
  graft_op *u8 = konst(g, "u8", GRAFT_UINT8, D(2), (const uint8_t[]){1, 200});
  expect_strings(run(g, as_string(g, "u8", u8, -1, 0, 0, 4, NULL)), D(2), (const char *const[]){"   1", " 200"});
  /* bool: "true"/"false", width ignored. */
  graft_op *b = konst(g, "b", GRAFT_BOOL, D(2), (const uint8_t[]){1, 0});
  expect_strings(run(g, as_string(g, "b", b, -1, 0, 0, 7, NULL)), D(2), (const char *const[]){"true", "false"});
  graft_op *c = konst(g, "c", GRAFT_COMPLEX64, D(2), (const float[]){1, 2, -0.0f, -0.5f});
  expect_strings(run(g, as_string(g, "c", c, -1, 0, 0, -1, NULL)), D(2),
                 (const char *const[]){"(1.000000,2.000000)", "(-0.000000,-0.500000)"});
  graft_op *c128 = konst(g, "c128", GRAFT_COMPLEX128, D(1), (const double[]){1, 2});
  expect_strings(run(g, as_string(g, "c128", c128, 1, 0, 0, 5, NULL)), D(1), (const char *const[]){"(  1.0,  2.0)"});
  /* float16 1.5 and 0.1 (0x2e66), printed from their float values. */
  graft_op *h = konst(g, "h", GRAFT_FLOAT16, D(2), (const uint16_t[]){0x3e00, 0x2e66});
  expect_strings(run(g, as_string(g, "h", h, -1, 0, 0, -1, NULL)), D(2), (const char *const[]){"1.500000", "0.099976"});
  graft_op *s = strings(g, "s", D(2), (const char *const[]){"ab", "c"});
  expect_strings(run(g, as_string(g, "s", s, -1, 0, 0, 5, NULL)), D(2), (const char *const[]){"   ab", "    c"});
  /* Errors, as TensorFlow's. */
  expect_error(g, as_string(g, "fill_x", two, -1, 0, 0, 7, "x"), NULL, NULL, GRAFT_EINVAL, "AsString op 'fill_x'",
               "Fill argument not supported: \"x\"");
  expect_error(g, as_string(g, "fill_00", two, -1, 0, 0, 7, "00"), NULL, NULL, GRAFT_EINVAL, "AsString op 'fill_00'",
               "Fill string must be one or fewer characters");
  expect_error(g, as_string(g, "both", two, -1, 1, 1, -1, NULL), NULL, NULL, GRAFT_EINVAL, "AsString op 'both'",
               "Cannot select both scientific and shortest notation");
  /* width and precision are int32s, as TensorFlow's: 2^40 is refused, not printed with. */
  expect_error(g, as_string(g, "wide", two, -1, 0, 0, (int64_t)1 << 40, NULL), NULL, NULL, GRAFT_EINVAL,
               "AsString op 'wide'", "attr 'width' has value 1099511627776 out of range for an int32");
  expect_error(g, as_string(g, "precise", two, (int64_t)1 << 40, 0, 0, -1, NULL), NULL, NULL, GRAFT_EINVAL,
               "AsString op 'precise'", "attr 'precision' has value 1099511627776 out of range for an int32");
  expect_error(g, as_string(g, "i_precision", i, 3, 0, 0, -1, NULL), NULL, NULL, GRAFT_EINVAL,
               "AsString op 'i_precision'", "precision not supported for datatype int32");
  expect_error(g, as_string(g, "i_shortest", i, -1, 0, 1, -1, NULL), NULL, NULL, GRAFT_EINVAL,
               "AsString op 'i_shortest'", "scientific and shortest format not supported for datatype int32");
  expect_error(g, as_string(g, "u8_scientific", u8, -1, 1, 0, -1, NULL), NULL, NULL, GRAFT_EINVAL,
               "AsString op 'u8_scientific'", "scientific and shortest format not supported for datatype uint8");
  expect_error(g, as_string(g, "b_precision", b, 2, 0, 0, -1, NULL), NULL, NULL, GRAFT_EINVAL,
               "AsString op 'b_precision'", "precision not supported for datatype bool");
}

static graft_op *ngrams(graft_graph *g, const char *name, graft_op *data, graft_op *splits, const char *sep,
                        const int64_t *widths, int nwidths, const char *left, const char *right, int64_t pad_width,
                        int preserve) {
  graft_op_desc *d = desc(g, "StringNGrams", name);
  in(d, data);
  in(d, splits);
  graft_attrs *a = graft_op_desc_attrs(d);
  set_string(d, "separator", sep);
  GT_OK(graft_attrs_set_int_list(a, "ngram_widths", widths, nwidths));
  set_string(d, "left_pad", left);
  set_string(d, "right_pad", right);
  GT_OK(graft_attrs_set_int(a, "pad_width", pad_width));
  GT_OK(graft_attrs_set_bool(a, "preserve_short_sequences", preserve));
  return fin(d);
}

#define W(...) ((const int64_t[]){__VA_ARGS__}), N_OF(((const int64_t[]){__VA_ARGS__}))

static void expect_ngrams(graft_graph *g, graft_op *op, int64_t n, const char *const *values, int64_t rows,
                          const int64_t *splits) {
  if (n > 0) {
    expect_strings(run_feeds(g, op, 0, 0, NULL, NULL), (const int64_t[]){n}, 1, values);
  } else {
    graft_tensor *t = run_feeds(g, op, 0, 0, NULL, NULL);
    expect_dims(t, (const int64_t[]){0}, 1);
    graft_tensor_free(t);
  }
  expect(run_feeds(g, op, 1, 0, NULL, NULL), GRAFT_INT64, (const int64_t[]){rows + 1}, 1, splits);
}

static void test_string_ngrams(void **state) {
  graft_graph *g = *state;
  graft_op *x = strings(g, "x", D(5), (const char *const[]){"a", "b", "c", "d", "e"});
  graft_op *sp = konst(g, "sp", GRAFT_INT64, D(4), (const int64_t[]){0, 3, 3, 5});
  /* TextVectorization's ngrams=2: widths 1 and 2, no padding. */
  graft_op *kv = ngrams(g, "keras", x, sp, " ", W(1, 2), "", "", 0, 0);
  assert_output_shape(kv, 0, "(None,)");
  assert_output_shape(kv, 1, "(4,)");
  expect_ngrams(g, kv, 8, (const char *const[]){"a", "b", "c", "a b", "b c", "d", "e", "d e"}, 3,
                (const int64_t[]){0, 5, 5, 8});
  /* pad_width -1: width - 1 pads each side; an empty row gives pads only. */
  expect_ngrams(g, ngrams(g, "pad3", x, sp, "|", W(3), "L", "R", -1, 0), 11,
                (const char *const[]){"L|L|a", "L|a|b", "a|b|c", "b|c|R", "c|R|R", "L|L|R", "L|R|R", "L|L|d", "L|d|e",
                                      "d|e|R", "e|R|R"},
                3, (const int64_t[]){0, 5, 7, 11});
  expect_ngrams(g, ngrams(g, "pad1", x, sp, "|", W(2, 4), "L", "R", 1, 0), 11,
                (const char *const[]){"L|a", "a|b", "b|c", "c|R", "L|a|b|c", "a|b|c|R", "L|R", "L|d", "d|e", "e|R",
                                      "L|d|e|R"},
                3, (const int64_t[]){0, 6, 7, 11});
  /* preserve_short_sequences: one ngram of a whole row too short for the width. */
  expect_ngrams(g, ngrams(g, "short", x, sp, "|", W(4), "L", "R", 0, 1), 2, (const char *const[]){"a|b|c", "d|e"}, 3,
                (const int64_t[]){0, 1, 1, 2});
  expect_ngrams(g, ngrams(g, "short_pad", x, sp, "|", W(5), "L", "R", 1, 1), 2,
                (const char *const[]){"L|a|b|c|R", "L|d|e|R"}, 3, (const int64_t[]){0, 1, 1, 2});
  /* A pad wider than the row; pad_width above width - 1 is capped. */
  graft_op *one = strings(g, "one", D(1), (const char *const[]){"a"});
  graft_op *sp1 = konst(g, "sp1", GRAFT_INT64, D(2), (const int64_t[]){0, 1});
  expect_ngrams(g, ngrams(g, "wide", one, sp1, "|", W(3), "L", "R", 5, 0), 3,
                (const char *const[]){"L|L|a", "L|a|R", "a|R|R"}, 1, (const int64_t[]){0, 3});
  /* int32 splits, an empty separator, widths in the given order. */
  graft_op *abc = strings(g, "abc", D(3), (const char *const[]){"a", "b", "c"});
  graft_op *sp32 = konst(g, "sp32", GRAFT_INT32, D(3), (const int32_t[]){0, 1, 3});
  graft_op *i32 = ngrams(g, "i32", abc, sp32, "", W(2, 1), "<", ">", -1, 0);
  expect_strings(run(g, i32), D(8), (const char *const[]){"<a", "a>", "a", "<b", "bc", "c>", "b", "c"});
  expect(run_feeds(g, i32, 1, 0, NULL, NULL), GRAFT_INT32, D(3), (const int32_t[]){0, 3, 8});
  /* Empty data and rows. */
  graft_op *none = strings(g, "none", D(0), NULL);
  expect_ngrams(g, ngrams(g, "empty_rows", none, konst(g, "sp0", GRAFT_INT64, D(3), (const int64_t[]){0, 0, 0}), "|",
                          W(2), "L", "R", -1, 0),
                0, NULL, 2, (const int64_t[]){0, 0, 0});
  /* Errors, as TensorFlow's. */
  expect_error(g, ngrams(g, "width0", x, sp, "|", W(0), "", "", -1, 0), NULL, NULL, GRAFT_EINVAL,
               "StringNGrams op 'width0'", "ngram_widths must contain positive values");
  graft_op *ab = strings(g, "ab", D(2), (const char *const[]){"a", "b"});
  expect_error(g, ngrams(g, "first", ab, konst(g, "s1", GRAFT_INT64, D(2), (const int64_t[]){1, 2}), "|", W(2), "", "", 0, 0),
               NULL, NULL, GRAFT_EINVAL, "StringNGrams op 'first'", "First split value must be 0, got 1");
  expect_error(g, ngrams(g, "past", ab, konst(g, "s2", GRAFT_INT64, D(2), (const int64_t[]){0, 3}), "|", W(2), "", "", 0, 0),
               NULL, NULL, GRAFT_EINVAL, "StringNGrams op 'past'", "Invalid split value 3, must be in [0, 2]");
  expect_error(g, ngrams(g, "last", ab, konst(g, "s3", GRAFT_INT64, D(2), (const int64_t[]){0, 1}), "|", W(2), "", "", 0, 0),
               NULL, NULL, GRAFT_EINVAL, "StringNGrams op 'last'", "Last split value must be data size. Expected 2, got 1");
  expect_error(g,
               ngrams(g, "down", ab, konst(g, "s4", GRAFT_INT64, D(4), (const int64_t[]){0, 2, 1, 2}), "|", W(2), "", "",
                      0, 0),
               NULL, NULL, GRAFT_EINVAL, "StringNGrams op 'down'", "Invalid split value 1, must be in [2, 2]");
}

/* RaggedTensorToTensor with n partitions of the given types (int64 partitions and shape). */
static graft_op *to_tensor(graft_graph *g, const char *name, graft_op *shape, graft_op *values, graft_op *dflt,
                           graft_op **parts, const char *const *types, int n) {
  graft_op_desc *d = desc(g, "RaggedTensorToTensor", name);
  in(d, shape);
  in(d, values);
  in(d, dflt);
  graft_output outs[4];
  size_t lens[4];
  for (int i = 0; i < n; ++i) {
    outs[i] = (graft_output){parts[i], 0};
    lens[i] = strlen(types[i]);
  }
  GT_OK(graft_op_desc_add_input_list(d, outs, n));
  GT_OK(graft_attrs_set_string_list(graft_op_desc_attrs(d), "row_partition_types", (const void *const *)types, lens, n));
  return fin(d);
}

static const char *const kSplits[] = {"ROW_SPLITS", "ROW_SPLITS"};
static const char *const kRowIds[] = {"FIRST_DIM_SIZE", "VALUE_ROWIDS", "VALUE_ROWIDS"};

static void test_ragged_tensor_to_tensor(void **state) {
  graft_graph *g = *state;
  graft_op *v = konst(g, "v", GRAFT_INT32, D(5), (const int32_t[]){1, 2, 3, 4, 5});
  graft_op *zero = konst(g, "zero", GRAFT_INT32, SCALAR, (const int32_t[]){0});
  graft_op *unknown = konst(g, "unknown", GRAFT_INT64, SCALAR, (const int64_t[]){-1});
  graft_op *sp = konst(g, "sp", GRAFT_INT64, D(4), (const int64_t[]){0, 2, 2, 5});
  /* The shape from the rows: 3 rows, the longest 3. */
  graft_op *a = to_tensor(g, "splits", unknown, v, zero, &sp, kSplits, 1);
  assert_output_shape(a, 0, "(None, None)");
  expect(run(g, a), GRAFT_INT32, D(3, 3), (const int32_t[]){1, 2, 0, 0, 0, 0, 3, 4, 5});
  /* TextVectorization's output_sequence_length: [-1, 2] truncates rows. */
  graft_op *s2 = konst(g, "s2", GRAFT_INT64, D(2), (const int64_t[]){-1, 2});
  graft_op *t2 = to_tensor(g, "truncate", s2, v, konst(g, "nine", GRAFT_INT32, SCALAR, (const int32_t[]){9}), &sp, kSplits, 1);
  assert_output_shape(t2, 0, "(None, 2)");
  expect(run(g, t2), GRAFT_INT32, D(3, 2), (const int32_t[]){1, 2, 9, 9, 3, 4});
  /* A larger shape pads with the default; float values. */
  graft_op *vf = konst(g, "vf", GRAFT_FLOAT32, D(5), (const float[]){1, 2, 3, 4, 5});
  graft_op *s46 = konst(g, "s46", GRAFT_INT64, D(2), (const int64_t[]){4, 6});
  graft_op *t3 = to_tensor(g, "pad", s46, vf, konst(g, "m1", GRAFT_FLOAT32, SCALAR, (const float[]){-1}), &sp, kSplits, 1);
  assert_output_shape(t3, 0, "(4, 6)");
  expect(run(g, t3), GRAFT_FLOAT32, D(4, 6),
         (const float[]){1, 2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 3, 4, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1});
  /* Strings; fewer rows than the partition has. */
  graft_op *vs = strings(g, "vs", D(5), (const char *const[]){"a", "b", "c", "d", "e"});
  graft_op *s22 = konst(g, "s22", GRAFT_INT64, D(2), (const int64_t[]){2, 2});
  expect_strings(run(g, to_tensor(g, "strings", s22, vs, strings(g, "empty", SCALAR, (const char *const[]){""}), &sp,
                                  kSplits, 1)),
                 D(2, 2), (const char *const[]){"a", "b", "", ""});
  /* Two ragged levels. */
  graft_op *v6 = konst(g, "v6", GRAFT_INT32, D(6), (const int32_t[]){1, 2, 3, 4, 5, 6});
  graft_op *two_level[] = {konst(g, "outer", GRAFT_INT64, D(4), (const int64_t[]){0, 2, 2, 4}),
                           konst(g, "inner", GRAFT_INT64, D(5), (const int64_t[]){0, 1, 3, 3, 6})};
  expect(run(g, to_tensor(g, "nested", unknown, v6, zero, two_level, kSplits, 2)), GRAFT_INT32, D(3, 2, 3),
         (const int32_t[]){1, 0, 0, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 5, 6});
  /* Values of rank 2 with a default row, or a scalar default broadcast. */
  graft_op *vm = konst(g, "vm", GRAFT_INT32, D(3, 2), (const int32_t[]){1, 2, 3, 4, 5, 6});
  graft_op *sp3 = konst(g, "sp3", GRAFT_INT64, D(4), (const int64_t[]){0, 1, 1, 3});
  graft_op *dm = to_tensor(g, "rows", unknown, vm, konst(g, "d78", GRAFT_INT32, D(2), (const int32_t[]){7, 8}), &sp3, kSplits, 1);
  assert_output_shape(dm, 0, "(None, None, 2)");
  expect(run(g, dm), GRAFT_INT32, D(3, 2, 2), (const int32_t[]){1, 2, 7, 8, 7, 8, 7, 8, 3, 4, 5, 6});
  expect(run(g, to_tensor(g, "rows0", unknown, vm, zero, &sp3, kSplits, 1)), GRAFT_INT32, D(3, 2, 2),
         (const int32_t[]){1, 2, 0, 0, 0, 0, 0, 0, 3, 4, 5, 6});
  /* FIRST_DIM_SIZE + VALUE_ROWIDS (int32 partitions and shape too). */
  graft_op *ids[] = {konst(g, "n4", GRAFT_INT64, SCALAR, (const int64_t[]){4}),
                     konst(g, "ids", GRAFT_INT64, D(5), (const int64_t[]){0, 0, 2, 2, 2})};
  expect(run(g, to_tensor(g, "rowids", unknown, v, zero, ids, kRowIds, 2)), GRAFT_INT32, D(4, 3),
         (const int32_t[]){1, 2, 0, 0, 0, 0, 3, 4, 5, 0, 0, 0});
  graft_op *ids32[] = {konst(g, "n4_32", GRAFT_INT32, SCALAR, (const int32_t[]){4}),
                       konst(g, "ids32", GRAFT_INT32, D(5), (const int32_t[]){0, 0, 2, 2, 3})};
  expect(run(g, to_tensor(g, "rowids32", konst(g, "s32", GRAFT_INT32, D(2), (const int32_t[]){3, 2}), v, zero, ids32,
                          kRowIds, 2)),
         GRAFT_INT32, D(3, 2), (const int32_t[]){1, 2, 0, 0, 3, 4});
  graft_op *ids2[] = {konst(g, "n3", GRAFT_INT64, SCALAR, (const int64_t[]){3}),
                      konst(g, "ids_a", GRAFT_INT64, D(3), (const int64_t[]){0, 0, 2}),
                      konst(g, "ids_b", GRAFT_INT64, D(6), (const int64_t[]){0, 1, 1, 2, 2, 2})};
  expect(run(g, to_tensor(g, "rowids2", unknown, v6, zero, ids2, kRowIds, 3)), GRAFT_INT32, D(3, 2, 3),
         (const int32_t[]){1, 0, 0, 2, 3, 0, 0, 0, 0, 0, 0, 0, 4, 5, 6, 0, 0, 0});
  /* Empty. */
  graft_op *e = konst(g, "e", GRAFT_INT32, D(0), NULL);
  graft_op *sp0 = konst(g, "sp0", GRAFT_INT64, D(1), (const int64_t[]){0});
  graft_tensor *t = run(g, to_tensor(g, "empty_rt", unknown, e, zero, &sp0, kSplits, 1));
  expect_dims(t, D(0, 0));
  graft_tensor_free(t);
  /* Errors, as TensorFlow's. */
  expect_error(g, to_tensor(g, "bad_splits", unknown, v, zero, (graft_op *[]){konst(g, "b1", GRAFT_INT64, D(4), (const int64_t[]){1, 2, 2, 5})}, kSplits, 1),
               NULL, NULL, GRAFT_EINVAL, "RaggedTensorToTensor op 'bad_splits'", "Invalid row split size.");
  expect_error(g, to_tensor(g, "wide_default", unknown, v, konst(g, "d2", GRAFT_INT32, D(2), (const int32_t[]){0, 1}), &sp, kSplits, 1),
               NULL, NULL, GRAFT_EINVAL, "RaggedTensorToTensor op 'wide_default'",
               "default_value.rank = 1  must be less than rt_input.flat_values.rank = 1");
  graft_op *p = ph(g, "p", GRAFT_INT64);
  expect_error(g, to_tensor(g, "rank", p, v, zero, &sp, kSplits, 1), p, tensor(GRAFT_INT64, D(1), (const int64_t[]){3}),
               GRAFT_EINVAL, "RaggedTensorToTensor op 'rank'", "rt_input.shape and shape=[3] are incompatible: rt_input.rank = 2 but shape.rank = 1");
  graft_op *p2 = ph(g, "p2", GRAFT_INT64);
  expect_error(g, to_tensor(g, "inner_dims", p2, vm, zero, &sp3, kSplits, 1), p2,
               tensor(GRAFT_INT64, D(3), (const int64_t[]){-1, -1, 3}), GRAFT_EINVAL, "RaggedTensorToTensor op 'inner_dims'",
               "rt_input.shape and shape=[?,?,3] are incompatible: rt_input.shape[2] = 2 but shape[2] = 3");
  graft_op *p3 = ph(g, "p3", GRAFT_INT64);
  expect_error(g, to_tensor(g, "dim", p3, v, zero, &sp, kSplits, 1), p3, tensor(GRAFT_INT64, D(2), (const int64_t[]){2, -5}),
               GRAFT_EINVAL, "RaggedTensorToTensor op 'dim'", "Dimension -5 must be >= -1");
  expect_error(g, to_tensor(g, "rowids_first", unknown, v, zero, &sp, (const char *const[]){"VALUE_ROWIDS"}, 1), NULL, NULL,
               GRAFT_EINVAL, "RaggedTensorToTensor op 'rowids_first'", "Cannot handle VALUE_ROWIDS in first dimension.");
  expect_error(g, to_tensor(g, "foo", unknown, v, zero, &sp, (const char *const[]){"FOO"}, 1), NULL, NULL, GRAFT_EINVAL,
               "RaggedTensorToTensor op 'foo'", "Unknown string for partition info type: FOO");
  graft_op *few[] = {konst(g, "n2", GRAFT_INT64, SCALAR, (const int64_t[]){2}), ids[1]};
  expect_error(g, to_tensor(g, "rowid_range", unknown, v, zero, few, kRowIds, 2), NULL, NULL, GRAFT_EINVAL,
               "RaggedTensorToTensor op 'rowid_range'", "Got next_value_rowid=2 which is not less than 2");
  expect_error(g, to_tensor(g, "no_splits", unknown, e, zero, (graft_op *[]){konst(g, "sp_none", GRAFT_INT64, D(0), NULL)}, kSplits, 1),
               NULL, NULL, GRAFT_EINVAL, "RaggedTensorToTensor op 'no_splits'",
               "Invalid first partition input. Tensor requires at least one element.");
  graft_op *bad_nested[] = {konst(g, "o3", GRAFT_INT64, D(3), (const int64_t[]){0, 2, 3}), two_level[1]};
  expect_error(g, to_tensor(g, "nested_size", unknown, v6, zero, bad_nested, kSplits, 2), NULL, NULL, GRAFT_EINVAL,
               "RaggedTensorToTensor op 'nested_size'", "Row partition size is greater than output size: 4 > 3");
}

static graft_op *bincount(graft_graph *g, const char *name, graft_op *splits, graft_op *values, graft_op *size,
                          graft_op *weights, int binary) {
  graft_op_desc *d = desc(g, "RaggedBincount", name);
  in(d, splits);
  in(d, values);
  in(d, size);
  in(d, weights);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "binary_output", binary));
  return fin(d);
}

static void test_ragged_bincount(void **state) {
  graft_graph *g = *state;
  graft_op *sp = konst(g, "sp", GRAFT_INT64, D(4), (const int64_t[]){0, 2, 2, 5});
  graft_op *v = konst(g, "v", GRAFT_INT32, D(5), (const int32_t[]){1, 3, 1, 0, 9});
  graft_op *four = konst(g, "four", GRAFT_INT32, SCALAR, (const int32_t[]){4});
  graft_op *nof = konst(g, "nof", GRAFT_FLOAT32, D(0), NULL);
  /* Counts; values >= size dropped. */
  graft_op *c = bincount(g, "count", sp, v, four, nof, 0);
  assert_output_shape(c, 0, "(3, 4)");
  expect(run(g, c), GRAFT_FLOAT32, D(3, 4), (const float[]){0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0});
  /* Weights summed (int64 values, double weights). */
  graft_op *v64 = konst(g, "v64", GRAFT_INT64, D(5), (const int64_t[]){1, 3, 1, 0, 1});
  graft_op *w = konst(g, "w", GRAFT_FLOAT64, D(5), (const double[]){.5, 1, 2, 3, 4});
  expect(run(g, bincount(g, "weights", sp, v64, konst(g, "four64", GRAFT_INT64, SCALAR, (const int64_t[]){4}), w, 0)),
         GRAFT_FLOAT64, D(3, 4), (const double[]){0, .5, 0, 1, 0, 0, 0, 0, 3, 6, 0, 0});
  /* binary_output (TextVectorization's multi_hot); int64 output. */
  graft_op *v2 = konst(g, "v2", GRAFT_INT32, D(5), (const int32_t[]){1, 1, 1, 0, 1});
  expect(run(g, bincount(g, "binary", sp, v2, four, konst(g, "noi", GRAFT_INT64, D(0), NULL), 1)), GRAFT_INT64, D(3, 4),
         (const int64_t[]){0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0});
  /* Values and weights of rank 2 are taken flat. */
  graft_op *vm = konst(g, "vm", GRAFT_INT32, D(1, 5), (const int32_t[]){1, 1, 1, 0, 1});
  graft_op *wm = konst(g, "wm", GRAFT_INT32, D(1, 5), (const int32_t[]){1, 1, 1, 0, 1});
  expect(run(g, bincount(g, "matrix", sp, vm, four, wm, 0)), GRAFT_INT32, D(3, 4),
         (const int32_t[]){0, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0});
  /* Errors, as TensorFlow's. */
  graft_op *noi32 = konst(g, "noi32", GRAFT_INT32, D(0), NULL);
  expect_error(g, bincount(g, "negative", sp, konst(g, "vn", GRAFT_INT32, D(5), (const int32_t[]){1, -1, 1, 0, 1}), four, noi32, 0),
               NULL, NULL, GRAFT_EINVAL, "RaggedBincount op 'negative'", "Input must be non-negative");
  graft_op *size = ph(g, "size", GRAFT_INT32);
  expect_error(g, bincount(g, "neg_size", sp, v2, size, noi32, 0), size, tensor(GRAFT_INT32, SCALAR, (const int32_t[]){-4}),
               GRAFT_EINVAL, "RaggedBincount op 'neg_size'", "size (-4) must be non-negative");
  /* A constant negative size is refused when the op is made. */
  graft_op_desc *d = desc(g, "RaggedBincount", "const_neg_size");
  in(d, sp);
  in(d, v2);
  in(d, konst(g, "m4", GRAFT_INT32, SCALAR, (const int32_t[]){-4}));
  in(d, noi32);
  graft_op *op = NULL;
  GT_ERR(GRAFT_ESHAPE, graft_op_desc_finish(&op, d), "size (-4) must be non-negative");
  expect_error(g, bincount(g, "start", konst(g, "sp1", GRAFT_INT64, D(4), (const int64_t[]){1, 2, 2, 5}), v2, four, noi32, 0),
               NULL, NULL, GRAFT_EINVAL, "RaggedBincount op 'start'", "Splits must start with 0, not with 1");
  expect_error(g, bincount(g, "end", konst(g, "sp2", GRAFT_INT64, D(4), (const int64_t[]){0, 2, 2, 4}), v2, four, noi32, 0),
               NULL, NULL, GRAFT_EINVAL, "RaggedBincount op 'end'", "Splits must end with the number of values, got 4 instead of 5");
  expect_error(g, bincount(g, "no_splits", konst(g, "sp3", GRAFT_INT64, D(0), NULL), v2, four, noi32, 0), NULL, NULL,
               GRAFT_EINVAL, "RaggedBincount op 'no_splits'", "Splits must be non-empty");
  expect_error(g, bincount(g, "short_weights", sp, v2, four, konst(g, "w2", GRAFT_INT32, D(2), (const int32_t[]){1, 2}), 0),
               NULL, NULL, GRAFT_EINVAL, "RaggedBincount op 'short_weights'", "weights must be empty or have as many elements as values (5), got 2");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_string_join, setup, teardown),
      cmocka_unit_test_setup_teardown(test_format_scalars, setup, teardown),
      cmocka_unit_test_setup_teardown(test_format_shapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_format_placeholder_mismatch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_print, setup, teardown),
      cmocka_unit_test_setup_teardown(test_print_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_print_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_assert, setup, teardown),
      cmocka_unit_test_setup_teardown(test_assert_control, setup, teardown),
      cmocka_unit_test_setup_teardown(test_regex_long_inputs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_regex_nested_groups, setup, teardown),
      cmocka_unit_test_setup_teardown(test_regex_no_backtracking, setup, teardown),
      cmocka_unit_test_setup_teardown(test_regex_full_match, setup, teardown),
      cmocka_unit_test_setup_teardown(test_regex_replace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_regex_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_string_lower_upper, setup, teardown),
      cmocka_unit_test_setup_teardown(test_as_string, setup, teardown),
      cmocka_unit_test_setup_teardown(test_string_ngrams, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ragged_tensor_to_tensor, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ragged_bincount, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_string", tests, NULL, NULL);
}
