#include "core/runtime/denormal.h"

namespace graft {

#if defined(__i386__)
uint64_t fp_mode::KernelFlushBits() {
  static const uint64_t bits = [] {
    __builtin_cpu_init();
    return uint64_t{kFlushToZero} | (__builtin_cpu_supports("sse3") ? kDenormalsAreZero : 0u);  // SSE3 implies DAZ
  }();
  return bits;
}
#endif

bool FlushingDenormals() {
  const uint64_t mask = fp_mode::Mask();
  return mask != 0 && (fp_mode::Read() & mask) == fp_mode::Value();
}

}  // namespace graft
