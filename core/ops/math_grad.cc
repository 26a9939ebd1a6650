// Gradient functions of the math ops (see builtin_ops.h): elementwise binary ops (with the
// broadcasting undone), unary math, Cast, AddN, Select/SelectV2, the reductions and Einsum. Each
// follows TensorFlow's formula for the op (math_grad.py), written with GradOps.
#include <cmath>
#include <map>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "core/einsum_equation.h"
#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_context.h"
#include "core/ops/builtin_ops.h"

namespace graft::ops {
namespace {


DType TypeOf(const Output& t) { return t.node->output_type(t.index); }

// ---- Binary ops: gx, gy of the broadcast result, reduced to each input's shape.
Status SetBinary(GradientContext& ctx, GradOps& b, Output gx, Output gy) {
  auto [rx, ry] = b.BroadcastGrads(gx, gy, ctx.input(0), ctx.input(1));
  GRAFT_RETURN_IF_ERROR(b.status());
  if (rx.node) ctx.set_grad(0, rx);
  if (ry.node) ctx.set_grad(1, ry);
  return Status::Ok();
}

Status AddGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return SetBinary(ctx, b, ctx.grad(), ctx.grad());
}

Status SubGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return SetBinary(ctx, b, ctx.grad(), b.Neg(ctx.grad()));
}

Status MulGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output g = ctx.grad(), x = ctx.input(0), y = ctx.input(1);
  return SetBinary(ctx, b, b.Mul(g, y), b.Mul(x, g));
}

Status DivGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output g = ctx.grad(), x = ctx.input(0), y = ctx.input(1);
  Output gx = b.Div(g, y);
  Output gy = b.Mul(g, b.Div(b.Div(b.Neg(x), y), y));
  return SetBinary(ctx, b, gx, gy);
}

Status DivNoNanGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output g = ctx.grad(), x = ctx.input(0), y = ctx.input(1);
  Output gx = b.Op("DivNoNan", {g, y});
  Output gy = b.Mul(g, b.Op("DivNoNan", {b.Op("DivNoNan", {b.Neg(x), y}), y}));
  return SetBinary(ctx, b, gx, gy);
}

Status PowGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output g = ctx.grad(), x = ctx.input(0), y = ctx.input(1), z = ctx.output(0);
  const DType t = TypeOf(x);
  Output gx = b.Mul(b.Mul(g, y), b.Op("Pow", {x, b.Sub(y, b.Scalar(t, 1))}));
  // log(x) where x > 0, else 0 (TensorFlow's choice for the exponent's gradient).
  Output zeros = b.ZerosLike(x);
  Output log_x = b.Select(b.Op("Greater", {x, zeros}), b.Op("Log", {x}), zeros);
  Output gy = b.Mul(b.Mul(g, z), log_x);
  return SetBinary(ctx, b, gx, gy);
}

// Maximum / Minimum: the gradient goes to x where x is selected (ties to x), else to y.
Status MaxMinGrad(GradientContext& ctx, const char* cmp) {
  GradOps b(ctx);
  Output g = ctx.grad(), x = ctx.input(0), y = ctx.input(1);
  Output mask = b.Op(cmp, {x, y});
  Output zeros = b.ZerosLike(g);
  return SetBinary(ctx, b, b.Select(mask, g, zeros), b.Select(mask, zeros, g));
}
Status MaximumGrad(GradientContext& ctx) { return MaxMinGrad(ctx, "GreaterEqual"); }
Status MinimumGrad(GradientContext& ctx) { return MaxMinGrad(ctx, "LessEqual"); }

Status SquaredDifferenceGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output g = ctx.grad(), x = ctx.input(0), y = ctx.input(1);
  Output d = b.Mul(b.Mul(b.Scalar(TypeOf(g), 2), g), b.Sub(x, y));
  return SetBinary(ctx, b, d, b.Neg(d));
}

// Atan2(y, x): d/dy = x / (x² + y²), d/dx = -y / (x² + y²).
Status Atan2Grad(GradientContext& ctx) {
  GradOps b(ctx);
  Output g = ctx.grad(), y = ctx.input(0), x = ctx.input(1);
  Output inv = b.Reciprocal(b.Add(b.Square(x), b.Square(y)));
  Output gi = b.Mul(g, inv);
  return SetBinary(ctx, b, b.Mul(x, gi), b.Mul(b.Neg(y), gi));
}

