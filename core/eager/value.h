// Values of eager execution and tracing: a concrete tensor (eager), or a symbolic tensor of
// a traced function graph. A symbolic value keeps its graph alive, so that a value that
// escaped its trace (kept by the host after the function returned or failed) can still be
// inspected; using it in another function or eagerly is an error ("out of scope").
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "core/graph.h"
#include "core/tensor.h"

namespace graft::eager {

// A process-wide identity for concrete values, so that a gradient tape can tell tensors apart
// even when they share a buffer (Identity and Reshape may alias their input).
uint64_t NewValueId();

struct Value {
  Tensor tensor;           // concrete: valid
  uint64_t id = 0;         // concrete: unique per tensor made (copies keep it); 0 for none
  Output symbolic;               // symbolic: node != nullptr
  std::shared_ptr<Graph> graph;  // symbolic: the graph of symbolic.node

  static Value Concrete(Tensor t) {
    Value v;
    v.tensor = std::move(t);
    v.id = NewValueId();
    return v;
  }
  static Value Symbolic(Output o, std::shared_ptr<Graph> graph) {
    Value v;
    v.symbolic = o;
    v.graph = std::move(graph);
    return v;
  }
  bool is_symbolic() const { return symbolic.node != nullptr; }
  DType dtype() const { return is_symbolic() ? symbolic.node->output_type(symbolic.index) : tensor.dtype(); }
  PartialShape shape() const {
    return is_symbolic() ? symbolic.node->output_shape(symbolic.index) : tensor.shape();
  }
};

}  // namespace graft::eager
