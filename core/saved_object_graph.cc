#include "core/saved_object_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "core/proto_depth.h"
#include "core/checkpoint/tensor_bundle_reader.h"
#include "core/function.h"
#include "core/runtime/resource_mgr.h"
#include "core/tensor_proto.h"
#include "proto/meta_graph.pb-c.h"
#include "proto/saved_object_graph.pb-c.h"
#include "proto/struct.pb-c.h"
#include "proto/trackable_object_graph.pb-c.h"

namespace graft {
namespace {

struct TrackableGraphFreer {
  void operator()(Graftpb__TrackableObjectGraph* g) const { graftpb__trackable_object_graph__free_unpacked(g, nullptr); }
};
using TrackableGraphPtr = std::unique_ptr<Graftpb__TrackableObjectGraph, TrackableGraphFreer>;

template <typename T>
const T* AttrOf(const Node& n, const char* name) {
  auto it = n.attrs().find(name);
  return it == n.attrs().end() ? nullptr : it->second.get<T>();
}

// The checkpoint of a TensorFlow 2 model carries its object graph, which names each object's
// checkpoint keys; a name-based (TensorFlow 1) checkpoint has none: *out stays null.
Status ReadTrackableGraph(const checkpoint::TensorBundleReader& reader, TrackableGraphPtr* out) {
  Tensor serialized;
  if (!reader.Read("_CHECKPOINTABLE_OBJECT_GRAPH", &serialized).ok()) return Status::Ok();
  if (serialized.dtype() != DType::kString || serialized.num_elements() != 1) {
    return errors::DataLoss("the checkpoint's object graph is not a string scalar");
  }
  const std::string& bytes = serialized.strings()[0];
  GRAFT_RETURN_IF_ERROR(CheckProtoDepth(&graftpb__trackable_object_graph__descriptor,
                                        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                        "the checkpoint's object graph"));
  out->reset(graftpb__trackable_object_graph__unpack(nullptr, bytes.size(),
                                                     reinterpret_cast<const uint8_t*>(bytes.data())));
  if (!*out) return errors::DataLoss("the checkpoint's object graph cannot be parsed");
  return Status::Ok();
}

std::string VariableKey(const Graftpb__TrackableObjectGraph* tg, int object) {
  if (tg == nullptr || object < 0 || static_cast<size_t>(object) >= tg->n_nodes) return "";
  const auto* tobj = tg->nodes[object];
  for (size_t a = 0; a < tobj->n_attributes; ++a) {
    if (tobj->attributes[a]->name && std::string_view(tobj->attributes[a]->name) == "VARIABLE_VALUE" &&
        tobj->attributes[a]->checkpoint_key) {
      return tobj->attributes[a]->checkpoint_key;
    }
  }
  return "";
}

// Gives the variable behind handle (a VarHandleOp) the checkpoint's value of `object` unless
// it already has one.
Status RestoreHandle(const Node& handle, int object, const Graftpb__TrackableObjectGraph* tg,
                     checkpoint::TensorBundleReader* reader, ResourceMgr& resources) {
  std::string key = VariableKey(tg, object);
  const std::string* container = AttrOf<std::string>(handle, "container");
  const std::string* shared_name = AttrOf<std::string>(handle, "shared_name");
  const DType* dtype = AttrOf<DType>(handle, "dtype");
  const PartialShape* shape = AttrOf<PartialShape>(handle, "shape");
  if (reader == nullptr || key.empty() || dtype == nullptr) return Status::Ok();
  std::string name = shared_name && !shared_name->empty() ? *shared_name : handle.name();
  std::shared_ptr<Variable> var;
  GRAFT_RETURN_IF_ERROR(
      resources.LookupOrCreate(container ? *container : "", name, *dtype, shape ? *shape : PartialShape(), &var));
  std::lock_guard<std::mutex> lock(var->mu);
  if (var->initialized) return Status::Ok();
  Tensor value;
  GRAFT_RETURN_IF_ERROR(reader->ReadChecked(key, *dtype, shape, &value)
                            .WithContext(StrCat("restoring variable '", name, "' (object ", object, ")")));
  var->value = std::move(value);
  var->initialized = true;
  return Status::Ok();
}

// ---- JSON of structured values ---------------------------------------------------------------

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out->append(buf);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

struct FlatSpec {
  std::string path;  // dict keys and sequence indices joined by '/'
  std::string name;  // the TensorSpec's name
  DType dtype = DType::kInvalid;
  PartialShape shape;
};

// s with every character a node name cannot hold ('<' in "__inference_<lambda>_12") as '_'.
std::string NodeNamePart(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

std::string JoinPath(const std::string& a, std::string_view b) { return a.empty() ? std::string(b) : StrCat(a, "/", b); }

// Writes v as JSON and appends its tensor leaves, in TensorFlow's flattening order (dict keys
// sorted), to *flat.
Status WriteStructure(const Graftpb__StructuredValue* v, const std::string& path, std::string* out,
                      std::vector<FlatSpec>* flat, int depth) {
  if (depth > 64) return errors::DataLoss("a structured value nests deeper than 64 levels");
  if (v == nullptr) {
    out->append("{\"none\":null}");
    return Status::Ok();
  }
  auto sequence = [&](const char* kind, Graftpb__StructuredValue** values, size_t n) -> Status {
    out->append(StrCat("{\"", kind, "\":["));
    for (size_t i = 0; i < n; ++i) {
      if (i) out->push_back(',');
      GRAFT_RETURN_IF_ERROR(WriteStructure(values[i], JoinPath(path, std::to_string(i)), out, flat, depth + 1));
    }
    out->append("]}");
    return Status::Ok();
  };
  switch (v->kind_case) {
    case GRAFTPB__STRUCTURED_VALUE__KIND_NONE_VALUE:
    case GRAFTPB__STRUCTURED_VALUE__KIND__NOT_SET:
      out->append("{\"none\":null}");
      return Status::Ok();
    case GRAFTPB__STRUCTURED_VALUE__KIND_BOOL_VALUE:
      out->append(StrCat("{\"bool\":", v->bool_value ? "true" : "false", "}"));
      return Status::Ok();
    case GRAFTPB__STRUCTURED_VALUE__KIND_INT64_VALUE:
      out->append(StrCat("{\"int\":", v->int64_value, "}"));
      return Status::Ok();
    case GRAFTPB__STRUCTURED_VALUE__KIND_FLOAT64_VALUE: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", v->float64_value);
      out->append(StrCat("{\"float\":\"", buf, "\"}"));
      return Status::Ok();
    }
    case GRAFTPB__STRUCTURED_VALUE__KIND_STRING_VALUE:
      out->append("{\"string\":");
      AppendJsonString(out, v->string_value ? v->string_value : "");
      out->push_back('}');
      return Status::Ok();
    case GRAFTPB__STRUCTURED_VALUE__KIND_TENSOR_SPEC_VALUE:
    case GRAFTPB__STRUCTURED_VALUE__KIND_BOUNDED_TENSOR_SPEC_VALUE: {
      const bool bounded = v->kind_case == GRAFTPB__STRUCTURED_VALUE__KIND_BOUNDED_TENSOR_SPEC_VALUE;
      const char* name = bounded ? v->bounded_tensor_spec_value->name : v->tensor_spec_value->name;
      const Graftpb__TensorShapeProto* shape_proto =
          bounded ? v->bounded_tensor_spec_value->shape : v->tensor_spec_value->shape;
      FlatSpec spec;
      spec.path = path;
      spec.name = name ? name : "";
      spec.dtype = static_cast<DType>(
          EnumValue(bounded ? v->bounded_tensor_spec_value->dtype : v->tensor_spec_value->dtype));
      spec.shape = PartialShape::Unknown();
      if (shape_proto != nullptr) GRAFT_RETURN_IF_ERROR(ShapeFromProto(shape_proto, &spec.shape));
      out->append(StrCat("{\"tensor\":", flat->size(), ",\"name\":"));
      AppendJsonString(out, spec.name);
      out->append(StrCat(",\"dtype\":", static_cast<int>(spec.dtype), ",\"shape\":"));
      if (!spec.shape.known_rank()) {
        out->append("null");
      } else {
        out->push_back('[');
        for (int d = 0; d < spec.shape.rank(); ++d) out->append(StrCat(d ? "," : "", spec.shape.dims()[d]));
        out->push_back(']');
      }
      out->push_back('}');
      flat->push_back(std::move(spec));
      return Status::Ok();
    }
    case GRAFTPB__STRUCTURED_VALUE__KIND_TENSOR_DTYPE_VALUE:
      out->append(StrCat("{\"dtype\":", EnumValue(v->tensor_dtype_value), "}"));
      return Status::Ok();
    case GRAFTPB__STRUCTURED_VALUE__KIND_LIST_VALUE:
      return sequence("list", v->list_value->values, v->list_value->n_values);
    case GRAFTPB__STRUCTURED_VALUE__KIND_TUPLE_VALUE:
      return sequence("tuple", v->tuple_value->values, v->tuple_value->n_values);
    case GRAFTPB__STRUCTURED_VALUE__KIND_DICT_VALUE: {
      std::vector<const Graftpb__DictValue__FieldsEntry*> fields(v->dict_value->fields,
                                                                 v->dict_value->fields + v->dict_value->n_fields);
      std::sort(fields.begin(), fields.end(), [](const auto* a, const auto* b) {
        return std::string_view(a->key ? a->key : "") < std::string_view(b->key ? b->key : "");
      });
      out->append("{\"dict\":{");
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out->push_back(',');
        const char* key = fields[i]->key ? fields[i]->key : "";
        AppendJsonString(out, key);
        out->push_back(':');
        GRAFT_RETURN_IF_ERROR(WriteStructure(fields[i]->value, JoinPath(path, key), out, flat, depth + 1));
      }
      out->append("}}");
      return Status::Ok();
    }
    case GRAFTPB__STRUCTURED_VALUE__KIND_NAMED_TUPLE_VALUE: {
      const Graftpb__NamedTupleValue* t = v->named_tuple_value;
      out->append("{\"namedtuple\":");
      AppendJsonString(out, t->name ? t->name : "");
      out->append(",\"fields\":[");
      for (size_t i = 0; i < t->n_values; ++i) {
        const char* key = t->values[i]->key ? t->values[i]->key : "";
        if (i) out->push_back(',');
        out->push_back('[');
        AppendJsonString(out, key);
        out->push_back(',');
        GRAFT_RETURN_IF_ERROR(WriteStructure(t->values[i]->value, JoinPath(path, key), out, flat, depth + 1));
        out->push_back(']');
      }
      out->append("]}");
      return Status::Ok();
    }
    default:
      // Composite values (sparse and ragged tensors, datasets) and shapes: described, not flattened.
      out->append(StrCat("{\"unsupported\":", static_cast<int>(v->kind_case), "}"));
      return Status::Ok();
  }
}

// The argument names of a FunctionSpec's FullArgSpec (without `self` for a method).
std::vector<std::string> ArgNames(const Graftpb__FunctionSpec* spec) {
  std::vector<std::string> names;
  if (spec == nullptr || spec->fullargspec == nullptr ||
      spec->fullargspec->kind_case != GRAFTPB__STRUCTURED_VALUE__KIND_NAMED_TUPLE_VALUE) {
    return names;
  }
  const Graftpb__NamedTupleValue* t = spec->fullargspec->named_tuple_value;
  for (size_t i = 0; i < t->n_values; ++i) {
    const Graftpb__StructuredValue* v = t->values[i]->value;
    if (t->values[i]->key == nullptr || std::string_view(t->values[i]->key) != "args" || v == nullptr) continue;
    Graftpb__StructuredValue** items = nullptr;
    size_t n = 0;
    if (v->kind_case == GRAFTPB__STRUCTURED_VALUE__KIND_LIST_VALUE) {
      items = v->list_value->values;
      n = v->list_value->n_values;
    } else if (v->kind_case == GRAFTPB__STRUCTURED_VALUE__KIND_TUPLE_VALUE) {
      items = v->tuple_value->values;
      n = v->tuple_value->n_values;
    }
    for (size_t k = spec->is_method ? 1 : 0; k < n; ++k) {
      if (items[k]->kind_case == GRAFTPB__STRUCTURED_VALUE__KIND_STRING_VALUE) names.emplace_back(items[k]->string_value);
    }
  }
  return names;
}

std::string NamesJson(const std::vector<std::string>& names) {
  std::string s = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) s.push_back(',');
    AppendJsonString(&s, names[i]);
  }
  s.push_back(']');
  return s;
}

