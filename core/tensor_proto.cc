#include "core/tensor_proto.h"

#include <algorithm>
#include <cstring>

namespace graft {
namespace {

// Fills n elements of type T from `count` typed values read by get(i), repeating the last.
template <typename T, typename Get>
void FillTyped(Tensor& t, size_t count, Get get) {
  T* data = t.data<T>();
  size_t n = static_cast<size_t>(t.num_elements());
  if (n == 0) return;
  if (count == 0) return;  // already zero
  for (size_t i = 0; i < n; ++i) data[i] = get(std::min(i, count - 1));
}

// The number of typed values a proto carries for a dtype (complex values count pairs).
size_t TypedCount(const Graftpb__TensorProto* p, DType d) {
  switch (d) {
    case DType::kFloat32: return p->n_float_val;
    case DType::kFloat64: return p->n_double_val;
    case DType::kInt32: case DType::kInt16: case DType::kInt8: case DType::kUInt8: case DType::kUInt16:
    case DType::kQInt8: case DType::kQUInt8: case DType::kQInt16: case DType::kQUInt16: case DType::kQInt32:
      return p->n_int_val;
    case DType::kInt64: return p->n_int64_val;
    case DType::kUInt32: return p->n_uint32_val;
    case DType::kUInt64: return p->n_uint64_val;
    case DType::kBool: return p->n_bool_val;
    case DType::kFloat16: case DType::kBFloat16: return p->n_half_val;
    case DType::kComplex64: return p->n_scomplex_val / 2;
    case DType::kComplex128: return p->n_dcomplex_val / 2;
    case DType::kString: return p->n_string_val;
    default: return 0;
  }
}

void FillFromTyped(const Graftpb__TensorProto* p, DType d, size_t count, Tensor& t) {
  switch (d) {
    case DType::kFloat32: FillTyped<float>(t, count, [p](size_t i) { return p->float_val[i]; }); break;
    case DType::kFloat64: FillTyped<double>(t, count, [p](size_t i) { return p->double_val[i]; }); break;
    case DType::kInt32: case DType::kQInt32:
      FillTyped<int32_t>(t, count, [p](size_t i) { return p->int_val[i]; });
      break;
    case DType::kInt16: case DType::kQInt16:
      FillTyped<int16_t>(t, count, [p](size_t i) { return static_cast<int16_t>(p->int_val[i]); });
      break;
    case DType::kUInt16: case DType::kQUInt16:
      FillTyped<uint16_t>(t, count, [p](size_t i) { return static_cast<uint16_t>(p->int_val[i]); });
      break;
    case DType::kInt8: case DType::kQInt8:
      FillTyped<int8_t>(t, count, [p](size_t i) { return static_cast<int8_t>(p->int_val[i]); });
      break;
    case DType::kUInt8: case DType::kQUInt8:
      FillTyped<uint8_t>(t, count, [p](size_t i) { return static_cast<uint8_t>(p->int_val[i]); });
      break;
    case DType::kInt64: FillTyped<int64_t>(t, count, [p](size_t i) { return p->int64_val[i]; }); break;
    case DType::kUInt32: FillTyped<uint32_t>(t, count, [p](size_t i) { return p->uint32_val[i]; }); break;
    case DType::kUInt64: FillTyped<uint64_t>(t, count, [p](size_t i) { return p->uint64_val[i]; }); break;
    case DType::kBool: FillTyped<bool>(t, count, [p](size_t i) { return p->bool_val[i] != 0; }); break;
    case DType::kFloat16: case DType::kBFloat16:
      // The 16 bits of each value sit in the low half of an int32.
      FillTyped<uint16_t>(t, count, [p](size_t i) { return static_cast<uint16_t>(p->half_val[i]); });
      break;
    case DType::kComplex64:
      FillTyped<std::complex<float>>(t, count, [p](size_t i) {
        return std::complex<float>(p->scomplex_val[2 * i], p->scomplex_val[2 * i + 1]);
      });
      break;
    case DType::kComplex128:
      FillTyped<std::complex<double>>(t, count, [p](size_t i) {
        return std::complex<double>(p->dcomplex_val[2 * i], p->dcomplex_val[2 * i + 1]);
      });
      break;
    default:
      break;
  }
}

}  // namespace

Status ShapeFromProto(const Graftpb__TensorShapeProto* proto, PartialShape* out) {
  if (proto == nullptr) {
    *out = PartialShape::Scalar();  // an absent shape message is the empty (scalar) shape
    return Status::Ok();
  }
  if (proto->unknown_rank) {
    if (proto->n_dim != 0) return errors::InvalidArgument("a shape with unknown_rank has ", proto->n_dim, " dims");
    *out = PartialShape::Unknown();
    return Status::Ok();
  }
  if (proto->n_dim > 1024) return errors::InvalidArgument("a shape of rank ", proto->n_dim, " is too large");
  std::vector<int64_t> dims;
  for (size_t i = 0; i < proto->n_dim; ++i) {
    int64_t d = proto->dim[i]->size;
    if (d < -1) return errors::InvalidArgument("dimension ", i, " of a shape is ", d);
    dims.push_back(d);
  }
  *out = PartialShape(std::move(dims));
  return Status::Ok();
}

Graftpb__TensorShapeProto* ShapeToProto(const PartialShape& shape, ProtoArena& arena) {
  auto* p = arena.New(graftpb__tensor_shape_proto__init);
  if (!shape.known_rank()) {
    p->unknown_rank = 1;
    return p;
  }
  p->n_dim = shape.dims().size();
  p->dim = arena.Array<Graftpb__TensorShapeProto__Dim*>(p->n_dim);
  for (size_t i = 0; i < p->n_dim; ++i) {
    p->dim[i] = arena.New(graftpb__tensor_shape_proto__dim__init);
    p->dim[i]->size = shape.dims()[i];
  }
  return p;
}

int32_t EnumValue(const Graftpb__DataType& field) {
  int32_t v;
  static_assert(sizeof(field) == sizeof(v), "protobuf-c enums are int-sized");
  std::memcpy(&v, &field, sizeof v);
  return v;
}

Status TensorFromProto(const Graftpb__TensorProto* p, Tensor* out) {
  if (p == nullptr) return errors::InvalidArgument("missing tensor");
  DType dtype = static_cast<DType>(EnumValue(p->dtype));
  if (!IsValidDType(dtype) || IsRefDType(dtype)) {
    return errors::DTypeError("tensor has the invalid dtype ", EnumValue(p->dtype));
  }
  if (dtype == DType::kResource || dtype == DType::kVariant) {
    return errors::Unimplemented("tensor values of dtype ", DTypeName(dtype), " are not supported here");
  }
  PartialShape shape;
  GRAFT_RETURN_IF_ERROR(ShapeFromProto(p->tensor_shape, &shape).WithContext("tensor_shape"));
  if (!shape.IsFullyDefined()) {
    return errors::InvalidArgument("a tensor value must have a fully defined shape, not ", shape.ToString());
  }
  int64_t n = 0;
  GRAFT_RETURN_IF_ERROR(CheckedNumElements(shape.dims(), &n).WithContext("tensor_shape"));
  size_t count = TypedCount(p, dtype);
  if (dtype == DType::kComplex64 && p->n_scomplex_val % 2 != 0) {
    return errors::InvalidArgument("scomplex_val has an odd number of values (", p->n_scomplex_val, ")");
  }
  if (dtype == DType::kComplex128 && p->n_dcomplex_val % 2 != 0) {
    return errors::InvalidArgument("dcomplex_val has an odd number of values (", p->n_dcomplex_val, ")");
  }
  // An empty tensor ignores its values, as TensorFlow's: a splat value on shape (0, 10^12) is
  // an empty tensor. Otherwise more values than elements is an error.
  if (count > static_cast<uint64_t>(n) && n != 0) {
    return errors::InvalidArgument("tensor of shape ", shape.ToString(), " has ", count, " values, more than its ", n,
                                   " elements");
  }

  if (dtype == DType::kString) {
    if (p->tensor_content.len > 0) {
      return errors::Unimplemented("string tensors given as tensor_content are not supported");
    }
    // Bounded: each repeated string is at most as long as the input message, and when the
    // last value is repeated each element costs its std::string too, so a splat of a billion
    // empty strings (32 GB of std::string objects from a few bytes of proto) is refused
    // before any loop over them. (Without repetition the strings are the message's own.)
    const bool splat = count < static_cast<uint64_t>(n);
    if (splat && static_cast<uint64_t>(n) > kMaxExpandedTensorBytes / sizeof(std::string)) {
      return errors::InvalidArgument("string tensor of shape ", shape.ToString(), " would need more than ",
                                     kMaxExpandedTensorBytes, " bytes (", n, " strings from ", count, " values)");
    }
    size_t total = splat ? static_cast<size_t>(n) * sizeof(std::string) : 0;
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      size_t len = count ? p->string_val[std::min(i, count - 1)].len : 0;
      total += len;
      if (total > kMaxExpandedTensorBytes) {
        return errors::InvalidArgument("string tensor of shape ", shape.ToString(), " would need more than ",
                                       kMaxExpandedTensorBytes, " bytes");
      }
    }
    std::vector<std::string> strings;
    strings.reserve(static_cast<size_t>(n));
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      if (count == 0) {
        strings.emplace_back();
      } else {
        const ProtobufCBinaryData& b = p->string_val[std::min(i, count - 1)];
        strings.emplace_back(reinterpret_cast<const char*>(b.data), b.len);
      }
    }
    return Tensor::FromStrings(shape.dims(), std::move(strings), out);
  }

  int64_t elements = 0;
  size_t bytes = 0;
  GRAFT_RETURN_IF_ERROR(FixedSizeByteCount(dtype, shape.dims(), &elements, &bytes));
  if (p->tensor_content.len > 0) {
    if (p->tensor_content.len != bytes) {
      return errors::InvalidArgument("tensor_content has ", p->tensor_content.len, " bytes, but ", n, " elements of ",
                                     DTypeName(dtype), " take ", bytes);
    }
    Tensor t;
    GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(dtype, shape.dims(), &t));
    std::memcpy(t.raw_data(), p->tensor_content.data, bytes);
    if (dtype == DType::kBool) {
      // Bytes other than 0 and 1 are not valid bools: normalise them.
      auto* b = static_cast<uint8_t*>(t.raw_data());
      for (size_t i = 0; i < bytes; ++i) b[i] = b[i] != 0;
    }
    *out = std::move(t);
    return Status::Ok();
  }
  if (bytes > kMaxExpandedTensorBytes && count < static_cast<uint64_t>(n)) {
    return errors::InvalidArgument("tensor of shape ", shape.ToString(), " with ", count, " values would expand to ",
                                   bytes, " bytes, more than the limit of ", kMaxExpandedTensorBytes);
  }
  Tensor t;
  GRAFT_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape.dims(), &t));
  FillFromTyped(p, dtype, count, t);
  *out = std::move(t);
  return Status::Ok();
}

