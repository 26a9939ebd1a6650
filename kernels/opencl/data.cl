// Graft's data-movement OpenCL kernels: they only move elements, so each comes once per element
// size (u8, u16, u32, u64) and serves every dtype of that size. Plus Cast between float32,
// float64, int32, int64 and bool, and between float16 and all of those but float64.
//
// strided_copy: out[i] = in[base + sum_d c_d * strides[d]] where (c_0, ..., c_rank-1) are i's
//   coordinates in dims (row-major): Transpose, Slice and StridedSlice (negative strides too).
// concat_copy: one input of ConcatV2, viewed as [outer, inner], into columns
//   [offset, offset + inner) of the output viewed as [outer, out_inner].
// gather_<index type>: GatherV2 viewed as params [batch, outer, axis_size, inner] and indices
//   [batch, k]; an index outside [0, axis_size) gives zeros (as TensorFlow's GPU kernel).
// fill: every element set to value.

typedef struct {
  int rank;
  int dims[8];
  int strides[8];
} graft_view;

#define GRAFT_MOVE(S, E)                                                                              \
  __kernel void strided_copy_##S(__global const E* in, __global E* out, int n, int base, graft_view v) { \
    int i = get_global_id(0);                                                                         \
    if (i >= n) return;                                                                               \
    int rem = i, off = base;                                                                          \
    for (int d = v.rank - 1; d >= 0; --d) {                                                           \
      int c = rem % v.dims[d];                                                                        \
      rem /= v.dims[d];                                                                               \
      off += c * v.strides[d];                                                                        \
    }                                                                                                 \
    out[i] = in[off];                                                                                 \
  }                                                                                                   \
  __kernel void concat_copy_##S(__global const E* in, __global E* out, int n, int inner, int out_inner, \
                                int offset) {                                                         \
    int i = get_global_id(0);                                                                         \
    if (i >= n) return;                                                                               \
    int o = i / inner;                                                                                \
    out[o * out_inner + offset + (i - o * inner)] = in[i];                                            \
  }                                                                                                   \
  __kernel void gather_i32_##S(__global const E* params, __global const int* idx, __global E* out, int n, \
                               int outer, int axis_size, int inner, int k) {                          \
    int i = get_global_id(0);                                                                         \
    if (i >= n) return;                                                                               \
    int in = i % inner, t = i / inner;                                                                \
    int j = t % k;                                                                                    \
    t /= k;                                                                                           \
    int o = t % outer, b = t / outer;                                                                 \
    int x = idx[b * k + j];                                                                           \
    out[i] = (x < 0 || x >= axis_size) ? (E)0 : params[((b * outer + o) * axis_size + x) * inner + in]; \
  }                                                                                                   \
  __kernel void gather_i64_##S(__global const E* params, __global const long* idx, __global E* out, int n, \
                               int outer, int axis_size, int inner, int k) {                          \
    int i = get_global_id(0);                                                                         \
    if (i >= n) return;                                                                               \
    int in = i % inner, t = i / inner;                                                                \
    int j = t % k;                                                                                    \
    t /= k;                                                                                           \
    int o = t % outer, b = t / outer;                                                                 \
    long x = idx[b * k + j];                                                                          \
    out[i] = (x < 0 || x >= axis_size) ? (E)0 : params[((b * outer + o) * axis_size + (int)x) * inner + in]; \
  }                                                                                                   \
  __kernel void fill_##S(__global E* out, int n, E value) {                                           \
    int i = get_global_id(0);                                                                         \
    if (i < n) out[i] = value;                                                                        \
  }

GRAFT_MOVE(u8, uchar)
GRAFT_MOVE(u16, ushort)
GRAFT_MOVE(u32, uint)
GRAFT_MOVE(u64, ulong)

// Cast: floats to integers truncate toward zero, saturating, NaN giving 0 (as Graft's CPU
// kernel); integers wrap; to bool is x != 0.
#define GRAFT_CAST(SN, ST, DN, DT, EXPR)                                                              \
  __kernel void cast_##SN##_##DN(__global const ST* in, __global DT* out, int n) {                    \
    int i = get_global_id(0);                                                                         \
    if (i < n) {                                                                                      \
      ST x = in[i];                                                                                   \
      out[i] = (EXPR);                                                                                \
    }                                                                                                 \
  }

