// The data-movement ops on the OpenCL device (data.cl): Transpose, Slice, StridedSlice (every
// mask), ConcatV2, GatherV2 (any axis and batch_dims; int32 or int64 indices), Fill, ZerosLike,
// OnesLike, and Cast between float32, float64, int32, int64 and bool, and between float16 and
// those but float64 (other pairs run the CPU's Cast on host copies). Data movement is by
// element size, registered for float32, float64, int32, int64, bool, float16, bfloat16, int8,
// uint8, int16 and uint16. The small inputs that
// shape the result (perm, begin/end/strides, size, axis, dims) are read back to the host.
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/strided_slice_spec.h"
#include "kernels/opencl/cl_ops.h"
#include "kernels/opencl/cl_sources.h"
#include "kernels/opencl/opencl_kernel_util.h"

namespace graft::opencl {

using cpu::ShapeText;

// The layout of graft_view in data.cl.
struct View {
  cl_int rank;
  cl_int dims[8];
  cl_int strides[8];
};

namespace {

const char* SizeSuffix(DType dt) {
  switch (DTypeSize(dt)) {
    case 1: return "u8";
    case 2: return "u16";
    case 4: return "u32";
    default: return "u64";
  }
}

Status DataKernel(OpenClDevice& device, const std::string& name, cl_kernel* k) {
  return device.cl().Kernel("data", sources::kDataCl, name.c_str(), k);
}

Status CheckIndex(int64_t v, const char* what) {
  if (v > INT32_MAX || v < INT32_MIN) return errors::Unimplemented("OpenCL kernels take ", what, " within int32, not ", v);
  return Status::Ok();
}

}  // namespace

Dims RowMajor(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

Status HostIndices(OpenClDevice& device, const Tensor& t, const char* what, Dims* out) {
  Tensor host;
  GRAFT_RETURN_IF_ERROR(device.CopyToHost(t, &host));
  return cpu::ReadIndexTensor(host, what, out);
}

Status RunOnHost(OpKernelContext& ctx, OpenClDevice& device) {
  static CpuDevice host_device;
  KernelFactory factory;
  GRAFT_RETURN_IF_ERROR(KernelRegistry::Global().Find(ctx.node(), kDeviceCpu, &factory));
  std::unique_ptr<OpKernel> kernel;
  GRAFT_RETURN_IF_ERROR(factory(ctx.node(), &kernel));
  std::vector<Tensor> inputs(static_cast<size_t>(ctx.num_inputs()));
  std::vector<Tensor*> ptrs;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    GRAFT_RETURN_IF_ERROR(device.CopyToHost(ctx.input(i), &inputs[static_cast<size_t>(i)]));
    ptrs.push_back(&inputs[static_cast<size_t>(i)]);
  }
  const std::vector<uint8_t> forwardable(inputs.size(), 0);
  std::vector<Tensor> outputs(static_cast<size_t>(ctx.num_outputs()));
  OpKernelContext host_ctx(ctx.node(), &host_device, ctx.resources(), ptrs, forwardable, outputs);
  GRAFT_RETURN_IF_ERROR(kernel->Compute(host_ctx));
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const Tensor& t = outputs[static_cast<size_t>(i)];
    if (!t.valid()) continue;
    Tensor on_device;
    GRAFT_RETURN_IF_ERROR(device.CopyFromHost(t, &on_device));
    ctx.SetOutput(i, std::move(on_device));
  }
  return Status::Ok();
}

void MergeDims(const Dims& dims, const Dims& strides, Dims* merged_dims, Dims* merged_strides) {
  Dims& md = *merged_dims;
  Dims& ms = *merged_strides;
  md.clear();
  ms.clear();
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (!md.empty() && ms.back() == strides[d] * dims[d]) {
      md.back() *= dims[d];
      ms.back() = strides[d];
    } else {
      md.push_back(dims[d]);
      ms.push_back(strides[d]);
    }
  }
}

