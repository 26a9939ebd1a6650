/*
 * libFuzzer target for the `graft` tool's .npy reader (tools/graft/npy.c), which reads every
 * `--feed NAME=FILE.npy`: each input is read as a .npy file. A file that reads is written back
 * (npy_write_stream) and read again, and must give the same dtype, shape and elements (string
 * elements that end in NUL bytes excepted: .npy's fixed-width strings drop them). A file that
 * does not read must say why, naming it.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_common.h"
#include "npy.h"

static void check_same(const graft_tensor *a, const graft_tensor *b) {
  if (graft_tensor_dtype(a) != graft_tensor_dtype(b) || graft_tensor_rank(a) != graft_tensor_rank(b)) {
    fuzz_bug("a .npy file written back reads as another dtype or rank (%d/%d vs %d/%d)", (int)graft_tensor_dtype(a),
             graft_tensor_rank(a), (int)graft_tensor_dtype(b), graft_tensor_rank(b));
  }
  for (int i = 0; i < graft_tensor_rank(a); ++i)
    if (graft_tensor_dim(a, i) != graft_tensor_dim(b, i)) fuzz_bug("a .npy file written back has another shape");
  if (graft_tensor_dtype(a) != GRAFT_STRING) {
    size_t n = graft_tensor_byte_size(a);
    if (n != graft_tensor_byte_size(b) || (n > 0 && memcmp(graft_tensor_data(a), graft_tensor_data(b), n) != 0))
      fuzz_bug("a .npy file written back has other elements");
    return;
  }
  for (int64_t i = 0; i < graft_tensor_num_elements(a); ++i) {
    const char *sa = NULL, *sb = NULL;
    size_t la = 0, lb = 0;
    if (graft_tensor_string(&sa, &la, a, i) != GRAFT_OK || graft_tensor_string(&sb, &lb, b, i) != GRAFT_OK)
      fuzz_bug("graft_tensor_string failed: %s", graft_error_last());
    if (la > 0 && sa[la - 1] == '\0') continue;
    if (la != lb || (la > 0 && memcmp(sa, sb, la) != 0)) fuzz_bug("string element %lld changed when written back", (long long)i);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_set_limits();
  if (size == 0) return 0; /* fmemopen needs a buffer of at least one byte */
  FILE *in = fmemopen((void *)(uintptr_t)data, size, "rb");
  if (in == NULL) fuzz_bug("fmemopen failed: %s", strerror(errno));
  char err[512] = "";
  graft_tensor *t = NULL;
  int rc = npy_read_stream(&t, in, "input.npy", err, sizeof err);
  fclose(in);
  if (rc != 0) {
    if (strstr(err, "input.npy") == NULL) fuzz_bug("a .npy read failed with a message not naming the file: '%s'", err);
    return 0;
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  if (out == NULL) fuzz_bug("open_memstream failed: %s", strerror(errno));
  rc = npy_write_stream(out, "output.npy", t, err, sizeof err);
  fclose(out);
  if (rc == 0) {
    FILE *again = fmemopen(buf, len, "rb");
    if (again == NULL) fuzz_bug("fmemopen failed: %s", strerror(errno));
    graft_tensor *u = NULL;
    if (npy_read_stream(&u, again, "output.npy", err, sizeof err) != 0) fuzz_bug("a .npy file written back does not read: %s", err);
    fclose(again);
    check_same(t, u);
    graft_tensor_free(u);
  } else if (graft_tensor_dtype(t) != GRAFT_BFLOAT16) {
    fuzz_bug("a tensor read from .npy cannot be written back: %s", err);
  }
  free(buf);
  graft_tensor_free(t);
  graft_error_clear();
  return 0;
}
