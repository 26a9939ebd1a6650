// BinaryKernel's type-independent half (elementwise.h): which loop, and the output.
#include "kernels/cpu/elementwise.h"

namespace graft::cpu {

BinaryPlan::BinaryPlan() = default;
BinaryPlan::~BinaryPlan() = default;

Status PlanBinary(OpKernelContext& ctx, DType out_dtype, bool may_forward, bool incompatible_ok, BinaryPlan* plan) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const int64_t na = a.num_elements(), nb = b.num_elements();
  if (a.dims() == b.dims()) {
    plan->mode = BinaryPlan::kSameShape;
    return ctx.AllocateOutput(0, out_dtype, a.dims(), &plan->out, may_forward ? 0 : -1);
  }
  if (nb == 1 && a.rank() >= b.rank()) {
    plan->mode = BinaryPlan::kScalarB;
    return ctx.AllocateOutput(0, out_dtype, a.dims(), &plan->out, may_forward ? 0 : -1);
  }
  if (na == 1 && b.rank() >= a.rank()) {
    plan->mode = BinaryPlan::kScalarA;
    return ctx.AllocateOutput(0, out_dtype, b.dims(), &plan->out, may_forward ? 1 : -1);
  }
  Status s = MakeBroadcast(a.dims(), b.dims(), &plan->bc);
  if (!s.ok()) {
    if (!incompatible_ok) return s;
    plan->mode = BinaryPlan::kIncompatible;
    return ctx.AllocateOutput(0, DType::kBool, {}, &plan->out);
  }
  plan->mode = BinaryPlan::kBroadcast;
  plan->idx.assign(plan->bc.out_dims.size(), 0);
  const Broadcast& bc = plan->bc;
  const int reuse = !may_forward ? -1 : (bc.out_dims == a.dims() ? 0 : (bc.out_dims == b.dims() ? 1 : -1));
  return ctx.AllocateOutput(0, out_dtype, bc.out_dims, &plan->out, reuse);
}

}  // namespace graft::cpu
