/* Helpers for using libgraft through dlopen and its function table (graft/api.h, issue #20):
 * shared by tests/c_api/test_dlopen*.c and bench/bench_dlopen.c. These programs do not link
 * libgraft: every Graft call goes through the table of a library loaded at run time. Plain C,
 * no cmocka: each helper returns 0, or -1 with a message in err. */
#ifndef GRAFT_DLOPEN_UTIL_H
#define GRAFT_DLOPEN_UTIL_H

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graft/api.h"

typedef struct dl_graft {
  void *lib;
  const graft_api *api;
} dl_graft;

static inline void dl_fail(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
}

/* dlopens path (RTLD_NOW | RTLD_LOCAL) and gets the table of `version`. */
static inline int dl_graft_open(dl_graft *g, const char *path, uint32_t version, char *err, size_t n) {
  g->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  g->api = NULL;
  if (g->lib == NULL) {
    dl_fail(err, n, "dlopen %s: %s", path, dlerror());
    return -1;
  }
  graft_api_get_fn get = NULL;
  /* dlsym returns void *: the POSIX way to turn it into a function pointer. */
  *(void **)&get = dlsym(g->lib, "graft_api_get");
  if (get == NULL) {
    dl_fail(err, n, "dlsym graft_api_get: %s", dlerror());
    dlclose(g->lib);
    return -1;
  }
  g->api = get(version);
  if (g->api == NULL) {
    dl_fail(err, n, "graft_api_get(%u) returned NULL", (unsigned)version);
    dlclose(g->lib);
    return -1;
  }
  return 0;
}

static inline int dl_graft_close(dl_graft *g, char *err, size_t n) {
  g->api = NULL;
  if (dlclose(g->lib) != 0) {
    dl_fail(err, n, "dlclose: %s", dlerror());
    return -1;
  }
  return 0;
}

/* A field of /proc/self/status in its unit (kB for Vm*, a count for Threads); -1 if missing. */
static inline long dl_proc_status(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  if (f == NULL) return -1;
  char line[256];
  long v = -1;
  size_t len = strlen(field);
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, field, len) == 0 && line[len] == ':') {
      v = strtol(line + len + 1, NULL, 10);
      break;
    }
  }
  fclose(f);
  return v;
}

/* Whether any mapping of this process comes from a file whose path contains name. */
static inline int dl_mapped(const char *name) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (f == NULL) return -1;
  char line[1024];
  int found = 0;
  while (!found && fgets(line, sizeof line, f) != NULL) found = strstr(line, name) != NULL;
  fclose(f);
  return found;
}

