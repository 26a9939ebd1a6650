// CPU kernels for state: resource variables (VarHandleOp and the ops on its handle) and
// TensorFlow 1 reference variables (VariableV2, Assign, ...), kept in the session's
// ResourceMgr so they persist across runs.
#include <cstring>

#include "core/runtime/resource_mgr.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// The variable a resource handle names (created on first use, as TensorFlow's handles do).
Status HandleVariable(OpKernelContext& ctx, int input, std::shared_ptr<Variable>* out) {
  auto* hb = dynamic_cast<const HandleBuffer*>(ctx.input(input).buffer().get());
  if (hb == nullptr) return errors::InvalidArgument("input ", input, " is not a resource handle");
  const ResourceHandle& h = hb->handle();
  return ctx.resources()->LookupOrCreate(h.container, h.name, h.dtype, h.shape, out);
}

std::string HandleName(OpKernelContext& ctx, int input) {
  auto* hb = dynamic_cast<const HandleBuffer*>(ctx.input(input).buffer().get());
  return hb ? hb->handle().name : std::string("?");
}

Status CheckAssignable(const Variable& v, const Tensor& value, const std::string& name, bool validate_shape) {
  if (value.dtype() != v.dtype) {
    return errors::DTypeError("cannot assign a ", DTypeName(value.dtype()), " value to variable '", name, "' of dtype ",
                              DTypeName(v.dtype));
  }
  if (validate_shape && !v.shape.IsCompatibleWith(value.shape())) {
    return errors::ShapeError("cannot assign a value of shape ", value.shape().ToString(), " to variable '", name,
                              "' of shape ", v.shape.ToString());
  }
  return Status::Ok();
}

class VarHandleKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    ResourceHandle h;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "container", &h.container));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "shared_name", &h.name));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "dtype", &h.dtype));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "shape", &h.shape));
    // TensorFlow names an unshared variable after its op.
    if (h.name.empty()) h.name = node().name();
    handle_ = Tensor::Special(DType::kResource, std::make_shared<HandleBuffer>(std::move(h)));
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    ctx.SetOutput(0, handle_);
    return Status::Ok();
  }

 private:
  Tensor handle_;
};

class ReadVariableKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "dtype", &dtype_); }
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> v;
    GRAFT_RETURN_IF_ERROR(HandleVariable(ctx, 0, &v));
    std::lock_guard lock(v->mu);
    if (!v->initialized) {
      return errors::FailedPrecondition("reading variable '", HandleName(ctx, 0),
                                        "', which is not initialized (assign it a value first)");
    }
    if (v->value.dtype() != dtype_) {
      return errors::DTypeError("variable '", HandleName(ctx, 0), "' holds ", DTypeName(v->value.dtype()), ", not ",
                                DTypeName(dtype_));
    }
    ctx.SetOutput(0, v->value);
    return Status::Ok();
  }

 private:
  DType dtype_ = DType::kInvalid;
};

// GraftInitializeVariable: AssignVariableOp while the variable is uninitialized, else nothing.
class InitializeVariableKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> v;
    GRAFT_RETURN_IF_ERROR(HandleVariable(ctx, 0, &v));
    std::lock_guard lock(v->mu);
    if (v->initialized) return Status::Ok();
    Tensor copy;
    GRAFT_RETURN_IF_ERROR(ctx.input(1).Copy(&copy));
    v->value = std::move(copy);
    v->initialized = true;
    return Status::Ok();
  }
};

// AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp: sign 0, +1, -1.
template <int Sign>
class AssignVariableKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> v;
    GRAFT_RETURN_IF_ERROR(HandleVariable(ctx, 0, &v));
    const Tensor& value = ctx.input(1);
    std::lock_guard lock(v->mu);
    GRAFT_RETURN_IF_ERROR(CheckAssignable(*v, value, HandleName(ctx, 0), true));
    return Update<Sign>(*v, value, HandleName(ctx, 0));
  }

  template <int S>
  static Status Update(Variable& v, const Tensor& value, const std::string& name) {
    if constexpr (S == 0) {
      // Readers may hold the old value: replace it rather than overwrite it.
      Tensor copy;
      GRAFT_RETURN_IF_ERROR(value.Copy(&copy));
      v.value = std::move(copy);
      v.initialized = true;
      return Status::Ok();
    } else {
      if (!v.initialized) return errors::FailedPrecondition("updating variable '", name, "', which is not initialized");
      if (v.value.dims() != value.dims()) {
        return errors::ShapeError("cannot update variable '", name, "' of shape ", v.value.shape().ToString(),
                                  " with a value of shape ", value.shape().ToString());
      }
      Tensor next;
      GRAFT_RETURN_IF_ERROR(v.value.Copy(&next));
      switch (v.value.dtype()) {
        case DType::kFloat32: Apply<float, S>(next, value); break;
        case DType::kFloat64: Apply<double, S>(next, value); break;
        case DType::kInt32: Apply<int32_t, S>(next, value); break;
        case DType::kInt64: Apply<int64_t, S>(next, value); break;
        default: return errors::Unimplemented("updating a variable of dtype ", DTypeName(v.value.dtype()));
      }
      v.value = std::move(next);
      return Status::Ok();
    }
  }

  template <typename T, int S>
  static void Apply(Tensor& dst, const Tensor& delta) {
    T* d = dst.data<T>();
    const T* x = delta.data<T>();
    for (int64_t i = 0; i < dst.num_elements(); ++i) d[i] = S > 0 ? d[i] + x[i] : d[i] - x[i];
  }
};

class VarIsInitializedKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> v;
    GRAFT_RETURN_IF_ERROR(HandleVariable(ctx, 0, &v));
    bool init;
    {
      std::lock_guard lock(v->mu);
      init = v->initialized;
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kBool, {}, &out));
    out->data<bool>()[0] = init;
    return Status::Ok();
  }
};

// VariableV2 / Variable: a reference to the variable (container, shared_name or op name).
class RefVariableKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "container", &container_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "shared_name", &name_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "dtype", &dtype_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "shape", &shape_));
    if (name_.empty()) name_ = node().name();
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> v;
    GRAFT_RETURN_IF_ERROR(ctx.resources()->LookupOrCreate(container_, name_, dtype_, shape_, &v));
    ctx.SetOutput(0, Tensor::Special(RefDType(dtype_), std::make_shared<RefBuffer>(std::move(v))));
    return Status::Ok();
  }

 private:
  std::string container_, name_;
  DType dtype_ = DType::kInvalid;
  PartialShape shape_;
};

// Assign / AssignAdd / AssignSub on a reference: sign 0, +1, -1. Outputs the reference.
template <int Sign>
class RefAssignKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    if constexpr (Sign == 0) GRAFT_RETURN_IF_ERROR(GetAttr(node(), "validate_shape", &validate_shape_));
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> v;
    GRAFT_RETURN_IF_ERROR(ctx.InputRef(0, &v));
    const Tensor& value = ctx.input(1);
    const std::string& name = node().input(0).node->name();
    {
      std::lock_guard lock(v->mu);
      GRAFT_RETURN_IF_ERROR(CheckAssignable(*v, value, name, validate_shape_));
      GRAFT_RETURN_IF_ERROR(AssignVariableKernel<Sign>::template Update<Sign>(*v, value, name));
    }
    ctx.SetOutput(0, ctx.input(0));
    return Status::Ok();
  }

 private:
  bool validate_shape_ = true;
};

class IsVariableInitializedKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> v;
    GRAFT_RETURN_IF_ERROR(ctx.InputRef(0, &v));
    bool init;
    {
      std::lock_guard lock(v->mu);
      init = v->initialized;
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kBool, {}, &out));
    out->data<bool>()[0] = init;
    return Status::Ok();
  }
};

}  // namespace

void RegisterStateKernels(KernelRegistry& r) {
  auto add = [&](const char* op, KernelFactory f) { (void)r.Register(op, kDeviceCpu, "", {}, std::move(f)); };
  add("VarHandleOp", &CreateKernel<VarHandleKernel>);
  add("ReadVariableOp", &CreateKernel<ReadVariableKernel>);
  add("AssignVariableOp", &CreateKernel<AssignVariableKernel<0>>);
  add("AssignAddVariableOp", &CreateKernel<AssignVariableKernel<1>>);
  add("AssignSubVariableOp", &CreateKernel<AssignVariableKernel<-1>>);
  add("VarIsInitializedOp", &CreateKernel<VarIsInitializedKernel>);
  add("GraftInitializeVariable", &CreateKernel<InitializeVariableKernel>);
  add("VariableV2", &CreateKernel<RefVariableKernel>);
  add("Variable", &CreateKernel<RefVariableKernel>);
  add("Assign", &CreateKernel<RefAssignKernel<0>>);
  add("AssignAdd", &CreateKernel<RefAssignKernel<1>>);
  add("AssignSub", &CreateKernel<RefAssignKernel<-1>>);
  add("IsVariableInitialized", &CreateKernel<IsVariableInitializedKernel>);
}

}  // namespace graft::cpu