// ---- Restoring -------------------------------------------------------------------------------

class ObjectGraphRestorer {
 public:
  ObjectGraphRestorer(const Graftpb__MetaGraphDef* mg, const std::string& dir, Graph* graph, Session* session)
      : mg_(mg), og_(mg->object_graph_def), dir_(dir), graph_(*graph), session_(*session) {}

  Status Run(const std::string& prefix, std::vector<SavedObject>* objects, std::vector<Signature>* functions) {
    if (og_ == nullptr) return Status::Ok();
    if (!prefix.empty()) {
      GRAFT_RETURN_IF_ERROR(checkpoint::TensorBundleReader::Open(prefix, &reader_));
      GRAFT_RETURN_IF_ERROR(ReadTrackableGraph(*reader_, &tg_));
    }
    for (size_t i = 0; i < og_->n_concrete_functions; ++i) {
      const auto* e = og_->concrete_functions[i];
      if (e->key != nullptr && e->value != nullptr) saved_functions_[e->key] = e->value;
    }
    GRAFT_RETURN_IF_ERROR(BindCapturedHandles());
    objects_.resize(og_->n_nodes);
    for (size_t i = 0; i < og_->n_nodes; ++i) GRAFT_RETURN_IF_ERROR(RestoreObject(static_cast<int>(i)));
    for (size_t i = 0; i < og_->n_nodes; ++i) GRAFT_RETURN_IF_ERROR(RestoreFunctions(static_cast<int>(i)));
    *objects = std::move(objects_);
    *functions = std::move(functions_);
    return Status::Ok();
  }

