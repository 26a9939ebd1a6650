#include "core/function.h"

#include <charconv>
#include <unordered_map>

#include "core/graph_def.h"
#include "core/library_call.h"
#include "core/proto_arena.h"
#include "core/tensor_proto.h"
#include "proto/function.pb-c.h"
#include "proto/graph.pb-c.h"

namespace graft {
namespace {

struct FunctionDefFreer {
  void operator()(Graftpb__FunctionDef* f) const { graftpb__function_def__free_unpacked(f, nullptr); }
};
using FunctionDefPtr = std::unique_ptr<Graftpb__FunctionDef, FunctionDefFreer>;

const Graftpb__AttrValue* FindAttrProto(const Graftpb__NodeDef* n, std::string_view key) {
  for (size_t i = 0; i < n->n_attr; ++i) {
    if (n->attr[i]->key != nullptr && key == n->attr[i]->key) return n->attr[i]->value;
  }
  return nullptr;
}

// How many tensors output argument `arg` of an op has, from the node's attrs or the op's
// defaults (`N * T` and `Tlist` arguments are lists).
Status OutputArgLength(const OpDef& def, const OpArgDef& arg, const Graftpb__NodeDef* n, int64_t* out) {
  *out = 1;
  if (!arg.number_attr.empty()) {
    const Graftpb__AttrValue* v = FindAttrProto(n, arg.number_attr);
    if (v != nullptr && v->value_case == GRAFTPB__ATTR_VALUE__VALUE_I) {
      *out = v->i;
      return Status::Ok();
    }
    const OpAttrDef* a = def.FindAttr(arg.number_attr);
    const int64_t* d = a && a->default_value ? a->default_value->get<int64_t>() : nullptr;
    if (d == nullptr) return errors::InvalidArgument("attr '", arg.number_attr, "' is missing");
    *out = *d;
  } else if (!arg.type_list_attr.empty()) {
    const Graftpb__AttrValue* v = FindAttrProto(n, arg.type_list_attr);
    if (v != nullptr && v->value_case == GRAFTPB__ATTR_VALUE__VALUE_LIST) {
      *out = static_cast<int64_t>(v->list->n_type);
      return Status::Ok();
    }
    const OpAttrDef* a = def.FindAttr(arg.type_list_attr);
    const auto* d = a && a->default_value ? a->default_value->get<std::vector<DType>>() : nullptr;
    if (d == nullptr) return errors::InvalidArgument("attr '", arg.type_list_attr, "' is missing");
    *out = static_cast<int64_t>(d->size());
  }
  return Status::Ok();
}

bool ParseIndex(std::string_view text, int64_t* out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size() && *out >= 0;
}

// Rewrites FunctionDef tensor references ("arg", "node:out_arg:i") into graph references
// ("node:flat_index").
class ReferenceResolver {
 public:
  ReferenceResolver(const Graftpb__FunctionDef* fd, const FunctionLibrary& library) : library_(library) {
    for (size_t i = 0; i < fd->n_node_def; ++i) {
      if (fd->node_def[i]->name) nodes_[fd->node_def[i]->name] = fd->node_def[i];
    }
    const Graftpb__OpDef* sig = fd->signature;
    for (size_t i = 0; i < sig->n_input_arg; ++i) {
      if (sig->input_arg[i]->name) args_.emplace(sig->input_arg[i]->name);
    }
  }

