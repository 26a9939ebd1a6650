/* Tensors: copies, borrowed buffers, strings, sizes, alignment and every error path. */
#include <stdlib.h>

#include "test_util.h"

static void test_new_copies_data(void **state) {
  (void)state;
  float src[6] = {1, 2, 3, 4, 5, 6};
  int64_t dims[2] = {2, 3};
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, 2, src, sizeof src));
  src[0] = 100; /* the tensor has its own copy */
  assert_int_equal(graft_tensor_dtype(t), GRAFT_FLOAT32);
  assert_int_equal(graft_tensor_rank(t), 2);
  assert_int_equal(graft_tensor_dim(t, 0), 2);
  assert_int_equal(graft_tensor_dim(t, 1), 3);
  assert_int_equal(graft_tensor_dim(t, 2), -1);
  assert_int_equal(graft_tensor_dim(t, -1), -1);
  assert_int_equal(graft_tensor_num_elements(t), 6);
  assert_int_equal(graft_tensor_byte_size(t), 24);
  const float *data = graft_tensor_data(t);
  assert_non_null(data);
  assert_true(data[0] == 1.0f && data[5] == 6.0f);
  assert_int_equal((uintptr_t)data % GRAFT_TENSOR_ALIGNMENT, 0);
  graft_shape *s = NULL;
  GT_OK(graft_tensor_shape(&s, t));
  assert_string_equal(graft_shape_string(s), "(2, 3)");
  graft_shape_free(s);
  graft_tensor_free(t);
}

static void test_every_fixed_size_dtype(void **state) {
  (void)state;
  for (int v = 1; v <= 23; ++v) {
    graft_dtype d = (graft_dtype)v;
    size_t size = graft_dtype_size(d);
    int64_t dims[1] = {5};
    graft_tensor *t = NULL;
    if (size == 0) {
      GT_ERR(GRAFT_EDTYPE, graft_tensor_new(&t, d, dims, 1, NULL, 0), graft_dtype_name(d));
      assert_null(t);
      continue;
    }
    GT_OK(graft_tensor_new(&t, d, dims, 1, NULL, 0));
    assert_int_equal(graft_tensor_dtype(t), d);
    assert_int_equal(graft_tensor_byte_size(t), 5 * size);
    /* Zero-filled when no data is given. */
    const unsigned char *bytes = graft_tensor_data(t);
    for (size_t i = 0; i < 5 * size; ++i) assert_int_equal(bytes[i], 0);
    graft_tensor_free(t);
  }
}

static void test_scalar_and_empty(void **state) {
  (void)state;
  int64_t v = -7;
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_INT64, NULL, 0, &v, sizeof v));
  assert_int_equal(graft_tensor_rank(t), 0);
  assert_int_equal(graft_tensor_num_elements(t), 1);
  assert_int_equal(*(const int64_t *)graft_tensor_data(t), -7);
  graft_tensor_free(t);

  int64_t dims[3] = {4, 0, 3};
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT64, dims, 3, NULL, 0));
  assert_int_equal(graft_tensor_num_elements(t), 0);
  assert_int_equal(graft_tensor_byte_size(t), 0);
  graft_tensor *c = NULL;
  GT_OK(graft_tensor_copy(&c, t));
  assert_int_equal(graft_tensor_dim(c, 0), 4);
  assert_int_equal(graft_tensor_num_elements(c), 0);
  graft_tensor_free(c);
  graft_tensor_free(t);
}

struct dealloc_record {
  int calls;
  void *data;
  size_t len;
};

static void record_dealloc(void *data, size_t len, void *arg) {
  struct dealloc_record *r = arg;
  r->calls++;
  r->data = data;
  r->len = len;
}

static void test_borrowed_is_zero_copy(void **state) {
  (void)state;
  double *buf = aligned_alloc(64, 64);
  for (int i = 0; i < 8; ++i) buf[i] = i * 0.5;
  struct dealloc_record rec = {0, NULL, 0};
  int64_t dims[2] = {2, 4};
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new_borrowed(&t, GRAFT_FLOAT64, dims, 2, buf, 64, record_dealloc, &rec));
  assert_ptr_equal(graft_tensor_data(t), buf);
  /* A shared handle keeps the buffer alive after the first handle goes. */
  graft_tensor *shared = NULL;
  GT_OK(graft_tensor_share(&shared, t));
  assert_ptr_equal(graft_tensor_data(shared), buf);
  graft_tensor_free(t);
  assert_int_equal(rec.calls, 0);
  assert_true(((const double *)graft_tensor_data(shared))[7] == 3.5);
  /* A deep copy does not keep it alive. */
  graft_tensor *copy = NULL;
  GT_OK(graft_tensor_copy(&copy, shared));
  assert_ptr_not_equal(graft_tensor_data(copy), buf);
  graft_tensor_free(shared);
  assert_int_equal(rec.calls, 1);
  assert_ptr_equal(rec.data, buf);
  assert_int_equal(rec.len, 64);
  assert_true(((const double *)graft_tensor_data(copy))[7] == 3.5);
  graft_tensor_free(copy);
  free(buf);
}