Status TensorToProto(const Tensor& t, ProtoArena& arena, Graftpb__TensorProto** out) {
  auto* p = arena.New(graftpb__tensor_proto__init);
  p->dtype = static_cast<Graftpb__DataType>(t.dtype());
  p->tensor_shape = ShapeToProto(t.shape(), arena);
  size_t n = static_cast<size_t>(t.num_elements());
  if (t.dtype() == DType::kString) {
    const auto& strings = t.strings();
    p->n_string_val = strings.size();
    p->string_val = arena.Array<ProtobufCBinaryData>(strings.size());
    for (size_t i = 0; i < strings.size(); ++i) {
      p->string_val[i].len = strings[i].size();
      p->string_val[i].data = arena.Bytes(strings[i].data(), strings[i].size());
    }
    *out = p;
    return Status::Ok();
  }
  if (n == 0) {
    *out = p;
    return Status::Ok();
  }
  if (n > 1) {
    p->tensor_content.len = t.byte_size();
    p->tensor_content.data = arena.Bytes(t.raw_data(), t.byte_size());
    *out = p;
    return Status::Ok();
  }
  // One element: the typed field, as TensorFlow writes scalars.
  const void* v = t.raw_data();
  auto one = [&](auto value, auto** field, size_t* count) {
    using T = std::decay_t<decltype(value)>;
    *field = arena.Array<T>(1);
    (*field)[0] = value;
    *count = 1;
  };
  switch (t.dtype()) {
    case DType::kFloat32: one(*static_cast<const float*>(v), &p->float_val, &p->n_float_val); break;
    case DType::kFloat64: one(*static_cast<const double*>(v), &p->double_val, &p->n_double_val); break;
    case DType::kInt32: case DType::kQInt32: one(*static_cast<const int32_t*>(v), &p->int_val, &p->n_int_val); break;
    case DType::kInt16: case DType::kQInt16:
      one(static_cast<int32_t>(*static_cast<const int16_t*>(v)), &p->int_val, &p->n_int_val);
      break;
    case DType::kUInt16: case DType::kQUInt16:
      one(static_cast<int32_t>(*static_cast<const uint16_t*>(v)), &p->int_val, &p->n_int_val);
      break;
    case DType::kInt8: case DType::kQInt8:
      one(static_cast<int32_t>(*static_cast<const int8_t*>(v)), &p->int_val, &p->n_int_val);
      break;
    case DType::kUInt8: case DType::kQUInt8:
      one(static_cast<int32_t>(*static_cast<const uint8_t*>(v)), &p->int_val, &p->n_int_val);
      break;
    case DType::kInt64: one(*static_cast<const int64_t*>(v), &p->int64_val, &p->n_int64_val); break;
    case DType::kUInt32: one(*static_cast<const uint32_t*>(v), &p->uint32_val, &p->n_uint32_val); break;
    case DType::kUInt64: one(*static_cast<const uint64_t*>(v), &p->uint64_val, &p->n_uint64_val); break;
    case DType::kBool:
      one(static_cast<protobuf_c_boolean>(*static_cast<const uint8_t*>(v) != 0), &p->bool_val, &p->n_bool_val);
      break;
    case DType::kFloat16: case DType::kBFloat16:
      one(static_cast<int32_t>(*static_cast<const uint16_t*>(v)), &p->half_val, &p->n_half_val);
      break;
    case DType::kComplex64: {
      const auto* c = static_cast<const float*>(v);
      p->scomplex_val = arena.Array<float>(2);
      p->scomplex_val[0] = c[0];
      p->scomplex_val[1] = c[1];
      p->n_scomplex_val = 2;
      break;
    }
    case DType::kComplex128: {
      const auto* c = static_cast<const double*>(v);
      p->dcomplex_val = arena.Array<double>(2);
      p->dcomplex_val[0] = c[0];
      p->dcomplex_val[1] = c[1];
      p->n_dcomplex_val = 2;
      break;
    }
    default:
      return errors::Unimplemented("cannot write a tensor of dtype ", DTypeName(t.dtype()));
  }
  *out = p;
  return Status::Ok();
}

