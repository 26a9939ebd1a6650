#include "core/saved_model.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/proto_depth.h"
#include "core/checkpoint/tensor_bundle_reader.h"
#include "core/graph_def.h"
#include "core/saved_object_graph.h"
#include "core/tensor_proto.h"
#include "proto/meta_graph.pb-c.h"
#include "proto/saved_model.pb-c.h"
#include "proto/saver.pb-c.h"

namespace graft {
namespace {

constexpr char kInitOpSignature[] = "__saved_model_init_op";

struct SavedModelFreer {
  void operator()(Graftpb__SavedModel* m) const { graftpb__saved_model__free_unpacked(m, nullptr); }
};
using SavedModelPtr = std::unique_ptr<Graftpb__SavedModel, SavedModelFreer>;

Status ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::NotFound("cannot open '", path, "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return errors::DataLoss("cannot read '", path, "'");
  *out = ss.str();
  return Status::Ok();
}

Status ReadSavedModelProto(const std::string& dir, SavedModelPtr* out) {
  std::string pb = dir + "/saved_model.pb";
  if (!std::filesystem::exists(pb) && std::filesystem::exists(dir + "/saved_model.pbtxt")) {
    return errors::Unimplemented("'", dir, "/saved_model.pbtxt': text SavedModels are not supported");
  }
  if (!std::filesystem::is_directory(dir)) return errors::NotFound("'", dir, "' is not a directory");
  std::string bytes;
  GRAFT_RETURN_IF_ERROR(ReadFile(pb, &bytes));
  GRAFT_RETURN_IF_ERROR(CheckProtoDepth(&graftpb__saved_model__descriptor,
                                        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "'" + pb + "'"));
  out->reset(graftpb__saved_model__unpack(nullptr, bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())));
  if (!*out) return errors::DataLoss("'", pb, "' does not parse as a SavedModel: truncated or corrupt");
  return Status::Ok();
}

std::vector<std::string> TagsOf(const Graftpb__MetaGraphDef* mg) {
  std::vector<std::string> tags;
  if (mg->meta_info_def != nullptr) {
    for (size_t i = 0; i < mg->meta_info_def->n_tags; ++i) tags.emplace_back(mg->meta_info_def->tags[i]);
  }
  return tags;
}

std::string TagSetText(std::vector<std::string> tags) {
  std::sort(tags.begin(), tags.end());
  std::string s = "{";
  for (size_t i = 0; i < tags.size(); ++i) {
    if (i) s.append(", ");
    s.append(tags[i]);
  }
  s.append("}");
  return s;
}

const Graftpb__CollectionDef* FindCollection(const Graftpb__MetaGraphDef* mg, std::string_view key) {
  for (size_t i = 0; i < mg->n_collection_def; ++i) {
    if (mg->collection_def[i]->key && key == mg->collection_def[i]->key) return mg->collection_def[i]->value;
  }
  return nullptr;
}

std::string OpNameOf(std::string_view tensor_or_op) {
  std::string s(tensor_or_op);
  if (!s.empty() && s[0] == '^') s.erase(0, 1);
  size_t colon = s.rfind(':');
  if (colon != std::string::npos) s.resize(colon);
  return s;
}

Status MakeSignatureTensor(const Graph& graph, const char* key, const Graftpb__TensorInfo* info,
                           SignatureTensor* out) {
  out->key = key ? key : "";
  if (info == nullptr || info->encoding_case != GRAFTPB__TENSOR_INFO__ENCODING_NAME || info->name == nullptr) {
    return errors::Unimplemented("'", out->key, "' is a sparse or composite tensor, which is not supported");
  }
  out->tensor_name = info->name;
  // A reference (TensorFlow 1 variable) is fetched as its value: report the value dtype.
  out->dtype = BaseDType(static_cast<DType>(EnumValue(info->dtype)));
  if (info->tensor_shape != nullptr) GRAFT_RETURN_IF_ERROR(ShapeFromProto(info->tensor_shape, &out->shape));
  else out->shape = PartialShape::Unknown();
  Status s = graph.FindTensor(out->tensor_name, &out->tensor);
  if (!s.ok()) return errors::NotFound("'", out->key, "' names tensor '", out->tensor_name, "', which is not in the graph");
  return Status::Ok();
}

// The asset files the init op is fed with: (tensor, path under assets/).
Status CollectAssets(const Graftpb__MetaGraphDef* mg, std::vector<std::pair<std::string, std::string>>* out) {
  for (size_t i = 0; i < mg->n_asset_file_def; ++i) {
    const Graftpb__AssetFileDef* a = mg->asset_file_def[i];
    if (a->tensor_info && a->tensor_info->encoding_case == GRAFTPB__TENSOR_INFO__ENCODING_NAME && a->filename) {
      out->emplace_back(a->tensor_info->name, a->filename);
    }
  }
  // TensorFlow 1 keeps them as AssetFileDefs packed in Any in the saved_model_assets collection.
  const Graftpb__CollectionDef* c = FindCollection(mg, "saved_model_assets");
  if (c != nullptr && c->kind_case == GRAFTPB__COLLECTION_DEF__KIND_ANY_LIST) {
    for (size_t i = 0; i < c->any_list->n_value; ++i) {
      const Graftpb__Any* any = c->any_list->value[i];
      GRAFT_RETURN_IF_ERROR(CheckProtoDepth(&graftpb__asset_file_def__descriptor, any->value.data, any->value.len,
                                            "an asset of the saved_model_assets collection"));
      Graftpb__AssetFileDef* a = graftpb__asset_file_def__unpack(nullptr, any->value.len, any->value.data);
      if (a == nullptr) return errors::DataLoss("asset ", i, " of the saved_model_assets collection does not parse");
      if (a->tensor_info && a->tensor_info->encoding_case == GRAFTPB__TENSOR_INFO__ENCODING_NAME && a->filename) {
        out->emplace_back(a->tensor_info->name, a->filename);
      }
      graftpb__asset_file_def__free_unpacked(a, nullptr);
    }
  }
  return Status::Ok();
}

Tensor StringScalar(std::string s) {
  Tensor t;
  (void)Tensor::FromStrings({}, {std::move(s)}, &t);
  return t;
}

}  // namespace