  Status Resolve(std::string_view ref, std::string* out) const {
    if (!ref.empty() && ref[0] == '^') {
      *out = std::string(ref);
      return Status::Ok();
    }
    size_t first = ref.find(':');
    if (first == std::string_view::npos) {
      if (!args_.count(std::string(ref)) && !nodes_.count(std::string(ref))) {
        return errors::NotFound("'", ref, "' is neither an argument nor a node of the function");
      }
      *out = std::string(ref);
      return Status::Ok();
    }
    size_t second = ref.find(':', first + 1);
    std::string node(ref.substr(0, first));
    if (second == std::string_view::npos) {  // "name:i", as in a GraphDef
      *out = std::string(ref);
      return Status::Ok();
    }
    std::string_view out_arg = ref.substr(first + 1, second - first - 1);
    int64_t index = 0;
    if (!ParseIndex(ref.substr(second + 1), &index)) {
      return errors::InvalidArgument("'", ref, "' is not 'node:output:index'");
    }
    auto it = nodes_.find(node);
    if (it == nodes_.end()) return errors::NotFound("'", ref, "' refers to node '", node, "', which is not in the function");
    const Graftpb__NodeDef* n = it->second;
    const OpRegistration* reg = OpRegistry::Global().Find(n->op ? n->op : "");
    if (reg == nullptr && library_.Find(n->op ? n->op : "") != nullptr) return ResolveCallOutput(ref, node, out_arg, index, *n, out);
    if (reg == nullptr) {
      return errors::Unimplemented("'", ref, "': node '", node, "' has op '", n->op ? n->op : "",
                                   "', which is not a registered op");
    }
    int64_t flat = 0;
    for (const OpArgDef& arg : reg->def.outputs) {
      int64_t len = 0;
      GRAFT_RETURN_IF_ERROR(OutputArgLength(reg->def, arg, n, &len).WithContext(StrCat("node '", node, "'")));
      if (arg.name == out_arg) {
        if (index >= len) {
          return errors::NotFound("'", ref, "': output '", out_arg, "' of node '", node, "' has ", len, " tensor",
                                  len == 1 ? "" : "s");
        }
        *out = StrCat(node, ":", flat + index);
        return Status::Ok();
      }
      flat += len;
    }
    return errors::NotFound("'", ref, "': op '", n->op, "' of node '", node, "' has no output '", out_arg, "'");
  }

 private:
  // A node calling a library function by name (see core/library_call.h): its outputs are the
  // function's results, one tensor each.
  Status ResolveCallOutput(std::string_view ref, const std::string& node, std::string_view out_arg, int64_t index,
                           const Graftpb__NodeDef& n, std::string* out) const {
    LibrarySignature sig;
    GRAFT_RETURN_IF_ERROR(ReadLibrarySignature(*library_.Find(n.op), &sig).WithContext(StrCat("node '", node, "'")));
    for (size_t i = 0; i < sig.ret_names.size(); ++i) {
      if (sig.ret_names[i] != out_arg) continue;
      if (index != 0) return errors::NotFound("'", ref, "': result '", out_arg, "' of function '", n.op, "' is one tensor");
      *out = StrCat(node, ":", i);
      return Status::Ok();
    }
    return errors::NotFound("'", ref, "': function '", n.op, "' called by node '", node, "' has no result '", out_arg, "'");
  }

