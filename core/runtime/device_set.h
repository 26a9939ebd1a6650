// The devices a session runs on, and the process-wide registry of device types that makes
// them. The CPU is always there (first); every other device type (the OpenCL device of a later
// issue, a plug-in's, a test's) registers a factory that lists the devices of that type the
// machine has. Placement (executor.cc) puts an op on the device its device string asks for
// when that device exists and has a kernel for the op, and on the CPU otherwise; values that
// cross devices are copied through host memory.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/runtime/device.h"

namespace graft {

// Makes the devices of one type (none when the machine has none). Devices are used by many
// runs at once: their methods must be thread-safe.
using DeviceFactory = std::function<std::vector<std::unique_ptr<Device>>()>;

class DeviceRegistry {
 public:
  static DeviceRegistry& Global();
  // kAlreadyExists for a type that is taken ("CPU" is).
  Status Register(const std::string& type, DeviceFactory factory);
  // Every registered type's devices, in registration order.
  std::vector<std::unique_ptr<Device>> MakeDevices() const;

 private:
  DeviceRegistry() = default;
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, DeviceFactory>> factories_;
};

// How a session places ops (its options): ops without a device string ask for
// default_device; with strict, an op whose own device string names a device that is missing
// or has no kernel for it is an error naming the op, instead of falling back to the CPU
// (TensorFlow's allow_soft_placement = false).
struct PlacementPolicy {
  std::string default_device;
  bool strict = false;
};

// The CPU, and the registered device types' devices. Those are made (the registry's factories
// called: an OpenCL platform search, say) only when first needed: by a Find for another type
// than the CPU, or by devices(). A program that never asks for another device never pays for
// looking (nor keeps a driver loaded).
class DeviceSet {
 public:
  // The CPU, then the registered types' devices (made on first need).
  static std::unique_ptr<DeviceSet> FromRegistry();
  // Just the CPU; lives as long as the process.
  static const DeviceSet& CpuOnly();
  // The CPU and the registered device types' devices, made on first use and kept for the
  // process: what function bodies, traced functions and eager ops are placed on (their
  // devices' state, such as OpenCL contexts, is process-wide anyway). Register device types
  // before the first call.
  static const DeviceSet& Process();

  Device* cpu() const { return cpu_; }
  // The device of type and index, or nullptr. Thread-safe.
  Device* Find(const std::string& type, int64_t index) const;
  // Every device, the CPU first. Thread-safe.
  const std::vector<std::unique_ptr<Device>>& devices() const;
  const PlacementPolicy& policy() const { return policy_; }
  void set_policy(PlacementPolicy p) { policy_ = std::move(p); }

 private:
  // from_registry: the registered types' devices are made on first need.
  explicit DeviceSet(bool from_registry);
  void MakeOthers() const;
  mutable std::vector<std::unique_ptr<Device>> devices_;  // the CPU, then the others once made
  Device* cpu_;  // devices_[0], read without waiting for the others
  const bool from_registry_;
  mutable std::once_flag others_made_;
  PlacementPolicy policy_;
};

}  // namespace graft
