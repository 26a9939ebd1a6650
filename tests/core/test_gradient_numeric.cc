// Numeric check of the built-in gradient functions (issue #16): for each case of the table
// below (an op type, its inputs — random floats from a domain the op is smooth on, or
// constants — and its attrs), the loss L = Σ_k Σ W_k · output_k (random weights W_k) is
// differentiated with AddGradients and compared with central differences of L in every
// element of every float input (float64; float32 with looser tolerances where the op has no
// float64 kernel). Cases marked `second` also check second derivatives: the gradient of
// L' = Σ_i Σ W'_i · dL/dx_i against central differences of L'.
//
// Every op type with a registered gradient function must have a case, or be listed in
// kNotChecked with the reason; the test fails otherwise, so a new gradient function comes
// with its check.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "c_api/src/composition_root.h"
#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_builder.h"
#include "core/graph.h"
#include "core/op_registry.h"
#include "core/runtime/session.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h>
}

namespace graft {
namespace {

// Where a float input's random values come from.
enum class Gen {
  kNormal,    // uniform in (-1.5, 1.5)
  kPositive,  // (0.3, 2)
  kUnit,      // (-0.8, 0.8)
  kAway,      // ±(0.2, 1.5): away from the kinks at 0
  kAbove1,    // (1.3, 3)
  kDistinct,  // a shuffled grid 0.3 apart: no ties for max/min
  kOneZero,   // kAway with element 1 exactly 0
  kTwoZeros,  // kAway with elements 0 and 1 exactly 0
};

struct In {
  std::vector<int64_t> shape;
  Gen gen = Gen::kNormal;
  bool constant = false;  // a Const input (integers, bools, fixed floats): not differentiated
  Tensor value;
};

In F(std::vector<int64_t> shape, Gen gen = Gen::kNormal) { return In{std::move(shape), gen, false, {}}; }

template <typename T>
In Const(DType dt, std::vector<int64_t> shape, std::vector<T> v) {
  In in;
  in.constant = true;
  in.shape = shape;
  assert_true(Tensor::Allocate(dt, shape, &in.value).ok());
  std::copy(v.begin(), v.end(), in.value.data<T>());
  return in;
}
In I32(std::vector<int32_t> v) { return Const<int32_t>(DType::kInt32, {static_cast<int64_t>(v.size())}, v); }
In I32Scalar(int32_t v) { return Const<int32_t>(DType::kInt32, {}, {v}); }
In I32Shaped(std::vector<int64_t> shape, std::vector<int32_t> v) { return Const<int32_t>(DType::kInt32, shape, v); }
In Bools(std::vector<int64_t> shape, std::vector<uint8_t> v) {
  In in;
  in.constant = true;
  in.shape = shape;
  assert_true(Tensor::Allocate(DType::kBool, shape, &in.value).ok());
  std::copy(v.begin(), v.end(), in.value.data<bool>());
  return in;
}

struct Case {
  Case(std::string type, std::vector<In> inputs, AttrMap attr_map = {}, bool second_order = false, int list_len = 0)
      : op(std::move(type)), in(std::move(inputs)), attrs(std::move(attr_map)), second(second_order), list(list_len) {}
  std::string op;
  std::vector<In> in;
  AttrMap attrs;
  bool second = false;        // check second derivatives too
  int list = 0;               // the first `list` inputs form the op's list argument
  std::vector<int> outputs;   // the outputs in the loss (empty: every float output)
  bool f32 = false;           // float32 (the op has no float64 kernel)
};

// Ops with a gradient function that the table does not check, and why.
// Ops whose inputs cannot be perturbed here (resources, functions, control-flow frames): each is
// checked where its inputs can be built, against TensorFlow's values or a closed form.
const std::map<std::string, std::string> kNotChecked = {
    {"ReadVariableOp", "its input is a resource handle; tests/c_api/test_tape.c and test_gradient_tape.py"},
    {"ResourceGather", "its input is a resource handle; tests/c_api/test_kernels_sparse.c"},
    {"PartitionedCall", "takes a function attr; test_tape.c (function under a tape) and the call conformance cases"},
    {"StatefulPartitionedCall", "takes a function attr; test_tape.c and the saved-model gradient cases"},
    {"If", "branches are functions; test_control_flow_gradients.c (values and second derivatives)"},
    {"StatelessIf", "branches are functions; test_control_flow_gradients.c"},
    {"While", "body is a function; test_control_flow_gradients.c and the while_power_v2 case"},
    {"StatelessWhile", "body is a function; test_control_flow_gradients.c"},
    {"Switch", "needs a TF1 frame around it; test_control_flow_gradients.c and the cond_v1 case"},
    {"Merge", "needs a TF1 frame around it; test_control_flow_gradients.c and the cond_v1 case"},
    {"EagerPyFunc", "calls a host function; test_function.c (host function gradients) and test_py_function.py"},
};

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::IntList(std::move(v)); }
AttrValue Str(const char* s) { return AttrValue::String(s); }
AttrValue B(bool v) { return AttrValue::Bool(v); }

std::vector<Case> Table() {
  std::vector<Case> t;
  // Unary math and activations, on two shapes each, second derivatives included.
  const std::vector<std::pair<const char*, Gen>> unary = {
      {"Neg", Gen::kNormal},      {"Abs", Gen::kAway},       {"Sign", Gen::kAway},       {"Square", Gen::kNormal},
      {"Sqrt", Gen::kPositive},   {"Rsqrt", Gen::kPositive}, {"Reciprocal", Gen::kAway}, {"Exp", Gen::kNormal},
      {"Expm1", Gen::kNormal},    {"Log", Gen::kPositive},   {"Log1p", Gen::kPositive},  {"Sin", Gen::kNormal},
      {"Cos", Gen::kNormal},      {"Tan", Gen::kUnit},       {"Asin", Gen::kUnit},       {"Acos", Gen::kUnit},
      {"Atan", Gen::kNormal},     {"Sinh", Gen::kNormal},    {"Cosh", Gen::kNormal},     {"Asinh", Gen::kNormal},
      {"Acosh", Gen::kAbove1},    {"Atanh", Gen::kUnit},     {"Tanh", Gen::kNormal},     {"Sigmoid", Gen::kNormal},
      {"Erf", Gen::kNormal},      {"Erfc", Gen::kNormal},      {"Identity", Gen::kNormal}, {"Snapshot", Gen::kNormal}, {"Relu", Gen::kAway},
      {"Relu6", Gen::kAway},      {"Elu", Gen::kAway},       {"Selu", Gen::kAway},       {"Softplus", Gen::kNormal},
      {"Softsign", Gen::kAway},   {"LeakyRelu", Gen::kAway}, {"Softmax", Gen::kNormal},  {"LogSoftmax", Gen::kNormal},
      {"L2Loss", Gen::kNormal},
  };
  for (const auto& [op, gen] : unary) {
    t.push_back({op, {F({2, 3}, gen)}, {}, true});
    t.push_back({op, {F({4}, gen)}, {}, true});
  }
  {
    Case c{"Cast", {F({2, 3})}, {{"DstT", AttrValue::Type(DType::kFloat64)}}};
    c.f32 = true;  // float32 → float64: exact, so the float32 steps are too
    t.push_back(std::move(c));
  }
  t.push_back({"PlaceholderWithDefault", {F({2, 3})}, {{"shape", AttrValue::Shape(PartialShape({2, 3}))}}});
  // The activations' gradient ops (second derivatives of the activations).
  t.push_back({"ReluGrad", {F({2, 3}), F({2, 3}, Gen::kAway)}, {}, true});
  t.push_back({"Relu6Grad", {F({2, 3}), F({2, 3}, Gen::kAway)}, {}, true});
  t.push_back({"SigmoidGrad", {F({2, 3}, Gen::kUnit), F({2, 3})}, {}, true});
  t.push_back({"TanhGrad", {F({2, 3}, Gen::kUnit), F({2, 3})}, {}, true});
  t.push_back({"BiasAddGrad", {F({2, 2, 3})}, {}, true});
  t.push_back({"BiasAddGrad", {F({2, 3, 2})}, {{"data_format", Str("NCHW")}}});

  // Binary math: equal shapes, and broadcasting both ways.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{2, 1}, {1, 3}}, {{}, {2, 2}}};
  const std::vector<std::tuple<const char*, Gen, Gen>> binary = {
      {"Add", Gen::kNormal, Gen::kNormal},     {"AddV2", Gen::kNormal, Gen::kNormal},
      {"Sub", Gen::kNormal, Gen::kNormal},     {"Mul", Gen::kNormal, Gen::kNormal},
      {"Div", Gen::kNormal, Gen::kAway},       {"RealDiv", Gen::kNormal, Gen::kAway},
      {"DivNoNan", Gen::kNormal, Gen::kAway},  {"Pow", Gen::kPositive, Gen::kNormal},
      {"Maximum", Gen::kAway, Gen::kNormal},   {"Minimum", Gen::kAway, Gen::kNormal},
      {"SquaredDifference", Gen::kNormal, Gen::kNormal}, {"Atan2", Gen::kNormal, Gen::kAway},
  };
  for (const auto& [op, gx, gy] : binary) {
    for (const auto& [sx, sy] : shapes) t.push_back({op, {F(sx, gx), F(sy, gy)}, {}, true});
  }
  t.push_back({"AddN", {F({2, 3}), F({2, 3}), F({2, 3})}, {}, true, 3});
  t.push_back({"Select", {Bools({2, 3}, {1, 0, 0, 1, 1, 0}), F({2, 3}), F({2, 3})}});
  t.push_back({"SelectV2", {Bools({2, 1}, {1, 0}), F({2, 3}), F({3})}});
  t.push_back({"SelectV2", {Bools({3}, {0, 1, 1}), F({}), F({2, 3})}});

  // Reductions.
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    const Gen gen = std::string(op) == "Prod" ? Gen::kAway : Gen::kDistinct;
    t.push_back({op, {F({2, 3}, gen), I32({1})}, {}, true});
    t.push_back({op, {F({2, 3, 2}, gen), I32({0, 2})}, {{"keep_dims", B(true)}}, true});
    t.push_back({op, {F({3, 2}, gen), I32({-1, 0})}, {}, true});
    t.push_back({op, {F({2, 2}, gen), Const<int64_t>(DType::kInt64, {2}, {0, 1})}, {{"keep_dims", B(true)}}});
  }
  // Prod where a group has one zero, or two (products of the other elements, not y / x).
  t.push_back({"Prod", {F({2, 3}, Gen::kOneZero), I32({1})}, {}, true});
  t.push_back({"Prod", {F({2, 3}, Gen::kTwoZeros), I32({1})}});
  t.push_back({"Prod", {F({2, 3}, Gen::kTwoZeros), I32({0})}, {}, true});

