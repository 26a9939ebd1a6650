// PolymorphicFunction: tf.function. A host callback that builds ops is traced once per input
// signature into a ConcreteFunction, which later calls with the same signature reuse. The
// signature of a call is the dtype and shape of each tensor argument and the value of each
// host argument (int, float, string, bool), which the callback sees as a trace-time constant.
// With an input signature there is exactly one concrete function, and arguments are checked
// (host numbers converted) against it. With reduce_retracing, a second shape for the same
// arguments traces a relaxed signature (differing dims unknown) that serves both.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/eager/concrete_function.h"

namespace graft::eager {

struct Arg {
  enum class Kind { kValue, kInt, kFloat, kString, kBool };
  Kind kind = Kind::kValue;
  Value value;  // kValue
  int64_t i = 0;
  double f = 0;
  std::string s;
  bool b = false;
};

// Builds the function's ops through ctx (in tracing mode): args are the call's arguments with
// tensors replaced by the trace's symbolic inputs. Returns the outputs.
using TraceFn = std::function<Status(Context& ctx, const std::vector<Arg>& args, std::vector<Value>* outputs)>;

// How deeply traces may nest (a function traced inside another's trace, and so on).
inline constexpr int kMaxTraceDepth = 100;

struct FunctionOptions {
  std::optional<std::vector<TensorSpec>> input_signature;
  bool reduce_retracing = false;
};

class PolymorphicFunction {
 public:
  PolymorphicFunction(std::string name, TraceFn fn, FunctionOptions options);

  const std::string& name() const { return name_; }
  // Traces (once per signature) and calls; control as ConcreteFunction::Call's.
  Status Call(Context& ctx, const std::vector<Arg>& args, std::vector<Value>* outputs,
              const RunControl* control = nullptr);
  // The concrete function for these arguments (tracing it if needed).
  Status GetConcreteFunction(Context& ctx, const std::vector<Arg>& args, std::shared_ptr<ConcreteFunction>* out);
  // The concrete function for tensor arguments of these specs.
  Status GetConcreteFunction(Context& ctx, const std::vector<TensorSpec>& specs,
                             std::shared_ptr<ConcreteFunction>* out);
  // How many times the callback has been traced.
  int64_t tracing_count() const;

 private:
  // args with tensor arguments' specs; returns the cache key.
  Status Signature(const std::vector<Arg>& args, std::vector<TensorSpec>* specs, std::string* key) const;
  Status CheckVariablesCreatedOnce(Context& ctx, const std::vector<Arg>& args, const std::vector<TensorSpec>& specs);
  Status Trace(Context& ctx, const std::vector<Arg>& args, const std::vector<TensorSpec>& specs,
               const std::string& key, std::shared_ptr<ConcreteFunction>* out);
  Status Lookup(Context& ctx, std::vector<Arg>& args, std::shared_ptr<ConcreteFunction>* out);

  std::string name_;
  TraceFn fn_;
  FunctionOptions options_;
  mutable std::recursive_mutex mu_;  // a trace may call this function again (nested)
  std::map<std::string, std::shared_ptr<ConcreteFunction>> cache_;
  // reduce_retracing: per signature with shapes left out, the relaxed specs traced for it.
  std::map<std::string, std::vector<std::pair<std::vector<TensorSpec>, std::shared_ptr<ConcreteFunction>>>> relaxed_;
  int64_t tracing_count_ = 0;
  std::vector<std::string> tracing_;  // the signatures being traced now (nested), innermost last
};

}  // namespace graft::eager
