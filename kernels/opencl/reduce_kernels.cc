// Reductions on the OpenCL device (reduce.cl): Sum, Mean, Prod, Max, Min over the axes given
// (read back to the host) with keep_dims, and BiasAddGrad (a Sum over every dim but the
// channel's), float32 and (where the device has cl_khr_fp64) float64. Each output element is
// folded by one work item, or, when there are few outputs and many elements each, by several
// (chunks) whose partials a second launch folds.
#include <string>

#include "kernels/cpu/data_movement.h"
#include "kernels/opencl/cl_ops.h"
#include "kernels/opencl/cl_sources.h"
#include "kernels/opencl/opencl_kernel_util.h"

namespace graft::opencl {

namespace {

// The layout of graft_view in reduce.cl.
struct RView {
  cl_int rank;
  cl_int dims[8];
  cl_int strides[8];
};

// dims/strides, merged (MergeDims), as a view.
Status MakeView(const Dims& dims, const Dims& strides, RView* v) {
  Dims md, ms;
  MergeDims(dims, strides, &md, &ms);
  if (md.size() > 8) return errors::Unimplemented("OpenCL reductions take up to 8 non-contiguous dims, not ", md.size());
  *v = RView{};
  v->rank = static_cast<cl_int>(md.size());
  for (size_t d = 0; d < md.size(); ++d) {
    v->dims[d] = static_cast<cl_int>(md[d]);
    v->strides[d] = static_cast<cl_int>(ms[d]);
  }
  return Status::Ok();
}

const char* OpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMean: return "mean";
    case ReduceOp::kProd: return "prod";
    case ReduceOp::kMax: return "max";
    default: return "min";
  }
}

Status Launch(OpenClDevice& device, const std::string& name, cl_mem in, cl_mem out, int64_t n, int64_t count,
              int64_t chunks, int64_t chunk_len, const RView& kept, const RView& red, bool finish,
              int64_t mean_count) {
  cl_kernel k = nullptr;
  GRAFT_RETURN_IF_ERROR(device.cl().Kernel("reduce", sources::kReduceCl, name.c_str(), &k));
  const cl_int n_ = static_cast<cl_int>(n), count_ = static_cast<cl_int>(count), chunks_ = static_cast<cl_int>(chunks),
               len_ = static_cast<cl_int>(chunk_len), fin = finish ? 1 : 0, mc = static_cast<cl_int>(mean_count);
  auto lock = device.cl().Lock();
  GRAFT_RETURN_IF_ERROR(SetArgs(k, in, out, n_, count_, chunks_, len_, kept, red, fin, mc));
  return Launch1D(device.cl(), k, n, name);
}

}  // namespace

Status Reduce(OpenClDevice& device, const Tensor& x, const std::vector<bool>& reduced, ReduceOp op, cl_mem out) {
  Dims kd, ks, rd, rs;
  const Dims strides = RowMajor(x.dims());
  int64_t n_out = 1, count = 1;
  for (int d = 0; d < x.rank(); ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      rd.push_back(x.dim(d));
      rs.push_back(strides[static_cast<size_t>(d)]);
      count *= x.dim(d);
    } else {
      kd.push_back(x.dim(d));
      ks.push_back(strides[static_cast<size_t>(d)]);
      n_out *= x.dim(d);
    }
  }
  if (n_out == 0) return Status::Ok();
  GRAFT_RETURN_IF_ERROR(CheckInt32(x.num_elements(), "elements"));
  RView kept, red;
  GRAFT_RETURN_IF_ERROR(MakeView(kd, ks, &kept));
  GRAFT_RETURN_IF_ERROR(MakeView(rd, rs, &red));
  if (count == 0) red.rank = 0;  // an empty reduction: the loop does not run
  cl_mem in = nullptr;
  if (count > 0) GRAFT_RETURN_IF_ERROR(ClMem(x, "the input", &in));
  else in = out;  // nothing is read
  const std::string name = StrCat("reduce_", OpName(op), "_", x.dtype() == DType::kFloat64 ? "f64" : "f32");
  // Few outputs of many elements each: split each into chunks, folded by a second launch.
  int64_t chunks = 1;
  if (n_out < 2048 && count > 512) chunks = std::min<int64_t>((count + 255) / 256, std::max<int64_t>(4096 / n_out, 1));
  if (chunks <= 1) return Launch(device, name, in, out, n_out, count, 1, count, kept, red, true, count);
  const int64_t chunk_len = (count + chunks - 1) / chunks;
  chunks = (count + chunk_len - 1) / chunk_len;
  std::shared_ptr<ClBuffer> partial;
  GRAFT_RETURN_IF_ERROR(device.cl().Allocate(static_cast<size_t>(n_out * chunks) * DTypeSize(x.dtype()), &partial));
  GRAFT_RETURN_IF_ERROR(
      Launch(device, name, in, partial->mem(), n_out * chunks, count, chunks, chunk_len, kept, red, false, count));
  RView k2{}, r2{};
  k2.rank = 1;
  k2.dims[0] = static_cast<cl_int>(n_out);
  k2.strides[0] = static_cast<cl_int>(chunks);
  r2.rank = 1;
  r2.dims[0] = static_cast<cl_int>(chunks);
  r2.strides[0] = 1;
  // The second launch is queued after the first (an in-order queue), so `partial` may go back
  // to the pool now: whatever takes it next is queued after both.
  return Launch(device, name, partial->mem(), out, n_out, chunks, 1, chunks, k2, r2, true, count);
}

