"""graft.saved_model.load on a TensorFlow 2 module (tests/data/object_graph_module, written by
tests/data/make_object_graph_model.py with TensorFlow 2.21; the expected values are the ones
TensorFlow printed): the saved object's children, variables and tf.functions, as
tf.saved_model.load gives them."""
import os
import pathlib

import numpy as np
import pytest

import graft

MODEL = pathlib.Path(__file__).resolve().parents[3] / "tests" / "data" / "object_graph_module"
X = [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]


@pytest.fixture(scope="module")
def loaded():
    return graft.saved_model.load(str(MODEL))


def test_children_lists_dicts_and_shared_variables(loaded):
    assert isinstance(loaded.layers, list) and len(loaded.layers) == 2
    assert sorted(loaded.table) == ["scale", "shift"]
    assert loaded.shared is loaded.layers[1].b  # one variable reached by two paths
    assert loaded.layers[0].b is not loaded.layers[1].b
    np.testing.assert_allclose(loaded.layers[0].w.numpy(), np.arange(12, dtype=np.float32).reshape(3, 4) / 10)
    np.testing.assert_array_equal(loaded.table["shift"].numpy(), [1.0, -1.0])
    assert loaded.table["scale"].dtype == graft.float32 and loaded.table["shift"].shape == (2,)
    assert loaded.vocab.asset_path.endswith("assets/vocab.txt")
    assert "serving_default" in loaded.signatures


def test_functions_give_tensorflows_values(loaded):
    want = [[14.24, 15.92], [8.36, 8.38]]
    np.testing.assert_allclose(loaded.predict(graft.constant(X)).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(loaded.signatures["serving_default"](x=graft.constant(X))["output_0"].numpy(), want,
                               rtol=1e-5)
    # A layer in the list, called through its restored __call__.
    np.testing.assert_allclose(loaded.layers[0](graft.constant(X)).numpy(),
                               [[3.7, 4.3, 4.9, 5.5], [2.3, 2.45, 2.6, 2.75]], rtol=1e-5)
    np.testing.assert_array_equal(loaded.add_offset(np.array([1.0, 2.0], np.float32)).numpy(), [11.0, 22.0])
    np.testing.assert_array_equal(loaded.add_offset([1.0, 2.0]).numpy(), [11.0, 22.0])  # a Python list converts
    assert loaded.read_vocab().numpy() == b"alpha\nbeta\n"


def test_polymorphic_function_picks_the_matching_trace(loaded):
    assert len(loaded.poly.concrete_functions) == 2
    out = loaded.poly(graft.constant([1.0, 2.0]))
    assert sorted(out) == ["prod", "sum"]
    np.testing.assert_array_equal(out["sum"].numpy(), [2.0, 3.0])
    out = loaded.poly(graft.constant([1, 2]), b=graft.constant(3))
    assert out["sum"].dtype == graft.int32
    np.testing.assert_array_equal(out["prod"].numpy(), [3, 6])
    with pytest.raises(ValueError, match="Could not find matching concrete function.*2 option"):
        loaded.poly(graft.constant([1.0, 2.0]), graft.constant(3))
    with pytest.raises(ValueError, match="Could not find matching"):
        loaded.predict(graft.constant([1.0, 2.0]))  # wrong rank


def test_nested_arguments_and_results(loaded):
    v, n = loaded.pair((graft.constant([1.0, 2.0]), graft.constant(3)))
    np.testing.assert_array_equal(v.numpy(), [3.0, 6.0])
    assert n.numpy() == 4
    cf = loaded.pair.concrete_functions[0]
    spec = cf.structured_input_signature
    assert spec[0][0][0].shape == (2,) and spec[0][0][1].dtype == graft.int32


def test_side_effects_persist_and_are_shared():
    loaded = graft.saved_model.load(str(MODEL))
    assert loaded.steps.numpy() == 0
    assert loaded.bump().numpy() == 1
    assert loaded.bump().numpy() == 2
    assert loaded.steps.numpy() == 2


def test_lookup_tables(loaded):
    np.testing.assert_array_equal(loaded.word_ids(graft.constant(["banana", "zzz", "apple"])).numpy(), [1, -1, 0])
    np.testing.assert_array_equal(loaded.signatures["word_ids"](s=graft.constant(["cherry"]))["output_0"].numpy(), [2])
    values, size = loaded.kv_lookup(np.array([5, 2], np.int64))
    np.testing.assert_array_equal(values.numpy(), [1.5, -1.0])
    assert size.numpy() == 3


def test_loops_tensor_arrays_and_optimizer_slots(loaded):
    acc, sums = loaded.loop(graft.constant([1.0, -1.0]), graft.constant(3))
    np.testing.assert_array_equal(acc.numpy(), [15.0, -1.0])
    np.testing.assert_array_equal(sums.numpy(), [2.0, 6.0, 14.0])
    # A Keras optimizer after one step: its iteration count and slot variables, tracked in lists.
    assert loaded.opt._iterations.numpy() == 1
    np.testing.assert_allclose(loaded.opt._momentums[0].numpy(), [0.05, -0.025], rtol=1e-6)
    np.testing.assert_allclose(loaded.trained.numpy(), [0.9, 2.1], rtol=1e-5)


def test_root_without_call_is_not_callable(loaded):
    with pytest.raises(TypeError, match="not callable"):
        loaded()


CONFORMANCE = pathlib.Path(os.environ.get("GRAFT_CONFORMANCE_DIR", pathlib.Path(__file__).resolve().parents[4] /
                                          "shared" / "conformance")) / "savedmodels"


def test_training_function_updates_what_signatures_read():
    path = CONFORMANCE / "regression_tf2"
    if not path.exists():
        pytest.skip("../shared/conformance is not beside the repository")  # as the C tests do
    loaded = graft.saved_model.load(str(path))
    w0 = loaded.w.numpy()
    loss = loaded.train(np.array([1.0, 2.0], np.float32), np.array([3.0, 5.0], np.float32))["loss"]
    assert loss.numpy() > 0
    w1 = loaded.w.numpy()
    assert not np.allclose(w0, w1)
    np.testing.assert_array_equal(loaded.get_w()["output"].numpy(), w1)
    np.testing.assert_array_equal(loaded.signatures["w"]()["output"].numpy(), w1)


def test_list_tracked_variables_restore():
    path = CONFORMANCE / "resnet_small_tf221"
    if not path.exists():
        pytest.skip("../shared/conformance is not beside the repository")
    loaded = graft.saved_model.load(str(path))
    assert len(loaded.vars) == 32
    x = np.random.default_rng(0).random((2, 32, 32, 3), dtype=np.float32)
    want = list(loaded.signatures["serving_default"](x=x).values())[0].numpy()
    got = loaded.serve(x)
    got = list(got.values())[0] if isinstance(got, dict) else got
    np.testing.assert_array_equal(got.numpy(), want)
