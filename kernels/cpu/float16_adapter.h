// The float16/bfloat16 adapter shared by the CPU (float16_kernels.cc) and the OpenCL device
// (kernels/opencl/float16_kernels.cc): an op with a float32 kernel runs that kernel on its
// 16-bit float inputs widened to float32, and its float32 outputs that the node declares as
// 16-bit floats are rounded back to nearest even. Each device supplies how to widen and narrow
// (on the host, on the device); which ops are wrapped and how the inner kernel runs live here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/float16.h"
#include "core/runtime/kernel.h"

namespace graft::cpu {

// Runs inner (the float32 kernel of node's op) with ctx's 16-bit float inputs widened by
// widen(const Tensor& in, Tensor* widened) and sets ctx's outputs, each float32 output the node
// declares 16-bit narrowed by narrow(const Tensor& out, DType want, Tensor* narrowed).
template <typename Widen, typename Narrow>
Status ComputeInFloat32(const Node& node, const OpKernel& inner, OpKernelContext& ctx, Widen widen, Narrow narrow) {
  const int n_in = ctx.num_inputs();
  std::vector<Tensor> widened(static_cast<size_t>(n_in));
  std::vector<Tensor*> inputs(static_cast<size_t>(n_in));
  std::vector<uint8_t> forwardable(static_cast<size_t>(n_in), 0);
  for (int i = 0; i < n_in; ++i) {
    const size_t si = static_cast<size_t>(i);
    const Tensor& in = ctx.input(i);
    if (in.valid() && Is16BitFloat(in.dtype())) {
      GRAFT_RETURN_IF_ERROR(widen(in, &widened[si]));
      inputs[si] = &widened[si];
      forwardable[si] = 1;  // a private copy: the kernel may write into it
    } else {
      inputs[si] = const_cast<Tensor*>(&in);  // read only: never forwarded
    }
  }
  std::vector<Tensor> outputs(static_cast<size_t>(ctx.num_outputs()));
  OpKernelContext inner_ctx(ctx.node(), ctx.device(), ctx.resources(), inputs, forwardable, outputs);
  GRAFT_RETURN_IF_ERROR(inner.Compute(inner_ctx));
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    Tensor& out = outputs[static_cast<size_t>(i)];
    const DType want = node.output_type(i);
    if (out.valid() && out.dtype() == DType::kFloat32 && Is16BitFloat(want)) {
      Tensor narrowed;
      GRAFT_RETURN_IF_ERROR(narrow(out, want, &narrowed));
      ctx.SetOutput(i, std::move(narrowed));
    } else {
      ctx.SetOutput(i, std::move(out));
    }
  }
  return Status::Ok();
}

// Makes the adapter kernel for node around inner, its op's float32 kernel.
using Float32Adapter = std::function<std::unique_ptr<OpKernel>(const Node& node, std::unique_ptr<OpKernel> inner)>;

// Registers, on device, float16 and bfloat16 kernels made by adapter for every op with a type
// attr T that admits them, a float32 kernel on device and none of its own for them, and no
// state: not stateful, no reference, resource or variant argument (widening would make it
// update a copy). Call it after every other family of device is registered.
void RegisterFloat32Adapters(KernelRegistry& r, const char* device, const Float32Adapter& adapter);

}  // namespace graft::cpu
