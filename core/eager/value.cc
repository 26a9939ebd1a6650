#include "core/eager/value.h"

namespace graft::eager {

uint64_t NewValueId() {
  // Each thread takes ids in blocks, so that eager ops on many threads do not contend on one
  // counter. Ids start at 1 (0 means "none").
  // One thread-local block (one TLS lookup per call in a shared library).
  static std::atomic<uint64_t> next_block{1};
  constexpr uint64_t kBlock = 1024;
  struct Block {
    uint64_t next = 0, end = 0;
  };
  thread_local Block b;
  Block& block = b;
  if (block.next == block.end) {
    block.next = next_block.fetch_add(kBlock, std::memory_order_relaxed);
    block.end = block.next + kBlock;
  }
  return block.next++;
}

}  // namespace graft::eager
