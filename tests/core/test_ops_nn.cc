// NN ops (core/ops/nn_ops.cc): signatures, dtypes, defaults and shape functions.
#include "tests/core/shape_test_util.h"

using namespace graft;
using namespace graft::testing;

namespace {

TestInput Const(Tensor t) {
  TestInput in{t.dtype(), t.shape(), std::nullopt};
  in.value = std::move(t);
  return in;
}

std::vector<std::string> AttrNames(const char* op) {
  std::vector<std::string> names;
  for (const OpAttrDef& a : Def(op).attrs) names.push_back(a.name);
  return names;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::IntList(std::move(v)); }
AttrValue Str(const char* s) { return AttrValue::String(s); }

// ---------------------------------------------------------------------------------------------
// Activations and their gradients

void test_activations(void** state) {
  for (const char* name : {"Relu", "Relu6", "Elu", "Selu", "LeakyRelu", "Softplus", "Softsign"}) {
    const OpDef& d = Def(name);
    assert_string_equal(d.inputs[0].name.c_str(), "features");
    assert_string_equal(d.outputs[0].name.c_str(), "activations");
    InferResult r = Infer(name, {{F(S({2, -1, 3}))}});
    ASSERT_SHAPE(r, 0, "(2, None, 3)");
    assert_int_equal(static_cast<int>(r.output_types.at(0)), static_cast<int>(DType::kFloat32));
    ASSERT_SHAPE(Infer(name, {{In(DType::kFloat16, Unknown())}}), 0, "<unknown>");
    ASSERT_FAILS(Infer(name, {{In(DType::kBool, S({2}))}}), Code::kDType, "bool");
  }
  assert_true(Infer("Relu", {{In(DType::kQInt8, S({2}))}}).status.ok());
  assert_true(Infer("Relu6", {{In(DType::kInt32, S({2}))}}).status.ok());
  ASSERT_FAILS(Infer("Relu6", {{In(DType::kQInt8, S({2}))}}), Code::kDType, "qint8");
  ASSERT_FAILS(Infer("Elu", {{In(DType::kInt32, S({2}))}}), Code::kDType, "int32");

  // LeakyRelu: alpha before T; defaults alpha=0.2 and T=float.
  assert_string_equal(Join(AttrNames("LeakyRelu")).c_str(), "alpha,T");
  InferResult r = Infer("LeakyRelu", {{In(DType::kFloat64, S({3}))}});
  ASSERT_SHAPE(r, 0, "(3,)");
  assert_float_equal(*r.attrs.at("alpha").get<float>(), 0.2f, 1e-7);
  const OpAttrDef* t = Def("LeakyRelu").FindAttr("T");
  assert_non_null(t);
  assert_true(t->default_value.has_value());
  assert_int_equal(static_cast<int>(*t->default_value->get<DType>()), static_cast<int>(DType::kFloat32));
}

void test_activation_grads(void** state) {
  for (const char* name : {"ReluGrad", "Relu6Grad"}) {
    assert_string_equal(Def(name).inputs[0].name.c_str(), "gradients");
    assert_string_equal(Def(name).inputs[1].name.c_str(), "features");
    assert_string_equal(Def(name).outputs[0].name.c_str(), "backprops");
    ASSERT_SHAPE(Infer(name, {{F(S({2, -1}))}, {F(S({-1, 3}))}}), 0, "(2, 3)");
    ASSERT_SHAPE(Infer(name, {{F(Unknown())}, {F(S({4}))}}), 0, "(4,)");
    ASSERT_FAILS(Infer(name, {{F(S({2, 3}))}, {F(S({2, 4}))}}), Code::kShape, "same shape");
    ASSERT_FAILS(Infer(name, {{F(S({2, 3}))}, {F(S({2, 3, 1}))}}), Code::kShape, "features");
  }
  for (const char* name : {"SigmoidGrad", "TanhGrad"}) {
    assert_string_equal(Def(name).inputs[0].name.c_str(), "y");
    assert_string_equal(Def(name).inputs[1].name.c_str(), "dy");
    // y's shape; dy is not checked.
    ASSERT_SHAPE(Infer(name, {{F(S({2, -1}))}, {F(S({5}))}}), 0, "(2, None)");
    assert_true(Infer(name, {{In(DType::kComplex64, S({}))}, {In(DType::kComplex64, S({}))}}).status.ok());
    ASSERT_FAILS(Infer(name, {{In(DType::kInt32, S({}))}, {In(DType::kInt32, S({}))}}), Code::kDType, "int32");
  }
}

// ---------------------------------------------------------------------------------------------
// BiasAdd

void test_bias_add(void** state) {
  assert_string_equal(Join(AttrNames("BiasAdd")).c_str(), "T,data_format");
  InferResult r = Infer("BiasAdd", {{F(S({2, 3, 4}))}, {F(S({4}))}});
  ASSERT_SHAPE(r, 0, "(2, 3, 4)");
  assert_string_equal(r.attrs.at("data_format").get<std::string>()->c_str(), "NHWC");
  ASSERT_SHAPE(Infer("BiasAdd", {{F(S({2, -1}))}, {F(S({5}))}}), 0, "(2, 5)");   // bias fills the channel dim
  ASSERT_SHAPE(Infer("BiasAdd", {{F(S({2, 5}))}, {F(Unknown())}}), 0, "(2, 5)");
  ASSERT_SHAPE(Infer("BiasAdd", {{F(Unknown())}, {F(S({5}))}}), 0, "<unknown>");
  const AttrMap nchw = {{"data_format", Str("NCHW")}};
  ASSERT_SHAPE(Infer("BiasAdd", {{F(S({2, 3, 4, 5}))}, {F(S({3}))}}, nchw), 0, "(2, 3, 4, 5)");
  ASSERT_SHAPE(Infer("BiasAdd", {{F(S({2, -1, 4}))}, {F(S({3}))}}, nchw), 0, "(2, 3, 4)");
  ASSERT_FAILS(Infer("BiasAdd", {{F(S({2, 3, 4, 5}))}, {F(S({5}))}}, nchw), Code::kShape, "dimension 1");
  ASSERT_FAILS(Infer("BiasAdd", {{F(S({2, 3}))}, {F(S({3}))}}, nchw), Code::kShape, "rank at least 3");
  ASSERT_FAILS(Infer("BiasAdd", {{F(S({2, 3, 4}))}, {F(S({3}))}}), Code::kShape, "one entry per channel");
  ASSERT_FAILS(Infer("BiasAdd", {{F(S({4}))}, {F(S({4}))}}), Code::kShape, "rank at least 2");
  ASSERT_FAILS(Infer("BiasAdd", {{F(S({2, 4}))}, {F(S({1, 4}))}}), Code::kShape, "'bias' must have rank 1");
  ASSERT_FAILS(Infer("BiasAdd", {{F(S({2, 4}))}, {F(S({4}))}}, {{"data_format", Str("NCDHW")}}),
               Code::kInvalidArgument, "NCDHW");
  assert_true(Infer("BiasAdd", {{In(DType::kQInt32, S({2, 4}))}, {In(DType::kQInt32, S({4}))}}).status.ok());
  ASSERT_FAILS(Infer("BiasAdd", {{In(DType::kBool, S({2, 4}))}, {In(DType::kBool, S({4}))}}), Code::kDType, "bool");

  ASSERT_SHAPE(Infer("BiasAddGrad", {{F(S({2, 3, 4}))}}), 0, "(4,)");
  ASSERT_SHAPE(Infer("BiasAddGrad", {{F(S({2, 3, 4, 5}))}}, nchw), 0, "(3,)");
  ASSERT_SHAPE(Infer("BiasAddGrad", {{F(Unknown())}}), 0, "(None,)");
  ASSERT_FAILS(Infer("BiasAddGrad", {{F(S({2, 3}))}}, nchw), Code::kShape, "rank at least 3");
}

// ---------------------------------------------------------------------------------------------
// MatMul / BatchMatMulV2

AttrMap Transpose(bool a, bool b) {
  return {{"transpose_a", AttrValue::Bool(a)}, {"transpose_b", AttrValue::Bool(b)}};
}

void test_matmul(void** state) {
  assert_string_equal(Join(AttrNames("MatMul")).c_str(), "transpose_a,transpose_b,T,grad_a,grad_b");
  assert_string_equal(Def("MatMul").outputs[0].name.c_str(), "product");
  InferResult r = Infer("MatMul", {{F(S({2, 3}))}, {F(S({3, 4}))}});
  ASSERT_SHAPE(r, 0, "(2, 4)");
  for (const char* a : {"transpose_a", "transpose_b", "grad_a", "grad_b"}) assert_false(*r.attrs.at(a).get<bool>());
  ASSERT_SHAPE(Infer("MatMul", {{F(S({3, 2}))}, {F(S({3, 4}))}}, Transpose(true, false)), 0, "(2, 4)");
  ASSERT_SHAPE(Infer("MatMul", {{F(S({2, 3}))}, {F(S({4, 3}))}}, Transpose(false, true)), 0, "(2, 4)");
  ASSERT_SHAPE(Infer("MatMul", {{F(S({3, 2}))}, {F(S({4, 3}))}}, Transpose(true, true)), 0, "(2, 4)");
  ASSERT_SHAPE(Infer("MatMul", {{F(S({-1, 3}))}, {F(S({-1, -1}))}}), 0, "(None, None)");
  ASSERT_SHAPE(Infer("MatMul", {{F(Unknown())}, {F(S({3, 4}))}}), 0, "(None, 4)");
  ASSERT_FAILS(Infer("MatMul", {{F(S({2, 3}))}, {F(S({4, 5}))}}), Code::kShape, "inner dimensions");
  ASSERT_FAILS(Infer("MatMul", {{F(S({3, 2}))}, {F(S({3, 4}))}}), Code::kShape, "transpose_a=false");
  ASSERT_FAILS(Infer("MatMul", {{F(S({2, 3}))}, {F(S({3, 4}))}}, Transpose(true, false)), Code::kShape,
               "transpose_a=true");
  ASSERT_FAILS(Infer("MatMul", {{F(S({2, 3, 4}))}, {F(S({4, 5}))}}), Code::kShape, "'a' must have rank 2");
  ASSERT_FAILS(Infer("MatMul", {{F(S({2, 3}))}, {F(S({3}))}}), Code::kShape, "'b' must have rank 2");
  ASSERT_FAILS(Infer("MatMul", {{In(DType::kBool, S({2, 2}))}, {In(DType::kBool, S({2, 2}))}}), Code::kDType,
               "bool");
  ASSERT_FAILS(Infer("MatMul", {{In(DType::kInt8, S({2, 2}))}, {In(DType::kInt8, S({2, 2}))}}), Code::kDType,
               "int8");
}

AttrMap Adj(bool x, bool y) { return {{"adj_x", AttrValue::Bool(x)}, {"adj_y", AttrValue::Bool(y)}}; }

void test_batch_matmul(void** state) {
  assert_string_equal(Join(AttrNames("BatchMatMulV2")).c_str(), "T,adj_x,adj_y,grad_x,grad_y");
  InferResult r = Infer("BatchMatMulV2", {{F(S({2, 3, 4}))}, {F(S({4, 5}))}});
  ASSERT_SHAPE(r, 0, "(2, 3, 5)");
  assert_false(*r.attrs.at("adj_x").get<bool>());
  assert_false(*r.attrs.at("grad_y").get<bool>());
  ASSERT_SHAPE(Infer("BatchMatMulV2", {{F(S({2, 1, 3, 4}))}, {F(S({5, 4, 6}))}}), 0, "(2, 5, 3, 6)");
  ASSERT_SHAPE(Infer("BatchMatMulV2", {{F(S({3, 4}))}, {F(S({4, 5}))}}), 0, "(3, 5)");
  ASSERT_SHAPE(Infer("BatchMatMulV2", {{F(S({-1, 3, 4}))}, {F(S({2, 4, 5}))}}), 0, "(2, 3, 5)");
  ASSERT_SHAPE(Infer("BatchMatMulV2", {{F(S({-1, 3, 4}))}, {F(S({1, 4, 5}))}}), 0, "(None, 3, 5)");
  ASSERT_SHAPE(Infer("BatchMatMulV2", {{F(S({7, 4, 3}))}, {F(S({7, 4, 5}))}}, Adj(true, false)), 0, "(7, 3, 5)");
  ASSERT_SHAPE(Infer("BatchMatMulV2", {{F(S({7, 3, 4}))}, {F(S({7, 5, 4}))}}, Adj(false, true)), 0, "(7, 3, 5)");
  ASSERT_SHAPE(Infer("BatchMatMulV2", {{F(S({4, 3}))}, {F(S({5, 4}))}}, Adj(true, true)), 0, "(3, 5)");
  ASSERT_SHAPE(Infer("BatchMatMulV2", {{F(Unknown())}, {F(S({4, 5}))}}), 0, "<unknown>");
  ASSERT_FAILS(Infer("BatchMatMulV2", {{F(S({2, 3, 4}))}, {F(S({3, 4, 5}))}}), Code::kShape, "batch dimensions");
  ASSERT_FAILS(Infer("BatchMatMulV2", {{F(S({2, 3, 4}))}, {F(S({2, 5, 5}))}}), Code::kShape, "inner dimensions");
  ASSERT_FAILS(Infer("BatchMatMulV2", {{F(S({4}))}, {F(S({4, 5}))}}), Code::kShape, "rank at least 2");
  ASSERT_FAILS(Infer("BatchMatMulV2", {{In(DType::kBool, S({2, 2}))}, {In(DType::kBool, S({2, 2}))}}),
               Code::kDType, "bool");
  assert_true(Infer("BatchMatMulV2", {{In(DType::kInt16, S({2, 2}))}, {In(DType::kInt16, S({2, 2}))}}).status.ok());
}

// ---------------------------------------------------------------------------------------------
// Convolutions

AttrMap Conv(std::vector<int64_t> strides, const char* padding, const char* format = "NHWC") {
  return {{"strides", Ints(std::move(strides))}, {"padding", Str(padding)}, {"data_format", Str(format)}};
}

void test_conv2d(void** state) {
  assert_string_equal(Join(AttrNames("Conv2D")).c_str(),
                      "T,strides,use_cudnn_on_gpu,padding,explicit_paddings,data_format,dilations");
  InferResult r = Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}},
                        {{"strides", Ints({1, 1, 1, 1})}, {"padding", Str("VALID")}});
  ASSERT_SHAPE(r, 0, "(1, 3, 3, 8)");
  assert_true(*r.attrs.at("use_cudnn_on_gpu").get<bool>());
  assert_string_equal(r.attrs.at("data_format").get<std::string>()->c_str(), "NHWC");
  assert_true(*r.attrs.at("dilations").get<std::vector<int64_t>>() == std::vector<int64_t>({1, 1, 1, 1}));
  assert_int_equal(r.attrs.at("explicit_paddings").list_size(), 0);

  // SAME: ceil(in / stride); VALID: ceil((in - k + 1) / stride).
  ASSERT_SHAPE(Infer("Conv2D", {{F(S({2, 5, 6, 3}))}, {F(S({3, 3, 3, 8}))}}, Conv({1, 2, 2, 1}, "SAME")), 0,
               "(2, 3, 3, 8)");
  ASSERT_SHAPE(Infer("Conv2D", {{F(S({2, 7, 8, 3}))}, {F(S({3, 2, 3, 8}))}}, Conv({1, 2, 3, 1}, "VALID")), 0,
               "(2, 3, 3, 8)");
  // NCHW: strides are [1, 1, h, w]; output [N, C, H, W].
  ASSERT_SHAPE(Infer("Conv2D", {{F(S({2, 3, 5, 6}))}, {F(S({3, 3, 3, 8}))}}, Conv({1, 1, 2, 2}, "SAME", "NCHW")), 0,
               "(2, 8, 3, 3)");
  ASSERT_SHAPE(Infer("Conv2D", {{F(S({2, 3, 7, 8}))}, {F(S({3, 2, 3, 8}))}}, Conv({1, 1, 2, 3}, "VALID", "NCHW")),
               0, "(2, 8, 3, 3)");
  // Dilation: effective window (k - 1) * d + 1.
  AttrMap dil = Conv({1, 1, 1, 1}, "VALID");
  dil["dilations"] = Ints({1, 2, 3, 1});
  ASSERT_SHAPE(Infer("Conv2D", {{F(S({1, 7, 9, 3}))}, {F(S({3, 3, 3, 8}))}}, dil), 0, "(1, 3, 3, 8)");
  // EXPLICIT: (in + before + after - k) / stride + 1.
  AttrMap ex = Conv({1, 1, 2, 1}, "EXPLICIT");
  ex["explicit_paddings"] = Ints({0, 0, 1, 1, 2, 2, 0, 0});
  ASSERT_SHAPE(Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, ex), 0, "(1, 5, 4, 8)");
  AttrMap ex_nchw = Conv({1, 1, 1, 1}, "EXPLICIT", "NCHW");
  ex_nchw["explicit_paddings"] = Ints({0, 0, 0, 0, 1, 0, 0, 3});
  ASSERT_SHAPE(Infer("Conv2D", {{F(S({1, 3, 5, 5}))}, {F(S({3, 3, 3, 8}))}}, ex_nchw), 0, "(1, 8, 4, 6)");

  // Partial shapes.
  ASSERT_SHAPE(Infer("Conv2D", {{F(S({-1, -1, 5, 3}))}, {F(S({3, 3, 3, -1}))}}, Conv({1, 1, 1, 1}, "VALID")), 0,
               "(None, None, 3, None)");
  ASSERT_SHAPE(Infer("Conv2D", {{F(S({4, 5, 5, 3}))}, {F(S({-1, 3, 3, 8}))}}, Conv({1, 1, 1, 1}, "VALID")), 0,
               "(4, None, 3, 8)");
  ASSERT_SHAPE(Infer("Conv2D", {{F(Unknown())}, {F(S({3, 3, 3, 8}))}}, Conv({1, 1, 1, 1}, "SAME")), 0,
               "(None, None, None, 8)");
  // Grouped convolution: input depth a multiple of the filter's.
  ASSERT_SHAPE(Infer("Conv2D", {{F(S({1, 5, 5, 6}))}, {F(S({1, 1, 3, 8}))}}, Conv({1, 1, 1, 1}, "SAME")), 0,
               "(1, 5, 5, 8)");
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 5}))}, {F(S({1, 1, 3, 8}))}}, Conv({1, 1, 1, 1}, "SAME")),
               Code::kShape, "not a multiple");
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 6}))}, {F(S({1, 1, 3, 7}))}}, Conv({1, 1, 1, 1}, "SAME")),
               Code::kShape, "number of groups 2");
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 3, 5, 5}))}, {F(S({1, 1, 5, 8}))}}, Conv({1, 1, 1, 1}, "SAME", "NCHW")),
               Code::kShape, "input depth 3");

  // Invalid shapes and attrs.
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 2, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, Conv({1, 1, 1, 1}, "VALID")),
               Code::kShape, "rows window");
  ASSERT_FAILS(Infer("Conv2D", {{F(S({5, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, Conv({1, 1, 1, 1}, "VALID")),
               Code::kShape, "'input' must have rank 4");
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3}))}}, Conv({1, 1, 1, 1}, "VALID")),
               Code::kShape, "'filter' must have rank 4");
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, Conv({1, 1, 1}, "VALID")),
               Code::kInvalidArgument, "'strides' must have 4 entries");
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, Conv({1, 0, 1, 1}, "VALID")),
               Code::kInvalidArgument, "stride must be >= 1");
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, Conv({1, 1, 1, 1}, "FULL")),
               Code::kInvalidArgument, "FULL");
  AttrMap stray = Conv({1, 1, 1, 1}, "SAME");
  stray["explicit_paddings"] = Ints({0, 0, 1, 1, 1, 1, 0, 0});
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, stray), Code::kInvalidArgument,
               "must be empty");
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, Conv({1, 1, 1, 1}, "EXPLICIT")),
               Code::kInvalidArgument, "8 entries");
  AttrMap batch_pad = Conv({1, 1, 1, 1}, "EXPLICIT");
  batch_pad["explicit_paddings"] = Ints({1, 0, 1, 1, 1, 1, 0, 0});
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, batch_pad), Code::kInvalidArgument,
               "batch and depth");
  AttrMap bad_dil = Conv({1, 1, 1, 1}, "SAME");
  bad_dil["dilations"] = Ints({1, 1, 1});
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, bad_dil), Code::kInvalidArgument,
               "'dilations' must have 4 entries");
  ASSERT_FAILS(Infer("Conv2D", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}}, {{"padding", Str("SAME")}}),
               Code::kInvalidArgument, "strides");
  ASSERT_FAILS(Infer("Conv2D", {{In(DType::kInt64, S({1, 5, 5, 3}))}, {In(DType::kInt64, S({3, 3, 3, 8}))}},
                     Conv({1, 1, 1, 1}, "SAME")),
               Code::kDType, "int64");
}

