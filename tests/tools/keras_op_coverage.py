#!/usr/bin/env python3
"""Which of TensorFlow's ops that Keras layers emit Graft runs (issue #17).

    /tmp/tf/bin/python tests/tools/keras_op_coverage.py [--out DIR] [--only LAYER ...]
                       [--no-run] [--graft-python PYTHON] [--graft-site DIR] [--libgraft SO]

Needs TensorFlow 2 with Keras 3 (not run by CI). For each layer in LAYERS (a representative set:
core, convolution, pooling, normalisation, regularisation, embedding, recurrent, attention,
activations, reshaping, merging and preprocessing layers, the random augmentation layers in
inference), it builds a tiny seeded model around the layer, exports it with
`model.export(DIR/LAYER)` and collects the op types of the graph its `serving_default`
signature runs: the nodes the signature's outputs depend on and every node of each library
function they call, transitively (through `f`/`body`/`cond`/`then_branch`/... function attrs,
and nodes whose op is a library function), likewise for the `__saved_model_init_op` (table
initializers), plus the op of every main-graph node (all are created when the model loads). The
SavedModel's save/restore functions are not counted.

Each op type is checked against Graft's op registry (graft_op_is_registered in libgraft, called
through ctypes in Graft's Python; a kernel is looked for by grepping kernels/cpu for the quoted
op name, as a hint only). Then, unless --no-run, each exported model is run by Graft (the worker
of check_keras_models.py, in a subprocess) on the input TensorFlow was run on, and compared
(|graft - tf| <= 1e-4 * max(1, |tf|)).

Prints the per-layer table (ops, ops Graft lacks, runs/matches, error), then the number of
distinct op types, how many Graft registers, and the missing ones with the layers that use them.
With --json FILE the same is written as JSON. Exits 0 (it is a report), or 2 on a usage error.
"""

import argparse
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import check_keras_models as ckm  # noqa: E402  (the Graft worker and the comparison)

SEED = 17


# ---------------------------------------------------------------------------------------------
# The layers. Each entry: name -> builder(keras, rng) returning (model, [inputs]).

def _f(rng, *shape):
    return rng.normal(0.0, 1.0, shape).astype("float32")


def _single(layer_fn, shape, dtype="float32", data=None, rank_only=False):
    """A model of one layer on one input of `shape` (without the batch)."""
    def build(keras, rng):
        inp = keras.Input(shape=shape, dtype=dtype, name="x")
        layer = layer_fn(keras)
        m = keras.Model(inp, layer(inp))
        x = data(rng) if data is not None else _f(rng, 2, *shape)
        return m, [x]
    return build


def _merge(layer_fn, shapes):
    def build(keras, rng):
        inps = [keras.Input(shape=s, name=f"x{i}") for i, s in enumerate(shapes)]
        m = keras.Model(inps, layer_fn(keras)(inps))
        return m, [_f(rng, 2, *s) for s in shapes]
    return build


def _activation(name):
    return _single(lambda k: k.layers.Activation(name), (6, 4))


def _tokens(vocab, length):
    return lambda rng: rng.integers(0, vocab, (2, length)).astype("int32")


def _build_text_vectorization(keras, rng):
    import numpy as np
    layer = keras.layers.TextVectorization(max_tokens=50, output_sequence_length=6)
    layer.adapt(["the cat sat on the mat", "a dog ate my homework", "The Cat, the hat!"])
    inp = keras.Input(shape=(), dtype="string", name="x")
    m = keras.Model(inp, layer(inp))
    return m, [np.array([b"the cat ate the hat", b"a Dog. sat; on THE mat zebra"], dtype=object)]


def _build_text_vectorization_tfidf(keras, rng):
    import numpy as np
    layer = keras.layers.TextVectorization(max_tokens=20, output_mode="tf_idf", ngrams=2)
    layer.adapt(["the cat sat on the mat", "a dog ate my homework", "the cat and the hat"])
    inp = keras.Input(shape=(), dtype="string", name="x")
    m = keras.Model(inp, layer(inp))
    return m, [np.array([b"the cat ate the hat", b"a dog sat on the mat"], dtype=object)]


