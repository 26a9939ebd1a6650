#!/usr/bin/env python3
"""Checks that Keras models exported as SavedModels give TensorFlow's outputs when run by Graft
(issue #17).

    /tmp/tf/bin/python tests/tools/check_keras_models.py [--out DIR] [--only NAME ...]
                       [--graft-python PYTHON] [--graft-site DIR] [--tol 1e-4] [--keep]

Needs TensorFlow 2 with Keras 3 in the Python that runs it (not run by CI). For each model below
(Keras applications built with random weights, weights=None, small recurrent, attention and
convolutional models, and TextVectorization in every output mode and in a text classifier, all
seeded), the script

  1. builds the model and exports it with `model.export(DIR/NAME)` (Keras 3's SavedModel export),
  2. reloads the SavedModel in TensorFlow and runs its `serving_default` signature on a fixed
     random input (the reference),
  3. runs the same signature with Graft's Python package in a subprocess (by default the system
     `python3` with PYTHONPATH=build/bindings/python/site; the script itself is the worker, see
     --graft-worker), so a crash in Graft is reported for that model only,
  4. compares: every output must have TensorFlow's dtype and shape and
     |graft - tf| <= tol * max(1, |tf|) elementwise (absolute within 1e-4 for values up to 1,
     relative beyond).

Prints a table (model, max abs diff, max rel diff, pass/fail, TF and Graft run times, Graft's
error if any) and exits 1 when a model fails. Models are written under --out (a temporary
folder, removed afterwards unless --keep, when not given); they are not committed (ResNet50 is
about 100 MB).

TF_ENABLE_ONEDNN_OPTS=0 is set before TensorFlow is imported (unless already set), so the
reference comes from TensorFlow's plain CPU kernels.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SITE = os.path.join(REPO, "build", "bindings", "python", "site")
SEED = 17
WORKER_TIMEOUT_S = 900


# ---------------------------------------------------------------------------------------------
# The worker: runs in Graft's Python (no TensorFlow), one model per process.

def graft_worker(model_dir, inputs_npz, outputs_npz, repeats):
    import numpy as np
    result = {"ok": False}
    try:
        import graft
        t0 = time.perf_counter()
        loaded = graft.saved_model.load(model_dir)
        result["load_s"] = time.perf_counter() - t0
        sig = loaded.signatures["serving_default"]
        feeds = dict(np.load(inputs_npz))
        t0 = time.perf_counter()
        outs = sig(**feeds)
        result["first_s"] = time.perf_counter() - t0
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            sig(**feeds)
            times.append(time.perf_counter() - t0)
        result["run_s"] = min(times) if times else result["first_s"]
        arrays = {k: np.asarray(v.numpy()) for k, v in outs.items()}
        np.savez(outputs_npz, **{k: (a.astype(bytes) if a.dtype == object else a) for k, a in arrays.items()})
        result["ok"] = True
    except Exception as e:  # reported in the table
        result["error"] = f"{type(e).__name__}: {e}"
    print("GRAFT_RESULT " + json.dumps(result))
    return 0


# ---------------------------------------------------------------------------------------------
# The models (built in TensorFlow's Python).

def _randomize_batch_norm(keras, model, rng):
    """Gives every BatchNormalization layer non-trivial moving statistics and affine parameters
    (a freshly built one has mean 0, variance 1, gamma 1, beta 0, which hides errors)."""
    import numpy as np
    for layer in model._flatten_layers() if hasattr(model, "_flatten_layers") else model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            new = []
            for w in layer.weights:
                shape = tuple(w.shape)
                name = w.path if hasattr(w, "path") else w.name
                if "moving_mean" in name:
                    new.append(rng.normal(0.0, 0.1, shape))
                elif "moving_variance" in name:
                    new.append(rng.uniform(0.5, 1.5, shape))
                elif "gamma" in name:
                    new.append(rng.uniform(0.8, 1.2, shape))
                elif "beta" in name:
                    new.append(rng.normal(0.0, 0.1, shape))
                else:
                    new.append(np.asarray(w.numpy()))
            layer.set_weights([np.asarray(v, dtype="float32") for v in new])


def _image_input(rng, shape):
    return rng.uniform(0.0, 255.0, shape).astype("float32")


def build_mobilenet_v2(keras, rng):
    m = keras.applications.MobileNetV2(weights=None, input_shape=(96, 96, 3), classes=10,
                                       classifier_activation=None)
    _randomize_batch_norm(keras, m, rng)
    # MobileNetV2 expects inputs in [-1, 1] (preprocess_input); feed that range.
    return m, [rng.uniform(-1.0, 1.0, (2, 96, 96, 3)).astype("float32")]


def build_resnet50(keras, rng):
    m = keras.applications.ResNet50(weights=None, input_shape=(64, 64, 3), classes=10,
                                    classifier_activation=None)
    _randomize_batch_norm(keras, m, rng)
    # caffe-style preprocessing: BGR minus the ImageNet mean, roughly [-128, 128].
    return m, [rng.uniform(-120.0, 120.0, (2, 64, 64, 3)).astype("float32")]


def build_efficientnet_b0(keras, rng):
    m = keras.applications.EfficientNetB0(weights=None, input_shape=(64, 64, 3), classes=10,
                                          classifier_activation=None)
    _randomize_batch_norm(keras, m, rng)
    return m, [_image_input(rng, (2, 64, 64, 3))]


def build_lstm_text(keras, rng):
    L = keras.layers
    inp = keras.Input(shape=(20,), dtype="int32", name="tokens")
    x = L.Embedding(1000, 32, mask_zero=True)(inp)
    x = L.LSTM(32, return_sequences=True)(x)
    x = L.LSTM(16)(x)
    x = L.Dropout(0.3)(x)
    out = L.Dense(4, activation="softmax")(x)
    m = keras.Model(inp, out, name="lstm_text")
    tokens = rng.integers(1, 1000, (2, 20)).astype("int32")
    tokens[0, 15:] = 0  # padding, masked
    tokens[1, 8:] = 0
    return m, [tokens]


def build_lstm_seq(keras, rng):
    L = keras.layers
    inp = keras.Input(shape=(12, 8), name="series")
    x = L.LSTM(24, return_sequences=True)(inp)
    x = L.LSTM(24, go_backwards=True)(x)
    out = L.Dense(3)(x)
    m = keras.Model(inp, out, name="lstm_seq")
    return m, [rng.normal(0.0, 1.0, (2, 12, 8)).astype("float32")]


def _transformer_block(L, x, heads, key_dim, ff, causal):
    att = L.MultiHeadAttention(num_heads=heads, key_dim=key_dim, dropout=0.1)
    a = att(x, x, use_causal_mask=causal)
    x = L.LayerNormalization(epsilon=1e-6)(L.Add()([x, L.Dropout(0.1)(a)]))
    f = L.Dense(ff, activation="gelu")(x)
    f = L.Dense(x.shape[-1])(f)
    return L.LayerNormalization(epsilon=1e-6)(L.Add()([x, L.Dropout(0.1)(f)]))


def build_mha_transformer(keras, rng):
    L = keras.layers
    inp = keras.Input(shape=(10, 32), name="x")
    x = _transformer_block(L, inp, heads=4, key_dim=8, ff=64, causal=False)
    x = L.GlobalAveragePooling1D()(x)
    out = L.Dense(5)(x)
    m = keras.Model(inp, out, name="mha_transformer")
    return m, [rng.normal(0.0, 1.0, (2, 10, 32)).astype("float32")]


def build_mha_text_causal(keras, rng):
    """A token model: embedding plus learned positions, a causal attention block, per-token
    logits."""
    L = keras.layers

    class PositionEmbedding(L.Layer):
        def __init__(self, length, dim, **kw):
            super().__init__(**kw)
            self.pos = self.add_weight(shape=(length, dim), initializer="random_normal", name="pos")

        def call(self, x):
            return x + self.pos[None, : keras.ops.shape(x)[1], :]

    inp = keras.Input(shape=(16,), dtype="int32", name="tokens")
    x = L.Embedding(500, 32)(inp)
    x = PositionEmbedding(16, 32)(x)
    x = _transformer_block(L, x, heads=2, key_dim=16, ff=64, causal=True)
    out = L.Dense(500)(x)
    m = keras.Model(inp, out, name="mha_text_causal")
    return m, [rng.integers(0, 500, (2, 16)).astype("int32")]


def build_gru_bidirectional(keras, rng):
    L = keras.layers
    inp = keras.Input(shape=(15,), dtype="int32", name="tokens")
    x = L.Embedding(300, 16)(inp)
    x = L.Bidirectional(L.GRU(16, return_sequences=True))(x)
    x = L.GRU(8)(x)
    out = L.Dense(2, activation="sigmoid")(x)
    m = keras.Model(inp, out, name="gru_bidirectional")
    return m, [rng.integers(0, 300, (2, 15)).astype("int32")]


def build_conv1d_bn(keras, rng):
    L = keras.layers
    inp = keras.Input(shape=(32, 6), name="signal")
    x = L.Conv1D(16, 5, padding="same")(inp)
    x = L.BatchNormalization()(x)
    x = L.Activation("relu")(x)
    x = L.MaxPooling1D(2)(x)
    x = L.Conv1D(32, 3, dilation_rate=2, activation="elu")(x)
    x = L.Dropout(0.5)(x)
    x = L.GlobalAveragePooling1D()(x)
    out = L.Dense(3, activation="softmax")(x)
    m = keras.Model(inp, out, name="conv1d_bn")
    _randomize_batch_norm(keras, m, rng)
    return m, [rng.normal(0.0, 1.0, (2, 32, 6)).astype("float32")]


def build_small_cnn(keras, rng):
    L = keras.layers
    inp = keras.Input(shape=(28, 28, 1), name="image")
    x = L.Rescaling(1.0 / 255)(inp)
    x = L.Conv2D(8, 3, activation="relu")(x)
    x = L.BatchNormalization()(x)
    x = L.SeparableConv2D(16, 3, padding="same", activation="swish")(x)
    x = L.AveragePooling2D(2)(x)
    x = L.DepthwiseConv2D(3, activation="relu6")(x)
    x = L.Conv2DTranspose(8, 3, strides=2)(x)
    x = L.MaxPooling2D(2)(x)
    x = L.Flatten()(x)
    x = L.Dense(32, activation="selu")(x)
    out = L.Dense(10)(x)
    m = keras.Model(inp, out, name="small_cnn")
    _randomize_batch_norm(keras, m, rng)
    return m, [_image_input(rng, (2, 28, 28, 1))]


_TEXTS = ["The cat sat on the mat.", "A dog ate my homework!", "the Cat, the HAT; and the bat",
          "Dogs and cats: friends or foes?", "my homework is on the mat"]


def _text_inputs():
    import numpy as np
    return [np.array([b"the cat ate the hat", b"A Dog. sat; on THE mat zebra", b"", b"caf\xc3\xa9 CAT\tdog  bat!",
                      b"homework homework homework on the mat and the cat and the dog"], dtype=object)]


def build_text_vectorization(keras, rng):
    """TextVectorization in each output mode on one string input (the default standardisation,
    lower_and_strip_punctuation, and whitespace split): int with output_sequence_length (pads and
    truncates), int with ngrams=2, multi_hot, count, and tf_idf with ngrams=2."""
    L = keras.layers
    inp = keras.Input(shape=(), dtype="string", name="text")
    layers = [L.TextVectorization(max_tokens=30, output_sequence_length=8),
              L.TextVectorization(max_tokens=40, ngrams=2, output_sequence_length=12),
              L.TextVectorization(max_tokens=25, output_mode="multi_hot"),
              L.TextVectorization(max_tokens=25, output_mode="count"),
              L.TextVectorization(max_tokens=30, output_mode="tf_idf", ngrams=2)]
    for layer in layers:
        layer.adapt(_TEXTS)
    m = keras.Model(inp, [layer(inp) for layer in layers], name="text_vectorization")
    return m, _text_inputs()


def build_text_classifier(keras, rng):
    """A text classifier on raw strings: TextVectorization (int, ragged rows padded to 10)
    -> Embedding (mask_zero) -> GlobalAveragePooling1D -> Dense."""
    L = keras.layers
    vec = L.TextVectorization(max_tokens=40, output_sequence_length=10)
    vec.adapt(_TEXTS)
    inp = keras.Input(shape=(), dtype="string", name="text")
    x = L.Embedding(40, 8, mask_zero=True)(vec(inp))
    x = L.GlobalAveragePooling1D()(x)
    out = L.Dense(3, activation="softmax")(x)
    return keras.Model(inp, out, name="text_classifier"), _text_inputs()


MODELS = [
    ("mobilenet_v2", build_mobilenet_v2),
    ("resnet50", build_resnet50),
    ("efficientnet_b0", build_efficientnet_b0),
    ("lstm_text", build_lstm_text),
    ("lstm_seq", build_lstm_seq),
    ("mha_transformer", build_mha_transformer),
    ("mha_text_causal", build_mha_text_causal),
    ("gru_bidirectional", build_gru_bidirectional),
    ("conv1d_bn", build_conv1d_bn),
    ("small_cnn", build_small_cnn),
    ("text_vectorization", build_text_vectorization),
    ("text_classifier", build_text_classifier),
]


# ---------------------------------------------------------------------------------------------
# The driver (TensorFlow's Python).

def _export_and_reference(tf, keras, name, builder, model_dir, repeats):
    import numpy as np
    rng = np.random.default_rng(SEED)
    keras.utils.set_random_seed(SEED)
    model, inputs = builder(keras, rng)
    if os.path.exists(model_dir):
        shutil.rmtree(model_dir)
    model.export(model_dir, verbose=False)
    loaded = tf.saved_model.load(model_dir)
    sig = loaded.signatures["serving_default"]
    _, kw_specs = sig.structured_input_signature
    keys = sorted(kw_specs)
    if len(keys) != len(inputs):
        raise RuntimeError(f"signature inputs {keys} but {len(inputs)} values")
    # Keras names the signature inputs after the model's inputs, in order.
    order = [inp.name for inp in model.inputs]
    if sorted(order) == keys:
        feeds = dict(zip(order, inputs))
    else:
        feeds = dict(zip(keys, inputs))
    tf_feeds = {k: tf.constant(v) for k, v in feeds.items()}
    outs = sig(**tf_feeds)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        sig(**tf_feeds)
        times.append(time.perf_counter() - t0)
    ref = {k: v.numpy() for k, v in outs.items()}
    return feeds, ref, (min(times) if times else float("nan"))


def _run_graft(args, model_dir, feeds, work):
    import numpy as np
    in_npz = os.path.join(work, "inputs.npz")
    out_npz = os.path.join(work, "graft_outputs.npz")
    if os.path.exists(out_npz):
        os.remove(out_npz)
    # Strings travel as fixed-width bytes (an object array would need pickling).
    np.savez(in_npz, **{k: (v.astype(bytes) if v.dtype == object else v) for k, v in feeds.items()})
    env = dict(os.environ)
    env["PYTHONPATH"] = args.graft_site + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [args.graft_python, os.path.abspath(__file__), "--graft-worker", model_dir, in_npz, out_npz,
           str(args.repeats)]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=WORKER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {WORKER_TIMEOUT_S} s"}, None
    result = None
    for line in p.stdout.splitlines():
        if line.startswith("GRAFT_RESULT "):
            result = json.loads(line[len("GRAFT_RESULT "):])
    if result is None:
        tail = (p.stdout + p.stderr).strip().splitlines()[-5:]
        return {"ok": False, "error": f"worker exited with status {p.returncode}: " + " | ".join(tail)}, None
    if not result["ok"]:
        return result, None
    with np.load(out_npz) as z:
        return result, {k: z[k] for k in z.files}


def _compare(ref, got, tol):
    """(max abs diff, max rel diff, problem or None)."""
    import numpy as np
    if set(ref) != set(got):
        return float("nan"), float("nan"), f"outputs {sorted(got)}, TensorFlow's {sorted(ref)}"
    max_abs = max_rel = 0.0
    problem = None
    for k in sorted(ref):
        r, g = ref[k], got[k]
        if r.dtype.kind in "OSU" or g.dtype.kind in "OSU":
            if r.shape != g.shape or [bytes(x) for x in r.ravel()] != [bytes(x) for x in g.ravel()]:
                problem = problem or f"output {k}: strings differ"
                max_abs = float("inf")
            continue
        if r.dtype != g.dtype:
            problem = problem or f"output {k}: dtype {g.dtype}, TensorFlow's {r.dtype}"
            continue
        if r.shape != g.shape:
            problem = problem or f"output {k}: shape {g.shape}, TensorFlow's {r.shape}"
            continue
        if r.dtype.kind in "fc":
            r64, g64 = r.astype("float64"), g.astype("float64")
            nan_ok = np.isnan(r64) == np.isnan(g64)
            if not nan_ok.all():
                problem = problem or f"output {k}: NaN where TensorFlow has none (or the reverse)"
            d = np.abs(np.nan_to_num(g64 - r64))
            if d.size:
                max_abs = max(max_abs, float(d.max()))
                max_rel = max(max_rel, float((d / np.maximum(1.0, np.abs(np.nan_to_num(r64)))).max()))
        elif not np.array_equal(r, g):
            problem = problem or f"output {k}: values differ"
            max_abs = float("inf")
    if problem is None and max_rel > tol:
        problem = f"max diff {max_abs:.3g} (relative {max_rel:.3g}) exceeds {tol:g}"
    return max_abs, max_rel, problem


def _system_python():
    """The first python3 on PATH that is not this (TensorFlow's) environment's."""
    prefix = os.path.realpath(sys.prefix)
    for d in os.environ.get("PATH", "").split(os.pathsep):
        exe = os.path.join(d, "python3")
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            if not os.path.realpath(d).startswith(prefix + os.sep) and os.path.realpath(d) != prefix:
                return exe
    return "/usr/bin/python3"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="folder for the exported SavedModels (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--only", nargs="*", help="models to check (default: all): "
                    + ", ".join(n for n, _ in MODELS))
    ap.add_argument("--graft-python", default=_system_python(),
                    help="the Python (with NumPy) that runs Graft's package (default: the first "
                    "python3 on PATH outside this Python's environment)")
    ap.add_argument("--graft-site", default=DEFAULT_SITE, help="Graft's Python package folder")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--repeats", type=int, default=3, help="timed runs after the first (min is shown)")
    args = ap.parse_args(argv)

    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np  # noqa: F401
    import tensorflow as tf
    import keras

    names = [n for n, _ in MODELS]
    if args.only:
        unknown = [n for n in args.only if n not in names]
        if unknown:
            ap.error(f"unknown models {unknown}; known: {names}")
    todo = [(n, b) for n, b in MODELS if not args.only or n in args.only]

    tmp = None
    out = args.out
    if out is None:
        tmp = out = tempfile.mkdtemp(prefix="graft_keras_models_")
    os.makedirs(out, exist_ok=True)
    print(f"TensorFlow {tf.__version__}, Keras {keras.__version__}; models under {out}", flush=True)

    rows = []
    failed = 0
    try:
        for name, builder in todo:
            model_dir = os.path.join(out, name)
            work = os.path.join(out, name + ".io")
            os.makedirs(work, exist_ok=True)
            row = {"model": name, "abs": float("nan"), "rel": float("nan"), "tf_s": float("nan"),
                   "graft_s": float("nan"), "error": ""}
            try:
                feeds, ref, row["tf_s"] = _export_and_reference(tf, keras, name, builder, model_dir,
                                                                args.repeats)
            except Exception as e:
                row["error"] = f"TensorFlow side: {type(e).__name__}: {e}"
                row["ok"] = False
                rows.append(row)
                failed += 1
                print(f"  {name}: {row['error']}", flush=True)
                continue
            result, got = _run_graft(args, model_dir, feeds, work)
            if got is None:
                row["ok"] = False
                row["error"] = result.get("error", "no result")
            else:
                row["graft_s"] = result.get("run_s", float("nan"))
                row["abs"], row["rel"], problem = _compare(ref, got, args.tol)
                row["ok"] = problem is None
                row["error"] = problem or ""
            failed += not row["ok"]
            rows.append(row)
            print(f"  {name}: {'pass' if row['ok'] else 'FAIL'} (max abs diff {row['abs']:.3g})"
                  + (f" {row['error']}" if row["error"] else ""), flush=True)
    finally:
        if tmp is not None and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    print()
    print(f"{'model':<20} {'max abs diff':>12} {'max rel diff':>12} {'result':>6} {'TF ms':>9} "
          f"{'Graft ms':>9}  error")
    for r in rows:
        print(f"{r['model']:<20} {r['abs']:>12.3g} {r['rel']:>12.3g} {'pass' if r['ok'] else 'FAIL':>6} "
              f"{r['tf_s'] * 1e3:>9.2f} {r['graft_s'] * 1e3:>9.2f}  {r['error']}")
    print(f"\n{len(rows) - failed} passed, {failed} failed (tolerance {args.tol:g}, relative beyond 1)")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--graft-worker":
        sys.exit(graft_worker(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])))
    sys.exit(main(sys.argv[1:]))
