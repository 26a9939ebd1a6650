// The OpenCL runtime under the OpenCL device: platforms and devices found through the ICD
// loader, one context and in-order command queue per device, device buffers, and programs
// built from Graft's embedded .cl sources once per device (cached by source). Every call is
// thread-safe: the queue is shared by all runs, and commands go into it in the order kernels
// are run, so an in-order queue needs no events between them; reads back to the host wait.
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/runtime/device.h"
#include "core/status.h"
#include "core/tensor_buffer.h"

namespace graft::opencl {

// An OpenCL error as a Graft error naming what failed and the OpenCL code's name.
Status ClStatus(cl_int code, std::string_view what);

// An OpenCL device found on the machine.
struct ClDeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  bool is_gpu = false;  // a GPU or an accelerator (else a CPU device such as PoCL)
  DeviceDescription description;
  bool fp16 = false;  // cl_khr_fp16
  bool fp64 = false;  // cl_khr_fp64
};

// Every OpenCL device of every platform (none when there is no platform or no ICD loader
// finds one: not an error). GRAFT_OPENCL=0 in the environment hides them all;
// GRAFT_OPENCL_DEVICES=0,2 keeps those indices.
std::vector<ClDeviceInfo> FindClDevices();

// Freed device buffers kept for reuse by size (up to a cap), since creating cl_mem objects is
// slow on most drivers and a graph allocates the same sizes on every run.
class ClBufferPool {
 public:
  explicit ClBufferPool(size_t cap_bytes) : cap_(cap_bytes) {}
  ~ClBufferPool();
  cl_mem Take(size_t bytes);            // nullptr when none is kept
  void Give(cl_mem mem, size_t bytes);  // kept, or released past the cap

 private:
  std::mutex mu_;
  std::multimap<size_t, cl_mem> free_;
  size_t cached_ = 0;
  const size_t cap_;
};

// Device memory: a cl_mem of size bytes, back to its pool with the last tensor holding it.
class ClBuffer final : public TensorBuffer {
 public:
  ClBuffer(cl_mem mem, size_t size, std::shared_ptr<ClBufferPool> pool)
      : mem_(mem), size_(size), pool_(std::move(pool)) {}
  ~ClBuffer() override;
  void* data() const override { return nullptr; }
  size_t size() const override { return size_; }
  cl_mem mem() const { return mem_; }

 private:
  cl_mem mem_;
  size_t size_;
  std::shared_ptr<ClBufferPool> pool_;
};

// The cl_mem of a tensor in OpenCL memory; kInvalidArgument naming `what` otherwise.
Status ClMem(const Tensor& t, std::string_view what, cl_mem* out);

class ClContext {
 public:
  static Status Create(const ClDeviceInfo& info, std::unique_ptr<ClContext>* out);
  ~ClContext();

  const ClDeviceInfo& info() const { return info_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }

  // A buffer of bytes bytes (at least one byte: OpenCL has no empty buffers).
  Status Allocate(size_t bytes, std::shared_ptr<ClBuffer>* out);
  // Copies bytes from host memory src to dst. Given the buffer that holds src (which then stays
  // alive, and so unwritable in place, until the device has the bytes), the copy is queued and
  // this returns at once; without one it waits for the copy (the memory may be a caller's, free
  // to change as soon as this returns).
  Status Write(cl_mem dst, const void* src, size_t bytes, std::shared_ptr<TensorBuffer> source = nullptr);
  Status Read(cl_mem src, void* dst, size_t bytes);  // waits for every command before it
  Status Finish();

  // A kernel of the program `source` (built once per context, cached by name), for the
  // caller to set arguments and enqueue while holding the lock from Lock().
  Status Kernel(std::string_view program_name, std::string_view source, const char* kernel_name, cl_kernel* out);
  std::unique_lock<std::mutex> Lock() {
    kernel_enqueues_.fetch_add(1, std::memory_order_relaxed);
    return std::unique_lock<std::mutex>(mu_);
  }
  // How many times kernels took the queue to enqueue work (tests check that ops ran here).
  uint64_t kernel_enqueues() const { return kernel_enqueues_.load(std::memory_order_relaxed); }
  // How many copies to the host (each waits for the queue) there have been (tests check that
  // a run waits only for its fetches).
  uint64_t host_reads() const { return host_reads_.load(std::memory_order_relaxed); }
  // How many copies to the device there have been.
  uint64_t device_writes() const { return device_writes_.load(std::memory_order_relaxed); }

 private:
  explicit ClContext(ClDeviceInfo info) : info_(std::move(info)) {}
  ClDeviceInfo info_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::shared_ptr<ClBufferPool> pool_;
  std::atomic<uint64_t> kernel_enqueues_{0};
  std::atomic<uint64_t> host_reads_{0};
  std::atomic<uint64_t> device_writes_{0};
  std::mutex mu_;  // kernels' arguments and the queue's order
  std::mutex build_mu_;
  std::map<std::string, cl_program, std::less<>> programs_;                          // by program name
  std::map<std::pair<std::string, std::string>, cl_kernel> kernels_;  // (program, kernel)
};

}  // namespace graft::opencl
