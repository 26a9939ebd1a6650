// The elementwise ops on the OpenCL device (elementwise.cl): unary math and activations, their
// gradients, and binary arithmetic with numpy broadcasting, float32 and (where the device has
// cl_khr_fp64) float64; the integer arithmetic (AddV2, Sub, Mul, Maximum, Minimum,
// SquaredDifference, Neg, Abs, Square) in int32 and int64 too.
#include <string>

#include "kernels/cpu/kernel_util.h"
#include "kernels/opencl/cl_sources.h"
#include "kernels/opencl/opencl_device.h"
#include "kernels/opencl/opencl_kernel_util.h"

namespace graft::opencl {
namespace {

// The layout of graft_bshape in elementwise.cl.
struct BShape {
  cl_int rank;
  cl_int dims[8];
  cl_int a_strides[8];
  cl_int b_strides[8];
};

template <typename T>
const char* Suffix() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, int32_t>) return "i32";
  else return "i64";
}

template <typename T>
class UnaryKernel : public OpKernel {
 public:
  UnaryKernel(const Node& node, const char* name) : OpKernel(node), name_(StrCat(name, "_", Suffix<T>())) {}
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& x = ctx.input(0);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), x.dims(), &out, 0));
    const int64_t n = x.num_elements();
    if (n == 0) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(CheckInt32(n, "elements"));
    cl_mem in_mem = nullptr, out_mem = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(x, "input 0", &in_mem));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &out_mem));
    cl_kernel k = nullptr;
    GRAFT_RETURN_IF_ERROR(device->cl().Kernel("elementwise", sources::kElementwiseCl, name_.c_str(), &k));
    const cl_int count = static_cast<cl_int>(n);
    auto lock = device->cl().Lock();
    GRAFT_RETURN_IF_ERROR(SetArgs(k, in_mem, out_mem, count));
    return Launch1D(device->cl(), k, n, name_);
  }

 private:
  std::string name_;
};

template <typename T>
class BinaryKernel : public OpKernel {
 public:
  BinaryKernel(const Node& node, const char* name) : OpKernel(node), name_(StrCat(name, "_", Suffix<T>())) {
    flat_name_ = name_ + "_flat";
  }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    cpu::Broadcast bc;
    GRAFT_RETURN_IF_ERROR(cpu::MakeBroadcast(a.dims(), b.dims(), &bc));
    Tensor* out = nullptr;
    const int reuse = a.dims() == bc.out_dims ? 0 : b.dims() == bc.out_dims ? 1 : -1;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, a.dtype(), bc.out_dims, &out, reuse));
    const int64_t n = bc.out_elements;
    if (n == 0) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(CheckInt32(n, "elements"));
    cl_mem am = nullptr, bm = nullptr, om = nullptr;
    GRAFT_RETURN_IF_ERROR(ClMem(a, "input 0", &am));
    GRAFT_RETURN_IF_ERROR(ClMem(b, "input 1", &bm));
    GRAFT_RETURN_IF_ERROR(ClMem(*out, "the output", &om));
    const cl_int count = static_cast<cl_int>(n);
    const bool a_full = a.num_elements() == n, b_full = b.num_elements() == n;
    const bool flat = (a_full || a.num_elements() == 1) && (b_full || b.num_elements() == 1);
    cl_kernel k = nullptr;
    if (flat) {
      GRAFT_RETURN_IF_ERROR(device->cl().Kernel("elementwise", sources::kElementwiseCl, flat_name_.c_str(), &k));
      const cl_int a_step = a_full ? 1 : 0, b_step = b_full ? 1 : 0;
      auto lock = device->cl().Lock();
      GRAFT_RETURN_IF_ERROR(SetArgs(k, am, bm, om, count, a_step, b_step));
      return Launch1D(device->cl(), k, n, flat_name_);
    }
    if (bc.out_dims.size() > 8) {
      return errors::Unimplemented(node().type(), " on OpenCL broadcasts up to 8 dimensions, not ", bc.out_dims.size());
    }
    BShape s{};
    s.rank = static_cast<cl_int>(bc.out_dims.size());
    for (size_t d = 0; d < bc.out_dims.size(); ++d) {
      s.dims[d] = static_cast<cl_int>(bc.out_dims[d]);
      s.a_strides[d] = static_cast<cl_int>(bc.a_strides[d]);
      s.b_strides[d] = static_cast<cl_int>(bc.b_strides[d]);
    }
    GRAFT_RETURN_IF_ERROR(device->cl().Kernel("elementwise", sources::kElementwiseCl, name_.c_str(), &k));
    auto lock = device->cl().Lock();
    GRAFT_RETURN_IF_ERROR(SetArgs(k, am, bm, om, count, s));
    return Launch1D(device->cl(), k, n, name_);
  }

 private:
  std::string name_, flat_name_;
};

