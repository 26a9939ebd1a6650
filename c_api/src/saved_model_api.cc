// C API: SavedModels and signatures (graft/saved_model.h).
#include <memory>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "c_api/src/run_options_api.h"
#include "core/saved_model.h"
#include "core/saved_model_writer.h"
#include "graft/saved_model.h"

using graft::Status;
using graft::capi::Guard;

// A signature handle stands for the core Signature it points at.
struct graft_signature {
  const graft::Signature* sig;
};

struct graft_saved_model {
  std::shared_ptr<graft::Graph> graph = std::make_shared<graft::Graph>();
  std::unique_ptr<graft_session> session;
  std::unique_ptr<graft::SavedModel> model;
  std::vector<graft_signature> signatures;  // one per model signature, same order
  std::vector<graft_signature> functions;   // one per restored concrete function, same order
};

struct graft_signature_def {
  graft::SignatureSpec spec;
  const graft::Graph* graph = nullptr;  // of the first tensor added
};

namespace {

const graft::SignatureTensor* At(const graft_signature* s, int io, int i) {
  if (s == nullptr || i < 0) return nullptr;
  const auto* list = io == GRAFT_SIGNATURE_INPUT ? &s->sig->inputs : io == GRAFT_SIGNATURE_OUTPUT ? &s->sig->outputs : nullptr;
  if (list == nullptr || static_cast<size_t>(i) >= list->size()) return nullptr;
  return &(*list)[static_cast<size_t>(i)];
}

Status CheckAt(const graft_signature* s, int io, int i, const graft::SignatureTensor** out) {
  GRAFT_CHECK_ARG(s);
  if (io != GRAFT_SIGNATURE_INPUT && io != GRAFT_SIGNATURE_OUTPUT) {
    return graft::errors::InvalidArgument("io is ", io, ", not GRAFT_SIGNATURE_INPUT or GRAFT_SIGNATURE_OUTPUT");
  }
  *out = At(s, io, i);
  if (*out == nullptr) {
    return graft::errors::OutOfRange("signature '", s->sig->name, "' has no ", io == GRAFT_SIGNATURE_INPUT ? "input " : "output ", i);
  }
  return Status::Ok();
}

Status FindObject(const graft_saved_model* model, const char* path, const graft::SavedObject** out) {
  GRAFT_CHECK_ARG(model);
  GRAFT_CHECK_ARG(path);
  int id = 0;
  GRAFT_RETURN_IF_ERROR(model->model->FindObject(path, &id));
  *out = &model->model->objects()[static_cast<size_t>(id)];
  return Status::Ok();
}

}  // namespace

extern "C" {

GRAFT_API int graft_saved_model_load(graft_saved_model** out, const char* dir, const char* const* tags, int ntags,
                                     const graft_session_options* options) {
  return Guard("graft_saved_model_load", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(dir);
    if (ntags < 0) return graft::errors::InvalidArgument("ntags is ", ntags);
    if (ntags > 0) GRAFT_CHECK_ARG(tags);
    std::vector<std::string> t;
    for (int i = 0; i < ntags; ++i) {
      if (tags[i] == nullptr) return graft::errors::InvalidArgument("tag ", i, " is NULL");
      t.emplace_back(tags[i]);
    }
    graft::SessionOptions o;
    bool track = false;
    GRAFT_RETURN_IF_ERROR(graft::capi::SessionOptionsFromC(options, &o, &track));
    auto m = std::make_unique<graft_saved_model>();
    m->session = std::make_unique<graft_session>(m->graph, o, track);
    GRAFT_RETURN_IF_ERROR(m->session->session.init_status());
    GRAFT_RETURN_IF_ERROR(graft::SavedModel::Load(dir, std::move(t), m->graph.get(), &m->session->session, &m->model));
    for (const graft::Signature& s : m->model->signatures()) m->signatures.push_back(graft_signature{&s});
    for (const graft::Signature& s : m->model->functions()) m->functions.push_back(graft_signature{&s});
    *out = m.release();
    return Status::Ok();
  });
}

