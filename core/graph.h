// Graph: a dataflow graph of Nodes (operations) with TensorFlow's construction semantics —
// scoped unique names, control-dependency, device, colocation, container and gradient-override
// contexts, collections, feed/fetch restrictions, finalize, versions and random seeds.
//
// Threading: build a graph from one thread. Lookups (FindNode, FindTensor, NodeAt, ...) may run
// from many threads at once, also while another thread adds nodes. Nodes are never removed,
// and a Node* stays valid as long as the graph.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/attr_value.h"
#include "core/device_spec.h"
#include "core/function_library.h"
#include "core/node_signature.h"
#include "core/op_registry.h"

namespace graft {

class Graph;
class Node;

// A tensor endpoint: output `index` of `node`.
struct Output {
  Node* node = nullptr;
  int index = 0;
  bool operator==(const Output&) const = default;
};

// A use of a tensor: input `index` of `node`.
struct InputUse {
  Node* node = nullptr;
  int index = 0;
};

class Node {
 public:
  int64_t id() const { return id_; }  // 1, 2, ... in creation order
  const std::string& name() const { return name_; }
  const std::string& type() const { return reg_->def.name; }
  const OpDef& def() const { return reg_->def; }
  Graph* graph() const { return graph_; }
  const std::string& device() const { return device_; }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const Output& input(int i) const { return inputs_[static_cast<size_t>(i)]; }
  const std::vector<Output>& inputs() const { return inputs_; }
  DType input_type(int i) const { return input_types_[static_cast<size_t>(i)]; }
  const std::vector<Node*>& control_inputs() const { return control_inputs_; }
  const std::vector<Node*>& control_outputs() const { return control_outputs_; }

  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DType output_type(int i) const { return output_types_[static_cast<size_t>(i)]; }
  const PartialShape& output_shape(int i) const { return output_shapes_[static_cast<size_t>(i)]; }
  const std::vector<InputUse>& consumers(int output) const { return consumers_[static_cast<size_t>(output)]; }

  const AttrMap& attrs() const { return attrs_; }
  const AttrValue* attr(std::string_view name) const;
  // "loc:@name" groups from the _class attr, or this op's own group.
  std::vector<std::string> colocation_groups() const;

 private:
  friend class Graph;
  Node() = default;
  Graph* graph_ = nullptr;
  const OpRegistration* reg_ = nullptr;
  int64_t id_ = 0;
  std::string name_;
  std::string device_;
  std::vector<Output> inputs_;
  std::vector<DType> input_types_;
  std::vector<Node*> control_inputs_;
  std::vector<Node*> control_outputs_;
  std::vector<DType> output_types_;
  std::vector<PartialShape> output_shapes_;
  std::vector<std::vector<InputUse>> consumers_;
  AttrMap attrs_;
};

// What to create: the op type, a name, inputs by argument, control inputs, attrs, a device.
struct NodeSpec {
  struct InputArg {
    std::vector<Output> tensors;
    bool is_list = false;
  };
  std::string type;
  // Empty: the op type. Ending in '/': used exactly (less the '/'), as TensorFlow does for
  // names taken from a name scope. Otherwise made unique under the current name scope.
  std::string name;
  std::vector<InputArg> inputs;
  std::vector<Node*> control_inputs;
  AttrMap attrs;
  std::optional<std::string> device;  // unset: from the device scopes

  // For GraphDef import: all inputs flat in inputs[0] (the attrs split them into arguments).
  bool flat_inputs = false;
  // For GraphDef import: inputs whose producer comes later (a loop's back edge) are given as
  // Output{nullptr, i} with their dtype here, keyed by flat input index; Graph::ResolvePending
  // connects them.
  std::map<int, DType> pending_types;
  // Do not add the control dependencies of the graph's contexts (for imported nodes that
  // already depend on other imported nodes).
  bool skip_control_contexts = false;
  // Run the installed node validators (core/node_validator.h; the library's refuses an op
  // whose kernels, on any device, all refuse its dtypes, naming the op and the dtype): for
  // ops built through the API, not for imported GraphDefs (TensorFlow imports them and fails
  // when a run needs the op).
  bool check_kernels = false;
};

// The GraphDef versions a graph carries (TensorFlow's VersionDef).
struct GraphDefVersions {
  int32_t producer = 0;
  int32_t min_consumer = 0;
  std::vector<int32_t> bad_consumers;
};

// Collections hold ops, tensors, strings, or host values (an id chosen by the host, with an
// optional name used by scope filters).
struct CollectionItem {
  enum class Kind { kOp, kTensor, kString, kValue };
  Kind kind = Kind::kOp;
  Node* op = nullptr;
  Output tensor;
  std::string str;  // kString: the string; kValue: the value's name ("" for none)
  uint64_t value = 0;
  // The name that scope filters match, or nullopt for items without one.
  std::optional<std::string> name() const;
};

using DeviceFunction = std::function<std::optional<std::string>(const Node&)>;

class Graph : public std::enable_shared_from_this<Graph> {
 public:
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Creates a node; on failure the graph is unchanged. Errors name the op and the problem.
  Status AddNode(NodeSpec spec, Node** out);

