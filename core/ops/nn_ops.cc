// Built-in ops: see builtin_ops.h for the family.
//
// NN ops: activations, BiasAdd, MatMul/BatchMatMulV2, Conv2D/DepthwiseConv2dNative, pooling,
// Conv3D / MaxPool3D / AvgPool3D and their gradient ops,
// softmax, the losses (L2Loss, SoftmaxCrossEntropyWithLogits and its sparse form),
// FusedBatchNormV3 and the gradients the training graphs use. Signatures follow
// TensorFlow 2.18's registry.
#include <string>
#include <vector>

#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {
namespace {

// ---------------------------------------------------------------------------------------------
// Shape helpers

std::string DimText(int64_t d) { return d == kUnknownDim ? std::string("None") : std::to_string(d); }

// The product of two dims: 1 is the identity, unknown otherwise wins.
Status MultiplyDims(int64_t a, int64_t b, int64_t* out) {
  if (a == 1) {
    *out = b;
  } else if (b == 1) {
    *out = a;
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = kUnknownDim;
  } else if (__builtin_mul_overflow(a, b, out)) {
    return errors::ShapeError("dimension ", a, " * ", b, " overflows");
  }
  return Status::Ok();
}

// Reads an int-list attr that must have `size` entries (TensorFlow orders them per data_format).
Status GetIntList(const InferenceContext& c, const char* name, size_t size, std::vector<int64_t>* out) {
  GRAFT_RETURN_IF_ERROR(c.GetAttr(name, out));
  if (out->size() != size) {
    return errors::InvalidArgument("attr '", name, "' must have ", size, " entries, but has ", out->size());
  }
  return Status::Ok();
}

// Where N, H, W and C are in a 4-d image tensor, and in 4-entry attrs (strides, ksize, ...).
struct Layout {
  int rank = 4;  // of the image tensor
  int n = 0, h = 1, w = 2, c = 3;
  bool vect_c = false;  // NCHW_VECT_C: [N, C/4, H, W, 4]; attrs are NCHW-ordered
};

Status GetLayout(const InferenceContext& c, Layout* out) {
  std::string format = "NHWC";
  if (c.attr("data_format") != nullptr) GRAFT_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  if (format == "NHWC") {
    *out = Layout{4, 0, 1, 2, 3, false};
  } else if (format == "NCHW") {
    *out = Layout{4, 0, 2, 3, 1, false};
  } else if (format == "NCHW_VECT_C") {
    *out = Layout{5, 0, 2, 3, 1, true};
  } else {
    return errors::InvalidArgument("data_format '", format, "' is not supported");
  }
  return Status::Ok();
}

// The full depth of an image shape (of known rank).
Status ImageDepth(const Layout& l, const PartialShape& s, int64_t* out) {
  if (!l.vect_c) {
    *out = s.dim(l.c);
    return Status::Ok();
  }
  return MultiplyDims(s.dim(l.c), s.dim(4), out);
}

// An image shape laid out per the layout.
Status MakeImageShape(const Layout& l, int64_t n, int64_t h, int64_t w, int64_t depth, PartialShape* out) {
  std::vector<int64_t> dims(static_cast<size_t>(l.rank));
  dims[static_cast<size_t>(l.n)] = n;
  dims[static_cast<size_t>(l.h)] = h;
  dims[static_cast<size_t>(l.w)] = w;
  if (l.vect_c) {
    if (depth != kUnknownDim && depth % 4 != 0) {
      return errors::ShapeError("output depth ", depth, " is not a multiple of 4, as NCHW_VECT_C requires");
    }
    dims[static_cast<size_t>(l.c)] = depth == kUnknownDim ? kUnknownDim : depth / 4;
    dims[4] = 4;
  } else {
    dims[static_cast<size_t>(l.c)] = depth;
  }
  *out = PartialShape(std::move(dims));
  return Status::Ok();
}

enum class Padding { kSame, kValid, kExplicit };

// Reads padding and explicit_paddings (absent on ops without EXPLICIT). pads gets 8 entries,
// (before, after) per dim of the layout, zero unless EXPLICIT.
Status GetPadding(const InferenceContext& c, const Layout& l, Padding* padding, std::vector<int64_t>* pads) {
  std::string name;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("padding", &name));
  std::vector<int64_t> explicit_pads;
  if (c.attr("explicit_paddings") != nullptr) GRAFT_RETURN_IF_ERROR(c.GetAttr("explicit_paddings", &explicit_pads));
  pads->assign(8, 0);
  if (name == "EXPLICIT") {
    if (explicit_pads.size() != 8) {
      return errors::InvalidArgument("attr 'explicit_paddings' must have 8 entries (before and after for each of 4 ",
                                     "dimensions) with EXPLICIT padding, but has ", explicit_pads.size());
    }
    for (int64_t p : explicit_pads) {
      if (p < 0) return errors::InvalidArgument("attr 'explicit_paddings' must be nonnegative, but has ", p);
    }
    const auto at = [&](int i) { return explicit_pads[static_cast<size_t>(i)]; };
    if (at(2 * l.n) != 0 || at(2 * l.n + 1) != 0 || at(2 * l.c) != 0 || at(2 * l.c + 1) != 0) {
      return errors::InvalidArgument("attr 'explicit_paddings' must be 0 for the batch and depth dimensions");
    }
    *pads = std::move(explicit_pads);
    *padding = Padding::kExplicit;
    return Status::Ok();
  }
  if (!explicit_pads.empty()) {
    return errors::InvalidArgument("attr 'explicit_paddings' must be empty unless padding is EXPLICIT, but padding is '",
                                   name, "'");
  }
  if (name == "SAME") {
    *padding = Padding::kSame;
  } else if (name == "VALID") {
    *padding = Padding::kValid;
  } else {
    return errors::InvalidArgument("padding '", name, "' is not supported");
  }
  return Status::Ok();
}

