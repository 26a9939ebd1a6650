/* Kernels across dtypes: float16 and bfloat16 computed in float32 and rounded to nearest even
 * (elementwise ops with broadcasting, MatMul, Conv2D, Sum, Cast with its rounding, overflow,
 * subnormal, NaN and Truncate cases), wrapping arithmetic on the narrow and unsigned integer
 * types, AddN, complex arithmetic and MatMul, and graph construction refusing a dtype no kernel
 * takes. 16-bit expected values are bit patterns computed with NumPy (float16) and ml_dtypes
 * (bfloat16) from the float32 results; the others are worked out by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

/* ---- float16 ---------------------------------------------------------------------------------- */

/* A = [[1.5, -2.25, 65504], [6e-8 (the smallest subnormal), 0.1, 1000]], B = [0.1, 3, 100]. */
static const uint16_t A16[] = {0x3e00, 0xc080, 0x7bff, 0x0001, 0x2e66, 0x63d0};
static const uint16_t B16[] = {0x2e66, 0x4200, 0x5640};

static void test_float16_elementwise(void **state) {
  graft_graph *g = *state;
  graft_op *a = konst(g, "a", GRAFT_FLOAT16, D(2, 3), A16);
  graft_op *b = konst(g, "b", GRAFT_FLOAT16, D(3), B16); /* broadcast over rows */
  /* 65504 + 100 overflows to infinity; 6e-8 + 0.1 rounds to 0.1. */
  expect(run(g, make_binary(g, "AddV2", "add", a, b)), GRAFT_FLOAT16, D(2, 3),
         (const uint16_t[]){0x3e66, 0x3a00, 0x7c00, 0x2e66, 0x4233, 0x644c});
  expect(run(g, make_binary(g, "Sub", "sub", a, b)), GRAFT_FLOAT16, D(2, 3),
         (const uint16_t[]){0x3d9a, 0xc540, 0x7bfc, 0xae66, 0xc1cd, 0x6308});
  /* 6e-8 * 0.1 underflows to zero. */
  expect(run(g, make_binary(g, "Mul", "mul", a, b)), GRAFT_FLOAT16, D(2, 3),
         (const uint16_t[]){0x30cc, 0xc6c0, 0x7c00, 0x0000, 0x34cc, 0x7c00});
  expect(run(g, make_binary(g, "RealDiv", "div", a, b)), GRAFT_FLOAT16, D(2, 3),
         (const uint16_t[]){0x4b80, 0xba00, 0x611e, 0x000a, 0x2844, 0x4900});
  expect(run(g, make_binary(g, "Maximum", "max", a, b)), GRAFT_FLOAT16, D(2, 3),
         (const uint16_t[]){0x3e00, 0x4200, 0x7bff, 0x2e66, 0x4200, 0x63d0});
  expect(run(g, op1(g, "Relu", "relu", a)), GRAFT_FLOAT16, D(2, 3),
         (const uint16_t[]){0x3e00, 0x0000, 0x7bff, 0x0001, 0x2e66, 0x63d0});
  expect(run(g, op1(g, "Neg", "neg", a)), GRAFT_FLOAT16, D(2, 3),
         (const uint16_t[]){0xbe00, 0x4080, 0xfbff, 0x8001, 0xae66, 0xe3d0});
  expect(run(g, op1(g, "Square", "square", a)), GRAFT_FLOAT16, D(2, 3),
         (const uint16_t[]){0x4080, 0x4510, 0x7c00, 0x0000, 0x211e, 0x7c00});
  /* Comparisons give bool; an empty tensor stays empty. */
  expect(run(g, make_binary(g, "Greater", "gt", a, b)), GRAFT_BOOL, D(2, 3), (const uint8_t[]){1, 0, 1, 0, 0, 1});
  graft_op *e = konst(g, "e", GRAFT_FLOAT16, D(0, 3), NULL);
  expect(run(g, make_binary(g, "AddV2", "eadd", e, b)), GRAFT_FLOAT16, D(0, 3), NULL);
}

