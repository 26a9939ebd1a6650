"""Graft against TensorFlow, side by side in one process.

Each workload runs on both sides from the same definition: eager ops and traced functions
written once per API, and TensorFlow-exported GraphDefs (built with tf.compat.v1 in a
tf.Graph) imported into a graft.Graph and run through each side's Session. Rounds alternate
(Graft, TensorFlow, TensorFlow, Graft, ...), each round lasting about --round-s seconds; the
table gives each side's median round (or best, with --stat best) and TF time / Graft time
(above 1: Graft is faster). Outputs of the two sides are compared once per workload.

Not run by any test or CI step. Needs TensorFlow; without it the script says so and exits 0:
    PYTHONPATH=build/bindings/python/site OPENBLAS_NUM_THREADS=2 \\
        /tmp/tf/bin/python bench/bench_vs_tensorflow.py [--rows SUBSTRING] [--rounds N]

Threads: by default each side uses its defaults (TensorFlow: one intra-op thread per core;
Graft: a session thread per core, OpenBLAS's threads from OPENBLAS_NUM_THREADS). --threads N
sets TensorFlow's intra- and inter-op threads, Graft's Session(num_threads=N) and, before
Graft loads OpenBLAS, OPENBLAS_NUM_THREADS.
"""
import argparse
import gc
import os
import platform
import statistics
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", default="", help="run only the workloads whose name contains this (case-insensitive)")
    p.add_argument("--rounds", type=int, default=9, help="alternated rounds per side (default 9)")
    p.add_argument("--round-s", type=float, default=0.2, help="seconds per round and side (default 0.2)")
    p.add_argument("--stat", choices=("median", "best"), default="median", help="which round to report")
    p.add_argument("--threads", type=int, default=0, help="threads for both sides (default: each side's own)")
    return p.parse_args()


ARGS = parse_args()
if ARGS.threads:
    os.environ["OPENBLAS_NUM_THREADS"] = str(ARGS.threads)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

try:
    import tensorflow as tf
except Exception as e:  # ImportError, or a broken install
    print(f"bench_vs_tensorflow: TensorFlow is not importable ({type(e).__name__}: {e}); skipping.")
    sys.exit(0)

import numpy as np  # noqa: E402

import graft  # noqa: E402

if ARGS.threads:
    tf.config.threading.set_intra_op_parallelism_threads(ARGS.threads)
    tf.config.threading.set_inter_op_parallelism_threads(ARGS.threads)

RNG = np.random.default_rng(0)
CHAIN = 1000  # ops in the Sin chains


