// FunctionRunner: a function of a graph's library, instantiated and prepared once, that runs
// on the calling thread with the caller's resources. The kernels of the call ops, of the
// functional control flow ops (If, While) and the tracer's concrete functions run functions
// through it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/function.h"
#include "core/runtime/device.h"
#include "core/runtime/executor.h"
#include "core/runtime/resource_mgr.h"

namespace graft {

class FunctionRunner {
 public:
  // How deeply functions may nest while they are prepared (each level prepares the next one
  // on the native stack, so this also bounds the stack that preparing takes). Gradients through
  // calls refuse the same depth.
  static constexpr int kMaxCallDepth = kMaxFunctionNesting;

  // Instantiates function `name` of the library of `caller` (the graph of the node that calls
  // it) and prepares it. Nested calls are prepared with it, from the same library snapshot;
  // while one outermost function is prepared on a thread, a function called from several
  // places is prepared once and shared. Errors: a function that calls itself, directly or
  // through others ("calls itself"), and nesting deeper than kMaxCallDepth ("nested too
  // deeply").
  // default_device is the device of the body's ops that name none (the call's device, as
  // TensorFlow places a function's body); "" for the CPU.
  static Status Create(const Graph& caller, const std::string& name, std::shared_ptr<const FunctionRunner>* out,
                       const std::string& default_device = "");
  // The default device of the function being prepared on this thread ("" when none is): a
  // call inside a body without a device of its own passes it on to the function it calls.
  static std::string PreparingDefaultDevice();

  const FunctionBody& body() const { return *body_; }
  const std::string& name() const { return body_->name; }
  DType arg_type(size_t i) const { return body_->args[i].node->output_type(0); }
  DType result_type(size_t i) const { return body_->rets[i].node->output_type(body_->rets[i].index); }
  size_t num_args() const { return body_->args.size(); }
  size_t num_results() const { return body_->rets.size(); }

  // Runs the function; errors are prefixed with "in function 'NAME'". control: the calling
  // run's (a kernel's ctx.run_control()), which may stop the body. Thread-safe.
  Status Run(const std::vector<Tensor>& args, ResourceMgr* resources, std::vector<Tensor>* results,
             const RunControl* control = nullptr) const;

 private:
  FunctionRunner() = default;
  std::unique_ptr<FunctionBody> body_;
  std::unique_ptr<const Executor> exe_;
};

}  // namespace graft