static void test_borrowed_misaligned_is_copied(void **state) {
  (void)state;
  unsigned char *raw = aligned_alloc(64, 64);
  int32_t vals[3] = {10, 20, 30};
  memcpy(raw + 1, vals, sizeof vals); /* not aligned for int32 */
  struct dealloc_record rec = {0, NULL, 0};
  int64_t dims[1] = {3};
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new_borrowed(&t, GRAFT_INT32, dims, 1, raw + 1, sizeof vals, record_dealloc, &rec));
  /* Copied into an aligned buffer, and the caller's memory given back at once. */
  assert_int_equal(rec.calls, 1);
  assert_ptr_not_equal(graft_tensor_data(t), raw + 1);
  assert_int_equal((uintptr_t)graft_tensor_data(t) % GRAFT_TENSOR_ALIGNMENT, 0);
  assert_int_equal(((const int32_t *)graft_tensor_data(t))[2], 30);
  graft_tensor_free(t);
  assert_int_equal(rec.calls, 1);
  free(raw);
}

static void test_borrowed_errors_keep_ownership(void **state) {
  (void)state;
  float buf[4] = {0};
  struct dealloc_record rec = {0, NULL, 0};
  int64_t dims[1] = {4};
  graft_tensor *t = NULL;
  GT_ERR(GRAFT_EINVAL, graft_tensor_new_borrowed(&t, GRAFT_FLOAT32, dims, 1, buf, 12, record_dealloc, &rec),
         "graft_tensor_new_borrowed", "12 bytes", "4 elements");
  GT_ERR(GRAFT_EDTYPE, graft_tensor_new_borrowed(&t, GRAFT_STRING, dims, 1, buf, 16, record_dealloc, &rec),
         "string");
  GT_ERR(GRAFT_EINVAL, graft_tensor_new_borrowed(&t, GRAFT_FLOAT32, dims, 1, NULL, 16, record_dealloc, &rec),
         "NULL");
  int64_t huge[2] = {INT64_MAX / 2, 4};
  GT_ERR(GRAFT_ERANGE, graft_tensor_new_borrowed(&t, GRAFT_FLOAT32, huge, 2, buf, 16, record_dealloc, &rec),
         "overflow");
  assert_int_equal(rec.calls, 0);
  assert_null(t);
  /* With no deallocator the buffer simply stays the caller's. */
  GT_OK(graft_tensor_new_borrowed(&t, GRAFT_FLOAT32, dims, 1, buf, sizeof buf, NULL, NULL));
  graft_tensor_free(t);
}

static void test_strings(void **state) {
  (void)state;
  const char *strs[4] = {"alpha", "", "with\0nul", "z"};
  size_t lens[4] = {5, 0, 8, 1};
  int64_t dims[2] = {2, 2};
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new_strings(&t, dims, 2, strs, lens, 4));
  assert_int_equal(graft_tensor_dtype(t), GRAFT_STRING);
  assert_int_equal(graft_tensor_num_elements(t), 4);
  assert_int_equal(graft_tensor_byte_size(t), 14);
  assert_null(graft_tensor_data(t));
  const char *p;
  size_t n;
  GT_OK(graft_tensor_string(&p, &n, t, 2));
  assert_int_equal(n, 8);
  assert_memory_equal(p, "with\0nul", 8);
  GT_OK(graft_tensor_string(&p, &n, t, 1));
  assert_int_equal(n, 0);
  GT_ERR(GRAFT_ERANGE, graft_tensor_string(&p, &n, t, 4), "index 4");
  GT_ERR(GRAFT_ERANGE, graft_tensor_string(&p, &n, t, -1), "index -1");
  graft_tensor *c = NULL;
  GT_OK(graft_tensor_copy(&c, t));
  graft_tensor_free(t);
  GT_OK(graft_tensor_string(&p, &n, c, 0));
  assert_int_equal(n, 5);
  assert_memory_equal(p, "alpha", 5);
  graft_tensor_free(c);

  /* NUL-terminated strings when lengths is NULL; a scalar string. */
  const char *one[1] = {"hello"};
  GT_OK(graft_tensor_new_strings(&t, NULL, 0, one, NULL, 1));
  GT_OK(graft_tensor_string(&p, &n, t, 0));
  assert_int_equal(n, 5);
  graft_tensor_free(t);

  GT_ERR(GRAFT_EINVAL, graft_tensor_new_strings(&t, dims, 2, strs, lens, 3), "3 strings", "4 elements");
  const char *withnull[2] = {"a", NULL};
  int64_t two[1] = {2};
  GT_ERR(GRAFT_EINVAL, graft_tensor_new_strings(&t, two, 1, withnull, NULL, 2), "strings[1]");

  float f = 1;
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, NULL, 0, &f, sizeof f));
  GT_ERR(GRAFT_EDTYPE, graft_tensor_string(&p, &n, t, 0), "float32", "strings");
  graft_tensor_free(t);
}

