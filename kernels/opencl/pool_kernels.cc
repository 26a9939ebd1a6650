// Pooling on the OpenCL device (pool.cl): MaxPool, AvgPool and their gradients MaxPoolGrad,
// AvgPoolGrad, NHWC, SAME and VALID padding, float32 and (where the device has cl_khr_fp64)
// float64, giving the CPU's results exactly. What the device kernels leave out (NCHW,
// EXPLICIT padding, pooling over the batch or depth dims) and inputs the CPU rejects run the
// CPU's kernel on host copies (RunOnHost), which computes it or reports the CPU's error.
#include <string>
#include <vector>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/opencl/cl_ops.h"
#include "kernels/opencl/cl_sources.h"
#include "kernels/opencl/opencl_kernel_util.h"

namespace graft::opencl {
namespace {

// One pooling op's attrs and window geometry over an NHWC input.
class PoolOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "ksize", &ksize_));
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "strides", &strides_));
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "padding", &padding_));
    std::string format = "NHWC";
    if (node().attr("data_format") != nullptr) GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "data_format", &format));
    supported_ = format == "NHWC" && (padding_ == "SAME" || padding_ == "VALID") && ksize_.size() == 4 &&
                 strides_.size() == 4 && ksize_[0] == 1 && ksize_[3] == 1 && strides_[0] == 1 && strides_[3] == 1 &&
                 ksize_[1] >= 1 && ksize_[2] >= 1 && strides_[1] >= 1 && strides_[2] >= 1;
    return Status::Ok();
  }

 protected:
  // Kernel arguments after the tensors: element count and the window geometry.
  struct Geometry {
    cl_int n, h, w, c, oh, ow, kh, kw, sh, sw, ph, pw;
  };

  // The geometry of pooling an NHWC input of in_dims; false when the device kernels do not
  // take it (then the caller runs the CPU's kernel).
  bool Windows(const Dims& in_dims, Dims* out_dims, Geometry* g) const {
    if (!supported_ || in_dims.size() != 4) return false;
    int64_t oh = 0, ow = 0, ph = 0, pw = 0;
    if (!cpu::Windowed(in_dims[1], ksize_[1], 1, strides_[1], padding_, 0, 0, &oh, &ph).ok() ||
        !cpu::Windowed(in_dims[2], ksize_[2], 1, strides_[2], padding_, 0, 0, &ow, &pw).ok()) {
      return false;
    }
    *out_dims = {in_dims[0], oh, ow, in_dims[3]};
    int64_t in_n = 1, out_n = 1;
    for (int i = 0; i < 4; ++i) {
      if (__builtin_mul_overflow(in_n, in_dims[static_cast<size_t>(i)], &in_n) ||
          __builtin_mul_overflow(out_n, (*out_dims)[static_cast<size_t>(i)], &out_n)) {
        return false;
      }
    }
    for (int64_t v : {in_n, out_n, ksize_[1], ksize_[2], strides_[1], strides_[2]}) {
      if (v > INT32_MAX) return false;
    }
    auto i32 = [](int64_t v) { return static_cast<cl_int>(v); };
    *g = {0,       i32(in_dims[1]), i32(in_dims[2]), i32(in_dims[3]), i32(oh), i32(ow), i32(ksize_[1]),
          i32(ksize_[2]), i32(strides_[1]), i32(strides_[2]), i32(ph), i32(pw)};
    return true;
  }

  // Runs pool.cl's `kernel`_<t> over n work items with the tensors' buffers, then g.
  template <typename... Mems>
  Status Launch(OpenClDevice& device, const char* kernel, DType dt, int64_t n, Geometry g, Mems... mems) const {
    if (n == 0) return Status::Ok();
    g.n = static_cast<cl_int>(n);
    const std::string name = StrCat(kernel, dt == DType::kFloat64 ? "_f64" : "_f32");
    cl_kernel k = nullptr;
    GRAFT_RETURN_IF_ERROR(device.cl().Kernel("pool", sources::kPoolCl, name.c_str(), &k));
    auto lock = device.cl().Lock();
    GRAFT_RETURN_IF_ERROR(SetArgs(k, mems..., g.n, g.h, g.w, g.c, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw));
    return Launch1D(device.cl(), k, n, name);
  }

 private:
  std::vector<int64_t> ksize_, strides_;
  std::string padding_;
  bool supported_ = false;
};

template <bool kMax>
class PoolKernel : public PoolOp {
 public:
  using PoolOp::PoolOp;
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& x = ctx.input(0);
    Dims out_dims;
    Geometry g{};
    if (!Windows(x.dims(), &out_dims, &g)) return RunOnHost(ctx, *device);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), out_dims, &out));
    if (out->num_elements() == 0) return Status::Ok();
    cl_mem xm = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(x, "the input", &xm));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    return Launch(*device, kMax ? "max_pool" : "avg_pool", x.dtype(), out->num_elements(), g, xm, om);
  }
};

// MaxPoolGrad(orig_input, orig_output, grad).
class MaxPoolGradKernel : public PoolOp {
 public:
  using PoolOp::PoolOp;
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& x = ctx.input(0);
    const Tensor& dy = ctx.input(2);
    Dims fwd;
    Geometry g{};
    if (!Windows(x.dims(), &fwd, &g) || ctx.input(1).dims() != fwd || dy.dims() != fwd) return RunOnHost(ctx, *device);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), x.dims(), &out));
    if (out->num_elements() == 0) return Status::Ok();
    cl_mem xm = nullptr, gm = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(x, "orig_input", &xm));
    GRAFT_RETURN_IF_ERROR(ClMem(dy, "grad", &gm));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    return Launch(*device, "max_pool_grad", x.dtype(), out->num_elements(), g, xm, gm, om);
  }
};

// AvgPoolGrad(orig_input_shape, grad): the shape is read on the host.
class AvgPoolGradKernel : public PoolOp {
 public:
  using PoolOp::PoolOp;
  bool HostMemoryInput(int i) const override { return i == 0; }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& dy = ctx.input(1);
    Dims in_dims, fwd;
    Geometry g{};
    const bool shape_ok = ctx.input(0).rank() == 1 && ctx.input(0).num_elements() == 4 &&
                          HostIndices(*device, ctx.input(0), "orig_input_shape", &in_dims).ok() &&
                          std::all_of(in_dims.begin(), in_dims.end(), [](int64_t d) { return d >= 0; });
    if (!shape_ok || !Windows(in_dims, &fwd, &g) || dy.dims() != fwd) return RunOnHost(ctx, *device);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, dy.dtype(), in_dims, &out));
    if (out->num_elements() == 0) return Status::Ok();
    cl_mem gm = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(dy, "grad", &gm));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    return Launch(*device, "avg_pool_grad", dy.dtype(), out->num_elements(), g, gm, om);
  }
};

}  // namespace

void RegisterPoolKernels(KernelRegistry& r) {
  const std::vector<DType> types = {DType::kFloat32, DType::kFloat64};
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {
    (void)r.Register("MaxPool", device, "T", types, &CreateKernel<PoolKernel<true>>);
    (void)r.Register("AvgPool", device, "T", types, &CreateKernel<PoolKernel<false>>);
    (void)r.Register("MaxPoolGrad", device, "T", types, &CreateKernel<MaxPoolGradKernel>);
    (void)r.Register("AvgPoolGrad", device, "T", types, &CreateKernel<AvgPoolGradKernel>);
  }
}

}  // namespace graft::opencl
