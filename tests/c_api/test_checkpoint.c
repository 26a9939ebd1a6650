/* Checkpoints through the saver graph's kernels (kernels/cpu/checkpoint_kernels.cc): SaveV2
 * then RestoreV2 of every dtype, reading the checkpoints TensorFlow wrote for the conformance
 * models, the errors of corrupt, truncated and missing files, MergeV2Checkpoints of sharded
 * saves as TensorFlow's saver builds them, and the path helpers (ShardedFilename,
 * ShardedFilespec, StaticRegexFullMatch, DisableCopyOnRead). Files go to a mkdtemp folder
 * that each test removes. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

/* ---- Helpers ------------------------------------------------------------------------------ */

typedef struct {
  graft_graph *g;
  char dir[64];
} fixture;

static int ck_setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  GT_OK(graft_graph_new(&f->g));
  strcpy(f->dir, "/tmp/graft_ckpt_XXXXXX");
  if (mkdtemp(f->dir) == NULL) return -1;
  *state = f;
  return 0;
}

static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (d != NULL) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char child[512];
      snprintf(child, sizeof child, "%s/%s", path, e->d_name);
      remove_tree(child);
    }
    closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

static int ck_teardown(void **state) {
  fixture *f = *state;
  graft_graph_free(f->g);
  remove_tree(f->dir);
  free(f);
  return 0;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* dir/name into buf (static storage per call site is the caller's). */
static const char *path_in(char *buf, size_t n, const fixture *f, const char *name) {
  snprintf(buf, n, "%s/%s", f->dir, name);
  return buf;
}

static graft_op *str_scalar(graft_graph *g, const char *name, const char *s) { return strings(g, name, SCALAR, &s); }

static graft_op *str_vec(graft_graph *g, const char *name, int n, const char *const *s) {
  int64_t dims[1] = {n};
  return strings(g, name, dims, 1, s);
}

/* SaveV2(prefix, names, slices = "", tensors) */
static graft_op *save_op(graft_graph *g, const char *name, graft_op *prefix, int n, const char *const *names,
                         graft_op **tensors) {
  const char *empty[32] = {0};
  for (int i = 0; i < n; ++i) empty[i] = "";
  char buf[64];
  snprintf(buf, sizeof buf, "%s_names", name);
  graft_op *names_op = str_vec(g, buf, n, names);
  snprintf(buf, sizeof buf, "%s_slices", name);
  graft_op *slices_op = str_vec(g, buf, n, empty);
  graft_op_desc *d = desc(g, "SaveV2", name);
  in(d, prefix);
  in(d, names_op);
  in(d, slices_op);
  graft_output outs[32];
  for (int i = 0; i < n; ++i) outs[i] = (graft_output){tensors[i], 0};
  GT_OK(graft_op_desc_add_input_list(d, outs, n));
  return fin(d);
}

/* RestoreV2(prefix, names, slices) with the given dtypes; slices NULL for all "". */
static graft_op *restore_op(graft_graph *g, const char *name, graft_op *prefix, int n, const char *const *names,
                            const char *const *slices, const graft_dtype *dtypes) {
  const char *empty[32] = {0};
  for (int i = 0; i < n; ++i) empty[i] = "";
  char buf[64];
  snprintf(buf, sizeof buf, "%s_names", name);
  graft_op *names_op = str_vec(g, buf, n, names);
  snprintf(buf, sizeof buf, "%s_slices", name);
  graft_op *slices_op = str_vec(g, buf, n, slices ? slices : empty);
  graft_op_desc *d = desc(g, "RestoreV2", name);
  in(d, prefix);
  in(d, names_op);
  in(d, slices_op);
  GT_OK(graft_attrs_set_type_list(graft_op_desc_attrs(d), "dtypes", dtypes, n));
  return fin(d);
}

static void run_target(graft_graph *g, graft_op *target) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  GT_OK(graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &target, 1));
  graft_session_free(s);
}