#define DL_CHECK(call)                                                                           \
  do {                                                                                           \
    int dl_rc_ = (call);                                                                         \
    if (dl_rc_ != GRAFT_OK) {                                                                    \
      dl_fail(err, n, "%s: %s (%s)", #call, api->status_name(dl_rc_), api->error_last());        \
      goto done;                                                                                 \
    }                                                                                            \
  } while (0)

/* y = x @ w + b through the table: a graph of Placeholder, Const, MatMul and Add in a session. */
static inline int dl_run_graph(const graft_api *api, char *err, size_t n) {
  int rc = -1;
  graft_graph *g = NULL;
  graft_session *s = NULL;
  graft_tensor *wt = NULL, *xt = NULL, *y = NULL;
  graft_op_desc *d = NULL;
  graft_op *x = NULL, *w = NULL, *mm = NULL, *add = NULL;
  const int64_t dims[2] = {2, 2};
  const float xv[4] = {1, 2, 3, 4}, wv[4] = {1, 0, 0, 2};
  DL_CHECK(api->graph_new(&g));
  DL_CHECK(api->op_desc_new(&d, g, "Placeholder", "x"));
  DL_CHECK(api->attrs_set_type(api->op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  DL_CHECK(api->op_desc_finish(&x, d));
  DL_CHECK(api->tensor_new(&wt, GRAFT_FLOAT32, dims, 2, wv, sizeof wv));
  DL_CHECK(api->op_desc_new(&d, g, "Const", "w"));
  DL_CHECK(api->attrs_set_tensor(api->op_desc_attrs(d), "value", wt));
  DL_CHECK(api->attrs_set_type(api->op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  DL_CHECK(api->op_desc_finish(&w, d));
  DL_CHECK(api->op_desc_new(&d, g, "MatMul", "mm"));
  DL_CHECK(api->op_desc_add_input(d, (graft_output){x, 0}));
  DL_CHECK(api->op_desc_add_input(d, (graft_output){w, 0}));
  DL_CHECK(api->op_desc_finish(&mm, d));
  DL_CHECK(api->op_desc_new(&d, g, "Add", "y"));
  DL_CHECK(api->op_desc_add_input(d, (graft_output){mm, 0}));
  DL_CHECK(api->op_desc_add_input(d, (graft_output){x, 0}));
  DL_CHECK(api->op_desc_finish(&add, d));
  DL_CHECK(api->session_new(&s, g, NULL));
  DL_CHECK(api->tensor_new(&xt, GRAFT_FLOAT32, dims, 2, xv, sizeof xv));
  const graft_output feed = {x, 0}, fetch = {add, 0};
  DL_CHECK(api->session_run(&y, s, &feed, &xt, 1, &fetch, 1, NULL, 0));
  const float want[4] = {2, 6, 6, 12}; /* x @ diag(1, 2) + x */
  const float *got = api->tensor_data(y);
  if (api->tensor_num_elements(y) != 4 || memcmp(got, want, sizeof want) != 0) {
    dl_fail(err, n, "x @ w + x: got [%g %g %g %g], want [2 6 6 12]", got[0], got[1], got[2], got[3]);
    goto done;
  }
  rc = 0;
done:
  api->tensor_free(y);
  api->tensor_free(xt);
  api->tensor_free(wt);
  api->session_free(s);
  api->graph_free(g);
  return rc;
}

/* A float32 .npy file's data (version 1 or 2 header, C order); its element count in *count. */
static inline float *dl_read_npy(const char *path, size_t *count) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  unsigned char head[12];
  float *data = NULL;
  if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0) goto out;
  size_t hlen = head[8] | (size_t)head[9] << 8;
  if (head[6] >= 2) {
    if (fread(head + 10, 1, 2, f) != 2) goto out;
    hlen |= (size_t)head[10] << 16 | (size_t)head[11] << 24;
  }
  char *h = malloc(hlen + 1);
  if (h == NULL || fread(h, 1, hlen, f) != hlen) {
    free(h);
    goto out;
  }
  h[hlen] = '\0';
  if (strstr(h, "'<f4'") == NULL || strstr(h, "'fortran_order': False") == NULL) {
    free(h);
    goto out;
  }
  size_t elems = 1;
  const char *p = strchr(strstr(h, "'shape'"), '(');
  for (++p; *p != ')';) {
    char *end;
    long d = strtol(p, &end, 10);
    if (end == p) break;
    elems *= (size_t)d;
    p = end + (*end == ',' ? 1 : 0);
    while (*p == ' ') ++p;
  }
  free(h);
  data = malloc(elems * sizeof(float));
  if (data != NULL && fread(data, sizeof(float), elems, f) != elems) {
    free(data);
    data = NULL;
  }
  *count = elems;
out:
  fclose(f);
  return data;
}

/* The Keras MLP TensorFlow 2.21 exported (../shared/conformance: keras_export_mlp_tf221), run on
 * the case's x.npy and compared with its y.npy (rtol = atol = 1e-4, the case's). Returns 1,
 * with the reason in err, when the conformance files are not there. */
static inline int dl_run_saved_model(const graft_api *api, const char *conformance_dir, char *err, size_t n) {
  char model[512], xpath[512], ypath[512];
  snprintf(model, sizeof model, "%s/savedmodels/keras_export_mlp_tf221", conformance_dir);
  snprintf(xpath, sizeof xpath, "%s/cases/keras_export_mlp_tf221/x.npy", conformance_dir);
  snprintf(ypath, sizeof ypath, "%s/cases/keras_export_mlp_tf221/y.npy", conformance_dir);
  if (access(model, R_OK) != 0 || access(xpath, R_OK) != 0) {
    dl_fail(err, n, "%s not found (no ../shared/conformance)", model);
    return 1;
  }
  int rc = -1;
  size_t nx = 0, ny = 0;
  float *xv = dl_read_npy(xpath, &nx), *yv = dl_read_npy(ypath, &ny);
  graft_saved_model *m = NULL;
  graft_tensor *x = NULL, *y = NULL;
  if (xv == NULL || yv == NULL || nx != 4 * 8 || ny != 4 * 3) {
    dl_fail(err, n, "cannot read %s and y.npy as float32 [4, 8] and [4, 3]", xpath);
    goto done;
  }
  DL_CHECK(api->saved_model_load(&m, model, NULL, 0, NULL));
  const int64_t dims[2] = {4, 8};
  DL_CHECK(api->tensor_new(&x, GRAFT_FLOAT32, dims, 2, xv, nx * sizeof(float)));
  const char *in_key = "features", *out_key = "output_0";
  DL_CHECK(api->saved_model_run(&y, m, "serving_default", &in_key, &x, 1, &out_key, 1));
  if (api->tensor_dtype(y) != GRAFT_FLOAT32 || api->tensor_num_elements(y) != (int64_t)ny) {
    dl_fail(err, n, "output_0 has %lld elements, want %zu", (long long)api->tensor_num_elements(y), ny);
    goto done;
  }
  const float *got = api->tensor_data(y);
  for (size_t i = 0; i < ny; ++i) {
    if (fabsf(got[i] - yv[i]) > 1e-4f + 1e-4f * fabsf(yv[i])) {
      dl_fail(err, n, "output_0[%zu] = %g, TensorFlow's is %g", i, got[i], yv[i]);
      goto done;
    }
  }
  rc = 0;
done:
  api->tensor_free(y);
  api->tensor_free(x);
  api->saved_model_free(m);
  free(xv);
  free(yv);
  return rc;
}

#undef DL_CHECK

#endif /* GRAFT_DLOPEN_UTIL_H */
