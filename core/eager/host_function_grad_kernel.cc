#include "core/eager/host_function_grad_kernel.h"

#include "core/eager/tape.h"
#include "core/runtime/device.h"
#include "core/runtime/host_function.h"

namespace graft::eager {
namespace {

// GraftHostFunctionGrad: the host function is called again on the op's inputs while a tape
// that records the ops of any context on this thread is active. The host code sees plain
// tensors, so the tape knows its inputs and outputs by their buffers (alias_buffers): a host
// function that copies its input through host memory (NumPy) has no gradient, zeros here.
class HostFunctionGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    const AttrValue* token = node().attr("token");
    const AttrValue* tin = node().attr("Tin");
    const AttrValue* dy = node().attr("dy_outputs");
    const AttrValue* dx = node().attr("dx_inputs");
    if (token == nullptr || token->get<std::string>() == nullptr) return errors::InvalidArgument("attr 'token' is missing");
    if (tin == nullptr || tin->get<std::vector<DType>>() == nullptr) return errors::InvalidArgument("attr 'Tin' is missing");
    if (dy == nullptr || dy->get<std::vector<int64_t>>() == nullptr || dx == nullptr ||
        dx->get<std::vector<int64_t>>() == nullptr) {
      return errors::InvalidArgument("attrs 'dy_outputs' and 'dx_inputs' are missing");
    }
    token_ = *token->get<std::string>();
    num_inputs_ = static_cast<int>(tin->get<std::vector<DType>>()->size());
    dy_outputs_ = *dy->get<std::vector<int64_t>>();
    dx_inputs_ = *dx->get<std::vector<int64_t>>();
    for (int64_t i : dx_inputs_) {
      if (i < 0 || i >= num_inputs_) return errors::InvalidArgument("dx_inputs names input ", i, ", which is not one");
    }
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    if (ctx.num_inputs() != num_inputs_ + static_cast<int>(dy_outputs_.size())) {
      return errors::InvalidArgument("the op has ", ctx.num_inputs(), " inputs where Tin and dy_outputs give ",
                                     num_inputs_ + static_cast<int>(dy_outputs_.size()));
    }
    std::shared_ptr<const HostFunction> fn;
    GRAFT_RETURN_IF_ERROR(HostFunctionRegistry::Global().Find(token_, &fn));
    std::vector<Tensor> inputs;
    for (int i = 0; i < num_inputs_; ++i) inputs.push_back(ctx.input(i));

    TapeOptions options;
    options.watch_accessed_variables = false;
    options.alias_buffers = true;
    Tape tape(nullptr, options);
    std::vector<Value> sources;
    for (int64_t i : dx_inputs_) {
      Value v;
      GRAFT_RETURN_IF_ERROR(tape.WatchTensor(inputs[static_cast<size_t>(i)], &v));
      sources.push_back(std::move(v));
    }
    std::vector<Tensor> outputs;
    GRAFT_RETURN_IF_ERROR(tape.Start());
    Status run = (*fn)(inputs, &outputs);
    GRAFT_RETURN_IF_ERROR(tape.Stop());
    const std::string what = StrCat("the gradient of host function '", token_, "'");
    GRAFT_RETURN_IF_ERROR(run.WithContext(what));

    std::vector<Value> targets, dys;
    for (size_t j = 0; j < dy_outputs_.size(); ++j) {
      const int64_t o = dy_outputs_[j];
      if (o < 0 || o >= static_cast<int64_t>(outputs.size()) || !outputs[static_cast<size_t>(o)].valid()) {
        return errors::InvalidArgument(what, ": the function returned no output ", o);
      }
      const Tensor& y = outputs[static_cast<size_t>(o)];
      const Tensor& dy = ctx.input(num_inputs_ + static_cast<int>(j));
      if (dy.dtype() != y.dtype() || dy.dims() != y.dims()) {
        return errors::InvalidArgument(what, ": the gradient of output ", o, " is ", DTypeName(dy.dtype()), " ",
                                       dy.shape().ToString(), " but the output is ", DTypeName(y.dtype()), " ",
                                       y.shape().ToString());
      }
      targets.push_back(Value::Concrete(y));
      dys.push_back(Value::Concrete(dy));
    }
    std::vector<std::optional<Value>> grads;
    GRAFT_RETURN_IF_ERROR(
        tape.Gradient(targets, sources, dys, UnconnectedGradients::kNone, &grads).WithContext(what));
    for (size_t k = 0; k < dx_inputs_.size(); ++k) {
      const Tensor& x = inputs[static_cast<size_t>(dx_inputs_[k])];
      if (k < grads.size() && grads[k] && grads[k]->tensor.valid()) {
        const Tensor& g = grads[k]->tensor;
        if (g.dtype() != x.dtype() || g.dims() != x.dims()) {
          return errors::Internal(what, ": the gradient of input ", dx_inputs_[k], " has shape ",
                                  g.shape().ToString(), ", the input ", x.shape().ToString());
        }
        ctx.SetOutput(static_cast<int>(k), g);
        continue;
      }
      Tensor zeros;
      GRAFT_RETURN_IF_ERROR(Tensor::Allocate(x.dtype(), x.dims(), &zeros));  // zero-filled
      ctx.SetOutput(static_cast<int>(k), std::move(zeros));
    }
    return Status::Ok();
  }

 private:
  std::string token_;
  int num_inputs_ = 0;
  std::vector<int64_t> dy_outputs_, dx_inputs_;
};

}  // namespace

void RegisterHostFunctionGradKernels(KernelRegistry& r) {
  (void)r.Register("GraftHostFunctionGrad", kDeviceCpu, "", {}, MakeFactory<HostFunctionGradKernel>());
}

}  // namespace graft::eager
