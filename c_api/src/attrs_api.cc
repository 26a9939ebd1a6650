// C API: the attrs of an op description or an op call (graft/attrs.h).
#include <string>
#include <vector>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "core/op_registry.h"
#include "graft/attrs.h"

using graft::AttrValue;
using graft::PartialShape;
using graft::Status;
using graft::capi::Guard;

namespace {

// The shared body of the setters: checks the handle and name, makes the value, stores it.
template <typename MakeValue>
int Set(const char* fn, graft_attrs* attrs, const char* name, MakeValue make) {
  return Guard(fn, [&]() -> Status {
    GRAFT_CHECK_ARG(attrs);
    GRAFT_CHECK_ARG(name);
    AttrValue value;
    GRAFT_RETURN_IF_ERROR(make(&value));
    (*attrs->map)[name] = std::move(value);
    if (attrs->changed) attrs->changed(attrs->owner);
    return Status::Ok();
  });
}

Status CheckCount(const void* values, int n) {
  if (n < 0) return graft::errors::InvalidArgument("n is ", n);
  if (n > 0 && values == nullptr) return graft::errors::InvalidArgument("values is NULL with n ", n);
  return Status::Ok();
}

Status MakeShape(const int64_t* dims, int ndims, PartialShape* out) {
  if (ndims > 0 && dims == nullptr) return graft::errors::InvalidArgument("dims is NULL with ndims ", ndims);
  std::span<const int64_t> d;
  if (ndims > 0) d = std::span<const int64_t>(dims, static_cast<size_t>(ndims));
  return PartialShape::Make(d, ndims, out);
}

Status MakeType(graft_dtype value, graft::DType* out) {
  auto d = static_cast<graft::DType>(value);
  if (!graft::IsValidDType(d)) return graft::errors::DTypeError("invalid dtype ", value);
  *out = d;
  return Status::Ok();
}

}  // namespace

