// Registrations an op library makes while its init function runs (graft_library_load): each is
// checked as it is made and kept; when init succeeds they are applied together, and when it
// fails they are dropped, so a library registers all it defines or nothing. Outside a load
// (Current() null) the registering calls apply at once.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/status.h"

namespace graft::capi {

class PendingRegistrations {
 public:
  // This thread's load in progress, or nullptr.
  static PendingRegistrations* Current();

  // Makes `pending` this thread's current collector for its lifetime.
  class Scope {
   public:
    explicit Scope(PendingRegistrations* pending);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PendingRegistrations* previous_;
  };

  explicit PendingRegistrations(std::string library) : library_(std::move(library)) {}

  // An op type: kAlreadyExists when it is registered or pending already (naming who has it).
  Status AddOp(const std::string& name, std::function<Status()> apply);
  bool HasOp(const std::string& name) const { return op_set_.count(name) != 0; }
  // A kernel for (op, device, dtypes of its constraint); the op must be registered or pending.
  Status AddKernel(const std::string& op, const std::string& device, const std::string& attr,
                   const std::vector<int>& dtypes, std::function<Status()> apply);
  // A gradient (or NoGradient) for an op type.
  Status AddGradient(const std::string& name, std::function<Status()> apply);

  // Applies every registration: ops, then kernels, then gradients.
  Status Apply();
  const std::vector<std::string>& ops() const { return ops_; }

 private:
  std::string library_;
  std::vector<std::string> ops_;
  std::set<std::string> op_set_, gradient_set_;
  std::set<std::tuple<std::string, std::string, int>> kernel_keys_;  // (op, device, dtype or -1)
  std::vector<std::function<Status()>> op_apply_, kernel_apply_, gradient_apply_;
};

// Who registered op type `name` ("op library /path/libx.so"), or "" when no library did.
std::string OpOrigin(const std::string& name);

}  // namespace graft::capi
