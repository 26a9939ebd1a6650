#include "core/tensor_buffer.h"

#include <cstdlib>
#include <cstring>

#include "core/buffer_cache.h"

namespace graft {

namespace {
// The size aligned_alloc was asked for (a block of size bytes was allocated without overflow).
size_t RoundedSize(size_t bytes) { return (bytes + kTensorAlignment - 1) & ~(kTensorAlignment - 1); }
}  // namespace

Status AlignedBuffer::Allocate(size_t bytes, bool zero, std::shared_ptr<TensorBuffer>* out) {
  // The caps first: nothing is allocated for a request over one. Until the buffer holds the
  // charge, returning gives it back.
  MemoryCharge charge;
  if (bytes > 0) GRAFT_RETURN_IF_ERROR(charge.Charge(bytes));
  void* data = nullptr;
  if (bytes > 0) {
    // aligned_alloc wants a multiple of the alignment; round up, watching for overflow.
    size_t rounded = 0;
    if (__builtin_add_overflow(bytes, kTensorAlignment - 1, &rounded)) {
      return errors::ResourceExhausted("cannot allocate ", bytes, " bytes");
    }
    rounded &= ~(kTensorAlignment - 1);
    // Small blocks never go through the cache (no call, no static-local guard on the hot path).
    if (rounded >= BufferCache::kMinBytes) data = BufferCache::Global().Take(rounded);
    if (data == nullptr) data = std::aligned_alloc(kTensorAlignment, rounded);
    if (data == nullptr) return errors::ResourceExhausted("cannot allocate ", bytes, " bytes");
    if (zero) std::memset(data, 0, bytes);
  }
  try {
    auto buffer = std::make_shared<AlignedBuffer>(Key{}, data, bytes);
    buffer->charge_ = std::move(charge);
    *out = std::move(buffer);
  } catch (...) {
    if (RoundedSize(bytes) < BufferCache::kMinBytes) {
      std::free(data);
    } else {
      BufferCache::Global().Give(data, RoundedSize(bytes));
    }
    throw;
  }
  return Status::Ok();
}

AlignedBuffer::~AlignedBuffer() {
  const size_t rounded = RoundedSize(size_);
  if (rounded < BufferCache::kMinBytes) {
    std::free(data_);
  } else {
    BufferCache::Global().Give(data_, rounded);
  }
}

size_t StringBuffer::size() const {
  size_t total = 0;
  for (const std::string& s : strings_) total += s.size();
  return total;
}

}  // namespace graft