  // Lookups (thread-safe).
  Node* FindNode(std::string_view name) const;
  // "op:1", or "op" for "op:0". kNotFound / kInvalidArgument naming what is wrong.
  Status FindTensor(std::string_view name, Output* out) const;
  int64_t num_nodes() const;
  Node* NodeAt(int64_t index) const;  // creation order; nullptr when out of range
  static std::string TensorName(const Output& t);

  // Names.
  std::string UniqueName(std::string_view name, bool mark_as_used);
  // Enters a name scope (TensorFlow's rules: unique under the current scope; a name ending in
  // '/' re-enters that absolute scope; empty returns to the top) and returns the scope string
  // as TensorFlow's `with name_scope(...) as scope` gives it ("nested/" or "").
  Status PushNameScope(std::string_view name, std::string* scope);
  Status PopNameScope();
  const std::string& name_scope() const { return name_stack_; }

  // Control dependencies: a context adds its ops to every op created inside it; the
  // "none" context hides the outer ones.
  Status PushControlDependencies(std::vector<Node*> ops);
  void PushNoControlDependencies();
  Status PopControlDependencies();

  // Device scopes: a spec string ("" or none for "no device"), or a function of the op.
  Status PushDevice(std::optional<std::string_view> spec);
  void PushDeviceFunction(DeviceFunction fn);
  Status PopDevice();

  Status PushColocation(Node* op, bool ignore_existing);
  Status PopColocation();

  void PushContainer(std::string name);
  Status PopContainer();
  const std::string& container() const;

  // Maps op types to gradient names for ops created inside (sets their _gradient_op_type).
  void PushGradientOverrideMap(std::map<std::string, std::string> map);
  Status PopGradientOverrideMap();

  // Collections.
  void AddToCollection(const std::string& key, CollectionItem item);
  void AddToCollections(const std::vector<std::string>& keys, const CollectionItem& item);
  // A copy, filtered to items whose name matches scope at its start (a regular expression,
  // as Python's re.match) when scope is given.
  Status GetCollection(const std::string& key, const std::optional<std::string>& scope,
                       std::vector<CollectionItem>* out) const;
  // The live list, created empty when missing.
  std::vector<CollectionItem>& CollectionRef(const std::string& key);
  std::vector<std::string> CollectionKeys() const;

  void PreventFeeding(const Output& t) {
    unfeedable_.insert(TensorName(t));
    ++restrictions_version_;
  }
  void PreventFetching(const Node* op) {
    unfetchable_.insert(op->name());
    ++restrictions_version_;
  }
  // Grows whenever feeding or fetching is restricted (prepared runs check it).
  int64_t restrictions_version() const { return restrictions_version_; }
  bool IsFeedable(const Output& t) const { return unfeedable_.count(TensorName(t)) == 0; }
  bool IsFetchable(const Node* op) const { return unfetchable_.count(op->name()) == 0; }

  // Closes a TensorFlow 1 loop: input input_index of a Merge op now comes from producer, a
  // NextIteration op (created after the Merge). The only edge change a graph allows, so every
  // other cycle stays impossible.
  Status UpdateMergeInput(Node* merge, int input_index, const Output& producer);

  // Connects a pending input (see NodeSpec::pending_types) to its producer.
  Status ResolvePending(Node* node, int input_index, const Output& producer);

  // A point to roll the graph back to: everything added after Mark() is removed by
  // RollbackTo() (used to make GraphDef import all or nothing).
  struct MarkState {
    size_t num_nodes = 0;
    int64_t next_id = 1;
    std::unordered_map<std::string, int64_t> names_in_use;
    FunctionLibrary library;
    std::optional<GraphDefVersions> versions;
  };
  MarkState Mark() const;
  void RollbackTo(const MarkState& mark);

