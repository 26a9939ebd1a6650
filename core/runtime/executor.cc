// Executor: preparing a graph into a plan (pruning, rewrites, slots, last readers,
// placement, kernels) and the dataflow engine that runs it, sequentially or in parallel.
#include "core/runtime/executor.h"

#include "core/device_spec.h"
#include "core/runtime/denormal.h"
#include "core/runtime/frame_executor.h"
#include "core/runtime/rewrites.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <new>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace graft {
namespace {

bool IsV1ControlFlow(const std::string& type) {
  static const std::unordered_set<std::string> kOps = {"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter",
                                                       "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond"};
  return kOps.count(type) != 0;
}

std::string Where(const Node& n) { return StrCat(n.type(), " op '", n.name(), "'"); }

// Reads the current value of a reference (a TensorFlow 1 variable).
Status Deref(const Tensor& t, std::string_view who, Tensor* out) {
  // Only reference dtypes have a RefBuffer (and the cast is the dear part).
  auto* ref = IsRefDType(t.dtype()) ? dynamic_cast<const RefBuffer*>(t.buffer().get()) : nullptr;
  if (ref == nullptr) {
    *out = t;
    return Status::Ok();
  }
  Variable& v = *ref->variable();
  std::lock_guard lock(v.mu);
  if (!v.initialized) {
    return errors::FailedPrecondition(who, ": attempting to use an uninitialized variable");
  }
  *out = v.value;
  return Status::Ok();
}

int64_t Bytes(const Tensor& t) { return t.valid() ? static_cast<int64_t>(t.byte_size()) : 0; }

bool IsHost(const Device* d) { return d->type() == kDeviceCpu; }

// Values that live in host memory whatever device their op asks for: references, resources
// and variants point at state the runtime keeps, and strings are host objects.
bool IsHostMemoryType(DType t) {
  return IsRefDType(t) || t == DType::kResource || t == DType::kVariant || t == DType::kString;
}

// The device another than the CPU that an op asks for and that can run it: named by its
// device string, present in the session, with a kernel for the op (whose factory goes to
// *factory). nullptr for the CPU: no device asked for, none such, or an input or output of a
// host-memory type (state stays with the runtime, on the host; values read from it are
// copied to where they are used).
Device* RequestedDevice(const Node& n, const DeviceSet& devices, const PlacementPolicy& policy,
                        const KernelRegistry& kernels, KernelFactory* factory) {
  const std::string& wanted = n.device().empty() ? policy.default_device : n.device();
  if (wanted.empty()) return nullptr;
  for (int i = 0; i < n.num_inputs(); ++i) {
    if (IsHostMemoryType(n.input_type(i))) return nullptr;
  }
  for (int i = 0; i < n.num_outputs(); ++i) {
    if (IsHostMemoryType(n.output_type(i))) return nullptr;
  }
  DeviceSpec spec;
  if (!DeviceSpec::Parse(wanted, &spec).ok() || !spec.device_type || *spec.device_type == kDeviceCpu) {
    return nullptr;
  }
  Device* d = devices.Find(*spec.device_type, spec.device_index.value_or(0));
  if (d == nullptr || !kernels.Find(n, d->type(), factory).ok()) return nullptr;
  return d;
}

// Strict placement: an op whose own device string names another device than the CPU must run
// there.
Status CheckStrictPlacement(const Node& n, const DeviceSet& devices, const PlacementPolicy& policy,
                            const Device* placed) {
  if (!policy.strict || n.device().empty() || !IsHost(placed)) return Status::Ok();
  // A function call runs on the CPU and places its body by its device.
  if (n.type() == "PartitionedCall" || n.type() == "StatefulPartitionedCall") return Status::Ok();
  DeviceSpec spec;
  if (!DeviceSpec::Parse(n.device(), &spec).ok() || !spec.device_type || *spec.device_type == kDeviceCpu) {
    return Status::Ok();
  }
  const Device* d = devices.Find(*spec.device_type, spec.device_index.value_or(0));
  return errors::InvalidArgument(n.type(), " op '", n.name(), "' asks for device '", n.device(), "', which ",
                                 d == nullptr ? "this process does not have"
                                              : "has no kernel for it (or for its dtypes or host-memory values)",
                                 ", and placement is strict");
}

// A value of device `from` as device `to` holds it, through host memory.
Status Transfer(const Tensor& value, Device* from, Device* to, Tensor* out) {
  Tensor host = value;
  if (!IsHost(from)) GRAFT_RETURN_IF_ERROR(from->CopyToHost(value, &host));
  if (IsHost(to)) {
    *out = std::move(host);
    return Status::Ok();
  }
  return to->CopyFromHost(host, out);
}

}  // namespace

