// Graft's convolution OpenCL kernel, for each type T (float; double with cl_khr_fp64):
//
// im2col_<t>: for images [b0, b0 + batches) of an NHWC input, the patch matrix of a 2-D
// convolution: row (b, oy, ox) of batches * oh * ow rows, column (ky, kx, ci) of kh * kw * c,
// holding in[b, oy * sh - pad_top + ky * dh, ox * sw - pad_left + kx * dw, ci] (0 outside the
// image). The convolution is then one GEMM of it with the [kh * kw * c, out_channels] filter.
//
// col2im_<t>: the reverse, for images [b0, b0 + n / (h * w * c)) of an NHWC gradient: each
// input cell (one work item) is the sum of the patch matrix's cells that im2col read from it
// (taps in (ky, kx) order), written to in[b0 * h * w * c + i]. The arguments are im2col's.

#define GRAFT_CONV(T, S)                                                                              \
  __kernel void im2col_##S(__global const T* in, __global T* cols, int n, int b0, int h, int w, int c, \
                           int oh, int ow, int kh, int kw, int sh, int sw, int dh, int dw, int pad_top,  \
                           int pad_left) {                                                            \
    int i = get_global_id(0);                                                                         \
    if (i >= n) return;                                                                               \
    int k = kh * kw * c;                                                                              \
    int row = i / k, col = i - row * k;                                                               \
    int ci = col % c, t = col / c;                                                                    \
    int kx = t % kw, ky = t / kw;                                                                     \
    int ox = row % ow;                                                                                \
    t = row / ow;                                                                                     \
    int oy = t % oh, b = b0 + t / oh;                                                                 \
    int iy = oy * sh - pad_top + ky * dh, ix = ox * sw - pad_left + kx * dw;                          \
    cols[i] = (iy < 0 || iy >= h || ix < 0 || ix >= w) ? (T)0 : in[((b * h + iy) * w + ix) * c + ci]; \
  }                                                                                                   \
  __kernel void col2im_##S(__global T* in, __global const T* cols, int n, int b0, int h, int w, int c,  \
                           int oh, int ow, int kh, int kw, int sh, int sw, int dh, int dw, int pad_top,  \
                           int pad_left) {                                                            \
    int i = get_global_id(0);                                                                         \
    if (i >= n) return;                                                                               \
    int k = kh * kw * c;                                                                              \
    int ci = i % c, t = i / c;                                                                        \
    int ix = t % w;                                                                                   \
    t /= w;                                                                                           \
    int iy = t % h, b = t / h;                                                                        \
    T acc = (T)0;                                                                                     \
    for (int ky = 0; ky < kh; ++ky) {                                                                 \
      int ny = iy + pad_top - ky * dh;                                                                \
      if (ny < 0 || ny % sh != 0 || ny / sh >= oh) continue;                                          \
      for (int kx = 0; kx < kw; ++kx) {                                                               \
        int nx = ix + pad_left - kx * dw;                                                             \
        if (nx < 0 || nx % sw != 0 || nx / sw >= ow) continue;                                        \
        acc += cols[((b * oh + ny / sh) * ow + nx / sw) * k + (ky * kw + kx) * c + ci];               \
      }                                                                                               \
    }                                                                                                 \
    in[b0 * h * w * c + i] = acc;                                                                     \
  }

GRAFT_CONV(float, f32)

#ifdef GRAFT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
GRAFT_CONV(double, f64)
#endif
