// Helpers shared by the convolution and pooling kernels (conv_kernels.cc, nn_grad_kernels.cc):
// TensorFlow's window geometry, a row-major gemm on OpenBLAS with a loop for other types, and
// the NCHW layout.
#pragma once

#include <cblas.h>

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/runtime/kernel.h"
#include "core/status.h"
#include "core/tensor.h"

namespace graft::cpu {

// One spatial dim of a window: TensorFlow's output size and leading padding.
inline Status Windowed(int64_t in, int64_t k, int64_t dilation, int64_t stride, const std::string& padding,
                       int64_t pad_lo, int64_t pad_hi, int64_t* out, int64_t* pad_before) {
  const int64_t eff = (k - 1) * dilation + 1;
  if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
    *pad_before = std::max<int64_t>((*out - 1) * stride + eff - in, 0) / 2;
  } else {
    // VALID (no padding) and EXPLICIT, with TensorFlow's truncating division.
    const int64_t padded = padding == "VALID" ? in : in + pad_lo + pad_hi;
    *out = (padded - eff + stride) / stride;
    *pad_before = padding == "VALID" ? 0 : pad_lo;
  }
  if (*out < 0) {
    return errors::InvalidArgument("Computed output size would be negative: ", *out, " [input_size: ", in,
                                   ", effective_filter_size: ", eff, ", stride: ", stride, "]");
  }
  return Status::Ok();
}

// c[m, n] = op(a) * op(b) + beta * c (row-major; op transposes when ta / tb is set, a is then
// [k, m] and b [n, k]). Sizes must fit in int for the BLAS types; beta is 0 or 1.
template <typename T>
void GemmRowMajor(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
                  bool accumulate, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0f, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                accumulate ? 1.0f : 0.0f, c, static_cast<int>(ldc));
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                accumulate ? 1.0 : 0.0, c, static_cast<int>(ldc));
  } else {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        // Integers wrap around on overflow (uint64_t arithmetic, then the low bits).
        using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, T>;
        Acc acc = accumulate ? static_cast<Acc>(c[i * ldc + j]) : Acc(0);
        for (int64_t p = 0; p < k; ++p) {
          acc += static_cast<Acc>(ta ? a[p * lda + i] : a[i * lda + p]) * static_cast<Acc>(tb ? b[j * ldb + p] : b[p * ldb + j]);
        }
        c[i * ldc + j] = static_cast<T>(acc);
      }
    }
  }
}

// NCHW (and NCDHW): TensorFlow's CPU kernels take it as well as NHWC (NDHWC). Graft's compute
// channels-last, so a channels-first op reads its per-dimension attrs in channels-last order,
// transposes its 4-D (5-D) inputs and its results back (two copies; channels-first graphs on a
// CPU are rare enough not to need their own loops).
inline std::vector<int64_t> NhwcOrder(const std::vector<int64_t>& nchw) {
  if (nchw.size() == 4) return {nchw[0], nchw[2], nchw[3], nchw[1]};
  if (nchw.size() == 5) return {nchw[0], nchw[2], nchw[3], nchw[4], nchw[1]};
  if (nchw.size() == 8) {  // explicit paddings: (before, after) per dimension
    return {nchw[0], nchw[1], nchw[4], nchw[5], nchw[6], nchw[7], nchw[2], nchw[3]};
  }
  return nchw;
}

// A 4-D (5-D) tensor's dims in the other layout.
inline std::vector<int64_t> NhwcDims(const std::vector<int64_t>& nchw) { return NhwcOrder(nchw); }
inline std::vector<int64_t> NchwDims(const std::vector<int64_t>& nhwc) {
  if (nhwc.size() == 5) return {nhwc[0], nhwc[4], nhwc[1], nhwc[2], nhwc[3]};
  return {nhwc[0], nhwc[3], nhwc[1], nhwc[2]};
}

// *out = x (4-D NCHW or 5-D NCDHW) channels-last, or (to_nchw) x (channels-last) channels-first.
template <typename T>
Status Relayout(const Tensor& x, bool to_nchw, Tensor* out) {
  if (x.rank() != 4 && x.rank() != 5) {
    return errors::InvalidArgument("a 4-D or 5-D tensor was expected, got rank ", x.rank());
  }
  const std::vector<int64_t> dims = to_nchw ? NchwDims(x.dims()) : NhwcDims(x.dims());
  GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(x.dtype(), dims, out));
  const T* src = x.data<T>();
  T* dst = out->data<T>();
  // Index the NHWC side as (n, hw, c) and the NCHW side as (n, c, hw).
  const int64_t n = dims[0];
  const int64_t c = to_nchw ? dims[1] : dims.back();
  int64_t hw = 1;
  for (size_t d = to_nchw ? 2 : 1; d < (to_nchw ? dims.size() : dims.size() - 1); ++d) hw *= dims[d];
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t i = 0; i < hw; ++i) {
        const int64_t nchw_index = (b * c + ch) * hw + i, nhwc_index = (b * hw + i) * c + ch;
        if (to_nchw) dst[nchw_index] = src[nhwc_index];
        else dst[nhwc_index] = src[nchw_index];
      }
    }
  }
  return Status::Ok();
}

// Allocates a kernel's result of the given dims.
using ResultAlloc = std::function<Status(const std::vector<int64_t>& dims, Tensor** out)>;

