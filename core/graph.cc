#include "core/graph.h"

#include <algorithm>
#include <cctype>
#include <mutex>

#include <re2/re2.h>

#include "core/node_validator.h"
#include "core/regex.h"
#include "core/shape_inference.h"

namespace graft {
namespace {

std::string Lower(std::string_view s) {
  std::string l(s);
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l;
}

// Scope names below the root may also start with '_', '-' or '/'.
bool IsValidScopeName(std::string_view name) {
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '/')) return false;
  }
  return true;
}

constexpr int64_t kDefaultGraphSeed = 87654321;
constexpr int64_t kMaxInt32 = 2147483647;

}  // namespace

const AttrValue* Node::attr(std::string_view name) const {
  auto it = attrs_.find(std::string(name));
  return it == attrs_.end() ? nullptr : &it->second;
}

std::vector<std::string> Node::colocation_groups() const {
  if (const AttrValue* cls = attr("_class")) {
    if (const auto* list = cls->get<std::vector<std::string>>()) {
      std::vector<std::string> groups;
      for (const std::string& s : *list) {
        if (s.rfind("loc:@", 0) == 0) groups.push_back(s);
      }
      if (!groups.empty()) return groups;
    }
  }
  return {"loc:@" + name_};
}

std::optional<std::string> CollectionItem::name() const {
  switch (kind) {
    case Kind::kOp: return op->name();
    case Kind::kTensor: return Graph::TensorName(tensor);
    case Kind::kValue:
      if (str.empty()) return std::nullopt;
      return str;
    case Kind::kString: return std::nullopt;
  }
  return std::nullopt;
}

Graph::Graph() { versions_.producer = kGraftGraphDefProducer; }
Graph::~Graph() = default;

std::string Graph::TensorName(const Output& t) { return StrCat(t.node->name(), ":", t.index); }

Status Graph::CheckOwned(const Node* node, std::string_view what) const {
  if (node == nullptr) return errors::InvalidArgument(what, " is null");
  if (node->graph_ != this) return errors::InvalidArgument(what, " (op '", node->name(), "') is from another graph");
  return Status::Ok();
}

std::string Graph::UniqueName(std::string_view name_in, bool mark_as_used) {
  std::string name = name_stack_.empty() ? std::string(name_in) : name_stack_ + "/" + std::string(name_in);
  // Names are unique ignoring case, as in TensorFlow.
  std::string key = Lower(name);
  int64_t i = 0;
  if (auto it = names_in_use_.find(key); it != names_in_use_.end()) i = it->second;
  if (mark_as_used) names_in_use_[key] = i + 1;
  if (i > 0) {
    std::string base_key = key;
    while (names_in_use_.count(key) != 0) {
      key = StrCat(base_key, "_", i);
      ++i;
    }
    if (mark_as_used) names_in_use_[key] = 1;
    name = StrCat(name, "_", i - 1);
  }
  return name;
}

Status Graph::PushNameScope(std::string_view name, std::string* scope) {
  if (!name.empty()) {
    bool valid = name_stack_.empty() ? IsValidOpName(name) : IsValidScopeName(name);
    if (!valid) {
      return errors::InvalidArgument("'", name, "' is not a valid scope name (", name_stack_.empty() ? "at the root, " : "",
                                     "names match ", name_stack_.empty() ? "[A-Za-z0-9.][A-Za-z0-9_.\\-/]*" : "[A-Za-z0-9_.\\-/]*", ")");
    }
  }
  std::string new_stack, returned;
  if (name.empty()) {
    new_stack.clear();
    returned.clear();
  } else if (name.back() == '/') {
    new_stack = std::string(name.substr(0, name.size() - 1));
    returned = std::string(name);
  } else {
    new_stack = UniqueName(name, true);
    returned = new_stack + "/";
  }
  name_stack_history_.push_back(name_stack_);
  name_stack_ = std::move(new_stack);
  if (scope) *scope = std::move(returned);
  return Status::Ok();
}

