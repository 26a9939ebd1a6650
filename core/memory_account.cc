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

MemoryCharge& MemoryCharge::operator=(MemoryCharge&& other) noexcept {
  if (this != &other) {
    Release();
    account_ = std::move(other.account_);
    process_ = other.process_;
    bytes_ = other.bytes_;
    other.process_ = false;
    other.bytes_ = 0;
  }
  return *this;
}

Status MemoryCharge::Charge(size_t bytes) {
  Release();
  if (bytes == 0) return Status::Ok();
  MemoryAccount* account = MemoryAccount::Current();
  const bool process = MemoryAccount::ProcessLimited();
  if (process) GRAFT_RETURN_IF_ERROR(MemoryAccount::Process().Charge(bytes));
  if (account != nullptr) {
    if (Status s = account->Charge(bytes); !s.ok()) {
      if (process) MemoryAccount::Process().Credit(bytes);
      return s;
    }
    account_ = account->shared_from_this();
  }
  process_ = process;
  bytes_ = bytes;
  return Status::Ok();
}

Status MemoryCharge::CheckFits(size_t bytes) {
  if (!Active()) return Status::Ok();
  MemoryCharge probe;
  return probe.Charge(bytes);
}

void MemoryCharge::Release() {
  if (bytes_ == 0) return;
  if (account_ != nullptr) account_->Credit(bytes_);
  if (process_) MemoryAccount::Process().Credit(bytes_);
  account_.reset();
  process_ = false;
  bytes_ = 0;
}

}  // namespace graft
