// How a scatter combines an update u into an element d of its destination: shared by the
// scatters into variables (sparse_variable_kernels.cc: ResourceScatterAdd, ...) and into
// tensors (scatter_nd_kernels.cc: ScatterNd, TensorScatterAdd, ...). Integer arithmetic wraps
// as TensorFlow's does; Add of bools is OR and of strings concatenation (ScatterNd sums
// duplicate indices for every type).
#pragma once

#include "kernels/cpu/kernel_util.h"

namespace graft::cpu {

struct ScatterAdd {
  template <typename T>
  static void Apply(T& d, const T& u) {
    if constexpr (std::is_same_v<T, bool>) {
      d = d || u;
    } else {
      d = WrapAdd(d, u);
    }
  }
};
struct ScatterSub {
  template <typename T>
  static void Apply(T& d, T u) { d = WrapSub(d, u); }
};
struct ScatterMul {
  template <typename T>
  static void Apply(T& d, T u) { d = WrapMul(d, u); }
};
struct ScatterDiv {
  template <typename T>
  static void Apply(T& d, T u) { d = d / u; }
};
struct ScatterMin {
  template <typename T>
  static void Apply(T& d, T u) { d = u < d ? u : d; }
};
struct ScatterMax {
  template <typename T>
  static void Apply(T& d, T u) { d = u > d ? u : d; }
};
struct ScatterUpdate {
  template <typename T>
  static void Apply(T& d, const T& u) { d = u; }
};

}  // namespace graft::cpu