def _build_string_lookup(keras, rng):
    import numpy as np
    layer = keras.layers.StringLookup(vocabulary=["a", "b", "c", "d"])
    inp = keras.Input(shape=(3,), dtype="string", name="x")
    m = keras.Model(inp, layer(inp))
    return m, [np.array([[b"a", b"z", b"c"], [b"d", b"b", b""]], dtype=object)]


def _build_integer_lookup(keras, rng):
    import numpy as np
    layer = keras.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
    inp = keras.Input(shape=(3,), dtype="int64", name="x")
    m = keras.Model(inp, layer(inp))
    return m, [np.array([[12, 1138, 42], [42, 1000, 36]], dtype="int64")]


def _build_hashing(keras, rng):
    import numpy as np
    layer = keras.layers.Hashing(num_bins=8)
    inp = keras.Input(shape=(2,), dtype="string", name="x")
    m = keras.Model(inp, layer(inp))
    return m, [np.array([[b"A", b"B"], [b"C", b"D"]], dtype=object)]


def _build_hashing_int(keras, rng):
    import numpy as np
    layer = keras.layers.Hashing(num_bins=8, salt=133)
    inp = keras.Input(shape=(2,), dtype="int64", name="x")
    m = keras.Model(inp, layer(inp))
    return m, [np.array([[1, 2], [300, -4]], dtype="int64")]


def _build_category_encoding(keras, rng):
    import numpy as np
    layer = keras.layers.CategoryEncoding(num_tokens=6, output_mode="multi_hot")
    inp = keras.Input(shape=(3,), dtype="int32", name="x")
    m = keras.Model(inp, layer(inp))
    return m, [np.array([[0, 1, 1], [5, 3, 0]], dtype="int32")]


def _build_category_encoding_count(keras, rng):
    import numpy as np
    layer = keras.layers.CategoryEncoding(num_tokens=6, output_mode="count")
    inp = keras.Input(shape=(3,), dtype="int32", name="x")
    m = keras.Model(inp, layer(inp))
    return m, [np.array([[0, 1, 1], [5, 3, 0]], dtype="int32")]


def _build_normalization(keras, rng):
    layer = keras.layers.Normalization()
    layer.adapt(_f(rng, 20, 4) * 3 + 1)
    inp = keras.Input(shape=(4,), name="x")
    return keras.Model(inp, layer(inp)), [_f(rng, 2, 4)]


def _build_discretization(keras, rng):
    layer = keras.layers.Discretization(bin_boundaries=[-0.5, 0.0, 0.5])
    inp = keras.Input(shape=(4,), name="x")
    return keras.Model(inp, layer(inp)), [_f(rng, 2, 4)]


def _build_lstm_masked(keras, rng):
    import numpy as np
    inp = keras.Input(shape=(7,), dtype="int32", name="x")
    x = keras.layers.Embedding(20, 4, mask_zero=True)(inp)
    m = keras.Model(inp, keras.layers.LSTM(5)(x))
    t = rng.integers(1, 20, (2, 7)).astype("int32")
    t[0, 4:] = 0
    return m, [np.asarray(t)]


def _build_mha(keras, rng):
    inp = keras.Input(shape=(5, 8), name="x")
    ctx = keras.Input(shape=(6, 8), name="ctx")
    out = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(inp, ctx)
    return keras.Model([inp, ctx], out), [_f(rng, 2, 5, 8), _f(rng, 2, 6, 8)]


def _build_mha_causal(keras, rng):
    inp = keras.Input(shape=(5, 8), name="x")
    out = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(inp, inp, use_causal_mask=True)
    return keras.Model(inp, out), [_f(rng, 2, 5, 8)]


def _build_attention(cls, **kw):
    def build(keras, rng):
        q = keras.Input(shape=(5, 8), name="q")
        v = keras.Input(shape=(6, 8), name="v")
        out = getattr(keras.layers, cls)(**kw)([q, v])
        return keras.Model([q, v], out), [_f(rng, 2, 5, 8), _f(rng, 2, 6, 8)]
    return build


def _build_dot(keras, rng):
    a = keras.Input(shape=(4, 3), name="a")
    b = keras.Input(shape=(4, 5), name="b")
    out = keras.layers.Dot(axes=1)([a, b])
    return keras.Model([a, b], out), [_f(rng, 2, 4, 3), _f(rng, 2, 4, 5)]


