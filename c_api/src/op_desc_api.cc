// C API: describing and creating ops (graft/graph.h).
#include <memory>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "graft/graph.h"

using graft::AttrValue;
using graft::Node;
using graft::PartialShape;
using graft::Status;
using graft::capi::FromC;
using graft::capi::Guard;
using graft::capi::ToC;

namespace graft::capi {
Status CheckOutput(const graft_output& t, const Graph* graph, std::string_view what);
}

namespace {

// The shared body of the attr setters.
template <typename MakeValue>
int SetAttr(const char* fn, graft_op_desc* desc, const char* name, MakeValue make) {
  return Guard(fn, [&]() -> Status {
    GRAFT_CHECK_ARG(desc);
    GRAFT_CHECK_ARG(name);
    AttrValue value;
    GRAFT_RETURN_IF_ERROR(make(&value));
    desc->spec.attrs[name] = std::move(value);
    return Status::Ok();
  });
}

Status MakeShape(const int64_t* dims, int ndims, PartialShape* out) {
  if (ndims > 0 && dims == nullptr) return graft::errors::InvalidArgument("dims is NULL with ndims ", ndims);
  std::span<const int64_t> d;
  if (ndims > 0) d = std::span<const int64_t>(dims, static_cast<size_t>(ndims));
  return PartialShape::Make(d, ndims, out);
}

Status CheckCount(const void* values, int n) {
  if (n < 0) return graft::errors::InvalidArgument("n is ", n);
  if (n > 0 && values == nullptr) return graft::errors::InvalidArgument("values is NULL with n ", n);
  return Status::Ok();
}

}  // namespace

extern "C" {

GRAFT_API int graft_op_desc_new(graft_op_desc** out, graft_graph* graph, const char* op_type, const char* name) {
  return Guard("graft_op_desc_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(op_type);
    auto desc = std::make_unique<graft_op_desc>();
    desc->graph = graph;
    desc->spec.type = op_type;
    if (name) desc->spec.name = name;
    *out = desc.release();
    return Status::Ok();
  });
}

GRAFT_API void graft_op_desc_free(graft_op_desc* desc) { delete desc; }

