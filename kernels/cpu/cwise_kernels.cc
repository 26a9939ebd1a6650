// CPU kernels for elementwise arithmetic (Add, Sub, Mul, Maximum, Minimum, SquaredDifference,
// AddN) and the basic unary functions, as functors on the shared engine (elementwise.h).
// Integer types beyond int32/int64 get the basic arithmetic; complex types the arithmetic
// and the analytic functions TensorFlow defines for them.
#include <algorithm>
#include <cmath>
#include <complex>
#include <type_traits>

#include "kernels/cpu/cwise_functors.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

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

}  // namespace

void RegisterCwiseKernels(KernelRegistry& r) {
  RegisterTypes<AddNKernel>(r, "AddN", NumberTypes{});
  Binary<AddF>(r, "AddV2", NumberTypes{});
  Binary<AddF>(r, "Add", NumberTypes{});
  Binary<SubF>(r, "Sub", NumberTypes{});
  Binary<MulF>(r, "Mul", NumberTypes{});
  Binary<MaxF>(r, "Maximum", RealTypes{});
  Binary<MinF>(r, "Minimum", RealTypes{});
  Binary<SqDiffF>(r, "SquaredDifference", Join<FloatTypes, Types<int32_t, int64_t>>{});
  Unary<NegF>(r, "Neg", Join<FloatTypes, SignedIntTypes, ComplexTypes>{});
  Unary<AbsF>(r, "Abs", Join<FloatTypes, SignedIntTypes>{});
  Unary<SquareF>(r, "Square", NumberTypes{});
  Unary<SqrtF>(r, "Sqrt", Join<FloatTypes, ComplexTypes>{});
  Unary<RsqrtF>(r, "Rsqrt", Join<FloatTypes, ComplexTypes>{});
  Unary<ExpF>(r, "Exp", Join<FloatTypes, ComplexTypes>{});
  Unary<LogF>(r, "Log", Join<FloatTypes, ComplexTypes>{});
  Unary<TanhF>(r, "Tanh", Join<FloatTypes, ComplexTypes>{});
  Unary<SigmoidF>(r, "Sigmoid", Join<FloatTypes, ComplexTypes>{});
  Unary<ReluF>(r, "Relu", RealTypes{});
}

}  // namespace graft::cpu