GRAFT_API void graft_saved_model_free(graft_saved_model* model) {
  if (model == nullptr) return;
  // The session goes before the graph it runs.
  model->model.reset();
  model->session.reset();
  delete model;
}

GRAFT_API int graft_saved_model_list_tags(char** out, const char* dir) {
  return Guard("graft_saved_model_list_tags", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(dir);
    std::vector<std::vector<std::string>> sets;
    GRAFT_RETURN_IF_ERROR(graft::ReadSavedModelTags(dir, &sets));
    std::string text;
    for (const auto& set : sets) {
      for (size_t i = 0; i < set.size(); ++i) {
        if (i) text.push_back(',');
        text.append(set[i]);
      }
      text.push_back('\n');
    }
    *out = graft::capi::CopyString(text);
    return Status::Ok();
  });
}

GRAFT_API graft_graph* graft_saved_model_graph(graft_saved_model* model) {
  return model ? graft::capi::HandleOrNull(*model->graph) : nullptr;
}
GRAFT_API graft_session* graft_saved_model_session(graft_saved_model* model) {
  return model ? model->session.get() : nullptr;
}

GRAFT_API int graft_saved_model_num_signatures(const graft_saved_model* model) {
  return model ? static_cast<int>(model->signatures.size()) : 0;
}

GRAFT_API const graft_signature* graft_saved_model_signature_at(const graft_saved_model* model, int i) {
  if (model == nullptr || i < 0 || static_cast<size_t>(i) >= model->signatures.size()) return nullptr;
  return &model->signatures[static_cast<size_t>(i)];
}

GRAFT_API int graft_saved_model_signature(const graft_signature** out, const graft_saved_model* model, const char* name) {
  return Guard("graft_saved_model_signature", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(model);
    GRAFT_CHECK_ARG(name);
    std::string names;
    for (const graft_signature& s : model->signatures) {
      if (s.sig->name == name) {
        *out = &s;
        return Status::Ok();
      }
      if (!names.empty()) names.append(", ");
      names.append(s.sig->name);
    }
    return graft::errors::NotFound("the model has no signature '", name, "' (it has: ", names, ")");
  });
}

GRAFT_API const char* graft_signature_name(const graft_signature* s) { return s ? s->sig->name.c_str() : nullptr; }
GRAFT_API const char* graft_signature_method_name(const graft_signature* s) {
  return s ? s->sig->method_name.c_str() : nullptr;
}
GRAFT_API int graft_signature_count(const graft_signature* s, int io) {
  if (s == nullptr) return -1;
  if (io == GRAFT_SIGNATURE_INPUT) return static_cast<int>(s->sig->inputs.size());
  if (io == GRAFT_SIGNATURE_OUTPUT) return static_cast<int>(s->sig->outputs.size());
  return -1;
}
GRAFT_API const char* graft_signature_key(const graft_signature* s, int io, int i) {
  const graft::SignatureTensor* t = At(s, io, i);
  return t ? t->key.c_str() : nullptr;
}
GRAFT_API const char* graft_signature_tensor_name(const graft_signature* s, int io, int i) {
  const graft::SignatureTensor* t = At(s, io, i);
  return t ? t->tensor_name.c_str() : nullptr;
}
GRAFT_API graft_dtype graft_signature_dtype(const graft_signature* s, int io, int i) {
  const graft::SignatureTensor* t = At(s, io, i);
  return t ? static_cast<graft_dtype>(t->dtype) : GRAFT_DTYPE_INVALID;
}
GRAFT_API int graft_signature_shape(graft_shape** out, const graft_signature* s, int io, int i) {
  return Guard("graft_signature_shape", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const graft::SignatureTensor* t = nullptr;
    GRAFT_RETURN_IF_ERROR(CheckAt(s, io, i, &t));
    *out = new graft_shape(t->shape);
    return Status::Ok();
  });
}
GRAFT_API int graft_signature_tensor(graft_output* out, const graft_signature* s, int io, int i) {
  return Guard("graft_signature_tensor", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const graft::SignatureTensor* t = nullptr;
    GRAFT_RETURN_IF_ERROR(CheckAt(s, io, i, &t));
    *out = graft::capi::ToC(t->tensor);
    return Status::Ok();
  });
}

