#include "core/runtime/thread_pool.h"


namespace graft {

ThreadPool::ThreadPool(int num_threads) {
  for (int i = 0; i < num_threads; ++i) workers_.emplace_back([this] { Work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Schedule(std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(fn));
    queued_.fetch_add(1, std::memory_order_release);
  }
  cv_.notify_one();
}

void ThreadPool::Work() {
  for (;;) {
    // Spin a little before sleeping (see the header).
    SpinUntil([this] { return queued_.load(std::memory_order_acquire) != 0; }, std::chrono::microseconds(50));
    std::function<void()> fn;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      fn = std::move(queue_.front());
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    fn();
  }
}

}  // namespace graft
