"""Writes the TensorFlow 1 GraphDefs of tests/c_api/test_graph_def_tf1.c (run with TensorFlow 2.x;
the tests read the committed .pb files and never need TensorFlow):

  defun_tf1.pb       function.Defun calls written as nodes whose op is the function's name: a
                     two-result call, a call whose function calls another the same way, and a
                     stateful function (RandomUniform over [0, 0), so its value is known).
  while_tf1.pb       a tf.compat.v1.while_loop (control flow v1: Enter/Merge/Switch/Exit) with a
                     loop-invariant (is_constant) Enter and two loop variables.
  arg_retval.pb      _Arg/_Retval nodes in a top-level graph, as function instantiation writes them.

The values the tests expect are printed as TensorFlow computes them.
"""
import os
import numpy as np
import tensorflow as tf
from tensorflow.core.framework import graph_pb2, types_pb2
from tensorflow.python.framework import function

tf.compat.v1.disable_eager_execution()
tf.compat.v1.disable_control_flow_v2()
here = os.path.dirname(os.path.abspath(__file__))


def save(g_or_gd, name):
    gd = g_or_gd.as_graph_def() if isinstance(g_or_gd, tf.Graph) else g_or_gd
    with open(os.path.join(here, name), "wb") as f:
        f.write(gd.SerializeToString(deterministic=True))


def defun():
    g = tf.Graph()
    with g.as_default():
        @function.Defun(tf.float32, tf.float32)
        def MyAdd(a, b):
            return a * 2.0 + b, a - b

        @function.Defun(tf.float32)
        def Inner(a):
            return a * a, a + 1.0

        @function.Defun(tf.float32, tf.float32)
        def Outer(a, b):
            s, t = Inner(a)
            return s * b + t

        @function.Defun(tf.float32)
        def Noisy(a):
            return a + tf.random.uniform([], 0.0, 0.0)

        x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
        y = tf.constant([1.0, 2.0], name="y")
        r0, r1 = MyAdd(x, y, name="call")
        z = tf.identity(r0 + r1, name="z")
        outer = tf.identity(Outer(x, y, name="outer_call"), name="outer")
        noisy = tf.identity(Noisy(x, name="noisy_call"), name="noisy")
    save(g, "defun_tf1.pb")
    with tf.compat.v1.Session(graph=g) as s:
        feed = {x: [3.0, -2.0]}
        print("defun: call, call:1, z, outer, noisy =", s.run([r0, r1, z, outer, noisy], feed))
        print("defun: d outer / d x =", s.run(tf.gradients(outer, x), feed))


def while_loop():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        c = tf.constant(2.0, shape=[4], name="c")
        i0 = tf.constant(0, name="i0")

        def body(i, v):
            return i + 1, v * 2.0 + tf.reduce_sum(c)

        r = tf.compat.v1.while_loop(lambda i, v: i < 3, body, [i0, x], name="loop")
    save(g, "while_tf1.pb")
    g2 = tf.Graph()
    with g2.as_default():
        tf.graph_util.import_graph_def(g.as_graph_def(), name="")
        for op in g2.get_operations():
            if op.type == "Enter":
                print("while: imported", op.name, "shape", op.outputs[0].shape)
    with tf.compat.v1.Session(graph=g) as s:
        print("while: results", s.run(r, {x: np.ones([2, 3], np.float32)}))


def arg_retval():
    gd = graph_pb2.GraphDef()
    a = gd.node.add(name="a", op="_Arg")
    a.attr["T"].type = types_pb2.DT_FLOAT
    a.attr["index"].i = 0
    b = gd.node.add(name="b", op="_Arg")
    b.attr["T"].type = types_pb2.DT_FLOAT
    b.attr["index"].i = 1
    b.attr["_output_shapes"].list.shape.add().dim.add(size=2)
    m = gd.node.add(name="m", op="Mul", input=["a", "b"])
    m.attr["T"].type = types_pb2.DT_FLOAT
    r = gd.node.add(name="r", op="_Retval", input=["m"])
    r.attr["T"].type = types_pb2.DT_FLOAT
    r.attr["index"].i = 0
    save(gd, "arg_retval.pb")
    g = tf.Graph()
    with g.as_default():
        tf.graph_util.import_graph_def(gd, name="")
        print("arg_retval: shapes", [(op.name, [o.shape for o in op.outputs]) for op in g.get_operations()])
        with tf.compat.v1.Session(graph=g) as s:
            print("arg_retval: m =", s.run("m:0", {"a:0": np.float32(3), "b:0": np.float32([4, 5])}))


defun()
while_loop()
arg_retval()