def _build_dot_normalize(keras, rng):
    a = keras.Input(shape=(6,), name="a")
    b = keras.Input(shape=(6,), name="b")
    out = keras.layers.Dot(axes=1, normalize=True)([a, b])
    return keras.Model([a, b], out), [_f(rng, 2, 6), _f(rng, 2, 6)]


def _img(h, w, c):
    return lambda rng: rng.uniform(0.0, 255.0, (2, h, w, c)).astype("float32")


def _layer(cls, *a, **kw):
    return lambda k: getattr(k.layers, cls)(*a, **kw)


LAYERS = collections.OrderedDict([
    # core
    ("Dense", _single(_layer("Dense", 4, activation="relu"), (8,))),
    ("Dense_3d", _single(_layer("Dense", 4), (3, 8))),
    ("EinsumDense", _single(_layer("EinsumDense", "abc,cd->abd", output_shape=(None, 4), bias_axes="d"), (3, 8))),
    ("Embedding", _single(_layer("Embedding", 30, 4), (5,), dtype="int32", data=_tokens(30, 5))),
    ("Identity", _single(_layer("Identity"), (4,))),
    ("Lambda", _single(lambda k: k.layers.Lambda(lambda t: k.ops.square(t) + 1.0), (4,))),
    # convolution
    ("Conv1D", _single(_layer("Conv1D", 4, 3, padding="same"), (10, 3))),
    ("Conv1D_dilated", _single(_layer("Conv1D", 4, 3, dilation_rate=2), (12, 3))),
    ("Conv1D_causal", _single(_layer("Conv1D", 4, 3, padding="causal"), (10, 3))),
    ("Conv2D", _single(_layer("Conv2D", 4, 3, strides=2, padding="same"), (9, 9, 3))),
    ("Conv2D_dilated", _single(_layer("Conv2D", 4, 3, dilation_rate=2), (11, 11, 3))),
    ("Conv2D_groups", _single(_layer("Conv2D", 4, 3, groups=2), (8, 8, 4))),
    ("Conv3D", _single(_layer("Conv3D", 2, 3), (5, 5, 5, 2))),
    ("DepthwiseConv2D", _single(_layer("DepthwiseConv2D", 3, depth_multiplier=2), (7, 7, 3))),
    ("DepthwiseConv1D", _single(_layer("DepthwiseConv1D", 3), (9, 3))),
    ("SeparableConv2D", _single(_layer("SeparableConv2D", 4, 3), (7, 7, 3))),
    ("SeparableConv1D", _single(_layer("SeparableConv1D", 4, 3), (9, 3))),
    ("Conv1DTranspose", _single(_layer("Conv1DTranspose", 3, 3, strides=2), (6, 2))),
    ("Conv2DTranspose", _single(_layer("Conv2DTranspose", 3, 3, strides=2, padding="same"), (5, 5, 2))),
    ("Conv3DTranspose", _single(_layer("Conv3DTranspose", 2, 2, strides=2), (3, 3, 3, 2))),
    # pooling
    ("MaxPooling1D", _single(_layer("MaxPooling1D", 2), (8, 3))),
    ("MaxPooling2D", _single(_layer("MaxPooling2D", 2), (6, 6, 3))),
    ("MaxPooling3D", _single(_layer("MaxPooling3D", 2), (4, 4, 4, 2))),
    ("AveragePooling1D", _single(_layer("AveragePooling1D", 2), (8, 3))),
    ("AveragePooling2D", _single(_layer("AveragePooling2D", 3, strides=2, padding="same"), (7, 7, 3))),
    ("AveragePooling3D", _single(_layer("AveragePooling3D", 2), (4, 4, 4, 2))),
    ("GlobalMaxPooling1D", _single(_layer("GlobalMaxPooling1D"), (8, 3))),
    ("GlobalMaxPooling2D", _single(_layer("GlobalMaxPooling2D"), (6, 6, 3))),
    ("GlobalAveragePooling1D", _single(_layer("GlobalAveragePooling1D"), (8, 3))),
    ("GlobalAveragePooling2D", _single(_layer("GlobalAveragePooling2D"), (6, 6, 3))),
    ("GlobalAveragePooling3D", _single(_layer("GlobalAveragePooling3D"), (4, 4, 4, 2))),
    # normalisation
    ("BatchNormalization", _single(_layer("BatchNormalization"), (6, 6, 3))),
    ("BatchNormalization_1d", _single(_layer("BatchNormalization"), (5,))),
    ("LayerNormalization", _single(_layer("LayerNormalization"), (5, 6))),
    ("LayerNormalization_rms", _single(_layer("LayerNormalization", rms_scaling=True), (5, 6))),
    ("GroupNormalization", _single(_layer("GroupNormalization", groups=2), (4, 4, 6))),
    ("UnitNormalization", _single(_layer("UnitNormalization"), (6,))),
    ("RMSNormalization", _single(_layer("RMSNormalization"), (5, 6))),
    # regularisation (identity in inference)
    ("Dropout", _single(_layer("Dropout", 0.5), (6,))),
    ("SpatialDropout2D", _single(_layer("SpatialDropout2D", 0.5), (4, 4, 3))),
    ("GaussianNoise", _single(_layer("GaussianNoise", 0.1), (6,))),
    ("GaussianDropout", _single(_layer("GaussianDropout", 0.1), (6,))),
    ("AlphaDropout", _single(_layer("AlphaDropout", 0.1), (6,))),
    ("ActivityRegularization", _single(_layer("ActivityRegularization", l1=0.1), (6,))),
    # recurrent
    ("SimpleRNN", _single(_layer("SimpleRNN", 5), (7, 3))),
    ("LSTM", _single(_layer("LSTM", 5, return_sequences=True), (7, 3))),
    ("LSTM_masked", _build_lstm_masked),
    ("LSTM_go_backwards", _single(_layer("LSTM", 5, go_backwards=True), (7, 3))),
    ("GRU", _single(_layer("GRU", 5), (7, 3))),
    ("GRU_reset_before", _single(_layer("GRU", 5, reset_after=False), (7, 3))),
    ("Bidirectional_LSTM", _single(lambda k: k.layers.Bidirectional(k.layers.LSTM(4)), (7, 3))),
    ("ConvLSTM2D", _single(_layer("ConvLSTM2D", 2, 3), (3, 6, 6, 2))),
    ("TimeDistributed", _single(lambda k: k.layers.TimeDistributed(k.layers.Dense(3)), (4, 5))),
    # attention
    ("MultiHeadAttention", _build_mha),
    ("MultiHeadAttention_causal", _build_mha_causal),
    ("Attention", _build_attention("Attention")),
    ("Attention_scaled", _build_attention("Attention", use_scale=True, score_mode="concat")),
    ("AdditiveAttention", _build_attention("AdditiveAttention")),
    # activation layers
    ("ReLU", _single(_layer("ReLU", max_value=6.0, negative_slope=0.1, threshold=0.2), (6,))),
    ("LeakyReLU", _single(_layer("LeakyReLU", negative_slope=0.2), (6,))),
    ("PReLU", _single(_layer("PReLU"), (6,))),
    ("ELU", _single(_layer("ELU"), (6,))),
    ("Softmax_layer", _single(_layer("Softmax"), (6,))),
] + [
    (f"Activation_{a}", _activation(a)) for a in [
        "relu", "relu6", "gelu", "silu", "swish", "elu", "selu", "softplus", "softsign",
        "sigmoid", "hard_sigmoid", "hard_silu", "tanh", "exponential", "leaky_relu", "softmax",
        "log_softmax", "mish", "linear", "celu", "glu", "hard_tanh", "log_sigmoid", "sparse_plus",
        "squareplus", "tanh_shrink", "hard_shrink", "soft_shrink", "sparsemax",
    ]
] + [
    ("Activation_threshold", _single(lambda k: k.layers.Activation(
        lambda t: k.activations.threshold(t, 0.1, -1.0)), (6,))),
    ("Activation_gelu_approx", _single(lambda k: k.layers.Activation(
        lambda t: k.activations.gelu(t, approximate=True)), (6,))),
    # reshaping
    ("Reshape", _single(_layer("Reshape", (3, 4)), (12,))),
    ("Flatten", _single(_layer("Flatten"), (3, 4, 2))),
    ("Permute", _single(_layer("Permute", (2, 1)), (3, 4))),
    ("RepeatVector", _single(_layer("RepeatVector", 3), (4,))),
    ("Cropping1D", _single(_layer("Cropping1D", (1, 2)), (8, 3))),
    ("Cropping2D", _single(_layer("Cropping2D", ((1, 0), (2, 1))), (6, 6, 2))),
    ("Cropping3D", _single(_layer("Cropping3D", 1), (4, 4, 4, 2))),
    ("ZeroPadding1D", _single(_layer("ZeroPadding1D", 2), (5, 3))),
    ("ZeroPadding2D", _single(_layer("ZeroPadding2D", ((1, 0), (2, 1))), (4, 4, 2))),
    ("ZeroPadding3D", _single(_layer("ZeroPadding3D", 1), (3, 3, 3, 2))),
    ("UpSampling1D", _single(_layer("UpSampling1D", 2), (4, 3))),
    ("UpSampling2D", _single(_layer("UpSampling2D", 2), (4, 4, 2))),
    ("UpSampling2D_bilinear", _single(_layer("UpSampling2D", 2, interpolation="bilinear"), (4, 4, 2))),
    ("UpSampling3D", _single(_layer("UpSampling3D", 2), (2, 2, 2, 2))),
    # merging
    ("Concatenate", _merge(_layer("Concatenate"), [(3, 4), (3, 2)])),
    ("Add", _merge(_layer("Add"), [(5,), (5,)])),
    ("Subtract", _merge(_layer("Subtract"), [(5,), (5,)])),
    ("Multiply", _merge(_layer("Multiply"), [(5,), (5,)])),
    ("Average", _merge(_layer("Average"), [(5,), (5,), (5,)])),
    ("Maximum", _merge(_layer("Maximum"), [(5,), (5,)])),
    ("Minimum", _merge(_layer("Minimum"), [(5,), (5,)])),
    ("Dot", _build_dot),
    ("Dot_normalize", _build_dot_normalize),
    # preprocessing
    ("TextVectorization", _build_text_vectorization),
    ("TextVectorization_tfidf_bigrams", _build_text_vectorization_tfidf),
    ("StringLookup", _build_string_lookup),
    ("IntegerLookup", _build_integer_lookup),
    ("Hashing", _build_hashing),
    ("Hashing_int_salt", _build_hashing_int),
    ("CategoryEncoding", _build_category_encoding),
    ("CategoryEncoding_count", _build_category_encoding_count),
    ("Normalization", _build_normalization),
    ("Discretization", _build_discretization),
    ("Rescaling", _single(_layer("Rescaling", 1.0 / 127.5, offset=-1.0), (4, 4, 3), data=_img(4, 4, 3))),
    ("Resizing", _single(_layer("Resizing", 6, 5), (8, 8, 3), data=_img(8, 8, 3))),
    ("Resizing_nearest", _single(_layer("Resizing", 6, 5, interpolation="nearest"), (8, 8, 3), data=_img(8, 8, 3))),
    ("Resizing_bicubic", _single(_layer("Resizing", 6, 5, interpolation="bicubic"), (8, 8, 3), data=_img(8, 8, 3))),
    ("Resizing_crop_to_aspect", _single(_layer("Resizing", 4, 6, crop_to_aspect_ratio=True), (8, 8, 3), data=_img(8, 8, 3))),
    ("CenterCrop", _single(_layer("CenterCrop", 4, 4), (7, 6, 3), data=_img(7, 6, 3))),
    ("RandomFlip", _single(_layer("RandomFlip", seed=1), (5, 5, 3), data=_img(5, 5, 3))),
    ("RandomRotation", _single(_layer("RandomRotation", 0.2, seed=1), (5, 5, 3), data=_img(5, 5, 3))),
    ("RandomZoom", _single(_layer("RandomZoom", 0.2, seed=1), (5, 5, 3), data=_img(5, 5, 3))),
    ("RandomTranslation", _single(_layer("RandomTranslation", 0.1, 0.1, seed=1), (5, 5, 3), data=_img(5, 5, 3))),
    ("RandomContrast", _single(_layer("RandomContrast", 0.3, seed=1), (5, 5, 3), data=_img(5, 5, 3))),
    ("RandomBrightness", _single(_layer("RandomBrightness", 0.3, seed=1), (5, 5, 3), data=_img(5, 5, 3))),
    ("RandomCrop", _single(_layer("RandomCrop", 4, 4, seed=1), (5, 5, 3), data=_img(5, 5, 3))),
])


