/*
 * libFuzzer target for the `graft` tool's literal parser (tools/graft/literal.c), which reads
 * every `--feed NAME=VALUE`: the first byte of an input picks the default dtype (the fed
 * tensor's, or none), the rest is the text (up to its first NUL byte). A literal that parses
 * must give a tensor of the default dtype when it has no ":DTYPE" suffix; one that does not
 * must say why.
 */
#include "fuzz_common.h"
#include "literal.h"

static const graft_dtype kDefaults[] = {
    GRAFT_DTYPE_INVALID, GRAFT_FLOAT32, GRAFT_FLOAT64, GRAFT_INT32,   GRAFT_INT64,    GRAFT_UINT8,
    GRAFT_UINT64,        GRAFT_BOOL,    GRAFT_STRING,  GRAFT_FLOAT16, GRAFT_BFLOAT16, GRAFT_COMPLEX64,
    GRAFT_COMPLEX128,    GRAFT_INT8,    GRAFT_UINT16,  GRAFT_UINT32,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_set_limits();
  if (size == 0) return 0;
  graft_dtype dtype = kDefaults[data[0] % (sizeof kDefaults / sizeof kDefaults[0])];
  char *text = malloc(size);
  if (text == NULL) abort();
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  char err[512] = "";
  graft_tensor *t = NULL;
  if (literal_parse(&t, text, dtype, err, sizeof err) != 0) {
    if (err[0] == '\0') fuzz_bug("literal_parse failed without a message on '%s'", text);
  } else {
    if (t == NULL) fuzz_bug("literal_parse succeeded without a tensor on '%s'", text);
    /* Without a suffix (no ':' outside strings can end the text), the default dtype rules. */
    const char *colon = strrchr(text, ':');
    int has_suffix = colon != NULL && strpbrk(colon, "\"']") == NULL;
    if (dtype != GRAFT_DTYPE_INVALID && !has_suffix && graft_tensor_dtype(t) != dtype) {
      fuzz_bug("literal '%s' with default dtype %s parsed as %s", text, graft_dtype_name(dtype),
               graft_dtype_name(graft_tensor_dtype(t)));
    }
    graft_tensor_free(t);
  }
  free(text);
  graft_error_clear();
  return 0;
}
