// Gradient functions of the neural-network ops (see builtin_ops.h): activations, BiasAdd,
// MatMul/BatchMatMulV2, Softmax/LogSoftmax, Conv2D, Conv3D, DepthwiseConv2dNative and pooling (2-D and 3-D, through
// the backprop ops), FusedBatchNormV3 (from its formula), the losses, and, for second
// derivatives, the activations' gradient ops (ReluGrad, SigmoidGrad, ...), BiasAddGrad,
// Conv2D's backprop ops and AvgPoolGrad. Formulas as TensorFlow's
// nn_grad.py / math_grad.py.
#include <string>
#include <vector>

#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_context.h"
#include "core/ops/builtin_ops.h"

namespace graft::ops {
namespace {


DType TypeOf(const Output& t) { return t.node->output_type(t.index); }

// The attrs of op named in names (those it has), for an op built from the same settings.
AttrMap CopyAttrs(const Node* op, std::initializer_list<const char*> names) {
  AttrMap out;
  for (const char* n : names) {
    if (const AttrValue* v = op->attr(n)) out[n] = *v;
  }
  return out;
}

Status Finish(GradientContext& ctx, GradOps& b, std::initializer_list<std::pair<int, Output>> grads) {
  GRAFT_RETURN_IF_ERROR(b.status());
  for (const auto& [i, g] : grads) ctx.set_grad(i, g);
  return Status::Ok();
}

Status ReluGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Finish(ctx, b, {{0, b.Op("ReluGrad", {ctx.grad(), ctx.output(0)})}});
}

Status Relu6Grad(GradientContext& ctx) {
  GradOps b(ctx);
  return Finish(ctx, b, {{0, b.Op("Relu6Grad", {ctx.grad(), ctx.input(0)})}});
}

Status EluGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output g = ctx.grad(), y = ctx.output(0);
  const DType t = TypeOf(y);
  Output neg = b.Op("Less", {y, b.Scalar(t, 0)});
  return Finish(ctx, b, {{0, b.Select(neg, b.Mul(g, b.Add(y, b.Scalar(t, 1))), g)}});
}

Status SeluGrad(GradientContext& ctx) {
  constexpr double kScale = 1.0507009873554804934193349852946;
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  GradOps b(ctx);
  Output g = ctx.grad(), y = ctx.output(0);
  const DType t = TypeOf(y);
  Output neg = b.Op("Less", {y, b.Scalar(t, 0)});
  Output gneg = b.Mul(g, b.Add(y, b.Scalar(t, kScale * kAlpha)));
  return Finish(ctx, b, {{0, b.Select(neg, gneg, b.Mul(g, b.Scalar(t, kScale)))}});
}

Status SoftplusGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Finish(ctx, b, {{0, b.Mul(ctx.grad(), b.Op("Sigmoid", {ctx.input(0)}))}});
}

Status SoftsignGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0);
  Output d = b.Square(b.Add(b.Scalar(TypeOf(x), 1), b.Op("Abs", {x})));
  return Finish(ctx, b, {{0, b.Div(ctx.grad(), d)}});
}

Status LeakyReluGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0), g = ctx.grad();
  const AttrValue* a = ctx.op->attr("alpha");
  const float* alpha = a ? a->get<float>() : nullptr;
  const DType t = TypeOf(x);
  Output pos = b.Op("Greater", {x, b.Scalar(t, 0)});
  return Finish(ctx, b, {{0, b.Select(pos, g, b.Mul(g, b.Scalar(t, alpha ? *alpha : 0.2)))}});
}

// ---- The activations' gradient ops, for second derivatives (as TensorFlow's).
// ReluGrad(g, f) = g · (f > 0): linear in g through the same mask, flat in f.
Status ReluGradGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output gg = b.Op(ctx.op->type(), {ctx.grad(), ctx.input(1)});
  return Finish(ctx, b, {{0, gg}, {1, b.ZerosLike(ctx.input(1))}});
}

// SigmoidGrad(y, dy) = dy · y · (1 - y): d/dy = g · dy · (1 - 2y), d/d dy = SigmoidGrad(y, g).
Status SigmoidGradGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output y = ctx.input(0), dy = ctx.input(1), g = ctx.grad();
  const DType t = TypeOf(y);
  Output gy = b.Mul(b.Mul(g, dy), b.Sub(b.Scalar(t, 1), b.Mul(b.Scalar(t, 2), y)));
  return Finish(ctx, b, {{0, gy}, {1, b.Op("SigmoidGrad", {y, g})}});
}

