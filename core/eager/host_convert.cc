#include "core/eager/host_convert.h"

#include <cmath>
#include <limits>

#include "core/float16.h"

namespace graft::eager {
namespace {

template <typename T>
bool Fits(double v) {
  if constexpr (std::is_integral_v<T>) {
    return DoubleFitsInteger<T>(v);
  } else {
    return !std::isfinite(v) || std::fabs(v) <= static_cast<double>(std::numeric_limits<T>::max());
  }
}

template <typename T, typename S>
Status Store(std::span<const S> values, std::span<const int64_t> dims, DType dtype, bool integral, Tensor* out) {
  Tensor t;
  GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(dtype, dims, &t));
  if (t.num_elements() != static_cast<int64_t>(values.size())) {
    return errors::InvalidArgument(values.size(), " values for a tensor of shape ", t.shape().ToString());
  }
  T* p = t.num_elements() > 0 ? t.data<T>() : nullptr;
  for (size_t i = 0; i < values.size(); ++i) {
    double v = static_cast<double>(values[i]);
    if constexpr (std::is_integral_v<T>) {
      if (!integral && v != std::floor(v)) {
        return errors::DTypeError("element ", i, " (", v, ") is not an integer, so it cannot be ", DTypeName(dtype));
      }
      if constexpr (std::is_same_v<S, int64_t> && std::is_same_v<T, int64_t>) {
        p[i] = values[i];
        continue;
      }
    }
    if (!Fits<T>(v)) return errors::InvalidArgument("element ", i, " (", v, ") does not fit ", DTypeName(dtype));
    p[i] = static_cast<T>(values[i]);
  }
  *out = std::move(t);
  return Status::Ok();
}

template <typename S>
Status StoreNumbers(std::span<const S> values, std::span<const int64_t> dims, DType dtype, bool integral, Tensor* out) {
  switch (dtype) {
    case DType::kFloat32: return Store<float>(values, dims, dtype, integral, out);
    case DType::kFloat64: return Store<double>(values, dims, dtype, integral, out);
    case DType::kInt8: return Store<int8_t>(values, dims, dtype, integral, out);
    case DType::kInt16: return Store<int16_t>(values, dims, dtype, integral, out);
    case DType::kInt32: return Store<int32_t>(values, dims, dtype, integral, out);
    case DType::kInt64: return Store<int64_t>(values, dims, dtype, integral, out);
    case DType::kUInt8: return Store<uint8_t>(values, dims, dtype, integral, out);
    case DType::kUInt16: return Store<uint16_t>(values, dims, dtype, integral, out);
    case DType::kUInt32: return Store<uint32_t>(values, dims, dtype, integral, out);
    case DType::kUInt64: return Store<uint64_t>(values, dims, dtype, integral, out);
    case DType::kFloat16:
    case DType::kBFloat16: {  // through float32, rounded to nearest even (70000 as float16 is inf)
      Tensor wide;
      GRAFT_RETURN_IF_ERROR(Store<float>(values, dims, DType::kFloat32, integral, &wide));
      return NarrowFromFloat32(wide, dtype, /*truncate=*/false, out);
    }
    default:
      return errors::DTypeError("host ", integral ? "integers" : "floats", " cannot be converted to ", DTypeName(dtype));
  }
}

}  // namespace

Status TensorFromInts(std::span<const int64_t> values, std::span<const int64_t> dims, DType dtype, Tensor* out) {
  if (dtype == DType::kInvalid) {
    dtype = DType::kInt32;
    for (int64_t v : values) {
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) dtype = DType::kInt64;
    }
  }
  return StoreNumbers(values, dims, dtype, true, out);
}

Status TensorFromDoubles(std::span<const double> values, std::span<const int64_t> dims, DType dtype, Tensor* out) {
  if (dtype == DType::kInvalid) dtype = DType::kFloat32;
  return StoreNumbers(values, dims, dtype, false, out);
}

Status TensorFromBools(std::span<const bool> values, std::span<const int64_t> dims, DType dtype, Tensor* out) {
  if (dtype != DType::kInvalid && dtype != DType::kBool) {
    return errors::DTypeError("host bools cannot be converted to ", DTypeName(dtype));
  }
  Tensor t;
  GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(DType::kBool, dims, &t));
  if (t.num_elements() != static_cast<int64_t>(values.size())) {
    return errors::InvalidArgument(values.size(), " values for a tensor of shape ", t.shape().ToString());
  }
  for (size_t i = 0; i < values.size(); ++i) t.data<bool>()[i] = values[i];
  *out = std::move(t);
  return Status::Ok();
}

Status TensorFromHostStrings(std::vector<std::string> values, std::span<const int64_t> dims, DType dtype, Tensor* out) {
  if (dtype != DType::kInvalid && dtype != DType::kString) {
    return errors::DTypeError("host strings cannot be converted to ", DTypeName(dtype));
  }
  return Tensor::FromStrings(dims, std::move(values), out);
}

}  // namespace graft::eager
