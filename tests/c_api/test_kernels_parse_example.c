/* CPU kernels for tf.Example parsing (kernels/cpu/parse_example_kernels.cc): ParseExample and
 * ParseExampleV2 with dense (fixed and variable-length) and sparse features. Serialized
 * Examples are encoded here by hand (the protobuf wire format of tf.train.Example), packed and
 * unpacked; one is a literal byte array as TensorFlow writes it. */
#define _POSIX_C_SOURCE 200809L /* stat */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "graph_test_util.h"

/* ---- Helpers ------------------------------------------------------------------------------ */

#include "kernel_test_util.h"

/* A growing byte buffer for encoding. */
typedef struct {
  uint8_t b[512];
  size_t n;
} buf;

static void put_byte(buf *o, uint8_t v) {
  assert_true(o->n < sizeof o->b);
  o->b[o->n++] = v;
}

static void put_raw(buf *o, const void *p, size_t n) {
  assert_true(o->n + n <= sizeof o->b);
  memcpy(o->b + o->n, p, n);
  o->n += n;
}

static void put_varint(buf *o, uint64_t v) {
  while (v >= 0x80) {
    put_byte(o, (uint8_t)(v | 0x80));
    v >>= 7;
  }
  put_byte(o, (uint8_t)v);
}

/* A length-delimited field (wire type 2). */
static void put_len(buf *o, int field, const void *p, size_t n) {
  put_varint(o, (uint64_t)field << 3 | 2);
  put_varint(o, n);
  put_raw(o, p, n);
}

/* Features: a Feature with a FloatList (field 2), Int64List (3) or BytesList (1), whose
 * values are field 1 (packed: one length-delimited run; unpacked: one field per value). */
static buf floats(const float *v, int n, int packed) {
  buf list = {{0}, 0}, f = {{0}, 0};
  if (packed) {
    put_len(&list, 1, v, sizeof(float) * (size_t)n);
  } else {
    for (int i = 0; i < n; ++i) {
      put_varint(&list, 1 << 3 | 5);
      put_raw(&list, &v[i], sizeof(float));
    }
  }
  put_len(&f, 2, list.b, list.n);
  return f;
}

static buf ints(const int64_t *v, int n, int packed) {
  buf list = {{0}, 0}, f = {{0}, 0};
  if (packed) {
    buf run = {{0}, 0};
    for (int i = 0; i < n; ++i) put_varint(&run, (uint64_t)v[i]);
    put_len(&list, 1, run.b, run.n);
  } else {
    for (int i = 0; i < n; ++i) {
      put_varint(&list, 1 << 3 | 0);
      put_varint(&list, (uint64_t)v[i]);
    }
  }
  put_len(&f, 3, list.b, list.n);
  return f;
}

static buf bytes(const char *const *v, int n) {
  buf list = {{0}, 0}, f = {{0}, 0};
  for (int i = 0; i < n; ++i) put_len(&list, 1, v[i], strlen(v[i]));
  put_len(&f, 1, list.b, list.n);
  return f;
}

/* Adds feature key -> f to a Features message body (a map entry: key 1, value 2). */
static void add(buf *features, const char *key, buf f) {
  buf entry = {{0}, 0};
  put_len(&entry, 1, key, strlen(key));
  put_len(&entry, 2, f.b, f.n);
  put_len(features, 1, entry.b, entry.n);
}

/* The Example around a Features body. */
static buf example(const buf *features) {
  buf e = {{0}, 0};
  put_len(&e, 1, features->b, features->n);
  return e;
}

/* A string tensor of the serialized examples (a vector, or a scalar when scalar is set). */
static graft_tensor *serialized(const buf *ex, int n, int scalar) {
  const char *p[8];
  size_t len[8];
  for (int i = 0; i < n; ++i) {
    p[i] = (const char *)ex[i].b;
    len[i] = ex[i].n;
  }
  graft_tensor *t = NULL;
  int64_t dims[1] = {n};
  GT_OK(graft_tensor_new_strings(&t, dims, scalar ? 0 : 1, p, len, (size_t)n));
  return t;
}

static graft_op *str_scalar(graft_graph *g, const char *name, const char *s) {
  return strings(g, name, SCALAR, (const char *const[]){s});
}

/* A feature spec: key, dtype, shape and default value (NULL op: required). */
typedef struct {
  const char *key;
  graft_dtype dtype;
  const int64_t *dims;
  int ndims;
  graft_op *def;
} spec;

