// Built-in ops: see builtin_ops.h for the family (registered from RegisterIoOps, io_ops.cc).
//
// The text and ragged ops Keras' TextVectorization, Hashing and StringLookup layers emit:
// StringLower/StringUpper, AsString, StringNGrams, RaggedTensorToTensor, RaggedBincount. None has
// a gradient (TensorFlow registers none).
#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {
namespace {

// StringNGrams(data [n], data_splits [rows + 1]) -> ngrams [?], ngrams_splits (data_splits' shape).
Status StringNGramsShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 1));
  PartialShape splits;
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1, &splits));
  c.set_output(0, PartialShape({kUnknownDim}));
  c.set_output(1, splits);
  return Status::Ok();
}

// RaggedBincount(splits [rows + 1], values, size (scalar), weights) -> [rows, size].
Status RaggedBincountShape(InferenceContext& c) {
  PartialShape splits;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 1, &splits));
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 0));
  int64_t rows = kUnknownDim;
  if (splits.dim(0) != kUnknownDim) rows = splits.dim(0) - 1;
  int64_t size = kUnknownDim;
  if (c.ConstantInt(2, &size) && size < 0) {
    return errors::ShapeError("size (", size, ") must be non-negative");
  }
  c.set_output(0, PartialShape({rows, size}));
  return Status::Ok();
}

// RaggedTensorToTensor(shape, values, default_value, row_partition_tensors) -> the dense tensor:
// rank ragged_rank + values' rank; the given shape's known dims, the values' inner dims.
Status RaggedTensorToTensorShape(InferenceContext& c) {
  std::vector<std::string> types;
  const AttrValue* a = c.attr("row_partition_types");
  if (a != nullptr && a->get<std::vector<std::string>>() != nullptr) types = *a->get<std::vector<std::string>>();
  const int ragged_rank =
      static_cast<int>(types.size()) - (!types.empty() && types[0] == "FIRST_DIM_SIZE" ? 1 : 0);
  const PartialShape& values = c.input(1);
  const PartialShape& shape_in = c.input(0);
  int out_rank = kUnknownRank;
  if (values.known_rank()) {
    if (values.rank() < 1) return errors::ShapeError("values must have rank >= 1, got a scalar");
    out_rank = ragged_rank + values.rank();
  }
  std::vector<int64_t> given;
  if (shape_in.known_rank() && shape_in.rank() == 1) {
    if (!c.ConstantInts(0, &given) && shape_in.dim(0) != kUnknownDim) {
      given.assign(static_cast<size_t>(shape_in.dim(0)), kUnknownDim);
    }
    if (!given.empty() || shape_in.dim(0) == 0) {
      if (out_rank != kUnknownRank && static_cast<int>(given.size()) != out_rank) {
        return errors::ShapeError("rt_input.rank = ", out_rank, " but shape.rank = ", given.size());
      }
      out_rank = static_cast<int>(given.size());
    }
  }
  if (out_rank == kUnknownRank) {
    c.set_output(0, PartialShape::Unknown());
    return Status::Ok();
  }
  std::vector<int64_t> dims(static_cast<size_t>(out_rank), kUnknownDim);
  for (size_t i = 0; i < given.size(); ++i) dims[i] = given[i] < 0 ? kUnknownDim : given[i];
  if (values.known_rank()) {
    for (int i = ragged_rank + 1; i < out_rank; ++i) {
      const int64_t v = values.dim(i - ragged_rank);
      if (v == kUnknownDim) continue;
      if (dims[static_cast<size_t>(i)] != kUnknownDim && dims[static_cast<size_t>(i)] != v) {
        return errors::ShapeError("rt_input.shape[", i, "] = ", v, " but shape[", i, "] = ",
                                  dims[static_cast<size_t>(i)]);
      }
      dims[static_cast<size_t>(i)] = v;
    }
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::Ok();
}

}  // namespace

void RegisterTextOps(OpRegistry& r) {
  // Case mapping: encoding '' (ASCII only) or 'utf-8'.
  Add(r, OpDefBuilder("StringLower").Input("input: string").Output("output: string").Attr("encoding: string = ''"),
      shape_fns::Unchanged);
  Add(r, OpDefBuilder("StringUpper").Input("input: string").Output("output: string").Attr("encoding: string = ''"),
      shape_fns::Unchanged);
  Add(r,
      OpDefBuilder("AsString")
          .Input("input: T")
          .Output("output: string")
          .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, "
                "complex64, complex128, bool, variant, string}")
          .Attr("precision: int = -1")
          .Attr("scientific: bool = false")
          .Attr("shortest: bool = false")
          .Attr("width: int = -1")
          .Attr("fill: string = ''"),
      shape_fns::Unchanged);
  Add(r,
      OpDefBuilder("StringNGrams")
          .Input("data: string")
          .Input("data_splits: Tsplits")
          .Output("ngrams: string")
          .Output("ngrams_splits: Tsplits")
          .Attr("separator: string")
          .Attr("ngram_widths: list(int) >= 0")
          .Attr("left_pad: string")
          .Attr("right_pad: string")
          .Attr("pad_width: int")
          .Attr("preserve_short_sequences: bool")
          .Attr("Tsplits: {int32, int64} = DT_INT64"),
      StringNGramsShape);
  Add(r,
      OpDefBuilder("RaggedTensorToTensor")
          .Input("shape: Tshape")
          .Input("values: T")
          .Input("default_value: T")
          .Input("row_partition_tensors: num_row_partition_tensors * Tindex")
          .Output("result: T")
          .Attr("T: type")
          .Attr("Tindex: {int64, int32}")
          .Attr("Tshape: {int64, int32}")
          .Attr("num_row_partition_tensors: int >= 1")
          .Attr("row_partition_types: list(string)"),
      RaggedTensorToTensorShape);
  Add(r,
      OpDefBuilder("RaggedBincount")
          .Input("splits: int64")
          .Input("values: Tidx")
          .Input("size: Tidx")
          .Input("weights: T")
          .Output("output: T")
          .Attr("Tidx: {int32, int64}")
          .Attr("T: {int32, int64, float, double}")
          .Attr("binary_output: bool = false"),
      RaggedBincountShape);
}

}  // namespace graft::ops
