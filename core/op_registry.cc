#include "core/op_registry.h"

#include <mutex>

#include "core/unload.h"

namespace graft {

OpRegistry& OpRegistry::Global() {
  // Built on first use (not by static initialisers) so that linking libgraft statically
  // keeps every built-in op; the function-local static makes this thread-safe.
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterBuiltinOps(*r);
    return DeleteAtUnload(r);  // never destroyed at exit; deleted at dlclose (core/unload.h)
  }();
  return *registry;
}

Status OpRegistry::Register(const OpDefBuilder& builder, ShapeFn shape_fn) {
  OpDef def;
  GRAFT_RETURN_IF_ERROR(builder.Finalize(&def));
  return Register(std::move(def), std::move(shape_fn));
}

Status OpRegistry::Register(OpDef def, ShapeFn shape_fn) {
  auto reg = std::make_unique<OpRegistration>(OpRegistration{std::move(def), std::move(shape_fn)});
  std::unique_lock lock(mu_);
  const std::string& name = reg->def.name;
  if (ops_.count(name) != 0) return errors::AlreadyExists("op type ", name, " is already registered");
  ops_.emplace(name, std::move(reg));
  return Status::Ok();
}

const OpRegistration* OpRegistry::Find(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpRegistry::Names() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, reg] : ops_) names.push_back(name);
  return names;
}

GradientRegistry& GradientRegistry::Global() {
  static GradientRegistry* registry = [] {
    auto* r = new GradientRegistry();
    RegisterBuiltinGradients(*r);
    return DeleteAtUnload(r);
  }();
  return *registry;
}

Status GradientRegistry::Register(std::string name, GradientFn fn) {
  if (name.empty()) return errors::InvalidArgument("a gradient needs a name");
  auto entry = std::make_unique<GradientEntry>(GradientEntry{std::move(fn), false});
  std::unique_lock lock(mu_);
  if (entries_.count(name) != 0) return errors::AlreadyExists("a gradient for '", name, "' is already registered");
  entries_.emplace(std::move(name), std::move(entry));
  return Status::Ok();
}

Status GradientRegistry::RegisterNotDifferentiable(std::string name) {
  if (name.empty()) return errors::InvalidArgument("a gradient needs a name");
  auto entry = std::make_unique<GradientEntry>(GradientEntry{nullptr, true});
  std::unique_lock lock(mu_);
  if (entries_.count(name) != 0) return errors::AlreadyExists("a gradient for '", name, "' is already registered");
  entries_.emplace(std::move(name), std::move(entry));
  return Status::Ok();
}

std::vector<std::string> GradientRegistry::Names() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) {
    if (!entry->not_differentiable) out.push_back(name);
  }
  return out;
}

const GradientEntry* GradientRegistry::Find(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : it->second.get();
}

}  // namespace graft