// ---- Unary ops: the input's gradient from g, x and y.
template <typename F>
Status Unary(GradientContext& ctx, F f) {
  GradOps b(ctx);
  Output gx = f(b, ctx.grad(), ctx.input(0), ctx.output(0), TypeOf(ctx.input(0)));
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, gx);
  return Status::Ok();
}

#define UNARY(Name, expr)                                                                   \
  Status Name##Grad(GradientContext& ctx) {                                                 \
    return Unary(ctx, [](GradOps& b, Output g, Output x, Output y, DType t) -> Output {     \
      (void)x;                                                                              \
      (void)y;                                                                              \
      (void)t;                                                                              \
      return expr;                                                                          \
    });                                                                                     \
  }

UNARY(Identity, g)
UNARY(Neg, b.Neg(g))
UNARY(Abs, b.Mul(g, b.Op("Sign", {x})))
UNARY(Sign, b.ZerosLike(x))
UNARY(Square, b.Mul(g, b.Mul(b.Scalar(t, 2), x)))
UNARY(Sqrt, b.Div(b.Mul(g, b.Scalar(t, 0.5)), y))
UNARY(Rsqrt, b.Mul(b.Mul(g, b.Scalar(t, -0.5)), b.Mul(b.Square(y), y)))
UNARY(Reciprocal, b.Mul(g, b.Neg(b.Square(y))))
UNARY(Exp, b.Mul(g, y))
UNARY(Expm1, b.Mul(g, b.Op("Exp", {x})))
UNARY(Log, b.Mul(g, b.Reciprocal(x)))
UNARY(Log1p, b.Mul(g, b.Reciprocal(b.Add(b.Scalar(t, 1), x))))
UNARY(Sin, b.Mul(g, b.Op("Cos", {x})))
UNARY(Cos, b.Neg(b.Mul(g, b.Op("Sin", {x}))))
UNARY(Tan, b.Mul(g, b.Square(b.Reciprocal(b.Op("Cos", {x})))))
UNARY(Asin, b.Mul(g, b.Op("Rsqrt", {b.Sub(b.Scalar(t, 1), b.Square(x))})))
UNARY(Acos, b.Neg(b.Mul(g, b.Op("Rsqrt", {b.Sub(b.Scalar(t, 1), b.Square(x))}))))
UNARY(Atan, b.Div(g, b.Add(b.Scalar(t, 1), b.Square(x))))
UNARY(Sinh, b.Mul(g, b.Op("Cosh", {x})))
UNARY(Cosh, b.Mul(g, b.Op("Sinh", {x})))
UNARY(Asinh, b.Div(g, b.Op("Cosh", {y})))
UNARY(Acosh, b.Div(g, b.Op("Sinh", {y})))
UNARY(Atanh, b.Div(g, b.Sub(b.Scalar(t, 1), b.Square(x))))
UNARY(Tanh, b.Op("TanhGrad", {y, g}))
UNARY(Sigmoid, b.Op("SigmoidGrad", {y, g}))
UNARY(Erf, b.Mul(g, b.Mul(b.Scalar(t, 2.0 / std::sqrt(std::numbers::pi)), b.Op("Exp", {b.Neg(b.Square(x))}))))
UNARY(Erfc, b.Mul(g, b.Mul(b.Scalar(t, -2.0 / std::sqrt(std::numbers::pi)), b.Op("Exp", {b.Neg(b.Square(x))}))))
#undef UNARY

Status CastGrad(GradientContext& ctx) {
  const DType src = ctx.op->input_type(0), dst = ctx.op->output_type(0);
  if (!IsDifferentiableDType(src) || !IsDifferentiableDType(dst)) return Status::Ok();
  GradOps b(ctx);
  Output gx = b.Cast(ctx.grad(), BaseDType(src));
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, gx);
  return Status::Ok();
}

Status AddNGrad(GradientContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_grad(i, ctx.grad());
  return Status::Ok();
}