/* Runs all n outputs of op into out. */
static void run_all(graft_graph *g, graft_op *op, int n, graft_tensor **out) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output f[32];
  for (int i = 0; i < n; ++i) f[i] = (graft_output){op, i};
  GT_OK(graft_session_run(out, s, NULL, NULL, 0, f, n, NULL, 0));
  graft_session_free(s);
}

/* Expects running output 0 of op (or op as a target when fetch is 0) to fail with code and
 * every needle (up to 3, NULL-padded) in the message. */
static void expect_run_error(graft_graph *g, graft_op *op, int fetch, int code, const char *n1, const char *n2,
                             const char *n3) {
  graft_session *s = NULL;
  GT_OK(graft_session_new(&s, g, NULL));
  graft_output f = {op, 0};
  graft_tensor *out = NULL;
  graft_error_clear();
  int rc = fetch ? graft_session_run(&out, s, NULL, NULL, 0, &f, 1, NULL, 0)
                 : graft_session_run(NULL, s, NULL, NULL, 0, NULL, 0, &op, 1);
  if (rc != code) {
    print_error("rc %s, expected %s: %s\n", graft_status_name(rc), graft_status_name(code), graft_error_last());
  }
  assert_int_equal(rc, code);
  const char *needles[3] = {n1, n2, n3};
  for (int i = 0; i < 3; ++i) {
    if (needles[i] != NULL && strstr(graft_error_last(), needles[i]) == NULL) {
      print_error("message '%s' lacks '%s'\n", graft_error_last(), needles[i]);
      fail();
    }
  }
  graft_session_free(s);
}

static void flip_byte(const char *path, long offset) {
  FILE *fp = fopen(path, "r+b");
  assert_non_null(fp);
  assert_int_equal(fseek(fp, offset, offset < 0 ? SEEK_END : SEEK_SET), 0);
  int c = fgetc(fp);
  assert_int_not_equal(c, EOF);
  assert_int_equal(fseek(fp, -1, SEEK_CUR), 0);
  fputc(c ^ 0x5a, fp);
  fclose(fp);
}

static long file_size(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return (long)st.st_size;
}

/* ---- Save and restore --------------------------------------------------------------------- */

