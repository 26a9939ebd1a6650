// Trace: recording ops into a traced function graph, capturing what comes from outside and
// chaining stateful ops in program order.
#include "core/eager/trace.h"

#include "core/eager/context.h"
#include "core/op_registry.h"

namespace graft::eager {

Status OutOfScopeError(const Value& v) {
  return errors::InvalidArgument("tensor '", v.symbolic.node->name(), ":", v.symbolic.index,
                                 "' is out of scope and cannot be used here: it is a symbolic tensor of a traced "
                                 "function graph that is not being traced here (return it from the function "
                                 "rather than keeping it)");
}

Status Trace::AddNode(NodeSpec spec, Node** out) {
  const OpRegistration* reg = OpRegistry::Global().Find(spec.type);
  bool stateful = reg != nullptr && reg->def.is_stateful && spec.type != "Placeholder";
  if (stateful && last_stateful_ != nullptr) spec.control_inputs.push_back(last_stateful_);
  Node* n = nullptr;
  GRAFT_RETURN_IF_ERROR(graph_->AddNode(std::move(spec), &n));
  if (stateful) {
    last_stateful_ = n;
    stateful_ops_.push_back(n);
  }
  *out = n;
  return Status::Ok();
}

Status Trace::AddArg(DType dtype, const PartialShape& shape, const std::string& name, Output* out) {
  NodeSpec spec;
  spec.type = "Placeholder";
  spec.name = name;
  spec.attrs["dtype"] = AttrValue::Type(dtype);
  spec.attrs["shape"] = AttrValue::Shape(shape);
  Node* n = nullptr;
  GRAFT_RETURN_IF_ERROR(graph_->AddNode(std::move(spec), &n));
  *out = Output{n, 0};
  return Status::Ok();
}

Status Trace::Capture(const Value& v, Output* out) {
  if (v.is_symbolic() && v.graph == graph_) {
    *out = v.symbolic;
    return Status::Ok();
  }
  if (v.is_symbolic()) {
    bool enclosing = false;
    for (Trace* t = parent_; t != nullptr; t = t->parent_) enclosing = enclosing || t->graph_ == v.graph;
    if (!enclosing) return OutOfScopeError(v);
    auto it = capture_of_symbolic_.find({v.symbolic.node, v.symbolic.index});
    if (it != capture_of_symbolic_.end()) {
      *out = capture_placeholders_[it->second];
      return Status::Ok();
    }
  } else {
    if (!v.tensor.valid()) return errors::InvalidArgument("an empty value cannot be captured");
    auto it = capture_of_buffer_.find(v.tensor.buffer().get());
    if (it != capture_of_buffer_.end() && captured_[it->second].tensor.dtype() == v.tensor.dtype() &&
        captured_[it->second].tensor.dims() == v.tensor.dims()) {
      *out = capture_placeholders_[it->second];
      return Status::Ok();
    }
  }
  Output ph;
  GRAFT_RETURN_IF_ERROR(AddArg(v.dtype(), v.shape(), "capture", &ph));
  size_t index = captured_.size();
  captured_.push_back(v);
  capture_placeholders_.push_back(ph);
  if (v.is_symbolic()) capture_of_symbolic_[{v.symbolic.node, v.symbolic.index}] = index;
  else capture_of_buffer_[v.tensor.buffer().get()] = index;
  *out = ph;
  return Status::Ok();
}

Status Trace::Record(const OpCall& op, std::vector<Value>* outputs) {
  NodeSpec spec;
  spec.type = op.type;
  spec.name = op.name;
  spec.attrs = op.attrs;
  for (const OpCall::Arg& arg : op.inputs) {
    NodeSpec::InputArg in;
    in.is_list = arg.is_list;
    for (const Value& v : arg.values) {
      Output o;
      GRAFT_RETURN_IF_ERROR(Capture(v, &o).WithContext(StrCat(op.type, " op")));
      in.tensors.push_back(o);
    }
    spec.inputs.push_back(std::move(in));
  }
  Node* n = nullptr;
  spec.check_kernels = true;
  if (!op.device.empty()) spec.device = op.device;  // else the trace graph's device scopes
  GRAFT_RETURN_IF_ERROR(AddNode(std::move(spec), &n));
  outputs->clear();
  for (int i = 0; i < n->num_outputs(); ++i) outputs->push_back(Value::Symbolic(Output{n, i}, graph_));
  return Status::Ok();
}

}  // namespace graft::eager