 private:
  // The graph's calls (its signatures, the init op's table initializers) capture variable and
  // resource handles for objects: each variable handle gets its object's checkpoint value (the
  // saver's restore function assigns only some of the handles when several stand for one
  // object), and the first handle found becomes the object's.
  Status BindCapturedHandles() {
    for (int64_t n = 0; n < graph_.num_nodes(); ++n) {
      const Node* call = graph_.NodeAt(n);
      if (call == nullptr || (call->type() != "StatefulPartitionedCall" && call->type() != "PartitionedCall")) continue;
      const FuncValue* f = AttrOf<FuncValue>(*call, "f");
      if (f == nullptr) continue;
      auto it = saved_functions_.find(f->name);
      if (it == saved_functions_.end()) continue;
      const Graftpb__SavedConcreteFunction* cf = it->second;
      const int first = call->num_inputs() - static_cast<int>(cf->n_bound_inputs);
      for (size_t k = 0; k < cf->n_bound_inputs && first >= 0; ++k) {
        const Output in = call->input(first + static_cast<int>(k));
        const Node* handle = in.node;
        const int32_t object = cf->bound_inputs[k];
        if (handle == nullptr || !IsObject(object)) continue;
        if (og_->nodes[object]->kind_case == GRAFTPB__SAVED_OBJECT__KIND_RESOURCE &&
            handle->output_type(in.index) == DType::kResource) {
          resource_handles_.emplace(object, in);
          continue;
        }
        if (handle->type() != "VarHandleOp" || og_->nodes[object]->kind_case != GRAFTPB__SAVED_OBJECT__KIND_VARIABLE) {
          continue;
        }
        GRAFT_RETURN_IF_ERROR(RestoreHandle(*handle, object, tg_.get(), reader_.get(), session_.resources()));
        handles_.emplace(object, Output{const_cast<Node*>(handle), 0});
      }
    }
    return Status::Ok();
  }

