// DeleteAtUnload: see unload.h.
//
// Telling dlclose from exit: both run libgraft's function-local static destructors (registered
// with __cxa_atexit for this library) and its .fini_array, in opposite orders. At exit, exit()
// runs every __cxa_atexit handler first and the libraries' .fini_array entries after (_dl_fini).
// At dlclose, the library's .fini_array runs and the handlers come last, from __cxa_finalize
// inside crtbegin's __do_global_dtors_aux, which is the array's first entry and runs last. So a
// static's destructor (ExitProbe) that has run before our .fini_array function means exit.
#include "core/unload.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace graft::internal {
namespace {

constexpr int kMaxUnloadActions = 32;
struct Action {
  void (*fn)(void*);
  void* arg;
};
// Constant-initialised and trivially destructible: no global constructor, usable at unload.
std::mutex g_mu;
Action g_actions[kMaxUnloadActions];  // guarded by g_mu
int g_count = 0;                      // guarded by g_mu
bool g_exiting = false;

struct ExitProbe {
  ~ExitProbe() { g_exiting = true; }
};

__attribute__((destructor)) void OnUnload() {
  if (g_exiting) return;  // process exit: leave everything (see unload.h)
  std::lock_guard<std::mutex> lock(g_mu);
  while (g_count > 0) {
    const Action a = g_actions[--g_count];
    a.fn(a.arg);
  }
}

}  // namespace

void RunAtUnload(void (*fn)(void*), void* arg) noexcept {
  static ExitProbe probe;  // registered with __cxa_atexit: its destructor runs first at exit
  (void)probe;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_count == kMaxUnloadActions) std::abort();
  g_actions[g_count++] = Action{fn, arg};
}

}  // namespace graft::internal
