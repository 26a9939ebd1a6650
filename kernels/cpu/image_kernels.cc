// CPU kernels for image resizing (NHWC): ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic
// and their gradient ops ResizeBilinearGrad, ResizeNearestNeighborGrad, ResizeBicubicGrad.
//
// Output pixel o of an axis maps to the input coordinate o * scale, or (o + 0.5) * scale - 0.5
// under half_pixel_centers (TensorFlow's legacy and half-pixel scalers), where scale is
// in / out, or (in - 1) / (out - 1) under align_corners. Bilinear reads the two neighbours of
// that coordinate (clamped to the image) and interpolates in float32, so its output is float32
// for every input type, as TensorFlow's. Nearest neighbour rounds (align_corners) or floors
// the coordinate, where the half-pixel scaler has no -0.5. The gradient ops send each gradient
// pixel back to the input pixels the forward op read, with the same weights.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

struct ResizeAttrs {
  bool align_corners = false;
  bool half_pixel_centers = false;
  Status Read(const Node& node) {
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "align_corners", &align_corners));
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "half_pixel_centers", &half_pixel_centers));
    if (half_pixel_centers && align_corners) {
      return errors::InvalidArgument("If half_pixel_centers is True, align_corners must be False.");
    }
    return Status::Ok();
  }
  float Scale(int64_t in, int64_t out) const {
    return align_corners && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
  }
};

// The two input pixels that output pixel o reads along one axis, and the weight of the second.
struct Tap {
  int64_t lo, hi;
  float frac;
};

std::vector<Tap> BilinearTaps(int64_t out, int64_t in, float scale, bool half_pixel) {
  std::vector<Tap> taps(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const float x = half_pixel ? (static_cast<float>(o) + 0.5f) * scale - 0.5f : static_cast<float>(o) * scale;
    const float f = std::floor(x);
    taps[static_cast<size_t>(o)] = {std::max(static_cast<int64_t>(f), int64_t{0}),
                                    std::min(static_cast<int64_t>(std::ceil(x)), in - 1), x - f};
  }
  return taps;
}

std::vector<int64_t> NearestTaps(int64_t out, int64_t in, float scale, const ResizeAttrs& a) {
  std::vector<int64_t> taps(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const float x = a.half_pixel_centers ? (static_cast<float>(o) + 0.5f) * scale : static_cast<float>(o) * scale;
    int64_t i = std::min(static_cast<int64_t>(a.align_corners ? std::round(x) : std::floor(x)), in - 1);
    if (a.half_pixel_centers) i = std::max(i, int64_t{0});
    taps[static_cast<size_t>(o)] = i;
  }
  return taps;
}

// The checks of a resize's images (4-D) and size (two positive int32s).
Status ReadResizeInputs(const Tensor& images, const Tensor& size, const char* what, int64_t* out_h, int64_t* out_w) {
  if (images.rank() != 4) return errors::InvalidArgument(what, " must be 4-dimensional", ShapeText(images.dims()));
  if (size.rank() != 1) return errors::InvalidArgument("shape_t must be 1-dimensional", ShapeText(size.dims()));
  if (size.num_elements() != 2) return errors::InvalidArgument("shape_t must have two elements", ShapeText(size.dims()));
  const int32_t* s = size.data<int32_t>();
  *out_h = s[0];
  *out_w = s[1];
  if (*out_h <= 0 || *out_w <= 0) return errors::InvalidArgument("output dimensions must be positive");
  return Status::Ok();
}

// A forward resize: images [n, ih, iw, c] to [n, oh, ow, c].
struct ResizeShape {
  int64_t n, ih, iw, c, oh, ow;
};

// Reads and checks a forward resize's inputs (ReadResizeInputs, and images with channels and
// pixels) and allocates its output of dtype.
Status StartForwardResize(OpKernelContext& ctx, DType dtype, ResizeShape* s, Tensor** out) {
  const Tensor& images = ctx.input(0);
  GRAFT_RETURN_IF_ERROR(ReadResizeInputs(images, ctx.input(1), "input", &s->oh, &s->ow));
  if (images.dim(3) <= 0) return errors::InvalidArgument("image must have at least one channel");
  if (images.dim(1) == 0 || images.dim(2) == 0) return errors::InvalidArgument("input image must be of non-zero size");
  s->n = images.dim(0), s->ih = images.dim(1), s->iw = images.dim(2), s->c = images.dim(3);
  const Dims out_dims{s->n, s->oh, s->ow, s->c};
  return ctx.AllocateOutput(0, dtype, out_dims, out);
}