static graft_op *matmul(graft_graph *g, const char *name, graft_op *a, graft_op *b, int ta, int tb) {
  graft_op_desc *d = desc(g, "MatMul", name);
  in(d, a);
  in(d, b);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "transpose_a", ta));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "transpose_b", tb));
  return fin(d);
}

static void test_float16_matmul_conv_sum(void **state) {
  graft_graph *g = *state;
  /* [[1, 2, 3], [4, 5, 6]] @ [[0.5, -1], [2, 0.25], [-3, 8]] = [[-4.5, 23.5], [-6, 53]]. */
  graft_op *m1 = konst(g, "m1", GRAFT_FLOAT16, D(2, 3), (const uint16_t[]){0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600});
  graft_op *m2 = konst(g, "m2", GRAFT_FLOAT16, D(3, 2), (const uint16_t[]){0x3800, 0xbc00, 0x4000, 0x3400, 0xc200, 0x4800});
  expect(run(g, matmul(g, "mm", m1, m2, 0, 0)), GRAFT_FLOAT16, D(2, 2), (const uint16_t[]){0xc480, 0x4de0, 0xc600, 0x51a8});

  /* Conv2D, VALID, of 1..9 (1x3x3x1) with [[1, 0], [0, 1]]: [6, 8, 12, 14]. */
  graft_op *x = konst(g, "x", GRAFT_FLOAT16, D(1, 3, 3, 1),
                      (const uint16_t[]){0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700, 0x4800, 0x4880});
  graft_op *f = konst(g, "f", GRAFT_FLOAT16, D(2, 2, 1, 1), (const uint16_t[]){0x3c00, 0x0000, 0x0000, 0x3c00});
  graft_op_desc *d = desc(g, "Conv2D", "conv");
  in(d, x);
  in(d, f);
  GT_OK(graft_attrs_set_int_list(graft_op_desc_attrs(d), "strides", (const int64_t[]){1, 1, 1, 1}, 4));
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "padding", "VALID", 5));
  expect(run(g, fin(d)), GRAFT_FLOAT16, D(1, 2, 2, 1), (const uint16_t[]){0x4600, 0x4800, 0x4a00, 0x4b00});

  /* Sum of [60000, 60000, 1]: 120001 is past float16's range. */
  graft_op *s = konst(g, "s", GRAFT_FLOAT16, D(3), (const uint16_t[]){0x7b53, 0x7b53, 0x3c00});
  graft_op *axis = konst(g, "axis", GRAFT_INT32, SCALAR, (const int32_t[]){0});
  expect(run(g, make_binary(g, "Sum", "sum", s, axis)), GRAFT_FLOAT16, SCALAR, (const uint16_t[]){0x7c00});
  graft_op *s2 = konst(g, "s2", GRAFT_FLOAT16, D(2), (const uint16_t[]){0x3e00, 0x4000}); /* 1.5 + 2 */
  expect(run(g, make_binary(g, "Sum", "sum2", s2, axis)), GRAFT_FLOAT16, SCALAR, (const uint16_t[]){0x4300});
}

/* ---- bfloat16 --------------------------------------------------------------------------------- */

