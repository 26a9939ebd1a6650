// CPU kernels for reading and updating rows of resource variables: ResourceGather (an
// embedding lookup without reading the whole variable), ResourceScatterAdd / Sub / Mul / Div /
// Min / Max / Update (row updates in place), and VariableShape.
//
// A gather takes a reference to the variable's value under its lock, so a later update copies
// instead of writing under it (variable_access.h's copy-on-write rule); a scatter writes into
// the variable's own buffer when nothing else holds it, so updating k rows costs k rows, not
// the variable. Every index (and, for integer division, every divisor) is checked before
// anything is written: a failed update leaves the variable as it was.
#include <algorithm>
#include <complex>
#include <string>
#include <type_traits>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/gather.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"
#include "kernels/cpu/scatter.h"
#include "kernels/cpu/variable_access.h"

namespace graft::cpu {
namespace {

// ResourceGather: output = value[indices] along axis batch_dims (TensorFlow's definition).
template <typename T>
class ResourceGatherKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "batch_dims", &batch_dims_));
    return GetAttr(node(), "dtype", &dtype_);
  }
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> var;
    std::string name;
    GRAFT_RETURN_IF_ERROR(InputVariable(ctx, 0, &var, &name));
    Tensor value;
    {
      MultiLock lock({var.get()});
      GRAFT_RETURN_IF_ERROR(CheckVariable(*var, name, dtype_));
      value = var->value;
    }
    if (value.rank() == 0) return errors::InvalidArgument("ResourceGather of variable '", name, "', which is a scalar");
    return Gather<T>(ctx, 0, value, ctx.input(1), batch_dims_, batch_dims_);
  }

 private:
  int64_t batch_dims_ = 0;
  DType dtype_ = DType::kInvalid;
};

// ResourceScatter<Op>(resource, indices, updates): for each i, value[indices[i], ...] op=
// updates[i, ...]; updates has shape indices.shape + value.shape[1:], or is a scalar applied
// to every named row.
// The checks, locking and row walk are the same for every dtype and op: they live once in
// this base, and each ResourceScatterKernel<T, Op> supplies only its divisor check and the
// loop over one row (the library carries 68 of them).
class ResourceScatterBase : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "dtype", &dtype_); }
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> var;
    std::string name;
    GRAFT_RETURN_IF_ERROR(InputVariable(ctx, 0, &var, &name));
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    Dims idx;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(indices, "indices", &idx));
    if (HasZero(updates)) return errors::InvalidArgument("updates of variable '", name, "' divide by zero");
    MultiLock lock({var.get()});
    GRAFT_RETURN_IF_ERROR(CheckVariable(*var, name, dtype_));
    const Dims& vd = var->value.dims();
    if (vd.empty()) return errors::InvalidArgument("cannot scatter into variable '", name, "', which is a scalar");
    const int64_t rows = vd[0];
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0 || idx[i] >= rows) {
        return errors::InvalidArgument("indices", IndexText(indices.dims(), static_cast<int64_t>(i)), " = ", idx[i],
                                       " is not in [0, ", rows, ") (the rows of variable '", name, "')");
      }
    }
    Dims expected = indices.dims();
    expected.insert(expected.end(), vd.begin() + 1, vd.end());
    const bool scalar = updates.rank() == 0;
    if (!scalar && updates.dims() != expected) {
      return errors::ShapeError("updates of variable '", name, "' (shape ", ShapeText(vd), ") have shape ",
                                ShapeText(updates.dims()), ", expected ", ShapeText(expected), " or a scalar");
    }
    if (idx.empty()) return Status::Ok();
    int64_t inner = 1;
    for (size_t d = 1; d < vd.size(); ++d) inner *= vd[d];
    Tensor* value = nullptr;
    GRAFT_RETURN_IF_ERROR(WritableValue(*var, &value));
    for (size_t i = 0; i < idx.size(); ++i) {
      ApplyRow(*value, idx[i] * inner, updates, scalar ? -1 : static_cast<int64_t>(i) * inner, inner);
    }
    return Status::Ok();
  }

 protected:
  // Integer division checks every divisor before anything is written.
  virtual bool HasZero(const Tensor& updates) const { return false; }
  // value[at + j] op= updates[from + j] for j < n; from < 0: the scalar updates[0].
  virtual void ApplyRow(Tensor& value, int64_t at, const Tensor& updates, int64_t from, int64_t n) const = 0;

 private:
  DType dtype_ = DType::kInvalid;
};