template <typename T>
class ResizeBilinearKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& images = ctx.input(0);
    ResizeShape s;
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(StartForwardResize(ctx, DType::kFloat32, &s, &out));
    const int64_t n = s.n, ih = s.ih, iw = s.iw, c = s.c, oh = s.oh, ow = s.ow;
    const auto ys = BilinearTaps(oh, ih, attrs_.Scale(ih, oh), attrs_.half_pixel_centers);
    const auto xs = BilinearTaps(ow, iw, attrs_.Scale(iw, ow), attrs_.half_pixel_centers);
    const T* src = images.data<T>();
    float* o = out->data<float>();
    for (int64_t b = 0; b < n; ++b) {
      const T* img = src + b * ih * iw * c;
      for (const Tap& y : ys) {
        const T* top = img + y.lo * iw * c;
        const T* bottom = img + y.hi * iw * c;
        for (const Tap& x : xs) {
          for (int64_t k = 0; k < c; ++k) {
            const float tl = static_cast<float>(top[x.lo * c + k]), tr = static_cast<float>(top[x.hi * c + k]);
            const float bl = static_cast<float>(bottom[x.lo * c + k]), br = static_cast<float>(bottom[x.hi * c + k]);
            const float t = tl + (tr - tl) * x.frac;
            const float btm = bl + (br - bl) * x.frac;
            *o++ = t + (btm - t) * y.frac;
          }
        }
      }
    }
    return Status::Ok();
  }

 private:
  ResizeAttrs attrs_;
};

template <typename T>
class ResizeNearestNeighborKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& images = ctx.input(0);
    ResizeShape s;
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(StartForwardResize(ctx, ctx.input(0).dtype(), &s, &out));
    const int64_t n = s.n, ih = s.ih, iw = s.iw, c = s.c, oh = s.oh, ow = s.ow;
    const auto ys = NearestTaps(oh, ih, attrs_.Scale(ih, oh), attrs_);
    const auto xs = NearestTaps(ow, iw, attrs_.Scale(iw, ow), attrs_);
    const T* src = images.data<T>();
    T* o = out->data<T>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t y : ys) {
        const T* row = src + ((b * ih + y) * iw) * c;
        for (int64_t x : xs) o = std::copy_n(row + x * c, c, o);
      }
    }
    return Status::Ok();
  }

 private:
  ResizeAttrs attrs_;
};

// ResizeBilinearGrad(grads: float32 [n, oh, ow, c], original_image: T [n, ih, iw, c]) -> T.
template <typename T>
class ResizeBilinearGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& grads = ctx.input(0);
    const Tensor& image = ctx.input(1);
    if (grads.rank() != 4) return errors::InvalidArgument("input_grad must be 4-dimensional", ShapeText(grads.dims()));
    if (image.rank() != 4) {
      return errors::InvalidArgument("original_image must be 4-dimensional", ShapeText(image.dims()));
    }
    const Dims& gd = grads.dims();
    const Dims& id = image.dims();
    if (gd[3] != id[3] || gd[0] != id[0]) {
      return errors::InvalidArgument("grads (shape ", ShapeText(gd), ") and original_image (shape ", ShapeText(id),
                                     ") must agree in batch and channels");
    }
    const int64_t n = gd[0], oh = gd[1], ow = gd[2], c = gd[3], ih = id[1], iw = id[2];
    if (ih <= 0 || iw <= 0) return errors::InvalidArgument("original sizes must be positive");
    const auto ys = BilinearTaps(oh, ih, attrs_.Scale(ih, oh), attrs_.half_pixel_centers);
    const auto xs = BilinearTaps(ow, iw, attrs_.Scale(iw, ow), attrs_.half_pixel_centers);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, image.dtype(), id, &out));
    T* o = out->data<T>();
    std::fill_n(o, out->num_elements(), T(0));
    const float* g = grads.data<float>();
    for (int64_t b = 0; b < n; ++b) {
      T* img = o + b * ih * iw * c;
      for (const Tap& y : ys) {
        T* top = img + y.lo * iw * c;
        T* bottom = img + y.hi * iw * c;
        for (const Tap& x : xs) {
          for (int64_t k = 0; k < c; ++k) {
            const float v = *g++;
            top[x.lo * c + k] += static_cast<T>(v * (1 - y.frac) * (1 - x.frac));
            top[x.hi * c + k] += static_cast<T>(v * (1 - y.frac) * x.frac);
            bottom[x.lo * c + k] += static_cast<T>(v * y.frac * (1 - x.frac));
            bottom[x.hi * c + k] += static_cast<T>(v * y.frac * x.frac);
          }
        }
      }
    }
    return Status::Ok();
  }

 private:
  ResizeAttrs attrs_;
};

