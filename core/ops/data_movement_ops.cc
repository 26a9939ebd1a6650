// Built-in ops: see builtin_ops.h for the family.
//
// Data movement: Transpose, joining and splitting (ConcatV2, Pack, Unpack, Split, SplitV),
// tiling and padding (Tile, Pad, PadV2, MirrorPad), DynamicStitch and MatrixBandPart, ReverseV2,
// SpaceToBatchND and BatchToSpaceND.
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

Status TransposeShape(InferenceContext& c) {
  int64_t n;
  GRAFT_RETURN_IF_ERROR(VectorLength(c, 1, "perm", &n));
  const PartialShape& in = c.input(0);
  std::vector<int64_t> perm;
  bool known = c.ConstantInts(1, &perm);
  int64_t rank;
  if (in.known_rank()) {
    rank = in.rank();
    if (n != kUnknownDim && n != rank) {
      return errors::ShapeError("perm has ", n, " elements, but the input has rank ", rank, " (shape ",
                                in.ToString(), ")");
    }
  } else if (n != kUnknownDim) {
    rank = n;
  } else {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  if (!known) {
    c.set_output(0, PartialShape::UnknownDims(static_cast<int>(rank)));
    return Status::Ok();
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  std::vector<int64_t> dims;
  for (size_t i = 0; i < perm.size(); ++i) {
    // TensorFlow counts a negative entry from the end; normalised, perm must be a permutation.
    const int64_t p = perm[i] < 0 ? perm[i] + rank : perm[i];
    if (p < 0 || p >= rank) {
      return errors::InvalidArgument("perm[", i, "] = ", perm[i], " is out of range [", -rank, ", ", rank, ")");
    }
    if (seen[static_cast<size_t>(p)]) {
      return errors::InvalidArgument("perm ", PartialShape(perm).ToString(), " is not a permutation: dim ", p,
                                     " appears twice");
    }
    seen[static_cast<size_t>(p)] = true;
    dims.push_back(in.known_rank() ? in.dim(static_cast<int>(p)) : kUnknownDim);
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

// The common rank of inputs [start, end); -1 when none has a known rank.
Status CommonRank(const InferenceContext& c, int start, int end, int* rank) {
  *rank = kUnknownRank;
  int first = -1;
  for (int i = start; i < end; ++i) {
    const PartialShape& s = c.input(i);
    if (!s.known_rank()) continue;
    if (first < 0) {
      first = i;
      *rank = s.rank();
    } else if (s.rank() != *rank) {
      return errors::ShapeError("all inputs must have the same rank, but input ", first - start, " has shape ",
                                c.input(first).ToString(), " and input ", i - start, " has shape ", s.ToString());
    }
  }
  return Status::Ok();
}

Status ConcatV2Shape(InferenceContext& c) {
  int start, end;
  GRAFT_RETURN_IF_ERROR(c.InputRange("values", &start, &end));
  GRAFT_RETURN_IF_ERROR(c.WithRank(end, 0));
  int rank;
  GRAFT_RETURN_IF_ERROR(CommonRank(c, start, end, &rank));
  if (rank == kUnknownRank) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  if (rank == 0) return errors::ShapeError("cannot concatenate scalars (use Pack to stack them)");
  int64_t axis;
  if (!c.ConstantInt(end, &axis)) {
    c.set_output(0, PartialShape::UnknownDims(rank));
    return Status::Ok();
  }
  GRAFT_RETURN_IF_ERROR(CanonicalAxis(axis, rank, "axis", &axis));
  std::vector<int64_t> dims(static_cast<size_t>(rank), kUnknownDim);
  int64_t total = 0;
  for (int i = start; i < end; ++i) {
    const PartialShape& s = c.input(i);
    if (!s.known_rank()) {
      total = kUnknownDim;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      if (d == axis) {
        total = AddDims(total, s.dim(d));
      } else if (!DimIsCompatible(dims[static_cast<size_t>(d)], s.dim(d))) {
        return errors::ShapeError("inputs must match in every dimension but the axis (", axis,
                                  "), but dimension ", d, " of input ", i - start, " (shape ", s.ToString(),
                                  ") is ", s.dim(d), " where an earlier input has ", dims[static_cast<size_t>(d)]);
      } else if (s.dim(d) != kUnknownDim) {
        dims[static_cast<size_t>(d)] = s.dim(d);
      }
    }
  }
  dims[static_cast<size_t>(axis)] = total;
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

Status PackShape(InferenceContext& c) {
  int64_t axis;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("axis", &axis));
  PartialShape merged;
  for (int i = 0; i < c.num_inputs(); ++i) {
    PartialShape next;
    if (!merged.MergeWith(c.input(i), &next).ok()) {
      return errors::ShapeError("all inputs must have the same shape, but input ", i, " has shape ",
                                c.input(i).ToString(), " where earlier inputs have ", merged.ToString());
    }
    merged = std::move(next);
  }
  if (!merged.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  int64_t pos;
  GRAFT_RETURN_IF_ERROR(CanonicalAxis(axis, merged.rank() + 1, "axis", &pos));
  c.set_output(0, Inserted(merged, pos, c.num_inputs()));
  return Status::Ok();
}

Status UnpackShape(InferenceContext& c) {
  int64_t axis, num;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("axis", &axis));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("num", &num));
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    SetAll(c, PartialShape::Unknown());
    return Status::Ok();
  }
  GRAFT_RETURN_IF_ERROR(CanonicalAxis(axis, in.rank(), "axis", &axis));
  int64_t d = in.dim(static_cast<int>(axis));
  if (!DimIsCompatible(d, num)) {
    return errors::ShapeError("dimension ", axis, " of shape ", in.ToString(), " is ", d, ", but num is ", num);
  }
  SetAll(c, Removed(in, axis));
  return Status::Ok();
}

Status SplitShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 0));
  const PartialShape& in = c.input(1);
  int n = c.num_outputs();
  if (!in.known_rank()) {
    SetAll(c, PartialShape::Unknown());
    return Status::Ok();
  }
  int64_t axis;
  if (!c.ConstantInt(0, &axis)) {
    SetAll(c, n == 1 ? in : PartialShape::UnknownDims(in.rank()));
    return Status::Ok();
  }
  GRAFT_RETURN_IF_ERROR(CanonicalAxis(axis, in.rank(), "split_dim", &axis));
  int64_t d = in.dim(static_cast<int>(axis));
  if (d != kUnknownDim && d % n != 0) {
    return errors::InvalidArgument("dimension ", axis, " of shape ", in.ToString(), " (size ", d,
                                   ") cannot be split evenly into ", n, " pieces");
  }
  SetAll(c, Replaced(in, axis, d == kUnknownDim ? kUnknownDim : d / n));
  return Status::Ok();
}

