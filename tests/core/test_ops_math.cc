// Math ops (core/ops/math_ops.cc): signatures, dtypes, flags and shape functions.
#include "tests/core/shape_test_util.h"

using namespace graft;
using namespace graft::testing;

namespace {

TestInput B(PartialShape shape) { return In(DType::kBool, std::move(shape)); }
TestInput Const(Tensor t) {
  TestInput in{t.dtype(), t.shape(), std::nullopt};
  in.value = std::move(t);
  return in;
}

const char* const kBinary[] = {"Add",        "AddV2",         "Sub",          "Mul",     "Div",     "RealDiv",
                               "DivNoNan",   "FloorDiv",      "FloorMod",     "TruncateDiv", "TruncateMod",
                               "Pow",        "Maximum",       "Minimum",      "SquaredDifference", "Atan2"};
const char* const kCompare[] = {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"};
const char* const kUnaryFloat[] = {"Neg",  "Abs",  "Sign", "Square", "Sqrt",  "Rsqrt", "Reciprocal", "Exp",
                                   "Expm1", "Log",  "Log1p", "Sin",  "Cos",   "Tan",   "Tanh",       "Sigmoid",
                                   "Erf",  "Erfc", "Floor", "Ceil", "Round", "Rint", "Asin", "Acos", "Atan", "Sinh",
                                   "Cosh", "Asinh", "Acosh", "Atanh"};
const char* const kReductions[] = {"Sum", "Mean", "Max", "Min", "Prod"};

// ---------------------------------------------------------------------------------------------
// Binary ops

void test_binary_signatures(void** state) {
  for (const char* name : kBinary) {
    const OpDef& d = Def(name);
    assert_int_equal(d.inputs.size(), 2);
    assert_int_equal(d.outputs.size(), 1);
    assert_string_equal(d.outputs[0].name.c_str(), "z");
    assert_string_equal(d.outputs[0].type_attr.c_str(), "T");
    assert_int_equal(d.attrs.size(), 1);
    assert_string_equal(d.attrs[0].name.c_str(), "T");
    assert_false(d.is_stateful);
  }
  assert_string_equal(Def("Add").inputs[0].name.c_str(), "x");
  assert_string_equal(Def("Add").inputs[1].name.c_str(), "y");
  // Atan2 takes (y, x).
  assert_string_equal(Def("Atan2").inputs[0].name.c_str(), "y");
  assert_string_equal(Def("Atan2").inputs[1].name.c_str(), "x");
  // LogicalAnd/LogicalOr: fixed bool, no attrs.
  for (const char* name : {"LogicalAnd", "LogicalOr"}) {
    const OpDef& d = Def(name);
    assert_int_equal(d.attrs.size(), 0);
    assert_int_equal(static_cast<int>(d.inputs[0].type), static_cast<int>(DType::kBool));
    assert_int_equal(static_cast<int>(d.outputs[0].type), static_cast<int>(DType::kBool));
  }
  // The type lists are TensorFlow's, in order: Less is realnumbertype (12 types).
  const auto* less = Def("Less").attrs[0].allowed_values->get<std::vector<DType>>();
  assert_non_null(less);
  assert_int_equal(less->size(), 12);
  assert_int_equal(static_cast<int>((*less)[0]), static_cast<int>(DType::kFloat32));
  const auto* add = Def("Add").attrs[0].allowed_values->get<std::vector<DType>>();
  assert_int_equal(add->size(), 12);
  assert_int_equal(static_cast<int>(add->back()), static_cast<int>(DType::kString));
}

void test_binary_every_op_broadcasts(void** state) {
  for (const char* name : kBinary) {
    InferResult r = Infer(name, {{F(S({2, 1, 3}))}, {F(S({4, 1}))}});
    ASSERT_SHAPE(r, 0, "(2, 4, 3)");
    assert_int_equal(static_cast<int>(r.output_types.at(0)), static_cast<int>(DType::kFloat32));
    assert_int_equal(static_cast<int>(*r.attrs.at("T").get<DType>()), static_cast<int>(DType::kFloat32));
    InferResult bad = Infer(name, {{F(S({2, 3}))}, {F(S({4, 3}))}});
    ASSERT_FAILS(bad, Code::kShape, "cannot be broadcast");
  }
  for (const char* name : kCompare) {
    InferResult r = Infer(name, {{F(S({5, 1}))}, {F(S({1, 6}))}});
    ASSERT_SHAPE(r, 0, "(5, 6)");
    assert_int_equal(static_cast<int>(r.output_types.at(0)), static_cast<int>(DType::kBool));
  }
  for (const char* name : {"LogicalAnd", "LogicalOr"}) {
    InferResult r = Infer(name, {{B(S({3}))}, {B(S({}))}});
    ASSERT_SHAPE(r, 0, "(3,)");
    assert_int_equal(static_cast<int>(r.output_types.at(0)), static_cast<int>(DType::kBool));
  }
}

void test_broadcast_corner_cases(void** state) {
  struct Case {
    PartialShape a, b;
    const char* want;
  } cases[] = {
      {S({2, 3}), S({3}), "(2, 3)"},
      {S({}), S({4, 5}), "(4, 5)"},               // scalar
      {S({4, 5}), S({}), "(4, 5)"},
      {S({}), S({}), "()"},
      {S({2, 1}), S({1, 3}), "(2, 3)"},           // 1-dims both ways
      {S({-1, 3}), S({2, 1}), "(2, 3)"},          // unknown against known > 1
      {S({-1}), S({1}), "(None,)"},               // unknown against 1 stays unknown
      {S({1}), S({-1}), "(None,)"},
      {S({-1}), S({5}), "(5,)"},
      {S({-1}), S({-1}), "(None,)"},
      {S({0}), S({1}), "(0,)"},                   // empty dims broadcast like any other
      {S({0}), S({0}), "(0,)"},
      {S({7, 1, -1}), S({-1, 4}), "(7, None, 4)"},
      {Unknown(), S({2, 3}), "<unknown>"},
      {S({2, 3}), Unknown(), "<unknown>"},
  };
  for (const Case& k : cases) {
    InferResult r = Infer("AddV2", {{F(k.a)}, {F(k.b)}});
    ASSERT_SHAPE(r, 0, k.want);
  }
  ASSERT_FAILS(Infer("Mul", {{F(S({2}))}, {F(S({3}))}}), Code::kShape, "(3,)");
  ASSERT_FAILS(Infer("Sub", {{F(S({0}))}, {F(S({2}))}}), Code::kShape, "cannot be broadcast");
  ASSERT_FAILS(Infer("Less", {{F(S({2, 5}))}, {F(S({2, 4}))}}), Code::kShape, "input 'x' (2, 5)");
}

void test_binary_dtypes(void** state) {
  ASSERT_FAILS(Infer("LogicalAnd", {{F(S({2}))}, {F(S({2}))}}), Code::kDType, "bool");
  ASSERT_FAILS(Infer("LogicalOr", {{B(S({2}))}, {In(DType::kInt32, S({2}))}}), Code::kDType, "bool");
  ASSERT_FAILS(Infer("Add", {{B(S({2}))}, {B(S({2}))}}), Code::kDType, "not supported");
  ASSERT_FAILS(Infer("Atan2", {{In(DType::kInt32, S({}))}, {In(DType::kInt32, S({}))}}), Code::kDType, "int32");
  ASSERT_FAILS(Infer("Less", {{In(DType::kComplex64, S({}))}, {In(DType::kComplex64, S({}))}}), Code::kDType,
               "complex64");
  ASSERT_FAILS(Infer("TruncateMod", {{In(DType::kUInt8, S({}))}, {In(DType::kUInt8, S({}))}}), Code::kDType, "uint8");
  ASSERT_FAILS(Infer("DivNoNan", {{In(DType::kInt32, S({}))}, {In(DType::kInt32, S({}))}}), Code::kDType, "int32");
  // x and y must share T.
  ASSERT_FAILS(Infer("Mul", {{F(S({}))}, {In(DType::kFloat64, S({}))}}), Code::kDType, "float64");
  // Add concatenates strings; AddV2 does not take them.
  InferResult s = Infer("Add", {{In(DType::kString, S({2}))}, {In(DType::kString, S({}))}});
  ASSERT_SHAPE(s, 0, "(2,)");
  assert_int_equal(static_cast<int>(s.output_types.at(0)), static_cast<int>(DType::kString));
  ASSERT_FAILS(Infer("AddV2", {{In(DType::kString, S({}))}, {In(DType::kString, S({}))}}), Code::kDType, "string");
  // Unsigned types where TensorFlow has them.
  assert_true(Infer("AddV2", {{In(DType::kUInt64, S({}))}, {In(DType::kUInt64, S({}))}}).status.ok());
  assert_false(Infer("Add", {{In(DType::kUInt64, S({}))}, {In(DType::kUInt64, S({}))}}).status.ok());
  assert_true(Infer("FloorMod", {{In(DType::kUInt16, S({}))}, {In(DType::kUInt16, S({}))}}).status.ok());
  assert_true(Infer("Pow", {{In(DType::kComplex128, S({}))}, {In(DType::kComplex128, S({}))}}).status.ok());
  assert_false(Infer("Pow", {{In(DType::kUInt8, S({}))}, {In(DType::kUInt8, S({}))}}).status.ok());
}

void test_flags(void** state) {
  for (const char* name : {"AddV2", "Mul", "SquaredDifference", "Equal", "NotEqual", "LogicalAnd", "LogicalOr"}) {
    if (!Def(name).is_commutative) print_error("%s should be commutative\n", name);
    assert_true(Def(name).is_commutative);
  }
  for (const char* name : {"Add", "Sub", "Div", "RealDiv", "Pow", "Maximum", "Minimum", "Less", "Atan2", "Select"}) {
    if (Def(name).is_commutative) print_error("%s should not be commutative\n", name);
    assert_false(Def(name).is_commutative);
  }
  assert_true(Def("AddV2").is_aggregate);
  assert_false(Def("Add").is_aggregate);
  assert_false(Def("Mul").is_aggregate);
  assert_true(Def("CheckNumerics").is_stateful);
  for (const char* name : {"Add", "Neg", "Sum", "Cast", "ArgMax", "Select"}) assert_false(Def(name).is_stateful);
}

// ---------------------------------------------------------------------------------------------
// Equal / NotEqual

void test_equal(void** state) {
  for (const char* name : {"Equal", "NotEqual"}) {
    const OpDef& d = Def(name);
    assert_int_equal(d.attrs.size(), 2);
    assert_string_equal(d.attrs[0].name.c_str(), "T");
    assert_string_equal(d.attrs[1].name.c_str(), "incompatible_shape_error");

    InferResult r = Infer(name, {{In(DType::kString, S({2, 1}))}, {In(DType::kString, S({3}))}});
    ASSERT_SHAPE(r, 0, "(2, 3)");
    assert_int_equal(static_cast<int>(r.output_types.at(0)), static_cast<int>(DType::kBool));
    assert_true(*r.attrs.at("incompatible_shape_error").get<bool>());
    // Any type, bool and complex included.
    assert_true(Infer(name, {{B(S({}))}, {B(S({}))}}).status.ok());
    assert_true(Infer(name, {{In(DType::kComplex64, S({}))}, {In(DType::kComplex64, S({}))}}).status.ok());

    ASSERT_FAILS(Infer(name, {{F(S({2}))}, {F(S({3}))}}), Code::kShape, "cannot be broadcast");

    const AttrMap lenient = {{"incompatible_shape_error", AttrValue::Bool(false)}};
    ASSERT_SHAPE(Infer(name, {{F(S({2}))}, {F(S({3}))}}, lenient), 0, "()");
    ASSERT_SHAPE(Infer(name, {{F(S({4, 2}))}, {F(S({4, 3}))}}, lenient), 0, "()");
    ASSERT_SHAPE(Infer(name, {{F(S({2, 1}))}, {F(S({3}))}}, lenient), 0, "(2, 3)");
    ASSERT_SHAPE(Infer(name, {{F(S({-1, 3}))}, {F(S({5, -1}))}}, lenient), 0, "<unknown>");
    ASSERT_SHAPE(Infer(name, {{F(S({-1}))}, {F(S({1}))}}, lenient), 0, "(None,)");
    ASSERT_SHAPE(Infer(name, {{F(S({-1}))}, {F(S({-1}))}}, lenient), 0, "(None,)");
    ASSERT_SHAPE(Infer(name, {{F(Unknown())}, {F(S({3}))}}, lenient), 0, "<unknown>");
  }
}

// ---------------------------------------------------------------------------------------------
// Select / SelectV2

void test_select(void** state) {
  InferResult r = Infer("Select", {{B(S({}))}, {F(S({2, -1}))}, {F(S({-1, 3}))}});
  ASSERT_SHAPE(r, 0, "(2, 3)");
  assert_int_equal(static_cast<int>(r.output_types.at(0)), static_cast<int>(DType::kFloat32));
  // A vector condition selects rows.
  ASSERT_SHAPE(Infer("Select", {{B(S({4}))}, {F(S({-1, 3}))}, {F(S({-1, 3}))}}), 0, "(4, 3)");
  ASSERT_FAILS(Infer("Select", {{B(S({5}))}, {F(S({4, 3}))}, {F(S({4, 3}))}}), Code::kShape, "first dimension");
  // A vector condition with scalar t/e must be a scalar too.
  ASSERT_FAILS(Infer("Select", {{B(S({2}))}, {F(S({}))}, {F(S({}))}}), Code::kShape, "condition");
  // Otherwise condition has t's shape.
  ASSERT_SHAPE(Infer("Select", {{B(S({2, -1}))}, {F(S({-1, 3}))}, {F(Unknown())}}), 0, "(2, 3)");
  ASSERT_FAILS(Infer("Select", {{B(S({2, 4}))}, {F(S({2, 3}))}, {F(S({2, 3}))}}), Code::kShape, "condition");
  ASSERT_FAILS(Infer("Select", {{B(S({}))}, {F(S({2, 3}))}, {F(S({3, 2}))}}), Code::kShape, "same shape");
  ASSERT_SHAPE(Infer("Select", {{B(Unknown())}, {F(S({2, 3}))}, {F(S({2, 3}))}}), 0, "(2, 3)");
  ASSERT_FAILS(Infer("Select", {{F(S({}))}, {F(S({}))}, {F(S({}))}}), Code::kDType, "bool");
  ASSERT_FAILS(Infer("Select", {{B(S({}))}, {F(S({}))}, {In(DType::kInt32, S({}))}}), Code::kDType, "int32");

  // SelectV2 broadcasts all three.
  ASSERT_SHAPE(Infer("SelectV2", {{B(S({2, 1, 1}))}, {F(S({3, 1}))}, {F(S({4}))}}), 0, "(2, 3, 4)");
  ASSERT_SHAPE(Infer("SelectV2", {{B(S({}))}, {F(S({3}))}, {F(S({}))}}), 0, "(3,)");
  ASSERT_SHAPE(Infer("SelectV2", {{B(S({5}))}, {F(Unknown())}, {F(S({5}))}}), 0, "<unknown>");
  ASSERT_FAILS(Infer("SelectV2", {{B(S({2}))}, {F(S({3}))}, {F(S({3}))}}), Code::kShape, "condition");
  ASSERT_FAILS(Infer("SelectV2", {{B(S({}))}, {F(S({3}))}, {F(S({2}))}}), Code::kShape, "cannot be broadcast");
}

// ---------------------------------------------------------------------------------------------
// Unary ops and Cast

void test_unary(void** state) {
  for (const char* name : kUnaryFloat) {
    const OpDef& d = Def(name);
    assert_string_equal(d.inputs[0].name.c_str(), "x");
    assert_string_equal(d.outputs[0].name.c_str(), "y");
    InferResult r = Infer(name, {{F(S({2, -1, 3}))}});
    ASSERT_SHAPE(r, 0, "(2, None, 3)");
    assert_int_equal(static_cast<int>(r.output_types.at(0)), static_cast<int>(DType::kFloat32));
    ASSERT_SHAPE(Infer(name, {{In(DType::kFloat16, Unknown())}}), 0, "<unknown>");
    // No unary math op takes bool or string.
    ASSERT_FAILS(Infer(name, {{B(S({}))}}), Code::kDType, "not supported");
  }
  for (const char* name : {"IsNan", "IsInf", "IsFinite"}) {
    InferResult r = Infer(name, {{In(DType::kFloat64, S({4}))}});
    ASSERT_SHAPE(r, 0, "(4,)");
    assert_int_equal(static_cast<int>(r.output_types.at(0)), static_cast<int>(DType::kBool));
    ASSERT_FAILS(Infer(name, {{In(DType::kInt32, S({4}))}}), Code::kDType, "int32");
  }
  InferResult n = Infer("LogicalNot", {{B(S({3, 2}))}});
  ASSERT_SHAPE(n, 0, "(3, 2)");
  assert_int_equal(static_cast<int>(n.output_types.at(0)), static_cast<int>(DType::kBool));
  ASSERT_FAILS(Infer("LogicalNot", {{F(S({3}))}}), Code::kDType, "bool");

  // Type lists differ per op.
  assert_true(Infer("Neg", {{In(DType::kInt64, S({}))}}).status.ok());
  assert_true(Infer("Square", {{In(DType::kUInt32, S({}))}}).status.ok());
  assert_true(Infer("Sqrt", {{In(DType::kComplex64, S({}))}}).status.ok());
  assert_true(Infer("Round", {{In(DType::kInt32, S({}))}}).status.ok());
  ASSERT_FAILS(Infer("Neg", {{In(DType::kUInt8, S({}))}}), Code::kDType, "uint8");
  ASSERT_FAILS(Infer("Abs", {{In(DType::kComplex64, S({}))}}), Code::kDType, "complex64");
  ASSERT_FAILS(Infer("Sqrt", {{In(DType::kInt32, S({}))}}), Code::kDType, "int32");
  ASSERT_FAILS(Infer("Floor", {{In(DType::kInt32, S({}))}}), Code::kDType, "int32");
  ASSERT_FAILS(Infer("Erf", {{In(DType::kComplex64, S({}))}}), Code::kDType, "complex64");
}

void test_cast(void** state) {
  const OpDef& d = Def("Cast");
  assert_int_equal(d.attrs.size(), 3);
  assert_string_equal(d.attrs[0].name.c_str(), "SrcT");
  assert_string_equal(d.attrs[1].name.c_str(), "DstT");
  assert_string_equal(d.attrs[2].name.c_str(), "Truncate");
  InferResult r = Infer("Cast", {{In(DType::kInt32, S({2, -1}))}}, {{"DstT", AttrValue::Type(DType::kFloat16)}});
  ASSERT_SHAPE(r, 0, "(2, None)");
  assert_int_equal(static_cast<int>(r.output_types.at(0)), static_cast<int>(DType::kFloat16));
  assert_int_equal(static_cast<int>(*r.attrs.at("SrcT").get<DType>()), static_cast<int>(DType::kInt32));
  assert_false(*r.attrs.at("Truncate").get<bool>());
  // Any dtype to any dtype.
  assert_true(Infer("Cast", {{In(DType::kString, S({}))}}, {{"DstT", AttrValue::Type(DType::kBool)}}).status.ok());
  ASSERT_FAILS(Infer("Cast", {{F(S({}))}}), Code::kInvalidArgument, "DstT");
}

void test_check_numerics(void** state) {
  const OpDef& d = Def("CheckNumerics");
  assert_string_equal(d.inputs[0].name.c_str(), "tensor");
  assert_string_equal(d.attrs[1].name.c_str(), "message");
  InferResult r = Infer("CheckNumerics", {{F(S({3, -1}))}}, {{"message", AttrValue::String("bad")}});
  ASSERT_SHAPE(r, 0, "(3, None)");
  ASSERT_FAILS(Infer("CheckNumerics", {{F(S({3}))}}), Code::kInvalidArgument, "message");
  ASSERT_FAILS(Infer("CheckNumerics", {{In(DType::kInt32, S({3}))}}, {{"message", AttrValue::String("")}}),
               Code::kDType, "int32");
}

// ---------------------------------------------------------------------------------------------
// Reductions

InferResult Reduce(const char* op, TestInput input, TestInput axes, bool keep_dims) {
  return Infer(op, {{std::move(input)}, {std::move(axes)}}, {{"keep_dims", AttrValue::Bool(keep_dims)}});
}

void test_reduction_signatures(void** state) {
  for (const char* name : {"Sum", "Mean", "Max", "Min", "Prod", "All", "Any"}) {
    const OpDef& d = Def(name);
    assert_string_equal(d.inputs[1].name.c_str(), "reduction_indices");
    assert_string_equal(d.attrs[0].name.c_str(), "keep_dims");
    assert_string_equal(d.attrs.back().name.c_str(), "Tidx");
    // Defaults: keep_dims=false, Tidx=int32 (from the axes input here).
    InferResult r = Infer(name, {{In(std::string(name) == "All" || std::string(name) == "Any" ? DType::kBool
                                                                                               : DType::kFloat32,
                                     S({2, 3}))},
                                 {Const(Int32s({1}))}});
    ASSERT_SHAPE(r, 0, "(2,)");
    assert_false(*r.attrs.at("keep_dims").get<bool>());
    assert_int_equal(static_cast<int>(*r.attrs.at("Tidx").get<DType>()), static_cast<int>(DType::kInt32));
  }
  assert_int_equal(Def("Sum").attrs.size(), 3);
  assert_string_equal(Def("Sum").attrs[1].name.c_str(), "T");
  assert_int_equal(Def("All").attrs.size(), 2);
  ASSERT_FAILS(Reduce("All", F(S({2})), Const(Int32s({0})), false), Code::kDType, "bool");
  ASSERT_FAILS(Reduce("Max", In(DType::kComplex64, S({2})), Const(Int32s({0})), false), Code::kDType, "complex64");
  assert_true(Reduce("Sum", In(DType::kComplex64, S({2})), Const(Int32s({0})), false).status.ok());
  assert_true(Reduce("Max", In(DType::kQInt8, S({2})), Const(Int32s({0})), false).status.ok());
  ASSERT_FAILS(Reduce("Sum", F(S({2})), In(DType::kFloat32, S({1})), false), Code::kDType, "float32");
  ASSERT_FAILS(Reduce("Sum", B(S({2})), Const(Int32s({0})), false), Code::kDType, "bool");
}

void test_reduction_constant_axes(void** state) {
  for (const char* name : kReductions) {
    ASSERT_SHAPE(Reduce(name, F(S({2, 3, 4})), Const(Int32s({1})), false), 0, "(2, 4)");
    ASSERT_SHAPE(Reduce(name, F(S({2, 3, 4})), Const(Int32s({1})), true), 0, "(2, 1, 4)");
  }
  ASSERT_SHAPE(Reduce("Sum", F(S({2, 3, 4})), Const(Int32s({-1})), false), 0, "(2, 3)");
  ASSERT_SHAPE(Reduce("Sum", F(S({2, 3, 4})), Const(Int32s({-3, 2})), true), 0, "(1, 3, 1)");
  ASSERT_SHAPE(Reduce("Sum", F(S({2, 3, 4})), Const(Int32s({0, 0, -3})), false), 0, "(3, 4)");  // duplicates
  ASSERT_SHAPE(Reduce("Sum", F(S({2, 3, 4})), Const(Int32s({1}, true)), false), 0, "(2, 4)");  // scalar axis
  ASSERT_SHAPE(Reduce("Sum", F(S({2, 3, 4})), Const(Int32s({})), false), 0, "(2, 3, 4)");      // no axes
  ASSERT_SHAPE(Reduce("Mean", F(S({2, 3, 4})), Const(Int32s({0, 1, 2})), false), 0, "()");
  ASSERT_SHAPE(Reduce("Mean", F(S({-1, 3, -1})), Const(Int32s({1})), false), 0, "(None, None)");
  ASSERT_SHAPE(Reduce("Mean", F(S({-1, 3, -1})), Const(Int32s({0})), true), 0, "(1, 3, None)");
  ASSERT_SHAPE(Reduce("Prod", F(S({})), Const(Int32s({})), true), 0, "()");
  InferResult r64 = Reduce("Max", F(S({5, 6})), Const(Int64s({-2})), false);
  ASSERT_SHAPE(r64, 0, "(6,)");
  assert_int_equal(static_cast<int>(*r64.attrs.at("Tidx").get<DType>()), static_cast<int>(DType::kInt64));
  ASSERT_SHAPE(Reduce("Any", B(S({5, 6})), Const(Int32s({1})), true), 0, "(5, 1)");

  ASSERT_FAILS(Reduce("Sum", F(S({2, 3, 4})), Const(Int32s({3})), false), Code::kInvalidArgument, "axis 3");
  ASSERT_FAILS(Reduce("Sum", F(S({2, 3, 4})), Const(Int32s({-4})), false), Code::kInvalidArgument, "rank 3");
  ASSERT_FAILS(Reduce("All", B(S({})), Const(Int32s({0})), false), Code::kInvalidArgument, "out of range");
}

void test_reduction_unknown_axes(void** state) {
  for (const char* name : kReductions) {
    // Axes unknown: keep_dims still gives the rank.
    ASSERT_SHAPE(Reduce(name, F(S({2, 3, 4})), In(DType::kInt32, S({1})), true), 0, "(None, None, None)");
    ASSERT_SHAPE(Reduce(name, F(S({2, 3, 4})), In(DType::kInt32, S({1})), false), 0, "<unknown>");
  }
  ASSERT_SHAPE(Reduce("Sum", F(S({2, 3})), In(DType::kInt32, Unknown()), true), 0, "(None, None)");
  // Input rank unknown: nothing is known, even with constant axes.
  ASSERT_SHAPE(Reduce("Sum", F(Unknown()), Const(Int32s({0})), false), 0, "<unknown>");
  ASSERT_SHAPE(Reduce("Sum", F(Unknown()), Const(Int32s({0})), true), 0, "<unknown>");
  // reduction_indices has rank <= 1.
  ASSERT_FAILS(Reduce("Sum", F(S({2, 3})), In(DType::kInt32, S({1, 1})), false), Code::kShape,
               "'reduction_indices' must have rank at most 1");
}

void test_argmax(void** state) {
  for (const char* name : {"ArgMax", "ArgMin"}) {
    const OpDef& d = Def(name);
    assert_string_equal(d.inputs[1].name.c_str(), "dimension");
    assert_string_equal(d.attrs[2].name.c_str(), "output_type");
    InferResult r = Infer(name, {{F(S({2, 3, 4}))}, {Const(Int32s({1}, true))}});
    ASSERT_SHAPE(r, 0, "(2, 4)");
    assert_int_equal(static_cast<int>(r.output_types.at(0)), static_cast<int>(DType::kInt64));  // default
    assert_int_equal(static_cast<int>(*r.attrs.at("Tidx").get<DType>()), static_cast<int>(DType::kInt32));
    InferResult r32 = Infer(name, {{F(S({2, 3, 4}))}, {Const(Int64s({-1}, true))}},
                            {{"output_type", AttrValue::Type(DType::kInt32)}});
    ASSERT_SHAPE(r32, 0, "(2, 3)");
    assert_int_equal(static_cast<int>(r32.output_types.at(0)), static_cast<int>(DType::kInt32));
    ASSERT_SHAPE(Infer(name, {{F(S({2, -1, 4}))}, {Const(Int32s({0}, true))}}), 0, "(None, 4)");
    ASSERT_SHAPE(Infer(name, {{F(S({2, 3, 4}))}, {In(DType::kInt32, S({}))}}), 0, "(None, None)");
    ASSERT_SHAPE(Infer(name, {{F(S({7}))}, {In(DType::kInt32, S({}))}}), 0, "()");
    ASSERT_SHAPE(Infer(name, {{F(Unknown())}, {Const(Int32s({0}, true))}}), 0, "<unknown>");
    ASSERT_FAILS(Infer(name, {{F(S({2, 3}))}, {Const(Int32s({2}, true))}}), Code::kInvalidArgument, "out of range");
    ASSERT_FAILS(Infer(name, {{F(S({2, 3}))}, {Const(Int32s({-3}, true))}}), Code::kInvalidArgument, "-3");
    ASSERT_FAILS(Infer(name, {{F(S({2, 3}))}, {Const(Int32s({1}))}}), Code::kShape, "'dimension' must have rank 0");
    assert_true(Infer(name, {{B(S({2, 3}))}, {Const(Int32s({1}, true))}}).status.ok());
    ASSERT_FAILS(Infer(name, {{In(DType::kComplex64, S({2}))}, {Const(Int32s({0}, true))}}), Code::kDType,
                 "complex64");
  }
  // ArgMax (not ArgMin) allows int16 outputs and axes.
  InferResult r16 = Infer("ArgMax", {{F(S({2, 3}))}, {In(DType::kInt16, S({}))}},
                          {{"output_type", AttrValue::Type(DType::kUInt16)}});
  ASSERT_SHAPE(r16, 0, "(None,)");
  assert_int_equal(static_cast<int>(r16.output_types.at(0)), static_cast<int>(DType::kUInt16));
  ASSERT_FAILS(Infer("ArgMin", {{F(S({2, 3}))}, {Const(Int32s({0}, true))}},
                     {{"output_type", AttrValue::Type(DType::kInt16)}}),
               Code::kDType, "int16");
  ASSERT_FAILS(Infer("ArgMin", {{F(S({2, 3}))}, {In(DType::kInt16, S({}))}}), Code::kDType, "int16");
}

// ---------------------------------------------------------------------------------------------
// Einsum

void test_einsum(void** state) {
  auto eq = [](const char* e) { return Attrs({{"equation", AttrValue::String(e)}}); };
  ASSERT_SHAPE(Infer("Einsum", {{F(S({2, 3})), F(S({3, 4}))}}, eq("ij,jk->ik")), 0, "(2, 4)");
  ASSERT_SHAPE(Infer("Einsum", {{F(S({5, 2, 3})), F(S({5, 3, -1}))}}, eq("bij,bjk->bki")), 0, "(5, None, 2)");
  ASSERT_SHAPE(Infer("Einsum", {{F(S({2, 3}))}}, eq("ij->")), 0, "()");
  ASSERT_SHAPE(Infer("Einsum", {{F(S({3, 3}))}}, eq("ii->i")), 0, "(3,)");
  // Implicit output: the letters that occur once, in order.
  ASSERT_SHAPE(Infer("Einsum", {{F(S({2, 3})), F(S({3, 4}))}}, eq("ij,jk")), 0, "(2, 4)");
  // "..." broadcasts (numpy's right alignment); unknown while an input's rank is.
  ASSERT_SHAPE(Infer("Einsum", {{F(S({7, 1, 2, 3})), F(S({4, 3, 5}))}}, eq("...ij,...jk->...ik")), 0,
               "(7, 4, 2, 5)");
  ASSERT_SHAPE(Infer("Einsum", {{F(S({1, 2, 3})), F(S({-1, 3, 5}))}}, eq("...ij,...jk->...ik")), 0,
               "(None, 2, 5)");
  ASSERT_SHAPE(Infer("Einsum", {{F(Unknown()), F(S({3, 4}))}}, eq("...j,jk->...k")), 0, "<unknown>");
  ASSERT_SHAPE(Infer("Einsum", {{F(Unknown()), F(S({3, 4}))}}, eq("ij,jk->ik")), 0, "(None, 4)");
  // Errors name the equation and what is wrong.
  ASSERT_FAILS(Infer("Einsum", {{F(S({2, 3})), F(S({2, 4}))}}, eq("ij,jk->ik")), Code::kInvalidArgument,
               "'j' has size 3 in input 0 but 2 in input 1");
  ASSERT_FAILS(Infer("Einsum", {{F(S({2, 3}))}}, eq("ij,jk->ik")), Code::kInvalidArgument, "2 operands");
  ASSERT_FAILS(Infer("Einsum", {{F(S({2, 3}))}}, eq("ij->ik")), Code::kInvalidArgument, "'k' occurs in no input");
  // As TensorFlow's: an output label may repeat (a diagonal), and any character but '.' is a label.
  ASSERT_SHAPE(Infer("Einsum", {{F(S({2, 3}))}}, eq("ij->ii")), 0, "(2, 2)");
  ASSERT_SHAPE(Infer("Einsum", {{F(S({2, 3}))}}, eq("ij->jii")), 0, "(3, 2, 2)");
  ASSERT_SHAPE(Infer("Einsum", {{F(S({2, 3}))}}, eq("i1->1i")), 0, "(3, 2)");
  ASSERT_SHAPE(Infer("Einsum", {{F(S({1, 2})), F(S({3, 2}))}}, eq("i$,j$->ij")), 0, "(1, 3)");
  ASSERT_FAILS(Infer("Einsum", {{F(S({2, 3}))}}, eq("i j->ji")), Code::kInvalidArgument, "rank 2");
  ASSERT_FAILS(Infer("Einsum", {{F(S({2, 3}))}}, eq("ij->i.")), Code::kInvalidArgument, "stray '.'");
  ASSERT_FAILS(Infer("Einsum", {{F(S({2, 3}))}}, eq("ijk->i")), Code::kInvalidArgument, "rank 2");
  ASSERT_FAILS(Infer("Einsum", {{F(S({2, 3}))}}, eq("i.j->i")), Code::kInvalidArgument, "stray '.'");
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_binary_signatures),
      cmocka_unit_test(test_binary_every_op_broadcasts),
      cmocka_unit_test(test_broadcast_corner_cases),
      cmocka_unit_test(test_binary_dtypes),
      cmocka_unit_test(test_flags),
      cmocka_unit_test(test_equal),
      cmocka_unit_test(test_select),
      cmocka_unit_test(test_unary),
      cmocka_unit_test(test_cast),
      cmocka_unit_test(test_check_numerics),
      cmocka_unit_test(test_reduction_signatures),
      cmocka_unit_test(test_reduction_constant_axes),
      cmocka_unit_test(test_reduction_unknown_axes),
      cmocka_unit_test(test_argmax),
      cmocka_unit_test(test_einsum),
  };
  return cmocka_run_group_tests_name("ops_math", tests, nullptr, nullptr);
}
