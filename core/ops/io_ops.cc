// Built-in ops: see builtin_ops.h for the family.
//
// Checkpoints (SaveV2/RestoreV2/MergeV2Checkpoints/ShardedFilename/ShardedFilespec), strings
// (StringJoin, the regex ops, StringFormat, hashing into buckets, StringSplit(V2); the text and
// ragged ops from text_ops.cc), logging (PrintV2, Assert) and tf.Example parsing.
#include <charconv>

#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {
namespace {

// Requires the length of vector input i (known rank 1) to be n when it is known.
Status RequireLength(const InferenceContext& c, int i, const PartialShape& vec, int64_t n) {
  if (vec.known_rank() && vec.dim(0) != kUnknownDim && vec.dim(0) != n) {
    return errors::ShapeError(c.op_def().inputs[static_cast<size_t>(i)].name, " has ", vec.dim(0),
                              " elements, but dtypes has ", n);
  }
  return Status::Ok();
}

std::vector<std::string_view> Split(std::string_view s, char sep, bool skip_empty) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    std::string_view part = s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start);
    if (!skip_empty || !part.empty()) parts.push_back(part);
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// The shape of the slice a checkpoint "shape_and_slice" string selects: "d0 d1 ... slice",
// the variable's full dimensions then a slice spec of one extent per dimension, separated by
// ':', each "-" (the whole dimension) or "start,length".
Status ShapeOfSlice(std::string_view spec, PartialShape* out) {
  auto bad = [&](auto... why) { return errors::InvalidArgument("shape_and_slice '", spec, "': ", why...); };
  std::vector<std::string_view> parts = Split(spec, ' ', false);
  if (parts.size() < 2) return bad("expected the full shape followed by a slice spec");
  std::string_view slice = parts.back();
  parts.pop_back();
  std::vector<int64_t> dims;
  for (std::string_view p : parts) {
    int64_t d;
    if (!ParseInt64(p, &d) || d < 0) return bad("'", p, "' is not a dimension");
    dims.push_back(d);
  }
  std::vector<std::string_view> extents = Split(slice, ':', true);
  if (extents.size() != dims.size()) {
    return bad("the slice has ", extents.size(), " extents, but the shape has ", dims.size(), " dimensions");
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    if (extents[d] == "-") continue;
    std::vector<std::string_view> sl = Split(extents[d], ',', true);
    int64_t start, length;
    if (sl.size() != 2 || !ParseInt64(sl[0], &start) || !ParseInt64(sl[1], &length)) {
      return bad("extent '", extents[d], "' is neither '-' nor 'start,length'");
    }
    if (start < 0 || length <= 0) return bad("extent '", extents[d], "' needs start >= 0 and length > 0");
    if (start > dims[d] || length > dims[d] - start) {
      return bad("extent '", extents[d], "' goes past dimension ", d, " of size ", dims[d]);
    }
    dims[d] = length;
  }
  *out = PartialShape(std::move(dims));
  return Status::Ok();
}

// RestoreV2(prefix, tensor_names, shape_and_slices) -> tensors: dtypes.
Status RestoreV2Shape(InferenceContext& c) {
  PartialShape names, slices;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 0));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1, &names));
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 1, &slices));
  GRAFT_RETURN_IF_ERROR(RequireLength(c, 1, names, c.num_outputs()));
  GRAFT_RETURN_IF_ERROR(RequireLength(c, 2, slices, c.num_outputs()));
  const Tensor* value = c.input_value(2);
  if (value == nullptr) return shape_fns::Unknown(c);
  if (value->dtype() != DType::kString) {
    return errors::InvalidArgument("shape_and_slices must be a string tensor, but is ", DTypeName(value->dtype()));
  }
  const std::vector<std::string>& specs = value->strings();
  if (static_cast<int64_t>(specs.size()) != c.num_outputs()) {
    return errors::InvalidArgument("shape_and_slices has ", specs.size(), " entries, but dtypes has ",
                                   c.num_outputs());
  }
  for (int i = 0; i < c.num_outputs(); ++i) {
    const std::string& spec = specs[static_cast<size_t>(i)];
    PartialShape s;  // an empty spec restores the whole tensor, of a shape unknown here
    if (!spec.empty()) GRAFT_RETURN_IF_ERROR(ShapeOfSlice(spec, &s));
    c.set_output(i, std::move(s));
  }
  return Status::Ok();
}

