// Conv2D and its gradients on the OpenCL device: Graft's im2col and col2im kernels (conv.cl) and
// CLBlast's GEMM, float32 and (where the device has cl_khr_fp64) float64; SAME, VALID and
// EXPLICIT padding, strides and dilations.
// - Conv2D: NHWC, and NCHW through device transposes to NHWC and back; the patch matrix is
//   built for as many images at a time as fit in 64 Mi elements; a 1x1 filter with unit
//   strides and no padding skips im2col (the input is the patch matrix).
// - Conv2DBackpropFilter: dfilter = sum over image batches of patches^T * dy (GEMM with beta 1
//   after the first batch).
// - Conv2DBackpropInput: per image batch, dpatches = dy * filter^T, then col2im adds each
//   patch cell's gradient back to the input cell it was read from (a gather per input cell: no
//   atomics).
// What the device kernels leave out (grouped convolutions, the gradients in NCHW, which the
// CPU does not take either) and inputs the CPU rejects run the CPU's kernel on host copies
// (RunOnHost): it computes them or reports the CPU's error.
#include <clblast_c.h>

#include <string>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/opencl/cl_ops.h"
#include "kernels/opencl/cl_sources.h"
#include "kernels/opencl/opencl_kernel_util.h"

namespace graft::opencl {
namespace {

// c[co..] = op(a[ao..]) * op(b[bo..]) + beta * c, row-major: op(a) m x k, op(b) k x n.
Status Gemm(ClContext& cl, DType dt, bool ta, bool tb, size_t m, size_t n, size_t k, cl_mem a, size_t ao, cl_mem b,
            size_t bo, double beta, cl_mem c, size_t co) {
  cl_command_queue q = cl.queue();
  const auto lay = CLBlastLayoutRowMajor;
  const auto opa = ta ? CLBlastTransposeYes : CLBlastTransposeNo, opb = tb ? CLBlastTransposeYes : CLBlastTransposeNo;
  const size_t lda = ta ? m : k, ldb = tb ? k : n;
  auto lock = cl.Lock();
  CLBlastStatusCode code;
  if (dt == DType::kFloat64) {
    code = CLBlastDgemm(lay, opa, opb, m, n, k, 1.0, a, ao, lda, b, bo, ldb, beta, c, co, n, &q, nullptr);
  } else {
    code = CLBlastSgemm(lay, opa, opb, m, n, k, 1.0f, a, ao, lda, b, bo, ldb, static_cast<float>(beta), c, co, n, &q,
                        nullptr);
  }
  if (code == CLBlastSuccess) return Status::Ok();
  return errors::Internal("CLBlast: ", dt == DType::kFloat64 ? "Dgemm" : "Sgemm", " failed with status ",
                          static_cast<int>(code));
}

// Fills bytes bytes of m with zeros.
Status Zero(ClContext& cl, cl_mem m, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  const uint32_t zero = 0;
  auto lock = cl.Lock();
  return ClStatus(clEnqueueFillBuffer(cl.queue(), m, &zero, sizeof zero, 0, bytes, 0, nullptr, nullptr),
                  "filling a buffer with zeros");
}

// A convolution op's attrs, in NHWC order, and its geometry.
class ConvOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    const std::string& op = node().type();
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "strides", &strides_));
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "padding", &padding_));
    if (node().attr("data_format") != nullptr) GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "data_format", &format_));
    if (node().attr("dilations") != nullptr) GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "dilations", &dilations_));
    if (node().attr("explicit_paddings") != nullptr) {
      GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "explicit_paddings", &explicit_));
    }
    if (strides_.size() != 4) return errors::InvalidArgument(op, ": sliding window strides field must specify 4 dimensions");
    if (dilations_.size() != 4) return errors::InvalidArgument(op, ": sliding window dilations field must specify 4 dimensions");
    if (padding_ == "EXPLICIT" && explicit_.size() != 8) {
      return errors::InvalidArgument(op, ": explicit_paddings must have 8 entries");
    }
    if (format_ != "NHWC" && format_ != "NCHW") {
      return errors::Unimplemented(op, ": data_format ", format_, " is not supported (NHWC or NCHW)");
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

 protected:
  // A 2-D convolution of an NHWC input [n, h, w, c] with a filter [kh, kw, c, oc].
  struct Geometry {
    int64_t n, h, w, c, kh, kw, oc, oh = 0, ow = 0, pt = 0, pl = 0;
    int64_t k() const { return kh * kw * c; }             // patch length
    int64_t rows_per_image() const { return oh * ow; }  // patches per image
  };

  Status CheckAttrs() const {
    const std::string& op = node().type();
    if (strides_[0] != 1 || strides_[3] != 1) {
      return errors::Unimplemented(op, ": current implementation does not yet support strides in the batch and depth dimensions.");
    }
    if (dilations_[0] != 1 || dilations_[3] != 1) {
      return errors::Unimplemented(op, ": current implementation does not yet support dilations in the batch and depth dimensions.");
    }
    if (strides_[1] < 1 || strides_[2] < 1 || dilations_[1] < 1 || dilations_[2] < 1) {
      return errors::InvalidArgument(op, ": strides and dilations must be positive");
    }
    return Status::Ok();
  }

  // Fills g's output size and leading padding from its input and filter dims.
  Status Windows(Geometry* g) const {
    const bool ex = padding_ == "EXPLICIT";
    GRAFT_RETURN_IF_ERROR(cpu::Windowed(g->h, g->kh, dilations_[1], strides_[1], padding_, ex ? explicit_[2] : 0,
                                        ex ? explicit_[3] : 0, &g->oh, &g->pt));
    return cpu::Windowed(g->w, g->kw, dilations_[2], strides_[2], padding_, ex ? explicit_[4] : 0,
                         ex ? explicit_[5] : 0, &g->ow, &g->pl);
  }

  // Input patches are read as they are: a 1x1 filter, unit strides, no padding.
  bool Direct(const Geometry& g) const {
    return g.kh == 1 && g.kw == 1 && strides_[1] == 1 && strides_[2] == 1 && g.pt == 0 && g.pl == 0 && g.oh == g.h &&
           g.ow == g.w;
  }

  // Images per patch-matrix batch (at most 64 Mi elements at a time).
  Status BatchOf(const Geometry& g, int64_t* batch) const {
    const int64_t per_image = g.rows_per_image() * g.k();
    if (per_image > INT32_MAX) {
      return errors::Unimplemented(node().type(), ": the patch matrix of one image exceeds 2^31 elements");
    }
    const int64_t cap = int64_t{64} << 20;
    *batch = std::max<int64_t>(1, std::min<int64_t>(g.n, cap / std::max<int64_t>(per_image, 1)));
    return Status::Ok();
  }

  // Runs conv.cl's `kernel` (im2col or col2im) over count work items for images [b0, ...) of x
  // (NHWC) and the patch matrix cols.
  Status Patches(ClContext& cl, DType dt, const char* kernel, cl_mem x, cl_mem cols, int64_t count, int64_t b0,
                 const Geometry& g) const {
    const std::string name = StrCat(kernel, dt == DType::kFloat64 ? "_f64" : "_f32");
    cl_kernel kern = nullptr;
    GRAFT_RETURN_IF_ERROR(cl.Kernel("conv", sources::kConvCl, name.c_str(), &kern));
    auto i32 = [](int64_t v) { return static_cast<cl_int>(v); };
    auto lock = cl.Lock();
    GRAFT_RETURN_IF_ERROR(SetArgs(kern, x, cols, i32(count), i32(b0), i32(g.h), i32(g.w), i32(g.c), i32(g.oh),
                                  i32(g.ow), i32(g.kh), i32(g.kw), i32(strides_[1]), i32(strides_[2]),
                                  i32(dilations_[1]), i32(dilations_[2]), i32(g.pt), i32(g.pl)));
    return Launch1D(cl, kern, count, name);
  }

  bool nchw() const { return nchw_; }

 private:
  std::vector<int64_t> strides_, dilations_ = {1, 1, 1, 1}, explicit_;
  std::string padding_, format_ = "NHWC";
  bool nchw_ = false;
};

