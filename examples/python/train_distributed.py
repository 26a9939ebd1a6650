"""Data-parallel training over MPI with graft.distribute: every rank trains the same MLP on its
share of each global batch, and the gradients are averaged across the ranks.

    mpirun -np 2 python3 examples/python/train_distributed.py     # or -np 4, or under srun

1. Every rank makes the same weights from its own seed (rank + 1), then broadcast_variables gives
   all of them rank 0's.
2. Each step is one graft.function call: the rank's slice of the global batch goes forward, a
   DistributedGradientTape averages the gradients (one bucketed all-reduce), and Adam updates the
   weights, so every rank applies the same update.
3. Checks: the weights are bit-identical on every rank, and equal (within float tolerance) to
   those of the same training run in one process on the whole global batch, which every rank
   also computes here as the reference.

Exits with status 1 unless both hold (ctest: python.example_train_distributed_np2/np4)."""
import sys

import numpy as np

import graft

dist = graft.distribute
rank, size = dist.rank(), dist.size()
GLOBAL_BATCH, STEPS, SIZES = 64, 30, (32, 64, 64, 10)
if GLOBAL_BATCH % size:
    sys.exit(f"the global batch of {GLOBAL_BATCH} does not split over {size} ranks")

data_rng = np.random.default_rng(7)  # the same data on every rank
x_all = data_rng.normal(0, 1, (STEPS, GLOBAL_BATCH, SIZES[0])).astype(np.float32)
true_w = data_rng.normal(0, 1, (SIZES[0], SIZES[-1])).astype(np.float32)
y_all = np.argmax(np.einsum("sbi,io->sbo", x_all, true_w), axis=-1).astype(np.int32)


def make_weights(seed):
    rng = np.random.default_rng(seed)
    out = []
    for i, (a, b) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        out.append(graft.Variable(rng.normal(0, np.sqrt(2.0 / a), (a, b)).astype(np.float32), name=f"w{i}"))
        out.append(graft.Variable(np.zeros(b, np.float32), name=f"b{i}"))
    return out


def loss_of(params, x, y):
    h = x
    for i in range(0, len(params), 2):
        h = graft.matmul(h, params[i]) + params[i + 1]
        if i + 2 < len(params):
            h = graft.nn.relu(h)
    return graft.reduce_mean(graft.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))


# ---- the data-parallel run -----------------------------------------------------------------------
params = dist.broadcast_variables(make_weights(seed=rank + 1), root=0)
opt = graft.optimizers.Adam(learning_rate=0.01)


@graft.function
def step(x, y):
    with dist.DistributedGradientTape(graft.GradientTape()) as tape:
        loss = loss_of(params, x, y)
    grads = tape.gradient(loss, params)
    opt.apply_gradients(zip(grads, params))
    return dist.all_reduce(loss, op="mean")


share = GLOBAL_BATCH // size
losses = []
for s in range(STEPS):
    lo = rank * share
    losses.append(float(step(x_all[s, lo:lo + share], y_all[s, lo:lo + share]).numpy()))

# ---- the same training in one process on the whole batch (the reference) ---------------------------
ref = make_weights(seed=1)  # rank 0's weights, which the broadcast gave every rank
ref_opt = graft.optimizers.Adam(learning_rate=0.01)


@graft.function
def ref_step(x, y):
    with graft.GradientTape() as tape:
        loss = loss_of(ref, x, y)
    ref_opt.apply_gradients(zip(tape.gradient(loss, ref), ref))
    return loss


ref_losses = [float(ref_step(x_all[s], y_all[s]).numpy()) for s in range(STEPS)]

# ---- checks ------------------------------------------------------------------------------------------
flat = np.concatenate([p.numpy().ravel() for p in params])
spread = dist.all_reduce(graft.constant(flat), op="max").numpy() - dist.all_reduce(graft.constant(flat), op="min").numpy()
same_everywhere = bool(np.all(spread == 0))
ref_flat = np.concatenate([p.numpy().ravel() for p in ref])
max_diff = float(np.max(np.abs(flat - ref_flat)))
matches_reference = max_diff < 1e-4
if rank == 0:
    print(f"{size} ranks x {share} examples per step, {STEPS} steps")
    print("loss (data-parallel):  " + " ".join(f"{v:.4f}" for v in losses[::5]))
    print("loss (one process):    " + " ".join(f"{v:.4f}" for v in ref_losses[::5]))
    print(f"weights identical on every rank: {same_everywhere}")
    print(f"data-parallel weights match the single-process run: {matches_reference} (max |diff| {max_diff:.2e})")
ok = same_everywhere and matches_reference and losses[-1] < losses[0]
sys.exit(0 if ok else 1)
