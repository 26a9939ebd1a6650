// ConcreteFunction: one trace of a function — its graph, argument Placeholders, captured
// inputs (eager tensors and variable handles read from outside) and outputs — prepared once
// and callable eagerly, or from another trace (recorded there as a call op with this function
// in the caller's library).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/eager/context.h"
#include "core/eager/trace.h"
#include "core/runtime/executor.h"

namespace graft::eager {

struct TensorSpec {
  DType dtype = DType::kFloat32;
  PartialShape shape;  // unknown rank by default
  std::string name;
};

class ConcreteFunction {
 public:
  // Makes a concrete function of a finished trace: outputs are values of the trace (values
  // from outside are captured). name must be unique in the process.
  static Status Create(std::string name, Trace& trace, std::vector<Output> args, std::vector<TensorSpec> arg_specs,
                       const std::vector<Value>& outputs, std::shared_ptr<ConcreteFunction>* out);

  const std::string& name() const { return name_; }
  const Graph& graph() const { return *graph_; }
  Graph& mutable_graph() { return *graph_; }
  const std::vector<Output>& inputs() const { return args_; }
  const std::vector<TensorSpec>& input_specs() const { return arg_specs_; }
  const std::vector<Output>& outputs() const { return outputs_; }
  const std::vector<Value>& captured_inputs() const { return captured_; }
  const std::vector<Output>& capture_placeholders() const { return capture_placeholders_; }
  bool is_stateful() const { return !stateful_.empty(); }

  // Calls with one value per input: eagerly (concrete values) or, while ctx traces on this
  // thread, as a call op recorded into that trace. control, when given, may stop an eager
  // call before any of its ops (runtime/run_control.h).
  Status Call(Context& ctx, const std::vector<Value>& args, std::vector<Value>* outputs,
              const RunControl* control = nullptr) const;

  // The FunctionDef of this function (serialized), made once.
  Status FunctionDef(const std::string** out) const;

 private:
  ConcreteFunction() = default;
  Status CallEager(Context& ctx, const std::vector<Value>& args, std::vector<Value>* outputs,
                   const RunControl* control) const;
  Status CallTaped(Context& ctx, const std::vector<Value>& args, std::vector<Value>* outputs,
                   const RunControl* control) const;
  Status CallInTrace(Trace& trace, const std::vector<Value>& args, std::vector<Value>* outputs) const;

  std::string name_;
  std::shared_ptr<Graph> graph_;  // shared with the symbolic values of its trace
  std::vector<Output> args_;
  std::vector<TensorSpec> arg_specs_;
  std::vector<Output> capture_placeholders_;
  std::vector<Value> captured_;
  std::vector<Output> outputs_;
  std::vector<const Node*> stateful_;
  std::unique_ptr<const Executor> exe_;
  mutable std::once_flag function_def_once_;
  mutable Status function_def_status_;
  mutable std::string function_def_;
};

}  // namespace graft::eager
