// CPU kernel for Cast between any two of the real, bool and complex dtypes, float16 and
// bfloat16.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/float16.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// ---------------------------------------------------------------------------------------
// Cast.

// A float to an integer as TensorFlow's CPU kernel converts: truncation toward zero, and for
// NaN, infinities and values out of range the x86 conversion's "integer indefinite" value,
// the lowest of the width (int32 -2147483648, int64 -2^63). Types narrower than 32 bits
// convert through int32 and keep its low bits (NaN gives 0, 300.7 to int8 gives 44), uint32
// through int64 (-1.5 gives 4294967295), uint64 through int64 below 2^63.
template <typename S, typename D>
D FloatToInt(S x) {
  if constexpr (std::is_same_v<D, int32_t> || std::is_same_v<D, int64_t>) {
    constexpr S lo = static_cast<S>(std::numeric_limits<D>::lowest());  // -2^31 or -2^63, exact
    if (!(x >= lo && x < -lo)) return std::numeric_limits<D>::lowest();  // (NaN fails both)
    return static_cast<D>(x);
  } else if constexpr (std::is_same_v<D, uint64_t>) {
    constexpr S two63 = static_cast<S>(9223372036854775808.0);
    if (x >= two63 && x < two63 * 2) return static_cast<uint64_t>(x);
    return static_cast<uint64_t>(FloatToInt<S, int64_t>(x));
  } else if constexpr (std::is_same_v<D, uint32_t>) {
    return static_cast<uint32_t>(FloatToInt<S, int64_t>(x));
  } else {
    return static_cast<D>(FloatToInt<S, int32_t>(x));
  }
}

template <typename S, typename D>
D CastOne(S x) {
  if constexpr (std::is_same_v<D, bool>) {
    return x != S(0);
  } else if constexpr (std::is_same_v<S, std::complex<float>> || std::is_same_v<S, std::complex<double>>) {
    if constexpr (std::is_same_v<D, std::complex<float>> || std::is_same_v<D, std::complex<double>>) {
      return D(static_cast<typename D::value_type>(x.real()), static_cast<typename D::value_type>(x.imag()));
    } else {
      return CastOne<typename S::value_type, D>(x.real());  // the real part, as numpy does
    }
  } else if constexpr (std::is_same_v<D, std::complex<float>> || std::is_same_v<D, std::complex<double>>) {
    return D(static_cast<typename D::value_type>(x), 0);
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    return FloatToInt<S, D>(x);
  } else {
    return static_cast<D>(x);  // integers wrap (two's complement), floats round to nearest
  }
}

template <typename S, typename D>
void CastLoop(const void* in, void* out, int64_t n) {
  const S* src = static_cast<const S*>(in);
  D* dst = static_cast<D*>(out);
  for (int64_t i = 0; i < n; ++i) dst[i] = CastOne<S, D>(src[i]);
}

using CastFn = void (*)(const void*, void*, int64_t);

template <typename S, typename... Ds>
CastFn PickCast(DType dst) {
  CastFn fn = nullptr;
  ((fn = fn == nullptr && DTypeOf<Ds>() == dst ? &CastLoop<S, Ds> : fn), ...);
  return fn;
}

#define GRAFT_CAST_TYPES float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, bool, \
                         std::complex<float>, std::complex<double>

// The cast function from src to dst, both of GRAFT_CAST_TYPES (nullptr when there is none).
template <typename... Ss>
CastFn PickCastFrom(DType src, DType dst) {
  CastFn fn = nullptr;
  ((fn = fn == nullptr && DTypeOf<Ss>() == src ? PickCast<Ss, GRAFT_CAST_TYPES>(dst) : fn), ...);
  return fn;
}

// Cast between any two of GRAFT_CAST_TYPES, float16 and bfloat16. The 16-bit floats are
// widened to float32 first and narrowed from float32 last (to nearest even; Truncate drops
// the low bits instead), as Eigen's 16-bit types convert.
class CastKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "SrcT", &src_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "DstT", &dst_));
    if (node().attr("Truncate") != nullptr) GRAFT_RETURN_IF_ERROR(GetAttr(node(), "Truncate", &truncate_));
    const DType from = Is16BitFloat(src_) ? DType::kFloat32 : src_;
    const DType to = Is16BitFloat(dst_) ? DType::kFloat32 : dst_;
    if (from != to) {
      fn_ = PickCastFrom<GRAFT_CAST_TYPES>(from, to);
      if (fn_ == nullptr) {
        return errors::Unimplemented("Cast ", DTypeName(src_), " to ", DTypeName(dst_), " is not supported");
      }
    }
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (dst_ == src_) {
      ctx.SetOutput(0, x);
      return Status::Ok();
    }
    Tensor v = x;
    if (Is16BitFloat(src_)) GRAFT_RETURN_IF_ERROR(WidenToFloat32(x, &v));
    if (!Is16BitFloat(dst_)) {
      if (fn_ == nullptr) {  // a widened 16-bit float, asked for as float32
        ctx.SetOutput(0, std::move(v));
        return Status::Ok();
      }
      Tensor* out = nullptr;
      GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, dst_, x.dims(), &out));
      if (x.num_elements() > 0) fn_(v.raw_data(), out->raw_data(), x.num_elements());
      return Status::Ok();
    }
    if (fn_ != nullptr) {  // to float32 first
      Tensor wide;
      GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(DType::kFloat32, x.dims(), &wide));
      if (x.num_elements() > 0) fn_(v.raw_data(), wide.raw_data(), x.num_elements());
      v = std::move(wide);
    }
    Tensor narrow;
    GRAFT_RETURN_IF_ERROR(NarrowFromFloat32(v, dst_, truncate_, &narrow));
    ctx.SetOutput(0, std::move(narrow));
    return Status::Ok();
  }

 private:
  DType src_ = DType::kInvalid;
  DType dst_ = DType::kInvalid;
  bool truncate_ = false;
  CastFn fn_ = nullptr;  // between the float32-or-own ends; nullptr when they are the same
};


}  // namespace

void RegisterCastKernels(KernelRegistry& r) {
  std::vector<DType> cast_types = DTypesOf<GRAFT_CAST_TYPES>();
  cast_types.insert(cast_types.end(), {DType::kFloat16, DType::kBFloat16});
  (void)r.Register("Cast", kDeviceCpu, "SrcT", std::move(cast_types), &CreateKernel<CastKernel>);
}

}  // namespace graft::cpu
