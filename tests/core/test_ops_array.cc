// Op definitions and shape functions of the array families (core/ops/structure_ops.cc,
// shape_ops.cc, data_movement_ops.cc, indexing_ops.cc, sequence_ops.cc).
#include "tests/core/shape_test_util.h"

using namespace graft;
using namespace graft::testing;

namespace {

constexpr DType F32 = DType::kFloat32;
constexpr DType I32 = DType::kInt32;
constexpr DType I64 = DType::kInt64;

// An input of this shape and dtype with no known value.
TestInput In(PartialShape shape, DType dtype = F32) { return TestInput{dtype, std::move(shape), std::nullopt}; }
// An input whose value is known while building.
TestInput Val(Tensor t) {
  TestInput in;
  in.dtype = t.dtype();
  in.shape = t.shape();
  in.value = std::move(t);
  return in;
}
TestInput Vec(std::vector<int32_t> v) { return Val(Int32s(std::move(v))); }
TestInput Vec64(std::vector<int64_t> v) { return Val(Int64s(std::move(v))); }
TestInput Sc(int32_t v) { return Val(Int32s({v}, true)); }
TestInput Sc64(int64_t v) { return Val(Int64s({v}, true)); }

Tensor Float32s(std::vector<float> v, std::vector<int64_t> dims) {
  Tensor t;
  Status s = Tensor::Allocate(DType::kFloat32, dims, &t);
  (void)s;
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

Tensor Int8s(std::vector<int8_t> v) {
  Tensor t;
  std::vector<int64_t> dims{static_cast<int64_t>(v.size())};
  Status s = Tensor::Allocate(DType::kInt8, dims, &t);
  (void)s;
  for (size_t i = 0; i < v.size(); ++i) t.data<int8_t>()[i] = v[i];
  return t;
}

// A [rows, 2] int32 matrix (paddings).
Tensor Matrix32(std::vector<int32_t> v) {
  Tensor t;
  std::vector<int64_t> dims{static_cast<int64_t>(v.size() / 2), 2};
  Status s = Tensor::Allocate(DType::kInt32, dims, &t);
  (void)s;
  for (size_t i = 0; i < v.size(); ++i) t.data<int32_t>()[i] = v[i];
  return t;
}

AttrValue Int(int64_t v) { return AttrValue::Int(v); }
AttrValue Ints(std::vector<int64_t> v) { return AttrValue::IntList(std::move(v)); }
AttrValue Type(DType t) { return AttrValue::Type(t); }

void AssertType(const InferResult& r, size_t i, DType t) {
  assert_true(r.status.ok());
  assert_true(i < r.output_types.size());
  assert_int_equal(static_cast<int>(r.output_types[i]), static_cast<int>(t));
}

void AssertIntAttr(const InferResult& r, const char* name, int64_t v) {
  auto it = r.attrs.find(name);
  assert_true(it != r.attrs.end());
  assert_non_null(it->second.get<int64_t>());
  assert_int_equal(*it->second.get<int64_t>(), v);
}

void AssertTypeAttr(const InferResult& r, const char* name, DType t) {
  auto it = r.attrs.find(name);
  assert_true(it != r.attrs.end());
  assert_non_null(it->second.get<DType>());
  assert_int_equal(static_cast<int>(*it->second.get<DType>()), static_cast<int>(t));
}

void AssertBoolAttr(const InferResult& r, const char* name, bool v) {
  auto it = r.attrs.find(name);
  assert_true(it != r.attrs.end());
  assert_non_null(it->second.get<bool>());
  assert_int_equal(*it->second.get<bool>(), v);
}

void AssertStringAttr(const InferResult& r, const char* name, const char* v) {
  auto it = r.attrs.find(name);
  assert_true(it != r.attrs.end());
  assert_non_null(it->second.get<std::string>());
  assert_string_equal(it->second.get<std::string>()->c_str(), v);
}

// StridedSlice with the given masks (begin, end, ellipsis, new_axis, shrink).
InferResult SS(TestInput x, TestInput b, TestInput e, TestInput s, int64_t bm = 0, int64_t em = 0, int64_t ell = 0,
               int64_t na = 0, int64_t sh = 0) {
  return Infer("StridedSlice", {{std::move(x)}, {std::move(b)}, {std::move(e)}, {std::move(s)}},
               {{"begin_mask", Int(bm)},
                {"end_mask", Int(em)},
                {"ellipsis_mask", Int(ell)},
                {"new_axis_mask", Int(na)},
                {"shrink_axis_mask", Int(sh)}});
}

// ---------------------------------------------------------------------------------------

void test_op_defs(void** state) {
  (void)state;
  const char* ops[] = {"Const", "Placeholder", "PlaceholderWithDefault", "Identity", "IdentityN", "NoOp",
                       "StopGradient", "PreventGradient", "Snapshot", "Shape", "ShapeN", "Size", "Rank", "Reshape",
                       "Transpose", "ExpandDims", "Squeeze", "ConcatV2", "Pack", "Unpack", "Split", "SplitV",
                       "Slice", "StridedSlice", "GatherV2", "GatherNd", "Tile", "Pad", "PadV2", "MirrorPad", "Fill",
                       "ZerosLike", "OnesLike", "Range", "BroadcastTo", "OneHot", "Where", "Cumsum", "TopKV2",
                       "DynamicStitch", "InvertPermutation", "Unique", "BroadcastGradientArgs"};
  for (const char* op : ops) {
    if (OpRegistry::Global().Find(op) == nullptr) print_error("missing op %s\n", op);
    assert_non_null(OpRegistry::Global().Find(op));
  }
  // Attr order as TensorFlow declares it.
  auto attr_names = [](const char* op) {
    std::string s;
    for (const OpAttrDef& a : OpRegistry::Global().Find(op)->def.attrs) s += (s.empty() ? "" : ",") + a.name;
    return s;
  };
  assert_string_equal(attr_names("GatherV2").c_str(), "batch_dims,Tparams,Tindices,Taxis");
  assert_string_equal(attr_names("StridedSlice").c_str(),
                      "T,Index,begin_mask,end_mask,ellipsis_mask,new_axis_mask,shrink_axis_mask");
  assert_string_equal(attr_names("OneHot").c_str(), "axis,T,TI");
  assert_string_equal(attr_names("Cumsum").c_str(), "exclusive,reverse,T,Tidx");
  assert_string_equal(attr_names("TopKV2").c_str(), "sorted,T,Tk,index_type");
  assert_string_equal(attr_names("ConcatV2").c_str(), "N,T,Tidx");
  assert_string_equal(attr_names("Unpack").c_str(), "num,T,axis");
  assert_string_equal(attr_names("SplitV").c_str(), "num_split,T,Tlen");
  // Input and output names.
  const OpDef& split = OpRegistry::Global().Find("Split")->def;
  assert_string_equal(split.inputs[0].name.c_str(), "split_dim");
  assert_int_equal(static_cast<int>(split.inputs[0].type), static_cast<int>(I32));
  assert_string_equal(split.outputs[0].number_attr.c_str(), "num_split");
  const OpDef& stitch = OpRegistry::Global().Find("DynamicStitch")->def;
  assert_string_equal(stitch.outputs[0].name.c_str(), "merged");
  // Defaults and minimums.
  const OpAttrDef* tlen = OpRegistry::Global().Find("SplitV")->def.FindAttr("Tlen");
  assert_non_null(tlen);
  assert_true(tlen->default_value.has_value());
  assert_int_equal(static_cast<int>(*tlen->default_value->get<DType>()), static_cast<int>(I64));
  const OpAttrDef* n = OpRegistry::Global().Find("ConcatV2")->def.FindAttr("N");
  assert_true(n->has_minimum);
  assert_int_equal(n->minimum, 2);
  const OpAttrDef* where_t = OpRegistry::Global().Find("Where")->def.FindAttr("T");
  assert_int_equal(where_t->allowed_values->list_size(), 20);  // numbertype + bool
  assert_int_equal(static_cast<int>(*where_t->default_value->get<DType>()), static_cast<int>(DType::kBool));
}

void test_const(void** state) {
  (void)state;
  InferResult r = Infer("Const", {}, {{"value", AttrValue::TensorValue(Float32s({1, 2, 3, 4, 5, 6}, {2, 3}))},
                                      {"dtype", Type(F32)}});
  ASSERT_SHAPE(r, 0, "(2, 3)");
  AssertType(r, 0, F32);
  r = Infer("Const", {}, {{"value", AttrValue::TensorValue(Int64s({7}, true))}, {"dtype", Type(I64)}});
  ASSERT_SHAPE(r, 0, "()");
  AssertType(r, 0, I64);
  Tensor strings;
  assert_true(Tensor::FromStrings(std::vector<int64_t>{2}, {"a", "b"}, &strings).ok());
  r = Infer("Const", {}, {{"value", AttrValue::TensorValue(strings)}, {"dtype", Type(DType::kString)}});
  ASSERT_SHAPE(r, 0, "(2,)");
  // The value's dtype must be the dtype attr.
  r = Infer("Const", {}, {{"value", AttrValue::TensorValue(Int32s({1, 2}))}, {"dtype", Type(F32)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "dtype");
  r = Infer("Const", {}, {{"dtype", Type(F32)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "value");
}

void test_placeholder(void** state) {
  (void)state;
  InferResult r = Infer("Placeholder", {}, {{"dtype", Type(I32)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  AssertType(r, 0, I32);
  assert_non_null(r.attrs.at("shape").get<PartialShape>());
  assert_false(r.attrs.at("shape").get<PartialShape>()->known_rank());
  r = Infer("Placeholder", {}, {{"dtype", Type(F32)}, {"shape", AttrValue::Shape(S({2, -1}))}});
  ASSERT_SHAPE(r, 0, "(2, None)");
  r = Infer("Placeholder", {}, {{"dtype", Type(F32)}, {"shape", AttrValue::Shape(S({}))}});
  ASSERT_SHAPE(r, 0, "()");
  r = Infer("Placeholder", {}, {});
  ASSERT_FAILS(r, Code::kInvalidArgument, "dtype");

  r = Infer("PlaceholderWithDefault", {{In(S({2, 3}))}}, {{"shape", AttrValue::Shape(S({-1, 3}))}});
  ASSERT_SHAPE(r, 0, "(None, 3)");  // the attr, not the (more specific) input
  AssertType(r, 0, F32);
  AssertTypeAttr(r, "dtype", F32);
  r = Infer("PlaceholderWithDefault", {{In(Unknown())}}, {{"shape", AttrValue::Shape(S({4}))}});
  ASSERT_SHAPE(r, 0, "(4,)");
  r = Infer("PlaceholderWithDefault", {{In(S({2, 3}))}}, {{"shape", AttrValue::Shape(S({4, 3}))}});
  ASSERT_FAILS(r, Code::kShape, "not compatible");
  r = Infer("PlaceholderWithDefault", {{In(S({2, 3}))}}, {{"shape", AttrValue::Shape(S({2}))}});
  ASSERT_FAILS(r, Code::kShape, "(2, 3)");
}

void test_identities(void** state) {
  (void)state;
  for (const char* op : {"Identity", "StopGradient", "PreventGradient", "Snapshot", "ZerosLike", "OnesLike"}) {
    InferResult r = Infer(op, {{In(S({2, -1}), I32)}});
    ASSERT_SHAPE(r, 0, "(2, None)");
    AssertType(r, 0, I32);
    AssertTypeAttr(r, "T", I32);
    r = Infer(op, {{In(Unknown(), DType::kBool)}});
    ASSERT_SHAPE(r, 0, "<unknown>");
    AssertType(r, 0, DType::kBool);
  }
  InferResult r = Infer("PreventGradient", {{In(S({3}))}});
  AssertStringAttr(r, "message", "");
  r = Infer("PreventGradient", {{In(S({3}))}}, {{"message", AttrValue::String("no grad")}});
  AssertStringAttr(r, "message", "no grad");
  // OnesLike has a restricted T.
  r = Infer("OnesLike", {{In(S({2}), DType::kString)}});
  ASSERT_FAILS(r, Code::kDType, "string");
}

void test_identity_n(void** state) {
  (void)state;
  InferResult r = Infer("IdentityN", {{In(S({2, 3}), F32), In(S({}), I64), In(Unknown(), DType::kString)}});
  assert_int_equal(r.output_shapes.size(), 3);
  ASSERT_SHAPE(r, 0, "(2, 3)");
  ASSERT_SHAPE(r, 1, "()");
  ASSERT_SHAPE(r, 2, "<unknown>");
  AssertType(r, 0, F32);
  AssertType(r, 1, I64);
  AssertType(r, 2, DType::kString);
  r = Infer("IdentityN", {{}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "minimum");
}

void test_no_op(void** state) {
  (void)state;
  InferResult r = Infer("NoOp", {});
  assert_true(r.status.ok());
  assert_int_equal(r.output_shapes.size(), 0);
  assert_int_equal(r.output_types.size(), 0);
  r = Infer("NoOp", {{In(S({1}))}});
  assert_false(r.status.ok());
}

void test_shape_size_rank(void** state) {
  (void)state;
  InferResult r = Infer("Shape", {{In(S({2, -1, 4}))}});
  ASSERT_SHAPE(r, 0, "(3,)");
  AssertType(r, 0, I32);
  AssertTypeAttr(r, "out_type", I32);
  r = Infer("Shape", {{In(Unknown())}}, {{"out_type", Type(I64)}});
  ASSERT_SHAPE(r, 0, "(None,)");
  AssertType(r, 0, I64);
  r = Infer("Shape", {{In(S({}))}});
  ASSERT_SHAPE(r, 0, "(0,)");
  r = Infer("Shape", {{In(S({2}))}}, {{"out_type", Type(F32)}});
  ASSERT_FAILS(r, Code::kDType, "out_type");

  r = Infer("ShapeN", {{In(S({2, 3})), In(Unknown()), In(S({5}))}});
  assert_int_equal(r.output_shapes.size(), 3);
  ASSERT_SHAPE(r, 0, "(2,)");
  ASSERT_SHAPE(r, 1, "(None,)");
  ASSERT_SHAPE(r, 2, "(1,)");
  AssertType(r, 2, I32);
  AssertIntAttr(r, "N", 3);
  r = Infer("ShapeN", {{In(S({2}))}}, {{"out_type", Type(I64)}});
  AssertType(r, 0, I64);
  r = Infer("ShapeN", {{In(S({2}), F32), In(S({2}), I32)}});
  ASSERT_FAILS(r, Code::kDType, "T");

  r = Infer("Size", {{In(S({2, -1}))}});
  ASSERT_SHAPE(r, 0, "()");
  AssertType(r, 0, I32);
  AssertTypeAttr(r, "out_type", I32);
  r = Infer("Size", {{In(Unknown())}}, {{"out_type", Type(I64)}});
  ASSERT_SHAPE(r, 0, "()");
  AssertType(r, 0, I64);
  r = Infer("Size", {{In(S({2}))}}, {{"out_type", Type(DType::kInt16)}});
  ASSERT_FAILS(r, Code::kDType, "out_type");

  r = Infer("Rank", {{In(S({2, 3, 4}), DType::kString)}});
  ASSERT_SHAPE(r, 0, "()");
  AssertType(r, 0, I32);
  r = Infer("Rank", {{In(Unknown())}});
  ASSERT_SHAPE(r, 0, "()");
}

void test_reshape(void** state) {
  (void)state;
  InferResult r = Infer("Reshape", {{In(S({2, 3}))}, {Vec({3, 2})}});
  ASSERT_SHAPE(r, 0, "(3, 2)");
  AssertType(r, 0, F32);
  AssertTypeAttr(r, "Tshape", I32);
  r = Infer("Reshape", {{In(S({2, 3}))}, {Vec64({-1})}});
  ASSERT_SHAPE(r, 0, "(6,)");
  AssertTypeAttr(r, "Tshape", I64);
  r = Infer("Reshape", {{In(S({4, 6}))}, {Vec({2, -1, 3})}});
  ASSERT_SHAPE(r, 0, "(2, 4, 3)");
  // The input's element count is unknown: -1 stays unknown.
  r = Infer("Reshape", {{In(S({-1, 6}))}, {Vec({-1, 3})}});
  ASSERT_SHAPE(r, 0, "(None, 3)");
  r = Infer("Reshape", {{In(Unknown())}, {Vec({2, -1})}});
  ASSERT_SHAPE(r, 0, "(2, None)");
  r = Infer("Reshape", {{In(S({0, 4}))}, {Vec({0, -1})}});
  ASSERT_SHAPE(r, 0, "(0, None)");
  r = Infer("Reshape", {{In(S({2, 3}))}, {Vec({})}});
  ASSERT_FAILS(r, Code::kShape, "6 elements");
  r = Infer("Reshape", {{In(S({1, 1}))}, {Vec({})}});
  ASSERT_SHAPE(r, 0, "()");
  // A shape whose value is not known: its length gives the rank.
  r = Infer("Reshape", {{In(S({2, 3}))}, {In(S({3}), I32)}});
  ASSERT_SHAPE(r, 0, "(None, None, None)");
  r = Infer("Reshape", {{In(S({2, 3}))}, {In(S({1}), I32)}});
  ASSERT_SHAPE(r, 0, "(6,)");
  r = Infer("Reshape", {{In(S({2, 3}))}, {In(S({-1}), I32)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Reshape", {{In(S({2, 3}))}, {Sc(-1)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  // Errors.
  r = Infer("Reshape", {{In(S({2, 3}))}, {Vec({4, 2})}});
  ASSERT_FAILS(r, Code::kShape, "cannot reshape");
  r = Infer("Reshape", {{In(S({2, 3}))}, {Vec({-1, 4})}});
  ASSERT_FAILS(r, Code::kShape, "not a multiple of 4");
  r = Infer("Reshape", {{In(S({-1, 4}))}, {Vec({6})}});
  ASSERT_FAILS(r, Code::kShape, "not a multiple");
  r = Infer("Reshape", {{In(S({2, 3}))}, {Vec({-1, -1})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "more than one -1");
  r = Infer("Reshape", {{In(S({2, 3}))}, {Vec({-2, 3})}});
  ASSERT_FAILS(r, Code::kShape, "-2");
  r = Infer("Reshape", {{In(S({2, 3}))}, {In(S({2, 2}), I32)}});
  ASSERT_FAILS(r, Code::kShape, "vector");
  r = Infer("Reshape", {{In(S({2, 3}))}, {In(S({2}), F32)}});
  ASSERT_FAILS(r, Code::kDType, "Tshape");
}

void test_transpose(void** state) {
  (void)state;
  InferResult r = Infer("Transpose", {{In(S({2, 3, 4}))}, {Vec({2, 0, 1})}});
  ASSERT_SHAPE(r, 0, "(4, 2, 3)");
  AssertType(r, 0, F32);
  AssertTypeAttr(r, "Tperm", I32);
  r = Infer("Transpose", {{In(S({2, -1}))}, {Vec64({1, 0})}});
  ASSERT_SHAPE(r, 0, "(None, 2)");
  r = Infer("Transpose", {{In(S({2, 3, 4}))}, {In(S({3}), I32)}});
  ASSERT_SHAPE(r, 0, "(None, None, None)");
  r = Infer("Transpose", {{In(S({2, 3}))}, {In(Unknown(), I32)}});
  ASSERT_SHAPE(r, 0, "(None, None)");
  r = Infer("Transpose", {{In(Unknown())}, {Vec({1, 0})}});
  ASSERT_SHAPE(r, 0, "(None, None)");
  r = Infer("Transpose", {{In(Unknown())}, {In(Unknown(), I32)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Transpose", {{In(S({}))}, {Vec({})}});
  ASSERT_SHAPE(r, 0, "()");
  r = Infer("Transpose", {{In(S({2, 3, 4}))}, {Vec({1, 0})}});
  ASSERT_FAILS(r, Code::kShape, "rank 3");
  r = Infer("Transpose", {{In(S({2, 3, 4}))}, {Vec({0, 0, 1})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "not a permutation");
  r = Infer("Transpose", {{In(S({2, 3, 4}))}, {Vec({0, 1, 3})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
  // Negative entries count from the end, as TensorFlow's; normalised, still a permutation.
  r = Infer("Transpose", {{In(S({2, 3, 4}))}, {Vec({-1, 0, -2})}});
  ASSERT_SHAPE(r, 0, "(4, 2, 3)");
  r = Infer("Transpose", {{In(S({2, 3}))}, {Vec({-1, 1})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "not a permutation");
  r = Infer("Transpose", {{In(S({2, 3}))}, {Vec({0, -3})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "perm[1] = -3 is out of range [-2, 2)");
  r = Infer("Transpose", {{In(S({2, 3}))}, {In(S({2, 1}), I32)}});
  ASSERT_FAILS(r, Code::kShape, "perm");
  r = Infer("Transpose", {{In(S({2, 3}))}, {Val(Float32s({1, 0}, {2}))}});
  ASSERT_FAILS(r, Code::kDType, "Tperm");
}

void test_expand_dims(void** state) {
  (void)state;
  InferResult r = Infer("ExpandDims", {{In(S({2, 3}))}, {Sc(0)}});
  ASSERT_SHAPE(r, 0, "(1, 2, 3)");
  AssertTypeAttr(r, "Tdim", I32);
  r = Infer("ExpandDims", {{In(S({2, 3}))}, {Sc64(-1)}});
  ASSERT_SHAPE(r, 0, "(2, 3, 1)");
  r = Infer("ExpandDims", {{In(S({2, 3}))}, {Vec({1})}});
  ASSERT_SHAPE(r, 0, "(2, 1, 3)");
  r = Infer("ExpandDims", {{In(S({2, 3}))}, {Sc(2)}});
  ASSERT_SHAPE(r, 0, "(2, 3, 1)");
  r = Infer("ExpandDims", {{In(S({2, 3}))}, {Sc(-3)}});
  ASSERT_SHAPE(r, 0, "(1, 2, 3)");
  r = Infer("ExpandDims", {{In(S({}))}, {Sc(0)}});
  ASSERT_SHAPE(r, 0, "(1,)");
  r = Infer("ExpandDims", {{In(S({2, 3}))}, {In(S({}), I32)}});
  ASSERT_SHAPE(r, 0, "(None, None, None)");
  r = Infer("ExpandDims", {{In(Unknown())}, {Sc(0)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("ExpandDims", {{In(S({2, 3}))}, {Sc(3)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
  r = Infer("ExpandDims", {{In(S({2, 3}))}, {Sc(-4)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "-4");
  r = Infer("ExpandDims", {{In(S({2, 3}))}, {Vec({0, 1})}});
  ASSERT_FAILS(r, Code::kShape, "exactly one element");
  r = Infer("ExpandDims", {{In(S({2, 3}))}, {In(S({1, 1}), I32)}});
  ASSERT_FAILS(r, Code::kShape, "rank at most 1");
}

void test_squeeze(void** state) {
  (void)state;
  InferResult r = Infer("Squeeze", {{In(S({1, 3, 1}))}});
  ASSERT_SHAPE(r, 0, "(3,)");
  assert_non_null(r.attrs.at("squeeze_dims").get<std::vector<int64_t>>());
  assert_int_equal(r.attrs.at("squeeze_dims").list_size(), 0);
  r = Infer("Squeeze", {{In(S({1, 3, 1}))}}, {{"squeeze_dims", Ints({0})}});
  ASSERT_SHAPE(r, 0, "(3, 1)");
  r = Infer("Squeeze", {{In(S({1, 3, 1}))}}, {{"squeeze_dims", Ints({-1})}});
  ASSERT_SHAPE(r, 0, "(1, 3)");
  // Unknown dims: removed when listed; without a list the result is unknown.
  r = Infer("Squeeze", {{In(S({-1, 3}))}}, {{"squeeze_dims", Ints({0})}});
  ASSERT_SHAPE(r, 0, "(3,)");
  r = Infer("Squeeze", {{In(S({-1, 3}))}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Squeeze", {{In(S({2, 3}))}});
  ASSERT_SHAPE(r, 0, "(2, 3)");
  r = Infer("Squeeze", {{In(Unknown())}}, {{"squeeze_dims", Ints({0})}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Squeeze", {{In(S({1, 3, 1}))}}, {{"squeeze_dims", Ints({1})}});
  ASSERT_FAILS(r, Code::kShape, "not 1");
  r = Infer("Squeeze", {{In(S({1, 3, 1}))}}, {{"squeeze_dims", Ints({3})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
}

void test_concat(void** state) {
  (void)state;
  InferResult r = Infer("ConcatV2", {{In(S({2, 3})), In(S({4, 3}))}, {Sc(0)}});
  ASSERT_SHAPE(r, 0, "(6, 3)");
  AssertType(r, 0, F32);
  AssertIntAttr(r, "N", 2);
  AssertTypeAttr(r, "Tidx", I32);
  r = Infer("ConcatV2", {{In(S({2, 3})), In(S({2, 5})), In(S({-1, 1}))}, {Sc64(-1)}});
  ASSERT_SHAPE(r, 0, "(2, 9)");
  AssertTypeAttr(r, "Tidx", I64);
  r = Infer("ConcatV2", {{In(S({-1, 3})), In(S({4, 3}))}, {Sc(0)}});
  ASSERT_SHAPE(r, 0, "(None, 3)");
  r = Infer("ConcatV2", {{In(S({-1, -1})), In(S({4, 3}))}, {Sc(1)}});
  ASSERT_SHAPE(r, 0, "(4, None)");
  r = Infer("ConcatV2", {{In(Unknown()), In(S({4, 3}))}, {Sc(0)}});
  ASSERT_SHAPE(r, 0, "(None, 3)");
  r = Infer("ConcatV2", {{In(S({2, 3})), In(S({4, 3}))}, {In(S({}), I32)}});
  ASSERT_SHAPE(r, 0, "(None, None)");
  r = Infer("ConcatV2", {{In(Unknown()), In(Unknown())}, {Sc(0)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("ConcatV2", {{In(S({2, 3})), In(S({4, 3}))}, {Sc(1)}});
  ASSERT_FAILS(r, Code::kShape, "dimension 0");
  r = Infer("ConcatV2", {{In(S({2, 3})), In(S({2, 3, 1}))}, {Sc(0)}});
  ASSERT_FAILS(r, Code::kShape, "same rank");
  r = Infer("ConcatV2", {{In(S({2, 3})), In(S({2, 3}))}, {Sc(2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
  r = Infer("ConcatV2", {{In(S({})), In(S({}))}, {Sc(0)}});
  ASSERT_FAILS(r, Code::kShape, "scalars");
  r = Infer("ConcatV2", {{In(S({2})), In(S({2}))}, {Vec({0})}});
  ASSERT_FAILS(r, Code::kShape, "axis");
  r = Infer("ConcatV2", {{In(S({2}))}, {Sc(0)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "minimum");
}

void test_pack_unpack(void** state) {
  (void)state;
  InferResult r = Infer("Pack", {{In(S({2, 3})), In(S({2, 3})), In(S({2, 3}))}});
  ASSERT_SHAPE(r, 0, "(3, 2, 3)");
  AssertIntAttr(r, "axis", 0);
  AssertIntAttr(r, "N", 3);
  r = Infer("Pack", {{In(S({2, 3})), In(S({2, 3}))}}, {{"axis", Int(-1)}});
  ASSERT_SHAPE(r, 0, "(2, 3, 2)");
  r = Infer("Pack", {{In(S({2, 3})), In(S({2, 3}))}}, {{"axis", Int(1)}});
  ASSERT_SHAPE(r, 0, "(2, 2, 3)");
  r = Infer("Pack", {{In(S({-1, 3})), In(S({2, -1})), In(Unknown())}});
  ASSERT_SHAPE(r, 0, "(3, 2, 3)");
  r = Infer("Pack", {{In(S({})), In(S({}))}});
  ASSERT_SHAPE(r, 0, "(2,)");
  r = Infer("Pack", {{In(Unknown())}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Pack", {{In(S({2, 3})), In(S({3, 3}))}});
  ASSERT_FAILS(r, Code::kShape, "same shape");
  r = Infer("Pack", {{In(S({2, 3}))}}, {{"axis", Int(3)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
  r = Infer("Pack", {{In(S({2}), F32), In(S({2}), I32)}});
  ASSERT_FAILS(r, Code::kDType, "T");

  r = Infer("Unpack", {{In(S({3, 4}), I32)}}, {{"num", Int(3)}});
  assert_int_equal(r.output_shapes.size(), 3);
  ASSERT_SHAPE(r, 0, "(4,)");
  ASSERT_SHAPE(r, 2, "(4,)");
  AssertType(r, 1, I32);
  AssertIntAttr(r, "axis", 0);
  r = Infer("Unpack", {{In(S({3, 4}))}}, {{"num", Int(4)}, {"axis", Int(-1)}});
  assert_int_equal(r.output_shapes.size(), 4);
  ASSERT_SHAPE(r, 3, "(3,)");
  r = Infer("Unpack", {{In(S({-1, 4}))}}, {{"num", Int(2)}});
  ASSERT_SHAPE(r, 1, "(4,)");
  r = Infer("Unpack", {{In(Unknown())}}, {{"num", Int(2)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Unpack", {{In(S({3, 4}))}}, {{"num", Int(4)}});
  ASSERT_FAILS(r, Code::kShape, "num is 4");
  r = Infer("Unpack", {{In(S({3, 4}))}}, {{"num", Int(3)}, {"axis", Int(2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
  r = Infer("Unpack", {{In(S({}))}}, {{"num", Int(1)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "rank 0");
  r = Infer("Unpack", {{In(S({3}))}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "num");
}

void test_split(void** state) {
  (void)state;
  InferResult r = Infer("Split", {{Sc(1)}, {In(S({2, 6}))}}, {{"num_split", Int(3)}});
  assert_int_equal(r.output_shapes.size(), 3);
  ASSERT_SHAPE(r, 0, "(2, 2)");
  ASSERT_SHAPE(r, 2, "(2, 2)");
  AssertType(r, 2, F32);
  r = Infer("Split", {{Sc(-2)}, {In(S({-1, 6}))}}, {{"num_split", Int(2)}});
  ASSERT_SHAPE(r, 1, "(None, 6)");
  r = Infer("Split", {{In(S({}), I32)}, {In(S({2, 6}))}}, {{"num_split", Int(2)}});
  ASSERT_SHAPE(r, 0, "(None, None)");
  r = Infer("Split", {{In(S({}), I32)}, {In(S({2, 6}))}}, {{"num_split", Int(1)}});
  ASSERT_SHAPE(r, 0, "(2, 6)");
  r = Infer("Split", {{Sc(0)}, {In(Unknown())}}, {{"num_split", Int(2)}});
  ASSERT_SHAPE(r, 1, "<unknown>");
  r = Infer("Split", {{Sc(1)}, {In(S({2, 6}))}}, {{"num_split", Int(4)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "evenly");
  r = Infer("Split", {{Sc(2)}, {In(S({2, 6}))}}, {{"num_split", Int(2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
  r = Infer("Split", {{In(S({1}), I32)}, {In(S({2, 6}))}}, {{"num_split", Int(2)}});
  ASSERT_FAILS(r, Code::kShape, "split_dim");
  r = Infer("Split", {{Sc64(1)}, {In(S({2, 6}))}}, {{"num_split", Int(2)}});
  ASSERT_FAILS(r, Code::kDType, "int32");
  r = Infer("Split", {{Sc(1)}, {In(S({2, 6}))}}, {{"num_split", Int(0)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "minimum");
}

void test_split_v(void** state) {
  (void)state;
  InferResult r = Infer("SplitV", {{In(S({2, 10}))}, {Vec({3, -1, 2})}, {Sc(1)}}, {{"num_split", Int(3)}});
  assert_int_equal(r.output_shapes.size(), 3);
  ASSERT_SHAPE(r, 0, "(2, 3)");
  ASSERT_SHAPE(r, 1, "(2, 5)");
  ASSERT_SHAPE(r, 2, "(2, 2)");
  AssertTypeAttr(r, "Tlen", I32);
  r = Infer("SplitV", {{In(S({2, 10}))}, {Val(Int8s({4, 6}))}, {Sc(-1)}}, {{"num_split", Int(2)}});
  ASSERT_SHAPE(r, 1, "(2, 6)");
  AssertTypeAttr(r, "Tlen", DType::kInt8);
  r = Infer("SplitV", {{In(S({2, -1}))}, {Vec64({3, -1})}, {Sc(1)}}, {{"num_split", Int(2)}});
  ASSERT_SHAPE(r, 0, "(2, 3)");
  ASSERT_SHAPE(r, 1, "(2, None)");
  r = Infer("SplitV", {{In(S({2, 10}))}, {In(S({2}), I64)}, {Sc(1)}}, {{"num_split", Int(2)}});
  ASSERT_SHAPE(r, 0, "(2, None)");
  r = Infer("SplitV", {{In(S({2, 10}))}, {Vec({3, 7})}, {In(S({}), I32)}}, {{"num_split", Int(2)}});
  ASSERT_SHAPE(r, 1, "(None, None)");
  r = Infer("SplitV", {{In(Unknown())}, {Vec({3, 7})}, {Sc(0)}}, {{"num_split", Int(2)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("SplitV", {{In(S({2, 10}))}, {Vec({3, 6})}, {Sc(1)}}, {{"num_split", Int(2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "add up to 9");
  r = Infer("SplitV", {{In(S({2, 10}))}, {Vec({11, -1})}, {Sc(1)}}, {{"num_split", Int(2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "more than dimension");
  r = Infer("SplitV", {{In(S({2, 10}))}, {Vec({-1, -1})}, {Sc(1)}}, {{"num_split", Int(2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "more than one -1");
  r = Infer("SplitV", {{In(S({2, 10}))}, {Vec({-3, 13})}, {Sc(1)}}, {{"num_split", Int(2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "negative");
  r = Infer("SplitV", {{In(S({2, 10}))}, {Vec({5, 5})}, {Sc(1)}}, {{"num_split", Int(3)}});
  ASSERT_FAILS(r, Code::kShape, "num_split is 3");
  r = Infer("SplitV", {{In(S({2, 10}))}, {Vec({5, 5})}, {Sc(2)}}, {{"num_split", Int(2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
  r = Infer("SplitV", {{In(S({2, 10}))}, {Val(Float32s({5, 5}, {2}))}, {Sc(1)}}, {{"num_split", Int(2)}});
  ASSERT_FAILS(r, Code::kDType, "Tlen");
}

void test_slice(void** state) {
  (void)state;
  InferResult r = Infer("Slice", {{In(S({5, 6}))}, {Vec({1, 2})}, {Vec({2, -1})}});
  ASSERT_SHAPE(r, 0, "(2, 4)");
  AssertTypeAttr(r, "Index", I32);
  r = Infer("Slice", {{In(S({5, -1}))}, {Vec64({1, 2})}, {Vec64({-1, -1})}});
  ASSERT_SHAPE(r, 0, "(4, None)");
  AssertTypeAttr(r, "Index", I64);
  r = Infer("Slice", {{In(S({5, 6}))}, {In(S({2}), I32)}, {Vec({2, -1})}});
  ASSERT_SHAPE(r, 0, "(2, None)");
  r = Infer("Slice", {{In(S({5, 6}))}, {Vec({1, 2})}, {In(S({2}), I32)}});
  ASSERT_SHAPE(r, 0, "(None, None)");
  r = Infer("Slice", {{In(Unknown())}, {In(S({3}), I32)}, {Vec({2, 3, 0})}});
  ASSERT_SHAPE(r, 0, "(2, 3, 0)");
  r = Infer("Slice", {{In(Unknown())}, {In(Unknown(), I32)}, {In(Unknown(), I32)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Slice", {{In(S({5, 6}))}, {Vec({4, 0})}, {Vec({2, 6})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "exceeds dimension 0");
  r = Infer("Slice", {{In(S({5, 6}))}, {Vec({-1, 0})}, {Vec({2, 6})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "negative");
  r = Infer("Slice", {{In(S({5, 6}))}, {Vec({0, 0})}, {Vec({-2, 6})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "size[0]");
  r = Infer("Slice", {{In(S({5, 6}))}, {Vec({1})}, {Vec({2, 6})}});
  ASSERT_FAILS(r, Code::kShape, "begin has 1");
  r = Infer("Slice", {{In(S({5, 6}))}, {Vec({1, 0, 0})}, {Vec({2, 6, 1})}});
  ASSERT_FAILS(r, Code::kShape, "rank 2");
  r = Infer("Slice", {{In(S({5, 6}))}, {Vec({1, 0})}, {Vec64({2, 6})}});
  ASSERT_FAILS(r, Code::kDType, "Index");
}

void test_strided_slice(void** state) {
  (void)state;
  PartialShape x = S({5, 6, 7});
  // x[1:3]
  InferResult r = SS(In(x), Vec({1}), Vec({3}), Vec({1}));
  ASSERT_SHAPE(r, 0, "(2, 6, 7)");
  AssertIntAttr(r, "begin_mask", 0);
  AssertTypeAttr(r, "Index", I32);
  r = Infer("StridedSlice", {{In(x)}, {Vec({1})}, {Vec({3})}, {Vec({1})}});
  ASSERT_SHAPE(r, 0, "(2, 6, 7)");
  AssertIntAttr(r, "shrink_axis_mask", 0);
  AssertIntAttr(r, "ellipsis_mask", 0);
  // x[:, 0]
  r = SS(In(x), Vec({0, 0}), Vec({0, 1}), Vec({1, 1}), 1, 1, 0, 0, 2);
  ASSERT_SHAPE(r, 0, "(5, 7)");
  // x[..., 1:]
  r = SS(In(x), Vec({0, 1}), Vec({0, 0}), Vec({1, 1}), 0, 2, 1);
  ASSERT_SHAPE(r, 0, "(5, 6, 6)");
  // x[1, ..., 2]
  r = SS(In(x), Vec({1, 0, 2}), Vec({2, 0, 3}), Vec({1, 1, 1}), 0, 0, 2, 0, 5);
  ASSERT_SHAPE(r, 0, "(6,)");
  // x[tf.newaxis, ::2]
  r = SS(In(x), Vec({0, 0}), Vec({0, 0}), Vec({1, 2}), 2, 2, 0, 1);
  ASSERT_SHAPE(r, 0, "(1, 3, 6, 7)");
  // x[..., tf.newaxis]
  r = SS(In(x), Vec({0, 0}), Vec({0, 0}), Vec({1, 1}), 0, 0, 1, 2);
  ASSERT_SHAPE(r, 0, "(5, 6, 7, 1)");
  // x[::-1], x[4:1:-1], x[-1:], x[-2], x[1:100:3], x[7:], x[3:1]
  r = SS(In(x), Vec({0}), Vec({0}), Vec({-1}), 1, 1);
  ASSERT_SHAPE(r, 0, "(5, 6, 7)");
  r = SS(In(x), Vec({4}), Vec({1}), Vec({-1}));
  ASSERT_SHAPE(r, 0, "(3, 6, 7)");
  r = SS(In(x), Vec({-1}), Vec({0}), Vec({1}), 0, 1);
  ASSERT_SHAPE(r, 0, "(1, 6, 7)");
  r = SS(In(x), Vec({-2}), Vec({-1}), Vec({1}), 0, 0, 0, 0, 1);
  ASSERT_SHAPE(r, 0, "(6, 7)");
  r = SS(In(x), Vec({1}), Vec({100}), Vec({3}));
  ASSERT_SHAPE(r, 0, "(2, 6, 7)");
  r = SS(In(x), Vec({7}), Vec({0}), Vec({1}), 0, 1);
  ASSERT_SHAPE(r, 0, "(0, 6, 7)");
  r = SS(In(x), Vec({3}), Vec({1}), Vec({1}));
  ASSERT_SHAPE(r, 0, "(0, 6, 7)");
  // x[:, -10:-2:2] on 6: [0, 4) by 2
  r = SS(In(x), Vec({0, -10}), Vec({0, -2}), Vec({1, 2}), 1, 1);
  ASSERT_SHAPE(r, 0, "(5, 2, 7)");
  // x[::-2] on 5: 4, 2, 0
  r = SS(In(x), Vec64({0}), Vec64({0}), Vec64({-2}), 1, 1);
  ASSERT_SHAPE(r, 0, "(3, 6, 7)");
  AssertTypeAttr(r, "Index", I64);
  // Partial input shapes: only unknown dims that are sliced become unknown.
  r = SS(In(S({-1, 6, 7})), Vec({1}), Vec({3}), Vec({1}));
  ASSERT_SHAPE(r, 0, "(None, 6, 7)");
  r = SS(In(S({-1, 6, 7})), Vec({0, 1}), Vec({0, 3}), Vec({1, 1}), 1, 1);
  ASSERT_SHAPE(r, 0, "(None, 2, 7)");
  r = SS(In(S({-1, 6})), Vec({3, 0}), Vec({0, 0}), Vec({1, 1}), 0, 2, 0, 0, 1);
  ASSERT_SHAPE(r, 0, "(6,)");
  // Unknown begin/end with known strides: masked and ellipsis dims are kept.
  r = SS(In(x), In(S({1}), I32), In(S({1}), I32), Vec({1}));
  ASSERT_SHAPE(r, 0, "(None, 6, 7)");
  r = SS(In(x), In(S({2}), I32), In(S({2}), I32), Vec({1, 1}), 2, 2);
  ASSERT_SHAPE(r, 0, "(None, 6, 7)");
  r = SS(In(x), In(S({2}), I32), In(S({2}), I32), Vec({1, 2}), 2, 2);
  ASSERT_SHAPE(r, 0, "(None, 3, 7)");
  r = SS(In(x), In(S({1}), I32), In(S({1}), I32), Vec({1}), 0, 0, 0, 0, 1);
  ASSERT_SHAPE(r, 0, "(6, 7)");
  // Unknown strides: the rank is still known.
  r = SS(In(x), Vec({0, 1}), Vec({1, 2}), In(S({2}), I32), 0, 0, 0, 0, 1);
  ASSERT_SHAPE(r, 0, "(None, 7)");
  r = SS(In(Unknown()), Vec({1}), Vec({3}), Vec({1}));
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = SS(In(x), In(Unknown(), I32), In(Unknown(), I32), In(Unknown(), I32));
  ASSERT_SHAPE(r, 0, "<unknown>");
  // Errors.
  r = SS(In(x), Vec({1}), Vec({3}), Vec({0}));
  ASSERT_FAILS(r, Code::kInvalidArgument, "non-zero");
  r = SS(In(x), Vec({5}), Vec({6}), Vec({1}), 0, 0, 0, 0, 1);
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of bounds");
  r = SS(In(x), Vec({-6}), Vec({0}), Vec({1}), 0, 0, 0, 0, 1);
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of bounds");
  r = SS(In(x), Vec({0, 0, 0, 0}), Vec({1, 1, 1, 1}), Vec({1, 1, 1, 1}));
  ASSERT_FAILS(r, Code::kInvalidArgument, "more dimensions");
  r = SS(In(x), Vec({0, 0}), Vec({1, 1}), Vec({1, 1}), 0, 0, 3);
  ASSERT_FAILS(r, Code::kInvalidArgument, "ellipses");
  r = SS(In(x), Vec({0, 0}), Vec({1}), Vec({1, 1}));
  ASSERT_FAILS(r, Code::kShape, "same length");
  r = SS(In(x), In(S({1, 1}), I32), Vec({1}), Vec({1}));
  ASSERT_FAILS(r, Code::kShape, "'begin' must have rank 1 (a vector)");
  r = SS(In(x), Vec({1}), Vec({0}), Vec({-1}), 0, 0, 0, 0, 1);
  ASSERT_FAILS(r, Code::kInvalidArgument, "positive stride");
  r = SS(In(x), Val(Float32s({1}, {1})), Vec({3}), Vec({1}));
  ASSERT_FAILS(r, Code::kDType, "Index");
}

void test_gather(void** state) {
  (void)state;
  PartialShape p = S({5, 6, 7});
  InferResult r = Infer("GatherV2", {{In(p)}, {In(S({2, 3}), I32)}, {Sc(1)}});
  ASSERT_SHAPE(r, 0, "(5, 2, 3, 7)");
  AssertType(r, 0, F32);
  AssertIntAttr(r, "batch_dims", 0);
  AssertTypeAttr(r, "Tindices", I32);
  AssertTypeAttr(r, "Taxis", I32);
  r = Infer("GatherV2", {{In(p)}, {In(S({4}), I64)}, {Sc64(-1)}});
  ASSERT_SHAPE(r, 0, "(5, 6, 4)");
  r = Infer("GatherV2", {{In(p)}, {In(S({}), I32)}, {Sc(0)}});
  ASSERT_SHAPE(r, 0, "(6, 7)");
  r = Infer("GatherV2", {{In(p)}, {In(S({2, 3}), I32)}, {In(S({}), I32)}});
  ASSERT_SHAPE(r, 0, "(None, None, None, None)");
  r = Infer("GatherV2", {{In(p)}, {In(Unknown(), I32)}, {Sc(0)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("GatherV2", {{In(Unknown())}, {In(S({2}), I32)}, {Sc(0)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  // batch_dims: params [2, 6, 7], indices [2, 3], axis 1 -> [2, 3, 7].
  r = Infer("GatherV2", {{In(S({2, 6, 7}))}, {In(S({-1, 3}), I32)}, {Sc(1)}}, {{"batch_dims", Int(1)}});
  ASSERT_SHAPE(r, 0, "(2, 3, 7)");
  r = Infer("GatherV2", {{In(S({2, 6, 7}))}, {In(S({2, 3}), I32)}, {Sc(2)}}, {{"batch_dims", Int(-1)}});
  ASSERT_SHAPE(r, 0, "(2, 6, 3)");
  r = Infer("GatherV2", {{In(S({2, 6, 7}))}, {In(S({2, 3}), I32)}, {In(S({}), I32)}}, {{"batch_dims", Int(1)}});
  ASSERT_SHAPE(r, 0, "(2, None, None)");
  // Errors.
  r = Infer("GatherV2", {{In(S({2, 6, 7}))}, {In(S({3, 3}), I32)}, {Sc(1)}}, {{"batch_dims", Int(1)}});
  ASSERT_FAILS(r, Code::kShape, "batch_dims");
  r = Infer("GatherV2", {{In(S({2, 6, 7}))}, {In(S({2, 3}), I32)}, {Sc(0)}}, {{"batch_dims", Int(1)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "<= axis");
  r = Infer("GatherV2", {{In(S({2, 6, 7}))}, {In(S({2, 3}), I32)}, {Sc(1)}}, {{"batch_dims", Int(3)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
  r = Infer("GatherV2", {{In(p)}, {In(S({2}), I32)}, {Sc(3)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "axis 3 is out of range");
  r = Infer("GatherV2", {{In(S({}))}, {In(S({2}), I32)}, {Sc(0)}});
  ASSERT_FAILS(r, Code::kShape, "params");
  r = Infer("GatherV2", {{In(p)}, {In(S({2}), I32)}, {Vec({0})}});
  ASSERT_FAILS(r, Code::kShape, "'axis' must have rank 0 (a scalar)");
  r = Infer("GatherV2", {{In(p)}, {In(S({2}), F32)}, {Sc(0)}});
  ASSERT_FAILS(r, Code::kDType, "Tindices");

  r = Infer("GatherNd", {{In(p, I32)}, {In(S({4, 2}), I32)}});
  ASSERT_SHAPE(r, 0, "(4, 7)");
  AssertType(r, 0, I32);
  AssertStringAttr(r, "bad_indices_policy", "");
  r = Infer("GatherNd", {{In(p)}, {In(S({-1, 3}), I64)}});
  ASSERT_SHAPE(r, 0, "(None,)");
  r = Infer("GatherNd", {{In(p)}, {In(S({2, 3, 1}), I32)}});
  ASSERT_SHAPE(r, 0, "(2, 3, 6, 7)");
  r = Infer("GatherNd", {{In(p)}, {In(S({4, -1}), I32)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("GatherNd", {{In(Unknown())}, {In(S({4, 2}), I32)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("GatherNd", {{In(p)}, {In(S({4, 4}), I32)}});
  ASSERT_FAILS(r, Code::kShape, "rank of params");
  r = Infer("GatherNd", {{In(p)}, {In(S({}), I32)}});
  ASSERT_FAILS(r, Code::kShape, "indices");
  r = Infer("GatherNd", {{In(p)}, {In(S({4, 2}), DType::kUInt8)}});
  ASSERT_FAILS(r, Code::kDType, "Tindices");
}

void test_tile(void** state) {
  (void)state;
  InferResult r = Infer("Tile", {{In(S({2, 3}))}, {Vec({2, 0})}});
  ASSERT_SHAPE(r, 0, "(4, 0)");
  AssertTypeAttr(r, "Tmultiples", I32);
  r = Infer("Tile", {{In(S({-1, 3}))}, {Vec64({0, 3})}});
  ASSERT_SHAPE(r, 0, "(0, 9)");
  r = Infer("Tile", {{In(S({-1, 3}))}, {Vec({2, 1})}});
  ASSERT_SHAPE(r, 0, "(None, 3)");
  r = Infer("Tile", {{In(S({2, 3}))}, {In(S({2}), I32)}});
  ASSERT_SHAPE(r, 0, "(None, None)");
  r = Infer("Tile", {{In(Unknown())}, {Vec({2, 0})}});
  ASSERT_SHAPE(r, 0, "(None, 0)");
  r = Infer("Tile", {{In(Unknown())}, {In(Unknown(), I32)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Tile", {{In(S({2, 3}))}, {Vec({2, 2, 2})}});
  ASSERT_FAILS(r, Code::kShape, "rank 2");
  r = Infer("Tile", {{In(S({2, 3}))}, {Vec({2, -1})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "negative");
  r = Infer("Tile", {{In(S({2, 3}))}, {Sc(2)}});
  ASSERT_FAILS(r, Code::kShape, "'multiples' must have rank 1 (a vector)");
}

void test_pad(void** state) {
  (void)state;
  InferResult r = Infer("Pad", {{In(S({2, 3}))}, {Val(Matrix32({1, 1, 0, 2}))}});
  ASSERT_SHAPE(r, 0, "(4, 5)");
  AssertTypeAttr(r, "Tpaddings", I32);
  r = Infer("Pad", {{In(S({-1, 3}))}, {Val(Matrix32({1, 1, 0, 2}))}});
  ASSERT_SHAPE(r, 0, "(None, 5)");
  r = Infer("Pad", {{In(S({2, 3}))}, {In(S({2, 2}), I32)}});
  ASSERT_SHAPE(r, 0, "(None, None)");
  r = Infer("Pad", {{In(Unknown())}, {In(S({3, 2}), I64)}});
  ASSERT_SHAPE(r, 0, "(None, None, None)");
  AssertTypeAttr(r, "Tpaddings", I64);
  r = Infer("Pad", {{In(Unknown())}, {In(Unknown(), I32)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Pad", {{In(S({2, 3}))}, {Val(Matrix32({1, 1, 0, 2, 3, 3}))}});
  ASSERT_FAILS(r, Code::kShape, "3 rows");
  r = Infer("Pad", {{In(S({2, 3}))}, {In(S({2, 3}), I32)}});
  ASSERT_FAILS(r, Code::kShape, "[rank, 2]");
  r = Infer("Pad", {{In(S({2, 3}))}, {Vec({1, 1})}});
  ASSERT_FAILS(r, Code::kShape, "'paddings' must have rank 2");
  r = Infer("Pad", {{In(S({2, 3}))}, {Val(Matrix32({1, -1, 0, 2}))}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "negative");

  r = Infer("PadV2", {{In(S({2, 3}), I32)}, {Val(Matrix32({0, 1, 2, 0}))}, {In(S({}), I32)}});
  ASSERT_SHAPE(r, 0, "(3, 5)");
  AssertType(r, 0, I32);
  r = Infer("PadV2", {{In(S({2, 3}))}, {Val(Matrix32({0, 1, 2, 0}))}, {In(S({2}))}});
  ASSERT_FAILS(r, Code::kShape, "constant_values");
  r = Infer("PadV2", {{In(S({2, 3}))}, {Val(Matrix32({0, 1, 2, 0}))}, {In(S({}), I32)}});
  ASSERT_FAILS(r, Code::kDType, "T");

  r = Infer("MirrorPad", {{In(S({3, 3}))}, {Val(Matrix32({2, 2, 0, 1}))}}, {{"mode", AttrValue::String("REFLECT")}});
  ASSERT_SHAPE(r, 0, "(7, 4)");
  r = Infer("MirrorPad", {{In(S({2, 3}))}, {Val(Matrix32({2, 2, 0, 1}))}}, {{"mode", AttrValue::String("SYMMETRIC")}});
  ASSERT_SHAPE(r, 0, "(6, 4)");
  r = Infer("MirrorPad", {{In(S({2, 3}))}, {Val(Matrix32({2, 2, 0, 1}))}}, {{"mode", AttrValue::String("REFLECT")}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "REFLECT");
  r = Infer("MirrorPad", {{In(S({2, 3}))}, {Val(Matrix32({3, 0, 0, 1}))}}, {{"mode", AttrValue::String("SYMMETRIC")}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "at most 2");
  r = Infer("MirrorPad", {{In(S({2, 3}))}, {Val(Matrix32({0, 0, 0, 1}))}}, {{"mode", AttrValue::String("EDGE")}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "mode");
  r = Infer("MirrorPad", {{In(S({2, 3}))}, {Val(Matrix32({0, 0, 0, 1}))}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "mode");
}

void test_fill(void** state) {
  (void)state;
  InferResult r = Infer("Fill", {{Vec({2, 3})}, {In(S({}), I64)}});
  ASSERT_SHAPE(r, 0, "(2, 3)");
  AssertType(r, 0, I64);
  AssertTypeAttr(r, "index_type", I32);
  r = Infer("Fill", {{Vec64({0})}, {In(S({}))}});
  ASSERT_SHAPE(r, 0, "(0,)");
  AssertTypeAttr(r, "index_type", I64);
  r = Infer("Fill", {{In(S({3}), I32)}, {In(S({}))}});
  ASSERT_SHAPE(r, 0, "(None, None, None)");
  r = Infer("Fill", {{In(Unknown(), I32)}, {In(Unknown())}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Fill", {{Vec({2, -1})}, {In(S({}))}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "negative");
  r = Infer("Fill", {{Vec({2, 3})}, {In(S({1}))}});
  ASSERT_FAILS(r, Code::kShape, "'value' must have rank 0 (a scalar)");
  r = Infer("Fill", {{In(S({2, 2}), I32)}, {In(S({}))}});
  ASSERT_FAILS(r, Code::kShape, "'dims' must have rank 1 (a vector)");
  r = Infer("Fill", {{Val(Float32s({2}, {1}))}, {In(S({}))}});
  ASSERT_FAILS(r, Code::kDType, "index_type");
}

void test_range(void** state) {
  (void)state;
  InferResult r = Infer("Range", {{Sc(0)}, {Sc(10)}, {Sc(3)}});
  ASSERT_SHAPE(r, 0, "(4,)");
  AssertType(r, 0, I32);
  AssertTypeAttr(r, "Tidx", I32);
  r = Infer("Range", {{Sc64(10)}, {Sc64(0)}, {Sc64(-3)}});
  ASSERT_SHAPE(r, 0, "(4,)");
  AssertType(r, 0, I64);
  r = Infer("Range", {{Sc(5)}, {Sc(5)}, {Sc(1)}});
  ASSERT_SHAPE(r, 0, "(0,)");
  r = Infer("Range", {{Sc64(-9223372036854775807LL)}, {Sc64(9223372036854775807LL)}, {Sc64(4611686018427387904LL)}});
  ASSERT_SHAPE(r, 0, "(4,)");
  r = Infer("Range", {{Val(Float32s({0}, {}))}, {Val(Float32s({1}, {}))}, {Val(Float32s({0.3f}, {}))}});
  ASSERT_SHAPE(r, 0, "(4,)");
  AssertType(r, 0, F32);
  r = Infer("Range", {{Val(Float32s({0}, {}))}, {Val(Float32s({1}, {}))}, {Val(Float32s({0.25f}, {}))}});
  ASSERT_SHAPE(r, 0, "(4,)");
  r = Infer("Range", {{Sc(0)}, {In(S({}), I32)}, {Sc(1)}});
  ASSERT_SHAPE(r, 0, "(None,)");
  r = Infer("Range", {{Sc(0)}, {Sc(10)}, {Sc(0)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "delta must not be 0");
  r = Infer("Range", {{Sc(10)}, {Sc(0)}, {Sc(1)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "start must be <= limit");
  r = Infer("Range", {{Sc(0)}, {Sc(10)}, {Sc(-1)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "start must be >= limit");
  r = Infer("Range", {{Val(Float32s({0}, {}))}, {Val(Float32s({1}, {}))}, {Val(Float32s({0}, {}))}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "delta");
  r = Infer("Range", {{Vec({0})}, {Sc(10)}, {Sc(1)}});
  ASSERT_FAILS(r, Code::kShape, "'start' must have rank 0 (a scalar)");
  r = Infer("Range", {{Sc(0)}, {Sc64(10)}, {Sc(1)}});
  ASSERT_FAILS(r, Code::kDType, "Tidx");
  r = Infer("Range", {{In(S({}), DType::kUInt8)}, {In(S({}), DType::kUInt8)}, {In(S({}), DType::kUInt8)}});
  ASSERT_FAILS(r, Code::kDType, "Tidx");
}

void test_broadcast_to(void** state) {
  (void)state;
  InferResult r = Infer("BroadcastTo", {{In(S({3}))}, {Vec({2, 3})}});
  ASSERT_SHAPE(r, 0, "(2, 3)");
  AssertTypeAttr(r, "Tidx", I32);
  r = Infer("BroadcastTo", {{In(S({1, 3}))}, {In(S({2}), I64)}});
  ASSERT_SHAPE(r, 0, "(None, 3)");
  r = Infer("BroadcastTo", {{In(S({-1, 1}))}, {Vec({4, 5, 6})}});
  ASSERT_SHAPE(r, 0, "(4, 5, 6)");
  r = Infer("BroadcastTo", {{In(Unknown())}, {Vec({4, 5})}});
  ASSERT_SHAPE(r, 0, "(4, 5)");
  r = Infer("BroadcastTo", {{In(S({3}))}, {In(Unknown(), I32)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("BroadcastTo", {{In(S({4}))}, {Vec({2, 3})}});
  ASSERT_FAILS(r, Code::kShape, "neither 1 nor 3");
  r = Infer("BroadcastTo", {{In(S({1, 2, 3}))}, {Vec({2, 3})}});
  ASSERT_FAILS(r, Code::kShape, "more dimensions");
  r = Infer("BroadcastTo", {{In(S({3}))}, {In(S({2, 2}), I32)}});
  ASSERT_FAILS(r, Code::kShape, "shape vector");
}

void test_one_hot(void** state) {
  (void)state;
  auto args = [](TestInput indices, TestInput depth) {
    return std::vector<std::vector<TestInput>>{{std::move(indices)}, {std::move(depth)}, {In(S({}))}, {In(S({}))}};
  };
  InferResult r = Infer("OneHot", args(In(S({4}), I64), Sc(10)));
  ASSERT_SHAPE(r, 0, "(4, 10)");
  AssertType(r, 0, F32);
  AssertIntAttr(r, "axis", -1);
  AssertTypeAttr(r, "TI", I64);
  r = Infer("OneHot", args(In(S({4, 2}), I32), Sc(10)), {{"axis", Int(0)}});
  ASSERT_SHAPE(r, 0, "(10, 4, 2)");
  r = Infer("OneHot", args(In(S({4, 2}), I32), Sc(10)), {{"axis", Int(2)}});
  ASSERT_SHAPE(r, 0, "(4, 2, 10)");
  r = Infer("OneHot", args(In(S({-1}), DType::kUInt8), In(S({}), I32)));
  ASSERT_SHAPE(r, 0, "(None, None)");
  r = Infer("OneHot", args(In(Unknown(), I32), Sc(3)));
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("OneHot", args(In(S({4}), I32), Sc(10)), {{"axis", Int(-2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "axis -2");
  r = Infer("OneHot", args(In(S({4}), I32), Sc(10)), {{"axis", Int(2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
  r = Infer("OneHot", args(In(S({4}), I32), Sc(-1)));
  ASSERT_FAILS(r, Code::kInvalidArgument, "negative");
  r = Infer("OneHot", args(In(S({4}), I32), Vec({3})));
  ASSERT_FAILS(r, Code::kShape, "'depth' must have rank 0 (a scalar)");
  r = Infer("OneHot", {{In(S({4}), I32)}, {Sc(3)}, {In(S({2}))}, {In(S({}))}});
  ASSERT_FAILS(r, Code::kShape, "on_value");
  r = Infer("OneHot", args(In(S({4}), DType::kInt16), Sc(3)));
  ASSERT_FAILS(r, Code::kDType, "TI");
  r = Infer("OneHot", args(In(S({4}), I32), Sc64(3)));
  ASSERT_FAILS(r, Code::kDType, "depth");
}

void test_where(void** state) {
  (void)state;
  InferResult r = Infer("Where", {{In(S({2, 3}), DType::kBool)}});
  ASSERT_SHAPE(r, 0, "(None, 2)");
  AssertType(r, 0, I64);
  AssertTypeAttr(r, "T", DType::kBool);
  r = Infer("Where", {{In(Unknown(), F32)}});
  ASSERT_SHAPE(r, 0, "(None, None)");
  r = Infer("Where", {{In(S({}), I32)}});
  ASSERT_SHAPE(r, 0, "(None, 0)");
  r = Infer("Where", {{In(S({2}), DType::kString)}});
  ASSERT_FAILS(r, Code::kDType, "T");
}

void test_cumsum(void** state) {
  (void)state;
  InferResult r = Infer("Cumsum", {{In(S({2, -1}))}, {Sc(1)}});
  ASSERT_SHAPE(r, 0, "(2, None)");
  AssertType(r, 0, F32);
  AssertBoolAttr(r, "exclusive", false);
  AssertBoolAttr(r, "reverse", false);
  AssertTypeAttr(r, "Tidx", I32);
  r = Infer("Cumsum", {{In(S({2, 3}), I64)}, {Sc64(-2)}}, {{"reverse", AttrValue::Bool(true)}});
  ASSERT_SHAPE(r, 0, "(2, 3)");
  AssertBoolAttr(r, "reverse", true);
  r = Infer("Cumsum", {{In(Unknown())}, {Sc(5)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Cumsum", {{In(S({2, 3}))}, {Sc(2)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "out of range");
  r = Infer("Cumsum", {{In(S({2, 3}))}, {Vec({0})}});
  ASSERT_FAILS(r, Code::kShape, "'axis' must have rank 0 (a scalar)");
  r = Infer("Cumsum", {{In(S({2}), DType::kBool)}, {Sc(0)}});
  ASSERT_FAILS(r, Code::kDType, "T");
}

void test_top_k(void** state) {
  (void)state;
  InferResult r = Infer("TopKV2", {{In(S({5, 10}))}, {Sc(3)}});
  assert_int_equal(r.output_shapes.size(), 2);
  ASSERT_SHAPE(r, 0, "(5, 3)");
  ASSERT_SHAPE(r, 1, "(5, 3)");
  AssertType(r, 0, F32);
  AssertType(r, 1, I32);
  AssertBoolAttr(r, "sorted", true);
  AssertTypeAttr(r, "Tk", I32);
  r = Infer("TopKV2", {{In(S({5, -1}), I64)}, {Sc64(3)}}, {{"index_type", Type(I64)}});
  ASSERT_SHAPE(r, 0, "(5, 3)");
  AssertType(r, 0, I64);
  AssertType(r, 1, I64);
  r = Infer("TopKV2", {{In(S({5, 10}))}, {In(S({}), I32)}});
  ASSERT_SHAPE(r, 1, "(5, None)");
  r = Infer("TopKV2", {{In(Unknown())}, {Sc(3)}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("TopKV2", {{In(S({5, 2}))}, {Sc(3)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "last dimension");
  r = Infer("TopKV2", {{In(S({}))}, {Sc(1)}});
  ASSERT_FAILS(r, Code::kShape, "rank at least 1");
  r = Infer("TopKV2", {{In(S({5}))}, {Sc(-1)}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "negative");
  r = Infer("TopKV2", {{In(S({5}))}, {Vec({1})}});
  ASSERT_FAILS(r, Code::kShape, "'k' must have rank 0 (a scalar)");
  r = Infer("TopKV2", {{In(S({5}), DType::kComplex64)}, {Sc(1)}});
  ASSERT_FAILS(r, Code::kDType, "T");
}

void test_dynamic_stitch(void** state) {
  (void)state;
  InferResult r = Infer("DynamicStitch", {{Vec({0, 2}), Vec({1, 3, 5})}, {In(S({2, 5})), In(S({3, 5}))}});
  ASSERT_SHAPE(r, 0, "(6, 5)");
  AssertType(r, 0, F32);
  AssertIntAttr(r, "N", 2);
  r = Infer("DynamicStitch", {{Vec({0, 2}), In(S({3}), I32)}, {In(S({2, -1})), In(S({3, 5}))}});
  ASSERT_SHAPE(r, 0, "(None, 5)");
  r = Infer("DynamicStitch", {{In(S({2, 2}), I32)}, {In(S({2, 2}), I64)}});
  ASSERT_SHAPE(r, 0, "(None,)");
  AssertType(r, 0, I64);
  r = Infer("DynamicStitch", {{In(Unknown(), I32)}, {In(S({2, 3}))}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("DynamicStitch", {{Vec({0, 2}), Vec({1})}, {In(S({2, 5})), In(S({1, 4}))}});
  ASSERT_FAILS(r, Code::kShape, "earlier data");
  r = Infer("DynamicStitch", {{Vec({0, 2})}, {In(S({3, 5}))}});
  ASSERT_FAILS(r, Code::kShape, "does not start with");
  r = Infer("DynamicStitch", {{Vec({0, -2})}, {In(S({2}))}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "negative");
  r = Infer("DynamicStitch", {{Vec({0}), Vec({1})}, {In(S({1}))}});
  assert_false(r.status.ok());
  r = Infer("DynamicStitch", {{Vec64({0})}, {In(S({1}))}});
  ASSERT_FAILS(r, Code::kDType, "int32");
}

void test_invert_permutation(void** state) {
  (void)state;
  InferResult r = Infer("InvertPermutation", {{In(S({5}), I32)}});
  ASSERT_SHAPE(r, 0, "(5,)");
  AssertType(r, 0, I32);
  r = Infer("InvertPermutation", {{In(Unknown(), I64)}});
  ASSERT_SHAPE(r, 0, "(None,)");
  AssertType(r, 0, I64);
  r = Infer("InvertPermutation", {{Vec({2, 0, 1})}});
  ASSERT_SHAPE(r, 0, "(3,)");
  r = Infer("InvertPermutation", {{In(S({2, 2}), I32)}});
  ASSERT_FAILS(r, Code::kShape, "'x' must have rank 1 (a vector)");
  r = Infer("InvertPermutation", {{Vec({2, 0, 2})}});
  ASSERT_FAILS(r, Code::kInvalidArgument, "not a permutation");
  r = Infer("InvertPermutation", {{In(S({3}), F32)}});
  ASSERT_FAILS(r, Code::kDType, "T");
}

void test_unique(void** state) {
  (void)state;
  InferResult r = Infer("Unique", {{In(S({5}), DType::kString)}});
  ASSERT_SHAPE(r, 0, "(None,)");
  ASSERT_SHAPE(r, 1, "(5,)");
  AssertType(r, 0, DType::kString);
  AssertType(r, 1, I32);
  AssertTypeAttr(r, "out_idx", I32);
  r = Infer("Unique", {{In(Unknown())}}, {{"out_idx", Type(I64)}});
  ASSERT_SHAPE(r, 1, "(None,)");
  AssertType(r, 1, I64);
  r = Infer("Unique", {{In(S({2, 3}))}});
  ASSERT_FAILS(r, Code::kShape, "'x' must have rank 1 (a vector)");
  r = Infer("Unique", {{In(S({2}))}}, {{"out_idx", Type(F32)}});
  ASSERT_FAILS(r, Code::kDType, "out_idx");
}

void test_broadcast_gradient_args(void** state) {
  (void)state;
  InferResult r = Infer("BroadcastGradientArgs", {{In(S({2}), I32)}, {In(S({3}), I32)}});
  assert_int_equal(r.output_shapes.size(), 2);
  ASSERT_SHAPE(r, 0, "(None,)");
  ASSERT_SHAPE(r, 1, "(None,)");
  AssertType(r, 1, I32);
  AssertTypeAttr(r, "T", I32);
  r = Infer("BroadcastGradientArgs", {{Vec64({2, 1})}, {Vec64({3})}});
  ASSERT_SHAPE(r, 0, "(None,)");
  AssertType(r, 0, I64);
  r = Infer("BroadcastGradientArgs", {{Vec({2, 3})}, {Vec({4})}});
  ASSERT_FAILS(r, Code::kShape, "broadcast");
  r = Infer("BroadcastGradientArgs", {{In(S({2, 2}), I32)}, {In(S({3}), I32)}});
  ASSERT_FAILS(r, Code::kShape, "'s0' must have rank 1 (a vector)");
  r = Infer("BroadcastGradientArgs", {{In(S({2}), I32)}, {In(S({3}), I64)}});
  ASSERT_FAILS(r, Code::kDType, "T");
}

// Inside a function body, an attr may stand for the caller's value: the shape is unknown.
void test_placeholder_attrs(void** state) {
  (void)state;
  InferResult r = Infer("Pack", {{In(S({2})), In(S({2}))}}, {{"axis", AttrValue::Placeholder("ax")}});
  ASSERT_SHAPE(r, 0, "<unknown>");
  r = Infer("Squeeze", {{In(S({1, 2}))}}, {{"squeeze_dims", AttrValue::Placeholder("dims")}});
  ASSERT_SHAPE(r, 0, "<unknown>");
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_op_defs),
      cmocka_unit_test(test_const),
      cmocka_unit_test(test_placeholder),
      cmocka_unit_test(test_identities),
      cmocka_unit_test(test_identity_n),
      cmocka_unit_test(test_no_op),
      cmocka_unit_test(test_shape_size_rank),
      cmocka_unit_test(test_reshape),
      cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_expand_dims),
      cmocka_unit_test(test_squeeze),
      cmocka_unit_test(test_concat),
      cmocka_unit_test(test_pack_unpack),
      cmocka_unit_test(test_split),
      cmocka_unit_test(test_split_v),
      cmocka_unit_test(test_slice),
      cmocka_unit_test(test_strided_slice),
      cmocka_unit_test(test_gather),
      cmocka_unit_test(test_tile),
      cmocka_unit_test(test_pad),
      cmocka_unit_test(test_fill),
      cmocka_unit_test(test_range),
      cmocka_unit_test(test_broadcast_to),
      cmocka_unit_test(test_one_hot),
      cmocka_unit_test(test_where),
      cmocka_unit_test(test_cumsum),
      cmocka_unit_test(test_top_k),
      cmocka_unit_test(test_dynamic_stitch),
      cmocka_unit_test(test_invert_permutation),
      cmocka_unit_test(test_unique),
      cmocka_unit_test(test_broadcast_gradient_args),
      cmocka_unit_test(test_placeholder_attrs),
  };
  return cmocka_run_group_tests_name("ops_array", tests, nullptr, nullptr);
}