// Select(c, t, e) / SelectV2: the gradient goes to t where c holds, to e elsewhere (SelectV2
// also undoes broadcasting).
Status SelectGradImpl(GradientContext& ctx, bool v2) {
  GradOps b(ctx);
  Output c = ctx.input(0), g = ctx.grad();
  Output zeros = b.ZerosLike(g);
  const char* type = v2 ? "SelectV2" : "Select";
  Output gt = b.Op(type, {c, g, zeros});
  Output ge = b.Op(type, {c, zeros, g});
  if (v2) {
    gt = b.BroadcastGrads(gt, Output{}, ctx.input(1), ctx.output(0)).first;
    ge = b.BroadcastGrads(ge, Output{}, ctx.input(2), ctx.output(0)).first;
  }
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(1, gt);
  ctx.set_grad(2, ge);
  return Status::Ok();
}
// ClipByValue(t, min, max): the gradient goes to t where it lies within [min, max], to min
// where t is below it and to max where t is above it (summed over a scalar bound), as
// TensorFlow's _ClipByValueGrad.
Status ClipByValueGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0), g = ctx.grad();
  Output zeros = b.ZerosLike(g);
  Output below = b.Op("Less", {x, ctx.input(1)});
  Output above = b.Op("Greater", {x, ctx.input(2)});
  Output gx = b.Select(b.Op("LogicalOr", {below, above}), zeros, g);
  Output gmin = b.BroadcastGrads(b.Select(below, g, zeros), Output{}, ctx.input(1), x).first;
  Output gmax = b.BroadcastGrads(b.Select(above, g, zeros), Output{}, ctx.input(2), x).first;
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, gx);
  ctx.set_grad(1, gmin);
  ctx.set_grad(2, gmax);
  return Status::Ok();
}

Status SelectGrad(GradientContext& ctx) { return SelectGradImpl(ctx, false); }
Status SelectV2Grad(GradientContext& ctx) { return SelectGradImpl(ctx, true); }

// ---- Reductions. The input's shape with the reduced axes kept as 1: a constant when the
// shape is known, else Shape(x) * keep + drop (keep 1 and drop 0 on kept axes, 0 and 1 on
// reduced ones). With axes that are not a constant or a rank that is not known, it is computed
// when run (TensorFlow's reduced_shape): DynamicStitch puts 1 at each axis of Shape(x).
Status KeptShape(GradientContext& ctx, GradOps& b, Output* kept, std::vector<bool>* reduced) {
  Output x = ctx.input(0);
  const PartialShape& shape = x.node->output_shape(x.index);
  std::vector<int64_t> axes;
  if (!ConstInts(ctx.input(1), &axes) || !shape.known_rank()) {
    Output rank = b.Rank(x);
    Output ax = ctx.input(1);
    if (TypeOf(ax) != DType::kInt32) ax = b.Cast(ax, DType::kInt32);
    ax = b.Op("FloorMod", {b.Add(ax, rank), rank});
    Output all = b.Op("Range", {b.Int32(0), rank, b.Int32(1)});
    Output ones = b.Fill(b.Shape(ax), b.Int32(1));
    Node* n = b.AddOp("DynamicStitch", {NodeSpec::InputArg{{all, ax}, true}, NodeSpec::InputArg{{b.Shape(x), ones}, true}});
    if (n != nullptr) *kept = Output{n, 0};
    return b.status();
  }
  const int rank = shape.rank();
  reduced->assign(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    int64_t n = a < 0 ? a + rank : a;
    if (n < 0 || n >= rank) return errors::InvalidArgument("reduction axis ", a, " is out of range for rank ", rank);
    (*reduced)[static_cast<size_t>(n)] = true;
  }
  if (shape.IsFullyDefined()) {
    std::vector<int64_t> dims = shape.dims();
    for (int i = 0; i < rank; ++i)
      if ((*reduced)[static_cast<size_t>(i)]) dims[static_cast<size_t>(i)] = 1;
    *kept = b.Int32s(dims);
  } else {
    std::vector<int64_t> keep, drop;
    for (int i = 0; i < rank; ++i) {
      keep.push_back((*reduced)[static_cast<size_t>(i)] ? 0 : 1);
      drop.push_back((*reduced)[static_cast<size_t>(i)] ? 1 : 0);
    }
    *kept = b.Add(b.Mul(b.Shape(x), b.Int32s(keep)), b.Int32s(drop));
  }
  return b.status();
}

// g, reshaped to the kept shape and broadcast to the input's shape.
Status SumGradImpl(GradientContext& ctx, GradOps& b, Output* out, Output* kept_out = nullptr) {
  Output kept;
  std::vector<bool> reduced;
  GRAFT_RETURN_IF_ERROR(KeptShape(ctx, b, &kept, &reduced));
  if (kept_out) *kept_out = kept;
  *out = b.Op("BroadcastTo", {b.Reshape(ctx.grad(), kept), b.Shape(ctx.input(0))});
  return b.status();
}

