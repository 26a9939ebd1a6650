// Built-in ops: see builtin_ops.h for the family.
//
// Indexing: Slice, StridedSlice, GatherV2 and GatherNd, the unsorted segment reductions
// (UnsortedSegmentSum, ...: a gather's adjoint, scattering rows into num_segments rows), the
// sorted ones (SegmentSum, ...: as many rows as the last id + 1, known only when run), and
// the scatters into a new or a given tensor (ScatterNd, TensorScatterUpdate/Add/Sub/Max/Min).
// Signatures follow TensorFlow 2.18's registry (names, attr order, defaults, allowed types).
// Shape functions work on partial shapes and read constant inputs when their values are
// known; errors for values that the kernel would reject in any case (a bad axis, a negative
// size) are reported here, while building.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {

// The array families' shared helpers (NeedsAttrs, CanonicalAxis, VectorLength, ...).
using namespace shape_fns;

namespace {

Status SliceShape(InferenceContext& c) {
  int64_t begin_len, size_len;
  GRAFT_RETURN_IF_ERROR(VectorLength(c, 1, "begin", &begin_len));
  GRAFT_RETURN_IF_ERROR(VectorLength(c, 2, "size", &size_len));
  int64_t n;
  if (!MergeDim(begin_len, size_len, &n).ok()) {
    return errors::ShapeError("begin has ", begin_len, " elements, but size has ", size_len);
  }
  const PartialShape& in = c.input(0);
  if (in.known_rank() && n != kUnknownDim && n != in.rank()) {
    return errors::ShapeError("begin and size have ", n, " elements, but the input has rank ", in.rank(),
                              " (shape ", in.ToString(), ")");
  }
  int64_t rank = in.known_rank() ? in.rank() : n;
  if (rank == kUnknownDim) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  std::vector<int64_t> begin, size;
  bool begin_known = c.ConstantInts(1, &begin);
  bool size_known = c.ConstantInts(2, &size);
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    int64_t d = in.known_rank() ? in.dim(i) : kUnknownDim;
    int64_t b = begin_known ? begin[static_cast<size_t>(i)] : kUnknownDim;
    if (begin_known) {
      if (b < 0) return errors::InvalidArgument("begin[", i, "] = ", b, " is negative");
      if (d != kUnknownDim && b > d) {
        return errors::InvalidArgument("begin[", i, "] = ", b, " is past the end of dimension ", i,
                                       " of shape ", in.ToString());
      }
    }
    int64_t out = kUnknownDim;
    if (size_known) {
      int64_t s = size[static_cast<size_t>(i)];
      if (s < -1) return errors::InvalidArgument("size[", i, "] = ", s, " is invalid (must be >= 0, or -1)");
      if (s == -1) {
        out = begin_known && d != kUnknownDim ? d - b : kUnknownDim;
      } else {
        out = s;
        if (begin_known && d != kUnknownDim && s > d - b) {
          return errors::InvalidArgument("begin[", i, "] + size[", i, "] = ", b, " + ", s,
                                         " exceeds dimension ", i, " of shape ", in.ToString());
        }
      }
    }
    dims.push_back(out);
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

// StridedSlice: the sparse spec (begin/end/strides and the masks, as Python's x[...] writes
// them) is expanded against the input's rank into a dense spec, one entry per input dim;
// each dense dim's size is computed like Python slicing; then new axes are added and shrunk
// axes dropped.
Status StridedSliceShape(InferenceContext& c) {
  int64_t lens[3];
  const char* names[3] = {"begin", "end", "strides"};
  for (int k = 0; k < 3; ++k) GRAFT_RETURN_IF_ERROR(VectorLength(c, k + 1, names[k], &lens[k]));
  int64_t n = kUnknownDim;
  for (int k = 0; k < 3; ++k) {
    if (!MergeDim(n, lens[k], &n).ok()) {
      return errors::ShapeError("begin, end and strides must have the same length, but have ", lens[0], ", ",
                                lens[1], " and ", lens[2], " elements");
    }
  }
  int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("begin_mask", &begin_mask));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("end_mask", &end_mask));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("ellipsis_mask", &ellipsis_mask));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("new_axis_mask", &new_axis_mask));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("shrink_axis_mask", &shrink_mask));
  auto bit = [](int64_t mask, int64_t i) { return i < 63 && ((mask >> i) & 1) != 0; };

  std::vector<int64_t> vals[3];
  bool known[3];
  for (int k = 0; k < 3; ++k) known[k] = c.ConstantInts(k + 1, &vals[k]);
  if (known[2]) {
    for (size_t i = 0; i < vals[2].size(); ++i) {
      if (vals[2][i] == 0) return errors::InvalidArgument("strides[", i, "] is 0 (strides must be non-zero)");
    }
  }
  if (n != kUnknownDim) {
    int ellipses = 0;
    for (int64_t i = 0; i < n; ++i) ellipses += bit(ellipsis_mask, i) ? 1 : 0;
    if (ellipses > 1) {
      return errors::InvalidArgument("ellipsis_mask ", ellipsis_mask, " has ", ellipses,
                                     " ellipses (at most one is allowed)");
    }
  }
  const PartialShape& in = c.input(0);
  if (!in.known_rank() || n == kUnknownDim) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }

  struct Dense {
    bool begin_masked = true, end_masked = true, shrink = false;
    bool begin_known = true, end_known = true, stride_known = true;
    int64_t begin = 0, end = 0, stride = 1;
  };
  constexpr int64_t kNewAxis = -1, kShrinkAxis = -2;
  const int64_t rank = in.rank();
  bool has_ellipsis = false;
  for (int64_t i = 0; i < n; ++i) has_ellipsis = has_ellipsis || bit(ellipsis_mask, i);
  // Without an ellipsis, one is implied after the last index.
  const int64_t sparse_n = has_ellipsis ? n : n + 1;
  std::vector<Dense> dense;
  std::vector<int64_t> gather;  // per final dim: a dense index, kNewAxis or kShrinkAxis
  for (int64_t i = 0; i < sparse_n; ++i) {
    if (i == n || bit(ellipsis_mask, i)) {
      int64_t new_after = 0;
      for (int64_t j = i + 1; j < n; ++j) new_after += bit(new_axis_mask, j) ? 1 : 0;
      int64_t consuming_after = (sparse_n - i - 1) - new_after;
      int64_t fill_to = std::min(rank, rank - consuming_after);
      while (static_cast<int64_t>(dense.size()) < fill_to) {
        gather.push_back(static_cast<int64_t>(dense.size()));
        dense.push_back(Dense{});
      }
    } else if (bit(new_axis_mask, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (static_cast<int64_t>(dense.size()) >= rank) {
        return errors::InvalidArgument("the slice spec indexes more dimensions than the input has (shape ",
                                       in.ToString(), ", index ", i, ")");
      }
      Dense d;
      d.begin_masked = bit(begin_mask, i);
      d.end_masked = bit(end_mask, i);
      d.shrink = bit(shrink_mask, i);
      d.begin_known = known[0];
      d.end_known = known[1];
      d.stride_known = known[2];
      if (known[0]) d.begin = vals[0][static_cast<size_t>(i)];
      if (known[1]) d.end = vals[1][static_cast<size_t>(i)];
      if (known[2]) d.stride = vals[2][static_cast<size_t>(i)];
      gather.push_back(d.shrink ? kShrinkAxis : static_cast<int64_t>(dense.size()));
      dense.push_back(d);
    }
  }

  std::vector<int64_t> sizes;
  for (size_t j = 0; j < dense.size(); ++j) {
    const Dense& e = dense[j];
    const int64_t dim = in.dim(static_cast<int>(j));
    if (e.shrink) {
      if (e.stride_known && e.stride < 0) {
        return errors::InvalidArgument("dimension ", j, " is indexed by a single element (shrink_axis_mask), "
                                       "which needs a positive stride, not ", e.stride);
      }
      if (e.begin_known && dim != kUnknownDim) {
        int64_t x = e.begin < 0 ? dim + e.begin : e.begin;
        if (x < 0 || x >= dim) {
          return errors::InvalidArgument("index ", e.begin, " is out of bounds for dimension ", j, " of shape ",
                                         in.ToString());
        }
      }
      sizes.push_back(1);
      continue;
    }
    bool b_known = e.begin_masked || e.begin_known;
    bool e_known = e.end_masked || e.end_known;
    if (dim == kUnknownDim || !e.stride_known || !b_known || !e_known) {
      sizes.push_back(kUnknownDim);
      continue;
    }
    const int64_t s = e.stride;
    // Python's clamping: [0, dim] going forward, [-1, dim - 1] going backward.
    const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_end) -> int64_t {
      if (masked) return (s > 0) == is_end ? hi : lo;
      int64_t fwd = x < 0 ? dim + x : x;
      return std::clamp(fwd, lo, hi);
    };
    int64_t b = canonical(e.begin, e.begin_masked, false);
    int64_t en = canonical(e.end, e.end_masked, true);
    int64_t interval = en - b;
    int64_t size;
    if (interval == 0 || (interval < 0) != (s < 0)) {
      size = 0;
    } else {
      size = interval / s + (interval % s != 0 ? 1 : 0);
    }
    sizes.push_back(size);
  }
  std::vector<int64_t> out;
  for (int64_t g : gather) {
    if (g == kNewAxis) {
      out.push_back(1);
    } else if (g != kShrinkAxis) {
      out.push_back(sizes[static_cast<size_t>(g)]);
    }
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::Ok();
}

