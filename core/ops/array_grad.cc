// Gradient functions of the shape, data-movement and indexing ops (see builtin_ops.h):
// Reshape/ExpandDims/Squeeze, Transpose, ConcatV2/Split/SplitV, Pack/Unpack, Slice, Tile,
// Pad/PadV2, MirrorPad and StridedSlice (static), GatherV2 and ResourceGather (dense),
// UnsortedSegmentSum/Max/Min, SegmentSum/Mean/Prod/Max/Min, GatherNd, ScatterNd, TensorScatterUpdate/Add/Sub/Max/Min,
// BroadcastTo, Fill, Cumsum, Cumprod, MatrixBandPart, IdentityN, ReverseV2, SpaceToBatchND,
// BatchToSpaceND. Formulas as TensorFlow's
// array_grad.py; where TensorFlow uses an op Graft lacks, the equivalent is built from ops
// Graft has (noted at the function).
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_context.h"
#include "core/ops/builtin_ops.h"

namespace graft::ops {
namespace {

DType TypeOf(const Output& t) { return t.node->output_type(t.index); }

int64_t IntAttr(const Node* op, const char* name, int64_t dflt = 0) {
  const AttrValue* v = op->attr(name);
  const int64_t* p = v ? v->get<int64_t>() : nullptr;
  return p ? *p : dflt;
}

Status Set(GradientContext& ctx, GradOps& b, int input, Output g) {
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(input, g);
  return Status::Ok();
}

// Reshape, ExpandDims, Squeeze: g back to the input's shape.
Status ReshapeGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Set(ctx, b, 0, b.Reshape(ctx.grad(), b.Shape(ctx.input(0))));
}

Status TransposeGrad(GradientContext& ctx) {
  GradOps b(ctx);
  // A constant permutation is inverted now (the gradient keeps a static shape).
  std::vector<int64_t> perm;
  Output inv;
  if (ConstInts(ctx.input(1), &perm)) {
    std::vector<int64_t> inverse(perm.size(), -1);
    const int64_t rank = static_cast<int64_t>(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) {
      const int64_t p = perm[i] < 0 ? perm[i] + rank : perm[i];  // Transpose counts these from the end
      if (p < 0 || p >= rank || inverse[static_cast<size_t>(p)] != -1) {
        return errors::InvalidArgument("Transpose's permutation is not a permutation of 0..", perm.size() - 1);
      }
      inverse[static_cast<size_t>(p)] = static_cast<int64_t>(i);
    }
    inv = b.Int32s(inverse);
  } else {
    inv = b.Op("InvertPermutation", {ctx.input(1)});
  }
  return Set(ctx, b, 0, b.Transpose(ctx.grad(), inv));
}

Status IdentityNGrad(GradientContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.grad_outputs[static_cast<size_t>(i)]) ctx.set_grad(i, ctx.grad(i));
  }
  return Status::Ok();
}

// The size of each tensor along axis (static), for splitting a gradient back.
bool SizesAlong(const std::vector<Output>& ts, int64_t axis, std::vector<int64_t>* sizes) {
  sizes->clear();
  for (const Output& t : ts) {
    const PartialShape& s = t.node->output_shape(t.index);
    if (!s.known_rank()) return false;
    int64_t a = axis < 0 ? axis + s.rank() : axis;
    if (a < 0 || a >= s.rank() || s.dim(static_cast<int>(a)) < 0) return false;
    sizes->push_back(s.dim(static_cast<int>(a)));
  }
  return true;
}

// ConcatV2: SplitV of g at the inputs' sizes along the axis.
Status ConcatV2Grad(GradientContext& ctx) {
  GradOps b(ctx);
  const int n = ctx.num_inputs() - 1;
  Output axis_t = ctx.input(n);
  std::vector<int64_t> axis;
  std::vector<Output> values;
  for (int i = 0; i < n; ++i) values.push_back(ctx.input(i));
  std::vector<int64_t> sizes;
  if (!ConstInts(axis_t, &axis) || axis.size() != 1 || !SizesAlong(values, axis[0], &sizes)) {
    return errors::Unimplemented("ConcatV2's gradient needs a constant axis and known sizes along it");
  }
  Node* split = b.AddOp("SplitV", {{{ctx.grad()}, false}, {{b.Int32s(sizes)}, false}, {{b.Int32(static_cast<int32_t>(axis[0]))}, false}},
                        {{"num_split", AttrValue::Int(n)}});
  GRAFT_RETURN_IF_ERROR(b.status());
  for (int i = 0; i < n; ++i) ctx.set_grad(i, Output{split, i});
  return Status::Ok();
}