// SaveV2(prefix, tensor_names, shape_and_slices, tensors: dtypes).
Status SaveV2Shape(InferenceContext& c) {
  PartialShape names, slices;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 0));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1, &names));
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 1, &slices));
  GRAFT_RETURN_IF_ERROR(RequireLength(c, 1, names, c.num_inputs() - 3));
  GRAFT_RETURN_IF_ERROR(RequireLength(c, 2, slices, c.num_inputs() - 3));
  return Status::Ok();
}

// StringSplit(V2): a vector input and a scalar separator; the number of tokens is known at run
// time only.
Status StringSplitShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 1));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 0));
  c.set_output(0, PartialShape(std::vector<int64_t>{kUnknownDim, 2}));
  c.set_output(1, PartialShape(std::vector<int64_t>{kUnknownDim}));
  c.set_output(2, PartialShape(std::vector<int64_t>{2}));
  return Status::Ok();
}

// StringJoin: non-scalar inputs must agree; scalars broadcast. An input of unknown rank may
// be a scalar or of the output's shape, so it adds nothing.
Status StringJoinShape(InferenceContext& c) {
  bool all_scalar = true;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.input(i).rank() != 0) all_scalar = false;
  }
  if (all_scalar) return shape_fns::Scalar(c);
  PartialShape out = PartialShape::Unknown();
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input(i);
    if (!s.known_rank() || s.rank() == 0) continue;
    PartialShape merged;
    if (!out.MergeWith(s, &merged).ok()) {
      return errors::ShapeError("inputs must be scalars or all of one shape, but input ", i, " has shape ",
                                s.ToString(), " and an earlier input ", out.ToString());
    }
    out = std::move(merged);
  }
  c.set_output(0, std::move(out));
  return Status::Ok();
}

// RegexFullMatch, RegexReplace: inputs after the first (pattern, rewrite) are scalars.
Status RegexShape(InferenceContext& c) {
  for (int i = 1; i < c.num_inputs(); ++i) GRAFT_RETURN_IF_ERROR(c.WithRank(i, 0));
  return shape_fns::Unchanged(c);
}

// The number of non-overlapping occurrences of placeholder in text (as splitting text at
// placeholder counts them; an empty placeholder splits between characters).
int64_t CountPlaceholders(const std::string& text, const std::string& placeholder) {
  if (placeholder.empty()) return text.empty() ? 0 : static_cast<int64_t>(text.size()) - 1;
  int64_t n = 0;
  for (size_t pos = text.find(placeholder); pos != std::string::npos;
       pos = text.find(placeholder, pos + placeholder.size())) {
    ++n;
  }
  return n;
}

Status StringFormatShape(InferenceContext& c) {
  std::string tmpl, placeholder;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("template", &tmpl));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("placeholder", &placeholder));
  int64_t n = CountPlaceholders(tmpl, placeholder);
  if (n != c.num_inputs()) {
    return errors::InvalidArgument("template has ", n, " placeholders '", placeholder, "', but ", c.num_inputs(),
                                   " inputs were given");
  }
  c.set_output(0, PartialShape::Scalar());
  return Status::Ok();
}

// Checks dense_shapes against the dense features: one shape per feature, each of known rank
// with only its first dimension possibly unknown (a variable-length feature).
Status CheckDenseShapes(const std::vector<PartialShape>& dense_shapes, size_t num_dense) {
  if (dense_shapes.size() != num_dense) {
    return errors::InvalidArgument("dense_shapes has ", dense_shapes.size(), " shapes, but there are ", num_dense,
                                   " dense features");
  }
  for (size_t i = 0; i < dense_shapes.size(); ++i) {
    const PartialShape& s = dense_shapes[i];
    bool ok = s.known_rank();
    for (int d = 1; ok && d < s.rank(); ++d) ok = s.dim(d) != kUnknownDim;
    if (!ok) {
      return errors::InvalidArgument("dense_shapes[", i, "] is ", s.ToString(),
                                     ", but must have a known rank, with only the first dimension unknown");
    }
  }
  return Status::Ok();
}

