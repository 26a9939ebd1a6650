// The C API's opaque handle types: each wraps (or stands for) one core object.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/device_spec.h"
#include "core/graph.h"
#include "core/partial_shape.h"
#include "core/runtime/session.h"
#include "core/tensor.h"
#include "graft/graph.h"
#include "graft/session.h"

struct graft_shape {
  explicit graft_shape(graft::PartialShape s) : shape(std::move(s)), text(shape.ToString()) {}
  const graft::PartialShape shape;
  const std::string text;  // shapes are immutable, so the text is made once
};

struct graft_tensor {
  explicit graft_tensor(graft::Tensor t) : tensor(std::move(t)) {}
  graft::Tensor tensor;
};

struct graft_device_spec {
  explicit graft_device_spec(graft::DeviceSpec s) : spec(std::move(s)), text(spec.ToString()) {}
  const graft::DeviceSpec spec;
  const std::string text;
};

// A collection: a copy the caller owns, or a borrowed view of a graph's live list.
struct graft_collection {
  graft::Graph* graph = nullptr;                 // for checking that items belong to it
  std::vector<graft::CollectionItem> owned;      // a copy
  std::vector<graft::CollectionItem>* live = nullptr;
  std::vector<graft::CollectionItem>& items() { return live ? *live : owned; }
  const std::vector<graft::CollectionItem>& items() const { return live ? *live : owned; }
};

// A graph handle: owns its graph (graft_graph_new), or stands for a graph owned elsewhere (a
// traced function's graph), which must outlive it.
struct graft_graph {
  graft_graph() : owned(std::make_unique<graft::Graph>()), graph(*owned) { graph.set_handle(this); }
  explicit graft_graph(graft::Graph* borrowed) : graph(*borrowed) { graph.set_handle(this); }
  graft_graph(const graft_graph&) = delete;
  graft_graph& operator=(const graft_graph&) = delete;
  std::unique_ptr<graft::Graph> owned;
  graft::Graph& graph;
  std::map<std::string, std::unique_ptr<graft_collection>> live_collections;
};

struct graft_session {
  graft_session(const graft::Graph* g, const graft::SessionOptions& o, bool track) : session(g, o), track_memory(track) {}
  graft::Session session;
  bool track_memory;
};

// A run prepared once (graft_session_make_callable); it borrows its session.
struct graft_callable {
  graft_session* session = nullptr;
  std::shared_ptr<const graft::Executable> exe;
  int num_feeds = 0;
  int num_fetches = 0;
};

struct graft_op_desc {
  graft_graph* graph = nullptr;
  graft::NodeSpec spec;
};

// graft_op stands for a core Node (never defined: the pointers are the Node's address).
namespace graft::capi {
inline graft_op* ToC(Node* n) { return reinterpret_cast<graft_op*>(n); }
inline Node* FromC(const graft_op* op) { return reinterpret_cast<Node*>(const_cast<graft_op*>(op)); }
inline graft_graph* ToC(Graph* g) { return static_cast<graft_graph*>(g->handle()); }
inline graft_output ToC(const Output& o) { return graft_output{ToC(o.node), o.index}; }
inline Output FromC(const graft_output& o) { return Output{FromC(o.op), o.index}; }
// graft_session_options (NULL: defaults) -> core options; errors name the bad field.
Status SessionOptionsFromC(const graft_session_options* options, SessionOptions* out, bool* track_memory);
}  // namespace graft::capi
