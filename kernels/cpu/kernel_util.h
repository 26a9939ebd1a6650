// Helpers shared by the CPU kernels: reading attrs at construction, broadcasting shapes.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/runtime/device.h"
#include "core/runtime/kernel.h"

namespace graft::cpu {

template <typename T>
Status GetAttr(const Node& node, const char* name, T* out) {
  const AttrValue* v = node.attr(name);
  const T* p = v ? v->get<T>() : nullptr;
  if (p == nullptr) return errors::InvalidArgument("attr '", name, "' is missing or of the wrong type");
  *out = *p;
  return Status::Ok();
}

// An int attr a kernel keeps as int32, as TensorFlow's do: a value out of its range is an error
// naming the attr, not a silent truncation.
inline Status GetAttr(const Node& node, const char* name, int32_t* out) {
  int64_t v = 0;
  GRAFT_RETURN_IF_ERROR(GetAttr<int64_t>(node, name, &v));
  if (v < INT32_MIN || v > INT32_MAX) {
    return errors::InvalidArgument("attr '", name, "' has value ", v, " out of range for an int32");
  }
  *out = static_cast<int32_t>(v);
  return Status::Ok();
}

// The dtypes of C++ element types.
// Element pointers; string tensors keep their elements apart from the buffer.
template <typename T>
const T* Elements(const Tensor& t) {
  if constexpr (std::is_same_v<T, std::string>) {
    return t.strings().data();
  } else {
    return t.data<T>();
  }
}

template <typename... Ts>
std::vector<DType> DTypesOf() {
  return {DTypeOf<Ts>()...};
}

// The C++ element types of TensorFlow's realnumbertype and numbertype (kernels that register
// one instantiation per type: reductions, segment reductions, scatters).
#define GRAFT_CPU_REAL_TYPES float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
#define GRAFT_CPU_NUMBER_TYPES GRAFT_CPU_REAL_TYPES, std::complex<float>, std::complex<double>

// Registers K<T> for each listed C++ type, keyed by its dtype on attr.
template <template <typename> class K, typename... Ts>
void RegisterTypes(KernelRegistry& r, const char* op, const char* attr = "T") {
  ((void)r.Register(op, kDeviceCpu, attr, {DTypeOf<Ts>()}, &CreateKernel<K<Ts>>), ...);
}

// Integer arithmetic wraps (two's complement), as TensorFlow's kernels do: it is done in an
// unsigned type at least as wide as unsigned int (narrower types would promote to int, where
// overflow is undefined). Other types use their own operators.
template <typename T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct WrapType {
  using type = T;
};
template <typename T>
struct WrapType<T, true> {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <typename T>
using Wrap = typename WrapType<T>::type;
template <typename T>
T WrapAdd(T a, T b) { return static_cast<T>(static_cast<Wrap<T>>(a) + static_cast<Wrap<T>>(b)); }
template <typename T>
T WrapSub(T a, T b) { return static_cast<T>(static_cast<Wrap<T>>(a) - static_cast<Wrap<T>>(b)); }
template <typename T>
T WrapMul(T a, T b) { return static_cast<T>(static_cast<Wrap<T>>(a) * static_cast<Wrap<T>>(b)); }

// Numpy broadcasting of two shapes, with what each input needs to be read in the output's
// index space: per output dim, the input's stride (0 where it broadcasts).
struct Broadcast {
  std::vector<int64_t> out_dims;
  std::vector<int64_t> a_strides;
  std::vector<int64_t> b_strides;
  int64_t out_elements = 1;
};
Status MakeBroadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, Broadcast* out);
std::string ShapeText(const std::vector<int64_t>& dims);

// GRAFT_CPU_CLONES before a function compiles it also for AVX-512 and for AVX2 with FMA, one
// chosen when the library loads by what the CPU has (target_clones; the rest of the library is
// built for the x86-64 baseline), for the few hot loops that gain from wider vectors. The
// wider builds fuse multiplies and adds, so results can differ from the baseline build's in
// the last bit (well inside TensorFlow's float32 tolerances). flatten:
// the loops it calls are inlined into each clone, not called in their baseline build. Empty
// under the sanitizers (the clone is picked by an ifunc resolver that runs while the library is
// relocated, before their runtime is up: a TSan build crashes there), with clang, and without
// glibc (musl has no ifunc).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define GRAFT_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), flatten))
#else
#define GRAFT_CPU_CLONES
#endif

// Whether OpenBLAS runs a product of at least this many multiply-adds over every core with
// threads of its own: its thread count is above one and at least the machine's hardware
// threads (read when a plan is made), and the product is not one it runs on the calling thread
// (2^18 multiply-adds or fewer). Callers pass a lower bound from shape inference (an unknown
// dimension counts as 1), so a plan is only made sequential for products known to be large. A
// kernel whose work is such a product says so through OpKernel::UsesAllCores.
bool BlasUsesThreads(double multiply_adds);
// The number of elements of a shape with its unknown dimensions counted as 1 (a lower bound;
// 1 for an unknown rank).
double KnownElements(const PartialShape& shape);
// The shape that shape inference gave a node's input i.
inline const PartialShape& InputShape(const Node& node, int i) {
  const Output& in = node.input(i);
  return in.node->output_shape(in.index);
}
template <typename T>
inline constexpr bool kBlasType = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                  std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// Applies f to every element pair of a and b (broadcast), writing out. bc.out_elements must
// be > 0; idx is scratch for one counter per output dim. The elementwise engine's general case
// (elementwise.h).
template <typename T, typename R, typename F>
void BroadcastLoop(const T* a, const T* b, R* out, const Broadcast& bc, int64_t* idx, F f) {
  const size_t rank = bc.out_dims.size();
  if (rank == 0) {
    out[0] = f(a[0], b[0]);
    return;
  }
  // Walk the output in row-major order with an index counter; the innermost dim is a tight
  // loop with constant strides.
  std::fill(idx, idx + rank, int64_t{0});
  const int64_t inner = bc.out_dims[rank - 1];
  const int64_t sa = bc.a_strides[rank - 1], sb = bc.b_strides[rank - 1];
  int64_t oa = 0, ob = 0;
  for (int64_t o = 0; o < bc.out_elements; o += inner) {
    for (int64_t i = 0; i < inner; ++i) out[o + i] = f(a[oa + i * sa], b[ob + i * sb]);
    // Advance the outer dims.
    for (size_t d = rank - 1; d-- > 0;) {
      oa += bc.a_strides[d];
      ob += bc.b_strides[d];
      if (++idx[d] < bc.out_dims[d]) break;
      oa -= bc.a_strides[d] * bc.out_dims[d];
      ob -= bc.b_strides[d] * bc.out_dims[d];
      idx[d] = 0;
    }
  }
}
template <typename T, typename R, typename F>
void BroadcastLoop(const T* a, const T* b, R* out, const Broadcast& bc, F f) {
  std::vector<int64_t> idx(bc.out_dims.size(), 0);
  BroadcastLoop(a, b, out, bc, idx.data(), f);
}

}  // namespace graft::cpu