Status Graph::PopNameScope() {
  if (name_stack_history_.empty()) return errors::FailedPrecondition("no name scope to leave");
  name_stack_ = name_stack_history_.back();
  name_stack_history_.pop_back();
  return Status::Ok();
}

Status Graph::PushControlDependencies(std::vector<Node*> ops) {
  for (Node* op : ops) GRAFT_RETURN_IF_ERROR(CheckOwned(op, "a control dependency"));
  control_scopes_.push_back(ControlScope{false, std::move(ops)});
  return Status::Ok();
}

void Graph::PushNoControlDependencies() { control_scopes_.push_back(ControlScope{true, {}}); }

Status Graph::PopControlDependencies() {
  if (control_scopes_.empty()) return errors::FailedPrecondition("no control dependencies scope to leave");
  control_scopes_.pop_back();
  return Status::Ok();
}

Status Graph::PushDevice(std::optional<std::string_view> spec) {
  DeviceScope scope;
  if (spec && !spec->empty()) {
    GRAFT_RETURN_IF_ERROR(DeviceSpec::Parse(*spec, &scope.spec));
    scope.kind = DeviceScope::Kind::kSpec;
  }
  device_scopes_.push_back(std::move(scope));
  return Status::Ok();
}

void Graph::PushDeviceFunction(DeviceFunction fn) {
  DeviceScope scope;
  scope.kind = DeviceScope::Kind::kFunction;
  scope.fn = std::move(fn);
  device_scopes_.push_back(std::move(scope));
}

Status Graph::PopDevice() {
  if (device_scopes_.empty()) return errors::FailedPrecondition("no device scope to leave");
  device_scopes_.pop_back();
  return Status::Ok();
}

Status Graph::PushColocation(Node* op, bool ignore_existing) {
  GRAFT_RETURN_IF_ERROR(CheckOwned(op, "the op to colocate with"));
  colocation_scopes_.push_back(ColocationScope{op, ignore_existing});
  return Status::Ok();
}

Status Graph::PopColocation() {
  if (colocation_scopes_.empty()) return errors::FailedPrecondition("no colocation scope to leave");
  colocation_scopes_.pop_back();
  return Status::Ok();
}

void Graph::PushContainer(std::string name) { containers_.push_back(std::move(name)); }

Status Graph::PopContainer() {
  if (containers_.empty()) return errors::FailedPrecondition("no container scope to leave");
  containers_.pop_back();
  return Status::Ok();
}

const std::string& Graph::container() const {
  static const std::string kDefault;
  return containers_.empty() ? kDefault : containers_.back();
}

void Graph::PushGradientOverrideMap(std::map<std::string, std::string> map) {
  gradient_overrides_.push_back(std::move(map));
}

Status Graph::PopGradientOverrideMap() {
  if (gradient_overrides_.empty()) return errors::FailedPrecondition("no gradient override map to leave");
  gradient_overrides_.pop_back();
  return Status::Ok();
}

void Graph::ApplyDeviceScopes(Node& node) const {
  // Innermost scope first; a spec fills in only what the op's device does not say yet, so
  // inner scopes win; a "no device" scope hides the outer ones. A device function sees the
  // op with the device chosen so far and decides the device outright.
  for (auto it = device_scopes_.rbegin(); it != device_scopes_.rend(); ++it) {
    if (it->kind == DeviceScope::Kind::kNone) break;
    if (it->kind == DeviceScope::Kind::kFunction) {
      node.device_ = it->fn(node).value_or("");
      DeviceSpec canonical;
      if (DeviceSpec::Parse(node.device_, &canonical).ok()) node.device_ = canonical.ToString();
      continue;
    }
    DeviceSpec merged = it->spec;
    DeviceSpec current;
    if (DeviceSpec::Parse(node.device_, &current).ok()) merged.MergeFrom(current);
    node.device_ = merged.ToString();
  }
}