// Split / SplitV: the outputs' gradients (zeros where none) concatenated.
Status SplitGradImpl(GradientContext& ctx, int value_input, Output axis) {
  GradOps b(ctx);
  std::vector<Output> parts;
  for (int i = 0; i < ctx.num_outputs(); ++i) parts.push_back(ctx.grad(i));
  Output g = parts.size() == 1 ? parts[0] : b.ListOp("ConcatV2", parts, {axis});
  return Set(ctx, b, value_input, g);
}
Status SplitGrad(GradientContext& ctx) { return SplitGradImpl(ctx, 1, ctx.input(0)); }
Status SplitVGrad(GradientContext& ctx) { return SplitGradImpl(ctx, 0, ctx.input(2)); }

Status PackGrad(GradientContext& ctx) {
  GradOps b(ctx);
  const int n = ctx.num_inputs();
  Node* un = b.AddOp("Unpack", {{{ctx.grad()}, false}},
                     {{"num", AttrValue::Int(n)}, {"axis", AttrValue::Int(IntAttr(ctx.op, "axis"))}});
  GRAFT_RETURN_IF_ERROR(b.status());
  for (int i = 0; i < n; ++i) ctx.set_grad(i, Output{un, i});
  return Status::Ok();
}

Status UnpackGrad(GradientContext& ctx) {
  GradOps b(ctx);
  std::vector<Output> parts;
  for (int i = 0; i < ctx.num_outputs(); ++i) parts.push_back(ctx.grad(i));
  return Set(ctx, b, 0, b.ListOp("Pack", parts, {}, {{"axis", AttrValue::Int(IntAttr(ctx.op, "axis"))}}));
}

// Slice: g padded back to the input's shape: before = begin, after = shape - begin - size.
Status SliceGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0);
  Output begin = b.Cast(ctx.input(1), DType::kInt32);
  Output after = b.Sub(b.Sub(b.Shape(x), begin), b.Shape(ctx.output(0)));
  Output paddings = b.ListOp("Pack", {begin, after}, {}, {{"axis", AttrValue::Int(1)}});
  return Set(ctx, b, 0, b.Op("Pad", {ctx.grad(), paddings}));
}

// Pad / PadV2: the slice of g where the input is.
Status PadGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0);
  Output before = b.Reshape(b.Op("Slice", {b.Cast(ctx.input(1), DType::kInt32), b.Int32s({0, 0}), b.Int32s({-1, 1})}),
                            b.Int32s({-1}));
  return Set(ctx, b, 0, b.Op("Slice", {ctx.grad(), before, b.Shape(x)}));
}

// Tile: g reshaped to [m0, d0, m1, d1, ...] and summed over the multiples' axes (static).
Status TileGrad(GradientContext& ctx) {
  GradOps b(ctx);
  auto sx = StaticShape(ctx.input(0)), sy = StaticShape(ctx.output(0));
  if (!sx || !sy || sx->size() != sy->size()) return errors::Unimplemented("Tile's gradient needs static shapes");
  std::vector<int64_t> split, axes;
  for (size_t i = 0; i < sx->size(); ++i) {
    int64_t d = (*sx)[i];
    split.push_back(d == 0 ? 0 : (*sy)[i] / d);
    split.push_back(d);
    axes.push_back(static_cast<int64_t>(2 * i));
  }
  Output g = b.Sum(b.Reshape(ctx.grad(), b.Int32s(split)), b.Int32s(axes));
  return Set(ctx, b, 0, g);
}

// The gradient of gathering rows of params (shape params_shape, an int32 vector) by indices:
// one row of g per index (TensorFlow's IndexedSlices). Where a dense gradient is needed it is
// their UnsortedSegmentSum into params' shape (DenseFromSlices), which costs the parameter's
// size and the gathered rows (not the one-hot matrix of indices x rows used before).
IndexedSlicesGrad GatheredRows(GradOps& b, Output g, Output indices, Output params_shape) {
  Output flat_indices = b.Reshape(indices, b.Int32s({-1}));
  std::vector<int64_t> ps;
  auto is = StaticShape(indices);
  if (ConstInts(params_shape, &ps) && !ps.empty() && is) {
    // Static shapes give constant shapes, so the gradient keeps a static shape too.
    int64_t n = 1;
    for (int64_t d : *is) n *= d;
    std::vector<int64_t> values_shape{n};
    values_shape.insert(values_shape.end(), ps.begin() + 1, ps.end());
    return {b.Reshape(g, b.Int32s(values_shape)), flat_indices, params_shape};
  }
  Output row_shape = b.Op("Slice", {params_shape, b.Int32s({1}), b.Int32s({-1})});
  Output values_shape = b.ListOp("ConcatV2", {b.Reshape(b.Size(indices), b.Int32s({1})), row_shape}, {b.Int32(0)});
  return {b.Reshape(g, values_shape), flat_indices, params_shape};
}

