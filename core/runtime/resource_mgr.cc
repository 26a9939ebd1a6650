#include "core/runtime/resource_mgr.h"

namespace graft {

Status ResourceMgr::LookupOrCreate(const std::string& container, const std::string& name, DType dtype,
                                   const PartialShape& shape, std::shared_ptr<Variable>* out) {
  std::lock_guard lock(mu_);
  auto& slot = variables_[{container, name}];
  if (!slot) {
    slot = std::make_shared<Variable>();
    slot->dtype = dtype;
    slot->shape = shape;
  } else if (slot->dtype != dtype) {
    return errors::DTypeError("variable '", name, "' holds ", DTypeName(slot->dtype), ", not ", DTypeName(dtype));
  }
  *out = slot;
  return Status::Ok();
}

Status ResourceMgr::Lookup(const std::string& container, const std::string& name,
                           std::shared_ptr<Variable>* out) const {
  std::lock_guard lock(mu_);
  auto it = variables_.find({container, name});
  if (it == variables_.end()) {
    return errors::NotFound("variable '", name, "'", container.empty() ? "" : StrCat(" in container '", container, "'"),
                            " does not exist");
  }
  *out = it->second;
  return Status::Ok();
}

Status ResourceMgr::LookupOrCreateResource(const std::string& container, const std::string& name,
                                           const std::function<Status(std::shared_ptr<Resource>*)>& create,
                                           std::shared_ptr<Resource>* out) {
  std::lock_guard lock(mu_);
  auto it = resources_.find({container, name});
  if (it != resources_.end()) {
    *out = it->second;
    return Status::Ok();
  }
  std::shared_ptr<Resource> made;
  GRAFT_RETURN_IF_ERROR(create(&made));
  resources_.emplace(std::make_pair(container, name), made);
  *out = std::move(made);
  return Status::Ok();
}

void ResourceMgr::Clear(const std::string& container) {
  std::lock_guard lock(mu_);
  for (auto it = variables_.begin(); it != variables_.end();) {
    it = it->first.first == container ? variables_.erase(it) : std::next(it);
  }
  for (auto it = resources_.begin(); it != resources_.end();) {
    it = it->first.first == container ? resources_.erase(it) : std::next(it);
  }
}

}  // namespace graft
