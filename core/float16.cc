#include "core/float16.h"

namespace graft {

Status WidenToFloat32(const Tensor& in, Tensor* out) {
  GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(DType::kFloat32, in.dims(), out));
  const uint16_t* src = in.data<uint16_t>();
  float* dst = out->data<float>();
  const int64_t n = in.num_elements();
  if (in.dtype() == DType::kFloat16) {
    for (int64_t i = 0; i < n; ++i) dst[i] = HalfToFloat(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = BFloat16ToFloat(src[i]);
  }
  return Status::Ok();
}

Status NarrowFromFloat32(const Tensor& in, DType dtype, bool truncate, Tensor* out) {
  GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(dtype, in.dims(), out));
  const float* src = in.data<float>();
  uint16_t* dst = out->data<uint16_t>();
  const int64_t n = in.num_elements();
  if (dtype == DType::kFloat16 && truncate) {
    for (int64_t i = 0; i < n; ++i) dst[i] = FloatToHalfTruncated(src[i]);
  } else if (dtype == DType::kFloat16) {
    for (int64_t i = 0; i < n; ++i) dst[i] = FloatToHalf(src[i]);
  } else if (truncate) {
    for (int64_t i = 0; i < n; ++i) dst[i] = FloatToBFloat16Truncated(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = FloatToBFloat16(src[i]);
  }
  return Status::Ok();
}

}  // namespace graft
