/* Stateless random ops (kernels/cpu/stateless_random_kernels.cc): the key/counter ops, the V1
 * ops with a seed input and the V2 ops with key, counter and alg, in every dtype, bit for bit
 * TensorFlow's CPU kernels; their output shapes from a constant shape at graph building; and
 * the errors. Expected values are TensorFlow 2.21's (tf.raw_ops on the same inputs; sizes
 * that split Philox's 4-word blocks, a counter that carries, seeds in int32 and int64). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

static const int64_t kSeed12[] = {1, 2};
static const int32_t kSeed32[] = {-7, 123456789};

static graft_op *seed12(graft_graph *g, const char *name) { return konst(g, name, GRAFT_INT64, D(2), kSeed12); }

static graft_op *shape_of(graft_graph *g, const char *name, const int32_t *dims, int n) {
  return konst(g, name, GRAFT_INT32, (const int64_t[]){n}, 1, dims);
}
#define SHAPE(g, name, ...) shape_of(g, name, (const int32_t[]){__VA_ARGS__}, N_OF(((const int32_t[]){__VA_ARGS__})))

/* A stateless op of inputs ins[0..n) with its dtype attr (dtype < 0: left to its default). */
static graft_op *stateless(graft_graph *g, const char *type, const char *name, graft_op *const *ins, int n,
                           int dtype) {
  graft_op_desc *d = desc(g, type, name);
  for (int i = 0; i < n; ++i) in(d, ins[i]);
  if (dtype >= 0) GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", (graft_dtype)dtype));
  return fin(d);
}
#define OPS(...) ((graft_op *const[]){__VA_ARGS__}), N_OF(((graft_op *const[]){__VA_ARGS__}))

static graft_tensor *run_output(graft_graph *g, graft_op *op, int index) { return run_feeds(g, op, index, 0, NULL, NULL); }

/* ---- Keys and counters -------------------------------------------------------------------- */

static void test_key_counter(void **state) {
  graft_graph *g = *state;
  graft_op *kc = op1(g, "StatelessRandomGetKeyCounter", "kc", seed12(g, "s"));
  assert_output_shape(kc, 0, "(1,)");
  assert_output_shape(kc, 1, "(2,)");
  expect(run_output(g, kc, 0), GRAFT_UINT64, D(1), (const uint64_t[]){UINT64_C(10413732777507651514)});
  expect(run_output(g, kc, 1), GRAFT_UINT64, D(2), (const uint64_t[]){0, UINT64_C(17830669156045600267)});
  graft_op *kca = op1(g, "StatelessRandomGetKeyCounterAlg", "kca", konst(g, "s32", GRAFT_INT32, D(2), kSeed32));
  expect(run_output(g, kca, 0), GRAFT_UINT64, D(1), (const uint64_t[]){UINT64_C(7439764316522030886)});
  expect(run_output(g, kca, 1), GRAFT_UINT64, D(2), (const uint64_t[]){0, UINT64_C(11916889199144361658)});
  expect(run_output(g, kca, 2), GRAFT_INT32, SCALAR, (const int32_t[]){1});
  graft_op_desc *d = desc(g, "StatelessRandomGetAlg", "alg");
  expect(run(g, fin(d)), GRAFT_INT32, SCALAR, (const int32_t[]){1});
}

/* ---- V1: a seed input ---------------------------------------------------------------------- */

