// float16 and bfloat16 arithmetic: each op that TensorFlow defines for 16-bit floats and that
// has a float32 CPU kernel runs that kernel on widened copies of its 16-bit inputs, and its
// 16-bit outputs are rounded back to nearest even -- what TensorFlow's CPU kernels do per op
// (Eigen's half and bfloat16 compute in float32). One adapter serves elementwise ops,
// reductions, MatMul, convolutions and the rest, so there is no second copy of any kernel. The
// adapter and the choice of ops are float16_adapter.h's, shared with the OpenCL device.
//
// Registered last (RegisterFloat16Kernels runs after every other family) so it sees every
// float32 kernel. Ops that write state (references, resources, stateful ops) are left out:
// widening would make them update a copy.
#include <memory>

#include "core/float16.h"
#include "core/runtime/device.h"
#include "kernels/cpu/float16_adapter.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {

namespace {

// Runs the float32 kernel of the node's op on widened inputs and narrows its outputs.
class ComputeInFloat32Kernel : public OpKernel {
 public:
  ComputeInFloat32Kernel(const Node& node, std::unique_ptr<OpKernel> inner)
      : OpKernel(node), inner_(std::move(inner)) {}

  bool IsCheap() const override { return inner_->IsCheap(); }

  Status Compute(OpKernelContext& ctx) const override {
    return ComputeInFloat32(
        node(), *inner_, ctx, [](const Tensor& in, Tensor* out) { return WidenToFloat32(in, out); },
        [](const Tensor& out, DType want, Tensor* narrowed) {
          return NarrowFromFloat32(out, want, /*truncate=*/false, narrowed);
        });
  }

 private:
  std::unique_ptr<OpKernel> inner_;
};

}  // namespace

void RegisterFloat16Kernels(KernelRegistry& r) {
  RegisterFloat32Adapters(r, kDeviceCpu, [](const Node& node, std::unique_ptr<OpKernel> inner) {
    return std::unique_ptr<OpKernel>(std::make_unique<ComputeInFloat32Kernel>(node, std::move(inner)));
  });
}

}  // namespace graft::cpu
