// Graft's elementwise OpenCL kernels: for each type T (float; double with cl_khr_fp64; int and
// long for the integer arithmetic), unary ops and binary ops in two forms — <op>_<t>_flat when both inputs have the output's shape (or
// one is a single element), and <op>_<t> with numpy broadcasting through per-dimension
// strides (0 where an input broadcasts).

typedef struct {
  int rank;
  int dims[8];
  int a_strides[8];
  int b_strides[8];
} graft_bshape;

#define GRAFT_UNARY(NAME, T, EXPR)                                                   \
  __kernel void NAME(__global const T* in, __global T* out, int n) {                 \
    int i = get_global_id(0);                                                        \
    if (i < n) {                                                                     \
      T x = in[i];                                                                   \
      out[i] = (EXPR);                                                               \
    }                                                                                \
  }

#define GRAFT_BINARY(NAME, T, EXPR)                                                  \
  __kernel void NAME##_flat(__global const T* a, __global const T* b, __global T* out, int n, int a_step, \
                            int b_step) {                                            \
    int i = get_global_id(0);                                                        \
    if (i < n) {                                                                     \
      T x = a[i * a_step];                                                           \
      T y = b[i * b_step];                                                           \
      out[i] = (EXPR);                                                               \
    }                                                                                \
  }                                                                                  \
  __kernel void NAME(__global const T* a, __global const T* b, __global T* out, int n, graft_bshape s) { \
    int i = get_global_id(0);                                                        \
    if (i >= n) return;                                                              \
    int rem = i, ia = 0, ib = 0;                                                     \
    for (int d = s.rank - 1; d >= 0; --d) {                                          \
      int c = rem % s.dims[d];                                                       \
      rem /= s.dims[d];                                                              \
      ia += c * s.a_strides[d];                                                      \
      ib += c * s.b_strides[d];                                                      \
    }                                                                                \
    T x = a[ia];                                                                     \
    T y = b[ib];                                                                     \
    out[i] = (EXPR);                                                                 \
  }

#define GRAFT_FLOAT_OPS(T, S)                                                        \
  GRAFT_BINARY(add_##S, T, x + y)                                                    \
  GRAFT_BINARY(sub_##S, T, x - y)                                                    \
  GRAFT_BINARY(mul_##S, T, x * y)                                                    \
  GRAFT_BINARY(div_##S, T, x / y)                                                    \
  GRAFT_BINARY(maximum_##S, T, (isnan(x) || isnan(y)) ? (x + y) : fmax(x, y))        \
  GRAFT_BINARY(minimum_##S, T, (isnan(x) || isnan(y)) ? (x + y) : fmin(x, y))        \
  GRAFT_BINARY(pow_##S, T, pow(x, y))                                                \
  GRAFT_BINARY(squared_difference_##S, T, (x - y) * (x - y))                         \
  GRAFT_UNARY(neg_##S, T, -x)                                                        \
  GRAFT_UNARY(abs_##S, T, fabs(x))                                                   \
  GRAFT_UNARY(exp_##S, T, exp(x))                                                    \
  GRAFT_UNARY(log_##S, T, log(x))                                                    \
  GRAFT_UNARY(sqrt_##S, T, sqrt(x))                                                  \
  GRAFT_UNARY(rsqrt_##S, T, rsqrt(x))                                                \
  GRAFT_UNARY(square_##S, T, x * x)                                                  \
  GRAFT_UNARY(sin_##S, T, sin(x))                                                    \
  GRAFT_UNARY(cos_##S, T, cos(x))                                                    \
  GRAFT_UNARY(tanh_##S, T, tanh(x))                                                  \
  GRAFT_UNARY(sigmoid_##S, T, (T)1 / ((T)1 + exp(-x)))                               \
  GRAFT_UNARY(relu_##S, T, isnan(x) ? x : fmax(x, (T)0))                             \
  GRAFT_UNARY(relu6_##S, T, isnan(x) ? x : fmin(fmax(x, (T)0), (T)6))            \
  GRAFT_BINARY(relu_grad_##S, T, y > (T)0 ? x : (T)0)                                \
  GRAFT_BINARY(relu6_grad_##S, T, (y > (T)0 && y < (T)6) ? x : (T)0)                 \
  GRAFT_BINARY(sigmoid_grad_##S, T, y * x * ((T)1 - x))                              \
  GRAFT_BINARY(tanh_grad_##S, T, y * ((T)1 - x * x))

// Integer arithmetic wraps (two's complement) as TensorFlow's: computed in the unsigned type.
#define GRAFT_INT_OPS(T, U, S)                                                       \
  GRAFT_BINARY(add_##S, T, (T)((U)x + (U)y))                                         \
  GRAFT_BINARY(sub_##S, T, (T)((U)x - (U)y))                                         \
  GRAFT_BINARY(mul_##S, T, (T)((U)x * (U)y))                                         \
  GRAFT_BINARY(maximum_##S, T, max(x, y))                                            \
  GRAFT_BINARY(minimum_##S, T, min(x, y))                                            \
  GRAFT_BINARY(squared_difference_##S, T, (T)(((U)x - (U)y) * ((U)x - (U)y)))         \
  GRAFT_UNARY(neg_##S, T, (T)((U)0 - (U)x))                                          \
  GRAFT_UNARY(abs_##S, T, x < 0 ? (T)((U)0 - (U)x) : x)                              \
  GRAFT_UNARY(square_##S, T, (T)((U)x * (U)x))

GRAFT_INT_OPS(int, uint, i32)
GRAFT_INT_OPS(long, ulong, i64)

GRAFT_FLOAT_OPS(float, f32)

#ifdef GRAFT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
GRAFT_FLOAT_OPS(double, f64)
#endif
