/* libgraft dlopened into a process that has already loaded OpenBLAS and protobuf-c on its own,
 * with RTLD_LOCAL (issue #20): as a host that uses them itself would. libgraft must load beside
 * them, run a graph and a SavedModel (protobuf-c parses it, OpenBLAS multiplies) through its
 * function table, hand out version 1 and refuse a newer version with a message, and unload
 * leaving the host's copies working. This program does not link libgraft, OpenBLAS or
 * protobuf-c.
 *
 * Note: glibc keeps one copy of a library per SONAME in a namespace, so libgraft's
 * libopenblas.so.0 and libprotobuf-c.so.1 resolve to the objects loaded here (RTLD_LOCAL hides
 * their symbols from later lookups in the global scope, not from libgraft's own dependency
 * lookup). What this checks is that libgraft needs nothing from the global scope: neither the
 * host's RTLD_LOCAL copies being invisible there, nor the order of loading, breaks it. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dlopen_util.h"

typedef struct host_libs {
  void *openblas, *protobuf_c;
  int (*openblas_get_num_threads)(void);
  float (*cblas_sdot)(int n, const float *x, int incx, const float *y, int incy);
  const char *(*protobuf_c_version)(void);
} host_libs;

static void *open_local(const char *name) {
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) fail_msg("dlopen %s: %s", name, dlerror());
  return h;
}

static void host_open(host_libs *h) {
  h->openblas = open_local("libopenblas.so.0");
  h->protobuf_c = open_local("libprotobuf-c.so.1");
  *(void **)&h->openblas_get_num_threads = dlsym(h->openblas, "openblas_get_num_threads");
  *(void **)&h->cblas_sdot = dlsym(h->openblas, "cblas_sdot");
  *(void **)&h->protobuf_c_version = dlsym(h->protobuf_c, "protobuf_c_version");
  assert_non_null(h->openblas_get_num_threads);
  assert_non_null(h->cblas_sdot);
  assert_non_null(h->protobuf_c_version);
  /* RTLD_LOCAL: not visible through the global scope. */
  assert_null(dlsym(RTLD_DEFAULT, "protobuf_c_version"));
}

/* The host's own copies work. */
static void host_use(const host_libs *h) {
  const float x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
  assert_float_equal(h->cblas_sdot(3, x, 1, y, 1), 32.0f, 0.0f);
  assert_true(h->openblas_get_num_threads() >= 1);
  assert_non_null(h->protobuf_c_version());
}

static void test_graft_beside_host_copies(void **state) {
  (void)state;
  host_libs host;
  host_open(&host);
  host_use(&host);
  char err[512];
  for (int round = 0; round < 3; ++round) {
    dl_graft g;
    if (dl_graft_open(&g, GRAFT_LIBRARY, 1, err, sizeof err) != 0) fail_msg("%s", err);
    const graft_api *api = g.api;
    /* Version 1 is there; a newer version than the library's is NULL with a message. */
    graft_api_get_fn get = NULL;
    *(void **)&get = dlsym(g.lib, "graft_api_get");
    assert_ptr_equal(get(1), api);
    assert_ptr_equal(get(GRAFT_API_VERSION), api);
    assert_null(get(GRAFT_API_VERSION + 1));
    assert_int_equal(api->error_last_code(), GRAFT_EUNIMPLEMENTED);
    assert_non_null(strstr(api->error_last(), "which has versions 1 to"));
    if (dl_run_graph(api, err, sizeof err) != 0) fail_msg("%s", err);
    int rc = dl_run_saved_model(api, GRAFT_CONFORMANCE_DIR, err, sizeof err);
    if (rc == 1 && round == 0) print_message("%s: the SavedModel part is skipped\n", err);
    if (rc < 0) fail_msg("%s", err);
    host_use(&host);
    if (dl_graft_close(&g, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(dl_mapped("libgraft"), 0);
    host_use(&host);
  }
  assert_int_equal(dlclose(host.protobuf_c), 0);
  assert_int_equal(dlclose(host.openblas), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_graft_beside_host_copies),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
