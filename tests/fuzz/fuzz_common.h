/*
 * What the fuzz targets share (C and C++):
 *   fuzz_bug        report a bug in Graft and abort (what libFuzzer then saves as a crash);
 *   fuzz_files      inputs that hold several files (a SavedModel directory, a checkpoint's
 *                   index and data): records of [name index: 1 byte][length: 4 bytes, little
 *                   endian][bytes], the name index taken modulo the target's list of names, a
 *                   length past the end taking the rest; later records of a name replace
 *                   earlier ones;
 *   fuzz_dir        a private temporary directory (made once per process) that such files are
 *                   written into before each run, and emptied after;
 *   fuzz_limits     the memory cap and run deadline every target runs Graft under, so that a
 *                   graph asking for 8 GB or looping forever is a clean error, not an
 *                   out-of-memory kill or a timeout of the fuzzer;
 *   fuzz_enter_dir  for the targets that run fuzzed graphs: fuzz_dir() becomes the working
 *                   directory, so that a file op reached despite their deny lists writes there,
 *                   not into the build tree (give libFuzzer absolute paths; the replayer makes
 *                   its arguments absolute).
 */
#ifndef GRAFT_FUZZ_COMMON_H
#define GRAFT_FUZZ_COMMON_H

#define FUZZ_MAX_FILES 8

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graft/graft.h"

#ifdef __cplusplus
extern "C" {
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 1, 2)))
#endif
static inline void fuzz_bug(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("fuzz: BUG: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

/* ---- Several files in one input ---------------------------------------------------------- */

typedef struct {
  const uint8_t *data[FUZZ_MAX_FILES]; /* NULL: the file is absent */
  size_t size[FUZZ_MAX_FILES];
} fuzz_files;

static inline void fuzz_files_parse(fuzz_files *out, const uint8_t *data, size_t size, int num_names) {
  memset(out, 0, sizeof *out);
  size_t at = 0;
  while (at + 5 <= size) {
    int which = data[at] % num_names;
    size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8 | (size_t)data[at + 3] << 16 |
                 (size_t)data[at + 4] << 24;
    at += 5;
    if (len > size - at) len = size - at;
    out->data[which] = data + at;
    out->size[which] = len;
    at += len;
  }
}

/* Appends one record to buf (which has room for 5 + len more bytes); returns the new length. */
static inline size_t fuzz_files_put(uint8_t *buf, size_t at, int which, const void *bytes, size_t len) {
  buf[at] = (uint8_t)which;
  buf[at + 1] = (uint8_t)(len & 0xFF);
  buf[at + 2] = (uint8_t)((len >> 8) & 0xFF);
  buf[at + 3] = (uint8_t)((len >> 16) & 0xFF);
  buf[at + 4] = (uint8_t)((len >> 24) & 0xFF);
  if (len > 0) memcpy(buf + at + 5, bytes, len);
  return at + 5 + len;
}

/* ---- A private temporary directory ------------------------------------------------------- */

/* The directory (made on the first call, under $TMPDIR or /tmp); aborts when it cannot be. */
static inline const char *fuzz_dir(void) {
  static char dir[512];
  if (dir[0] == '\0') {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/graft-fuzz-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) fuzz_bug("cannot make a temporary directory %s: %s", dir, strerror(errno));
  }
  return dir;
}

/* Writes the present files of `files` under fuzz_dir() by their names (which may hold one
 * level of subdirectory, "variables/variables.index"). */
static inline void fuzz_dir_write(const fuzz_files *files, const char *const *names, int num_names) {
  char path[1024];
  for (int i = 0; i < num_names; ++i) {
    if (files->data[i] == NULL) continue;
    const char *slash = strchr(names[i], '/');
    if (slash != NULL) {
      snprintf(path, sizeof path, "%s/%.*s", fuzz_dir(), (int)(slash - names[i]), names[i]);
      if (mkdir(path, 0700) != 0 && errno != EEXIST) fuzz_bug("cannot make %s: %s", path, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), names[i]);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (files->size[i] > 0 && fwrite(files->data[i], 1, files->size[i], f) != files->size[i]) ||
        fclose(f) != 0) {
      fuzz_bug("cannot write %s: %s", path, strerror(errno));
    }
  }
}