Status SetRows(GradientContext& ctx, GradOps& b, int input, const IndexedSlicesGrad& rows) {
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_sparse_grad(input, rows);
  return Status::Ok();
}

// GatherV2 on a constant axis without batch dims. Axis 0 gives rows of params (any shapes);
// another axis k views params as [outer, n, inner] (static shape), moves the gathered axis
// first, scatters densely, and moves it back.
Status GatherV2Grad(GradientContext& ctx) {
  GradOps b(ctx);
  std::vector<int64_t> axis;
  if (!ConstInts(ctx.input(2), &axis) || axis.size() != 1 || IntAttr(ctx.op, "batch_dims") != 0) {
    return errors::Unimplemented("GatherV2's gradient supports a constant axis without batch dims only");
  }
  if (axis[0] == 0) return SetRows(ctx, b, 0, GatheredRows(b, ctx.grad(), ctx.input(1), b.Shape(ctx.input(0))));
  auto sp = StaticShape(ctx.input(0));
  if (!sp || sp->empty()) return errors::Unimplemented("GatherV2's gradient along axis ", axis[0], " needs the params' static shape");
  const int64_t rank = static_cast<int64_t>(sp->size());
  const int64_t k = axis[0] < 0 ? axis[0] + rank : axis[0];
  if (k < 0 || k >= rank) return errors::InvalidArgument("GatherV2's axis ", axis[0], " is out of range for rank ", rank);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < k; ++i) outer *= (*sp)[static_cast<size_t>(i)];
  for (int64_t i = k + 1; i < rank; ++i) inner *= (*sp)[static_cast<size_t>(i)];
  const int64_t n = (*sp)[static_cast<size_t>(k)];
  Output g = b.Transpose(b.Reshape(ctx.grad(), b.Int32s({outer, -1, inner})), b.Int32s({1, 0, 2}));
  Output dense = DenseFromSlices(b, GatheredRows(b, g, ctx.input(1), b.Int32s({n, outer, inner})));
  dense = b.Transpose(dense, b.Int32s({1, 0, 2}));
  return Set(ctx, b, 0, b.Reshape(dense, b.Int32s(*sp)));
}

// ResourceGather (batch_dims 0): rows of the variable, flowing to its handle as
// ReadVariableOp's gradient does, shaped like the variable (VariableShape, read when run).
Status ResourceGatherGrad(GradientContext& ctx) {
  GradOps b(ctx);
  if (IntAttr(ctx.op, "batch_dims") != 0) return errors::Unimplemented("ResourceGather's gradient with batch_dims");
  Output shape = b.Op("VariableShape", {ctx.input(0)});
  return SetRows(ctx, b, 0, GatheredRows(b, ctx.grad(), ctx.input(1), shape));
}

// UnsortedSegmentSum: each data row gets its segment's gradient row; rows with a negative id
// were dropped and get zeros (TensorFlow's _GatherDropNegatives).
Status UnsortedSegmentSumGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output ids = ctx.input(1);
  Output g = ctx.grad();
  Output clipped = b.Op("Maximum", {ids, b.ZerosLike(ids)});
  Output gathered = b.Op("GatherV2", {g, clipped, b.Int32(0)});
  Output keep = b.Op("GreaterEqual", {ids, b.ZerosLike(ids)});
  // keep's shape followed by ones up to gathered's rank, so that it broadcasts over each row.
  auto ids_shape = StaticShape(ids);
  auto g_shape = StaticShape(g);
  if (ids_shape && g_shape) {
    std::vector<int64_t> s = *ids_shape;
    s.resize(ids_shape->size() + g_shape->size() - 1, 1);
    keep = b.Reshape(keep, b.Int32s(s));
  } else {
    Output ones = b.Fill(b.Reshape(b.Sub(b.Rank(gathered), b.Rank(ids)), b.Int32s({1})), b.Int32(1));
    keep = b.Reshape(keep, b.ListOp("ConcatV2", {b.Shape(ids), ones}, {b.Int32(0)}));
  }
  return Set(ctx, b, 0, b.Select(keep, gathered, b.ZerosLike(gathered)));
}

