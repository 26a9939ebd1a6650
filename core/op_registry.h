// OpRegistry: the process-wide, thread-safe table of op types (definition + shape function)
// and GradientRegistry: gradient functions by name, with "not differentiable" markers.
// Built-in ops are registered on first use; plug-ins and bindings add their own at any time.
// A second registration of a name is refused.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/shape_inference.h"

namespace graft {

struct OpRegistration {
  OpDef def;
  ShapeFn shape_fn;  // null: every output's shape is unknown
};

class OpRegistry {
 public:
  // The process-wide registry, with the built-in ops in it.
  static OpRegistry& Global();

  // Parses the builder and adds the op; kAlreadyExists for a name that is taken.
  Status Register(const OpDefBuilder& builder, ShapeFn shape_fn);
  Status Register(OpDef def, ShapeFn shape_fn);
  // nullptr when there is no such op. Registrations are never removed, so the pointer lives
  // as long as the process.
  const OpRegistration* Find(std::string_view name) const;
  std::vector<std::string> Names() const;

 private:
  OpRegistry() = default;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::unique_ptr<OpRegistration>, std::less<>> ops_;
};

// What a gradient function gets and gives: core/gradients/gradient_context.h.
struct GradientContext;
using GradientFn = std::function<Status(GradientContext&)>;

struct GradientEntry {
  GradientFn fn;             // null with not_differentiable
  bool not_differentiable = false;
};

class GradientRegistry {
 public:
  static GradientRegistry& Global();
  // Registers the gradient for op type (or override name) `name`; kAlreadyExists if taken.
  Status Register(std::string name, GradientFn fn);
  // Marks op type `name` as having no gradient (TensorFlow's NoGradient).
  Status RegisterNotDifferentiable(std::string name);
  // nullptr when nothing is registered under name.
  const GradientEntry* Find(std::string_view name) const;
  // The names registered with a gradient function (not those marked not differentiable).
  std::vector<std::string> Names() const;

 private:
  GradientRegistry() = default;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::unique_ptr<GradientEntry>, std::less<>> entries_;
};

// Registers the built-in op set into registry (called once by OpRegistry::Global()).
void RegisterBuiltinOps(OpRegistry& registry);
// Registers the built-in gradient functions (called once by GradientRegistry::Global()).
void RegisterBuiltinGradients(GradientRegistry& registry);

}  // namespace graft