static Status SavedModelRun(graft_tensor** out_values, graft_saved_model* model, const char* signature,
                            const char* const* input_keys, graft_tensor* const* inputs, int ninputs,
                            const char* const* output_keys, int noutputs, const graft_run_options* options) {
  graft::RunControl control;
  GRAFT_RETURN_IF_ERROR(graft::capi::RunControlFromC(options, &control));
  GRAFT_CHECK_ARG(out_values);
  GRAFT_CHECK_ARG(model);
  GRAFT_CHECK_ARG(signature);
  if (ninputs < 0 || noutputs < 0) return graft::errors::InvalidArgument("a count is negative");
  if (ninputs > 0) {
    GRAFT_CHECK_ARG(input_keys);
    GRAFT_CHECK_ARG(inputs);
  }
  if (noutputs > 0) GRAFT_CHECK_ARG(output_keys);
  std::vector<std::pair<std::string, graft::Tensor>> in;
  for (int i = 0; i < ninputs; ++i) {
    if (input_keys[i] == nullptr) return graft::errors::InvalidArgument("input key ", i, " is NULL");
    if (inputs[i] == nullptr) return graft::errors::InvalidArgument("input ", i, " ('", input_keys[i], "') is NULL");
    in.emplace_back(input_keys[i], inputs[i]->tensor);
  }
  std::vector<std::string> keys;
  for (int i = 0; i < noutputs; ++i) {
    if (output_keys[i] == nullptr) return graft::errors::InvalidArgument("output key ", i, " is NULL");
    keys.emplace_back(output_keys[i]);
  }
  std::vector<graft::Tensor> values;
  GRAFT_RETURN_IF_ERROR(model->model->Run(signature, in, keys, &values, &control));
  std::vector<std::unique_ptr<graft_tensor>> handles;
  for (graft::Tensor& v : values) handles.push_back(std::make_unique<graft_tensor>(std::move(v)));
  for (size_t i = 0; i < handles.size(); ++i) out_values[i] = handles[i].release();
  return Status::Ok();
}

GRAFT_API int graft_saved_model_run(graft_tensor** out_values, graft_saved_model* model, const char* signature,
                                    const char* const* input_keys, graft_tensor* const* inputs, int ninputs,
                                    const char* const* output_keys, int noutputs) {
  return Guard("graft_saved_model_run", [&] {
    return SavedModelRun(out_values, model, signature, input_keys, inputs, ninputs, output_keys, noutputs, nullptr);
  });
}

GRAFT_API int graft_saved_model_run_with_options(graft_tensor** out_values, graft_saved_model* model,
                                                 const char* signature, const char* const* input_keys,
                                                 graft_tensor* const* inputs, int ninputs,
                                                 const char* const* output_keys, int noutputs,
                                                 const graft_run_options* options) {
  return Guard("graft_saved_model_run_with_options", [&] {
    return SavedModelRun(out_values, model, signature, input_keys, inputs, ninputs, output_keys, noutputs, options);
  });
}

