"""The bindings' one vocabulary (#15): attrs are set by the Python value's kind and converted by
the op's declared attr type in C++ (AttrSetter); host data becomes tensors by the C API's one
rule (graft_tensor_from_host); TensorShape's algebra is graft/shape.h's."""
import numpy as np
import pytest

import graft
from graft import framework as fw
from graft import graft_swig as c


def _eager_and_graph(fn):
    """fn() eagerly and inside a Graph."""
    fn()
    with graft.Graph().as_default():
        fn()


def test_int_for_a_float_attr():
    x = graft.constant([-2.0, 3.0])
    np.testing.assert_array_equal(fw.apply_op("LeakyRelu", [x], {"alpha": 1})[0].numpy(), [-2.0, 3.0])
    np.testing.assert_array_equal(graft.nn.leaky_relu(x, alpha=2).numpy(), [-4.0, 3.0])
    g = graft.Graph()
    with g.as_default():
        out = fw.apply_op("LeakyRelu", [graft.constant([-2.0])], {"alpha": 1})[0]
        alpha = out.op.get_attr("alpha")
        assert isinstance(alpha, float) and alpha == 1.0


def test_empty_list_attrs_take_the_declared_list_type():
    g = graft.Graph()
    with g.as_default():
        fw.apply_op("ParseExample", [graft.constant(["x"]), graft.constant([""]), [], [], []],
                    {"Nsparse": 0, "Ndense": 0, "sparse_types": [], "Tdense": [], "dense_shapes": []})
        op = g.get_operations()[-1]
        assert op.type == "ParseExample"
        assert op.get_attr("sparse_types") == [] and op.get_attr("Tdense") == []
        assert op.get_attr("dense_shapes") == []
    # Eagerly: an empty list for list(int).
    assert fw.apply_op("Squeeze", [graft.constant([[1.0]])], {"squeeze_dims": []})[0].shape == ()


def test_string_naming_a_dtype_for_a_type_attr():
    x = graft.constant([1.5, -2.0])
    y = fw.apply_op("Cast", [x], {"DstT": "int32"})[0]
    assert y.dtype == graft.int32
    np.testing.assert_array_equal(y.numpy(), [1, -2])
    g = graft.Graph()
    with g.as_default():
        p = fw.apply_op("Placeholder", [], {"dtype": "float64", "shape": graft.TensorShape([2, None])})[0]
        assert p.dtype == graft.float64 and p.shape.as_list() == [2, None]


def test_mismatched_attr_type_names_op_type_and_attr():
    def check():
        x = graft.constant([1.0])
        with pytest.raises(TypeError, match=r"LeakyRelu.*alpha"):
            fw.apply_op("LeakyRelu", [x], {"alpha": "abc"})
        with pytest.raises(TypeError, match=r"LeakyRelu.*alpha"):
            fw.apply_op("LeakyRelu", [x], {"alpha": [1.0, 2.0]})
        with pytest.raises(TypeError, match=r"Cast.*DstT"):
            fw.apply_op("Cast", [x], {"DstT": 3.5})
    _eager_and_graph(check)
    g = graft.Graph()
    with g.as_default(), pytest.raises(TypeError, match=r"ParseExample.*dense_shapes"):
        fw.apply_op("ParseExample", [graft.constant(["x"]), graft.constant([""]), [], [], []],
                    {"Nsparse": 0, "Ndense": 0, "sparse_types": [], "Tdense": [], "dense_shapes": [1.5]})


def test_host_conversion_follows_the_c_rule():
    def check():
        assert graft.constant(2 ** 40).dtype == graft.int64
        assert graft.constant([1, 2 ** 40]).dtype == graft.int64
        assert graft.constant(7).dtype == graft.int32
        assert graft.constant([]).dtype == graft.float32
        assert graft.constant([[True, False]]).dtype == graft.bool
        assert graft.constant(3, dtype=graft.float64).dtype == graft.float64
        with pytest.raises(TypeError):
            graft.constant(1.5, dtype=graft.int32)
        with pytest.raises(TypeError):
            graft.constant([1, 2 ** 40], dtype=graft.int32)
        with pytest.raises(TypeError):
            graft.constant(2 ** 64)
        with pytest.raises(TypeError):
            graft.constant("x", dtype=graft.float32)
    _eager_and_graph(check)
    assert graft.constant(2 ** 40).numpy() == 2 ** 40
    assert graft.constant([b"a\x00b"]).numpy()[0] == b"a\x00b"
    # The same rule, context-free, through graft.hpp.
    assert c.Tensor.from_host_ints([2 ** 40], [], 0).dtype() == c.GRAFT_INT64
    assert c.Tensor.from_host_doubles([1.0], [1], 0).dtype() == c.GRAFT_FLOAT32
    with pytest.raises(graft.errors.InvalidArgumentError):
        c.Tensor.from_host_doubles([1.5], [], c.GRAFT_INT32)


def test_shape_algebra_is_the_c_api():
    a, b = c.Shape([2, -1]), c.Shape([-1, 3])
    assert list(a.merge_with(b).dims()) == [2, 3]
    assert a.is_compatible_with(b) and not a.is_compatible_with(c.Shape([3, -1]))
    assert list(a.concatenate(b).dims()) == [2, -1, -1, 3]
    assert c.Shape().concatenate(a).rank() == -1
    assert list(a.most_specific_compatible(c.Shape([2, 4])).dims()) == [2, -1]
    assert c.Shape().with_rank(2).rank() == 2
    assert c.Shape([2, 3]).num_elements() == 6 and a.num_elements() == -1
    assert c.Shape.merge_dims(-1, 3) == 3 and c.Shape.dims_compatible(-1, 3)
    with pytest.raises(graft.errors.InvalidArgumentError):
        a.merge_with(c.Shape([3]))
    with pytest.raises(graft.errors.InvalidArgumentError):
        c.Shape.merge_dims(2, 3)

    S = graft.TensorShape
    assert S([2, None]).merge_with([None, 3]).as_list() == [2, 3]
    assert S(None).merge_with([1]).as_list() == [1]
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are not compatible"):
        S([2]).merge_with([3])
    assert S([1, 2]).most_specific_compatible_shape([1, 3]).as_list() == [1, None]
    assert S([1]).most_specific_compatible_shape([1, 3]).rank is None
    assert S(None).with_rank_at_least(2).rank is None
    with pytest.raises(ValueError, match="must have rank at most 1"):
        S([1, 2]).with_rank_at_most(1)
    assert graft.Dimension(None).merge_with(4).value == 4
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        graft.Dimension(2).merge_with(3)
