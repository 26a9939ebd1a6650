// Context: eager execution (a cache of kernels, run on concrete tensors) and the dispatch of
// op calls to the trace current on this thread.
#include "core/eager/context.h"

#include <array>

#include "core/device_spec.h"
#include "core/eager/tape.h"
#include "core/runtime/denormal.h"
#include "core/runtime/run_control.h"
#include "core/runtime/device_set.h"
#include "core/thread_owned.h"
#include "core/variable.h"

namespace graft::eager {
namespace {

// The traces this thread is recording, innermost last (ThreadOwned: see thread_owned.h).
std::vector<Trace*>& Traces() { return ThreadOwned<std::vector<Trace*>>(); }

Status CheckConcrete(const OpCall& op, const Value& v) {
  if (v.is_symbolic()) return OutOfScopeError(v).WithContext(StrCat(op.type, " op"));
  if (!v.tensor.valid()) return errors::InvalidArgument(op.type, " op: an input is an empty value");
  return Status::Ok();
}

}  // namespace

Context::Context() = default;
Context::~Context() = default;

Trace* Context::current_trace() const {
  for (auto it = Traces().rbegin(); it != Traces().rend(); ++it) {
    if ((*it)->context() == this) return *it;
  }
  return nullptr;
}

Context::TraceScope::TraceScope(Trace* trace) { Traces().push_back(trace); }
Context::TraceScope::~TraceScope() { Traces().pop_back(); }

Status Context::Execute(const OpCall& op, std::vector<Value>* outputs, KernelHint* hint) {
  if (Trace* t = current_trace()) return t->Record(op, outputs);
  GRAFT_RETURN_IF_ERROR(ExecuteEager(op, outputs, hint));
  for (Tape* tape : Tape::Active()) {
    if (tape->Records(this)) tape->Record(this, op, *outputs);
  }
  return Status::Ok();
}

bool Context::taping() const {
  for (const Tape* tape : Tape::Active()) {
    if (tape->Records(this)) return true;
  }
  return false;
}

Status Context::AddFunctions(const FunctionLibrary& library) {
  std::unique_lock lock(mu_);
  for (const LibraryFunction& f : library) GRAFT_RETURN_IF_ERROR(graph_.AddFunction(f));
  return Status::Ok();
}

Status Context::PlacementOf(const OpCall& op, const Device** out) {
  std::vector<const Tensor*> inputs;
  for (const OpCall::Arg& arg : op.inputs) {
    for (const Value& v : arg.values) inputs.push_back(&v.tensor);
  }
  const CachedKernel* ck = nullptr;
  GRAFT_RETURN_IF_ERROR(FindKernel(op, inputs, &ck));
  *out = ck->device != nullptr ? ck->device : &device_;
  return Status::Ok();
}

size_t Context::num_cached_kernels() const {
  std::shared_lock lock(mu_);
  return kernels_.size();
}

void Context::ClearKernelCache() {
  std::unique_lock lock(mu_);
  // Reserved first, so that a failed allocation leaves the cache untouched.
  retired_kernels_.reserve(retired_kernels_.size() + kernels_.size());
  for (auto& entry : kernels_) retired_kernels_.push_back(std::move(entry.second));
  kernels_.clear();
}

bool Context::OnHostOnly(DType t) {
  return IsRefDType(t) || t == DType::kResource || t == DType::kVariant || t == DType::kString;
}

Device* Context::RequestedEagerDevice(const OpCall& op) {
  DeviceSpec spec;
  if (!DeviceSpec::Parse(op.device, &spec).ok() || !spec.device_type || *spec.device_type == kDeviceCpu) {
    return &device_;
  }
  for (const OpCall::Arg& arg : op.inputs) {
    for (const Value& v : arg.values) {
      if (OnHostOnly(v.tensor.dtype())) return &device_;  // state and strings stay on the host
    }
  }
  Device* d = DeviceSet::Process().Find(*spec.device_type, spec.device_index.value_or(0));
  return d != nullptr ? d : &device_;
}

Status Context::FindKernel(const OpCall& op, const std::vector<const Tensor*>& inputs, const CachedKernel** out) {
  // The key: op type, input dtypes by argument, attrs. Ops with tensor attrs are not cached
  // (their values would make the key large); each gets a kernel of its own.
  // Where the op runs: the device asked for when the process has it and it has a kernel.
  Device* device = &device_;
  if (!op.device.empty()) device = RequestedEagerDevice(op);
  std::string key = op.type;
  if (device != &device_) key.append("@").append(device->name());
  key.push_back('|');
  size_t k = 0;
  for (const OpCall::Arg& arg : op.inputs) {
    key.push_back(arg.is_list ? 'L' : 'S');
    for (size_t i = 0; i < arg.values.size(); ++i) {
      key.append(std::to_string(static_cast<int>(inputs[k++]->dtype()))).push_back(',');
    }
    key.push_back(';');
  }
  bool cacheable = true;
  for (const auto& [name, value] : op.attrs) {
    if (value.type() == AttrType::kTensor || value.type() == AttrType::kTensorList) cacheable = false;
    key.append(name).push_back('=');
    key.append(value.ToString()).push_back(';');
  }
  if (cacheable) {
    std::shared_lock lock(mu_);
    auto it = kernels_.find(key);
    if (it != kernels_.end()) {
      *out = it->second.get();
      return Status::Ok();
    }
  }
  std::unique_lock lock(mu_);
  if (cacheable) {
    auto it = kernels_.find(key);
    if (it != kernels_.end()) {
      *out = it->second.get();
      return Status::Ok();
    }
  } else {
    key.append("#").append(std::to_string(kernels_.size()));
  }
  NodeSpec spec;
  spec.type = op.type;
  spec.attrs = op.attrs;
  k = 0;
  for (const OpCall::Arg& arg : op.inputs) {
    NodeSpec::InputArg in;
    in.is_list = arg.is_list;
    for (size_t i = 0; i < arg.values.size(); ++i) {
      DType t = inputs[k++]->dtype();
      Node*& ph = placeholders_[t];
      if (ph == nullptr) {
        NodeSpec p;
        p.type = "Placeholder";
        p.attrs["dtype"] = AttrValue::Type(t);
        GRAFT_RETURN_IF_ERROR(graph_.AddNode(std::move(p), &ph));
      }
      in.tensors.push_back(Output{ph, 0});
    }
    spec.inputs.push_back(std::move(in));
  }
  auto entry = std::make_unique<CachedKernel>();
  GRAFT_RETURN_IF_ERROR(graph_.AddNode(std::move(spec), &entry->node));
  KernelFactory factory;
  if (device != &device_ && !KernelRegistry::Global().Find(*entry->node, device->type(), &factory).ok()) {
    device = &device_;  // no kernel there for these dtypes: the CPU
  }
  entry->device = device;
  if (device == &device_) GRAFT_RETURN_IF_ERROR(KernelRegistry::Global().Find(*entry->node, device_.type(), &factory));
  GRAFT_RETURN_IF_ERROR(factory(*entry->node, &entry->kernel));
  *out = entry.get();
  kernels_[key] = std::move(entry);
  return Status::Ok();
}

Status Context::ExecuteEager(const OpCall& op, std::vector<Value>* outputs, KernelHint* hint) {
  // The kernel runs as every kernel (core/runtime/denormal.h). Switched here, apart from the
  // kernel's own arithmetic, which a switch right beside it would have to wait for.
  ScopedFlushDenormals flush;
  // Small ops are the common case: inputs and outputs live on the stack up to kInline of them.
  constexpr size_t kInline = 8;
  size_t n = 0;
  for (const OpCall::Arg& arg : op.inputs) n += arg.values.size();
  std::array<Tensor, kInline> inline_inputs;
  std::vector<Tensor> heap_inputs(n > kInline ? n : 0);
  Tensor* inputs = n > kInline ? heap_inputs.data() : inline_inputs.data();
  size_t k = 0;
  for (const OpCall::Arg& arg : op.inputs) {
    for (const Value& v : arg.values) {
      GRAFT_RETURN_IF_ERROR(CheckConcrete(op, v));
      inputs[k++] = v.tensor;
    }
  }
  const CachedKernel* ck = nullptr;
  if (hint != nullptr && hint->kernel != nullptr && hint->dtypes.size() == n) {
    bool same = true;
    for (size_t i = 0; i < n && same; ++i) same = hint->dtypes[i] == inputs[i].dtype();
    if (same) ck = static_cast<const CachedKernel*>(hint->kernel);
  }
  if (ck == nullptr) {
    std::vector<const Tensor*> in_ptrs;
    for (size_t i = 0; i < n; ++i) in_ptrs.push_back(&inputs[i]);
    if (Status st = FindKernel(op, in_ptrs, &ck); !st.ok()) return st.WithContext(StrCat(op.type, " op"));
    if (hint != nullptr) {
      hint->kernel = ck;
      hint->dtypes.clear();
      for (size_t i = 0; i < n; ++i) hint->dtypes.push_back(inputs[i].dtype());
    }
  }
  std::array<Tensor*, kInline> inline_ptrs;
  std::vector<Tensor*> heap_ptrs(n > kInline ? n : 0);
  Tensor** ptrs = n > kInline ? heap_ptrs.data() : inline_ptrs.data();
  for (size_t i = 0; i < n; ++i) ptrs[i] = &inputs[i];
  static constexpr uint8_t kNotForwardable[kInline] = {};
  std::vector<uint8_t> no_forward(n > kInline ? n : 0, 0);
  const uint8_t* forwardable = n > kInline ? no_forward.data() : kNotForwardable;
  const size_t m = static_cast<size_t>(ck->node->num_outputs());
  std::array<Tensor, kInline> inline_outs;
  std::vector<Tensor> heap_outs(m > kInline ? m : 0);
  Tensor* outs = m > kInline ? heap_outs.data() : inline_outs.data();
  Device* device = ck->device != nullptr ? ck->device : &device_;
  if (device != &device_) {
    // Another device: inputs there, outputs back (eager values live in host memory).
    for (size_t i = 0; i < n; ++i) {
      if (!OnHostOnly(inputs[i].dtype()) && !ck->kernel->HostMemoryInput(static_cast<int>(i))) {
        Status st = device->CopyFromHost(inputs[i], &inputs[i]);
        if (!st.ok()) return st.WithContext(StrCat(op.type, " op: copying input ", i, " to ", device->name()));
      }
    }
  }
  OpKernelContext ctx(*ck->node, device, &resources_, std::span<Tensor* const>(ptrs, n),
                      std::span<const uint8_t>(forwardable, n), std::span<Tensor>(outs, m));
  // (A function's body run op by op for a gradient tape: its While and calls stop with it.)
  ctx.set_run_control(RunControl::Current());
  if (Status st = ck->kernel->Compute(ctx); !st.ok()) return st.WithContext(StrCat(op.type, " op"));
  if (device != &device_) {
    for (size_t i = 0; i < m; ++i) {
      if (ck->kernel->HostMemoryOutput(static_cast<int>(i))) continue;
      Status st = device->CopyToHost(outs[i], &outs[i]);
      if (!st.ok()) return st.WithContext(StrCat(op.type, " op: copying output ", i, " from ", device->name()));
    }
  }
  outputs->resize(m);
  for (size_t i = 0; i < m; ++i) {
    (*outputs)[i].tensor = std::move(outs[i]);
    (*outputs)[i].id = NewValueId();
    (*outputs)[i].symbolic = Output{};
    (*outputs)[i].graph.reset();
  }
  return Status::Ok();
}

Status Context::CreateVariable(const Value& initial, const std::string& name, Value* handle) {
  Trace* trace = current_trace();
  if (trace != nullptr) trace->note_variable_created();  // attempts count too (PolymorphicFunction's check)
  if (trace != nullptr && !trace->may_create_variables()) {
    return errors::FailedPrecondition(
        "a traced function may create variables only on its first trace: variables are created once. "
        "Create them outside the function, or only when they do not exist yet");
  }
  if (!initial.is_symbolic() && !initial.tensor.valid()) return errors::InvalidArgument("the initial value is empty");
  ResourceHandle h;
  {
    std::unique_lock lock(mu_);
    h.name = StrCat(name.empty() ? "Variable" : name, "_", next_variable_++);
  }
  h.dtype = initial.dtype();
  h.shape = initial.shape();
  std::shared_ptr<Variable> var;
  GRAFT_RETURN_IF_ERROR(resources_.LookupOrCreate(h.container, h.name, h.dtype, h.shape, &var));
  Tensor t = Tensor::Special(DType::kResource, std::make_shared<HandleBuffer>(h));
  *handle = Value::Concrete(t);
  if (!initial.is_symbolic()) {
    std::lock_guard<std::mutex> lock(var->mu);
    GRAFT_RETURN_IF_ERROR(initial.tensor.Copy(&var->value));
    var->initialized = true;
    return Status::Ok();
  }
  // Computed in the trace: the function initializes it on its first call.
  OpCall init;
  init.type = "GraftInitializeVariable";
  init.inputs = {{{*handle}, false}, {{initial}, false}};
  init.attrs["dtype"] = AttrValue::Type(h.dtype);
  std::vector<Value> none;
  return trace->Record(init, &none);
}

}  // namespace graft::eager
