// The elementwise engine of the CPU kernels: one binary kernel (numpy broadcasting) and one
// unary kernel, each a template over the input type T, the output type R and a functor F,
// and the registration helpers and dtype lists that every elementwise family uses
// (cwise_kernels.cc: arithmetic and the basic math functions; math_kernels.cc: divisions,
// comparisons, logical ops and the rest of the unary functions).
//
// A functor is `R operator()(T, T) const` (or `(T) const`) and may add, for binary ops:
//   static Status Check(const T* y, int64_t n)  -- inspects the second input before any
//       element is computed (integer division by zero, negative integer powers);
//   static constexpr bool kIncompatibleShapeValue -- the op honours the node's
//       incompatible_shape_error = false: shapes that do not broadcast give this scalar.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/kernel_util.h"

namespace graft::cpu {

// How a binary op's operands combine, decided and its output allocated once for every
// instance of BinaryKernel (elementwise.cc): the ~300 instances keep only their loops.
struct BinaryPlan {
  enum Mode : uint8_t { kSameShape, kScalarB, kScalarA, kBroadcast, kIncompatible };
  BinaryPlan();
  ~BinaryPlan();  // out of line: the instances do not each carry Broadcast's destructor
  Mode mode = kSameShape;
  Tensor* out = nullptr;
  Broadcast bc;               // kBroadcast
  std::vector<int64_t> idx;   // kBroadcast: BroadcastLoop's counter, one per output dim
};
// Picks the loop for inputs 0 and 1 and allocates output 0 of out_dtype, over an input of
// the output's shape when may_forward. Shapes that do not broadcast are an error, or, when
// incompatible_ok, a bool scalar output and mode kIncompatible.
Status PlanBinary(OpKernelContext& ctx, DType out_dtype, bool may_forward, bool incompatible_ok, BinaryPlan* plan);

template <typename T, typename R, typename F>
class BinaryKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    if constexpr (kHasShapeValue) {
      if (const AttrValue* v = node().attr("incompatible_shape_error")) {
        if (const bool* b = v->get<bool>()) shape_error_ = *b;
      }
    }
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }

  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if constexpr (requires(const T* p) { F::Check(p, int64_t{0}); }) {
      // (An empty output computes nothing, so nothing can fail.)
      if (a.num_elements() > 0) GRAFT_RETURN_IF_ERROR(F::Check(Elements<T>(b), b.num_elements()));
    }
    // The output may overwrite an input that has the output's type and shape.
    constexpr bool same_type = std::is_same_v<T, R> && !std::is_same_v<T, std::string>;
    BinaryPlan plan;
    GRAFT_RETURN_IF_ERROR(PlanBinary(ctx, DTypeOf<R>(), same_type, kHasShapeValue && !shape_error_, &plan));
    F f;
    const T* pa = Elements<T>(a);
    const T* pb = Elements<T>(b);
    R* po = plan.out->data<R>();
    // Same shapes and scalar operands are the common cases: flat loops the compiler vectorises.
    switch (plan.mode) {
      case BinaryPlan::kSameShape: {
        const int64_t n = a.num_elements();
        for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
        break;
      }
      case BinaryPlan::kScalarB: {
        const int64_t n = a.num_elements();
        const T vb = pb[0];
        for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], vb);
        break;
      }
      case BinaryPlan::kScalarA: {
        const int64_t n = b.num_elements();
        const T va = pa[0];
        for (int64_t i = 0; i < n; ++i) po[i] = f(va, pb[i]);
        break;
      }
      case BinaryPlan::kBroadcast:
        if (plan.bc.out_elements > 0) BroadcastLoop(pa, pb, po, plan.bc, plan.idx.data(), f);
        break;
      case BinaryPlan::kIncompatible:
        if constexpr (kHasShapeValue) plan.out->data<bool>()[0] = F::kIncompatibleShapeValue;
        break;
    }
    return Status::Ok();
  }

 private:
  static constexpr bool kHasShapeValue = requires { F::kIncompatibleShapeValue; };
  bool shape_error_ = true;
};

template <typename T, typename R, typename F>
class UnaryKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<R>(), x.dims(), &out, std::is_same_v<T, R> ? 0 : -1));
    const T* px = x.data<T>();
    R* po = out->data<R>();
    F f;
    const int64_t n = x.num_elements();
    for (int64_t i = 0; i < n; ++i) po[i] = f(px[i]);
    return Status::Ok();
  }
};

// ---------------------------------------------------------------------------------------
// Dtype lists: Types<...> of C++ element types, joined with Join<...>.

template <typename... Ts>
struct Types {};

template <typename... Lists>
struct JoinTypes;
template <typename... A>
struct JoinTypes<Types<A...>> {
  using type = Types<A...>;
};
template <typename... A, typename... B, typename... Rest>
struct JoinTypes<Types<A...>, Types<B...>, Rest...> : JoinTypes<Types<A..., B...>, Rest...> {};
template <typename... Lists>
using Join = typename JoinTypes<Lists...>::type;

using FloatTypes = Types<float, double>;
using SignedIntTypes = Types<int8_t, int16_t, int32_t, int64_t>;
using IntTypes = Join<SignedIntTypes, Types<uint8_t, uint16_t, uint32_t, uint64_t>>;
using ComplexTypes = Types<std::complex<float>, std::complex<double>>;
using RealTypes = Join<FloatTypes, IntTypes>;
using NumberTypes = Join<RealTypes, ComplexTypes>;
using AllTypes = Join<RealTypes, Types<bool>, ComplexTypes>;

// ---------------------------------------------------------------------------------------
// Registration: op's kernel for each listed T, keyed by its dtype on attr "T".

template <typename K, typename T>
void RegisterOne(KernelRegistry& r, const char* op) {
  (void)r.Register(op, kDeviceCpu, "T", {DTypeOf<T>()}, &CreateKernel<K>);
}

// K<T> for each T (kernels that are not a functor on the engine, such as AddN).
template <template <typename> class K, typename... Ts>
void RegisterTypes(KernelRegistry& r, const char* op, Types<Ts...>) {
  (RegisterOne<K<Ts>, Ts>(r, op), ...);
}
// T -> T.
template <typename F, typename... Ts>
void Binary(KernelRegistry& r, const char* op, Types<Ts...>) {
  (RegisterOne<BinaryKernel<Ts, Ts, F>, Ts>(r, op), ...);
}
// T -> bool.
template <typename F, typename... Ts>
void Compare(KernelRegistry& r, const char* op, Types<Ts...>) {
  (RegisterOne<BinaryKernel<Ts, bool, F>, Ts>(r, op), ...);
}
template <typename F, typename... Ts>
void Unary(KernelRegistry& r, const char* op, Types<Ts...>) {
  (RegisterOne<UnaryKernel<Ts, Ts, F>, Ts>(r, op), ...);
}
template <typename F, typename... Ts>
void Predicate(KernelRegistry& r, const char* op, Types<Ts...>) {
  (RegisterOne<UnaryKernel<Ts, bool, F>, Ts>(r, op), ...);
}

}  // namespace graft::cpu