template <typename T, typename Op>
class ResourceScatterKernel final : public ResourceScatterBase {
 public:
  using ResourceScatterBase::ResourceScatterBase;

 protected:
  bool HasZero(const Tensor& updates) const override {
    if constexpr (std::is_same_v<Op, ScatterDiv> && std::is_integral_v<T>) {
      const T* u = updates.data<T>();
      return std::find(u, u + updates.num_elements(), T(0)) != u + updates.num_elements();
    }
    return false;
  }
  void ApplyRow(Tensor& value, int64_t at, const Tensor& updates, int64_t from, int64_t n) const override {
    T* row = value.data<T>() + at;
    const T* u = updates.data<T>();
    if (from < 0) {
      const T v = u[0];
      for (int64_t j = 0; j < n; ++j) Op::Apply(row[j], v);
    } else {
      for (int64_t j = 0; j < n; ++j) Op::Apply(row[j], u[from + j]);
    }
  }
};

// VariableShape: the shape of the variable's current value, as int32 or int64.
class VariableShapeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "out_type", &out_type_); }
  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<Variable> var;
    std::string name;
    GRAFT_RETURN_IF_ERROR(InputVariable(ctx, 0, &var, &name));
    Dims dims;
    {
      MultiLock lock({var.get()});
      if (!var->initialized) return errors::FailedPrecondition("the shape of variable '", name, "', which is not initialized");
      dims = var->value.dims();
    }
    Tensor* out = nullptr;
    const Dims out_dims{static_cast<int64_t>(dims.size())};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_type_, out_dims, &out));
    for (size_t i = 0; i < dims.size(); ++i) {
      if (out_type_ == DType::kInt32) {
        if (dims[i] > INT32_MAX) return errors::InvalidArgument("dim ", i, " of variable '", name, "' exceeds int32");
        out->data<int32_t>()[i] = static_cast<int32_t>(dims[i]);
      } else {
        out->data<int64_t>()[i] = dims[i];
      }
    }
    return Status::Ok();
  }

 private:
  DType out_type_ = DType::kInt32;
};

template <typename Op, typename... Ts>
void RegisterScatter(KernelRegistry& r, const char* op) {
  ((void)r.Register(op, kDeviceCpu, "dtype", {DTypeOf<Ts>()}, &CreateKernel<ResourceScatterKernel<Ts, Op>>), ...);
}


}  // namespace

void RegisterSparseVariableKernels(KernelRegistry& r) {
  RegisterAllTypes<ResourceGatherKernel>(r, "ResourceGather", "dtype");
  RegisterScatter<ScatterAdd, GRAFT_CPU_NUMBER_TYPES>(r, "ResourceScatterAdd");
  RegisterScatter<ScatterSub, GRAFT_CPU_NUMBER_TYPES>(r, "ResourceScatterSub");
  RegisterScatter<ScatterMul, GRAFT_CPU_NUMBER_TYPES>(r, "ResourceScatterMul");
  RegisterScatter<ScatterDiv, GRAFT_CPU_NUMBER_TYPES>(r, "ResourceScatterDiv");
  RegisterScatter<ScatterMin, GRAFT_CPU_REAL_TYPES>(r, "ResourceScatterMin");
  RegisterScatter<ScatterMax, GRAFT_CPU_REAL_TYPES>(r, "ResourceScatterMax");
  RegisterScatter<ScatterUpdate, GRAFT_CPU_NUMBER_TYPES, bool>(r, "ResourceScatterUpdate");
  (void)r.Register("VariableShape", kDeviceCpu, "", {}, &CreateKernel<VariableShapeKernel>);
}

}  // namespace graft::cpu
