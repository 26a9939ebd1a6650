#include "core/node_validator.h"
#include "core/unload.h"

#include <mutex>

namespace graft {

NodeValidatorRegistry& NodeValidatorRegistry::Global() {
  static NodeValidatorRegistry* registry = DeleteAtUnload(new NodeValidatorRegistry());
  return *registry;
}

void NodeValidatorRegistry::Add(NodeValidator validator) {
  std::unique_lock lock(mu_);
  validators_.push_back(std::move(validator));
}

Status NodeValidatorRegistry::Validate(const std::string& op, const std::string& node_name,
                                       const AttrMap& attrs) const {
  std::shared_lock lock(mu_);
  for (const NodeValidator& v : validators_) GRAFT_RETURN_IF_ERROR(v(op, node_name, attrs));
  return Status::Ok();
}

}  // namespace graft
