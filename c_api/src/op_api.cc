// C API: reading ops and the tensors of a graph (graft/graph.h).
#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "graft/graph.h"
#include "graft/operation.h"

using graft::AttrValue;
using graft::Node;
using graft::Status;
using graft::capi::FromC;
using graft::capi::Guard;
using graft::capi::ToC;

namespace graft::capi {
Status CheckOutput(const graft_output& t, const Graph* graph, std::string_view what);
}

namespace {

Status FindAttr(const graft_op* op, const char* name, graft::AttrType want, const AttrValue** out) {
  GRAFT_CHECK_ARG(op);
  GRAFT_CHECK_ARG(name);
  const Node* n = FromC(op);
  const AttrValue* v = n->attr(name);
  if (v == nullptr) return graft::errors::NotFound(n->type(), " op '", n->name(), "' has no attr '", name, "'");
  if (v->type() != want && !(graft::AttrTypeIsList(want) && v->is_list() && v->list_size() == 0)) {
    return graft::errors::InvalidArgument(n->type(), " op '", n->name(), "': attr '", name, "' is a ",
                                          graft::AttrTypeName(v->type()), ", not a ", graft::AttrTypeName(want));
  }
  *out = v;
  return Status::Ok();
}

// The shared body of the scalar getters.
template <typename T, typename Out, typename Convert>
int GetScalar(const char* fn, Out* out, const graft_op* op, const char* name, graft::AttrType type, Convert convert) {
  return Guard(fn, [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const AttrValue* v = nullptr;
    GRAFT_RETURN_IF_ERROR(FindAttr(op, name, type, &v));
    *out = convert(*v->get<T>());
    return Status::Ok();
  });
}

// The shared body of the list getters that copy into a caller's array.
template <typename T, typename Out, typename Convert>
int GetList(const char* fn, Out* out, int capacity, const graft_op* op, const char* name, graft::AttrType type,
            Convert convert) {
  return Guard(fn, [&]() -> Status {
    const AttrValue* v = nullptr;
    GRAFT_RETURN_IF_ERROR(FindAttr(op, name, type, &v));
    const auto* list = v->get<std::vector<T>>();
    size_t n = list ? list->size() : 0;
    if (static_cast<size_t>(capacity < 0 ? 0 : capacity) < n) {
      return graft::errors::OutOfRange("attr '", name, "' has ", n, " elements, more than the capacity ", capacity);
    }
    if (n > 0) GRAFT_CHECK_ARG(out);
    for (size_t i = 0; i < n; ++i) out[i] = convert((*list)[i]);
    return Status::Ok();
  });
}

template <typename T>
Status ListItem(const graft_op* op, const char* name, graft::AttrType type, int index, const T** out) {
  const AttrValue* v = nullptr;
  GRAFT_RETURN_IF_ERROR(FindAttr(op, name, type, &v));
  const auto* list = v->get<std::vector<T>>();
  if (list == nullptr || index < 0 || static_cast<size_t>(index) >= list->size()) {
    return graft::errors::OutOfRange("index ", index, " is out of range for attr '", name, "' of ",
                                     list ? list->size() : 0, " elements");
  }
  *out = &(*list)[static_cast<size_t>(index)];
  return Status::Ok();
}

template <typename T>
T Same(const T& v) { return v; }

}  // namespace