Status SumGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output gx;
  GRAFT_RETURN_IF_ERROR(SumGradImpl(ctx, b, &gx));
  ctx.set_grad(0, gx);
  return Status::Ok();
}

Status MeanGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output gx;
  GRAFT_RETURN_IF_ERROR(SumGradImpl(ctx, b, &gx));
  const DType t = TypeOf(ctx.input(0));
  auto sx = StaticShape(ctx.input(0)), sy = StaticShape(ctx.output(0));
  Output factor;
  if (sx && sy) {
    int64_t nx = 1, ny = 1;
    for (int64_t d : *sx) nx *= d;
    for (int64_t d : *sy) ny *= d;
    factor = b.Scalar(t, ny == 0 ? 0.0 : static_cast<double>(nx / std::max<int64_t>(ny, 1)));
  } else {
    Output ny = b.Op("Maximum", {b.Size(ctx.output(0)), b.Int32(1)});
    factor = b.Cast(b.Op("FloorDiv", {b.Size(ctx.input(0)), ny}), t);
  }
  gx = b.Div(gx, factor);
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, gx);
  return Status::Ok();
}

// Max / Min: the gradient is shared equally among the elements equal to the result.
Status MaxMinReductionGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output kept;
  std::vector<bool> reduced;
  GRAFT_RETURN_IF_ERROR(KeptShape(ctx, b, &kept, &reduced));
  Output x = ctx.input(0);
  const DType t = TypeOf(x);
  Output y_kept = b.Reshape(ctx.output(0), kept);
  Output eq = b.Cast(b.Op("Equal", {x, y_kept}), t);
  Output count = b.Sum(eq, ctx.input(1), /*keep_dims=*/true);
  Output g_kept = b.Reshape(ctx.grad(), kept);
  Output gx = b.Mul(b.Div(eq, count), g_kept);
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, gx);
  return Status::Ok();
}

// Prod: each element's gradient is the product of the other elements of its group: y / x for
// a nonzero x; for a zero, the product of the group's nonzero elements when it is the group's
// only zero, else 0.
Status ProdGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output kept;
  std::vector<bool> reduced;
  GRAFT_RETURN_IF_ERROR(KeptShape(ctx, b, &kept, &reduced));
  Output x = ctx.input(0), axes = ctx.input(1);
  const DType t = TypeOf(x);
  Output y_kept = b.Reshape(ctx.output(0), kept);
  Output g_kept = b.Reshape(ctx.grad(), kept);
  Output is_zero = b.Op("Equal", {x, b.Scalar(t, 0)});
  Output zeros = b.Sum(b.Cast(is_zero, t), axes, /*keep_dims=*/true);
  Output nonzero_prod = b.Op("Prod", {b.Select(is_zero, b.OnesLike(x), x), axes}, {{"keep_dims", AttrValue::Bool(true)}});
  Output at_zero = b.Select(b.Op("Equal", {zeros, b.Scalar(t, 1)}), nonzero_prod, b.ZerosLike(nonzero_prod));
  Output others = b.Select(is_zero, b.Op("BroadcastTo", {at_zero, b.Shape(x)}), b.Op("DivNoNan", {y_kept, x}));
  Output gx = b.Mul(g_kept, others);
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, gx);
  return Status::Ok();
}