class Conv2DKernel : public ConvOp {
 public:
  using ConvOp::ConvOp;
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& input = ctx.input(0);
    const Tensor& f = ctx.input(1);
    if (input.rank() != 4) return errors::InvalidArgument("Conv2D: input must be 4-dimensional, got ", cpu::ShapeText(input.dims()));
    if (f.rank() != 4) return errors::InvalidArgument("Conv2D: filter must be 4-dimensional, got ", cpu::ShapeText(f.dims()));
    if (f.num_elements() == 0) {  // TensorFlow's check, as the CPU kernel's
      return errors::InvalidArgument("Conv2D: filter must not have zero elements (i.e. all dimensions must be non-zero)");
    }
    GRAFT_RETURN_IF_ERROR(CheckAttrs());
    const DType dt = input.dtype();
    // The NHWC dims of the input.
    const Dims xd = nchw() ? Dims{input.dim(0), input.dim(2), input.dim(3), input.dim(1)} : input.dims();
    Geometry g{xd[0], xd[1], xd[2], xd[3], f.dim(0), f.dim(1), f.dim(3)};
    if (f.dim(2) != g.c) {
      if (f.dim(2) > 0 && g.c % f.dim(2) == 0) return RunOnHost(ctx, *device);  // grouped: the CPU's kernel
      return errors::InvalidArgument("Conv2D: input depth must be evenly divisible by filter depth: ", g.c, " vs ",
                                     f.dim(2));
    }
    GRAFT_RETURN_IF_ERROR(Windows(&g));
    const Dims out_nhwc = {g.n, g.oh, g.ow, g.oc};
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, dt, nchw() ? Dims{g.n, g.oc, g.oh, g.ow} : out_nhwc, &out));
    if (out->num_elements() == 0) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(CheckInt32(input.num_elements(), "elements"));
    GRAFT_RETURN_IF_ERROR(CheckInt32(out->num_elements(), "elements"));
    ClContext& cl = device->cl();
    const size_t es = DTypeSize(dt);
    cl_mem xm = nullptr, fm = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(input, "the input", &xm));
    GRAFT_RETURN_IF_ERROR(ClMem(f, "the filter", &fm));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    const int64_t k = g.k();
    if (k == 0) return Zero(cl, om, static_cast<size_t>(out->num_elements()) * es);  // an empty sum
    // NCHW: the input transposed to NHWC, the result in an NHWC buffer transposed back.
    std::shared_ptr<ClBuffer> x_nhwc, y_nhwc;
    cl_mem x = xm, y = om;
    if (nchw()) {
      GRAFT_RETURN_IF_ERROR(cl.Allocate(static_cast<size_t>(input.num_elements()) * es, &x_nhwc));
      const Dims s = RowMajor(input.dims());  // N, C, H, W
      GRAFT_RETURN_IF_ERROR(StridedCopy(*device, dt, xm, x_nhwc->mem(), 0, xd, {s[0], s[2], s[3], s[1]}));
      GRAFT_RETURN_IF_ERROR(cl.Allocate(static_cast<size_t>(out->num_elements()) * es, &y_nhwc));
      x = x_nhwc->mem();
      y = y_nhwc->mem();
    }
    const int64_t rpi = g.rows_per_image();
    if (Direct(g)) {
      GRAFT_RETURN_IF_ERROR(Gemm(cl, dt, false, false, static_cast<size_t>(g.n * rpi), static_cast<size_t>(g.oc),
                                 static_cast<size_t>(k), x, 0, fm, 0, 0.0, y, 0));
    } else {
      int64_t batch = 0;
      GRAFT_RETURN_IF_ERROR(BatchOf(g, &batch));
      std::shared_ptr<ClBuffer> cols;
      GRAFT_RETURN_IF_ERROR(cl.Allocate(static_cast<size_t>(batch * rpi * k) * es, &cols));
      for (int64_t b0 = 0; b0 < g.n; b0 += batch) {
        const int64_t nb = std::min(batch, g.n - b0);
        GRAFT_RETURN_IF_ERROR(Patches(cl, dt, "im2col", x, cols->mem(), nb * rpi * k, b0, g));
        GRAFT_RETURN_IF_ERROR(Gemm(cl, dt, false, false, static_cast<size_t>(nb * rpi), static_cast<size_t>(g.oc),
                                   static_cast<size_t>(k), cols->mem(), 0, fm, 0, 0.0, y,
                                   static_cast<size_t>(b0 * rpi * g.oc)));
      }
    }
    if (nchw()) {  // NHWC -> NCHW
      const Dims s = RowMajor(out_nhwc);
      GRAFT_RETURN_IF_ERROR(StridedCopy(*device, dt, y, om, 0, {g.n, g.oc, g.oh, g.ow}, {s[0], s[3], s[1], s[2]}));
    }
    return Status::Ok();
  }
};