// TanhGrad(y, dy) = dy · (1 - y²): d/dy = -2 · g · dy · y, d/d dy = TanhGrad(y, g).
Status TanhGradGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output y = ctx.input(0), dy = ctx.input(1), g = ctx.grad();
  Output gy = b.Mul(b.Mul(g, dy), b.Mul(b.Scalar(TypeOf(y), -2), y));
  return Finish(ctx, b, {{0, gy}, {1, b.Op("TanhGrad", {y, g})}});
}

// BiasAddGrad sums over all but the channel axis: its gradient broadcasts g back.
Status BiasAddGradGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0), g = ctx.grad();
  const AttrValue* fmt = ctx.op->attr("data_format");
  const std::string* format = fmt ? fmt->get<std::string>() : nullptr;
  if (format != nullptr && *format == "NCHW") {
    const PartialShape& s = x.node->output_shape(x.index);
    if (!s.known_rank()) return errors::Unimplemented("BiasAddGrad's gradient (NCHW) needs the input's rank");
    std::vector<int64_t> dims(static_cast<size_t>(s.rank()), 1);
    dims[1] = -1;
    g = b.Reshape(g, b.Int32s(dims));
  }
  return Finish(ctx, b, {{0, b.Op("BroadcastTo", {g, b.Shape(x)})}});
}

Status BiasAddGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output gb = b.Op("BiasAddGrad", {ctx.grad()}, CopyAttrs(ctx.op, {"data_format"}));
  return Finish(ctx, b, {{0, ctx.grad()}, {1, gb}});
}

bool BoolAttr(const Node* op, const char* name) {
  const AttrValue* v = op->attr(name);
  const bool* p = v ? v->get<bool>() : nullptr;
  return p != nullptr && *p;
}

Status MatMulGrad(GradientContext& ctx) {
  GradOps b(ctx);
  const bool ta = BoolAttr(ctx.op, "transpose_a"), tb = BoolAttr(ctx.op, "transpose_b");
  Output a = ctx.input(0), w = ctx.input(1), g = ctx.grad();
  Output ga, gw;
  if (!ta && !tb) {
    ga = b.MatMul(g, w, false, true);
    gw = b.MatMul(a, g, true, false);
  } else if (!ta && tb) {
    ga = b.MatMul(g, w, false, false);
    gw = b.MatMul(g, a, true, false);
  } else if (ta && !tb) {
    ga = b.MatMul(w, g, false, true);
    gw = b.MatMul(a, g, false, false);
  } else {
    ga = b.MatMul(w, g, true, true);
    gw = b.MatMul(g, a, true, true);
  }
  return Finish(ctx, b, {{0, ga}, {1, gw}});
}

// The gradient of a batch matmul operand, summed over the batch dims it was broadcast along
// (static shapes only).
Output ReduceBatch(GradOps& b, Output g, Output x) {
  auto sg = StaticShape(g), sx = StaticShape(x);
  if (!b.ok()) return g;
  if (!sg || !sx) {
    b.Fail(errors::Unimplemented("BatchMatMulV2's gradient needs static shapes (", Graph::TensorName(x), ")"));
    return Output{};
  }
  if (*sg == *sx) return g;
  const size_t rank = sg->size();
  std::vector<int64_t> axes;
  for (size_t i = 0; i + 2 < rank; ++i) {
    const size_t pad = rank - sx->size();
    int64_t dx = i < pad ? 1 : (*sx)[i - pad];
    if (dx == 1 && (*sg)[i] != 1) axes.push_back(static_cast<int64_t>(i));
  }
  Output summed = axes.empty() ? g : b.Sum(g, b.Int32s(axes));
  return b.Reshape(summed, b.Int32s(*sx));
}

Status BatchMatMulV2Grad(GradientContext& ctx) {
  GradOps b(ctx);
  const bool ax = BoolAttr(ctx.op, "adj_x"), ay = BoolAttr(ctx.op, "adj_y");
  Output x = ctx.input(0), y = ctx.input(1), g = ctx.grad();
  auto bmm = [&](Output p, Output q, bool ap, bool aq) {
    return b.Op("BatchMatMulV2", {p, q}, {{"adj_x", AttrValue::Bool(ap)}, {"adj_y", AttrValue::Bool(aq)}});
  };
  Output gx, gy;
  if (!ax && !ay) {
    gx = bmm(g, y, false, true);
    gy = bmm(x, g, true, false);
  } else if (!ax && ay) {
    gx = bmm(g, y, false, false);
    gy = bmm(g, x, true, false);
  } else if (ax && !ay) {
    gx = bmm(y, g, false, true);
    gy = bmm(x, g, false, false);
  } else {
    gx = bmm(y, g, true, true);
    gy = bmm(g, x, true, true);
  }
  gx = ReduceBatch(b, gx, x);
  gy = ReduceBatch(b, gy, y);
  return Finish(ctx, b, {{0, gx}, {1, gy}});
}

