// Per-thread objects that let a dlopen'ed libgraft unload (issue #20).
//
// A C++ `thread_local` object with a destructor is registered with __cxa_thread_atexit, and
// glibc then defers dlclose of the library until every thread that made one has exited: for a
// host's main thread, until the process ends, so libgraft (and OpenBLAS's threads) would stay
// loaded after dlclose. ThreadOwned<T>() gives this thread's T through a trivially destructible
// thread_local pointer instead: the object is made on first use, deleted when its thread exits
// (a pthread key's destructor) and, for the threads still running, when libgraft is unloaded
// (the key is deleted then, so no thread calls into unloaded code; core/unload.h).
// Use it for any per-thread object that owns memory; plain thread_local stays fine for
// trivially destructible ones (an int, a raw pointer).
#pragma once

#include <type_traits>

namespace graft {

namespace internal {

struct ThreadObject {
  virtual ~ThreadObject() = default;
  ThreadObject* next_in_thread = nullptr;
};

// Takes obj as the calling thread's: deleted at thread exit or at unload. Never fails but on
// memory (throws std::bad_alloc, obj deleted).
void AdoptThreadObject(ThreadObject* obj);

template <typename T>
struct ThreadBox final : ThreadObject {
  T value{};
};

}  // namespace internal

// This thread's T, value-initialised on first use. Tag tells apart two uses of one type.
template <typename T, typename Tag = void>
T& ThreadOwned() {
  thread_local T* mine = nullptr;
  static_assert(std::is_trivially_destructible_v<T*>);
  if (mine == nullptr) [[unlikely]] {
    auto* box = new internal::ThreadBox<T>();
    internal::AdoptThreadObject(box);
    mine = &box->value;
  }
  return *mine;
}

}  // namespace graft