/* Every numeric dtype and bool, in scalars, matrices and empty tensors, round-trips exactly. */
static void test_round_trip_dtypes(void **state) {
  fixture *f = *state;
  graft_graph *g = f->g;
  char prefix[128];
  path_in(prefix, sizeof prefix, f, "model/ckpt");
  static const graft_dtype dts[] = {GRAFT_FLOAT32, GRAFT_FLOAT64,    GRAFT_INT32,   GRAFT_UINT8,   GRAFT_INT16,
                                    GRAFT_INT8,    GRAFT_COMPLEX64,  GRAFT_INT64,   GRAFT_BOOL,    GRAFT_QINT8,
                                    GRAFT_QUINT8,  GRAFT_QINT32,     GRAFT_BFLOAT16, GRAFT_QINT16, GRAFT_QUINT16,
                                    GRAFT_UINT16,  GRAFT_COMPLEX128, GRAFT_FLOAT16, GRAFT_UINT32,  GRAFT_UINT64};
  enum { N = sizeof dts / sizeof dts[0] };
  const char *names[N + 2];
  char name_buf[N + 2][32];
  graft_op *tensors[N + 2];
  graft_dtype all[N + 2];
  unsigned char bytes[6 * 16];
  for (size_t i = 0; i < sizeof bytes; ++i) bytes[i] = (unsigned char)(i * 37 + 11);
  for (int i = 0; i < N; ++i) {
    snprintf(name_buf[i], sizeof name_buf[i], "v%02d/%s", i, graft_dtype_name(dts[i]));
    names[i] = name_buf[i];
    all[i] = dts[i];
    /* Rotate through a scalar, a [2,3] matrix and an empty [0,2] tensor. */
    const int64_t d23[2] = {2, 3}, d02[2] = {0, 2};
    if (dts[i] == GRAFT_BOOL) {
      const unsigned char flags[6] = {1, 0, 0, 1, 1, 0};
      tensors[i] = konst(g, name_buf[i], dts[i], d23, 2, flags);
    } else if (i % 3 == 0) {
      tensors[i] = konst(g, name_buf[i], dts[i], NULL, 0, bytes);
    } else if (i % 3 == 1) {
      tensors[i] = konst(g, name_buf[i], dts[i], d23, 2, bytes);
    } else {
      tensors[i] = konst(g, name_buf[i], dts[i], d02, 2, NULL);
    }
  }
  /* A string tensor with empty strings and a long one (a two-byte varint length), and an
   * empty string tensor. */
  char long_str[301];
  memset(long_str, 'L', 300);
  long_str[300] = 0;
  const char *strs[4] = {"", "hello", long_str, ""};
  int64_t d22[2] = {2, 2}, d0[1] = {0};
  names[N] = "strings";
  all[N] = GRAFT_STRING;
  tensors[N] = strings(g, "strs", d22, 2, strs);
  names[N + 1] = "no_strings";
  all[N + 1] = GRAFT_STRING;
  tensors[N + 1] = strings(g, "nostrs", d0, 1, strs);

  graft_op *p = str_scalar(g, "prefix", prefix);
  run_target(g, save_op(g, "save", p, N + 2, names, tensors));
  char file[160];
  snprintf(file, sizeof file, "%s.index", prefix);
  assert_true(exists(file));
  snprintf(file, sizeof file, "%s.data-00000-of-00001", prefix);
  assert_true(exists(file));

  /* Restore (the index is sorted by name; the data file is in save order). */
  graft_op *r = restore_op(g, "restore", p, N + 2, names, NULL, all);
  graft_tensor *out[N + 2];
  run_all(g, r, N + 2, out);
  for (int i = 0; i < N; ++i) {
    size_t esize = graft_dtype_size(dts[i]);
    if (dts[i] == GRAFT_BOOL) {
      expect(out[i], dts[i], D(2, 3), (const unsigned char[]){1, 0, 0, 1, 1, 0});
    } else if (i % 3 == 0) {
      assert_int_equal(graft_tensor_rank(out[i]), 0);
      assert_int_equal(graft_tensor_byte_size(out[i]), esize);
      expect(out[i], dts[i], SCALAR, bytes);
    } else if (i % 3 == 1) {
      expect(out[i], dts[i], D(2, 3), bytes);
    } else {
      expect(out[i], dts[i], D(0, 2), NULL);
    }
  }
  expect_strings(out[N], D(2, 2), strs);
  expect_strings(out[N + 1], D(0), NULL);
}

/* Strings with embedded NULs and a scalar empty string; saving again overwrites. */
static void test_round_trip_strings(void **state) {
  fixture *f = *state;
  graft_graph *g = f->g;
  char prefix[128];
  path_in(prefix, sizeof prefix, f, "s");
  const char *vals[3] = {"a\0b", "", "xyz"};
  const size_t lens[3] = {3, 0, 3};
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new_strings(&t, D(3), vals, lens, 3));
  graft_op *v = const_t(g, "v", t);
  const char *empty = "";
  graft_op *e = strings(g, "e", SCALAR, &empty);
  graft_op *p = str_scalar(g, "prefix", prefix);
  const char *names[2] = {"with_nul", "empty"};
  graft_op *tensors[2] = {v, e};
  graft_op *save = save_op(g, "save", p, 2, names, tensors);
  run_target(g, save);
  run_target(g, save);
  const graft_dtype dts[2] = {GRAFT_STRING, GRAFT_STRING};
  graft_tensor *out[2];
  run_all(g, restore_op(g, "restore", p, 2, names, NULL, dts), 2, out);
  for (int i = 0; i < 3; ++i) {
    const char *s = NULL;
    size_t len = 0;
    GT_OK(graft_tensor_string(&s, &len, out[0], i));
    assert_int_equal(len, lens[i]);
    assert_memory_equal(s, vals[i], len);
  }
  graft_tensor_free(out[0]);
  expect_strings(out[1], SCALAR, &empty);
}

/* ---- TensorFlow's checkpoints ------------------------------------------------------------- */

