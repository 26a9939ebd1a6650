// C API: graphs, names, contexts, lookups, feeding, seeds (graft/graph.h).
#include <optional>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "graft/graph.h"

using graft::Node;
using graft::Output;
using graft::Status;
using graft::capi::FromC;
using graft::capi::Guard;
using graft::capi::ToC;

namespace graft::capi {
// Checks that a graft_output is a tensor of graph (or of any graph when graph is null).
Status CheckOutput(const graft_output& t, const Graph* graph, std::string_view what) {
  if (t.op == nullptr) return errors::InvalidArgument(what, " has a NULL op");
  Node* n = FromC(t.op);
  if (graph != nullptr && n->graph() != graph) {
    return errors::InvalidArgument(what, " (op '", n->name(), "') is from another graph");
  }
  if (t.index < 0 || t.index >= n->num_outputs()) {
    return errors::InvalidArgument(what, ": op '", n->name(), "' has no output ", t.index);
  }
  return Status::Ok();
}

bool IsOutputOf(const graft_output& t, const Graph* graph) noexcept {
  if (t.op == nullptr) return false;
  const Node* n = FromC(t.op);
  return (graph == nullptr || n->graph() == graph) && t.index >= 0 && t.index < n->num_outputs();
}

graft_graph* HandleOf(Graph& g) {
  return static_cast<graft_graph*>(g.Attachment([&g] { return std::make_shared<graft_graph>(g); }));
}

graft_graph* HandleOrNull(Graph& g) noexcept {
  try {
    return HandleOf(g);
  } catch (...) {
    return nullptr;
  }
}

Status NewReference(graft_graph* h, graft_graph** out) {
  std::lock_guard<std::mutex> lock(h->mu);
  if (h->refs == 0) {
    h->self = h->graph.weak_from_this().lock();
    if (!h->self) return errors::FailedPrecondition("the graph is not shared (it belongs to another object)");
  }
  ++h->refs;
  *out = h;
  return Status::Ok();
}

Status SharedGraph(graft_graph* h, std::shared_ptr<Graph>* out) {
  *out = h->graph.weak_from_this().lock();
  if (!*out) return errors::FailedPrecondition("the graph is not shared (it belongs to another object)");
  return Status::Ok();
}

}  // namespace graft::capi

using graft::capi::CheckOutput;

extern "C" {

GRAFT_API int graft_graph_new(graft_graph** out) {
  return Guard("graft_graph_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    auto g = std::make_shared<graft::Graph>();
    return graft::capi::NewReference(graft::capi::HandleOf(*g), out);
  });
}

GRAFT_API int graft_graph_share(graft_graph** out, graft_graph* graph) {
  return Guard("graft_graph_share", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(graph);
    return graft::capi::NewReference(graph, out);
  });
}

GRAFT_API void graft_graph_free(graft_graph* graph) {
  if (graph == nullptr) return;
  std::shared_ptr<graft::Graph> last;  // released after the lock: it may destroy the handle
  {
    std::lock_guard<std::mutex> lock(graph->mu);
    if (graph->refs == 0) return;  // not a reference the caller holds
    if (--graph->refs == 0) last = std::move(graph->self);
  }
}

GRAFT_API int64_t graft_graph_num_ops(const graft_graph* graph) { return graph ? graph->graph.num_nodes() : 0; }

GRAFT_API graft_op* graft_graph_op(const graft_graph* graph, int64_t index) {
  if (graph == nullptr) return nullptr;
  Node* n = graph->graph.NodeAt(index);
  return n ? ToC(n) : nullptr;
}