std::optional<Tensor> Graph::KnownValue(const Output& t) const {
  const Node* n = t.node;
  if (n->type() == "Const") {
    if (const AttrValue* v = n->attr("value")) {
      if (const Tensor* value = v->get<Tensor>()) return *value;
    }
    return std::nullopt;
  }
  // The shape of a tensor whose shape is known while building.
  if ((n->type() == "Shape" || n->type() == "Size" || n->type() == "Rank") && n->num_inputs() == 1) {
    const PartialShape& s = n->input(0).node->output_shape(n->input(0).index);
    DType out = n->output_type(0);
    if (out != DType::kInt32 && out != DType::kInt64) return std::nullopt;
    std::vector<int64_t> values;
    std::vector<int64_t> dims;
    if (n->type() == "Shape") {
      if (!s.IsFullyDefined()) return std::nullopt;
      values = s.dims();
      dims = {static_cast<int64_t>(values.size())};
    } else if (n->type() == "Size") {
      int64_t count = 0;
      if (!s.NumElements(&count).ok() || count < 0) return std::nullopt;
      values = {count};
    } else {
      if (!s.known_rank()) return std::nullopt;
      values = {s.rank()};
    }
    Tensor v;
    if (!Tensor::Allocate(out, dims, &v).ok()) return std::nullopt;
    for (size_t i = 0; i < values.size(); ++i) {
      if (out == DType::kInt32) v.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
      else v.data<int64_t>()[i] = values[i];
    }
    return v;
  }
  return std::nullopt;
}

