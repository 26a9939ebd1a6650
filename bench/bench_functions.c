/*
 * bench_functions: large function libraries, against baselines measured in the same run.
 * Import of a GraphDef with 100k unused functions against parsing the same bytes with
 * protobuf-c; the first run of its call (prepare + run) against the same call with no unused
 * functions; 60 nested calls among 20k unused functions (import + first run) against the same
 * chain alone; a 10k-deep call chain (import + the run that fails "nested too deeply")
 * against parsing its bytes. Each figure is the fastest of `rounds` (argv[1], default 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <graft/graft.h>

#include "bench_util.h"

#include "graph_def_writer.h"
#include "proto/graph.pb-c.h"

struct timing {
  double parse_ms;   /* protobuf-c unpack of the bytes */
  double import_ms;  /* graft_graph_import_graph_def */
  double run_ms;     /* graft_session_new + the first graft_session_run */
};

/* Times one GraphDef: parse, import, first run. expect_ok: the run must succeed and return
 * want; otherwise it must fail with a message containing want_error. */
static struct timing time_graph_def(const gw_buf *gd, int rounds, int expect_ok, float want, const char *want_error) {
  struct timing best = {1e300, 1e300, 1e300};
  for (int r = 0; r < rounds; ++r) {
    double t0 = now_ms();
    Graftpb__GraphDef *parsed = graftpb__graph_def__unpack(NULL, gd->len, gd->data);
    double t1 = now_ms();
    if (parsed == NULL) {
      fprintf(stderr, "the generated GraphDef does not parse\n");
      exit(1);
    }
    graftpb__graph_def__free_unpacked(parsed, NULL);

    graft_graph *g = NULL;
    CHECK(graft_graph_new(&g));
    graft_import_options *opts = NULL;
    CHECK(graft_import_options_new(&opts));
    CHECK(graft_import_options_set_prefix(opts, ""));
    double t2 = now_ms();
    CHECK(graft_graph_import_graph_def(NULL, g, gd->data, gd->len, opts));
    double t3 = now_ms();
    graft_import_options_free(opts);
    graft_op *call = NULL;
    CHECK(graft_graph_op_by_name(&call, g, "call"));
    graft_session *s = NULL;
    double t4 = now_ms();
    CHECK(graft_session_new(&s, g, NULL));
    graft_output fetch = {call, 0};
    graft_tensor *out = NULL;
    int rc = graft_session_run(&out, s, NULL, NULL, 0, &fetch, 1, NULL, 0);
    double t5 = now_ms();
    if (expect_ok) {
      if (rc != GRAFT_OK) {
        fprintf(stderr, "run failed: %s\n", graft_error_last());
        exit(1);
      }
      float got = *(const float *)graft_tensor_data(out);
      if (got != want) {
        fprintf(stderr, "run returned %g, want %g\n", got, want);
        exit(1);
      }
      graft_tensor_free(out);
    } else if (rc == GRAFT_OK || strstr(graft_error_last(), want_error) == NULL) {
      fprintf(stderr, "run should fail with '%s': %s\n", want_error, rc == GRAFT_OK ? "it succeeded" : graft_error_last());
      exit(1);
    }
    graft_session_free(s);
    graft_graph_free(g);
    if (t1 - t0 < best.parse_ms) best.parse_ms = t1 - t0;
    if (t3 - t2 < best.import_ms) best.import_ms = t3 - t2;
    if (t5 - t4 < best.run_ms) best.run_ms = t5 - t4;
  }
  return best;
}

static void row(const char *label, double graft_ms, double base_ms) {
  printf("%-52s %12.2f %14.2f %10.1f\n", label, graft_ms, base_ms, graft_ms / base_ms);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  if (rounds < 1) rounds = 1;
  printf("%-52s %12s %14s %10s\n", "case (ms)", "graft", "baseline", "ratio");

  /* 100k unused functions and one call of a leaf function. */
  gw_buf big = gw_chain_graph_def(0, 100000, 1.5f);
  gw_buf small = gw_chain_graph_def(0, 0, 1.5f);
  struct timing tb = time_graph_def(&big, rounds, 1, 3.0f, NULL);
  struct timing ts = time_graph_def(&small, rounds, 1, 3.0f, NULL);
  char label[96];
  snprintf(label, sizeof label, "import, 100k unused functions (%.1f MB) vs parse", big.len / 1e6);
  row(label, tb.import_ms, tb.parse_ms);
  row("  first run of its call vs no unused functions", tb.run_ms, ts.run_ms);
  row("  import + first run vs parse", tb.import_ms + tb.run_ms, tb.parse_ms);
  gw_free(&big);
  gw_free(&small);

  /* 60 nested calls among 20k unused functions. */
  gw_buf nested = gw_chain_graph_def(60, 20000, 1.5f);
  gw_buf alone = gw_chain_graph_def(60, 0, 1.5f);
  struct timing tn = time_graph_def(&nested, rounds, 1, 62 * 1.5f, NULL);
  struct timing ta = time_graph_def(&alone, rounds, 1, 62 * 1.5f, NULL);
  row("60 nested calls, 20k unused: import + first run", tn.import_ms + tn.run_ms, ta.import_ms + ta.run_ms);
  printf("%-52s %12s %14s\n", "", "", "(chain alone)");
  gw_free(&nested);
  gw_free(&alone);

  /* A 10k-deep chain: the run fails at the nesting limit. */
  gw_buf deep = gw_chain_graph_def(10000, 0, 1.5f);
  struct timing td = time_graph_def(&deep, rounds, 0, 0, "nested too deeply");
  row("10k-deep chain: import + run to its error vs parse", td.import_ms + td.run_ms, td.parse_ms);
  gw_free(&deep);
  return 0;
}