// The output size of a sliding window along one dim (`what`: "rows", "cols", "depth").
//   SAME: ceil(in / stride); VALID: ceil((in - k_eff + 1) / stride);
//   EXPLICIT: (in + before + after - k_eff) / stride + 1; k_eff = (window - 1) * dilation + 1.
Status WindowedSize(const char* what, int64_t in, int64_t window, int64_t dilation, int64_t stride, Padding padding,
                    int64_t before, int64_t after, int64_t* out) {
  if (stride < 1) return errors::InvalidArgument("the ", what, " stride must be >= 1, but is ", stride);
  if (dilation < 1) return errors::InvalidArgument("the ", what, " dilation must be >= 1, but is ", dilation);
  if (in == kUnknownDim || window == kUnknownDim) {
    *out = kUnknownDim;
    return Status::Ok();
  }
  if (padding == Padding::kSame) {
    *out = (in + stride - 1) / stride;
    return Status::Ok();
  }
  const int64_t effective = (window - 1) * dilation + 1;
  const int64_t padded = in + before + after;
  if (padded < effective) {
    return errors::ShapeError("the ", what, " window (effective size ", effective, ") is larger than the ",
                              padding == Padding::kExplicit ? "padded " : "", "input ", what, " (", padded,
                              ") with ", padding == Padding::kExplicit ? "EXPLICIT" : "VALID", " padding");
  }
  *out = (padded - effective) / stride + 1;
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Shape functions

Status BiasAddShape(InferenceContext& c) {
  Layout l;
  GRAFT_RETURN_IF_ERROR(GetLayout(c, &l));
  const bool nchw = l.c == 1;
  PartialShape value, bias;
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(0, nchw ? 3 : 2, &value));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1, &bias));
  if (!value.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  const int channel = nchw ? 1 : value.rank() - 1;
  std::vector<int64_t> dims = value.dims();
  if (!MergeDim(dims[static_cast<size_t>(channel)], bias.dim(0), &dims[static_cast<size_t>(channel)]).ok()) {
    return errors::ShapeError("bias ", bias.ToString(), " must have one entry per channel of value ", value.ToString(),
                              " (dimension ", channel, ")");
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

Status BiasAddGradShape(InferenceContext& c) {
  Layout l;
  GRAFT_RETURN_IF_ERROR(GetLayout(c, &l));
  const bool nchw = l.c == 1;
  PartialShape grad;
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(0, nchw ? 3 : 2, &grad));
  if (!grad.known_rank()) {
    c.set_output(0, PartialShape::UnknownDims(1));
    return Status::Ok();
  }
  c.set_output(0, PartialShape({grad.dim(nchw ? 1 : grad.rank() - 1)}));
  return Status::Ok();
}

Status MatMulShape(InferenceContext& c) {
  PartialShape a, b;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 2, &a));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 2, &b));
  bool ta = false, tb = false;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("transpose_a", &ta));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("transpose_b", &tb));
  const int64_t m = a.dim(ta ? 1 : 0), ka = a.dim(ta ? 0 : 1);
  const int64_t kb = b.dim(tb ? 1 : 0), n = b.dim(tb ? 0 : 1);
  int64_t k;
  if (!MergeDim(ka, kb, &k).ok()) {
    return errors::ShapeError("inner dimensions do not match: a ", a.ToString(), " has ", ka, " and b ", b.ToString(),
                              " has ", kb, " (transpose_a=", ta ? "true" : "false",
                              ", transpose_b=", tb ? "true" : "false", ")");
  }
  c.set_output(0, PartialShape({m, n}));
  return Status::Ok();
}

