/* Hashing strings into buckets (kernels/cpu/string_hash_kernels.cc): StringToHashBucketFast
 * (FarmHash Fingerprint64), StringToHashBucketStrong (SipHash-2-4 keyed by the `key` attr) and
 * the legacy StringToHashBucket (Hash64), on empty, short, long, non-ASCII and NUL-holding
 * strings, with the errors. Expected values are TensorFlow 2.21's (tf.strings.to_hash_bucket_*
 * and tf.raw_ops.StringToHashBucket on the same strings). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

#define NSTR 7
static const char kX100[] =
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
static const char *const kStrings[NSTR] = {"", "a", "hello world", "h\xc3\xa9llo \xe2\x9c\x93", "a\0b", kX100,
                                           "The quick brown fox jumps over the lazy dog"};
static const size_t kLengths[NSTR] = {0, 1, 11, 10, 3, 100, 43};

static graft_op *inputs(graft_graph *g) {
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new_strings(&t, D(NSTR), kStrings, kLengths, NSTR));
  return const_t(g, "in", t);
}

static graft_op *bucket(graft_graph *g, const char *type, const char *name, graft_op *x, int64_t buckets,
                        const int64_t *key, int nkey) {
  graft_op_desc *d = desc(g, type, name);
  in(d, x);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num_buckets", buckets));
  if (key != NULL) GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "key", key, nkey));
  return fin(d);
}

static void test_fast(void **state) {
  graft_graph *g = *state;
  graft_op *x = inputs(g);
  /* With INT64_MAX buckets the bucket is nearly the whole fingerprint. */
  graft_op *b = bucket(g, "StringToHashBucketFast", "fast", x, INT64_MAX, NULL, 0);
  assert_output_shape(b, 0, "(7,)");
  expect(run(g, b), GRAFT_INT64, D(NSTR),
         (const int64_t[]){INT64_C(1936946117179621456), INT64_C(3694432073954588132), INT64_C(6381520714923946011),
                           INT64_C(388974397503833843), INT64_C(7026922943720236280), INT64_C(6590480085648050719),
                           INT64_C(3152101869897863477)});
  expect(run(g, bucket(g, "StringToHashBucketFast", "fast1000", x, 1000, NULL, 0)), GRAFT_INT64, D(NSTR),
         (const int64_t[]){263, 939, 11, 650, 280, 719, 284});
  /* Any shape. */
  graft_op *m = strings(g, "m", D(2, 2), (const char *const[]){"a", "bc", "", ""});
  graft_op *bm = bucket(g, "StringToHashBucketFast", "fast2d", m, 10, NULL, 0);
  assert_output_shape(bm, 0, "(2, 2)");
  expect(run(g, bm), GRAFT_INT64, D(2, 2), (const int64_t[]){9, 9, 3, 3});
  /* One bucket: everything in bucket 0. */
  expect(run(g, bucket(g, "StringToHashBucketFast", "one", x, 1, NULL, 0)), GRAFT_INT64, D(NSTR),
         (const int64_t[]){0, 0, 0, 0, 0, 0, 0});
}

static void test_strong(void **state) {
  graft_graph *g = *state;
  graft_op *x = inputs(g);
  expect(run(g, bucket(g, "StringToHashBucketStrong", "s", x, INT64_MAX, (const int64_t[]){1, 2}, 2)), GRAFT_INT64,
         D(NSTR),
         (const int64_t[]){INT64_C(443797209252341628), INT64_C(5158252350249958646), INT64_C(1015233985318741639),
                           INT64_C(7837651922762377182), INT64_C(2296863193520864598), INT64_C(1638981394980189463),
                           INT64_C(4761918157535839729)});
  expect(run(g, bucket(g, "StringToHashBucketStrong", "s1000", x, 1000, (const int64_t[]){-1, 123456789}, 2)),
         GRAFT_INT64, D(NSTR), (const int64_t[]){565, 22, 514, 387, 882, 10, 133});
}

static void test_legacy(void **state) {
  graft_graph *g = *state;
  expect(run(g, bucket(g, "StringToHashBucket", "h", inputs(g), INT64_MAX, NULL, 0)), GRAFT_INT64, D(NSTR),
         (const int64_t[]){INT64_C(105434511174508092), INT64_C(2996632905371535868), INT64_C(936430787915428848),
                           INT64_C(8598338603790106542), INT64_C(9021471590436262201), INT64_C(6094197843925237000),
                           INT64_C(6299166825487821026)});
}

static void test_errors(void **state) {
  graft_graph *g = *state;
  graft_op *x = inputs(g);
  /* num_buckets >= 1 is the op definition's. */
  for (int64_t n = 0; n >= -1; --n) {
    graft_op_desc *d = desc(g, "StringToHashBucketFast", n == 0 ? "zero" : "negative");
    in(d, x);
    GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num_buckets", n));
    graft_op *op = NULL;
    GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "StringToHashBucketFast", "num_buckets");
  }
  graft_op_desc *d = desc(g, "StringToHashBucketStrong", "nokey");
  in(d, x);
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num_buckets", 10));
  graft_op *op = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "StringToHashBucketStrong", "key");
  graft_op *short_key = bucket(g, "StringToHashBucketStrong", "short_key", x, 10, (const int64_t[]){1}, 1);
  expect_error(g, short_key, NULL, NULL, GRAFT_EINVAL, "StringToHashBucketStrong op 'short_key'",
               "Key must have 2 elements");
  /* Strings only. */
  d = desc(g, "StringToHashBucketFast", "ints");
  in(d, konst(g, "i", GRAFT_INT32, D(1), (const int32_t[]){1}));
  GT_OK(graft_attrs_set_int(graft_op_desc_attrs(d), "num_buckets", 10));
  GT_ERR(GRAFT_EDTYPE, graft_op_desc_finish(&op, d), "StringToHashBucketFast");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fast, setup, teardown),
      cmocka_unit_test_setup_teardown(test_strong, setup, teardown),
      cmocka_unit_test_setup_teardown(test_legacy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_string_hash", tests, NULL, NULL);
}