Executor::~Executor() = default;

Status Executor::ConstantOn(int slot, const Tensor& value, Device* from, Device* to, Tensor* out) const {
  const std::pair<int, const Device*> key{slot, to};
  {
    std::lock_guard<std::mutex> lock(const_copies_mu_);
    if (auto it = const_copies_.find(key); it != const_copies_.end()) {
      *out = it->second;
      return Status::Ok();
    }
  }
  GRAFT_RETURN_IF_ERROR(Transfer(value, from, to, out));
  std::lock_guard<std::mutex> lock(const_copies_mu_);
  const_copies_.emplace(key, *out);  // a concurrent run's copy may be there first: either will do
  return Status::Ok();
}

Status Executor::Create(const Graph& graph, const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                        const std::vector<const Node*>& targets, const DeviceSet& devices,
                        const RewriteOptions& rewrites, std::unique_ptr<Executor>* out,
                        const PlacementPolicy* policy_override) {
  const PlacementPolicy& policy = policy_override != nullptr ? *policy_override : devices.policy();
  auto exe = std::unique_ptr<Executor>(new Executor());
  Device* device = devices.cpu();  // constant folding runs on the CPU

  std::unordered_map<std::string, size_t> fed;  // "op:i" -> feed index
  for (size_t i = 0; i < feeds.size(); ++i) {
    const Output& f = feeds[i];
    std::string name = Graph::TensorName(f);
    if (!graph.IsFeedable(f)) return errors::InvalidArgument("tensor '", name, "' may not be fed");
    if (!fed.emplace(name, i).second) return errors::InvalidArgument("tensor '", name, "' is fed twice");
  }
  for (const Output& f : fetches) {
    if (!graph.IsFetchable(f.node)) {
      return errors::InvalidArgument("tensor '", Graph::TensorName(f), "' may not be fetched");
    }
  }
  for (const Node* t : targets) {
    if (!graph.IsFetchable(t)) return errors::InvalidArgument("op '", t->name(), "' may not be run as a target");
  }

  // Pruning: walk back from fetches and targets, not through fed tensors.
  std::unordered_set<const Node*> needed;
  std::vector<const Node*> stack;
  // A node whose every output is fed does not run (its feeds stand in for it), so a control
  // dependency on it is met at once.
  auto fully_fed = [&](const Node* n) {
    if (n->num_outputs() == 0) return false;
    for (int i = 0; i < n->num_outputs(); ++i) {
      if (fed.count(Graph::TensorName(Output{const_cast<Node*>(n), i})) == 0) return false;
    }
    return true;
  };
  auto want = [&](const Node* n) {
    if (fully_fed(n)) return;
    if (needed.insert(n).second) stack.push_back(n);
  };
  for (const Output& f : fetches) {
    if (fed.count(Graph::TensorName(f)) == 0) want(f.node);
  }
  for (const Node* t : targets) want(t);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Output& in : n->inputs()) {
      if (in.node == nullptr) return errors::Internal(Where(*n), " has an unconnected input");
      if (fed.count(Graph::TensorName(in)) == 0) want(in.node);
    }
    for (const Node* c : n->control_inputs()) want(c);
  }

  // Creation order is a dependency order for graphs without loops.
  std::vector<const Node*> order;
  for (int64_t i = 0; i < graph.num_nodes(); ++i) {
    const Node* n = graph.NodeAt(i);
    if (needed.count(n) == 0) continue;
    if (IsV1ControlFlow(n->type())) exe->has_control_flow_ = true;
    order.push_back(n);
  }

  // Rewrites (not across TensorFlow 1 control flow, whose dead values they would change).
  std::vector<PlannedNode> plan;
  std::unordered_map<std::string, Output> redirect;
  if (!exe->has_control_flow_) {
    std::unordered_set<std::string> fed_names;
    for (const auto& [name, i] : fed) fed_names.insert(name);
    // Fusion takes in only nodes that placement (below) puts on the CPU, where the fused
    // kernels run.
    FusionSetup fusion;
    if (rewrites.fusion) {
      exe->scratch_ = std::make_shared<Graph>();
      fusion.scratch = exe->scratch_.get();
      fusion.on_cpu = [&](const Node& n) {
        KernelFactory unused;
        return RequestedDevice(n, devices, policy, KernelRegistry::Global(), &unused) == nullptr;
      };
    }
    GRAFT_RETURN_IF_ERROR(
        RewritePlan(order, fed_names, fetches, targets, rewrites, device, nullptr, &fusion, &plan, &redirect));
  } else {
    for (const Node* n : order) {
      PlannedNode p;
      p.node = n;
      p.inputs = n->inputs();
      p.controls.assign(n->control_inputs().begin(), n->control_inputs().end());
      plan.push_back(std::move(p));
    }
  }
  auto resolve = [&](Output t) {
    for (;;) {
      auto it = redirect.find(Graph::TensorName(t));
      if (it == redirect.end()) return t;
      t = it->second;
    }
  };

  // Slots: feeds first, then each step's outputs.
  std::unordered_map<const Node*, int> step_of;
  std::unordered_map<std::string, int> slot_of_fed;
  int slot = 0;
  for (size_t i = 0; i < feeds.size(); ++i) {
    exe->feed_slots_.push_back(slot);
    exe->feed_types_.push_back(BaseDType(feeds[i].node->output_type(feeds[i].index)));
    exe->feed_shapes_.push_back(feeds[i].node->output_shape(feeds[i].index));
    exe->feed_names_.push_back(Graph::TensorName(feeds[i]));
    slot_of_fed[Graph::TensorName(feeds[i])] = slot++;
  }
  for (const PlannedNode& p : plan) {
    const Node* n = p.node;
    Step s;
    s.node = n;
    s.first_output = slot;
    s.num_outputs = n->num_outputs();
    slot += s.num_outputs;
    step_of[n] = static_cast<int>(exe->steps_.size());
    exe->steps_.push_back(std::move(s));
  }
  exe->num_slots_ = slot;
  auto slot_for = [&](const Output& t) -> int {
    auto f = slot_of_fed.find(Graph::TensorName(t));
    if (f != slot_of_fed.end()) return f->second;
    return exe->steps_[static_cast<size_t>(step_of.at(t.node))].first_output + t.index;
  };

  exe->consumers_.assign(static_cast<size_t>(slot), 0);
  exe->keep_slot_.assign(static_cast<size_t>(slot), false);
  for (int s : exe->feed_slots_) exe->keep_slot_[static_cast<size_t>(s)] = true;
  for (const Output& f : fetches) {
    int s = slot_for(slot_of_fed.count(Graph::TensorName(f)) ? f : resolve(f));
    exe->fetch_slots_.push_back(s);
    exe->keep_slot_[static_cast<size_t>(s)] = true;
  }

  KernelRegistry& kernels = KernelRegistry::Global();
  std::vector<int> last_reader(static_cast<size_t>(slot), -1);
  std::vector<int> depth(exe->steps_.size(), 1);
  int longest_path = 0;
  for (size_t k = 0; k < exe->steps_.size(); ++k) {
    Step& s = exe->steps_[k];
    const Node& n = *s.node;
    const PlannedNode& planned = plan[k];
    std::unordered_set<int> preds;
    for (size_t i = 0; i < planned.inputs.size(); ++i) {
      const Output& in = planned.inputs[i];
      int from = slot_for(in);
      s.inputs.push_back(from);
      s.deref.push_back(IsRefDType(in.node->output_type(in.index)) && !IsRefDType(n.input_type(static_cast<int>(i))));
      s.any_deref = s.any_deref || s.deref.back();
      exe->consumers_[static_cast<size_t>(from)]++;
      last_reader[static_cast<size_t>(from)] = static_cast<int>(k);
      auto st = step_of.find(in.node);
      if (st != step_of.end() && slot_of_fed.count(Graph::TensorName(in)) == 0) preds.insert(st->second);
    }
    for (const Node* c : planned.controls) {
      auto st = step_of.find(c);
      if (st != step_of.end()) preds.insert(st->second);
    }
    s.num_predecessors = static_cast<int>(preds.size());
    int step_depth = 1;  // steps on the longest path of dependences ending here
    for (int p : preds) {
      exe->steps_[static_cast<size_t>(p)].successors.push_back(static_cast<int>(k));
      step_depth = std::max(step_depth, depth[static_cast<size_t>(p)] + 1);
    }
    depth[k] = step_depth;
    longest_path = std::max(longest_path, step_depth);
    if (preds.empty()) exe->initially_ready_.push_back(static_cast<int>(k));

    // Placement: the requested device when it has a kernel, else the CPU. TensorFlow 1 control
    // flow forwards values whatever their device, so graphs with it run on the CPU.
    s.device = devices.cpu();
    if (IsV1ControlFlow(n.type())) continue;  // the frame engine runs these itself
    if (planned.folded) {
      s.kernel = std::make_unique<ValuesKernel>(n, planned.values);
      continue;
    }
    KernelFactory factory;
    Device* requested = exe->has_control_flow_ ? nullptr : RequestedDevice(n, devices, policy, kernels, &factory);
    if (requested != nullptr) {
      s.device = requested;
    } else {
      GRAFT_RETURN_IF_ERROR(CheckStrictPlacement(n, devices, policy, s.device));
      GRAFT_RETURN_IF_ERROR(kernels.Find(n, s.device->type(), &factory));
    }
    GRAFT_RETURN_IF_ERROR(factory(n, &s.kernel).WithContext(Where(n)));
    exe->uses_all_cores_ = exe->uses_all_cores_ || s.kernel->UsesAllCores();
  }
  // Where values live, and which inputs cross devices.
  exe->slot_device_.assign(static_cast<size_t>(slot), devices.cpu());
  for (const Step& s : exe->steps_) {
    for (int i = 0; i < s.num_outputs; ++i) {
      exe->slot_device_[static_cast<size_t>(s.first_output + i)] =
          !IsHost(s.device) && s.kernel->HostMemoryOutput(i) ? devices.cpu() : s.device;
    }
  }
  exe->host_ = devices.cpu();
  for (Step& s : exe->steps_) {
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      const bool on_host = !IsHost(s.device) && s.kernel->HostMemoryInput(static_cast<int>(i));
      s.host_input.push_back(on_host);
      s.transfer.push_back(exe->slot_device_[static_cast<size_t>(s.inputs[i])] != (on_host ? exe->host_ : s.device));
      s.any_transfer = s.any_transfer || s.transfer.back();
    }
  }
  // A graph whose longest path of dependences holds nearly every step (a chain) has nothing to
  // run side by side: the parallel engine would only add its handoffs (and a spinning helper
  // on the other core) to every step.
  exe->chain_like_ = static_cast<int64_t>(longest_path) * 10 >= static_cast<int64_t>(exe->steps_.size()) * 9;
  if (exe->has_control_flow_) GRAFT_RETURN_IF_ERROR(FrameExecutor::Prepare(*exe, step_of, slot_of_fed, &exe->frames_));
  exe->const_slot_.assign(static_cast<size_t>(slot), false);
  for (size_t k = 0; k < exe->steps_.size(); ++k) {
    Step& s = exe->steps_[k];
    if (plan[k].folded) {
      s.is_const = true;
      for (int i = 0; i < s.num_outputs; ++i) {
        exe->const_slot_[static_cast<size_t>(s.first_output + i)] = true;
        exe->const_bytes_ += static_cast<int64_t>(plan[k].values[static_cast<size_t>(i)].byte_size());
      }
      continue;
    }
    if (s.node->type() != "Const") continue;
    s.is_const = true;
    exe->const_slot_[static_cast<size_t>(s.first_output)] = true;
    const AttrValue* v = s.node->attr("value");
    if (v && v->get<Tensor>()) exe->const_bytes_ += static_cast<int64_t>(v->get<Tensor>()->byte_size());
  }
  for (size_t k = 0; k < exe->steps_.size(); ++k) {
    Step& s = exe->steps_[k];
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      int from = s.inputs[i];
      bool keep = exe->keep_slot_[static_cast<size_t>(from)];
      // A slot read twice by one step (x * x) dies only at its last read.
      bool later_in_step = std::find(s.inputs.begin() + static_cast<std::ptrdiff_t>(i) + 1, s.inputs.end(), from) !=
                           s.inputs.end();
      s.last_use.push_back(!keep && !later_in_step && last_reader[static_cast<size_t>(from)] == static_cast<int>(k));
      s.sole_consumer.push_back(!keep && exe->consumers_[static_cast<size_t>(from)] == 1);
    }
  }
  *out = std::move(exe);
  return Status::Ok();
}