  // Einsum.
  auto einsum = [&t](const char* eq, std::vector<std::vector<int64_t>> dims, bool second = true) {
    Case c{"Einsum", {}, {{"equation", Str(eq)}}, second, static_cast<int>(dims.size())};
    for (auto& s : dims) c.in.push_back(F(s));
    t.push_back(std::move(c));
  };
  einsum("ij,jk->ik", {{2, 3}, {3, 4}});
  einsum("bij,bjk->bik", {{2, 2, 3}, {2, 3, 2}});
  einsum("bij,kj->bki", {{2, 2, 3}, {4, 3}});
  einsum("ij,j->i", {{2, 3}, {3}});
  einsum("i,i->", {{4}, {4}});
  einsum("i,j->ij", {{2}, {3}});
  einsum("ijk->ki", {{2, 3, 2}});
  einsum("ij->", {{2, 3}});
  einsum("ij,jk", {{2, 3}, {3, 2}});
  einsum("abc,cd->ad", {{2, 2, 3}, {3, 2}});
  einsum("...ij,...jk->...ik", {{2, 2, 3}, {3, 2}});
  einsum("...ij,...jk->...ik", {{2, 1, 2, 3}, {3, 3, 2}});
  einsum("...i->i...", {{2, 3, 2}});
  // An output label given twice (a diagonal of the output) and labels that are not letters. The
  // gradient takes that diagonal of the incoming one (a label twice in an operand), which has no
  // gradient of its own: first derivatives only.
  einsum("ij->iij", {{2, 3}}, false);
  einsum("ij,jk->iik", {{2, 3}, {3, 2}}, false);
  einsum("i$,j$->ij", {{2, 3}, {2, 3}});