// StridedSlice with constant begin/end/strides and a static input shape
// (TensorFlow uses StridedSliceGrad, which Graft lacks): g gets back the input's rank (new
// axes dropped, shrunk axes restored), zeros are interleaved along strided axes (reshape to
// [n, 1], pad to [n, s], reshape to [n·s]), and the result is trimmed and padded into place. A negative stride is the
// forward slice of the same elements with g reversed along that axis (a GatherV2).
Status StridedSliceGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0);
  auto sx = StaticShape(x);
  std::vector<int64_t> begin, end, strides;
  if (!sx || !ConstInts(ctx.input(1), &begin) || !ConstInts(ctx.input(2), &end) ||
      !ConstInts(ctx.input(3), &strides) || begin.size() != end.size() || begin.size() != strides.size()) {
    return errors::Unimplemented("StridedSlice's gradient needs constant begin/end/strides and a static input shape");
  }
  const int64_t begin_mask = IntAttr(ctx.op, "begin_mask"), end_mask = IntAttr(ctx.op, "end_mask");
  const int64_t shrink_mask = IntAttr(ctx.op, "shrink_axis_mask");
  const int64_t ellipsis_mask = IntAttr(ctx.op, "ellipsis_mask"), new_axis_mask = IntAttr(ctx.op, "new_axis_mask");
  const size_t rank = sx->size();
  std::vector<int64_t> first(rank, 0), step(rank, 1), count(*sx);
  std::vector<bool> reversed(rank, false);
  // How many input dims an ellipsis stands for.
  size_t used = 0;
  for (size_t j = 0; j < begin.size(); ++j) {
    if (!((ellipsis_mask >> j) & 1) && !((new_axis_mask >> j) & 1)) ++used;
  }
  if (used > rank) return errors::InvalidArgument("StridedSlice has more index specs than the input has dims");
  bool empty = false;
  size_t dim = 0;  // the input dim spec j applies to
  for (size_t j = 0; j < begin.size(); ++j) {
    if ((ellipsis_mask >> j) & 1) {
      dim += rank - used;
      continue;
    }
    if ((new_axis_mask >> j) & 1) continue;
    if (dim >= rank) return errors::InvalidArgument("StridedSlice's index specs go past the input's dims");
    const size_t i = dim++;
    const int64_t d = (*sx)[i], st = strides[j];
    if (st == 0) return errors::InvalidArgument("StridedSlice has a zero stride");
    int64_t bb, ee;
    if ((shrink_mask >> j) & 1) {
      bb = begin[j] < 0 ? begin[j] + d : begin[j];
      ee = bb + 1;
      count[i] = 1;
    } else if (st > 0) {
      auto clamp = [d](int64_t v) { return std::min(std::max(v < 0 ? v + d : v, int64_t{0}), d); };
      bb = (begin_mask >> j) & 1 ? 0 : clamp(begin[j]);
      ee = (end_mask >> j) & 1 ? d : clamp(end[j]);
      count[i] = ee > bb ? (ee - bb + st - 1) / st : 0;
    } else {
      // Backwards: from bb down to (not including) ee; the same elements as a forward slice
      // from the last one reached, in reverse order.
      auto clamp = [d](int64_t v) { return std::min(std::max(v < 0 ? v + d : v, int64_t{-1}), d - 1); };
      bb = (begin_mask >> j) & 1 ? d - 1 : clamp(begin[j]);
      ee = (end_mask >> j) & 1 ? -1 : clamp(end[j]);
      count[i] = bb > ee ? (bb - ee - st - 1) / -st : 0;
      if (count[i] > 0) bb -= (count[i] - 1) * -st;
      reversed[i] = true;
    }
    first[i] = bb;
    step[i] = st > 0 ? st : -st;
    if (count[i] == 0) empty = true;
  }
  if (empty) return Set(ctx, b, 0, b.ZerosLike(x));
  std::vector<int64_t> shape = count;
  Output g = b.Reshape(ctx.grad(), b.Int32s(shape));
  for (size_t k = 0; k < rank; ++k) {
    if (!reversed[k]) continue;
    std::vector<int64_t> back;
    for (int64_t n = count[k] - 1; n >= 0; --n) back.push_back(n);
    g = b.Op("GatherV2", {g, b.Int32s(back), b.Int32(static_cast<int32_t>(k))});
  }
  for (size_t i = 0; i < rank; ++i) {
    if (step[i] == 1) continue;
    std::vector<int64_t> split = shape;
    split.insert(split.begin() + static_cast<std::ptrdiff_t>(i) + 1, 1);
    std::vector<int64_t> pads(2 * split.size(), 0);
    pads[2 * (i + 1) + 1] = step[i] - 1;
    Output p = b.Reshape(b.Int32s(pads), b.Int32s({static_cast<int64_t>(split.size()), 2}));
    g = b.Op("Pad", {b.Reshape(g, b.Int32s(split)), p});
    shape[i] *= step[i];
    g = b.Reshape(g, b.Int32s(shape));
  }
  std::vector<int64_t> size(rank), pads(2 * rank);
  bool trim = false;
  for (size_t i = 0; i < rank; ++i) {
    size[i] = std::min(shape[i], (*sx)[i] - first[i]);
    trim = trim || size[i] != shape[i];
    pads[2 * i] = first[i];
    pads[2 * i + 1] = (*sx)[i] - first[i] - size[i];
  }
  if (trim) g = b.Op("Slice", {g, b.Int32s(std::vector<int64_t>(rank, 0)), b.Int32s(size)});
  Output p = b.Reshape(b.Int32s(pads), b.Int32s({static_cast<int64_t>(rank), 2}));
  return Set(ctx, b, 0, b.Op("Pad", {g, p}));
}