Status Executor::RunStep(const Step& step, std::vector<Tensor>& slots, ResourceMgr* resources,
                         const RunControl* control, bool parallel, const std::vector<uint8_t>* forward_override) const {
  const Node& n = *step.node;
  if (control != nullptr) GRAFT_RETURN_IF_ERROR(control->Check(n));
  // Kernels read their inputs in place, from the slots; a small fixed array of pointers
  // avoids a heap allocation per step for the common arities.
  constexpr size_t kInline = 8;
  Tensor* inline_ptrs[kInline];
  std::unique_ptr<Tensor*[]> heap_ptrs;
  std::unique_ptr<Tensor[]> derefs;  // current values of reference inputs
  size_t ni = step.inputs.size();
  Tensor** inputs = inline_ptrs;
  if (ni > kInline) {
    heap_ptrs.reset(new Tensor*[ni]);
    inputs = heap_ptrs.get();
  }
  if (step.any_deref || step.any_transfer) derefs.reset(new Tensor[ni]);
  for (size_t i = 0; i < ni; ++i) {
    Tensor& src = slots[static_cast<size_t>(step.inputs[i])];
    if (!src.valid()) return errors::Internal(Where(n), ": input ", i, " has no value");
    if (step.deref[i]) {
      GRAFT_RETURN_IF_ERROR(Deref(src, StrCat(Where(n), " input ", i), &derefs[i]));
      inputs[i] = &derefs[i];
    } else {
      inputs[i] = &src;
    }
    if (step.transfer[i]) {
      const int slot = step.inputs[i];
      Device* from = slot_device_[static_cast<size_t>(slot)];
      Device* to = step.host_input[i] ? host_ : step.device;
      Status moved = const_slot_[static_cast<size_t>(slot)] && !IsHost(to)
                         ? ConstantOn(slot, *inputs[i], from, to, &derefs[i])
                         : Transfer(*inputs[i], from, to, &derefs[i]);
      if (!moved.ok()) {
        return Status(moved.code(), StrCat(Where(n), ": copying input ", i, " from ", from->name(), " to ",
                                           to->name(), ": ", moved.message()));
      }
      inputs[i] = &derefs[i];
    }
  }
  std::span<Tensor> outputs(slots.data() + step.first_output, static_cast<size_t>(step.num_outputs));
  const std::vector<uint8_t>& forward =
      forward_override != nullptr ? *forward_override : parallel ? step.sole_consumer : step.last_use;
  OpKernelContext ctx(n, step.device, resources, std::span<Tensor* const>(inputs, ni),
                      std::span<const uint8_t>(forward.data(), forward.size()), outputs);
  ctx.set_run_control(control);
  Status s;
  {
    MemoryScope memory(control != nullptr ? control->memory : nullptr);
    try {
      s = step.kernel->Compute(ctx);
    } catch (const std::bad_alloc&) {
      // A kernel's own containers ran out: the error names the op (instead of the C API's
      // bare "out of memory"), and a pool worker never sees the exception.
      s = errors::ResourceExhausted("out of memory");
    } catch (const std::length_error&) {
      s = errors::ResourceExhausted("out of memory (a container of more elements than it can hold)");
    }
  }
  if (!s.ok()) return Status(s.code(), StrCat(Where(n), ": ", s.message()));
  for (int i = 0; i < step.num_outputs; ++i) {
    if (!outputs[static_cast<size_t>(i)].valid()) {
      return errors::Internal(Where(n), ": the kernel produced no output ", i);
    }
  }
  if (!parallel) {
    // Values whose last reader this was are released now.
    for (size_t i = 0; i < ni; ++i) {
      if (step.last_use[i]) slots[static_cast<size_t>(step.inputs[i])] = Tensor();
    }
  }
  return Status::Ok();
}