static void set_shapes(graft_op_desc *d, const spec *dense, int nd) {
  const int64_t *dims[8];
  int ndims[8];
  for (int i = 0; i < nd; ++i) {
    dims[i] = dense[i].dims;
    ndims[i] = dense[i].ndims;
  }
  GT_OK(graft_attrs_set_shape_list(graft_op_desc_attrs(d), "dense_shapes", dims, ndims, nd));
}

static void set_sparse_types(graft_op_desc *d, const spec *sparse, int ns) {
  graft_dtype types[8];
  for (int i = 0; i < ns; ++i) types[i] = sparse[i].dtype;
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "sparse_types", types, ns));
}

/* The default of dense feature i: its op, or an empty tensor (required). */
static graft_output default_of(graft_graph *g, const spec *s, int i) {
  if (s->def) return (graft_output){s->def, 0};
  char name[32];
  snprintf(name, sizeof name, "required%d", i);
  if (s->dtype == GRAFT_STRING) {
    graft_tensor *t = NULL;
    GT_OK(graft_tensor_new_strings(&t, D(0), NULL, NULL, 0));
    return (graft_output){const_t(g, name, t), 0};
  }
  return (graft_output){konst(g, name, s->dtype, D(0), NULL), 0};
}

/* ParseExample(serialized, names, sparse keys, dense keys, dense defaults). */
static graft_op *parse_v1(graft_graph *g, const char *name, graft_op *ser, graft_op *names, const spec *sparse, int ns,
                          const spec *dense, int nd) {
  graft_output sk[8], dk[8], defs[8];
  char kname[64];
  for (int i = 0; i < ns; ++i) {
    snprintf(kname, sizeof kname, "%s_sk%d", name, i);
    sk[i] = (graft_output){str_scalar(g, kname, sparse[i].key), 0};
  }
  for (int i = 0; i < nd; ++i) {
    snprintf(kname, sizeof kname, "%s_dk%d", name, i);
    dk[i] = (graft_output){str_scalar(g, kname, dense[i].key), 0};
    defs[i] = default_of(g, &dense[i], i);
  }
  graft_op_desc *d = desc(g, "ParseExample", name);
  in(d, ser);
  in(d, names);
  GT_OK(graft_op_desc_add_input_list(d, sk, ns));
  GT_OK(graft_op_desc_add_input_list(d, dk, nd));
  GT_OK(graft_op_desc_add_input_list(d, defs, nd));
  set_sparse_types(d, sparse, ns);
  set_shapes(d, dense, nd);
  return fin(d);
}

/* ParseExampleV2(serialized, names, sparse_keys, dense_keys, ragged_keys, dense defaults). */
static graft_op *parse_v2(graft_graph *g, const char *name, graft_op *ser, graft_op *names, const spec *sparse, int ns,
                          const spec *dense, int nd) {
  const char *sk[8], *dk[8];
  graft_output defs[8];
  for (int i = 0; i < ns; ++i) sk[i] = sparse[i].key;
  for (int i = 0; i < nd; ++i) {
    dk[i] = dense[i].key;
    defs[i] = default_of(g, &dense[i], i);
  }
  char kname[64];
  graft_tensor *t = NULL;
  int64_t n = ns;
  GT_OK(graft_tensor_new_strings(&t, &n, 1, sk, NULL, (size_t)ns));
  snprintf(kname, sizeof kname, "%s_sparse_keys", name);
  graft_op *sparse_keys = const_t(g, kname, t);
  n = nd;
  GT_OK(graft_tensor_new_strings(&t, &n, 1, dk, NULL, (size_t)nd));
  snprintf(kname, sizeof kname, "%s_dense_keys", name);
  graft_op *dense_keys = const_t(g, kname, t);
  GT_OK(graft_tensor_new_strings(&t, D(0), NULL, NULL, 0));
  snprintf(kname, sizeof kname, "%s_ragged_keys", name);
  graft_op *ragged_keys = const_t(g, kname, t);

  graft_op_desc *d = desc(g, "ParseExampleV2", name);
  in(d, ser);
  in(d, names);
  in(d, sparse_keys);
  in(d, dense_keys);
  in(d, ragged_keys);
  GT_OK(graft_op_desc_add_input_list(d, defs, nd));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num_sparse", ns));
  set_sparse_types(d, sparse, ns);
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "ragged_value_types", NULL, 0));
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "ragged_split_types", NULL, 0));
  set_shapes(d, dense, nd);
  return fin(d);
}

