// GradOps: see grad_ops.h.
#include "core/gradients/grad_ops.h"

#include <algorithm>

namespace graft {

bool IsDifferentiableDType(DType dtype) {
  DType base = BaseDType(dtype);
  return DTypeIsFloating(base) || DTypeIsComplex(base) || base == DType::kResource || base == DType::kVariant;
}

std::optional<std::vector<int64_t>> StaticShape(const Output& t) {
  if (t.node == nullptr) return std::nullopt;
  const PartialShape& s = t.node->output_shape(t.index);
  if (!s.IsFullyDefined()) return std::nullopt;
  return s.dims();
}

Status InputArgSizes(const Node& node, std::vector<std::pair<size_t, bool>>* out) {
  out->clear();
  for (const OpArgDef& arg : node.def().inputs) {
    if (!arg.number_attr.empty()) {
      const AttrValue* a = node.attr(arg.number_attr);
      const int64_t* n = a != nullptr ? a->get<int64_t>() : nullptr;
      if (n == nullptr || *n < 0) return errors::Internal("op '", node.name(), "' has no attr ", arg.number_attr);
      out->emplace_back(static_cast<size_t>(*n), true);
    } else if (!arg.type_list_attr.empty()) {
      const AttrValue* a = node.attr(arg.type_list_attr);
      if (a == nullptr) return errors::Internal("op '", node.name(), "' has no attr ", arg.type_list_attr);
      out->emplace_back(a->list_size(), true);
    } else {
      out->emplace_back(1, false);
    }
  }
  return Status::Ok();
}

bool ConstInts(const Output& t, std::vector<int64_t>* values) {
  if (t.node == nullptr || t.node->type() != "Const") return false;
  const AttrValue* v = t.node->attr("value");
  const Tensor* tensor = v ? v->get<Tensor>() : nullptr;
  if (tensor == nullptr) return false;
  values->clear();
  for (int64_t i = 0; i < tensor->num_elements(); ++i) {
    if (tensor->dtype() == DType::kInt32) {
      values->push_back(tensor->data<int32_t>()[i]);
    } else if (tensor->dtype() == DType::kInt64) {
      values->push_back(tensor->data<int64_t>()[i]);
    } else {
      return false;
    }
  }
  return true;
}

Node* GradOps::AddOp(const std::string& type, std::vector<NodeSpec::InputArg> args, AttrMap attrs) {
  if (!status_.ok()) return nullptr;
  for (const auto& a : args) {
    for (const Output& t : a.tensors) {
      if (t.node == nullptr) {
        Fail(errors::Internal("building the gradient: an input of a ", type, " op is missing"));
        return nullptr;
      }
    }
  }
  NodeSpec spec;
  spec.type = type;
  spec.inputs = std::move(args);
  spec.attrs = std::move(attrs);
  Node* n = nullptr;
  Status s = g_.AddNode(std::move(spec), &n);
  if (!s.ok()) {
    Fail(std::move(s));
    return nullptr;
  }
  return n;
}

Output GradOps::Op(const std::string& type, std::initializer_list<Output> inputs, AttrMap attrs) {
  std::vector<NodeSpec::InputArg> args;
  for (const Output& t : inputs) args.push_back(NodeSpec::InputArg{{t}, false});
  Node* n = AddOp(type, std::move(args), std::move(attrs));
  return n ? Output{n, 0} : Output{};
}

Output GradOps::ListOp(const std::string& type, const std::vector<Output>& list, std::initializer_list<Output> more,
                       AttrMap attrs) {
  std::vector<NodeSpec::InputArg> args;
  args.push_back(NodeSpec::InputArg{list, true});
  for (const Output& t : more) args.push_back(NodeSpec::InputArg{{t}, false});
  Node* n = AddOp(type, std::move(args), std::move(attrs));
  return n ? Output{n, 0} : Output{};
}

Output GradOps::Const(Tensor t) {
  if (!status_.ok()) return Output{};
  DType dt = t.dtype();
  AttrMap attrs;
  attrs["dtype"] = AttrValue::Type(dt);
  attrs["value"] = AttrValue::TensorValue(std::move(t));
  Node* n = AddOp("Const", {}, std::move(attrs));
  return n ? Output{n, 0} : Output{};
}

namespace {
template <typename T>
Tensor MakeTensor(DType dt, const std::vector<int64_t>& dims, const std::vector<T>& values, Status* s) {
  Tensor t;
  *s = Tensor::Allocate(dt, dims, &t);
  if (s->ok()) std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}
}  // namespace

Output GradOps::Scalar(DType dtype, double v) {
  if (!status_.ok()) return Output{};
  Status s;
  Tensor t;
  switch (BaseDType(dtype)) {
    case DType::kFloat32: t = MakeTensor<float>(DType::kFloat32, {}, {static_cast<float>(v)}, &s); break;
    case DType::kFloat64: t = MakeTensor<double>(DType::kFloat64, {}, {v}, &s); break;
    case DType::kInt32: t = MakeTensor<int32_t>(DType::kInt32, {}, {static_cast<int32_t>(v)}, &s); break;
    case DType::kInt64: t = MakeTensor<int64_t>(DType::kInt64, {}, {static_cast<int64_t>(v)}, &s); break;
    default: {
      // Other types: a float64 constant cast to the type.
      Output d = Scalar(DType::kFloat64, v);
      return Cast(d, BaseDType(dtype));
    }
  }
  if (!s.ok()) {
    Fail(std::move(s));
    return Output{};
  }
  return Const(std::move(t));
}

Output GradOps::Int32(int32_t v) {
  Status s;
  Tensor t = MakeTensor<int32_t>(DType::kInt32, {}, {v}, &s);
  if (!s.ok()) {
    Fail(std::move(s));
    return Output{};
  }
  return Const(std::move(t));
}

Output GradOps::Int32s(const std::vector<int64_t>& v) {
  Status s;
  std::vector<int32_t> v32(v.begin(), v.end());
  Tensor t = MakeTensor<int32_t>(DType::kInt32, {static_cast<int64_t>(v.size())}, v32, &s);
  if (!s.ok()) {
    Fail(std::move(s));
    return Output{};
  }
  return Const(std::move(t));
}

Output GradOps::Shape(Output x) {
  if (auto dims = StaticShape(x)) return Int32s(*dims);
  return Op("Shape", {x}, {{"out_type", AttrValue::Type(DType::kInt32)}});
}

Output GradOps::Size(Output x) {
  if (auto dims = StaticShape(x)) {
    int64_t n = 1;
    for (int64_t d : *dims) n *= d;
    return Int32(static_cast<int32_t>(n));
  }
  return Op("Size", {x}, {{"out_type", AttrValue::Type(DType::kInt32)}});
}

Output GradOps::Rank(Output x) {
  if (x.node != nullptr && x.node->output_shape(x.index).known_rank()) {
    return Int32(x.node->output_shape(x.index).rank());
  }
  return Op("Rank", {x});
}

Output GradOps::Cast(Output a, DType to) {
  if (a.node != nullptr && a.node->output_type(a.index) == to) return a;
  return Op("Cast", {a}, {{"DstT", AttrValue::Type(to)}});
}

Output GradOps::Sum(Output x, Output axes, bool keep_dims) {
  return Op("Sum", {x, axes}, {{"keep_dims", AttrValue::Bool(keep_dims)}});
}

Output GradOps::MatMul(Output a, Output b, bool ta, bool tb) {
  return Op("MatMul", {a, b}, {{"transpose_a", AttrValue::Bool(ta)}, {"transpose_b", AttrValue::Bool(tb)}});
}

Output GradOps::AddN(const std::vector<Output>& xs) {
  if (xs.size() == 1) return xs[0];
  return ListOp("AddN", xs, {});
}

std::pair<Output, Output> GradOps::BroadcastGrads(Output gx, Output gy, Output x, Output y) {
  auto sx = StaticShape(x), sy = StaticShape(y);
  if (sx && sy) {
    // Static shapes: the axes to sum over are known now.
    const size_t rank = std::max(sx->size(), sy->size());
    std::vector<int64_t> rx, ry;
    for (size_t i = 0; i < rank; ++i) {
      int64_t dx = i < rank - sx->size() ? 1 : (*sx)[i - (rank - sx->size())];
      int64_t dy = i < rank - sy->size() ? 1 : (*sy)[i - (rank - sy->size())];
      int64_t out = std::max(dx, dy);
      if (dx == 1 && out != 1) rx.push_back(static_cast<int64_t>(i));
      if (dy == 1 && out != 1) ry.push_back(static_cast<int64_t>(i));
      if (dx != dy && dx != 1 && dy != 1) {
        // Not broadcastable: leave it to the dynamic path, which reports the error at run time.
        sx.reset();
        break;
      }
    }
    if (sx) {
      auto reduce = [&](Output g, const std::vector<int64_t>& axes, const std::vector<int64_t>& shape,
                        size_t own_rank) -> Output {
        if (g.node == nullptr) return g;
        if (axes.empty() && own_rank == rank) return g;
        Output summed = axes.empty() ? g : Sum(g, Int32s(axes));
        return Reshape(summed, Int32s(shape));
      };
      Output ox = reduce(gx, rx, *sx, sx->size());
      Output oy = reduce(gy, ry, *sy, sy->size());
      return {ox, oy};
    }
  }
  Output shx = Shape(x), shy = Shape(y);
  Node* args = AddOp("BroadcastGradientArgs", {{{shx}, false}, {{shy}, false}});
  if (args == nullptr) return {Output{}, Output{}};
  Output ox = gx.node ? Reshape(Sum(gx, Output{args, 0}), shx) : gx;
  Output oy = gy.node ? Reshape(Sum(gy, Output{args, 1}), shy) : gy;
  return {ox, oy};
}

Output DenseFromSlices(GradOps& b, const IndexedSlicesGrad& s) {
  std::vector<int64_t> shape;
  Output rows = ConstInts(s.dense_shape, &shape) && !shape.empty()
                    ? (shape[0] > INT32_MAX ? b.Scalar(DType::kInt64, static_cast<double>(shape[0]))
                                            : b.Int32(static_cast<int32_t>(shape[0])))
                    : b.Op("GatherV2", {s.dense_shape, b.Int32(0), b.Int32(0)});
  return b.Op("UnsortedSegmentSum", {s.values, s.indices, rows});
}

}  // namespace graft
