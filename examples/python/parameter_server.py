"""A graph across processes (graft.Session(cluster=...)): linear regression with its weights on a
parameter server and its gradients computed on two workers, TensorFlow 1's in-graph replication.

    mpirun -np 3 python3 examples/python/parameter_server.py

Ranks are tasks in the order of the cluster spec "worker:2,ps:1": rank 0 is /job:worker/task:0
(the client, which runs the training loop), rank 1 /job:worker/task:1, rank 2 /job:ps/task:0.
Every process builds the same graph; the client runs it and the others serve it. Each worker
computes the gradient of its half of the batch; the update, on the parameter server, applies
their mean. Exits with status 1 unless the weights reach the true ones (ctest:
python.example_parameter_server_np3)."""
import sys

import numpy as np

import graft

tf = graft.compat.v1
graph = graft.Graph()
rng = np.random.default_rng(3)
true_w = np.array([[2.0], [-3.0], [0.5]], np.float32)
x_data = rng.normal(0, 1, (64, 3)).astype(np.float32)
y_data = x_data @ true_w

with graph.as_default():
    with graft.device("/job:ps/task:0"):
        w = graft.Variable(np.zeros((3, 1), np.float32), name="w")
    x = tf.placeholder(graft.float32, (64, 3), name="x")
    y = tf.placeholder(graft.float32, (64, 1), name="y")
    grads = []
    for task in range(2):
        with graft.device(f"/job:worker/task:{task}"):
            xs, ys = x[task * 32:(task + 1) * 32], y[task * 32:(task + 1) * 32]
            loss = graft.reduce_mean(graft.square(graft.matmul(xs, w) - ys))
            grads.append(graft.gradients(loss, [w])[0])
    with graft.device("/job:ps/task:0"):
        train = w.assign_sub(0.1 * graft.add_n(grads) / 2.0)
    init = tf.global_variables_initializer()

session = graft.Session(graph=graph, cluster="worker:2,ps:1")
if graft.distribute.rank() != 0:
    session.serve()  # until the client closes its session
    sys.exit(0)

session.run(init)
for step in range(200):
    session.run(train, {x: x_data, y: y_data})
learned = session.run(w)
session.close()
error = float(np.max(np.abs(learned - true_w)))
print("learned weights:", learned.ravel().round(4).tolist())
print(f"weights reached the true ones: {error < 1e-3} (max |error| {error:.2e})")
sys.exit(0 if error < 1e-3 else 1)