Status Graph::AddNode(NodeSpec spec, Node** out) {
  if (finalized_) {
    return errors::FailedPrecondition("the graph is finalized and cannot be modified (creating ",
                                      spec.type, " op '", spec.name, "')");
  }
  const OpRegistration* reg = OpRegistry::Global().Find(spec.type);
  if (reg == nullptr) {
    return errors::NotFound("op type '", spec.type, "' is not registered (creating op '",
                            spec.name.empty() ? spec.type : spec.name,
                            "'): if an op library defines it, load that library first (graft_library_load)");
  }

  // The name: exact when it ends in '/', otherwise unique under the scope. Marked used only
  // once the op exists.
  std::string name;
  bool exact = !spec.name.empty() && spec.name.back() == '/';
  if (exact) {
    name = spec.name.substr(0, spec.name.size() - 1);
  } else {
    name = UniqueName(spec.name.empty() ? spec.type : spec.name, /*mark_as_used=*/false);
  }
  if (!IsValidOpName(name)) {
    return errors::InvalidArgument(spec.type, " op name '", name,
                                   "' is not valid (names match [A-Za-z0-9.][A-Za-z0-9_.\\-/]*)");
  }
  if (FindNode(name) != nullptr) {
    return errors::AlreadyExists(spec.type, " op '", name, "': an op of that name already exists");
  }
  auto where = [&]() { return StrCat(spec.type, " op '", name, "'"); };

  // Inputs.
  std::vector<InputGroup> groups;
  std::vector<ShapeFnInput> shape_inputs;
  std::vector<std::optional<Tensor>> values;
  std::vector<Output> flat_inputs;
  std::vector<DType> flat_types;
  for (size_t a = 0; a < spec.inputs.size(); ++a) {
    InputGroup g;
    g.is_list = spec.inputs[a].is_list;
    for (const Output& t : spec.inputs[a].tensors) {
      int flat = static_cast<int>(flat_inputs.size());
      std::string what = StrCat(where(), ": input ", flat);
      if (t.node == nullptr && spec.pending_types.count(flat) != 0) {
        g.types.push_back(spec.pending_types.at(flat));
      } else {
        GRAFT_RETURN_IF_ERROR(CheckOwned(t.node, what));
        if (t.index < 0 || t.index >= t.node->num_outputs()) {
          return errors::InvalidArgument(what, ": op '", t.node->name(), "' has no output ", t.index);
        }
        g.types.push_back(t.node->output_type(t.index));
      }
      flat_types.push_back(g.types.back());
      flat_inputs.push_back(t);
    }
    groups.push_back(std::move(g));
  }
  for (Node* c : spec.control_inputs) GRAFT_RETURN_IF_ERROR(CheckOwned(c, StrCat(where(), ": a control input")));

  // Attrs the graph's contexts add.
  AttrMap attrs = std::move(spec.attrs);
  if (!colocation_scopes_.empty()) {
    std::vector<std::string> groups_loc;
    size_t first = 0;
    for (size_t i = 0; i < colocation_scopes_.size(); ++i) {
      if (colocation_scopes_[i].ignore_existing) first = i;
    }
    for (size_t i = first; i < colocation_scopes_.size(); ++i) {
      for (std::string& gname : colocation_scopes_[i].op->colocation_groups()) groups_loc.push_back(std::move(gname));
    }
    std::sort(groups_loc.begin(), groups_loc.end());
    groups_loc.erase(std::unique(groups_loc.begin(), groups_loc.end()), groups_loc.end());
    attrs["_class"] = AttrValue::StringList(std::move(groups_loc));
  }
  if (reg->def.is_stateful && !container().empty() && reg->def.FindAttr("container") != nullptr) {
    auto it = attrs.find("container");
    const std::string* given = it == attrs.end() ? nullptr : it->second.get<std::string>();
    if (given == nullptr || given->empty()) attrs["container"] = AttrValue::String(container());
  }
  for (auto it = gradient_overrides_.rbegin(); it != gradient_overrides_.rend(); ++it) {
    auto found = it->find(spec.type);
    if (found != it->end()) {
      attrs["_gradient_op_type"] = AttrValue::String(found->second);
      break;
    }
  }

  NodeSignature sig;
  if (spec.flat_inputs) {
    GRAFT_RETURN_IF_ERROR(ResolveNodeSignatureFlat(reg->def, name, flat_types, &attrs, &sig));
  } else {
    GRAFT_RETURN_IF_ERROR(ResolveNodeSignature(reg->def, name, groups, &attrs, &sig));
  }
  if (spec.check_kernels) GRAFT_RETURN_IF_ERROR(NodeValidatorRegistry::Global().Validate(spec.type, name, attrs));
  for (const Output& t : flat_inputs) {
    values.push_back(t.node ? KnownValue(t) : std::nullopt);
  }
  for (size_t i = 0; i < flat_inputs.size(); ++i) {
    const Output& t = flat_inputs[i];
    PartialShape shape = t.node ? t.node->output_shape(t.index) : PartialShape::Unknown();
    shape_inputs.push_back(ShapeFnInput{std::move(shape), values[i] ? &*values[i] : nullptr});
  }
  std::vector<PartialShape> shapes;
  GRAFT_RETURN_IF_ERROR(RunShapeFn(*reg, name, attrs, sig, shape_inputs, &shapes));

  // Control inputs: the union of the active contexts (up to a "none" context) and the given
  // ones, without ops that already feed a data input.
  std::vector<Node*> control;
  auto add_control = [&](Node* c) {
    for (const Output& t : flat_inputs) {
      if (t.node == c) return;
    }
    if (std::find(control.begin(), control.end(), c) == control.end()) control.push_back(c);
  };
  for (Node* c : spec.control_inputs) add_control(c);
  size_t first_scope = spec.skip_control_contexts ? control_scopes_.size() : 0;
  for (size_t i = 0; i < control_scopes_.size(); ++i) {
    if (control_scopes_[i].none) first_scope = std::max(first_scope, i + 1);
  }
  for (size_t i = first_scope; i < control_scopes_.size(); ++i) {
    for (Node* c : control_scopes_[i].ops) add_control(c);
  }

  auto node = std::unique_ptr<Node>(new Node());
  node->graph_ = this;
  node->reg_ = reg;
  node->name_ = name;
  node->inputs_ = std::move(flat_inputs);
  node->input_types_ = std::move(sig.input_types);
  node->control_inputs_ = std::move(control);
  node->output_types_ = std::move(sig.output_types);
  node->output_shapes_ = std::move(shapes);
  node->consumers_.resize(node->output_types_.size());
  node->attrs_ = std::move(attrs);
  if (spec.device) {
    DeviceSpec parsed;
    if (!spec.device->empty()) GRAFT_RETURN_IF_ERROR(DeviceSpec::Parse(*spec.device, &parsed).WithContext(where()));
    node->device_ = parsed.ToString();
  } else if (!colocation_scopes_.empty() && !colocation_scopes_.back().op->device().empty()) {
    // A colocated op goes where the op it is colocated with goes.
    node->device_ = colocation_scopes_.back().op->device();
  } else {
    ApplyDeviceScopes(*node);
  }

  // Publish: nothing below can fail.
  Node* raw = node.get();
  {
    std::unique_lock lock(mu_);
    raw->id_ = next_id_++;
    nodes_.push_back(std::move(node));
    by_name_.emplace(raw->name_, raw);
  }
  if (exact) {
    int64_t& used = names_in_use_[Lower(name)];
    used = std::max<int64_t>(used, 1);
  } else {
    std::string marked = UniqueName(spec.name.empty() ? spec.type : spec.name, /*mark_as_used=*/true);
    (void)marked;  // equals name: nothing was marked between the two calls
  }
  for (int i = 0; i < raw->num_inputs(); ++i) {
    const Output& t = raw->inputs_[static_cast<size_t>(i)];
    if (t.node != nullptr) t.node->consumers_[static_cast<size_t>(t.index)].push_back(InputUse{raw, i});
  }
  for (Node* c : raw->control_inputs_) c->control_outputs_.push_back(raw);
  *out = raw;
  return Status::Ok();
}

