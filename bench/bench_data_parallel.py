"""Data-parallel training step time over MPI (graft.distribute, issue #24): the MLP
784-512-512-10 with Adam at a global batch of 64 (and 256), on 1 rank and on 2 ranks (each
taking half the batch, with a DistributedGradientTape averaging the gradients), launched with
mpirun. Prints a table: ms per step and the speed-up of 2 ranks over 1.

    python3 bench/bench_data_parallel.py            # runs mpirun -np 1 and -np 2 itself

(With PYTHONPATH at the build's bindings/python/site.) On this 2-core machine one rank uses
both cores in its matrix products (OpenBLAS threads) while two ranks use one each, so the
speed-up measures what the all-reduce and the split batch cost against a single process."""
import os
import subprocess
import sys
import time

SIZES = (784, 512, 512, 10)


def worker(global_batch, steps):
    import numpy as np
    import graft
    dist = graft.distribute
    rank, size = dist.rank(), dist.size()
    rng = np.random.default_rng(0)
    params = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        params.append(graft.Variable(rng.normal(0, np.sqrt(2.0 / a), (a, b)).astype(np.float32)))
        params.append(graft.Variable(np.zeros(b, np.float32)))
    opt = graft.optimizers.Adam(learning_rate=1e-3)
    share = global_batch // size
    x = rng.normal(0, 1, (share, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], share).astype(np.int32)

    @graft.function
    def step(x, y):
        with dist.DistributedGradientTape(graft.GradientTape()) as tape:
            h = x
            for i in range(0, len(params), 2):
                h = graft.matmul(h, params[i]) + params[i + 1]
                if i + 2 < len(params):
                    h = graft.nn.relu(h)
            loss = graft.reduce_mean(graft.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        grads = tape.gradient(loss, params)
        opt.apply_gradients(zip(grads, params))
        return loss

    xt, yt = graft.constant(x), graft.constant(y)
    for _ in range(10):
        step(xt, yt)
    times = []
    for _ in range(7):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(steps):
            step(xt, yt).numpy()
        times.append((time.perf_counter() - t0) / steps * 1e3)
    if rank == 0:
        print("RESULT %.4f" % sorted(times)[len(times) // 2])


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), int(sys.argv[3]))
        return
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    print("| global batch | 1 rank, ms/step | 2 ranks, ms/step | speed-up |")
    print("| ---: | ---: | ---: | ---: |")
    for batch, steps in ((64, 40), (256, 15)):
        result = {}
        for np_ in (1, 2):
            run_env = dict(env, OPENBLAS_NUM_THREADS=str(2 // np_))
            out = subprocess.run(["mpirun", "-np", str(np_), sys.executable, __file__, "--worker", str(batch), str(steps)],
                                 env=run_env, capture_output=True, text=True, check=True).stdout
            result[np_] = float(next(line.split()[1] for line in out.splitlines() if line.startswith("RESULT")))
        print("| %d | %.3f | %.3f | %.2f |" % (batch, result[1], result[2], result[1] / result[2]))


if __name__ == "__main__":
    main()
