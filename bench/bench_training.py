"""Training from Python: one step of the 784-512-512-10 ReLU perceptron (softmax cross-entropy,
GradientTape, Adam.apply_gradients), as a traced function and eagerly, in Graft and - in the
same run - in TensorFlow when it is installed (tf.function + GradientTape + Keras Adam: the
baseline; the ratio is Graft's time over TensorFlow's). Without TensorFlow the baseline is the
same step written with NumPy.

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

SIZES = (784, 512, 512, 10)
LR, BETA1, BETA2, EPS = 1e-3, 0.9, 0.999, 1e-7


def init_values(seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        limit = np.sqrt(6 / (a + b))
        out += [rng.uniform(-limit, limit, (a, b)).astype(np.float32), np.zeros(b, np.float32)]
    return out


def make_step(lib, values, traced):
    """A training step written once for both libraries (their APIs are the same here)."""
    params = [lib.Variable(v) for v in values]
    opts = lib.optimizers if lib is graft else lib.keras.optimizers
    opt = opts.Adam(learning_rate=LR, beta_1=BETA1, beta_2=BETA2, epsilon=EPS)

    def step(x, y):
        with lib.GradientTape() as tape:
            h = x
            for i in range(0, len(params) - 2, 2):
                h = lib.nn.relu(lib.nn.bias_add(lib.matmul(h, params[i]), params[i + 1]))
            logits = lib.nn.bias_add(lib.matmul(h, params[-2]), params[-1])
            loss = lib.reduce_mean(lib.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, params)
        opt.apply_gradients(zip(grads, params))
        return loss

    return lib.function(step) if traced else step


class NumpyStep:
    """The same step with NumPy (the baseline without TensorFlow)."""

    def __init__(self, values):
        self.p = [v.copy() for v in values]
        self.m = [np.zeros_like(v) for v in values]
        self.v = [np.zeros_like(v) for v in values]
        self.t = 0

    def __call__(self, x, y):
        acts, h = [x], x
        for i in range(0, len(self.p) - 2, 2):
            h = np.maximum(h @ self.p[i] + self.p[i + 1], 0)
            acts.append(h)
        logits = h @ self.p[-2] + self.p[-1]
        logits = logits - logits.max(axis=1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        loss = -(y * logp).sum(axis=1).mean()
        d = (np.exp(logp) - y) / x.shape[0]
        grads = [None] * len(self.p)
        for layer in reversed(range(len(self.p) // 2)):
            grads[2 * layer], grads[2 * layer + 1] = acts[layer].T @ d, d.sum(axis=0)
            if layer:
                d = (d @ self.p[2 * layer].T) * (acts[layer] > 0)
        self.t += 1
        lr = LR * np.sqrt(1 - BETA2 ** self.t) / (1 - BETA1 ** self.t)
        for p, g, m, v in zip(self.p, grads, self.m, self.v):
            m += (1 - BETA1) * (g - m)
            v += (1 - BETA2) * (g * g - v)
            p -= lr * m / (np.sqrt(v) + EPS)
        return loss


def timed_pair(fn_a, fn_b, steps, repeats=7):
    """Best time per call of each, over blocks of `steps` calls that alternate between the two,
    so that both see the same state of the machine (this VM's speed drifts between blocks). A
    pause before each block lets the other library's threads go idle (OpenBLAS's and Eigen's
    spin for a while after their last work), so that neither block pays for the other's."""
    out_a, out_b = fn_a(), fn_b()
    best_a = best_b = float("inf")
    for _ in range(repeats):
        for i, fn in enumerate((fn_a, fn_b)):
            time.sleep(0.25)
            start = time.perf_counter()
            for _ in range(steps):
                out = fn()
            elapsed = (time.perf_counter() - start) / steps
            if i == 0:
                best_a, out_a = min(best_a, elapsed), out
            else:
                best_b, out_b = min(best_b, elapsed), out
    return best_a, out_a, best_b, out_b


def main():
    baseline = "TensorFlow " + tf.__version__ if tf is not None else "NumPy by hand"
    print(f"Training step, {'-'.join(map(str, SIZES))} ReLU perceptron, Adam; baseline: {baseline}")
    print(f"{'batch':>6} {'mode':>8} {'graft (us)':>12} {'baseline (us)':>14} {'ratio':>7} {'graft loss':>11} "
          f"{'base loss':>10}")
    rng = np.random.default_rng(1)
    for batch in (64, 256):
        x = rng.random((batch, SIZES[0]), dtype=np.float32)
        y = np.eye(SIZES[-1], dtype=np.float32)[np.arange(batch) % SIZES[-1]]
        steps = 30 if batch == 256 else 60
        for traced in (True, False):
            gstep = make_step(graft, init_values(), traced)
            gx, gy = graft.constant(x), graft.constant(y)
            if tf is not None:
                tstep = make_step(tf, init_values(), traced)
                tx, ty = tf.constant(x), tf.constant(y)
                base = lambda: tstep(tx, ty)
            else:
                nstep = NumpyStep(init_values())
                base = lambda: nstep(x, y)
            g_time, g_loss, b_time, b_loss = timed_pair(lambda: gstep(gx, gy), base, steps)
            print(f"{batch:>6} {'function' if traced else 'eager':>8} {g_time * 1e6:>12.1f} {b_time * 1e6:>14.1f} "
                  f"{g_time / b_time:>7.2f} {float(np.asarray(g_loss)):>11.5f} {float(np.asarray(b_loss)):>10.5f}")
    print("(best of 7 blocks each, the two alternating; both start from the same values and take the same")
    print(" number of steps: the losses agree)")


if __name__ == "__main__":
    main()