static graft_op *no_names(graft_graph *g) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new_strings(&t, D(0), NULL, NULL, 0));
  return const_t(g, "no_names", t);
}

/* Runs outputs first..first+n-1 of op with serialized fed to ph; out[i] receives each. */
static void run_outputs(graft_graph *g, graft_op *op, int first, int n, graft_op *feed, graft_tensor *value,
                        graft_tensor **out) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output fetches[8];
  for (int i = 0; i < n; ++i) fetches[i] = (graft_output){op, first + i};
  graft_output fd = {feed, 0};
  GT_OK(graft_session_run(out, s, &fd, &value, 1, fetches, n, NULL, 0));
  graft_session_free(s);
  graft_tensor_free(value);
}

/* Expects the run of output 0 of op with value fed to feed to fail with code, containing the
 * op's name and each needle. */
#define EXPECT_PARSE_ERROR(g, op, feed, value, code, ...)                                                      \
  do {                                                                                                         \
    graft_session *s_ = NULL;                                                                                  \
    GT_OK(graft_session_new(&s_, g, NULL));                                                                    \
    graft_output f_ = {op, 0}, fd_ = {feed, 0};                                                                \
    graft_tensor *v_ = (value), *out_ = NULL;                                                                  \
    GT_ERR(code, graft_session_run(&out_, s_, &fd_, &v_, 1, &f_, 1, NULL, 0), __VA_ARGS__);                     \
    graft_session_free(s_);                                                                                    \
    graft_tensor_free(v_);                                                                                     \
  } while (0)

/* ---- Dense features ----------------------------------------------------------------------- */

/* The three examples of the dense tests: x float[2] (required), i int64 (default 7),
 * s string[1] (default "none"), v float[-1] (variable length, padded with 0). */
static void dense_examples(buf ex[3]) {
  buf f0 = {{0}, 0}, f1 = {{0}, 0}, f2 = {{0}, 0};
  add(&f0, "x", floats((const float[]){1, 2}, 2, 1));
  add(&f0, "i", ints((const int64_t[]){5}, 1, 1));
  add(&f0, "s", bytes((const char *const[]){"a"}, 1));
  add(&f0, "v", floats((const float[]){1, 2, 3}, 3, 1));
  add(&f0, "unused", ints((const int64_t[]){1, 2, 3}, 3, 1));
  add(&f1, "v", floats((const float[]){4}, 1, 0));
  add(&f1, "x", floats((const float[]){3, 4}, 2, 0)); /* unpacked */
  add(&f2, "x", floats((const float[]){5, 6}, 2, 1));
  add(&f2, "i", ints((const int64_t[]){-1}, 1, 0)); /* unpacked, a ten-byte varint */
  add(&f2, "s", bytes((const char *const[]){"c"}, 1));
  ex[0] = example(&f0);
  ex[1] = example(&f1);
  ex[2] = example(&f2);
}

static void dense_specs(graft_graph *g, spec sp[4]) {
  static const int64_t two[] = {2}, one[] = {1}, var[] = {-1};
  sp[0] = (spec){"x", GRAFT_FLOAT32, two, 1, NULL};
  sp[1] = (spec){"i", GRAFT_INT64, NULL, 0, konst(g, "i_def", GRAFT_INT64, SCALAR, (const int64_t[]){7})};
  sp[2] = (spec){"s", GRAFT_STRING, one, 1, strings(g, "s_def", D(1), (const char *const[]){"none"})};
  sp[3] = (spec){"v", GRAFT_FLOAT32, var, 1, konst(g, "v_def", GRAFT_FLOAT32, SCALAR, (const float[]){0})};
}

static void test_dense(void **state) {
  graft_graph *g = *state;
  spec sp[4];
  dense_specs(g, sp);
  graft_op *ser = ph(g, "ser", GRAFT_STRING);
  graft_op *pe = parse_v1(g, "pe", ser, no_names(g), NULL, 0, sp, 4);
  buf ex[3];
  dense_examples(ex);
  graft_tensor *out[4];
  run_outputs(g, pe, 0, 4, ser, serialized(ex, 3, 0), out);
  expect(out[0], GRAFT_FLOAT32, D(3, 2), (const float[]){1, 2, 3, 4, 5, 6});
  expect(out[1], GRAFT_INT64, D(3), (const int64_t[]){5, 7, -1});
  expect_strings(out[2], D(3, 1), (const char *const[]){"a", "none", "c"});
  expect(out[3], GRAFT_FLOAT32, D(3, 3), (const float[]){1, 2, 3, 4, 0, 0, 0, 0, 0});
}

