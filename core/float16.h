// float16 (IEEE binary16) and bfloat16 values, stored as uint16_t, and their conversions to
// and from float32 (for the kernels that compute them in float32, Cast, and host values). Narrowing rounds to nearest, ties to even, as TensorFlow (Eigen) does:
// float16 overflows to infinity from 65520 up, keeps subnormals down to 2^-24, and a NaN
// becomes the quiet NaN 0x7e00 (bfloat16: 0x7fc0) with its sign.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "core/tensor.h"

namespace graft {

inline bool Is16BitFloat(DType dtype) { return dtype == DType::kFloat16 || dtype == DType::kBFloat16; }

// A float32 copy of a float16 or bfloat16 tensor.
Status WidenToFloat32(const Tensor& in, Tensor* out);
// A float16 or bfloat16 copy of a float32 tensor, rounded to nearest even (or, with truncate,
// truncated as Cast's Truncate attr asks).
Status NarrowFromFloat32(const Tensor& in, DType dtype, bool truncate, Tensor* out);

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float v = static_cast<float>(mantissa) * (1.0f / 16777216.0f);
    return sign != 0 ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline uint16_t FloatToHalf(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;        // NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;       // >= 65520 (or infinity): infinity
  if (magnitude < 0x38800000u) {                             // below 2^-14: subnormal or zero
    // In units of 2^-24 (exact: a power-of-two scaling), rounded to nearest even.
    const float units = std::bit_cast<float>(magnitude) * 16777216.0f;
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(units)));
  }
  magnitude += 0xfffu + ((magnitude >> 13) & 1u);  // round the 13 dropped bits, ties to even
  return static_cast<uint16_t>(sign | ((magnitude - 0x38000000u) >> 13));  // rebias 127 -> 15
}

inline float BFloat16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline uint16_t FloatToBFloat16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>(((bits >> 16) & 0x8000u) | 0x7fc0u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// Cast's Truncate=true for float16: the float's low 13 mantissa bits are cleared first, as
// TensorFlow does, so that the conversion drops them instead of rounding.
inline uint16_t FloatToHalfTruncated(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return FloatToHalf(f);
  return FloatToHalf(std::bit_cast<float>(bits & ~0x1fffu));
}

// Cast's Truncate=true for bfloat16: drop the low 16 bits (a NaN stays a NaN).
inline uint16_t FloatToBFloat16Truncated(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>(((bits >> 16) & 0x8000u) | 0x7fc0u);
  return static_cast<uint16_t>(bits >> 16);
}

}  // namespace graft