Status StridedCopy(OpenClDevice& device, DType dtype, cl_mem in, cl_mem out, int64_t base, const Dims& dims,
                   const Dims& strides) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (n == 0) return Status::Ok();
  GRAFT_RETURN_IF_ERROR(CheckInt32(n, "elements"));
  Dims md, ms;
  MergeDims(dims, strides, &md, &ms);
  if (md.size() > 8) {
    return errors::Unimplemented("OpenCL copies up to 8 non-contiguous dimensions, not ", md.size());
  }
  View v{};
  v.rank = static_cast<cl_int>(md.size());
  int64_t lo = base, hi = base;
  for (size_t d = 0; d < md.size(); ++d) {
    v.dims[d] = static_cast<cl_int>(md[d]);
    v.strides[d] = static_cast<cl_int>(ms[d]);
    (ms[d] < 0 ? lo : hi) += ms[d] * (md[d] - 1);
  }
  GRAFT_RETURN_IF_ERROR(CheckIndex(lo, "offsets"));
  GRAFT_RETURN_IF_ERROR(CheckIndex(hi, "offsets"));
  const std::string name = StrCat("strided_copy_", SizeSuffix(dtype));
  cl_kernel k = nullptr;
  GRAFT_RETURN_IF_ERROR(DataKernel(device, name, &k));
  const cl_int count = static_cast<cl_int>(n), b = static_cast<cl_int>(base);
  auto lock = device.cl().Lock();
  GRAFT_RETURN_IF_ERROR(SetArgs(k, in, out, count, b, v));
  return Launch1D(device.cl(), k, n, name);
}

namespace {

// Runs a strided view of input 0 as output 0.
Status CopyView(OpKernelContext& ctx, OpenClDevice& device, const Dims& out_dims, int64_t base, const Dims& strides,
                const Dims& copy_dims) {
  const Tensor& in = ctx.input(0);
  Tensor* out = nullptr;
  GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, in.dtype(), out_dims, &out));
  if (out->num_elements() == 0) return Status::Ok();
  cl_mem im = nullptr, om = nullptr;
  GRAFT_RETURN_IF_ERROR(ClMem(in, "input 0", &im));
  GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
  return StridedCopy(device, in.dtype(), im, om, base, copy_dims, strides);
}

class TransposeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool HostMemoryInput(int i) const override { return i == 1; }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& x = ctx.input(0);
    Dims perm;
    GRAFT_RETURN_IF_ERROR(HostIndices(*device, ctx.input(1), "perm", &perm));
    const int64_t rank = x.rank();
    if (static_cast<int64_t>(perm.size()) != rank) {
      return errors::InvalidArgument("transpose expects a vector of size ", rank, ". But input(1) is a vector of size ",
                                     perm.size());
    }
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    const Dims in_strides = RowMajor(x.dims());
    Dims out_dims, strides;
    for (int64_t p : perm) {
      if (p < 0) p += rank;  // counted from the end, as TensorFlow does
      if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) {
        return errors::InvalidArgument("perm ", ShapeText(perm), " is not a permutation of 0..", rank - 1);
      }
      seen[static_cast<size_t>(p)] = true;
      out_dims.push_back(x.dim(static_cast<int>(p)));
      strides.push_back(in_strides[static_cast<size_t>(p)]);
    }
    return CopyView(ctx, *device, out_dims, 0, strides, out_dims);
  }
};

class SliceKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool HostMemoryInput(int i) const override { return i >= 1; }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& x = ctx.input(0);
    Dims begin, size;
    GRAFT_RETURN_IF_ERROR(HostIndices(*device, ctx.input(1), "begin", &begin));
    GRAFT_RETURN_IF_ERROR(HostIndices(*device, ctx.input(2), "size", &size));
    const size_t rank = static_cast<size_t>(x.rank());
    if (begin.size() != rank || size.size() != rank) {
      return errors::InvalidArgument("Expected begin and size arguments to be 1-D tensors of size ", rank,
                                     ", but got shapes ", ShapeText(ctx.input(1).dims()), " and ",
                                     ShapeText(ctx.input(2).dims()), " instead.");
    }
    const Dims in_strides = RowMajor(x.dims());
    Dims out_dims(rank);
    int64_t base = 0;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t dim = x.dims()[d];
      const int64_t s = size[d] == -1 ? dim - begin[d] : size[d];
      if (begin[d] < 0 || s < 0 || begin[d] + s > dim) {
        return errors::InvalidArgument("Expected begin[", d, "] in [0, ", dim, "] and size[", d, "] in [0, ",
                                       dim - begin[d], "], but got ", begin[d], " and ", size[d]);
      }
      out_dims[d] = s;
      base += begin[d] * in_strides[d];
    }
    return CopyView(ctx, *device, out_dims, base, in_strides, out_dims);
  }
};

// StridedSlice: the spec (begin/end/strides and the masks) becomes a base offset, per-dim
// sizes and strides and the output's shape in kernels/cpu/strided_slice_spec.h, shared with the
// CPU kernel (kernels/cpu/indexing_kernels.cc).
class StridedSliceKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "begin_mask", &begin_mask_));
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "end_mask", &end_mask_));
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "ellipsis_mask", &ellipsis_mask_));
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "new_axis_mask", &new_axis_mask_));
    return cpu::GetAttr(node(), "shrink_axis_mask", &shrink_axis_mask_);
  }
  bool HostMemoryInput(int i) const override { return i >= 1; }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& x = ctx.input(0);
    const Tensor& bt = ctx.input(1);
    const Tensor& et = ctx.input(2);
    const Tensor& st = ctx.input(3);
    GRAFT_RETURN_IF_ERROR(cpu::CheckStridedSliceSpecShapes(bt, et, st));
    Dims begin, end, strides;
    GRAFT_RETURN_IF_ERROR(HostIndices(*device, bt, "begin", &begin));
    GRAFT_RETURN_IF_ERROR(HostIndices(*device, et, "end", &end));
    GRAFT_RETURN_IF_ERROR(HostIndices(*device, st, "strides", &strides));
    cpu::StridedSliceSpec spec;
    GRAFT_RETURN_IF_ERROR(cpu::MakeStridedSliceSpec(
        x.dims(), begin, end, strides,
        {begin_mask_, end_mask_, ellipsis_mask_, new_axis_mask_, shrink_axis_mask_}, &spec));
    if (spec.empty) {
      Tensor* out = nullptr;
      return ctx.AllocateOutput(0, x.dtype(), spec.final_dims, &out);
    }
    return CopyView(ctx, *device, spec.final_dims, spec.base, spec.copy_strides, spec.sizes);
  }

 private:
  int64_t begin_mask_ = 0, end_mask_ = 0, ellipsis_mask_ = 0, new_axis_mask_ = 0, shrink_axis_mask_ = 0;
};

class ConcatKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool HostMemoryInput(int i) const override { return i == node().num_inputs() - 1; }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const int n = ctx.num_inputs() - 1;
    if (n < 1) return errors::InvalidArgument("ConcatV2 needs at least one input");
    int64_t axis = 0;
    Dims axis_v;
    GRAFT_RETURN_IF_ERROR(HostIndices(*device, ctx.input(n), "axis", &axis_v));
    if (axis_v.size() != 1) return errors::InvalidArgument("axis must be a scalar");
    axis = axis_v[0];
    const Tensor& first = ctx.input(0);
    const int64_t rank = first.rank();
    Dims out_dims;
    GRAFT_RETURN_IF_ERROR(cpu::ConcatShape(ctx, n, axis, &axis, &out_dims));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, first.dtype(), out_dims, &out));
    if (out->num_elements() == 0) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(CheckInt32(out->num_elements(), "elements"));
    cl_mem om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= out_dims[static_cast<size_t>(d)];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= out_dims[static_cast<size_t>(d)];
    const std::string name = StrCat("concat_copy_", SizeSuffix(first.dtype()));
    cl_kernel k = nullptr;
    GRAFT_RETURN_IF_ERROR(DataKernel(*device, name, &k));
    const cl_int out_inner = static_cast<cl_int>(out_dims[static_cast<size_t>(axis)] * inner);
    int64_t offset = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx.input(i);
      const int64_t cols = t.dim(static_cast<int>(axis)) * inner;
      if (t.num_elements() > 0) {
        cl_mem im = nullptr;
        GRAFT_RETURN_IF_ERROR(ClMem(t, StrCat("input ", i), &im));
        const cl_int count = static_cast<cl_int>(t.num_elements()), c = static_cast<cl_int>(cols),
                     off = static_cast<cl_int>(offset);
        auto lock = device->cl().Lock();
        GRAFT_RETURN_IF_ERROR(SetArgs(k, im, om, count, c, out_inner, off));
        GRAFT_RETURN_IF_ERROR(Launch1D(device->cl(), k, t.num_elements(), name));
      }
      offset += cols;
    }
    (void)outer;
    return Status::Ok();
  }
};

class GatherKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    if (node().attr("batch_dims") != nullptr) return cpu::GetAttr(node(), "batch_dims", &batch_dims_);
    return Status::Ok();
  }
  bool HostMemoryInput(int i) const override { return i == 2; }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    Dims axis_v;
    GRAFT_RETURN_IF_ERROR(HostIndices(*device, ctx.input(2), "axis", &axis_v));
    if (axis_v.size() != 1) return errors::InvalidArgument("axis must be scalar, got shape ", ShapeText(ctx.input(2).dims()));
    const int64_t prank = params.rank(), irank = indices.rank();
    int64_t axis = axis_v[0], bd = batch_dims_;
    if (axis < -prank || axis >= prank) {
      return errors::InvalidArgument("Expected axis in the range [", -prank, ", ", prank, "), but got ", axis);
    }
    if (axis < 0) axis += prank;
    if (bd < 0) bd += irank;
    if (bd < 0 || bd > irank || bd > axis) {
      return errors::InvalidArgument("batch_dims ", batch_dims_, " must be in [", -irank, ", ", irank,
                                     "] and not above axis ", axis);
    }
    int64_t batch = 1, outer = 1, inner = 1, k = 1;
    Dims out_dims;
    for (int64_t d = 0; d < bd; ++d) {
      if (params.dim(static_cast<int>(d)) != indices.dim(static_cast<int>(d))) {
        return errors::InvalidArgument("params.shape[", d, "]: ", params.dim(static_cast<int>(d)),
                                       " should be equal to indices.shape[", d, "]: ", indices.dim(static_cast<int>(d)));
      }
      batch *= params.dim(static_cast<int>(d));
    }
    for (int64_t d = 0; d < axis; ++d) out_dims.push_back(params.dim(static_cast<int>(d)));
    for (int64_t d = bd; d < axis; ++d) outer *= params.dim(static_cast<int>(d));
    for (int64_t d = bd; d < irank; ++d) {
      out_dims.push_back(indices.dim(static_cast<int>(d)));
      k *= indices.dim(static_cast<int>(d));
    }
    for (int64_t d = axis + 1; d < prank; ++d) {
      out_dims.push_back(params.dim(static_cast<int>(d)));
      inner *= params.dim(static_cast<int>(d));
    }
    const int64_t axis_size = params.dim(static_cast<int>(axis));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, params.dtype(), out_dims, &out));
    const int64_t n = out->num_elements();
    if (n == 0) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(CheckInt32(n, "elements"));
    GRAFT_RETURN_IF_ERROR(CheckInt32(params.num_elements(), "elements"));
    const char* it = indices.dtype() == DType::kInt32 ? "i32" : indices.dtype() == DType::kInt64 ? "i64" : nullptr;
    if (it == nullptr) return errors::DTypeError("indices must be int32 or int64, not ", DTypeName(indices.dtype()));
    cl_mem pm = nullptr, im = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(params, "params", &pm));
    GRAFT_RETURN_IF_ERROR(ClMem(indices, "indices", &im));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    const std::string name = StrCat("gather_", it, "_", SizeSuffix(params.dtype()));
    cl_kernel kern = nullptr;
    GRAFT_RETURN_IF_ERROR(DataKernel(*device, name, &kern));
    const cl_int count = static_cast<cl_int>(n), o = static_cast<cl_int>(outer), a = static_cast<cl_int>(axis_size),
                 in = static_cast<cl_int>(inner), kk = static_cast<cl_int>(k);
    (void)batch;
    auto lock = device->cl().Lock();
    GRAFT_RETURN_IF_ERROR(SetArgs(kern, pm, im, om, count, o, a, in, kk));
    return Launch1D(device->cl(), kern, n, name);
  }

 private:
  int64_t batch_dims_ = 0;
};

