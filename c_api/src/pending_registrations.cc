#include "c_api/src/pending_registrations.h"

#include "core/op_registry.h"
#include "core/runtime/kernel.h"

namespace graft::capi {
namespace {

thread_local PendingRegistrations* current = nullptr;

std::string Holder(const std::string& op) {
  std::string origin = OpOrigin(op);
  return origin.empty() ? std::string("built in, or by the program") : "by " + origin;
}

}  // namespace

PendingRegistrations* PendingRegistrations::Current() { return current; }

PendingRegistrations::Scope::Scope(PendingRegistrations* pending) : previous_(current) { current = pending; }
PendingRegistrations::Scope::~Scope() { current = previous_; }

Status PendingRegistrations::AddOp(const std::string& name, std::function<Status()> apply) {
  if (op_set_.count(name) != 0) return errors::AlreadyExists("op library ", library_, " defines op ", name, " twice");
  if (OpRegistry::Global().Find(name) != nullptr) {
    return errors::AlreadyExists("op library ", library_, " defines op ", name, ", which is registered already (",
                                 Holder(name), ")");
  }
  ops_.push_back(name);
  op_set_.insert(name);
  op_apply_.push_back(std::move(apply));
  return Status::Ok();
}

Status PendingRegistrations::AddKernel(const std::string& op, const std::string& device, const std::string& attr,
                                       const std::vector<int>& dtypes, std::function<Status()> apply) {
  const bool pending_op = op_set_.count(op) != 0;
  if (!pending_op && OpRegistry::Global().Find(op) == nullptr) {
    return errors::NotFound("op library ", library_, " registers a kernel for op ", op,
                            ", which is not registered (register the op first)");
  }
  std::vector<int> keys = dtypes.empty() ? std::vector<int>{-1} : dtypes;
  for (int d : keys) {
    bool taken = kernel_keys_.count({op, device, d}) != 0;
    if (!taken && !pending_op) {  // a kernel for an op registered before: not one it has
      KernelFactory unused;
      taken = d < 0 ? KernelRegistry::Global().HasKernel(op, device)
                    : KernelRegistry::Global().FindForDType(op, device, attr, static_cast<DType>(d), &unused).ok();
    }
    if (taken) {
      return errors::AlreadyExists("op library ", library_, " registers a ", device, " kernel for op ", op,
                                   d < 0 ? std::string() : " and " + std::string(DTypeName(static_cast<DType>(d))),
                                   ", which has one already");
    }
  }
  for (int d : keys) kernel_keys_.insert({op, device, d});
  kernel_apply_.push_back(std::move(apply));
  return Status::Ok();
}

Status PendingRegistrations::AddGradient(const std::string& name, std::function<Status()> apply) {
  if (gradient_set_.count(name) != 0 || GradientRegistry::Global().Find(name) != nullptr) {
    return errors::AlreadyExists("op library ", library_, " registers a gradient for ", name,
                                 ", which has one already");
  }
  gradient_set_.insert(name);
  gradient_apply_.push_back(std::move(apply));
  return Status::Ok();
}

Status PendingRegistrations::Apply() {
  // Every registration was checked when made; loads are serialized, so only a registration by
  // another thread in the meantime (outside any load) can make one fail here.
  for (auto* list : {&op_apply_, &kernel_apply_, &gradient_apply_}) {
    for (auto& apply : *list) GRAFT_RETURN_IF_ERROR(apply());
  }
  return Status::Ok();
}

}  // namespace graft::capi
