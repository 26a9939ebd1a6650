// Graft's neural-network OpenCL kernels, for each type T (float; double with cl_khr_fp64):
//
// softmax_<t> / log_softmax_<t>: one work group of GRAFT_GROUP items per row of n elements (the
//   last axis): the row's max, then the sum of exp(x - max), each by a strided loop and a tree
//   in local memory; softmax = exp(x - max) / sum, log_softmax = x - max - log(sum).
// bias_add_<t>: out[i] = x[i] + bias[(i / inner) % channels] (NHWC: inner = 1; NCHW: inner =
//   the spatial size).

#define GRAFT_GROUP 64

#define GRAFT_NN(T, S)                                                                                \
  void graft_row_stats_##S(__global const T* x, int n, __local T* scratch, T* mx, T* sum) {         \
    int lid = get_local_id(0);                                                                        \
    T m = (T)(-INFINITY);                                                                             \
    for (int j = lid; j < n; j += GRAFT_GROUP) m = fmax(m, x[j]);                                     \
    scratch[lid] = m;                                                                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
    for (int s = GRAFT_GROUP / 2; s > 0; s >>= 1) {                                                   \
      if (lid < s) scratch[lid] = fmax(scratch[lid], scratch[lid + s]);                               \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
    }                                                                                                 \
    m = scratch[0];                                                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
    T acc = (T)0;                                                                                     \
    for (int j = lid; j < n; j += GRAFT_GROUP) acc += exp(x[j] - m);                                  \
    scratch[lid] = acc;                                                                               \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
    for (int s = GRAFT_GROUP / 2; s > 0; s >>= 1) {                                                   \
      if (lid < s) scratch[lid] += scratch[lid + s];                                                  \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
    }                                                                                                 \
    *mx = m;                                                                                          \
    *sum = scratch[0];                                                                                \
  }                                                                                                   \
  __kernel __attribute__((reqd_work_group_size(GRAFT_GROUP, 1, 1))) void softmax_##S(               \
      __global const T* in, __global T* out, int n) {                                                 \
    __local T scratch[GRAFT_GROUP];                                                                   \
    int row = get_group_id(0), lid = get_local_id(0);                                                 \
    __global const T* x = in + (long)row * n;                                                         \
    __global T* y = out + (long)row * n;                                                              \
    T m, s;                                                                                           \
    graft_row_stats_##S(x, n, scratch, &m, &s);                                                       \
    for (int j = lid; j < n; j += GRAFT_GROUP) y[j] = exp(x[j] - m) / s;                              \
  }                                                                                                   \
  __kernel __attribute__((reqd_work_group_size(GRAFT_GROUP, 1, 1))) void log_softmax_##S(           \
      __global const T* in, __global T* out, int n) {                                                 \
    __local T scratch[GRAFT_GROUP];                                                                   \
    int row = get_group_id(0), lid = get_local_id(0);                                                 \
    __global const T* x = in + (long)row * n;                                                         \
    __global T* y = out + (long)row * n;                                                              \
    T m, s;                                                                                           \
    graft_row_stats_##S(x, n, scratch, &m, &s);                                                       \
    T lse = log(s);                                                                                   \
    for (int j = lid; j < n; j += GRAFT_GROUP) y[j] = x[j] - m - lse;                                 \
  }                                                                                                   \
  __kernel void bias_add_##S(__global const T* x, __global const T* bias, __global T* out, int n,     \
                             int channels, int inner) {                                               \
    int i = get_global_id(0);                                                                         \
    if (i < n) out[i] = x[i] + bias[(i / inner) % channels];                                          \
  }

GRAFT_NN(float, f32)

#ifdef GRAFT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
GRAFT_NN(double, f64)
#endif
