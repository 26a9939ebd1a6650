/*
 * Replays fuzz inputs without libFuzzer: runs LLVMFuzzerTestOneInput once on every file named
 * on the command line and on every file in the directories named there (not recursively, in
 * name order; names starting with '.' and README files are skipped). Used by the fuzz.replay
 * test to run the seed corpus and tests/fuzz/regressions/ under gcc and AddressSanitizer.
 * Exits 1 when a path cannot be read or nothing was replayed; a bug aborts in the target.
 *
 * usage: fuzz_replay PATH...
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads a whole file; NULL on error (with a message). *out_len gets its size. */
static uint8_t *read_all(const char *path, size_t *out_len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  while (buf != NULL) {
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap) break;
    uint8_t *bigger = realloc(buf, cap * 2);
    if (bigger == NULL) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = bigger;
    cap *= 2;
  }
  int failed = buf == NULL || ferror(f);
  fclose(f);
  if (failed) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    free(buf);
    return NULL;
  }
  *out_len = len;
  return buf;
}

static int replay_file(const char *path) {
  size_t len = 0;
  uint8_t *data = read_all(path, &len);
  if (data == NULL) return -1;
  fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
  /* Exactly the input's bytes, in a buffer of their size (ASan sees reads past the end). */
  uint8_t *copy = malloc(len ? len : 1);
  if (copy == NULL) {
    free(data);
    return -1;
  }
  memcpy(copy, data, len);
  free(data);
  LLVMFuzzerTestOneInput(copy, len);
  free(copy);
  return 0;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays the regular files of a directory in name order; the number replayed, -1 on error. */
static long replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) {
    fprintf(stderr, "replay: cannot open directory %s: %s\n", dir, strerror(errno));
    return -1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **bigger = realloc(names, cap * sizeof *names);
      if (bigger == NULL) abort();
      names = bigger;
    }
    size_t size = strlen(dir) + strlen(e->d_name) + 2;
    names[n] = malloc(size);
    if (names[n] == NULL) abort();
    snprintf(names[n], size, "%s/%s", dir, e->d_name);
    ++n;
  }
  closedir(d);
  if (n > 0) qsort(names, n, sizeof *names, compare_names);
  long replayed = 0;
  int failed = 0;
  for (size_t i = 0; i < n; ++i) {
    struct stat st;
    if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      if (replay_file(names[i]) != 0) failed = 1;
      ++replayed;
    }
    free(names[i]);
  }
  free(names);
  return failed ? -1 : replayed;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PATH...  (files or directories of fuzz inputs)\n", argv[0]);
    return 2;
  }
  long total = 0;
  int failed = 0;
  /* Absolute paths first: a target may change the working directory (fuzz_common.h). */
  for (int i = 1; i < argc; ++i) {
    char *absolute = realpath(argv[i], NULL);
    if (absolute != NULL) argv[i] = absolute; /* kept until exit */
  }
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
      failed = 1;
    } else if (S_ISDIR(st.st_mode)) {
      long n = replay_dir(argv[i]);
      if (n < 0) {
        failed = 1;
      } else {
        total += n;
      }
    } else if (replay_file(argv[i]) != 0) {
      failed = 1;
    } else {
      ++total;
    }
  }
  fprintf(stderr, "replay: %ld inputs replayed\n", total);
  if (total == 0) {
    fprintf(stderr, "replay: no inputs found\n");
    return 1;
  }
  return failed ? 1 : 0;
}