/* Removes the files named (and their subdirectories, once empty). */
static inline void fuzz_dir_clear(const char *const *names, int num_names) {
  char path[1024];
  for (int i = 0; i < num_names; ++i) {
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), names[i]);
    unlink(path);
  }
  for (int i = 0; i < num_names; ++i) {
    const char *slash = strchr(names[i], '/');
    if (slash == NULL) continue;
    snprintf(path, sizeof path, "%s/%.*s", fuzz_dir(), (int)(slash - names[i]), names[i]);
    rmdir(path);
  }
}

/* ---- Small inputs -------------------------------------------------------------------------- */

/* A small tensor of dtype and shape (NULL or an unknown rank: a scalar), unknown dimensions
 * unknown_dim, elements from a fixed pattern of small numbers (strings "", "a", "ab", ...);
 * NULL when it cannot be made or would pass 4096 elements or a dimension of 4096. */
static inline graft_tensor *fuzz_small_tensor(graft_dtype dtype, const graft_shape *shape, int64_t unknown_dim) {
  enum { kMaxElements = 4096, kMaxRank = 8 };
  int64_t dims[kMaxRank];
  int rank = shape != NULL ? graft_shape_rank(shape) : 0;
  if (rank < 0) rank = 0;
  if (rank > kMaxRank) return NULL;
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    int64_t d = -1;
    if (graft_shape_dim(&d, shape, i) != GRAFT_OK) d = -1;
    dims[i] = d < 0 ? unknown_dim : d;
    if (dims[i] > kMaxElements) return NULL;
    count *= dims[i];
    if (count > kMaxElements) return NULL;
  }
  graft_tensor *t = NULL;
  if (dtype == GRAFT_STRING) {
    static const char *const text = "ab";
    const char *strings[kMaxElements];
    size_t lengths[kMaxElements];
    for (int64_t i = 0; i < count; ++i) {
      strings[i] = text;
      lengths[i] = (size_t)(i % 3);
    }
    return graft_tensor_new_strings(&t, dims, rank, strings, lengths, (size_t)count) == GRAFT_OK ? t : NULL;
  }
  if (graft_tensor_new(&t, dtype, dims, rank, NULL, 0) != GRAFT_OK) return NULL;
  uint8_t *bytes = (uint8_t *)graft_tensor_data(t);
  size_t n = graft_tensor_byte_size(t);
  /* Small integers in every byte order: 0x01, 0x03, 0x00, 0x02, ... */
  for (size_t i = 0; bytes != NULL && i < n; ++i) bytes[i] = (uint8_t)((i * 7 + 1) % 5);
  return t;
}

/* ---- Limits ------------------------------------------------------------------------------ */

/* The process-wide memory cap of every target: far below libFuzzer's -rss_limit_mb. */
#define FUZZ_MEMORY_LIMIT_BYTES (512ll << 20)
/* The deadline of every run a target makes, in milliseconds: short, since a fuzzed loop often
 * runs until it (libFuzzer's -timeout, 30 s, is for hangs the deadline does not stop). */
#define FUZZ_RUN_TIMEOUT_MS 250

static inline void fuzz_set_limits(void) {
  static int done;
  if (done) return;
  done = 1;
  if (graft_memory_set_limit(FUZZ_MEMORY_LIMIT_BYTES) != GRAFT_OK) {
    fuzz_bug("graft_memory_set_limit failed: %s", graft_error_last());
  }
}

static inline void fuzz_enter_dir(void) {
  static int done;
  if (done) return;
  done = 1;
  if (chdir(fuzz_dir()) != 0) fuzz_bug("cannot change to %s: %s", fuzz_dir(), strerror(errno));
}

static inline graft_run_options fuzz_run_options(void) {
  graft_run_options o;
  memset(&o, 0, sizeof o);
  o.version = GRAFT_RUN_OPTIONS_VERSION;
  o.timeout_ms = FUZZ_RUN_TIMEOUT_MS;
  return o;
}

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_FUZZ_COMMON_H */