Status BatchMatMulV2Shape(InferenceContext& c) {
  PartialShape x, y;
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(0, 2, &x));
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(1, 2, &y));
  if (!x.known_rank() || !y.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  bool adj_x = false, adj_y = false;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("adj_x", &adj_x));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("adj_y", &adj_y));
  const int rx = x.rank(), ry = y.rank();
  const int64_t rows = x.dim(adj_x ? rx - 1 : rx - 2), kx = x.dim(adj_x ? rx - 2 : rx - 1);
  const int64_t ky = y.dim(adj_y ? ry - 1 : ry - 2), cols = y.dim(adj_y ? ry - 2 : ry - 1);
  int64_t k;
  if (!MergeDim(kx, ky, &k).ok()) {
    return errors::ShapeError("inner dimensions do not match: x ", x.ToString(), " has ", kx, " and y ", y.ToString(),
                              " has ", ky, " (adj_x=", adj_x ? "true" : "false", ", adj_y=", adj_y ? "true" : "false",
                              ")");
  }
  const PartialShape bx(std::vector<int64_t>(x.dims().begin(), x.dims().end() - 2));
  const PartialShape by(std::vector<int64_t>(y.dims().begin(), y.dims().end() - 2));
  PartialShape batch;
  if (!shape_fns::BroadcastShapes(bx, by, &batch).ok()) {
    return errors::ShapeError("batch dimensions of x ", x.ToString(), " and y ", y.ToString(),
                              " cannot be broadcast together");
  }
  c.set_output(0, batch.Concatenate(PartialShape({rows, cols})));
  return Status::Ok();
}

// Conv2D and DepthwiseConv2dNative: input [N, H, W, C] (per data_format), filter
// [fh, fw, in_depth, out_depth or multiplier].
Status ConvShape(InferenceContext& c, bool depthwise) {
  Layout l;
  GRAFT_RETURN_IF_ERROR(GetLayout(c, &l));
  PartialShape in, filter;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 4, &in));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 4, &filter));
  std::vector<int64_t> strides, dilations, pads;
  GRAFT_RETURN_IF_ERROR(GetIntList(c, "strides", 4, &strides));
  GRAFT_RETURN_IF_ERROR(GetIntList(c, "dilations", 4, &dilations));
  Padding padding;
  GRAFT_RETURN_IF_ERROR(GetPadding(c, l, &padding, &pads));

  const int64_t in_depth = in.dim(l.c), filter_depth = filter.dim(2);
  int64_t out_depth = filter.dim(3);
  if (depthwise) {
    int64_t depth;
    if (!MergeDim(in_depth, filter_depth, &depth).ok()) {
      return errors::ShapeError("input depth ", in_depth, " of input ", in.ToString(),
                                " does not match the filter's input depth (dimension 2) ", filter_depth, " of filter ",
                                filter.ToString());
    }
    GRAFT_RETURN_IF_ERROR(MultiplyDims(depth, filter.dim(3), &out_depth));
  } else if (in_depth != kUnknownDim && filter_depth != kUnknownDim) {
    // Grouped convolution: the filter sees in_depth / groups channels.
    if (filter_depth == 0) return errors::ShapeError("the filter's input depth (dimension 2) must not be 0");
    if (in_depth % filter_depth != 0) {
      return errors::ShapeError("input depth ", in_depth, " is not a multiple of the filter's input depth ",
                                filter_depth, " (input ", in.ToString(), ", filter ", filter.ToString(), ")");
    }
    const int64_t groups = in_depth / filter_depth;
    if (out_depth != kUnknownDim && out_depth % groups != 0) {
      return errors::ShapeError("the filter's output depth ", out_depth, " is not a multiple of the number of groups ",
                                groups);
    }
  }
  const auto hi = static_cast<size_t>(l.h), wi = static_cast<size_t>(l.w);
  int64_t out_h, out_w;
  GRAFT_RETURN_IF_ERROR(WindowedSize("rows", in.dim(l.h), filter.dim(0), dilations[hi], strides[hi], padding,
                                     pads[2 * hi], pads[2 * hi + 1], &out_h));
  GRAFT_RETURN_IF_ERROR(WindowedSize("cols", in.dim(l.w), filter.dim(1), dilations[wi], strides[wi], padding,
                                     pads[2 * wi], pads[2 * wi + 1], &out_w));
  PartialShape out;
  GRAFT_RETURN_IF_ERROR(MakeImageShape(l, in.dim(l.n), out_h, out_w, out_depth, &out));
  c.set_output(0, std::move(out));
  return Status::Ok();
}

