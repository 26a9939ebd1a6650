// CPU kernel for Bucketize: the index of the bucket each input element falls in, given sorted
// float boundaries: the number of boundaries <= the element (so an element equal to a
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

}  // namespace

void RegisterBucketizeKernels(KernelRegistry& r) {
  RegisterTypes<BucketizeKernel, int32_t, int64_t, float, double>(r, "Bucketize");
}

}  // namespace graft::cpu