Status GatherV2Shape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 0));
  int64_t batch_dims;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("batch_dims", &batch_dims));
  const PartialShape& params = c.input(0);
  const PartialShape& indices = c.input(1);
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(0, 1));
  bool batch_known = batch_dims >= 0;
  if (indices.known_rank()) {
    int64_t ir = indices.rank();
    if (batch_dims < -ir || batch_dims > ir) {
      return errors::InvalidArgument("batch_dims ", batch_dims, " is out of range for indices of rank ", ir,
                                     " (must be in [", -ir, ", ", ir, "])");
    }
    if (batch_dims < 0) batch_dims += ir;
    batch_known = true;
  }
  int64_t axis = 0;
  bool axis_known = c.ConstantInt(2, &axis);
  if (params.known_rank()) {
    int64_t pr = params.rank();
    if (axis_known) GRAFT_RETURN_IF_ERROR(CanonicalAxis(axis, pr, "axis", &axis));
    if (batch_known && batch_dims >= pr) {
      return errors::InvalidArgument("batch_dims ", batch_dims, " must be less than the rank of params (shape ",
                                     params.ToString(), ")");
    }
  }
  if (axis_known && axis >= 0 && batch_known && batch_dims > axis) {
    return errors::InvalidArgument("batch_dims ", batch_dims, " must be <= axis ", axis);
  }
  if (!params.known_rank() || !indices.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  // The leading batch dims are shared by params and indices.
  std::vector<int64_t> dims;
  for (int i = 0; i < batch_dims; ++i) {
    int64_t d;
    if (!MergeDim(params.dim(i), indices.dim(i), &d).ok()) {
      return errors::ShapeError("params ", params.ToString(), " and indices ", indices.ToString(),
                                " must agree in the first ", batch_dims, " (batch_dims) dimensions");
    }
    dims.push_back(d);
  }
  if (!axis_known) {
    int64_t out_rank = params.rank() + indices.rank() - 1 - batch_dims;
    while (static_cast<int64_t>(dims.size()) < out_rank) dims.push_back(kUnknownDim);
    c.set_output(0, PartialShape(std::move(dims)));
    return Status::Ok();
  }
  for (int64_t i = batch_dims; i < axis; ++i) dims.push_back(params.dim(static_cast<int>(i)));
  for (int64_t i = batch_dims; i < indices.rank(); ++i) dims.push_back(indices.dim(static_cast<int>(i)));
  for (int64_t i = axis + 1; i < params.rank(); ++i) dims.push_back(params.dim(static_cast<int>(i)));
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

Status GatherNdShape(InferenceContext& c) {
  const PartialShape& params = c.input(0);
  const PartialShape& indices = c.input(1);
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(1, 1));
  if (!indices.known_rank() || indices.dim(indices.rank() - 1) == kUnknownDim) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  int64_t depth = indices.dim(indices.rank() - 1);
  if (params.known_rank() && depth > params.rank()) {
    return errors::ShapeError("the last dimension of indices (", depth, ", shape ", indices.ToString(),
                              ") must be <= the rank of params (shape ", params.ToString(), ")");
  }
  if (!params.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  c.set_output(0, SubShape(indices, 0, indices.rank() - 1).Concatenate(SubShape(params, depth, params.rank())));
  return Status::Ok();
}

Status UnsortedSegmentShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithScalar(2));
  int64_t n = kUnknownDim;
  if (c.ConstantInt(2, &n) && n < 0) return errors::InvalidArgument("num_segments must be >= 0, got ", n);
  const PartialShape& data = c.input(0);
  const PartialShape& ids = c.input(1);
  if (!data.known_rank() || !ids.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  if (ids.rank() > data.rank()) {
    return errors::ShapeError("segment_ids (shape ", ids.ToString(), ") must be a prefix of data's shape ",
                              data.ToString());
  }
  for (int i = 0; i < ids.rank(); ++i) {
    int64_t d;
    if (!MergeDim(data.dim(i), ids.dim(i), &d).ok()) {
      return errors::ShapeError("segment_ids (shape ", ids.ToString(), ") must be a prefix of data's shape ",
                                data.ToString());
    }
  }
  std::vector<int64_t> dims{n};
  for (int i = static_cast<int>(ids.rank()); i < data.rank(); ++i) dims.push_back(data.dim(i));
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

// SegmentSum, ...: data is at least a vector, segment_ids a vector as long as data's first
// dim; the output's first dim is the last id + 1 (known when the ids are constant), the rest
// is data's.
Status SortedSegmentShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(0, 1));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1));
  const PartialShape& data = c.input(0);
  const PartialShape& ids = c.input(1);
  if (data.known_rank() && ids.known_rank()) {
    int64_t d;
    if (!MergeDim(data.dim(0), ids.dim(0), &d).ok()) {
      return errors::ShapeError("segment_ids (shape ", ids.ToString(), ") must be as long as data's first dim (shape ",
                                data.ToString(), ")");
    }
  }
  if (!data.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  std::vector<int64_t> values;
  int64_t rows = kUnknownDim;
  if (c.ConstantInts(1, &values)) rows = values.empty() ? 0 : std::max<int64_t>(values.back() + 1, kUnknownDim);
  c.set_output(0, Replaced(data, 0, rows < 0 ? kUnknownDim : rows));
  return Status::Ok();
}

