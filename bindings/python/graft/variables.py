"""graft.Variable: resource variables (eager, traced or in a Graph) and graft.Module."""
import numpy as np

from graft import backprop as _backprop
from graft import dtypes as _dtypes
from graft import errors
from graft import framework as _fw
from graft import graft_swig as _c
from graft.framework import EagerTensor, Tensor, convert_to_tensor
from graft.indexed_slices import IndexedSlices
from graft.tensor_shape import as_shape


class GraphKeys:
    """Standard collection names."""
    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


class Variable:
    """A mutable tensor (a resource variable) that keeps its value across calls and runs."""

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None,
                 variable_def=None, dtype=None, import_scope=None, constraint=None, synchronization=None,
                 aggregation=None, shape=None, collections=None, **unused):
        if initial_value is None:
            raise ValueError("The `initial_value` arg (None) must be specified.")
        if callable(initial_value):
            initial_value = initial_value()
        self._trainable = True if trainable is None else bool(trainable)
        self._graph = _fw._graph_mode_graph()
        base = name or "Variable"
        if self._graph is not None:
            self._init_graph(initial_value, base, dtype, shape, collections)
        else:
            value = convert_to_tensor(initial_value, dtype=dtype)
            self._dtype = value.dtype
            self._shape = value.shape if shape is None else as_shape(shape)
            try:
                self._handle = _fw._context.variable_new(value._value, base)
            except errors.FailedPreconditionError as e:
                if not _fw._context.is_tracing():
                    raise
                # tf.function's ValueError for the same thing.
                raise ValueError(f"{e} (a graft.function, as tf.function, supports only singleton variables, "
                                 "created on its first call)") from None
            if not self._trainable:  # tapes do not watch it when it is read
                _fw._context.variable_set_trainable(self._handle, False)
            self._name = base
            self._initializer_op = None

    def _init_graph(self, initial_value, base, dtype, shape, collections):
        g = self._graph
        with g.name_scope(base) as scope:
            value = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            self._dtype = value.dtype
            self._shape = value.shape if shape is None else as_shape(shape)
            op_name = scope[:-1]
            handle = _fw.apply_op("VarHandleOp", [], {"dtype": self._dtype, "shape": self._shape,
                                                      "shared_name": op_name, "container": ""}, name=op_name + "/")
        self._handle_tensor = handle[0]
        self._name = self._handle_tensor.op.name
        with g.name_scope(self._name + "/"):
            self._initializer_op = _fw.apply_op("AssignVariableOp", [self._handle_tensor, value], {},
                                                name="Assign")
            self._graph_read = _fw.apply_op("ReadVariableOp", [self._handle_tensor], {"dtype": self._dtype},
                                            name="Read/ReadVariableOp")[0]
            self._set_read_shape(self._graph_read)
        keys = list(collections) if collections is not None else [GraphKeys.GLOBAL_VARIABLES]
        if self._trainable and GraphKeys.TRAINABLE_VARIABLES not in keys:
            keys.append(GraphKeys.TRAINABLE_VARIABLES)
        g.add_to_collections(keys, self)

    # -- properties
    @property
    def name(self):
        return self._name + ":0"

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def trainable(self):
        return self._trainable

    @property
    def graph(self):
        return self._graph

    @property
    def handle(self):
        if self._graph is not None:
            return self._handle_tensor
        return Tensor(value=self._handle) if _fw._context.is_tracing() else EagerTensor(self._handle)

    @property
    def initializer(self):
        return self._initializer_op

    @property
    def op(self):
        return self._handle_tensor.op if self._graph is not None else None

    @property
    def device(self):
        return self._handle_tensor.device if self._graph is not None else _fw._DEVICE_CPU

    def _handle_value(self):
        if self._graph is not None:
            raise TypeError(f"Variable {self.name} belongs to a Graph")
        return self._handle

    # -- reading and writing
    def read_value(self):
        if _backprop._active.tapes or _backprop._active.readers:
            _backprop._variable_accessed(self, eager=self._graph is None)
        if self._graph is not None and _fw._graph_mode_graph() is self._graph:
            return self._set_read_shape(_fw.apply_op("ReadVariableOp", [self._handle_tensor],
                                                     {"dtype": self._dtype})[0])
        if self._graph is not None:
            return self._graph_read
        v = _fw._context.variable_read(self._handle)
        if v.is_symbolic():
            t = Tensor(value=v)
            if self._shape.rank is not None:
                t._out().set_shape(_fw._shape_to_c(self._shape))  # the variable's shape, known here
            return t
        return EagerTensor(v)

    def _set_read_shape(self, t):
        """A read of the variable has the variable's shape (ReadVariableOp cannot infer it)."""
        if self._shape.rank is not None:
            t._out().set_shape(_fw._shape_to_c(self._shape))
        return t

    def value(self):
        return self.read_value()

    def _as_tensor(self):
        return self.read_value()

    def _as_graph_element(self):
        return self._graph_read if self._graph is not None else None

    def numpy(self):
        if self._graph is not None:
            raise NotImplementedError("numpy() is only available when eager execution is enabled.")
        return self.read_value().numpy()

    def _update(self, method, graph_op, value, read_value):
        if self._graph is not None:
            value = convert_to_tensor(value, dtype=self._dtype)
            op = _fw.apply_op(graph_op, [self._handle_tensor, value], {})
            if read_value:
                with self._graph.control_dependencies([op]):
                    return _fw.apply_op("ReadVariableOp", [self._handle_tensor], {"dtype": self._dtype})[0]
            return op
        value = convert_to_tensor(value, dtype=self._dtype)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Cannot assign value of shape {value.shape} to variable {self._name} of shape "
                             f"{self._shape}")
        getattr(_fw._context, method)(self._handle, value._value)
        return self.read_value() if read_value else None

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._update("variable_assign", "AssignVariableOp", value, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._update("variable_assign_add", "AssignAddVariableOp", delta, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._update("variable_assign_sub", "AssignSubVariableOp", delta, read_value)

    # -- rows: reading some rows, updating some rows in place
    def _handle_input(self):
        return self._handle_tensor if self._graph is not None else EagerTensor(self._handle)

    def sparse_read(self, indices, name=None):
        """The rows of the variable at indices (ResourceGather): gather(variable, indices)
        without reading the whole variable; the gradient reaches the variable."""
        if _backprop._active.tapes or _backprop._active.readers:
            _backprop._variable_accessed(self, eager=self._graph is None)
        indices = convert_to_tensor(indices, dtype_hint=_dtypes.int32)
        t = _fw.apply_op("ResourceGather", [self._handle_input(), indices], {"dtype": self._dtype}, name=name)[0]
        if self._shape.rank and indices.shape.rank is not None and not isinstance(t, EagerTensor):
            # indices' shape, then a row's shape (the op cannot see the variable's shape).
            t._out().set_shape(_fw._shape_to_c(indices.shape.concatenate(self._shape[1:])))
        return t

    def _scatter(self, op_type, sparse_delta, name):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta!r}")
        indices = convert_to_tensor(sparse_delta.indices, dtype_hint=_dtypes.int32)
        values = convert_to_tensor(sparse_delta.values, dtype=self._dtype)
        op = _fw.apply_op(op_type, [self._handle_input(), indices, values], {"dtype": self._dtype}, name=name)
        if self._graph is not None:
            with self._graph.control_dependencies([op]):
                return _fw.apply_op("ReadVariableOp", [self._handle_tensor], {"dtype": self._dtype})[0]
        return self

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Adds sparse_delta.values to the rows sparse_delta.indices (rows named twice add twice)."""
        return self._scatter("ResourceScatterAdd", sparse_delta, name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("ResourceScatterSub", sparse_delta, name)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("ResourceScatterMul", sparse_delta, name)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("ResourceScatterDiv", sparse_delta, name)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("ResourceScatterMax", sparse_delta, name)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("ResourceScatterMin", sparse_delta, name)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("ResourceScatterUpdate", sparse_delta, name)

    def eval(self, session=None):
        return self._graph_read.eval(session=session)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.numpy(), dtype=dtype)

    def __bool__(self):
        return bool(self.read_value())

    def __int__(self):
        return int(self.read_value())

    def __float__(self):
        return float(self.read_value())

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        if self._graph is not None:
            return self is other
        return self.read_value() == other

    def __ne__(self, other):
        if self._graph is not None:
            return self is not other
        return self.read_value() != other

    def __repr__(self):
        if self._graph is not None or _fw._context.is_tracing():
            return f"<graft.Variable '{self.name}' shape={self._shape} dtype={self._dtype.name}>"
        return (f"<graft.Variable '{self.name}' shape={self._shape} dtype={self._dtype.name}, "
                f"numpy={_fw._np_repr(self.numpy())}>")


def _forward(op):
    def method(self, *args):
        return getattr(self.read_value(), op)(*args)
    return method


for _op in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
            "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
            "__rmatmul__", "__neg__", "__abs__", "__lt__", "__le__", "__gt__", "__ge__", "__getitem__",
            "__and__", "__or__", "__invert__"):
    setattr(Variable, _op, _forward(_op))
del _op


class _TracedVariable(Variable):
    """A Variable passed to a graft.function, seen inside its trace: its handle is an argument of
    the traced graph, read and written with the resource variable ops."""

    def __init__(self, handle_tensor, original):  # noqa: super-init-not-called - a view of original
        self._graph = None
        self._original = original  # the Variable passed in (optimizers key slots by it)
        self._handle = handle_tensor._value
        self._handle_arg = handle_tensor
        self._dtype = original.dtype
        self._shape = original.shape
        self._name = original._name
        self._trainable = original.trainable
        self._initializer_op = None

    def read_value(self):
        if _backprop._active.tapes or _backprop._active.readers:
            _backprop._variable_accessed(self)
        t = _fw.apply_op("ReadVariableOp", [self._handle_arg], {"dtype": self._dtype})[0]
        if self._shape.rank is not None:
            t._out().set_shape(_fw._shape_to_c(self._shape))
        return t

    def _update(self, method, graph_op, value, read_value):
        value = convert_to_tensor(value, dtype=self._dtype)
        _fw.apply_op(graph_op, [self._handle_arg, value], {})
        return self.read_value() if read_value else None

    def _handle_input(self):
        return self._handle_arg


def global_variables(scope=None):
    return _fw.get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope=None):
    return _fw.get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def global_variables_initializer():
    g = _fw.get_default_graph()
    inits = [v.initializer for v in global_variables() if v.initializer is not None]
    with g.control_dependencies(inits):
        out = _fw.apply_op("NoOp", [], {}, name="init")
    return out


def variables_initializer(var_list, name="init"):
    g = _fw.get_default_graph()
    with g.control_dependencies([v.initializer for v in var_list]):
        return _fw.apply_op("NoOp", [], {}, name=name)


class Module:
    """A named container of variables and submodules (tf.Module)."""

    def __init__(self, name=None):
        self._name = name or _camel_to_snake(type(self).__name__)

    @property
    def name(self):
        return self._name

    def _walk(self, predicate, seen=None):
        seen = set() if seen is None else seen
        out = []
        for key in sorted(vars(self)):
            _collect(getattr(self, key), predicate, out, seen)
        return out

    @property
    def variables(self):
        return tuple(self._walk(lambda x: isinstance(x, Variable)))

    @property
    def trainable_variables(self):
        return tuple(self._walk(lambda x: isinstance(x, Variable) and x.trainable))

    @property
    def non_trainable_variables(self):
        return tuple(self._walk(lambda x: isinstance(x, Variable) and not x.trainable))

    @property
    def submodules(self):
        return tuple(self._walk(lambda x: isinstance(x, Module)))


def _collect(x, predicate, out, seen):
    if id(x) in seen:
        return
    if isinstance(x, (Variable, Module)) or isinstance(x, (list, tuple, dict)):
        seen.add(id(x))
    if predicate(x):
        out.append(x)
    if isinstance(x, Module):
        for key in sorted(vars(x)):
            _collect(getattr(x, key), predicate, out, seen)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _collect(v, predicate, out, seen)
    elif isinstance(x, dict):
        for k in sorted(x, key=repr):
            _collect(x[k], predicate, out, seen)


def _camel_to_snake(name):
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and not name[i - 1].isupper():
            out.append("_")
        out.append(ch.lower())
    return "".join(out)