static void test_uniform(void **state) {
  graft_graph *g = *state;
  graft_op *s = seed12(g, "s");
  graft_op *u = stateless(g, "StatelessRandomUniform", "u", OPS(SHAPE(g, "sh7", 7), s), -1);
  assert_output_shape(u, 0, "(7,)");
  expect(run(g, u), GRAFT_FLOAT32, D(7),
         (const float[]){0.844060421f, 0.192045331f, 0.996223211f, 0.160387397f, 0.27199018f, 0.649345994f,
                         0.106944442f});
  expect(run(g, stateless(g, "StatelessRandomUniform", "h", OPS(SHAPE(g, "sh5", 5), s), GRAFT_FLOAT16)),
         GRAFT_FLOAT16, D(5), (const uint16_t[]){0x3858, 0x3388, 0x2bc0, 0x3b26, 0x3098});
  expect(run(g, stateless(g, "StatelessRandomUniform", "b", OPS(SHAPE(g, "sh3", 3), s), GRAFT_BFLOAT16)),
         GRAFT_BFLOAT16, D(3), (const uint16_t[]){16048, 16226, 16120});
  expect(run(g, stateless(g, "StatelessRandomUniform", "d", OPS(SHAPE(g, "sh3d", 3), s), GRAFT_FLOAT64)),
         GRAFT_FLOAT64, D(3), (const double[]){0.7524837538451801, 0.9697857725627486, 0.17592233912897481});
  /* Empty and scalar shapes. */
  graft_op *e = stateless(g, "StatelessRandomUniform", "e", OPS(SHAPE(g, "sh0", 2, 0), s), -1);
  assert_output_shape(e, 0, "(2, 0)");
  expect(run(g, e), GRAFT_FLOAT32, D(2, 0), NULL);
  graft_op *sc = stateless(g, "StatelessRandomUniform", "sc", OPS(konst(g, "none", GRAFT_INT64, D(0), NULL), s), -1);
  expect(run(g, sc), GRAFT_FLOAT32, SCALAR, (const float[]){0.844060421f});
}

static void test_normal(void **state) {
  graft_graph *g = *state;
  graft_op *s = seed12(g, "s");
  expect(run(g, stateless(g, "StatelessRandomNormal", "n", OPS(SHAPE(g, "sh5", 5), s), -1)), GRAFT_FLOAT32, D(5),
         (const float[]){0.544110119f, 0.20738031f, 0.0735643208f, 0.0464345515f, -1.30158985f});
  expect(run(g, stateless(g, "StatelessRandomNormal", "d", OPS(SHAPE(g, "sh3", 3), s), GRAFT_FLOAT64)),
         GRAFT_FLOAT64, D(3), (const double[]){-0.1423118100189212, 0.7406072461585091, -1.469047669443883});
  expect(run(g, stateless(g, "StatelessRandomNormal", "h", OPS(SHAPE(g, "sh5h", 5), s), GRAFT_FLOAT16)),
         GRAFT_FLOAT16, D(5), (const uint16_t[]){0x385a, 0x32a3, 0x2cb5, 0x29f2, 0xbd35});
}

static void test_truncated_normal(void **state) {
  graft_graph *g = *state;
  graft_op *s = seed12(g, "s");
  graft_op *t = stateless(g, "StatelessTruncatedNormal", "t", OPS(SHAPE(g, "sh23", 2, 3), s), -1);
  assert_output_shape(t, 0, "(2, 3)");
  /* -1.30158985 (normal's fifth) is kept; the second group starts at its own reserved block. */
  expect(run(g, t), GRAFT_FLOAT32, D(2, 3),
         (const float[]){0.544110119f, 0.20738031f, 0.0735643208f, 0.0464345515f, 0.168205917f, -1.68503332f});
  expect(run(g, stateless(g, "StatelessTruncatedNormal", "d", OPS(SHAPE(g, "sh5", 5), s), GRAFT_FLOAT64)),
         GRAFT_FLOAT64, D(5),
         (const double[]){-0.1423118100189212, 0.7406072461585091, -0.552387756244845, -0.734450092480207,
                          -0.39842023956588357});
  expect(run(g, stateless(g, "StatelessTruncatedNormal", "b", OPS(SHAPE(g, "sh3", 3), s), GRAFT_BFLOAT16)),
         GRAFT_BFLOAT16, D(3), (const uint16_t[]){16139, 15956, 15767});
}