  // Networks.
  t.push_back({"BiasAdd", {F({2, 3}), F({3})}, {}, true});
  t.push_back({"BiasAdd", {F({2, 3, 2, 2}), F({3})}, {{"data_format", Str("NCHW")}}, true});
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      std::vector<int64_t> sa = ta ? std::vector<int64_t>{3, 2} : std::vector<int64_t>{2, 3};
      std::vector<int64_t> sb = tb ? std::vector<int64_t>{4, 3} : std::vector<int64_t>{3, 4};
      t.push_back({"MatMul", {F(sa), F(sb)}, {{"transpose_a", B(ta)}, {"transpose_b", B(tb)}}, true});
      sa.insert(sa.begin(), 2);
      t.push_back({"BatchMatMulV2", {F(sa), F(sb)}, {{"adj_x", B(ta)}, {"adj_y", B(tb)}}, true});
    }
  }
  t.push_back({"BatchMatMulV2", {F({2, 1, 2, 3}), F({3, 3, 2})}, {}, true});
  t.push_back({"SparseSoftmaxCrossEntropyWithLogits", {F({3, 4}), I32({0, 3, 1})}, {}, true});
  t.push_back({"SoftmaxCrossEntropyWithLogits", {F({3, 4}), F({3, 4}, Gen::kPositive)}, {}, true});
  t.push_back({"SoftmaxCrossEntropyWithLogits", {F({3, 4}), F({1, 4}, Gen::kPositive)}});
  const AttrMap conv = {{"strides", Ints({1, 1, 1, 1})}, {"padding", Str("VALID")}};
  t.push_back({"Conv2D", {F({1, 4, 4, 2}), F({2, 2, 2, 3})}, conv, true});
  t.push_back({"Conv2DBackpropInput", {I32({1, 4, 4, 2}), F({2, 2, 2, 3}), F({1, 3, 3, 3})}, conv, true});
  t.push_back({"Conv2DBackpropFilter", {F({1, 4, 4, 2}), I32({2, 2, 2, 3}), F({1, 3, 3, 3})}, conv, true});
  t.push_back({"AvgPoolGrad",
               {I32({1, 4, 4, 1}), F({1, 2, 2, 1})},
               {{"ksize", Ints({1, 2, 2, 1})}, {"strides", Ints({1, 2, 2, 1})}, {"padding", Str("VALID")}}, true});
  t.push_back({"Conv2D",
               {F({1, 5, 5, 1}), F({2, 2, 1, 2})},
               {{"strides", Ints({1, 1, 1, 1})}, {"padding", Str("VALID")}, {"dilations", Ints({1, 2, 2, 1})}}});
  t.push_back({"Conv2D",
               {F({2, 5, 5, 2}), F({3, 3, 2, 2})},
               {{"strides", Ints({1, 2, 2, 1})}, {"padding", Str("SAME")}}, true});
  t.push_back({"DepthwiseConv2dNative", {F({1, 4, 4, 2}), F({2, 2, 2, 2})}, conv, true});
  t.push_back({"DepthwiseConv2dNative",
               {F({2, 5, 5, 2}), F({3, 3, 2, 1})},
               {{"strides", Ints({1, 2, 2, 1})}, {"padding", Str("SAME")}}});
  t.push_back({"MaxPool",
               {F({1, 3, 3, 2}, Gen::kDistinct)},
               {{"ksize", Ints({1, 2, 2, 1})}, {"strides", Ints({1, 1, 1, 1})}, {"padding", Str("SAME")}}});
  t.push_back({"AvgPool",
               {F({1, 5, 5, 1})},
               {{"ksize", Ints({1, 3, 3, 1})}, {"strides", Ints({1, 2, 2, 1})}, {"padding", Str("VALID")}}});
  // Grouped Conv2D (input depth 4 = 2 groups of the filter's 2), through the grouped backprop ops.
  t.push_back({"Conv2D",
               {F({1, 4, 3, 4}), F({2, 2, 2, 4})},
               {{"strides", Ints({1, 1, 1, 1})}, {"padding", Str("SAME")}}, true});
  // 3-D convolution and pooling (MaxPool3D has only a float32 kernel, as TensorFlow).
  const AttrMap conv3d = {{"strides", Ints({1, 1, 1, 1, 1})}, {"padding", Str("VALID")}};
  t.push_back({"Conv3D", {F({1, 3, 4, 3, 2}), F({2, 2, 2, 2, 2})}, conv3d, true});
  t.push_back({"Conv3D",
               {F({2, 4, 3, 5, 1}), F({2, 1, 2, 1, 2})},
               {{"strides", Ints({1, 2, 1, 2, 1})}, {"padding", Str("SAME")}, {"dilations", Ints({1, 1, 2, 1, 1})}}});
  t.push_back({"Conv3D",
               {F({1, 2, 3, 3, 3}), F({2, 2, 2, 2, 2})},
               {{"strides", Ints({1, 1, 1, 1, 1})}, {"padding", Str("SAME")}, {"data_format", Str("NCDHW")}}});
  t.push_back({"Conv3DBackpropInputV2", {I32({1, 3, 4, 3, 2}), F({2, 2, 2, 2, 2}), F({1, 2, 3, 2, 2})}, conv3d, true});
  t.push_back({"Conv3DBackpropFilterV2", {F({1, 3, 4, 3, 2}), I32({2, 2, 2, 2, 2}), F({1, 2, 3, 2, 2})}, conv3d, true});
  {
    Case c{"MaxPool3D",
           {F({1, 3, 3, 2, 2}, Gen::kDistinct)},
           {{"ksize", Ints({1, 2, 2, 2, 1})}, {"strides", Ints({1, 1, 1, 1, 1})}, {"padding", Str("SAME")}}};
    c.f32 = true;
    t.push_back(std::move(c));
  }
  t.push_back({"AvgPool3D",
               {F({1, 3, 3, 3, 2})},
               {{"ksize", Ints({1, 2, 2, 2, 1})}, {"strides", Ints({1, 2, 2, 2, 1})}, {"padding", Str("SAME")}}, true});
  t.push_back({"AvgPool3D",
               {F({1, 2, 3, 4, 3})},
               {{"ksize", Ints({1, 1, 2, 2, 2})}, {"strides", Ints({1, 1, 1, 2, 1})}, {"padding", Str("VALID")},
                {"data_format", Str("NCDHW")}}});
  t.push_back({"AvgPool3DGrad",
               {I32({1, 4, 4, 2, 1}), F({1, 2, 2, 1, 1})},
               {{"ksize", Ints({1, 2, 2, 2, 1})}, {"strides", Ints({1, 2, 2, 2, 1})}, {"padding", Str("VALID")}}, true});
  t.push_back({"Softmax", {F({2, 2, 3})}, {}, true});
  t.push_back({"BiasAdd", {F({2, 2, 2, 3}), F({3})}});
  t.push_back({"SparseSoftmaxCrossEntropyWithLogits",
               {F({2, 3}), Const<int64_t>(DType::kInt64, {2}, {2, 0})}});
  t.push_back({"MaxPool",
               {F({1, 4, 4, 2}, Gen::kDistinct)},
               {{"ksize", Ints({1, 2, 2, 1})}, {"strides", Ints({1, 2, 2, 1})}, {"padding", Str("VALID")}}});
  t.push_back({"AvgPool",
               {F({1, 4, 4, 2})},
               {{"ksize", Ints({1, 2, 2, 1})}, {"strides", Ints({1, 1, 1, 1})}, {"padding", Str("SAME")}}, true});
  {
    // Inference mode (the CPU kernel has no training mode yet): the given mean and variance.
    Case c{"FusedBatchNormV3",
           {F({2, 2, 2, 3}), F({3}), F({3}), Const<float>(DType::kFloat32, {3}, {0.1f, -0.2f, 0.3f}),
            Const<float>(DType::kFloat32, {3}, {0.5f, 1.5f, 2.0f})},
           {{"epsilon", AttrValue::Float(0.001f)}, {"is_training", B(false)}}};
    c.outputs = {0};  // the batch statistics' gradients are not propagated (as TensorFlow)
    c.f32 = true;
    t.push_back(std::move(c));
  }

  // Shapes, data movement, indexing.
  t.push_back({"Reshape", {F({2, 3}), I32({3, 2})}, {}, true});
  t.push_back({"Reshape", {F({2, 3, 2}), I32({-1, 4})}});
  t.push_back({"ExpandDims", {F({2, 3}), I32Scalar(1)}});
  t.push_back({"ExpandDims", {F({2, 3}), I32Scalar(-1)}});
  t.push_back({"Squeeze", {F({2, 1, 3})}, {{"squeeze_dims", Ints({1})}}});
  t.push_back({"Transpose", {F({2, 3, 2}), I32({2, 0, 1})}, {}, true});
  t.push_back({"IdentityN", {F({2, 3}), F({3})}, {}, false, 2});
  t.push_back({"ConcatV2", {F({2, 3}), F({2, 2}), I32Scalar(1)}, {}, true, 2});
  t.push_back({"ConcatV2", {F({2, 1}), F({2, 3}), F({2, 2}), I32Scalar(-1)}, {}, false, 3});
  t.push_back({"Split", {I32Scalar(1), F({2, 4})}, {{"num_split", AttrValue::Int(2)}}});
  t.push_back({"Split", {I32Scalar(-1), F({2, 2, 3})}, {{"num_split", AttrValue::Int(3)}}});
  t.push_back({"SplitV", {F({2, 5}), I32({2, 3}), I32Scalar(1)}, {{"num_split", AttrValue::Int(2)}}});
  t.push_back({"Pack", {F({2, 3}), F({2, 3})}, {{"axis", AttrValue::Int(1)}}, false, 2});
  t.push_back({"Unpack", {F({3, 2})}, {{"num", AttrValue::Int(3)}}});
  t.push_back({"Pack", {F({2}), F({2}), F({2})}, {{"axis", AttrValue::Int(-1)}}, false, 3});
  t.push_back({"Unpack", {F({2, 3, 2})}, {{"num", AttrValue::Int(3)}, {"axis", AttrValue::Int(1)}}});
  t.push_back({"Slice", {F({3, 4}), I32({1, 0}), I32({2, 3})}});
  t.push_back({"Slice", {F({3, 4, 2}), I32({0, 2, 1}), I32({-1, 2, 1})}});
  t.push_back({"Pad", {F({2, 1, 2}), I32Shaped({3, 2}, {0, 1, 2, 0, 1, 1})}});
  t.push_back({"Tile", {F({1, 2, 2}), I32({3, 1, 2})}});
  t.push_back({"Pad", {F({2, 3}), I32Shaped({2, 2}, {1, 0, 0, 2})}, {}, true});
  t.push_back({"PadV2", {F({2, 3}), I32Shaped({2, 2}, {0, 1, 1, 0}), Const<double>(DType::kFloat64, {}, {0.5})}});
  t.push_back({"MirrorPad", {F({3, 4}), I32Shaped({2, 2}, {1, 1, 2, 0})}, {{"mode", Str("REFLECT")}}});
  t.push_back({"MirrorPad", {F({3, 4}), I32Shaped({2, 2}, {0, 2, 1, 1})}, {{"mode", Str("SYMMETRIC")}}});
  t.push_back({"Tile", {F({2, 3}), I32({2, 1})}, {}, true});
  t.push_back({"GatherV2", {F({4, 3}), I32({3, 0, 3}), I32Scalar(0)}});
  t.push_back({"GatherV2", {F({2, 4}), I32({1, 1, 2}), I32Scalar(1)}});
  t.push_back({"GatherV2", {F({3, 2, 2}), I32Shaped({2, 2}, {2, 0, 2, 2}), I32Scalar(0)}, {}, true});
  t.push_back({"UnsortedSegmentSum", {F({4, 3}), I32({1, -1, 1, 0}), I32Scalar(3)}, {}, true});
  t.push_back({"UnsortedSegmentSum", {F({2, 2, 3}), I32Shaped({2, 2}, {0, 2, 2, 1}), I32Scalar(3)}});
  t.push_back({"ClipByValue", {F({2, 3}), Const<double>(DType::kFloat64, {}, {-0.5}), Const<double>(DType::kFloat64, {}, {0.5})}});
  t.push_back({"ClipByValue", {F({4}), Const<double>(DType::kFloat64, {}, {-0.5}), F({4}, Gen::kPositive)}});
  t.push_back({"UnsortedSegmentMax", {F({4, 3}), I32({1, -1, 1, 0}), I32Scalar(2)}});
  t.push_back({"UnsortedSegmentMin", {F({2, 2, 3}), I32Shaped({2, 2}, {0, 2, 2, 1}), I32Scalar(3)}});
  t.push_back({"StridedSlice", {F({4, 5}), I32({1, -1}), I32({4, 0}), I32({2, -2})}});
  t.push_back({"StridedSlice",
               {F({3, 4, 2}), I32({0, 1}), I32({0, 3}), I32({1, 1})},
               {{"begin_mask", AttrValue::Int(1)}, {"end_mask", AttrValue::Int(1)}, {"shrink_axis_mask", AttrValue::Int(0)}}});
  // shrink_axis on axis 0, new_axis between, ellipsis over the rest.
  t.push_back({"StridedSlice",
               {F({3, 4, 2}), I32({1, 0, 0}), I32({2, 0, 0}), I32({1, 1, 1})},
               {{"shrink_axis_mask", AttrValue::Int(1)}, {"new_axis_mask", AttrValue::Int(2)},
                {"ellipsis_mask", AttrValue::Int(4)}}});
  t.push_back({"BroadcastTo", {F({3}), I32({2, 3})}, {}, true});
  t.push_back({"BroadcastTo", {F({2, 1}), I32({2, 2, 3})}});
  t.push_back({"Fill", {I32({2, 3}), F({})}});
  t.push_back({"Cumsum", {F({3, 2}), Const<int64_t>(DType::kInt64, {}, {0})}});
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      t.push_back({"Cumsum", {F({2, 3}), I32Scalar(1)}, {{"exclusive", B(exclusive)}, {"reverse", B(reverse)}}, true});
      // Cumprod's gradient divides by x: inputs away from 0.
      t.push_back({"Cumprod", {F({2, 3}, Gen::kAway), I32Scalar(1)},
                   {{"exclusive", B(exclusive)}, {"reverse", B(reverse)}}});
    }
  }
  t.push_back({"Cumprod", {F({3, 2}, Gen::kAway), I32Scalar(0)}});
  t.push_back({"MatrixBandPart", {F({2, 3, 4}), I32Scalar(1), I32Scalar(0)}, {}, true});
  t.push_back({"MatrixBandPart", {F({3, 3}), I32Scalar(-1), I32Scalar(1)}});
  t.push_back({"ReverseV2", {F({2, 3, 4}), I32({0, 2})}, {}, true});
  t.push_back({"EnsureShape", {F({2, 3})}, {{"shape", AttrValue::Shape(PartialShape({2, kUnknownDim}))}}, true});
  t.push_back({"SpaceToBatchND", {F({2, 5, 3}), I32({2}), I32Shaped({1, 2}, {1, 2})}, {}, true});
  t.push_back({"BatchToSpaceND", {F({4, 2, 2, 1}), I32({2, 2}), I32Shaped({2, 2}, {0, 1, 1, 0})}, {}, true});
  // Sorted segment reductions (a gap in the ids: segment 2 is empty).
  t.push_back({"SegmentSum", {F({4, 3}), I32({0, 0, 1, 3})}, {}, true});
  t.push_back({"SegmentSum", {F({3, 2, 2}), Const<int64_t>(DType::kInt64, {3}, {1, 1, 2})}});
  t.push_back({"SegmentMean", {F({4, 2}), I32({0, 1, 1, 1})}, {}, true});
  t.push_back({"SegmentMean", {F({3, 2, 2}), I32({0, 2, 2})}});
  t.push_back({"SegmentProd", {F({4, 2}, Gen::kAway), I32({0, 0, 0, 2})}});
  // One zero in segment 0's column 1, then two zeros in segment 0's column 0 and 1.
  t.push_back({"SegmentProd", {F({3, 2}, Gen::kOneZero), I32({0, 0, 1})}});
  t.push_back({"SegmentProd", {F({2, 2}, Gen::kTwoZeros), I32({0, 0})}});
  t.push_back({"SegmentMax", {F({4, 3}, Gen::kDistinct), I32({0, 0, 2, 2})}});
  t.push_back({"SegmentMin", {F({5, 2}, Gen::kDistinct), I32({0, 1, 1, 1, 3})}});
  // Scatters, and GatherNd (whose gradient is a ScatterNd).
  t.push_back({"GatherNd", {F({3, 4}), I32Shaped({3, 2}, {0, 1, 2, 3, 0, 1})}, {}, true});
  t.push_back({"GatherNd", {F({3, 2, 2}), I32Shaped({2, 1}, {2, 0})}});
  t.push_back({"ScatterNd", {I32Shaped({2, 1}, {1, 3}), F({2, 3}), I32({4, 3})}, {}, true});
  t.push_back({"ScatterNd", {I32Shaped({3, 2}, {0, 1, 2, 2, 0, 1}), F({3}), I32({3, 3})}});
  t.push_back({"TensorScatterUpdate", {F({4, 3}), I32Shaped({2, 1}, {2, 0}), F({2, 3})}, {}, true});
  t.push_back({"TensorScatterUpdate", {F({3, 3}), I32Shaped({2, 2}, {0, 1, 2, 2}), F({2})}});
  t.push_back({"TensorScatterAdd", {F({4, 3}), I32Shaped({3, 1}, {2, 0, 2}), F({3, 3})}, {}, true});
  t.push_back({"TensorScatterSub", {F({3, 3}), I32Shaped({2, 2}, {0, 1, 2, 2}), F({2})}, {}, true});
  t.push_back({"TensorScatterMax", {F({4}, Gen::kDistinct), I32Shaped({2, 1}, {1, 3}), F({2}, Gen::kDistinct)}});
  t.push_back({"TensorScatterMin", {F({2, 3}, Gen::kDistinct), I32Shaped({2, 1}, {1, 0}), F({2, 3}, Gen::kDistinct)}});
  // Resizing (linear in the image). ResizeBilinear's output is float32 for every input.
  for (const AttrMap& attrs : {AttrMap{}, AttrMap{{"align_corners", B(true)}}, AttrMap{{"half_pixel_centers", B(true)}}}) {
    Case bilinear{"ResizeBilinear", {F({1, 3, 4, 2}), I32({5, 3})}, attrs};
    bilinear.f32 = true;
    t.push_back(std::move(bilinear));
    t.push_back({"ResizeNearestNeighbor", {F({2, 3, 4, 1}), I32({5, 3})}, attrs});
  }
  for (const AttrMap& attrs : {AttrMap{}, AttrMap{{"align_corners", B(true)}}, AttrMap{{"half_pixel_centers", B(true)}}}) {
    Case bicubic{"ResizeBicubic", {F({1, 3, 4, 2}), I32({5, 6})}, attrs};
    bicubic.f32 = true;
    t.push_back(std::move(bicubic));
  }
  {
    Case down{"ResizeBilinear", {F({2, 4, 5, 1}), I32({2, 3})}, {{"half_pixel_centers", B(true)}}};
    down.f32 = true;
    t.push_back(std::move(down));
  }
  return t;
}

