#include "core/saved_model_writer.h"

#include <filesystem>
#include <map>
#include <set>

#include "core/checkpoint/file_util.h"
#include "core/checkpoint/tensor_bundle_writer.h"
#include "core/graph_def.h"
#include "core/proto_arena.h"
#include "core/tensor_proto.h"
#include "proto/meta_graph.pb-c.h"
#include "proto/saved_model.pb-c.h"
#include "proto/saver.pb-c.h"

namespace graft {
namespace {

struct SavedVariable {
  const Node* node;
  bool is_resource;
  DType dtype;
  Tensor value;
};

bool IsRefVariable(const Node& n) { return n.type() == "VariableV2" || n.type() == "Variable"; }

// The variables of the graph with their values in session, in graph order.
Status CollectVariables(Session& session, std::vector<SavedVariable>* out) {
  const Graph& g = session.graph();
  std::set<std::pair<std::string, std::string>> seen;
  for (int64_t i = 0; i < g.num_nodes(); ++i) {
    const Node* n = g.NodeAt(i);
    bool resource = n->type() == "VarHandleOp";
    if (!resource && !IsRefVariable(*n)) continue;
    std::string container, name;
    if (const auto* c = n->attr("container")) container = c->get<std::string>() ? *c->get<std::string>() : "";
    if (const auto* s = n->attr("shared_name")) name = s->get<std::string>() ? *s->get<std::string>() : "";
    if (name.empty()) name = n->name();
    if (!seen.emplace(container, name).second) continue;
    std::shared_ptr<Variable> v;
    auto uninitialized = [&]() {
      return errors::FailedPrecondition("variable '", n->name(),
                                        "' is not initialized in the session: run its initializer before saving");
    };
    if (!session.resources().Lookup(container, name, &v).ok()) return uninitialized();
    std::lock_guard<std::mutex> lock(v->mu);
    if (!v->initialized) return uninitialized();
    const DType* dt = n->attr("dtype") ? n->attr("dtype")->get<DType>() : nullptr;
    out->push_back(SavedVariable{n, resource, dt ? *dt : v->value.dtype(), v->value});
  }
  return Status::Ok();
}

Status AddNode(Graph& g, const std::string& type, const std::string& name, std::vector<Output> inputs,
               std::vector<Node*> control, AttrMap attrs, Node** out) {
  NodeSpec spec;
  spec.type = type;
  spec.name = name + "/";
  spec.flat_inputs = true;
  spec.inputs.resize(1);
  spec.inputs[0].tensors = std::move(inputs);
  spec.control_inputs = std::move(control);
  spec.attrs = std::move(attrs);
  spec.skip_control_contexts = true;
  return g.AddNode(std::move(spec), out).WithContext(StrCat("adding '", name, "' to the saved graph"));
}

Status StringVector(const std::vector<std::string>& v, Tensor* out) {
  return Tensor::FromStrings(std::vector<int64_t>{static_cast<int64_t>(v.size())}, v, out);
}

// Adds the restore subgraph for vars to g (a copy of the session's graph).
Status AddRestoreOps(Graph& g, const std::vector<SavedVariable>& vars) {
  Node* filename = nullptr;
  GRAFT_RETURN_IF_ERROR(AddNode(g, "Placeholder", "save/filename", {}, {},
                                {{"dtype", AttrValue::Type(DType::kString)}, {"shape", AttrValue::Shape(PartialShape(std::vector<int64_t>{}))}},
                                &filename));
  std::vector<std::string> names, slices;
  std::vector<DType> dtypes;
  for (const SavedVariable& v : vars) {
    names.push_back(v.node->name());
    slices.emplace_back();
    dtypes.push_back(v.dtype);
  }
  Tensor names_t, slices_t;
  GRAFT_RETURN_IF_ERROR(StringVector(names, &names_t));
  GRAFT_RETURN_IF_ERROR(StringVector(slices, &slices_t));
  Node *names_n = nullptr, *slices_n = nullptr, *restore = nullptr;
  GRAFT_RETURN_IF_ERROR(AddNode(g, "Const", "save/RestoreV2/tensor_names", {}, {},
                                {{"dtype", AttrValue::Type(DType::kString)}, {"value", AttrValue::TensorValue(names_t)}},
                                &names_n));
  GRAFT_RETURN_IF_ERROR(AddNode(g, "Const", "save/RestoreV2/shape_and_slices", {}, {},
                                {{"dtype", AttrValue::Type(DType::kString)}, {"value", AttrValue::TensorValue(slices_t)}},
                                &slices_n));
  GRAFT_RETURN_IF_ERROR(AddNode(g, "RestoreV2", "save/RestoreV2", {{filename, 0}, {names_n, 0}, {slices_n, 0}}, {},
                                {{"dtypes", AttrValue::TypeList(dtypes)}}, &restore));
  std::vector<Node*> assigns;
  for (size_t i = 0; i < vars.size(); ++i) {
    const SavedVariable& v = vars[i];
    Node* var = g.FindNode(v.node->name());
    Node* assign = nullptr;
    Output value{restore, static_cast<int>(i)};
    std::string name = StrCat("save/Assign_", i);
    if (v.is_resource) {
      GRAFT_RETURN_IF_ERROR(AddNode(g, "AssignVariableOp", name, {{var, 0}, value}, {},
                                    {{"dtype", AttrValue::Type(v.dtype)}}, &assign));
    } else {
      GRAFT_RETURN_IF_ERROR(AddNode(g, "Assign", name, {{var, 0}, value}, {},
                                    {{"T", AttrValue::Type(v.dtype)},
                                     {"validate_shape", AttrValue::Bool(true)},
                                     {"use_locking", AttrValue::Bool(true)}},
                                    &assign));
    }
    assigns.push_back(assign);
  }
  Node* all = nullptr;
  GRAFT_RETURN_IF_ERROR(AddNode(g, "NoOp", "save/restore_all", {}, assigns, {}, &all));

  // The save subgraph (TensorFlow's Saver needs it to load the model, even to restore): SaveV2
  // of every variable's value to the fed prefix, and save/control_dependency, the prefix once
  // the SaveV2 ran (the saver def's save_tensor_name).
  std::vector<Output> values;
  std::vector<DType> save_dtypes;
  for (size_t i = 0; i < vars.size(); ++i) {
    const SavedVariable& v = vars[i];
    Node* var = g.FindNode(v.node->name());
    if (v.is_resource) {
      Node* read = nullptr;
      GRAFT_RETURN_IF_ERROR(AddNode(g, "ReadVariableOp", StrCat("save/Read_", i), {{var, 0}}, {},
                                    {{"dtype", AttrValue::Type(v.dtype)}}, &read));
      values.push_back({read, 0});
    } else {
      values.push_back({var, 0});
    }
    save_dtypes.push_back(v.dtype);
  }
  std::vector<Output> save_inputs = {{filename, 0}, {names_n, 0}, {slices_n, 0}};
  save_inputs.insert(save_inputs.end(), values.begin(), values.end());
  Node *save = nullptr, *done = nullptr;
  GRAFT_RETURN_IF_ERROR(AddNode(g, "SaveV2", "save/SaveV2", std::move(save_inputs), {},
                                {{"dtypes", AttrValue::TypeList(save_dtypes)}}, &save));
  return AddNode(g, "Identity", "save/control_dependency", {{filename, 0}}, {save},
                 {{"T", AttrValue::Type(DType::kString)}}, &done);
}

Graftpb__TensorInfo* MakeTensorInfo(const Output& t, ProtoArena& arena) {
  auto* info = arena.New(graftpb__tensor_info__init);
  info->encoding_case = GRAFTPB__TENSOR_INFO__ENCODING_NAME;
  info->name = arena.Str(StrCat(t.node->name(), ":", t.index));
  info->dtype = static_cast<Graftpb__DataType>(static_cast<int>(BaseDType(t.node->output_type(t.index))));
  info->tensor_shape = ShapeToProto(t.node->output_shape(t.index), arena);
  return info;
}

Status CheckSignatures(const Graph& g, const std::vector<SignatureSpec>& sigs) {
  std::set<std::string> names;
  for (const SignatureSpec& s : sigs) {
    if (s.name.empty()) return errors::InvalidArgument("a signature has no name");
    if (!names.insert(s.name).second) return errors::AlreadyExists("signature '", s.name, "' is given twice");
    for (const auto* side : {&s.inputs, &s.outputs}) {
      std::set<std::string> keys;
      for (const auto& [key, t] : *side) {
        if (key.empty()) return errors::InvalidArgument("signature '", s.name, "' has an empty key");
        if (!keys.insert(key).second) return errors::AlreadyExists("signature '", s.name, "' key '", key, "' is given twice");
        if (t.node == nullptr || t.node->graph() != &g || t.index < 0 || t.index >= t.node->num_outputs()) {
          return errors::InvalidArgument("signature '", s.name, "' key '", key, "' is not a tensor of the session's graph");
        }
      }
    }
  }
  return Status::Ok();
}

struct SavedModelBytesFreer {
  void operator()(Graftpb__GraphDef* g) const { graftpb__graph_def__free_unpacked(g, nullptr); }
};

Status WriteAll(Session& session, const std::string& dir, const std::vector<std::string>& tags,
                const std::vector<SignatureSpec>& signatures) {
  const Graph& graph = session.graph();
  std::vector<SavedVariable> vars;
  GRAFT_RETURN_IF_ERROR(CollectVariables(session, &vars));

  // A copy of the graph with the restore ops added.
  std::string bytes;
  GRAFT_RETURN_IF_ERROR(ExportGraphDef(graph, ExportOptions{}, &bytes));
  Graph copy;
  ImportOptions import;
  import.prefix = "";
  GRAFT_RETURN_IF_ERROR(ImportGraphDef(&copy, bytes.data(), bytes.size(), import, nullptr));
  if (!vars.empty()) GRAFT_RETURN_IF_ERROR(AddRestoreOps(copy, vars));
  GRAFT_RETURN_IF_ERROR(ExportGraphDef(copy, ExportOptions{}, &bytes));
  std::unique_ptr<Graftpb__GraphDef, SavedModelBytesFreer> gd(
      graftpb__graph_def__unpack(nullptr, bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())));
  if (!gd) return errors::Internal("the exported graph does not parse");

