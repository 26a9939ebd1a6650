#include "core/runtime/function_call_kernel.h"

#include "core/runtime/function_runner.h"

namespace graft {
namespace {

class FunctionCallKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;

  Status Init() {
    const AttrValue* f = node().attr("f");
    const FuncValue* fv = f ? f->get<FuncValue>() : nullptr;
    if (fv == nullptr) return errors::InvalidArgument("attr 'f' is missing or not a function");
    if (!fv->attrs.empty()) {
      return errors::Unimplemented("calls of function '", fv->name, "' with attrs are not supported");
    }
    // The body's ops without a device go where the call asks (or where the calling body's do).
    const std::string device = node().device().empty() ? FunctionRunner::PreparingDefaultDevice() : node().device();
    GRAFT_RETURN_IF_ERROR(FunctionRunner::Create(*node().graph(), fv->name, &runner_, device));
    const std::string& name = fv->name;
    if (static_cast<int>(runner_->num_args()) != node().num_inputs()) {
      return errors::InvalidArgument("function '", name, "' takes ", runner_->num_args(),
                                     " arguments, but the call passes ", node().num_inputs());
    }
    if (static_cast<int>(runner_->num_results()) != node().num_outputs()) {
      return errors::InvalidArgument("function '", name, "' returns ", runner_->num_results(),
                                     " results, but the call expects ", node().num_outputs());
    }
    for (size_t i = 0; i < runner_->num_args(); ++i) {
      DType want = runner_->arg_type(i), got = node().input_type(static_cast<int>(i));
      if (got != want) {
        return errors::DTypeError("function '", name, "' argument '", runner_->body().arg_names[i], "' is ",
                                  DTypeName(want), ", but the call passes ", DTypeName(got));
      }
    }
    for (size_t i = 0; i < runner_->num_results(); ++i) {
      DType got = runner_->result_type(i), want = node().output_type(static_cast<int>(i));
      if (got != want) {
        return errors::DTypeError("function '", name, "' result '", runner_->body().ret_names[i], "' is ",
                                  DTypeName(got), ", but the call expects ", DTypeName(want));
      }
    }
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    std::vector<Tensor> args;
    args.reserve(static_cast<size_t>(ctx.num_inputs()));
    for (int i = 0; i < ctx.num_inputs(); ++i) args.push_back(ctx.input(i));
    std::vector<Tensor> results;
    GRAFT_RETURN_IF_ERROR(runner_->Run(args, ctx.resources(), &results, ctx.run_control()));
    for (size_t i = 0; i < results.size(); ++i) ctx.SetOutput(static_cast<int>(i), std::move(results[i]));
    return Status::Ok();
  }

 private:
  std::shared_ptr<const FunctionRunner> runner_;  // shared with other calls of the function
};

}  // namespace

void RegisterFunctionCallKernels(KernelRegistry& r) {
  (void)r.Register("PartitionedCall", kDeviceCpu, "", {}, &CreateKernel<FunctionCallKernel>);
  (void)r.Register("StatefulPartitionedCall", kDeviceCpu, "", {}, &CreateKernel<FunctionCallKernel>);
}

}  // namespace graft