void test_depthwise_conv(void** state) {
  assert_string_equal(Join(AttrNames("DepthwiseConv2dNative")).c_str(),
                      "T,strides,padding,explicit_paddings,data_format,dilations");
  ASSERT_SHAPE(Infer("DepthwiseConv2dNative", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 3, 2}))}},
                     Conv({1, 1, 1, 1}, "VALID")),
               0, "(1, 3, 3, 6)");
  ASSERT_SHAPE(Infer("DepthwiseConv2dNative", {{F(S({1, 3, 5, 5}))}, {F(S({3, 3, 3, 2}))}},
                     Conv({1, 1, 2, 2}, "SAME", "NCHW")),
               0, "(1, 6, 3, 3)");
  // The filter's depth fills in the input's.
  ASSERT_SHAPE(Infer("DepthwiseConv2dNative", {{F(S({1, 5, 5, -1}))}, {F(S({3, 3, 4, 1}))}},
                     Conv({1, 1, 1, 1}, "SAME")),
               0, "(1, 5, 5, 4)");
  ASSERT_SHAPE(Infer("DepthwiseConv2dNative", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, -1, -1}))}},
                     Conv({1, 1, 1, 1}, "SAME")),
               0, "(1, 5, 5, None)");
  AttrMap dil = Conv({1, 1, 1, 1}, "VALID");
  dil["dilations"] = Ints({1, 2, 2, 1});
  ASSERT_SHAPE(Infer("DepthwiseConv2dNative", {{F(S({1, 5, 6, 3}))}, {F(S({3, 3, 3, 1}))}}, dil), 0,
               "(1, 1, 2, 3)");
  ASSERT_FAILS(Infer("DepthwiseConv2dNative", {{F(S({1, 5, 5, 3}))}, {F(S({3, 3, 4, 2}))}},
                     Conv({1, 1, 1, 1}, "SAME")),
               Code::kShape, "does not match");
  ASSERT_FAILS(Infer("DepthwiseConv2dNative", {{In(DType::kInt32, S({1, 5, 5, 3}))}, {In(DType::kInt32, S({3, 3, 3, 2}))}},
                     Conv({1, 1, 1, 1}, "SAME")),
               Code::kDType, "int32");
}