/* The same through ParseExampleV2, for a vector and for a scalar batch. */
static void test_dense_v2(void **state) {
  graft_graph *g = *state;
  spec sp[4];
  dense_specs(g, sp);
  graft_op *ser = ph(g, "ser", GRAFT_STRING);
  graft_op *pe = parse_v2(g, "pe", ser, no_names(g), NULL, 0, sp, 4);
  buf ex[3];
  dense_examples(ex);
  graft_tensor *out[4];
  run_outputs(g, pe, 0, 4, ser, serialized(ex, 3, 0), out);
  expect(out[0], GRAFT_FLOAT32, D(3, 2), (const float[]){1, 2, 3, 4, 5, 6});
  expect(out[1], GRAFT_INT64, D(3), (const int64_t[]){5, 7, -1});
  expect_strings(out[2], D(3, 1), (const char *const[]){"a", "none", "c"});
  expect(out[3], GRAFT_FLOAT32, D(3, 3), (const float[]){1, 2, 3, 4, 0, 0, 0, 0, 0});

  run_outputs(g, pe, 0, 4, ser, serialized(&ex[1], 1, 1), out);
  expect(out[0], GRAFT_FLOAT32, D(2), (const float[]){3, 4});
  expect(out[1], GRAFT_INT64, SCALAR, (const int64_t[]){7});
  expect_strings(out[2], D(1), (const char *const[]){"none"});
  expect(out[3], GRAFT_FLOAT32, D(1), (const float[]){4});
}

/* tf.train.Example(features={"x": Feature(float_list=FloatList(value=[1.5]))}), as
 * SerializeToString() writes it, parsed as the half_plus_two models do: x required, x2 with
 * default [0]. */
static void test_literal_example(void **state) {
  graft_graph *g = *state;
  static const uint8_t ex[] = {0x0A, 0x0F, 0x0A, 0x0D, 0x0A, 0x01, 'x',  0x12, 0x08,
                               0x12, 0x06, 0x0A, 0x04, 0x00, 0x00, 0xC0, 0x3F};
  static const int64_t one[] = {1};
  spec sp[2] = {{"x", GRAFT_FLOAT32, one, 1, NULL},
                {"x2", GRAFT_FLOAT32, one, 1, konst(g, "x2_def", GRAFT_FLOAT32, D(1), (const float[]){0})}};
  graft_op *ser = ph(g, "tf_example", GRAFT_STRING);
  graft_op *pe = parse_v1(g, "pe", ser, no_names(g), NULL, 0, sp, 2);
  graft_op *pe2 = parse_v2(g, "pe2", ser, no_names(g), NULL, 0, sp, 2);
  const char *p[] = {(const char *)ex, (const char *)ex};
  size_t len[] = {sizeof ex, sizeof ex};
  graft_tensor *t = NULL, *out[2];
  GT_OK(graft_tensor_new_strings(&t, D(2), p, len, 2));
  run_outputs(g, pe, 0, 2, ser, t, out);
  expect(out[0], GRAFT_FLOAT32, D(2, 1), (const float[]){1.5f, 1.5f});
  expect(out[1], GRAFT_FLOAT32, D(2, 1), (const float[]){0, 0});
  GT_OK(graft_tensor_new_strings(&t, D(2), p, len, 2));
  run_outputs(g, pe2, 0, 2, ser, t, out);
  expect(out[0], GRAFT_FLOAT32, D(2, 1), (const float[]){1.5f, 1.5f});
  expect(out[1], GRAFT_FLOAT32, D(2, 1), (const float[]){0, 0});
}

