// ThreadScoped<T>: a pointer the calling thread sees while a Scope has set it, restored when
// the Scope ends (scopes nest). The memory account a kernel allocates from and the run
// control of the eager ops a taped call runs are passed down this way, through code that
// has no parameter for them.
#pragma once

#include <atomic>

namespace graft {

template <typename T>
class ThreadScoped {
 public:
  // The calling thread's pointer, or nullptr. Reading a thread-local of a shared library costs
  // a call: until some thread has set one, a relaxed load of a flag answers instead.
  static T* Current() { return ever_set_.load(std::memory_order_relaxed) ? current_ : nullptr; }

  class Scope {
   public:
    // nullptr leaves the thread's pointer as it is (and touches no thread-local).
    explicit Scope(T* value) : set_(value != nullptr) {
      if (set_) {
        ever_set_.store(true, std::memory_order_relaxed);
        previous_ = current_;
        current_ = value;
      }
    }
    ~Scope() {
      if (set_) current_ = previous_;
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    T* previous_ = nullptr;
    bool set_;
  };

 private:
  static inline thread_local T* current_ = nullptr;  // (a plain pointer: nothing to destroy)
  static inline std::atomic<bool> ever_set_{false};
};

}  // namespace graft
