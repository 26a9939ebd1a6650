// Stacks (core/tensor_stack.h): StackV2 makes one, StackPushV2 pushes a tensor (and outputs
// it), StackPopV2 pops the top, StackCloseV2 drops the stack's items.
#include <memory>
#include <mutex>
#include <utility>

#include "core/tensor_stack.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// StackV2(max_size): a new empty stack of elem_type (max_size < 0: unbounded).
class StackKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "elem_type", &dtype_); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& m = ctx.input(0);
    if (m.dtype() != DType::kInt32 || m.num_elements() != 1) {
      return errors::InvalidArgument("max_size must be an int32 scalar, but has shape ", m.shape().ToString());
    }
    ctx.SetOutput(0, TensorStackToTensor(std::make_shared<TensorStack>(dtype_, m.data<int32_t>()[0])));
    return Status::Ok();
  }

 private:
  DType dtype_ = DType::kInvalid;
};

// StackPushV2(handle, elem): elem on top of the stack; outputs elem.
class PushKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<TensorStack> s;
    GRAFT_RETURN_IF_ERROR(GetTensorStack(ctx.input(0), "handle", &s));
    const Tensor& elem = ctx.input(1);
    if (BaseDType(elem.dtype()) != s->element_dtype) {
      return errors::DTypeError("pushing a ", DTypeName(elem.dtype()), " tensor onto a stack of ",
                                DTypeName(s->element_dtype));
    }
    {
      std::lock_guard lock(s->mu);
      if (s->max_size >= 0 && static_cast<int64_t>(s->items.size()) >= s->max_size) {
        return errors::OutOfRange("the stack is full: it holds its max_size of ", s->max_size, " elements");
      }
      s->items.push_back(elem);
    }
    ctx.SetOutput(0, elem);
    return Status::Ok();
  }
};

// StackPopV2(handle): the top of the stack, removed.
class PopKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "elem_type", &dtype_); }
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<TensorStack> s;
    GRAFT_RETURN_IF_ERROR(GetTensorStack(ctx.input(0), "handle", &s));
    if (s->element_dtype != dtype_) {
      return errors::DTypeError("popping ", DTypeName(dtype_), " from a stack of ", DTypeName(s->element_dtype));
    }
    Tensor top;
    {
      std::lock_guard lock(s->mu);
      if (s->items.empty()) return errors::OutOfRange("popping from an empty stack");
      top = std::move(s->items.back());
      s->items.pop_back();
    }
    ctx.SetOutput(0, std::move(top));
    return Status::Ok();
  }

 private:
  DType dtype_ = DType::kInvalid;
};

class CloseKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<TensorStack> s;
    GRAFT_RETURN_IF_ERROR(GetTensorStack(ctx.input(0), "handle", &s));
    std::lock_guard lock(s->mu);
    s->items.clear();
    return Status::Ok();
  }
};

}  // namespace

void RegisterStackKernels(KernelRegistry& r) {
  auto add = [&](const char* op, KernelFactory f) { (void)r.Register(op, kDeviceCpu, "", {}, std::move(f)); };
  add("StackV2", &CreateKernel<StackKernel>);
  add("StackPushV2", &CreateKernel<PushKernel>);
  add("StackPopV2", &CreateKernel<PopKernel>);
  add("StackCloseV2", &CreateKernel<CloseKernel>);
}

}  // namespace graft::cpu