// MaxPool (rows, cols and depth windowed) and AvgPool (rows and cols).
Status PoolShape(InferenceContext& c, bool pool_depth) {
  Layout l;
  GRAFT_RETURN_IF_ERROR(GetLayout(c, &l));
  PartialShape in;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, l.rank, &in));
  std::vector<int64_t> ksize, strides, pads;
  GRAFT_RETURN_IF_ERROR(GetIntList(c, "ksize", 4, &ksize));
  GRAFT_RETURN_IF_ERROR(GetIntList(c, "strides", 4, &strides));
  for (int64_t k : ksize) {
    if (k < 1) return errors::InvalidArgument("attr 'ksize' entries must be >= 1, but has ", k);
  }
  Padding padding;
  GRAFT_RETURN_IF_ERROR(GetPadding(c, l, &padding, &pads));
  const auto hi = static_cast<size_t>(l.h), wi = static_cast<size_t>(l.w), ci = static_cast<size_t>(l.c);
  int64_t out_h, out_w, depth;
  GRAFT_RETURN_IF_ERROR(
      WindowedSize("rows", in.dim(l.h), ksize[hi], 1, strides[hi], padding, pads[2 * hi], pads[2 * hi + 1], &out_h));
  GRAFT_RETURN_IF_ERROR(
      WindowedSize("cols", in.dim(l.w), ksize[wi], 1, strides[wi], padding, pads[2 * wi], pads[2 * wi + 1], &out_w));
  GRAFT_RETURN_IF_ERROR(ImageDepth(l, in, &depth));
  if (pool_depth) {
    GRAFT_RETURN_IF_ERROR(
        WindowedSize("depth", depth, ksize[ci], 1, strides[ci], padding, pads[2 * ci], pads[2 * ci + 1], &depth));
  }
  PartialShape out;
  GRAFT_RETURN_IF_ERROR(MakeImageShape(l, in.dim(l.n), out_h, out_w, depth, &out));
  c.set_output(0, std::move(out));
  return Status::Ok();
}

Status MaxPoolShape(InferenceContext& c) { return PoolShape(c, true); }
Status AvgPoolShape(InferenceContext& c) { return PoolShape(c, false); }

Status SoftmaxShape(InferenceContext& c) {
  PartialShape logits;
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(0, 1, &logits));
  c.set_output(0, std::move(logits));
  return Status::Ok();
}

// SparseSoftmaxCrossEntropyWithLogits: features [batch, classes], labels [batch]; loss [batch]
// and backprop [batch, classes].
Status SparseSoftmaxCrossEntropyShape(InferenceContext& c) {
  PartialShape features, labels;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 2, &features));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1, &labels));
  PartialShape batch;
  GRAFT_RETURN_IF_ERROR(PartialShape({features.dim(0)}).MergeWith(labels, &batch));
  c.set_output(0, batch);
  c.set_output(1, PartialShape({batch.dim(0), features.dim(1)}));
  return Status::Ok();
}

// SoftmaxCrossEntropyWithLogits: features and labels [batch, classes] (broadcast against each
// other); loss [batch] and backprop [batch, classes].
Status SoftmaxCrossEntropyShape(InferenceContext& c) {
  PartialShape features, labels, both;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 2, &features));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 2, &labels));
  GRAFT_RETURN_IF_ERROR(shape_fns::BroadcastShapes(features, labels, &both));
  c.set_output(0, PartialShape({both.dim(0)}));
  c.set_output(1, both);
  return Status::Ok();
}

Status FusedBatchNormV3Shape(InferenceContext& c) {
  std::string format;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  int rank = 4, channel = 3;
  if (format == "NHWC") {
    rank = 4, channel = 3;
  } else if (format == "NCHW") {
    rank = 4, channel = 1;
  } else if (format == "NDHWC") {
    rank = 5, channel = 4;
  } else if (format == "NCDHW") {
    rank = 5, channel = 1;
  } else {
    return errors::InvalidArgument("data_format '", format, "' is not supported");
  }
  PartialShape x;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, rank, &x));
  bool is_training = true;
  float factor = 1.0f;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("is_training", &is_training));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("exponential_avg_factor", &factor));
  // scale and offset always; mean and variance when they are read (inference, or a running
  // average in training).
  const int checked = is_training && factor == 1.0f ? 3 : 5;
  std::vector<int64_t> dims = x.dims();
  int64_t& depth = dims[static_cast<size_t>(channel)];
  for (int i = 1; i < checked; ++i) {
    PartialShape v;
    GRAFT_RETURN_IF_ERROR(c.WithRank(i, 1, &v));
    if (!MergeDim(depth, v.dim(0), &depth).ok()) {
      return errors::ShapeError(c.InputName(i), " ", v.ToString(), " must have one entry per channel of x ",
                                x.ToString(), " (dimension ", channel, ")");
    }
  }
  const PartialShape vec({depth});
  c.set_output(0, PartialShape(dims));
  for (int i = 1; i <= 4; ++i) c.set_output(i, vec);
  c.set_output(5, PartialShape::Unknown());
  return Status::Ok();
}

// ReluGrad, Relu6Grad: gradients and features have one shape.
Status MergeInputsShape(InferenceContext& c) {
  PartialShape out;
  if (!c.input(0).MergeWith(c.input(1), &out).ok()) {
    return errors::ShapeError(c.InputName(0), " ", c.input(0).ToString(), " and ", c.InputName(1), " ",
                              c.input(1).ToString(), " must have the same shape");
  }
  c.set_output(0, std::move(out));
  return Status::Ok();
}

