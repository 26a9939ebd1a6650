"""graft.ops: TensorFlow's ops under their Python names, and the Tensor operators.

Each function builds one op (or a few) through framework.apply_op, so it runs eagerly, is
recorded in a trace, or is added to a graph, as the caller's context decides.
"""
import builtins
import collections
import sys

import numpy as np

from graft import dtypes as _dtypes
from graft import errors
from graft import framework as _fw
from graft.framework import Tensor, EagerTensor, apply_op, convert_to_tensor
from graft.tensor_shape import TensorShape, as_shape


def _one(op_type, inputs, attrs=None, name=None, dtype_hint=None):
    out = apply_op(op_type, inputs, attrs, name=name, dtype_hint=dtype_hint)
    return out[0]


def _dtype_of(x):
    return x.dtype if isinstance(x, Tensor) else None


def _pair(x, y):
    """Converts a binary op's operands, giving a Python operand the other's dtype."""
    if isinstance(x, Tensor) and not isinstance(y, Tensor):
        y = convert_to_tensor(y, dtype_hint=x.dtype)
    elif isinstance(y, Tensor) and not isinstance(x, Tensor):
        x = convert_to_tensor(x, dtype_hint=y.dtype)
    elif not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype_hint=x.dtype)
    if x.dtype != y.dtype:
        raise errors.InvalidArgumentError(
            f"cannot compute an op with inputs of different dtypes: {x.dtype.name} and {y.dtype.name}")
    return x, y


def _binary(op_type):
    def fn(x, y, name=None):
        x, y = _pair(x, y)
        return _one(op_type, [x, y], name=name)
    fn.__name__ = op_type
    return fn


def _unary(op_type):
    def fn(x, name=None):
        return _one(op_type, [convert_to_tensor(x)], name=name)
    fn.__name__ = op_type
    return fn


# ---- Constants and conversion -----------------------------------------------------------------

def constant(value, dtype=None, shape=None, name="Const"):
    """A constant tensor of value (a Python value, a NumPy array or a tensor)."""
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    g = _fw._graph_mode_graph()
    if g is not None:
        return _fw.constant_in_graph(g, value, dtype, name, shape)
    if shape is None and not isinstance(value, Tensor):
        t = convert_to_tensor(value, dtype=dtype)
        if name != "Const" and _fw._context.is_tracing():
            return identity(t, name=name)
        return t
    c_tensor = _fw._host_c_tensor(value.numpy() if isinstance(value, EagerTensor) else value, dtype, shape)
    return _fw._wrap_value(_fw._context.from_tensor(c_tensor), False) if not _fw._context.is_tracing() else \
        _one("Const", [], {"value": c_tensor, "dtype": _dtypes.as_dtype(c_tensor.dtype())})


def identity(input, name=None):  # noqa: A002 - TensorFlow's argument name
    return _one("Identity", [convert_to_tensor(input)], name=name)


def identity_n(input, name=None):  # noqa: A002
    return apply_op("IdentityN", [[convert_to_tensor(x) for x in input]], name=name)


def stop_gradient(input, name=None):  # noqa: A002
    return _one("StopGradient", [convert_to_tensor(input)], name=name)


def cast(x, dtype, name=None):
    x = convert_to_tensor(x)
    dtype = _dtypes.as_dtype(dtype)
    if x.dtype == dtype:
        return x
    return _one("Cast", [x], {"DstT": dtype}, name=name)


def zeros(shape, dtype=_dtypes.float32, name=None):
    dtype = _dtypes.as_dtype(dtype)
    return fill(shape, np.zeros((), dtype.as_numpy_dtype) if dtype != _dtypes.string else b"", name=name,
                dtype=dtype)


def ones(shape, dtype=_dtypes.float32, name=None):
    dtype = _dtypes.as_dtype(dtype)
    return fill(shape, np.ones((), dtype.as_numpy_dtype), name=name, dtype=dtype)


def fill(dims, value, name=None, dtype=None):
    dims = _shape_arg(dims)
    value = convert_to_tensor(value, dtype=dtype)
    return _one("Fill", [dims, value], name=name)


def _shape_arg(shape):
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (int, np.integer)):
        shape = [int(shape)]
    return convert_to_tensor(np.asarray(list(shape), dtype=np.int32))


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    if dtype is not None and _dtypes.as_dtype(dtype) != x.dtype:
        return zeros(shape(x), dtype, name=name)
    return _one("ZerosLike", [x], name=name)