def normal(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


# --- timing -----------------------------------------------------------------------------------

def calibrate(fn, target_s):
    """Calls per round so that a round lasts about target_s (fn already warmed up)."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= target_s / 8 or n >= 1 << 22:
            return max(3, int(n * target_s / elapsed))
        n *= 4


def one_round(fn, n):
    gc.collect()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def measure(graft_fn, tf_fn, rounds, round_s):
    """Alternated rounds; seconds per call of each side, as (graft times, tf times)."""
    graft_fn()
    tf_fn()
    n_graft = calibrate(graft_fn, round_s)
    n_tf = calibrate(tf_fn, round_s)
    g_times, t_times = [], []
    for r in range(rounds):
        if r % 2 == 0:
            g_times.append(one_round(graft_fn, n_graft))
            t_times.append(one_round(tf_fn, n_tf))
        else:
            t_times.append(one_round(tf_fn, n_tf))
            g_times.append(one_round(graft_fn, n_graft))
    return g_times, t_times


# --- the two sides' sessions over one GraphDef --------------------------------------------------

def tf_session_config():
    if not ARGS.threads:
        return None
    return tf.compat.v1.ConfigProto(intra_op_parallelism_threads=ARGS.threads,
                                    inter_op_parallelism_threads=ARGS.threads)


def session_pair(build, make_callable=False):
    """build() runs inside a tf.Graph and returns (fetch tensor, {placeholder: value}). The
    graph is exported as GraphDef bytes and imported into a graft.Graph; returns the two
    runners, each session.run(fetch, feeds) with NumPy feeds (or, with make_callable, each
    side's Session.make_callable(fetch, feed_list) called with the values), and the GraphDef's
    node count."""
    g = tf.Graph()
    with g.as_default():
        fetch, feeds = build()
    graph_def = g.as_graph_def().SerializeToString()
    names = [t.name for t in feeds]
    values = list(feeds.values())
    tf_sess = tf.compat.v1.Session(graph=g, config=tf_session_config())
    tf_feed = dict(zip(feeds, values))

    gg = graft.Graph()
    with gg.as_default():
        elements = graft.import_graph_def(graph_def, name="", return_elements=[fetch.name] + names)
    kwargs = {"num_threads": ARGS.threads} if ARGS.threads else {}
    g_sess = graft.Session(graph=gg, **kwargs)
    g_fetch = elements[0]
    g_feed = dict(zip(elements[1:], values))
    nodes = len(graft.GraphDef(graph_def).node)
    if make_callable:
        g_call = g_sess.make_callable(g_fetch, feed_list=elements[1:])
        t_call = tf_sess.make_callable(fetch, feed_list=list(feeds))
        return (lambda: g_call(*values)), (lambda: t_call(*values)), nodes
    return (lambda: g_sess.run(g_fetch, g_feed)), (lambda: tf_sess.run(fetch, tf_feed)), nodes


# --- workloads ----------------------------------------------------------------------------------
# Each builder returns (graft callable, tf callable, units per call, check(graft result, tf result)).

def eager_add():
    ga, gb = graft.constant(np.float32(1.5)), graft.constant(np.float32(2.5))
    ta, tb = tf.constant(np.float32(1.5)), tf.constant(np.float32(2.5))
    return (lambda: graft.add(ga, gb)), (lambda: tf.add(ta, tb)), 1


def function_1op():
    gx, tx = graft.constant(np.float32(1.5)), tf.constant(np.float32(1.5))

    @graft.function
    def g_fn(a):
        return a + a

    @tf.function
    def t_fn(a):
        return a + a

    return (lambda: g_fn(gx)), (lambda: t_fn(tx)), 1


def sin_chain(sin, x):
    for _ in range(CHAIN):
        x = sin(x)
    return x


def function_sin_chain():
    gx, tx = graft.constant(np.float32(0.5)), tf.constant(np.float32(0.5))
    g_fn = graft.function(lambda a: sin_chain(graft.sin, a))
    t_fn = tf.function(lambda a: sin_chain(tf.sin, a))
    return (lambda: g_fn(gx)), (lambda: t_fn(tx)), CHAIN


def session_sin_chain(make_callable=False):
    def build():
        x = tf.compat.v1.placeholder(tf.float32, [], name="x")
        return tf.identity(sin_chain(tf.sin, x), name="out"), {x: np.float32(0.5)}
    g_run, t_run, _ = session_pair(build, make_callable)
    return g_run, t_run, CHAIN


MLP_SIZES = (784, 512, 512, 10)


def mlp_weights():
    return [(normal(i, o, scale=0.05), normal(o, scale=0.05)) for i, o in zip(MLP_SIZES, MLP_SIZES[1:])]


def mlp(api, x, layers):
    for k, (w, b) in enumerate(layers):
        x = api.nn.bias_add(api.matmul(x, w), b)
        if k < len(layers) - 1:
            x = api.nn.relu(x)
    return x


def session_mlp():
    layers = mlp_weights()
    x_value = normal(64, MLP_SIZES[0])

    def build():
        x = tf.compat.v1.placeholder(tf.float32, [64, MLP_SIZES[0]], name="x")
        consts = [(tf.constant(w), tf.constant(b)) for w, b in layers]
        return tf.identity(mlp(tf, x, consts), name="logits"), {x: x_value}
    g_run, t_run, _ = session_pair(build)
    return g_run, t_run, 1


def function_mlp():
    layers = mlp_weights()
    x_value = normal(64, MLP_SIZES[0])
    g_layers = [(graft.constant(w), graft.constant(b)) for w, b in layers]
    t_layers = [(tf.constant(w), tf.constant(b)) for w, b in layers]
    g_fn = graft.function(lambda x: mlp(graft, x, g_layers))
    t_fn = tf.function(lambda x: mlp(tf, x, t_layers))
    gx, tx = graft.constant(x_value), tf.constant(x_value)
    return (lambda: g_fn(gx)), (lambda: t_fn(tx)), 1


def session_conv(batch, size, channels):
    x_value = normal(batch, size, size, channels)
    f_value = normal(3, 3, channels, channels, scale=0.05)

    def build():
        x = tf.compat.v1.placeholder(tf.float32, x_value.shape, name="x")
        y = tf.nn.conv2d(x, tf.constant(f_value), strides=1, padding="SAME")
        return tf.identity(y, name="y"), {x: x_value}
    g_run, t_run, _ = session_pair(build)
    return g_run, t_run, 1


def session_depthwise(batch, size, channels, stride):
    x_value = normal(batch, size, size, channels)
    f_value = normal(3, 3, channels, 1, scale=0.1)

    def build():
        x = tf.compat.v1.placeholder(tf.float32, x_value.shape, name="x")
        y = tf.nn.depthwise_conv2d(x, tf.constant(f_value), strides=[1, stride, stride, 1], padding="SAME")
        return tf.identity(y, name="y"), {x: x_value}
    g_run, t_run, _ = session_pair(build)
    return g_run, t_run, 1


def session_pool(kind, batch, size, channels, k, stride):
    x_value = normal(batch, size, size, channels)

    def build():
        x = tf.compat.v1.placeholder(tf.float32, x_value.shape, name="x")
        pool = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d
        return tf.identity(pool(x, k, stride, "SAME"), name="y"), {x: x_value}
    g_run, t_run, _ = session_pair(build)
    return g_run, t_run, 1


def session_matmul(n):
    a_value, b_value = normal(n, n), normal(n, n)

    def build():
        a = tf.compat.v1.placeholder(tf.float32, [n, n], name="a")
        return tf.identity(tf.matmul(a, tf.constant(b_value)), name="c"), {a: a_value}
    g_run, t_run, _ = session_pair(build)
    return g_run, t_run, 1


def conv_flops(batch, size, channels):
    return 2.0 * batch * size * size * channels * channels * 9


# (name, builder, unit, scale to unit, flops per call or None)
WORKLOADS = [
    ("eager scalar add from Python, per call", eager_add, "µs", 1e6, None),
    ("cached 1-op function call from Python (a + a), per call", function_1op, "µs", 1e6, None),
    (f"{CHAIN} chained scalar Sin in a traced function, per op", function_sin_chain, "ns", 1e9, None),
    (f"{CHAIN} chained scalar Sin, GraphDef through a Session, per op", session_sin_chain, "ns", 1e9, None),
    (f"{CHAIN} chained scalar Sin, GraphDef through Session.make_callable, per op",
     lambda: session_sin_chain(make_callable=True), "ns", 1e9, None),
    ("MLP 784-512-512-10 batch 64, Session, per run", session_mlp, "µs", 1e6, None),
    ("MLP 784-512-512-10 batch 64, traced function, per call", function_mlp, "µs", 1e6, None),
    ("Conv2D 3x3 SAME 1x56x56x64 -> 64, Session, per run", lambda: session_conv(1, 56, 64), "ms", 1e3,
     conv_flops(1, 56, 64)),
    ("Conv2D 3x3 SAME 32x28x28x128 -> 128, Session, per run", lambda: session_conv(32, 28, 128), "ms", 1e3,
     conv_flops(32, 28, 128)),
    ("DepthwiseConv2dNative 3x3 SAME 1x112x112x32, Session, per run", lambda: session_depthwise(1, 112, 32, 1),
     "ms", 1e3, 2.0 * 112 * 112 * 32 * 9),
    ("DepthwiseConv2dNative 3x3 SAME 8x56x56x144, Session, per run", lambda: session_depthwise(8, 56, 144, 1),
     "ms", 1e3, 2.0 * 8 * 56 * 56 * 144 * 9),
    ("MaxPool 3x3 stride 2 SAME 1x112x112x64, Session, per run", lambda: session_pool("max", 1, 112, 64, 3, 2),
     "ms", 1e3, None),
    ("AvgPool 2x2 stride 2 SAME 8x56x56x128, Session, per run", lambda: session_pool("avg", 8, 56, 128, 2, 2),
     "ms", 1e3, None),
    ("MatMul 512x512 (A fed, B Const), Session, per run", lambda: session_matmul(512), "ms", 1e3,
     2.0 * 512 ** 3),
    ("MatMul 1024x1024 (A fed, B Const), Session, per run", lambda: session_matmul(1024), "ms", 1e3,
     2.0 * 1024 ** 3),
]


def as_numpy(x):
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def check(name, g_fn, t_fn):
    g, t = as_numpy(g_fn()), as_numpy(t_fn())
    scale = max(1.0, float(np.max(np.abs(t))) if t.size else 1.0)
    if g.shape != t.shape or not np.allclose(g, t, rtol=1e-3, atol=1e-4 * scale):
        diff = float(np.max(np.abs(g - t))) if g.shape == t.shape else float("nan")
        print(f"  warning: {name}: outputs differ (shapes {g.shape} vs {t.shape}, max |diff| {diff:g})",
              file=sys.stderr)


def cell(seconds, unit_scale, unit, flops):
    v = seconds * unit_scale
    text = f"{v:.3g} {unit}" if v < 100 else f"{v:.0f} {unit}"
    if flops:
        text += f" ({flops / seconds / 1e9:.0f} GFLOP/s)"
    return text


def environment():
    onednn = os.environ.get("TF_ENABLE_ONEDNN_OPTS")
    onednn_text = "default (on for x86 builds)" if onednn is None else onednn
    lines = [
        f"TensorFlow {tf.__version__} (TF_ENABLE_ONEDNN_OPTS: {onednn_text}), Graft {graft.__version__}, "
        f"Python {platform.python_version()}, NumPy {np.__version__}",
        f"CPUs: {os.cpu_count()}, OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, "
        f"threads: {ARGS.threads or 'each side default'}",
        f"{ARGS.rounds} alternated rounds of ~{ARGS.round_s} s per side; table: {ARGS.stat} round",
    ]
    return lines


def main():
    selected = [w for w in WORKLOADS if ARGS.rows.lower() in w[0].lower()]
    if not selected:
        print(f"no workload matches --rows {ARGS.rows!r}")
        return 1
    pick = min if ARGS.stat == "best" else statistics.median
    for line in environment():
        print(line)
    results = []
    start = time.perf_counter()
    for name, builder, unit, unit_scale, flops in selected:
        g_fn, t_fn, units = builder()
        check(name, g_fn, t_fn)
        g_times, t_times = measure(g_fn, t_fn, ARGS.rounds, ARGS.round_s)
        g, t = pick(g_times) / units, pick(t_times) / units
        print(f"  {name}, {unit}: graft {g * unit_scale:.4g} (rounds {min(g_times) / units * unit_scale:.4g}"
              f"..{max(g_times) / units * unit_scale:.4g}), tf {t * unit_scale:.4g} (rounds "
              f"{min(t_times) / units * unit_scale:.4g}..{max(t_times) / units * unit_scale:.4g})",
              file=sys.stderr, flush=True)
        results.append((name, cell(t, unit_scale, unit, flops), cell(g, unit_scale, unit, flops),
                        t / g))
    print()
    print("| workload | TF | Graft | ratio (TF time / Graft time) |")
    print("| --- | ---: | ---: | ---: |")
    for name, t_cell, g_cell, ratio in results:
        print(f"| {name} | {t_cell} | {g_cell} | {ratio:.2f} |")
    print(f"\n(total {time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
