// ParallelFor: one kernel's loop split over the process's intra-op threads (TensorFlow's
// intra_op_parallelism), for the work a kernel does itself (a convolution's transforms, say);
// BLAS calls bring their own threads. The pool is made on first use, with one worker fewer
// than the machine has hardware threads (the caller is the other), or GRAFT_INTRA_OP_THREADS - 1.
#pragma once

#include <cstdint>
#include <functional>

namespace graft {

// Calls fn(begin, end) over disjoint ranges covering [0, n), each of at least `grain` items
// (the last may be shorter), and returns when every call has returned. The calling thread
// takes ranges too, and waits only for ranges a worker has already started, so a call from
// inside a pool thread, or while every worker is busy, cannot deadlock. Thread-safe; fn must
// not throw.
void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t begin, int64_t end)>& fn);

// The threads ParallelFor may use, the caller included (at least 1).
int IntraOpThreads();

}  // namespace graft
