// CPU kernels for ImageProjectiveTransformV2 and V3 (NHWC), as TensorFlow's image_ops.h: each
// output pixel (y, x) of image b reads the input at the projective map of (x, y) by the
// image's transform [a0, a1, a2, b0, b1, b2, c0, c1] (or the one transform shared by every
// image): (x', y') = ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k) with k = c0 x + c1 y + 1
// (k = 0 gives the fill value). Coordinates outside the image are mapped by fill_mode
// (REFLECT, WRAP, CONSTANT, NEAREST), then read with NEAREST (round half away from zero) or
// BILINEAR interpolation, in float; a pixel that is still outside reads fill_value (V3's input,
// 0 for V2). Keras' RandomRotation, RandomZoom and RandomTranslation emit V3.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

enum class FillMode { kReflect, kWrap, kConstant, kNearest };

float Clamp(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

// TensorFlow's MapCoordinate for each fill mode (len: the input's size along the axis).
float MapCoordinate(FillMode mode, float in, int64_t len) {
  switch (mode) {
    case FillMode::kReflect:
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz2 = 2 * len;
          if (in < static_cast<float>(sz2)) in = static_cast<float>(sz2 * static_cast<int64_t>(-in / static_cast<float>(sz2))) + in;
          in = (in < static_cast<float>(-len)) ? in + static_cast<float>(sz2) : -in - 1;
        }
      } else if (in > static_cast<float>(len - 1)) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz2 = 2 * len;
          in -= static_cast<float>(sz2 * static_cast<int64_t>(in / static_cast<float>(sz2)));
          if (in >= static_cast<float>(len)) in = static_cast<float>(sz2) - in - 1;
        }
      }
      return Clamp(in, 0.0f, static_cast<float>(len - 1));
    case FillMode::kWrap:
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz = len - 1;
          in += static_cast<float>(len * (static_cast<int64_t>(-in / static_cast<float>(sz)) + 1));
        }
      } else if (in > static_cast<float>(len - 1)) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz = len - 1;
          in -= static_cast<float>(len * static_cast<int64_t>(in / static_cast<float>(sz)));
        }
      }
      return Clamp(in, 0.0f, static_cast<float>(len - 1));
    case FillMode::kConstant:
      return in;
    case FillMode::kNearest:
      return Clamp(in, 0.0f, static_cast<float>(len - 1));
  }
  return in;
}

