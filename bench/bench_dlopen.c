/* libgraft as a plug-in (issue #20): what a host pays to dlopen libgraft, get its function table
 * and run a first graph (and the Keras MLP SavedModel from ../shared/conformance, when there),
 * what dlclose costs, and the memory after 100 load/run/unload cycles. Does not link libgraft.
 *   bench_dlopen [CYCLES]   (GRAFT_LIBRARY, GRAFT_CONFORMANCE_DIR: set by CMake) */
#include <time.h>

#include "dlopen_util.h"

static double ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  int cycles = argc > 1 ? atoi(argv[1]) : 100;
  if (cycles < 2) cycles = 2;
  char err[512];
  double *open_ms = calloc((size_t)cycles, sizeof(double)), *first_ms = calloc((size_t)cycles, sizeof(double));
  double *model_ms = calloc((size_t)cycles, sizeof(double)), *close_ms = calloc((size_t)cycles, sizeof(double));
  const long rss0 = dl_proc_status("VmRSS"), threads0 = dl_proc_status("Threads");
  long rss1 = 0, rss10 = 0, threads1 = 0, rss_loaded = 0;
  int have_model = 1;
  for (int i = 0; i < cycles; ++i) {
    dl_graft g;
    double t0 = ms_now();
    if (dl_graft_open(&g, GRAFT_LIBRARY, GRAFT_API_VERSION, err, sizeof err) != 0) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    double t1 = ms_now();
    if (dl_run_graph(g.api, err, sizeof err) != 0) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    double t2 = ms_now();
    if (have_model) {
      int rc = dl_run_saved_model(g.api, GRAFT_CONFORMANCE_DIR, err, sizeof err);
      if (rc < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
      }
      if (rc == 1) {
        fprintf(stderr, "%s: no SavedModel figures\n", err);
        have_model = 0;
      }
    }
    double t3 = ms_now();
    if (i == 0) rss_loaded = dl_proc_status("VmRSS");
    if (dl_graft_close(&g, err, sizeof err) != 0) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    double t4 = ms_now();
    open_ms[i] = t1 - t0;
    first_ms[i] = t2 - t0;
    model_ms[i] = t3 - t2;
    close_ms[i] = t4 - t3;
    if (i == 0) {
      rss1 = dl_proc_status("VmRSS");
      threads1 = dl_proc_status("Threads");
    }
    if (i == 9) rss10 = dl_proc_status("VmRSS");
  }
  const long rssN = dl_proc_status("VmRSS"), threadsN = dl_proc_status("Threads");
  printf("libgraft through dlopen (%s), %d cycles of dlopen, graft_api_get, run, dlclose\n\n", GRAFT_LIBRARY, cycles);
  printf("%-48s %10s %10s\n", "", "first", "median");
  printf("%-48s %10.2f %10.2f ms\n", "dlopen + graft_api_get", open_ms[0], median(open_ms + 1, cycles - 1));
  printf("%-48s %10.2f %10.2f ms\n", "dlopen + first result (x @ w + x, new session)", first_ms[0],
         median(first_ms + 1, cycles - 1));
  if (have_model) {
    printf("%-48s %10.2f %10.2f ms\n", "+ load and run the Keras MLP SavedModel", model_ms[0],
           median(model_ms + 1, cycles - 1));
  }
  printf("%-48s %10.2f %10.2f ms\n", "dlclose", close_ms[0], median(close_ms + 1, cycles - 1));
  printf("\n%-48s %10s %10s\n", "", "VmRSS kB", "threads");
  printf("%-48s %10ld %10ld\n", "before the first dlopen", rss0, threads0);
  printf("%-48s %10ld %10s\n", "cycle 1, loaded (after the runs)", rss_loaded, "");
  printf("%-48s %10ld %10ld\n", "after cycle 1's dlclose", rss1, threads1);
  printf("%-48s %10ld %10s\n", "after cycle 10", rss10, "");
  printf("%-48s %10ld %10ld\n", "after the last cycle", rssN, threadsN);
  printf("%-48s %10.1f %10s\n", "growth a cycle, cycle 10 to the last (kB)", (double)(rssN - rss10) / (cycles - 10 > 0 ? cycles - 10 : 1), "");
  free(open_ms);
  free(first_ms);
  free(model_ms);
  free(close_ms);
  return 0;
}
