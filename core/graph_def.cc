#include "core/graph_def.h"

#include <algorithm>
#include <charconv>
#include <queue>
#include <memory>
#include <set>
#include <unordered_map>

#include "core/proto_depth.h"
#include "core/library_call.h"
#include "core/tensor_proto.h"
#include "proto/function.pb-c.h"
#include "proto/graph.pb-c.h"
#include "proto/versions.pb-c.h"

namespace graft {
namespace {

// ---- Export ------------------------------------------------------------------------------

std::string InputName(const Output& t) {
  return t.index == 0 ? t.node->name() : StrCat(t.node->name(), ":", t.index);
}

}  // namespace

Status NodeToProto(const Node& n, bool add_shapes, ProtoArena& arena, Graftpb__NodeDef** out) {
  auto* p = arena.New(graftpb__node_def__init);
  p->name = arena.Str(n.name());
  p->op = arena.Str(n.type());
  p->device = arena.Str(n.device());
  p->n_input = static_cast<size_t>(n.num_inputs()) + n.control_inputs().size();
  p->input = arena.Array<char*>(p->n_input);
  size_t k = 0;
  for (const Output& t : n.inputs()) {
    if (t.node == nullptr) return errors::Internal("op '", n.name(), "' has an unconnected input");
    p->input[k++] = arena.Str(InputName(t));
  }
  for (const Node* c : n.control_inputs()) p->input[k++] = arena.Str("^" + c->name());

  AttrMap attrs = n.attrs();
  if (add_shapes) {
    std::vector<PartialShape> shapes;
    for (int i = 0; i < n.num_outputs(); ++i) shapes.push_back(n.output_shape(i));
    attrs["_output_shapes"] = AttrValue::ShapeList(std::move(shapes));
  }
  p->n_attr = attrs.size();
  p->attr = arena.Array<Graftpb__NodeDef__AttrEntry*>(attrs.size());
  k = 0;
  for (const auto& [name, value] : attrs) {  // sorted: the bytes are deterministic
    auto* e = arena.New(graftpb__node_def__attr_entry__init);
    e->key = arena.Str(name);
    GRAFT_RETURN_IF_ERROR(AttrToProto(value, arena, &e->value).WithContext(StrCat("op '", n.name(), "' attr '", name, "'")));
    p->attr[k++] = e;
  }
  *out = p;
  return Status::Ok();
}

namespace {

// ---- Import ------------------------------------------------------------------------------

struct ParsedInput {
  bool control = false;
  std::string node;
  int index = 0;
  std::string text;  // as written
};

Status ParseInput(std::string_view text, ParsedInput* out) {
  out->text = std::string(text);
  if (!text.empty() && text[0] == '^') {
    out->control = true;
    out->node = std::string(text.substr(1));
    out->index = -1;
  } else {
    size_t colon = text.rfind(':');
    out->node = std::string(text.substr(0, colon));
    out->index = 0;
    if (colon != std::string_view::npos) {
      std::string_view idx = text.substr(colon + 1);
      int v = 0;
      auto [ptr, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), v);
      if (idx.empty() || ec != std::errc() || ptr != idx.data() + idx.size() || v < 0) {
        return errors::InvalidArgument("input '", text, "' is not 'node', 'node:index' or '^node'");
      }
      out->index = v;
    }
  }
  if (out->node.empty()) return errors::InvalidArgument("input '", text, "' names no node");
  return Status::Ok();
}

bool IsNextIteration(const std::string& op) { return op == "NextIteration" || op == "RefNextIteration"; }
bool IsMerge(const std::string& op) { return op == "Merge" || op == "RefMerge"; }

struct ImportNode {
  const Graftpb__NodeDef* def = nullptr;
  std::string name, op;
  std::vector<ParsedInput> inputs;
  Node* created = nullptr;
};

// The GraphDef version Graft reads as (a VersionDef's consumer version): TensorFlow 2.21's
// GRAPH_DEF_VERSION, whose graphs Graft runs. A GraphDef whose min_consumer is above it, or
// that lists it among its bad_consumers, is refused, as TensorFlow refuses it.
constexpr int32_t kGraftGraphDefConsumer = 2474;

class Importer {
 public:
  Importer(Graph* graph, const ImportOptions& options) : graph_(graph), options_(options) {}

