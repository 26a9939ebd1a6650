"""Training from Python: one step of a 784-256-10 ReLU perceptron (softmax cross-entropy,
GradientTape, SGD.apply_gradients), as a traced function and eagerly, in Graft and - in the
same run - in TensorFlow when it is installed (the baseline; the ratio is Graft's time over
TensorFlow's). Without TensorFlow the baseline is the same step written with NumPy.

Run with the Python package importable (PYTHONPATH=build/bindings/python/site):
    python3 bench/bench_training.py
"""
import time

import numpy as np

import graft

try:
    import tensorflow as tf
except ImportError:  # the NumPy baseline stands in
    tf = None

IN, HIDDEN, OUT = 784, 256, 10


def init_values(seed=0):
    rng = np.random.default_rng(seed)
    l1, l2 = np.sqrt(6 / (IN + HIDDEN)), np.sqrt(6 / (HIDDEN + OUT))
    return [rng.uniform(-l1, l1, (IN, HIDDEN)).astype(np.float32), np.zeros(HIDDEN, np.float32),
            rng.uniform(-l2, l2, (HIDDEN, OUT)).astype(np.float32), np.zeros(OUT, np.float32)]


def make_step(lib, values, traced):
    """A training step written once for both libraries (their APIs are the same here)."""
    params = [lib.Variable(v) for v in values]
    opt = (lib.optimizers if lib is graft else lib.keras.optimizers).SGD(learning_rate=0.1)

    def step(x, y):
        with lib.GradientTape() as tape:
            h = lib.nn.relu(lib.nn.bias_add(lib.matmul(x, params[0]), params[1]))
            logits = lib.nn.bias_add(lib.matmul(h, params[2]), params[3])
            loss = lib.reduce_mean(lib.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, params)
        opt.apply_gradients(zip(grads, params))
        return loss

    return lib.function(step) if traced else step


def numpy_step(p, x, y, lr=0.1):
    z1 = x @ p[0] + p[1]
    h = np.maximum(z1, 0)
    logits = h @ p[2] + p[3]
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    loss = -(y * logp).sum(axis=1).mean()
    dl = (np.exp(logp) - y) / x.shape[0]
    dw2, db2 = h.T @ dl, dl.sum(axis=0)
    dz1 = (dl @ p[2].T) * (z1 > 0)
    dw1, db1 = x.T @ dz1, dz1.sum(axis=0)
    for v, g in zip(p, (dw1, db1, dw2, db2)):
        v -= lr * g
    return loss


def timed(fn, steps, repeats=3):
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            out = fn()
        best = min(best, (time.perf_counter() - start) / steps)
    return best, out


def main():
    baseline = "TensorFlow " + tf.__version__ if tf is not None else "NumPy by hand"
    print(f"Training step, 784-256-10 ReLU perceptron, SGD; baseline: {baseline}")
    print(f"{'batch':>6} {'mode':>8} {'graft (us)':>12} {'baseline (us)':>14} {'ratio':>7} {'graft loss':>11} "
          f"{'base loss':>10}")
    rng = np.random.default_rng(1)
    for batch in (32, 128, 512):
        x = rng.random((batch, IN), dtype=np.float32)
        y = np.eye(OUT, dtype=np.float32)[np.arange(batch) % OUT]
        steps = 20 if batch == 512 else 60
        for traced in (True, False):
            gstep = make_step(graft, init_values(), traced)
            gx, gy = graft.constant(x), graft.constant(y)
            g_time, g_loss = timed(lambda: gstep(gx, gy), steps)
            if tf is not None:
                tstep = make_step(tf, init_values(), traced)
                tx, ty = tf.constant(x), tf.constant(y)
                b_time, b_loss = timed(lambda: tstep(tx, ty), steps)
            else:
                p = init_values()
                b_time, b_loss = timed(lambda: numpy_step(p, x, y), steps)
            print(f"{batch:>6} {'function' if traced else 'eager':>8} {g_time * 1e6:>12.1f} {b_time * 1e6:>14.1f} "
                  f"{g_time / b_time:>7.2f} {float(np.asarray(g_loss)):>11.5f} {float(np.asarray(b_loss)):>10.5f}")
    print("(both start from the same values and take the same number of steps, so the losses agree)")


if __name__ == "__main__":
    main()