Status SoftmaxGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output y = ctx.output(0), g = ctx.grad();
  Output s = b.Sum(b.Mul(g, y), b.Int32s({-1}), /*keep_dims=*/true);
  return Finish(ctx, b, {{0, b.Mul(b.Sub(g, s), y)}});
}

Status LogSoftmaxGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output y = ctx.output(0), g = ctx.grad();
  Output s = b.Sum(g, b.Int32s({-1}), /*keep_dims=*/true);
  return Finish(ctx, b, {{0, b.Sub(g, b.Mul(s, b.Op("Exp", {y})))}});
}

// L2Loss = Σ x² / 2: dx = x · g.
Status L2LossGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Finish(ctx, b, {{0, b.Mul(ctx.input(0), ctx.grad())}});
}

// Whether a gradient is the builder's zero filler (ZerosLike) for an output nobody used.
bool IsZeroFill(const Output& g) { return g.node == nullptr || g.node->type() == "ZerosLike"; }

// The logits' gradient of the softmax cross-entropy ops: the loss gradient (per row) times
// the backprop output (total · softmax - labels, total = Σ labels: 1 for sparse labels),
// plus, when the backprop output itself has a gradient gb (second derivatives), its path
// through the softmax: total · (gb - Σ gb·softmax) · softmax (TensorFlow's formula assumes
// total = 1).
Output CrossEntropyLogitsGrad(GradientContext& ctx, GradOps& b, Output total) {
  Output g_loss = b.Op("ExpandDims", {ctx.grad(0), b.Int32(-1)});
  Output gx = b.Mul(g_loss, ctx.output(1));
  Output gb = ctx.grad(1);
  if (!IsZeroFill(gb)) {
    Output sm = b.Op("Softmax", {ctx.input(0)});
    Output dot = b.Sum(b.Mul(gb, sm), b.Int32s({-1}), /*keep_dims=*/true);
    Output path = b.Mul(b.Sub(gb, dot), sm);
    gx = b.Add(gx, total.node ? b.Mul(total, path) : path);
  }
  return gx;
}

Status SparseSoftmaxCrossEntropyWithLogitsGrad(GradientContext& ctx) {
  GradOps b(ctx);
  return Finish(ctx, b, {{0, CrossEntropyLogitsGrad(ctx, b, Output{})}});
}

// The labels' gradient of SoftmaxCrossEntropyWithLogits: -g · log_softmax(logits), plus the
// backprop output's path when it has a gradient gb: Σ gb·softmax - gb.
Status SoftmaxCrossEntropyWithLogitsGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0), y = ctx.input(1);
  Output total = b.Sum(y, b.Int32s({-1}), /*keep_dims=*/true);
  Output gx = CrossEntropyLogitsGrad(ctx, b, total);
  Output g_loss = b.Op("ExpandDims", {ctx.grad(0), b.Int32(-1)});
  Output gy = b.Mul(g_loss, b.Neg(b.Op("LogSoftmax", {x})));
  Output gb = ctx.grad(1);
  if (!IsZeroFill(gb)) {
    Output sm = b.Op("Softmax", {x});
    gy = b.Add(gy, b.Sub(b.Sum(b.Mul(gb, sm), b.Int32s({-1}), /*keep_dims=*/true), gb));
  }
  gx = b.BroadcastGrads(gx, Output{}, x, ctx.output(1)).first;
  gy = b.BroadcastGrads(gy, Output{}, y, ctx.output(1)).first;
  return Finish(ctx, b, {{0, gx}, {1, gy}});
}

Status Conv2DGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output in = ctx.input(0), filter = ctx.input(1), g = ctx.grad();
  auto attrs = [&] {
    return CopyAttrs(ctx.op, {"strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"});
  };
  Output gi = b.Op("Conv2DBackpropInput", {b.Shape(in), filter, g}, attrs());
  Output gf = b.Op("Conv2DBackpropFilter", {in, b.Shape(filter), g}, attrs());
  return Finish(ctx, b, {{0, gi}, {1, gf}});
}

