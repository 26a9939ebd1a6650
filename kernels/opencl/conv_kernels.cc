// Conv2D on the OpenCL device: Graft's im2col kernel (conv.cl) and CLBlast's GEMM, float32 and
// (where the device has cl_khr_fp64) float64; SAME, VALID and EXPLICIT padding, strides and
// dilations; NHWC, and NCHW through device transposes to NHWC and back. The patch matrix is
// built for as many images at a time as fit in 64 Mi elements. A 1x1 filter with unit strides
// and no padding skips im2col (the input is the patch matrix). Grouped convolutions (input
// depth a multiple of the filter's) run the CPU's kernel on host copies.
#include <clblast_c.h>

#include <string>

#include "kernels/cpu/kernel_util.h"
#include "kernels/opencl/cl_ops.h"
#include "kernels/opencl/cl_sources.h"
#include "kernels/opencl/opencl_kernel_util.h"

namespace graft::opencl {
namespace {

// TensorFlow's output size and leading padding of one spatial dim.
Status Window(int64_t in, int64_t k, int64_t dilation, int64_t stride, const std::string& padding, int64_t pad_lo,
              int64_t pad_hi, int64_t* out, int64_t* pad_before) {
  const int64_t eff = (k - 1) * dilation + 1;
  if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
    *pad_before = std::max<int64_t>((*out - 1) * stride + eff - in, 0) / 2;
  } else {
    const int64_t padded = padding == "VALID" ? in : in + pad_lo + pad_hi;
    *out = (padded - eff + stride) / stride;
    *pad_before = padding == "VALID" ? 0 : pad_lo;
  }
  if (*out < 0) {
    return errors::InvalidArgument("Computed output size would be negative: ", *out, " [input_size: ", in,
                                   ", effective_filter_size: ", eff, ", stride: ", stride, "]");
  }
  return Status::Ok();
}

Status Gemm(ClContext& cl, DType dt, size_t m, size_t n, size_t k, cl_mem a, size_t ao, cl_mem b, cl_mem c,
            size_t co) {
  cl_command_queue q = cl.queue();
  const auto lay = CLBlastLayoutRowMajor;
  const auto no = CLBlastTransposeNo;
  auto lock = cl.Lock();
  CLBlastStatusCode code;
  if (dt == DType::kFloat64) {
    code = CLBlastDgemm(lay, no, no, m, n, k, 1.0, a, ao, k, b, 0, n, 0.0, c, co, n, &q, nullptr);
  } else {
    code = CLBlastSgemm(lay, no, no, m, n, k, 1.0f, a, ao, k, b, 0, n, 0.0f, c, co, n, &q, nullptr);
  }
  if (code == CLBlastSuccess) return Status::Ok();
  return errors::Internal("CLBlast: ", dt == DType::kFloat64 ? "Dgemm" : "Sgemm", " failed with status ",
                          static_cast<int>(code));
}

class Conv2DKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "strides", &strides_));
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "padding", &padding_));
    if (node().attr("data_format") != nullptr) GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "data_format", &format_));
    if (node().attr("dilations") != nullptr) GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "dilations", &dilations_));
    if (node().attr("explicit_paddings") != nullptr) {
      GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "explicit_paddings", &explicit_));
    }
    if (strides_.size() != 4) return errors::InvalidArgument("Conv2D: sliding window strides field must specify 4 dimensions");
    if (dilations_.size() != 4) return errors::InvalidArgument("Conv2D: sliding window dilations field must specify 4 dimensions");
    if (padding_ == "EXPLICIT" && explicit_.size() != 8) {
      return errors::InvalidArgument("Conv2D: explicit_paddings must have 8 entries");
    }
    if (format_ != "NHWC" && format_ != "NCHW") {
      return errors::Unimplemented("Conv2D: data_format ", format_, " is not supported (NHWC or NCHW)");
    }
    nchw_ = format_ == "NCHW";
    if (nchw_) {  // to NHWC order
      auto nhwc = [](const std::vector<int64_t>& v) { return std::vector<int64_t>{v[0], v[2], v[3], v[1]}; };
      strides_ = nhwc(strides_);
      dilations_ = nhwc(dilations_);
      if (explicit_.size() == 8) {
        explicit_ = {explicit_[0], explicit_[1], explicit_[4], explicit_[5],
                     explicit_[6], explicit_[7], explicit_[2], explicit_[3]};
      }
    }
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& input = ctx.input(0);
    const Tensor& f = ctx.input(1);
    if (input.rank() != 4) return errors::InvalidArgument("Conv2D: input must be 4-dimensional, got ", cpu::ShapeText(input.dims()));
    if (f.rank() != 4) return errors::InvalidArgument("Conv2D: filter must be 4-dimensional, got ", cpu::ShapeText(f.dims()));
    if (strides_[0] != 1 || strides_[3] != 1) {
      return errors::Unimplemented("Conv2D: current implementation does not yet support strides in the batch and depth dimensions.");
    }
    if (dilations_[0] != 1 || dilations_[3] != 1) {
      return errors::Unimplemented("Conv2D: current implementation does not yet support dilations in the batch and depth dimensions.");
    }
    if (strides_[1] < 1 || strides_[2] < 1 || dilations_[1] < 1 || dilations_[2] < 1) {
      return errors::InvalidArgument("Conv2D: strides and dilations must be positive");
    }
    const DType dt = input.dtype();
    // The NHWC dims of the input.
    const Dims xd = nchw_ ? Dims{input.dim(0), input.dim(2), input.dim(3), input.dim(1)} : input.dims();
    const int64_t n = xd[0], h = xd[1], w = xd[2], c = xd[3];
    const int64_t kh = f.dim(0), kw = f.dim(1), oc = f.dim(3);
    if (f.dim(2) != c) {
      if (f.dim(2) > 0 && c % f.dim(2) == 0) return RunOnHost(ctx, *device);  // grouped: the CPU's kernel
      return errors::InvalidArgument("Conv2D: input depth must be evenly divisible by filter depth: ", c, " vs ",
                                     f.dim(2));
    }
    int64_t oh = 0, ow = 0, pt = 0, pl = 0;
    const bool ex = padding_ == "EXPLICIT";
    GRAFT_RETURN_IF_ERROR(Window(h, kh, dilations_[1], strides_[1], padding_, ex ? explicit_[2] : 0,
                                 ex ? explicit_[3] : 0, &oh, &pt));
    GRAFT_RETURN_IF_ERROR(Window(w, kw, dilations_[2], strides_[2], padding_, ex ? explicit_[4] : 0,
                                 ex ? explicit_[5] : 0, &ow, &pl));
    const Dims out_nhwc = {n, oh, ow, oc};
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(
        ctx.AllocateOutput(0, dt, nchw_ ? Dims{n, oc, oh, ow} : out_nhwc, &out));
    if (out->num_elements() == 0) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(CheckInt32(input.num_elements(), "elements"));
    GRAFT_RETURN_IF_ERROR(CheckInt32(out->num_elements(), "elements"));
    ClContext& cl = device->cl();
    const size_t es = DTypeSize(dt);
    cl_mem xm = nullptr, fm = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(input, "the input", &xm));
    GRAFT_RETURN_IF_ERROR(ClMem(f, "the filter", &fm));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    const int64_t k = kh * kw * c;
    if (k == 0) {  // an empty sum: zeros
      const uint64_t zero = 0;
      auto lock = cl.Lock();
      return ClStatus(clEnqueueFillBuffer(cl.queue(), om, &zero, es, 0, static_cast<size_t>(out->num_elements()) * es,
                                          0, nullptr, nullptr),
                      "filling the output with zeros");
    }
    // NCHW: the input transposed to NHWC, the result in an NHWC buffer transposed back.
    std::shared_ptr<ClBuffer> x_nhwc, y_nhwc;
    cl_mem x = xm, y = om;
    if (nchw_) {
      GRAFT_RETURN_IF_ERROR(cl.Allocate(static_cast<size_t>(input.num_elements()) * es, &x_nhwc));
      const Dims s = RowMajor(input.dims());  // N, C, H, W
      GRAFT_RETURN_IF_ERROR(StridedCopy(*device, dt, xm, x_nhwc->mem(), 0, xd, {s[0], s[2], s[3], s[1]}));
      GRAFT_RETURN_IF_ERROR(cl.Allocate(static_cast<size_t>(out->num_elements()) * es, &y_nhwc));
      x = x_nhwc->mem();
      y = y_nhwc->mem();
    }
    const int64_t rows_per_image = oh * ow;
    const bool direct = kh == 1 && kw == 1 && strides_[1] == 1 && strides_[2] == 1 && pt == 0 && pl == 0 &&
                        oh == h && ow == w;
    if (direct) {
      GRAFT_RETURN_IF_ERROR(Gemm(cl, dt, static_cast<size_t>(n * rows_per_image), static_cast<size_t>(oc),
                                 static_cast<size_t>(k), x, 0, fm, y, 0));
    } else {
      const int64_t cap = int64_t{64} << 20;  // elements of the patch matrix at a time
      const int64_t per_image = rows_per_image * k;
      if (per_image > INT32_MAX) return errors::Unimplemented("Conv2D: the patch matrix of one image exceeds 2^31 elements");
      const int64_t batch = std::max<int64_t>(1, std::min<int64_t>(n, cap / std::max<int64_t>(per_image, 1)));
      std::shared_ptr<ClBuffer> cols;
      GRAFT_RETURN_IF_ERROR(cl.Allocate(static_cast<size_t>(batch * per_image) * es, &cols));
      const std::string name = StrCat("im2col_", dt == DType::kFloat64 ? "f64" : "f32");
      cl_kernel kern = nullptr;
      GRAFT_RETURN_IF_ERROR(cl.Kernel("conv", sources::kConvCl, name.c_str(), &kern));
      for (int64_t b0 = 0; b0 < n; b0 += batch) {
        const int64_t nb = std::min(batch, n - b0);
        const int64_t count = nb * per_image;
        {
          auto i32 = [](int64_t v) { return static_cast<cl_int>(v); };
          cl_mem cm = cols->mem();
          auto lock = cl.Lock();
          GRAFT_RETURN_IF_ERROR(SetArgs(kern, x, cm, i32(count), i32(b0), i32(h), i32(w), i32(c), i32(oh), i32(ow),
                                        i32(kh), i32(kw), i32(strides_[1]), i32(strides_[2]), i32(dilations_[1]),
                                        i32(dilations_[2]), i32(pt), i32(pl)));
          GRAFT_RETURN_IF_ERROR(Launch1D(cl, kern, count, name));
        }
        GRAFT_RETURN_IF_ERROR(Gemm(cl, dt, static_cast<size_t>(nb * rows_per_image), static_cast<size_t>(oc),
                                   static_cast<size_t>(k), cols->mem(), 0, fm, y,
                                   static_cast<size_t>(b0 * rows_per_image * oc)));
      }
    }
    if (nchw_) {  // NHWC -> NCHW
      const Dims s = RowMajor(out_nhwc);
      GRAFT_RETURN_IF_ERROR(StridedCopy(*device, dt, y, om, 0, {n, oc, oh, ow}, {s[0], s[3], s[1], s[2]}));
    }
    return Status::Ok();
  }

 private:
  std::vector<int64_t> strides_, dilations_ = {1, 1, 1, 1}, explicit_;
  std::string padding_, format_ = "NHWC";
  bool nchw_ = false;
};

}  // namespace

void RegisterConvKernels(KernelRegistry& r) {
  const std::vector<DType> types = {DType::kFloat32, DType::kFloat64};
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {
    (void)r.Register("Conv2D", device, "T", types, MakeFactory<Conv2DKernel>());
  }
}

}  // namespace graft::opencl