Status Graph::ResolvePending(Node* node, int input_index, const Output& producer) {
  GRAFT_RETURN_IF_ERROR(CheckOwned(node, "the op"));
  GRAFT_RETURN_IF_ERROR(CheckOwned(producer.node, "the producer"));
  if (input_index < 0 || input_index >= node->num_inputs() || node->inputs_[static_cast<size_t>(input_index)].node) {
    return errors::Internal("input ", input_index, " of op '", node->name(), "' is not pending");
  }
  if (producer.index < 0 || producer.index >= producer.node->num_outputs()) {
    return errors::InvalidArgument("op '", producer.node->name(), "' has no output ", producer.index);
  }
  DType want = node->input_type(input_index);
  DType have = producer.node->output_type(producer.index);
  if (BaseDType(have) != BaseDType(want) || (IsRefDType(want) && !IsRefDType(have))) {
    return errors::DTypeError(node->type(), " op '", node->name(), "': input ", input_index, " from '",
                              TensorName(producer), "' has dtype ", DTypeName(have), ", expected ", DTypeName(want));
  }
  node->inputs_[static_cast<size_t>(input_index)] = producer;
  producer.node->consumers_[static_cast<size_t>(producer.index)].push_back(InputUse{node, input_index});
  return Status::Ok();
}

Status Graph::UpdateMergeInput(Node* merge, int input_index, const Output& producer) {
  GRAFT_RETURN_IF_ERROR(CheckOwned(merge, "the Merge op"));
  GRAFT_RETURN_IF_ERROR(CheckOwned(producer.node, "the new input"));
  if (finalized_) return errors::FailedPrecondition("the graph is finalized and cannot be modified");
  if (merge->type() != "Merge" && merge->type() != "RefMerge") {
    return errors::InvalidArgument("op '", merge->name(), "' is a ", merge->type(),
                                   "; only a Merge's input can be updated (to close a loop)");
  }
  if (producer.node->type() != "NextIteration" && producer.node->type() != "RefNextIteration") {
    return errors::InvalidArgument("the new input of Merge op '", merge->name(), "' must come from a NextIteration op, not ",
                                   producer.node->type(), " op '", producer.node->name(), "'");
  }
  if (input_index < 0 || input_index >= merge->num_inputs()) {
    return errors::OutOfRange("Merge op '", merge->name(), "' has no input ", input_index);
  }
  if (producer.index != 0) return errors::InvalidArgument("NextIteration ops have one output");
  DType want = merge->input_type(input_index), have = producer.node->output_type(0);
  if (BaseDType(want) != BaseDType(have)) {
    return errors::DTypeError("Merge op '", merge->name(), "': input ", input_index, " is ", DTypeName(want),
                              ", but '", producer.node->name(), "' gives ", DTypeName(have));
  }
  Output& slot = merge->inputs_[static_cast<size_t>(input_index)];
  if (slot.node != nullptr) {
    auto& uses = slot.node->consumers_[static_cast<size_t>(slot.index)];
    for (auto it = uses.begin(); it != uses.end(); ++it) {
      if (it->node == merge && it->index == input_index) {
        uses.erase(it);
        break;
      }
    }
  }
  slot = producer;
  producer.node->consumers_[0].push_back(InputUse{merge, input_index});
  return Status::Ok();
}