static int have_conformance(void) {
  char p[512];
  snprintf(p, sizeof p, "%s/savedmodels", GRAFT_CONFORMANCE_DIR);
  return exists(p);
}

static void test_tensorflow_checkpoints(void **state) {
  fixture *f = *state;
  graft_graph *g = f->g;
  if (!have_conformance()) {
    print_message("conformance dir %s absent: skipped\n", GRAFT_CONFORMANCE_DIR);
    skip();
  }
  char prefix[512];
  /* TensorFlow 1.14 (VariableV2 saver; its index block is snappy-compressed). */
  snprintf(prefix, sizeof prefix, "%s/savedmodels/half_plus_two_tf1/variables/variables", GRAFT_CONFORMANCE_DIR);
  graft_op *p1 = str_scalar(g, "p1", prefix);
  const char *ab[2] = {"a", "b"};
  const graft_dtype ff[2] = {GRAFT_FLOAT32, GRAFT_FLOAT32};
  graft_tensor *out[3];
  run_all(g, restore_op(g, "r1", p1, 2, ab, NULL, ff), 2, out);
  expect(out[0], GRAFT_FLOAT32, SCALAR, (const float[]){0.5f});
  expect(out[1], GRAFT_FLOAT32, SCALAR, (const float[]){2.0f});

  /* TensorFlow 2.14: object-based names and the object graph as a string. */
  snprintf(prefix, sizeof prefix, "%s/savedmodels/half_plus_two_tf2/variables/variables", GRAFT_CONFORMANCE_DIR);
  graft_op *p2 = str_scalar(g, "p2", prefix);
  const char *n2[2] = {"c/.ATTRIBUTES/VARIABLE_VALUE", "_CHECKPOINTABLE_OBJECT_GRAPH"};
  const graft_dtype d2[2] = {GRAFT_FLOAT32, GRAFT_STRING};
  run_all(g, restore_op(g, "r2", p2, 2, n2, NULL, d2), 2, out);
  expect(out[0], GRAFT_FLOAT32, SCALAR, (const float[]){3.0f});
  const char *s = NULL;
  size_t len = 0;
  GT_OK(graft_tensor_string(&s, &len, out[1], 0));
  assert_int_equal(len, 613);
  graft_tensor_free(out[1]);

  /* Keras (TF 2.3): a bias vector, a kernel matrix and the optimizer's int64 step. */
  snprintf(prefix, sizeof prefix, "%s/savedmodels/keras_single_input_tf2/variables/variables", GRAFT_CONFORMANCE_DIR);
  graft_op *p3 = str_scalar(g, "p3", prefix);
  const char *n3[3] = {"layer_with_weights-2/bias/.ATTRIBUTES/VARIABLE_VALUE",
                       "layer_with_weights-2/kernel/.ATTRIBUTES/VARIABLE_VALUE",
                       "optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE"};
  const graft_dtype d3[3] = {GRAFT_FLOAT32, GRAFT_FLOAT32, GRAFT_INT64};
  run_all(g, restore_op(g, "r3", p3, 3, n3, NULL, d3), 3, out);
  expect_f32_near(out[0], D(1), (const float[]){0.0009999938774853945f}, 0);
  expect_f32_near(out[1], D(5, 1),
                  (const float[]){-0.3279283046722412f, 0.3953714370727539f, 0.6755032539367676f,
                                  0.04416966065764427f, -0.9291467666625977f},
                  0);
  expect(out[2], GRAFT_INT64, SCALAR, (const int64_t[]){1});

  /* A dtype other than the checkpoint's is an error naming the tensor. */
  const graft_dtype wrong[2] = {GRAFT_FLOAT32, GRAFT_INT32};
  graft_op *bad = restore_op(g, "r4", p1, 2, ab, NULL, wrong);
  expect_run_error(g, bad, 1, GRAFT_EINVAL, "'b'", "float32", "int32");
}

/* ---- Errors -------------------------------------------------------------------------------- */

