// Built-in ops: see builtin_ops.h for the family.
//
// Math ops: binary cwise ops and comparisons (numpy broadcasting), Select/SelectV2, unary cwise
// ops, Cast, reductions, ArgMax/ArgMin, Bucketize, DenseBincount and Einsum (its equation:
// core/einsum_equation.h).
// Signatures follow TensorFlow 2.18's registry; ops that share a signature are registered from
// the tables below.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/einsum_equation.h"
#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {
namespace {

// ---------------------------------------------------------------------------------------------
// Shape helpers

// Broadcast of inputs 0 and 1, as BroadcastBinary, but naming the inputs on failure.
Status BroadcastInputs(InferenceContext& c, int a, int b, PartialShape* out) {
  Status s = shape_fns::BroadcastShapes(c.input(a), c.input(b), out);
  if (!s.ok()) {
    return errors::ShapeError(c.InputName(a), " ", c.input(a).ToString(), " and ", c.InputName(b), " ",
                              c.input(b).ToString(), " cannot be broadcast together");
  }
  return Status::Ok();
}

Status BroadcastShape(InferenceContext& c) {
  PartialShape out;
  GRAFT_RETURN_IF_ERROR(BroadcastInputs(c, 0, 1, &out));
  c.set_output(0, std::move(out));
  return Status::Ok();
}

// Equal / NotEqual: with incompatible_shape_error=false the op yields a scalar `false`/`true`
// for shapes that cannot broadcast instead of failing, so statically incompatible dims give a
// scalar, and a known dim > 1 against an unknown one (which may or may not broadcast) gives
// an unknown shape.
Status EqualityShape(InferenceContext& c) {
  bool strict = true;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("incompatible_shape_error", &strict));
  if (strict) return BroadcastShape(c);
  const PartialShape& a = c.input(0);
  const PartialShape& b = c.input(1);
  if (!a.known_rank() || !b.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  const size_t rank = std::max(a.dims().size(), b.dims().size());
  const size_t pad_a = rank - a.dims().size();
  const size_t pad_b = rank - b.dims().size();
  std::vector<int64_t> dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < pad_a ? 1 : a.dims()[i - pad_a];
    const int64_t db = i < pad_b ? 1 : b.dims()[i - pad_b];
    if (da == kUnknownDim || db == kUnknownDim) {
      const int64_t known = da == kUnknownDim ? db : da;
      if (known == kUnknownDim || known == 1) {
        dims[i] = kUnknownDim;
      } else {
        // A known dim other than 1 against an unknown one: the result may be a scalar.
        c.set_output(0, PartialShape::Unknown());
        return Status::Ok();
      }
    } else if (da == db || db == 1) {
      dims[i] = da;
    } else if (da == 1) {
      dims[i] = db;
    } else {
      c.set_output(0, PartialShape::Scalar());
      return Status::Ok();
    }
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

// Select: t and e merge; condition is a scalar, a vector matching t's first dim, or t's shape.
Status SelectShape(InferenceContext& c) {
  PartialShape data;
  if (!c.input(1).MergeWith(c.input(2), &data).ok()) {
    return errors::ShapeError("input 't' ", c.input(1).ToString(), " and input 'e' ", c.input(2).ToString(),
                              " must have the same shape");
  }
  const PartialShape& cond = c.input(0);
  if (cond.known_rank() && cond.rank() == 0) {
    c.set_output(0, std::move(data));
    return Status::Ok();
  }
  if (cond.known_rank() && cond.rank() == 1 && !(data.known_rank() && data.rank() == 0)) {
    // A vector condition picks whole rows of t / e.
    if (data.known_rank()) {
      int64_t merged;
      if (!MergeDim(cond.dim(0), data.dim(0), &merged).ok()) {
        return errors::ShapeError("vector input 'condition' ", cond.ToString(),
                                  " must have as many elements as the first dimension of 't' ", data.ToString());
      }
      std::vector<int64_t> dims = data.dims();
      dims[0] = merged;
      data = PartialShape(std::move(dims));
    }
    c.set_output(0, std::move(data));
    return Status::Ok();
  }
  PartialShape merged;
  if (!data.MergeWith(cond, &merged).ok()) {
    return errors::ShapeError("input 'condition' ", cond.ToString(),
                              " must be a scalar, a vector of t's first dimension, or have the shape of 't' ",
                              data.ToString());
  }
  c.set_output(0, std::move(merged));
  return Status::Ok();
}

// SelectV2: condition, t and e broadcast together.
Status SelectV2Shape(InferenceContext& c) {
  PartialShape te;
  GRAFT_RETURN_IF_ERROR(BroadcastInputs(c, 1, 2, &te));
  PartialShape out;
  if (!shape_fns::BroadcastShapes(c.input(0), te, &out).ok()) {
    return errors::ShapeError("input 'condition' ", c.input(0).ToString(), " cannot be broadcast with ", te.ToString(),
                              " (the broadcast of 't' and 'e')");
  }
  c.set_output(0, std::move(out));
  return Status::Ok();
}

// Sum, Mean, ...: reduction_indices is a scalar or vector; with its value known the reduced
// dims are removed (or kept as 1 with keep_dims); otherwise only keep_dims tells the rank.
Status ReductionShape(InferenceContext& c) {
  PartialShape indices;
  GRAFT_RETURN_IF_ERROR(c.WithRankAtMost(1, 1, &indices));
  bool keep_dims = false;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("keep_dims", &keep_dims));
  const PartialShape& in = c.input(0);
  std::vector<int64_t> axes;
  if (!in.known_rank() || !c.ConstantInts(1, &axes)) {
    c.set_output(0, keep_dims && in.known_rank() ? PartialShape::UnknownDims(in.rank()) : PartialShape::Unknown());
    return Status::Ok();
  }
  const int rank = in.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument("reduction axis ", axis, " is out of range for an input of rank ", rank,
                                     " (must be in [", -rank, ", ", rank, "))");
    }
    reduced[static_cast<size_t>(axis < 0 ? axis + rank : axis)] = true;
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[static_cast<size_t>(i)]) {
      dims.push_back(in.dim(i));
    } else if (keep_dims) {
      dims.push_back(1);
    }
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

