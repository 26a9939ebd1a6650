// Process-wide objects and dlclose (issue #20). Graft's registries and caches are made on first
// use and never destroyed at process exit: threads of the host (a JVM's, a Python finalizer)
// may still free tensors or run kernels while the exit handlers run. When libgraft is
// unloaded with dlclose, though, nothing of it can run any more, and whatever it keeps must
// go with it or every load/unload cycle would leak it. DeleteAtUnload(new T) registers such an
// object: it is deleted (the last registered first) when libgraft is unloaded, and left alone
// when the process exits.
#pragma once

namespace graft {

namespace internal {
// Registers fn(arg) to run at unload (not at exit). Up to a fixed number of registrations
// (a process-wide object each; more aborts: raise kMaxUnloadActions in unload.cc).
void RunAtUnload(void (*fn)(void*), void* arg) noexcept;
}  // namespace internal

// Returns object, which is deleted when libgraft is unloaded (dlclose), never at exit.
template <typename T>
T* DeleteAtUnload(T* object) {
  internal::RunAtUnload([](void* p) { delete static_cast<T*>(p); }, object);
  return object;
}

}  // namespace graft