// Sets the sparse and dense outputs of ParseExample(V2) for a batch of the shape `batch`.
Status SetParseExampleOutputs(InferenceContext& c, const PartialShape& batch,
                              const std::vector<PartialShape>& dense_shapes) {
  int64_t sparse_rank = batch.known_rank() ? batch.rank() + 1 : kUnknownDim;
  int start, end;
  GRAFT_RETURN_IF_ERROR(c.OutputRange("sparse_indices", &start, &end));
  for (int i = start; i < end; ++i) c.set_output(i, PartialShape({kUnknownDim, sparse_rank}));
  GRAFT_RETURN_IF_ERROR(c.OutputRange("sparse_values", &start, &end));
  for (int i = start; i < end; ++i) c.set_output(i, PartialShape({kUnknownDim}));
  GRAFT_RETURN_IF_ERROR(c.OutputRange("sparse_shapes", &start, &end));
  for (int i = start; i < end; ++i) c.set_output(i, PartialShape({sparse_rank}));
  GRAFT_RETURN_IF_ERROR(c.OutputRange("dense_values", &start, &end));
  for (int i = start; i < end; ++i) {
    c.set_output(i, batch.Concatenate(dense_shapes[static_cast<size_t>(i - start)]));
  }
  return Status::Ok();
}

Status ParseExampleShape(InferenceContext& c) {
  int64_t num_sparse = 0, num_dense = 0;
  std::vector<DType> sparse_types, dense_types;
  std::vector<PartialShape> dense_shapes;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("Nsparse", &num_sparse));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("Ndense", &num_dense));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("sparse_types", &sparse_types));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("Tdense", &dense_types));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("dense_shapes", &dense_shapes));
  if (static_cast<int64_t>(sparse_types.size()) != num_sparse) {
    return errors::InvalidArgument("there are ", num_sparse, " sparse_keys but ", sparse_types.size(),
                                   " sparse_types");
  }
  if (static_cast<int64_t>(dense_types.size()) != num_dense) {
    return errors::InvalidArgument("there are ", num_dense, " dense_keys but ", dense_types.size(),
                                   " dense_defaults");
  }
  GRAFT_RETURN_IF_ERROR(CheckDenseShapes(dense_shapes, static_cast<size_t>(num_dense)));
  PartialShape batch;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 1, &batch));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1));
  return SetParseExampleOutputs(c, batch, dense_shapes);
}

Status ParseExampleV2Shape(InferenceContext& c) {
  int64_t num_sparse = 0;
  std::vector<DType> sparse_types, dense_types, ragged_value_types, ragged_split_types;
  std::vector<PartialShape> dense_shapes;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("num_sparse", &num_sparse));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("sparse_types", &sparse_types));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("Tdense", &dense_types));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("ragged_value_types", &ragged_value_types));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("ragged_split_types", &ragged_split_types));
  GRAFT_RETURN_IF_ERROR(c.GetAttr("dense_shapes", &dense_shapes));
  if (static_cast<int64_t>(sparse_types.size()) != num_sparse) {
    return errors::InvalidArgument("num_sparse is ", num_sparse, " but there are ", sparse_types.size(),
                                   " sparse_types");
  }
  GRAFT_RETURN_IF_ERROR(CheckDenseShapes(dense_shapes, dense_types.size()));
  if (ragged_value_types.size() != ragged_split_types.size()) {
    return errors::InvalidArgument("there are ", ragged_value_types.size(), " ragged_value_types but ",
                                   ragged_split_types.size(), " ragged_split_types");
  }
  PartialShape batch, unused;
  GRAFT_RETURN_IF_ERROR(c.WithRankAtMost(0, 1, &batch));
  GRAFT_RETURN_IF_ERROR(c.WithRankAtMost(1, 1, &unused));
  GRAFT_RETURN_IF_ERROR(SetParseExampleOutputs(c, batch, dense_shapes));
  // Row splits have one more entry than there are examples (known for a vector batch).
  int64_t num_splits = kUnknownDim;
  if (batch.known_rank() && batch.rank() == 1 && batch.dim(0) != kUnknownDim) num_splits = batch.dim(0) + 1;
  int start, end;
  GRAFT_RETURN_IF_ERROR(c.OutputRange("ragged_values", &start, &end));
  for (int i = start; i < end; ++i) c.set_output(i, PartialShape({kUnknownDim}));
  GRAFT_RETURN_IF_ERROR(c.OutputRange("ragged_row_splits", &start, &end));
  for (int i = start; i < end; ++i) c.set_output(i, PartialShape({num_splits}));
  return Status::Ok();
}

}  // namespace

