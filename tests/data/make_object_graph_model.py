#!/usr/bin/env python3
"""Writes tests/data/object_graph_module: a SavedModel of a tf.Module whose variables are reached
through lists, dicts and a second path, with tf.functions (one traced twice, one with nested
arguments, one with side effects), a captured constant and an asset. Needs TensorFlow (run once
with TensorFlow 2.21; the output is committed and read by tests/c_api/test_saved_model_objects.c
and the Python binding's tests). Prints the values TensorFlow computes, which the tests assert.

    python3 tests/data/make_object_graph_model.py tests/data/object_graph_module
"""
import os
import sys
import tempfile

import tensorflow as tf

out = sys.argv[1]

class Dense(tf.Module):
    def __init__(self, i, o, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.reshape(tf.range(i*o, dtype=tf.float32) / 10.0, [i, o]), name="w")
        self.b = tf.Variable(tf.ones([o]) * 0.5, name="b")
    @tf.function
    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)

class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(3, 4), Dense(4, 2)]
        self.table = {"scale": tf.Variable(2.0), "shift": tf.Variable([1.0, -1.0])}
        self.shared = self.layers[1].b      # the same variable through two paths
        self.steps = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.offset = tf.constant([10.0, 20.0])
        vocab = os.path.join(tempfile.mkdtemp(), "vocab.txt")
        with open(vocab, "w") as f:
            f.write("alpha\nbeta\n")
        self.vocab = tf.saved_model.Asset(vocab)
        # Lookup tables: a vocabulary file (an asset) and key/value tensors.
        words = os.path.join(tempfile.mkdtemp(), "words.txt")
        with open(words, "w") as f:
            f.write("apple\nbanana\ncherry\n")
        self.words = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(words, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                          tf.lookup.TextFileIndex.LINE_NUMBER), -1)
        self.kv = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(tf.constant([1, 5, 9], tf.int64), tf.constant([0.5, 1.5, 2.5])), -1.0)
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)])
    def loop(self, x, n):
        # A while loop growing a TensorArray.
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        i = tf.constant(0)
        acc = x
        while i < n:
            acc = acc * self.table["scale"] + 1.0
            ta = ta.write(i, tf.reduce_sum(acc))
            i += 1
        return acc, ta.stack()
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def word_ids(self, s):
        return self.words.lookup(s)
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int64)])
    def kv_lookup(self, k):
        return self.kv.lookup(k), self.kv.size()
    @tf.function(input_signature=[])
    def read_vocab(self):
        return tf.io.read_file(self.vocab)
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def add_offset(self, v):
        return v + self.offset
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def predict(self, x):
        h = x
        for l in self.layers:
            h = l(h)
        return h * self.table["scale"] + self.table["shift"]
    @tf.function
    def poly(self, a, b=1.0, scale=True):
        return {"sum": a + b, "prod": a * b if scale else a}
    @tf.function(input_signature=[(tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.int32))])
    def pair(self, p):
        v, n = p
        return v * tf.cast(n, tf.float32), n + 1
    @tf.function(input_signature=[])
    def bump(self):
        self.steps.assign_add(1)
        return self.steps.read_value()

net = Net()
# An optimizer's slot variables after one step (Keras 3 tracks them in lists).
import keras  # noqa: E402
opt = keras.optimizers.Adam(0.1)
net.trained = tf.Variable([1.0, 2.0])
opt.apply_gradients([(tf.constant([0.5, -0.25]), net.trained)])
net.opt = opt
print("adam", opt.iterations.numpy(), [v.numpy().tolist() for v in opt._momentums])
x = tf.constant([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
print("predict", net.predict(x).numpy().tolist())
net.poly.get_concrete_function(tf.TensorSpec([None], tf.float32, name="a"))
net.poly.get_concrete_function(tf.TensorSpec([None], tf.int32, name="a"), tf.TensorSpec([], tf.int32, name="b"))
print("poly f32", {k: v.numpy().tolist() for k, v in net.poly(tf.constant([1.0, 2.0])).items()})
print("poly i32", {k: v.numpy().tolist() for k, v in net.poly(tf.constant([1, 2]), tf.constant(3)).items()})
print("pair", [t.numpy().tolist() for t in net.pair((tf.constant([1.0, 2.0]), tf.constant(3)))])
print("read_vocab", net.read_vocab().numpy())
print("word_ids", net.word_ids(tf.constant(["banana", "zzz", "apple"])).numpy().tolist())
print("kv_lookup", [t.numpy().tolist() for t in net.kv_lookup(tf.constant([5, 2], tf.int64))])
print("loop", [t.numpy().tolist() for t in net.loop(tf.constant([1.0, -1.0]), tf.constant(3))])
print("add_offset", net.add_offset(tf.constant([1.0, 2.0])).numpy().tolist())
tf.saved_model.save(net, out, signatures={"serving_default": net.predict, "word_ids": net.word_ids})
l = tf.saved_model.load(out)
print(type(l), dir(l)[:5], l.layers, l.table, l.shared is l.layers[1].b)
print("bump", l.bump().numpy(), l.bump().numpy())
print("layer0", l.layers[0](x).numpy().tolist())