// A gradient op of a convolution: input `sizes_input` holds the dims of the tensor it gives
// (the input's or the filter's; 4 entries, on the host), the other of input 0 and 1 is the other
// tensor of the convolution, input 2 is out_backprop. Prepare reads them, NHWC and not grouped,
// with out_backprop's dims checked, and allocates the output; *on_host when the device kernels
// do not take them (then the CPU's kernel runs, which computes it or reports its error).
class ConvGradOp : public ConvOp {
 public:
  using ConvOp::ConvOp;
  bool HostMemoryInput(int i) const override { return i == sizes_input_; }
  Status Compute(OpKernelContext& ctx) const final {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    Prepared p;
    GRAFT_RETURN_IF_ERROR(Prepare(ctx, *device, &p));
    if (p.on_host) return RunOnHost(ctx, *device);
    if (p.out == nullptr) return Status::Ok();
    return Run(device->cl(), p);
  }

 protected:
  ConvGradOp(const Node& node, int sizes_input) : ConvOp(node), sizes_input_(sizes_input) {}

  struct Prepared {
    Geometry g{0, 0, 0, 0, 0, 0, 0};
    DType dt = DType::kFloat32;
    size_t es = 0;
    cl_mem other = nullptr, dy = nullptr, out = nullptr;  // out null: an empty output, done
    bool on_host = false;
  };