GRAFT_API int graft_graph_op_by_name(graft_op** out, const graft_graph* graph, const char* name) {
  return Guard("graft_graph_op_by_name", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(name);
    Node* n = graph->graph.FindNode(name);
    if (n == nullptr) return graft::errors::NotFound("the graph has no op named '", name, "'");
    *out = ToC(n);
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_tensor_by_name(graft_output* out, const graft_graph* graph, const char* name) {
  return Guard("graft_graph_tensor_by_name", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(name);
    Output t;
    GRAFT_RETURN_IF_ERROR(graph->graph.FindTensor(name, &t));
    *out = ToC(t);
    return Status::Ok();
  });
}

GRAFT_API void graft_graph_finalize(graft_graph* graph) {
  if (graph) graph->graph.Finalize();
}
GRAFT_API graft_bool graft_graph_finalized(const graft_graph* graph) { return graph && graph->graph.finalized(); }
GRAFT_API int64_t graft_graph_version(const graft_graph* graph) { return graph ? graph->graph.version() : 0; }

GRAFT_API int graft_graph_unique_name(char** out, graft_graph* graph, const char* name, graft_bool mark_as_used) {
  return Guard("graft_graph_unique_name", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(name);
    std::string unique = graph->graph.UniqueName(name, mark_as_used != 0);
    *out = graft::capi::CopyString(unique);
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_push_name_scope(char** out_scope, graft_graph* graph, const char* name) {
  return Guard("graft_graph_push_name_scope", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    std::string scope;
    GRAFT_RETURN_IF_ERROR(graph->graph.PushNameScope(name ? name : "", &scope));
    if (out_scope) {
      try {
        *out_scope = graft::capi::CopyString(scope);
      } catch (...) {
        (void)graph->graph.PopNameScope();
        throw;
      }
    }
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_pop_name_scope(graft_graph* graph) {
  return Guard("graft_graph_pop_name_scope", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    return graph->graph.PopNameScope();
  });
}

GRAFT_API const char* graft_graph_name_scope(const graft_graph* graph) {
  return graph ? graph->graph.name_scope().c_str() : "";
}

GRAFT_API int graft_graph_push_control_dependencies(graft_graph* graph, graft_op* const* ops, int n) {
  return Guard("graft_graph_push_control_dependencies", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    if (n < 0) return graft::errors::InvalidArgument("n is ", n);
    if (n > 0) GRAFT_CHECK_ARG(ops);
    std::vector<Node*> nodes;
    for (int i = 0; i < n; ++i) {
      if (ops[i] == nullptr) return graft::errors::InvalidArgument("ops[", i, "] is NULL");
      nodes.push_back(FromC(ops[i]));
    }
    return graph->graph.PushControlDependencies(std::move(nodes));
  });
}

GRAFT_API int graft_graph_push_no_control_dependencies(graft_graph* graph) {
  return Guard("graft_graph_push_no_control_dependencies", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    graph->graph.PushNoControlDependencies();
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_pop_control_dependencies(graft_graph* graph) {
  return Guard("graft_graph_pop_control_dependencies", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    return graph->graph.PopControlDependencies();
  });
}

GRAFT_API int graft_graph_push_device(graft_graph* graph, const char* device) {
  return Guard("graft_graph_push_device", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    return graph->graph.PushDevice(device ? std::optional<std::string_view>(device) : std::nullopt);
  });
}

GRAFT_API int graft_graph_push_device_function(graft_graph* graph, graft_device_fn fn, void* user_data) {
  return Guard("graft_graph_push_device_function", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(fn);
    graph->graph.PushDeviceFunction([fn, user_data](const Node& node) -> std::optional<std::string> {
      const char* device = fn(ToC(const_cast<Node*>(&node)), user_data);
      if (device == nullptr) return std::nullopt;
      return std::string(device);
    });
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_pop_device(graft_graph* graph) {
  return Guard("graft_graph_pop_device", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    return graph->graph.PopDevice();
  });
}

GRAFT_API int graft_graph_push_colocation(graft_graph* graph, graft_op* op, graft_bool ignore_existing) {
  return Guard("graft_graph_push_colocation", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(op);
    return graph->graph.PushColocation(FromC(op), ignore_existing != 0);
  });
}

GRAFT_API int graft_graph_pop_colocation(graft_graph* graph) {
  return Guard("graft_graph_pop_colocation", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    return graph->graph.PopColocation();
  });
}

GRAFT_API int graft_graph_push_container(graft_graph* graph, const char* container) {
  return Guard("graft_graph_push_container", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    graph->graph.PushContainer(container ? container : "");
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_pop_container(graft_graph* graph) {
  return Guard("graft_graph_pop_container", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    return graph->graph.PopContainer();
  });
}

GRAFT_API int graft_graph_push_gradient_override_map(graft_graph* graph, const char* const* op_types,
                                                     const char* const* gradient_names, int n) {
  return Guard("graft_graph_push_gradient_override_map", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    if (n < 0) return graft::errors::InvalidArgument("n is ", n);
    if (n > 0) {
      GRAFT_CHECK_ARG(op_types);
      GRAFT_CHECK_ARG(gradient_names);
    }
    std::map<std::string, std::string> map;
    for (int i = 0; i < n; ++i) {
      if (op_types[i] == nullptr || gradient_names[i] == nullptr) {
        return graft::errors::InvalidArgument("entry ", i, " of the map is NULL");
      }
      map[op_types[i]] = gradient_names[i];
    }
    graph->graph.PushGradientOverrideMap(std::move(map));
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_pop_gradient_override_map(graft_graph* graph) {
  return Guard("graft_graph_pop_gradient_override_map", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    return graph->graph.PopGradientOverrideMap();
  });
}

GRAFT_API int graft_graph_update_merge_input(graft_graph* graph, graft_op* merge, int index, graft_output next) {
  return Guard("graft_graph_update_merge_input", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(merge);
    GRAFT_RETURN_IF_ERROR(CheckOutput(next, &graph->graph, "the new input"));
    return graph->graph.UpdateMergeInput(FromC(merge), index, FromC(next));
  });
}

GRAFT_API int graft_graph_prevent_feeding(graft_graph* graph, graft_output tensor) {
  return Guard("graft_graph_prevent_feeding", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    GRAFT_RETURN_IF_ERROR(CheckOutput(tensor, &graph->graph, "the tensor"));
    graph->graph.PreventFeeding(FromC(tensor));
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_prevent_fetching(graft_graph* graph, graft_op* op) {
  return Guard("graft_graph_prevent_fetching", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(op);
    if (FromC(op)->graph() != &graph->graph) return graft::errors::InvalidArgument("the op is from another graph");
    graph->graph.PreventFetching(FromC(op));
    return Status::Ok();
  });
}

GRAFT_API graft_bool graft_graph_is_feedable(const graft_graph* graph, graft_output tensor) {
  if (graph == nullptr || !graft::capi::IsOutputOf(tensor, &graph->graph)) return 0;
  try {  // the lookup makes the tensor's name
    return graph->graph.IsFeedable(FromC(tensor));
  } catch (...) {
    return 0;
  }
}

GRAFT_API graft_bool graft_graph_is_fetchable(const graft_graph* graph, const graft_op* op) {
  return graph && op && FromC(op)->graph() == &graph->graph && graph->graph.IsFetchable(FromC(op));
}

GRAFT_API void graft_graph_set_seed(graft_graph* graph, graft_bool has_seed, int64_t seed) {
  if (graph) graph->graph.SetSeed(has_seed ? std::optional<int64_t>(seed) : std::nullopt);
}

GRAFT_API graft_bool graft_graph_seed(int64_t* out, const graft_graph* graph) {
  if (graph == nullptr || !graph->graph.seed()) return 0;
  if (out) *out = *graph->graph.seed();
  return 1;
}

GRAFT_API int graft_graph_op_seeds(graft_bool* out_has_seeds, int64_t* out_seed, int64_t* out_seed2,
                                   const graft_graph* graph, graft_bool has_op_seed, int64_t op_seed) {
  return Guard("graft_graph_op_seeds", [&]() -> Status {
    GRAFT_CHECK_ARG(out_has_seeds);
    GRAFT_CHECK_ARG(out_seed);
    GRAFT_CHECK_ARG(out_seed2);
    GRAFT_CHECK_ARG(graph);
    std::optional<int64_t> s1, s2;
    graph->graph.GetSeed(has_op_seed ? std::optional<int64_t>(op_seed) : std::nullopt, &s1, &s2);
    *out_has_seeds = s1.has_value();
    *out_seed = s1.value_or(0);
    *out_seed2 = s2.value_or(0);
    return Status::Ok();
  });
}

}  // extern "C"