# ---------------------------------------------------------------------------------------------
# Collecting the op types a signature runs.

_FUNC_ATTRS = ("f", "body", "cond", "then_branch", "else_branch", "branches")


def _called_functions(node, functions):
    names = []
    if node.op in functions:
        names.append(node.op)
    for key, v in node.attr.items():
        if v.HasField("func"):
            names.append(v.func.name)
        elif v.HasField("list"):
            names.extend(fn.name for fn in v.list.func)
    return names


def signature_ops(saved_model_dir, signature="serving_default"):
    """The set of op types the signature's subgraph and its functions (transitively) hold."""
    from tensorflow.core.protobuf import saved_model_pb2
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(saved_model_dir, "saved_model.pb"), "rb") as fh:
        sm.ParseFromString(fh.read())
    mg = sm.meta_graphs[0]
    gd = mg.graph_def
    functions = {f.signature.name: f for f in gd.library.function}
    nodes = {n.name: n for n in gd.node}
    todo = []
    for key in (signature, "__saved_model_init_op"):
        if key in mg.signature_def:
            todo += [t.name.split(":")[0] for t in mg.signature_def[key].outputs.values()]
    seen_nodes, ops, func_todo, seen_funcs = set(), set(), [], set()
    # Every node of the main graph is created when the SavedModel is loaded (tables the saver
    # exports, for one), so its op counts; the functions of nodes outside the serving and init
    # subgraphs (the saver's save and restore functions) do not.
    ops.update(n.op for n in gd.node if n.op not in functions)
    while todo:
        name = todo.pop().lstrip("^").split(":")[0]
        if name in seen_nodes or name not in nodes:
            continue
        seen_nodes.add(name)
        n = nodes[name]
        if n.op not in functions:
            ops.add(n.op)
        func_todo.extend(_called_functions(n, functions))
        todo.extend(n.input)
    while func_todo:
        fname = func_todo.pop()
        if fname in seen_funcs or fname not in functions:
            continue
        seen_funcs.add(fname)
        for n in functions[fname].node_def:
            if n.op not in functions:
                ops.add(n.op)
            func_todo.extend(_called_functions(n, functions))
    return ops