extern "C" {

GRAFT_API const char* graft_op_name(const graft_op* op) { return op ? FromC(op)->name().c_str() : ""; }
GRAFT_API const char* graft_op_type(const graft_op* op) { return op ? FromC(op)->type().c_str() : ""; }
GRAFT_API const char* graft_op_device(const graft_op* op) { return op ? FromC(op)->device().c_str() : ""; }
GRAFT_API graft_graph* graft_op_graph(const graft_op* op) {
  return op ? graft::capi::HandleOrNull(*FromC(op)->graph()) : nullptr;
}
GRAFT_API int64_t graft_op_id(const graft_op* op) { return op ? FromC(op)->id() : 0; }
GRAFT_API graft_bool graft_op_is_stateful(const graft_op* op) { return op && FromC(op)->def().is_stateful; }

GRAFT_API int graft_op_num_inputs(const graft_op* op) { return op ? FromC(op)->num_inputs() : 0; }

GRAFT_API graft_output graft_op_input(const graft_op* op, int index) {
  if (op == nullptr || index < 0 || index >= FromC(op)->num_inputs()) return graft_output{nullptr, -1};
  return ToC(FromC(op)->input(index));
}

GRAFT_API graft_dtype graft_op_input_dtype(const graft_op* op, int index) {
  if (op == nullptr || index < 0 || index >= FromC(op)->num_inputs()) return GRAFT_DTYPE_INVALID;
  return static_cast<graft_dtype>(FromC(op)->input_type(index));
}

GRAFT_API int graft_op_num_outputs(const graft_op* op) { return op ? FromC(op)->num_outputs() : 0; }

GRAFT_API int graft_op_num_control_inputs(const graft_op* op) {
  return op ? static_cast<int>(FromC(op)->control_inputs().size()) : 0;
}

GRAFT_API graft_op* graft_op_control_input(const graft_op* op, int index) {
  if (op == nullptr || index < 0 || index >= graft_op_num_control_inputs(op)) return nullptr;
  return ToC(FromC(op)->control_inputs()[static_cast<size_t>(index)]);
}

GRAFT_API int graft_op_num_control_outputs(const graft_op* op) {
  return op ? static_cast<int>(FromC(op)->control_outputs().size()) : 0;
}

GRAFT_API graft_op* graft_op_control_output(const graft_op* op, int index) {
  if (op == nullptr || index < 0 || index >= graft_op_num_control_outputs(op)) return nullptr;
  return ToC(FromC(op)->control_outputs()[static_cast<size_t>(index)]);
}

GRAFT_API int graft_op_num_colocation_groups(const graft_op* op) {
  if (op == nullptr) return 0;
  // Counted as Node::colocation_groups() lists them, without making the list (which allocates):
  // the "loc:@" entries of _class, else the op's own group.
  int n = 0;
  if (const AttrValue* cls = FromC(op)->attr("_class")) {
    if (const auto* list = cls->get<std::vector<std::string>>()) {
      for (const std::string& s : *list) n += s.rfind("loc:@", 0) == 0 ? 1 : 0;
    }
  }
  return n > 0 ? n : 1;
}

GRAFT_API int graft_op_colocation_group(char** out, const graft_op* op, int index) {
  return Guard("graft_op_colocation_group", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(op);
    std::vector<std::string> groups = FromC(op)->colocation_groups();
    if (index < 0 || static_cast<size_t>(index) >= groups.size()) {
      return graft::errors::OutOfRange("colocation group ", index, " is out of range: op '", FromC(op)->name(),
                                       "' has ", groups.size());
    }
    *out = graft::capi::CopyString(groups[static_cast<size_t>(index)]);
    return Status::Ok();
  });
}

GRAFT_API int graft_op_num_attrs(const graft_op* op) { return op ? static_cast<int>(FromC(op)->attrs().size()) : 0; }

GRAFT_API const char* graft_op_attr_name(const graft_op* op, int index) {
  if (op == nullptr || index < 0 || index >= graft_op_num_attrs(op)) return nullptr;
  auto it = FromC(op)->attrs().begin();
  std::advance(it, index);
  return it->first.c_str();
}

GRAFT_API int graft_op_attr_type(graft_attr_type* out_type, int* out_list_size, const graft_op* op, const char* name) {
  return Guard("graft_op_attr_type", [&]() -> Status {
    GRAFT_CHECK_ARG(out_type);
    GRAFT_CHECK_ARG(op);
    GRAFT_CHECK_ARG(name);
    const Node* n = FromC(op);
    const AttrValue* v = n->attr(name);
    if (v == nullptr) return graft::errors::NotFound(n->type(), " op '", n->name(), "' has no attr '", name, "'");
    *out_type = static_cast<graft_attr_type>(v->type());
    if (out_list_size) *out_list_size = v->is_list() ? static_cast<int>(v->list_size()) : -1;
    return Status::Ok();
  });
}