  // The VersionDef's rules (versions.proto): producer >= 0 (TensorFlow's minimum producer),
  // Graft's consumer version >= min_consumer and not among bad_consumers.
  static Status CheckVersions(const Graftpb__GraphDef* gd) {
    const Graftpb__VersionDef* v = gd->versions;
    if (v == nullptr) return Status::Ok();
    if (v->producer < 0) {
      return errors::InvalidArgument("GraphDef producer version ", v->producer, " below the minimum producer 0");
    }
    if (v->min_consumer > kGraftGraphDefConsumer) {
      return errors::InvalidArgument("GraphDef min consumer version ", v->min_consumer, " above current version ",
                                     kGraftGraphDefConsumer, " (TensorFlow 2.21's): it needs a newer reader");
    }
    for (size_t i = 0; i < v->n_bad_consumers; ++i) {
      if (v->bad_consumers[i] == kGraftGraphDefConsumer) {
        return errors::InvalidArgument("GraphDef disallows consumer version ", kGraftGraphDefConsumer,
                                       " (it is in the GraphDef's bad_consumers)");
      }
    }
    return Status::Ok();
  }

  Status Run(const Graftpb__GraphDef* gd, ImportResult* result) {
    GRAFT_RETURN_IF_ERROR(CheckVersions(gd));
    GRAFT_RETURN_IF_ERROR(CollectNodes(gd));
    std::vector<size_t> order;
    GRAFT_RETURN_IF_ERROR(TopologicalOrder(&order));
    GRAFT_RETURN_IF_ERROR(ImportLibrary(gd));
    if (graph_->num_nodes() == 0) {
      // An empty graph takes the GraphDef's versions (very old GraphDefs have only the
      // deprecated `version` field, the producer).
      GraphDefVersions v;
      if (gd->versions != nullptr) {
        v.producer = gd->versions->producer;
        v.min_consumer = gd->versions->min_consumer;
        v.bad_consumers.assign(gd->versions->bad_consumers, gd->versions->bad_consumers + gd->versions->n_bad_consumers);
      } else {
        v.producer = gd->version;
      }
      graph_->set_versions(std::move(v));
    }
    std::string scope;
    if (!options_.prefix.empty()) {
      GRAFT_RETURN_IF_ERROR(graph_->PushNameScope(options_.prefix, &scope));
    }
    Status s = CreateNodes(order);
    if (!options_.prefix.empty()) GRAFT_RETURN_IF_ERROR(graph_->PopNameScope());
    GRAFT_RETURN_IF_ERROR(s);
    GRAFT_RETURN_IF_ERROR(ConnectBackEdges());
    return ReturnElements(result);
  }

 private:
  Status CollectNodes(const Graftpb__GraphDef* gd) {
    nodes_.resize(gd->n_node);
    for (size_t i = 0; i < gd->n_node; ++i) {
      const Graftpb__NodeDef* d = gd->node[i];
      ImportNode& n = nodes_[i];
      n.def = d;
      n.name = d->name ? d->name : "";
      n.op = d->op ? d->op : "";
      if (n.name.empty()) return errors::InvalidArgument("node ", i, " of the GraphDef has no name");
      if (!IsValidOpName(n.name)) return errors::InvalidArgument("node '", n.name, "': the name is not valid");
      if (n.op.empty()) return errors::InvalidArgument("node '", n.name, "' has no op");
      if (!index_.emplace(n.name, i).second) {
        return errors::AlreadyExists("node '", n.name, "' appears more than once in the GraphDef");
      }
      for (size_t k = 0; k < d->n_input; ++k) {
        ParsedInput in;
        GRAFT_RETURN_IF_ERROR(ParseInput(d->input[k] ? d->input[k] : "", &in).WithContext(StrCat("node '", n.name, "'")));
        if (!in.control && !n.inputs.empty() && n.inputs.back().control) {
          return errors::InvalidArgument("node '", n.name, "': data input '", in.text, "' follows a control input");
        }
        n.inputs.push_back(std::move(in));
      }
    }
    // Every reference must resolve: to the GraphDef or to the input map.
    for (const ImportNode& n : nodes_) {
      for (const ParsedInput& in : n.inputs) {
        if (Mapped(in)) continue;
        auto it = index_.find(in.node);
        if (it == index_.end()) {
          return errors::NotFound("node '", n.name, "': input '", in.text, "' refers to node '", in.node,
                                  "', which is not in the GraphDef");
        }
      }
    }
    return Status::Ok();
  }

