// Built-in ops: see builtin_ops.h for the family.
//
// Ops along a sequence of elements: Range, OneHot, Where, Cumsum, Cumprod, TopKV2 and Unique.
// Signatures follow TensorFlow 2.18's registry (names, attr order, defaults, allowed types).
// Shape functions work on partial shapes and read constant inputs when their values are
// known; errors for values that the kernel would reject in any case (a bad axis, a negative
// size) are reported here, while building.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {

// The array families' shared helpers (NeedsAttrs, CanonicalAxis, VectorLength, ...).
using namespace shape_fns;

namespace {

Status RangeShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 0));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 0));
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 0));
  PartialShape unknown = PartialShape({kUnknownDim});
  const Tensor* v[3] = {c.input_value(0), c.input_value(1), c.input_value(2)};
  for (const Tensor* t : v) {
    if (t == nullptr || t->num_elements() != 1) {
      c.set_output(0, unknown);
      return Status::Ok();
    }
  }
  DType dtype = v[0]->dtype();
  int64_t size = kUnknownDim;
  auto check = [](bool delta_zero, bool delta_pos, bool start_gt, bool start_lt) -> Status {
    if (delta_zero) return errors::InvalidArgument("delta must not be 0");
    if (delta_pos && start_gt) return errors::InvalidArgument("start must be <= limit when delta is positive");
    if (!delta_pos && start_lt) return errors::InvalidArgument("start must be >= limit when delta is negative");
    return Status::Ok();
  };
  if (dtype == DType::kFloat32 || dtype == DType::kFloat64) {
    // Computed in the dtype's own precision, as the kernel does.
    auto compute = [&](auto start, auto limit, auto delta) -> Status {
      GRAFT_RETURN_IF_ERROR(check(delta == 0, delta > 0, start > limit, start < limit));
      auto n = std::ceil(std::abs((limit - start) / delta));
      if (!std::isfinite(n) || n >= 9.2e18) {
        return errors::InvalidArgument("the range from ", start, " to ", limit, " by ", delta,
                                       " has too many elements");
      }
      size = static_cast<int64_t>(n);
      return Status::Ok();
    };
    if (dtype == DType::kFloat32) {
      GRAFT_RETURN_IF_ERROR(compute(v[0]->data<float>()[0], v[1]->data<float>()[0], v[2]->data<float>()[0]));
    } else {
      GRAFT_RETURN_IF_ERROR(compute(v[0]->data<double>()[0], v[1]->data<double>()[0], v[2]->data<double>()[0]));
    }
  } else {
    std::vector<int64_t> s, l, d;
    if (!c.ConstantInts(0, &s) || !c.ConstantInts(1, &l) || !c.ConstantInts(2, &d)) {
      // half and bfloat16: not evaluated here.
      c.set_output(0, unknown);
      return Status::Ok();
    }
    int64_t start = s[0], limit = l[0], delta = d[0];
    GRAFT_RETURN_IF_ERROR(check(delta == 0, delta > 0, start > limit, start < limit));
    uint64_t span = start <= limit ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                   : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
    uint64_t step = delta > 0 ? static_cast<uint64_t>(delta) : uint64_t{0} - static_cast<uint64_t>(delta);
    uint64_t count = span / step + (span % step != 0 ? 1 : 0);
    if (count > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return errors::InvalidArgument("the range from ", start, " to ", limit, " has too many elements");
    }
    size = static_cast<int64_t>(count);
  }
  c.set_output(0, PartialShape({size}));
  return Status::Ok();
}

