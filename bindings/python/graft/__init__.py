"""Graft: TensorFlow's graph runtime in a small embeddable library, with TensorFlow's Python API.

    import graft
    x = graft.constant([[1.0, 2.0]])
    graft.matmul(x, x, transpose_b=True)          # eager
    @graft.function
    def f(a): return graft.nn.relu(a) * 2          # traced into a graph function
"""
import types as _types

from graft import graft_swig as _c
from graft import errors
from graft import nest
from graft.dtypes import (DType, as_dtype, float16, half, float32, float64, double, bfloat16, int8, int16, int32,
                          int64, uint8, uint16, uint32, uint64, bool, string, complex64, complex128, qint8, quint8,
                          qint16, quint16, qint32, resource, variant)
from graft.tensor_shape import TensorShape, Dimension, dimension_value
from graft.device_spec import DeviceSpec
from graft.framework import (Tensor, EagerTensor, Operation, Graph, OperatorNotAllowedInGraphError, convert_to_tensor,
                             get_default_graph, reset_default_graph, executing_eagerly, name_scope,
                             control_dependencies, device, container, colocate_with)
from graft.graph_io import GraphDef, NodeDef, import_graph_def
from graft.ops import (constant, identity, identity_n, stop_gradient, cast, zeros, ones, fill, zeros_like, ones_like,
                       eye, range, shape, shape_n, size, rank, reshape, transpose, expand_dims, squeeze, concat,
                       stack, unstack, split, slice, strided_slice, gather, gather_nd, tile, pad, broadcast_to,
                       one_hot, where, cumsum, dynamic_stitch, invert_permutation, unique, add, subtract, multiply,
                       divide, truediv, realdiv, floordiv, floormod, truncatediv, truncatemod, pow, maximum, minimum,
                       squared_difference, clip_by_value, atan2, divide_no_nan, equal, not_equal, less, less_equal, greater,
                       greater_equal, logical_and, logical_or, logical_not, logical_xor, negative, abs, sign, square,
                       sqrt, rsqrt, reciprocal, exp, expm1, log, log1p, sin, cos, tan, tanh, sigmoid, erf, floor,
                       asin, acos, atan, sinh, cosh, asinh, acosh, atanh, einsum,
                       ceil, round, rint, is_nan, is_inf, is_finite, add_n, matmul, reduce_sum, reduce_mean,
                       reduce_max, reduce_min, reduce_prod, reduce_all, reduce_any, argmax, argmin, check_numerics,
                       print, Assert, top_k)
from graft.function import function, Function, ConcreteFunction, TensorSpec
from graft.variables import Variable, Module, GraphKeys
from graft.indexed_slices import IndexedSlices
from graft.control_flow import cond, while_loop, TensorArray
from graft.backprop import GradientTape
from graft.py_function import py_function, numpy_function
from graft.custom_gradient import custom_gradient
from graft.registries import RegisterGradient, NoGradient, NotDifferentiable, RegisterShape, no_gradient
from graft.gradients_impl import gradients, UnconnectedGradients
from graft.session import Session, InteractiveSession, get_default_session, RunOptions, RunMetadata, ConfigProto
from graft.op_library import load_op_library, load_library
from graft import saved_model
from graft import autograph
from graft import lookup
from graft import distribute
from graft import optimizers
from graft import config
from graft import types
from graft.framework import register_tensor_conversion_function
from graft import ops as _ops
from graft import variables as _variables

__version__ = _c.graft_version()
newaxis = None
neg = negative
mod = floormod
random_normal = _ops.random_normal
random_uniform = _ops.random_uniform
unsorted_segment_sum = _ops.unsorted_segment_sum
scatter_nd = _ops.scatter_nd
tensor_scatter_nd_update = _ops.tensor_scatter_nd_update
tensor_scatter_nd_add = _ops.tensor_scatter_nd_add
tensor_scatter_nd_sub = _ops.tensor_scatter_nd_sub
tensor_scatter_nd_max = _ops.tensor_scatter_nd_max
tensor_scatter_nd_min = _ops.tensor_scatter_nd_min


def _namespace(name, **members):
    ns = _types.ModuleType(f"graft.{name}")
    for k, v in members.items():
        setattr(ns, k, v)
    return ns


nn = _namespace("nn", relu=_ops.relu, relu6=_ops.relu6, elu=_ops.elu, selu=_ops.selu, leaky_relu=_ops.leaky_relu,
                softplus=_ops.softplus, softsign=_ops.softsign, sigmoid=sigmoid, tanh=tanh, softmax=_ops.softmax,
                log_softmax=_ops.log_softmax, bias_add=_ops.bias_add, conv2d=_ops.conv2d,
                depthwise_conv2d=_ops.depthwise_conv2d, max_pool2d=_ops.max_pool2d, avg_pool2d=_ops.avg_pool2d,
                max_pool=_ops.max_pool2d, avg_pool=_ops.avg_pool2d, dropout=_ops.dropout, l2_loss=_ops.l2_loss,
                sparse_softmax_cross_entropy_with_logits=_ops.sparse_softmax_cross_entropy_with_logits,
                softmax_cross_entropy_with_logits=_ops.softmax_cross_entropy_with_logits,
                moments=_ops.moments, batch_normalization=_ops.batch_normalization)
