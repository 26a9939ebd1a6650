#include "core/library_call.h"

#include <memory>

#include "core/op_registry.h"
#include "core/tensor_proto.h"
#include "proto/function.pb-c.h"

namespace graft {
namespace {

struct FunctionDefFreer {
  void operator()(Graftpb__FunctionDef* f) const { graftpb__function_def__free_unpacked(f, nullptr); }
};

Status ReadArgs(Graftpb__OpDef__ArgDef** args, size_t n, const char* kind, std::vector<std::string>* names,
                std::vector<DType>* types) {
  for (size_t i = 0; i < n; ++i) {
    const Graftpb__OpDef__ArgDef* a = args[i];
    std::string name = a->name ? a->name : "";
    DType t = static_cast<DType>(EnumValue(a->type));
    if (a->is_ref || (a->number_attr && *a->number_attr) || (a->type_list_attr && *a->type_list_attr) ||
        !IsValidDType(t)) {
      return errors::Unimplemented(kind, " '", name,
                                   "' is polymorphic or a list (calls support arguments and results of a fixed dtype)");
    }
    names->push_back(std::move(name));
    types->push_back(t);
  }
  return Status::Ok();
}

}  // namespace

Status ReadLibrarySignature(const LibraryFunction& f, LibrarySignature* out) {
  std::unique_ptr<Graftpb__FunctionDef, FunctionDefFreer> fd(graftpb__function_def__unpack(
      nullptr, f.function_def.size(), reinterpret_cast<const uint8_t*>(f.function_def.data())));
  if (!fd || fd->signature == nullptr) return errors::DataLoss("function '", f.name, "' does not parse");
  const Graftpb__OpDef* sig = fd->signature;
  LibrarySignature s;
  s.name = f.name;
  if (sig->n_attr > 0) {
    return errors::Unimplemented("function '", f.name, "' has attrs (",
                                 sig->attr[0]->name ? sig->attr[0]->name : "",
                                 ", ...): calls of polymorphic functions are not supported");
  }
  GRAFT_RETURN_IF_ERROR(ReadArgs(sig->input_arg, sig->n_input_arg, "argument", &s.arg_names, &s.arg_types)
                            .WithContext(StrCat("function '", f.name, "'")));
  GRAFT_RETURN_IF_ERROR(ReadArgs(sig->output_arg, sig->n_output_arg, "result", &s.ret_names, &s.ret_types)
                            .WithContext(StrCat("function '", f.name, "'")));
  // A hand-written FunctionDef may leave is_stateful unset around a stateful op; the call must
  // still not be merged with another or dropped.
  s.stateful = sig->is_stateful;
  for (size_t i = 0; i < fd->n_node_def && !s.stateful; ++i) {
    const OpRegistration* reg = OpRegistry::Global().Find(fd->node_def[i]->op ? fd->node_def[i]->op : "");
    s.stateful = reg != nullptr && reg->def.is_stateful;
  }
  *out = std::move(s);
  return Status::Ok();
}

Status RewriteAsLibraryCall(const LibraryFunction& f, NodeSpec* spec) {
  LibrarySignature sig;
  GRAFT_RETURN_IF_ERROR(ReadLibrarySignature(f, &sig));
  const std::vector<Output>& inputs = spec->inputs[0].tensors;
  if (inputs.size() != sig.arg_types.size()) {
    return errors::InvalidArgument("calls function '", f.name, "' with ", inputs.size(), " input",
                                   inputs.size() == 1 ? "" : "s", ", but the function takes ", sig.arg_types.size(),
                                   " argument", sig.arg_types.size() == 1 ? "" : "s");
  }
  std::vector<DType> tin;
  for (size_t i = 0; i < inputs.size(); ++i) {
    DType t = DType::kInvalid;
    if (inputs[i].node != nullptr) {
      t = inputs[i].node->output_type(inputs[i].index);
    } else if (auto p = spec->pending_types.find(static_cast<int>(i)); p != spec->pending_types.end()) {
      t = p->second;
    }
    if (BaseDType(t) != sig.arg_types[i]) {
      return errors::DTypeError("calls function '", f.name, "': argument '", sig.arg_names[i], "' is ",
                                DTypeName(sig.arg_types[i]), ", but input ", i, " is ", DTypeName(t));
    }
    tin.push_back(sig.arg_types[i]);
  }
  for (const auto& [key, value] : spec->attrs) {
    if (key.empty() || key[0] != '_') {
      return errors::InvalidArgument("calls function '", f.name, "' with attr '", key,
                                     "', which the function does not declare");
    }
  }
  spec->type = sig.stateful ? "StatefulPartitionedCall" : "PartitionedCall";
  spec->attrs["Tin"] = AttrValue::TypeList(std::move(tin));
  spec->attrs["Tout"] = AttrValue::TypeList(sig.ret_types);
  spec->attrs["f"] = AttrValue::Func(FuncValue{f.name, {}});
  return Status::Ok();
}

}  // namespace graft
