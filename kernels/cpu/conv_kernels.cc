// CPU kernels for convolution and pooling: Conv2D (NHWC; grouped when the input depth is a
// multiple of the filter's, one im2col + gemm per group) as im2col + BLAS gemm, MaxPool and
// AvgPool (NHWC, SAME / VALID), the activation gradients and BiasAddGrad, float and double.

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "core/runtime/parallel_for.h"
#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"
#include "kernels/cpu/winograd.h"

namespace graft::cpu {
namespace {

// The Winograd transform of the last filter a kernel saw, kept with a copy of that filter:
// a constant or a variable that did not change since is transformed once, not per run.
template <typename T>
class WinogradFilterCache {
 public:
  std::shared_ptr<const std::vector<T>> Get(int m, const Tensor& f) const {
    const T* data = f.data<T>();
    const size_t count = static_cast<size_t>(f.num_elements());
    {
      std::lock_guard lock(mu_);
      if (m == m_ && u_ != nullptr && filter_.size() == count && std::memcmp(filter_.data(), data, count * sizeof(T)) == 0) {
        return u_;
      }
    }
    auto u = std::make_shared<const std::vector<T>>(WinogradFilter<T>(m, data, f.dim(2), f.dim(3)));
    std::lock_guard lock(mu_);
    filter_.assign(data, data + count);
    m_ = m;
    u_ = u;
    return u;
  }