/* Saves x (float [4]) and s (strings) under dir/name and returns the prefix in buf. */
static void save_sample(fixture *f, const char *name, char *buf, size_t n) {
  graft_graph *g = NULL;
  GT_OK(graft_graph_new(&g));
  path_in(buf, n, f, name);
  graft_op *p = str_scalar(g, "prefix", buf);
  const char *strs[2] = {"first", "second"};
  graft_op *tensors[2] = {konst(g, "x", GRAFT_FLOAT32, D(4), (const float[]){1, 2, 3, 4}), str_vec(g, "s", 2, strs)};
  const char *names[2] = {"x", "s"};
  run_target(g, save_op(g, "save", p, 2, names, tensors));
  graft_graph_free(g);
}

static void test_errors(void **state) {
  fixture *f = *state;
  graft_graph *g = f->g;
  char prefix[128], index[160], data[160];
  const char *x = "x", *s = "s", *nope = "nope";
  const graft_dtype f32 = GRAFT_FLOAT32, str = GRAFT_STRING;

  /* No checkpoint at all. */
  char missing[128];
  path_in(missing, sizeof missing, f, "missing");
  graft_op *r0 = restore_op(g, "r0", str_scalar(g, "p0", missing), 1, &x, NULL, &f32);
  expect_run_error(g, r0, 1, GRAFT_ENOTFOUND, "RestoreV2 op 'r0'", missing, ".index");

  save_sample(f, "ok", prefix, sizeof prefix);
  graft_op *p = str_scalar(g, "p", prefix);
  /* A tensor name the checkpoint lacks; a dtype other than the checkpoint's. */
  expect_run_error(g, restore_op(g, "r1", p, 1, &nope, NULL, &f32), 1, GRAFT_ENOTFOUND, "'nope'", prefix, NULL);
  expect_run_error(g, restore_op(g, "r2", p, 1, &x, NULL, &str), 1, GRAFT_EINVAL, "'x'", "float32", "string");
  /* A slice spec (partitioned variables) is not supported. */
  const char *slice = "4 0,2";
  expect_run_error(g, restore_op(g, "r3", p, 1, &x, &slice, &f32), 1, GRAFT_EUNIMPLEMENTED, "'x'", "slice", NULL);

  /* A flipped data byte: the checksum names the data file and the tensor. */
  save_sample(f, "flip", prefix, sizeof prefix);
  snprintf(data, sizeof data, "%s.data-00000-of-00001", prefix);
  flip_byte(data, 5);
  graft_op *pf = str_scalar(g, "pf", prefix);
  expect_run_error(g, restore_op(g, "r4", pf, 1, &x, NULL, &f32), 1, GRAFT_EDATALOSS, "checksum", data, "'x'");
  flip_byte(data, -2); /* inside the string bytes */
  expect_run_error(g, restore_op(g, "r5", pf, 1, &s, NULL, &str), 1, GRAFT_EDATALOSS, "checksum", data, "'s'");

  /* A truncated data file. */
  save_sample(f, "trunc", prefix, sizeof prefix);
  snprintf(data, sizeof data, "%s.data-00000-of-00001", prefix);
  assert_int_equal(truncate(data, file_size(data) - 4), 0);
  graft_op *pt = str_scalar(g, "pt", prefix);
  expect_run_error(g, restore_op(g, "r6", pt, 1, &s, NULL, &str), 1, GRAFT_EDATALOSS, "truncated", data, "'s'");

  /* A missing shard. */
  save_sample(f, "noshard", prefix, sizeof prefix);
  snprintf(data, sizeof data, "%s.data-00000-of-00001", prefix);
  assert_int_equal(unlink(data), 0);
  graft_op *pm = str_scalar(g, "pm", prefix);
  expect_run_error(g, restore_op(g, "r7", pm, 1, &x, NULL, &f32), 1, GRAFT_ENOTFOUND, data, "'x'", "missing");

  /* Corrupt index bytes: in the data block, and a truncated index. */
  save_sample(f, "badindex", prefix, sizeof prefix);
  snprintf(index, sizeof index, "%s.index", prefix);
  flip_byte(index, 3);
  graft_op *pi = str_scalar(g, "pi", prefix);
  expect_run_error(g, restore_op(g, "r8", pi, 1, &x, NULL, &f32), 1, GRAFT_EDATALOSS, index, "corrupt", NULL);
  save_sample(f, "shortindex", prefix, sizeof prefix);
  snprintf(index, sizeof index, "%s.index", prefix);
  assert_int_equal(truncate(index, file_size(index) - 10), 0);
  graft_op *ps = str_scalar(g, "ps", prefix);
  expect_run_error(g, restore_op(g, "r9", ps, 1, &x, NULL, &f32), 1, GRAFT_EDATALOSS, index, NULL, NULL);

  /* Saving the same name twice. */
  char twice[128];
  path_in(twice, sizeof twice, f, "twice");
  const char *dup[2] = {"d", "d"};
  graft_op *dupt[2] = {konst(g, "c1", GRAFT_INT32, SCALAR, (const int32_t[]){1}),
                       konst(g, "c2", GRAFT_INT32, SCALAR, (const int32_t[]){2})};
  expect_run_error(g, save_op(g, "save_twice", str_scalar(g, "pd", twice), 2, dup, dupt), 0, GRAFT_EINVAL, "'d'",
                   "twice", NULL);
  char file[160];
  snprintf(file, sizeof file, "%s.index", twice);
  assert_false(exists(file));
}