Status OneHotShape(InferenceContext& c) {
  int64_t axis;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("axis", &axis));
  if (axis < -1) return errors::InvalidArgument("axis ", axis, " is invalid (must be -1 or >= 0)");
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 0));
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 0));
  GRAFT_RETURN_IF_ERROR(c.WithRank(3, 0));
  int64_t depth = kUnknownDim;
  if (c.ConstantInt(1, &depth) && depth < 0) {
    return errors::InvalidArgument("depth ", depth, " is negative");
  }
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  if (axis > in.rank()) {
    return errors::InvalidArgument("axis ", axis, " is out of range for indices of shape ", in.ToString(),
                                   " (must be -1 or in [0, ", in.rank(), "])");
  }
  c.set_output(0, Inserted(in, axis == -1 ? in.rank() : axis, depth));
  return Status::Ok();
}

Status WhereShape(InferenceContext& c) {
  const PartialShape& in = c.input(0);
  c.set_output(0, PartialShape({kUnknownDim, in.known_rank() ? static_cast<int64_t>(in.rank()) : kUnknownDim}));
  return Status::Ok();
}

Status CumsumShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 0));
  const PartialShape& in = c.input(0);
  int64_t axis;
  if (in.known_rank() && c.ConstantInt(1, &axis)) {
    GRAFT_RETURN_IF_ERROR(CanonicalAxis(axis, in.rank(), "axis", &axis));
  }
  c.set_output(0, in);
  return Status::Ok();
}

Status TopKV2Shape(InferenceContext& c) {
  const PartialShape& in = c.input(0);
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(0, 1));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 0));
  int64_t k = kUnknownDim;
  if (c.ConstantInt(1, &k)) {
    if (k < 0) return errors::InvalidArgument("k ", k, " is negative");
    if (in.known_rank()) {
      int64_t last = in.dim(in.rank() - 1);
      if (last != kUnknownDim && last < k) {
        return errors::InvalidArgument("k ", k, " is more than the last dimension of the input (shape ",
                                       in.ToString(), ")");
      }
    }
  }
  SetAll(c, in.known_rank() ? Replaced(in, in.rank() - 1, k) : PartialShape::Unknown());
  return Status::Ok();
}

Status UniqueShape(InferenceContext& c) {
  PartialShape x;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 1, &x));
  c.set_output(0, PartialShape({kUnknownDim}));
  c.set_output(1, std::move(x));
  return Status::Ok();
}

}  // namespace

void RegisterSequenceOps(OpRegistry& r) {
  using B = OpDefBuilder;
  auto idx_attr = [](const char* name) { return StrCat(name, ": {int32, int64} = DT_INT32"); };

  Add(r, B("Range").Input("start: Tidx").Input("limit: Tidx").Input("delta: Tidx").Output("output: Tidx")
             .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32} = DT_INT32"),
      RangeShape);
  Add(r, B("OneHot").Input("indices: TI").Input("depth: int32").Input("on_value: T").Input("off_value: T")
             .Output("output: T").Attr("axis: int = -1").Attr("T: type")
             .Attr("TI: {uint8, int8, int32, int64} = DT_INT64"),
      NeedsAttrs({"axis"}, OneHotShape));
  Add(r, B("Where").Input("input: T").Output("index: int64").Attr("T: {numbertype, bool} = DT_BOOL"), WhereShape);
  for (const char* name : {"Cumsum", "Cumprod"}) {
    Add(r, B(name).Input("x: T").Input("axis: Tidx").Output("out: T").Attr("exclusive: bool = false")
               .Attr("reverse: bool = false").Attr("T: numbertype").Attr(idx_attr("Tidx")),
        CumsumShape);
  }
  Add(r, B("TopKV2").Input("input: T").Input("k: Tk").Output("values: T").Output("indices: index_type")
             .Attr("sorted: bool = true").Attr("T: realnumbertype").Attr("Tk: {int16, int32, int64} = DT_INT32")
             .Attr("index_type: {int16, int32, int64} = DT_INT32"),
      TopKV2Shape);
  Add(r, B("Unique").Input("x: T").Output("y: T").Output("idx: out_idx").Attr("T: type")
             .Attr("out_idx: {int32, int64} = DT_INT32"),
      UniqueShape);
}

}  // namespace graft::ops
