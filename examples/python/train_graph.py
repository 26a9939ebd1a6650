"""Training in TensorFlow 1's graph mode with Graft: graft.compat.v1 placeholders, variables and
optimizers (GradientDescentOptimizer, AdamOptimizer), whose minimize(loss) adds the gradient
(graft.gradients) and the update ops to the graph and returns the train op run by a Session.

1. Linear regression y = 3 x - 2 with gradient descent.
2. A 2-layer perceptron classifying points inside / outside a circle with Adam (softmax
   cross-entropy), trained on mini-batches fed through placeholders.

Exits with status 1 unless both losses fall well (ctest: python.example_train_graph)."""
import sys

import numpy as np

import graft

tf = graft.compat.v1
rng = np.random.default_rng(0)

# ---- 1. linear regression, gradient descent -------------------------------------------------------
g1 = graft.Graph()
with g1.as_default():
    x = tf.placeholder(graft.float32, [None], name="x")
    y = tf.placeholder(graft.float32, [None], name="y")
    w = graft.Variable(0.0, name="w")
    b = graft.Variable(0.0, name="b")
    loss = graft.reduce_mean(graft.square(w * x + b - y), name="loss")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    xs = rng.uniform(-1, 1, 100).astype(np.float32)
    ys = 3 * xs - 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: xs, y: ys})
        for _ in range(200):
            sess.run(train, {x: xs, y: ys})
        final, w_v, b_v, steps = sess.run([loss, w.read_value(), b.read_value(), step.read_value()], {x: xs, y: ys})
print(f"linear regression: loss {first:.4f} -> {final:.6f}, w = {w_v:.3f}, b = {b_v:.3f} after {steps} steps")
ok_linear = final < 1e-3 * first and abs(w_v - 3) < 0.05 and abs(b_v + 2) < 0.05

# ---- 2. a small MLP classifier, Adam ----------------------------------------------------------------
def batch(n):
    pts = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
    inside = (np.sum(pts * pts, axis=1) < 0.5).astype(np.int64)
    return pts, np.eye(2, dtype=np.float32)[inside]


g2 = graft.Graph()
with g2.as_default():
    graft.set_random_seed(1)
    x = tf.placeholder(graft.float32, [None, 2], name="x")
    labels = tf.placeholder(graft.float32, [None, 2], name="labels")
    init = tf.glorot_uniform_initializer(seed=2)
    w1 = graft.Variable(init([2, 16]), name="w1")
    b1 = graft.Variable(graft.zeros([16]), name="b1")
    w2 = graft.Variable(init([16, 2]), name="w2")
    b2 = graft.Variable(graft.zeros([2]), name="b2")
    hidden = graft.nn.relu(graft.matmul(x, w1) + b1)
    logits = graft.matmul(hidden, w2) + b2
    log_probs = graft.nn.log_softmax(logits)
    loss = -graft.reduce_mean(graft.reduce_sum(labels * log_probs, axis=1), name="loss")
    accuracy = graft.reduce_mean(graft.cast(graft.equal(graft.argmax(logits, 1), graft.argmax(labels, 1)),
                                            graft.float32))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    test_x, test_y = batch(500)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: test_x, labels: test_y})
        for i in range(1, 301):
            bx, by = batch(64)
            sess.run(train, {x: bx, labels: by})
            if i % 100 == 0:
                print(f"  step {i}: test loss {sess.run(loss, {x: test_x, labels: test_y}):.4f}")
        final, acc = sess.run([loss, accuracy], {x: test_x, labels: test_y})
print(f"MLP classifier: loss {first:.4f} -> {final:.4f}, test accuracy {acc:.3f}")
ok_mlp = final < 0.5 * first and acc > 0.9

if not (ok_linear and ok_mlp):
    print("training did not converge")
    sys.exit(1)
print("training converged")