def ones_like(input, dtype=None, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    if dtype is not None and _dtypes.as_dtype(dtype) != x.dtype:
        return ones(shape(x), dtype, name=name)
    return _one("OnesLike", [x], name=name)


def eye(num_rows, num_columns=None, dtype=_dtypes.float32, name=None):
    num_columns = num_rows if num_columns is None else num_columns
    return constant(np.eye(num_rows, num_columns, dtype=_dtypes.as_dtype(dtype).as_numpy_dtype), name=name or "eye")


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    if limit is None:
        start, limit = 0, start
    values = [start, limit, delta]
    if dtype is not None:
        dt = _dtypes.as_dtype(dtype)
    elif any(isinstance(v, Tensor) for v in values):
        dt = next(v.dtype for v in values if isinstance(v, Tensor))
    else:
        # TensorFlow's range: the widest of the arguments' dtypes (each by the C API's host rule).
        order = [_dtypes.int32, _dtypes.int64, _dtypes.float32, _dtypes.float64]
        dt = max((_fw._host_dtype(v) or _dtypes.int32 for v in values),
                 key=lambda d: order.index(d) if d in order else 0)
    s, l, d = (cast(convert_to_tensor(v, dtype_hint=dt), dt) for v in values)
    return _one("Range", [s, l, d], name=name)


# ---- Shapes ---------------------------------------------------------------------------------------

def shape(input, out_type=_dtypes.int32, name=None):  # noqa: A002
    return _one("Shape", [convert_to_tensor(input)], {"out_type": _dtypes.as_dtype(out_type)}, name=name)


def shape_n(input, out_type=_dtypes.int32, name=None):  # noqa: A002
    return apply_op("ShapeN", [[convert_to_tensor(x) for x in input]], {"out_type": _dtypes.as_dtype(out_type)},
                    name=name)


def size(input, out_type=_dtypes.int32, name=None):  # noqa: A002
    return _one("Size", [convert_to_tensor(input)], {"out_type": _dtypes.as_dtype(out_type)}, name=name)


def rank(input, name=None):  # noqa: A002
    return _one("Rank", [convert_to_tensor(input)], name=name)


def reshape(tensor, shape, name=None):
    return _one("Reshape", [convert_to_tensor(tensor), _shape_arg(shape)], name=name)


def transpose(a, perm=None, conjugate=False, name=None):
    a = convert_to_tensor(a)
    if perm is None:
        r = a.shape.rank
        if r is None:
            perm = subtract(subtract(rank(a), 1), range(0, rank(a)))
        else:
            perm = list(builtins.range(r - 1, -1, -1))
    perm = convert_to_tensor(perm, dtype_hint=_dtypes.int32)
    return _one("Transpose", [a, perm], name=name)


def expand_dims(input, axis, name=None):  # noqa: A002
    return _one("ExpandDims", [convert_to_tensor(input), convert_to_tensor(axis, dtype_hint=_dtypes.int32)],
                name=name)


def squeeze(input, axis=None, name=None):  # noqa: A002
    if axis is None:
        axis = []
    elif isinstance(axis, int):
        axis = [axis]
    return _one("Squeeze", [convert_to_tensor(input)], {"squeeze_dims": list(axis)}, name=name)


def concat(values, axis, name="concat"):
    values = [convert_to_tensor(v) for v in values]
    if len(values) == 1:
        return identity(values[0], name=name)
    return _one("ConcatV2", [values, convert_to_tensor(axis, dtype_hint=_dtypes.int32)], name=name)


def stack(values, axis=0, name="stack"):
    values = [convert_to_tensor(v) for v in values]
    return _one("Pack", [values], {"axis": axis, "N": len(values)}, name=name)


def unstack(value, num=None, axis=0, name="unstack"):
    value = convert_to_tensor(value)
    if num is None:
        s = value.shape
        if s.rank is None or s[axis] is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
        num = s[axis]
    return apply_op("Unpack", [value], {"num": num, "axis": axis}, name=name)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    value = convert_to_tensor(value)
    axis_t = convert_to_tensor(axis, dtype_hint=_dtypes.int32)
    if isinstance(num_or_size_splits, (int, np.integer)):
        return apply_op("Split", [axis_t, value], {"num_split": int(num_or_size_splits)}, name=name)
    sizes = convert_to_tensor(num_or_size_splits, dtype_hint=_dtypes.int32)
    n = num if num is not None else sizes.shape[0]
    return apply_op("SplitV", [value, sizes, axis_t], {"num_split": n}, name=name)


def slice(input_, begin, size, name=None):  # noqa: A001
    return _one("Slice", [convert_to_tensor(input_), convert_to_tensor(begin, dtype_hint=_dtypes.int32),
                          convert_to_tensor(size, dtype_hint=_dtypes.int32)], name=name)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, name=None):
    if strides is None:
        strides = [1] * len(begin)
    return _one("StridedSlice", [convert_to_tensor(input_), convert_to_tensor(begin, dtype_hint=_dtypes.int32),
                                 convert_to_tensor(end, dtype_hint=_dtypes.int32),
                                 convert_to_tensor(strides, dtype_hint=_dtypes.int32)],
                {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
                 "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}, name=name)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    axis = batch_dims if axis is None else axis
    if hasattr(params, "sparse_read") and isinstance(axis, int) and axis == 0 and batch_dims == 0:
        # A variable's rows are read without reading the whole variable (ResourceGather), as TF.
        return params.sparse_read(indices, name=name)
    return _one("GatherV2", [convert_to_tensor(params), convert_to_tensor(indices),
                             convert_to_tensor(axis, dtype_hint=_dtypes.int32)], {"batch_dims": batch_dims}, name=name)


def _unsorted_segment(op_type):
    def reduce(data, segment_ids, num_segments, name=None):
        return _one(op_type, [convert_to_tensor(data), convert_to_tensor(segment_ids, dtype_hint=_dtypes.int32),
                              convert_to_tensor(num_segments, dtype_hint=_dtypes.int32)], name=name)
    reduce.__name__ = "unsorted_segment_" + op_type[len("UnsortedSegment"):].lower()
    reduce.__doc__ = (f"{op_type}: rows of data folded into num_segments rows by segment_ids (negative ids "
                      "are dropped), as tf.math." + reduce.__name__ + ".")
    return reduce


unsorted_segment_sum = _unsorted_segment("UnsortedSegmentSum")
unsorted_segment_prod = _unsorted_segment("UnsortedSegmentProd")
unsorted_segment_max = _unsorted_segment("UnsortedSegmentMax")
unsorted_segment_min = _unsorted_segment("UnsortedSegmentMin")


def _sorted_segment(op_type):
    def reduce(data, segment_ids, name=None):
        return _one(op_type, [convert_to_tensor(data), convert_to_tensor(segment_ids, dtype_hint=_dtypes.int32)],
                    name=name)
    reduce.__name__ = "segment_" + op_type[len("Segment"):].lower()
    reduce.__doc__ = (f"{op_type}: runs of equal, sorted segment_ids fold rows of data into row id of the result "
                      "(last id + 1 rows; empty segments are 0), as tf.math." + reduce.__name__ + ".")
    return reduce


segment_sum = _sorted_segment("SegmentSum")
segment_mean = _sorted_segment("SegmentMean")
segment_prod = _sorted_segment("SegmentProd")
segment_max = _sorted_segment("SegmentMax")
segment_min = _sorted_segment("SegmentMin")


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of shape with updates summed into the slices indices name (tf.scatter_nd)."""
    indices = convert_to_tensor(indices, dtype_hint=_dtypes.int32)
    return _one("ScatterNd", [indices, convert_to_tensor(updates), convert_to_tensor(shape, dtype_hint=indices.dtype)],
                name=name)


def _tensor_scatter(op_type, doc):
    def scatter(tensor, indices, updates, name=None):
        tensor = convert_to_tensor(tensor)
        return _one(op_type, [tensor, convert_to_tensor(indices, dtype_hint=_dtypes.int32),
                              convert_to_tensor(updates, dtype_hint=tensor.dtype)], name=name)
    scatter.__doc__ = f"A copy of tensor with updates {doc} the slices indices name ({op_type})."
    return scatter


tensor_scatter_nd_update = _tensor_scatter("TensorScatterUpdate", "written to")
tensor_scatter_nd_add = _tensor_scatter("TensorScatterAdd", "added to")
tensor_scatter_nd_sub = _tensor_scatter("TensorScatterSub", "subtracted from")
tensor_scatter_nd_max = _tensor_scatter("TensorScatterMax", "maxed into")
tensor_scatter_nd_min = _tensor_scatter("TensorScatterMin", "minned into")


def image_resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False, name=None):
    """tf.image.resize for methods "bilinear" and "bicubic" (float32 results) and "nearest" (the
    images' dtype): half-pixel centers, NHWC images with or without the batch dim."""
    if preserve_aspect_ratio or antialias:
        raise NotImplementedError("graft.image.resize supports neither preserve_aspect_ratio nor antialias")
    method = getattr(method, "value", method)
    ops = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor", "bicubic": "ResizeBicubic"}
    if method not in ops:
        raise ValueError(f"Resize method {method!r} is not supported; graft has 'bilinear', 'nearest' and 'bicubic'")
    images = convert_to_tensor(images)
    unbatched = images.shape.rank == 3
    if unbatched:
        images = expand_dims(images, 0)
    out = _one(ops[method], [images, convert_to_tensor(size, dtype_hint=_dtypes.int32)],
               {"align_corners": False, "half_pixel_centers": True}, name=name)
    return squeeze(out, [0]) if unbatched else out


def _resize_v1(op_type):
    def resize(images, size, align_corners=False, name=None, half_pixel_centers=False):
        return _one(op_type, [convert_to_tensor(images), convert_to_tensor(size, dtype_hint=_dtypes.int32)],
                    {"align_corners": align_corners, "half_pixel_centers": half_pixel_centers}, name=name)
    resize.__doc__ = f"{op_type} with TensorFlow's attrs (tf.compat.v1.image's function)."
    return resize


resize_bilinear = _resize_v1("ResizeBilinear")
resize_nearest_neighbor = _resize_v1("ResizeNearestNeighbor")
resize_bicubic = _resize_v1("ResizeBicubic")


def gather_nd(params, indices, batch_dims=0, name=None):
    return _one("GatherNd", [convert_to_tensor(params), convert_to_tensor(indices)], name=name)


def tile(input, multiples, name=None):  # noqa: A002
    return _one("Tile", [convert_to_tensor(input), convert_to_tensor(multiples, dtype_hint=_dtypes.int32)],
                name=name)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    tensor = convert_to_tensor(tensor)
    paddings = convert_to_tensor(paddings, dtype_hint=_dtypes.int32)
    mode = mode.upper()
    if mode == "CONSTANT":
        if isinstance(constant_values, (int, float)) and constant_values == 0:
            return _one("Pad", [tensor, paddings], name=name)
        return _one("PadV2", [tensor, paddings, convert_to_tensor(constant_values, dtype=tensor.dtype)], name=name)
    return _one("MirrorPad", [tensor, paddings], {"mode": mode}, name=name)


def broadcast_to(input, shape, name=None):  # noqa: A002
    return _one("BroadcastTo", [convert_to_tensor(input), _shape_arg(shape)], name=name)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else (
        on_value.dtype if isinstance(on_value, Tensor) else _dtypes.float32)
    on = convert_to_tensor(1 if on_value is None else on_value, dtype=dtype)
    off = convert_to_tensor(0 if off_value is None else off_value, dtype=dtype)
    return _one("OneHot", [convert_to_tensor(indices), convert_to_tensor(depth, dtype=_dtypes.int32), on, off],
                {"axis": -1 if axis is None else axis}, name=name)


def where(condition, x=None, y=None, name=None):
    if x is None and y is None:
        return _one("Where", [convert_to_tensor(condition)], name=name)
    x, y = _pair(x, y)
    return _one("SelectV2", [convert_to_tensor(condition), x, y], name=name)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    return _one("Cumsum", [convert_to_tensor(x), convert_to_tensor(axis, dtype_hint=_dtypes.int32)],
                {"exclusive": exclusive, "reverse": reverse}, name=name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    return _one("Cumprod", [convert_to_tensor(x), convert_to_tensor(axis, dtype_hint=_dtypes.int32)],
                {"exclusive": exclusive, "reverse": reverse}, name=name)


def dynamic_stitch(indices, data, name=None):
    return _one("DynamicStitch", [[convert_to_tensor(i) for i in indices], [convert_to_tensor(d) for d in data]],
                name=name)


def invert_permutation(x, name=None):
    return _one("InvertPermutation", [convert_to_tensor(x)], name=name)


def unique(x, out_idx=_dtypes.int32, name=None):
    return tuple(apply_op("Unique", [convert_to_tensor(x)], {"out_idx": _dtypes.as_dtype(out_idx)}, name=name))


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002
    return tuple(apply_op("TopKV2", [convert_to_tensor(input), convert_to_tensor(k, dtype=_dtypes.int32)],
                          {"sorted": sorted}, name=name))


# ---- Math -----------------------------------------------------------------------------------------

add = _binary("AddV2")
subtract = _binary("Sub")
multiply = _binary("Mul")
realdiv = _binary("RealDiv")
floordiv = _binary("FloorDiv")
floormod = _binary("FloorMod")
truncatediv = _binary("TruncateDiv")
truncatemod = _binary("TruncateMod")
pow = _binary("Pow")  # noqa: A001
maximum = _binary("Maximum")
minimum = _binary("Minimum")


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Elementwise min(max(t, clip_value_min), clip_value_max) (tf.clip_by_value); the gradient
    passes where t is within the bounds."""
    t = convert_to_tensor(t)
    return minimum(maximum(t, convert_to_tensor(clip_value_min, dtype_hint=t.dtype)),
                   convert_to_tensor(clip_value_max, dtype_hint=t.dtype), name=name)
squared_difference = _binary("SquaredDifference")
atan2 = _binary("Atan2")
divide_no_nan = _binary("DivNoNan")
equal = _binary("Equal")
not_equal = _binary("NotEqual")
less = _binary("Less")
less_equal = _binary("LessEqual")
greater = _binary("Greater")
greater_equal = _binary("GreaterEqual")
logical_and = _binary("LogicalAnd")
logical_or = _binary("LogicalOr")
mod = floormod


def divide(x, y, name=None):
    x, y = _pair(x, y)
    if x.dtype.is_integer:
        # Python 3 division of integers: as float64 (TensorFlow's truediv).
        ft = _dtypes.float64 if x.dtype in (_dtypes.int32, _dtypes.int64, _dtypes.uint32, _dtypes.uint64) \
            else _dtypes.float32
        x, y = cast(x, ft), cast(y, ft)
    return _one("RealDiv" if not x.dtype.is_integer else "Div", [x, y], name=name)


truediv = divide


def logical_xor(x, y, name="LogicalXor"):
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


negative = _unary("Neg")
neg = negative
abs = _unary("Abs")  # noqa: A001
sign = _unary("Sign")
square = _unary("Square")
sqrt = _unary("Sqrt")
rsqrt = _unary("Rsqrt")
reciprocal = _unary("Reciprocal")
exp = _unary("Exp")
expm1 = _unary("Expm1")
log = _unary("Log")
log1p = _unary("Log1p")
sin = _unary("Sin")
cos = _unary("Cos")
tan = _unary("Tan")
tanh = _unary("Tanh")
sigmoid = _unary("Sigmoid")
erf = _unary("Erf")
erfc = _unary("Erfc")
asin = _unary("Asin")
acos = _unary("Acos")
atan = _unary("Atan")
sinh = _unary("Sinh")
cosh = _unary("Cosh")
asinh = _unary("Asinh")
acosh = _unary("Acosh")
atanh = _unary("Atanh")
floor = _unary("Floor")
ceil = _unary("Ceil")
round = _unary("Round")  # noqa: A001
rint = _unary("Rint")
is_nan = _unary("IsNan")
is_inf = _unary("IsInf")
is_finite = _unary("IsFinite")
logical_not = _unary("LogicalNot")


def add_n(inputs, name=None):
    inputs = [convert_to_tensor(x) for x in inputs]
    out = inputs[0]
    for x in inputs[1:]:
        out = add(out, x)
    return identity(out, name=name) if name else out


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, name=None):
    a, b = _pair(a, b)
    ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
    ra, rb = a.shape.rank, b.shape.rank
    if ra == 2 and rb == 2:
        return _one("MatMul", [a, b], {"transpose_a": ta, "transpose_b": tb}, name=name)
    return _one("BatchMatMulV2", [a, b], {"adj_x": ta, "adj_y": tb}, name=name)


def _axis_arg(x, axis):
    if axis is None:
        r = x.shape.rank
        if r is not None:
            # Python ints: a Const of the graph or trace (a gradient needs the axes known).
            return convert_to_tensor(list(builtins.range(r)), dtype=_dtypes.int32)
        return range(0, rank(x))
    return convert_to_tensor(axis, dtype_hint=_dtypes.int32)


def _reduction(op_type):
    def fn(input_tensor, axis=None, keepdims=False, name=None, keep_dims=None):
        x = convert_to_tensor(input_tensor)
        return _one(op_type, [x, _axis_arg(x, axis)], {"keep_dims": bool(keepdims or keep_dims)}, name=name)
    fn.__name__ = op_type
    return fn


reduce_sum = _reduction("Sum")
reduce_mean = _reduction("Mean")
reduce_max = _reduction("Max")
reduce_min = _reduction("Min")
reduce_prod = _reduction("Prod")
reduce_all = _reduction("All")
reduce_any = _reduction("Any")


def argmax(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002
    return _one("ArgMax", [convert_to_tensor(input), convert_to_tensor(0 if axis is None else axis,
                                                                         dtype_hint=_dtypes.int32)],
                {"output_type": _dtypes.as_dtype(output_type)}, name=name)


def argmin(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002
    return _one("ArgMin", [convert_to_tensor(input), convert_to_tensor(0 if axis is None else axis,
                                                                         dtype_hint=_dtypes.int32)],
                {"output_type": _dtypes.as_dtype(output_type)}, name=name)


def check_numerics(tensor, message, name=None):
    return _one("CheckNumerics", [convert_to_tensor(tensor)], {"message": message}, name=name)


# ---- Neural networks ------------------------------------------------------------------------------

relu = _unary("Relu")
relu6 = _unary("Relu6")
elu = _unary("Elu")
selu = _unary("Selu")
softplus = _unary("Softplus")
softsign = _unary("Softsign")


def leaky_relu(features, alpha=0.2, name=None):
    return _one("LeakyRelu", [convert_to_tensor(features)], {"alpha": float(alpha)}, name=name)


def _last_axis_op(op_type, logits, axis, name):
    """Softmax-like ops work on the last axis; another axis is swapped there and back."""
    x = convert_to_tensor(logits)
    r = x.shape.rank
    if axis is None or axis == -1 or (r is not None and axis == r - 1):
        return _one(op_type, [x], name=name)
    if r is None:
        raise ValueError(f"{op_type} over axis {axis} needs a tensor of known rank")
    axis = axis % r
    perm = list(builtins.range(r))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return transpose(_one(op_type, [transpose(x, perm)]), perm, name=name)


def einsum(equation, *inputs, **kwargs):
    """tf.einsum: the Einsum op (any number of operands, "..." for broadcast dims)."""
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError("einsum() got unexpected keyword arguments: %s" % ", ".join(sorted(kwargs)))
    inputs = [convert_to_tensor(x) for x in inputs]
    return _one("Einsum", [inputs], {"equation": equation.replace(" ", ""), "N": len(inputs)}, name=name)


def l2_loss(t, name=None):
    return _one("L2Loss", [convert_to_tensor(t)], name=name)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """The per-example loss of SparseSoftmaxCrossEntropyWithLogits (logits [batch, classes])."""
    if labels is None or logits is None:
        raise ValueError("sparse_softmax_cross_entropy_with_logits needs labels and logits")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype_hint=_dtypes.int32)
    return apply_op("SparseSoftmaxCrossEntropyWithLogits", [logits, labels], name=name)[0]


def softmax_cross_entropy_with_logits(labels=None, logits=None, axis=-1, name=None):
    """The per-example loss of SoftmaxCrossEntropyWithLogits (logits and labels [batch, classes])."""
    if labels is None or logits is None:
        raise ValueError("softmax_cross_entropy_with_logits needs labels and logits")
    if axis not in (-1, 1):
        raise ValueError("softmax_cross_entropy_with_logits supports the last axis of 2-D logits only")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype_hint=logits.dtype)
    return apply_op("SoftmaxCrossEntropyWithLogits", [logits, labels], name=name)[0]


def softmax(logits, axis=None, name=None):
    return _last_axis_op("Softmax", logits, axis, name)


def log_softmax(logits, axis=None, name=None):
    return _last_axis_op("LogSoftmax", logits, axis, name)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """The mean and variance of x over axes (tf.nn.moments): the variance is taken around the
    mean with the mean's gradient stopped, as TensorFlow's."""
    x = convert_to_tensor(x)
    mean = reduce_mean(x, axes, keepdims=True)
    variance = reduce_mean(squared_difference(x, stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean = squeeze(mean, axes)
        variance = squeeze(variance, axes)
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + variance_epsilon) + offset, with broadcasting
    (tf.nn.batch_normalization); offset and scale may be None."""
    x = convert_to_tensor(x)
    inv = rsqrt(convert_to_tensor(variance, dtype_hint=x.dtype) + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    shift = -convert_to_tensor(mean, dtype_hint=x.dtype) * inv
    if offset is not None:
        shift = shift + offset
    return x * inv + shift


def fused_batch_norm(x, scale, offset=None, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0):
    """tf.compat.v1.nn.fused_batch_norm over FusedBatchNormV3: (y, running mean, running
    variance). In training the batch's statistics normalize x and the running ones are
    (1 - exponential_avg_factor) * mean/variance + exponential_avg_factor * the batch's."""
    x = convert_to_tensor(x)
    scale = convert_to_tensor(scale, dtype_hint=_dtypes.float32)
    channels = scale.shape.as_list()[0] if scale.shape.rank == 1 and scale.shape[0] is not None else None
    if offset is None:
        if channels is None:
            raise ValueError("fused_batch_norm: offset is required when scale's length is not known")
        offset = np.zeros([channels], np.float32)
    empty = np.zeros([0], np.float32)
    if mean is None:
        if not is_training or exponential_avg_factor != 1.0:
            raise ValueError("fused_batch_norm: mean is required unless training with exponential_avg_factor 1")
        mean = empty
    if variance is None:
        if not is_training or exponential_avg_factor != 1.0:
            raise ValueError("fused_batch_norm: variance is required unless training with exponential_avg_factor 1")
        variance = empty
    epsilon = max(float(epsilon), 1.001e-5)  # cuDNN's minimum, which TensorFlow applies everywhere
    out = apply_op("FusedBatchNormV3",
                   [x, scale, convert_to_tensor(offset, dtype_hint=_dtypes.float32),
                    convert_to_tensor(mean, dtype_hint=_dtypes.float32),
                    convert_to_tensor(variance, dtype_hint=_dtypes.float32)],
                   {"epsilon": epsilon, "data_format": data_format, "is_training": bool(is_training),
                    "exponential_avg_factor": float(exponential_avg_factor)}, name=name)
    return out[0], out[1], out[2]


def bias_add(value, bias, data_format=None, name=None):
    value, bias = _pair(value, bias)
    return _one("BiasAdd", [value, bias], {"data_format": data_format or "NHWC"}, name=name)


def _hw(v, n=4):
    if isinstance(v, int):
        return [1, v, v, 1]
    v = list(v)
    if len(v) == 1:
        return [1, v[0], v[0], 1]
    if len(v) == 2:
        return [1, v[0], v[1], 1]
    return v


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    x, f = _pair(input, filters)
    return _one("Conv2D", [x, f], {"strides": _hw(strides), "padding": padding, "data_format": data_format,
                                   "dilations": _hw(dilations or 1)}, name=name)


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    x, f = _pair(input, filter)
    return _one("DepthwiseConv2dNative", [x, f], {"strides": _hw(strides), "padding": padding,
                                                  "dilations": _hw(dilations or 1)}, name=name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    return _one("MaxPool", [convert_to_tensor(input)], {"ksize": _hw(ksize), "strides": _hw(strides),
                                                        "padding": padding}, name=name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    return _one("AvgPool", [convert_to_tensor(input)], {"ksize": _hw(ksize), "strides": _hw(strides),
                                                        "padding": padding}, name=name)


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    x = convert_to_tensor(x)
    keep = random_uniform(shape(x), dtype=x.dtype, seed=seed)
    mask = cast(greater_equal(keep, rate), x.dtype)
    return multiply(x, multiply(mask, 1.0 / (1.0 - rate)), name=name)


# ---- Random ---------------------------------------------------------------------------------------

_random_state = {"global_seed": None, "op_count": 0}
_DEFAULT_GRAPH_SEED = 87654321


def set_seed(seed):
    """The global random seed (graft.random.set_seed): op seeds derive from it."""
    _random_state["global_seed"] = seed
    _random_state["op_count"] = 0
    _fw._context.clear_caches()  # random kernels of the same seeds start their sequences afresh
    g = _fw._graph_mode_graph()
    if g is not None:
        g.seed = seed


def get_seed(op_seed):
    """(seed, seed2) for an op, TensorFlow's rules: graph/global seed and op seed."""
    g = _fw._graph_mode_graph()
    global_seed = g.seed if g is not None else _random_state["global_seed"]
    if global_seed is not None:
        if op_seed is None:
            if g is not None:
                op_seed = g.version
            else:
                _random_state["op_count"] += 1
                op_seed = _random_state["op_count"]
        return global_seed, op_seed
    if op_seed is not None:
        return _DEFAULT_GRAPH_SEED, op_seed
    return None, None


def _seeds(seed):
    s1, s2 = get_seed(seed)
    return {"seed": s1 or 0, "seed2": s2 or 0}


def random_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    dtype = _dtypes.as_dtype(dtype)
    r = _one("RandomStandardNormal", [_shape_arg(shape)], dict(_seeds(seed), dtype=dtype))
    return add(multiply(r, convert_to_tensor(stddev, dtype=dtype)), convert_to_tensor(mean, dtype=dtype), name=name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    dtype = _dtypes.as_dtype(dtype)
    r = _one("TruncatedNormal", [_shape_arg(shape)], dict(_seeds(seed), dtype=dtype))
    return add(multiply(r, convert_to_tensor(stddev, dtype=dtype)), convert_to_tensor(mean, dtype=dtype), name=name)


def random_uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None):
    dtype = _dtypes.as_dtype(dtype)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError("Must specify maxval for integer dtype")
        return _one("RandomUniformInt", [_shape_arg(shape), convert_to_tensor(minval, dtype=dtype),
                                         convert_to_tensor(maxval, dtype=dtype)], _seeds(seed), name=name)
    r = _one("RandomUniform", [_shape_arg(shape)], dict(_seeds(seed), dtype=dtype))
    maxval = 1 if maxval is None else maxval
    lo = convert_to_tensor(minval, dtype=dtype)
    return add(multiply(r, subtract(convert_to_tensor(maxval, dtype=dtype), lo)), lo, name=name)



# ---- Stateless random numbers (TensorFlow's tf.random.stateless_*) ---------------------------------

_RNG_ALGS = {"philox": 1, "threefry": 2, "auto_select": 3}


def _rng_alg(alg):
    if alg is None:
        return 3
    if isinstance(alg, str):
        key = alg.lower()
        if key not in _RNG_ALGS:
            raise ValueError(f"Unsupported random algorithm: {alg!r} (use 'philox', 'threefry' or 'auto_select')")
        return _RNG_ALGS[key]
    return int(getattr(alg, "value", alg))


def _stateless_v2(op_type, shape, seed, dtype, alg, extra=()):
    """A V2 stateless op fed by StatelessRandomGetKeyCounter(seed), as tf.random.stateless_* builds it."""
    seed = convert_to_tensor(seed)
    if seed.dtype not in (_dtypes.int32, _dtypes.int64):
        seed = cast(seed, _dtypes.int64)
    key, counter = apply_op("StatelessRandomGetKeyCounter", [seed])
    alg_t = convert_to_tensor(np.int32(_rng_alg(alg)))
    return _one(op_type, [_shape_arg(shape), key, counter, alg_t] + list(extra), {"dtype": dtype})


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=_dtypes.float32, name=None,
                             alg="auto_select"):
    """tf.random.stateless_uniform: the same values as TensorFlow's for the same shape, seed and dtype.
    Integers: in [minval, maxval), or every value of the dtype when minval and maxval are both None."""
    dtype = _dtypes.as_dtype(dtype)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer dtype {dtype.name}, minval and maxval must be both `None` or both "
                             f"non-`None`; got minval={minval} and maxval={maxval}")
        if minval is None:
            return _stateless_v2("StatelessRandomUniformFullIntV2", shape, seed, dtype, alg)
        return _stateless_v2("StatelessRandomUniformIntV2", shape, seed, dtype, alg,
                             [convert_to_tensor(minval, dtype=dtype), convert_to_tensor(maxval, dtype=dtype)])
    maxval = 1 if maxval is None else maxval
    r = _stateless_v2("StatelessRandomUniformV2", shape, seed, dtype, alg)
    lo = convert_to_tensor(minval, dtype=dtype)
    return add(multiply(r, subtract(convert_to_tensor(maxval, dtype=dtype), lo)), lo, name=name)


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None,
                            alg="auto_select"):
    """tf.random.stateless_normal."""
    dtype = _dtypes.as_dtype(dtype)
    r = _stateless_v2("StatelessRandomNormalV2", shape, seed, dtype, alg)
    return add(multiply(r, convert_to_tensor(stddev, dtype=dtype)), convert_to_tensor(mean, dtype=dtype), name=name)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None,
                               alg="auto_select"):
    """tf.random.stateless_truncated_normal: normals redrawn until within two standard deviations."""
    dtype = _dtypes.as_dtype(dtype)
    r = _stateless_v2("StatelessTruncatedNormalV2", shape, seed, dtype, alg)
    return add(multiply(r, convert_to_tensor(stddev, dtype=dtype)), convert_to_tensor(mean, dtype=dtype), name=name)


# ---- Strings hashed into buckets (tf.strings.to_hash_bucket_*) -------------------------------------

def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 - TensorFlow's name
    """tf.strings.to_hash_bucket_fast: Fingerprint64 of each string modulo num_buckets (int64)."""
    return _one("StringToHashBucketFast", [convert_to_tensor(input)], {"num_buckets": int(num_buckets)}, name=name)


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """tf.strings.to_hash_bucket_strong: SipHash-2-4 keyed by key (two ints) modulo num_buckets."""
    return _one("StringToHashBucketStrong", [convert_to_tensor(input)],
                {"num_buckets": int(num_buckets), "key": [int(k) for k in key]}, name=name)


def string_to_hash_bucket(string_tensor, num_buckets, name=None):
    """tf.strings.to_hash_bucket (deprecated in TensorFlow): the legacy Hash64 modulo num_buckets."""
    return _one("StringToHashBucket", [convert_to_tensor(string_tensor)], {"num_buckets": int(num_buckets)},
                name=name)


# ---- Splitting strings (tf.strings.split) -----------------------------------------------------------

class SparseTensorValue(collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])):
    """A sparse tensor's parts, as tf.compat.v1.SparseTensorValue: indices (int64 [n, rank]),
    values ([n]) and dense_shape (int64 [rank]). Graft has no SparseTensor or RaggedTensor type;
    graft.strings.split returns this for a vector of strings."""
    __slots__ = ()


def string_split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002 - TensorFlow's name
    """tf.strings.split: each string split on sep (on runs of whitespace when sep is None or
    empty), at most maxsplit times when maxsplit >= 0. A scalar gives the 1-D tensor of its
    tokens, as TensorFlow's; a vector gives a SparseTensorValue (row, position) -> token, the
    parts of TensorFlow's RaggedTensor result as tf.compat.v1.strings.split(...,
    result_type="SparseTensor") gives them."""
    x = convert_to_tensor(input, dtype=_dtypes.string)
    rank = x.shape.rank
    sep_t = convert_to_tensor(b"" if sep is None else sep, dtype=_dtypes.string)
    attrs = {"maxsplit": int(maxsplit)}
    if rank == 0:
        return apply_op("StringSplitV2", [reshape(x, [1]), sep_t], attrs, name=name)[1]
    if rank != 1:
        raise ValueError(f"graft.strings.split takes a scalar or a vector of strings (no RaggedTensor type for "
                         f"rank {rank}), got shape {x.shape}")
    indices, values, dense_shape = apply_op("StringSplitV2", [x, sep_t], attrs, name=name)
    return SparseTensorValue(indices, values, dense_shape)


# ---- Case, formatting and ngrams (tf.strings.lower/upper/as_string/ngrams) -------------------------

def string_lower(input, encoding="", name=None):  # noqa: A002 - TensorFlow's name
    """tf.strings.lower: ASCII letters lower-cased (encoding ''), or Unicode case mapping of UTF-8
    text (encoding 'utf-8'; Latin, Greek, Cyrillic, Armenian and a few symbol ranges)."""
    return _one("StringLower", [convert_to_tensor(input, dtype=_dtypes.string)], {"encoding": encoding}, name=name)


def string_upper(input, encoding="", name=None):  # noqa: A002
    """tf.strings.upper: as string_lower, to upper case (ß -> SS and ICU's other expansions)."""
    return _one("StringUpper", [convert_to_tensor(input, dtype=_dtypes.string)], {"encoding": encoding}, name=name)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """tf.strings.as_string: each element printed as TensorFlow's AsString does (printf formats)."""
    return _one("AsString", [convert_to_tensor(input)],
                {"precision": int(precision), "scientific": bool(scientific), "shortest": bool(shortest),
                 "width": int(width), "fill": fill}, name=name)


def string_ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
                  preserve_short_sequences=False, name=None):
    """tf.strings.ngrams on a dense tensor of tokens (Graft has no RaggedTensor): each innermost
    row is one sequence; a vector gives the vector of its ngrams, a higher rank the tensor of
    each row's ngrams (every row has as many). ngram_width: an int or a list of widths, in
    order; pad_values: None (no padding), a string or a (left, right) pair; padding_width:
    None (width - 1) or a positive int."""
    widths = [int(ngram_width)] if isinstance(ngram_width, (int, np.integer)) else [int(w) for w in ngram_width]
    if pad_values is None:
        left_pad = right_pad = ""
        pad_width = 0
    else:
        if isinstance(pad_values, (tuple, list)):
            if len(pad_values) != 2:
                raise ValueError("pad_values must be a string, tuple or None.")
            left_pad, right_pad = pad_values
        elif isinstance(pad_values, (str, bytes)):
            left_pad = right_pad = pad_values
        else:
            raise ValueError("pad_values must be a string, tuple or None.")
        if padding_width is not None and int(padding_width) < 1:
            raise ValueError("padding_width must be greater than 0.")
        pad_width = -1 if padding_width is None else int(padding_width)
    if pad_values is None and padding_width is not None:
        raise ValueError("padding_width must be None if pad_values is None.")
    x = convert_to_tensor(data, dtype=_dtypes.string)
    rank = x.shape.rank
    if rank is None or rank == 0:
        raise ValueError("graft.strings.ngrams needs a tensor of rank >= 1 with a known rank, got shape "
                         f"{x.shape}")
    attrs = {"separator": separator, "ngram_widths": widths, "left_pad": left_pad, "right_pad": right_pad,
             "pad_width": pad_width, "preserve_short_sequences": bool(preserve_short_sequences)}
    if x.shape.is_fully_defined():
        dims = x.shape.as_list()
        n = dims[-1]
        rows = int(np.prod(dims[:-1], dtype=np.int64))
        splits = convert_to_tensor(np.arange(rows + 1, dtype=np.int64) * n)
        outer = convert_to_tensor(np.array(dims[:-1] + [-1], dtype=np.int64))
    else:
        shp = shape(x, out_type=_dtypes.int64)
        n = shp[-1]
        rows = _one("Prod", [shp[:-1], convert_to_tensor(0, dtype=_dtypes.int32)], {"keep_dims": False})
        splits = _one("Mul", [range(0, rows + 1, dtype=_dtypes.int64), n])
        outer = concat([shp[:-1], convert_to_tensor([-1], dtype=_dtypes.int64)], 0)
    flat = reshape(x, [-1])
    ngrams = apply_op("StringNGrams", [flat, splits], attrs, name=name)[0]
    if rank == 1:
        return ngrams
    return _one("Reshape", [ngrams, outer])