Status ReadSavedModelTags(const std::string& dir, std::vector<std::vector<std::string>>* out) {
  SavedModelPtr sm;
  GRAFT_RETURN_IF_ERROR(ReadSavedModelProto(dir, &sm));
  out->clear();
  for (size_t i = 0; i < sm->n_meta_graphs; ++i) out->push_back(TagsOf(sm->meta_graphs[i]));
  return Status::Ok();
}

Status SavedModel::Load(const std::string& dir, std::vector<std::string> tags, Graph* graph, Session* session_ptr,
                        std::unique_ptr<SavedModel>* out) {
  if (graph->num_nodes() != 0) return errors::FailedPrecondition("a SavedModel loads into an empty graph");
  SavedModelPtr sm;
  GRAFT_RETURN_IF_ERROR(ReadSavedModelProto(dir, &sm));
  if (tags.empty()) tags.push_back("serve");
  std::set<std::string> want(tags.begin(), tags.end());
  const Graftpb__MetaGraphDef* mg = nullptr;
  std::string available;
  for (size_t i = 0; i < sm->n_meta_graphs; ++i) {
    std::vector<std::string> have = TagsOf(sm->meta_graphs[i]);
    if (std::set<std::string>(have.begin(), have.end()) == want) mg = sm->meta_graphs[i];
    if (i) available.append(", ");
    available.append(TagSetText(have));
  }
  if (mg == nullptr) {
    return errors::NotFound("'", dir, "' has no MetaGraph with tags ", TagSetText(tags), " (it has ",
                            available.empty() ? std::string("none") : available, ")");
  }
  if (mg->graph_def == nullptr) return errors::DataLoss("'", dir, "': the MetaGraph has no graph");

  std::unique_ptr<SavedModel> model(new SavedModel());
  model->tags_ = tags;
  model->graph_ = graph;
  model->session_ = session_ptr;
  ImportOptions import;
  import.prefix = "";
  // The session's default device becomes the device of the imported ops that name none, so
  // that the signatures' function calls place their bodies there too.
  const std::string& default_device = session_ptr->devices().policy().default_device;
  if (!default_device.empty()) GRAFT_RETURN_IF_ERROR(graph->PushDevice(default_device));
  Status imported = ImportGraphDefMessage(graph, mg->graph_def, import, nullptr);
  if (!default_device.empty()) GRAFT_RETURN_IF_ERROR(graph->PopDevice());
  GRAFT_RETURN_IF_ERROR(imported.WithContext(StrCat("'", dir, "/saved_model.pb'")));
  Graph& g = *graph;
  Session& session = *session_ptr;

  // Restore the variables from the checkpoint (a model without variables has no index).
  std::string prefix = dir + "/variables/variables";
  const Graftpb__SaverDef* saver = mg->saver_def;
  std::string restored_prefix;
  if (saver != nullptr && saver->restore_op_name && *saver->restore_op_name &&
      std::filesystem::exists(prefix + ".index")) {
    Output filename;
    Node* restore = g.FindNode(OpNameOf(saver->restore_op_name));
    if (restore == nullptr) {
      return errors::NotFound("'", dir, "': the saver's restore op '", saver->restore_op_name, "' is not in the graph");
    }
    if (!saver->filename_tensor_name || !g.FindTensor(saver->filename_tensor_name, &filename).ok()) {
      return errors::NotFound("'", dir, "': the saver's filename tensor '",
                              saver->filename_tensor_name ? saver->filename_tensor_name : "", "' is not in the graph");
    }
    std::vector<Tensor> none;
    GRAFT_RETURN_IF_ERROR(session.Run({{filename, StringScalar(prefix)}}, {}, {restore}, &none)
                              .WithContext(StrCat("restoring the variables of '", dir, "'")));
    restored_prefix = prefix;
  }
  GRAFT_RETURN_IF_ERROR(RestoreSavedObjectGraph(mg, dir, restored_prefix, graph, session_ptr, &model->objects_,
                                                &model->functions_)
                            .WithContext(StrCat("restoring the object graph of '", dir, "'")));

  // The init op: TensorFlow 2 names it in a signature, TensorFlow 1 in a collection.
  std::string init_op;
  for (size_t i = 0; i < mg->n_signature_def; ++i) {
    const Graftpb__MetaGraphDef__SignatureDefEntry* e = mg->signature_def[i];
    if (e->key && std::string_view(e->key) == kInitOpSignature && e->value && e->value->n_outputs > 0 &&
        e->value->outputs[0]->value && e->value->outputs[0]->value->encoding_case == GRAFTPB__TENSOR_INFO__ENCODING_NAME) {
      init_op = OpNameOf(e->value->outputs[0]->value->name);
    }
  }
  for (const char* key : {"saved_model_main_op", "main_op", "legacy_init_op"}) {
    const Graftpb__CollectionDef* c = FindCollection(mg, key);
    if (init_op.empty() && c != nullptr && c->kind_case == GRAFTPB__COLLECTION_DEF__KIND_NODE_LIST &&
        c->node_list->n_value > 0) {
      init_op = OpNameOf(c->node_list->value[0]);
    }
  }
  if (!init_op.empty()) {
    Node* op = g.FindNode(init_op);
    if (op == nullptr) return errors::NotFound("'", dir, "': the init op '", init_op, "' is not in the graph");
    std::vector<std::pair<std::string, std::string>> assets;
    GRAFT_RETURN_IF_ERROR(CollectAssets(mg, &assets).WithContext(StrCat("'", dir, "'")));
    std::vector<std::pair<Output, Tensor>> feeds;
    for (const auto& a : assets) {
      Output t;
      if (g.FindTensor(a.first, &t).ok()) feeds.emplace_back(t, StringScalar(dir + "/assets/" + a.second));
    }
    std::vector<Tensor> none;
    GRAFT_RETURN_IF_ERROR(session.Run(feeds, {}, {op}, &none).WithContext(StrCat("running the init op '", init_op,
                                                                                  "' of '", dir, "'")));
  }

  for (size_t i = 0; i < mg->n_signature_def; ++i) {
    const Graftpb__MetaGraphDef__SignatureDefEntry* e = mg->signature_def[i];
    if (e->key == nullptr || e->value == nullptr || std::string_view(e->key) == kInitOpSignature) continue;
    Signature sig;
    sig.name = e->key;
    sig.method_name = e->value->method_name ? e->value->method_name : "";
    auto where = [&](const char* kind) { return StrCat("'", dir, "': signature '", sig.name, "' ", kind); };
    for (size_t k = 0; k < e->value->n_inputs; ++k) {
      SignatureTensor t;
      GRAFT_RETURN_IF_ERROR(MakeSignatureTensor(g, e->value->inputs[k]->key, e->value->inputs[k]->value, &t)
                                .WithContext(where("input")));
      sig.inputs.push_back(std::move(t));
    }
    for (size_t k = 0; k < e->value->n_outputs; ++k) {
      SignatureTensor t;
      GRAFT_RETURN_IF_ERROR(MakeSignatureTensor(g, e->value->outputs[k]->key, e->value->outputs[k]->value, &t)
                                .WithContext(where("output")));
      sig.outputs.push_back(std::move(t));
    }
    auto by_key = [](const SignatureTensor& a, const SignatureTensor& b) { return a.key < b.key; };
    std::sort(sig.inputs.begin(), sig.inputs.end(), by_key);
    std::sort(sig.outputs.begin(), sig.outputs.end(), by_key);
    for (int io = 0; io < 2; ++io) sig.structure[io] = SignatureDefStructure(io == 0 ? sig.inputs : sig.outputs);
    model->signatures_.push_back(std::move(sig));
  }
  std::sort(model->signatures_.begin(), model->signatures_.end(),
            [](const Signature& a, const Signature& b) { return a.name < b.name; });
  *out = std::move(model);
  return Status::Ok();
}