// Sets every element of out (dtype's size) to the bytes of value.
Status FillWith(OpenClDevice& device, const Tensor& out, const void* value) {
  const int64_t n = out.num_elements();
  if (n == 0) return Status::Ok();
  GRAFT_RETURN_IF_ERROR(CheckInt32(n, "elements"));
  cl_mem om = nullptr;
  GRAFT_RETURN_IF_ERROR(ClMem(out, "the output", &om));
  const std::string name = StrCat("fill_", SizeSuffix(out.dtype()));
  cl_kernel k = nullptr;
  GRAFT_RETURN_IF_ERROR(DataKernel(device, name, &k));
  const cl_int count = static_cast<cl_int>(n);
  auto lock = device.cl().Lock();
  Status s;
  switch (DTypeSize(out.dtype())) {
    case 1: { uint8_t v; std::memcpy(&v, value, 1); s = SetArgs(k, om, count, v); break; }
    case 2: { uint16_t v; std::memcpy(&v, value, 2); s = SetArgs(k, om, count, v); break; }
    case 4: { uint32_t v; std::memcpy(&v, value, 4); s = SetArgs(k, om, count, v); break; }
    default: { uint64_t v; std::memcpy(&v, value, 8); s = SetArgs(k, om, count, v); break; }
  }
  GRAFT_RETURN_IF_ERROR(s);
  return Launch1D(device.cl(), k, n, name);
}

class FillKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool HostMemoryInput(int) const override { return true; }  // dims and the scalar value
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    Dims dims_v, dims;
    if (ctx.input(0).rank() != 1) {
      return errors::InvalidArgument("dims must be a vector, got shape ", ShapeText(ctx.input(0).dims()));
    }
    GRAFT_RETURN_IF_ERROR(HostIndices(*device, ctx.input(0), "dims", &dims_v));
    GRAFT_RETURN_IF_ERROR(cpu::ShapeFromVector(dims_v, &dims));
    const Tensor& value = ctx.input(1);
    if (value.rank() != 0) return errors::InvalidArgument("value must be a scalar, got shape ", ShapeText(value.dims()));
    Tensor host;
    GRAFT_RETURN_IF_ERROR(device->CopyToHost(value, &host));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, value.dtype(), dims, &out));
    return FillWith(*device, *out, host.raw_data());
  }
};

template <bool kOnes>
class ConstantLikeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& x = ctx.input(0);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), x.dims(), &out, 0));
    uint64_t bits = 0;
    if (kOnes) {
      switch (x.dtype()) {
        case DType::kFloat32: { const float v = 1; std::memcpy(&bits, &v, sizeof v); break; }
        case DType::kFloat64: { const double v = 1; std::memcpy(&bits, &v, sizeof v); break; }
        case DType::kFloat16: bits = 0x3C00; break;
        case DType::kBFloat16: bits = 0x3F80; break;
        default: bits = 1; break;  // integers and bool (little-endian: the low bytes)
      }
    }
    return FillWith(*device, *out, &bits);
  }
};