Status SplitVShape(InferenceContext& c) {
  int n = c.num_outputs();
  int64_t len;
  GRAFT_RETURN_IF_ERROR(VectorLength(c, 1, "size_splits", &len));
  if (len != kUnknownDim && len != n) {
    return errors::ShapeError("size_splits has ", len, " elements, but num_split is ", n);
  }
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 0));
  std::vector<int64_t> sizes;
  bool sizes_known = c.ConstantInts(1, &sizes);
  int64_t sum = 0;
  int infer_at = -1;
  if (sizes_known) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == -1) {
        if (infer_at >= 0) {
          return errors::InvalidArgument("size_splits ", PartialShape(sizes).ToString(),
                                         " has more than one -1 (at most one size can be inferred)");
        }
        infer_at = static_cast<int>(i);
      } else if (sizes[i] < 0) {
        return errors::InvalidArgument("size_splits[", i, "] = ", sizes[i], " is negative");
      } else if (__builtin_add_overflow(sum, sizes[i], &sum)) {
        return errors::InvalidArgument("size_splits overflows a 64-bit integer");
      }
    }
  }
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    SetAll(c, PartialShape::Unknown());
    return Status::Ok();
  }
  int64_t axis;
  if (!c.ConstantInt(2, &axis)) {
    SetAll(c, n == 1 ? in : PartialShape::UnknownDims(in.rank()));
    return Status::Ok();
  }
  GRAFT_RETURN_IF_ERROR(CanonicalAxis(axis, in.rank(), "split_dim", &axis));
  int64_t d = in.dim(static_cast<int>(axis));
  if (!sizes_known) {
    SetAll(c, n == 1 ? in : Replaced(in, axis, kUnknownDim));
    return Status::Ok();
  }
  if (d != kUnknownDim) {
    if (infer_at >= 0) {
      if (sum > d) {
        return errors::InvalidArgument("size_splits ", PartialShape(sizes).ToString(), " add up to ", sum,
                                       ", more than dimension ", axis, " of shape ", in.ToString());
      }
      sizes[static_cast<size_t>(infer_at)] = d - sum;
    } else if (sum != d) {
      return errors::InvalidArgument("size_splits ", PartialShape(sizes).ToString(), " add up to ", sum,
                                     ", but dimension ", axis, " of shape ", in.ToString(), " is ", d);
    }
  }
  for (int i = 0; i < n; ++i) c.set_output(i, Replaced(in, axis, sizes[static_cast<size_t>(i)]));
  return Status::Ok();
}