// ArgMax / ArgMin: a scalar dimension; the input's shape without that axis.
Status ArgReductionShape(InferenceContext& c) {
  PartialShape dim_shape;
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 0, &dim_shape));
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  const int rank = in.rank();
  if (rank <= 1) {
    c.set_output(0, PartialShape::Scalar());
    return Status::Ok();
  }
  int64_t axis = 0;
  if (!c.InputScalar(1, &axis)) {
    c.set_output(0, PartialShape::UnknownDims(rank - 1));
    return Status::Ok();
  }
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("dimension ", axis, " is out of range for an input of rank ", rank,
                                   " (must be in [", -rank, ", ", rank, "))");
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> dims = in.dims();
  dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(axis));
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Tables of ops that share a signature

// Dtype lists, in TensorFlow's order for each op.
constexpr const char* kFloat = "bfloat16, half, float, double";
constexpr const char* kFloatComplex = "bfloat16, half, float, double, complex64, complex128";
constexpr const char* kSignedComplex =
    "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128";
constexpr const char* kArith =  // Mul, Div, RealDiv, FloorDiv, TruncateDiv
    "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128";
constexpr const char* kMinMax =
    "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64";
constexpr const char* kRealNumber = "realnumbertype";
constexpr const char* kNumber = "numbertype";
constexpr const char* kRealQuantized = "realnumbertype, quantizedtype";

enum Flags : unsigned { kNone = 0, kCommutative = 1u << 0, kAggregate = 1u << 1 };

OpDefBuilder WithFlags(OpDefBuilder b, unsigned flags) {
  if (flags & kCommutative) b.SetIsCommutative();
  if (flags & kAggregate) b.SetIsAggregate();
  return b;
}

struct BinaryOp {
  const char* name;
  const char* types;  // nullptr: bool inputs, no T attr
  bool bool_output;
  unsigned flags;
  const char* x = "x";
  const char* y = "y";
};