const char* CastName(DType dt) {
  switch (dt) {
    case DType::kFloat32: return "f32";
    case DType::kFloat64: return "f64";
    case DType::kInt32: return "i32";
    case DType::kInt64: return "i64";
    case DType::kBool: return "b";
    case DType::kFloat16: return "f16";
    default: return nullptr;
  }
}

// The pairs data.cl converts: any two of float32, float64, int32, int64, bool; float16 and any
// of those but float64.
bool CastOnDevice(DType src, DType dst) {
  if (CastName(src) == nullptr || CastName(dst) == nullptr) return false;
  const bool half = src == DType::kFloat16 || dst == DType::kFloat16;
  return !half || (src != DType::kFloat64 && dst != DType::kFloat64);
}

class CastKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "SrcT", &src_));
    GRAFT_RETURN_IF_ERROR(cpu::GetAttr(node(), "DstT", &dst_));
    if (CastOnDevice(src_, dst_)) name_ = StrCat("cast_", CastName(src_), "_", CastName(dst_));
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    if (name_.empty()) return RunOnHost(ctx, *device);  // the other pairs: the CPU's Cast
    const Tensor& x = ctx.input(0);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, dst_, x.dims(), &out, DTypeSize(src_) == DTypeSize(dst_) ? 0 : -1));
    const int64_t n = x.num_elements();
    if (n == 0) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(CheckInt32(n, "elements"));
    cl_mem im = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(x, "input 0", &im));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    cl_kernel k = nullptr;
    GRAFT_RETURN_IF_ERROR(DataKernel(*device, name_, &k));
    const cl_int count = static_cast<cl_int>(n);
    auto lock = device->cl().Lock();
    GRAFT_RETURN_IF_ERROR(SetArgs(k, im, om, count));
    return Launch1D(device->cl(), k, n, name_);
  }

 private:
  DType src_ = DType::kFloat32, dst_ = DType::kFloat32;
  std::string name_;
};

}  // namespace

void RegisterDataKernels(KernelRegistry& r) {
  // Moved by size: every numeric dtype but the complex ones.
  const std::vector<DType> types = {DType::kFloat32, DType::kFloat64, DType::kInt32,    DType::kInt64,
                                    DType::kBool,    DType::kFloat16, DType::kBFloat16, DType::kInt8,
                                    DType::kUInt8,   DType::kInt16,   DType::kUInt16};
  // Cast from any of those and the unsigned 32/64-bit types: on the device for the pairs
  // data.cl has, through the CPU's kernel (copies) for the others.
  std::vector<DType> cast_types = types;
  cast_types.push_back(DType::kUInt32);
  cast_types.push_back(DType::kUInt64);
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {
    (void)r.Register("Transpose", device, "T", types, &CreateKernel<TransposeKernel>);
    (void)r.Register("Slice", device, "T", types, &CreateKernel<SliceKernel>);
    (void)r.Register("StridedSlice", device, "T", types, &CreateKernel<StridedSliceKernel>);
    (void)r.Register("ConcatV2", device, "T", types, &CreateKernel<ConcatKernel>);
    (void)r.Register("GatherV2", device, "Tparams", types, &CreateKernel<GatherKernel>);
    (void)r.Register("Fill", device, "T", types, &CreateKernel<FillKernel>);
    (void)r.Register("ZerosLike", device, "T", types, &CreateKernel<ConstantLikeKernel<false>>);
    (void)r.Register("OnesLike", device, "T", types, &CreateKernel<ConstantLikeKernel<true>>);
    (void)r.Register("Cast", device, "SrcT", cast_types, &CreateKernel<CastKernel>);
  }
}

}  // namespace graft::opencl
