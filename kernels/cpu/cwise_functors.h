// The functors of the basic elementwise ops, shared by their own kernels (cwise_kernels.cc,
// math_kernels.cc) and the fused elementwise kernel (fused_elementwise_kernels.cc), so that a
// fused chain computes exactly what the ops one by one do.
#pragma once

#include <cmath>
#include <complex>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"

namespace graft::cpu {

// Integer Add, Sub and Mul wrap (kernel_util.h).
struct AddF { template <typename T> T operator()(T a, T b) const { return WrapAdd(a, b); } };
struct SubF { template <typename T> T operator()(T a, T b) const { return WrapSub(a, b); } };
struct MulF { template <typename T> T operator()(T a, T b) const { return WrapMul(a, b); } };
struct MaxF { template <typename T> T operator()(T a, T b) const { return a > b || a != a ? a : b; } };
struct MinF { template <typename T> T operator()(T a, T b) const { return a < b || a != a ? a : b; } };
struct SqDiffF {
  template <typename T> T operator()(T a, T b) const { const T d = SubF()(a, b); return MulF()(d, d); }
};
// Integers negate with wrapping; floats flip the sign (-0.0 and NaNs included).
struct NegF {
  template <typename T> T operator()(T a) const {
    if constexpr (std::is_integral_v<T>) {
      return WrapSub(T(0), a);
    } else {
      return -a;
    }
  }
};
struct AbsF {
  template <typename T> T operator()(T a) const {
    if constexpr (std::is_integral_v<T>) {
      return a < T(0) ? NegF()(a) : a;
    } else {
      return std::abs(a);  // abs(-0.0) is +0.0
    }
  }
};
struct SquareF { template <typename T> T operator()(T a) const { return MulF()(a, a); } };
struct SqrtF { template <typename T> T operator()(T a) const { return std::sqrt(a); } };
struct RsqrtF { template <typename T> T operator()(T a) const { return T(1) / std::sqrt(a); } };
struct ExpF { template <typename T> T operator()(T a) const { return std::exp(a); } };
struct LogF { template <typename T> T operator()(T a) const { return std::log(a); } };
struct TanhF { template <typename T> T operator()(T a) const { return std::tanh(a); } };
struct SigmoidF { template <typename T> T operator()(T a) const { return T(1) / (T(1) + std::exp(-a)); } };
struct ReluF { template <typename T> T operator()(T a) const { return a > T(0) ? a : T(0); } };
struct SinF { template <typename T> T operator()(T x) const { return std::sin(x); } };
struct CosF { template <typename T> T operator()(T x) const { return std::cos(x); } };

}  // namespace graft::cpu
