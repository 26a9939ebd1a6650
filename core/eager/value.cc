#include "core/eager/value.h"

namespace graft::eager {

uint64_t NewValueId() {
  // Each thread takes ids in blocks, so that eager ops on many threads do not contend on one
  // counter. Ids start at 1 (0 means "none").
  static std::atomic<uint64_t> next_block{1};
  constexpr uint64_t kBlock = 1024;
  thread_local uint64_t next = 0;
  thread_local uint64_t end = 0;
  if (next == end) {
    next = next_block.fetch_add(kBlock, std::memory_order_relaxed);
    end = next + kBlock;
  }
  return next++;
}

}  // namespace graft::eager