// ---- The check.

struct Built {
  std::vector<Output> xs;        // the float inputs (placeholders)
  std::vector<Tensor> values;    // their values
  Output loss;                   // L
  std::vector<Output> grads;     // dL/dx
  Output loss2;                  // L' (second)
  std::vector<Output> grads2;    // dL'/dx
};

std::string CaseName(const Case& c, size_t index) {
  std::string s = c.op + " #" + std::to_string(index) + " (";
  for (size_t i = 0; i < c.in.size(); ++i) {
    s += i ? ", " : "";
    s += "[";
    for (size_t d = 0; d < c.in[i].shape.size(); ++d) s += (d ? "," : "") + std::to_string(c.in[i].shape[d]);
    s += "]";
  }
  return s + ")";
}

Tensor Random(DType dt, const std::vector<int64_t>& shape, Gen gen, std::mt19937& rng) {
  Tensor t;
  assert_true(Tensor::Allocate(dt, shape, &t).ok());
  const int64_t n = t.num_elements();
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t i = 0; i < n; ++i) {
    const double r = u(rng);
    double x = 0;
    switch (gen) {
      case Gen::kNormal: x = -1.5 + 3 * r; break;
      case Gen::kPositive: x = 0.3 + 1.7 * r; break;
      case Gen::kUnit: x = -0.8 + 1.6 * r; break;
      case Gen::kAway:
      case Gen::kOneZero:
      case Gen::kTwoZeros: x = (u(rng) < 0.5 ? -1 : 1) * (0.2 + 1.3 * r); break;
      case Gen::kAbove1: x = 1.3 + 1.7 * r; break;
      case Gen::kDistinct: x = 0.3 * static_cast<double>(i) - 0.15 * static_cast<double>(n) + 0.05 * r; break;
    }
    v[static_cast<size_t>(i)] = x;
  }
  if (gen == Gen::kDistinct) std::shuffle(v.begin(), v.end(), rng);
  if ((gen == Gen::kOneZero || gen == Gen::kTwoZeros) && n > 1) v[1] = 0;
  if (gen == Gen::kTwoZeros) v[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (dt == DType::kFloat64) {
      t.data<double>()[i] = v[static_cast<size_t>(i)];
    } else {
      t.data<float>()[i] = static_cast<float>(v[static_cast<size_t>(i)]);
    }
  }
  return t;
}