// MirrorPad (static shape, constant paddings; TensorFlow uses MirrorPadGrad, which Graft
// lacks): along each padded axis the gradient is g times the 0/1 matrix M[out, in] that says
// which input element each output element copies (the axis moved last, a MatMul, moved back).
Status MirrorPadGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0);
  auto sx = StaticShape(x);
  std::vector<int64_t> pads;
  const AttrValue* mode_attr = ctx.op->attr("mode");
  const std::string* mode = mode_attr ? mode_attr->get<std::string>() : nullptr;
  if (!sx || !ConstInts(ctx.input(1), &pads) || pads.size() != 2 * sx->size() || mode == nullptr) {
    return errors::Unimplemented("MirrorPad's gradient needs a static input shape and constant paddings");
  }
  const bool reflect = *mode == "REFLECT";
  const int64_t rank = static_cast<int64_t>(sx->size());
  const DType t = TypeOf(x);
  Output g = ctx.grad();
  std::vector<int64_t> shape(sx->size());
  for (int64_t i = 0; i < rank; ++i) shape[i] = (*sx)[i] + pads[2 * i] + pads[2 * i + 1];
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = (*sx)[i], before = pads[2 * i], out = shape[i];
    if (out == d) continue;
    Tensor m;
    std::vector<int64_t> mdims = {out, d};
    Status s = Tensor::Allocate(DType::kFloat32, mdims, &m);
    if (!s.ok()) return s;
    float* mv = m.data<float>();
    for (int64_t o = 0; o < out; ++o) {
      int64_t p = o - before;
      if (p < 0) p = reflect ? -p : -p - 1;
      if (p >= d) p = reflect ? 2 * (d - 1) - p : 2 * d - 1 - p;
      if (p < 0 || p >= d) return errors::InvalidArgument("MirrorPad's paddings are too large for dim ", i);
      mv[o * d + p] += 1.0f;
    }
    std::vector<int64_t> perm, moved;
    for (int64_t k = 0; k < rank; ++k)
      if (k != i) perm.push_back(k);
    perm.push_back(i);
    for (int64_t k : perm) moved.push_back(shape[static_cast<size_t>(k)]);
    Output gt = b.Transpose(g, b.Int32s(perm));
    Output prod = b.MatMul(b.Reshape(gt, b.Int32s({-1, out})), b.Cast(b.Const(std::move(m)), t), false, false);
    moved.back() = d;
    shape[static_cast<size_t>(i)] = d;
    g = b.Transpose(b.Reshape(prod, b.Int32s(moved)), b.Op("InvertPermutation", {b.Int32s(perm)}));
  }
  return Set(ctx, b, 0, g);
}