  bool Mapped(const ParsedInput& in) const {
    if (in.control) return options_.control_input_map.count(in.node) != 0;
    return options_.input_map.count(StrCat(in.node, ":", in.index)) != 0;
  }

  // A loop's back edge: NextIteration into Merge. Those are connected after all nodes exist.
  bool IsBackEdge(const ImportNode& n, const ParsedInput& in) const {
    if (in.control || !IsMerge(n.op) || Mapped(in)) return false;
    return IsNextIteration(nodes_[index_.at(in.node)].op);
  }

  Status TopologicalOrder(std::vector<size_t>* order) {
    std::vector<int> pending(nodes_.size(), 0);
    std::vector<std::vector<size_t>> users(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      for (const ParsedInput& in : nodes_[i].inputs) {
        if (Mapped(in) || IsBackEdge(nodes_[i], in)) continue;
        size_t src = index_.at(in.node);
        users[src].push_back(i);
        pending[i]++;
      }
    }
    // Among the nodes that are ready, the earliest in the GraphDef goes first, so a GraphDef
    // already in dependency order (as Graft writes them) keeps its order exactly.
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (pending[i] == 0) ready.push(i);
    }
    while (!ready.empty()) {
      size_t i = ready.top();
      ready.pop();
      order->push_back(i);
      for (size_t u : users[i]) {
        if (--pending[u] == 0) ready.push(u);
      }
    }
    if (order->size() != nodes_.size()) {
      for (size_t i = 0; i < nodes_.size(); ++i) {
        if (pending[i] > 0) {
          return errors::InvalidArgument("the GraphDef has a cycle through node '", nodes_[i].name,
                                         "' that is not a loop (only NextIteration -> Merge edges may close one)");
        }
      }
    }
    return Status::Ok();
  }

  Status ImportLibrary(const Graftpb__GraphDef* gd) {
    if (gd->library == nullptr) return Status::Ok();
    for (size_t i = 0; i < gd->library->n_function; ++i) {
      const Graftpb__FunctionDef* f = gd->library->function[i];
      if (f->signature == nullptr || f->signature->name == nullptr || !*f->signature->name) {
        return errors::InvalidArgument("function ", i, " of the library has no name");
      }
      std::string bytes(graftpb__function_def__get_packed_size(f), '\0');
      graftpb__function_def__pack(f, reinterpret_cast<uint8_t*>(bytes.data()));
      GRAFT_RETURN_IF_ERROR(graph_->AddFunction(LibraryFunction{f->signature->name, std::move(bytes)}));
    }
    return Status::Ok();
  }