 private:
  mutable std::mutex mu_;
  mutable std::vector<T> filter_;
  mutable int m_ = 0;
  mutable std::shared_ptr<const std::vector<T>> u_;
};

// Conv2D, and Graft's fused _GraftFusedConv2D (Conv2D's inputs and attrs, a bias as input 2
// and an "activation" attr: what the fusion rewrite makes of Conv2D + BiasAdd + activation).
template <typename T>
class Conv2DKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(fused_.Init(node(), "Conv2D"));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "strides", &strides_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "padding", &padding_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "data_format", &format_));
    if (node().attr("dilations") != nullptr) GRAFT_RETURN_IF_ERROR(GetAttr(node(), "dilations", &dilations_));
    if (node().attr("explicit_paddings") != nullptr) {
      GRAFT_RETURN_IF_ERROR(GetAttr(node(), "explicit_paddings", &explicit_));
    }
    if (strides_.size() != 4) return errors::InvalidArgument("Conv2D: sliding window strides field must specify 4 dimensions");
    if (dilations_.size() != 4) return errors::InvalidArgument("Conv2D: sliding window dilations field must specify 4 dimensions");
    if (padding_ == "EXPLICIT" && explicit_.size() != 8) {
      return errors::InvalidArgument("Conv2D: explicit_paddings must have 8 entries");
    }
    nchw_ = format_ == "NCHW";
    if (nchw_) {
      strides_ = NhwcOrder(strides_);
      dilations_ = NhwcOrder(dilations_);
      explicit_ = NhwcOrder(explicit_);
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    if (format_ != "NHWC" && format_ != "NCHW") {
      return errors::Unimplemented("Conv2D: data_format ", format_, " is not supported on CPU (NHWC or NCHW)");
    }
    if (ctx.input(0).rank() != 4) {
      return errors::InvalidArgument("Conv2D: input must be 4-dimensional, got ", ShapeText(ctx.input(0).dims()));
    }
    const Tensor& f = ctx.input(1);
    Epilogue<T> epilogue;
    GRAFT_RETURN_IF_ERROR(fused_.Make(ctx, 2, f.rank() == 4 ? f.dim(3) : 0, &epilogue));
    return ComputeInLayout<T>(ctx, nchw_,
                              [&](const Tensor& x, const ResultAlloc& alloc) { return Forward(x, f, epilogue, alloc); });
  }

 private:
  // x is NHWC.
  Status Forward(const Tensor& x, const Tensor& f, const Epilogue<T>& epilogue, const ResultAlloc& alloc) const {
    if (x.rank() != 4) return errors::InvalidArgument("Conv2D: input must be 4-dimensional, got ", ShapeText(x.dims()));
    if (f.rank() != 4) return errors::InvalidArgument("Conv2D: filter must be 4-dimensional, got ", ShapeText(f.dims()));
    if (f.num_elements() == 0) {  // TensorFlow's check (its kernels would read no filter at all)
      return errors::InvalidArgument("Conv2D: filter must not have zero elements (i.e. all dimensions must be non-zero)");
    }
    if (strides_[0] != 1 || strides_[3] != 1) {
      return errors::Unimplemented("Conv2D: current implementation does not yet support strides in the batch and depth dimensions.");
    }
    if (dilations_[0] != 1 || dilations_[3] != 1) {
      return errors::Unimplemented("Conv2D: current implementation does not yet support dilations in the batch and depth dimensions.");
    }
    if (strides_[1] < 1 || strides_[2] < 1 || dilations_[1] < 1 || dilations_[2] < 1) {
      return errors::InvalidArgument("Conv2D: strides and dilations must be positive");
    }
    for (int d = 1; d <= 2; ++d) {
      GRAFT_RETURN_IF_ERROR(CheckInt32Attr("Conv2D", "strides", strides_[static_cast<size_t>(d)]));
      GRAFT_RETURN_IF_ERROR(CheckInt32Attr("Conv2D", "dilations", dilations_[static_cast<size_t>(d)]));
    }
    const int64_t n = x.dim(0), h = x.dim(1), w = x.dim(2), c = x.dim(3);
    const int64_t kh = f.dim(0), kw = f.dim(1), oc = f.dim(3);
    // Grouped convolution: groups = c / filter depth, each group convolving its slice of the
    // input channels with its slice of the output channels.
    const int64_t fc = f.dim(2);
    if (fc <= 0 || c % fc != 0) {
      return errors::InvalidArgument("Conv2D: input depth must be evenly divisible by filter depth: ", c, " vs ", fc);
    }
    const int64_t groups = c / fc;
    if (oc % groups != 0) {
      return errors::InvalidArgument("Conv2D: output depth must be evenly divisible by number of groups: ", oc, " vs ",
                                     groups);
    }
    int64_t oh = 0, ow = 0, ph = 0, pw = 0;
    const bool expl = padding_ == "EXPLICIT";
    GRAFT_RETURN_IF_ERROR(Windowed(h, kh, dilations_[1], strides_[1], padding_, expl ? explicit_[2] : 0,
                                   expl ? explicit_[3] : 0, &oh, &ph));
    GRAFT_RETURN_IF_ERROR(Windowed(w, kw, dilations_[2], strides_[2], padding_, expl ? explicit_[4] : 0,
                                   expl ? explicit_[5] : 0, &ow, &pw));
    Tensor* out = nullptr;
    std::vector<int64_t> dims = {n, oh, ow, oc};
    GRAFT_RETURN_IF_ERROR(alloc(dims, &out));
    T* po = out->data<T>();
    const int64_t total = n * oh * ow * oc;
    if (total == 0) return Status::Ok();
    const int64_t k = kh * kw * fc;
    if (k == 0) {
      std::fill(po, po + total, T(0));
      epilogue.ApplyRows(po, n * oh * ow, oc, oc);
      return Status::Ok();
    }
    if (k > INT32_MAX || oc > INT32_MAX) return errors::InvalidArgument("Conv2D: too large for BLAS");
    const T* px = x.data<T>();
    const T* pf = f.data<T>();
    const int64_t sh = strides_[1], sw = strides_[2];
    // 1x1 stride-1 unpadded, not grouped: the input already is the patch matrix.
    if (groups == 1 && kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && oh == h && ow == w) {
      GemmRowMajor<T>(false, false, n * oh * ow, oc, k, px, k, pf, oc, false, po, oc);
      epilogue.ApplyRows(po, n * oh * ow, oc, oc);
      return Status::Ok();
    }
    if (groups == 1 && kh == 3 && kw == 3 && sh == 1 && sw == 1 && dilations_[1] == 1 && dilations_[2] == 1) {
      const WinogradShape ws{n, h, w, c, oc, oh, ow, ph, pw};
      if (const int m = WinogradTile(ws); m != 0) {
        std::shared_ptr<const std::vector<T>> u = winograd_.Get(m, f);
        WinogradConv<T>(m, ws, px, u->data(), epilogue, po);
        return Status::Ok();
      }
    }
    PatchesForward(x, f, groups, oh, ow, ph, pw, epilogue, po);
    return Status::Ok();
  }

  // im2col in blocks of patch rows (so that the buffer stays bounded) times the filter; per
  // group g (one without groups), of input channels [g * fc, (g + 1) * fc) times the filter's
  // columns [g * ocg, (g + 1) * ocg), into the same output columns.
  void PatchesForward(const Tensor& x, const Tensor& f, int64_t groups, int64_t oh, int64_t ow, int64_t ph, int64_t pw,
                      const Epilogue<T>& epilogue, T* po) const {
    const int64_t n = x.dim(0), h = x.dim(1), w = x.dim(2), c = x.dim(3);
    const int64_t kh = f.dim(0), kw = f.dim(1), fc = f.dim(2), oc = f.dim(3), ocg = oc / groups;
    const int64_t sh = strides_[1], sw = strides_[2], dh = dilations_[1], dw = dilations_[2];
    const int64_t k = kh * kw * fc;
    const T* px = x.data<T>();
    const T* pf = f.data<T>();
    const int64_t rows_total = n * oh * ow;
    const int64_t block = std::max<int64_t>(1, std::min<int64_t>(rows_total, (int64_t{1} << 22) / k));
    std::vector<T> col(static_cast<size_t>(block * k));
    for (int64_t r0 = 0; r0 < rows_total; r0 += block) {
      const int64_t rows = std::min(block, rows_total - r0);
      for (int64_t g = 0; g < groups; ++g) {
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t idx = r0 + r;
          const int64_t b = idx / (oh * ow), oy = (idx / ow) % oh, ox = idx % ow;
          T* dst = col.data() + r * k;
          for (int64_t i = 0; i < kh; ++i) {
            const int64_t iy = oy * sh - ph + i * dh;
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t ix = ox * sw - pw + j * dw;
              T* d = dst + (i * kw + j) * fc;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) {
                std::fill(d, d + fc, T(0));
              } else {
                const T* s = px + ((b * h + iy) * w + ix) * c + g * fc;
                std::copy(s, s + fc, d);
              }
            }
          }
        }
        if (ocg > 0) {
          GemmRowMajor<T>(false, false, rows, ocg, k, col.data(), k, pf + g * ocg, oc, false, po + r0 * oc + g * ocg,
                          oc);
        }
      }
      epilogue.ApplyRows(po + r0 * oc, rows, oc, oc);  // while the block is in cache
    }
  }

  std::vector<int64_t> strides_, dilations_ = {1, 1, 1, 1}, explicit_;
  std::string padding_, format_;
  bool nchw_ = false;
  FusedEpilogue<T> fused_;
  WinogradFilterCache<T> winograd_;
};