namespace {

class ReductionKernel : public OpKernel {
 public:
  ReductionKernel(const Node& node, ReduceOp op) : OpKernel(node), op_(op) {}
  Status Init() { return cpu::GetAttr(node(), "keep_dims", &keep_dims_); }
  bool HostMemoryInput(int i) const override { return i == 1; }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& x = ctx.input(0);
    Dims axes;
    GRAFT_RETURN_IF_ERROR(HostIndices(*device, ctx.input(1), "reduction indices", &axes));
    const int64_t rank = x.rank();
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    for (int64_t a : axes) {
      if (a < -rank || a >= rank) {
        return errors::InvalidArgument("Invalid reduction dimension ", a, " for input with ", rank, " dimensions.");
      }
      const int64_t d = a < 0 ? a + rank : a;
      if (reduced[static_cast<size_t>(d)]) {
        return errors::InvalidArgument("Invalid reduction arguments: Axes contains duplicate dimension: ", d);
      }
      reduced[static_cast<size_t>(d)] = true;
    }
    Dims out_dims;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[static_cast<size_t>(d)]) out_dims.push_back(x.dim(static_cast<int>(d)));
      else if (keep_dims_) out_dims.push_back(1);
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), out_dims, &out));
    if (out->num_elements() == 0) return Status::Ok();
    cl_mem om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    return Reduce(*device, x, reduced, op_, om);
  }

 private:
  ReduceOp op_;
  bool keep_dims_ = false;
};

class BiasAddGradKernel : public OpKernel {
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
    const Tensor& g = ctx.input(0);
    if (g.rank() < 2) {
      return errors::InvalidArgument("Input tensor must be at least 2D: ", cpu::ShapeText(g.dims()));
    }
    const int channel = nchw_ ? 1 : g.rank() - 1;
    std::vector<bool> reduced(static_cast<size_t>(g.rank()), true);
    reduced[static_cast<size_t>(channel)] = false;
    Tensor* out = nullptr;
    const int64_t c = g.dim(channel);
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, g.dtype(), Dims{c}, &out));
    if (c == 0) return Status::Ok();
    cl_mem om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    return Reduce(*device, g, reduced, ReduceOp::kSum, om);
  }

 private:
  bool nchw_ = false;
};

KernelFactory ReductionFactory(ReduceOp op) {
  return [op](const Node& node, std::unique_ptr<OpKernel>* out) -> Status {
    auto k = std::make_unique<ReductionKernel>(node, op);
    GRAFT_RETURN_IF_ERROR(k->Init());
    *out = std::move(k);
    return Status::Ok();
  };
}

}  // namespace

void RegisterReduceKernels(KernelRegistry& r) {
  const std::vector<DType> types = {DType::kFloat32, DType::kFloat64};
  const std::pair<const char*, ReduceOp> ops[] = {{"Sum", ReduceOp::kSum},
                                                  {"Mean", ReduceOp::kMean},
                                                  {"Prod", ReduceOp::kProd},
                                                  {"Max", ReduceOp::kMax},
                                                  {"Min", ReduceOp::kMin}};
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {
    for (const auto& [op, kind] : ops) (void)r.Register(op, device, "T", types, ReductionFactory(kind));
    (void)r.Register("BiasAddGrad", device, "T", types, &CreateKernel<BiasAddGradKernel>);
  }
}

}  // namespace graft::opencl
