// CPU kernels for the scatters into tensors: ScatterNd (updates summed into zeros of a given
// shape) and TensorScatterUpdate / Add / Sub / Max / Min (updates combined into a copy of a
// tensor, in place when the tensor is not needed elsewhere).
//
// indices has shape [..., K]: each innermost row names a slice out[i0, ..., iK-1] of the
// output, and updates holds one such slice per row (shape indices.shape[:-1] + out.shape[K:]).
// Every index is checked before anything is written; a bad one is an error naming it (as
// TensorFlow's CPU kernels say it), or is skipped under bad_indices_policy "IGNORE".
// Duplicate indices apply in order: ScatterNd sums them, TensorScatterUpdate keeps the last.
#include <algorithm>
#include <complex>
#include <string>
#include <type_traits>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/gather.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"
#include "kernels/cpu/scatter.h"

namespace graft::cpu {
namespace {

// Where each index row's slice starts in the output (-1: skipped), and the slice's size.
struct ScatterPlan {
  Dims offsets;
  int64_t slice = 1;
};

std::string TupleText(const Dims& idx, int64_t row, int64_t k) {
  std::string s = "[";
  for (int64_t j = 0; j < k; ++j) {
    if (j > 0) s.append(", ");
    s.append(std::to_string(idx[static_cast<size_t>(row * k + j)]));
  }
  return s + "]";
}

// Checks indices and updates against the output's dims, with ScatterNd's messages or (tensor_form)
// the TensorScatter ops' ones, and plans where each slice goes.
Status PlanScatter(const Tensor& indices, const Tensor& updates, const Dims& out, bool tensor_form, bool ignore_bad,
                   ScatterPlan* plan) {
  const Dims& id = indices.dims();
  const Dims& ud = updates.dims();
  if (id.empty()) return errors::InvalidArgument("Indices shape must have rank at least one. Found:", ShapeText(id));
  const int64_t outer = static_cast<int64_t>(id.size()) - 1;  // the batch dims of indices
  const int64_t k = id.back();
  const int64_t urank = static_cast<int64_t>(ud.size()), orank = static_cast<int64_t>(out.size());
  bool outer_ok = urank >= outer, inner_ok = urank - outer == orank - k;
  for (int64_t d = 0; outer_ok && d < outer; ++d) outer_ok = ud[static_cast<size_t>(d)] == id[static_cast<size_t>(d)];
  for (int64_t d = 0; outer_ok && inner_ok && d < urank - outer; ++d) {
    inner_ok = ud[static_cast<size_t>(outer + d)] == out[static_cast<size_t>(k + d)];
  }
  if (tensor_form) {
    if (!outer_ok) {
      return errors::InvalidArgument("Outer dimensions of indices and update must match. Indices shape: ", ShapeText(id),
                                     ", updates shape:", ShapeText(ud));
    }
    if (!inner_ok) {
      return errors::InvalidArgument("Inner dimensions of output shape must match inner dimensions of updates shape. "
                                     "Output: ", ShapeText(out), " updates: ", ShapeText(ud));
    }
  } else {
    if (!outer_ok) {
      return errors::InvalidArgument("Dimensions [0,", outer, ") of indices[shape=", ShapeText(id),
                                     "] must match dimensions [0,", outer, ") of updates[shape=", ShapeText(ud), "]");
    }
    if (!inner_ok) {
      return errors::InvalidArgument("Dimensions [", k, ",", orank, ") of input[shape=", ShapeText(out),
                                     "] must match dimensions [", outer, ",", urank, ") of updates[shape=",
                                     ShapeText(ud), "]");
    }
  }
  int64_t out_n = 1, n = 1;
  for (int64_t d : out) out_n *= d;
  for (int64_t d = 0; d < outer; ++d) n *= id[static_cast<size_t>(d)];
  if ((out_n == 0 || k == 0) && (indices.num_elements() > 0 || updates.num_elements() > 0)) {
    return errors::InvalidArgument("Indices and updates specified for empty output shape");
  }
  if (k == 0 && n > 0) {
    return errors::InvalidArgument("Only indices.shape[-1] values between 1 and ", orank,
                                   " are currently supported. Requested rank: 0");
  }
  Dims idx;
  if (indices.dtype() == DType::kUInt16) {
    idx.assign(indices.data<uint16_t>(), indices.data<uint16_t>() + indices.num_elements());
  } else {
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(indices, "indices", &idx));
  }
  const Dims strides = RowMajorStrides(out);
  plan->slice = 1;
  for (int64_t d = k; d < orank; ++d) plan->slice *= out[static_cast<size_t>(d)];
  plan->offsets.assign(static_cast<size_t>(n), 0);
  const Dims prefix(id.begin(), id.end() - 1);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t ix = idx[static_cast<size_t>(i * k + j)];
      if (ix < 0 || ix >= out[static_cast<size_t>(j)]) {
        if (ignore_bad) {
          off = -1;
          break;
        }
        return errors::InvalidArgument("indices", IndexText(prefix, i), " = ", TupleText(idx, i, k),
                                       " does not index into shape ", ShapeText(out));
      }
      off += ix * strides[static_cast<size_t>(j)];
    }
    plan->offsets[static_cast<size_t>(i)] = off;
  }
  return Status::Ok();
}

Status ReadPolicy(const Node& node, bool* ignore_bad) {
  std::string policy;
  if (node.attr("bad_indices_policy") != nullptr) GRAFT_RETURN_IF_ERROR(GetAttr(node, "bad_indices_policy", &policy));
  if (policy != "" && policy != "DEFAULT" && policy != "ERROR" && policy != "IGNORE") {
    return errors::InvalidArgument("bad_indices_policy must be one of '', 'DEFAULT', 'ERROR' or 'IGNORE', got '",
                                   policy, "'");
  }
  *ignore_bad = policy == "IGNORE";
  return Status::Ok();
}