static void test_creation_errors(void **state) {
  (void)state;
  graft_tensor *t = NULL;
  float buf[4] = {0};
  int64_t dims[1] = {4};
  GT_ERR(GRAFT_EINVAL, graft_tensor_new(&t, GRAFT_FLOAT32, dims, 1, buf, 15), "graft_tensor_new", "15 bytes", "16 bytes");
  GT_ERR(GRAFT_EINVAL, graft_tensor_new(&t, GRAFT_FLOAT32, dims, 1, NULL, 16), "'data' is NULL");
  GT_ERR(GRAFT_EINVAL, graft_tensor_new(NULL, GRAFT_FLOAT32, dims, 1, buf, 16), "'out'");
  GT_ERR(GRAFT_EINVAL, graft_tensor_new(&t, GRAFT_FLOAT32, NULL, 1, buf, 16), "'dims'");
  GT_ERR(GRAFT_EINVAL, graft_tensor_new(&t, GRAFT_FLOAT32, dims, -1, buf, 16), "ndims is -1");
  int64_t neg[2] = {2, -1};
  GT_ERR(GRAFT_EINVAL, graft_tensor_new(&t, GRAFT_FLOAT32, neg, 2, NULL, 0), "dimension 1 is -1");
  GT_ERR(GRAFT_EDTYPE, graft_tensor_new(&t, (graft_dtype)77, dims, 1, NULL, 0), "invalid dtype 77");
  GT_ERR(GRAFT_EDTYPE, graft_tensor_new(&t, GRAFT_FLOAT32_REF, dims, 1, NULL, 0), "float32_ref");
  GT_ERR(GRAFT_EDTYPE, graft_tensor_new(&t, GRAFT_RESOURCE, dims, 1, NULL, 0), "resource");
  GT_ERR(GRAFT_EDTYPE, graft_tensor_new(&t, GRAFT_VARIANT, dims, 1, NULL, 0), "variant");
  assert_null(t);
}

static void test_sizes_that_overflow(void **state) {
  (void)state;
  graft_tensor *t = NULL;
  /* The element count overflows int64. */
  int64_t a[3] = {1 << 30, 1 << 30, 1 << 30};
  GT_ERR(GRAFT_ERANGE, graft_tensor_new(&t, GRAFT_FLOAT32, a, 3, NULL, 0), "overflows");
  /* The count fits but the byte size does not. */
  int64_t b[2] = {INT64_MAX / 4, 3};
  GT_ERR(GRAFT_ERANGE, graft_tensor_new(&t, GRAFT_COMPLEX128, b, 1, NULL, 0), "overflows");
  int64_t c[1] = {INT64_MAX};
  GT_ERR(GRAFT_ERANGE, graft_tensor_new(&t, GRAFT_INT16, c, 1, NULL, 0), "overflows");
  /* Zero anywhere makes any other size fine. */
  int64_t d[3] = {INT64_MAX, 0, INT64_MAX};
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, d, 3, NULL, 0));
  assert_int_equal(graft_tensor_num_elements(t), 0);
  graft_tensor_free(t);
  t = NULL;
  /* Within range but far beyond memory: an error, not a crash. */
  int64_t e[1] = {(int64_t)1 << 60};
  GT_ERR(GRAFT_ENOMEM, graft_tensor_new(&t, GRAFT_UINT8, e, 1, NULL, 0), "cannot allocate");
  assert_null(t);
}

static void test_null_handles(void **state) {
  (void)state;
  graft_tensor_free(NULL);
  assert_int_equal(graft_tensor_dtype(NULL), GRAFT_DTYPE_INVALID);
  assert_int_equal(graft_tensor_rank(NULL), -1);
  assert_int_equal(graft_tensor_dim(NULL, 0), -1);
  assert_int_equal(graft_tensor_num_elements(NULL), 0);
  assert_int_equal(graft_tensor_byte_size(NULL), 0);
  assert_null(graft_tensor_data(NULL));
  graft_tensor *t;
  graft_shape *s;
  GT_ERR(GRAFT_EINVAL, graft_tensor_copy(&t, NULL), "'tensor'");
  GT_ERR(GRAFT_EINVAL, graft_tensor_share(&t, NULL), "'tensor'");
  GT_ERR(GRAFT_EINVAL, graft_tensor_shape(&s, NULL), "'tensor'");
}