// ResizeNearestNeighborGrad(grads: T [n, gh, gw, c], size: the input's [h, w]) -> T: each
// gradient pixel summed into the input pixel the forward op copied.
template <typename T>
class ResizeNearestNeighborGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& grads = ctx.input(0);
    int64_t ih, iw;
    GRAFT_RETURN_IF_ERROR(ReadResizeInputs(grads, ctx.input(1), "input", &ih, &iw));
    const Dims& gd = grads.dims();
    const int64_t n = gd[0], gh = gd[1], gw = gd[2], c = gd[3];
    // The forward op resized [ih, iw] to [gh, gw]: the same taps.
    const auto ys = NearestTaps(gh, ih, attrs_.Scale(ih, gh), attrs_);
    const auto xs = NearestTaps(gw, iw, attrs_.Scale(iw, gw), attrs_);
    Tensor* out = nullptr;
    const Dims out_dims{n, ih, iw, c};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, grads.dtype(), out_dims, &out));
    T* o = out->data<T>();
    std::fill_n(o, out->num_elements(), T(0));
    const T* g = grads.data<T>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t y : ys) {
        T* row = o + ((b * ih + y) * iw) * c;
        for (int64_t x : xs) {
          for (int64_t k = 0; k < c; ++k) row[x * c + k] = WrapAdd(row[x * c + k], *g++);
        }
      }
    }
    return Status::Ok();
  }

 private:
  ResizeAttrs attrs_;
};

// ---------------------------------------------------------------------------------------
// ResizeBicubic and ResizeBicubicGrad: TensorFlow's cubic convolution. Output pixel o reads
// the four input pixels around x = o * scale (or (o + 0.5) * scale - 0.5 under
// half_pixel_centers), floor(x) - 1 .. floor(x) + 2 clamped to the image, with weights from a
// table of 1025 steps of the cubic kernel (delta = x - floor(x) rounded to 1/1024). Legacy
// (half_pixel_centers off): Keys' kernel with a = -0.75, clamped pixels keeping their weights.
// Half-pixel: a = -0.5, and taps outside the image get weight 0, the others renormalised to
// sum to 1. Interpolated along y first (per column), then x, in float32.

constexpr int64_t kCubicTableSize = 1024;

std::vector<float> CubicTable(double a) {
  std::vector<float> t(static_cast<size_t>((kCubicTableSize + 1) * 2));
  for (int64_t i = 0; i <= kCubicTableSize; ++i) {
    float x = static_cast<float>(static_cast<double>(i) * 1.0 / kCubicTableSize);
    t[static_cast<size_t>(i * 2)] = static_cast<float>(((a + 2) * x - (a + 3)) * x * x + 1);
    x += 1.0f;
    t[static_cast<size_t>(i * 2 + 1)] = static_cast<float>(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  }
  return t;
}

struct CubicTaps {
  int64_t index[4];
  float weight[4];
};

std::vector<CubicTaps> BicubicTaps(int64_t out, int64_t in, float scale, bool half_pixel) {
  static const std::vector<float> keys = CubicTable(-0.5), legacy = CubicTable(-0.75);
  const std::vector<float>& table = half_pixel ? keys : legacy;
  std::vector<CubicTaps> taps(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const float x = half_pixel ? (static_cast<float>(o) + 0.5f) * scale - 0.5f : static_cast<float>(o) * scale;
    const auto loc = static_cast<int64_t>(std::floor(x));
    const float delta = x - static_cast<float>(loc);
    const int64_t offset = std::lrintf(delta * kCubicTableSize);
    const float w[4] = {table[static_cast<size_t>(offset * 2 + 1)], table[static_cast<size_t>(offset * 2)],
                        table[static_cast<size_t>((kCubicTableSize - offset) * 2)],
                        table[static_cast<size_t>((kCubicTableSize - offset) * 2 + 1)]};
    CubicTaps& t = taps[static_cast<size_t>(o)];
    for (int k = 0; k < 4; ++k) {
      const int64_t want = loc - 1 + k;
      t.index[k] = std::min(in - 1, std::max(int64_t{0}, want));
      t.weight[k] = half_pixel && t.index[k] != want ? 0.0f : w[k];
    }
    if (half_pixel) {
      const float sum = t.weight[0] + t.weight[1] + t.weight[2] + t.weight[3];
      if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
        const float inv = 1.0f / sum;
        for (float& v : t.weight) v *= inv;
      }
    }
  }
  return taps;
}