static void test_bfloat16(void **state) {
  graft_graph *g = *state;
  /* X = [1, 3.14159, -2.5, 1e30], Y = [0.001, 2, 0.5, 1e30]: 1e30 * 1e30 overflows. */
  graft_op *x = konst(g, "x", GRAFT_BFLOAT16, D(4), (const uint16_t[]){0x3f80, 0x4049, 0xc020, 0x714a});
  graft_op *y = konst(g, "y", GRAFT_BFLOAT16, D(4), (const uint16_t[]){0x3a83, 0x4000, 0x3f00, 0x714a});
  expect(run(g, make_binary(g, "AddV2", "add", x, y)), GRAFT_BFLOAT16, D(4),
         (const uint16_t[]){0x3f80, 0x40a4, 0xc000, 0x71ca});
  expect(run(g, make_binary(g, "Mul", "mul", x, y)), GRAFT_BFLOAT16, D(4),
         (const uint16_t[]){0x3a83, 0x40c9, 0xbfa0, 0x7f80});
  /* [[1, 2], [3, 4]]^T @ [[1, 0], [0, 2]] = [[1, 6], [2, 8]]. */
  graft_op *p = konst(g, "p", GRAFT_BFLOAT16, D(2, 2), (const uint16_t[]){0x3f80, 0x4000, 0x4040, 0x4080});
  graft_op *q = konst(g, "q", GRAFT_BFLOAT16, D(2, 2), (const uint16_t[]){0x3f80, 0x0000, 0x0000, 0x4000});
  expect(run(g, matmul(g, "mm", p, q, 1, 0)), GRAFT_BFLOAT16, D(2, 2), (const uint16_t[]){0x3f80, 0x40c0, 0x4000, 0x4100});
}

/* ---- Cast ------------------------------------------------------------------------------------- */

static graft_op *cast(graft_graph *g, const char *name, graft_op *x, graft_dtype to, int truncate) {
  graft_op_desc *d = desc(g, "Cast", name);
  in(d, x);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "DstT", to));
  if (truncate) GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "Truncate", 1));
  return fin(d);
}

static void test_cast_16_bit_floats(void **state) {
  graft_graph *g = *state;
  /* 65519 rounds down to the largest float16, 65520 up to infinity; 1e-8 is below half the
   * smallest subnormal; 2049 and 2051 are ties (to even: 2048, 2052); 3e-5 is subnormal. */
  const float c[] = {1.0f, 65519.0f, 65520.0f, 1e-8f, 2049.0f, 2051.0f, -0.0f, 0.1f, NAN, -INFINITY, 3e-5f};
  graft_op *cf = konst(g, "cf", GRAFT_FLOAT32, D(11), c);
  expect(run(g, cast(g, "to16", cf, GRAFT_FLOAT16, 0)), GRAFT_FLOAT16, D(11),
         (const uint16_t[]){0x3c00, 0x7bff, 0x7c00, 0x0000, 0x6800, 0x6802, 0x8000, 0x2e66, 0x7e00, 0xfc00, 0x01f7});
  expect(run(g, cast(g, "tobf", cf, GRAFT_BFLOAT16, 0)), GRAFT_BFLOAT16, D(11),
         (const uint16_t[]){0x3f80, 0x4780, 0x4780, 0x322c, 0x4500, 0x4500, 0x8000, 0x3dcd, 0x7fc0, 0xff80, 0x37fc});
  /* Truncate keeps bfloat16's high bits: 1 + 2^-8 + 2^-9 rounds up to 0x3f81, truncates to 0x3f80. */
  graft_op *t = konst(g, "t", GRAFT_FLOAT32, D(2), (const float[]){3.14159f, 1.005859375f});
  expect(run(g, cast(g, "round", t, GRAFT_BFLOAT16, 0)), GRAFT_BFLOAT16, D(2), (const uint16_t[]){0x4049, 0x3f81});
  expect(run(g, cast(g, "trunc", t, GRAFT_BFLOAT16, 1)), GRAFT_BFLOAT16, D(2), (const uint16_t[]){0x4049, 0x3f80});
  /* And for float16: 1 + 2^-11 + 2^-12 rounds up to 0x3c01; truncated (the float's low 13 bits
   * cleared first, as TensorFlow does) it is 1.0. */
  graft_op *t16 = konst(g, "t16", GRAFT_FLOAT32, D(2), (const float[]){1.000732421875f, -65519.0f});
  expect(run(g, cast(g, "round16", t16, GRAFT_FLOAT16, 0)), GRAFT_FLOAT16, D(2), (const uint16_t[]){0x3c01, 0xfbff});
  expect(run(g, cast(g, "trunc16", t16, GRAFT_FLOAT16, 1)), GRAFT_FLOAT16, D(2), (const uint16_t[]){0x3c00, 0xfbff});
  /* Integers go through float32: 2049 is a tie (2048), 100000 overflows. */
  graft_op *i = konst(g, "i", GRAFT_INT32, D(4), (const int32_t[]){2049, 100000, -7, 0});
  expect(run(g, cast(g, "i16", i, GRAFT_FLOAT16, 0)), GRAFT_FLOAT16, D(4), (const uint16_t[]){0x6800, 0x7c00, 0xc700, 0x0000});
  /* From float16: to int32 truncates toward zero; to float64 is exact; to bool is != 0. */
  graft_op *h = konst(g, "h", GRAFT_FLOAT16, D(4), (const uint16_t[]){0x3e00, 0xc100, 0x7bff, 0x8000});
  expect(run(g, cast(g, "h32", h, GRAFT_INT32, 0)), GRAFT_INT32, D(4), (const int32_t[]){1, -2, 65504, 0});
  expect(run(g, cast(g, "h64", h, GRAFT_FLOAT64, 0)), GRAFT_FLOAT64, D(4), (const double[]){1.5, -2.5, 65504.0, -0.0});
  expect(run(g, cast(g, "hb", h, GRAFT_BOOL, 0)), GRAFT_BOOL, D(4), (const uint8_t[]){1, 1, 1, 0});
  expect(run(g, cast(g, "hh", h, GRAFT_FLOAT16, 0)), GRAFT_FLOAT16, D(4), (const uint16_t[]){0x3e00, 0xc100, 0x7bff, 0x8000});
  /* float16 -> bfloat16: 65504 needs rounding (0x4780 = 65536). */
  expect(run(g, cast(g, "hbf", h, GRAFT_BFLOAT16, 0)), GRAFT_BFLOAT16, D(4), (const uint16_t[]){0x3fc0, 0xc020, 0x4780, 0x8000});
}

