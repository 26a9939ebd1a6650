// MemoryAccount: the bytes of tensor memory a session's runs (or the whole process) hold,
// against a cap. An allocation that would pass a cap fails with kResourceExhausted naming the
// requested bytes, the cap and whose it is, instead of asking the system for 8 GB because a
// 40-byte graph said so (the executor then names the op). Tensor buffers (AlignedBuffer) are
// charged when made and credited when freed, to the account of the thread that made them
// (MemoryScope: a session sets its account around each kernel) and to the process's when it
// has a cap. Nothing is counted while no cap is set: the allocation path stays as it was.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"
#include "core/thread_scoped.h"

namespace graft {

class MemoryAccount : public std::enable_shared_from_this<MemoryAccount> {
 public:
  // limit 0: no cap (the bytes are still counted). A session's account is made with
  // make_shared: the buffers charged to it keep it alive past the session.
  MemoryAccount(std::string owner, int64_t limit) : owner_(std::move(owner)), limit_(limit) {}

  // The process's account; its cap (0: none) is set with SetProcessLimit. Thread-safe.
  static MemoryAccount& Process();
  static void SetProcessLimit(int64_t limit);
  // Whether the process has a cap (a relaxed load: the allocation path's only cost without one).
  static bool ProcessLimited() { return process_limited_.load(std::memory_order_relaxed); }

  // Counts bytes against the cap; kResourceExhausted (nothing counted) when they would pass it.
  Status Charge(size_t bytes);
  void Credit(size_t bytes) { used_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed); }
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_.load(std::memory_order_relaxed); }

  // The account the calling thread's tensor allocations are charged to (set by MemoryScope),
  // or nullptr.
  static MemoryAccount* Current() { return ThreadScoped<MemoryAccount>::Current(); }

 private:
  std::string owner_;  // "the session's", "the process's": for messages
  std::atomic<int64_t> limit_;
  std::atomic<int64_t> used_{0};
  static std::atomic<bool> process_limited_;
};

// Charges the calling thread's tensor allocations to an account while it lives (nullptr:
// leaves the thread's account as it is). Scopes nest.
using MemoryScope = ThreadScoped<MemoryAccount>::Scope;

// Bytes charged to the calling thread's account and to the process's (when it has a cap), and
// given back when the charge is destroyed: what every tensor buffer that owns its memory
// (AlignedBuffer, StringBuffer) holds to be counted. Movable, not copyable.
class MemoryCharge {
 public:
  MemoryCharge() = default;
  MemoryCharge(MemoryCharge&& other) noexcept { *this = std::move(other); }
  MemoryCharge& operator=(MemoryCharge&& other) noexcept;
  MemoryCharge(const MemoryCharge&) = delete;
  MemoryCharge& operator=(const MemoryCharge&) = delete;
  ~MemoryCharge() { Release(); }

  // Whether a charge would count anything (a cap on the process or an account on the thread).
  static bool Active() { return MemoryAccount::ProcessLimited() || MemoryAccount::Current() != nullptr; }
  // Charges bytes (giving back what the charge held before); kResourceExhausted (nothing
  // charged) when they would pass a cap.
  Status Charge(size_t bytes);
  // Whether bytes more could be charged now, without charging them.
  static Status CheckFits(size_t bytes);
  void Release();

 private:
  std::shared_ptr<MemoryAccount> account_;
  bool process_ = false;
  size_t bytes_ = 0;
};

}  // namespace graft