# ---------------------------------------------------------------------------------------------
# Graft's registry.

_REGISTRY_SCRIPT = r"""
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
f = lib.graft_op_is_registered
f.argtypes = [ctypes.c_char_p]
f.restype = ctypes.c_int
names = json.load(sys.stdin)
print(json.dumps({n: bool(f(n.encode())) for n in names}))
"""


def graft_registered(names, python, libgraft):
    p = subprocess.run([python, "-c", _REGISTRY_SCRIPT, libgraft], input=json.dumps(sorted(names)),
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"checking Graft's op registry failed: {p.stderr.strip()}")
    return json.loads(p.stdout)


def kernel_sources():
    text = ""
    for path in glob.glob(os.path.join(REPO, "kernels", "cpu", "*.cc")) + \
            glob.glob(os.path.join(REPO, "kernels", "cpu", "*.h")):
        with open(path, encoding="utf-8", errors="replace") as fh:
            text += fh.read()
    return text


# ---------------------------------------------------------------------------------------------

def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="folder for the exported SavedModels (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--only", nargs="*", help="layers to check (default: all)")
    ap.add_argument("--no-run", action="store_true", help="only list the ops; do not run Graft")
    ap.add_argument("--graft-python", default=ckm._system_python())
    ap.add_argument("--graft-site", default=ckm.DEFAULT_SITE)
    ap.add_argument("--libgraft", default=os.path.join(REPO, "build", "c_api", "libgraft.so"))
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--json", help="also write the results as JSON to this file")
    args = ap.parse_args(argv)
    args.repeats = 0

    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    import keras

    if args.only:
        unknown = [n for n in args.only if n not in LAYERS]
        if unknown:
            ap.error(f"unknown layers {unknown}")
    todo = [(n, b) for n, b in LAYERS.items() if not args.only or n in args.only]

    tmp = None
    out = args.out
    if out is None:
        tmp = out = tempfile.mkdtemp(prefix="graft_keras_ops_")
    os.makedirs(out, exist_ok=True)
    print(f"TensorFlow {tf.__version__}, Keras {keras.__version__}; models under {out}", flush=True)

    rows = []
    try:
        for name, builder in todo:
            model_dir = os.path.join(out, name)
            work = os.path.join(out, name + ".io")
            os.makedirs(work, exist_ok=True)
            row = {"layer": name, "ops": [], "missing": [], "runs": None, "matches": None,
                   "abs": None, "error": ""}
            rows.append(row)
            try:
                feeds, ref, _ = ckm._export_and_reference(tf, keras, name, builder, model_dir, 0)
                row["ops"] = sorted(signature_ops(model_dir))
            except Exception as e:
                row["error"] = f"TensorFlow side: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
                print(f"  {name}: {row['error']}", flush=True)
                continue
            if not args.no_run:
                result, got = ckm._run_graft(args, model_dir, feeds, work)
                row["runs"] = got is not None
                if got is None:
                    row["error"] = result.get("error", "no result")
                else:
                    a, _, problem = ckm._compare(ref, got, args.tol)
                    row["abs"] = a
                    row["matches"] = problem is None
                    row["error"] = problem or ""
            print(f"  {name}: {len(row['ops'])} ops"
                  + ("" if args.no_run else f", {'runs' if row['runs'] else 'FAILS'}"
                     + (f", {'matches' if row['matches'] else 'DIFFERS'} (max abs diff {row['abs']:.3g})"
                        if row["runs"] else ""))
                  + (f": {row['error'][:300]}" if row["error"] else ""), flush=True)
    finally:
        if tmp is not None and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    all_ops = sorted(set().union(*[set(r["ops"]) for r in rows])) if rows else []
    registered = graft_registered(all_ops, args.graft_python, args.libgraft)
    ksrc = kernel_sources()
    no_kernel = [op for op in all_ops if registered.get(op) and f'"{op}"' not in ksrc]
    users = collections.defaultdict(list)
    for r in rows:
        r["missing"] = [op for op in r["ops"] if not registered.get(op)]
        for op in r["ops"]:
            users[op].append(r["layer"])
    missing = [op for op in all_ops if not registered.get(op)]

    print()
    print(f"{'layer':<34} {'ops':>4} {'runs':>5} {'match':>6} {'max abs':>9}  missing ops / error")
    for r in rows:
        runs = "-" if r["runs"] is None else ("yes" if r["runs"] else "NO")
        match = "-" if r["matches"] is None else ("yes" if r["matches"] else "NO")
        diff = "" if r["abs"] is None else f"{r['abs']:.2g}"
        note = ", ".join(r["missing"])
        if r["error"] and (not r["missing"] or r["runs"] is not False):
            # Graft's errors name every enclosing function call first; the cause is at the end.
            err = r["error"] if len(r["error"]) <= 160 else "..." + r["error"][-150:]
            note = (note + "; " if note else "") + err
        elif r["error"] and r["missing"]:
            note += "  (" + r["error"].split(":")[0] + ")"
        print(f"{r['layer']:<34} {len(r['ops']):>4} {runs:>5} {match:>6} {diff:>9}  {note}")

    n_run = sum(1 for r in rows if r["runs"])
    n_match = sum(1 for r in rows if r["matches"])
    print()
    print(f"{len(rows)} layer models: {n_run} run in Graft, {n_match} match TensorFlow within {args.tol:g}"
          + (" (not run: --no-run)" if args.no_run else ""))
    print(f"{len(all_ops)} distinct TensorFlow op types in their serving graphs; Graft registers "
          f"{len(all_ops) - len(missing)}, lacks {len(missing)}")
    if missing:
        print("missing ops (layers that use them):")
        for op in missing:
            print(f"  {op:<34} {', '.join(users[op])}")
    if no_kernel:
        print("registered, but no CPU kernel found by name under kernels/cpu (a hint; may be a "
              "rewrite or a kernel registered by a computed name): " + ", ".join(no_kernel))
    print("all op types: " + " ".join(all_ops))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"layers": rows, "ops": all_ops, "missing": {op: users[op] for op in missing},
                       "no_kernel_found": no_kernel}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
