// The execution context of eager execution and tracing. One call builds an op in both modes:
// Context::Execute runs it at once on concrete tensors (eager), or, while a function is being
// traced on this thread, records it into the traced function's graph and returns symbolic
// values. Variables live in the context's ResourceMgr, shared by eager ops and every function
// called in the context.
//
// Threading: eager execution and calls of functions may run from many threads at once. A trace
// belongs to the thread that runs it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/eager/trace.h"
#include "core/eager/value.h"
#include "core/runtime/device.h"
#include "core/runtime/kernel.h"
#include "core/runtime/resource_mgr.h"

namespace graft::eager {

// An op to run or record: its type, inputs by argument (a list argument is one entry with
// is_list), attrs, and an optional name (tracing only).
struct OpCall {
  struct Arg {
    std::vector<Value> values;
    bool is_list = false;
  };
  std::string type;
  std::string name;
  std::vector<Arg> inputs;
  AttrMap attrs;
  // The device asked for ("/device:GPU:0"; empty: the CPU). Eagerly, the op runs there when the
  // process has that device with a kernel for it (its inputs copied there, its outputs back to
  // the host), else on the CPU, as TensorFlow's soft placement; traced, it is the node's device.
  std::string device;
};

// What an op call remembers between executions: the kernel found for its input dtypes.
struct KernelHint {
  const void* kernel = nullptr;
  std::vector<DType> dtypes;
};

class Context {
 public:
  Context();
  ~Context();

  ResourceMgr& resources() { return resources_; }
  Device* device() { return &device_; }
  // An opaque pointer for the layer that owns the context (the C API's handle).
  void set_handle(void* h) { handle_ = h; }
  void* handle() const { return handle_; }

  // The trace this thread is recording into for this context, or null (eager).
  Trace* current_trace() const;
  // Makes trace the current one on this thread until the returned scope ends.
  class TraceScope {
   public:
    explicit TraceScope(Trace* trace);
    ~TraceScope();
    TraceScope(const TraceScope&) = delete;
    TraceScope& operator=(const TraceScope&) = delete;
  };

  // Runs (eager) or records (tracing) op. Errors name the op type.
  // hint (may be null) caches the kernel for an op call executed repeatedly; reset it when
  // the call's attrs or inputs change.
  Status Execute(const OpCall& op, std::vector<Value>* outputs, KernelHint* hint = nullptr);
  // Whether a gradient tape records this context's eager ops on this thread (tape.h).
  bool taping() const;
  // Makes library's functions known to eager op calls (call and control-flow ops that name them).
  Status AddFunctions(const FunctionLibrary& library);
  // Runs op eagerly whatever the mode (every input must be concrete).
  Status ExecuteEager(const OpCall& op, std::vector<Value>* outputs, KernelHint* hint = nullptr);

  // A new resource variable holding initial (concrete), named after name (made unique). In a
  // trace that may not create variables (a function's later traces) this is an error. A
  // symbolic initial value (computed in the first trace) initializes the variable on the
  // function's first call.
  Status CreateVariable(const Value& initial, const std::string& name, Value* handle);

  // Where op would run eagerly (its kernel is made and cached as by Execute): the context's CPU
  // or a device of DeviceSet::Process(). For tests and tools.
  Status PlacementOf(const OpCall& op, const Device** out);
  // Number of distinct eager kernels made so far (cached by op, attrs and input dtypes).
  size_t num_cached_kernels() const;
  // Forgets the cached eager kernels, so that the next op calls make new ones (stateful
  // kernels, such as random ops, start afresh: tf.random.set_seed). Kernels that op calls
  // still point to are kept until the context goes.
  void ClearKernelCache();

 private:
  struct CachedKernel {
    Node* node = nullptr;
    std::unique_ptr<OpKernel> kernel;
    Device* device = nullptr;  // where it runs: the context's CPU or a device of DeviceSet::Process()
  };
  Status FindKernel(const OpCall& op, const std::vector<const Tensor*>& inputs, const CachedKernel** out);
  // The device op.device names in DeviceSet::Process(), or the context's CPU.
  Device* RequestedEagerDevice(const OpCall& op);
  static bool OnHostOnly(DType t);

  CpuDevice device_;
  ResourceMgr resources_;
  mutable std::shared_mutex mu_;  // guards graph_, kernels_, placeholders_
  Graph graph_;                   // one node per cached eager kernel
  std::unordered_map<std::string, std::unique_ptr<CachedKernel>> kernels_;
  std::vector<std::unique_ptr<CachedKernel>> retired_kernels_;  // cleared, maybe still in use
  std::map<DType, Node*> placeholders_;
  int64_t next_variable_ = 0;
  void* handle_ = nullptr;
};

}  // namespace graft::eager