static void test_uniform_int(void **state) {
  graft_graph *g = *state;
  graft_op *s32 = konst(g, "s32", GRAFT_INT32, D(2), kSeed32);
  graft_op *lo = konst(g, "lo", GRAFT_INT32, SCALAR, (const int32_t[]){-5});
  graft_op *hi = konst(g, "hi", GRAFT_INT32, SCALAR, (const int32_t[]){7});
  expect(run(g, stateless(g, "StatelessRandomUniformInt", "i", OPS(SHAPE(g, "sh7", 7), s32, lo, hi), GRAFT_INT32)),
         GRAFT_INT32, D(7), (const int32_t[]){1, -1, -1, -3, -5, -1, -5});
  graft_op *lo64 = konst(g, "lo64", GRAFT_INT64, SCALAR, (const int64_t[]){-(INT64_C(1) << 40)});
  graft_op *hi64 = konst(g, "hi64", GRAFT_INT64, SCALAR, (const int64_t[]){INT64_C(1) << 41});
  expect(run(g, stateless(g, "StatelessRandomUniformInt", "l", OPS(SHAPE(g, "sh3", 3), seed12(g, "s"), lo64, hi64),
                          GRAFT_INT64)),
         GRAFT_INT64, D(3), (const int64_t[]){INT64_C(1036193106476), INT64_C(-464192043970), INT64_C(1945630855315)});
  /* minval >= maxval: an error unless the output is empty. */
  graft_op *same = stateless(g, "StatelessRandomUniformInt", "same", OPS(SHAPE(g, "sh2", 2), s32, hi, hi), GRAFT_INT32);
  expect_error(g, same, NULL, NULL, GRAFT_EINVAL, "StatelessRandomUniformInt op 'same'", "Need minval < maxval, got 7 >= 7");
  graft_op *empty = stateless(g, "StatelessRandomUniformInt", "empty", OPS(SHAPE(g, "sh0", 0), s32, hi, lo), GRAFT_INT32);
  expect(run(g, empty), GRAFT_INT32, D(0), NULL);
  /* A non-scalar minval, fed so that only the kernel sees it. */
  graft_op *plo = ph(g, "plo", GRAFT_INT32);
  graft_op *vec = stateless(g, "StatelessRandomUniformInt", "vec", OPS(SHAPE(g, "sh1", 1), s32, plo, hi), GRAFT_INT32);
  expect_error(g, vec, plo, i32v(D(1), (const int32_t[]){0}), GRAFT_EINVAL, "StatelessRandomUniformInt op 'vec'",
               "minval must be 0-D, got shape [1]");
}

static void test_full_int(void **state) {
  graft_graph *g = *state;
  graft_op *s = seed12(g, "s");
  expect(run(g, stateless(g, "StatelessRandomUniformFullInt", "u64", OPS(SHAPE(g, "sh3", 3), s), -1)), GRAFT_UINT64,
         D(3),
         (const uint64_t[]){UINT64_C(7464880146280614444), UINT64_C(1591045637757961278),
                            UINT64_C(17389275318164050067)});
  expect(run(g, stateless(g, "StatelessRandomUniformFullInt", "i32", OPS(SHAPE(g, "sh5", 5), s), GRAFT_INT32)),
         GRAFT_INT32, D(5), (const int32_t[]){1105988140, 1738052849, -335576002, 370444179, 10670227});
}

/* ---- V2: key, counter, alg ------------------------------------------------------------------ */

