"""graft.saved_model.save (tf.saved_model.save): an object's signature functions with the
variables they use, loaded back by graft.saved_model.load. (TensorFlow loads the same
directories; that was checked by hand with TensorFlow 2.21, no test depends on it.)"""
import numpy as np
import pytest

import graft


class Dense(graft.Module):
    def __init__(self):
        super().__init__()
        self.w = graft.Variable(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), name="w")
        self.b = graft.Variable(np.array([0.5, -0.5], np.float32), name="b")

    @graft.function(input_signature=[graft.TensorSpec([None, 2], graft.float32, name="x")])
    def __call__(self, x):
        return {"y": graft.matmul(x, self.w) + self.b, "norm": graft.reduce_sum(x * x, axis=1)}


def _run(model, name="serving_default", **inputs):
    out = model.signatures[name](**{k: graft.constant(v) for k, v in inputs.items()})
    return {k: v.numpy() for k, v in out.items()}


def test_a_method_with_an_input_signature_traces_once_per_instance():
    a, b = Dense(), Dense()
    b.b.assign([10.0, 10.0])
    x = np.array([[1.0, 1.0]], np.float32)
    np.testing.assert_allclose(a(x)["y"].numpy(), [[4.5, 5.5]])
    np.testing.assert_allclose(a(np.ones((3, 2), np.float32))["y"].numpy(), [[4.5, 5.5]] * 3)
    np.testing.assert_allclose(b(x)["y"].numpy(), [[14.0, 16.0]])
    assert Dense.__call__.experimental_get_tracing_count() == 2  # one per instance, not per shape
    args, _ = a.__call__.get_concrete_function().structured_input_signature
    assert [s.name for s in args if isinstance(s, graft.TensorSpec)] == ["x"]
    # Through the class, the instance first; whatever ran before (the rule is the signature's
    # length against the parameters', not a flag set by a bound call).
    np.testing.assert_allclose(Dense.__call__(b, x)["y"].numpy(), [[14.0, 16.0]])
    with pytest.raises(TypeError, match="is a method: call get_concrete_function"):
        Dense.__call__.get_concrete_function()

    @graft.function(input_signature=[graft.TensorSpec([2], graft.float32)])
    def plain(v):
        return v * 2.0

    np.testing.assert_allclose(plain(np.ones(2, np.float32)).numpy(), [2.0, 2.0])
    assert plain.get_concrete_function() is not None


def test_save_then_load_gives_the_eager_results_with_the_current_values(tmp_path):
    m = Dense()
    m.w.assign_add(np.ones((2, 2), np.float32))  # saved: the values now, not the initial ones
    x = np.array([[1.0, 2.0], [0.0, -1.0]], np.float32)
    want = {k: v.numpy() for k, v in m(x).items()}
    graft.saved_model.save(m, str(tmp_path / "m"))
    loaded = graft.saved_model.load(str(tmp_path / "m"))
    assert sorted(loaded.signatures) == ["serving_default"]
    got = _run(loaded, x=x)
    assert sorted(got) == ["norm", "y"]
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-6)
    m.w.assign(np.zeros((2, 2), np.float32))  # the saved model does not follow the object
    np.testing.assert_allclose(_run(loaded, x=x)["y"], want["y"], rtol=1e-6)


def test_several_signatures_share_a_variable_and_name_their_outputs(tmp_path):
    class Scaler(graft.Module):
        def __init__(self):
            super().__init__()
            self.k = graft.Variable(np.float32(3.0), name="k")
            self.layers = [graft.Variable(np.float32(1.0), name="offset")]

        @graft.function(input_signature=[graft.TensorSpec([None], graft.float32, name="v")])
        def scale(self, v):
            return v * self.k

        @graft.function(input_signature=[graft.TensorSpec([], graft.float32, name="a"),
                                         graft.TensorSpec([], graft.int32, name="n")])
        def pair(self, a, n):
            return a * self.k + self.layers[0], n + 1

    s = Scaler()
    graft.saved_model.save(s, str(tmp_path / "s"), signatures={"scale": s.scale, "pair": s.pair})
    loaded = graft.saved_model.load(str(tmp_path / "s"))
    assert sorted(loaded.signatures) == ["pair", "scale"]
    np.testing.assert_allclose(_run(loaded, "scale", v=np.array([1.0, 2.0], np.float32))["output_0"], [3.0, 6.0])
    out = _run(loaded, "pair", a=np.float32(2.0), n=np.int32(4))
    assert sorted(out) == ["output_0", "output_1"]
    assert float(out["output_0"]) == 7.0 and int(out["output_1"]) == 5
    # One variable behind both signatures: saved once, under its own name.
    assert sorted(loaded.graph.get_operation_by_name(n).type for n in ("k", "offset")) == ["VarHandleOp"] * 2


def test_a_concrete_function_and_a_plain_graft_function(tmp_path):
    v = graft.Variable(np.float32(2.0), name="v")
    holder = graft.Module()
    holder.v = v

    @graft.function
    def double(x):
        return x * v

    concrete = double.get_concrete_function(graft.TensorSpec([2], graft.float32, name="x"))
    graft.saved_model.save(holder, str(tmp_path / "c"), signatures=concrete)
    loaded = graft.saved_model.load(str(tmp_path / "c"))
    np.testing.assert_allclose(_run(loaded, x=np.array([1.0, 4.0], np.float32))["output_0"], [2.0, 8.0])


def test_a_plain_object_s_attributes_are_tracked(tmp_path):
    class Plain:
        def __init__(self):
            self.v = graft.Variable(np.float32(4.0), name="pv")

        @graft.function(input_signature=[graft.TensorSpec([], graft.float32, name="a")])
        def __call__(self, a):
            return a * self.v

    graft.saved_model.save(Plain(), str(tmp_path / "p"))
    loaded = graft.saved_model.load(str(tmp_path / "p"))
    assert float(_run(loaded, a=np.float32(2.0))["output_0"]) == 8.0


def test_errors_name_the_signature_and_leave_nothing(tmp_path):
    untracked = graft.Variable(np.float32(1.0))

    class Leaky(graft.Module):
        @graft.function(input_signature=[graft.TensorSpec([], graft.float32)])
        def __call__(self, x):
            return x + untracked

    with pytest.raises(ValueError, match="serving_default.*not reachable"):
        graft.saved_model.save(Leaky(), str(tmp_path / "leaky"))
    assert not (tmp_path / "leaky").exists()

    class NoSignature(graft.Module):
        @graft.function
        def __call__(self, x):
            return x

    with pytest.raises(ValueError, match="0 graft.functions with an input_signature"):
        graft.saved_model.save(NoSignature(), str(tmp_path / "n"))
    with pytest.raises(ValueError, match="'f' is a graft.function without an input_signature"):
        graft.saved_model.save(NoSignature(), str(tmp_path / "n"), signatures={"f": NoSignature().__call__})
    with pytest.raises(TypeError, match="'g' is 3"):
        graft.saved_model.save(Dense(), str(tmp_path / "n"), signatures={"g": 3})
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "file").write_text("x")
    with pytest.raises(graft.errors.OpError):
        graft.saved_model.save(Dense(), str(tmp_path / "full"))
    assert sorted(p.name for p in (tmp_path / "full").iterdir()) == ["file"]
