// CPU kernels for elementwise ops: binary ops with numpy broadcasting and unary ops, each a
// template over the element type and a functor.
#include <algorithm>
#include <cmath>
#include <complex>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

template <typename T, typename R, typename F>
class BinaryKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }

  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    constexpr DType out_type = DTypeOf<R>();
    constexpr bool same_type = std::is_same_v<T, R>;
    F f;
    const int64_t na = a.num_elements(), nb = b.num_elements();
    Tensor* out = nullptr;
    if (a.dims() == b.dims()) {
      GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_type, a.dims(), &out, same_type ? 0 : -1));
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      R* po = out->data<R>();
      for (int64_t i = 0; i < na; ++i) po[i] = f(pa[i], pb[i]);
      return Status::Ok();
    }
    if (nb == 1 && a.rank() >= b.rank()) {
      GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_type, a.dims(), &out, same_type ? 0 : -1));
      const T* pa = a.data<T>();
      const T vb = b.data<T>()[0];
      R* po = out->data<R>();
      for (int64_t i = 0; i < na; ++i) po[i] = f(pa[i], vb);
      return Status::Ok();
    }
    if (na == 1 && b.rank() >= a.rank()) {
      GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_type, b.dims(), &out, same_type ? 1 : -1));
      const T va = a.data<T>()[0];
      const T* pb = b.data<T>();
      R* po = out->data<R>();
      for (int64_t i = 0; i < nb; ++i) po[i] = f(va, pb[i]);
      return Status::Ok();
    }
    Broadcast bc;
    GRAFT_RETURN_IF_ERROR(MakeBroadcast(a.dims(), b.dims(), &bc));
    int reuse = !same_type ? -1 : (bc.out_dims == a.dims() ? 0 : (bc.out_dims == b.dims() ? 1 : -1));
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_type, bc.out_dims, &out, reuse));
    if (bc.out_elements > 0) BroadcastLoop(a.data<T>(), b.data<T>(), out->data<R>(), bc, f);
    return Status::Ok();
  }
};

template <typename T, typename F>
class UnaryKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), x.dims(), &out, 0));
    const T* px = x.data<T>();
    T* po = out->data<T>();
    F f;
    for (int64_t i = 0; i < x.num_elements(); ++i) po[i] = f(px[i]);
    return Status::Ok();
  }
};

// AddN: the elementwise sum of N tensors of one shape (integers wrap).
template <typename T>
class AddNKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& first = ctx.input(0);
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      if (ctx.input(i).dims() != first.dims()) {
        return errors::InvalidArgument("inputs must have the same shape: input 0 is ", ShapeText(first.dims()),
                                       ", input ", i, " is ", ShapeText(ctx.input(i).dims()));
      }
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), first.dims(), &out, 0));
    const int64_t n = first.num_elements();
    T* po = out->data<T>();
    if (po != first.data<T>()) std::copy_n(first.data<T>(), n, po);
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      const T* pi = ctx.input(i).data<T>();
      for (int64_t j = 0; j < n; ++j) po[j] = WrapAdd(po[j], pi[j]);
    }
    return Status::Ok();
  }
};

// Integer Add, Sub and Mul wrap (kernel_util.h).
struct AddF { template <typename T> T operator()(T a, T b) const { return WrapAdd(a, b); } };
struct SubF { template <typename T> T operator()(T a, T b) const { return WrapSub(a, b); } };
struct MulF { template <typename T> T operator()(T a, T b) const { return WrapMul(a, b); } };
struct DivF { template <typename T> T operator()(T a, T b) const { return a / b; } };
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

// Registers the kernel for op for each T.
template <typename F, typename... Ts>
void Binary(KernelRegistry& r, const char* op) {
  ((void)r.Register(op, kDeviceCpu, "T", {DTypeOf<Ts>()}, MakeFactory<BinaryKernel<Ts, Ts, F>>()), ...);
}

template <typename F, typename... Ts>
void Unary(KernelRegistry& r, const char* op) {
  ((void)r.Register(op, kDeviceCpu, "T", {DTypeOf<Ts>()}, MakeFactory<UnaryKernel<Ts, F>>()), ...);
}

}  // namespace

// Integer types beyond int32/int64 get the basic arithmetic; complex types the arithmetic
// and the analytic functions TensorFlow defines for them.
#define GRAFT_SIGNED_INTS int8_t, int16_t, int32_t, int64_t
#define GRAFT_INTS GRAFT_SIGNED_INTS, uint8_t, uint16_t, uint32_t, uint64_t
#define GRAFT_COMPLEX std::complex<float>, std::complex<double>

void RegisterCwiseKernels(KernelRegistry& r) {
  RegisterTypes<AddNKernel, float, double, GRAFT_INTS, GRAFT_COMPLEX>(r, "AddN");
  Binary<AddF, float, double, GRAFT_INTS, GRAFT_COMPLEX>(r, "AddV2");
  Binary<AddF, float, double, GRAFT_INTS, GRAFT_COMPLEX>(r, "Add");
  Binary<SubF, float, double, GRAFT_INTS, GRAFT_COMPLEX>(r, "Sub");
  Binary<MulF, float, double, GRAFT_INTS, GRAFT_COMPLEX>(r, "Mul");
  Binary<DivF, float, double, GRAFT_COMPLEX>(r, "RealDiv");
  Binary<MaxF, float, double, GRAFT_INTS>(r, "Maximum");
  Binary<MinF, float, double, GRAFT_INTS>(r, "Minimum");
  Binary<SqDiffF, float, double, int32_t, int64_t>(r, "SquaredDifference");
  Unary<NegF, float, double, GRAFT_SIGNED_INTS, GRAFT_COMPLEX>(r, "Neg");
  Unary<AbsF, float, double, GRAFT_SIGNED_INTS>(r, "Abs");
  Unary<SquareF, float, double, GRAFT_INTS, GRAFT_COMPLEX>(r, "Square");
  Unary<SqrtF, float, double, GRAFT_COMPLEX>(r, "Sqrt");
  Unary<RsqrtF, float, double, GRAFT_COMPLEX>(r, "Rsqrt");
  Unary<ExpF, float, double, GRAFT_COMPLEX>(r, "Exp");
  Unary<LogF, float, double, GRAFT_COMPLEX>(r, "Log");
  Unary<TanhF, float, double, GRAFT_COMPLEX>(r, "Tanh");
  Unary<SigmoidF, float, double, GRAFT_COMPLEX>(r, "Sigmoid");
  Unary<ReluF, float, double, GRAFT_INTS>(r, "Relu");
}

}  // namespace graft::cpu
