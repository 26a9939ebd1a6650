#include "core/runtime/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "core/runtime/thread_pool.h"
#include "core/unload.h"

namespace graft {
namespace {

int ThreadsWanted() {
  if (const char* env = std::getenv("GRAFT_INTRA_OP_THREADS"); env != nullptr && *env != '\0') {
    const long v = std::strtol(env, nullptr, 10);
    if (v >= 1) return static_cast<int>(std::min<long>(v, ThreadPool::kMaxThreads));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// The process's intra-op pool (nullptr with one thread, or when no thread could be started:
// then every loop runs on its caller).
ThreadPool* Pool() {
  static ThreadPool* pool = [] {
    std::unique_ptr<ThreadPool> p;
    if (ThreadsWanted() <= 1 || !ThreadPool::Create(ThreadsWanted() - 1, &p).ok()) return static_cast<ThreadPool*>(nullptr);
    return DeleteAtUnload(p.release());
  }();
  return pool;
}

// One ParallelFor call, shared with the workers that help (a worker that starts after the
// call has returned finds no range left and touches nothing else).
struct Loop {
  const std::function<void(int64_t, int64_t)>* fn;
  int64_t n, chunk, chunks;
  std::atomic<int64_t> next{0}, done{0};

  // Runs ranges until none is left.
  void Help() {
    for (;;) {
      const int64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= chunks) return;
      (*fn)(i * chunk, std::min(n, (i + 1) * chunk));
      done.fetch_add(1, std::memory_order_acq_rel);
    }
  }
};

}  // namespace

int IntraOpThreads() {
  ThreadPool* pool = Pool();
  return pool == nullptr ? 1 : pool->size() + 1;
}

void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  ThreadPool* pool = Pool();
  const int64_t threads = pool == nullptr ? 1 : pool->size() + 1;
  const int64_t chunks = std::min(threads, (n + grain - 1) / grain);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  auto loop = std::make_shared<Loop>();
  loop->fn = &fn;
  loop->n = n;
  loop->chunk = (n + chunks - 1) / chunks;
  loop->chunks = (n + loop->chunk - 1) / loop->chunk;
  for (int64_t i = 1; i < loop->chunks; ++i) pool->Schedule([loop] { loop->Help(); });
  loop->Help();
  // Only ranges already running remain: wait for them.
  while (loop->done.load(std::memory_order_acquire) < loop->chunks) CpuRelax();
}

}  // namespace graft