#define GRAFT_CAST_FROM_INT(SN, ST)                                                                   \
  GRAFT_CAST(SN, ST, f32, float, convert_float(x))                                                    \
  GRAFT_CAST(SN, ST, i32, int, (int)x)                                                                \
  GRAFT_CAST(SN, ST, i64, long, (long)x)                                                              \
  GRAFT_CAST(SN, ST, b, uchar, (uchar)(x != 0))

GRAFT_CAST_FROM_INT(i32, int)
GRAFT_CAST_FROM_INT(i64, long)
GRAFT_CAST_FROM_INT(b, uchar)
GRAFT_CAST(f32, float, f32, float, x)
GRAFT_CAST(f32, float, i32, int, convert_int_sat_rtz(x))
GRAFT_CAST(f32, float, i64, long, convert_long_sat_rtz(x))
GRAFT_CAST(f32, float, b, uchar, (uchar)(x != 0.0f))

#ifdef GRAFT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
GRAFT_CAST(i32, int, f64, double, convert_double(x))
GRAFT_CAST(i64, long, f64, double, convert_double(x))
GRAFT_CAST(b, uchar, f64, double, convert_double(x))
GRAFT_CAST(f32, float, f64, double, convert_double(x))
GRAFT_CAST(f64, double, f32, float, convert_float(x))
GRAFT_CAST(f64, double, f64, double, x)
GRAFT_CAST(f64, double, i32, int, convert_int_sat_rtz(x))
GRAFT_CAST(f64, double, i64, long, convert_long_sat_rtz(x))
GRAFT_CAST(f64, double, b, uchar, (uchar)(x != 0.0))
#endif

// float16 <-> float32, int32, int64, bool through vload_half/vstore_half (no cl_khr_fp16
// needed): via float, rounding to nearest even.
#define GRAFT_CAST_FROM_HALF(DN, DT, EXPR)                                                            \
  __kernel void cast_f16_##DN(__global const half* in, __global DT* out, int n) {                     \
    int i = get_global_id(0);                                                                         \
    if (i < n) {                                                                                      \
      float x = vload_half(i, in);                                                                    \
      out[i] = (EXPR);                                                                                \
    }                                                                                                 \
  }
#define GRAFT_CAST_TO_HALF(SN, ST, EXPR)                                                              \
  __kernel void cast_##SN##_f16(__global const ST* in, __global half* out, int n) {                   \
    int i = get_global_id(0);                                                                         \
    if (i < n) {                                                                                      \
      ST x = in[i];                                                                                   \
      vstore_half_rte((EXPR), i, out);                                                                \
    }                                                                                                 \
  }

GRAFT_CAST_FROM_HALF(f32, float, x)
GRAFT_CAST_FROM_HALF(i32, int, convert_int_sat_rtz(x))
GRAFT_CAST_FROM_HALF(i64, long, convert_long_sat_rtz(x))
GRAFT_CAST_FROM_HALF(b, uchar, (uchar)(x != 0.0f))
GRAFT_CAST_TO_HALF(f32, float, x)
GRAFT_CAST_TO_HALF(i32, int, convert_float(x))
GRAFT_CAST_TO_HALF(i64, long, convert_float(x))
GRAFT_CAST_TO_HALF(b, uchar, convert_float(x))

__kernel void cast_f16_f16(__global const ushort* in, __global ushort* out, int n) {
  int i = get_global_id(0);
  if (i < n) out[i] = in[i];
}

// bfloat16 <-> float32 (the 16-bit float ops compute in float32: float16_kernels.cc): widening
// is exact; narrowing rounds to nearest even, NaN staying NaN (as Graft's FloatToBFloat16).
__kernel void widen_bf16_f32(__global const ushort* in, __global float* out, int n) {
  int i = get_global_id(0);
  if (i < n) out[i] = as_float((uint)in[i] << 16);
}
__kernel void narrow_f32_bf16(__global const float* in, __global ushort* out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  uint b = as_uint(in[i]);
  out[i] = (b & 0x7fffffffu) > 0x7f800000u ? (ushort)(((b >> 16) & 0x8000u) | 0x7fc0u)
                                           : (ushort)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