// Einsum (one or two operands): the gradient of an operand is an Einsum of the incoming
// gradient with the other operand, to the operand's subscripts minus those only it has (summed
// in the forward op), which are then broadcast back. The equations keep the forward labels
// (any character, einsum_equation.h) without "...": each "..." dim becomes an unused letter of
// its own, and a broadcast "..." dim of size 1 a letter only its operand has (so it is summed).
// An output label given twice makes the gradient's operand take that diagonal. Diagonals of an
// input (a label twice in one operand) are not supported.
Status EinsumGrad(GradientContext& ctx) {
  const AttrValue* attr = ctx.op->attr("equation");
  const std::string* equation = attr ? attr->get<std::string>() : nullptr;
  if (equation == nullptr) return errors::InvalidArgument("Einsum op has no equation");
  const int num = ctx.num_inputs();
  if (num > 2) return errors::Unimplemented("Einsum's gradient supports one or two operands, not ", num);
  EinsumEquation eq;
  GRAFT_RETURN_IF_ERROR(ParseEinsumEquation(*equation, num, &eq));
  std::vector<int> ranks;
  std::vector<std::vector<int64_t>> dims;
  for (int i = 0; i < num; ++i) {
    const PartialShape& s = ctx.input(i).node->output_shape(ctx.input(i).index);
    if (!s.known_rank()) return errors::Unimplemented("Einsum's gradient needs the rank of input ", i);
    ranks.push_back(s.rank());
    dims.push_back(s.dims());
  }
  std::vector<std::vector<int>> labels;
  std::vector<int> out_labels;
  GRAFT_RETURN_IF_ERROR(ExpandEinsumEllipsis(eq, ranks, &labels, &out_labels));
  std::map<int, int64_t> sizes;
  GRAFT_RETURN_IF_ERROR(EinsumLabelSizes(labels, dims, &sizes));
  int fresh = 2 * kEinsumEllipsisBase;
  for (int i = 0; i < num; ++i) {
    auto& ls = labels[static_cast<size_t>(i)];
    for (size_t p = 0; p < ls.size(); ++p) {
      if (std::count(ls.begin(), ls.end(), ls[p]) > 1) {
        return errors::Unimplemented("Einsum's gradient does not support repeated subscripts ('", *equation, "')");
      }
      if (ls[p] < kEinsumEllipsisBase) continue;
      const int64_t d = dims[static_cast<size_t>(i)][p], full = sizes.at(ls[p]);
      if ((d == 1 || d == -1) && full != d) {
        if (d == -1 || full == -1) {
          return errors::Unimplemented("Einsum's gradient needs the static sizes of the '...' dims ('", *equation, "')");
        }
        ls[p] = fresh++;
      }
    }
  }
  // Characters for the labels: a character's label stays itself, the others take unused letters.
  std::set<int> used;
  for (const auto& ls : labels) used.insert(ls.begin(), ls.end());
  std::map<int, char> letter;
  std::string spare;
  for (char c = 'a'; c <= 'z'; ++c) spare += c;
  for (char c = 'A'; c <= 'Z'; ++c) spare += c;
  size_t next = 0;
  for (int l : used) {
    if (l < kEinsumEllipsisBase) {
      letter[l] = static_cast<char>(l);
      continue;
    }
    while (next < spare.size() && used.count(static_cast<unsigned char>(spare[next])) != 0) ++next;
    if (next == spare.size()) return errors::Unimplemented("Einsum's gradient ran out of subscript letters");
    letter[l] = spare[next++];
  }
  auto text = [&letter](const std::vector<int>& ls) {
    std::string s;
    for (int l : ls) s += letter.at(l);
    return s;
  };
  GradOps b(ctx);
  for (int i = 0; i < num; ++i) {
    const auto& own = labels[static_cast<size_t>(i)];
    const std::vector<int>* other = num == 2 ? &labels[static_cast<size_t>(1 - i)] : nullptr;
    std::vector<int> keep;
    std::vector<int64_t> keep_mask;
    for (int l : own) {
      const bool k = std::find(out_labels.begin(), out_labels.end(), l) != out_labels.end() ||
                     (other && std::find(other->begin(), other->end(), l) != other->end());
      if (k) keep.push_back(l);
      keep_mask.push_back(k ? 1 : 0);
    }
    std::string grad_eq = text(out_labels) + (other ? "," + text(*other) : "") + "->" + text(keep);
    std::vector<Output> operands = {ctx.grad()};
    if (other) operands.push_back(ctx.input(1 - i));
    Output gi = b.ListOp("Einsum", operands, {}, {{"equation", AttrValue::String(grad_eq)}});
    if (keep.size() != own.size()) {
      // Back to the operand's rank (1 for the summed dims), then broadcast to its shape.
      Output x = ctx.input(i);
      Output kept_shape;
      if (auto sx = StaticShape(x)) {
        for (size_t p = 0; p < sx->size(); ++p)
          if (!keep_mask[p]) (*sx)[p] = 1;
        kept_shape = b.Int32s(*sx);
      } else {
        std::vector<int64_t> drop;
        for (int64_t k : keep_mask) drop.push_back(1 - k);
        kept_shape = b.Add(b.Mul(b.Shape(x), b.Int32s(keep_mask)), b.Int32s(drop));
      }
      gi = b.Op("BroadcastTo", {b.Reshape(gi, kept_shape), b.Shape(x)});
    }
    GRAFT_RETURN_IF_ERROR(b.status());
    ctx.set_grad(i, gi);
  }
  return Status::Ok();
}

}  // namespace