GRAFT_API int graft_op_desc_add_input(graft_op_desc* desc, graft_output input) {
  return Guard("graft_op_desc_add_input", [&]() -> Status {
    GRAFT_CHECK_ARG(desc);
    GRAFT_RETURN_IF_ERROR(graft::capi::CheckOutput(
        input, &desc->graph->graph, graft::StrCat("input ", desc->spec.inputs.size(), " of op '", desc->spec.name, "'")));
    desc->spec.inputs.push_back(graft::NodeSpec::InputArg{{FromC(input)}, false});
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_add_input_list(graft_op_desc* desc, const graft_output* inputs, int n) {
  return Guard("graft_op_desc_add_input_list", [&]() -> Status {
    GRAFT_CHECK_ARG(desc);
    GRAFT_RETURN_IF_ERROR(CheckCount(inputs, n));
    graft::NodeSpec::InputArg arg;
    arg.is_list = true;
    for (int i = 0; i < n; ++i) {
      GRAFT_RETURN_IF_ERROR(graft::capi::CheckOutput(
          inputs[i], &desc->graph->graph,
          graft::StrCat("element ", i, " of input list ", desc->spec.inputs.size(), " of op '", desc->spec.name, "'")));
      arg.tensors.push_back(FromC(inputs[i]));
    }
    desc->spec.inputs.push_back(std::move(arg));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_add_control_input(graft_op_desc* desc, graft_op* op) {
  return Guard("graft_op_desc_add_control_input", [&]() -> Status {
    GRAFT_CHECK_ARG(desc);
    GRAFT_CHECK_ARG(op);
    if (FromC(op)->graph() != &desc->graph->graph) {
      return graft::errors::InvalidArgument("control input '", FromC(op)->name(), "' is from another graph");
    }
    desc->spec.control_inputs.push_back(FromC(op));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_device(graft_op_desc* desc, const char* device) {
  return Guard("graft_op_desc_set_device", [&]() -> Status {
    GRAFT_CHECK_ARG(desc);
    desc->spec.device = device ? device : "";
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_int(graft_op_desc* desc, const char* name, int64_t value) {
  return SetAttr("graft_op_desc_set_attr_int", desc, name, [&](AttrValue* v) {
    *v = AttrValue::Int(value);
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_float(graft_op_desc* desc, const char* name, float value) {
  return SetAttr("graft_op_desc_set_attr_float", desc, name, [&](AttrValue* v) {
    *v = AttrValue::Float(value);
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_bool(graft_op_desc* desc, const char* name, graft_bool value) {
  return SetAttr("graft_op_desc_set_attr_bool", desc, name, [&](AttrValue* v) {
    *v = AttrValue::Bool(value != 0);
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_type(graft_op_desc* desc, const char* name, graft_dtype value) {
  return SetAttr("graft_op_desc_set_attr_type", desc, name, [&](AttrValue* v) -> Status {
    if (!graft::IsValidDType(static_cast<graft::DType>(value))) {
      return graft::errors::DTypeError("attr '", name, "': invalid dtype ", value);
    }
    *v = AttrValue::Type(static_cast<graft::DType>(value));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_string(graft_op_desc* desc, const char* name, const void* value, size_t length) {
  return SetAttr("graft_op_desc_set_attr_string", desc, name, [&](AttrValue* v) -> Status {
    if (value == nullptr && length > 0) return graft::errors::InvalidArgument("value is NULL with length ", length);
    *v = AttrValue::String(std::string(static_cast<const char*>(value), length));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_shape(graft_op_desc* desc, const char* name, const int64_t* dims, int ndims) {
  return SetAttr("graft_op_desc_set_attr_shape", desc, name, [&](AttrValue* v) -> Status {
    PartialShape s;
    GRAFT_RETURN_IF_ERROR(MakeShape(dims, ndims, &s));
    *v = AttrValue::Shape(std::move(s));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_tensor(graft_op_desc* desc, const char* name, const graft_tensor* value) {
  return SetAttr("graft_op_desc_set_attr_tensor", desc, name, [&](AttrValue* v) -> Status {
    GRAFT_CHECK_ARG(value);
    *v = AttrValue::TensorValue(value->tensor);
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_func(graft_op_desc* desc, const char* name, const char* function_name) {
  return SetAttr("graft_op_desc_set_attr_func", desc, name, [&](AttrValue* v) -> Status {
    GRAFT_CHECK_ARG(function_name);
    *v = AttrValue::Func(graft::FuncValue{function_name, {}});
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_int_list(graft_op_desc* desc, const char* name, const int64_t* values, int n) {
  return SetAttr("graft_op_desc_set_attr_int_list", desc, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    *v = AttrValue::IntList(std::vector<int64_t>(values, values + n));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_float_list(graft_op_desc* desc, const char* name, const float* values, int n) {
  return SetAttr("graft_op_desc_set_attr_float_list", desc, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    *v = AttrValue::FloatList(std::vector<float>(values, values + n));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_bool_list(graft_op_desc* desc, const char* name, const graft_bool* values, int n) {
  return SetAttr("graft_op_desc_set_attr_bool_list", desc, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    std::vector<bool> b;
    for (int i = 0; i < n; ++i) b.push_back(values[i] != 0);
    *v = AttrValue::BoolList(std::move(b));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_type_list(graft_op_desc* desc, const char* name, const graft_dtype* values, int n) {
  return SetAttr("graft_op_desc_set_attr_type_list", desc, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    std::vector<graft::DType> types;
    for (int i = 0; i < n; ++i) {
      if (!graft::IsValidDType(static_cast<graft::DType>(values[i]))) {
        return graft::errors::DTypeError("attr '", name, "': element ", i, " is the invalid dtype ", values[i]);
      }
      types.push_back(static_cast<graft::DType>(values[i]));
    }
    *v = AttrValue::TypeList(std::move(types));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_string_list(graft_op_desc* desc, const char* name, const void* const* values,
                                                 const size_t* lengths, int n) {
  return SetAttr("graft_op_desc_set_attr_string_list", desc, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    if (n > 0) GRAFT_CHECK_ARG(lengths);
    std::vector<std::string> strings;
    for (int i = 0; i < n; ++i) {
      if (values[i] == nullptr && lengths[i] > 0) return graft::errors::InvalidArgument("values[", i, "] is NULL");
      strings.emplace_back(static_cast<const char*>(values[i]), lengths[i]);
    }
    *v = AttrValue::StringList(std::move(strings));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_shape_list(graft_op_desc* desc, const char* name, const int64_t* const* dims,
                                                const int* ndims, int n) {
  return SetAttr("graft_op_desc_set_attr_shape_list", desc, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(ndims, n));
    if (n > 0) GRAFT_CHECK_ARG(dims);
    std::vector<PartialShape> shapes;
    for (int i = 0; i < n; ++i) {
      PartialShape s;
      GRAFT_RETURN_IF_ERROR(MakeShape(dims[i], ndims[i], &s).WithContext(graft::StrCat("shape ", i)));
      shapes.push_back(std::move(s));
    }
    *v = AttrValue::ShapeList(std::move(shapes));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_set_attr_tensor_list(graft_op_desc* desc, const char* name,
                                                 const graft_tensor* const* values, int n) {
  return SetAttr("graft_op_desc_set_attr_tensor_list", desc, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    std::vector<graft::Tensor> tensors;
    for (int i = 0; i < n; ++i) {
      if (values[i] == nullptr) return graft::errors::InvalidArgument("values[", i, "] is NULL");
      tensors.push_back(values[i]->tensor);
    }
    *v = AttrValue::TensorList(std::move(tensors));
    return Status::Ok();
  });
}

GRAFT_API int graft_op_desc_finish(graft_op** out, graft_op_desc* desc) {
  std::unique_ptr<graft_op_desc> owned(desc);  // consumed whatever happens
  return Guard("graft_op_desc_finish", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(desc);
    Node* node = nullptr;
    desc->spec.check_kernels = true;
    GRAFT_RETURN_IF_ERROR(desc->graph->graph.AddNode(std::move(desc->spec), &node));
    *out = ToC(node);
    return Status::Ok();
  });
}

}  // extern "C"
