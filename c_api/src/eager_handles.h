// The C API's handles for eager execution and traced functions.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "c_api/src/handles.h"
#include "core/eager/context.h"
#include "core/eager/polymorphic_function.h"
#include "graft/eager.h"
#include "graft/function.h"

struct graft_context {
  graft_context() { ctx.set_handle(this); }
  graft::eager::Context ctx;
  // Handles to the graphs of traces (graft_context_trace_graph), made on demand; a handle is
  // replaced as the graph's own once its concrete function exists, and kept until the context
  // goes (a graph address may come back for a later trace, and then gets its handle again).
  std::mutex trace_graphs_mu;
  std::unordered_map<const graft::Graph*, std::unique_ptr<graft_graph>> trace_graphs;
};

struct graft_value {
  graft::eager::Value v;
};

struct graft_op_call {
  graft_context* ctx = nullptr;
  graft::eager::OpCall call;
  graft::eager::KernelHint hint;  // reset whenever the call changes
};

struct graft_value_list {
  std::vector<graft::eager::Value> values;
};

// Borrowed from its graft_function; one per concrete function, so the same signature gives
// the same pointer.
struct graft_concrete_function {
  std::shared_ptr<graft::eager::ConcreteFunction> fn;
  std::unique_ptr<graft_graph> graph;  // stands for fn's graph
};

struct graft_function {
  std::unique_ptr<graft::eager::PolymorphicFunction> fn;
  std::mutex mu;  // guards concretes
  std::map<const graft::eager::ConcreteFunction*, std::unique_ptr<graft_concrete_function>> concretes;
};

namespace graft::capi {
graft_context* ToC(eager::Context& ctx);
// Sets *noutputs and hands the first `capacity` values out as new handles: all or nothing.
Status HandOutValues(graft_value** outputs, int capacity, int* noutputs, std::vector<eager::Value>& values);
}  // namespace graft::capi