GRAFT_API int graft_saved_model_object_kind(graft_saved_object_kind* out, const graft_saved_model* model,
                                           const char* path) {
  return Guard("graft_saved_model_object_kind", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const graft::SavedObject* o = nullptr;
    GRAFT_RETURN_IF_ERROR(FindObject(model, path, &o));
    using Kind = graft::SavedObject::Kind;
    switch (o->kind) {
      case Kind::kUserObject: *out = GRAFT_SAVED_OBJECT_USER; break;
      case Kind::kList: *out = GRAFT_SAVED_OBJECT_LIST; break;
      case Kind::kDict: *out = GRAFT_SAVED_OBJECT_DICT; break;
      case Kind::kTuple: *out = GRAFT_SAVED_OBJECT_TUPLE; break;
      case Kind::kVariable: *out = GRAFT_SAVED_OBJECT_VARIABLE; break;
      case Kind::kFunction: *out = GRAFT_SAVED_OBJECT_FUNCTION; break;
      case Kind::kConcreteFunction: *out = GRAFT_SAVED_OBJECT_CONCRETE_FUNCTION; break;
      case Kind::kAsset: *out = GRAFT_SAVED_OBJECT_ASSET; break;
      case Kind::kConstant: *out = GRAFT_SAVED_OBJECT_CONSTANT; break;
      case Kind::kResource: *out = GRAFT_SAVED_OBJECT_RESOURCE; break;
      case Kind::kOther: *out = GRAFT_SAVED_OBJECT_OTHER; break;
    }
    return Status::Ok();
  });
}

GRAFT_API int graft_saved_model_object_id(int* out, const graft_saved_model* model, const char* path) {
  return Guard("graft_saved_model_object_id", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const graft::SavedObject* o = nullptr;
    GRAFT_RETURN_IF_ERROR(FindObject(model, path, &o));
    *out = static_cast<int>(o - model->model->objects().data());
    return Status::Ok();
  });
}

GRAFT_API int graft_saved_model_object_children(char** out, const graft_saved_model* model, const char* path) {
  return Guard("graft_saved_model_object_children", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const graft::SavedObject* o = nullptr;
    GRAFT_RETURN_IF_ERROR(FindObject(model, path, &o));
    std::string text;
    for (const auto& child : o->children) {
      text.append(child.first);
      text.push_back('\n');
    }
    *out = graft::capi::CopyString(text);
    return Status::Ok();
  });
}

GRAFT_API int graft_saved_model_function_count(int* out, const graft_saved_model* model, const char* path) {
  return Guard("graft_saved_model_function_count", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const graft::SavedObject* o = nullptr;
    GRAFT_RETURN_IF_ERROR(FindObject(model, path, &o));
    *out = static_cast<int>(o->functions.size());
    return Status::Ok();
  });
}

GRAFT_API int graft_saved_model_function_at(const graft_signature** out, const graft_saved_model* model,
                                            const char* path, int i) {
  return Guard("graft_saved_model_function_at", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const graft::SavedObject* o = nullptr;
    GRAFT_RETURN_IF_ERROR(FindObject(model, path, &o));
    if (o->functions.empty()) return graft::errors::InvalidArgument("object '", path, "' is not a function");
    if (i < 0 || static_cast<size_t>(i) >= o->functions.size()) {
      return graft::errors::OutOfRange("function '", path, "' has ", o->functions.size(),
                                       " concrete functions, not one at index ", i);
    }
    *out = &model->functions[static_cast<size_t>(o->functions[static_cast<size_t>(i)])];
    return Status::Ok();
  });
}

GRAFT_API int graft_saved_model_variable_read(graft_tensor** out, graft_saved_model* model, const char* path) {
  return Guard("graft_saved_model_variable_read", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(model);
    GRAFT_CHECK_ARG(path);
    graft::Tensor value;
    GRAFT_RETURN_IF_ERROR(model->model->ReadVariable(path, &value));
    *out = new graft_tensor(std::move(value));
    return Status::Ok();
  });
}

GRAFT_API int graft_saved_model_asset_path(char** out, const graft_saved_model* model, const char* path) {
  return Guard("graft_saved_model_asset_path", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const graft::SavedObject* o = nullptr;
    GRAFT_RETURN_IF_ERROR(FindObject(model, path, &o));
    if (o->kind != graft::SavedObject::Kind::kAsset) return graft::errors::InvalidArgument("object '", path, "' is not an asset");
    *out = graft::capi::CopyString(o->asset_path);
    return Status::Ok();
  });
}

