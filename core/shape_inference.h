// Shape inference: InferenceContext is what an op's shape function sees while a node is being
// created — its input shapes and dtypes, constant input values where they are known, its
// attributes — and where it puts the output shapes; RunShapeFn runs a node's shape function
// over it. Shape functions work on partial shapes.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/attr_value.h"
#include "core/op_def.h"
#include "core/partial_shape.h"
#include "core/status.h"

namespace graft {

struct NodeSignature;   // node_signature.h
struct OpRegistration;  // op_registry.h (which includes this header)

class InferenceContext {
 public:
  InferenceContext(const OpDef& def, const AttrMap& attrs, std::vector<DType> input_types,
                   std::vector<PartialShape> input_shapes, std::vector<const Tensor*> input_values,
                   std::vector<DType> output_types);

  const OpDef& op_def() const { return def_; }
  int num_inputs() const { return static_cast<int>(input_shapes_.size()); }
  int num_outputs() const { return static_cast<int>(output_shapes_.size()); }
  const PartialShape& input(int i) const { return input_shapes_[static_cast<size_t>(i)]; }
  DType input_type(int i) const { return input_types_[static_cast<size_t>(i)]; }
  DType output_type(int i) const { return output_types_[static_cast<size_t>(i)]; }
  // The input's value when it is known while building (a Const, or a Shape of a known shape);
  // nullptr otherwise.
  const Tensor* input_value(int i) const { return input_values_[static_cast<size_t>(i)]; }
  // The range [*start, *end) of flat input/output indices that the argument of this name has.
  Status InputRange(std::string_view arg_name, int* start, int* end) const;
  Status OutputRange(std::string_view arg_name, int* start, int* end) const;

  const AttrValue* attr(std::string_view name) const;
  Status GetAttr(std::string_view name, int64_t* out) const;
  Status GetAttr(std::string_view name, float* out) const;
  Status GetAttr(std::string_view name, bool* out) const;
  Status GetAttr(std::string_view name, DType* out) const;
  Status GetAttr(std::string_view name, std::string* out) const;
  Status GetAttr(std::string_view name, PartialShape* out) const;
  Status GetAttr(std::string_view name, std::vector<int64_t>* out) const;
  Status GetAttr(std::string_view name, std::vector<DType>* out) const;
  Status GetAttr(std::string_view name, std::vector<PartialShape>* out) const;
  Status GetAttr(std::string_view name, const Tensor** out) const;

  // Reads input i, an int32/int64 vector, as a shape: its value when known (-1 entries are
  // unknown dims); otherwise a shape of rank = the vector's length with unknown dims, or of
  // unknown rank.
  Status InputAsShape(int i, PartialShape* out) const;
  // Reads input i, an int32/int64 scalar, when its value is known.
  bool InputScalar(int i, int64_t* out) const;
  // Input i's elements when its value is known and of an integer dtype of any width (uint64
  // values above int64's range count as unknown); false otherwise.
  bool ConstantInts(int i, std::vector<int64_t>* out) const;
  // Input i's value as one integer (a scalar or a one-element tensor), when known.
  bool ConstantInt(int i, int64_t* out) const;

  // The one way a shape function checks an input's rank. An unknown rank passes; a known rank
  // that breaks the rule is a kShape error naming the op, the input (index and argument name),
  // the rank wanted and the shape it has. `out`, when given, gets the input's shape merged
  // with the rule (an unknown rank becomes `rank` unknown dims for WithRank).
  Status WithRank(int i, int rank, PartialShape* out = nullptr) const;
  Status WithRankAtLeast(int i, int rank, PartialShape* out = nullptr) const;
  Status WithRankAtMost(int i, int rank, PartialShape* out = nullptr) const;
  Status WithScalar(int i) const { return WithRank(i, 0); }
  // "input 'paddings'" (list arguments: "input 'values'[1]"), for messages.
  std::string InputName(int i) const;

  void set_output(int i, PartialShape shape) { output_shapes_[static_cast<size_t>(i)] = std::move(shape); }
  const PartialShape& output(int i) const { return output_shapes_[static_cast<size_t>(i)]; }
  std::vector<PartialShape>& outputs() { return output_shapes_; }

 private:
  std::string RankCheckSubject(int i) const;
  enum class RankCheck { kExactly, kAtLeast, kAtMost };
  Status CheckRank(int i, RankCheck check, int rank, PartialShape* out) const;

  const OpDef& def_;
  const AttrMap& attrs_;
  std::vector<DType> input_types_;
  std::vector<PartialShape> input_shapes_;
  std::vector<const Tensor*> input_values_;
  std::vector<DType> output_types_;
  std::vector<PartialShape> output_shapes_;
};

using ShapeFn = std::function<Status(InferenceContext&)>;

// Reads the int32/int64 elements of a tensor.
Status TensorToInt64s(const Tensor& t, std::vector<int64_t>* out);

// Runs the op's shape function (or makes every output unknown without one). Errors come
// back prefixed with the op type and node name.
struct ShapeFnInput {
  PartialShape shape;
  const Tensor* value = nullptr;  // the input's value when known while building
};
Status RunShapeFn(const OpRegistration& reg, std::string_view node_name, const AttrMap& attrs,
                  const NodeSignature& sig, const std::vector<ShapeFnInput>& inputs,
                  std::vector<PartialShape>* out);

}  // namespace graft