// The scatters: indices [..., K] name slices of an output of shape `out` (K <= its rank);
// updates must have shape indices.shape[:-1] + out[K:].
Status ScatterUpdatesShape(const PartialShape& indices, const PartialShape& updates, const PartialShape& out) {
  if (!indices.known_rank() || !updates.known_rank()) return Status::Ok();
  const int64_t k = indices.dim(indices.rank() - 1);
  const int64_t outer = indices.rank() - 1;
  auto mismatch = [&]() {
    return errors::ShapeError("updates (shape ", updates.ToString(), ") must have shape indices.shape[:-1] + shape[",
                              k == kUnknownDim ? std::string("K") : std::to_string(k), ":] (indices ",
                              indices.ToString(), ", shape ", out.ToString(), ")");
  };
  if (updates.rank() < outer) return mismatch();
  for (int i = 0; i < outer; ++i) {
    int64_t d;
    if (!MergeDim(indices.dim(i), updates.dim(i), &d).ok()) return mismatch();
  }
  if (!out.known_rank() || k == kUnknownDim) return Status::Ok();
  if (k > out.rank()) {
    return errors::ShapeError("the last dimension of indices (", k, ", shape ", indices.ToString(),
                              ") must be <= the rank of the output (shape ", out.ToString(), ")");
  }
  if (updates.rank() - outer != out.rank() - k) return mismatch();
  for (int64_t i = 0; i < out.rank() - k; ++i) {
    int64_t d;
    if (!MergeDim(updates.dim(static_cast<int>(outer + i)), out.dim(static_cast<int>(k + i)), &d).ok()) return mismatch();
  }
  return Status::Ok();
}