Status Executor::RunSequential(std::vector<Tensor>& slots, ResourceMgr* resources, RunStats* stats,
                               const RunControl* control) const {
  // Constants are resident for the whole run; other values count from their producer to
  // their last reader.
  int64_t live = const_bytes_;
  for (const Tensor& t : slots) live += Bytes(t);
  int64_t peak = live;
  for (const Step& step : steps_) {
    int64_t in_bytes = 0;
    if (stats) {
      for (size_t i = 0; i < step.inputs.size(); ++i) {
        int from = step.inputs[i];
        if (step.last_use[i] && !const_slot_[static_cast<size_t>(from)]) in_bytes += Bytes(slots[static_cast<size_t>(from)]);
      }
    }
    GRAFT_RETURN_IF_ERROR(RunStep(step, slots, resources, control, /*parallel=*/false));
    if (stats && !step.is_const) {
      for (int i = 0; i < step.num_outputs; ++i) live += Bytes(slots[static_cast<size_t>(step.first_output + i)]);
      peak = std::max(peak, live);
    }
    live -= in_bytes;  // inputs that died here are gone now
  }
  if (stats) {
    stats->peak_bytes = peak;
    stats->nodes_run = static_cast<int64_t>(steps_.size());
  }
  return Status::Ok();
}

// The shared state of a parallel run: a queue of ready steps that the calling thread and the
// pool's workers drain together. Workers hold it by shared_ptr, so it outlives the last one
// even after the caller has returned.
struct Executor::ParallelRun {
  const Executor* exe;
  std::vector<Tensor>* slots;
  ResourceMgr* resources;
  const RunControl* control;
  bool track;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::unique_ptr<std::atomic<int>[]> readers;  // consumers left per slot
  std::atomic<int64_t> live{0};
  std::atomic<int64_t> peak{0};
  std::atomic<bool> failed{false};
  int workers = 1;
  std::mutex mu;  // guards queue and error; waiters wait on cv for work or the end
  std::condition_variable cv;
  std::vector<int> queue;
  std::atomic<int64_t> queued{0};     // queue.size(), readable without the lock
  std::atomic<int64_t> remaining{0};  // steps not yet done
  Status error;
};