namespace {

Status FuncFromProto(const Graftpb__NameAttrList* p, FuncValue* out) {
  if (p == nullptr) return errors::InvalidArgument("missing func value");
  out->name = p->name ? p->name : "";
  out->attrs.clear();
  for (size_t i = 0; i < p->n_attr; ++i) {
    AttrValue v;
    std::string key = p->attr[i]->key ? p->attr[i]->key : "";
    GRAFT_RETURN_IF_ERROR(AttrFromProto(p->attr[i]->value, &v).WithContext(StrCat("func attr '", key, "'")));
    out->attrs.emplace_back(std::move(key), std::move(v));
  }
  std::sort(out->attrs.begin(), out->attrs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return Status::Ok();
}

Status FuncToProto(const FuncValue& f, ProtoArena& arena, Graftpb__NameAttrList** out) {
  auto* p = arena.New(graftpb__name_attr_list__init);
  p->name = arena.Str(f.name);
  p->n_attr = f.attrs.size();
  p->attr = arena.Array<Graftpb__NameAttrList__AttrEntry*>(f.attrs.size());
  for (size_t i = 0; i < f.attrs.size(); ++i) {
    p->attr[i] = arena.New(graftpb__name_attr_list__attr_entry__init);
    p->attr[i]->key = arena.Str(f.attrs[i].first);
    GRAFT_RETURN_IF_ERROR(AttrToProto(f.attrs[i].second, arena, &p->attr[i]->value));
  }
  *out = p;
  return Status::Ok();
}

DType CheckedDType(const Graftpb__DataType& t, Status* s) {
  DType d = static_cast<DType>(EnumValue(t));
  if (!IsValidDType(d)) *s = errors::DTypeError("invalid dtype ", EnumValue(t));
  return d;
}

}  // namespace

Status AttrFromProto(const Graftpb__AttrValue* p, AttrValue* out) {
  if (p == nullptr) return errors::InvalidArgument("missing attr value");
  switch (p->value_case) {
    case GRAFTPB__ATTR_VALUE__VALUE_S:
      *out = AttrValue::String(std::string(reinterpret_cast<const char*>(p->s.data), p->s.len));
      return Status::Ok();
    case GRAFTPB__ATTR_VALUE__VALUE_I: *out = AttrValue::Int(p->i); return Status::Ok();
    case GRAFTPB__ATTR_VALUE__VALUE_F: *out = AttrValue::Float(p->f); return Status::Ok();
    case GRAFTPB__ATTR_VALUE__VALUE_B: *out = AttrValue::Bool(p->b != 0); return Status::Ok();
    case GRAFTPB__ATTR_VALUE__VALUE_TYPE: {
      Status s;
      DType d = CheckedDType(p->type, &s);
      GRAFT_RETURN_IF_ERROR(s);
      *out = AttrValue::Type(d);
      return Status::Ok();
    }
    case GRAFTPB__ATTR_VALUE__VALUE_SHAPE: {
      PartialShape shape;
      GRAFT_RETURN_IF_ERROR(ShapeFromProto(p->shape, &shape));
      *out = AttrValue::Shape(std::move(shape));
      return Status::Ok();
    }
    case GRAFTPB__ATTR_VALUE__VALUE_TENSOR: {
      Tensor t;
      GRAFT_RETURN_IF_ERROR(TensorFromProto(p->tensor, &t));
      *out = AttrValue::TensorValue(std::move(t));
      return Status::Ok();
    }
    case GRAFTPB__ATTR_VALUE__VALUE_PLACEHOLDER:
      *out = AttrValue::Placeholder(p->placeholder ? p->placeholder : "");
      return Status::Ok();
    case GRAFTPB__ATTR_VALUE__VALUE_FUNC: {
      FuncValue f;
      GRAFT_RETURN_IF_ERROR(FuncFromProto(p->func, &f));
      *out = AttrValue::Func(std::move(f));
      return Status::Ok();
    }
    case GRAFTPB__ATTR_VALUE__VALUE_LIST: {
      const Graftpb__AttrValue__ListValue* l = p->list;
      if (l == nullptr) return errors::InvalidArgument("missing list value");
      int kinds = (l->n_s > 0) + (l->n_i > 0) + (l->n_f > 0) + (l->n_b > 0) + (l->n_type > 0) + (l->n_shape > 0) +
                  (l->n_tensor > 0) + (l->n_func > 0);
      if (kinds > 1) return errors::InvalidArgument("a list value mixes element types");
      if (l->n_s > 0) {
        std::vector<std::string> v;
        for (size_t i = 0; i < l->n_s; ++i) v.emplace_back(reinterpret_cast<const char*>(l->s[i].data), l->s[i].len);
        *out = AttrValue::StringList(std::move(v));
      } else if (l->n_i > 0) {
        *out = AttrValue::IntList(std::vector<int64_t>(l->i, l->i + l->n_i));
      } else if (l->n_f > 0) {
        *out = AttrValue::FloatList(std::vector<float>(l->f, l->f + l->n_f));
      } else if (l->n_b > 0) {
        std::vector<bool> v;
        for (size_t i = 0; i < l->n_b; ++i) v.push_back(l->b[i] != 0);
        *out = AttrValue::BoolList(std::move(v));
      } else if (l->n_type > 0) {
        std::vector<DType> v;
        for (size_t i = 0; i < l->n_type; ++i) {
          Status s;
          v.push_back(CheckedDType(l->type[i], &s));
          GRAFT_RETURN_IF_ERROR(s.WithContext(StrCat("list element ", i)));
        }
        *out = AttrValue::TypeList(std::move(v));
      } else if (l->n_shape > 0) {
        std::vector<PartialShape> v(l->n_shape);
        for (size_t i = 0; i < l->n_shape; ++i) {
          GRAFT_RETURN_IF_ERROR(ShapeFromProto(l->shape[i], &v[i]).WithContext(StrCat("list element ", i)));
        }
        *out = AttrValue::ShapeList(std::move(v));
      } else if (l->n_tensor > 0) {
        std::vector<Tensor> v(l->n_tensor);
        for (size_t i = 0; i < l->n_tensor; ++i) {
          GRAFT_RETURN_IF_ERROR(TensorFromProto(l->tensor[i], &v[i]).WithContext(StrCat("list element ", i)));
        }
        *out = AttrValue::TensorList(std::move(v));
      } else if (l->n_func > 0) {
        std::vector<FuncValue> v(l->n_func);
        for (size_t i = 0; i < l->n_func; ++i) {
          GRAFT_RETURN_IF_ERROR(FuncFromProto(l->func[i], &v[i]).WithContext(StrCat("list element ", i)));
        }
        *out = AttrValue::FuncList(std::move(v));
      } else {
        // An empty list has no element type; the op definition decides it.
        *out = AttrValue::IntList({});
      }
      return Status::Ok();
    }
    default:
      return errors::InvalidArgument("attr value has no value set");
  }
}

Status AttrToProto(const AttrValue& value, ProtoArena& arena, Graftpb__AttrValue** out) {
  auto* p = arena.New(graftpb__attr_value__init);
  auto list = [&]() {
    p->value_case = GRAFTPB__ATTR_VALUE__VALUE_LIST;
    p->list = arena.New(graftpb__attr_value__list_value__init);
    return p->list;
  };
  switch (value.type()) {
    case AttrType::kString: {
      const std::string& s = *value.get<std::string>();
      p->value_case = GRAFTPB__ATTR_VALUE__VALUE_S;
      p->s.len = s.size();
      p->s.data = arena.Bytes(s.data(), s.size());
      break;
    }
    case AttrType::kInt: p->value_case = GRAFTPB__ATTR_VALUE__VALUE_I; p->i = *value.get<int64_t>(); break;
    case AttrType::kFloat: p->value_case = GRAFTPB__ATTR_VALUE__VALUE_F; p->f = *value.get<float>(); break;
    case AttrType::kBool: p->value_case = GRAFTPB__ATTR_VALUE__VALUE_B; p->b = *value.get<bool>(); break;
    case AttrType::kType:
      p->value_case = GRAFTPB__ATTR_VALUE__VALUE_TYPE;
      p->type = static_cast<Graftpb__DataType>(*value.get<DType>());
      break;
    case AttrType::kShape:
      p->value_case = GRAFTPB__ATTR_VALUE__VALUE_SHAPE;
      p->shape = ShapeToProto(*value.get<PartialShape>(), arena);
      break;
    case AttrType::kTensor:
      p->value_case = GRAFTPB__ATTR_VALUE__VALUE_TENSOR;
      GRAFT_RETURN_IF_ERROR(TensorToProto(*value.get<Tensor>(), arena, &p->tensor));
      break;
    case AttrType::kFunc:
      p->value_case = GRAFTPB__ATTR_VALUE__VALUE_FUNC;
      GRAFT_RETURN_IF_ERROR(FuncToProto(*value.get<FuncValue>(), arena, &p->func));
      break;
    case AttrType::kPlaceholder:
      p->value_case = GRAFTPB__ATTR_VALUE__VALUE_PLACEHOLDER;
      p->placeholder = arena.Str(value.get<AttrPlaceholder>()->name);
      break;
    case AttrType::kStringList: {
      auto* l = list();
      const auto& v = *value.get<std::vector<std::string>>();
      l->n_s = v.size();
      l->s = arena.Array<ProtobufCBinaryData>(v.size());
      for (size_t i = 0; i < v.size(); ++i) l->s[i] = ProtobufCBinaryData{v[i].size(), arena.Bytes(v[i].data(), v[i].size())};
      break;
    }
    case AttrType::kIntList: {
      auto* l = list();
      const auto& v = *value.get<std::vector<int64_t>>();
      l->n_i = v.size();
      l->i = arena.Array<int64_t>(v.size());
      std::copy(v.begin(), v.end(), l->i);
      break;
    }
    case AttrType::kFloatList: {
      auto* l = list();
      const auto& v = *value.get<std::vector<float>>();
      l->n_f = v.size();
      l->f = arena.Array<float>(v.size());
      std::copy(v.begin(), v.end(), l->f);
      break;
    }
    case AttrType::kBoolList: {
      auto* l = list();
      const auto& v = *value.get<std::vector<bool>>();
      l->n_b = v.size();
      l->b = arena.Array<protobuf_c_boolean>(v.size());
      for (size_t i = 0; i < v.size(); ++i) l->b[i] = v[i];
      break;
    }
    case AttrType::kTypeList: {
      auto* l = list();
      const auto& v = *value.get<std::vector<DType>>();
      l->n_type = v.size();
      l->type = arena.Array<Graftpb__DataType>(v.size());
      for (size_t i = 0; i < v.size(); ++i) l->type[i] = static_cast<Graftpb__DataType>(v[i]);
      break;
    }
    case AttrType::kShapeList: {
      auto* l = list();
      const auto& v = *value.get<std::vector<PartialShape>>();
      l->n_shape = v.size();
      l->shape = arena.Array<Graftpb__TensorShapeProto*>(v.size());
      for (size_t i = 0; i < v.size(); ++i) l->shape[i] = ShapeToProto(v[i], arena);
      break;
    }
    case AttrType::kTensorList: {
      auto* l = list();
      const auto& v = *value.get<std::vector<Tensor>>();
      l->n_tensor = v.size();
      l->tensor = arena.Array<Graftpb__TensorProto*>(v.size());
      for (size_t i = 0; i < v.size(); ++i) GRAFT_RETURN_IF_ERROR(TensorToProto(v[i], arena, &l->tensor[i]));
      break;
    }
    case AttrType::kFuncList: {
      auto* l = list();
      const auto& v = *value.get<std::vector<FuncValue>>();
      l->n_func = v.size();
      l->func = arena.Array<Graftpb__NameAttrList*>(v.size());
      for (size_t i = 0; i < v.size(); ++i) GRAFT_RETURN_IF_ERROR(FuncToProto(v[i], arena, &l->func[i]));
      break;
    }
    case AttrType::kNone:
      return errors::InvalidArgument("cannot write an attr without a value");
  }
  *out = p;
  return Status::Ok();
}

}  // namespace graft