GRAFT_API int graft_op_get_attr_int(int64_t* out, const graft_op* op, const char* name) {
  return GetScalar<int64_t>("graft_op_get_attr_int", out, op, name, graft::AttrType::kInt, Same<int64_t>);
}
GRAFT_API int graft_op_get_attr_float(float* out, const graft_op* op, const char* name) {
  return GetScalar<float>("graft_op_get_attr_float", out, op, name, graft::AttrType::kFloat, Same<float>);
}
GRAFT_API int graft_op_get_attr_bool(graft_bool* out, const graft_op* op, const char* name) {
  return GetScalar<bool>("graft_op_get_attr_bool", out, op, name, graft::AttrType::kBool,
                         [](bool b) -> graft_bool { return b ? 1 : 0; });
}
GRAFT_API int graft_op_get_attr_type(graft_dtype* out, const graft_op* op, const char* name) {
  return GetScalar<graft::DType>("graft_op_get_attr_type", out, op, name, graft::AttrType::kType,
                                 [](graft::DType d) { return static_cast<graft_dtype>(d); });
}

GRAFT_API int graft_op_get_attr_string(const char** out, size_t* out_length, const graft_op* op, const char* name) {
  return Guard("graft_op_get_attr_string", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(out_length);
    const AttrValue* v = nullptr;
    GRAFT_RETURN_IF_ERROR(FindAttr(op, name, graft::AttrType::kString, &v));
    *out = v->get<std::string>()->data();
    *out_length = v->get<std::string>()->size();
    return Status::Ok();
  });
}

GRAFT_API int graft_op_get_attr_shape(graft_shape** out, const graft_op* op, const char* name) {
  return Guard("graft_op_get_attr_shape", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const AttrValue* v = nullptr;
    GRAFT_RETURN_IF_ERROR(FindAttr(op, name, graft::AttrType::kShape, &v));
    *out = new graft_shape(*v->get<graft::PartialShape>());
    return Status::Ok();
  });
}

GRAFT_API int graft_op_get_attr_tensor(graft_tensor** out, const graft_op* op, const char* name) {
  return Guard("graft_op_get_attr_tensor", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const AttrValue* v = nullptr;
    GRAFT_RETURN_IF_ERROR(FindAttr(op, name, graft::AttrType::kTensor, &v));
    *out = new graft_tensor(*v->get<graft::Tensor>());
    return Status::Ok();
  });
}

GRAFT_API int graft_op_get_attr_func(const char** out, const graft_op* op, const char* name) {
  return Guard("graft_op_get_attr_func", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const AttrValue* v = nullptr;
    GRAFT_RETURN_IF_ERROR(FindAttr(op, name, graft::AttrType::kFunc, &v));
    *out = v->get<graft::FuncValue>()->name.c_str();
    return Status::Ok();
  });
}

GRAFT_API int graft_op_get_attr_int_list(int64_t* out, int capacity, const graft_op* op, const char* name) {
  return GetList<int64_t>("graft_op_get_attr_int_list", out, capacity, op, name, graft::AttrType::kIntList,
                          Same<int64_t>);
}
GRAFT_API int graft_op_get_attr_float_list(float* out, int capacity, const graft_op* op, const char* name) {
  return GetList<float>("graft_op_get_attr_float_list", out, capacity, op, name, graft::AttrType::kFloatList,
                        Same<float>);
}
GRAFT_API int graft_op_get_attr_bool_list(graft_bool* out, int capacity, const graft_op* op, const char* name) {
  return GetList<bool>("graft_op_get_attr_bool_list", out, capacity, op, name, graft::AttrType::kBoolList,
                       [](bool b) -> graft_bool { return b ? 1 : 0; });
}
GRAFT_API int graft_op_get_attr_type_list(graft_dtype* out, int capacity, const graft_op* op, const char* name) {
  return GetList<graft::DType>("graft_op_get_attr_type_list", out, capacity, op, name, graft::AttrType::kTypeList,
                               [](graft::DType d) { return static_cast<graft_dtype>(d); });
}