Status TileShape(InferenceContext& c) {
  int64_t n;
  GRAFT_RETURN_IF_ERROR(VectorLength(c, 1, "multiples", &n));
  const PartialShape& in = c.input(0);
  if (in.known_rank() && n != kUnknownDim && n != in.rank()) {
    return errors::ShapeError("multiples has ", n, " elements, but the input has rank ", in.rank(), " (shape ",
                              in.ToString(), ")");
  }
  int64_t rank = in.known_rank() ? in.rank() : n;
  if (rank == kUnknownDim) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  std::vector<int64_t> m;
  bool known = c.ConstantInts(1, &m);
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    int64_t d = in.known_rank() ? in.dim(i) : kUnknownDim;
    if (!known) {
      dims.push_back(kUnknownDim);
      continue;
    }
    int64_t k = m[static_cast<size_t>(i)];
    if (k < 0) return errors::InvalidArgument("multiples[", i, "] = ", k, " is negative");
    int64_t out;
    GRAFT_RETURN_IF_ERROR(MulDims(d, k, &out));
    dims.push_back(out);
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

enum class PadMode { kConstant, kReflect, kSymmetric };

Status PadShapeImpl(InferenceContext& c, PadMode mode) {
  PartialShape ps;
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 2, &ps));
  if (ps.dim(1) != kUnknownDim && ps.dim(1) != 2) {
    return errors::ShapeError("paddings must have shape [rank, 2], but has shape ", ps.ToString());
  }
  int64_t n = ps.dim(0);
  const Tensor* pv = c.input_value(1);
  std::vector<int64_t> pads;
  bool known = pv != nullptr && pv->rank() == 2 && pv->dim(1) == 2 && c.ConstantInts(1, &pads);
  if (known) n = pv->dim(0);
  const PartialShape& in = c.input(0);
  if (in.known_rank() && n != kUnknownDim && n != in.rank()) {
    return errors::ShapeError("paddings has ", n, " rows, but the input has rank ", in.rank(), " (shape ",
                              in.ToString(), ")");
  }
  int64_t rank = in.known_rank() ? in.rank() : n;
  if (rank == kUnknownDim) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    int64_t d = in.known_rank() ? in.dim(i) : kUnknownDim;
    if (!known) {
      dims.push_back(kUnknownDim);
      continue;
    }
    int64_t before = pads[static_cast<size_t>(2 * i)], after = pads[static_cast<size_t>(2 * i + 1)];
    if (before < 0 || after < 0) {
      return errors::InvalidArgument("paddings[", i, "] = [", before, ", ", after, "] is negative");
    }
    if (d != kUnknownDim && mode != PadMode::kConstant) {
      int64_t limit = mode == PadMode::kReflect ? d - 1 : d;
      if (before > limit || after > limit) {
        return errors::InvalidArgument("paddings[", i, "] = [", before, ", ", after, "] must be at most ", limit,
                                       " in ", mode == PadMode::kReflect ? "REFLECT" : "SYMMETRIC",
                                       " mode for dimension ", i, " of shape ", in.ToString());
      }
    }
    int64_t out = kUnknownDim;
    if (d != kUnknownDim && (__builtin_add_overflow(d, before, &out) || __builtin_add_overflow(out, after, &out))) {
      return errors::InvalidArgument("padded dimension ", i, " overflows a 64-bit integer");
    }
    dims.push_back(out);
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

