#include "core/runtime/function_runner.h"

#include <map>
#include <tuple>

#include "core/thread_owned.h"

namespace graft {
namespace {

// A function being prepared on this thread. Preparing a function makes the kernels of its
// body, which prepare the functions they call, on the same thread: the chain of active
// preparations is the call chain.
struct ActivePreparation {
  FunctionLibrary library;
  std::string name;
  std::string default_device;
};

struct PreparationState {
  std::vector<ActivePreparation> chain;  // outermost first
  // Functions prepared since the outermost preparation began, by (library snapshot, name):
  // a function called from many places is prepared once (without this, a chain of functions
  // that each call the next twice would take exponential time). Emptied when the outermost
  // preparation ends, so nothing outlives it here.
  std::map<std::tuple<const void*, size_t, std::string, std::string>, std::shared_ptr<const FunctionRunner>> prepared;
};

// ThreadOwned, not thread_local: see thread_owned.h.
PreparationState& Preparation() { return ThreadOwned<PreparationState>(); }

}  // namespace

std::string FunctionRunner::PreparingDefaultDevice() {
  // A copy: the chain grows while the caller prepares the next function.
  const PreparationState& st = Preparation();
  return st.chain.empty() ? std::string() : st.chain.back().default_device;
}

Status FunctionRunner::Create(const Graph& caller, const std::string& name, std::shared_ptr<const FunctionRunner>* out,
                              const std::string& default_device) {
  PreparationState& st = Preparation();
  FunctionLibrary library = caller.library();
  auto key = std::make_tuple(library.storage_id(), library.size(), name, default_device);
  if (auto it = st.prepared.find(key); it != st.prepared.end()) {
    *out = it->second;
    return Status::Ok();
  }
  // Recursion: the same function (same name in the same library) already being prepared up
  // the chain. The chain is at most kMaxCallDepth long, so the scan is cheap.
  for (size_t i = 0; i < st.chain.size(); ++i) {
    if (st.chain[i].name != name || !st.chain[i].library.SameSnapshot(library)) continue;
    std::string path;
    for (size_t k = i; k < st.chain.size(); ++k) path.append(st.chain[k].name).append(" -> ");
    path.append(name);
    return errors::InvalidArgument("function '", name, "' calls itself (", path, "): recursion is not supported");
  }
  if (st.chain.size() >= static_cast<size_t>(kMaxCallDepth)) {
    return errors::InvalidArgument("function '", name, "' is nested too deeply (limit ", kMaxCallDepth, ")");
  }

  st.chain.push_back(ActivePreparation{library, name, default_device});
  struct PopOnExit {
    PreparationState& st;
    ~PopOnExit() {
      st.chain.pop_back();
      if (st.chain.empty()) {
        auto done = std::move(st.prepared);  // destroyed after the state is consistent again
        st.prepared.clear();
      }
    }
  } pop{st};

  std::shared_ptr<FunctionRunner> r(new FunctionRunner());
  GRAFT_RETURN_IF_ERROR(InstantiateFunction(library, caller.versions(), name, &r->body_));
  std::unique_ptr<Executor> exe;
  const PlacementPolicy policy{default_device, false};
  GRAFT_RETURN_IF_ERROR(Executor::Create(*r->body_->graph, r->body_->args, r->body_->rets, r->body_->targets,
                                         DeviceSet::Process(), RewriteOptions{}, &exe, &policy)
                            .WithContext(StrCat("function '", name, "'")));
  r->exe_ = std::move(exe);
  st.prepared.emplace(std::move(key), r);
  *out = std::move(r);
  return Status::Ok();
}

Status FunctionRunner::Run(const std::vector<Tensor>& args, ResourceMgr* resources, std::vector<Tensor>* results,
                           const RunControl* control) const {
  // The body runs on the calling thread: a call inside a pool worker must not wait on the
  // same pool.
  Status s = exe_->Run(args, resources, nullptr, results, nullptr, control);
  if (!s.ok()) return s.WithContext(StrCat("in function '", body_->name, "'"));
  return s;
}

}  // namespace graft