  bool IsObject(int32_t id) const { return id >= 0 && static_cast<size_t>(id) < og_->n_nodes; }

  Status RestoreObject(int id) {
    const Graftpb__SavedObject* o = og_->nodes[id];
    SavedObject& obj = objects_[id];
    for (size_t c = 0; c < o->n_children; ++c) {
      const auto* ref = o->children[c];
      if (!IsObject(ref->node_id)) {
        return errors::DataLoss("object ", id, " has child '", ref->local_name ? ref->local_name : "", "' -> ",
                                ref->node_id, ", which is not an object of the graph (it has ", og_->n_nodes, ")");
      }
      obj.children.emplace_back(ref->local_name ? ref->local_name : "", ref->node_id);
    }
    switch (o->kind_case) {
      case GRAFTPB__SAVED_OBJECT__KIND_USER_OBJECT: {
        const std::string_view identifier = o->user_object->identifier ? o->user_object->identifier : "";
        obj.kind = identifier == "trackable_list_wrapper"   ? SavedObject::Kind::kList
                   : identifier == "trackable_dict_wrapper" ? SavedObject::Kind::kDict
                   : identifier == "trackable_tuple_wrapper" ? SavedObject::Kind::kTuple
                                                             : SavedObject::Kind::kUserObject;
        return Status::Ok();
      }
      case GRAFTPB__SAVED_OBJECT__KIND_VARIABLE:
        obj.kind = SavedObject::Kind::kVariable;
        return RestoreVariable(id, o->variable, &obj);
      case GRAFTPB__SAVED_OBJECT__KIND_FUNCTION:
        obj.kind = SavedObject::Kind::kFunction;
        return Status::Ok();
      case GRAFTPB__SAVED_OBJECT__KIND_BARE_CONCRETE_FUNCTION:
        obj.kind = SavedObject::Kind::kConcreteFunction;
        return Status::Ok();
      case GRAFTPB__SAVED_OBJECT__KIND_ASSET: {
        obj.kind = SavedObject::Kind::kAsset;
        const int index = o->asset->asset_file_def_index;
        if (index < 0 || static_cast<size_t>(index) >= mg_->n_asset_file_def ||
            mg_->asset_file_def[index]->filename == nullptr) {
          return errors::DataLoss("asset object ", id, " names asset file ", index, ", which the MetaGraph lacks");
        }
        obj.asset_path = StrCat(dir_, "/assets/", mg_->asset_file_def[index]->filename);
        return Status::Ok();
      }
      case GRAFTPB__SAVED_OBJECT__KIND_CONSTANT: {
        obj.kind = SavedObject::Kind::kConstant;
        const char* op = o->constant->operation;
        Node* n = op ? graph_.FindNode(op) : nullptr;
        if (n == nullptr || n->num_outputs() < 1) {
          return errors::DataLoss("constant object ", id, " names op '", op ? op : "", "', which is not in the graph");
        }
        obj.value = Output{n, 0};
        return Status::Ok();
      }
      case GRAFTPB__SAVED_OBJECT__KIND_RESOURCE:
        obj.kind = SavedObject::Kind::kResource;
        return Status::Ok();
      default:
        obj.kind = SavedObject::Kind::kOther;
        return Status::Ok();
    }
  }