void RegisterMathGradients(GradientRegistry& r) {
  AddGradient(r, "Add", AddGrad);
  AddGradient(r, "AddV2", AddGrad);
  AddGradient(r, "Sub", SubGrad);
  AddGradient(r, "Mul", MulGrad);
  AddGradient(r, "Div", DivGrad);
  AddGradient(r, "RealDiv", DivGrad);
  AddGradient(r, "DivNoNan", DivNoNanGrad);
  AddGradient(r, "Pow", PowGrad);
  AddGradient(r, "Maximum", MaximumGrad);
  AddGradient(r, "ClipByValue", ClipByValueGrad);
  AddGradient(r, "Minimum", MinimumGrad);
  AddGradient(r, "SquaredDifference", SquaredDifferenceGrad);
  AddGradient(r, "Atan2", Atan2Grad);
  AddGradient(r, "Neg", NegGrad);
  AddGradient(r, "Abs", AbsGrad);
  AddGradient(r, "Sign", SignGrad);
  AddGradient(r, "Square", SquareGrad);
  AddGradient(r, "Sqrt", SqrtGrad);
  AddGradient(r, "Rsqrt", RsqrtGrad);
  AddGradient(r, "Reciprocal", ReciprocalGrad);
  AddGradient(r, "Exp", ExpGrad);
  AddGradient(r, "Expm1", Expm1Grad);
  AddGradient(r, "Log", LogGrad);
  AddGradient(r, "Log1p", Log1pGrad);
  AddGradient(r, "Sin", SinGrad);
  AddGradient(r, "Cos", CosGrad);
  AddGradient(r, "Tan", TanGrad);
  AddGradient(r, "Asin", AsinGrad);
  AddGradient(r, "Acos", AcosGrad);
  AddGradient(r, "Atan", AtanGrad);
  AddGradient(r, "Sinh", SinhGrad);
  AddGradient(r, "Cosh", CoshGrad);
  AddGradient(r, "Asinh", AsinhGrad);
  AddGradient(r, "Acosh", AcoshGrad);
  AddGradient(r, "Atanh", AtanhGrad);
  AddGradient(r, "Tanh", TanhGrad);
  AddGradient(r, "Sigmoid", SigmoidGrad);
  AddGradient(r, "Erf", ErfGrad);
  AddGradient(r, "Erfc", ErfcGrad);
  AddGradient(r, "Einsum", EinsumGrad);
  AddGradient(r, "Cast", CastGrad);
  AddGradient(r, "AddN", AddNGrad);
  AddGradient(r, "Select", SelectGrad);
  AddGradient(r, "SelectV2", SelectV2Grad);
  AddGradient(r, "Sum", SumGrad);
  AddGradient(r, "Mean", MeanGrad);
  AddGradient(r, "Max", MaxMinReductionGrad);
  AddGradient(r, "Min", MaxMinReductionGrad);
  AddGradient(r, "Prod", ProdGrad);
  AddGradient(r, "Identity", IdentityGrad);
  AddGradient(r, "Snapshot", IdentityGrad);
  AddGradient(r, "PlaceholderWithDefault", IdentityGrad);
  AddGradient(r, "EnsureShape", IdentityGrad);
  // A variable's value read from its handle: the gradient flows to the handle (the resource
  // tensor), so that gradients with respect to a variable's handle sum over all its reads.
  AddGradient(r, "ReadVariableOp", IdentityGrad);
  for (const char* name : {"StopGradient", "Floor", "Ceil", "Round", "Rint", "FloorDiv", "FloorMod", "TruncateDiv",
                           "TruncateMod", "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                           "LogicalAnd", "LogicalOr", "LogicalNot", "IsNan", "IsInf", "IsFinite", "ArgMax", "ArgMin",
                           "Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike", "BroadcastGradientArgs",
                           "Const", "Placeholder", "Range", "OneHot", "Where"}) {
    AddGradient(r, name, nullptr);
  }
}

}  // namespace graft::ops
