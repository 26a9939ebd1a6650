// convert_to_tensor for host data: numbers, bools and strings given flat with dims, as a
// tensor of a requested dtype (which must fit every value) or of the inferred one (int32 for
// integers that all fit it, else int64; float32 for floats).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace graft::eager {

// Whether the double v converts to the integer type T without overflow (NaN does not).
// Below 2^digits, not <= max: the double nearest int64's or uint64's max is 2^63 or 2^64, one
// past it, and converting that is undefined.
template <typename T>
bool DoubleFitsInteger(double v) {
  return v >= static_cast<double>(std::numeric_limits<T>::lowest()) && v < std::ldexp(1.0, std::numeric_limits<T>::digits);
}

Status TensorFromInts(std::span<const int64_t> values, std::span<const int64_t> dims, DType dtype, Tensor* out);
Status TensorFromDoubles(std::span<const double> values, std::span<const int64_t> dims, DType dtype, Tensor* out);
Status TensorFromBools(std::span<const bool> values, std::span<const int64_t> dims, DType dtype, Tensor* out);
Status TensorFromHostStrings(std::vector<std::string> values, std::span<const int64_t> dims, DType dtype, Tensor* out);

}  // namespace graft::eager