static void test_empty_batch(void **state) {
  graft_graph *g = *state;
  spec sp[4];
  dense_specs(g, sp);
  spec sparse[1] = {{"sp", GRAFT_INT64, NULL, 0, NULL}};
  graft_op *ser = ph(g, "ser", GRAFT_STRING);
  graft_op *pe = parse_v1(g, "pe", ser, no_names(g), sparse, 1, sp, 4);
  graft_tensor *out[7];
  run_outputs(g, pe, 0, 7, ser, serialized(NULL, 0, 0), out);
  expect(out[0], GRAFT_INT64, D(0, 2), NULL);
  expect(out[1], GRAFT_INT64, D(0), NULL);
  expect(out[2], GRAFT_INT64, D(2), (const int64_t[]){0, 0});
  expect(out[3], GRAFT_FLOAT32, D(0, 2), NULL);
  expect(out[4], GRAFT_INT64, D(0), NULL);
  expect_strings(out[5], D(0, 1), NULL);
  expect(out[6], GRAFT_FLOAT32, D(0, 0), NULL);
}

/* An empty Example and an Example with an empty Features: every default, padding only. */
static void test_empty_examples(void **state) {
  graft_graph *g = *state;
  spec sp[4];
  dense_specs(g, sp);
  graft_op *ser = ph(g, "ser", GRAFT_STRING);
  graft_op *pe = parse_v1(g, "pe", ser, no_names(g), NULL, 0, &sp[1], 3);
  buf ex[2] = {{{0}, 0}, {{0x0A, 0x00}, 2}};
  graft_tensor *out[3];
  run_outputs(g, pe, 0, 3, ser, serialized(ex, 2, 0), out);
  expect(out[0], GRAFT_INT64, D(2), (const int64_t[]){7, 7});
  expect_strings(out[1], D(2, 1), (const char *const[]){"none", "none"});
  expect(out[2], GRAFT_FLOAT32, D(2, 0), NULL);
}

/* ---- Sparse features ---------------------------------------------------------------------- */

static void test_sparse(void **state) {
  graft_graph *g = *state;
  spec sparse[2] = {{"sp", GRAFT_INT64, NULL, 0, NULL}, {"ss", GRAFT_STRING, NULL, 0, NULL}};
  static const int64_t two[] = {2};
  spec dense[1] = {{"x", GRAFT_FLOAT32, two, 1, NULL}};
  buf f0 = {{0}, 0}, f1 = {{0}, 0}, f2 = {{0}, 0};
  add(&f0, "x", floats((const float[]){1, 2}, 2, 1));
  add(&f0, "sp", ints((const int64_t[]){10, 11}, 2, 1));
  add(&f0, "ss", bytes((const char *const[]){"p", "q", "r"}, 3));
  add(&f1, "x", floats((const float[]){3, 4}, 2, 1));
  add(&f2, "x", floats((const float[]){5, 6}, 2, 1));
  add(&f2, "sp", ints((const int64_t[]){12}, 1, 0));
  buf ex[3] = {example(&f0), example(&f1), example(&f2)};
  graft_op *ser = ph(g, "ser", GRAFT_STRING);
  graft_op *pe = parse_v1(g, "pe", ser, no_names(g), sparse, 2, dense, 1);
  graft_tensor *out[7];
  run_outputs(g, pe, 0, 7, ser, serialized(ex, 3, 0), out);
  /* sparse_indices x2, sparse_values x2, sparse_shapes x2, dense_values. */
  expect(out[0], GRAFT_INT64, D(3, 2), (const int64_t[]){0, 0, 0, 1, 2, 0});
  expect(out[1], GRAFT_INT64, D(3, 2), (const int64_t[]){0, 0, 0, 1, 0, 2});
  expect(out[2], GRAFT_INT64, D(3), (const int64_t[]){10, 11, 12});
  expect_strings(out[3], D(3), (const char *const[]){"p", "q", "r"});
  expect(out[4], GRAFT_INT64, D(2), (const int64_t[]){3, 2});
  expect(out[5], GRAFT_INT64, D(2), (const int64_t[]){3, 3});
  expect(out[6], GRAFT_FLOAT32, D(3, 2), (const float[]){1, 2, 3, 4, 5, 6});

  /* ParseExampleV2 with a scalar batch: indices of rank 1. */
  graft_op *pe2 = parse_v2(g, "pe2", ser, no_names(g), sparse, 2, dense, 1);
  run_outputs(g, pe2, 0, 7, ser, serialized(&ex[0], 1, 1), out);
  expect(out[0], GRAFT_INT64, D(2, 1), (const int64_t[]){0, 1});
  expect(out[1], GRAFT_INT64, D(3, 1), (const int64_t[]){0, 1, 2});
  expect(out[2], GRAFT_INT64, D(2), (const int64_t[]){10, 11});
  expect_strings(out[3], D(3), (const char *const[]){"p", "q", "r"});
  expect(out[4], GRAFT_INT64, D(1), (const int64_t[]){2});
  expect(out[5], GRAFT_INT64, D(1), (const int64_t[]){3});
  expect(out[6], GRAFT_FLOAT32, D(2), (const float[]){1, 2});

  /* A sparse feature of the wrong kind. */
  buf f3 = {{0}, 0};
  add(&f3, "x", floats((const float[]){1, 2}, 2, 1));
  add(&f3, "ss", floats((const float[]){1}, 1, 1));
  buf bad = example(&f3);
  EXPECT_PARSE_ERROR(g, pe, ser, serialized(&bad, 1, 0), GRAFT_EINVAL, "ParseExample op 'pe'", "Key: ss, Index: 0",
                     "Data types don't match. Expected type: string, Actual type: float");
}