  Status RestoreVariable(int id, const Graftpb__SavedVariable* v, SavedObject* obj) {
    obj->variable_name = v->name ? v->name : "";
    obj->trainable = v->trainable;
    const DType dtype = static_cast<DType>(EnumValue(v->dtype));
    if (!IsValidDType(dtype)) return errors::DataLoss("variable object ", id, " has an invalid dtype");
    auto it = handles_.find(id);
    Output handle;
    if (it != handles_.end()) {
      handle = it->second;
    } else {
      // No graph call captures it: a handle of its own, restored from its checkpoint key.
      PartialShape shape = PartialShape::Unknown();
      if (v->shape != nullptr) GRAFT_RETURN_IF_ERROR(ShapeFromProto(v->shape, &shape));
      NodeSpec spec;
      spec.type = "VarHandleOp";
      spec.name = StrCat("saved_objects/", id, "/", obj->variable_name.empty() ? "Variable" : NodeNamePart(obj->variable_name));
      spec.attrs["dtype"] = AttrValue::Type(dtype);
      spec.attrs["shape"] = AttrValue::Shape(shape);
      spec.attrs["shared_name"] = AttrValue::String(StrCat("_graft_saved_object_", id));
      spec.attrs["container"] = AttrValue::String("");
      Node* n = nullptr;
      GRAFT_RETURN_IF_ERROR(graph_.AddNode(std::move(spec), &n).WithContext(StrCat("variable object ", id)));
      GRAFT_RETURN_IF_ERROR(RestoreHandle(*n, id, tg_.get(), reader_.get(), session_.resources()));
      handle = Output{n, 0};
      handles_.emplace(id, handle);
    }
    NodeSpec read;
    read.type = "ReadVariableOp";
    read.name = StrCat("saved_objects/", id, "/read");
    read.inputs.push_back({{handle}, false});
    read.attrs["dtype"] = AttrValue::Type(dtype);
    Node* r = nullptr;
    GRAFT_RETURN_IF_ERROR(graph_.AddNode(std::move(read), &r).WithContext(StrCat("variable object ", id)));
    obj->value = Output{r, 0};
    return Status::Ok();
  }

