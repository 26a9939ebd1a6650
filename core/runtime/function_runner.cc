#include "core/runtime/function_runner.h"

namespace graft {
namespace {

// How deeply functions may be nested while they are prepared: a function that calls itself
// would otherwise instantiate forever.
constexpr int kMaxCallDepth = 64;
thread_local int call_depth = 0;

}  // namespace

Status FunctionRunner::Create(const Graph& library, const std::string& name, std::unique_ptr<FunctionRunner>* out) {
  if (call_depth >= kMaxCallDepth) {
    return errors::InvalidArgument("function '", name, "' calls itself (more than ", kMaxCallDepth,
                                   " nested calls): recursion is not supported");
  }
  std::unique_ptr<FunctionRunner> r(new FunctionRunner());
  GRAFT_RETURN_IF_ERROR(InstantiateFunction(library, name, &r->body_));
  ++call_depth;
  std::unique_ptr<Executable> exe;
  Status s = Executable::Create(*r->body_->graph, r->body_->args, r->body_->rets, r->body_->targets, DeviceSet::CpuOnly(),
                                RewriteOptions{}, &exe);
  --call_depth;
  GRAFT_RETURN_IF_ERROR(s.WithContext(StrCat("function '", name, "'")));
  r->exe_ = std::move(exe);
  *out = std::move(r);
  return Status::Ok();
}

Status FunctionRunner::Run(const std::vector<Tensor>& args, ResourceMgr* resources, std::vector<Tensor>* results) const {
  // The body runs on the calling thread: a call inside a pool worker must not wait on the
  // same pool.
  Status s = exe_->Run(args, resources, nullptr, results, nullptr);
  if (!s.ok()) return s.WithContext(StrCat("in function '", body_->name, "'"));
  return s;
}

}  // namespace graft
