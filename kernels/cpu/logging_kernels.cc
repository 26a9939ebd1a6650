// CPU kernels for checks and logging: CheckNumerics (float32, float64).
#include <cmath>
#include <string>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

// CheckNumerics: forwards its input, or fails with the message attr when it holds NaN or Inf.
template <typename T>
class CheckNumericsKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "message", &message_); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const T* p = in.num_elements() > 0 ? in.data<T>() : nullptr;
    bool nan = false, inf = false;
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      nan = nan || std::isnan(p[i]);
      inf = inf || std::isinf(p[i]);
    }
    if (nan || inf) {
      const char* what = inf ? (nan ? "Inf and NaN" : "Inf") : "NaN";
      return errors::InvalidArgument(message_, " : Tensor had ", what, " values");
    }
    ctx.SetOutput(0, in);
    return Status::Ok();
  }

 private:
  std::string message_;
};

}  // namespace

void RegisterLoggingKernels(KernelRegistry& r) {
  (void)r.Register("CheckNumerics", kDeviceCpu, "T", {DType::kFloat32}, &CreateKernel<CheckNumericsKernel<float>>);
  (void)r.Register("CheckNumerics", kDeviceCpu, "T", {DType::kFloat64}, &CreateKernel<CheckNumericsKernel<double>>);
}

}  // namespace graft::cpu
