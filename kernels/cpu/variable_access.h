// Variable access for the kernels that update variables in place (training_kernels.cc,
// sparse_variable_kernels.cc): finding the variable behind an input, locking several, and
// the copy-on-write rule.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/runtime/resource_mgr.h"
#include "kernels/cpu/kernel_util.h"

namespace graft::cpu {

// The variable behind input i, and a name for messages: a reference input (TensorFlow 1
// variable) or a resource handle.
inline Status InputVariable(OpKernelContext& ctx, int i, std::shared_ptr<Variable>* out, std::string* name) {
  const Tensor& t = ctx.input(i);
  if (auto* hb = dynamic_cast<const HandleBuffer*>(t.buffer().get())) {
    const ResourceHandle& h = hb->handle();
    *name = h.name;
    return ctx.resources()->LookupOrCreate(h.container, h.name, h.dtype, h.shape, out);
  }
  *name = ctx.node().input(i).node->name();
  return ctx.InputRef(i, out);
}

// Locks several variables (each once, in address order so that two updates never deadlock).
class MultiLock {
 public:
  explicit MultiLock(std::vector<Variable*> vars) : vars_(std::move(vars)) {
    std::sort(vars_.begin(), vars_.end());
    vars_.erase(std::unique(vars_.begin(), vars_.end()), vars_.end());
    for (Variable* v : vars_) v->mu.lock();
  }
  ~MultiLock() {
    for (auto it = vars_.rbegin(); it != vars_.rend(); ++it) (*it)->mu.unlock();
  }
  MultiLock(const MultiLock&) = delete;
  MultiLock& operator=(const MultiLock&) = delete;

 private:
  std::vector<Variable*> vars_;
};

// Checks an initialized variable of dtype; called with its lock held.
inline Status CheckVariable(const Variable& v, const std::string& name, DType dtype) {
  if (!v.initialized) return errors::FailedPrecondition("Attempting to use uninitialized value ", name);
  if (v.value.dtype() != dtype) {
    return errors::DTypeError("variable '", name, "' holds ", DTypeName(v.value.dtype()), ", not ", DTypeName(dtype));
  }
  return Status::Ok();
}

// The variable's value made safe to write (its lock held): its own buffer when no reader holds
// it, otherwise a copy that replaces it.
inline Status WritableValue(Variable& v, Tensor** out) {
  const auto& buf = v.value.buffer();
  if (buf == nullptr || buf.use_count() != 1 || !buf->reusable()) {
    Tensor copy;
    GRAFT_RETURN_IF_ERROR(v.value.Copy(&copy));
    v.value = std::move(copy);
  }
  *out = &v.value;
  return Status::Ok();
}

}  // namespace graft::cpu