/* ---- Sharded saves and merging ------------------------------------------------------------ */

static graft_op *sharded_filename(graft_graph *g, const char *name, graft_op *base, int shard, int num) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s_shard", name);
  graft_op *sh = konst(g, buf, GRAFT_INT32, SCALAR, &shard);
  snprintf(buf, sizeof buf, "%s_num", name);
  graft_op *n = konst(g, buf, GRAFT_INT32, SCALAR, &num);
  return op3(g, "ShardedFilename", name, base, sh, n);
}

/* The graph TensorFlow's sharded saver builds: a temporary prefix "<prefix>_temp/part" (or
 * ".part" for s3:// paths), one SaveV2 per shard to ShardedFilename(tmp, i, n), then
 * MergeV2Checkpoints of those into the prefix. */
static void test_sharded_save_and_merge(void **state) {
  fixture *f = *state;
  graft_graph *g = f->g;
  char prefix[128], file[192];
  path_in(prefix, sizeof prefix, f, "ckpt");
  graft_op *p = str_scalar(g, "prefix", prefix);
  graft_op_desc *d = desc(g, "StaticRegexFullMatch", "is_s3");
  in(d, p);
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "pattern", "^s3://.*", 8));
  graft_op *is_s3 = fin(d);
  graft_op *suffix = op3(g, "Select", "suffix", is_s3, str_scalar(g, "dot_part", ".part"),
                         str_scalar(g, "temp_part", "_temp/part"));
  d = desc(g, "StringJoin", "tmp_prefix");
  graft_output join_in[2] = {{p, 0}, {suffix, 0}};
  GT_OK(graft_op_desc_add_input_list(d, join_in, 2));
  graft_op *tmp = fin(d);
  graft_op *f0 = sharded_filename(g, "shard0", tmp, 0, 2);
  graft_op *f1 = sharded_filename(g, "shard1", tmp, 1, 2);
  const char *n0[2] = {"w", "b"}, *n1[1] = {"step"};
  graft_op *t0[2] = {konst(g, "w", GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4}),
                     konst(g, "b", GRAFT_FLOAT64, D(2), (const double[]){-1, 0.25})};
  graft_op *t1[1] = {konst(g, "step", GRAFT_INT64, SCALAR, (const int64_t[]){42})};
  graft_op *s0 = save_op(g, "save0", f0, 2, n0, t0);
  graft_op *s1 = save_op(g, "save1", f1, 1, n1, t1);
  d = desc(g, "Pack", "shard_prefixes");
  graft_output pack_in[2] = {{f0, 0}, {f1, 0}};
  GT_OK(graft_op_desc_add_input_list(d, pack_in, 2));
  GT_OK(graft_op_desc_add_control_input(d, s0));
  GT_OK(graft_op_desc_add_control_input(d, s1));
  graft_op *packed = fin(d);
  d = desc(g, "MergeV2Checkpoints", "merge");
  in(d, packed);
  in(d, p);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "delete_old_dirs", 1));
  graft_op *merge = fin(d);
  /* The temporary shard names, then the whole save. */
  char expect_name[192];
  snprintf(expect_name, sizeof expect_name, "%s_temp/part-00001-of-00002", prefix);
  const char *en = expect_name;
  expect_strings(run(g, f1), SCALAR, &en);
  run_target(g, merge);
  snprintf(file, sizeof file, "%s.index", prefix);
  assert_true(exists(file));
  snprintf(file, sizeof file, "%s.data-00000-of-00002", prefix);
  assert_true(exists(file));
  snprintf(file, sizeof file, "%s.data-00001-of-00002", prefix);
  assert_true(exists(file));
  snprintf(file, sizeof file, "%s_temp", prefix); /* emptied and removed (delete_old_dirs) */
  assert_false(exists(file));

  const char *names[3] = {"step", "w", "b"};
  const graft_dtype dts[3] = {GRAFT_INT64, GRAFT_FLOAT32, GRAFT_FLOAT64};
  graft_tensor *out[3];
  run_all(g, restore_op(g, "restore", p, 3, names, NULL, dts), 3, out);
  expect(out[0], GRAFT_INT64, SCALAR, (const int64_t[]){42});
  expect(out[1], GRAFT_FLOAT32, D(2, 2), (const float[]){1, 2, 3, 4});
  expect(out[2], GRAFT_FLOAT64, D(2), (const double[]){-1, 0.25});

  /* Saving again over the merged checkpoint works the same way. */
  run_target(g, merge);
  run_all(g, restore_op(g, "restore2", p, 3, names, NULL, dts), 3, out);
  expect(out[0], GRAFT_INT64, SCALAR, (const int64_t[]){42});
  graft_tensor_free(out[1]);
  graft_tensor_free(out[2]);
}

