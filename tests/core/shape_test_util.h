// Test helpers for op definitions and shape functions: resolve a node against a built-in op
// and run its shape function, the same path the graph takes when it creates an op.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/node_signature.h"
#include "core/op_registry.h"
#include "core/shape_inference.h"

// cmocka after the standard library (its fail() macro clashes with <ios>), with C linkage.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h>
}

namespace graft::testing {

struct TestInput {
  DType dtype = DType::kFloat32;
  PartialShape shape;                 // unknown rank by default
  std::optional<Tensor> value;        // a value known while building (like a Const input)
};

struct InferResult {
  Status status;
  std::vector<DType> output_types;
  std::vector<PartialShape> output_shapes;
  AttrMap attrs;  // after defaults and inference
};

// args: one vector per input argument of the op (a single tensor is a vector of one).
inline InferResult Infer(const std::string& op, const std::vector<std::vector<TestInput>>& args, AttrMap attrs = {}) {
  InferResult r;
  const OpRegistration* reg = OpRegistry::Global().Find(op);
  if (reg == nullptr) {
    r.status = errors::NotFound("no op ", op);
    return r;
  }
  std::vector<InputGroup> groups;
  std::vector<ShapeFnInput> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    InputGroup g;
    g.is_list = i < reg->def.inputs.size() &&
                (!reg->def.inputs[i].number_attr.empty() || !reg->def.inputs[i].type_list_attr.empty());
    for (const TestInput& in : args[i]) {
      g.types.push_back(in.dtype);
      inputs.push_back(ShapeFnInput{in.shape, in.value ? &*in.value : nullptr});
    }
    groups.push_back(std::move(g));
  }
  NodeSignature sig;
  r.status = ResolveNodeSignature(reg->def, "node", groups, &attrs, &sig);
  if (!r.status.ok()) return r;
  r.status = RunShapeFn(*reg, "node", attrs, sig, inputs, &r.output_shapes);
  r.output_types = sig.output_types;
  r.attrs = std::move(attrs);
  return r;
}

inline TestInput In(DType dtype, PartialShape shape) { return TestInput{dtype, std::move(shape), std::nullopt}; }
inline TestInput F(PartialShape shape) { return In(DType::kFloat32, std::move(shape)); }

// The registered definition of op (the test fails when there is none).
inline const OpDef& Def(const char* op) {
  const OpRegistration* reg = OpRegistry::Global().Find(op);
  if (reg == nullptr) {
    print_error("op %s is not registered\n", op);
    fail();
  }
  return reg->def;
}

// Asserts that r succeeded with these output dtypes.
inline void CheckTypes(const InferResult& r, std::vector<DType> want) {
  if (!r.status.ok()) print_error("%s\n", r.status.message().c_str());
  assert_true(r.status.ok());
  assert_int_equal(r.output_types.size(), want.size());
  assert_int_equal(r.output_shapes.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    assert_int_equal(static_cast<int>(r.output_types[i]), static_cast<int>(want[i]));
  }
}

// Asserts that the resolved attrs of r hold name = want.
inline void CheckAttr(const InferResult& r, const char* name, const AttrValue& want) {
  auto it = r.attrs.find(name);
  if (it == r.attrs.end()) {
    print_error("attr %s is missing\n", name);
    fail();
  }
  if (!(it->second == want)) {
    print_error("attr %s is %s, expected %s\n", name, it->second.ToString().c_str(), want.ToString().c_str());
    fail();
  }
}

// Asserts op's attrs are declared in this order (TensorFlow's).
inline void CheckAttrOrder(const char* op, std::vector<std::string> names) {
  const OpDef& def = Def(op);
  assert_int_equal(def.attrs.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) assert_string_equal(def.attrs[i].name.c_str(), names[i].c_str());
}

inline AttrMap Attrs(std::initializer_list<std::pair<const std::string, AttrValue>> a) { return AttrMap(a); }

inline PartialShape S(std::vector<int64_t> dims) { return PartialShape(std::move(dims)); }
inline PartialShape Unknown() { return PartialShape::Unknown(); }

// A constant int32 vector (or scalar when scalar is true), for inputs read as values.
inline Tensor Int32s(std::vector<int32_t> v, bool scalar = false) {
  Tensor t;
  std::vector<int64_t> dims;
  if (!scalar) dims.push_back(static_cast<int64_t>(v.size()));
  Status s = Tensor::Allocate(DType::kInt32, dims, &t);
  (void)s;
  for (size_t i = 0; i < v.size(); ++i) t.data<int32_t>()[i] = v[i];
  return t;
}

inline Tensor Int64s(std::vector<int64_t> v, bool scalar = false) {
  Tensor t;
  std::vector<int64_t> dims;
  if (!scalar) dims.push_back(static_cast<int64_t>(v.size()));
  Status s = Tensor::Allocate(DType::kInt64, dims, &t);
  (void)s;
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t;
}

}  // namespace graft::testing

// Asserts that r succeeded and that output i has the shape text (as PartialShape::ToString).
#define ASSERT_SHAPE(r, i, text)                                                        \
  do {                                                                                  \
    if (!(r).status.ok()) print_error("%s\n", (r).status.message().c_str());            \
    assert_true((r).status.ok());                                                       \
    assert_string_equal((r).output_shapes.at(i).ToString().c_str(), text);              \
  } while (0)

// Asserts that r failed with the code and that its message contains needle.
#define ASSERT_FAILS(r, code_, needle)                                                  \
  do {                                                                                  \
    assert_false((r).status.ok());                                                      \
    assert_int_equal(static_cast<int>((r).status.code()), static_cast<int>(code_));     \
    if ((r).status.message().find(needle) == std::string::npos) {                       \
      print_error("message '%s' lacks '%s'\n", (r).status.message().c_str(), needle);   \
      fail();                                                                           \
    }                                                                                   \
  } while (0)
