"""A short tour of Graft from Python: eager ops, a graph with a MatMul run by a Session, a
traced function called with two shapes, and a host function inside it."""
import numpy as np

import graft

# Eager: ops run at once.
x = graft.constant([[1.0, 2.0], [3.0, 4.0]])
print("x @ x =", (x @ x).numpy().tolist())

# A graph, run by a session.
g = graft.Graph()
with g.as_default():
    a = graft.compat.v1.placeholder(graft.float32, [None, 2], name="a")
    y = graft.matmul(a, graft.constant([[1.0], [1.0]]), name="y")
    with graft.compat.v1.Session() as sess:
        print("row sums =", sess.run(y, {a: [[1, 2], [3, 4]]}).ravel().tolist())


# A traced function: one trace per input signature, then cached.
@graft.function
def scaled_relu(t):
    doubled = graft.py_function(lambda v: v.numpy() * 2, [t], graft.float32)
    return graft.nn.relu(doubled)


print(scaled_relu(graft.constant([-1.0, 3.0])).numpy().tolist())
print(scaled_relu(graft.constant([[5.0]])).numpy().tolist())
print(scaled_relu(graft.constant([7.0, -7.0])).numpy().tolist())
print("traces:", scaled_relu.experimental_get_tracing_count())