Graph::MarkState Graph::Mark() const {
  std::shared_lock lock(mu_);
  MarkState m;
  m.num_nodes = nodes_.size();
  m.next_id = next_id_;
  m.names_in_use = names_in_use_;
  m.library = library();
  m.versions = versions_;
  return m;
}

const Graph::DerivedFunction* Graph::FindDerivedFunction(const std::string& key) const {
  auto it = derived_.find(key);
  if (it == derived_.end()) return nullptr;
  if (!it->second.name.empty() && FindFunction(it->second.name) == nullptr) return nullptr;  // rolled back
  return &it->second;
}

void Graph::AddDerivedFunction(const std::string& key, DerivedFunction f) { derived_[key] = std::move(f); }

void Graph::RollbackTo(const MarkState& mark) {
  std::unique_lock lock(mu_);
  // Nodes with these ids go; edges between two of them need no unlinking (a loop's back edge
  // points from a newer node to an older one that goes too). Unlink while every node is
  // still alive, then delete.
  auto removed = [&mark](const Node* x) { return x->id_ >= mark.next_id; };
  for (size_t i = nodes_.size(); i-- > mark.num_nodes;) {
    Node* n = nodes_[i].get();
    for (const Output& t : n->inputs_) {
      if (t.node == nullptr || removed(t.node)) continue;
      auto& uses = t.node->consumers_[static_cast<size_t>(t.index)];
      uses.erase(std::remove_if(uses.begin(), uses.end(), [n](const InputUse& u) { return u.node == n; }), uses.end());
    }
    for (Node* c : n->control_inputs_) {
      if (removed(c)) continue;
      auto& outs = c->control_outputs_;
      outs.erase(std::remove(outs.begin(), outs.end(), n), outs.end());
    }
    by_name_.erase(n->name_);
  }
  nodes_.resize(mark.num_nodes);
  next_id_ = mark.next_id;
  names_in_use_ = mark.names_in_use;
  {
    std::lock_guard<std::mutex> library_lock(library_mu_);
    library_ = mark.library;
  }
  if (mark.versions) versions_ = *mark.versions;
}

FunctionLibrary Graph::library() const {
  std::lock_guard<std::mutex> lock(library_mu_);
  return library_;
}

void Graph::SetLibrary(FunctionLibrary library) {
  std::lock_guard<std::mutex> lock(library_mu_);
  library_ = std::move(library);
}

Status Graph::AddFunction(LibraryFunction f) {
  std::lock_guard<std::mutex> lock(library_mu_);
  return library_.Add(std::move(f));
}

const LibraryFunction* Graph::FindFunction(std::string_view name) const {
  std::lock_guard<std::mutex> lock(library_mu_);
  return library_.Find(name);
}