// Reads shape-vector input i (a constant when known) and requires rank 4.
Status ShapeInputRank4(InferenceContext& c, int i, PartialShape* out) {
  PartialShape s;
  GRAFT_RETURN_IF_ERROR(c.InputAsShape(i, &s));
  if (!s.WithRank(4, out).ok()) {
    return errors::ShapeError(c.InputName(i), " must hold a 4-d shape, but holds ", s.ToString());
  }
  return Status::Ok();
}

Status Conv2DBackpropInputShape(InferenceContext& c) {
  Layout l;
  GRAFT_RETURN_IF_ERROR(GetLayout(c, &l));
  PartialShape filter, grad;
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 4, &filter));
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 4, &grad));
  int64_t unused;
  if (!MergeDim(grad.dim(l.c), filter.dim(3), &unused).ok()) {
    return errors::ShapeError("out_backprop depth ", grad.dim(l.c), " of ", grad.ToString(),
                              " does not match the filter's output depth (dimension 3) ", filter.dim(3), " of ",
                              filter.ToString());
  }
  PartialShape sizes;
  GRAFT_RETURN_IF_ERROR(c.InputAsShape(0, &sizes));
  if (!sizes.known_rank()) sizes = PartialShape::UnknownDims(4);
  PartialShape out;
  if (sizes.rank() == 4) {
    std::vector<int64_t> dims = sizes.dims();
    int64_t& batch = dims[static_cast<size_t>(l.n)];
    if (!MergeDim(batch, grad.dim(l.n), &batch).ok()) {
      return errors::ShapeError("input_sizes ", sizes.ToString(), " has batch ", DimText(batch),
                                ", but out_backprop ", grad.ToString(), " has batch ", DimText(grad.dim(l.n)));
    }
    out = PartialShape(std::move(dims));
  } else if (sizes.rank() == 2) {
    GRAFT_RETURN_IF_ERROR(MakeImageShape(l, grad.dim(l.n), sizes.dim(0), sizes.dim(1), filter.dim(2), &out));
  } else {
    return errors::InvalidArgument("input_sizes must have 4 entries (a full shape) or 2 (rows and cols), but has ",
                                   sizes.rank());
  }
  c.set_output(0, std::move(out));
  return Status::Ok();
}

Status Conv2DBackpropFilterShape(InferenceContext& c) {
  PartialShape out;
  GRAFT_RETURN_IF_ERROR(ShapeInputRank4(c, 1, &out));
  c.set_output(0, std::move(out));
  return Status::Ok();
}

Status MaxPoolGradShape(InferenceContext& c) {
  PartialShape out;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 4, &out));
  c.set_output(0, std::move(out));
  return Status::Ok();
}

Status AvgPoolGradShape(InferenceContext& c) {
  PartialShape out;
  GRAFT_RETURN_IF_ERROR(ShapeInputRank4(c, 0, &out));
  c.set_output(0, std::move(out));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// The 3-D convolution and pooling ops: [N, D, H, W, C] (NDHWC) or [N, C, D, H, W] (NCDHW),
// attrs with 5 entries in the same order; SAME or VALID padding.

struct Layout3D {
  int n = 0, c = 4;
  int spatial[3] = {1, 2, 3};
};

Status GetLayout3D(const InferenceContext& c, Layout3D* out) {
  std::string format = "NDHWC";
  if (c.attr("data_format") != nullptr) GRAFT_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
  if (format == "NDHWC") {
    *out = Layout3D{0, 4, {1, 2, 3}};
  } else if (format == "NCDHW") {
    *out = Layout3D{0, 1, {2, 3, 4}};
  } else {
    return errors::InvalidArgument("data_format '", format, "' is not supported (NDHWC or NCDHW)");
  }
  return Status::Ok();
}

Status GetPadding3D(const InferenceContext& c, Padding* padding) {
  std::string name;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("padding", &name));
  if (name == "SAME") {
    *padding = Padding::kSame;
  } else if (name == "VALID") {
    *padding = Padding::kValid;
  } else {
    return errors::InvalidArgument("padding '", name, "' is not supported");
  }
  return Status::Ok();
}

