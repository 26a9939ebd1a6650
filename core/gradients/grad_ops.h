// GradOps: a small op-building helper for gradient functions. It adds ops to a graph through
// Graph::AddNode under the graph's current name scope and keeps the first error: once a call
// fails, later calls add nothing and return Output{} (node nullptr), and status() says what
// failed, so that a gradient function reads as the formula it builds.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/gradients/gradient_context.h"

namespace graft {

class GradOps {
 public:
  explicit GradOps(Graph& g) : g_(g) {}
  explicit GradOps(GradientContext& ctx) : g_(ctx.graph) {}
  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }
  void Fail(Status s) {
    if (status_.ok()) status_ = std::move(s);
  }

  // An op whose arguments are given in order, each a single tensor or a list; nullptr on
  // failure.
  Node* AddOp(const std::string& type, std::vector<NodeSpec::InputArg> args, AttrMap attrs = {});
  // An op of single-tensor arguments; its output 0.
  Output Op(const std::string& type, std::initializer_list<Output> inputs, AttrMap attrs = {});
  // An op whose first argument is the list `list`, then single tensors; its output 0.
  Output ListOp(const std::string& type, const std::vector<Output>& list, std::initializer_list<Output> more,
                AttrMap attrs = {});

  // Constants.
  Output Const(Tensor t);
  Output Scalar(DType dtype, double v);  // a scalar of dtype (float types, complex, integers)
  Output Int32(int32_t v);
  Output Int32s(const std::vector<int64_t>& v);

  // Shapes: constants when statically known, else Shape/Size ops (int32).
  Output Shape(Output x);
  Output Size(Output x);
  Output Rank(Output x);

  // Common math (T inferred from the inputs).
  Output Add(Output a, Output b) { return Op("AddV2", {a, b}); }
  Output Sub(Output a, Output b) { return Op("Sub", {a, b}); }
  Output Mul(Output a, Output b) { return Op("Mul", {a, b}); }
  Output Div(Output a, Output b) { return Op("RealDiv", {a, b}); }
  Output Neg(Output a) { return Op("Neg", {a}); }
  Output Square(Output a) { return Op("Square", {a}); }
  Output Reciprocal(Output a) { return Op("Reciprocal", {a}); }
  Output Conj(Output a) { return a; }  // real types only for now
  Output ZerosLike(Output a) { return Op("ZerosLike", {a}); }
  Output OnesLike(Output a) { return Op("OnesLike", {a}); }
  Output Cast(Output a, DType to);
  Output Reshape(Output x, Output shape) { return Op("Reshape", {x, shape}); }
  Output Sum(Output x, Output axes, bool keep_dims = false);
  Output Transpose(Output x, Output perm) { return Op("Transpose", {x, perm}); }
  Output MatMul(Output a, Output b, bool ta, bool tb);
  Output AddN(const std::vector<Output>& xs);
  Output Select(Output c, Output t, Output e) { return Op("SelectV2", {c, t, e}); }
  Output Fill(Output dims, Output v) { return Op("Fill", {dims, v}); }

  // The gradient g of a broadcasting op's result, summed over the axes along which x was
  // broadcast and reshaped to x's shape (TensorFlow's BroadcastGradientArgs + Sum + Reshape;
  // folded to nothing when the static shapes match). `other` is the op's other input.
  std::pair<Output, Output> BroadcastGrads(Output gx, Output gy, Output x, Output y);

 private:
  Graph& g_;
  Status status_;
};

// The dense tensor that rows stand for: UnsortedSegmentSum(values, indices, dense_shape[0])
// (a static shape when dense_shape is a constant).
Output DenseFromSlices(GradOps& b, const IndexedSlicesGrad& s);

// How node's flat inputs split into its op's input arguments: per argument, the number of
// tensors and whether it is a list (from the op definition and the node's attrs).
Status InputArgSizes(const Node& node, std::vector<std::pair<size_t, bool>>* out);

// The integer values of t when it is a Const op's output (int32 or int64).
bool ConstInts(const Output& t, std::vector<int64_t>* values);

// The static shape of t when it is fully known.
std::optional<std::vector<int64_t>> StaticShape(const Output& t);

}  // namespace graft
