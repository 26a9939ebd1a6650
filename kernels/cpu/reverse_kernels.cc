// CPU kernel for ReverseV2: the input with the listed axes reversed (each axis at most once;
// negative axes count from the end; an empty list is the identity). Keras emits it for
// recurrent layers run backwards (go_backwards, Bidirectional) and for RandomFlip.
#include <string>
#include <vector>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

template <typename T>
class ReverseV2Kernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const Tensor& axis_t = ctx.input(1);
    if (axis_t.rank() != 1) {
      return errors::InvalidArgument("'axis' must be 1-D, not ", ShapeText(axis_t.dims()));
    }
    Dims axes;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(axis_t, "axis", &axes));
    const int64_t rank = in.rank();
    if (rank > 8) {
      return errors::Unimplemented("reverse is not implemented for tensors of rank > 8.");
    }
    std::vector<bool> rev(static_cast<size_t>(rank), false);
    bool any = false;
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = axes[i];
      const int64_t canon = a < 0 ? a + rank : a;
      if (canon < 0 || canon >= rank) {
        return errors::InvalidArgument("'axis'[", i, "] = ", a, " is out of valid range [0, ", rank - 1, "]");
      }
      if (rev[static_cast<size_t>(canon)]) {
        return errors::InvalidArgument("axis ", canon, " specified more than once.");
      }
      rev[static_cast<size_t>(canon)] = true;
      any = any || in.dim(static_cast<int>(canon)) > 1;
    }
    if (!any) {  // nothing moves: the input itself
      ctx.SetOutput(0, in);
      return Status::Ok();
    }
    // Read each reversed axis from its last element backwards (a negative stride).
    const Dims& dims = in.dims();
    Dims strides = RowMajorStrides(dims);
    int64_t base = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (rev[d] && dims[d] > 0) {
        base += (dims[d] - 1) * strides[d];
        strides[d] = -strides[d];
      }
    }
    const T* src = Elements<T>(in);
    return Produce<T>(ctx, 0, in.dtype(), dims, [&](T* out) { StridedCopy(src, base, strides, dims, out); });
  }
};

}  // namespace

void RegisterReverseKernels(KernelRegistry& r) { RegisterAllTypes<ReverseV2Kernel>(r, "ReverseV2"); }

}  // namespace graft::cpu