# ---- Printing and assertions ----------------------------------------------------------------------

def _format_value(x):
    if isinstance(x, Tensor):
        return None
    if isinstance(x, (list, tuple, dict)):
        return None
    return str(x)


def _stream_name(stream):
    if stream is None or stream in ("stderr", sys.stderr, sys.__stderr__):
        return "stderr"
    if stream in ("stdout", sys.stdout, sys.__stdout__):
        return "stdout"
    if isinstance(stream, str):
        return stream
    try:
        return {1: "stdout", 2: "stderr"}[stream.fileno()]
    except (AttributeError, OSError, KeyError, ValueError):
        return getattr(stream, "name", None) in ("<stdout>",) and "stdout" or "stderr"


def print(*inputs, output_stream=None, sep=" ", end="\n", summarize=3, name=None):  # noqa: A001
    """graft.print (tf.print): prints tensors when the op runs (at once eagerly; on every call of a
    traced function), to stderr or stdout."""
    template_parts = []
    tensors = []
    for x in inputs:
        if isinstance(x, Tensor) or isinstance(x, np.ndarray):
            template_parts.append("{}")
            tensors.append(convert_to_tensor(x))
        elif isinstance(x, (list, tuple)) and any(isinstance(v, Tensor) for v in x):
            parts = []
            for v in x:
                if isinstance(v, Tensor):
                    parts.append("{}")
                    tensors.append(v)
                else:
                    parts.append(str(v).replace("{", "{{").replace("}", "}}"))
            template_parts.append("[" + ", ".join(parts) + "]")
        else:
            template_parts.append(str(x).replace("{", "{{").replace("}", "}}"))
    template = sep.join(template_parts)
    formatted = _one("StringFormat", [tensors], {"template": template, "placeholder": "{}",
                                                  "summarize": summarize})
    stream = _stream_name(output_stream)
    out = apply_op("PrintV2", [formatted], {"output_stream": stream, "end": end}, name=name)
    return out[0] if isinstance(out, list) and out else out


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    return _one("StringFormat", [[convert_to_tensor(x) for x in inputs]],
                {"template": template, "placeholder": placeholder, "summarize": summarize}, name=name)


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TensorFlow's name
    out = apply_op("Assert", [convert_to_tensor(condition), [convert_to_tensor(d) for d in data]],
                   {"summarize": summarize or 3}, name=name)
    return out