// DepthwiseConv2dNative through Conv2D's backprop ops (Graft has no depthwise backprop ops):
// a depthwise filter f [kh, kw, C, m] is the Conv2D filter F [kh, kw, C, C·m] that is f on the
// diagonal (F[.., c, c·m + q] = f[.., c, q], zero elsewhere), built as f · I and read back as
// Σ over the diagonal of dF · I. Needs the filter's static shape; costs C times a depthwise
// backprop.
Status DepthwiseConv2dNativeGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output in = ctx.input(0), filter = ctx.input(1), g = ctx.grad();
  auto sf = StaticShape(filter);
  if (!sf || sf->size() != 4) return errors::Unimplemented("DepthwiseConv2dNative's gradient needs the filter's static shape");
  const int64_t kh = (*sf)[0], kw = (*sf)[1], c = (*sf)[2], m = (*sf)[3];
  Tensor eye;
  std::vector<int64_t> eye_dims = {c, c, 1};
  GRAFT_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat32, eye_dims, &eye));
  for (int64_t i = 0; i < c; ++i) eye.data<float>()[i * c + i] = 1.0f;
  Output id = b.Cast(b.Const(std::move(eye)), TypeOf(filter));
  Output full = b.Reshape(b.Mul(b.Reshape(filter, b.Int32s({kh, kw, c, 1, m})), id), b.Int32s({kh, kw, c, c * m}));
  AttrMap attrs = CopyAttrs(ctx.op, {"strides", "padding", "explicit_paddings", "data_format", "dilations"});
  Output gi = b.Op("Conv2DBackpropInput", {b.Shape(in), full, g}, attrs);
  Output gfull = b.Op("Conv2DBackpropFilter", {in, b.Int32s({kh, kw, c, c * m}), g}, attrs);
  Output gf = b.Sum(b.Mul(b.Reshape(gfull, b.Int32s({kh, kw, c, c, m})), id), b.Int32s({3}));
  return Finish(ctx, b, {{0, gi}, {1, gf}});
}

// The convolution's backprop ops are linear in each tensor input (second derivatives):
// Conv2DBackpropInput(sizes, filter, dy): d filter = Conv2DBackpropFilter(g, shape(filter), dy),
// d dy = Conv2D(g, filter); Conv2DBackpropFilter(x, sizes, dy): d x = Conv2DBackpropInput(
// shape(x), g, dy), d dy = Conv2D(x, g).
AttrMap ConvAttrs(const Node* op) {
  return CopyAttrs(op, {"strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"});
}

// The gradients of a convolution's gradient ops (2-D or 3-D: conv, its input and filter
// gradient ops by name), each linear in its two tensor inputs.
struct ConvOps {
  const char* conv;
  const char* backprop_input;
  const char* backprop_filter;
};

Status BackpropInputGradOf(GradientContext& ctx, const ConvOps& ops, const AttrMap& attrs) {
  GradOps b(ctx);
  Output filter = ctx.input(1), dy = ctx.input(2), g = ctx.grad();
  Output gf = b.Op(ops.backprop_filter, {g, b.Shape(filter), dy}, attrs);
  Output gdy = b.Op(ops.conv, {g, filter}, attrs);
  return Finish(ctx, b, {{1, gf}, {2, gdy}});
}

Status BackpropFilterGradOf(GradientContext& ctx, const ConvOps& ops, const AttrMap& attrs) {
  GradOps b(ctx);
  Output x = ctx.input(0), dy = ctx.input(2), g = ctx.grad();
  Output gx = b.Op(ops.backprop_input, {b.Shape(x), g, dy}, attrs);
  Output gdy = b.Op(ops.conv, {x, g}, attrs);
  return Finish(ctx, b, {{0, gx}, {2, gdy}});
}

constexpr ConvOps kConv2DOps{"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"};
constexpr ConvOps kConv3DOps{"Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"};

Status Conv2DBackpropInputGrad(GradientContext& ctx) { return BackpropInputGradOf(ctx, kConv2DOps, ConvAttrs(ctx.op)); }
Status Conv2DBackpropFilterGrad(GradientContext& ctx) {
  return BackpropFilterGradOf(ctx, kConv2DOps, ConvAttrs(ctx.op));
}