  Status RestoreFunctions(int id) {
    const Graftpb__SavedObject* o = og_->nodes[id];
    SavedObject& obj = objects_[id];
    if (!obj.functions.empty()) return Status::Ok();  // restored already, for a capture
    if (o->kind_case == GRAFTPB__SAVED_OBJECT__KIND_FUNCTION) {
      std::vector<std::string> arg_names = ArgNames(o->function->function_spec);
      for (size_t k = 0; k < o->function->n_concrete_functions; ++k) {
        int index = -1;
        GRAFT_RETURN_IF_ERROR(FunctionIndex(o->function->concrete_functions[k], arg_names, &index));
        obj.functions.push_back(index);
      }
    } else if (o->kind_case == GRAFTPB__SAVED_OBJECT__KIND_BARE_CONCRETE_FUNCTION) {
      const auto* bare = o->bare_concrete_function;
      std::vector<std::string> arg_names(bare->argument_keywords, bare->argument_keywords + bare->n_argument_keywords);
      if (arg_names.empty()) arg_names = ArgNames(bare->function_spec);
      int index = -1;
      GRAFT_RETURN_IF_ERROR(FunctionIndex(bare->concrete_function_name, arg_names, &index));
      obj.functions.push_back(index);
    }
    return Status::Ok();
  }

  Status FunctionIndex(const char* name, const std::vector<std::string>& arg_names, int* index) {
    if (name == nullptr) return errors::DataLoss("a function object names no concrete function");
    auto it = function_index_.find(name);
    if (it != function_index_.end()) {
      *index = it->second;
      return Status::Ok();
    }
    Signature sig;
    sig.name = name;
    Status s = BuildFunction(arg_names, &sig);
    if (!s.ok()) {
      // Corrupt structure is an error; a function Graft cannot call is reported when called.
      if (s.code() == Code::kDataLoss) return s.WithContext(StrCat("function '", name, "'"));
      sig.unavailable = StrCat("function '", name, "' of the SavedModel cannot be called: ", s.message());
    }
    *index = static_cast<int>(functions_.size());
    function_index_[name] = *index;
    functions_.push_back(std::move(sig));
    return Status::Ok();
  }