// Runs ready steps until every step of the run is done. A worker takes a share of the shared
// queue at once (a batch, so that small ops do not pay a lock each), and a step that makes
// others ready keeps one for its own thread (so a chain stays on one thread) and queues the
// rest for the other workers.
void Executor::Work(const std::shared_ptr<ParallelRun>& st) {
  const Executor& exe = *st->exe;
  std::vector<Tensor>& slots = *st->slots;
  std::vector<int> local;  // steps this worker has taken, next at the back
  for (;;) {
    if (local.empty()) {
      // Spin a little before sleeping: in a run of small ops the next ready step (or the end)
      // is usually microseconds away, and a sleeping thread takes longer than that to wake.
      SpinUntil([&] { return st->queued.load(std::memory_order_acquire) != 0 || st->remaining.load() == 0; },
                std::chrono::microseconds(30));
      std::unique_lock lock(st->mu);
      st->cv.wait(lock, [&] { return !st->queue.empty() || st->remaining.load() == 0; });
      if (st->queue.empty()) return;  // all done
      const size_t take = std::max<size_t>(1, st->queue.size() / static_cast<size_t>(2 * st->workers));
      local.assign(st->queue.end() - static_cast<std::ptrdiff_t>(take), st->queue.end());
      st->queue.resize(st->queue.size() - take);
      st->queued.store(static_cast<int64_t>(st->queue.size()), std::memory_order_release);
    }
    const int k = local.back();
    local.pop_back();
    const Step& step = exe.steps_[static_cast<size_t>(k)];
    if (!st->failed.load(std::memory_order_relaxed)) {
      Status s = exe.RunStep(step, slots, st->resources, st->control, /*parallel=*/true);
      if (!s.ok()) {
        std::lock_guard lock(st->mu);
        if (!st->failed.exchange(true)) st->error = s;
      } else if (st->track && !step.is_const) {
        int64_t added = 0;
        for (int i = 0; i < step.num_outputs; ++i) added += Bytes(slots[static_cast<size_t>(step.first_output + i)]);
        int64_t now = st->live.fetch_add(added) + added;
        int64_t prev = st->peak.load();
        while (now > prev && !st->peak.compare_exchange_weak(prev, now)) {
        }
      }
      // Release inputs nobody else will read.
      for (int from : step.inputs) {
        if (exe.keep_slot_[static_cast<size_t>(from)]) continue;
        if (st->readers[static_cast<size_t>(from)].fetch_sub(1) == 1) {
          if (st->track && !exe.const_slot_[static_cast<size_t>(from)]) st->live.fetch_sub(Bytes(slots[static_cast<size_t>(from)]));
          slots[static_cast<size_t>(from)] = Tensor();
        }
      }
    }
    bool kept = false;
    bool shared = false;
    for (int succ : step.successors) {
      if (st->pending[static_cast<size_t>(succ)].fetch_sub(1) != 1) continue;
      if (!kept) {
        local.push_back(succ);
        kept = true;
      } else {
        std::lock_guard lock(st->mu);
        st->queue.push_back(succ);
        st->queued.store(static_cast<int64_t>(st->queue.size()), std::memory_order_release);
        shared = true;
      }
    }
    if (shared) st->cv.notify_all();
    if (st->remaining.fetch_sub(1) == 1) {
      std::lock_guard lock(st->mu);  // waiters check remaining under the lock: none misses this
      st->cv.notify_all();
    }
  }
}

