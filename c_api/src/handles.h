// The C API's opaque handle types: each wraps (or stands for) one core object.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/device_spec.h"
#include "core/graph.h"
#include "core/partial_shape.h"
#include "core/runtime/cluster_session.h"
#include "core/runtime/session.h"
#include "core/tensor.h"
#include "graft/attrs.h"
#include "graft/graph.h"
#include "graft/operation.h"
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

// A graph's handle: one per graph, owned by the graph (Graph::Attachment), so that
// graft_op_graph finds it and it never outlives its graph. It counts the references the
// caller holds (graft_graph_new, graft_graph_share, graft_context_trace_graph), each freed
// with graft_graph_free: while any is held, `self` keeps the graph alive. Sessions, symbolic
// values and concrete functions keep the graph alive on their own (shared_ptr), so freeing the
// last reference while they live leaves the graph to them, as sqlite's zombie close.
struct graft_graph {
  explicit graft_graph(graft::Graph& g) : graph(g) {}
  graft_graph(const graft_graph&) = delete;
  graft_graph& operator=(const graft_graph&) = delete;
  graft::Graph& graph;
  std::mutex mu;  // guards refs and self
  int64_t refs = 0;
  std::shared_ptr<graft::Graph> self;
  std::map<std::string, std::unique_ptr<graft_collection>> live_collections;
};

// A session keeps its graph alive (declared first: destroyed after the session).
struct graft_session {
  graft_session(std::shared_ptr<const graft::Graph> g, const graft::SessionOptions& o, bool track)
      : graph(std::move(g)), session(graph.get(), o), track_memory(track) {}
  std::shared_ptr<const graft::Graph> graph;
  graft::Session session;
  // The figures of the session's last successful run (from any thread).
  std::atomic<int64_t> last_peak_bytes{-1};
  std::atomic<int64_t> last_ops_run{0};
  bool track_memory;
  // A session across processes (options.cluster), which runs instead of `session`.
  std::unique_ptr<graft::ClusterSession> cluster;
};

// A run prepared once (graft_session_make_callable); it borrows its session.
struct graft_callable {
  graft_session* session = nullptr;
  std::shared_ptr<const graft::Executor> exe;
  int num_feeds = 0;
  int num_fetches = 0;
};

// The attrs of an op description or an op call: the map they fill and the op type whose
// definition declares them. changed (if set) runs after every set, with owner.
struct graft_attrs {
  graft::AttrMap* map = nullptr;
  const std::string* op_type = nullptr;
  void (*changed)(void* owner) = nullptr;
  void* owner = nullptr;
};

struct graft_op_desc {
  graft_op_desc() = default;
  graft_op_desc(const graft_op_desc&) = delete;  // attrs points into it
  graft_op_desc& operator=(const graft_op_desc&) = delete;
  graft_graph* graph = nullptr;
  graft::NodeSpec spec;
  graft_attrs attrs{&spec.attrs, &spec.type};
};

// graft_op stands for a core Node (never defined: the pointers are the Node's address).
namespace graft::capi {
inline graft_op* ToC(Node* n) { return reinterpret_cast<graft_op*>(n); }
inline Node* FromC(const graft_op* op) { return reinterpret_cast<Node*>(const_cast<graft_op*>(op)); }
// The graph's handle, made on first use (borrowed: valid while the graph lives). Thread-safe.
graft_graph* HandleOf(Graph& g);
// HandleOf for getters that return a handle: NULL when making it fails (out of memory).
graft_graph* HandleOrNull(Graph& g) noexcept;
inline graft_graph* ToC(Graph* g) { return HandleOf(*g); }
// Adds a caller's reference to the handle's graph (which must be owned by a shared_ptr) and
// returns the handle; the caller releases it with graft_graph_free.
Status NewReference(graft_graph* h, graft_graph** out);
// The graph as a shared_ptr, for an object that must keep it alive.
Status SharedGraph(graft_graph* h, std::shared_ptr<Graph>* out);
inline graft_output ToC(const Output& o) { return graft_output{ToC(o.node), o.index}; }
inline Output FromC(const graft_output& o) { return Output{FromC(o.op), o.index}; }
// Whether t is an output of graph (of any graph when graph is null), as CheckOutput checks,
// without making a message (for the getters that return a value and cannot throw).
bool IsOutputOf(const graft_output& t, const Graph* graph) noexcept;
// graft_session_options (NULL: defaults) -> core options; errors name the bad field.
// cluster: where options.cluster goes; nullptr where a cluster is not supported (an error).
Status SessionOptionsFromC(const graft_session_options* options, SessionOptions* out, bool* track_memory,
                           std::string* cluster = nullptr);
}  // namespace graft::capi