  // The gradient, once prepared (a nonempty output and sum).
  virtual Status Run(ClContext& cl, const Prepared& p) const = 0;

 private:
  Status Prepare(OpKernelContext& ctx, OpenClDevice& device, Prepared* p) const {
    const int other_input = 1 - sizes_input_;
    const Tensor& other = ctx.input(other_input);
    const Tensor& dy = ctx.input(2);
    Dims sizes;
    if (ctx.input(sizes_input_).rank() != 1 || ctx.input(sizes_input_).num_elements() != 4 ||
        !HostIndices(device, ctx.input(sizes_input_), "sizes", &sizes).ok()) {
      p->on_host = true;  // two sizes (rows, cols), or the CPU's error
      return Status::Ok();
    }
    const bool sizes_of_input = sizes_input_ == 0;
    if (!Take(sizes_of_input ? sizes : other.dims(), sizes_of_input ? other.dims() : sizes, dy, &p->g)) {
      p->on_host = true;
      return Status::Ok();
    }
    p->dt = other.dtype();
    p->es = DTypeSize(p->dt);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, p->dt, sizes, &out));
    if (out->num_elements() == 0) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(ClMem(other, sizes_of_input ? "the filter" : "the input", &p->other));
    GRAFT_RETURN_IF_ERROR(ClMem(dy, "out_backprop", &p->dy));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &p->out));
    const bool empty_sum = sizes_of_input ? p->g.oc == 0 : p->g.n == 0;
    if (empty_sum || p->g.rows_per_image() == 0) {
      GRAFT_RETURN_IF_ERROR(Zero(device.cl(), p->out, static_cast<size_t>(out->num_elements()) * p->es));
      p->out = nullptr;
    }
    return Status::Ok();
  }

  // The geometry of x (NHWC) convolved with f, checked; false when the device kernels do not
  // take it.
  bool Take(const Dims& x, const Dims& f, const Tensor& dy, Geometry* g) const {
    if (nchw() || !CheckAttrs().ok() || x.size() != 4 || f.size() != 4 || dy.rank() != 4 || f[2] != x[3]) {
      return false;
    }
    // Nonnegative, and within the kernels' int32 indices.
    for (const Dims* dims : {&x, &f}) {
      int64_t elems = 1;
      for (int64_t d : *dims) {
        if (d < 0 || __builtin_mul_overflow(elems, d, &elems)) return false;
      }
      if (elems > INT32_MAX) return false;
    }
    *g = Geometry{x[0], x[1], x[2], x[3], f[0], f[1], f[3]};
    return Windows(g).ok() && dy.dims() == Dims{g->n, g->oh, g->ow, g->oc} && dy.num_elements() <= INT32_MAX;
  }

  int sizes_input_ = 0;
};