# ---- Tensor operators -----------------------------------------------------------------------------

def _r(fn):
    return lambda self, other: fn(other, self)


def _getitem(tensor, key):
    """tensor[key] as a StridedSlice: ints, slices, Ellipsis, newaxis (None), tensors."""
    if not isinstance(key, tuple):
        key = (key,)
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for i, k in enumerate(key):
        bit = 1 << i
        if isinstance(k, builtins.slice):
            begin.append(0 if k.start is None else k.start)
            end.append(0 if k.stop is None else k.stop)
            strides.append(1 if k.step is None else k.step)
            if k.start is None:
                begin_mask |= bit
            if k.stop is None:
                end_mask |= bit
        elif k is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= bit
        elif k is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= bit
        else:
            if isinstance(k, (list, np.ndarray)) or (isinstance(k, Tensor) and k.shape.rank):
                raise TypeError("Only integers, slices (`:`), ellipsis (`...`), graft.newaxis (`None`) and scalar "
                                "graft.int32/graft.int64 tensors are valid indices")
            begin.append(k)
            end.append(add(k, 1) if isinstance(k, Tensor) else (k + 1 if k != -1 else 0))
            strides.append(1)
            shrink_axis_mask |= bit
            if not isinstance(k, Tensor) and k == -1:
                end_mask |= bit
    pack = (lambda v: stack([cast(convert_to_tensor(x), _dtypes.int32) for x in v])) \
        if any(isinstance(x, Tensor) for x in begin + end + strides) else (lambda v: v)
    return strided_slice(tensor, pack(begin), pack(end), pack(strides), begin_mask=begin_mask, end_mask=end_mask,
                         ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)