GRAFT_API int graft_op_get_attr_string_list_item(const char** out, size_t* out_length, const graft_op* op,
                                                 const char* name, int index) {
  return Guard("graft_op_get_attr_string_list_item", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(out_length);
    const std::string* s = nullptr;
    GRAFT_RETURN_IF_ERROR(ListItem(op, name, graft::AttrType::kStringList, index, &s));
    *out = s->data();
    *out_length = s->size();
    return Status::Ok();
  });
}

GRAFT_API int graft_op_get_attr_shape_list_item(graft_shape** out, const graft_op* op, const char* name, int index) {
  return Guard("graft_op_get_attr_shape_list_item", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const graft::PartialShape* s = nullptr;
    GRAFT_RETURN_IF_ERROR(ListItem(op, name, graft::AttrType::kShapeList, index, &s));
    *out = new graft_shape(*s);
    return Status::Ok();
  });
}

GRAFT_API int graft_op_get_attr_tensor_list_item(graft_tensor** out, const graft_op* op, const char* name, int index) {
  return Guard("graft_op_get_attr_tensor_list_item", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    const graft::Tensor* t = nullptr;
    GRAFT_RETURN_IF_ERROR(ListItem(op, name, graft::AttrType::kTensorList, index, &t));
    *out = new graft_tensor(*t);
    return Status::Ok();
  });
}

GRAFT_API graft_dtype graft_output_dtype(graft_output output) {
  if (!graft::capi::IsOutputOf(output, nullptr)) return GRAFT_DTYPE_INVALID;
  return static_cast<graft_dtype>(FromC(output.op)->output_type(output.index));
}

GRAFT_API int graft_output_shape(graft_shape** out, graft_output output) {
  return Guard("graft_output_shape", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_RETURN_IF_ERROR(graft::capi::CheckOutput(output, nullptr, "the tensor"));
    *out = new graft_shape(FromC(output.op)->output_shape(output.index));
    return Status::Ok();
  });
}

GRAFT_API int graft_output_set_shape(graft_output output, const graft_shape* shape) {
  return Guard("graft_output_set_shape", [&]() -> Status {
    GRAFT_CHECK_ARG(shape);
    GRAFT_RETURN_IF_ERROR(graft::capi::CheckOutput(output, nullptr, "the tensor"));
    Node* n = FromC(output.op);
    return n->graph()->SetShape(FromC(output), shape->shape);
  });
}

GRAFT_API int graft_output_name(char** out, graft_output output) {
  return Guard("graft_output_name", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_RETURN_IF_ERROR(graft::capi::CheckOutput(output, nullptr, "the tensor"));
    *out = graft::capi::CopyString(graft::Graph::TensorName(FromC(output)));
    return Status::Ok();
  });
}

GRAFT_API int graft_output_num_consumers(graft_output output) {
  if (!graft::capi::IsOutputOf(output, nullptr)) return 0;
  return static_cast<int>(FromC(output.op)->consumers(output.index).size());
}

GRAFT_API int graft_output_consumer(graft_op** out_op, int* out_input_index, graft_output output, int index) {
  return Guard("graft_output_consumer", [&]() -> Status {
    GRAFT_CHECK_ARG(out_op);
    GRAFT_CHECK_ARG(out_input_index);
    GRAFT_RETURN_IF_ERROR(graft::capi::CheckOutput(output, nullptr, "the tensor"));
    const auto& uses = FromC(output.op)->consumers(output.index);
    if (index < 0 || static_cast<size_t>(index) >= uses.size()) {
      return graft::errors::OutOfRange("consumer ", index, " is out of range: the tensor has ", uses.size());
    }
    *out_op = ToC(uses[static_cast<size_t>(index)].node);
    *out_input_index = uses[static_cast<size_t>(index)].index;
    return Status::Ok();
  });
}

}  // extern "C"
