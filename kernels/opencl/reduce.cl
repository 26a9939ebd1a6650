// Graft's reduction OpenCL kernels (Sum, Mean, Prod, Max, Min; BiasAddGrad uses Sum), for each
// type T (float; double with cl_khr_fp64).
//
// reduce_<op>_<t>: work item i = o * chunks + c folds chunk c (elements [c * chunk_len,
// (c + 1) * chunk_len) of the count reduced ones) of output element o. The input offset of o is
// given by the kept dims' view, that of reduced element r by the reduced dims' view (strides in
// input elements). With chunks == 1 it writes the finished value to out[o] (Mean divides by
// mean_count when finish is set); otherwise the partial to out[i], and a second launch folds
// the partials (kept view [n_out] with stride chunks, reduced view [chunks] with stride 1).
// Max and Min propagate NaN; an empty reduction gives the identity (Mean: NaN).

typedef struct {
  int rank;
  int dims[8];
  int strides[8];
} graft_view;

#define GRAFT_REDUCE(NAME, T, INIT, COMBINE, FINISH)                                                  \
  __kernel void NAME(__global const T* in, __global T* out, int n, int count, int chunks, int chunk_len, \
                     graft_view kept, graft_view red, int finish, int mean_count) {                  \
    int i = get_global_id(0);                                                                         \
    if (i >= n) return;                                                                               \
    int o = i / chunks, c = i - o * chunks;                                                           \
    int base = 0, rem = o;                                                                            \
    for (int d = kept.rank - 1; d >= 0; --d) {                                                        \
      base += (rem % kept.dims[d]) * kept.strides[d];                                                 \
      rem /= kept.dims[d];                                                                            \
    }                                                                                                 \
    int start = c * chunk_len, stop = min(count, start + chunk_len);                                  \
    int idx[8];                                                                                       \
    int off = base;                                                                                   \
    rem = start;                                                                                      \
    for (int d = red.rank - 1; d >= 0; --d) {                                                         \
      idx[d] = rem % red.dims[d];                                                                     \
      rem /= red.dims[d];                                                                             \
      off += idx[d] * red.strides[d];                                                                 \
    }                                                                                                 \
    T acc = (INIT);                                                                                   \
    for (int r = start; r < stop; ++r) {                                                              \
      T b = in[off];                                                                                  \
      T a = acc;                                                                                      \
      acc = (COMBINE);                                                                                \
      for (int d = red.rank - 1; d >= 0; --d) {                                                       \
        off += red.strides[d];                                                                        \
        if (++idx[d] < red.dims[d]) break;                                                            \
        off -= red.strides[d] * red.dims[d];                                                          \
        idx[d] = 0;                                                                                   \
      }                                                                                               \
    }                                                                                                 \
    if (finish) {                                                                                     \
      T a = acc;                                                                                      \
      acc = (FINISH);                                                                                 \
    }                                                                                                 \
    out[i] = acc;                                                                                     \
  }

#define GRAFT_REDUCE_OPS(T, S)                                                                        \
  GRAFT_REDUCE(reduce_sum_##S, T, (T)0, a + b, a)                                                     \
  GRAFT_REDUCE(reduce_mean_##S, T, (T)0, a + b, a / (T)mean_count)                                    \
  GRAFT_REDUCE(reduce_prod_##S, T, (T)1, a * b, a)                                                    \
  GRAFT_REDUCE(reduce_max_##S, T, (T)(-INFINITY), (a > b || isnan(a)) ? a : b, a)                    \
  GRAFT_REDUCE(reduce_min_##S, T, (T)(INFINITY), (a < b || isnan(a)) ? a : b, a)

GRAFT_REDUCE_OPS(float, f32)

#ifdef GRAFT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
GRAFT_REDUCE_OPS(double, f64)
#endif