/* ---- Errors ------------------------------------------------------------------------------- */

static void test_errors(void **state) {
  graft_graph *g = *state;
  spec sp[4];
  dense_specs(g, sp);
  graft_op *ser = ph(g, "ser", GRAFT_STRING);
  graft_op *pe = parse_v1(g, "pe", ser, no_names(g), NULL, 0, sp, 4);
  buf ex[3];
  dense_examples(ex);

  /* A required feature missing from example 1. */
  buf missing = {{0}, 0}, two[2];
  add(&missing, "i", ints((const int64_t[]){1}, 1, 1));
  two[0] = ex[0];
  two[1] = example(&missing);
  EXPECT_PARSE_ERROR(g, pe, ser, serialized(two, 2, 0), GRAFT_EINVAL, "ParseExample op 'pe'",
                     "Name: <unknown>, Key: x, Index: 1.", "Feature: x (data type: float) is required");

  /* The wrong kind, and the wrong number of values. */
  buf f = {{0}, 0};
  add(&f, "x", ints((const int64_t[]){1, 2}, 2, 1));
  two[1] = example(&f);
  EXPECT_PARSE_ERROR(g, pe, ser, serialized(two, 2, 0), GRAFT_EINVAL, "ParseExample op 'pe'", "Key: x, Index: 1.",
                     "Data types don't match. Expected type: float, Actual type: int64");
  f.n = 0;
  add(&f, "x", floats((const float[]){1, 2, 3}, 3, 1));
  two[1] = example(&f);
  EXPECT_PARSE_ERROR(g, pe, ser, serialized(two, 2, 0), GRAFT_EINVAL, "Key: x, Index: 1.",
                     "Number of float values != expected. Values size: 3 but output shape: [2]");
  f.n = 0;
  add(&f, "x", floats((const float[]){1, 2}, 2, 1));
  add(&f, "s", bytes((const char *const[]){"a", "b"}, 2));
  two[1] = example(&f);
  EXPECT_PARSE_ERROR(g, pe, ser, serialized(two, 2, 0), GRAFT_EINVAL, "Key: s, Index: 1.",
                     "Number of string values != expected. Values size: 2 but output shape: [1]");
  f.n = 0;
  add(&f, "x", floats((const float[]){1, 2}, 2, 1));
  add(&f, "i", floats((const float[]){1}, 1, 1));
  two[1] = example(&f);
  EXPECT_PARSE_ERROR(g, pe, ser, serialized(two, 2, 0), GRAFT_EINVAL, "Key: i, Index: 1.",
                     "Expected type: int64, Actual type: float");

  /* Bytes that are not an Example. */
  buf garbage = {{0xFF, 0xFF, 0xFF}, 3};
  two[1] = garbage;
  EXPECT_PARSE_ERROR(g, pe, ser, serialized(two, 2, 0), GRAFT_EINVAL, "ParseExample op 'pe'",
                     "Name: <unknown>, Index: 1. Could not parse example input");

  /* A serialized of the wrong rank. */
  graft_tensor *m = NULL;
  GT_OK(graft_tensor_new_strings(&m, D(1, 1), (const char *const[]){""}, NULL, 1));
  EXPECT_PARSE_ERROR(g, pe, ser, m, GRAFT_EINVAL, "ParseExample op 'pe'", "serialized must be a vector");
}