def _valued(x):
    """An eager or traced tensor: compared elementwise (a Graph's tensors by identity)."""
    return isinstance(x, Tensor) and x._value is not None


def _tensor_eq(self, other):
    if _valued(self) or _valued(other):
        if other is None:
            return False
        try:
            return equal(self, other)
        except (TypeError, ValueError, errors.OpError):
            return False
    return self is other


def _tensor_ne(self, other):
    if _valued(self) or _valued(other):
        if other is None:
            return True
        try:
            return not_equal(self, other)
        except (TypeError, ValueError, errors.OpError):
            return True
    return self is not other


def _install_operators():
    T = Tensor
    T.__add__ = lambda s, o: add(s, o)
    T.__radd__ = _r(add)
    T.__sub__ = lambda s, o: subtract(s, o)
    T.__rsub__ = _r(subtract)
    T.__mul__ = lambda s, o: multiply(s, o)
    T.__rmul__ = _r(multiply)
    T.__truediv__ = lambda s, o: divide(s, o)
    T.__rtruediv__ = _r(divide)
    T.__floordiv__ = lambda s, o: floordiv(s, o)
    T.__rfloordiv__ = _r(floordiv)
    T.__mod__ = lambda s, o: floormod(s, o)
    T.__rmod__ = _r(floormod)
    T.__pow__ = lambda s, o: pow(s, o)
    T.__rpow__ = _r(pow)
    T.__matmul__ = lambda s, o: matmul(s, o)
    T.__rmatmul__ = _r(matmul)
    T.__neg__ = lambda s: negative(s)
    T.__abs__ = lambda s: abs(s)
    T.__invert__ = lambda s: logical_not(s)
    T.__and__ = lambda s, o: logical_and(s, o)
    T.__rand__ = _r(logical_and)
    T.__or__ = lambda s, o: logical_or(s, o)
    T.__ror__ = _r(logical_or)
    T.__xor__ = lambda s, o: logical_xor(s, o)
    T.__lt__ = lambda s, o: less(s, o)
    T.__le__ = lambda s, o: less_equal(s, o)
    T.__gt__ = lambda s, o: greater(s, o)
    T.__ge__ = lambda s, o: greater_equal(s, o)
    T.__eq__ = _tensor_eq
    T.__ne__ = _tensor_ne
    T.__getitem__ = _getitem
    EagerTensor.__hash__ = Tensor.__hash__


_install_operators()