static graft_op *merge_op(graft_graph *g, const char *name, int n, const char *const *prefixes, const char *dest,
                          int allow_missing) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s_prefixes", name);
  graft_op *ps = str_vec(g, buf, n, prefixes);
  snprintf(buf, sizeof buf, "%s_dest", name);
  graft_op *dp = str_scalar(g, buf, dest);
  graft_op_desc *d = desc(g, "MergeV2Checkpoints", name);
  in(d, ps);
  in(d, dp);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "allow_missing_files", allow_missing));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "delete_old_dirs", 0));
  return fin(d);
}

/* Merging two separately saved bundles, missing inputs and clashing names. */
static void test_merge_errors(void **state) {
  fixture *f = *state;
  graft_graph *g = f->g;
  char a[128], b[128], c[128], missing[128], dest[128];
  path_in(missing, sizeof missing, f, "missing");
  path_in(dest, sizeof dest, f, "merged");
  save_sample(f, "a", a, sizeof a);
  save_sample(f, "b", b, sizeof b);
  /* Names clash (both have x and s): nothing is renamed. */
  const char *ab[2] = {a, b};
  expect_run_error(g, merge_op(g, "m1", 2, ab, dest, 0), 0, GRAFT_EINVAL, "'s'", a, b);
  char file[192];
  snprintf(file, sizeof file, "%s.data-00000-of-00001", a);
  assert_true(exists(file));
  /* A missing input. */
  const char *am[2] = {a, missing};
  expect_run_error(g, merge_op(g, "m2", 2, am, dest, 0), 0, GRAFT_ENOTFOUND, missing, NULL, NULL);
  const char *mm[1] = {missing};
  expect_run_error(g, merge_op(g, "m3", 1, mm, dest, 1), 0, GRAFT_ENOTFOUND, dest, NULL, NULL);
  /* Allowed to be missing: a merges alone. */
  run_target(g, merge_op(g, "m4", 2, am, dest, 1));
  snprintf(file, sizeof file, "%s.index", a);
  assert_false(exists(file)); /* the old index is removed */
  snprintf(file, sizeof file, "%s.data-00000-of-00001", dest);
  assert_true(exists(file));
  /* Different names merge into shards 0 and 1. */
  path_in(c, sizeof c, f, "c");
  graft_op *pc = str_scalar(g, "pc", c);
  const char *cn = "other";
  graft_op *ct = konst(g, "ct", GRAFT_UINT8, D(3), (const uint8_t[]){7, 8, 9});
  run_target(g, save_op(g, "save_c", pc, 1, &cn, &ct));
  char dest2[128];
  path_in(dest2, sizeof dest2, f, "merged2");
  const char *bc[2] = {b, c};
  run_target(g, merge_op(g, "m5", 2, bc, dest2, 0));
  graft_op *pd = str_scalar(g, "pd", dest2);
  const char *names[2] = {"other", "x"};
  const graft_dtype dts[2] = {GRAFT_UINT8, GRAFT_FLOAT32};
  graft_tensor *out[2];
  run_all(g, restore_op(g, "r", pd, 2, names, NULL, dts), 2, out);
  expect(out[0], GRAFT_UINT8, D(3), (const uint8_t[]){7, 8, 9});
  expect(out[1], GRAFT_FLOAT32, D(4), (const float[]){1, 2, 3, 4});
  snprintf(file, sizeof file, "%s.data-00001-of-00002", dest2);
  assert_true(exists(file));
}