  // GraphDef versions and the function library.
  const GraphDefVersions& versions() const { return versions_; }
  void set_versions(GraphDefVersions v) { versions_ = std::move(v); }
  // The functions in the order added (for the thread building the graph).
  const FunctionLibrary& functions() const { return library_; }
  // A snapshot of the library, O(1) (thread-safe): what function bodies instantiated from
  // this graph share.
  FunctionLibrary library() const;
  // Makes `library` the graph's library (a function body's graph shares its caller's).
  void SetLibrary(FunctionLibrary library);
  // Adds a function; an identical one of the same name is accepted once, a different one is
  // kAlreadyExists. O(1) amortized.
  Status AddFunction(LibraryFunction f);
  // O(1); nullptr when there is none. Valid until the library changes.
  const LibraryFunction* FindFunction(std::string_view name) const;

  // Library functions Graft derives from others (a call's gradient function), kept by key so
  // that each is built once per graph. `outputs_for` says which of the original's arguments
  // each result stands for; an empty name means nothing was derived. Lookups skip an entry
  // whose function a rollback removed.
  struct DerivedFunction {
    std::string name;
    int num_inputs = 0;  // the inputs of the function derived from
    std::vector<int> outputs_for;
    std::vector<DType> result_types;
    bool stateful = false;
  };
  const DerivedFunction* FindDerivedFunction(const std::string& key) const;
  void AddDerivedFunction(const std::string& key, DerivedFunction f);

  // Merges shape into the tensor's shape; kShape if incompatible (the shape is unchanged).
  Status SetShape(const Output& t, const PartialShape& shape);

  void Finalize() { finalized_ = true; }
  bool finalized() const { return finalized_; }
  int64_t version() const { return next_id_ - 1; }

  // The object of the layer above that stands for this graph (the C API's handle), made by
  // `make` on first use and owned by the graph, so that it lives exactly as long as the graph
  // and one graph has one. Thread-safe.
  void* Attachment(const std::function<std::shared_ptr<void>()>& make);

  void SetSeed(std::optional<int64_t> seed) { seed_ = seed; }
  std::optional<int64_t> seed() const { return seed_; }
  // The (graph, op) seeds an op should use, as TensorFlow's get_seed.
  void GetSeed(std::optional<int64_t> op_seed, std::optional<int64_t>* seed1, std::optional<int64_t>* seed2) const;

 private:
  struct DeviceScope {
    enum class Kind { kNone, kSpec, kFunction } kind = Kind::kNone;
    DeviceSpec spec;
    DeviceFunction fn;
  };
  struct ControlScope {
    bool none = false;
    std::vector<Node*> ops;
  };
  struct ColocationScope {
    Node* op;
    bool ignore_existing;
  };

  Status CheckOwned(const Node* node, std::string_view what) const;
  std::optional<Tensor> KnownValue(const Output& t) const;
  void ApplyDeviceScopes(Node& node) const;

  mutable std::shared_mutex mu_;  // guards nodes_ and by_name_ for concurrent lookups
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, Node*> by_name_;
  std::unordered_map<std::string, int64_t> names_in_use_;  // lowercased, as TensorFlow
  int64_t next_id_ = 1;

  std::string name_stack_;
  std::vector<std::string> name_stack_history_;
  std::vector<ControlScope> control_scopes_;
  std::vector<DeviceScope> device_scopes_;
  std::vector<ColocationScope> colocation_scopes_;
  std::vector<std::string> containers_;
  std::vector<std::map<std::string, std::string>> gradient_overrides_;

  std::map<std::string, std::vector<CollectionItem>> collections_;
  std::unordered_set<std::string> unfeedable_;
  std::unordered_set<std::string> unfetchable_;
  bool finalized_ = false;
  int64_t restrictions_version_ = 0;
  std::optional<int64_t> seed_;
  GraphDefVersions versions_;
  mutable std::mutex library_mu_;  // guards library_ (the object) for library() from other threads
  FunctionLibrary library_;
  std::map<std::string, DerivedFunction> derived_;  // for the thread building the graph
  std::mutex attachment_mu_;
  std::shared_ptr<void> attachment_;  // last member: destroyed first
};

// The GraphDef producer version Graft writes: the TensorFlow graph semantics it implements.
inline constexpr int32_t kGraftGraphDefProducer = 1882;

}  // namespace graft