  Status CreateNodes(const std::vector<size_t>& order) {
    std::string scope = graph_->name_scope();
    for (size_t i : order) {
      ImportNode& n = nodes_[i];
      auto where = [&]() { return StrCat("node '", n.name, "' (", n.op, ")"); };
      NodeSpec spec;
      spec.type = n.op;
      spec.name = (scope.empty() ? n.name : scope + "/" + n.name) + "/";  // exact
      spec.flat_inputs = true;
      spec.inputs.resize(1);
      bool depends_on_import = false;
      for (const ParsedInput& in : n.inputs) {
        if (in.control) {
          auto m = options_.control_input_map.find(in.node);
          if (m != options_.control_input_map.end()) {
            spec.control_inputs.push_back(m->second);
          } else {
            spec.control_inputs.push_back(nodes_[index_.at(in.node)].created);
            depends_on_import = true;
          }
          continue;
        }
        auto m = options_.input_map.find(StrCat(in.node, ":", in.index));
        if (m != options_.input_map.end()) {
          spec.inputs[0].tensors.push_back(m->second);
          continue;
        }
        depends_on_import = true;
        const ImportNode& src = nodes_[index_.at(in.node)];
        if (IsBackEdge(n, in)) {
          // The producer comes later: give the dtype the NextIteration will have.
          DType t = DType::kInvalid;
          GRAFT_RETURN_IF_ERROR(BackEdgeType(src, &t).WithContext(where()));
          spec.pending_types[static_cast<int>(spec.inputs[0].tensors.size())] = t;
          spec.inputs[0].tensors.push_back(Output{nullptr, in.index});
          back_edges_.push_back({i, static_cast<int>(spec.inputs[0].tensors.size()) - 1, index_.at(in.node), in.index});
          continue;
        }
        if (in.index >= src.created->num_outputs()) {
          return errors::NotFound(where(), ": input '", in.text, "' refers to output ", in.index, " of '", src.name,
                                  "', which has ", src.created->num_outputs(), " output",
                                  src.created->num_outputs() == 1 ? "" : "s");
        }
        spec.inputs[0].tensors.push_back(Output{src.created, in.index});
      }
      spec.skip_control_contexts = depends_on_import;
      for (size_t k = 0; k < n.def->n_attr; ++k) {
        const Graftpb__NodeDef__AttrEntry* e = n.def->attr[k];
        std::string key = e->key ? e->key : "";
        AttrValue v;
        GRAFT_RETURN_IF_ERROR(AttrFromProto(e->value, &v).WithContext(StrCat(where(), ": attr '", key, "'")));
        spec.attrs[key] = std::move(v);
      }
      if (n.def->device && *n.def->device) spec.device = std::string(n.def->device);
      if (OpRegistry::Global().Find(n.op) == nullptr) {
        if (const LibraryFunction* f = graph_->FindFunction(n.op)) {
          Status s = RewriteAsLibraryCall(*f, &spec);
          if (!s.ok()) return Status(s.code(), StrCat("GraphDef ", where(), ": ", s.message()));
        }
      }
      Status s = graph_->AddNode(std::move(spec), &n.created);
      if (!s.ok()) return Status(s.code(), StrCat("GraphDef ", where(), ": ", s.message()));
    }
    return Status::Ok();
  }

  Status BackEdgeType(const ImportNode& next_iteration, DType* out) {
    for (size_t k = 0; k < next_iteration.def->n_attr; ++k) {
      const Graftpb__NodeDef__AttrEntry* e = next_iteration.def->attr[k];
      if (e->key && std::string_view(e->key) == "T" && e->value &&
          e->value->value_case == GRAFTPB__ATTR_VALUE__VALUE_TYPE) {
        DType t = static_cast<DType>(EnumValue(e->value->type));
        if (!IsValidDType(t)) break;
        *out = next_iteration.op == "RefNextIteration" ? RefDType(t) : t;
        return Status::Ok();
      }
    }
    return errors::InvalidArgument("its loop input '", next_iteration.name, "' has no type attr 'T'");
  }

  Status ConnectBackEdges() {
    for (const BackEdge& e : back_edges_) {
      Node* dst = nodes_[e.dst].created;
      Node* src = nodes_[e.src].created;
      if (e.src_index >= src->num_outputs()) {
        return errors::NotFound("node '", nodes_[e.dst].name, "': input refers to output ", e.src_index, " of '",
                                nodes_[e.src].name, "', which does not exist");
      }
      GRAFT_RETURN_IF_ERROR(graph_->ResolvePending(dst, e.dst_input, Output{src, e.src_index}));
    }
    return Status::Ok();
  }

  Status ReturnElements(ImportResult* result) {
    if (result == nullptr) return Status::Ok();
    for (const std::string& name : options_.return_elements) {
      ImportResult::Element el;
      size_t colon = name.rfind(':');
      std::string node_name = colon == std::string::npos ? name : name.substr(0, colon);
      auto it = index_.find(node_name);
      if (it == index_.end()) {
        return errors::NotFound("return element '", name, "' names node '", node_name, "', which is not in the GraphDef");
      }
      Node* node = nodes_[it->second].created;
      if (colon == std::string::npos) {
        el.op = node;
      } else {
        ParsedInput in;
        GRAFT_RETURN_IF_ERROR(ParseInput(name, &in).WithContext("return element"));
        if (in.index >= node->num_outputs()) {
          return errors::NotFound("return element '", name, "': node '", node_name, "' has ", node->num_outputs(),
                                  " outputs");
        }
        el.tensor = Output{node, in.index};
      }
      result->elements.push_back(el);
    }
    return Status::Ok();
  }