static void test_names_and_shapes(void **state) {
  graft_graph *g = *state;
  static const int64_t two[] = {2}, var2[] = {-1, 2};
  spec x = {"x", GRAFT_FLOAT32, two, 1, NULL};
  graft_op *ser = ph(g, "ser", GRAFT_STRING);
  graft_op *names = strings(g, "names", D(2), (const char *const[]){"first", "second"});
  graft_op *pe = parse_v1(g, "pe", ser, names, NULL, 0, &x, 1);
  buf f0 = {{0}, 0}, f1 = {{0}, 0};
  add(&f0, "x", floats((const float[]){1, 2}, 2, 1));
  add(&f1, "y", floats((const float[]){1, 2}, 2, 1));
  buf ex[3] = {example(&f0), example(&f1), example(&f0)};
  /* Names name the example in errors. */
  EXPECT_PARSE_ERROR(g, pe, ser, serialized(ex, 2, 0), GRAFT_EINVAL, "Name: second, Key: x, Index: 1.",
                     "is required but could not be found");
  EXPECT_PARSE_ERROR(g, pe, ser, serialized(ex, 3, 0), GRAFT_EINVAL, "names has 2 elements, but serialized has 3");

  /* A variable-length feature of rows of 2: the values must fill whole rows. */
  spec v = {"x", GRAFT_FLOAT32, var2, 2, konst(g, "pad", GRAFT_FLOAT32, SCALAR, (const float[]){-1})};
  graft_op *pv = parse_v1(g, "pv", ser, no_names(g), NULL, 0, &v, 1);
  buf f2 = {{0}, 0};
  add(&f2, "x", floats((const float[]){1, 2, 3, 4}, 4, 1));
  buf ex2[3] = {example(&f2), example(&f0), example(&f1)};
  graft_tensor *out[1];
  run_outputs(g, pv, 0, 1, ser, serialized(ex2, 3, 0), out);
  expect(out[0], GRAFT_FLOAT32, D(3, 2, 2), (const float[]){1, 2, 3, 4, 1, 2, -1, -1, -1, -1, -1, -1});
  buf f3 = {{0}, 0};
  add(&f3, "x", floats((const float[]){1, 2, 3}, 3, 1));
  buf odd = example(&f3);
  EXPECT_PARSE_ERROR(g, pv, ser, serialized(&odd, 1, 0), GRAFT_EINVAL, "ParseExample op 'pv'", "Key: x, Index: 0.",
                     "Number of float values is not a multiple of stride length. Saw 3 values but output shape is: "
                     "[-1,2]");

  /* Defaults that do not fit the shape. */
  spec bad_pad = {"x", GRAFT_FLOAT32, var2, 2, konst(g, "pad2", GRAFT_FLOAT32, D(2), (const float[]){0, 0})};
  graft_op *pb = parse_v1(g, "pb", ser, no_names(g), NULL, 0, &bad_pad, 1);
  EXPECT_PARSE_ERROR(g, pb, ser, serialized(ex, 1, 0), GRAFT_EINVAL, "ParseExample op 'pb'",
                     "must hold a single element (the padding element)");
  spec bad_def = {"x", GRAFT_FLOAT32, two, 1, konst(g, "def3", GRAFT_FLOAT32, D(3), (const float[]){0, 0, 0})};
  graft_op *pd = parse_v1(g, "pd", ser, no_names(g), NULL, 0, &bad_def, 1);
  EXPECT_PARSE_ERROR(g, pd, ser, serialized(ex, 1, 0), GRAFT_EINVAL, "ParseExample op 'pd'",
                     "dense_defaults[0] of feature 'x' has shape [3], which is not compatible with dense_shapes[0]");
}

