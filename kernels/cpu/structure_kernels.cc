// CPU kernels for graph structure: Const, Placeholder, Identity and friends, NoOp, _Arg, _Retval,
// EnsureShape.
#include <string>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

class ConstKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "value", &value_); }
  Status Compute(OpKernelContext& ctx) const override {
    ctx.SetOutput(0, value_);  // shared, never copied
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }

 private:
  Tensor value_;
};

class PlaceholderKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    return errors::InvalidArgument("you must feed a value for placeholder tensor '", node().name(), "'");
  }
};

// _Arg and _Retval outside a function call: a graph that holds them (a dumped function body)
// feeds its _Args and fetches what its _Retvals consume; running either node is an error, as in
// TensorFlow, whose session has no argument or result slot for them.
class ArgKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    return errors::InvalidArgument("you must feed a value for _Arg '", node().name(), "' (argument ",
                                   *node().attr("index")->get<int64_t>(), " of a function frame)");
  }
};

class RetvalKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Output& in = node().inputs()[0];
    return errors::InvalidArgument("_Retval '", node().name(), "' (result ", *node().attr("index")->get<int64_t>(),
                                   " of a function frame) runs only inside a function call: fetch its input '",
                                   in.node->name(), ":", in.index, "' instead");
  }
};

// Identity, StopGradient, PreventGradient, Snapshot, PlaceholderWithDefault, IdentityN: every
// output is the matching input (the same buffer).
class ForwardKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    for (int i = 0; i < ctx.num_outputs(); ++i) ctx.SetOutput(i, ctx.input(i));
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }
};

// EnsureShape: the input itself, when its shape is compatible with attr `shape` (unknown dims
// and an unknown rank match anything); otherwise TensorFlow's error, naming the input tensor.
class EnsureShapeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "shape", &shape_); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    if (!PartialShape(in.dims()).IsCompatibleWith(shape_)) {
      const Output& src = node().inputs()[0];
      const std::string name = src.index == 0 ? src.node->name() : src.node->name() + ":" + std::to_string(src.index);
      return errors::InvalidArgument("Shape of tensor ", name, " ", Text(PartialShape(in.dims())),
                                     " is not compatible with expected shape ", Text(shape_), ".");
    }
    ctx.SetOutput(0, in);
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }

 private:
  // TensorFlow's DebugString of a shape: [2,?], or <unknown>.
  static std::string Text(const PartialShape& s) {
    if (!s.known_rank()) return "<unknown>";
    std::string out = "[";
    for (int i = 0; i < s.rank(); ++i) {
      if (i > 0) out += ",";
      out += s.dim(i) == kUnknownDim ? std::string("?") : std::to_string(s.dim(i));
    }
    return out + "]";
  }
  PartialShape shape_;
};

class NoOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext&) const override { return Status::Ok(); }
  bool IsCheap() const override { return true; }
};

}  // namespace

void RegisterStructureKernels(KernelRegistry& r) {
  auto add = [&](const char* op, KernelFactory f) { (void)r.Register(op, kDeviceCpu, "", {}, std::move(f)); };
  add("Const", &CreateKernel<ConstKernel>);
  add("Placeholder", &CreateKernel<PlaceholderKernel>);
  add("_Arg", &CreateKernel<ArgKernel>);
  add("_Retval", &CreateKernel<RetvalKernel>);
  RegisterForwardKernels(r, kDeviceCpu);
  add("NoOp", &CreateKernel<NoOpKernel>);
}

void RegisterForwardKernels(KernelRegistry& r, const char* device_type) {
  for (const char* op : {"Identity", "StopGradient", "PreventGradient", "Snapshot", "PlaceholderWithDefault", "IdentityN"}) {
    (void)r.Register(op, device_type, "", {}, &CreateKernel<ForwardKernel>);
  }
  (void)r.Register("EnsureShape", device_type, "", {}, &CreateKernel<EnsureShapeKernel>);
}

}  // namespace graft::cpu