// Σ W · y over all elements, W random of y's (static) shape.
Output WeightedSum(GradOps& b, Output y, std::mt19937& rng, std::string* error) {
  auto shape = StaticShape(y);
  if (!shape) {
    *error = "output " + Graph::TensorName(y) + " has no static shape";
    return Output{};
  }
  Output w = b.Const(Random(y.node->output_type(y.index), *shape, Gen::kNormal, rng));
  return b.Sum(b.Reshape(b.Mul(y, w), b.Int32s({-1})), b.Int32s({0}));
}

std::string Build(Graph& g, const Case& c, std::mt19937& rng, Built* out) {
  const DType dt = c.f32 ? DType::kFloat32 : DType::kFloat64;
  GradOps b(g);
  std::vector<Output> inputs;
  for (const In& in : c.in) {
    if (in.constant) {
      inputs.push_back(b.Const(in.value));
      continue;
    }
    Output x = b.Op("Placeholder", {}, {{"dtype", AttrValue::Type(dt)}, {"shape", AttrValue::Shape(PartialShape(in.shape))}});
    inputs.push_back(x);
    out->xs.push_back(x);
    out->values.push_back(Random(dt, in.shape, in.gen, rng));
  }
  std::vector<NodeSpec::InputArg> args;
  if (c.list > 0) args.push_back({std::vector<Output>(inputs.begin(), inputs.begin() + c.list), true});
  for (size_t i = static_cast<size_t>(c.list); i < inputs.size(); ++i) args.push_back({{inputs[i]}, false});
  Node* op = b.AddOp(c.op, std::move(args), c.attrs);
  if (op == nullptr) return "building the op: " + b.status().message();
  std::vector<Output> terms;
  std::string error;
  for (int k = 0; k < op->num_outputs(); ++k) {
    if (!c.outputs.empty() && std::find(c.outputs.begin(), c.outputs.end(), k) == c.outputs.end()) continue;
    if (!DTypeIsFloating(BaseDType(op->output_type(k)))) continue;
    terms.push_back(WeightedSum(b, Output{op, k}, rng, &error));
    if (!error.empty()) return error;
  }
  out->loss = b.AddN(terms);
  if (!b.ok()) return "building the loss: " + b.status().message();
  std::vector<std::optional<Output>> grads;
  Status s = AddGradients(g, {out->loss}, out->xs, GradientsOptions{}, &grads);
  if (!s.ok()) return "AddGradients: " + s.message();
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i]) return "no gradient for float input " + std::to_string(i);
    out->grads.push_back(*grads[i]);
  }
  if (!c.second) return "";
  std::vector<Output> terms2;
  for (const Output& gi : out->grads) terms2.push_back(WeightedSum(b, gi, rng, &error));
  if (!error.empty()) return error;
  out->loss2 = b.AddN(terms2);
  if (!b.ok()) return "building the second loss: " + b.status().message();
  GradientsOptions opts;
  opts.scope = "gradients2";
  opts.unconnected = UnconnectedGradients::kZero;  // a gradient constant in x (e.g. of a linear op)
  s = AddGradients(g, {out->loss2}, out->xs, opts, &grads);
  if (!s.ok()) return "AddGradients of the gradient: " + s.message();
  for (auto& gi : grads) out->grads2.push_back(*gi);
  return "";
}

