// Shape inference: InferenceContext's accessors and checks, and RunShapeFn, which runs an
// op's shape function over a node being created.
#include "core/shape_inference.h"

#include <limits>
#include <type_traits>

#include "core/node_signature.h"
#include "core/op_registry.h"

namespace graft {
namespace {

// The number of tensors an argument stands for, given the node's attrs.
int ArgCount(const OpArgDef& arg, const AttrMap& attrs) {
  if (!arg.number_attr.empty()) {
    auto it = attrs.find(arg.number_attr);
    const int64_t* n = it == attrs.end() ? nullptr : it->second.get<int64_t>();
    return n ? static_cast<int>(*n) : 0;
  }
  if (!arg.type_list_attr.empty()) {
    auto it = attrs.find(arg.type_list_attr);
    return it == attrs.end() ? 0 : static_cast<int>(it->second.list_size());
  }
  return 1;
}

Status ArgRange(const std::vector<OpArgDef>& args, const AttrMap& attrs, std::string_view name,
                const std::string& op, int* start, int* end) {
  int pos = 0;
  for (const OpArgDef& a : args) {
    int n = ArgCount(a, attrs);
    if (a.name == name) {
      *start = pos;
      *end = pos + n;
      return Status::Ok();
    }
    pos += n;
  }
  return errors::NotFound("op type ", op, " has no argument '", name, "'");
}

template <typename T>
bool CopyInts(const Tensor& t, std::vector<int64_t>* out) {
  const T* p = t.data<T>();
  out->resize(static_cast<size_t>(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if constexpr (std::is_same_v<T, uint64_t>) {
      if (p[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    }
    (*out)[static_cast<size_t>(i)] = static_cast<int64_t>(p[i]);
  }
  return true;
}

// The elements of an integer tensor of any width.
bool ReadInts(const Tensor& t, std::vector<int64_t>* out) {
  if (!t.valid() && t.num_elements() != 0) return false;
  switch (t.dtype()) {
    case DType::kInt8: return CopyInts<int8_t>(t, out);
    case DType::kInt16: return CopyInts<int16_t>(t, out);
    case DType::kInt32: return CopyInts<int32_t>(t, out);
    case DType::kInt64: return CopyInts<int64_t>(t, out);
    case DType::kUInt8: return CopyInts<uint8_t>(t, out);
    case DType::kUInt16: return CopyInts<uint16_t>(t, out);
    case DType::kUInt32: return CopyInts<uint32_t>(t, out);
    case DType::kUInt64: return CopyInts<uint64_t>(t, out);
    default: return false;
  }
}

std::string RankRule(int rank) {
  if (rank == 0) return "rank 0 (a scalar)";
  if (rank == 1) return "rank 1 (a vector)";
  return StrCat("rank ", rank);
}

template <typename T>
Status Get(const InferenceContext& c, std::string_view name, T* out) {
  const AttrValue* v = c.attr(name);
  if (v == nullptr) return errors::NotFound("attr '", name, "' is missing");
  const T* p = v->get<T>();
  if (p == nullptr) return errors::InvalidArgument("attr '", name, "' is a ", AttrTypeName(v->type()));
  *out = *p;
  return Status::Ok();
}

}  // namespace

InferenceContext::InferenceContext(const OpDef& def, const AttrMap& attrs, std::vector<DType> input_types,
                                   std::vector<PartialShape> input_shapes,
                                   std::vector<const Tensor*> input_values, std::vector<DType> output_types)
    : def_(def),
      attrs_(attrs),
      input_types_(std::move(input_types)),
      input_shapes_(std::move(input_shapes)),
      input_values_(std::move(input_values)),
      output_types_(std::move(output_types)),
      output_shapes_(output_types_.size()) {}

Status InferenceContext::InputRange(std::string_view arg_name, int* start, int* end) const {
  return ArgRange(def_.inputs, attrs_, arg_name, def_.name, start, end);
}

Status InferenceContext::OutputRange(std::string_view arg_name, int* start, int* end) const {
  return ArgRange(def_.outputs, attrs_, arg_name, def_.name, start, end);
}

const AttrValue* InferenceContext::attr(std::string_view name) const {
  auto it = attrs_.find(std::string(name));
  return it == attrs_.end() ? nullptr : &it->second;
}

Status InferenceContext::GetAttr(std::string_view name, int64_t* out) const { return Get(*this, name, out); }
Status InferenceContext::GetAttr(std::string_view name, float* out) const { return Get(*this, name, out); }
Status InferenceContext::GetAttr(std::string_view name, bool* out) const { return Get(*this, name, out); }
Status InferenceContext::GetAttr(std::string_view name, DType* out) const { return Get(*this, name, out); }
Status InferenceContext::GetAttr(std::string_view name, std::string* out) const { return Get(*this, name, out); }
Status InferenceContext::GetAttr(std::string_view name, PartialShape* out) const { return Get(*this, name, out); }
Status InferenceContext::GetAttr(std::string_view name, std::vector<int64_t>* out) const { return Get(*this, name, out); }
Status InferenceContext::GetAttr(std::string_view name, std::vector<DType>* out) const { return Get(*this, name, out); }
Status InferenceContext::GetAttr(std::string_view name, std::vector<PartialShape>* out) const {
  return Get(*this, name, out);
}
Status InferenceContext::GetAttr(std::string_view name, const Tensor** out) const {
  const AttrValue* v = attr(name);
  if (v == nullptr) return errors::NotFound("attr '", name, "' is missing");
  const Tensor* t = v->get<Tensor>();
  if (t == nullptr) return errors::InvalidArgument("attr '", name, "' is a ", AttrTypeName(v->type()));
  *out = t;
  return Status::Ok();
}

Status TensorToInt64s(const Tensor& t, std::vector<int64_t>* out) {
  out->clear();
  out->reserve(static_cast<size_t>(t.num_elements()));
  if (t.dtype() == DType::kInt32) {
    for (int64_t i = 0; i < t.num_elements(); ++i) out->push_back(t.data<int32_t>()[i]);
  } else if (t.dtype() == DType::kInt64) {
    for (int64_t i = 0; i < t.num_elements(); ++i) out->push_back(t.data<int64_t>()[i]);
  } else {
    return errors::DTypeError("expected an int32 or int64 tensor, got ", DTypeName(t.dtype()));
  }
  return Status::Ok();
}

Status InferenceContext::InputAsShape(int i, PartialShape* out) const {
  const PartialShape& s = input(i);
  if (s.known_rank() && s.rank() > 1) {
    return errors::ShapeError("input ", i, " must be a shape vector, but has shape ", s.ToString());
  }
  if (const Tensor* v = input_value(i)) {
    std::vector<int64_t> dims;
    GRAFT_RETURN_IF_ERROR(TensorToInt64s(*v, &dims));
    if (v->rank() == 0) {
      // A scalar -1 stands for an unknown rank (as TensorFlow allows for some ops).
      if (dims[0] == -1) {
        *out = PartialShape::Unknown();
        return Status::Ok();
      }
      return errors::ShapeError("input ", i, " must be a shape vector, but is the scalar ", dims[0]);
    }
    for (int64_t d : dims) {
      if (d < -1) return errors::ShapeError("shape vector input ", i, " has an invalid dimension ", d);
    }
    *out = PartialShape(std::move(dims));
    return Status::Ok();
  }
  if (s.known_rank() && s.rank() == 1 && s.dim(0) != kUnknownDim) {
    *out = PartialShape::UnknownDims(static_cast<int>(s.dim(0)));
  } else {
    *out = PartialShape::Unknown();
  }
  return Status::Ok();
}

bool InferenceContext::InputScalar(int i, int64_t* out) const {
  const Tensor* v = input_value(i);
  if (v == nullptr || v->num_elements() != 1) return false;
  std::vector<int64_t> vals;
  if (!TensorToInt64s(*v, &vals).ok()) return false;
  *out = vals[0];
  return true;
}

bool InferenceContext::ConstantInts(int i, std::vector<int64_t>* out) const {
  const Tensor* t = input_value(i);
  return t != nullptr && ReadInts(*t, out);
}

bool InferenceContext::ConstantInt(int i, int64_t* out) const {
  std::vector<int64_t> v;
  if (!ConstantInts(i, &v) || v.size() != 1) return false;
  *out = v[0];
  return true;
}

std::string InferenceContext::InputName(int i) const {
  int pos = 0;
  for (const OpArgDef& a : def_.inputs) {
    int n = ArgCount(a, attrs_);
    if (i < pos + n) {
      bool list = !a.number_attr.empty() || !a.type_list_attr.empty();
      return list ? StrCat("input '", a.name, "'[", i - pos, "]") : StrCat("input '", a.name, "'");
    }
    pos += n;
  }
  return StrCat("input ", i);
}

// "Op: input 1 'pred'", the start of the rank checks' messages.
std::string InferenceContext::RankCheckSubject(int i) const {
  std::string name = InputName(i);
  return name.starts_with("input '") ? StrCat(def_.name, ": input ", i, name.substr(5)) : StrCat(def_.name, ": ", name);
}

// The three rank checks: input i's shape refined to the rule, or an error naming the op, the
// input, the rule and the shape (the message is made only on failure).
Status InferenceContext::CheckRank(int i, RankCheck check, int rank, PartialShape* out) const {
  PartialShape merged;
  const PartialShape& in = input(i);
  Status st = check == RankCheck::kExactly   ? in.WithRank(rank, &merged)
              : check == RankCheck::kAtLeast ? in.WithRankAtLeast(rank, &merged)
                                             : in.WithRankAtMost(rank, &merged);
  if (!st.ok()) {
    std::string rule = check == RankCheck::kExactly   ? RankRule(rank)
                       : check == RankCheck::kAtLeast ? StrCat("rank at least ", rank)
                                                      : StrCat("rank at most ", rank);
    return errors::ShapeError(RankCheckSubject(i), " must have ", rule, ", but has shape ", in.ToString());
  }
  if (out != nullptr) *out = std::move(merged);
  return Status::Ok();
}

Status InferenceContext::WithRank(int i, int rank, PartialShape* out) const {
  return CheckRank(i, RankCheck::kExactly, rank, out);
}

Status InferenceContext::WithRankAtLeast(int i, int rank, PartialShape* out) const {
  return CheckRank(i, RankCheck::kAtLeast, rank, out);
}

Status InferenceContext::WithRankAtMost(int i, int rank, PartialShape* out) const {
  return CheckRank(i, RankCheck::kAtMost, rank, out);
}

Status RunShapeFn(const OpRegistration& reg, std::string_view node, const AttrMap& attrs, const NodeSignature& sig,
                  const std::vector<ShapeFnInput>& inputs, std::vector<PartialShape>* out) {
  std::vector<PartialShape> shapes;
  std::vector<const Tensor*> values;
  for (const ShapeFnInput& in : inputs) {
    shapes.push_back(in.shape);
    values.push_back(in.value);
  }
  InferenceContext c(reg.def, attrs, sig.input_types, std::move(shapes), std::move(values), sig.output_types);
  if (reg.shape_fn) {
    Status s = reg.shape_fn(c);
    if (!s.ok()) return Status(s.code(), StrCat(reg.def.name, " op '", node, "': ", s.message()));
  }
  *out = std::move(c.outputs());
  return Status::Ok();
}

}  // namespace graft
