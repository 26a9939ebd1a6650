/* Status codes, thread-local error messages and versions. */
#include <pthread.h>
#include <stdio.h>

#include "test_util.h"

static void test_status_names(void **state) {
  (void)state;
  assert_string_equal(graft_status_name(GRAFT_OK), "GRAFT_OK");
  assert_string_equal(graft_status_name(GRAFT_EINVAL), "GRAFT_EINVAL");
  assert_string_equal(graft_status_name(GRAFT_ECANCELLED), "GRAFT_ECANCELLED");
  assert_string_equal(graft_status_name(GRAFT_EDEADLINE), "GRAFT_EDEADLINE");
  assert_string_equal(graft_status_name(-999), "GRAFT_EUNKNOWN");
  assert_string_equal(graft_status_str(GRAFT_ESHAPE), "incompatible shape");
  assert_string_equal(graft_status_str(12345), "unknown error");
  /* Every code from OK to the last one has its own name. */
  for (int c = GRAFT_OK; c >= GRAFT_EDEADLINE; --c) {
    for (int d = c - 1; d >= GRAFT_EDEADLINE; --d) {
      assert_string_not_equal(graft_status_name(c), graft_status_name(d));
    }
  }
}

static void test_message_names_the_function(void **state) {
  (void)state;
  graft_dtype dt;
  GT_ERR(GRAFT_EDTYPE, graft_dtype_from_name(&dt, "float33"), "graft_dtype_from_name", "float33");
  assert_null(strchr(graft_error_last(), '\n'));
  graft_error_clear();
  assert_int_equal(graft_error_last_code(), GRAFT_OK);
  assert_string_equal(graft_error_last(), "");
}

static void test_success_keeps_last_error(void **state) {
  (void)state;
  graft_dtype dt;
  GT_ERR(GRAFT_EINVAL, graft_dtype_from_name(&dt, NULL), "name");
  GT_OK(graft_dtype_from_name(&dt, "int8"));
  assert_int_equal(graft_error_last_code(), GRAFT_EINVAL);
}

static void *fail_in_thread(void *arg) {
  graft_dtype dt;
  (void)arg;
  int rc = graft_dtype_from_name(&dt, "no-such-type");
  return (void *)(intptr_t)(rc == GRAFT_EDTYPE && strstr(graft_error_last(), "no-such-type") != NULL);
}

static void test_message_is_thread_local(void **state) {
  (void)state;
  graft_error_clear();
  pthread_t t;
  void *ok = NULL;
  assert_int_equal(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
  assert_int_equal(pthread_join(t, &ok), 0);
  assert_true((intptr_t)ok);
  /* The other thread's failure did not touch this thread's state. */
  assert_int_equal(graft_error_last_code(), GRAFT_OK);
  assert_string_equal(graft_error_last(), "");
}

static void test_version(void **state) {
  (void)state;
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", GRAFT_VERSION_MAJOR, GRAFT_VERSION_MINOR, GRAFT_VERSION_PATCH);
  assert_string_equal(graft_version(), expect);
  assert_string_equal(graft_version(), GRAFT_VERSION_STRING);
  assert_int_equal(graft_version_number(), GRAFT_VERSION_NUMBER);
  assert_int_equal(graft_soversion(), GRAFT_SOVERSION);
  GT_OK(GRAFT_VERSION_CHECK());
  GT_OK(graft_version_check(GRAFT_VERSION_MAJOR * 10000));
  GT_ERR(GRAFT_EPRECONDITION, graft_version_check(GRAFT_VERSION_NUMBER + 1), "headers", GRAFT_VERSION_STRING);
  GT_ERR(GRAFT_EPRECONDITION, graft_version_check((GRAFT_VERSION_MAJOR + 1) * 10000), "headers");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_names),
      cmocka_unit_test(test_message_names_the_function),
      cmocka_unit_test(test_success_keeps_last_error),
      cmocka_unit_test(test_message_is_thread_local),
      cmocka_unit_test(test_version),
  };
  return cmocka_run_group_tests_name("error", tests, NULL, NULL);
}