// ---------------------------------------------------------------------------------------------
// Pooling

AttrMap Pool(std::vector<int64_t> ksize, std::vector<int64_t> strides, const char* padding,
             const char* format = "NHWC") {
  return {{"ksize", Ints(std::move(ksize))},
          {"strides", Ints(std::move(strides))},
          {"padding", Str(padding)},
          {"data_format", Str(format)}};
}

void test_max_pool(void** state) {
  assert_string_equal(Join(AttrNames("MaxPool")).c_str(), "T,ksize,strides,padding,explicit_paddings,data_format");
  const OpAttrDef* t = Def("MaxPool").FindAttr("T");
  assert_int_equal(static_cast<int>(*t->default_value->get<DType>()), static_cast<int>(DType::kFloat32));
  assert_int_equal(Def("MaxPool").FindAttr("ksize")->minimum, 4);

  InferResult r = Infer("MaxPool", {{F(S({1, 4, 4, 3}))}}, Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
  ASSERT_SHAPE(r, 0, "(1, 2, 2, 3)");
  ASSERT_SHAPE(Infer("MaxPool", {{F(S({1, 5, 7, 3}))}}, Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "SAME")), 0, "(1, 3, 4, 3)");
  ASSERT_SHAPE(Infer("MaxPool", {{F(S({1, 5, 7, 3}))}}, Pool({1, 3, 2, 1}, {1, 2, 2, 1}, "VALID")), 0,
               "(1, 2, 3, 3)");
  ASSERT_SHAPE(Infer("MaxPool", {{F(S({1, 3, 5, 7}))}}, Pool({1, 1, 3, 2}, {1, 1, 2, 2}, "VALID", "NCHW")), 0,
               "(1, 3, 2, 3)");
  ASSERT_SHAPE(Infer("MaxPool", {{F(S({-1, 5, -1, 3}))}}, Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "SAME")), 0,
               "(None, 3, None, 3)");
  ASSERT_SHAPE(Infer("MaxPool", {{F(Unknown())}}, Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "SAME")), 0,
               "(None, None, None, None)");
  // Depth pooling.
  ASSERT_SHAPE(Infer("MaxPool", {{F(S({1, 4, 4, 6}))}}, Pool({1, 1, 1, 3}, {1, 1, 1, 3}, "VALID")), 0,
               "(1, 4, 4, 2)");
  // EXPLICIT padding.
  AttrMap ex = Pool({1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT");
  ex["explicit_paddings"] = Ints({0, 0, 1, 1, 0, 2, 0, 0});
  ASSERT_SHAPE(Infer("MaxPool", {{F(S({1, 4, 4, 3}))}}, ex), 0, "(1, 4, 4, 3)");
  // NCHW_VECT_C: [N, C/4, H, W, 4], attrs in NCHW order.
  ASSERT_SHAPE(Infer("MaxPool", {{In(DType::kQInt8, S({1, 2, 4, 6, 4}))}},
                     Pool({1, 1, 2, 2}, {1, 1, 2, 2}, "VALID", "NCHW_VECT_C")),
               0, "(1, 2, 2, 3, 4)");
  ASSERT_FAILS(Infer("MaxPool", {{F(S({1, 4, 4, 3}))}}, Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", "NCHW_VECT_C")),
               Code::kShape, "rank 5");

  ASSERT_FAILS(Infer("MaxPool", {{F(S({1, 1, 4, 3}))}}, Pool({1, 2, 2, 1}, {1, 1, 1, 1}, "VALID")), Code::kShape,
               "rows window");
  ASSERT_FAILS(Infer("MaxPool", {{F(S({4, 4, 3}))}}, Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID")), Code::kShape,
               "must have rank 4");
  ASSERT_FAILS(Infer("MaxPool", {{F(S({1, 4, 4, 3}))}}, Pool({1, 2, 2, 1, 1}, {1, 2, 2, 1}, "VALID")),
               Code::kInvalidArgument, "'ksize' must have 4 entries");
  ASSERT_FAILS(Infer("MaxPool", {{F(S({1, 4, 4, 3}))}}, Pool({1, 2, 2}, {1, 2, 2, 1}, "VALID")),
               Code::kInvalidArgument, "minimum");
  ASSERT_FAILS(Infer("MaxPool", {{F(S({1, 4, 4, 3}))}}, Pool({1, 0, 2, 1}, {1, 2, 2, 1}, "VALID")),
               Code::kInvalidArgument, "ksize");
  ASSERT_FAILS(Infer("MaxPool", {{In(DType::kComplex64, S({1, 4, 4, 3}))}}, Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID")),
               Code::kDType, "complex64");
}

void test_avg_pool(void** state) {
  assert_string_equal(Join(AttrNames("AvgPool")).c_str(), "ksize,strides,padding,data_format,T");
  assert_string_equal(Def("AvgPool").inputs[0].name.c_str(), "value");
  ASSERT_SHAPE(Infer("AvgPool", {{F(S({2, 5, 5, 3}))}}, Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID")), 0,
               "(2, 2, 2, 3)");
  ASSERT_SHAPE(Infer("AvgPool", {{F(S({2, 3, 5, 5}))}}, Pool({1, 1, 2, 2}, {1, 1, 2, 2}, "SAME", "NCHW")), 0,
               "(2, 3, 3, 3)");
  // Depth is kept even with a depth window (AvgPool does not pool depth).
  ASSERT_SHAPE(Infer("AvgPool", {{F(S({2, 4, 4, -1}))}}, Pool({1, 2, 2, 1}, {1, 1, 1, 1}, "SAME")), 0,
               "(2, 4, 4, None)");
  ASSERT_FAILS(Infer("AvgPool", {{F(S({2, 4, 4, 3}))}}, Pool({1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT")),
               Code::kInvalidArgument, "EXPLICIT");
  ASSERT_FAILS(Infer("AvgPool", {{F(S({2, 4, 4, 3}))}}, Pool({1, 2, 2, 1}, {1, 1, 1, 1}, "SAME", "NCHW_VECT_C")),
               Code::kInvalidArgument, "NCHW_VECT_C");
  ASSERT_FAILS(Infer("AvgPool", {{In(DType::kInt32, S({2, 4, 4, 3}))}}, Pool({1, 2, 2, 1}, {1, 1, 1, 1}, "SAME")),
               Code::kDType, "int32");
}

void test_pool_grads(void** state) {
  assert_string_equal(Join(AttrNames("MaxPoolGrad")).c_str(),
                      "ksize,strides,padding,explicit_paddings,data_format,T");
  InferResult r = Infer("MaxPoolGrad", {{F(S({1, 4, 4, 3}))}, {F(S({1, 2, 2, 3}))}, {F(S({1, 2, 2, 3}))}},
                        Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
  ASSERT_SHAPE(r, 0, "(1, 4, 4, 3)");
  ASSERT_SHAPE(Infer("MaxPoolGrad", {{F(Unknown())}, {F(Unknown())}, {F(Unknown())}},
                     Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID")),
               0, "(None, None, None, None)");
  ASSERT_FAILS(Infer("MaxPoolGrad", {{F(S({4, 4, 3}))}, {F(S({1}))}, {F(S({1}))}},
                     Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID")),
               Code::kShape, "'orig_input' must have rank 4");

  assert_string_equal(Join(AttrNames("AvgPoolGrad")).c_str(), "ksize,strides,padding,data_format,T");
  InferResult a = Infer("AvgPoolGrad", {{Const(Int32s({1, 4, 4, 3}))}, {F(S({1, 2, 2, 3}))}},
                        Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
  ASSERT_SHAPE(a, 0, "(1, 4, 4, 3)");
  assert_int_equal(static_cast<int>(a.output_types.at(0)), static_cast<int>(DType::kFloat32));
  ASSERT_SHAPE(Infer("AvgPoolGrad", {{In(DType::kInt32, S({4}))}, {F(S({1, 2, 2, 3}))}},
                     Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID")),
               0, "(None, None, None, None)");
  ASSERT_FAILS(Infer("AvgPoolGrad", {{Const(Int32s({4, 4, 3}))}, {F(S({1, 2, 2, 3}))}},
                     Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID")),
               Code::kShape, "4-d shape");
  ASSERT_FAILS(Infer("AvgPoolGrad", {{In(DType::kInt64, S({4}))}, {F(S({1, 2, 2, 3}))}},
                     Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID")),
               Code::kDType, "int32");
}

void test_conv_backprop(void** state) {
  assert_string_equal(Join(AttrNames("Conv2DBackpropInput")).c_str(),
                      "T,strides,use_cudnn_on_gpu,padding,explicit_paddings,data_format,dilations");
  assert_string_equal(Join(AttrNames("Conv2DBackpropFilter")).c_str(),
                      "T,strides,use_cudnn_on_gpu,padding,explicit_paddings,data_format,dilations");
  const AttrMap same = Conv({1, 1, 1, 1}, "SAME");
  // A full input_sizes.
  ASSERT_SHAPE(Infer("Conv2DBackpropInput",
                     {{Const(Int32s({2, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}, {F(S({2, 5, 5, 8}))}}, same),
               0, "(2, 5, 5, 3)");
  // Unknown values of known length: the batch comes from out_backprop.
  ASSERT_SHAPE(Infer("Conv2DBackpropInput",
                     {{In(DType::kInt32, S({4}))}, {F(S({3, 3, 3, 8}))}, {F(S({2, 5, 5, 8}))}}, same),
               0, "(2, None, None, None)");
  ASSERT_SHAPE(Infer("Conv2DBackpropInput",
                     {{In(DType::kInt32, Unknown())}, {F(S({3, 3, 3, 8}))}, {F(S({2, 5, 5, 8}))}}, same),
               0, "(2, None, None, None)");
  // Spatial-only input_sizes: depth from filter dim 2, laid out per data_format.
  ASSERT_SHAPE(Infer("Conv2DBackpropInput",
                     {{Const(Int32s({7, 9}))}, {F(S({3, 3, 3, 8}))}, {F(S({2, 4, 5, 8}))}}, same),
               0, "(2, 7, 9, 3)");
  ASSERT_SHAPE(Infer("Conv2DBackpropInput",
                     {{Const(Int32s({7, 9}))}, {F(S({3, 3, 3, 8}))}, {F(S({2, 8, 4, 5}))}},
                     Conv({1, 1, 2, 2}, "SAME", "NCHW")),
               0, "(2, 3, 7, 9)");
  ASSERT_FAILS(Infer("Conv2DBackpropInput",
                     {{Const(Int32s({3, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}, {F(S({2, 5, 5, 8}))}}, same),
               Code::kShape, "batch");
  ASSERT_FAILS(Infer("Conv2DBackpropInput",
                     {{Const(Int32s({5, 5, 3}))}, {F(S({3, 3, 3, 8}))}, {F(S({2, 5, 5, 8}))}}, same),
               Code::kInvalidArgument, "4 entries");
  ASSERT_FAILS(Infer("Conv2DBackpropInput",
                     {{Const(Int32s({2, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}, {F(S({2, 5, 5, 7}))}}, same),
               Code::kShape, "output depth");
  ASSERT_FAILS(Infer("Conv2DBackpropInput",
                     {{Const(Int32s({2, 5, 5, 3}))}, {F(S({3, 3, 8}))}, {F(S({2, 5, 5, 8}))}}, same),
               Code::kShape, "'filter' must have rank 4");
  ASSERT_FAILS(Infer("Conv2DBackpropInput",
                     {{Const(Int64s({2, 5, 5, 3}))}, {F(S({3, 3, 3, 8}))}, {F(S({2, 5, 5, 8}))}}, same),
               Code::kDType, "int32");

  ASSERT_SHAPE(Infer("Conv2DBackpropFilter",
                     {{F(S({2, 5, 5, 3}))}, {Const(Int32s({3, 3, 3, 8}))}, {F(S({2, 5, 5, 8}))}}, same),
               0, "(3, 3, 3, 8)");
  ASSERT_SHAPE(Infer("Conv2DBackpropFilter",
                     {{F(S({2, 5, 5, 3}))}, {In(DType::kInt32, Unknown())}, {F(S({2, 5, 5, 8}))}}, same),
               0, "(None, None, None, None)");
  ASSERT_FAILS(Infer("Conv2DBackpropFilter",
                     {{F(S({2, 5, 5, 3}))}, {Const(Int32s({3, 3, 8}))}, {F(S({2, 5, 5, 8}))}}, same),
               Code::kShape, "'filter_sizes' must hold a 4-d shape");
  ASSERT_FAILS(Infer("Conv2DBackpropFilter",
                     {{In(DType::kInt32, S({2, 5, 5, 3}))}, {Const(Int32s({3, 3, 3, 8}))},
                      {In(DType::kInt32, S({2, 5, 5, 8}))}},
                     same),
               Code::kDType, "int32");
}

// ---------------------------------------------------------------------------------------------
// Softmax, FusedBatchNormV3

void test_softmax(void** state) {
  assert_string_equal(Def("Softmax").outputs[0].name.c_str(), "softmax");
  assert_string_equal(Def("LogSoftmax").outputs[0].name.c_str(), "logsoftmax");
  for (const char* name : {"Softmax", "LogSoftmax"}) {
    ASSERT_SHAPE(Infer(name, {{F(S({2, -1}))}}), 0, "(2, None)");
    ASSERT_SHAPE(Infer(name, {{F(Unknown())}}), 0, "<unknown>");
    ASSERT_FAILS(Infer(name, {{F(S({}))}}), Code::kShape, "'logits' must have rank at least 1");
    ASSERT_FAILS(Infer(name, {{In(DType::kInt32, S({3}))}}), Code::kDType, "int32");
  }
}

std::vector<std::vector<TestInput>> BatchNormInputs(PartialShape x, PartialShape scale, PartialShape stats) {
  return {{In(DType::kFloat16, std::move(x))}, {F(scale)}, {F(scale)}, {F(stats)}, {F(stats)}};
}

void test_fused_batch_norm(void** state) {
  assert_string_equal(Join(AttrNames("FusedBatchNormV3")).c_str(),
                      "T,U,epsilon,exponential_avg_factor,data_format,is_training");
  InferResult r = Infer("FusedBatchNormV3", BatchNormInputs(S({2, 4, 4, 3}), S({3}), S({0})));
  ASSERT_SHAPE(r, 0, "(2, 4, 4, 3)");
  for (int i = 1; i <= 4; ++i) ASSERT_SHAPE(r, i, "(3,)");
  ASSERT_SHAPE(r, 5, "<unknown>");
  assert_int_equal(r.output_types.size(), 6);
  assert_int_equal(static_cast<int>(r.output_types[0]), static_cast<int>(DType::kFloat16));
  assert_int_equal(static_cast<int>(r.output_types[1]), static_cast<int>(DType::kFloat32));
  assert_float_equal(*r.attrs.at("epsilon").get<float>(), 0.0001f, 1e-9);
  assert_float_equal(*r.attrs.at("exponential_avg_factor").get<float>(), 1.0f, 0);
  assert_true(*r.attrs.at("is_training").get<bool>());
  assert_string_equal(r.attrs.at("data_format").get<std::string>()->c_str(), "NHWC");

  // The scale fills in an unknown channel dim; NCHW uses dim 1.
  InferResult nchw = Infer("FusedBatchNormV3", BatchNormInputs(S({2, -1, 4, 4}), S({5}), S({0})),
                           {{"data_format", Str("NCHW")}});
  ASSERT_SHAPE(nchw, 0, "(2, 5, 4, 4)");
  ASSERT_SHAPE(nchw, 2, "(5,)");
  ASSERT_SHAPE(Infer("FusedBatchNormV3", BatchNormInputs(Unknown(), S({-1}), S({0}))), 0,
               "(None, None, None, None)");
  ASSERT_SHAPE(Infer("FusedBatchNormV3", BatchNormInputs(S({1, 2, 3, 4, 6}), S({6}), S({0})),
                     {{"data_format", Str("NDHWC")}}),
               3, "(6,)");
  ASSERT_SHAPE(Infer("FusedBatchNormV3", BatchNormInputs(Unknown(), S({6}), S({6})),
                     {{"data_format", Str("NCDHW")}}),
               0, "(None, 6, None, None, None)");

  ASSERT_FAILS(Infer("FusedBatchNormV3", BatchNormInputs(S({2, 4, 4, 3}), S({4}), S({0}))), Code::kShape,
               "input 'scale' (4,)");
  ASSERT_FAILS(Infer("FusedBatchNormV3", BatchNormInputs(S({2, 4, 4}), S({4}), S({0}))), Code::kShape,
               "'x' must have rank 4");
  ASSERT_FAILS(Infer("FusedBatchNormV3", BatchNormInputs(S({2, 4, 4, 3}), S({3, 1}), S({0}))), Code::kShape,
               "'scale' must have rank 1");
  // Inference reads mean and variance, so they must match too; so does a running average.
  ASSERT_FAILS(Infer("FusedBatchNormV3", BatchNormInputs(S({2, 4, 4, 3}), S({3}), S({0})),
                     {{"is_training", AttrValue::Bool(false)}}),
               Code::kShape, "input 'mean'");
  ASSERT_FAILS(Infer("FusedBatchNormV3", BatchNormInputs(S({2, 4, 4, 3}), S({3}), S({0})),
                     {{"exponential_avg_factor", AttrValue::Float(0.5f)}}),
               Code::kShape, "input 'mean'");
  ASSERT_SHAPE(Infer("FusedBatchNormV3", BatchNormInputs(S({2, 4, 4, 3}), S({3}), S({3})),
                     {{"is_training", AttrValue::Bool(false)}}),
               1, "(3,)");
  ASSERT_FAILS(Infer("FusedBatchNormV3", {{In(DType::kFloat64, S({2, 4, 4, 3}))}, {F(S({3}))}, {F(S({3}))},
                                          {F(S({3}))}, {F(S({3}))}}),
               Code::kDType, "float64");
  ASSERT_FAILS(Infer("FusedBatchNormV3", {{F(S({2, 4, 4, 3}))}, {F(S({3}))}, {In(DType::kFloat16, S({3}))},
                                          {F(S({3}))}, {F(S({3}))}}),
               Code::kDType, "float16");
}

void test_not_stateful_or_commutative(void** state) {
  for (const char* name : {"BiasAdd", "Relu", "MatMul", "BatchMatMulV2", "Conv2D", "DepthwiseConv2dNative", "MaxPool",
                           "AvgPool", "Softmax", "LogSoftmax", "FusedBatchNormV3", "ReluGrad", "Relu6Grad",
                           "SigmoidGrad", "TanhGrad", "BiasAddGrad", "Conv2DBackpropInput", "Conv2DBackpropFilter",
                           "MaxPoolGrad", "AvgPoolGrad", "Relu6", "Elu", "Selu", "LeakyRelu", "Softplus",
                           "Softsign"}) {
    const OpDef& d = Def(name);
    assert_false(d.is_stateful);
    assert_false(d.is_commutative);
    assert_false(d.is_aggregate);
  }
}

// ---------------------------------------------------------------------------------------------
// Losses

void test_losses(void** state) {
  InferResult r = Infer("L2Loss", {{F(S({2, 3}))}});
  ASSERT_SHAPE(r, 0, "()");
  InferResult sparse = Infer("SparseSoftmaxCrossEntropyWithLogits", {{F(S({-1, 5}))}, {In(DType::kInt32, S({4}))}});
  ASSERT_SHAPE(sparse, 0, "(4,)");
  ASSERT_SHAPE(sparse, 1, "(4, 5)");
  CheckTypes(sparse, {DType::kFloat32, DType::kFloat32});
  ASSERT_FAILS(Infer("SparseSoftmaxCrossEntropyWithLogits", {{F(S({3, 5}))}, {In(DType::kInt32, S({4}))}}),
               Code::kShape, "");
  ASSERT_FAILS(Infer("SparseSoftmaxCrossEntropyWithLogits", {{F(S({3}))}, {In(DType::kInt64, S({3}))}}), Code::kShape,
               "");
  ASSERT_FAILS(Infer("SparseSoftmaxCrossEntropyWithLogits", {{F(S({3, 2}))}, {F(S({3}))}}), Code::kDType, "");
  InferResult dense = Infer("SoftmaxCrossEntropyWithLogits", {{F(S({3, 5}))}, {F(S({1, 5}))}});
  ASSERT_SHAPE(dense, 0, "(3,)");
  ASSERT_SHAPE(dense, 1, "(3, 5)");
  ASSERT_FAILS(Infer("SoftmaxCrossEntropyWithLogits", {{F(S({3, 5}))}, {F(S({3, 4}))}}), Code::kShape, "");
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_activations),
      cmocka_unit_test(test_losses),
      cmocka_unit_test(test_activation_grads),
      cmocka_unit_test(test_bias_add),
      cmocka_unit_test(test_matmul),
      cmocka_unit_test(test_batch_matmul),
      cmocka_unit_test(test_conv2d),
      cmocka_unit_test(test_depthwise_conv),
      cmocka_unit_test(test_max_pool),
      cmocka_unit_test(test_avg_pool),
      cmocka_unit_test(test_pool_grads),
      cmocka_unit_test(test_conv_backprop),
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_fused_batch_norm),
      cmocka_unit_test(test_not_stateful_or_commutative),
  };
  return cmocka_run_group_tests_name("ops_nn", tests, nullptr, nullptr);
}