/* ---- narrow and unsigned integers ------------------------------------------------------------- */

static void test_integer_arithmetic_wraps(void **state) {
  graft_graph *g = *state;
  graft_op *u8a = konst(g, "u8a", GRAFT_UINT8, D(3), (const uint8_t[]){250, 3, 0});
  graft_op *u8b = konst(g, "u8b", GRAFT_UINT8, D(3), (const uint8_t[]){10, 5, 255});
  expect(run(g, make_binary(g, "AddV2", "u8add", u8a, u8b)), GRAFT_UINT8, D(3), (const uint8_t[]){4, 8, 255});
  expect(run(g, make_binary(g, "Sub", "u8sub", u8a, u8b)), GRAFT_UINT8, D(3), (const uint8_t[]){240, 254, 1});
  expect(run(g, make_binary(g, "Mul", "u8mul", u8a, u8b)), GRAFT_UINT8, D(3), (const uint8_t[]){196, 15, 0});
  expect(run(g, make_binary(g, "Maximum", "u8max", u8a, u8b)), GRAFT_UINT8, D(3), (const uint8_t[]){250, 5, 255});
  graft_op *i8 = konst(g, "i8", GRAFT_INT8, D(3), (const int8_t[]){127, -128, -5});
  graft_op *one8 = konst(g, "one8", GRAFT_INT8, SCALAR, (const int8_t[]){1});
  expect(run(g, make_binary(g, "AddV2", "i8add", i8, one8)), GRAFT_INT8, D(3), (const int8_t[]){-128, -127, -4});
  expect(run(g, op1(g, "Neg", "i8neg", i8)), GRAFT_INT8, D(3), (const int8_t[]){-127, -128, 5});
  expect(run(g, op1(g, "Abs", "i8abs", i8)), GRAFT_INT8, D(3), (const int8_t[]){127, -128, 5});
  expect(run(g, op1(g, "Relu", "i8relu", i8)), GRAFT_INT8, D(3), (const int8_t[]){127, 0, 0});
  /* 65535 * 65535 = 1 (mod 2^16); in int it would overflow. 300 * 300 = 90000 = 24464 (mod 2^16). */
  graft_op *u16 = konst(g, "u16", GRAFT_UINT16, D(2), (const uint16_t[]){65535, 300});
  expect(run(g, op1(g, "Square", "u16sq", u16)), GRAFT_UINT16, D(2), (const uint16_t[]){1, 24464});
  graft_op *i16 = konst(g, "i16", GRAFT_INT16, D(2), (const int16_t[]){300, -300});
  expect(run(g, make_binary(g, "Mul", "i16mul", i16, i16)), GRAFT_INT16, D(2), (const int16_t[]){24464, 24464});
  graft_op *u32 = konst(g, "u32", GRAFT_UINT32, D(2), (const uint32_t[]){4000000000u, 1u});
  graft_op *u32b = konst(g, "u32b", GRAFT_UINT32, D(2), (const uint32_t[]){1000000000u, 2u});
  expect(run(g, make_binary(g, "AddV2", "u32add", u32, u32b)), GRAFT_UINT32, D(2), (const uint32_t[]){705032704u, 3u});
  expect(run(g, make_binary(g, "Minimum", "u32min", u32, u32b)), GRAFT_UINT32, D(2), (const uint32_t[]){1000000000u, 1u});
  graft_op *u64 = konst(g, "u64", GRAFT_UINT64, D(2), (const uint64_t[]){UINT64_MAX, 7});
  graft_op *u64b = konst(g, "u64b", GRAFT_UINT64, SCALAR, (const uint64_t[]){1});
  expect(run(g, make_binary(g, "AddV2", "u64add", u64, u64b)), GRAFT_UINT64, D(2), (const uint64_t[]){0, 8});
  expect(run(g, make_binary(g, "Greater", "u64gt", u64, u64b)), GRAFT_BOOL, D(2), (const uint8_t[]){1, 1});
  /* int32 overflow wraps too (no undefined behaviour under UBSan). */
  graft_op *i32 = konst(g, "i32", GRAFT_INT32, D(2), (const int32_t[]){INT32_MAX, INT32_MIN});
  expect(run(g, make_binary(g, "Add", "i32add", i32, i32)), GRAFT_INT32, D(2), (const int32_t[]){-2, 0});
  expect(run(g, op1(g, "Neg", "i32neg", i32)), GRAFT_INT32, D(2), (const int32_t[]){-INT32_MAX, INT32_MIN});
}