  Status BuildFunction(const std::vector<std::string>& arg_names, Signature* sig) {
    auto saved = saved_functions_.find(sig->name);
    if (saved == saved_functions_.end()) return errors::NotFound("the object graph has no signature for it");
    const Graftpb__SavedConcreteFunction* cf = saved->second;
    std::vector<FlatSpec> in_specs, out_specs;
    std::string in_json, out_json;
    GRAFT_RETURN_IF_ERROR(WriteStructure(cf->canonicalized_input_signature, "", &in_json, &in_specs, 0));
    GRAFT_RETURN_IF_ERROR(WriteStructure(cf->output_signature, "", &out_json, &out_specs, 0));
    sig->structure[0] = StrCat("{\"structure\":", in_json, ",\"arg_names\":", NamesJson(arg_names), "}");
    sig->structure[1] = StrCat("{\"structure\":", out_json, "}");

    std::unique_ptr<FunctionBody> body;
    GRAFT_RETURN_IF_ERROR(InstantiateFunction(graph_.library(), graph_.versions(), sig->name, &body));
    const size_t nbound = cf->n_bound_inputs;
    if (body->args.size() != in_specs.size() + nbound) {
      return errors::InvalidArgument("it takes ", body->args.size(), " inputs, but its input signature has ",
                                     in_specs.size(), " tensors and it captures ", nbound, " objects");
    }
    if (body->rets.size() != out_specs.size()) {
      return errors::InvalidArgument("it returns ", body->rets.size(), " tensors, but its output signature has ",
                                     out_specs.size());
    }
    std::vector<Output> inputs;
    std::vector<DType> tin, tout;
    std::set<std::string> keys;
    for (size_t i = 0; i < in_specs.size(); ++i) {
      const DType dtype = body->args[i].node->output_type(body->args[i].index);
      NodeSpec p;
      p.type = "Placeholder";
      p.name = StrCat("saved_functions/", NodeNamePart(sig->name), "/",
                      in_specs[i].name.empty() ? "arg" : NodeNamePart(in_specs[i].name));
      p.attrs["dtype"] = AttrValue::Type(dtype);
      p.attrs["shape"] = AttrValue::Shape(in_specs[i].shape);
      Node* n = nullptr;
      GRAFT_RETURN_IF_ERROR(graph_.AddNode(std::move(p), &n));
      SignatureTensor t;
      t.key = in_specs[i].name;
      if (t.key.empty() || !keys.insert(t.key).second) t.key = StrCat("input_", i);
      t.tensor = Output{n, 0};
      t.tensor_name = StrCat(n->name(), ":0");
      t.dtype = dtype;
      t.shape = in_specs[i].shape;
      inputs.push_back(t.tensor);
      tin.push_back(dtype);
      sig->inputs.push_back(std::move(t));
    }
    for (size_t k = 0; k < nbound; ++k) {
      Output captured;
      GRAFT_RETURN_IF_ERROR(CapturedInput(cf->bound_inputs[k], &captured));
      inputs.push_back(captured);
      tin.push_back(captured.node->output_type(captured.index));
    }
    for (const Output& r : body->rets) tout.push_back(r.node->output_type(r.index));
    NodeSpec call;
    call.type = "StatefulPartitionedCall";
    call.name = StrCat("saved_functions/", NodeNamePart(sig->name), "/call");
    call.inputs.push_back({inputs, true});
    call.attrs["f"] = AttrValue::Func(FuncValue{sig->name, {}});
    call.attrs["Tin"] = AttrValue::TypeList(tin);
    call.attrs["Tout"] = AttrValue::TypeList(tout);
    Node* n = nullptr;
    GRAFT_RETURN_IF_ERROR(graph_.AddNode(std::move(call), &n));
    for (size_t i = 0; i < out_specs.size(); ++i) {
      SignatureTensor t;
      t.key = out_specs[i].path.empty() ? StrCat("output_", i) : out_specs[i].path;
      t.tensor = Output{n, static_cast<int>(i)};
      t.tensor_name = StrCat(n->name(), ":", i);
      t.dtype = tout[i];
      t.shape = out_specs[i].shape;
      sig->outputs.push_back(std::move(t));
    }
    return Status::Ok();
  }