Node* Graph::FindNode(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

Status Graph::FindTensor(std::string_view name, Output* out) const {
  std::string_view op = name;
  int64_t index = 0;
  size_t colon = name.rfind(':');
  if (colon != std::string_view::npos) {
    op = name.substr(0, colon);
    std::string_view idx = name.substr(colon + 1);
    if (idx.empty() || idx.size() > 9 || !std::all_of(idx.begin(), idx.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      return errors::InvalidArgument("'", name, "' is not a tensor name (expected 'op:index')");
    }
    index = std::stoll(std::string(idx));
  }
  Node* node = FindNode(op);
  if (node == nullptr) return errors::NotFound("the tensor '", name, "' names op '", op, "', which does not exist");
  if (index >= node->num_outputs()) {
    return errors::NotFound("the tensor '", name, "' does not exist: op '", op, "' has ", node->num_outputs(),
                            " output", node->num_outputs() == 1 ? "" : "s");
  }
  *out = Output{node, static_cast<int>(index)};
  return Status::Ok();
}

int64_t Graph::num_nodes() const {
  std::shared_lock lock(mu_);
  return static_cast<int64_t>(nodes_.size());
}

Node* Graph::NodeAt(int64_t index) const {
  std::shared_lock lock(mu_);
  if (index < 0 || index >= static_cast<int64_t>(nodes_.size())) return nullptr;
  return nodes_[static_cast<size_t>(index)].get();
}

void Graph::AddToCollection(const std::string& key, CollectionItem item) {
  collections_[key].push_back(std::move(item));
}

void Graph::AddToCollections(const std::vector<std::string>& keys, const CollectionItem& item) {
  std::vector<std::string> seen;
  for (const std::string& key : keys) {
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    AddToCollection(key, item);
  }
}

Status Graph::GetCollection(const std::string& key, const std::optional<std::string>& scope,
                            std::vector<CollectionItem>* out) const {
  out->clear();
  auto it = collections_.find(key);
  if (it == collections_.end()) return Status::Ok();
  if (!scope) {
    *out = it->second;
    return Status::Ok();
  }
  std::shared_ptr<const re2::RE2> re;
  GRAFT_RETURN_IF_ERROR(CompileRegex(*scope, "scope", &re));
  for (const CollectionItem& item : it->second) {
    std::optional<std::string> name = item.name();
    // Python's re.match: anchored at the start of the name only.
    if (name && re->Match(*name, 0, name->size(), re2::RE2::ANCHOR_START, nullptr, 0)) out->push_back(item);
  }
  return Status::Ok();
}

std::vector<CollectionItem>& Graph::CollectionRef(const std::string& key) { return collections_[key]; }

std::vector<std::string> Graph::CollectionKeys() const {
  std::vector<std::string> keys;
  for (const auto& [key, items] : collections_) keys.push_back(key);
  return keys;
}

Status Graph::SetShape(const Output& t, const PartialShape& shape) {
  GRAFT_RETURN_IF_ERROR(CheckOwned(t.node, "the tensor"));
  if (t.index < 0 || t.index >= t.node->num_outputs()) {
    return errors::InvalidArgument("op '", t.node->name(), "' has no output ", t.index);
  }
  PartialShape merged;
  Status s = t.node->output_shape(t.index).MergeWith(shape, &merged);
  if (!s.ok()) {
    return errors::ShapeError("tensor '", TensorName(t), "' has shape ", t.node->output_shape(t.index).ToString(),
                              ", which is not compatible with ", shape.ToString());
  }
  t.node->output_shapes_[static_cast<size_t>(t.index)] = std::move(merged);
  return Status::Ok();
}

void Graph::GetSeed(std::optional<int64_t> op_seed, std::optional<int64_t>* seed1,
                    std::optional<int64_t>* seed2) const {
  if (seed_) {
    *seed1 = seed_;
    *seed2 = op_seed ? *op_seed : version();
  } else if (op_seed) {
    *seed1 = kDefaultGraphSeed;
    *seed2 = op_seed;
  } else {
    *seed1 = std::nullopt;
    *seed2 = std::nullopt;
  }
  // (0, 0) would mean "random" to the kernels: avoid it, as TensorFlow does.
  if (*seed1 && *seed2 && **seed1 == 0 && **seed2 == 0) *seed2 = kMaxInt32;
}

}  // namespace graft

namespace graft {

void* Graph::Attachment(const std::function<std::shared_ptr<void>()>& make) {
  std::lock_guard<std::mutex> lock(attachment_mu_);
  if (!attachment_) attachment_ = make();
  return attachment_.get();
}

}  // namespace graft