// text_ops.cc: the text and ragged ops of Keras' TextVectorization (StringLower/Upper, AsString,
// StringNGrams, RaggedTensorToTensor, RaggedBincount).
void RegisterTextOps(OpRegistry& r);

void RegisterIoOps(OpRegistry& r) {
  RegisterTextOps(r);
  // --- Checkpoints ---
  Add(r,
      OpDefBuilder("RestoreV2")
          .Input("prefix: string")
          .Input("tensor_names: string")
          .Input("shape_and_slices: string")
          .Output("tensors: dtypes")
          .Attr("dtypes: list(type) >= 1")
          .SetIsStateful(),
      RestoreV2Shape);
  Add(r,
      OpDefBuilder("SaveV2")
          .Input("prefix: string")
          .Input("tensor_names: string")
          .Input("shape_and_slices: string")
          .Input("tensors: dtypes")
          .Attr("dtypes: list(type) >= 1")
          .SetIsStateful(),
      SaveV2Shape);
  Add(r,
      OpDefBuilder("MergeV2Checkpoints")
          .Input("checkpoint_prefixes: string")
          .Input("destination_prefix: string")
          .Attr("delete_old_dirs: bool = true")
          .Attr("allow_missing_files: bool = false")
          .SetIsStateful(),
      [](InferenceContext& c) -> Status {
        GRAFT_RETURN_IF_ERROR(c.WithRank(0, 1));
        return c.WithRank(1, 0);
      });
  Add(r,
      OpDefBuilder("ShardedFilename")
          .Input("basename: string")
          .Input("shard: int32")
          .Input("num_shards: int32")
          .Output("filename: string"),
      [](InferenceContext& c) -> Status {
        for (int i = 0; i < 3; ++i) GRAFT_RETURN_IF_ERROR(c.WithRank(i, 0));
        c.set_output(0, PartialShape::Scalar());
        return Status::Ok();
      });
  Add(r,
      OpDefBuilder("ShardedFilespec").Input("basename: string").Input("num_shards: int32").Output("filename: string"),
      [](InferenceContext& c) -> Status {
        for (int i = 0; i < 2; ++i) GRAFT_RETURN_IF_ERROR(c.WithRank(i, 0));
        c.set_output(0, PartialShape::Scalar());
        return Status::Ok();
      });

  // --- Whole files ---
  Add(r, OpDefBuilder("ReadFile").Input("filename: string").Output("contents: string"),
      [](InferenceContext& c) -> Status {
        GRAFT_RETURN_IF_ERROR(c.WithRank(0, 0));
        c.set_output(0, PartialShape::Scalar());
        return Status::Ok();
      });
  Add(r, OpDefBuilder("WriteFile").Input("filename: string").Input("contents: string").SetIsStateful(),
      [](InferenceContext& c) -> Status {
        for (int i = 0; i < 2; ++i) GRAFT_RETURN_IF_ERROR(c.WithRank(i, 0));
        return Status::Ok();
      });

  // --- Strings and logging ---
  Add(r,
      OpDefBuilder("StringJoin").Input("inputs: N * string").Output("output: string").Attr("N: int >= 0").Attr(
          "separator: string = ''"),
      StringJoinShape);
  // Strings hashed into num_buckets buckets: the output has the input's shape.
  Add(r,
      OpDefBuilder("StringToHashBucketFast").Input("input: string").Output("output: int64").Attr(
          "num_buckets: int >= 1"),
      shape_fns::Unchanged);
  Add(r,
      OpDefBuilder("StringToHashBucketStrong")
          .Input("input: string")
          .Output("output: int64")
          .Attr("num_buckets: int >= 1")
          .Attr("key: list(int)"),
      shape_fns::Unchanged);
  Add(r,
      OpDefBuilder("StringToHashBucket").Input("string_tensor: string").Output("output: int64").Attr(
          "num_buckets: int >= 1"),
      shape_fns::Unchanged);
  // A vector of strings split into tokens: a SparseTensor's indices [n, 2], values [n] and
  // dense_shape [2].
  Add(r,
      OpDefBuilder("StringSplitV2")
          .Input("input: string")
          .Input("sep: string")
          .Output("indices: int64")
          .Output("values: string")
          .Output("shape: int64")
          .Attr("maxsplit: int = -1"),
      StringSplitShape);
  Add(r,
      OpDefBuilder("StringSplit")
          .Input("input: string")
          .Input("delimiter: string")
          .Output("indices: int64")
          .Output("values: string")
          .Output("shape: int64")
          .Attr("skip_empty: bool = true"),
      StringSplitShape);
  // The regex ops (RE2 syntax): the output has the input's shape; a pattern or rewrite given
  // as an input must be a scalar.
  Add(r, OpDefBuilder("StaticRegexFullMatch").Input("input: string").Attr("pattern: string").Output("output: bool"),
      shape_fns::Unchanged);
  Add(r, OpDefBuilder("RegexFullMatch").Input("input: string").Input("pattern: string").Output("output: bool"),
      RegexShape);
  Add(r,
      OpDefBuilder("StaticRegexReplace")
          .Input("input: string")
          .Attr("pattern: string")
          .Attr("rewrite: string")
          .Output("output: string")
          .Attr("replace_global: bool = true"),
      shape_fns::Unchanged);
  Add(r,
      OpDefBuilder("RegexReplace")
          .Input("input: string")
          .Input("pattern: string")
          .Input("rewrite: string")
          .Output("output: string")
          .Attr("replace_global: bool = true"),
      RegexShape);
  Add(r,
      OpDefBuilder("StringFormat")
          .Input("inputs: T")
          .Output("output: string")
          .Attr("T: list(type) >= 0")
          .Attr("template: string = '%s'")
          .Attr("placeholder: string = '%s'")
          .Attr("summarize: int = 3"),
      StringFormatShape);
  Add(r,
      OpDefBuilder("PrintV2")
          .Input("input: string")
          .Attr("output_stream: string = 'stderr'")
          .Attr("end: string = '\n'")
          .SetIsStateful(),
      [](InferenceContext& c) { return c.WithRank(0, 0); });
  // The kernel checks the condition; the shape function checks nothing.
  Add(r,
      OpDefBuilder("Assert")
          .Input("condition: bool")
          .Input("data: T")
          .Attr("T: list(type) >= 1")
          .Attr("summarize: int = 3")
          .SetIsStateful(),
      shape_fns::NoOutputs);

  // --- tf.Example parsing ---
  Add(r,
      OpDefBuilder("ParseExample")
          .Input("serialized: string")
          .Input("names: string")
          .Input("sparse_keys: Nsparse * string")
          .Input("dense_keys: Ndense * string")
          .Input("dense_defaults: Tdense")
          .Output("sparse_indices: Nsparse * int64")
          .Output("sparse_values: sparse_types")
          .Output("sparse_shapes: Nsparse * int64")
          .Output("dense_values: Tdense")
          .Attr("Nsparse: int >= 0")
          .Attr("Ndense: int >= 0")
          .Attr("sparse_types: list({float, int64, string}) >= 0")
          .Attr("Tdense: list({float, int64, string}) >= 0")
          .Attr("dense_shapes: list(shape) >= 0"),
      ParseExampleShape);
  Add(r,
      OpDefBuilder("ParseExampleV2")
          .Input("serialized: string")
          .Input("names: string")
          .Input("sparse_keys: string")
          .Input("dense_keys: string")
          .Input("ragged_keys: string")
          .Input("dense_defaults: Tdense")
          .Output("sparse_indices: num_sparse * int64")
          .Output("sparse_values: sparse_types")
          .Output("sparse_shapes: num_sparse * int64")
          .Output("dense_values: Tdense")
          .Output("ragged_values: ragged_value_types")
          .Output("ragged_row_splits: ragged_split_types")
          .Attr("Tdense: list({float, int64, string}) >= 0")
          .Attr("num_sparse: int >= 0")
          .Attr("sparse_types: list({float, int64, string}) >= 0")
          .Attr("ragged_value_types: list({float, int64, string}) >= 0")
          .Attr("ragged_split_types: list({int32, int64}) >= 0")
          .Attr("dense_shapes: list(shape) >= 0"),
      ParseExampleV2Shape);
}

}  // namespace graft::ops