// MaxPool and AvgPool over rows and cols (NHWC, SAME / VALID). Padded cells are ignored:
// AvgPool divides by the number of valid elements in each window, as TensorFlow does.
template <typename T, bool kMax>
class PoolKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "ksize", &ksize_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "strides", &strides_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "padding", &padding_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "data_format", &format_));
    if (ksize_.size() != 4 || strides_.size() != 4) {
      return errors::InvalidArgument(node().type(), ": ksize and strides must have 4 entries");
    }
    nchw_ = format_ == "NCHW";
    if (nchw_) {
      ksize_ = NhwcOrder(ksize_);
      strides_ = NhwcOrder(strides_);
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    if (format_ != "NHWC" && format_ != "NCHW") {
      return errors::Unimplemented(op, ": data_format ", format_, " is not supported on CPU (NHWC or NCHW)");
    }
    if (ctx.input(0).rank() != 4) {
      return errors::InvalidArgument(op, ": input must be 4-dimensional, got ", ShapeText(ctx.input(0).dims()));
    }
    return ComputeInLayout<T>(ctx, nchw_, [&](const Tensor& x, const ResultAlloc& alloc) { return Forward(x, alloc); });
  }

 private:
  // x is NHWC.
  Status Forward(const Tensor& x, const ResultAlloc& alloc) const {
    const std::string& op = node().type();
    if (padding_ != "SAME" && padding_ != "VALID") {
      return errors::Unimplemented(op, ": padding ", padding_, " is not supported on CPU");
    }
    if (ksize_[0] != 1 || strides_[0] != 1) {
      return errors::Unimplemented(op, ": pooling is not yet supported on the batch dimension.");
    }
    if (ksize_[3] != 1 || strides_[3] != 1) {
      return errors::Unimplemented(op, ": depthwise pooling is not supported on CPU");
    }
    if (ksize_[1] < 1 || ksize_[2] < 1 || strides_[1] < 1 || strides_[2] < 1) {
      return errors::InvalidArgument(op, ": ksize and strides must be positive");
    }
    for (int d = 1; d <= 2; ++d) {
      GRAFT_RETURN_IF_ERROR(CheckInt32Attr(op, "ksize", ksize_[static_cast<size_t>(d)]));
      GRAFT_RETURN_IF_ERROR(CheckInt32Attr(op, "strides", strides_[static_cast<size_t>(d)]));
    }
    const int64_t n = x.dim(0), h = x.dim(1), w = x.dim(2), c = x.dim(3);
    const int64_t kh = ksize_[1], kw = ksize_[2], sh = strides_[1], sw = strides_[2];
    int64_t oh = 0, ow = 0, ph = 0, pw = 0;
    GRAFT_RETURN_IF_ERROR(Windowed(h, kh, 1, sh, padding_, 0, 0, &oh, &ph));
    GRAFT_RETURN_IF_ERROR(Windowed(w, kw, 1, sw, padding_, 0, 0, &ow, &pw));
    Tensor* out = nullptr;
    std::vector<int64_t> dims = {n, oh, ow, c};
    GRAFT_RETURN_IF_ERROR(alloc(dims, &out));
    if (out->num_elements() == 0) return Status::Ok();
    const T* px = x.data<T>();
    T* po = out->data<T>();
    // One item per output row (b, oy), spread over the intra-op threads. The work of a row counts
    // the window clipped to the input, in double: ksize may be near 2^31 (a SAME window).
    const double work = std::max(1.0, static_cast<double>(ow) * static_cast<double>(c) *
                                          static_cast<double>(std::min(kh, h)) * static_cast<double>(std::min(kw, w)));
    ParallelFor(n * oh, std::max<int64_t>(1, static_cast<int64_t>(65536.0 / work)), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t b = r / oh, oy = r % oh;
        const int64_t y0 = std::max<int64_t>(oy * sh - ph, 0), y1 = std::min(oy * sh - ph + kh, h);
        for (int64_t ox = 0; ox < ow; ++ox) {
          const int64_t x0 = std::max<int64_t>(ox * sw - pw, 0), x1 = std::min(ox * sw - pw + kw, w);
          T* __restrict dst = po + (r * ow + ox) * c;
          std::fill(dst, dst + c, kMax ? std::numeric_limits<T>::lowest() : T(0));
          // Tap by tap over whole channel vectors: each input pixel is read as one stream.
          for (int64_t iy = y0; iy < y1; ++iy) {
            for (int64_t ix = x0; ix < x1; ++ix) {
              const T* __restrict src = px + ((b * h + iy) * w + ix) * c;
              if constexpr (kMax) {
                // An unconditional select (a NaN never wins, as before) compiles to max
                // instructions instead of a branch per element.
                for (int64_t ch = 0; ch < c; ++ch) dst[ch] = src[ch] > dst[ch] ? src[ch] : dst[ch];
              } else {
                for (int64_t ch = 0; ch < c; ++ch) dst[ch] += src[ch];
              }
            }
          }
          if constexpr (!kMax) {
            const T cnt = static_cast<T>((y1 - y0) * (x1 - x0));
            for (int64_t ch = 0; ch < c; ++ch) dst[ch] /= cnt;
          }
        }
      }
    });
    return Status::Ok();
  }

  std::vector<int64_t> ksize_, strides_;
  std::string padding_, format_;
  bool nchw_ = false;
};