constexpr BinaryOp kBinaryOps[] = {
    {"Add", "bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128, string", false,
     kNone},
    {"AddV2",
     "bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, complex64, complex128",
     false, kCommutative | kAggregate},
    {"Sub",
     "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, complex128, uint32, uint64",
     false, kNone},
    {"Mul", kArith, false, kCommutative},
    {"Div", kArith, false, kNone},
    {"RealDiv", kArith, false, kNone},
    {"DivNoNan", "half, float, bfloat16, double, complex64, complex128", false, kNone},
    {"FloorDiv", kArith, false, kNone},
    {"FloorMod", "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, double", false,
     kNone},
    {"TruncateDiv", kArith, false, kNone},
    {"TruncateMod", "int32, int64, bfloat16, half, float, double", false, kNone},
    {"Pow", "bfloat16, float, half, double, int8, int16, int32, int64, complex64, complex128", false, kNone},
    {"Maximum", kMinMax, false, kNone},
    {"Minimum", kMinMax, false, kNone},
    {"SquaredDifference", "bfloat16, half, float, double, int32, int64, complex64, complex128", false, kCommutative},
    {"Atan2", kFloat, false, kNone, "y", "x"},
    {"Less", kRealNumber, true, kNone},
    {"LessEqual", kRealNumber, true, kNone},
    {"Greater", kRealNumber, true, kNone},
    {"GreaterEqual", kRealNumber, true, kNone},
    {"LogicalAnd", nullptr, true, kCommutative},
    {"LogicalOr", nullptr, true, kCommutative},
};

void AddBinary(OpRegistry& r, const BinaryOp& op) {
  OpDefBuilder b(op.name);
  const char* t = op.types ? "T" : "bool";
  b.Input(StrCat(op.x, ": ", t)).Input(StrCat(op.y, ": ", t)).Output(op.bool_output ? "z: bool" : StrCat("z: ", t));
  if (op.types) b.Attr(StrCat("T: {", op.types, "}"));
  Add(r, WithFlags(std::move(b), op.flags), BroadcastShape);
}

struct UnaryOp {
  const char* name;
  const char* types;  // nullptr: bool input, no T attr
  bool bool_output;
};

constexpr UnaryOp kUnaryOps[] = {
    {"Neg", kSignedComplex, false},
    {"Abs", "bfloat16, half, float, double, int8, int16, int32, int64", false},
    {"Sign", kSignedComplex, false},
    {"Square",
     "bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128",
     false},
    {"Sqrt", kFloatComplex, false},
    {"Rsqrt", kFloatComplex, false},
    {"Reciprocal", kSignedComplex, false},
    {"Exp", kFloatComplex, false},
    {"Expm1", kFloatComplex, false},
    {"Log", kFloatComplex, false},
    {"Log1p", kFloatComplex, false},
    {"Sin", kFloatComplex, false},
    {"Cos", kFloatComplex, false},
    {"Tan", kFloatComplex, false},
    {"Asin", kFloatComplex, false},
    {"Acos", kFloatComplex, false},
    {"Atan", kFloatComplex, false},
    {"Sinh", kFloatComplex, false},
    {"Cosh", kFloatComplex, false},
    {"Asinh", kFloatComplex, false},
    {"Acosh", kFloatComplex, false},
    {"Atanh", kFloatComplex, false},
    {"Tanh", kFloatComplex, false},
    {"Sigmoid", kFloatComplex, false},
    {"Erf", kFloat, false},
    {"Erfc", kFloat, false},
    {"Floor", kFloat, false},
    {"Ceil", kFloat, false},
    {"Round", kSignedComplex, false},
    {"Rint", kFloat, false},
    {"IsNan", kFloat, true},
    {"IsInf", kFloat, true},
    {"IsFinite", kFloat, true},
    {"LogicalNot", nullptr, true},
};

void AddUnary(OpRegistry& r, const UnaryOp& op) {
  OpDefBuilder b(op.name);
  const char* t = op.types ? "T" : "bool";
  b.Input(StrCat("x: ", t)).Output(op.bool_output ? "y: bool" : StrCat("y: ", t));
  if (op.types) b.Attr(StrCat("T: {", op.types, "}"));
  Add(r, b, shape_fns::Unchanged);
}