// AvgPoolGrad(sizes, dy) is linear in dy: its gradient is AvgPool of g.
Status AvgPoolGradGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output gdy = b.Op("AvgPool", {ctx.grad()}, CopyAttrs(ctx.op, {"ksize", "strides", "padding", "data_format"}));
  return Finish(ctx, b, {{1, gdy}});
}

Status MaxPoolGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output gi = b.Op("MaxPoolGrad", {ctx.input(0), ctx.output(0), ctx.grad()},
                   CopyAttrs(ctx.op, {"ksize", "strides", "padding", "explicit_paddings", "data_format"}));
  return Finish(ctx, b, {{0, gi}});
}

Status AvgPoolGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output gi = b.Op("AvgPoolGrad", {b.Shape(ctx.input(0)), ctx.grad()},
                   CopyAttrs(ctx.op, {"ksize", "strides", "padding", "data_format"}));
  return Finish(ctx, b, {{0, gi}});
}

// The 3-D convolution and pooling ops, as their 2-D forms: Conv3D through its backprop ops,
// which are linear in each tensor input; MaxPool3D through MaxPool3DGrad; AvgPool3D through
// AvgPool3DGrad, linear in its gradient (its gradient is AvgPool3D).
AttrMap Conv3DAttrs(const Node* op) { return CopyAttrs(op, {"strides", "padding", "data_format", "dilations"}); }
AttrMap Pool3DAttrs(const Node* op) { return CopyAttrs(op, {"ksize", "strides", "padding", "data_format"}); }

Status Conv3DGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output in = ctx.input(0), filter = ctx.input(1), g = ctx.grad();
  Output gi = b.Op("Conv3DBackpropInputV2", {b.Shape(in), filter, g}, Conv3DAttrs(ctx.op));
  Output gf = b.Op("Conv3DBackpropFilterV2", {in, b.Shape(filter), g}, Conv3DAttrs(ctx.op));
  return Finish(ctx, b, {{0, gi}, {1, gf}});
}

Status Conv3DBackpropInputGrad(GradientContext& ctx) {
  return BackpropInputGradOf(ctx, kConv3DOps, Conv3DAttrs(ctx.op));
}
Status Conv3DBackpropFilterGrad(GradientContext& ctx) {
  return BackpropFilterGradOf(ctx, kConv3DOps, Conv3DAttrs(ctx.op));
}

Status MaxPool3DGradFn(GradientContext& ctx) {
  GradOps b(ctx);
  Output gi = b.Op("MaxPool3DGrad", {ctx.input(0), ctx.output(0), ctx.grad()}, Pool3DAttrs(ctx.op));
  return Finish(ctx, b, {{0, gi}});
}

Status AvgPool3DGradFn(GradientContext& ctx) {
  GradOps b(ctx);
  Output gi = b.Op("AvgPool3DGrad", {b.Shape(ctx.input(0)), ctx.grad()}, Pool3DAttrs(ctx.op));
  return Finish(ctx, b, {{0, gi}});
}

Status AvgPool3DGradGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output gdy = b.Op("AvgPool3D", {ctx.grad()}, Pool3DAttrs(ctx.op));
  return Finish(ctx, b, {{1, gdy}});
}

