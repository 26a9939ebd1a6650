#include "kernels/opencl/cl_runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace graft::opencl {
namespace {

const char* ClErrorName(cl_int code) {
  switch (code) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_PROGRAM: return "CL_INVALID_PROGRAM";
    case CL_INVALID_PROGRAM_EXECUTABLE: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL: return "CL_INVALID_KERNEL";
    case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_DIMENSION: return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
    default: return "an OpenCL error";
  }
}

std::string DeviceString(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T>
T DeviceValue(cl_device_id d, cl_device_info what) {
  T v{};
  if (clGetDeviceInfo(d, what, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}

// GRAFT_OPENCL_DEVICES=0,2: the indices kept (empty: all).
std::vector<size_t> SelectedIndices() {
  std::vector<size_t> out;
  const char* env = std::getenv("GRAFT_OPENCL_DEVICES");
  if (env == nullptr || *env == '\0') return out;
  std::stringstream ss(env);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(item.c_str(), &end, 10);
    if (end != item.c_str()) out.push_back(v);
  }
  return out;
}

// The directory of built programs: $GRAFT_CACHE_DIR/opencl, else $XDG_CACHE_HOME/graft/opencl,
// else ~/.cache/graft/opencl; empty (no disk cache) when none is set or GRAFT_CACHE_DIR is "".
std::filesystem::path ProgramCacheDir() {
  if (const char* d = std::getenv("GRAFT_CACHE_DIR")) {
    return *d ? std::filesystem::path(d) / "opencl" : std::filesystem::path();
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x) return std::filesystem::path(x) / "graft" / "opencl";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h) return std::filesystem::path(h) / ".cache" / "graft" / "opencl";
  return {};
}

// 64-bit FNV-1a of the parts, as a file name.
std::string CacheKey(const std::vector<std::string_view>& parts) {
  uint64_t h = 1469598103934665603ull;
  for (std::string_view part : parts) {
    for (unsigned char c : part) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // separates the parts
    h *= 1099511628211ull;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx.bin", static_cast<unsigned long long>(h));
  return buf;
}

// The program's binary for its one device, written atomically (a temporary file renamed).
void StoreBinary(cl_program p, const std::filesystem::path& file) {
  size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0) return;
  std::string bytes(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(bytes.data());
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) return;
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) return;
  const std::filesystem::path tmp = file.string() + ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(p));
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return;
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace

Status ClStatus(cl_int code, std::string_view what) {
  if (code == CL_SUCCESS) return Status::Ok();
  const Code kind = code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES ||
                            code == CL_OUT_OF_HOST_MEMORY
                        ? Code::kResourceExhausted
                        : Code::kInternal;
  return Status(kind, StrCat("OpenCL: ", what, " failed with ", ClErrorName(code), " (", code, ")"));
}

std::vector<ClDeviceInfo> FindClDevices() {
  std::vector<ClDeviceInfo> found;
  const char* off = std::getenv("GRAFT_OPENCL");
  if (off != nullptr && std::string_view(off) == "0") return found;
  cl_uint nplatforms = 0;
  if (clGetPlatformIDs(0, nullptr, &nplatforms) != CL_SUCCESS || nplatforms == 0) return found;
  std::vector<cl_platform_id> platforms(nplatforms);
  if (clGetPlatformIDs(nplatforms, platforms.data(), nullptr) != CL_SUCCESS) return found;
  for (cl_platform_id p : platforms) {
    cl_uint ndevices = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &ndevices) != CL_SUCCESS || ndevices == 0) continue;
    std::vector<cl_device_id> devices(ndevices);
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, ndevices, devices.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id d : devices) {
      if (!DeviceValue<cl_bool>(d, CL_DEVICE_AVAILABLE)) continue;
      ClDeviceInfo info;
      info.platform = p;
      info.device = d;
      const auto type = DeviceValue<cl_device_type>(d, CL_DEVICE_TYPE);
      info.is_gpu = (type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
      info.description.model = DeviceString(d, CL_DEVICE_NAME);
      info.description.vendor = DeviceString(d, CL_DEVICE_VENDOR);
      info.description.driver = StrCat(DeviceString(d, CL_DEVICE_VERSION), ", driver ", DeviceString(d, CL_DRIVER_VERSION));
      info.description.memory_bytes = static_cast<int64_t>(DeviceValue<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE));
      info.description.compute_units = DeviceValue<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
      const std::string ext = DeviceString(d, CL_DEVICE_EXTENSIONS);
      info.fp16 = ext.find("cl_khr_fp16") != std::string::npos;
      info.fp64 = ext.find("cl_khr_fp64") != std::string::npos;
      found.push_back(std::move(info));
    }
  }
  const std::vector<size_t> keep = SelectedIndices();
  if (keep.empty()) return found;
  std::vector<ClDeviceInfo> selected;
  for (size_t i : keep) {
    if (i < found.size()) selected.push_back(found[i]);
  }
  return selected;
}

