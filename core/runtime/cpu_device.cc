// CpuDevice::Describe: what the host is, for device listings (graft_device_list, `graft
// devices`, graft.config.list_physical_devices). Read once per call from /proc/cpuinfo, uname
// and sysconf; a field that cannot be read stays empty (0 for numbers).
#include <fstream>
#include <string>
#include <thread>

#include "core/runtime/device.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sys/utsname.h>
#include <unistd.h>
#endif

namespace graft {

namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// The first value of each of a few keys of /proc/cpuinfo ("model name" on x86, "Processor" or
// "Hardware" or "cpu model" elsewhere; "vendor_id" or "CPU implementer" for the vendor).
void ReadCpuInfo(DeviceDescription* d) {
  std::ifstream in("/proc/cpuinfo");
  if (!in) return;
  std::string line, fallback_model, implementer;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
    if (value.empty()) continue;
    if (key == "model name" || key == "cpu model") {
      if (d->model.empty()) d->model = value;
    } else if (key == "Processor" || key == "Hardware" || key == "cpu") {
      if (fallback_model.empty()) fallback_model = value;
    } else if (key == "vendor_id" || key == "vendor") {
      if (d->vendor.empty()) d->vendor = value;
    } else if (key == "CPU implementer") {
      if (implementer.empty()) implementer = value;
    }
  }
  if (d->model.empty()) d->model = fallback_model;
  if (d->vendor.empty() && !implementer.empty()) {
    // Arm's implementer codes (the common ones); otherwise the code itself.
    if (implementer == "0x41") d->vendor = "ARM";
    else if (implementer == "0x61") d->vendor = "Apple";
    else if (implementer == "0x51") d->vendor = "Qualcomm";
    else if (implementer == "0x48") d->vendor = "HiSilicon";
    else if (implementer == "0x46") d->vendor = "Fujitsu";
    else if (implementer == "0x4e") d->vendor = "NVIDIA";
    else if (implementer == "0xc0") d->vendor = "Ampere";
    else d->vendor = "implementer " + implementer;
  }
}

}  // namespace

DeviceDescription CpuDevice::Describe() const {
  DeviceDescription d;
  ReadCpuInfo(&d);
#if defined(__unix__) || defined(__APPLE__)
  struct utsname u;
  if (uname(&u) == 0) {
    if (d.model.empty()) d.model = u.machine;
    d.driver = std::string(u.sysname) + " " + u.release;
  }
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) d.memory_bytes = static_cast<int64_t>(pages) * page_size;
#endif
  d.compute_units = static_cast<int64_t>(std::thread::hardware_concurrency());
  return d;
}

}  // namespace graft