  const FunctionLibrary& library_;
  std::unordered_map<std::string, const Graftpb__NodeDef*> nodes_;
  std::unordered_set<std::string> args_;
};

Status BuildBody(const FunctionLibrary& library, const GraphDefVersions& versions, const Graftpb__FunctionDef* fd,
                 FunctionBody* body) {
  const Graftpb__OpDef* sig = fd->signature;
  ReferenceResolver resolver(fd, library);
  ProtoArena arena;
  Graftpb__GraphDef* gd = arena.New(graftpb__graph_def__init);
  gd->n_node = sig->n_input_arg + fd->n_node_def;
  gd->node = arena.Array<Graftpb__NodeDef*>(gd->n_node);
  size_t k = 0;
  for (size_t i = 0; i < sig->n_input_arg; ++i) {
    const Graftpb__OpDef__ArgDef* a = sig->input_arg[i];
    std::string name = a->name ? a->name : "";
    if (name.empty()) return errors::InvalidArgument("input argument ", i, " has no name");
    DType t = static_cast<DType>(EnumValue(a->type));
    if (a->is_ref || (a->number_attr && *a->number_attr) || (a->type_list_attr && *a->type_list_attr) ||
        !IsValidDType(t)) {
      return errors::Unimplemented("input argument '", name,
                                   "' is polymorphic or a list (only arguments of a fixed dtype are supported)");
    }
    Graftpb__NodeDef* nd = arena.New(graftpb__node_def__init);
    nd->name = arena.Str(name);
    nd->op = arena.Str("Placeholder");
    auto* entry = arena.New(graftpb__node_def__attr_entry__init);
    entry->key = arena.Str("dtype");
    entry->value = arena.New(graftpb__attr_value__init);
    entry->value->value_case = GRAFTPB__ATTR_VALUE__VALUE_TYPE;
    entry->value->type = a->type;
    nd->n_attr = 1;
    nd->attr = arena.Array<Graftpb__NodeDef__AttrEntry*>(1);
    nd->attr[0] = entry;
    gd->node[k++] = nd;
    body->arg_names.push_back(std::move(name));
  }
  for (size_t i = 0; i < fd->n_node_def; ++i) {
    const Graftpb__NodeDef* orig = fd->node_def[i];
    Graftpb__NodeDef* nd = arena.New(graftpb__node_def__init);
    *nd = *orig;  // shallow: only the inputs are rewritten
    nd->input = arena.Array<char*>(orig->n_input);
    for (size_t j = 0; j < orig->n_input; ++j) {
      std::string ref;
      GRAFT_RETURN_IF_ERROR(resolver.Resolve(orig->input[j] ? orig->input[j] : "", &ref)
                                .WithContext(StrCat("node '", orig->name ? orig->name : "", "' input ", j)));
      nd->input[j] = arena.Str(ref);
    }
    gd->node[k++] = nd;
  }

  body->graph = std::make_unique<Graph>();
  body->graph->set_versions(versions);
  body->graph->SetLibrary(library);
  ImportOptions options;
  options.prefix = "";
  GRAFT_RETURN_IF_ERROR(ImportGraphDefMessage(body->graph.get(), gd, options, nullptr));
  for (const std::string& name : body->arg_names) body->args.push_back(Output{body->graph->FindNode(name), 0});

  for (size_t i = 0; i < sig->n_output_arg; ++i) {
    std::string name = sig->output_arg[i]->name ? sig->output_arg[i]->name : "";
    const char* ref = nullptr;
    for (size_t r = 0; r < fd->n_ret; ++r) {
      if (fd->ret[r]->key && name == fd->ret[r]->key) ref = fd->ret[r]->value;
    }
    if (ref == nullptr) return errors::NotFound("output '", name, "' has no entry in the function's ret map");
    std::string resolved;
    GRAFT_RETURN_IF_ERROR(resolver.Resolve(ref, &resolved).WithContext(StrCat("output '", name, "'")));
    size_t colon = resolved.rfind(':');
    int64_t index = 0;
    std::string node = resolved;
    if (colon != std::string::npos && ParseIndex(std::string_view(resolved).substr(colon + 1), &index)) {
      node = resolved.substr(0, colon);
    }
    Node* n = body->graph->FindNode(node);
    if (n == nullptr || index >= n->num_outputs()) {
      return errors::NotFound("output '", name, "' refers to '", ref, "', which does not exist");
    }
    body->rets.push_back(Output{n, static_cast<int>(index)});
    body->ret_names.push_back(std::move(name));
  }
  for (size_t r = 0; r < fd->n_control_ret; ++r) {
    const char* node = fd->control_ret[r]->value;
    Node* n = node ? body->graph->FindNode(node) : nullptr;
    if (n == nullptr) {
      return errors::NotFound("control output '", fd->control_ret[r]->key ? fd->control_ret[r]->key : "",
                              "' refers to node '", node ? node : "", "', which is not in the function");
    }
    body->targets.push_back(n);
  }
  for (int64_t i = 0; i < body->graph->num_nodes(); ++i) {
    const Node* n = body->graph->NodeAt(i);
    if (n->def().is_stateful && n->type() != "Placeholder") body->targets.push_back(n);
  }
  return Status::Ok();
}

}  // namespace

Status InstantiateFunction(const FunctionLibrary& library, const GraphDefVersions& versions, std::string_view name,
                           std::unique_ptr<FunctionBody>* out) {
  const LibraryFunction* lf = library.Find(name);
  if (lf == nullptr) return errors::NotFound("function '", name, "' is not in the graph's function library");
  FunctionDefPtr fd(graftpb__function_def__unpack(nullptr, lf->function_def.size(),
                                                  reinterpret_cast<const uint8_t*>(lf->function_def.data())));
  if (!fd || fd->signature == nullptr) return errors::DataLoss("function '", name, "' does not parse");
  auto body = std::make_unique<FunctionBody>();
  body->name = std::string(name);
  GRAFT_RETURN_IF_ERROR(
      BuildBody(library, versions, fd.get(), body.get()).WithContext(StrCat("function '", name, "'")));
  *out = std::move(body);
  return Status::Ok();
}

}  // namespace graft
