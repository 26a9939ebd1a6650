/*
 * graft/distributed.h: the job of processes that the collective ops run across.
 *
 * Graft's collective ops (CollectiveReduceV2, CollectiveGatherV2, CollectiveBcastSendV2 and
 * CollectiveBcastRecvV2, TensorFlow's V2 collectives) exchange tensors between the processes of
 * an MPI job: start the program with mpirun (or srun) and every process is one rank. Graft
 * reaches MPI through its MPI module, libgraft_mpi.so.N, installed beside libgraft when Graft
 * was built with MPI (Open MPI: libopenmpi-dev); it is loaded the first time a collective op or
 * one of these functions needs it ($GRAFT_MPI_MODULE names another file), so a program that
 * uses neither never loads MPI. Without the module these functions fail with
 * GRAFT_EUNIMPLEMENTED, saying so.
 *
 * Graft initialises MPI (MPI_THREAD_MULTIPLE) unless the host already did, and then finalizes
 * it in graft_distributed_finalize(); Graft's messages travel on its own duplicate of
 * MPI_COMM_WORLD, so they never mix with the host's. A collective op's group_size must be the
 * job's size (every rank takes part), and its instance_key (0 to the MPI's largest tag) names
 * the messages: ranks may run different instances in different orders, but one instance must
 * not run twice at once. A collective waits at most its timeout_seconds attr, or
 * $GRAFT_COLLECTIVE_TIMEOUT seconds, or 300 s, and stops with its run when the run is
 * cancelled or passes its deadline. Once a collective fails (a timeout, ranks with different
 * shapes or dtypes), the messages of its instance may still be in flight, so every later
 * collective of the process fails with that first error, as TensorFlow's collective executor
 * does after an abort.
 *
 * Thread safety: every function here may be called from any thread; graft_distributed_finalize
 * must not run while a collective does.
 */
#ifndef GRAFT_DISTRIBUTED_H
#define GRAFT_DISTRIBUTED_H

#include "graft/common.h"

GRAFT_BEGIN_DECL

/* Joins the MPI job this process was started in (a process started without mpirun is a job
 * of one). Idempotent. GRAFT_EUNIMPLEMENTED when Graft's MPI module is missing;
 * GRAFT_EPRECONDITION after graft_distributed_finalize. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_distributed_init(void);

/* This process's rank (0 .. size-1) and the job's size, joining the job first if needed. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_distributed_rank(int *out_rank);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_distributed_size(int *out_size);

/* Returns when every rank of the job has called it. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_distributed_barrier(void);

/* Leaves the job: finalizes MPI when Graft initialised it (call it before the process exits:
 * mpirun reports a rank that exits without doing so). Later collectives fail. A no-op when the
 * job was never joined. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_distributed_finalize(void);

GRAFT_END_DECL

#endif /* GRAFT_DISTRIBUTED_H */
