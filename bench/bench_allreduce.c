/* The all-reduce of the collective ops (CollectiveReduceV2 through a session) against a plain
 * MPI_Allreduce of the same float32 bytes, 1 MiB to 64 MiB, run under mpirun:
 *   mpirun -np 2 build/bench/bench_allreduce
 * Rank 0 prints the table: the median time per all-reduce of each, and the bus bandwidth
 * (2 (p-1)/p x bytes / time, NCCL's measure: what each rank's link carries). The two are
 * alternated round by round so that both see the same machine. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

static graft_op *key(graft_graph *g, int32_t v) {
  graft_tensor *t = NULL;
  CHECK(graft_tensor_new(&t, GRAFT_INT32, NULL, 0, &v, sizeof v));
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Const", NULL));
  CHECK(graft_attrs_set_tensor(graft_op_desc_attrs(d), "value", t));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_INT32));
  graft_tensor_free(t);
  graft_op *op = NULL;
  CHECK(graft_op_desc_finish(&op, d));
  return op;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0, size = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(graft_distributed_init());

  graft_graph *g = NULL;
  CHECK(graft_graph_new(&g));
  graft_op *x = NULL;
  graft_op_desc *d = NULL;
  CHECK(graft_op_desc_new(&d, g, "Placeholder", "x"));
  CHECK(graft_attrs_set_type(graft_op_desc_attrs(d), "dtype", GRAFT_FLOAT32));
  CHECK(graft_op_desc_finish(&x, d));
  CHECK(graft_op_desc_new(&d, g, "CollectiveReduceV2", "allreduce"));
  CHECK(graft_op_desc_add_input(d, (graft_output){x, 0}));
  CHECK(graft_op_desc_add_input(d, (graft_output){key(g, size), 0}));
  CHECK(graft_op_desc_add_input(d, (graft_output){key(g, 1), 0}));
  CHECK(graft_op_desc_add_input(d, (graft_output){key(g, 1), 0}));
  CHECK(graft_op_desc_add_input_list(d, NULL, 0));
  CHECK(graft_attrs_set_string(graft_op_desc_attrs(d), "merge_op", "Add", 3));
  CHECK(graft_attrs_set_string(graft_op_desc_attrs(d), "final_op", "Id", 2));
  graft_op *reduce = NULL;
  CHECK(graft_op_desc_finish(&reduce, d));
  graft_session *s = NULL;
  CHECK(graft_session_new(&s, g, NULL));

  if (rank == 0) {
    printf("all-reduce of float32 (sum) over %d ranks: Graft's CollectiveReduceV2 (session run) vs MPI_Allreduce\n\n",
           size);
    printf("| bytes | MPI_Allreduce ms | Graft ms | MPI bus GB/s | Graft bus GB/s | ratio (MPI time / Graft time) |\n");
    printf("| ---: | ---: | ---: | ---: | ---: | ---: |\n");
  }
  for (size_t bytes = 1 << 20; bytes <= (size_t)64 << 20; bytes *= 4) {
    const int64_t n = (int64_t)(bytes / sizeof(float));
    float *in = malloc(bytes), *out = malloc(bytes);
    for (int64_t i = 0; i < n; ++i) in[i] = (float)(i % 7 + rank);
    graft_tensor *feed = NULL;
    CHECK(graft_tensor_new(&feed, GRAFT_FLOAT32, &n, 1, in, bytes));
    const int rounds = bytes <= (4u << 20) ? 40 : bytes <= (16u << 20) ? 16 : 8;
    double t_mpi[64], t_graft[64];
    graft_output feed_at = {x, 0}, fetch = {reduce, 0};
    for (int r = -2; r < rounds; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = now_ns();
      MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double t1 = now_ns();
      MPI_Barrier(MPI_COMM_WORLD);
      graft_tensor *result = NULL;
      double t2 = now_ns();
      CHECK(graft_session_run(&result, s, &feed_at, &feed, 1, &fetch, 1, NULL, 0));
      double t3 = now_ns();
      if (r == -2) {  /* both give the same sums */
        const float *got = graft_tensor_data(result);
        for (int64_t i = 0; i < n; i += 4099) {
          if (got[i] != out[i]) {
            fprintf(stderr, "rank %d: element %lld is %g, MPI says %g\n", rank, (long long)i, got[i], out[i]);
            return 1;
          }
        }
      }
      graft_tensor_free(result);
      if (r >= 0) {
        t_mpi[r] = (t1 - t0) / 1e6;
        t_graft[r] = (t3 - t2) / 1e6;
      }
    }
    double m = median(t_mpi, rounds), gr = median(t_graft, rounds);
    double bus = 2.0 * (size - 1) / size * (double)bytes;
    if (rank == 0) {
      printf("| %zu MiB | %.3f | %.3f | %.2f | %.2f | %.2f |\n", bytes >> 20, m, gr, bus / m / 1e6, bus / gr / 1e6,
             m / gr);
    }
    graft_tensor_free(feed);
    free(in);
    free(out);
  }
  graft_session_free(s);
  graft_graph_free(g);
  CHECK(graft_distributed_finalize());
  MPI_Finalize();
  return 0;
}
