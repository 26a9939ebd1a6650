/* libgraft as a plug-in (issue #20): a host that does not link libgraft dlopens libgraft.so.N
 * with RTLD_LOCAL, takes the function table (graft_api_get) and runs a graph and a SavedModel
 * written by TensorFlow through it, dlcloses it, and does so 100 times: libgraft must really
 * unload (no mapping of it left), and threads and memory must not grow across the cycles.
 * This program does not link libgraft (GRAFT_LIBRARY is its path in the build). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dlopen_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define GT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GT_ASAN 1
#endif
#endif

/* kRssSlackKb: VmRSS may grow by at most this much from the end of cycle kWarmup to the end of
 * the last (see test_load_run_unload_cycles). */
enum { kCycles = 100, kWarmup = 10, kRssSlackKb = 4096 };

static void test_table(void **state) {
  (void)state;
  char err[512];
  dl_graft g;
  if (dl_graft_open(&g, GRAFT_LIBRARY, GRAFT_API_VERSION, err, sizeof err) != 0) fail_msg("%s", err);
  const graft_api *api = g.api;
  assert_string_equal(api->version(), GRAFT_VERSION_STRING);
  assert_int_equal(api->soversion(), GRAFT_SOVERSION);
  assert_int_equal(api->version_check(GRAFT_VERSION_NUMBER), GRAFT_OK);
  /* Every member is set: the table is an array of function pointers. */
  typedef void (*any_fn)(void);
  const size_t members = sizeof(graft_api) / sizeof(any_fn);
  assert_true(members >= 366);
  for (size_t i = 0; i < members; ++i) {
    any_fn f;
    memcpy(&f, (const char *)api + i * sizeof(any_fn), sizeof f);
    if (f == NULL) fail_msg("member %zu of graft_api is NULL", i);
  }
  /* Each version up to the library's gives the same table; a newer one (or 0) gives NULL and
   * a message naming the versions there are. */
  graft_api_get_fn get = NULL;
  *(void **)&get = dlsym(g.lib, "graft_api_get");
  assert_non_null(get);
  for (uint32_t v = 1; v <= GRAFT_API_VERSION; ++v) assert_ptr_equal(get(v), api);
  api->error_clear();
  assert_null(get(GRAFT_API_VERSION + 1));
  assert_int_equal(api->error_last_code(), GRAFT_EUNIMPLEMENTED);
  char want[128];
  snprintf(want, sizeof want, "version %u is not in this libgraft", (unsigned)GRAFT_API_VERSION + 1);
  if (strstr(api->error_last(), want) == NULL || strstr(api->error_last(), "versions 1 to") == NULL) {
    fail_msg("message '%s'", api->error_last());
  }
  assert_null(get(0));
  assert_null(get(UINT32_MAX));
  if (dl_graft_close(&g, err, sizeof err) != 0) fail_msg("%s", err);
}

static void test_load_run_unload_cycles(void **state) {
  (void)state;
  char err[512];
  const long threads0 = dl_proc_status("Threads");
  assert_true(threads0 >= 1);
  assert_int_equal(dl_mapped("libgraft"), 0);
  long rss[kCycles], threads1 = -1;
  int saved_model = 1;
  for (int i = 0; i < kCycles; ++i) {
    dl_graft g;
    if (dl_graft_open(&g, GRAFT_LIBRARY, GRAFT_API_VERSION, err, sizeof err) != 0) fail_msg("cycle %d: %s", i, err);
    if (dl_run_graph(g.api, err, sizeof err) != 0) fail_msg("cycle %d: %s", i, err);
    if (saved_model) {
      int rc = dl_run_saved_model(g.api, GRAFT_CONFORMANCE_DIR, err, sizeof err);
      if (rc == 1) {
        print_message("%s: the SavedModel part is skipped\n", err);
        saved_model = 0;
      } else if (rc != 0) {
        fail_msg("cycle %d: %s", i, err);
      }
    }
    if (dl_graft_close(&g, err, sizeof err) != 0) fail_msg("cycle %d: %s", i, err);
    /* Unloaded: nothing of libgraft is mapped, and the threads are those after the first cycle. */
    if (dl_mapped("libgraft") != 0) fail_msg("cycle %d: libgraft is still mapped after dlclose", i);
    const long threads = dl_proc_status("Threads");
    if (i == 0) threads1 = threads;
    if (threads != threads1) fail_msg("cycle %d: %ld threads after dlclose, %ld after the first", i, threads, threads1);
    rss[i] = dl_proc_status("VmRSS");
  }
  print_message("VmRSS after cycle 1: %ld kB, %d: %ld kB, %d: %ld kB; threads %ld before, %ld after\n", rss[0],
                kWarmup, rss[kWarmup - 1], kCycles, rss[kCycles - 1], threads0, threads1);
  /* Graft's own threads (session pools) and OpenBLAS's are gone with it. The runs are CPU
   * graphs, and devices other than the CPU are looked for only when asked for, so no OpenCL
   * driver (whose platform the ICD loader would never unload, with its threads) was loaded. */
  if (threads1 != threads0) fail_msg("%ld threads after dlclose, %ld before the first dlopen", threads1, threads0);
  /* Memory: the first cycles grow the C library's heap and the loader's caches once (libgraft
   * itself is unmapped each time); after that a cycle must give back what it took. A leak of
   * anything a cycle makes — the kernel registry (several MB), the SavedModel's graph and
   * variables (hundreds of kB), a thread's stack (8 MB of address space, touched in part), or
   * libgraft staying mapped (23 MB) — would add at least ~40 kB a cycle, 3.6 MB over 90
   * cycles; 4 MB of slack leaves room for heap fragmentation without hiding such a leak.
   * Under ASan freed memory sits in the quarantine (up to 256 MB) and RSS says nothing: LSan
   * checks the leaks there instead. */
#ifdef GT_ASAN
  print_message("ASan build: the VmRSS bound is not checked (LSan checks leaks at exit)\n");
#else
  const long growth = rss[kCycles - 1] - rss[kWarmup - 1];
  if (growth > kRssSlackKb) {
    fail_msg("VmRSS grew by %ld kB from cycle %d to cycle %d (bound %d kB)", growth, kWarmup, kCycles, kRssSlackKb);
  }
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table),
      cmocka_unit_test(test_load_run_unload_cycles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