Status Executor::RunParallel(std::vector<Tensor>& slots, ResourceMgr* resources, ThreadPool* pool,
                             RunStats* stats, const RunControl* control) const {
  auto st = std::make_shared<ParallelRun>();
  st->exe = this;
  st->slots = &slots;
  st->resources = resources;
  st->control = control;
  st->track = stats != nullptr;
  st->pending.reset(new std::atomic<int>[steps_.size()]);
  for (size_t k = 0; k < steps_.size(); ++k) st->pending[k].store(steps_[k].num_predecessors);
  st->readers.reset(new std::atomic<int>[slots.size()]);
  for (size_t s = 0; s < slots.size(); ++s) st->readers[s].store(consumers_[s]);
  st->remaining.store(static_cast<int64_t>(steps_.size()));
  st->workers = pool->size() + 1;  // the pool's and the calling thread
  st->live.store(const_bytes_);
  st->peak.store(const_bytes_);
  st->queue.assign(initially_ready_.rbegin(), initially_ready_.rend());
  st->queued.store(static_cast<int64_t>(st->queue.size()));
  for (int i = 0; i < pool->size(); ++i) pool->Schedule([st] { Work(st); });
  Work(st);
  // Helpers may still be leaving Work; they hold st, and slots are no longer touched.
  if (stats) {
    stats->peak_bytes = st->peak.load();
    stats->nodes_run = static_cast<int64_t>(steps_.size());
  }
  std::lock_guard lock(st->mu);
  return st->error;
}