const Signature* SavedModel::FindSignature(std::string_view name) const {
  for (const Signature& s : signatures_) {
    if (s.name == name) return &s;
  }
  for (const Signature& s : functions_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Status SavedModel::FindObject(std::string_view path, int* out) const {
  if (objects_.empty()) {
    return errors::NotFound("the model has no object graph (it was not saved from TensorFlow 2 objects), so no "
                            "object '", path, "'");
  }
  int id = 0;
  std::string_view rest = path;
  std::string walked;
  while (!rest.empty()) {
    // Child names may contain '.' (dict keys): take the longest child name that the rest
    // starts with, followed by '.' or the end.
    const SavedObject& o = objects_[id];
    int next = -1;
    size_t used = 0;
    for (const auto& [name, child] : o.children) {
      if (name.size() > used && rest.substr(0, name.size()) == name &&
          (rest.size() == name.size() || rest[name.size()] == '.')) {
        next = child;
        used = name.size();
      }
    }
    if (next < 0) {
      std::string names;
      for (const auto& c : o.children) names.append(StrCat(names.empty() ? "" : ", ", c.first));
      std::string_view part = rest.substr(0, rest.find('.'));
      return errors::NotFound("object '", walked.empty() ? "(root)" : walked, "' has no child '", part,
                              "' (its children: ", names.empty() ? "none" : names, ")");
    }
    walked.append(StrCat(walked.empty() ? "" : ".", rest.substr(0, used)));
    rest.remove_prefix(used);
    if (!rest.empty()) rest.remove_prefix(1);
    id = next;
  }
  *out = id;
  return Status::Ok();
}

Status SavedModel::ReadVariable(std::string_view path, Tensor* out) {
  int id = 0;
  GRAFT_RETURN_IF_ERROR(FindObject(path, &id));
  if (objects_[id].kind != SavedObject::Kind::kVariable) {
    return errors::InvalidArgument("object '", path, "' is not a variable");
  }
  std::vector<Tensor> values;
  GRAFT_RETURN_IF_ERROR(
      session_->Run({}, {objects_[id].value}, {}, &values).WithContext(StrCat("reading variable '", path, "'")));
  *out = std::move(values[0]);
  return Status::Ok();
}

Status SavedModel::Run(std::string_view name, const std::vector<std::pair<std::string, Tensor>>& inputs,
                       const std::vector<std::string>& output_keys, std::vector<Tensor>* outputs,
                       const RunControl* control) {
  const Signature* sig = FindSignature(name);
  if (sig != nullptr && !sig->unavailable.empty()) return errors::Unimplemented(sig->unavailable);
  if (sig == nullptr) {
    std::string names;
    for (const Signature& s : signatures_) {
      if (!names.empty()) names.append(", ");
      names.append(s.name);
    }
    return errors::NotFound("the model has no signature '", name, "' (it has: ", names, ")");
  }
  auto keys_of = [](const std::vector<SignatureTensor>& ts) {
    std::string s;
    for (const SignatureTensor& t : ts) {
      if (!s.empty()) s.append(", ");
      s.append(t.key);
    }
    return s;
  };
  std::vector<std::pair<Output, Tensor>> feeds;
  for (const auto& input : inputs) {
    const std::string& key = input.first;
    const Tensor& value = input.second;
    auto it = std::find_if(sig->inputs.begin(), sig->inputs.end(), [&](const SignatureTensor& t) { return t.key == key; });
    if (it == sig->inputs.end()) {
      return errors::NotFound("signature '", name, "' has no input '", key, "' (its inputs: ", keys_of(sig->inputs), ")");
    }
    for (const auto& f : feeds) {
      if (f.first == it->tensor) return errors::InvalidArgument("signature '", name, "' input '", key, "' is given twice");
    }
    if (value.dtype() != it->dtype) {
      return errors::DTypeError("signature '", name, "' input '", key, "' is ", DTypeName(it->dtype), ", but a ",
                                DTypeName(value.dtype()), " tensor was given");
    }
    if (!it->shape.IsCompatibleWith(value.shape())) {
      return errors::ShapeError("signature '", name, "' input '", key, "' has shape ", it->shape.ToString(),
                                ", but a tensor of shape ", value.shape().ToString(), " was given");
    }
    feeds.emplace_back(it->tensor, value);
  }
  std::vector<Output> fetches;
  if (output_keys.empty()) {
    for (const SignatureTensor& t : sig->outputs) fetches.push_back(t.tensor);
  }
  for (const std::string& key : output_keys) {
    auto it = std::find_if(sig->outputs.begin(), sig->outputs.end(), [&](const SignatureTensor& t) { return t.key == key; });
    if (it == sig->outputs.end()) {
      return errors::NotFound("signature '", name, "' has no output '", key, "' (its outputs: ", keys_of(sig->outputs),
                              ")");
    }
    fetches.push_back(it->tensor);
  }
  return session_->Run(feeds, fetches, {}, outputs, nullptr, false, control)
      .WithContext(StrCat("signature '", name, "'"));
}

}  // namespace graft
