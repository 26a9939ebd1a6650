// No exception leaves the C API: the exported functions that are not wrapped in Guard (the
// getters that return a value, and graft_shape_context_fail, which plug-ins call from their C
// shape functions) must not throw even when memory runs out. The global operator new is
// replaced by one that can be told to fail the n-th allocation; each function is called with
// the first, second, ... allocation failing until it runs through with none failing, and an
// exception out of it fails the test.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "graft/graft.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h>
}

#include "tests/core/sanitizers.h"

// Sanitizers bring their own operator new; the checks need ours, so they are skipped there.
#ifndef GRAFT_TEST_SANITIZED
namespace {
thread_local long allocations_left = -1;  // before one fails; -1: none fails
thread_local bool failed_one = false;
thread_local bool keep_failing = false;  // every allocation after the first failure fails too

void* Allocate(std::size_t n) {
  if (allocations_left == 0) {
    if (!keep_failing) allocations_left = -1;
    failed_one = true;
    throw std::bad_alloc();
  }
  if (allocations_left > 0) --allocations_left;
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(std::size_t n) { return Allocate(n); }
void* operator new[](std::size_t n) { return Allocate(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

#ifndef GRAFT_TEST_SANITIZED
// Calls f with allocation 0, 1, 2, ... failing until it completes without a failure; fails the
// test when an exception comes out of f.
template <typename F>
void NeverThrows(const char* what, F f, bool sticky = false) {
  for (long n = 0; n < 100000; ++n) {
    failed_one = false;
    keep_failing = sticky;
    allocations_left = n;
    bool threw = false;
    try {
      f();
    } catch (...) {
      threw = true;
    }
    allocations_left = -1;
    keep_failing = false;
    if (threw) {
      print_error("%s threw when allocation %ld failed\n", what, n);
      fail();
    }
    if (!failed_one) return;  // ran through: every allocation it makes has been failed once
  }
  print_error("%s: too many allocations\n", what);
  fail();
}
#endif

[[maybe_unused]] graft_op* Const(graft_graph* g, const char* name) {
  float v = 1;
  graft_tensor* t = nullptr;
  assert_int_equal(graft_tensor_new(&t, GRAFT_FLOAT32, nullptr, 0, &v, sizeof v), GRAFT_OK);
  graft_op_desc* d = nullptr;
  assert_int_equal(graft_op_desc_new(&d, g, "Const", name), GRAFT_OK);
  assert_int_equal(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t), GRAFT_OK);
  assert_int_equal(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32), GRAFT_OK);
  graft_tensor_free(t);
  graft_op* op = nullptr;
  assert_int_equal(graft_op_desc_finish(&op, d), GRAFT_OK);
  return op;
}

// Runs first, before anything has built the op and gradient registries: their first use
// builds them, which allocates.
void test_registry_lookups(void** state) {
  (void)state;
#ifdef GRAFT_TEST_SANITIZED
  skip();
#else
  // Building the registry makes many thousands of allocations: fail a sample of them.
  for (long n : {0L, 1L, 2L, 3L, 10L, 100L, 1000L, 5000L, 20000L}) {
    failed_one = false;
    allocations_left = n;
    bool threw = false;
    try {
      (void)graft_op_is_registered("MatMul");
    } catch (...) {
      threw = true;
    }
    allocations_left = -1;
    if (threw) {
      print_error("graft_op_is_registered threw when allocation %ld failed\n", n);
      fail();
    }
  }
  assert_true(graft_op_is_registered("MatMul"));
  NeverThrows("graft_gradient_lookup", [] { (void)graft_gradient_lookup("a_gradient_that_is_not_registered"); });
#endif
}

// The getters that check an output without a Status to report through.
void test_output_getters(void** state) {
  (void)state;
#ifdef GRAFT_TEST_SANITIZED
  skip();
#else
  graft_graph* g = nullptr;
  assert_int_equal(graft_graph_new(&g), GRAFT_OK);
  // A name past the short-string buffer, so that making the tensor's name allocates.
  graft_op* c = Const(g, "a_constant_with_a_long_name");
  graft_output good = {c, 0}, bad = {c, 7};
  // Out of memory it answers 0; it never throws.
  NeverThrows("graft_graph_is_feedable", [&] { (void)graft_graph_is_feedable(g, good); });
  assert_true(graft_graph_is_feedable(g, good));
  NeverThrows("graft_graph_is_feedable (bad index)", [&] { assert_false(graft_graph_is_feedable(g, bad)); });
  NeverThrows("graft_output_dtype (bad index)", [&] { assert_int_equal(graft_output_dtype(bad), GRAFT_DTYPE_INVALID); });
  NeverThrows("graft_output_num_consumers (bad index)", [&] { assert_int_equal(graft_output_num_consumers(bad), 0); });
  NeverThrows("graft_op_num_colocation_groups", [&] { assert_int_equal(graft_op_num_colocation_groups(c), 1); });
  NeverThrows("graft_op_graph", [&] { (void)graft_op_graph(c); });
  graft_graph_free(g);
#endif
}

// Guard itself, out of memory (every allocation from the n-th on failing): turning the
// bad_alloc into a code and a message must not need memory (Guard is noexcept: a second
// exception there was std::terminate).
void test_guard_out_of_memory(void** state) {
  (void)state;
#ifdef GRAFT_TEST_SANITIZED
  skip();
#else
  int codes_seen = 0;
  NeverThrows("graft_graph_new", [&] {
    graft_graph* g = nullptr;
    int rc = graft_graph_new(&g);
    if (rc == GRAFT_OK) {
      graft_graph_free(g);
    } else {
      assert_int_equal(rc, GRAFT_ENOMEM);
      assert_int_equal(graft_error_last_code(), GRAFT_ENOMEM);
      ++codes_seen;
    }
  }, true);
  NeverThrows("graft_tensor_new_strings", [&] {
    const char* strings[2] = {"a string longer than the short-string buffer", "b"};
    int64_t dims[1] = {2};
    graft_tensor* t = nullptr;
    int rc = graft_tensor_new_strings(&t, dims, 1, strings, nullptr, 2);
    if (rc == GRAFT_OK) {
      graft_tensor_free(t);
    } else {
      assert_int_equal(rc, GRAFT_ENOMEM);
      ++codes_seen;
    }
  }, true);
  assert_true(codes_seen > 0);
#endif
}

#ifndef GRAFT_TEST_SANITIZED
// A plug-in's shape function: reports a failure with a long message while allocations fail.
const char* long_message = "this shape function refuses its inputs, in a message longer than any short string";
int threw_from_fail = 0;
int FailingShapeFn(graft_shape_context* ctx, void* payload) {
  (void)payload;
  NeverThrows("graft_shape_context_fail", [ctx] { graft_shape_context_fail(ctx, long_message); });
  // A C caller could not catch: check directly too.
  allocations_left = 0;
  try {
    graft_shape_context_fail(ctx, long_message);
  } catch (...) {
    threw_from_fail = 1;
  }
  allocations_left = -1;
  graft_shape_context_fail(ctx, long_message);
  return GRAFT_ESHAPE;
}
#endif

void test_shape_context_fail(void** state) {
  (void)state;
#ifdef GRAFT_TEST_SANITIZED
  skip();
#else
  graft_op_def_builder* b = nullptr;
  assert_int_equal(graft_op_def_builder_new(&b, "NoThrowTestOp"), GRAFT_OK);
  assert_int_equal(graft_op_def_builder_add_input(b, "x: float"), GRAFT_OK);
  assert_int_equal(graft_op_def_builder_add_output(b, "y: float"), GRAFT_OK);
  assert_int_equal(graft_op_def_builder_set_shape_fn(b, FailingShapeFn, nullptr), GRAFT_OK);
  assert_int_equal(graft_op_register(b), GRAFT_OK);
  graft_graph* g = nullptr;
  assert_int_equal(graft_graph_new(&g), GRAFT_OK);
  graft_op* x = Const(g, "x");
  graft_op_desc* d = nullptr;
  assert_int_equal(graft_op_desc_new(&d, g, "NoThrowTestOp", "t"), GRAFT_OK);
  assert_int_equal(graft_op_desc_add_input(d, graft_output{x, 0}), GRAFT_OK);
  graft_op* op = nullptr;
  assert_int_equal(graft_op_desc_finish(&op, d), GRAFT_ESHAPE);
  assert_non_null(strstr(graft_error_last(), long_message));
  assert_int_equal(threw_from_fail, 0);
  graft_graph_free(g);
#endif
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_registry_lookups),
      cmocka_unit_test(test_output_getters),
      cmocka_unit_test(test_shape_context_fail),
      cmocka_unit_test(test_guard_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