struct ReductionOp {
  const char* name;
  const char* types;  // nullptr: bool input and output, no T attr
};

constexpr ReductionOp kReductionOps[] = {
    {"Sum", kNumber}, {"Mean", kNumber}, {"Max", kRealQuantized}, {"Min", kRealQuantized},
    {"Prod", kNumber}, {"All", nullptr},  {"Any", nullptr},
};

// Einsum: the output's dims are its subscripts' sizes (unknown where an input's is; the whole
// shape is unknown while a "..." covers an input of unknown rank).
Status EinsumShape(InferenceContext& c) {
  std::string equation;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("equation", &equation));
  EinsumEquation eq;
  GRAFT_RETURN_IF_ERROR(ParseEinsumEquation(equation, c.num_inputs(), &eq));
  std::vector<int> ranks;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.input(i).known_rank()) {
      const auto& subs = eq.inputs[static_cast<size_t>(i)];
      if (std::find(subs.begin(), subs.end(), kEinsumEllipsis) != subs.end()) {
        c.set_output(0, PartialShape::Unknown());
        return Status::Ok();
      }
      ranks.push_back(static_cast<int>(subs.size()));
    } else {
      ranks.push_back(c.input(i).rank());
    }
  }
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  GRAFT_RETURN_IF_ERROR(ExpandEinsumEllipsis(eq, ranks, &inputs, &output));
  std::vector<std::vector<int64_t>> dims;
  for (int i = 0; i < c.num_inputs(); ++i) {
    dims.push_back(c.input(i).known_rank() ? c.input(i).dims()
                                           : std::vector<int64_t>(static_cast<size_t>(ranks[static_cast<size_t>(i)]), -1));
  }
  std::map<int, int64_t> sizes;
  GRAFT_RETURN_IF_ERROR(EinsumLabelSizes(inputs, dims, &sizes));
  std::vector<int64_t> out;
  for (int l : output) out.push_back(sizes.count(l) ? sizes[l] : 1);  // a "..." no input fills: no dims
  c.set_output(0, PartialShape(std::move(out)));
  return Status::Ok();
}

void AddReduction(OpRegistry& r, const ReductionOp& op) {
  OpDefBuilder b(op.name);
  const char* t = op.types ? "T" : "bool";
  b.Input(StrCat("input: ", t)).Input("reduction_indices: Tidx").Output(StrCat("output: ", t));
  b.Attr("keep_dims: bool = false");
  if (op.types) b.Attr(StrCat("T: {", op.types, "}"));
  b.Attr("Tidx: {int32, int64} = DT_INT32");
  Add(r, b, ReductionShape);
}

}  // namespace

