// ScopedFlushDenormals (core/runtime/denormal.h): inside it subnormals are flushed (inputs and
// results) and rounding is to nearest; nested guards change nothing; on exit the caller's
// control register is back as it was (rounding, flushing, its status flags; none raised inside
// leak out); and the thread pool's workers run in the mode for their whole life.
#include <atomic>
#include <memory>

#include "core/runtime/denormal.h"
#include "core/runtime/thread_pool.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
extern "C" {
#include <cmocka.h>
}

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#else
#define HAVE_MXCSR 0
#endif

namespace graft {
namespace {

// Through volatile, so that the compiler computes at run time, in the current mode.
float Mul(float a, float b) {
  volatile float x = a, y = b;
  return x * y;
}

void test_guard_flushes_and_restores(void** state) {
  (void)state;
#if HAVE_MXCSR || defined(__aarch64__)
  assert_false(FlushingDenormals());
  assert_true(Mul(1e-39f, 1.0f) != 0.0f);
  {
    ScopedFlushDenormals flush;
    assert_true(FlushingDenormals());
    assert_true(Mul(1e-39f, 1.0f) == 0.0f);   // a subnormal input reads as zero
    assert_true(Mul(1e-20f, 1e-20f) == 0.0f);  // a subnormal result becomes zero
    {
      ScopedFlushDenormals nested;
      assert_true(FlushingDenormals());
    }
    assert_true(FlushingDenormals());  // the nested guard left the outer one's mode
  }
  assert_false(FlushingDenormals());
  assert_true(Mul(1e-39f, 1.0f) != 0.0f);
#else
  skip();
#endif
}

void test_caller_rounding_and_flags(void** state) {
  (void)state;
#if HAVE_MXCSR
  const unsigned saved = _mm_getcsr();
  _mm_setcsr((saved & ~0x3fu) | 0x6000u | 0x1u);  // round toward zero; its own flag IE raised
  {
    ScopedFlushDenormals flush;
    volatile float one = 1.0f, tiny = 8.940697e-8f;  // 0.75 of 1's ulp
    assert_true(one + tiny == 1.00000012f);          // to nearest inside
    (void)Mul(1e-20f, 1e-20f);                       // raises inexact (and underflow on some CPUs)
  }
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  assert_int_equal(after & 0x6000u, 0x6000u);  // the caller's rounding is back
  assert_int_equal(after & 0x8040u, 0u);       // and its (not) flushing
  assert_int_equal(after & 0x3fu, 0x1u);       // and its flags as they were: the kernels' do not leak
#else
  skip();
#endif
}

void test_pool_workers_flush(void** state) {
  (void)state;
#if HAVE_MXCSR || defined(__aarch64__)
  std::unique_ptr<ThreadPool> pool;
  assert_true(ThreadPool::Create(2, &pool).ok());
  std::atomic<int> flushing{0};
  for (int i = 0; i < 8; ++i) pool->Schedule([&flushing] { flushing.fetch_add(FlushingDenormals() ? 1 : 0); });
  pool.reset();
  assert_int_equal(flushing.load(), 8);
  assert_false(FlushingDenormals());  // the thread that made the pool never changed
#else
  skip();
#endif
}

}  // namespace
}  // namespace graft

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(graft::test_guard_flushes_and_restores),
      cmocka_unit_test(graft::test_caller_rounding_and_flags),
      cmocka_unit_test(graft::test_pool_workers_flush),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