// Conv2DBackpropInput(input_sizes, filter, out_backprop).
class Conv2DBackpropInputKernel : public ConvGradOp {
 public:
  explicit Conv2DBackpropInputKernel(const Node& node) : ConvGradOp(node, 0) {}
  Status Run(ClContext& cl, const Prepared& p) const override {
    const Geometry& g = p.g;
    const int64_t k = g.k(), rpi = g.rows_per_image();
    if (Direct(g)) {  // dx [rows, c] = dy [rows, oc] * filter [c, oc]^T
      return Gemm(cl, p.dt, false, true, static_cast<size_t>(g.n * rpi), static_cast<size_t>(k),
                  static_cast<size_t>(g.oc), p.dy, 0, p.other, 0, 0.0, p.out, 0);
    }
    int64_t batch = 0;
    GRAFT_RETURN_IF_ERROR(BatchOf(g, &batch));
    std::shared_ptr<ClBuffer> cols;
    GRAFT_RETURN_IF_ERROR(cl.Allocate(static_cast<size_t>(batch * rpi * k) * p.es, &cols));
    for (int64_t b0 = 0; b0 < g.n; b0 += batch) {
      const int64_t nb = std::min(batch, g.n - b0);
      GRAFT_RETURN_IF_ERROR(Gemm(cl, p.dt, false, true, static_cast<size_t>(nb * rpi), static_cast<size_t>(k),
                                 static_cast<size_t>(g.oc), p.dy, static_cast<size_t>(b0 * rpi * g.oc), p.other, 0,
                                 0.0, cols->mem(), 0));
      GRAFT_RETURN_IF_ERROR(Patches(cl, p.dt, "col2im", p.out, cols->mem(), nb * g.h * g.w * g.c, b0, g));
    }
    return Status::Ok();
  }
};

// Conv2DBackpropFilter(input, filter_sizes, out_backprop).
class Conv2DBackpropFilterKernel : public ConvGradOp {
 public:
  explicit Conv2DBackpropFilterKernel(const Node& node) : ConvGradOp(node, 1) {}
  Status Run(ClContext& cl, const Prepared& p) const override {
    const Geometry& g = p.g;
    const int64_t k = g.k(), rpi = g.rows_per_image();
    if (Direct(g)) {  // dfilter [c, oc] = x [rows, c]^T * dy [rows, oc]
      return Gemm(cl, p.dt, true, false, static_cast<size_t>(k), static_cast<size_t>(g.oc),
                  static_cast<size_t>(g.n * rpi), p.other, 0, p.dy, 0, 0.0, p.out, 0);
    }
    int64_t batch = 0;
    GRAFT_RETURN_IF_ERROR(BatchOf(g, &batch));
    std::shared_ptr<ClBuffer> cols;
    GRAFT_RETURN_IF_ERROR(cl.Allocate(static_cast<size_t>(batch * rpi * k) * p.es, &cols));
    for (int64_t b0 = 0; b0 < g.n; b0 += batch) {
      const int64_t nb = std::min(batch, g.n - b0);
      GRAFT_RETURN_IF_ERROR(Patches(cl, p.dt, "im2col", p.other, cols->mem(), nb * rpi * k, b0, g));
      GRAFT_RETURN_IF_ERROR(Gemm(cl, p.dt, true, false, static_cast<size_t>(k), static_cast<size_t>(g.oc),
                                 static_cast<size_t>(nb * rpi), cols->mem(), 0, p.dy,
                                 static_cast<size_t>(b0 * rpi * g.oc), b0 == 0 ? 0.0 : 1.0, p.out, 0));
    }
    return Status::Ok();
  }
};

}  // namespace

void RegisterConvKernels(KernelRegistry& r) {
  const std::vector<DType> types = {DType::kFloat32, DType::kFloat64};
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {
    (void)r.Register("Conv2D", device, "T", types, &CreateKernel<Conv2DKernel>);
    (void)r.Register("Conv2DBackpropInput", device, "T", types, &CreateKernel<Conv2DBackpropInputKernel>);
    (void)r.Register("Conv2DBackpropFilter", device, "T", types, &CreateKernel<Conv2DBackpropFilterKernel>);
  }
}

}  // namespace graft::opencl