  if (!vars.empty()) {
    checkpoint::TensorBundleWriter writer(dir + "/variables/variables");
    for (const SavedVariable& v : vars) {
      GRAFT_RETURN_IF_ERROR(writer.Add(v.node->name(), v.value).WithContext(StrCat("variable '", v.node->name(), "'")));
    }
    GRAFT_RETURN_IF_ERROR(writer.Finish());
  }

  ProtoArena arena;
  auto* mg = arena.New(graftpb__meta_graph_def__init);
  mg->meta_info_def = arena.New(graftpb__meta_graph_def__meta_info_def__init);
  mg->meta_info_def->n_tags = tags.size();
  mg->meta_info_def->tags = arena.Array<char*>(tags.size());
  for (size_t i = 0; i < tags.size(); ++i) mg->meta_info_def->tags[i] = arena.Str(tags[i]);
  mg->graph_def = gd.get();
  if (!vars.empty()) {
    mg->saver_def = arena.New(graftpb__saver_def__init);
    mg->saver_def->filename_tensor_name = arena.Str("save/filename:0");
    mg->saver_def->restore_op_name = arena.Str("save/restore_all");
    mg->saver_def->save_tensor_name = arena.Str("save/control_dependency:0");
    mg->saver_def->max_to_keep = 5;
    mg->saver_def->keep_checkpoint_every_n_hours = 10000.0f;
    mg->saver_def->version = GRAFTPB__SAVER_DEF__CHECKPOINT_FORMAT_VERSION__V2;
  }
  mg->n_signature_def = signatures.size();
  mg->signature_def = arena.Array<Graftpb__MetaGraphDef__SignatureDefEntry*>(signatures.size());
  for (size_t i = 0; i < signatures.size(); ++i) {
    const SignatureSpec& s = signatures[i];
    auto* e = arena.New(graftpb__meta_graph_def__signature_def_entry__init);
    e->key = arena.Str(s.name);
    e->value = arena.New(graftpb__signature_def__init);
    e->value->method_name = arena.Str(s.method_name);
    e->value->n_inputs = s.inputs.size();
    e->value->inputs = arena.Array<Graftpb__SignatureDef__InputsEntry*>(s.inputs.size());
    for (size_t k = 0; k < s.inputs.size(); ++k) {
      auto* in = arena.New(graftpb__signature_def__inputs_entry__init);
      in->key = arena.Str(s.inputs[k].first);
      in->value = MakeTensorInfo(s.inputs[k].second, arena);
      e->value->inputs[k] = in;
    }
    e->value->n_outputs = s.outputs.size();
    e->value->outputs = arena.Array<Graftpb__SignatureDef__OutputsEntry*>(s.outputs.size());
    for (size_t k = 0; k < s.outputs.size(); ++k) {
      auto* out = arena.New(graftpb__signature_def__outputs_entry__init);
      out->key = arena.Str(s.outputs[k].first);
      out->value = MakeTensorInfo(s.outputs[k].second, arena);
      e->value->outputs[k] = out;
    }
    mg->signature_def[i] = e;
  }
  auto* sm = arena.New(graftpb__saved_model__init);
  sm->saved_model_schema_version = 1;
  sm->n_meta_graphs = 1;
  sm->meta_graphs = arena.Array<Graftpb__MetaGraphDef*>(1);
  sm->meta_graphs[0] = mg;
  std::string out(graftpb__saved_model__get_packed_size(sm), '\0');
  graftpb__saved_model__pack(sm, reinterpret_cast<uint8_t*>(out.data()));
  mg->graph_def = nullptr;  // owned by gd
  return checkpoint::WriteFileAtomically(dir + "/saved_model.pb", out);
}

}  // namespace

Status SaveSavedModel(Session& session, const std::string& dir, std::vector<std::string> tags,
                      const std::vector<SignatureSpec>& signatures) {
  if (tags.empty()) tags.push_back("serve");
  GRAFT_RETURN_IF_ERROR(CheckSignatures(session.graph(), signatures));
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_empty(dir, ec)) {
    return errors::AlreadyExists("'", dir, "' exists and is not empty: a SavedModel is written to a new directory");
  }
  bool existed = std::filesystem::exists(dir, ec);
  GRAFT_RETURN_IF_ERROR(checkpoint::CreateDirs(dir));
  Status s = WriteAll(session, dir, tags, signatures);
  if (!s.ok()) {
    // Leave nothing behind (the directory itself only if this call made it).
    std::filesystem::remove_all(dir + "/variables", ec);
    std::filesystem::remove(dir + "/saved_model.pb", ec);
    if (!existed) std::filesystem::remove(dir, ec);
    return s.WithContext(StrCat("saving '", dir, "'"));
  }
  return Status::Ok();
}

}  // namespace graft
