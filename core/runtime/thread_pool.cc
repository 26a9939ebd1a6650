#include "core/runtime/thread_pool.h"

#include <new>
#include <system_error>

#include "core/runtime/denormal.h"

namespace graft {

Status ThreadPool::Create(int num_threads, std::unique_ptr<ThreadPool>* out) {
  if (num_threads < 0 || num_threads > kMaxThreads) {
    return errors::InvalidArgument("a thread pool of ", num_threads, " threads: the number must be between 0 and ",
                                   kMaxThreads);
  }
  std::unique_ptr<ThreadPool> pool(new ThreadPool());
  pool->workers_.reserve(static_cast<size_t>(num_threads));
  for (int i = 0; i < num_threads; ++i) {
    // std::thread throws std::system_error when the system has no thread left to give; a
    // joinable std::thread that is destroyed calls std::terminate, so the started workers
    // are stopped and joined (by the pool's destructor) before reporting.
    try {
      pool->workers_.emplace_back([p = pool.get()] { p->Work(); });
    } catch (const std::system_error& e) {
      return errors::ResourceExhausted("cannot start thread ", i + 1, " of ", num_threads, ": ", e.what());
    } catch (const std::bad_alloc&) {  // the thread's state is allocated before it starts
      return errors::ResourceExhausted("cannot start thread ", i + 1, " of ", num_threads, ": out of memory");
    }
  }
  *out = std::move(pool);
  return Status::Ok();
}

ThreadPool::~ThreadPool() { Stop(); }

void ThreadPool::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
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
  ScopedFlushDenormals flush;  // the workers run kernels only: always in the kernels' mode
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