template <typename T>
class ResizeBicubicKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& images = ctx.input(0);
    ResizeShape s;
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(StartForwardResize(ctx, DType::kFloat32, &s, &out));
    const int64_t n = s.n, ih = s.ih, iw = s.iw, c = s.c, oh = s.oh, ow = s.ow;
    const auto ys = BicubicTaps(oh, ih, attrs_.Scale(ih, oh), attrs_.half_pixel_centers);
    const auto xs = BicubicTaps(ow, iw, attrs_.Scale(iw, ow), attrs_.half_pixel_centers);
    const T* src = images.data<T>();
    float* o = out->data<float>();
    for (int64_t b = 0; b < n; ++b) {
      const T* img = src + b * ih * iw * c;
      for (const CubicTaps& y : ys) {
        const T* rows[4];
        for (int k = 0; k < 4; ++k) rows[k] = img + y.index[k] * iw * c;
        for (const CubicTaps& x : xs) {
          for (int64_t ch = 0; ch < c; ++ch) {
            float col[4];
            for (int k = 0; k < 4; ++k) {
              const int64_t at = x.index[k] * c + ch;
              col[k] = static_cast<float>(rows[0][at]) * y.weight[0] + static_cast<float>(rows[1][at]) * y.weight[1] +
                       static_cast<float>(rows[2][at]) * y.weight[2] + static_cast<float>(rows[3][at]) * y.weight[3];
            }
            *o++ = col[0] * x.weight[0] + col[1] * x.weight[1] + col[2] * x.weight[2] + col[3] * x.weight[3];
          }
        }
      }
    }
    return Status::Ok();
  }

 private:
  ResizeAttrs attrs_;
};

// ResizeBicubicGrad(grads: float32 [n, oh, ow, c], original_image: T [n, ih, iw, c]) -> T:
// each gradient pixel sent back to the 4 x 4 pixels it read, with the forward weights.
template <typename T>
class ResizeBicubicGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& grads = ctx.input(0);
    const Tensor& image = ctx.input(1);
    if (grads.rank() != 4) return errors::InvalidArgument("input_grad must be 4-dimensional", ShapeText(grads.dims()));
    if (image.rank() != 4) {
      return errors::InvalidArgument("original_image must be 4-dimensional", ShapeText(image.dims()));
    }
    const Dims& gd = grads.dims();
    const Dims& id = image.dims();
    if (gd[3] != id[3] || gd[0] != id[0]) {
      return errors::InvalidArgument("ResizeBicubicGrad: grads (shape ", ShapeText(gd), ") and original_image (shape ",
                                     ShapeText(id), ") must agree in batch and channels");
    }
    const int64_t n = gd[0], oh = gd[1], ow = gd[2], c = gd[3], ih = id[1], iw = id[2];
    if (ih <= 0 || iw <= 0) return errors::InvalidArgument("original sizes must be positive");
    if (oh <= 0 || ow <= 0) return errors::InvalidArgument("resized sizes must be positive");
    const auto ys = BicubicTaps(oh, ih, attrs_.Scale(ih, oh), attrs_.half_pixel_centers);
    const auto xs = BicubicTaps(ow, iw, attrs_.Scale(iw, ow), attrs_.half_pixel_centers);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, image.dtype(), id, &out));
    T* o = out->data<T>();
    std::fill_n(o, out->num_elements(), T(0));
    const float* g = grads.data<float>();
    for (int64_t b = 0; b < n; ++b) {
      T* img = o + b * ih * iw * c;
      for (const CubicTaps& y : ys) {
        for (const CubicTaps& x : xs) {
          for (int64_t ch = 0; ch < c; ++ch) {
            const float v = *g++;
            for (int i = 0; i < 4; ++i) {
              T* row = img + y.index[i] * iw * c;
              for (int j = 0; j < 4; ++j) row[x.index[j] * c + ch] += static_cast<T>(v * y.weight[i] * x.weight[j]);
            }
          }
        }
      }
    }
    return Status::Ok();
  }

 private:
  ResizeAttrs attrs_;
};

}  // namespace

// image_transform_kernels.cc: ImageProjectiveTransformV2/V3, registered with this family.
void RegisterImageTransformKernels(KernelRegistry& r);

void RegisterImageKernels(KernelRegistry& r) {
  // float16 and bfloat16 come from float16_kernels.cc's float32 adapter.
  RegisterTypes<ResizeBilinearKernel, float, double, int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t>(
      r, "ResizeBilinear");
  RegisterTypes<ResizeNearestNeighborKernel, float, double, int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t>(
      r, "ResizeNearestNeighbor");
  RegisterTypes<ResizeBilinearGradKernel, float, double>(r, "ResizeBilinearGrad");
  RegisterTypes<ResizeBicubicKernel, float, double, int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t>(
      r, "ResizeBicubic");
  RegisterTypes<ResizeBicubicGradKernel, float, double>(r, "ResizeBicubicGrad");
  RegisterTypes<ResizeNearestNeighborGradKernel, float, double, int8_t, uint8_t, int32_t>(r, "ResizeNearestNeighborGrad");
  RegisterImageTransformKernels(r);
}

}  // namespace graft::cpu
