// CPU kernels for Bucketize and DenseBincount, the bucketing and counting ops of Keras'
// Discretization and CategoryEncoding layers. Bucketize: the index of the bucket each input
// element falls in, given sorted float boundaries: the number of boundaries <= the element (so an element equal to a
// boundary is in the bucket that boundary starts). NaN compares false and lands in the last
// bucket, as in TensorFlow's kernel (an upper bound search). The comparison is done in the
// usual arithmetic conversions of the element and a float boundary, as TensorFlow's.
#include <algorithm>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

template <typename T>
class BucketizeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    const AttrValue* v = node().attr("boundaries");
    const auto* list = v ? v->get<std::vector<float>>() : nullptr;
    if (list == nullptr) return errors::InvalidArgument("attr 'boundaries' is missing or not a list of floats");
    boundaries_ = *list;
    if (!std::is_sorted(boundaries_.begin(), boundaries_.end())) {
      return errors::InvalidArgument("Expected sorted boundaries");
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kInt32, in.dims(), &out));
    const T* x = in.data<T>();
    int32_t* o = out->data<int32_t>();
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      auto it = std::upper_bound(boundaries_.begin(), boundaries_.end(), x[i],
                                 [](const T& v, float b) { return v < b; });
      o[i] = static_cast<int32_t>(it - boundaries_.begin());
    }
    return Status::Ok();
  }

 private:
  std::vector<float> boundaries_;
};

// DenseBincount: out[v] (a vector input) or out[row, v] (a matrix) is the number of elements
// equal to v, or the sum of their weights when weights has the input's shape (an empty
// weights tensor counts), or 1 when binary_output; values >= size are skipped, negative values
// are TensorFlow's error. A scalar input counts as a vector of one. Registered on T; the index
// type (Tidx, int32 or int64) is the input's.
template <typename T>
class DenseBincountKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "binary_output", &binary_); }
  Status Compute(OpKernelContext& ctx) const override {
    if (ctx.input(0).dtype() == DType::kInt64) return Run<int64_t>(ctx);
    if (ctx.input(0).dtype() == DType::kInt32) return Run<int32_t>(ctx);
    return errors::DTypeError("DenseBincount's input must be int32 or int64, not ", DTypeName(ctx.input(0).dtype()));
  }

 private:
  template <typename Tidx>
  Status Run(OpKernelContext& ctx) const {
    const Tensor& in = ctx.input(0);
    const Tensor& size_in = ctx.input(1);
    const Tensor& w = ctx.input(2);
    if (size_in.rank() != 0) return errors::InvalidArgument("Shape must be rank 0 but is rank ", size_in.rank());
    if (size_in.dtype() != in.dtype()) return errors::DTypeError("size must have the input's dtype");
    const int64_t size = static_cast<int64_t>(size_in.data<Tidx>()[0]);
    if (size < 0) return errors::InvalidArgument("size (", size, ") must be non-negative");
    if (in.rank() > 2) return errors::InvalidArgument("Shape must be at most rank 2 but is rank ", in.rank());
    const bool weighted = w.num_elements() > 0;
    if (weighted && w.dims() != in.dims()) {
      return errors::InvalidArgument("`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case "
                                     "it acts as all weights equal to 1. Received ", ShapeText(w.dims()));
    }
    const bool matrix = in.rank() == 2;
    const int64_t rows = matrix ? in.dim(0) : 1;
    const int64_t cols = matrix ? in.dim(1) : in.num_elements();
    const Tidx* x = in.data<Tidx>();
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      if (x[i] < 0) {
        if (matrix) {
          return errors::InvalidArgument("Input 'in' must be non-negative! Negative input value found: ",
                                         static_cast<int64_t>(x[i]));
        }
        return errors::InvalidArgument("Input arr must be non-negative!");
      }
    }
    Tensor* out = nullptr;
    const std::vector<int64_t> dims = matrix ? std::vector<int64_t>{rows, size} : std::vector<int64_t>{size};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), dims, &out));
    T* o = out->data<T>();
    std::fill_n(o, rows * size, T{0});
    const T* wv = weighted ? w.data<T>() : nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      T* row = o + r * size;
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t i = r * cols + c;
        const int64_t v = static_cast<int64_t>(x[i]);
        if (v >= size) continue;
        if (binary_) {
          row[v] = T{1};
        } else {
          row[v] = static_cast<T>(row[v] + (weighted ? wv[i] : T{1}));
        }
      }
    }
    return Status::Ok();
  }

  bool binary_ = false;
};

}  // namespace

void RegisterBucketizeKernels(KernelRegistry& r) {
  RegisterTypes<BucketizeKernel, int32_t, int64_t, float, double>(r, "Bucketize");
  RegisterTypes<DenseBincountKernel, int32_t, int64_t, float, double>(r, "DenseBincount");
}

}  // namespace graft::cpu