// Elementwise gradients of the activations, on two same-shaped inputs:
// ReluGrad(g, f) = g * (f > 0), Relu6Grad(g, f) = g * (0 < f < 6),
// SigmoidGrad(y, dy) = dy * y * (1 - y), TanhGrad(y, dy) = dy * (1 - y * y).
enum class ActGrad { kRelu, kRelu6, kSigmoid, kTanh };

template <typename T, ActGrad kKind>
class ActGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dims() != b.dims()) {
      return errors::InvalidArgument(node().type(), ": inputs must have the same shape, got ", ShapeText(a.dims()),
                                     " and ", ShapeText(b.dims()));
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), a.dims(), &out, 0));
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* po = out->data<T>();
    const int64_t n = a.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      const T x = pa[i], y = pb[i];
      if constexpr (kKind == ActGrad::kRelu) {
        po[i] = y > T(0) ? x : T(0);
      } else if constexpr (kKind == ActGrad::kRelu6) {
        po[i] = y > T(0) && y < T(6) ? x : T(0);
      } else if constexpr (kKind == ActGrad::kSigmoid) {
        po[i] = y * x * (T(1) - x);
      } else {
        po[i] = y * (T(1) - x * x);
      }
    }
    return Status::Ok();
  }
};

// BiasAddGrad: the sum of out_backprop over every dim but the channel one.
template <typename T>
class BiasAddGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    std::string format;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "data_format", &format));
    nchw_ = format == "NCHW";
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& g = ctx.input(0);
    if (g.rank() < 2) {
      return errors::InvalidArgument("BiasAddGrad: input must be at least 2-D, got ", ShapeText(g.dims()));
    }
    const int channel_dim = nchw_ ? 1 : g.rank() - 1;
    const int64_t c = g.dim(channel_dim);
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < g.rank(); ++d) inner *= g.dim(d);
    const int64_t outer = c == 0 || inner == 0 ? 0 : g.num_elements() / (c * inner);
    Tensor* out = nullptr;
    std::vector<int64_t> dims = {c};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), dims, &out));
    T* po = out->data<T>();
    std::fill(po, po + c, T(0));
    const T* pg = g.data<T>();
    if (inner == 1) {  // channels last: add whole rows (a loop that vectorizes)
      for (int64_t o = 0; o < outer; ++o) {
        const T* row = pg + o * c;
        for (int64_t ch = 0; ch < c; ++ch) po[ch] += row[ch];
      }
      return Status::Ok();
    }
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const T* src = pg + (o * c + ch) * inner;
        T acc = T(0);
        for (int64_t i = 0; i < inner; ++i) acc += src[i];
        po[ch] += acc;
      }
    }
    return Status::Ok();
  }

 private:
  bool nchw_ = false;
};

}  // namespace