/* Neg flips the sign of zeros and Abs clears it, as TensorFlow's; integer MatMul wraps. */
static void test_signed_zeros_and_integer_matmul(void **state) {
  graft_graph *g = *state;
  graft_op *z = konst(g, "z", GRAFT_FLOAT32, D(2), (const float[]){0.0f, -0.0f});
  expect(run(g, op1(g, "Neg", "neg", z)), GRAFT_FLOAT32, D(2), (const float[]){-0.0f, 0.0f});
  expect(run(g, op1(g, "Abs", "abs", z)), GRAFT_FLOAT32, D(2), (const float[]){0.0f, 0.0f});
  graft_op *zd = konst(g, "zd", GRAFT_FLOAT64, D(1), (const double[]){-0.0});
  expect(run(g, op1(g, "Neg", "negd", zd)), GRAFT_FLOAT64, D(1), (const double[]){0.0});
  /* [[INT32_MAX, 1]] @ [[2], [3]]: 2 * INT32_MAX wraps to -2, plus 3. */
  graft_op *a = konst(g, "a", GRAFT_INT32, D(1, 2), (const int32_t[]){INT32_MAX, 1});
  graft_op *b = konst(g, "b", GRAFT_INT32, D(2, 1), (const int32_t[]){2, 3});
  expect(run(g, matmul(g, "mm", a, b, 0, 0)), GRAFT_INT32, D(1, 1), (const int32_t[]){1});
}