template <template <typename> class K>
KernelFactory Factory(const char* name) {
  return [name](const Node& node, std::unique_ptr<OpKernel>* out) -> Status {
    const AttrValue* t = node.attr("T");
    const DType* dt = t ? t->get<DType>() : nullptr;
    const DType d = dt != nullptr ? *dt : DType::kFloat32;
    if (d == DType::kFloat64) *out = std::make_unique<K<double>>(node, name);
    else if (d == DType::kInt32) *out = std::make_unique<K<int32_t>>(node, name);
    else if (d == DType::kInt64) *out = std::make_unique<K<int64_t>>(node, name);
    else *out = std::make_unique<K<float>>(node, name);
    return Status::Ok();
  };
}

}  // namespace

void RegisterElementwiseKernels(KernelRegistry& r) {
  const std::vector<DType> types = {DType::kFloat32, DType::kFloat64};
  const std::pair<const char*, const char*> binary[] = {
      {"AddV2", "add"},       {"Add", "add"},         {"Sub", "sub"},         {"Mul", "mul"},
      {"RealDiv", "div"},     {"Div", "div"},         {"Maximum", "maximum"}, {"Minimum", "minimum"},
      {"Pow", "pow"},         {"SquaredDifference", "squared_difference"}};
  const std::pair<const char*, const char*> unary[] = {
      {"Neg", "neg"},   {"Abs", "abs"},         {"Exp", "exp"},   {"Log", "log"},   {"Sqrt", "sqrt"},
      {"Rsqrt", "rsqrt"}, {"Square", "square"}, {"Sin", "sin"},   {"Cos", "cos"},   {"Tanh", "tanh"},
      {"Sigmoid", "sigmoid"}, {"Relu", "relu"}, {"Relu6", "relu6"}};
  // The activations' gradients: (gradients, features) or (y, dy), same shapes.
  const std::pair<const char*, const char*> grads[] = {
      {"ReluGrad", "relu_grad"}, {"Relu6Grad", "relu6_grad"}, {"SigmoidGrad", "sigmoid_grad"}, {"TanhGrad", "tanh_grad"}};
  // int32/int64 (shape arithmetic), wrapping as TensorFlow's.
  const std::vector<DType> ints = {DType::kInt32, DType::kInt64};
  const std::pair<const char*, const char*> int_binary[] = {
      {"AddV2", "add"}, {"Add", "add"}, {"Sub", "sub"}, {"Mul", "mul"}, {"Maximum", "maximum"},
      {"Minimum", "minimum"}, {"SquaredDifference", "squared_difference"}};
  const std::pair<const char*, const char*> int_unary[] = {{"Neg", "neg"}, {"Abs", "abs"}, {"Square", "square"}};
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {
    for (const auto& [op, name] : binary) (void)r.Register(op, device, "T", types, Factory<BinaryKernel>(name));
    for (const auto& [op, name] : unary) (void)r.Register(op, device, "T", types, Factory<UnaryKernel>(name));
    for (const auto& [op, name] : grads) (void)r.Register(op, device, "T", types, Factory<BinaryKernel>(name));
    for (const auto& [op, name] : int_binary) (void)r.Register(op, device, "T", ints, Factory<BinaryKernel>(name));
    for (const auto& [op, name] : int_unary) (void)r.Register(op, device, "T", ints, Factory<UnaryKernel>(name));
  }
}

}  // namespace graft::opencl
