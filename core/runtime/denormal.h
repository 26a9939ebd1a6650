// ScopedFlushDenormals: while it lives, the calling thread's floating-point unit treats
// subnormal (denormal) inputs as zero, flushes subnormal results to zero and rounds to nearest.
// TensorFlow runs its CPU kernels so (its executor, its thread pools and eager execution set
// it), which decides results such as FloorDiv(-1, 3.4e38) = -0 and 1e-39f * 1 = 0; Graft's
// kernels must give the same. Flushing is also faster on CPUs that take microcode assists on
// subnormals.
//
// A guard that switched the mode gives the thread its previous control register back when it
// ends, so a host program calling into Graft keeps its own floating-point state (its modes, and
// its status flags as they were: flags the kernels raised do not leak out). A guard that finds
// the mode already set (a nested run, a pool worker) writes nothing. It is inline: one read and
// two writes of the control register are the whole cost (a few nanoseconds), paid once per call
// into Graft.
//
// x86: MXCSR's DAZ, FTZ and rounding bits (SSE arithmetic; x87 long double is unaffected, as
// in TensorFlow). aarch64: FPCR.FZ and RMode. Elsewhere: no effect.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace graft {
namespace fp_mode {

#if defined(__x86_64__) || defined(__i386__)
constexpr uint32_t kFlushToZero = 0x8000;      // MXCSR.FTZ: subnormal results become zero
constexpr uint32_t kDenormalsAreZero = 0x40;   // MXCSR.DAZ: subnormal inputs read as zero
constexpr uint32_t kRoundingControl = 0x6000;  // MXCSR.RC: 0 is round to nearest even
#if defined(__x86_64__)
// Every x86-64 processor has DAZ.
inline uint64_t KernelFlushBits() { return kFlushToZero | kDenormalsAreZero; }
#else
// The first SSE2 processors lack DAZ, and setting an unsupported MXCSR bit faults.
uint64_t KernelFlushBits();
#endif
inline uint64_t Mask() { return KernelFlushBits() | kRoundingControl; }
inline uint64_t Value() { return KernelFlushBits(); }
inline uint64_t Read() { return _mm_getcsr(); }
inline void Write(uint64_t mode) { _mm_setcsr(static_cast<unsigned>(mode)); }
#elif defined(__aarch64__)
constexpr uint64_t kFlushToZero = uint64_t{1} << 24;   // FPCR.FZ: subnormal inputs and results are zero
constexpr uint64_t kRoundingMode = uint64_t{3} << 22;  // FPCR.RMode: 0 is round to nearest even
inline uint64_t Mask() { return kFlushToZero | kRoundingMode; }
inline uint64_t Value() { return kFlushToZero; }
inline uint64_t Read() {
  uint64_t fpcr;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
}
inline void Write(uint64_t mode) { asm volatile("msr fpcr, %0" : : "r"(mode)); }
#else
inline uint64_t Mask() { return 0; }
inline uint64_t Value() { return 0; }
inline uint64_t Read() { return 0; }
inline void Write(uint64_t) {}
#endif

}  // namespace fp_mode

class ScopedFlushDenormals {
 public:
  ScopedFlushDenormals() {
    const uint64_t mask = fp_mode::Mask(), value = fp_mode::Value();
    if (mask == 0) return;
    saved_ = fp_mode::Read();
    if ((saved_ & mask) == value) return;  // already the kernels' mode: nothing to set or restore
    fp_mode::Write((saved_ & ~mask) | value);
    restore_ = true;
  }
  ~ScopedFlushDenormals() {
    if (restore_) fp_mode::Write(saved_);
  }
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
  uint64_t saved_ = 0;
  bool restore_ = false;
};

// Whether the calling thread is in the kernels' mode now (for tests and assertions).
bool FlushingDenormals();

}  // namespace graft