ClBufferPool::~ClBufferPool() {
  for (auto& [bytes, mem] : free_) clReleaseMemObject(mem);
}

cl_mem ClBufferPool::Take(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = free_.find(bytes);
  if (it == free_.end()) return nullptr;
  cl_mem mem = it->second;
  free_.erase(it);
  cached_ -= bytes;
  return mem;
}

void ClBufferPool::Give(cl_mem mem, size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_ + bytes <= cap_) {
      free_.emplace(bytes, mem);
      cached_ += bytes;
      return;
    }
  }
  clReleaseMemObject(mem);
}

ClBuffer::~ClBuffer() {
  if (mem_ == nullptr) return;
  if (pool_ != nullptr) pool_->Give(mem_, size_);
  else clReleaseMemObject(mem_);
}

Status ClMem(const Tensor& t, std::string_view what, cl_mem* out) {
  const auto* b = t.valid() ? dynamic_cast<const ClBuffer*>(t.buffer().get()) : nullptr;
  if (b == nullptr) return errors::InvalidArgument(what, " is not in OpenCL device memory");
  *out = b->mem();
  return Status::Ok();
}

Status ClContext::Create(const ClDeviceInfo& info, std::unique_ptr<ClContext>* out) {
  std::unique_ptr<ClContext> c(new ClContext(info));
  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(info.platform),
                                         0};
  c->context_ = clCreateContext(props, 1, &info.device, nullptr, nullptr, &err);
  GRAFT_RETURN_IF_ERROR(ClStatus(err, "clCreateContext"));
  c->queue_ = clCreateCommandQueue(c->context_, info.device, 0, &err);
  GRAFT_RETURN_IF_ERROR(ClStatus(err, "clCreateCommandQueue"));
  // Keep up to a quarter of the device's memory (at most 1 GiB) of freed buffers for reuse.
  const int64_t mem = info.description.memory_bytes;
  c->pool_ = std::make_shared<ClBufferPool>(static_cast<size_t>(std::min<int64_t>(mem > 0 ? mem / 4 : 0, int64_t{1} << 30)));
  *out = std::move(c);
  return Status::Ok();
}

ClContext::~ClContext() {
  for (auto& [key, k] : kernels_) clReleaseKernel(k);
  for (auto& [name, p] : programs_) clReleaseProgram(p);
  if (queue_ != nullptr) {
    clFinish(queue_);
    clReleaseCommandQueue(queue_);
  }
  if (context_ != nullptr) clReleaseContext(context_);
}

Status ClContext::Allocate(size_t bytes, std::shared_ptr<ClBuffer>* out) {
  cl_mem mem = pool_->Take(bytes);
  if (mem == nullptr) {
    cl_int err = CL_SUCCESS;
    mem = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes == 0 ? 1 : bytes, nullptr, &err);
    GRAFT_RETURN_IF_ERROR(ClStatus(err, StrCat("allocating ", bytes, " bytes of device memory")));
  }
  *out = std::make_shared<ClBuffer>(mem, bytes, pool_);
  return Status::Ok();
}

namespace {

// Drops the hold on a copy's source once the device has it (called by the OpenCL runtime).
void CL_CALLBACK ReleaseSource(cl_event, cl_int, void* hold) {
  delete static_cast<std::shared_ptr<TensorBuffer>*>(hold);
}

}  // namespace

Status ClContext::Write(cl_mem dst, const void* src, size_t bytes, std::shared_ptr<TensorBuffer> source) {
  if (bytes == 0) return Status::Ok();
  device_writes_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu_);
  if (source == nullptr) {
    return ClStatus(clEnqueueWriteBuffer(queue_, dst, CL_TRUE, 0, bytes, src, 0, nullptr, nullptr),
                    "copying to the device");
  }
  cl_event done = nullptr;
  GRAFT_RETURN_IF_ERROR(ClStatus(clEnqueueWriteBuffer(queue_, dst, CL_FALSE, 0, bytes, src, 0, nullptr, &done),
                                 "copying to the device"));
  auto* hold = new std::shared_ptr<TensorBuffer>(std::move(source));
  if (clSetEventCallback(done, CL_COMPLETE, ReleaseSource, hold) != CL_SUCCESS) {
    const cl_int err = clWaitForEvents(1, &done);  // no callback: wait here instead
    delete hold;
    clReleaseEvent(done);
    return ClStatus(err, "waiting for a copy to the device");
  }
  clReleaseEvent(done);
  return Status::Ok();
}