template <typename T>
class ImageProjectiveTransformKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    std::string interpolation, fill_mode = "CONSTANT";
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "interpolation", &interpolation));
    if (node().attr("fill_mode") != nullptr) GRAFT_RETURN_IF_ERROR(GetAttr(node(), "fill_mode", &fill_mode));
    if (interpolation == "NEAREST") {
      bilinear_ = false;
    } else if (interpolation == "BILINEAR") {
      bilinear_ = true;
    } else {
      return errors::InvalidArgument("Invalid interpolation ", interpolation, ". Supported types: NEAREST, BILINEAR");
    }
    if (fill_mode == "REFLECT") {
      mode_ = FillMode::kReflect;
    } else if (fill_mode == "WRAP") {
      mode_ = FillMode::kWrap;
    } else if (fill_mode == "CONSTANT") {
      mode_ = FillMode::kConstant;
    } else if (fill_mode == "NEAREST") {
      mode_ = FillMode::kNearest;
    } else {
      return errors::InvalidArgument("Invalid fill_mode ", fill_mode, ". Supported types: REFLECT, WRAP, CONSTANT, NEAREST");
    }
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& images = ctx.input(0);
    const Tensor& transforms = ctx.input(1);
    const Tensor& shape = ctx.input(2);
    if (images.rank() != 4) return errors::InvalidArgument("Input images must have rank 4");
    const int64_t batch = images.dim(0), in_h = images.dim(1), in_w = images.dim(2), channels = images.dim(3);
    if (transforms.rank() != 2 || (transforms.dim(0) != batch && transforms.dim(0) != 1) || transforms.dim(1) != 8) {
      return errors::InvalidArgument("Input transform should be num_images x 8 or 1 x 8");
    }
    if (shape.rank() != 1 || shape.num_elements() != 2) {
      return errors::InvalidArgument("output shape must be 1-dimensional with 2 elements, got shape ",
                                     ShapeText(shape.dims()));
    }
    const int32_t out_h = shape.data<int32_t>()[0], out_w = shape.data<int32_t>()[1];
    if (out_h <= 0 || out_w <= 0) return errors::InvalidArgument("output dimensions must be positive");
    T fill = T{0};
    if (ctx.num_inputs() > 3) {
      const Tensor& f = ctx.input(3);
      if (f.rank() != 0) return errors::InvalidArgument("fill_value must be a scalar, got shape ", ShapeText(f.dims()));
      fill = static_cast<T>(f.data<float>()[0]);
    }
    Tensor* out = nullptr;
    const std::vector<int64_t> out_dims = {batch, out_h, out_w, channels};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, images.dtype(), out_dims, &out));
    const T* in = images.data<T>();
    const float* tr_all = transforms.data<float>();
    T* o = out->data<T>();
    auto read = [&](int64_t b, int64_t y, int64_t x, int64_t c) -> T {
      return (0 <= y && y < in_h && 0 <= x && x < in_w) ? in[((b * in_h + y) * in_w + x) * channels + c] : fill;
    };
    for (int64_t b = 0; b < batch; ++b) {
      const float* t = transforms.dim(0) == 1 ? tr_all : tr_all + 8 * b;
      for (int64_t oy = 0; oy < out_h; ++oy) {
        for (int64_t ox = 0; ox < out_w; ++ox) {
          T* px = o + ((b * out_h + oy) * out_w + ox) * channels;
          const float fx = static_cast<float>(ox), fy = static_cast<float>(oy);
          const float projection = t[6] * fx + t[7] * fy + 1.f;
          if (projection == 0) {
            for (int64_t c = 0; c < channels; ++c) px[c] = fill;
            continue;
          }
          const float in_x = (t[0] * fx + t[1] * fy + t[2]) / projection;
          const float in_y = (t[3] * fx + t[4] * fy + t[5]) / projection;
          const float x = MapCoordinate(mode_, in_x, in_w);
          const float y = MapCoordinate(mode_, in_y, in_h);
          if (!bilinear_) {
            const int64_t ry = static_cast<int64_t>(std::round(y)), rx = static_cast<int64_t>(std::round(x));
            for (int64_t c = 0; c < channels; ++c) px[c] = read(b, ry, rx, c);
            continue;
          }
          const float y_floor = std::floor(y), x_floor = std::floor(x);
          const float y_ceil = y_floor + 1, x_ceil = x_floor + 1;
          const int64_t yf = static_cast<int64_t>(y_floor), xf = static_cast<int64_t>(x_floor);
          const int64_t yc = static_cast<int64_t>(y_ceil), xc = static_cast<int64_t>(x_ceil);
          for (int64_t c = 0; c < channels; ++c) {
            const float v_yfloor = (x_ceil - x) * static_cast<float>(read(b, yf, xf, c)) +
                                   (x - x_floor) * static_cast<float>(read(b, yf, xc, c));
            const float v_yceil = (x_ceil - x) * static_cast<float>(read(b, yc, xf, c)) +
                                  (x - x_floor) * static_cast<float>(read(b, yc, xc, c));
            px[c] = static_cast<T>((y_ceil - y) * v_yfloor + (y - y_floor) * v_yceil);
          }
        }
      }
    }
    return Status::Ok();
  }

 private:
  bool bilinear_ = true;
  FillMode mode_ = FillMode::kConstant;
};

}  // namespace

void RegisterImageTransformKernels(KernelRegistry& r) {
  for (const char* op : {"ImageProjectiveTransformV2", "ImageProjectiveTransformV3"}) {
    RegisterTypes<ImageProjectiveTransformKernel, uint8_t, int32_t, int64_t, float, double>(r, op, "dtype");
  }
}

}  // namespace graft::cpu