static void test_v2(void **state) {
  graft_graph *g = *state;
  graft_op *kc = op1(g, "StatelessRandomGetKeyCounter", "kc", seed12(g, "s"));
  graft_op_desc *d = desc(g, "StatelessRandomUniformV2", "u");
  in(d, SHAPE(g, "sh5", 5));
  GT_OK(graft_op_desc_add_input(d, (graft_output){kc, 0}));
  GT_OK(graft_op_desc_add_input(d, (graft_output){kc, 1}));
  in(d, konst(g, "philox", GRAFT_INT32, SCALAR, (const int32_t[]){1}));
  graft_op *u = fin(d);
  assert_output_shape(u, 0, "(5,)");
  /* The seed's key and counter give the V1 op's values. */
  expect(run(g, u), GRAFT_FLOAT32, D(5),
         (const float[]){0.844060421f, 0.192045331f, 0.996223211f, 0.160387397f, 0.27199018f});

  graft_op *key = konst(g, "key", GRAFT_UINT64, D(1), (const uint64_t[]){UINT64_C(10413732777507651514)});
  graft_op *ctr = konst(g, "ctr", GRAFT_UINT64, D(2), (const uint64_t[]){0, UINT64_C(17830669156045600267)});
  graft_op *max = konst(g, "max", GRAFT_UINT64, D(2), (const uint64_t[]){UINT64_MAX, UINT64_MAX});
  graft_op *alg1 = konst(g, "alg1", GRAFT_INT32, SCALAR, (const int32_t[]){1});
  graft_op *auto3 = konst(g, "auto", GRAFT_INT32, SCALAR, (const int32_t[]){3});
  /* A counter at its maximum wraps to zero after its first block. */
  expect(run(g, stateless(g, "StatelessRandomUniformV2", "wrap", OPS(SHAPE(g, "sh5w", 5), key, max, auto3), -1)),
         GRAFT_FLOAT32, D(5), (const float[]){0.641504884f, 0.303860426f, 0.988774419f, 0.884695411f, 0.38472724f});
  expect(run(g, stateless(g, "StatelessRandomNormalV2", "n", OPS(SHAPE(g, "sh3", 3), key, ctr, alg1), -1)),
         GRAFT_FLOAT32, D(3), (const float[]){0.544110119f, 0.20738031f, 0.0735643208f});
  expect(run(g, stateless(g, "StatelessTruncatedNormalV2", "t", OPS(SHAPE(g, "sh3t", 3), key, ctr, alg1),
                          GRAFT_FLOAT64)),
         GRAFT_FLOAT64, D(3), (const double[]){-0.1423118100189212, 0.7406072461585091, -0.552387756244845});
  graft_op *lo = konst(g, "lo", GRAFT_INT32, SCALAR, (const int32_t[]){0});
  graft_op *hi = konst(g, "hi", GRAFT_INT32, SCALAR, (const int32_t[]){10});
  expect(run(g, stateless(g, "StatelessRandomUniformIntV2", "i", OPS(SHAPE(g, "sh5i", 5), key, ctr, alg1, lo, hi),
                          GRAFT_INT32)),
         GRAFT_INT32, D(5), (const int32_t[]){0, 9, 4, 9, 7});
  expect(run(g, stateless(g, "StatelessRandomUniformFullIntV2", "f", OPS(SHAPE(g, "sh5f", 5), key, ctr, alg1),
                          GRAFT_UINT32)),
         GRAFT_UINT32, D(5), (const uint32_t[]){1105988140u, 1738052849u, 3959391294u, 370444179u, 10670227u});
}

/* ---- Errors --------------------------------------------------------------------------------- */

