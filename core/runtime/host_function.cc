#include "core/runtime/host_function.h"
#include "core/unload.h"

#include "core/runtime/device.h"

namespace graft {

HostFunctionRegistry& HostFunctionRegistry::Global() {
  static HostFunctionRegistry* registry = DeleteAtUnload(new HostFunctionRegistry());
  return *registry;
}

Status HostFunctionRegistry::Register(const std::string& token, HostFunction fn) {
  if (token.empty()) return errors::InvalidArgument("the host function token is empty");
  std::unique_lock lock(mu_);
  if (functions_.count(token)) return errors::AlreadyExists("host function '", token, "' is already registered");
  functions_[token] = std::make_shared<const HostFunction>(std::move(fn));
  return Status::Ok();
}

Status HostFunctionRegistry::Unregister(const std::string& token) {
  std::unique_lock lock(mu_);
  if (functions_.erase(token) == 0) return errors::NotFound("host function '", token, "' is not registered");
  return Status::Ok();
}

Status HostFunctionRegistry::Find(const std::string& token, std::shared_ptr<const HostFunction>* out) const {
  std::shared_lock lock(mu_);
  auto it = functions_.find(token);
  if (it == functions_.end()) {
    return errors::NotFound("host function '", token,
                            "' is not registered in this process: host functions are not saved with a graph, so "
                            "the program running it must register the callback under that token first");
  }
  *out = it->second;
  return Status::Ok();
}

namespace {

// EagerPyFunc / PyFunc: calls the host function registered under attr `token`.
class HostFunctionKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    const AttrValue* token = node().attr("token");
    const AttrValue* tout = node().attr("Tout");
    if (token == nullptr || token->get<std::string>() == nullptr) return errors::InvalidArgument("attr 'token' is missing");
    if (tout == nullptr || tout->get<std::vector<DType>>() == nullptr) return errors::InvalidArgument("attr 'Tout' is missing");
    token_ = *token->get<std::string>();
    tout_ = *tout->get<std::vector<DType>>();
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    std::shared_ptr<const HostFunction> fn;
    GRAFT_RETURN_IF_ERROR(HostFunctionRegistry::Global().Find(token_, &fn));
    std::vector<Tensor> inputs;
    for (int i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
    std::vector<Tensor> outputs;
    GRAFT_RETURN_IF_ERROR((*fn)(inputs, &outputs).WithContext(StrCat("host function '", token_, "'")));
    if (outputs.size() != tout_.size()) {
      return errors::InvalidArgument("host function '", token_, "' returned ", outputs.size(), " tensors, but ",
                                     tout_.size(), " were declared");
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (!outputs[i].valid() || outputs[i].dtype() != tout_[i]) {
        return errors::DTypeError("host function '", token_, "' output ", i, " is ",
                                  outputs[i].valid() ? DTypeName(outputs[i].dtype()) : "missing", ", but ",
                                  DTypeName(tout_[i]), " was declared");
      }
      ctx.SetOutput(static_cast<int>(i), std::move(outputs[i]));
    }
    return Status::Ok();
  }

 private:
  std::string token_;
  std::vector<DType> tout_;
};

}  // namespace

void RegisterHostFunctionKernels(KernelRegistry& r) {
  (void)r.Register("EagerPyFunc", kDeviceCpu, "", {}, &CreateKernel<HostFunctionKernel>);
  (void)r.Register("PyFunc", kDeviceCpu, "", {}, &CreateKernel<HostFunctionKernel>);
}

}  // namespace graft
