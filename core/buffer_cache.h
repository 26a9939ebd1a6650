// BufferCache: keeps freed large tensor buffers for reuse. A training or inference loop
// allocates the same sizes every step; glibc gives blocks this large back to the kernel when
// they are freed, so every step paid for fresh pages (page faults and zeroing: about a tenth of
// a training step of a perceptron). Buffers of at least kMinBytes are kept, by exact size, up to
// kMaxCachedBytes in all; the rest are freed as before. Thread-safe (one mutex); process-wide,
// like the registries. Off under AddressSanitizer, whose use-after-free checks need real frees.
#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace graft {

class BufferCache {
 public:
  static constexpr size_t kMinBytes = size_t{64} << 10;
  static constexpr size_t kMaxCachedBytes = size_t{64} << 20;

  static BufferCache& Global();

  // A cached block of exactly `bytes` (a multiple of the alignment), or nullptr.
  void* Take(size_t bytes);
  // Keeps the block when there is room, else frees it.
  void Give(void* data, size_t bytes);
  size_t cached_bytes() const;
  // Frees every cached block; returns how many bytes that gave back.
  size_t Release();

 private:
  BufferCache() = default;
  mutable std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_ = 0;
};

}  // namespace graft