/* ---- Path helpers ------------------------------------------------------------------------- */

static void test_path_ops(void **state) {
  fixture *f = *state;
  graft_graph *g = f->g;
  graft_op *base = str_scalar(g, "base", "/ckpt/model");
  const char *want = "/ckpt/model-00003-of-00010";
  expect_strings(run(g, sharded_filename(g, "fn", base, 3, 10)), SCALAR, &want);
  int32_t n = 2;
  graft_op *spec = make_binary(g, "ShardedFilespec", "spec", base, konst(g, "n", GRAFT_INT32, SCALAR, &n));
  const char *want_spec = "/ckpt/model-\?\?\?\?\?-of-00002";
  expect_strings(run(g, spec), SCALAR, &want_spec);

  const char *paths[4] = {"s3://bucket/model", "/tmp/s3://x", "", "s3:/"};
  graft_op *ps = str_vec(g, "paths", 4, paths);
  graft_op_desc *d = desc(g, "StaticRegexFullMatch", "match");
  in(d, ps);
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "pattern", "^s3://.*", 8));
  expect(run(g, fin(d)), GRAFT_BOOL, D(4), (const uint8_t[]){1, 0, 0, 0});
  d = desc(g, "StaticRegexFullMatch", "bad_pattern");
  in(d, ps);
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "pattern", "(", 1));
  expect_run_error(g, fin(d), 1, GRAFT_EINVAL, "pattern", NULL, NULL);

  /* DisableCopyOnRead on a variable's handle does nothing (and needs no value). */
  d = desc(g, "VarHandleOp", "var");
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  GT_OK(graft_attrs_set_shape(graft_op_desc_attrs(d), "shape", NULL, 0));
  graft_op *var = fin(d);
  run_target(g, op1(g, "DisableCopyOnRead", "no_copy", var));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_round_trip_dtypes, ck_setup, ck_teardown),
      cmocka_unit_test_setup_teardown(test_round_trip_strings, ck_setup, ck_teardown),
      cmocka_unit_test_setup_teardown(test_tensorflow_checkpoints, ck_setup, ck_teardown),
      cmocka_unit_test_setup_teardown(test_errors, ck_setup, ck_teardown),
      cmocka_unit_test_setup_teardown(test_sharded_save_and_merge, ck_setup, ck_teardown),
      cmocka_unit_test_setup_teardown(test_merge_errors, ck_setup, ck_teardown),
      cmocka_unit_test_setup_teardown(test_path_ops, ck_setup, ck_teardown),
  };
  return cmocka_run_group_tests_name("checkpoint", tests, NULL, NULL);
}