  struct BackEdge {
    size_t dst;
    int dst_input;
    size_t src;
    int src_index;
  };

  Graph* graph_;
  const ImportOptions& options_;
  std::vector<ImportNode> nodes_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<BackEdge> back_edges_;
};

}  // namespace

Status ExportGraphDef(const Graph& graph, const ExportOptions& options, std::string* out) {
  ProtoArena arena;
  Graftpb__GraphDef gd;
  graftpb__graph_def__init(&gd);
  int64_t n = graph.num_nodes();
  std::vector<Graftpb__NodeDef*> nodes;
  for (int64_t i = 0; i < n; ++i) {
    const Node* node = graph.NodeAt(i);
    if (options.from_version >= 0 && node->id() <= options.from_version) continue;
    Graftpb__NodeDef* p = nullptr;
    GRAFT_RETURN_IF_ERROR(NodeToProto(*node, options.add_shapes, arena, &p));
    nodes.push_back(p);
  }
  gd.n_node = nodes.size();
  gd.node = nodes.data();

  Graftpb__VersionDef versions;
  graftpb__version_def__init(&versions);
  const GraphDefVersions& v = graph.versions();
  versions.producer = v.producer;
  versions.min_consumer = v.min_consumer;
  std::vector<int32_t> bad = v.bad_consumers;
  versions.n_bad_consumers = bad.size();
  versions.bad_consumers = bad.data();
  gd.versions = &versions;

  // The library: functions as they were stored, re-read for packing.
  std::vector<Graftpb__FunctionDef*> functions;
  struct Freer {
    void operator()(Graftpb__FunctionDef* f) const { graftpb__function_def__free_unpacked(f, nullptr); }
  };
  std::vector<std::unique_ptr<Graftpb__FunctionDef, Freer>> owned;
  Graftpb__FunctionDefLibrary library;
  graftpb__function_def_library__init(&library);
  for (const LibraryFunction& f : graph.functions()) {
    Graftpb__FunctionDef* parsed = graftpb__function_def__unpack(
        nullptr, f.function_def.size(), reinterpret_cast<const uint8_t*>(f.function_def.data()));
    if (parsed == nullptr) return errors::Internal("function '", f.name, "' of the library cannot be read back");
    owned.emplace_back(parsed);
    functions.push_back(parsed);
  }
  if (!functions.empty()) {
    library.n_function = functions.size();
    library.function = functions.data();
    gd.library = &library;
  }

  out->resize(graftpb__graph_def__get_packed_size(&gd));
  graftpb__graph_def__pack(&gd, reinterpret_cast<uint8_t*>(out->data()));
  return Status::Ok();
}

Status ImportGraphDef(Graph* graph, const void* data, size_t len, const ImportOptions& options, ImportResult* result) {
  if (data == nullptr && len > 0) return errors::InvalidArgument("GraphDef data is NULL");
  GRAFT_RETURN_IF_ERROR(
      CheckProtoDepth(&graftpb__graph_def__descriptor, static_cast<const uint8_t*>(data), len, "the GraphDef"));
  struct Freer {
    void operator()(Graftpb__GraphDef* g) const { graftpb__graph_def__free_unpacked(g, nullptr); }
  };
  std::unique_ptr<Graftpb__GraphDef, Freer> gd(
      graftpb__graph_def__unpack(nullptr, len, static_cast<const uint8_t*>(data)));
  if (!gd) return errors::DataLoss("the GraphDef bytes (", len, ") do not parse: truncated or corrupt");
  return ImportGraphDefMessage(graph, gd.get(), options, result);
}

Status ImportGraphDefMessage(Graph* graph, const Graftpb__GraphDef* gd, const ImportOptions& options,
                             ImportResult* result) {
  if (graph->finalized()) return errors::FailedPrecondition("the graph is finalized and cannot be modified");

  Graph::MarkState mark = graph->Mark();
  Importer importer(graph, options);
  ImportResult local;
  Status s = importer.Run(gd, &local);
  if (!s.ok()) {
    graph->RollbackTo(mark);
    return s;
  }
  if (result) *result = std::move(local);
  return Status::Ok();
}

}  // namespace graft