/* AddN: the sum of a list of same-shape tensors, in every arithmetic dtype. */
static graft_op *add_n(graft_graph *g, const char *name, graft_op *const *ops, int n) {
  graft_output ins[8];
  for (int i = 0; i < n; ++i) ins[i] = (graft_output){ops[i], 0};
  graft_op_desc *d = desc(g, "AddN", name);
  GT_OK(graft_op_desc_add_input_list(d, ins, n));
  return fin(d);
}

static void test_add_n(void **state) {
  graft_graph *g = *state;
  graft_op *a = konst(g, "a", GRAFT_FLOAT32, D(2), (const float[]){1, 2});
  graft_op *b = konst(g, "b", GRAFT_FLOAT32, D(2), (const float[]){10, 20});
  expect(run(g, add_n(g, "sum3", (graft_op *[]){a, b, a}, 3)), GRAFT_FLOAT32, D(2), (const float[]){12, 24});
  expect(run(g, add_n(g, "sum1", (graft_op *[]){b}, 1)), GRAFT_FLOAT32, D(2), (const float[]){10, 20});
  graft_op *i8 = konst(g, "i8", GRAFT_INT8, D(2), (const int8_t[]){100, -100});
  expect(run(g, add_n(g, "wrap", (graft_op *[]){i8, i8}, 2)), GRAFT_INT8, D(2), (const int8_t[]){-56, 56});
  graft_op *h = konst(g, "h", GRAFT_FLOAT16, D(1), (const uint16_t[]){0x3e00}); /* 1.5 */
  expect(run(g, add_n(g, "half", (graft_op *[]){h, h, h}, 3)), GRAFT_FLOAT16, D(1), (const uint16_t[]){0x4480}); /* 4.5 */
  /* Shapes known to differ are refused when the op is made; known only at run time, then. */
  graft_op *c = konst(g, "c", GRAFT_FLOAT32, D(3), (const float[]){1, 2, 3});
  graft_op_desc *d = desc(g, "AddN", "bad");
  GT_OK(graft_op_desc_add_input_list(d, (graft_output[]){{a, 0}, {c, 0}}, 2));
  graft_op *out = NULL;
  GT_ERR(GRAFT_ESHAPE, graft_op_desc_finish(&out, d), "AddN op 'bad'");
  graft_op *p = ph(g, "p", GRAFT_FLOAT32);
  graft_op *late = add_n(g, "late", (graft_op *[]){a, p}, 2);
  expect_error(g, late, p, tensor(GRAFT_FLOAT32, D(3), (const float[]){1, 2, 3}), GRAFT_EINVAL, "AddN op 'late'",
               "same shape");
}

/* ---- complex ---------------------------------------------------------------------------------- */

