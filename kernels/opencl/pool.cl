// Graft's pooling OpenCL kernels (NHWC), for each type T (float; double with cl_khr_fp64). A
// window of output (oy, ox) covers input rows [oy * sh - ph, oy * sh - ph + kh) and columns
// [ox * sw - pw, ox * sw - pw + kw), clipped to the image (padding never counts). Each kernel
// visits cells and windows in the order the CPU's kernels do, so results are the CPU's exactly.
//
// max_pool_<t> / avg_pool_<t>: one work item per output element: the window's maximum (the
//   first cell greater than every earlier one, starting from the type's lowest value: NaN never
//   wins) or mean.
// max_pool_grad_<t>: one work item per input element: the sum of dy over the windows whose
//   first maximum (row-major) is this cell.
// avg_pool_grad_<t>: one work item per input element: the sum of dy / (window's cell count)
//   over the windows that hold this cell.

#define GRAFT_POOL_COORDS                                                                              \
  int ch = i % c, t = i / c;                                                                           \
  int ox = t % ow;                                                                                     \
  t /= ow;                                                                                             \
  int oy = t % oh, b = t / oh;                                                                         \
  int y0 = max(oy * sh - ph, 0), y1 = min(oy * sh - ph + kh, h);                                       \
  int x0 = max(ox * sw - pw, 0), x1 = min(ox * sw - pw + kw, w);

// The windows (oy in [oy0, oy1], ox in [ox0, ox1]) that hold input cell (iy, ix).
#define GRAFT_POOL_WINDOWS_OF_CELL                                                                     \
  int ch = i % c, t = i / c;                                                                           \
  int ix = t % w;                                                                                      \
  t /= w;                                                                                              \
  int iy = t % h, b = t / h;                                                                           \
  int oy0 = iy + ph - kh + 1 <= 0 ? 0 : (iy + ph - kh + 1 + sh - 1) / sh;                              \
  int oy1 = min((iy + ph) / sh, oh - 1);                                                               \
  int ox0 = ix + pw - kw + 1 <= 0 ? 0 : (ix + pw - kw + 1 + sw - 1) / sw;                              \
  int ox1 = min((ix + pw) / sw, ow - 1);

#define GRAFT_POOL_ARGS int n, int h, int w, int c, int oh, int ow, int kh, int kw, int sh, int sw, int ph, int pw

#define GRAFT_POOL(T, S, LOWEST)                                                                       \
  __kernel void max_pool_##S(__global const T* x, __global T* out, GRAFT_POOL_ARGS) {                  \
    int i = get_global_id(0);                                                                          \
    if (i >= n) return;                                                                                \
    GRAFT_POOL_COORDS                                                                                  \
    T m = LOWEST;                                                                                      \
    for (int iy = y0; iy < y1; ++iy)                                                                   \
      for (int ix = x0; ix < x1; ++ix) {                                                               \
        T v = x[((b * h + iy) * w + ix) * c + ch];                                                     \
        if (v > m) m = v;                                                                              \
      }                                                                                                \
    out[i] = m;                                                                                        \
  }                                                                                                    \
  __kernel void avg_pool_##S(__global const T* x, __global T* out, GRAFT_POOL_ARGS) {                  \
    int i = get_global_id(0);                                                                          \
    if (i >= n) return;                                                                                \
    GRAFT_POOL_COORDS                                                                                  \
    T s = (T)0;                                                                                        \
    for (int iy = y0; iy < y1; ++iy)                                                                   \
      for (int ix = x0; ix < x1; ++ix) s += x[((b * h + iy) * w + ix) * c + ch];                       \
    out[i] = s / (T)((y1 - y0) * (x1 - x0));                                                           \
  }                                                                                                    \
  __kernel void max_pool_grad_##S(__global const T* x, __global const T* dy, __global T* dx,           \
                                  GRAFT_POOL_ARGS) {                                                   \
    int i = get_global_id(0);                                                                          \
    if (i >= n) return;                                                                                \
    GRAFT_POOL_WINDOWS_OF_CELL                                                                         \
    T g = (T)0;                                                                                        \
    for (int oy = oy0; oy <= oy1; ++oy) {                                                              \
      int y0 = max(oy * sh - ph, 0), y1 = min(oy * sh - ph + kh, h);                                   \
      for (int ox = ox0; ox <= ox1; ++ox) {                                                            \
        int x0 = max(ox * sw - pw, 0), x1 = min(ox * sw - pw + kw, w);                                 \
        int by = y0, bx = x0;                                                                          \
        T best = x[((b * h + y0) * w + x0) * c + ch];                                                  \
        for (int yy = y0; yy < y1; ++yy)                                                               \
          for (int xx = x0; xx < x1; ++xx) {                                                           \
            T v = x[((b * h + yy) * w + xx) * c + ch];                                                 \
            if (v > best) {                                                                            \
              best = v;                                                                                \
              by = yy;                                                                                 \
              bx = xx;                                                                                 \
            }                                                                                          \
          }                                                                                            \
        if (by == iy && bx == ix) g += dy[((b * oh + oy) * ow + ox) * c + ch];                         \
      }                                                                                                \
    }                                                                                                  \
    dx[i] = g;                                                                                         \
  }                                                                                                    \
  __kernel void avg_pool_grad_##S(__global const T* dy, __global T* dx, GRAFT_POOL_ARGS) {             \
    int i = get_global_id(0);                                                                          \
    if (i >= n) return;                                                                                \
    GRAFT_POOL_WINDOWS_OF_CELL                                                                         \
    T g = (T)0;                                                                                        \
    for (int oy = oy0; oy <= oy1; ++oy) {                                                              \
      int cy = min(oy * sh - ph + kh, h) - max(oy * sh - ph, 0);                                       \
      for (int ox = ox0; ox <= ox1; ++ox) {                                                            \
        int cx = min(ox * sw - pw + kw, w) - max(ox * sw - pw, 0);                                     \
        g += dy[((b * oh + oy) * ow + ox) * c + ch] / (T)(cy * cx);                                    \
      }                                                                                                \
    }                                                                                                  \
    dx[i] = g;                                                                                         \
  }

GRAFT_POOL(float, f32, -FLT_MAX)

#ifdef GRAFT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
GRAFT_POOL(double, f64, -DBL_MAX)
#endif
