#include "core/buffer_cache.h"
#include "core/unload.h"

#include <cstdlib>

namespace graft {

namespace {
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kEnabled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kEnabled = false;
#else
constexpr bool kEnabled = true;
#endif
#else
constexpr bool kEnabled = true;
#endif
}  // namespace

BufferCache& BufferCache::Global() {
  // Never destroyed at exit (buffers may be freed then); deleted when libgraft is unloaded.
  static BufferCache* cache = DeleteAtUnload(new BufferCache());
  return *cache;
}

void* BufferCache::Take(size_t bytes) {
  if (!kEnabled || bytes < kMinBytes) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = free_.find(bytes);
  if (it == free_.end() || it->second.empty()) return nullptr;
  void* data = it->second.back();
  it->second.pop_back();
  cached_ -= bytes;
  return data;
}

void BufferCache::Give(void* data, size_t bytes) {
  if (data == nullptr) return;
  if (kEnabled && bytes >= kMinBytes) {
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_ + bytes <= kMaxCachedBytes) {
      free_[bytes].push_back(data);
      cached_ += bytes;
      return;
    }
  }
  std::free(data);
}

size_t BufferCache::Release() {
  std::unordered_map<size_t, std::vector<void*>> blocks;
  size_t released = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks.swap(free_);
    released = cached_;
    cached_ = 0;
  }
  for (auto& [bytes, list] : blocks) {
    for (void* p : list) std::free(p);
  }
  return released;
}

size_t BufferCache::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_;
}

}  // namespace graft