Status PadShape(InferenceContext& c) { return PadShapeImpl(c, PadMode::kConstant); }

Status PadV2Shape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 0));
  return PadShapeImpl(c, PadMode::kConstant);
}

Status MirrorPadShape(InferenceContext& c) {
  std::string mode;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("mode", &mode));
  return PadShapeImpl(c, mode == "REFLECT" ? PadMode::kReflect : PadMode::kSymmetric);
}

Status DynamicStitchShape(InferenceContext& c) {
  int64_t n;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("N", &n));
  PartialShape element;  // the shape of one merged slice, merged across the inputs
  bool all_known = true;
  int64_t max_index = -1;
  for (int i = 0; i < n; ++i) {
    const PartialShape& idx = c.input(i);
    const PartialShape& data = c.input(static_cast<int>(n) + i);
    if (idx.known_rank() && data.known_rank()) {
      bool prefix_ok = data.rank() >= idx.rank();
      for (int j = 0; prefix_ok && j < idx.rank(); ++j) prefix_ok = DimIsCompatible(idx.dim(j), data.dim(j));
      if (!prefix_ok) {
        return errors::ShapeError("data[", i, "] has shape ", data.ToString(), ", which does not start with the shape ",
                                  idx.ToString(), " of indices[", i, "]");
      }
      PartialShape rest = SubShape(data, idx.rank(), data.rank()), merged;
      if (!element.MergeWith(rest, &merged).ok()) {
        return errors::ShapeError("data[", i, "] has shape ", data.ToString(),
                                  ": beyond the indices' dimensions it is ", rest.ToString(),
                                  ", but earlier data have ", element.ToString());
      }
      element = std::move(merged);
    }
    std::vector<int64_t> values;
    if (!c.ConstantInts(i, &values)) {
      all_known = false;
      continue;
    }
    for (int64_t v : values) {
      if (v < 0) return errors::InvalidArgument("indices[", i, "] has a negative index ", v);
      max_index = std::max(max_index, v);
    }
  }
  PartialShape first({all_known ? max_index + 1 : kUnknownDim});
  c.set_output(0, first.Concatenate(element));
  return Status::Ok();
}

// ReverseV2: the input's shape; axis is a vector.
Status ReverseV2Shape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1));
  const PartialShape& in = c.input(0);
  if (in.known_rank() && in.rank() > 8) {
    return errors::InvalidArgument("reverse is not implemented for tensors of rank > 8.");
  }
  std::vector<int64_t> axes;
  if (in.known_rank() && c.ConstantInts(1, &axes)) {
    std::vector<bool> seen(static_cast<size_t>(in.rank()), false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = axes[i];
      const int64_t canon = a < 0 ? a + in.rank() : a;
      if (canon < 0 || canon >= in.rank()) {
        return errors::InvalidArgument("'axis'[", i, "] = ", a, " is out of valid range [0, ", in.rank() - 1, "]");
      }
      if (seen[static_cast<size_t>(canon)]) {
        return errors::InvalidArgument("axis ", canon, " specified more than once.");
      }
      seen[static_cast<size_t>(canon)] = true;
    }
  }
  c.set_output(0, in);
  return Status::Ok();
}

