// Kernels: the code that runs one op on one device. A kernel is made once per node when a
// run is prepared (so it reads its attrs once) and computes on every run, possibly from
// several threads at once: Compute must not change the kernel.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"
#include "core/variable.h"

namespace graft {

struct RunControl;  // run_control.h

class Device;
class ResourceMgr;

// What a kernel sees while it computes: its inputs, where to put its outputs, the device and
// the session's resources.
class OpKernelContext {
 public:
  OpKernelContext(const Node& node, Device* device, ResourceMgr* resources, std::span<Tensor* const> inputs,
                  std::span<const uint8_t> forwardable, std::span<Tensor> outputs)
      : node_(node), device_(device), resources_(resources), inputs_(inputs), forwardable_(forwardable),
        outputs_(outputs) {}

  const Node& node() const { return node_; }
  Device* device() const { return device_; }
  ResourceMgr* resources() const { return resources_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const Tensor& input(int i) const { return *inputs_[static_cast<size_t>(i)]; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }

  // An output buffer of dtype and dims. It reuses input `reuse_input`'s buffer when nothing
  // else needs that input any more and the sizes match (so chains of elementwise ops run in
  // place); otherwise it allocates (uninitialised).
  Status AllocateOutput(int i, DType dtype, std::span<const int64_t> dims, Tensor** out, int reuse_input = -1);
  // Output i in host memory whatever the device (for an output the kernel declares
  // OpKernel::HostMemoryOutput), uninitialized.
  Status AllocateHostOutput(int i, DType dtype, std::span<const int64_t> dims, Tensor** out);
  void SetOutput(int i, Tensor t) { outputs_[static_cast<size_t>(i)] = std::move(t); }
  Tensor& output(int i) { return outputs_[static_cast<size_t>(i)]; }

  // The variable behind reference input i (a TensorFlow 1 variable).
  Status InputRef(int i, std::shared_ptr<Variable>* out) const;

  // The run's deadline and cancellation (run_control.h), or nullptr: kernels that run nested
  // graphs (function calls, If, While) pass it on, so the nested runs stop with the outer one.
  const RunControl* run_control() const { return run_control_; }
  void set_run_control(const RunControl* control) { run_control_ = control; }

 private:
  const Node& node_;
  Device* device_;
  ResourceMgr* resources_;
  std::span<Tensor* const> inputs_;
  std::span<const uint8_t> forwardable_;  // input i is not needed after this kernel
  std::span<Tensor> outputs_;
  const RunControl* run_control_ = nullptr;
};

class OpKernel {
 public:
  explicit OpKernel(const Node& node) : node_(&node) {}
  virtual ~OpKernel() = default;
  virtual Status Compute(OpKernelContext& ctx) const = 0;
  const Node& node() const { return *node_; }
  // Cheap kernels run on the thread that made them ready instead of being handed off.
  virtual bool IsCheap() const { return false; }
  // The kernel spreads one call over every core with threads of its own (a multithreaded BLAS
  // call, whose threads are not Graft's): the executor runs a plan with such a kernel one step
  // at a time, since steps run beside those threads only take cores from them.
  virtual bool UsesAllCores() const { return false; }
  // Input i is read on the host whatever device the kernel runs on (TensorFlow's HostMemory):
  // the small inputs that shape a result (a reshape's sizes, axes, a slice's begin). The
  // executor and eager execution leave such an input in host memory instead of copying it to
  // the kernel's device, so the kernel reads it without waiting for the device.
  virtual bool HostMemoryInput(int /*i*/) const { return false; }
  // Output i is made in host memory whatever device the kernel runs on (a shape's values,
  // which their consumers read on the host): the kernel allocates it with
  // OpKernelContext::AllocateHostOutput.
  virtual bool HostMemoryOutput(int /*i*/) const { return false; }
  // Called once by MakeFactory after construction; kernels with attrs to read define their
  // own (hiding this one).
  Status Init() { return Status::Ok(); }

 private:
  const Node* node_;
};

using KernelFactory = std::function<Status(const Node& node, std::unique_ptr<OpKernel>* out)>;
// A factory as a plain function (CreateKernel<K>): what the per-dtype kernel tables register,
// so that the thousand-odd registrations share one std::function type and build no strings,
// vectors or std::function at the call site.
using KernelCreateFn = Status (*)(const Node& node, std::unique_ptr<OpKernel>* out);

// Kernels by (op type, device type, dtype constraint). Thread-safe; open to plug-ins.
class KernelRegistry {
 public:
  static KernelRegistry& Global();

  // constraint_attr: a type attr of the op (e.g. "T") whose value must be one of dtypes;
  // empty to accept any node of the op.
  Status Register(std::string op, std::string device_type, std::string constraint_attr, std::vector<DType> dtypes,
                  KernelFactory factory);
  // The same for a plain function; out of line, so a registration site is a few instructions.
  Status Register(const char* op, const char* device_type, const char* constraint_attr,
                  std::initializer_list<DType> dtypes, KernelCreateFn create);
  // The factory for node on device_type; kNotFound naming op, device and dtype when none fits.
  Status Find(const Node& node, const std::string& device_type, KernelFactory* out) const;
  bool HasKernel(const std::string& op, const std::string& device_type) const;
  // The factory registered for op on device_type whose constraint_attr admits dtype.
  Status FindForDType(const std::string& op, const std::string& device_type, const std::string& constraint_attr,
                      DType dtype, KernelFactory* out) const;
  // The ops with a kernel on device_type, and the dtypes one constraint attr admits.
  std::vector<std::string> Ops(const std::string& device_type) const;
  std::vector<DType> DTypes(const std::string& op, const std::string& device_type,
                            const std::string& constraint_attr) const;
  // For graph construction: fails (naming the op, the attr and its dtype) when the op has
  // kernels but none, on any device, admits the dtypes in attrs. An op without kernels (run
  // by a later device or a plug-in, or only imported) passes.
  Status CheckSupported(const std::string& op, const std::string& node_name, const AttrMap& attrs) const;

 private:
  struct Entry {
    std::string constraint_attr;
    std::vector<DType> dtypes;
    KernelFactory factory;
    bool Admits(DType d) const { return std::find(dtypes.begin(), dtypes.end(), d) != dtypes.end(); }
  };
  KernelRegistry() = default;
  mutable std::shared_mutex mu_;
  std::map<std::pair<std::string, std::string>, std::vector<Entry>> entries_;
};

// Makes a new K for node and runs its Init.
template <typename K>
Status CreateKernel(const Node& node, std::unique_ptr<OpKernel>* out) {
  auto k = std::make_unique<K>(node);
  GRAFT_RETURN_IF_ERROR(k->Init());
  *out = std::move(k);
  return Status::Ok();
}

// Convenience for kernels that make a new kernel object per node.
template <typename K>
KernelFactory MakeFactory() {
  return &CreateKernel<K>;
}

}  // namespace graft