GRAFT_API int graft_signature_structure(char** out, const graft_signature* s, graft_signature_io io) {
  return Guard("graft_signature_structure", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(s);
    if (io != GRAFT_SIGNATURE_INPUT && io != GRAFT_SIGNATURE_OUTPUT) {
      return graft::errors::InvalidArgument("io is ", io, ", not GRAFT_SIGNATURE_INPUT or GRAFT_SIGNATURE_OUTPUT");
    }
    *out = graft::capi::CopyString(s->sig->structure[io == GRAFT_SIGNATURE_INPUT ? 0 : 1]);
    return Status::Ok();
  });
}

GRAFT_API int graft_signature_def_new(graft_signature_def** out, const char* name, const char* method_name) {
  return Guard("graft_signature_def_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(name);
    if (*name == '\0') return graft::errors::InvalidArgument("the signature name is empty");
    auto d = std::make_unique<graft_signature_def>();
    d->spec.name = name;
    if (method_name != nullptr) d->spec.method_name = method_name;
    *out = d.release();
    return Status::Ok();
  });
}

GRAFT_API void graft_signature_def_free(graft_signature_def* def) { delete def; }

GRAFT_API int graft_signature_def_add(graft_signature_def* def, int io, const char* key, graft_output tensor) {
  return Guard("graft_signature_def_add", [&]() -> Status {
    GRAFT_CHECK_ARG(def);
    GRAFT_CHECK_ARG(key);
    if (io != GRAFT_SIGNATURE_INPUT && io != GRAFT_SIGNATURE_OUTPUT) {
      return graft::errors::InvalidArgument("io is ", io, ", not GRAFT_SIGNATURE_INPUT or GRAFT_SIGNATURE_OUTPUT");
    }
    if (*key == '\0') return graft::errors::InvalidArgument("the key is empty");
    if (tensor.op == nullptr) return graft::errors::InvalidArgument("tensor '", key, "' has no op");
    graft::Output t = graft::capi::FromC(tensor);
    if (t.index < 0 || t.index >= t.node->num_outputs()) {
      return graft::errors::OutOfRange("tensor '", key, "': op '", t.node->name(), "' has no output ", t.index);
    }
    auto& side = io == GRAFT_SIGNATURE_INPUT ? def->spec.inputs : def->spec.outputs;
    for (const auto& kv : side) {
      if (kv.first == key) {
        return graft::errors::AlreadyExists("signature '", def->spec.name, "' already has ",
                                            io == GRAFT_SIGNATURE_INPUT ? "input" : "output", " '", key, "'");
      }
    }
    side.emplace_back(key, t);
    return Status::Ok();
  });
}

GRAFT_API int graft_saved_model_save(graft_session* session, const char* dir, const char* const* tags, int ntags,
                                     const graft_signature_def* const* signatures, int nsignatures) {
  return Guard("graft_saved_model_save", [&]() -> Status {
    GRAFT_CHECK_ARG(session);
    GRAFT_CHECK_ARG(dir);
    if (ntags < 0 || nsignatures < 0) return graft::errors::InvalidArgument("a count is negative");
    if (ntags > 0) GRAFT_CHECK_ARG(tags);
    if (nsignatures > 0) GRAFT_CHECK_ARG(signatures);
    std::vector<std::string> t;
    for (int i = 0; i < ntags; ++i) {
      if (tags[i] == nullptr) return graft::errors::InvalidArgument("tag ", i, " is NULL");
      t.emplace_back(tags[i]);
    }
    std::vector<graft::SignatureSpec> specs;
    for (int i = 0; i < nsignatures; ++i) {
      if (signatures[i] == nullptr) return graft::errors::InvalidArgument("signature ", i, " is NULL");
      specs.push_back(signatures[i]->spec);
    }
    return graft::SaveSavedModel(session->session, dir, std::move(t), specs);
  });
}

}  // extern "C"