// SpaceToBatchND / BatchToSpaceND: input [batch] + spatial (M dims, the length of block_shape)
// + remaining. SpaceToBatchND pads the spatial dims and moves each block offset into the
// batch: [batch * prod(block)] + (spatial + pads) / block + remaining. BatchToSpaceND is its
// inverse, with crops in place of paddings. Dims are computed where the input dim and the
// constant block_shape and paddings/crops are known.
Status SpaceBatchShape(InferenceContext& c, bool to_batch) {
  const char* pads_name = to_batch ? "paddings" : "crops";
  PartialShape block_s, pads_s;
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1, &block_s));
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 2, &pads_s));
  int64_t m = block_s.dim(0);
  if (pads_s.dim(1) != kUnknownDim && pads_s.dim(1) != 2) {
    return errors::InvalidArgument(pads_name, " must have shape [M, 2], got ", pads_s.ToString());
  }
  if (m != kUnknownDim && pads_s.dim(0) != kUnknownDim && pads_s.dim(0) != m) {
    return errors::InvalidArgument("block_shape has ", m, " elements, but ", pads_name, " has shape ",
                                   pads_s.ToString());
  }
  if (m == kUnknownDim) m = pads_s.dim(0);
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  if (m != kUnknownDim && in.rank() < 1 + m) {
    return errors::InvalidArgument("input rank should be >= ", 1 + m, " instead of ", in.rank());
  }
  std::vector<int64_t> block, pads;
  const bool known_block = c.ConstantInts(1, &block);
  const bool known_pads = c.ConstantInts(2, &pads);
  std::vector<int64_t> dims(static_cast<size_t>(in.rank()), kUnknownDim);
  if (m == kUnknownDim) {
    c.set_output(0, PartialShape(dims));
    return Status::Ok();
  }
  for (int i = 1 + static_cast<int>(m); i < in.rank(); ++i) dims[static_cast<size_t>(i)] = in.dim(i);
  int64_t prod = 1;
  if (known_block) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (block[i] < 1) {
        return errors::InvalidArgument("All values in block_shape must be positive, got value, ", block[i], " at index ",
                                       i, ".");
      }
      prod *= block[i];
    }
  }
  if (known_pads) {
    for (int64_t p : pads) {
      if (p < 0) return errors::InvalidArgument(to_batch ? "Paddings" : "Crops", " must be non-negative");
    }
  }
  const int64_t batch = in.dim(0);
  if (known_block && batch != kUnknownDim) {
    if (to_batch) {
      dims[0] = batch * prod;
    } else {
      if (batch % prod != 0) {
        return errors::InvalidArgument("Input batch dimension (", batch, ") is not divisible by product of block sizes (",
                                       prod, ")");
      }
      dims[0] = batch / prod;
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    const int64_t d = in.dim(static_cast<int>(1 + i));
    if (!known_block || !known_pads || d == kUnknownDim) continue;
    const int64_t b = block[static_cast<size_t>(i)];
    const int64_t lo = pads[static_cast<size_t>(2 * i)], hi = pads[static_cast<size_t>(2 * i + 1)];
    if (to_batch) {
      if ((d + lo + hi) % b != 0) {
        return errors::InvalidArgument("padded_shape[", i, "]=", d + lo + hi, " is not divisible by block_shape[", i,
                                       "]=", b);
      }
      dims[static_cast<size_t>(1 + i)] = (d + lo + hi) / b;
    } else {
      if (d * b - lo - hi < 0) {
        return errors::InvalidArgument("cropped_shape[", i, "]=", d * b - lo - hi, " must be non-negative");
      }
      dims[static_cast<size_t>(1 + i)] = d * b - lo - hi;
    }
  }
  c.set_output(0, PartialShape(dims));
  return Status::Ok();
}

}  // namespace

