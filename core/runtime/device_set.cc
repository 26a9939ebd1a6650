#include "core/runtime/device_set.h"
#include "core/unload.h"

#include <algorithm>

namespace graft {

DeviceRegistry& DeviceRegistry::Global() {
  static DeviceRegistry* registry = DeleteAtUnload(new DeviceRegistry());
  return *registry;
}

Status DeviceRegistry::Register(const std::string& type, DeviceFactory factory) {
  if (type.empty() || factory == nullptr) return errors::InvalidArgument("a device type needs a name and a factory");
  std::lock_guard lock(mu_);
  bool taken = type == kDeviceCpu || std::any_of(factories_.begin(), factories_.end(),
                                                 [&](const auto& f) { return f.first == type; });
  if (taken) return errors::AlreadyExists("device type ", type, " is already registered");
  factories_.emplace_back(type, std::move(factory));
  return Status::Ok();
}

std::vector<std::unique_ptr<Device>> DeviceRegistry::MakeDevices() const {
  std::vector<std::pair<std::string, DeviceFactory>> factories;
  {
    std::lock_guard lock(mu_);
    factories = factories_;
  }
  std::vector<std::unique_ptr<Device>> out;
  for (const auto& [type, make] : factories) {
    for (auto& d : make()) out.push_back(std::move(d));
  }
  return out;
}

DeviceSet::DeviceSet(bool from_registry) : from_registry_(from_registry) {
  devices_.push_back(std::make_unique<CpuDevice>());
  cpu_ = devices_.front().get();
}

void DeviceSet::MakeOthers() const {
  std::call_once(others_made_, [this] {
    if (!from_registry_) return;
    for (auto& d : DeviceRegistry::Global().MakeDevices()) devices_.push_back(std::move(d));
  });
}

std::unique_ptr<DeviceSet> DeviceSet::FromRegistry() { return std::unique_ptr<DeviceSet>(new DeviceSet(true)); }

const DeviceSet& DeviceSet::CpuOnly() {
  static const DeviceSet* set = DeleteAtUnload(new DeviceSet(false));
  return *set;
}

const DeviceSet& DeviceSet::Process() {
  static const DeviceSet* set = DeleteAtUnload(new DeviceSet(true));
  return *set;
}

const std::vector<std::unique_ptr<Device>>& DeviceSet::devices() const {
  MakeOthers();
  return devices_;
}

Device* DeviceSet::Find(const std::string& type, int64_t index) const {
  if (type == kDeviceCpu) return index == 0 ? cpu() : nullptr;
  MakeOthers();
  int64_t seen = 0;
  for (const auto& d : devices_) {
    if (d->type() != type) continue;
    if (seen++ == index) return d.get();
  }
  return nullptr;
}

}  // namespace graft