/* Which handles may hand their elements on without a copy. */
static void test_is_exclusive(void **state) {
  (void)state;
  assert_int_equal(graft_tensor_is_exclusive(NULL), 0);
  const int64_t dims[1] = {4};
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, 1, NULL, 0));
  assert_int_equal(graft_tensor_is_exclusive(t), 1);
  /* A second handle shares the buffer until it goes; a copy does not. */
  graft_tensor *shared = NULL;
  GT_OK(graft_tensor_share(&shared, t));
  assert_int_equal(graft_tensor_is_exclusive(t), 0);
  assert_int_equal(graft_tensor_is_exclusive(shared), 0);
  graft_tensor *copy = NULL;
  GT_OK(graft_tensor_copy(&copy, shared));
  assert_int_equal(graft_tensor_is_exclusive(copy), 1);
  graft_tensor_free(shared);
  assert_int_equal(graft_tensor_is_exclusive(t), 1);
  graft_tensor_free(copy);
  graft_tensor_free(t);
  /* Caller memory is never Graft's to hand on. */
  float *buf = aligned_alloc(64, 64);
  GT_OK(graft_tensor_new_borrowed(&t, GRAFT_FLOAT32, dims, 1, buf, 16, NULL, NULL));
  assert_int_equal(graft_tensor_is_exclusive(t), 0);
  graft_tensor_free(t);
  free(buf);
  /* Strings (heap strings behind the bytes) and empty tensors (no buffer) never are. */
  const char *words[2] = {"a", "bc"};
  const size_t lens[2] = {1, 2};
  GT_OK(graft_tensor_new_strings(&t, (const int64_t[]){2}, 1, words, lens, 2));
  assert_int_equal(graft_tensor_is_exclusive(t), 0);
  graft_tensor_free(t);
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, (const int64_t[]){0}, 1, NULL, 0));
  assert_int_equal(graft_tensor_is_exclusive(t), 0);
  graft_tensor_free(t);
}

/* Freed large buffers are kept for the next tensor of the same size (not under ASan, whose
 * use-after-free checks need real frees); graft_memory_release_cached gives them back. */
static void test_buffer_reuse(void **state) {
  (void)state;
  /* The library's own test (core/buffer_cache.cc): GCC defines __SANITIZE_ADDRESS__, clang
   * answers __has_feature(address_sanitizer). */
#if defined(__SANITIZE_ADDRESS__)
  const int cache = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  const int cache = 0;
#else
  const int cache = 1;
#endif
#else
  const int cache = 1;
#endif
  (void)graft_memory_release_cached();
  assert_int_equal(graft_memory_cached_bytes(), 0);
  const int64_t dims[1] = {1 << 18}; /* 1 MiB of float32 */
  graft_tensor *t = NULL;
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, 1, NULL, 0));
  float *first = graft_tensor_data(t);
  for (int64_t i = 0; i < dims[0]; ++i) first[i] = 7.0f; /* left behind in the freed block */
  graft_tensor_free(t);
  assert_int_equal(graft_memory_cached_bytes(), cache ? (size_t)1 << 20 : 0);
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, dims, 1, NULL, 0));
  if (cache) assert_ptr_equal(graft_tensor_data(t), first); /* the same block again */
  assert_int_equal(graft_memory_cached_bytes(), 0);
  /* Zero-filled when the API says so, even when reused. */
  const float *values = graft_tensor_data(t);
  for (int64_t i = 0; i < dims[0]; i += 4096) assert_true(values[i] == 0.0f);
  assert_true(values[dims[0] - 1] == 0.0f);
  graft_tensor_free(t);
  /* Small buffers are not kept. */
  GT_OK(graft_tensor_new(&t, GRAFT_FLOAT32, (const int64_t[]){16}, 1, NULL, 0));
  graft_tensor_free(t);
  assert_int_equal(graft_memory_release_cached(), cache ? (size_t)1 << 20 : 0);
  assert_int_equal(graft_memory_cached_bytes(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_copies_data),
      cmocka_unit_test(test_every_fixed_size_dtype),
      cmocka_unit_test(test_scalar_and_empty),
      cmocka_unit_test(test_borrowed_is_zero_copy),
      cmocka_unit_test(test_borrowed_misaligned_is_copied),
      cmocka_unit_test(test_borrowed_errors_keep_ownership),
      cmocka_unit_test(test_strings),
      cmocka_unit_test(test_creation_errors),
      cmocka_unit_test(test_sizes_that_overflow),
      cmocka_unit_test(test_null_handles),
      cmocka_unit_test(test_is_exclusive),
      cmocka_unit_test(test_buffer_reuse),
  };
  return cmocka_run_group_tests_name("tensor", tests, NULL, NULL);
}