static void test_v2_errors(void **state) {
  graft_graph *g = *state;
  static const int64_t one[] = {1};
  spec x = {"x", GRAFT_FLOAT32, one, 1, NULL};
  graft_op *ser = ph(g, "ser", GRAFT_STRING);
  graft_op *pe = parse_v2(g, "pe", ser, no_names(g), NULL, 0, &x, 1);
  buf empty = {{0}, 0};
  buf ex = example(&empty);
  EXPECT_PARSE_ERROR(g, pe, ser, serialized(&ex, 1, 1), GRAFT_EINVAL, "ParseExampleV2 op 'pe'",
                     "Key: x, Index: 0.", "is required but could not be found");

  /* Ragged features are not supported yet. */
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new_strings(&t, D(0), NULL, NULL, 0));
  graft_op *none = const_t(g, "none", t);
  GT_OK(graft_tensor_new_strings(&t, D(1), (const char *const[]){"r"}, NULL, 1));
  graft_op *rk = const_t(g, "rk", t);
  graft_op_desc *d = desc(g, "ParseExampleV2", "ragged");
  in(d, ser);
  in(d, none);
  in(d, none);
  in(d, none);
  in(d, rk);
  GT_OK(graft_op_desc_add_input_list(d, NULL, 0));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num_sparse", 0));
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "sparse_types", NULL, 0));
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "ragged_value_types", (const graft_dtype[]){GRAFT_INT64}, 1));
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "ragged_split_types", (const graft_dtype[]){GRAFT_INT64}, 1));
  GT_OK(graft_attrs_set_shape_list(graft_op_desc_attrs(d), "dense_shapes", NULL, NULL, 0));
  graft_op *ragged = fin(d);
  EXPECT_PARSE_ERROR(g, ragged, ser, serialized(&ex, 1, 1), GRAFT_EUNIMPLEMENTED, "ParseExampleV2 op 'ragged'",
                     "ragged features");
}

/* ---- The conformance models --------------------------------------------------------------- */

/* half_plus_two_tf1 (ParseExample in the graph) and half_plus_two_tf2 (ParseExampleV2 inside
 * a function): the regress signatures take serialized Examples with x required and x2
 * defaulting to 0. Skipped when the conformance models are absent. */
static void test_half_plus_two(void **state) {
  (void)state;
  static const char *const models[] = {"half_plus_two_tf1", "half_plus_two_tf2"};
  char dir[512];
  struct stat st;
  snprintf(dir, sizeof dir, "%s/savedmodels", GRAFT_CONFORMANCE_DIR);
  if (stat(dir, &st) != 0) {
    print_message("conformance dir %s absent: skipped\n", GRAFT_CONFORMANCE_DIR);
    skip();
  }
  for (int m = 0; m < 2; ++m) {
    snprintf(dir, sizeof dir, "%s/savedmodels/%s", GRAFT_CONFORMANCE_DIR, models[m]);
    graft_saved_model *model = NULL;
    GT_OK(graft_saved_model_load(&model, dir, NULL, 0, NULL));
    buf f0 = {{0}, 0}, f1 = {{0}, 0};
    add(&f0, "x", floats((const float[]){1.5f}, 1, 1));
    add(&f1, "x", floats((const float[]){-4}, 1, 0));
    add(&f1, "x2", floats((const float[]){10}, 1, 0));
    buf ex[2] = {example(&f0), example(&f1)};
    const char *key = "inputs";
    graft_tensor *in = serialized(ex, 2, 0), *out = NULL;
    GT_OK(graft_saved_model_run(&out, model, "regress_x_to_y", &key, &in, 1, NULL, 0));
    expect(out, GRAFT_FLOAT32, D(2, 1), (const float[]){2.75f, 0});
    GT_OK(graft_saved_model_run(&out, model, "regress_x_to_y2", &key, &in, 1, NULL, 0));
    expect(out, GRAFT_FLOAT32, D(2, 1), (const float[]){3.75f, 1});
    graft_tensor_free(in);
    /* An Example without the required x. */
    buf none = {{0}, 0};
    add(&none, "x2", floats((const float[]){1}, 1, 1));
    buf bad[2] = {ex[0], example(&none)};
    in = serialized(bad, 2, 0);
    GT_ERR(GRAFT_EINVAL, graft_saved_model_run(&out, model, "regress_x_to_y", &key, &in, 1, NULL, 0),
           "Key: x, Index: 1.", "Feature: x (data type: float) is required but could not be found");
    graft_tensor_free(in);
    graft_saved_model_free(model);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_dense, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dense_v2, setup, teardown),
      cmocka_unit_test_setup_teardown(test_literal_example, setup, teardown),
      cmocka_unit_test_setup_teardown(test_empty_batch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_empty_examples, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sparse, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_names_and_shapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v2_errors, setup, teardown),
      cmocka_unit_test(test_half_plus_two),
  };
  return cmocka_run_group_tests_name("kernels_parse_example", tests, NULL, NULL);
}