Status BroadcastToGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Set(ctx, b, 0, b.BroadcastGrads(ctx.grad(), Output{}, ctx.input(0), ctx.output(0)).first);
}

// Fill: the value's gradient is the sum of g.
Status FillGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output g = ctx.grad();
  Output axes = b.Op("Range", {b.Int32(0), b.Rank(g), b.Int32(1)});
  return Set(ctx, b, 1, b.Sum(g, axes));
}

Status CumsumGrad(GradientContext& ctx) {
  GradOps b(ctx);
  const AttrValue* ex = ctx.op->attr("exclusive");
  const AttrValue* rev = ctx.op->attr("reverse");
  const bool exclusive = ex && ex->get<bool>() && *ex->get<bool>();
  const bool reverse = rev && rev->get<bool>() && *rev->get<bool>();
  Output g = b.Op("Cumsum", {ctx.grad(), ctx.input(1)},
                  {{"exclusive", AttrValue::Bool(exclusive)}, {"reverse", AttrValue::Bool(!reverse)}});
  return Set(ctx, b, 0, g);
}

// MatrixBandPart: the band of g (the other elements did not reach the output).
Status MatrixBandPartGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Set(ctx, b, 0, b.Op("MatrixBandPart", {ctx.grad(), ctx.input(1), ctx.input(2)}));
}

// ReverseV2: g reversed along the same axes.
Status ReverseV2Grad(GradientContext& ctx) {
  GradOps b(ctx);
  return Set(ctx, b, 0, b.Op("ReverseV2", {ctx.grad(), ctx.input(1)}));
}

// SpaceToBatchND and BatchToSpaceND are each other's inverse (padding and cropping aside):
// the gradient of one is the other on g, with the same block_shape and paddings/crops.
Status SpaceToBatchNDGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Set(ctx, b, 0, b.Op("BatchToSpaceND", {ctx.grad(), ctx.input(1), ctx.input(2)}));
}

Status BatchToSpaceNDGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Set(ctx, b, 0, b.Op("SpaceToBatchND", {ctx.grad(), ctx.input(1), ctx.input(2)}));
}

// Cumprod: the reverse cumulative sum of g * the products, divided by x (TensorFlow's formula,
// which needs x without zeros).
Status CumprodGrad(GradientContext& ctx) {
  GradOps b(ctx);
  const AttrValue* ex = ctx.op->attr("exclusive");
  const AttrValue* rev = ctx.op->attr("reverse");
  const bool exclusive = ex && ex->get<bool>() && *ex->get<bool>();
  const bool reverse = rev && rev->get<bool>() && *rev->get<bool>();
  Output summed = b.Op("Cumsum", {b.Mul(ctx.output(0), ctx.grad()), ctx.input(1)},
                       {{"exclusive", AttrValue::Bool(exclusive)}, {"reverse", AttrValue::Bool(!reverse)}});
  return Set(ctx, b, 0, b.Div(summed, ctx.input(0)));
}

// UnsortedSegmentMax / Min: each segment's gradient is shared equally among the data rows'
// elements that equal the segment's result (ties as TensorFlow's _UnsortedSegmentMinOrMaxGrad);
// other elements, and rows with a negative id, get zeros.
Status UnsortedSegmentMinMaxGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output data = ctx.input(0), ids = ctx.input(1);
  auto ids_shape = StaticShape(ids);
  auto data_shape = StaticShape(data);
  if (!ids_shape || !data_shape) {
    return errors::Unimplemented(ctx.op->type(), "'s gradient needs the static shapes of data and segment_ids");
  }
  const DType t = TypeOf(data);
  Output clipped = b.Op("Maximum", {ids, b.ZerosLike(ids)});
  // Rows of ids' shape followed by ones: a mask that broadcasts over each data row.
  std::vector<int64_t> mask_shape = *ids_shape;
  mask_shape.resize(data_shape->size(), 1);
  Output valid = b.Reshape(b.Op("GreaterEqual", {ids, b.ZerosLike(ids)}), b.Int32s(mask_shape));
  Output selected = b.Op("LogicalAnd", {b.Op("Equal", {data, b.Op("GatherV2", {ctx.output(0), clipped, b.Int32(0)})}),
                                        valid});
  Output count = b.Op("UnsortedSegmentSum", {b.Cast(selected, t), ids, ctx.input(2)});
  Output shared = b.Op("GatherV2", {b.Div(ctx.grad(), b.Op("Maximum", {count, b.OnesLike(count)})), clipped, b.Int32(0)});
  return Set(ctx, b, 0, b.Select(selected, shared, b.ZerosLike(shared)));
}