  // What a concrete function receives for captured object `id`.
  Status CapturedInput(int32_t id, Output* out) {
    if (!IsObject(id)) return errors::DataLoss("it captures object ", id, ", which is not in the object graph");
    const SavedObject& obj = objects_[id];
    switch (obj.kind) {
      case SavedObject::Kind::kVariable:
        *out = handles_.at(id);  // RestoreVariable gave every variable one
        return Status::Ok();
      case SavedObject::Kind::kConstant:
        *out = obj.value;
        return Status::Ok();
      case SavedObject::Kind::kAsset: {
        NodeSpec c;
        c.type = "Const";
        c.name = StrCat("saved_objects/", id, "/path");
        Tensor path;
        GRAFT_RETURN_IF_ERROR(Tensor::FromStrings({}, {obj.asset_path}, &path));
        c.attrs["dtype"] = AttrValue::Type(DType::kString);
        c.attrs["value"] = AttrValue::TensorValue(std::move(path));
        Node* n = nullptr;
        GRAFT_RETURN_IF_ERROR(graph_.AddNode(std::move(c), &n));
        *out = Output{n, 0};
        return Status::Ok();
      }
      case SavedObject::Kind::kResource:
        return ResourceHandle(id, out);
      default:
        return errors::Unimplemented("it captures object ", id,
                                     " (not a variable, resource, constant or asset), which Graft does not restore yet");
    }
  }

  // A resource object's handle: the one the graph's calls capture, or else the result of a call
  // of the object's _create_resource function (which names the same shared resource).
  Status ResourceHandle(int32_t id, Output* out) {
    auto it = resource_handles_.find(id);
    if (it != resource_handles_.end()) {
      *out = it->second;
      return Status::Ok();
    }
    const SavedObject& obj = objects_[id];
    for (const auto& [name, child] : obj.children) {
      if (name != "_create_resource") continue;
      GRAFT_RETURN_IF_ERROR(RestoreFunctions(child));
      if (objects_[child].functions.empty()) continue;
      const std::string fname = functions_[objects_[child].functions[0]].name;
      std::unique_ptr<FunctionBody> body;
      GRAFT_RETURN_IF_ERROR(InstantiateFunction(graph_.library(), graph_.versions(), fname, &body));
      if (!body->args.empty() || body->rets.size() != 1) {
        return errors::InvalidArgument("the _create_resource function of object ", id, " takes ", body->args.size(),
                                       " inputs and returns ", body->rets.size(), " tensors, not none and one");
      }
      NodeSpec call;
      call.type = "StatefulPartitionedCall";
      call.name = StrCat("saved_objects/", id, "/create_resource");
      call.inputs.push_back({{}, true});
      call.attrs["f"] = AttrValue::Func(FuncValue{fname, {}});
      call.attrs["Tin"] = AttrValue::TypeList({});
      call.attrs["Tout"] = AttrValue::TypeList({DType::kResource});
      Node* n = nullptr;
      GRAFT_RETURN_IF_ERROR(graph_.AddNode(std::move(call), &n));
      *out = Output{n, 0};
      resource_handles_.emplace(id, *out);
      return Status::Ok();
    }
    return errors::Unimplemented("it captures resource object ", id,
                                 ", which no graph op makes and which has no _create_resource function");
  }

  const Graftpb__MetaGraphDef* mg_;
  const Graftpb__SavedObjectGraph* og_;
  const std::string& dir_;
  Graph& graph_;
  Session& session_;
  std::unique_ptr<checkpoint::TensorBundleReader> reader_;
  TrackableGraphPtr tg_;
  std::map<std::string, const Graftpb__SavedConcreteFunction*, std::less<>> saved_functions_;
  std::map<int, Output> handles_;  // the first handle found for each variable object
  std::map<int, Output> resource_handles_;  // and for each resource object
  std::vector<SavedObject> objects_;
  std::vector<Signature> functions_;
  std::map<std::string, int, std::less<>> function_index_;
};

}  // namespace

std::string SignatureDefStructure(const std::vector<SignatureTensor>& tensors) {
  std::string s = "{\"structure\":{\"dict\":{";
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (i) s.push_back(',');
    AppendJsonString(&s, tensors[i].key);
    s.append(StrCat(":{\"tensor\":", i, "}"));
  }
  s.append("}}}");
  return s;
}

Status RestoreSavedObjectGraph(const Graftpb__MetaGraphDef* mg, const std::string& dir,
                               const std::string& checkpoint_prefix, Graph* graph, Session* session,
                               std::vector<SavedObject>* objects, std::vector<Signature>* functions) {
  ObjectGraphRestorer restorer(mg, dir, graph, session);
  return restorer.Run(checkpoint_prefix, objects, functions);
}

}  // namespace graft
