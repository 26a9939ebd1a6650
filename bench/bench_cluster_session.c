/* A cluster session's run across 2 processes (issue #24) against plain MPI: rank 0 feeds x,
 * /job:worker/task:1 computes x + 1, rank 0 fetches it — one tensor there and back per run —
 * beside an MPI_Send/MPI_Recv ping-pong of the same bytes, and a local session running the
 * same op (what the round trip adds to). Run under mpirun:
 *   mpirun -np 2 build/bench/bench_cluster_session
 * Rank 0 prints the table (medians of 9 rounds). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static graft_op *build(graft_graph *g, const char *device, graft_op **x) {
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Placeholder", "x"));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_op_desc_finish(x, d));
  float one_v = 1;
  graft_tensor *t = NULL;
  CHECK(graft_tensor_new(&t, GRAFT_FLOAT32, NULL, 0, &one_v, sizeof one_v));
  graft_op *one = NULL;
  CHECK(graft_op_desc_new(&d, g, "Const", "one"));
  CHECK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_op_desc_finish(&one, d));
  graft_tensor_free(t);
  graft_op *y = NULL;
  CHECK(graft_op_desc_new(&d, g, "AddV2", "y"));
  CHECK(graft_op_desc_add_input(d, (graft_output){*x, 0}));
  CHECK(graft_op_desc_add_input(d, (graft_output){one, 0}));
  if (device != NULL) CHECK(graft_op_desc_set_device(d, device));
  CHECK(graft_op_desc_finish(&y, d));
  return y;
}

static double time_runs(graft_session *s, graft_op *x, graft_op *y, graft_tensor *feed, int reps) {
  double v[9];
  graft_output fx = {x, 0}, fy = {y, 0};
  for (int round = 0; round < 9; ++round) {
    double t0 = now_ns();
    for (int i = 0; i < reps; ++i) {
      graft_tensor *out = NULL;
      CHECK(graft_session_run(&out, s, &fx, &feed, 1, &fy, 1, NULL, 0));
      graft_tensor_free(out);
    }
    v[round] = (now_ns() - t0) / reps / 1e3;
  }
  qsort(v, 9, sizeof *v, cmp_double);
  return v[4];
}

static double time_pingpong(int rank, void *buf, int bytes, int reps) {
  double v[9];
  for (int round = 0; round < 9; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_ns();
    for (int i = 0; i < reps; ++i) {
      if (rank == 0) {
        MPI_Send(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
        MPI_Recv(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
      }
    }
    v[round] = (now_ns() - t0) / reps / 1e3;
  }
  qsort(v, 9, sizeof *v, cmp_double);
  return v[4];
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "bench_cluster_session: run it with mpirun -np 2\n");
    MPI_Finalize();
    return 1;
  }
  graft_graph *g = NULL, *lg = NULL;
  CHECK(graft_graph_new(&g));
  CHECK(graft_graph_new(&lg));
  graft_op *x = NULL, *lx = NULL;
  graft_op *y = build(g, "/job:worker/task:1", &x);
  graft_op *ly = build(lg, NULL, &lx);
  graft_session_options opts = GRAFT_SESSION_OPTIONS_INIT;
  opts.cluster = "worker:2";
  graft_session *s = NULL;
  CHECK(graft_session_new(&s, g, &opts));
  if (rank == 1) {
    CHECK(graft_session_serve(s));
  } else {
    graft_session *local = NULL;
    CHECK(graft_session_new(&local, lg, NULL));
    printf("a cluster session's run across 2 processes (x fed on rank 0, x + 1 on /job:worker/task:1, fetched)\n\n");
    printf("| floats | local session us | cluster session us | MPI ping-pong us | cluster - local - ping-pong us |\n");
    printf("| ---: | ---: | ---: | ---: | ---: |\n");
  }
  const int64_t sizes[] = {1, 1024, 1 << 20};
  for (size_t k = 0; k < 3; ++k) {
    const int64_t n = sizes[k];
    float *data = calloc((size_t)n, sizeof(float));
    double cluster = 0, local_us = 0;
    if (rank == 0) {
      graft_tensor *feed = NULL;
      CHECK(graft_tensor_new(&feed, GRAFT_FLOAT32, &n, 1, data, sizeof(float) * (size_t)n));
      const int reps = n >= (1 << 20) ? 10 : 300;
      graft_session *local = NULL;
      CHECK(graft_session_new(&local, lg, NULL));
      local_us = time_runs(local, lx, ly, feed, reps);
      graft_session_free(local);
      cluster = time_runs(s, x, y, feed, reps);
      graft_tensor_free(feed);
    }
    /* The ping-pong needs both ranks, and rank 1 is serving: measured after the session. */
    (void)cluster;
    free(data);
    if (rank == 0) {
      static double saved_cluster[3], saved_local[3];
      saved_cluster[k] = cluster;
      saved_local[k] = local_us;
      if (k == 2) {
        graft_session_free(s); /* rank 1's serve returns */
        s = NULL;
        for (size_t j = 0; j < 3; ++j) {
          float *buf = calloc((size_t)sizes[j], sizeof(float));
          double pp = time_pingpong(0, buf, (int)(sizes[j] * 4), sizes[j] >= (1 << 20) ? 10 : 300);
          free(buf);
          printf("| %lld | %.1f | %.1f | %.1f | %.1f |\n", (long long)sizes[j], saved_local[j], saved_cluster[j], pp,
                 saved_cluster[j] - saved_local[j] - pp);
        }
      }
    }
  }
  if (rank == 1) {
    for (size_t j = 0; j < 3; ++j) {
      float *buf = calloc((size_t)sizes[j], sizeof(float));
      (void)time_pingpong(1, buf, (int)(sizes[j] * 4), sizes[j] >= (1 << 20) ? 10 : 300);
      free(buf);
    }
  }
  if (s != NULL) graft_session_free(s);
  graft_graph_free(g);
  graft_graph_free(lg);
  CHECK(graft_distributed_finalize());
  MPI_Finalize();
  return 0;
}
