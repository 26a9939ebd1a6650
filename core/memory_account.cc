#include "core/memory_account.h"

#include "core/unload.h"

namespace graft {

std::atomic<bool> MemoryAccount::process_limited_{false};

MemoryAccount& MemoryAccount::Process() {
  static MemoryAccount* process = DeleteAtUnload(new MemoryAccount("the process's", 0));
  return *process;
}

void MemoryAccount::SetProcessLimit(int64_t limit) {
  MemoryAccount& p = Process();
  p.limit_.store(limit > 0 ? limit : 0, std::memory_order_relaxed);
  process_limited_.store(limit > 0, std::memory_order_relaxed);
}

Status MemoryAccount::Charge(size_t bytes) {
  const int64_t n = static_cast<int64_t>(bytes);
  const int64_t before = used_.fetch_add(n, std::memory_order_relaxed);
  const int64_t cap = limit_.load(std::memory_order_relaxed);
  if (cap > 0 && (n > cap || before > cap - n)) {
    used_.fetch_sub(n, std::memory_order_relaxed);
    return errors::ResourceExhausted("allocating ", bytes, " bytes would pass ", owner_, " memory cap of ", cap,
                                     " bytes (", before, " in use)");
  }
  return Status::Ok();
}

}  // namespace graft