// Conv3D (window = the filter's first 3 dims) and MaxPool3D / AvgPool3D (window = ksize).
Status Window3DShape(InferenceContext& c, bool conv) {
  Layout3D l;
  GRAFT_RETURN_IF_ERROR(GetLayout3D(c, &l));
  PartialShape in, filter;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 5, &in));
  std::vector<int64_t> strides, dilations = {1, 1, 1, 1, 1}, ksize;
  GRAFT_RETURN_IF_ERROR(GetIntList(c, "strides", 5, &strides));
  Padding padding = Padding::kValid;
  GRAFT_RETURN_IF_ERROR(GetPadding3D(c, &padding));
  int64_t depth = in.dim(l.c);
  if (conv) {
    GRAFT_RETURN_IF_ERROR(c.WithRank(1, 5, &filter));
    if (c.attr("dilations") != nullptr) GRAFT_RETURN_IF_ERROR(GetIntList(c, "dilations", 5, &dilations));
    const int64_t in_depth = in.dim(l.c), filter_depth = filter.dim(3);
    if (in_depth != kUnknownDim && filter_depth != kUnknownDim && (filter_depth == 0 || in_depth % filter_depth != 0)) {
      return errors::ShapeError("input depth ", in_depth, " of input ", in.ToString(),
                                " is not a multiple of the filter's input depth (dimension 3) ", filter_depth,
                                " of filter ", filter.ToString());
    }
    depth = filter.dim(4);
  } else {
    GRAFT_RETURN_IF_ERROR(GetIntList(c, "ksize", 5, &ksize));
    for (int64_t k : ksize) {
      if (k < 1) return errors::InvalidArgument("attr 'ksize' entries must be >= 1, but has ", k);
    }
  }
  static const char* const kNames[3] = {"planes", "rows", "cols"};
  std::vector<int64_t> dims(5);
  dims[static_cast<size_t>(l.n)] = in.dim(l.n);
  dims[static_cast<size_t>(l.c)] = depth;
  for (int d = 0; d < 3; ++d) {
    const auto at = static_cast<size_t>(l.spatial[d]);
    const int64_t window = conv ? filter.dim(d) : ksize[at];
    GRAFT_RETURN_IF_ERROR(WindowedSize(kNames[d], in.dim(l.spatial[d]), window, dilations[at], strides[at], padding, 0,
                                       0, &dims[at]));
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

// Output shaped by shape-vector input i (5 entries), or like input i when `like`.
Status Rank5From(InferenceContext& c, int i, bool like) {
  PartialShape s, out;
  if (like) {
    GRAFT_RETURN_IF_ERROR(c.WithRank(i, 5, &out));
  } else {
    GRAFT_RETURN_IF_ERROR(c.InputAsShape(i, &s));
    if (!s.WithRank(5, &out).ok()) {
      return errors::ShapeError(c.InputName(i), " must hold a 5-d shape, but holds ", s.ToString());
    }
  }
  c.set_output(0, std::move(out));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Tables of ops that share a signature

constexpr const char* kFloat = "half, bfloat16, float, double";

struct Activation {
  const char* name;
  const char* types;
};

constexpr Activation kActivations[] = {
    {"Relu", "realnumbertype, qint8"}, {"Relu6", "realnumbertype"}, {"Elu", kFloat},
    {"Selu", kFloat},                  {"Softplus", kFloat},        {"Softsign", kFloat},
};

struct GradOp {
  const char* name;
  const char* in0;
  const char* in1;
  const char* out;
  const char* types;
  Status (*shape_fn)(InferenceContext&);
};

constexpr GradOp kGradOps[] = {
    {"ReluGrad", "gradients", "features", "backprops", "realnumbertype", MergeInputsShape},
    {"Relu6Grad", "gradients", "features", "backprops", "realnumbertype", MergeInputsShape},
    // Output has y's shape; dy is not checked.
    {"SigmoidGrad", "y", "dy", "z", "bfloat16, half, float, double, complex64, complex128", shape_fns::Unchanged},
    {"TanhGrad", "y", "dy", "z", "bfloat16, half, float, double, complex64, complex128", shape_fns::Unchanged},
};

// The attrs Conv2D and its gradients share, after T.
OpDefBuilder& ConvAttrs(OpDefBuilder& b, bool cudnn) {
  b.Attr("strides: list(int)");
  if (cudnn) b.Attr("use_cudnn_on_gpu: bool = true");
  return b.Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
      .Attr("explicit_paddings: list(int) = []")
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
      .Attr("dilations: list(int) = [1, 1, 1, 1]");
}

}  // namespace

void RegisterNnOps(OpRegistry& r) {
  for (const Activation& op : kActivations) {
    Add(r,
        OpDefBuilder(op.name)
            .Input("features: T")
            .Output("activations: T")
            .Attr(StrCat("T: {", op.types, "}")),
        shape_fns::Unchanged);
  }
  Add(r,
      OpDefBuilder("LeakyRelu")
          .Input("features: T")
          .Output("activations: T")
          .Attr("alpha: float = 0.2")
          .Attr(StrCat("T: {", kFloat, "} = DT_FLOAT")),
      shape_fns::Unchanged);
  for (const GradOp& op : kGradOps) {
    Add(r,
        OpDefBuilder(op.name)
            .Input(StrCat(op.in0, ": T"))
            .Input(StrCat(op.in1, ": T"))
            .Output(StrCat(op.out, ": T"))
            .Attr(StrCat("T: {", op.types, "}")),
        op.shape_fn);
  }

  Add(r,
      OpDefBuilder("BiasAdd")
          .Input("value: T")
          .Input("bias: T")
          .Output("output: T")
          .Attr("T: numbertype")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'"),
      BiasAddShape);
  Add(r,
      OpDefBuilder("BiasAddGrad")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr("T: numbertype")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'"),
      BiasAddGradShape);

  Add(r,
      OpDefBuilder("MatMul")
          .Input("a: T")
          .Input("b: T")
          .Output("product: T")
          .Attr("transpose_a: bool = false")
          .Attr("transpose_b: bool = false")
          .Attr("T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, complex64, "
                "complex128}")
          .Attr("grad_a: bool = false")
          .Attr("grad_b: bool = false"),
      MatMulShape);
  Add(r,
      OpDefBuilder("BatchMatMulV2")
          .Input("x: T")
          .Input("y: T")
          .Output("output: T")
          .Attr("T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, "
                "complex128}")
          .Attr("adj_x: bool = false")
          .Attr("adj_y: bool = false")
          .Attr("grad_x: bool = false")
          .Attr("grad_y: bool = false"),
      BatchMatMulV2Shape);

  {
    OpDefBuilder b("Conv2D");
    b.Input("input: T").Input("filter: T").Output("output: T").Attr("T: {half, bfloat16, float, double, int32}");
    Add(r, ConvAttrs(b, true), [](InferenceContext& c) { return ConvShape(c, false); });
  }
  // Graft's fused ops (core/runtime/fusion.h): made by the fusion rewrite in an executor's
  // scratch graph, never in a user's graph or a GraphDef Graft writes. The convolutions and
  // the product take the plain op's inputs and attrs, a bias, and the epilogue's attrs.
  const auto epilogue_attrs = [](OpDefBuilder& b) -> OpDefBuilder& {
    return b.Input("bias: T")
        .Attr("T: {float, double}")
        .Attr("activation: string = ''")
        .Attr("leakyrelu_alpha: float = 0.2");
  };
  for (const bool depthwise : {false, true}) {
    OpDefBuilder b(depthwise ? "_GraftFusedDepthwiseConv2dNative" : "_GraftFusedConv2D");
    b.Input("input: T").Input("filter: T");
    epilogue_attrs(b).Output("output: T");
    Add(r, ConvAttrs(b, !depthwise), [depthwise](InferenceContext& c) { return ConvShape(c, depthwise); });
  }
  Add(r,
      OpDefBuilder("_GraftFusedElementwise")
          .Input("x: T")
          .Input("sides: N * T")
          .Output("y: T")
          .Attr("T: {float, double}")
          .Attr("N: int >= 0")
          .Attr("ops: list(string)")
          .Attr("args: list(int)"),
      shape_fns::Unchanged);
  {
    OpDefBuilder b("_GraftFusedMatMul");
    b.Input("a: T").Input("b: T");
    epilogue_attrs(b).Output("product: T").Attr("transpose_a: bool = false").Attr("transpose_b: bool = false");
    Add(r, b, MatMulShape);
  }
  {
    OpDefBuilder b("DepthwiseConv2dNative");
    b.Input("input: T").Input("filter: T").Output("output: T").Attr("T: {half, bfloat16, float, double}");
    Add(r, ConvAttrs(b, false), [](InferenceContext& c) { return ConvShape(c, true); });
  }
  {
    OpDefBuilder b("Conv2DBackpropInput");
    b.Input("input_sizes: int32")
        .Input("filter: T")
        .Input("out_backprop: T")
        .Output("output: T")
        .Attr("T: {half, bfloat16, float, double, int32}");
    Add(r, ConvAttrs(b, true), Conv2DBackpropInputShape);
  }
  {
    OpDefBuilder b("Conv2DBackpropFilter");
    b.Input("input: T")
        .Input("filter_sizes: int32")
        .Input("out_backprop: T")
        .Output("output: T")
        .Attr("T: {half, bfloat16, float, double}");
    Add(r, ConvAttrs(b, true), Conv2DBackpropFilterShape);
  }

  Add(r,
      OpDefBuilder("MaxPool")
          .Input("input: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = DT_FLOAT")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"),
      MaxPoolShape);
  Add(r,
      OpDefBuilder("AvgPool")
          .Input("value: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr(StrCat("T: {", kFloat, "}")),
      AvgPoolShape);
  Add(r,
      OpDefBuilder("MaxPoolGrad")
          .Input("orig_input: T")
          .Input("orig_output: T")
          .Input("grad: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("T: realnumbertype = DT_FLOAT"),
      MaxPoolGradShape);
  Add(r,
      OpDefBuilder("AvgPoolGrad")
          .Input("orig_input_shape: int32")
          .Input("grad: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("padding: {'SAME', 'VALID'}")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr(StrCat("T: {", kFloat, "}")),
      AvgPoolGradShape);

  // 3-D convolution and pooling.
  auto attrs3d = [](OpDefBuilder& b, bool pool) -> OpDefBuilder& {
    if (pool) b.Attr("ksize: list(int) >= 5");
    b.Attr("strides: list(int) >= 5")
        .Attr("padding: {'SAME', 'VALID'}")
        .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'");
    if (!pool) b.Attr("dilations: list(int) = [1, 1, 1, 1, 1]");
    return b;
  };
  {
    OpDefBuilder b("Conv3D");
    b.Input("input: T").Input("filter: T").Output("output: T").Attr("T: {half, bfloat16, float, double}");
    Add(r, attrs3d(b, false), [](InferenceContext& c) { return Window3DShape(c, true); });
  }
  {
    OpDefBuilder b("Conv3DBackpropInputV2");
    b.Input("input_sizes: Tshape")
        .Input("filter: T")
        .Input("out_backprop: T")
        .Output("output: T")
        .Attr("T: {half, bfloat16, float, double}");
    attrs3d(b, false).Attr("Tshape: {int32, int64} = DT_INT32");
    Add(r, b, [](InferenceContext& c) { return Rank5From(c, 0, false); });
  }
  {
    OpDefBuilder b("Conv3DBackpropFilterV2");
    b.Input("input: T")
        .Input("filter_sizes: int32")
        .Input("out_backprop: T")
        .Output("output: T")
        .Attr("T: {half, bfloat16, float, double}");
    Add(r, attrs3d(b, false), [](InferenceContext& c) { return Rank5From(c, 1, false); });
  }
  {
    OpDefBuilder b("MaxPool3D");
    b.Input("input: T").Output("output: T");
    attrs3d(b, true).Attr("T: {half, bfloat16, float}");
    Add(r, b, [](InferenceContext& c) { return Window3DShape(c, false); });
  }
  {
    OpDefBuilder b("AvgPool3D");
    b.Input("input: T").Output("output: T");
    attrs3d(b, true).Attr("T: {half, bfloat16, float, double}");
    Add(r, b, [](InferenceContext& c) { return Window3DShape(c, false); });
  }
  {
    OpDefBuilder b("MaxPool3DGrad");
    b.Input("orig_input: TInput").Input("orig_output: TInput").Input("grad: T").Output("output: T");
    attrs3d(b, true).Attr("T: {half, bfloat16, float} = DT_FLOAT").Attr("TInput: {half, bfloat16, float} = DT_FLOAT");
    Add(r, b, [](InferenceContext& c) { return Rank5From(c, 0, true); });
  }
  {
    OpDefBuilder b("AvgPool3DGrad");
    b.Input("orig_input_shape: int32").Input("grad: T").Output("output: T");
    attrs3d(b, true).Attr("T: {half, bfloat16, float, double}");
    Add(r, b, [](InferenceContext& c) { return Rank5From(c, 0, false); });
  }

  Add(r, OpDefBuilder("Softmax").Input("logits: T").Output("softmax: T").Attr(StrCat("T: {", kFloat, "}")),
      SoftmaxShape);
  Add(r, OpDefBuilder("LogSoftmax").Input("logits: T").Output("logsoftmax: T").Attr(StrCat("T: {", kFloat, "}")),
      SoftmaxShape);

  Add(r,
      OpDefBuilder("SparseSoftmaxCrossEntropyWithLogits")
          .Input("features: T")
          .Input("labels: Tlabels")
          .Output("loss: T")
          .Output("backprop: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("Tlabels: {int32, int64} = DT_INT64"),
      SparseSoftmaxCrossEntropyShape);
  Add(r,
      OpDefBuilder("SoftmaxCrossEntropyWithLogits")
          .Input("features: T")
          .Input("labels: T")
          .Output("loss: T")
          .Output("backprop: T")
          .Attr("T: {half, bfloat16, float, double}"),
      SoftmaxCrossEntropyShape);
  Add(r, OpDefBuilder("L2Loss").Input("t: T").Output("output: T").Attr(StrCat("T: {", kFloat, "}")), shape_fns::Scalar);

  Add(r,
      OpDefBuilder("FusedBatchNormV3")
          .Input("x: T")
          .Input("scale: U")
          .Input("offset: U")
          .Input("mean: U")
          .Input("variance: U")
          .Output("y: T")
          .Output("batch_mean: U")
          .Output("batch_variance: U")
          .Output("reserve_space_1: U")
          .Output("reserve_space_2: U")
          .Output("reserve_space_3: U")
          .Attr("T: {half, bfloat16, float}")
          .Attr("U: {bfloat16, float}")
          .Attr("epsilon: float = 0.0001")
          .Attr("exponential_avg_factor: float = 1.0")
          .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
          .Attr("is_training: bool = true"),
      FusedBatchNormV3Shape);
}

}  // namespace graft::ops