math = _namespace("math", add=add, subtract=subtract, multiply=multiply, divide=divide, truediv=truediv,
                  floordiv=floordiv, floormod=floormod, mod=floormod, pow=pow, maximum=maximum, minimum=minimum,
                  squared_difference=squared_difference, atan2=atan2, divide_no_nan=divide_no_nan, equal=equal,
                  not_equal=not_equal, less=less, less_equal=less_equal, greater=greater,
                  greater_equal=greater_equal, logical_and=logical_and, logical_or=logical_or,
                  logical_not=logical_not, logical_xor=logical_xor, negative=negative, abs=abs, sign=sign,
                  square=square, sqrt=sqrt, rsqrt=rsqrt, reciprocal=reciprocal, exp=exp, expm1=expm1, log=log,
                  log1p=log1p, sin=sin, cos=cos, tan=tan, tanh=tanh, asin=asin, acos=acos, atan=atan, sinh=sinh,
                  cosh=cosh, asinh=asinh, acosh=acosh, atanh=atanh, sigmoid=sigmoid, erf=erf, erfc=_ops.erfc,
                  floor=floor,
                  ceil=ceil, round=round, rint=rint, is_nan=is_nan, is_inf=is_inf, is_finite=is_finite,
                  add_n=add_n, reduce_sum=reduce_sum, reduce_mean=reduce_mean, reduce_max=reduce_max,
                  reduce_min=reduce_min, reduce_prod=reduce_prod, reduce_all=reduce_all, reduce_any=reduce_any,
                  argmax=argmax, argmin=argmin, cumsum=cumsum, cumprod=_ops.cumprod, top_k=top_k, softplus=_ops.softplus,
                  truncatediv=truncatediv, truncatemod=truncatemod, realdiv=realdiv, matmul=matmul,
                  unsorted_segment_sum=_ops.unsorted_segment_sum, unsorted_segment_prod=_ops.unsorted_segment_prod,
                  unsorted_segment_max=_ops.unsorted_segment_max, unsorted_segment_min=_ops.unsorted_segment_min,
                  segment_sum=_ops.segment_sum, segment_mean=_ops.segment_mean, segment_prod=_ops.segment_prod,
                  segment_max=_ops.segment_max, segment_min=_ops.segment_min)
image = _namespace("image", resize=_ops.image_resize, ResizeMethod=_namespace(
    "image.ResizeMethod", BILINEAR="bilinear", NEAREST_NEIGHBOR="nearest", BICUBIC="bicubic"))
linalg = _namespace("linalg", matmul=matmul, eye=eye, einsum=einsum)
random = _namespace("random", normal=_ops.random_normal, uniform=_ops.random_uniform,
                    truncated_normal=_ops.truncated_normal, set_seed=_ops.set_seed,
                    stateless_uniform=_ops.stateless_random_uniform, stateless_normal=_ops.stateless_random_normal,
                    stateless_truncated_normal=_ops.stateless_truncated_normal)
strings = _namespace("strings", format=_ops.string_format, to_hash_bucket_fast=_ops.string_to_hash_bucket_fast,
                     to_hash_bucket_strong=_ops.string_to_hash_bucket_strong,
                     to_hash_bucket=_ops.string_to_hash_bucket, split=_ops.string_split,
                     lower=_ops.string_lower, upper=_ops.string_upper, as_string=_ops.as_string,
                     ngrams=_ops.string_ngrams)
debugging = _namespace("debugging", Assert=Assert, check_numerics=check_numerics)
dtypes = _namespace("dtypes", DType=DType, as_dtype=as_dtype, float16=float16, float32=float32, float64=float64,
                    bfloat16=bfloat16, int8=int8, int16=int16, int32=int32, int64=int64, uint8=uint8,
                    uint16=uint16, uint32=uint32, uint64=uint64, bool=bool, string=string, complex64=complex64,
                    complex128=complex128, resource=resource, variant=variant)


def set_random_seed(seed):
    _ops.set_seed(seed)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TensorFlow's name
    from graft import framework as _fw
    x = convert_to_tensor(input)
    return _fw.apply_op("PlaceholderWithDefault", [x], {"shape": TensorShape(shape)}, name=name)[0]


def group(*inputs, name=None):
    from graft import framework as _fw
    g = get_default_graph()
    with g.control_dependencies([x for x in inputs if x is not None]):
        return _fw.apply_op("NoOp", [], {}, name=name)


from graft import compat  # noqa: E402 - needs the names above

# Ctrl-C cancels the runs of the main thread in flight (graft_python_extra.i), then raises
# KeyboardInterrupt as usual; only in front of Python's own default handler.
def _install_interrupt_cancellation():
    import signal
    import threading
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        _c.install_interrupt_cancellation()


_install_interrupt_cancellation()