// ScatterNd(indices, updates, shape): the output's shape is the value of `shape`.
Status ScatterNdShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(0, 1));
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 1));
  std::vector<int64_t> shape;
  PartialShape out = PartialShape::Unknown();
  if (c.ConstantInts(2, &shape)) {
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] < 0) return errors::InvalidArgument("Dimension ", shape[i], " must be >= 0");
    }
    out = PartialShape(shape);
  } else if (c.input(2).known_rank() && c.input(2).dim(0) != kUnknownDim) {
    out = PartialShape(std::vector<int64_t>(static_cast<size_t>(c.input(2).dim(0)), kUnknownDim));
  }
  GRAFT_RETURN_IF_ERROR(ScatterUpdatesShape(c.input(0), c.input(1), out));
  c.set_output(0, out);
  return Status::Ok();
}

// TensorScatterUpdate, ...(tensor, indices, updates): the output is shaped like tensor.
Status TensorScatterShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(1, 1));
  GRAFT_RETURN_IF_ERROR(ScatterUpdatesShape(c.input(1), c.input(2), c.input(0)));
  c.set_output(0, c.input(0));
  return Status::Ok();
}

}  // namespace

void RegisterIndexingOps(OpRegistry& r) {
  using B = OpDefBuilder;

  Add(r, B("Slice").Input("input: T").Input("begin: Index").Input("size: Index").Output("output: T").Attr("T: type")
             .Attr("Index: {int32, int64}"),
      SliceShape);
  Add(r, B("StridedSlice").Input("input: T").Input("begin: Index").Input("end: Index").Input("strides: Index")
             .Output("output: T").Attr("T: type").Attr("Index: {int16, int32, int64}").Attr("begin_mask: int = 0")
             .Attr("end_mask: int = 0").Attr("ellipsis_mask: int = 0").Attr("new_axis_mask: int = 0")
             .Attr("shrink_axis_mask: int = 0"),
      NeedsAttrs({"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"},
                 StridedSliceShape));
  Add(r, B("GatherV2").Input("params: Tparams").Input("indices: Tindices").Input("axis: Taxis")
             .Output("output: Tparams").Attr("batch_dims: int = 0").Attr("Tparams: type")
             .Attr("Tindices: {int16, int32, int64}").Attr("Taxis: {int32, int64}"),
      NeedsAttrs({"batch_dims"}, GatherV2Shape));
  Add(r, B("GatherNd").Input("params: Tparams").Input("indices: Tindices").Output("output: Tparams")
             .Attr("Tparams: type").Attr("Tindices: {int16, int32, int64}").Attr("bad_indices_policy: string = ''"),
      GatherNdShape);
  for (const char* name : {"UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax", "UnsortedSegmentMin"}) {
    const std::string_view n(name);
    const bool real = n.ends_with("Max") || n.ends_with("Min");  // they need an order
    Add(r, B(name).Input("data: T").Input("segment_ids: Tindices").Input("num_segments: Tnumsegments")
               .Output("output: T").Attr(real ? "T: realnumbertype" : "T: numbertype")
               .Attr("Tindices: {int16, int32, int64}").Attr("Tnumsegments: {int32, int64} = DT_INT32"),
        UnsortedSegmentShape);
  }
  for (const char* name : {"SegmentSum", "SegmentMean", "SegmentProd", "SegmentMax", "SegmentMin"}) {
    const std::string_view n(name);
    const bool real = n.ends_with("Max") || n.ends_with("Min");
    Add(r, B(name).Input("data: T").Input("segment_ids: Tindices").Output("output: T")
               .Attr(real ? "T: realnumbertype" : "T: numbertype").Attr("Tindices: {int32, int64}"),
        SortedSegmentShape);
  }
  Add(r, B("ScatterNd").Input("indices: Tindices").Input("updates: T").Input("shape: Tindices").Output("output: T")
             .Attr("T: type").Attr("Tindices: {int16, int32, int64}").Attr("bad_indices_policy: string = ''"),
      ScatterNdShape);
  Add(r, B("TensorScatterUpdate").Input("tensor: T").Input("indices: Tindices").Input("updates: T")
             .Output("output: T").Attr("T: type").Attr("Tindices: {int16, int32, int64, uint16}")
             .Attr("bad_indices_policy: string = ''"),
      TensorScatterShape);
  for (const char* name : {"TensorScatterAdd", "TensorScatterSub", "TensorScatterMax", "TensorScatterMin"}) {
    Add(r, B(name).Input("tensor: T").Input("indices: Tindices").Input("updates: T").Output("output: T")
               .Attr("T: type").Attr("Tindices: {int32, int64}").Attr("bad_indices_policy: string = ''"),
        TensorScatterShape);
  }
}

}  // namespace graft::ops