double Element(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kFloat64 ? t.data<double>()[i] : static_cast<double>(t.data<float>()[i]);
}
void SetElement(Tensor& t, int64_t i, double v) {
  if (t.dtype() == DType::kFloat64) {
    t.data<double>()[i] = v;
  } else {
    t.data<float>()[i] = static_cast<float>(v);
  }
}

// Compares the symbolic gradients of loss with central differences; the mismatches into errors.
void Compare(Session& session, const Built& built, Output loss, const std::vector<Output>& grads, bool f32,
             const std::string& what, std::vector<std::string>* errors) {
  std::shared_ptr<const Executor> eval, sym;
  std::vector<Output> fetch_sym = grads;
  Status s = session.MakeCallable(built.xs, {loss}, {}, &eval);
  if (s.ok()) s = session.MakeCallable(built.xs, fetch_sym, {}, &sym);
  std::vector<Tensor> symbolic;
  if (s.ok()) s = session.RunCallable(*sym, built.values, &symbolic);
  if (!s.ok()) {
    errors->push_back(what + ": " + s.message());
    return;
  }
  const double h = f32 ? 1e-2 : 1e-5;
  const double tol = f32 ? 2e-2 : 1e-6;
  std::vector<Tensor> values = built.values;
  for (size_t i = 0; i < values.size(); ++i) {
    for (int64_t j = 0; j < values[i].num_elements(); ++j) {
      const double x = Element(values[i], j);
      std::vector<Tensor> lp, lm;
      SetElement(values[i], j, x + h);
      s = session.RunCallable(*eval, values, &lp);
      SetElement(values[i], j, x - h);
      if (s.ok()) s = session.RunCallable(*eval, values, &lm);
      SetElement(values[i], j, x);
      if (!s.ok()) {
        errors->push_back(what + ": " + s.message());
        return;
      }
      const double numeric = (Element(lp[0], 0) - Element(lm[0], 0)) / (2 * h);
      const double got = Element(symbolic[i], j);
      if (!(std::abs(numeric - got) <= tol * std::max(1.0, std::abs(numeric)))) {
        char buf[256];
        std::snprintf(buf, sizeof buf, ": input %zu element %lld: symbolic %.9g, numeric %.9g", i,
                      static_cast<long long>(j), got, numeric);
        errors->push_back(what + buf);
        return;  // one mismatch per case is enough
      }
    }
  }
}