// The sorted segment reductions (TensorFlow's math_grad.py). Each data row's gradient comes
// from its segment's row of g: GatherV2 along the ids.
Output GatherRows(GradOps& b, Output rows, Output ids) { return b.Op("GatherV2", {rows, ids, b.Int32(0)}); }

Status SegmentSumGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Set(ctx, b, 0, GatherRows(b, ctx.grad(), ctx.input(1)));
}

// SegmentMean: g divided by each segment's row count (a SegmentSum of ones shaped
// [rows, 1, ..., 1] so that it broadcasts over g's rows).
Status SegmentMeanGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output data = ctx.input(0), ids = ctx.input(1);
  Output ones_shape;
  auto data_shape = StaticShape(data);
  if (data_shape && !data_shape->empty()) {
    std::vector<int64_t> s(data_shape->size(), 1);
    s[0] = (*data_shape)[0];
    ones_shape = b.Int32s(s);
  } else {
    Output ones = b.Fill(b.Reshape(b.Sub(b.Rank(data), b.Int32(1)), b.Int32s({1})), b.Int32(1));
    ones_shape = b.ListOp("ConcatV2", {b.Shape(ids), ones}, {b.Int32(0)});
  }
  Output count = b.Op("SegmentSum", {b.Fill(ones_shape, b.Scalar(TypeOf(data), 1)), ids});
  return Set(ctx, b, 0, GatherRows(b, b.Div(ctx.grad(), count), ids));
}

// SegmentMax / Min: g shared equally among the elements equal to their segment's result.
Status SegmentMinMaxGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output data = ctx.input(0), ids = ctx.input(1);
  Output selected = b.Op("Equal", {data, GatherRows(b, ctx.output(0), ids)});
  Output count = b.Op("SegmentSum", {b.Cast(selected, TypeOf(data)), ids});
  Output shared = GatherRows(b, b.Div(ctx.grad(), count), ids);
  return Set(ctx, b, 0, b.Select(selected, shared, b.ZerosLike(shared)));
}

// SegmentProd: the product of the other elements of the segment: output / x where x is not 0;
// where it is, the product of the segment's non-zero elements (and 0 when the segment has
// another zero), as TensorFlow's _SegmentProdGrad.
Status SegmentProdGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output data = ctx.input(0), ids = ctx.input(1);
  const DType t = TypeOf(data);
  Output is_zero = b.Op("Equal", {data, b.Scalar(t, 0)});
  Output zeros = b.Op("SegmentSum", {b.Cast(is_zero, DType::kInt32), ids});
  Output g = b.Select(b.Op("Greater", {zeros, b.Int32(1)}), b.ZerosLike(ctx.grad()), ctx.grad());
  Output non_zero = b.Select(is_zero, b.OnesLike(data), data);
  Output non_zero_prod = b.Op("SegmentProd", {non_zero, ids});
  Output by_element = b.Div(GatherRows(b, ctx.output(0), ids), non_zero);
  Output partial = b.Select(is_zero, GatherRows(b, non_zero_prod, ids), by_element);
  return Set(ctx, b, 0, b.Mul(GatherRows(b, g, ids), partial));
}

// The scatters (TensorFlow's array_grad.py): an update's gradient is the slice of g it was
// written to (GatherNd); the tensor's is g, except where TensorScatterUpdate overwrote it.
Status ScatterNdGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Set(ctx, b, 1, b.Op("GatherNd", {ctx.grad(), ctx.input(0)}));
}

// GatherNd: g scattered back to the slices it was read from (ScatterNd sums repeated ones).
Status GatherNdGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output indices = ctx.input(1);
  return Set(ctx, b, 0, b.Op("ScatterNd", {indices, ctx.grad(), b.Cast(b.Shape(ctx.input(0)), TypeOf(indices))}));
}

Status TensorScatterUpdateGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output indices = ctx.input(1), g = ctx.grad();
  Output tensor_grad = b.Op("TensorScatterUpdate", {g, indices, b.ZerosLike(ctx.input(2))});
  Output updates_grad = b.Op("GatherNd", {g, indices});
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, tensor_grad);
  ctx.set_grad(2, updates_grad);
  return Status::Ok();
}