static void test_errors(void **state) {
  graft_graph *g = *state;
  graft_op *sh = SHAPE(g, "sh", 3);
  /* A seed that is not [2]: at graph building when its shape is known, else at run time. */
  graft_op *bad_seed = konst(g, "bad_seed", GRAFT_INT64, D(3), (const int64_t[]){1, 2, 3});
  graft_op_desc *d = desc(g, "StatelessRandomUniform", "known");
  in(d, sh);
  in(d, bad_seed);
  graft_op *op = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&op, d), "StatelessRandomUniform", "seed must have shape [2], not [3]");
  graft_op *pseed = ph(g, "pseed", GRAFT_INT64);
  graft_op *u = stateless(g, "StatelessRandomUniform", "fed", OPS(sh, pseed), -1);
  expect_error(g, u, pseed, tensor(GRAFT_INT64, D(1), (const int64_t[]){1}), GRAFT_EINVAL,
               "StatelessRandomUniform op 'fed'", "seed must have shape [2], not [1]");
  /* A negative dimension. */
  graft_op *pshape = ph(g, "pshape", GRAFT_INT32);
  graft_op *neg = stateless(g, "StatelessRandomNormal", "neg", OPS(pshape, seed12(g, "s")), -1);
  expect_error(g, neg, pshape, i32v(D(2), (const int32_t[]){-1, 2}), GRAFT_EINVAL, "StatelessRandomNormal op 'neg'",
               "Dimension -1 must be >= 0");

  /* V2: the key, the counter and the algorithm. */
  graft_op *key = konst(g, "key", GRAFT_UINT64, D(1), (const uint64_t[]){1});
  graft_op *ctr = konst(g, "ctr", GRAFT_UINT64, D(2), (const uint64_t[]){0, 0});
  graft_op *palg = ph(g, "palg", GRAFT_INT32);
  graft_op *v2 = stateless(g, "StatelessRandomUniformV2", "v2", OPS(sh, key, ctr, palg), -1);
  expect_error(g, v2, palg, i32v(SCALAR, (const int32_t[]){2}), GRAFT_EINVAL, "StatelessRandomUniformV2 op 'v2'",
               "Unsupported algorithm id: 2 (ThreeFry)");
  expect_error(g, v2, palg, i32v(SCALAR, (const int32_t[]){0}), GRAFT_EINVAL, "StatelessRandomUniformV2 op 'v2'",
               "Unsupported algorithm id: 0");
  expect_error(g, v2, palg, i32v(D(1), (const int32_t[]){1}), GRAFT_EINVAL, "StatelessRandomUniformV2 op 'v2'",
               "alg must have shape [], not [1]");
  graft_op *alg = konst(g, "alg", GRAFT_INT32, SCALAR, (const int32_t[]){1});
  graft_op *pkey = ph(g, "pkey", GRAFT_UINT64);
  graft_op *kv2 = stateless(g, "StatelessRandomNormalV2", "kv2", OPS(sh, pkey, ctr, alg), -1);
  expect_error(g, kv2, pkey, tensor(GRAFT_UINT64, D(2), (const uint64_t[]){1, 2}), GRAFT_EINVAL,
               "StatelessRandomNormalV2 op 'kv2'", "key must have shape [1], not [2]");
  graft_op *pctr = ph(g, "pctr", GRAFT_UINT64);
  graft_op *cv2 = stateless(g, "StatelessTruncatedNormalV2", "cv2", OPS(sh, key, pctr, alg), -1);
  expect_error(g, cv2, pctr, tensor(GRAFT_UINT64, D(1), (const uint64_t[]){1}), GRAFT_EINVAL,
               "StatelessTruncatedNormalV2 op 'cv2'", "counter must be a vector with length at least 2");
  /* minval >= maxval in V2. */
  graft_op *lo = konst(g, "lo", GRAFT_INT64, SCALAR, (const int64_t[]){5});
  graft_op *hi = konst(g, "hi", GRAFT_INT64, SCALAR, (const int64_t[]){-5});
  graft_op *iv2 = stateless(g, "StatelessRandomUniformIntV2", "iv2", OPS(sh, key, ctr, alg, lo, hi), GRAFT_INT64);
  expect_error(g, iv2, NULL, NULL, GRAFT_EINVAL, "StatelessRandomUniformIntV2 op 'iv2'",
               "Need minval < maxval, got 5 >= -5");
  /* Float dtypes only for the float ops. */
  d = desc(g, "StatelessRandomUniformV2", "int_dtype");
  in(d, sh);
  in(d, key);
  in(d, ctr);
  in(d, alg);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_INT32));
  GT_ERR(GRAFT_EDTYPE, graft_op_desc_finish(&op, d), "dtype");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_key_counter, setup, teardown),
      cmocka_unit_test_setup_teardown(test_uniform, setup, teardown),
      cmocka_unit_test_setup_teardown(test_normal, setup, teardown),
      cmocka_unit_test_setup_teardown(test_truncated_normal, setup, teardown),
      cmocka_unit_test_setup_teardown(test_uniform_int, setup, teardown),
      cmocka_unit_test_setup_teardown(test_full_int, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v2, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
  };
  return cmocka_run_group_tests_name("kernels_random", tests, NULL, NULL);
}