Status ClContext::Read(cl_mem src, void* dst, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  host_reads_.fetch_add(1, std::memory_order_relaxed);
  cl_event done = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    GRAFT_RETURN_IF_ERROR(ClStatus(clEnqueueReadBuffer(queue_, src, CL_FALSE, 0, bytes, dst, 0, nullptr, &done),
                                   "copying to the host"));
  }
  // Wait outside the lock, so other threads keep queueing work meanwhile.
  const cl_int err = clWaitForEvents(1, &done);
  clReleaseEvent(done);
  return ClStatus(err, "waiting for a copy to the host");
}

Status ClContext::Finish() { return ClStatus(clFinish(queue_), "clFinish"); }

Status ClContext::Kernel(std::string_view program_name, std::string_view source, const char* kernel_name,
                         cl_kernel* out) {
  std::lock_guard<std::mutex> lock(build_mu_);
  auto key = std::make_pair(std::string(program_name), std::string(kernel_name));
  auto k = kernels_.find(key);
  if (k != kernels_.end()) {
    *out = k->second;
    return Status::Ok();
  }
  auto it = programs_.find(program_name);
  if (it == programs_.end()) {
    std::string options = "-cl-std=CL1.2";
    if (info_.fp16) options += " -DGRAFT_FP16=1";
    if (info_.fp64) options += " -DGRAFT_FP64=1";
    // A binary built by an earlier process for this device, driver, options and source skips
    // the compiler; a binary the driver refuses is rebuilt from source.
    const std::filesystem::path dir = ProgramCacheDir();
    const std::filesystem::path file =
        dir.empty() ? dir
                    : dir / CacheKey({info_.description.model, info_.description.vendor, info_.description.driver,
                                      options, source});
    cl_program p = nullptr;
    cl_int err = CL_SUCCESS;
    if (!file.empty()) {
      std::ifstream in(file, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!bytes.empty()) {
        const unsigned char* ptr = reinterpret_cast<const unsigned char*>(bytes.data());
        const size_t len = bytes.size();
        cl_int status = CL_SUCCESS;
        p = clCreateProgramWithBinary(context_, 1, &info_.device, &len, &ptr, &status, &err);
        if (err != CL_SUCCESS || status != CL_SUCCESS ||
            clBuildProgram(p, 1, &info_.device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
          if (p != nullptr) clReleaseProgram(p);
          p = nullptr;
        }
      }
    }
    if (p != nullptr) {
      it = programs_.emplace(std::string(program_name), p).first;
    }
  }
  if (it == programs_.end()) {
    cl_int err = CL_SUCCESS;
    const char* text = source.data();
    const size_t len = source.size();
    cl_program p = clCreateProgramWithSource(context_, 1, &text, &len, &err);
    GRAFT_RETURN_IF_ERROR(ClStatus(err, StrCat("creating program '", program_name, "'")));
    std::string options = "-cl-std=CL1.2";
    if (info_.fp16) options += " -DGRAFT_FP16=1";
    if (info_.fp64) options += " -DGRAFT_FP64=1";
    err = clBuildProgram(p, 1, &info_.device, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      size_t n = 0;
      clGetProgramBuildInfo(p, info_.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string log(n, '\0');
      clGetProgramBuildInfo(p, info_.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      clReleaseProgram(p);
      return errors::Internal("OpenCL: building program '", program_name, "' failed: ", log.substr(0, 2000));
    }
    const std::filesystem::path dir = ProgramCacheDir();
    if (!dir.empty()) {
      StoreBinary(p, dir / CacheKey({info_.description.model, info_.description.vendor, info_.description.driver,
                                     options, source}));
    }
    it = programs_.emplace(std::string(program_name), p).first;
  }
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(it->second, kernel_name, &err);
  GRAFT_RETURN_IF_ERROR(ClStatus(err, StrCat("creating kernel '", kernel_name, "'")));
  kernels_.emplace(std::move(key), kernel);
  *out = kernel;
  return Status::Ok();
}

}  // namespace graft::opencl