// FusedBatchNormV3 (the gradient of y; the batch statistics' gradients are not propagated, as
// TensorFlow): with x̂ = (x - μ) / √(σ² + ε) over the batch and spatial axes,
//   d offset = Σ g,  d scale = Σ g·x̂,  dx = scale / √(σ² + ε) · (g - mean(g) - x̂·mean(g·x̂))
// in training mode (μ, σ² of the batch), and dx = scale / √(σ² + ε) · g with the given mean
// and variance otherwise.
Status FusedBatchNormV3Grad(GradientContext& ctx) {
  GradOps b(ctx);
  const Node* op = ctx.op;
  const AttrValue* fmt = op->attr("data_format");
  const std::string* format = fmt ? fmt->get<std::string>() : nullptr;
  const bool nchw = format != nullptr && *format == "NCHW";
  if (format != nullptr && *format != "NHWC" && *format != "NCHW") {
    return errors::Unimplemented("FusedBatchNormV3's gradient supports NHWC and NCHW, not ", *format);
  }
  const AttrValue* eps_attr = op->attr("epsilon");
  const double eps = eps_attr && eps_attr->get<float>() ? *eps_attr->get<float>() : 1e-4;
  const bool training = !op->attr("is_training") || BoolAttr(op, "is_training");
  Output x = ctx.input(0), scale = ctx.input(1), g = ctx.grad(0);
  const DType u = TypeOf(scale);
  x = b.Cast(x, u);
  g = b.Cast(g, u);
  Output axes = nchw ? b.Int32s({0, 2, 3}) : b.Int32s({0, 1, 2});
  // Per-channel values shaped to broadcast against x.
  auto channel = [&](Output v) { return nchw ? b.Reshape(v, b.Int32s({-1, 1, 1})) : v; };
  Output mean, var;
  if (training) {
    mean = b.Op("Mean", {x, axes}, {{"keep_dims", AttrValue::Bool(true)}});
    var = b.Op("Mean", {b.Square(b.Sub(x, mean)), axes}, {{"keep_dims", AttrValue::Bool(true)}});
  } else {
    mean = channel(ctx.input(3));
    var = channel(ctx.input(4));
  }
  Output inv = b.Op("Rsqrt", {b.Add(var, b.Scalar(u, eps))});
  Output xhat = b.Mul(b.Sub(x, mean), inv);
  Output doffset = b.Sum(g, axes);
  Output dscale = b.Sum(b.Mul(g, xhat), axes);
  Output k = b.Mul(channel(scale), inv);
  Output dx;
  if (training) {
    Output gmean = b.Op("Mean", {g, axes}, {{"keep_dims", AttrValue::Bool(true)}});
    Output gxmean = b.Op("Mean", {b.Mul(g, xhat), axes}, {{"keep_dims", AttrValue::Bool(true)}});
    dx = b.Mul(k, b.Sub(b.Sub(g, gmean), b.Mul(xhat, gxmean)));
  } else {
    dx = b.Mul(k, g);
  }
  dx = b.Cast(dx, TypeOf(ctx.input(0)));
  return Finish(ctx, b, {{0, dx}, {1, dscale}, {2, doffset}});
}

}  // namespace

void RegisterNnGradients(GradientRegistry& r) {
  AddGradient(r, "Relu", ReluGrad);
  AddGradient(r, "Relu6", Relu6Grad);
  AddGradient(r, "Elu", EluGrad);
  AddGradient(r, "Selu", SeluGrad);
  AddGradient(r, "Softplus", SoftplusGrad);
  AddGradient(r, "Softsign", SoftsignGrad);
  AddGradient(r, "LeakyRelu", LeakyReluGrad);
  AddGradient(r, "BiasAdd", BiasAddGrad);
  AddGradient(r, "ReluGrad", ReluGradGrad);
  AddGradient(r, "Relu6Grad", ReluGradGrad);
  AddGradient(r, "SigmoidGrad", SigmoidGradGrad);
  AddGradient(r, "TanhGrad", TanhGradGrad);
  AddGradient(r, "BiasAddGrad", BiasAddGradGrad);
  AddGradient(r, "MatMul", MatMulGrad);
  AddGradient(r, "BatchMatMulV2", BatchMatMulV2Grad);
  AddGradient(r, "Softmax", SoftmaxGrad);
  AddGradient(r, "LogSoftmax", LogSoftmaxGrad);
  AddGradient(r, "L2Loss", L2LossGrad);
  AddGradient(r, "SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxCrossEntropyWithLogitsGrad);
  AddGradient(r, "SoftmaxCrossEntropyWithLogits", SoftmaxCrossEntropyWithLogitsGrad);
  AddGradient(r, "Conv2D", Conv2DGrad);
  AddGradient(r, "DepthwiseConv2dNative", DepthwiseConv2dNativeGrad);
  AddGradient(r, "MaxPool", MaxPoolGrad);
  AddGradient(r, "AvgPool", AvgPoolGrad);
  AddGradient(r, "Conv2DBackpropInput", Conv2DBackpropInputGrad);
  AddGradient(r, "Conv2DBackpropFilter", Conv2DBackpropFilterGrad);
  AddGradient(r, "AvgPoolGrad", AvgPoolGradGrad);
  AddGradient(r, "FusedBatchNormV3", FusedBatchNormV3Grad);
  AddGradient(r, "Conv3D", Conv3DGrad);
  AddGradient(r, "Conv3DBackpropInputV2", Conv3DBackpropInputGrad);
  AddGradient(r, "Conv3DBackpropFilterV2", Conv3DBackpropFilterGrad);
  AddGradient(r, "MaxPool3D", MaxPool3DGradFn);
  AddGradient(r, "AvgPool3D", AvgPool3DGradFn);
  AddGradient(r, "AvgPool3DGrad", AvgPool3DGradGrad);
}

}  // namespace graft::ops