Status TensorScatterAddSubGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output g = ctx.grad();
  Output updates_grad = b.Op("GatherNd", {g, ctx.input(1)});
  if (ctx.op->type() == "TensorScatterSub") updates_grad = b.Neg(updates_grad);
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, g);
  ctx.set_grad(2, updates_grad);
  return Status::Ok();
}

// TensorScatterMax / Min: g shared equally among the tensor's element and the updates that
// equal the result there.
Status TensorScatterMinMaxGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0), indices = ctx.input(1), y = ctx.input(2), out = ctx.output(0), g = ctx.grad();
  const DType t = TypeOf(g);
  Output x_ind = b.Cast(b.Op("Equal", {x, out}), t);
  Output y_ind = b.Cast(b.Op("Equal", {y, b.Op("GatherNd", {out, indices})}), t);
  Output ys_ind = b.Op("ScatterNd", {indices, y_ind, b.Cast(b.Shape(x), TypeOf(indices))});
  Output ind = b.Add(x_ind, ys_ind);  // >= 1 everywhere
  Output x_grad = b.Div(b.Mul(g, x_ind), ind);
  Output y_grad = b.Mul(b.Op("GatherNd", {b.Div(g, ind), indices}), y_ind);
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, x_grad);
  ctx.set_grad(2, y_grad);
  return Status::Ok();
}

}  // namespace

void RegisterArrayGradients(GradientRegistry& r) {
  AddGradient(r, "Reshape", ReshapeGrad);
  AddGradient(r, "ExpandDims", ReshapeGrad);
  AddGradient(r, "Squeeze", ReshapeGrad);
  AddGradient(r, "Transpose", TransposeGrad);
  AddGradient(r, "IdentityN", IdentityNGrad);
  AddGradient(r, "ConcatV2", ConcatV2Grad);
  AddGradient(r, "Split", SplitGrad);
  AddGradient(r, "SplitV", SplitVGrad);
  AddGradient(r, "Pack", PackGrad);
  AddGradient(r, "Unpack", UnpackGrad);
  AddGradient(r, "Slice", SliceGrad);
  AddGradient(r, "Pad", PadGrad);
  AddGradient(r, "PadV2", PadGrad);
  AddGradient(r, "MirrorPad", MirrorPadGrad);
  AddGradient(r, "Tile", TileGrad);
  AddGradient(r, "GatherV2", GatherV2Grad);
  AddGradient(r, "ResourceGather", ResourceGatherGrad);
  AddGradient(r, "UnsortedSegmentSum", UnsortedSegmentSumGrad);
  AddGradient(r, "UnsortedSegmentMax", UnsortedSegmentMinMaxGrad);
  AddGradient(r, "UnsortedSegmentMin", UnsortedSegmentMinMaxGrad);
  AddGradient(r, "VariableShape", nullptr);
  AddGradient(r, "SegmentSum", SegmentSumGrad);
  AddGradient(r, "SegmentMean", SegmentMeanGrad);
  AddGradient(r, "SegmentProd", SegmentProdGrad);
  AddGradient(r, "SegmentMax", SegmentMinMaxGrad);
  AddGradient(r, "SegmentMin", SegmentMinMaxGrad);
  AddGradient(r, "ScatterNd", ScatterNdGrad);
  AddGradient(r, "GatherNd", GatherNdGrad);
  AddGradient(r, "TensorScatterUpdate", TensorScatterUpdateGrad);
  AddGradient(r, "TensorScatterAdd", TensorScatterAddSubGrad);
  AddGradient(r, "TensorScatterSub", TensorScatterAddSubGrad);
  AddGradient(r, "TensorScatterMax", TensorScatterMinMaxGrad);
  AddGradient(r, "TensorScatterMin", TensorScatterMinMaxGrad);
  AddGradient(r, "StridedSlice", StridedSliceGrad);
  AddGradient(r, "BroadcastTo", BroadcastToGrad);
  AddGradient(r, "Fill", FillGrad);
  AddGradient(r, "Cumsum", CumsumGrad);
  AddGradient(r, "Cumprod", CumprodGrad);
  AddGradient(r, "MatrixBandPart", MatrixBandPartGrad);
  AddGradient(r, "ReverseV2", ReverseV2Grad);
  AddGradient(r, "SpaceToBatchND", SpaceToBatchNDGrad);
  AddGradient(r, "BatchToSpaceND", BatchToSpaceNDGrad);
}

}  // namespace graft::ops