Status Executor::Run(const std::vector<Tensor>& feed_values, ResourceMgr* resources, ThreadPool* pool,
                     std::vector<Tensor>* fetch_values, RunStats* stats, const RunControl* control) const {
  if (control != nullptr && !control->active()) control = nullptr;
  // Kernels run in TensorFlow's floating-point mode (subnormals flushed, rounding to nearest);
  // the caller's mode is back on return.
  // (Pool workers keep the mode for their whole life; nested function calls change nothing.)
  ScopedFlushDenormals flush;
  if (feed_values.size() != feed_slots_.size()) {
    return errors::InvalidArgument(feed_values.size(), " feed values for ", feed_slots_.size(), " feeds");
  }
  std::vector<Tensor> slots(static_cast<size_t>(num_slots_));
  for (size_t i = 0; i < feed_slots_.size(); ++i) {
    const Tensor& v = feed_values[i];
    if (!v.valid()) return errors::InvalidArgument("the value fed to '", feed_names_[i], "' is empty");
    if (v.dtype() != feed_types_[i]) {
      return errors::DTypeError("the value fed to '", feed_names_[i], "' has dtype ", DTypeName(v.dtype()),
                                ", but the tensor is ", DTypeName(feed_types_[i]));
    }
    if (!feed_shapes_[i].IsCompatibleWith(v.shape())) {
      return errors::ShapeError("the value fed to '", feed_names_[i], "' has shape ", v.shape().ToString(),
                                ", which is not compatible with the tensor's shape ", feed_shapes_[i].ToString());
    }
    slots[static_cast<size_t>(feed_slots_[i])] = v;
  }
  // A plan with a kernel that brings its own threads (OpKernel::UsesAllCores) runs its steps
  // one at a time: that kernel has the cores to itself, and the others, run beside those
  // threads (which spin a while after each call), would only slow it down.
  bool parallel = pool != nullptr && pool->size() > 0 && steps_.size() > 16 && !chain_like_ && !uses_all_cores_;
  if (has_control_flow_) {
    GRAFT_RETURN_IF_ERROR(frames_->Run(slots, resources, uses_all_cores_ ? nullptr : pool, stats, control));
  } else {
    GRAFT_RETURN_IF_ERROR(parallel ? RunParallel(slots, resources, pool, stats, control)
                                   : RunSequential(slots, resources, stats, control));
  }
  fetch_values->clear();
  for (int s : fetch_slots_) {
    Tensor v;
    GRAFT_RETURN_IF_ERROR(Deref(slots[static_cast<size_t>(s)], "fetching a variable", &v));
    Device* on = slot_device_[static_cast<size_t>(s)];
    if (!IsHost(on)) {
      Tensor host;
      GRAFT_RETURN_IF_ERROR(on->CopyToHost(v, &host).WithContext(StrCat("fetching from ", on->name())));
      v = std::move(host);
    }
    fetch_values->push_back(std::move(v));
  }
  return Status::Ok();
}

const Device* Executor::PlacementOf(const std::string& op_name) const {
  for (const Step& s : steps_) {
    if (s.node->name() == op_name) return s.device;
  }
  return nullptr;
}

}  // namespace graft