void RegisterMathOps(OpRegistry& r) {
  for (const BinaryOp& op : kBinaryOps) AddBinary(r, op);
  for (const char* name : {"Equal", "NotEqual"}) {
    Add(r,
        OpDefBuilder(name)
            .Input("x: T")
            .Input("y: T")
            .Output("z: bool")
            .Attr("T: type")
            .Attr("incompatible_shape_error: bool = true")
            .SetIsCommutative(),
        EqualityShape);
  }
  Add(r,
      OpDefBuilder("AddN")
          .Input("inputs: N * T")
          .Output("sum: T")
          .Attr("N: int >= 1")
          .Attr("T: {numbertype, variant}")
          .SetIsCommutative()
          .SetIsAggregate(),
      shape_fns::MergeAll);
  Add(r,
      OpDefBuilder("ClipByValue")
          .Input("t: T")
          .Input("clip_value_min: T")
          .Input("clip_value_max: T")
          .Output("output: T")
          .Attr("T: numbertype"),
      [](InferenceContext& c) -> Status {
        for (int i = 1; i <= 2; ++i) {
          const PartialShape& b = c.input(i);
          PartialShape merged;
          if (b.known_rank() && b.rank() != 0 && !b.MergeWith(c.input(0), &merged).ok()) {
            return errors::ShapeError(c.op_def().inputs[static_cast<size_t>(i)].name, " must be a scalar or have t's "
                                      "shape ", c.input(0).ToString(), ", not ", b.ToString());
          }
        }
        c.set_output(0, c.input(0));
        return Status::Ok();
      });
  Add(r, OpDefBuilder("Select").Input("condition: bool").Input("t: T").Input("e: T").Output("output: T").Attr("T: type"),
      SelectShape);
  Add(r,
      OpDefBuilder("SelectV2").Input("condition: bool").Input("t: T").Input("e: T").Output("output: T").Attr("T: type"),
      SelectV2Shape);

  for (const UnaryOp& op : kUnaryOps) AddUnary(r, op);
  Add(r,
      OpDefBuilder("Einsum")
          .Input("inputs: N * T")
          .Output("output: T")
          .Attr("equation: string")
          .Attr("N: int >= 1")
          .Attr("T: type"),
      EinsumShape);
  Add(r,
      OpDefBuilder("Cast")
          .Input("x: SrcT")
          .Output("y: DstT")
          .Attr("SrcT: type")
          .Attr("DstT: type")
          .Attr("Truncate: bool = false"),
      shape_fns::Unchanged);
  Add(r,
      OpDefBuilder("CheckNumerics")
          .Input("tensor: T")
          .Output("output: T")
          .Attr(StrCat("T: {", kFloat, "}"))
          .Attr("message: string")
          .SetIsStateful(),
      shape_fns::Unchanged);

  for (const ReductionOp& op : kReductionOps) AddReduction(r, op);
  Add(r,
      OpDefBuilder("ArgMax")
          .Input("input: T")
          .Input("dimension: Tidx")
          .Output("output: output_type")
          .Attr(StrCat("T: {", kRealQuantized, ", bool}"))
          .Attr("Tidx: {int16, int32, int64} = DT_INT32")
          .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64"),
      ArgReductionShape);
  Add(r,
      OpDefBuilder("ArgMin")
          .Input("input: T")
          .Input("dimension: Tidx")
          .Output("output: output_type")
          .Attr(StrCat("T: {", kRealQuantized, ", bool}"))
          .Attr("Tidx: {int32, int64} = DT_INT32")
          .Attr("output_type: {int32, int64} = DT_INT64"),
      ArgReductionShape);
  // Bucketize: the bucket of each element among sorted float boundaries (int32, same shape).
  Add(r,
      OpDefBuilder("Bucketize")
          .Input("input: T")
          .Output("output: int32")
          .Attr("T: {int32, int64, float, double}")
          .Attr("boundaries: list(float)"),
      shape_fns::Unchanged);
  // DenseBincount: counts (or sums of weights) of each value below size, per row of a matrix or
  // over a vector (a scalar counts as a vector): [size] or [rows, size].
  Add(r,
      OpDefBuilder("DenseBincount")
          .Input("input: Tidx")
          .Input("size: Tidx")
          .Input("weights: T")
          .Attr("Tidx: {int32, int64}")
          .Attr("T: {int32, int64, float, double}")
          .Attr("binary_output: bool = false")
          .Output("output: T"),
      [](InferenceContext& c) -> Status {
        PartialShape in;
        GRAFT_RETURN_IF_ERROR(c.WithRankAtMost(0, 2, &in));
        GRAFT_RETURN_IF_ERROR(c.WithScalar(1));
        int64_t size = kUnknownDim;
        if (!c.ConstantInt(1, &size)) size = kUnknownDim;
        if (size != kUnknownDim && size < 0) return errors::InvalidArgument("size (", size, ") must be non-negative");
        if (!in.known_rank()) {
          c.set_output(0, PartialShape::Unknown());
        } else if (in.rank() == 2) {
          c.set_output(0, PartialShape(std::vector<int64_t>{in.dim(0), size}));
        } else {
          c.set_output(0, PartialShape(std::vector<int64_t>{size}));
        }
        return Status::Ok();
      });
}

}  // namespace graft::ops