// Runs forward(x, alloc) — an NHWC computation of output 0 from input 0 as x — in the op's
// layout: for NCHW, on input 0 transposed, its NHWC result transposed back into output 0.
template <typename T>
Status ComputeInLayout(OpKernelContext& ctx, bool nchw,
                       const std::function<Status(const Tensor& x, const ResultAlloc& alloc)>& forward) {
  const Tensor& in = ctx.input(0);
  if (!nchw) {
    return forward(in, [&](const std::vector<int64_t>& dims, Tensor** out) {
      return ctx.AllocateOutput(0, in.dtype(), dims, out);
    });
  }
  Tensor x, y, z;
  GRAFT_RETURN_IF_ERROR(Relayout<T>(in, false, &x));
  const ResultAlloc alloc_y = [&](const std::vector<int64_t>& dims, Tensor** out) {
    *out = &y;
    return Tensor::AllocateUninitialized(in.dtype(), dims, &y);
  };
  GRAFT_RETURN_IF_ERROR(forward(x, alloc_y));
  GRAFT_RETURN_IF_ERROR(Relayout<T>(y, true, &z));
  ctx.SetOutput(0, std::move(z));
  return Status::Ok();
}

// The im2col geometry of a convolution or pooling window over S spatial dims: input
// [n, in..., c], filter [k..., c, oc] (read as a [taps * c, oc] matrix), output
// [n, out..., oc]. Patch row r (row-major over [n, out...]) holds taps * c input values, tap t
// (row-major over k...) at column t * c.
template <int S>
struct PatchGeometry {
  int64_t n = 0, c = 0, oc = 0;
  std::array<int64_t, S> in{}, k{}, out{}, pad{}, stride{}, dil{};

  int64_t taps() const {
    int64_t t = 1;
    for (int64_t v : k) t *= v;
    return t;
  }
  int64_t cols() const { return taps() * c; }
  int64_t spatial_out() const {
    int64_t t = 1;
    for (int64_t v : out) t *= v;
    return t;
  }
  int64_t rows() const { return n * spatial_out(); }
  // Fills out and pad from in, k, dil and stride with TensorFlow's window rules (SAME / VALID).
  Status Resolve(const std::string& padding) {
    for (int d = 0; d < S; ++d) {
      GRAFT_RETURN_IF_ERROR(Windowed(in[d], k[d], dil[d], stride[d], padding, 0, 0, &out[d], &pad[d]));
    }
    return Status::Ok();
  }
  // Calls f(input offset, column offset) for every tap of patch row r inside the input.
  template <typename F>
  void ForTaps(int64_t r, F f) const {
    std::array<int64_t, S> o{}, first{};
    for (int d = S - 1; d >= 0; --d) {
      o[d] = r % out[d];
      r /= out[d];
    }
    for (int d = 0; d < S; ++d) first[d] = o[d] * stride[d] - pad[d];
    const int64_t b = r, ntaps = taps();
    for (int64_t t = 0; t < ntaps; ++t) {
      int64_t rest = t, off = 0, scale = 1;
      bool inside = true;
      for (int d = S - 1; d >= 0; --d) {
        const int64_t p = first[d] + (rest % k[d]) * dil[d];
        rest /= k[d];
        if (p < 0 || p >= in[d]) {
          inside = false;
          break;
        }
        off += p * scale;
        scale *= in[d];
      }
      if (inside) f((b * scale + off) * c, t * c);
    }
  }
};

// TensorFlow keeps strides, dilations and window sizes in int: a larger one is an error
// (InvalidArgument naming the op and the attr), not a silent overflow.
inline Status CheckInt32Attr(const std::string& op, const char* what, int64_t v) {
  if (v > std::numeric_limits<int32_t>::max()) {
    return errors::InvalidArgument(op, ": ", what, " must be at most 2147483647 (int32), got ", v);
  }
  return Status::Ok();
}

// Folds a window of n channel vectors into dst: acc = step(acc, src[t][ch], filter[t][ch]) for
// t = 0 .. n-1 from acc = init, per channel ch < c (filter may be null: step then gets T(0)).
// Channels go in blocks held in registers across the whole window, so each tap costs its
// loads alone (depthwise convolutions and pooling; the taps' order is kept).
template <typename T, typename Step>
inline void FoldWindow(T* __restrict dst, const T* const* src, const T* const* filter, int64_t n, int64_t c, T init,
                       Step step) {
  constexpr int64_t kBlock = 128 / sizeof(T);
  int64_t ch = 0;
  for (; ch + kBlock <= c; ch += kBlock) {
    T acc[kBlock];
    for (int64_t q = 0; q < kBlock; ++q) acc[q] = init;
    for (int64_t t = 0; t < n; ++t) {
      const T* __restrict s = src[t] + ch;
      if (filter != nullptr) {
        const T* __restrict f = filter[t] + ch;
        for (int64_t q = 0; q < kBlock; ++q) acc[q] = step(acc[q], s[q], f[q]);
      } else {
        for (int64_t q = 0; q < kBlock; ++q) acc[q] = step(acc[q], s[q], T(0));
      }
    }
    for (int64_t q = 0; q < kBlock; ++q) dst[ch + q] = acc[q];
  }
  constexpr int64_t kSmall = kBlock / 4;  // the rest of the channels, a vector at a time
  for (; ch + kSmall <= c; ch += kSmall) {
    T acc[kSmall];
    for (int64_t q = 0; q < kSmall; ++q) acc[q] = init;
    for (int64_t t = 0; t < n; ++t) {
      for (int64_t q = 0; q < kSmall; ++q) acc[q] = step(acc[q], src[t][ch + q], filter != nullptr ? filter[t][ch + q] : T(0));
    }
    for (int64_t q = 0; q < kSmall; ++q) dst[ch + q] = acc[q];
  }
  for (; ch < c; ++ch) {
    T acc = init;
    for (int64_t t = 0; t < n; ++t) acc = step(acc, src[t][ch], filter != nullptr ? filter[t][ch] : T(0));
    dst[ch] = acc;
  }
}

}  // namespace graft::cpu