static void test_complex(void **state) {
  graft_graph *g = *state;
  /* a = [1+2i, 3-i], b = [2-i, 0.5+0.5i]. */
  graft_op *a = konst(g, "a", GRAFT_COMPLEX64, D(2), (const float[]){1, 2, 3, -1});
  graft_op *b = konst(g, "b", GRAFT_COMPLEX64, D(2), (const float[]){2, -1, 0.5f, 0.5f});
  expect(run(g, make_binary(g, "AddV2", "add", a, b)), GRAFT_COMPLEX64, D(2), (const float[]){3, 1, 3.5f, -0.5f});
  expect(run(g, make_binary(g, "Mul", "mul", a, b)), GRAFT_COMPLEX64, D(2), (const float[]){4, 3, 2, 1});
  expect(run(g, make_binary(g, "RealDiv", "div", a, b)), GRAFT_COMPLEX64, D(2), (const float[]){0, 1, 2, -4});
  expect(run(g, op1(g, "Neg", "neg", a)), GRAFT_COMPLEX64, D(2), (const float[]){-1, -2, -3, 1});
  expect(run(g, op1(g, "Square", "sq", a)), GRAFT_COMPLEX64, D(2), (const float[]){-3, 4, 8, -6});
  /* exp(i pi/2) = i, exp(1) = e. */
  graft_op *z = konst(g, "z", GRAFT_COMPLEX128, D(2), (const double[]){0, M_PI / 2, 1, 0});
  graft_tensor *ez = run(g, op1(g, "Exp", "exp", z));
  assert_int_equal(graft_tensor_dtype(ez), GRAFT_COMPLEX128);
  const double *pe = graft_tensor_data(ez);
  assert_true(fabs(pe[0]) < 1e-15 && fabs(pe[1] - 1) < 1e-15 && fabs(pe[2] - M_E) < 1e-15 && pe[3] == 0);
  graft_tensor_free(ez);
  /* MatMul transposes without conjugating: [[1+i, 2], [0, i]]^T @ [[1, i], [2-i, 0]]
   * = [[1+i, -1+i], [3+2i, 2i]]. */
  graft_op *m = konst(g, "m", GRAFT_COMPLEX64, D(2, 2), (const float[]){1, 1, 2, 0, 0, 0, 0, 1});
  graft_op *n = konst(g, "n", GRAFT_COMPLEX64, D(2, 2), (const float[]){1, 0, 0, 1, 2, -1, 0, 0});
  expect(run(g, matmul(g, "mm", m, n, 1, 0)), GRAFT_COMPLEX64, D(2, 2), (const float[]){1, 1, -1, 1, 3, 2, 0, 2});
  graft_op *m128 = konst(g, "m128", GRAFT_COMPLEX128, D(1, 2), (const double[]){1, 1, 2, 0});
  graft_op *n128 = konst(g, "n128", GRAFT_COMPLEX128, D(2, 1), (const double[]){0, 1, 3, -1});
  expect(run(g, matmul(g, "mm128", m128, n128, 0, 0)), GRAFT_COMPLEX128, D(1, 1), (const double[]){5, -1});
}

/* ---- construction refuses dtypes no kernel takes ---------------------------------------------- */

static void test_unsupported_dtype_refused_at_construction(void **state) {
  graft_graph *g = *state;
  graft_op *s = strings(g, "s", D(1), (const char *const[]){"a"});
  const int64_t before = graft_graph_num_ops(g);
  /* TensorFlow's Add admits strings; Graft's kernels do not. */
  graft_op_desc *d = desc(g, "Add", "sadd");
  in(d, s);
  in(d, s);
  graft_op *out = NULL;
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&out, d), "Add op 'sadd'", "T=string");
  assert_null(out);
  assert_int_equal(graft_graph_num_ops(g), before); /* nothing was added */
  graft_op *missing = NULL;
  assert_int_equal(graft_graph_op_by_name(&missing, g, "sadd"), GRAFT_ENOTFOUND);
  /* A random op asked for float16. */
  graft_op *shape = konst(g, "shape", GRAFT_INT32, D(1), (const int32_t[]){2});
  d = desc(g, "RandomUniform", "ru");
  in(d, shape);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT16));
  GT_ERR(GRAFT_EINVAL, graft_op_desc_finish(&out, d), "RandomUniform op 'ru'", "dtype=float16");
  /* The name is still free, and the same op with a supported dtype builds and runs. */
  d = desc(g, "RandomUniform", "ru");
  in(d, shape);
  GT_OK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  graft_op *ok = fin(d);
  assert_string_equal(graft_op_name(ok), "ru");
  graft_tensor *r = run(g, ok);
  assert_int_equal(graft_tensor_num_elements(r), 2);
  graft_tensor_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_float16_elementwise, setup, teardown),
      cmocka_unit_test_setup_teardown(test_float16_matmul_conv_sum, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bfloat16, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cast_16_bit_floats, setup, teardown),
      cmocka_unit_test_setup_teardown(test_integer_arithmetic_wraps, setup, teardown),
      cmocka_unit_test_setup_teardown(test_signed_zeros_and_integer_matmul, setup, teardown),
      cmocka_unit_test_setup_teardown(test_add_n, setup, teardown),
      cmocka_unit_test_setup_teardown(test_complex, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unsupported_dtype_refused_at_construction, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
