// Neural-network ops on the OpenCL device (nn.cl): Softmax and LogSoftmax over the last axis
// (one work group per row), BiasAdd (NHWC and NCHW), float32 and (where the device has
// cl_khr_fp64) float64. Their gradients' kernels: ReluGrad and friends are elementwise
// (elementwise_kernels.cc), BiasAddGrad a reduction (reduce_kernels.cc).
#include <string>

#include "kernels/cpu/kernel_util.h"
#include "kernels/opencl/cl_ops.h"
#include "kernels/opencl/cl_sources.h"
#include "kernels/opencl/opencl_kernel_util.h"

namespace graft::opencl {
namespace {

const char* FloatSuffix(DType dt) { return dt == DType::kFloat64 ? "f64" : "f32"; }

class SoftmaxKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& x = ctx.input(0);
    if (x.rank() < 1) return errors::InvalidArgument("logits must have rank >= 1, got a scalar");
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), x.dims(), &out, 0));
    const int64_t n = x.dim(x.rank() - 1);
    const int64_t rows = n == 0 ? 0 : x.num_elements() / n;
    if (rows == 0) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(CheckInt32(x.num_elements(), "elements"));
    cl_mem im = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(x, "input 0", &im));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    const std::string name = StrCat(node().type() == "LogSoftmax" ? "log_softmax_" : "softmax_", FloatSuffix(x.dtype()));
    cl_kernel k = nullptr;
    GRAFT_RETURN_IF_ERROR(device->cl().Kernel("nn", sources::kNnCl, name.c_str(), &k));
    const cl_int cols = static_cast<cl_int>(n);
    const size_t local = 64, global = static_cast<size_t>(rows) * local;
    auto lock = device->cl().Lock();
    GRAFT_RETURN_IF_ERROR(SetArgs(k, im, om, cols));
    return ClStatus(clEnqueueNDRangeKernel(device->cl().queue(), k, 1, nullptr, &global, &local, 0, nullptr, nullptr),
                    StrCat("running kernel '", name, "'"));
  }
};

class BiasAddKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    std::string format = "NHWC";
    if (node().attr("data_format") != nullptr) GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "data_format", &format));
    nchw_ = format == "NCHW";
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& x = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    if (x.rank() < 2) return errors::InvalidArgument("input must be at least 2-D, got ", cpu::ShapeText(x.dims()));
    if (bias.rank() != 1) return errors::InvalidArgument("bias must be 1-D, got ", cpu::ShapeText(bias.dims()));
    const int channel = nchw_ ? 1 : x.rank() - 1;
    const int64_t c = x.dim(channel);
    if (bias.dim(0) != c) {
      return errors::InvalidArgument("bias of ", bias.dim(0), " elements does not match the ", c, " channels of ",
                                     cpu::ShapeText(x.dims()));
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), x.dims(), &out, 0));
    const int64_t n = x.num_elements();
    if (n == 0) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(CheckInt32(n, "elements"));
    int64_t inner = 1;
    for (int d = channel + 1; d < x.rank(); ++d) inner *= x.dim(d);
    cl_mem xm = nullptr, bm = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(x, "input 0", &xm));
    GRAFT_RETURN_IF_ERROR(ClMem(bias, "the bias", &bm));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    const std::string name = StrCat("bias_add_", FloatSuffix(x.dtype()));
    cl_kernel k = nullptr;
    GRAFT_RETURN_IF_ERROR(device->cl().Kernel("nn", sources::kNnCl, name.c_str(), &k));
    const cl_int count = static_cast<cl_int>(n), ch = static_cast<cl_int>(c), in = static_cast<cl_int>(inner);
    auto lock = device->cl().Lock();
    GRAFT_RETURN_IF_ERROR(SetArgs(k, xm, bm, om, count, ch, in));
    return Launch1D(device->cl(), k, n, name);
  }

 private:
  bool nchw_ = false;
};

}  // namespace

void RegisterNnKernels(KernelRegistry& r) {
  const std::vector<DType> types = {DType::kFloat32, DType::kFloat64};
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {
    (void)r.Register("Softmax", device, "T", types, &CreateKernel<SoftmaxKernel>);
    (void)r.Register("LogSoftmax", device, "T", types, &CreateKernel<SoftmaxKernel>);
    (void)r.Register("BiasAdd", device, "T", types, &CreateKernel<BiasAddKernel>);
  }
}

}  // namespace graft::opencl