void RegisterDataMovementOps(OpRegistry& r) {
  using B = OpDefBuilder;
  auto idx_attr = [](const char* name) { return StrCat(name, ": {int32, int64} = DT_INT32"); };

  Add(r, B("MatrixBandPart").Input("input: T").Input("num_lower: Tindex").Input("num_upper: Tindex")
             .Output("band: T").Attr("T: type").Attr("Tindex: {int32, int64} = DT_INT64"),
      [](InferenceContext& c) -> Status {
        GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(0, 2));
        GRAFT_RETURN_IF_ERROR(c.WithScalar(1));
        GRAFT_RETURN_IF_ERROR(c.WithScalar(2));
        c.set_output(0, c.input(0));
        return Status::Ok();
      });
  Add(r, B("Transpose").Input("x: T").Input("perm: Tperm").Output("y: T").Attr("T: type").Attr(idx_attr("Tperm")),
      TransposeShape);
  Add(r, B("ConcatV2").Input("values: N * T").Input("axis: Tidx").Output("output: T").Attr("N: int >= 2")
             .Attr("T: type").Attr(idx_attr("Tidx")),
      ConcatV2Shape);
  Add(r, B("Pack").Input("values: N * T").Output("output: T").Attr("N: int >= 1").Attr("T: type").Attr("axis: int = 0"),
      NeedsAttrs({"axis"}, PackShape));
  Add(r, B("Unpack").Input("value: T").Output("output: num * T").Attr("num: int >= 0").Attr("T: type")
             .Attr("axis: int = 0"),
      NeedsAttrs({"axis", "num"}, UnpackShape));
  Add(r, B("Split").Input("split_dim: int32").Input("value: T").Output("output: num_split * T")
             .Attr("num_split: int >= 1").Attr("T: type"),
      SplitShape);
  Add(r, B("SplitV").Input("value: T").Input("size_splits: Tlen").Input("split_dim: int32")
             .Output("output: num_split * T").Attr("num_split: int >= 1").Attr("T: type")
             .Attr("Tlen: {int8, int32, int64} = DT_INT64"),
      SplitVShape);
  Add(r, B("Tile").Input("input: T").Input("multiples: Tmultiples").Output("output: T").Attr("T: type")
             .Attr(idx_attr("Tmultiples")),
      TileShape);
  Add(r, B("Pad").Input("input: T").Input("paddings: Tpaddings").Output("output: T").Attr("T: type")
             .Attr(idx_attr("Tpaddings")),
      PadShape);
  Add(r, B("PadV2").Input("input: T").Input("paddings: Tpaddings").Input("constant_values: T").Output("output: T")
             .Attr("T: type").Attr(idx_attr("Tpaddings")),
      PadV2Shape);
  Add(r, B("MirrorPad").Input("input: T").Input("paddings: Tpaddings").Output("output: T").Attr("T: type")
             .Attr(idx_attr("Tpaddings")).Attr("mode: {'REFLECT', 'SYMMETRIC'}"),
      NeedsAttrs({"mode"}, MirrorPadShape));
  Add(r, B("ReverseV2").Input("tensor: T").Input("axis: Tidx").Output("output: T").Attr(idx_attr("Tidx"))
             .Attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, half, float, "
                   "double, complex64, complex128, string}"),
      ReverseV2Shape);
  Add(r, B("SpaceToBatchND").Input("input: T").Input("block_shape: Tblock_shape").Input("paddings: Tpaddings")
             .Output("output: T").Attr("T: type").Attr(idx_attr("Tblock_shape")).Attr(idx_attr("Tpaddings")),
      [](InferenceContext& c) { return SpaceBatchShape(c, true); });
  Add(r, B("BatchToSpaceND").Input("input: T").Input("block_shape: Tblock_shape").Input("crops: Tcrops")
             .Output("output: T").Attr("T: type").Attr(idx_attr("Tblock_shape")).Attr(idx_attr("Tcrops")),
      [](InferenceContext& c) { return SpaceBatchShape(c, false); });
  Add(r, B("DynamicStitch").Input("indices: N * int32").Input("data: N * T").Output("merged: T")
             .Attr("N: int >= 1").Attr("T: type"),
      NeedsAttrs({"N"}, DynamicStitchShape));
}

}  // namespace graft::ops