// conv3d_kernels.cc: Conv3D, MaxPool3D, AvgPool3D and their gradient ops, registered with this
// family.
void RegisterConv3DKernels(KernelRegistry& r);

void RegisterConvKernels(KernelRegistry& r) {
  RegisterConv3DKernels(r);
  (void)r.Register("Conv2D", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<Conv2DKernel<float>>);
  (void)r.Register("Conv2D", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<Conv2DKernel<double>>);
  (void)r.Register("_GraftFusedConv2D", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<Conv2DKernel<float>>);
  (void)r.Register("_GraftFusedConv2D", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<Conv2DKernel<double>>);
  (void)r.Register("MaxPool", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<PoolKernel<float, true>>);
  (void)r.Register("MaxPool", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<PoolKernel<double, true>>);
  (void)r.Register("AvgPool", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<PoolKernel<float, false>>);
  (void)r.Register("AvgPool", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<PoolKernel<double, false>>);
  (void)r.Register("ReluGrad", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<ActGradKernel<float, ActGrad::kRelu>>);
  (void)r.Register("ReluGrad", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<ActGradKernel<double, ActGrad::kRelu>>);
  (void)r.Register("Relu6Grad", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<ActGradKernel<float, ActGrad::kRelu6>>);
  (void)r.Register("Relu6Grad", kDeviceCpu, "T", {DType::kFloat64},
                   &CreateKernel<ActGradKernel<double, ActGrad::kRelu6>>);
  (void)r.Register("SigmoidGrad", kDeviceCpu, "T", {DType::kFloat32},
                   &CreateKernel<ActGradKernel<float, ActGrad::kSigmoid>>);
  (void)r.Register("SigmoidGrad", kDeviceCpu, "T", {DType::kFloat64},
                   &CreateKernel<ActGradKernel<double, ActGrad::kSigmoid>>);
  (void)r.Register("TanhGrad", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<ActGradKernel<float, ActGrad::kTanh>>);
  (void)r.Register("TanhGrad", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<ActGradKernel<double, ActGrad::kTanh>>);
  (void)r.Register("BiasAddGrad", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<BiasAddGradKernel<float>>);
  (void)r.Register("BiasAddGrad", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<BiasAddGradKernel<double>>);
}

}  // namespace graft::cpu