void test_every_gradient_function_is_checked(void** state) {
  (void)state;
  std::set<std::string> in_table;
  for (const Case& c : Table()) in_table.insert(c.op);
  std::vector<std::string> missing;
  for (const std::string& name : GradientRegistry::Global().Names()) {
    if (in_table.count(name) == 0 && kNotChecked.count(name) == 0) missing.push_back(name);
  }
  for (const std::string& name : missing) {
    print_error("%s has a gradient function but no case in the numeric check (add one, or list it in kNotChecked "
                "with the reason)\n",
                name.c_str());
  }
  assert_true(missing.empty());
  for (const auto& [name, why] : kNotChecked) {
    assert_non_null(GradientRegistry::Global().Find(name));
    assert_false(why.empty());
  }
}

void test_gradients_match_central_differences(void** state) {
  (void)state;
  capi::RegisterBuiltins();
  std::vector<std::string> errors;
  const std::vector<Case> table = Table();
  int checked = 0, second = 0;
  for (size_t index = 0; index < table.size(); ++index) {
    const Case& c = table[index];
    const std::string name = CaseName(c, index);
    std::mt19937 rng(static_cast<uint32_t>(1234 + index));
    Graph g;
    Built built;
    std::string error = Build(g, c, rng, &built);
    if (!error.empty()) {
      errors.push_back(name + ": " + error);
      continue;
    }
    SessionOptions options;
    options.num_threads = 1;
    Session session(&g, options);
    assert_true(session.init_status().ok());
    Compare(session, built, built.loss, built.grads, c.f32, name, &errors);
    ++checked;
    if (c.second) {
      Compare(session, built, built.loss2, built.grads2, c.f32, name + " second order", &errors);
      ++second;
    }
  }
  for (const std::string& e : errors) print_error("%s\n", e.c_str());
  print_message("%d cases checked (%d with second derivatives), %zu mismatches\n", checked, second, errors.size());
  assert_true(errors.empty());
}

}  // namespace
}  // namespace graft

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(graft::test_every_gradient_function_is_checked),
      cmocka_unit_test(graft::test_gradients_match_central_differences),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