extern "C" {

GRAFT_API int graft_attrs_declared_type(graft_attr_type* out_type, const graft_attrs* attrs, const char* name) {
  return Guard("graft_attrs_declared_type", [&]() -> Status {
    GRAFT_CHECK_ARG(out_type);
    GRAFT_CHECK_ARG(attrs);
    GRAFT_CHECK_ARG(name);
    const graft::OpRegistration* reg = graft::OpRegistry::Global().Find(*attrs->op_type);
    if (reg == nullptr) {
      return graft::errors::NotFound("op type '", *attrs->op_type, "' has no definition, so attr '", name,
                                     "' has no declared type");
    }
    const graft::OpAttrDef* def = reg->def.FindAttr(name);
    if (def == nullptr) return graft::errors::NotFound("op type '", *attrs->op_type, "' has no attr '", name, "'");
    *out_type = static_cast<graft_attr_type>(def->type);
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_int(graft_attrs* attrs, const char* name, int64_t value) {
  return Set("graft_attrs_set_int", attrs, name, [&](AttrValue* v) {
    *v = AttrValue::Int(value);
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_float(graft_attrs* attrs, const char* name, float value) {
  return Set("graft_attrs_set_float", attrs, name, [&](AttrValue* v) {
    *v = AttrValue::Float(value);
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_bool(graft_attrs* attrs, const char* name, graft_bool value) {
  return Set("graft_attrs_set_bool", attrs, name, [&](AttrValue* v) {
    *v = AttrValue::Bool(value != 0);
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_type(graft_attrs* attrs, const char* name, graft_dtype value) {
  return Set("graft_attrs_set_type", attrs, name, [&](AttrValue* v) -> Status {
    graft::DType d = graft::DType::kInvalid;
    GRAFT_RETURN_IF_ERROR(MakeType(value, &d));
    *v = AttrValue::Type(d);
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_string(graft_attrs* attrs, const char* name, const void* value, size_t length) {
  return Set("graft_attrs_set_string", attrs, name, [&](AttrValue* v) -> Status {
    if (value == nullptr && length > 0) return graft::errors::InvalidArgument("value is NULL with length ", length);
    *v = AttrValue::String(length ? std::string(static_cast<const char*>(value), length) : std::string());
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_shape(graft_attrs* attrs, const char* name, const int64_t* dims, int ndims) {
  return Set("graft_attrs_set_shape", attrs, name, [&](AttrValue* v) -> Status {
    PartialShape s;
    GRAFT_RETURN_IF_ERROR(MakeShape(dims, ndims, &s));
    *v = AttrValue::Shape(std::move(s));
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_tensor(graft_attrs* attrs, const char* name, const graft_tensor* value) {
  return Set("graft_attrs_set_tensor", attrs, name, [&](AttrValue* v) -> Status {
    GRAFT_CHECK_ARG(value);
    *v = AttrValue::TensorValue(value->tensor);
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_func(graft_attrs* attrs, const char* name, const char* function_name) {
  return Set("graft_attrs_set_func", attrs, name, [&](AttrValue* v) -> Status {
    GRAFT_CHECK_ARG(function_name);
    *v = AttrValue::Func(graft::FuncValue{function_name, {}});
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_int_list(graft_attrs* attrs, const char* name, const int64_t* values, int n) {
  return Set("graft_attrs_set_int_list", attrs, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    *v = AttrValue::IntList(n ? std::vector<int64_t>(values, values + n) : std::vector<int64_t>());
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_float_list(graft_attrs* attrs, const char* name, const float* values, int n) {
  return Set("graft_attrs_set_float_list", attrs, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    *v = AttrValue::FloatList(n ? std::vector<float>(values, values + n) : std::vector<float>());
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_bool_list(graft_attrs* attrs, const char* name, const graft_bool* values, int n) {
  return Set("graft_attrs_set_bool_list", attrs, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    std::vector<bool> b;
    for (int i = 0; i < n; ++i) b.push_back(values[i] != 0);
    *v = AttrValue::BoolList(std::move(b));
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_type_list(graft_attrs* attrs, const char* name, const graft_dtype* values, int n) {
  return Set("graft_attrs_set_type_list", attrs, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    std::vector<graft::DType> types(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      Status s = MakeType(values[i], &types[static_cast<size_t>(i)]);
      if (!s.ok()) return graft::errors::DTypeError("element ", i, ": ", s.message());
    }
    *v = AttrValue::TypeList(std::move(types));
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_string_list(graft_attrs* attrs, const char* name, const void* const* values,
                                          const size_t* lengths, int n) {
  return Set("graft_attrs_set_string_list", attrs, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(values, n));
    if (n > 0 && lengths == nullptr) return graft::errors::InvalidArgument("lengths is NULL with n ", n);
    std::vector<std::string> strings;
    for (int i = 0; i < n; ++i) {
      if (values[i] == nullptr && lengths[i] > 0) {
        return graft::errors::InvalidArgument("values[", i, "] is NULL with length ", lengths[i]);
      }
      strings.emplace_back(lengths[i] ? std::string(static_cast<const char*>(values[i]), lengths[i]) : std::string());
    }
    *v = AttrValue::StringList(std::move(strings));
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_shape_list(graft_attrs* attrs, const char* name, const int64_t* const* dims,
                                         const int* ndims, int n) {
  return Set("graft_attrs_set_shape_list", attrs, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(dims, n));
    if (n > 0 && ndims == nullptr) return graft::errors::InvalidArgument("ndims is NULL with n ", n);
    std::vector<PartialShape> shapes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      Status s = MakeShape(dims[i], ndims[i], &shapes[static_cast<size_t>(i)]);
      if (!s.ok()) return graft::errors::InvalidArgument("shape ", i, ": ", s.message());
    }
    *v = AttrValue::ShapeList(std::move(shapes));
    return Status::Ok();
  });
}

GRAFT_API int graft_attrs_set_tensor_list(graft_attrs* attrs, const char* name, const graft_tensor* const* values,
                                          int n) {
  return Set("graft_attrs_set_tensor_list", attrs, name, [&](AttrValue* v) -> Status {
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

GRAFT_API int graft_attrs_set_func_list(graft_attrs* attrs, const char* name, const char* const* function_names,
                                        int n) {
  return Set("graft_attrs_set_func_list", attrs, name, [&](AttrValue* v) -> Status {
    GRAFT_RETURN_IF_ERROR(CheckCount(function_names, n));
    std::vector<graft::FuncValue> funcs;
    for (int i = 0; i < n; ++i) {
      if (function_names[i] == nullptr) return graft::errors::InvalidArgument("function_names[", i, "] is NULL");
      funcs.push_back(graft::FuncValue{function_names[i], {}});
    }
    *v = AttrValue::FuncList(std::move(funcs));
    return Status::Ok();
  });
}

}  // extern "C"
