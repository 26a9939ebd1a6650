"""Training with graft.GradientTape inside a graft.function, then saving the model as a SavedModel
with a serving signature and a train signature.

1. A 2-16-2 perceptron learns whether a point lies inside the unit circle: each step is one
   graft.function call whose trace holds the forward pass, the tape's gradient and the Adam
   updates (graft.optimizers.Adam).
2. The trained weights go into a graph (graft.compat.v1) with a "serving_default" signature
   (x -> probabilities) and a "train" signature (x, y -> loss, running one Adam step), written by
   graft.saved_model.save_session. TensorFlow's loaders read the directory too.
3. The SavedModel is loaded back: its predictions equal the trained function's, and calling its
   train signature keeps lowering the loss.

Usage: train_function.py [export_dir]  (by default a temporary directory, removed at the end).
Exits with status 1 unless the loss falls and the reloaded model agrees (ctest:
python.example_train_function)."""
import os
import sys
import tempfile

import numpy as np

import graft

rng = np.random.default_rng(0)


def make_data(n):
    x = rng.uniform(-1.5, 1.5, (n, 2)).astype(np.float32)
    y = (np.sum(x * x, axis=1) < 1.0).astype(np.int32)
    return x, y


def forward(params, x):
    w1, b1, w2, b2 = params
    h = graft.nn.relu(graft.matmul(x, w1) + b1)
    return graft.matmul(h, w2) + b2


def loss_of(logits, y):
    return graft.reduce_mean(graft.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


# ---- 1. train eagerly-called graft.function steps -------------------------------------------------
init = [rng.normal(0, 0.5, (2, 16)).astype(np.float32), np.zeros(16, np.float32),
        rng.normal(0, 0.5, (16, 2)).astype(np.float32), np.zeros(2, np.float32)]
params = [graft.Variable(v, name=n) for v, n in zip(init, ("w1", "b1", "w2", "b2"))]
opt = graft.optimizers.Adam(learning_rate=0.05)


@graft.function
def train_step(x, y):
    with graft.GradientTape() as tape:
        loss = loss_of(forward(params, x), y)
    opt.apply_gradients(zip(tape.gradient(loss, params), params))
    return loss


x_train, y_train = make_data(512)
xt, yt = graft.constant(x_train), graft.constant(y_train)
first = float(train_step(xt, yt).numpy())
for step in range(1, 301):
    loss = float(train_step(xt, yt).numpy())
    if step % 100 == 0:
        print(f"step {step:3d}  loss {loss:.4f}")
print(f"traces of train_step: {train_step.experimental_get_tracing_count()}")
x_test, y_test = make_data(256)
test_logits = forward(params, graft.constant(x_test)).numpy()
accuracy = float(np.mean(np.argmax(test_logits, axis=1) == y_test))
print(f"loss {first:.4f} -> {loss:.4f}, test accuracy {accuracy:.3f}")

# ---- 2. export: serving and train signatures ----------------------------------------------------
v1 = graft.compat.v1
scratch = None if len(sys.argv) > 1 else tempfile.TemporaryDirectory(prefix="graft_")
export_dir = sys.argv[1] if scratch is None else os.path.join(scratch.name, "circle")
g = graft.Graph()
with g.as_default():
    x = v1.placeholder(graft.float32, [None, 2], name="x")
    y = v1.placeholder(graft.int32, [None], name="y")
    exported = [graft.Variable(p.numpy(), name=n) for p, n in zip(params, ("w1", "b1", "w2", "b2"))]
    logits = forward(exported, x)
    probabilities = graft.nn.softmax(logits, name="probabilities")
    export_loss = loss_of(logits, y)
    train_op = v1.train.AdamOptimizer(0.01).minimize(export_loss)
    with g.control_dependencies([train_op]):
        trained_loss = graft.identity(export_loss, name="train_loss")
    with v1.Session(graph=g) as sess:
        sess.run(v1.global_variables_initializer())
        graft.saved_model.save_session(sess, export_dir, {
            "serving_default": ({"x": x}, {"probabilities": probabilities}),
            "train": ({"x": x, "y": y}, {"loss": trained_loss}),
        })
print(f"saved {export_dir}: {sorted(os.listdir(export_dir))}")

# ---- 3. load it back ----------------------------------------------------------------------------
model = graft.saved_model.load(export_dir)
print(f"signatures: {sorted(model.signatures)}")
served = model.signatures["serving_default"](x=graft.constant(x_test))["probabilities"].numpy()
expected = np.exp(test_logits - test_logits.max(axis=1, keepdims=True))
expected /= expected.sum(axis=1, keepdims=True)
agree = np.allclose(served, expected, atol=1e-5)
train = model.signatures["train"]
losses = [float(train(x=xt, y=yt)["loss"].numpy()) for _ in range(20)]
print(f"serving signature matches the trained function: {agree}; train signature loss "
      f"{losses[0]:.4f} -> {losses[-1]:.4f}")

del model, train
if scratch is not None:
    scratch.cleanup()
ok = loss < 0.5 * first and accuracy > 0.9 and agree and losses[-1] < losses[0]
sys.exit(0 if ok else 1)
