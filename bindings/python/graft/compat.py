"""graft.compat.v1 (and v2): TensorFlow 1 spellings of the graph API."""
import sys as _sys
import types as _types

import graft as _graft
from graft import framework as _fw
from graft import ops as _ops
from graft import gradients_impl as _gradients_impl
from graft import variables as _variables
from graft.tensor_shape import TensorShape


def placeholder(dtype, shape=None, name=None):
    """A tensor to be fed when the graph runs (graph mode only)."""
    g = _fw._graph_mode_graph()
    if g is None:
        raise RuntimeError("graft.compat.v1.placeholder() is not compatible with eager execution.")
    return _fw.apply_op("Placeholder", [], {"dtype": _graft.as_dtype(dtype), "shape": TensorShape(shape)},
                        name=name)[0]


def disable_eager_execution():
    """Graph mode: ops go to the default graph and run through a Session."""
    _fw._eager_enabled[0] = False


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    _fw._eager_enabled[0] = True


def disable_v2_behavior():
    disable_eager_execution()


def enable_v2_behavior():
    enable_eager_execution()


def executing_eagerly():
    return _fw.executing_eagerly()


def to_float(x, name="ToFloat"):
    return _ops.cast(x, _graft.float32, name=name)


def glorot_uniform_initializer(seed=None, dtype=None):
    """An initializer drawing from U(-limit, limit), limit = sqrt(6 / (fan_in + fan_out))."""
    import math

    def initializer(shape, dtype=dtype or _graft.float32, partition_info=None):
        shape = list(shape)
        fan_in = shape[-2] if len(shape) > 1 else (shape[0] if shape else 1)
        fan_out = shape[-1] if shape else 1
        receptive = 1
        for d in shape[:-2]:
            receptive *= d
        limit = math.sqrt(6.0 / max(1.0, (fan_in + fan_out) * receptive))
        return _ops.random_uniform(shape, -limit, limit, dtype=dtype, seed=seed)
    return initializer


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    return ref.assign(value)


def assign_add(ref, value, use_locking=None, name=None):
    return ref.assign_add(value)


v1 = _types.ModuleType("graft.compat.v1")
for _name in dir(_graft):
    if not _name.startswith("_"):
        setattr(v1, _name, getattr(_graft, _name))
for _name, _value in dict(placeholder=placeholder, disable_eager_execution=disable_eager_execution,
                          enable_eager_execution=enable_eager_execution, disable_v2_behavior=disable_v2_behavior,
                          enable_v2_behavior=enable_v2_behavior, executing_eagerly=executing_eagerly,
                          to_float=to_float, assign=assign, assign_add=assign_add,
                          glorot_uniform_initializer=glorot_uniform_initializer,
                          name_scope=_fw.name_scope, op_scope=_fw.name_scope,
                          import_graph_def=_graft.import_graph_def, NoGradient=_graft.NoGradient,
                          Dimension=_graft.Dimension, DeviceSpec=_graft.DeviceSpec,
                          container=_graft.container,
                          get_default_graph=_graft.get_default_graph, reset_default_graph=_graft.reset_default_graph,
                          Session=_graft.Session, InteractiveSession=_graft.InteractiveSession,
                          RunOptions=_graft.RunOptions, RunMetadata=_graft.RunMetadata,
                          ConfigProto=_graft.ConfigProto,
                          get_default_session=_graft.get_default_session, py_func=_graft.numpy_function,
                          global_variables=_variables.global_variables,
                          trainable_variables=_variables.trainable_variables,
                          global_variables_initializer=_variables.global_variables_initializer,
                          initialize_all_variables=_variables.global_variables_initializer,
                          variables_initializer=_variables.variables_initializer,
                          tables_initializer=_graft.lookup.tables_initializer,
                          set_random_seed=_graft.set_random_seed, GraphKeys=_variables.GraphKeys,
                          get_collection=_graft.get_collection, get_collection_ref=_graft.get_collection_ref,
                          add_to_collection=_graft.add_to_collection, random_normal=_ops.random_normal,
                          random_uniform=_ops.random_uniform, gradients=_gradients_impl.gradients_v1).items():
    setattr(v1, _name, _value)
# tf.compat.v1.nn: TensorFlow 2's plus the TensorFlow 1 spellings.
v1.nn = _types.ModuleType("graft.compat.v1.nn")
for _name in dir(_graft.nn):
    if not _name.startswith("_"):
        setattr(v1.nn, _name, getattr(_graft.nn, _name))
v1.nn.fused_batch_norm = _ops.fused_batch_norm
# tf.compat.v1.image: the resize ops with their align_corners / half_pixel_centers attrs.
v1.image = _types.ModuleType("graft.compat.v1.image")
v1.image.resize_bilinear = _ops.resize_bilinear
v1.image.resize_nearest_neighbor = _ops.resize_nearest_neighbor
v1.image.resize_bicubic = _ops.resize_bicubic
v1.saved_model = _types.ModuleType("graft.compat.v1.saved_model")
for _name in ("load", "contains_saved_model", "simple_save", "save_session", "SERVING", "TRAINING",
              "DEFAULT_SERVING_SIGNATURE_DEF_KEY"):
    setattr(v1.saved_model, _name, getattr(_graft.saved_model, _name))
v1.saved_model.tag_constants = _types.SimpleNamespace(SERVING=_graft.saved_model.SERVING,
                                                      TRAINING=_graft.saved_model.TRAINING)
_sys.modules["graft.compat.v1.saved_model"] = v1.saved_model
from graft import train as _train  # noqa: E402
v1.train = _types.ModuleType("graft.compat.v1.train")
for _name in ("Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer", "AdagradOptimizer",
              "RMSPropOptimizer", "get_global_step", "create_global_step", "get_or_create_global_step",
              "global_step"):
    setattr(v1.train, _name, getattr(_train, _name))
_sys.modules["graft.compat.v1.train"] = v1.train
v2 = _graft
_sys.modules["graft.compat.v1"] = v1
