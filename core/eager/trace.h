// Trace: a function graph being traced — its argument Placeholders, what it captures from
// outside (eager tensors, symbolic values of enclosing traces) and the order of its stateful
// ops. Context::Execute records into the trace that is current on the calling thread
// (context.h); a trace belongs to the thread that runs it.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/eager/value.h"
#include "core/graph.h"

namespace graft::eager {

class Context;
struct OpCall;

// A function graph being traced: its arguments, what it captures from outside (eager tensors,
// symbolic tensors of an enclosing trace), and the order of its stateful ops.
class Trace {
 public:
  Trace(Context* ctx, Trace* parent, bool may_create_variables)
      : ctx_(ctx), parent_(parent), may_create_variables_(may_create_variables), graph_(std::make_shared<Graph>()) {}

  Context* context() const { return ctx_; }
  Trace* parent() const { return parent_; }
  Graph& graph() { return *graph_; }
  // Shared by the trace, its symbolic values and the concrete function made of it.
  const std::shared_ptr<Graph>& shared_graph() const { return graph_; }
  bool may_create_variables() const { return may_create_variables_; }
  // Variables created while tracing (Context::CreateVariable).
  int variables_created() const { return variables_created_; }
  void note_variable_created() { ++variables_created_; }

  // A new argument Placeholder.
  Status AddArg(DType dtype, const PartialShape& shape, const std::string& name, Output* out);
  // v as a tensor of this graph: a symbolic value of this trace as is, anything else through
  // a capture Placeholder (one per captured tensor).
  Status Capture(const Value& v, Output* out);
  // Records op; stateful ops get a control dependency on the previous stateful op, so side
  // effects keep program order.
  Status Record(const OpCall& op, std::vector<Value>* outputs);
  // Adds a node directly (for call ops and control flow built by the tracer).
  Status AddNode(NodeSpec spec, Node** out);

  const std::vector<Output>& capture_placeholders() const { return capture_placeholders_; }
  const std::vector<Value>& captured() const { return captured_; }
  const std::vector<const Node*>& stateful_ops() const { return stateful_ops_; }

 private:
  Context* ctx_;
  Trace* parent_;
  bool may_create_variables_;
  int variables_created_ = 0;
  std::shared_ptr<Graph> graph_;
  std::vector<Output> capture_placeholders_;
  std::vector<Value> captured_;
  std::map<const void*, size_t> capture_of_buffer_;   // eager tensors by buffer
  std::map<std::pair<const Node*, int>, size_t> capture_of_symbolic_;
  std::vector<const Node*> stateful_ops_;
  Node* last_stateful_ = nullptr;
};

// The error for a symbolic value used where its graph is not being traced (it escaped its
// function).
Status OutOfScopeError(const Value& v);

}  // namespace graft::eager