template <typename T, typename Op>
void ApplyPlan(const ScatterPlan& plan, const T* updates, T* out) {
  for (size_t i = 0; i < plan.offsets.size(); ++i) {
    if (plan.offsets[i] < 0) continue;
    T* to = out + plan.offsets[i];
    const T* from = updates + static_cast<int64_t>(i) * plan.slice;
    for (int64_t j = 0; j < plan.slice; ++j) Op::Apply(to[j], from[j]);
  }
}

// Output 0 of dims: a copy of `base` (or zeros when base is null), then the plan applied.
// A base that nothing else needs is updated in place.
template <typename T, typename Op>
Status Scatter(OpKernelContext& ctx, const Tensor* base, int base_input, DType dtype, const Dims& dims,
               const ScatterPlan& plan, const Tensor& updates) {
  if constexpr (std::is_same_v<T, std::string>) {
    int64_t n = 0;
    GRAFT_RETURN_IF_ERROR(CheckedNumElements(dims, &n));
    std::vector<std::string> v = base ? base->strings() : std::vector<std::string>(static_cast<size_t>(n));
    ApplyPlan<T, Op>(plan, updates.strings().data(), v.data());
    Tensor t;
    GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(dims, std::move(v), &t));
    ctx.SetOutput(0, std::move(t));
  } else {
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, dtype, dims, &out, base ? base_input : -1));
    const int64_t n = out->num_elements();
    if (n == 0) return Status::Ok();
    T* o = out->data<T>();
    if (base == nullptr) {
      std::fill_n(o, n, T{});
    } else if (base->data<T>() != o) {
      std::copy_n(base->data<T>(), n, o);
    }
    ApplyPlan<T, Op>(plan, updates.data<T>(), o);
  }
  return Status::Ok();
}

// ScatterNd(indices, updates, shape).
template <typename T>
class ScatterNdKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return ReadPolicy(node(), &ignore_bad_); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& shape_t = ctx.input(2);
    if (shape_t.rank() != 1) return errors::InvalidArgument("Shape must be a vector");
    Dims shape_v, dims;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(shape_t, "shape", &shape_v));
    for (int64_t d : shape_v) {
      if (d < 0) return errors::InvalidArgument("Dimension ", d, " must be >= 0");
    }
    GRAFT_RETURN_IF_ERROR(ShapeFromVector(shape_v, &dims));
    ScatterPlan plan;
    GRAFT_RETURN_IF_ERROR(PlanScatter(ctx.input(0), ctx.input(1), dims, false, ignore_bad_, &plan));
    return Scatter<T, ScatterAdd>(ctx, nullptr, -1, ctx.input(1).dtype(), dims, plan, ctx.input(1));
  }

 private:
  bool ignore_bad_ = false;
};

// TensorScatter<Op>(tensor, indices, updates).
template <typename Op>
struct TensorScatter {
  template <typename T>
  class Kernel : public OpKernel {
   public:
    using OpKernel::OpKernel;
    Status Init() { return ReadPolicy(node(), &ignore_bad_); }
    Status Compute(OpKernelContext& ctx) const override {
      const Tensor& tensor = ctx.input(0);
      if (tensor.rank() < 1) {
        return errors::InvalidArgument("Output must be at least 1-D, got shape: ", ShapeText(tensor.dims()));
      }
      ScatterPlan plan;
      GRAFT_RETURN_IF_ERROR(PlanScatter(ctx.input(1), ctx.input(2), tensor.dims(), true, ignore_bad_, &plan));
      return Scatter<T, Op>(ctx, &tensor, 0, tensor.dtype(), tensor.dims(), plan, ctx.input(2));
    }

   private:
    bool ignore_bad_ = false;
  };
};

// Every type a tensor scatter moves (ScatterNd and TensorScatterUpdate): the numbers, bool and
// string (float16 and bfloat16 come from float16_kernels.cc's float32 adapter).
#define GRAFT_SCATTER_ALL_TYPES GRAFT_CPU_NUMBER_TYPES, bool, std::string

template <typename T>
constexpr DType ElementDType() {
  if constexpr (std::is_same_v<T, std::string>) {
    return DType::kString;
  } else {
    return DTypeOf<T>();
  }
}

template <template <typename> class K, typename... Ts>
void RegisterScatterTypes(KernelRegistry& r, const char* op) {
  ((void)r.Register(op, kDeviceCpu, "T", {ElementDType<Ts>()}, &CreateKernel<K<Ts>>), ...);
}

}  // namespace

void RegisterScatterNdKernels(KernelRegistry& r) {
  RegisterScatterTypes<ScatterNdKernel, GRAFT_SCATTER_ALL_TYPES>(r, "ScatterNd");
  RegisterScatterTypes<TensorScatter<ScatterUpdate>::Kernel, GRAFT_SCATTER_ALL_TYPES>(r, "TensorScatterUpdate");
  RegisterScatterTypes<TensorScatter<ScatterAdd>::Kernel, GRAFT_CPU_NUMBER_TYPES>(r, "TensorScatterAdd");
  RegisterScatterTypes<TensorScatter<ScatterSub>::Kernel, GRAFT_CPU_NUMBER_TYPES>(r, "TensorScatterSub");
  RegisterScatterTypes<TensorScatter<ScatterMax>::Kernel, GRAFT_CPU_REAL_TYPES>(r, "TensorScatterMax");
  RegisterScatterTypes<TensorScatter<ScatterMin>::Kernel, GRAFT_CPU_REAL_TYPES>(r, "TensorScatterMin");
}

}  // namespace graft::cpu
