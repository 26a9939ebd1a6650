"""graft.framework: tensors, operations, graphs, and where ops go when they are made.

An op is made in one of three places, decided per call:
  - a Graph (graph mode): inside `with g.as_default()`, or after
    compat.v1.disable_eager_execution(); ops are added through the C API's op descriptions;
  - a trace: inside a graft.function body, the process context records ops into the traced
    function's graph (the C context knows it is tracing on this thread);
  - eagerly: otherwise, the process context runs the op at once.
Tensors: EagerTensor (a concrete value, .numpy()), and graph tensors (a tensor of a Graph or of
a trace; .op, .name, .graph).
"""
import threading
import traceback
import weakref

import numpy as np

from graft import dtypes as _dtypes
from graft import errors
from graft import graft_swig as _c
from graft.tensor_shape import TensorShape, as_shape


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor was used where a Python value is needed (bool, iteration)."""


_context = _c.Context()
_run_op = _c.run_op


def context():
    """The process-wide eager context (graft_swig.Context)."""
    return _context


class _ThreadState(threading.local):
    def __init__(self):
        self.graph_stack = []  # Graphs entered with as_default()
        self.eager = 0  # depth of host functions running (their ops run eagerly)
        self.tracing = 0  # depth of Python callbacks being traced (graph mode is off inside)
        self.device_stack = []  # eager device scopes (strings)


_tls = _ThreadState()
_eager_enabled = [True]
_global_graph = [None]
_global_graph_lock = threading.Lock()


def executing_eagerly():
    """True when ops run at once: not in graph mode and not tracing a function."""
    return _graph_mode_graph() is None and not _context.is_tracing()


def inside_function():
    return _graph_mode_graph() is None and _context.is_tracing()


class _TracingScope:
    """Entered by every Python callback the C library traces: graph mode is off inside (the
    trace's graph is where ops go), as in a TensorFlow FuncGraph."""

    def __enter__(self):
        self._saved = _tls.graph_stack
        _tls.graph_stack = []
        _tls.tracing += 1

    def __exit__(self, *exc):
        _tls.tracing -= 1
        _tls.graph_stack = self._saved
        return False


def tracing_scope():
    return _TracingScope()


class _EagerScope:
    """Entered by host functions (py_function): their ops run eagerly whatever the caller's mode."""

    def __enter__(self):
        _tls.eager += 1

    def __exit__(self, *exc):
        _tls.eager -= 1
        return False


def eager_scope():
    return _EagerScope()


def _graph_mode_graph():
    """The Graph ops go to now, or None when they run eagerly / are traced."""
    if _tls.eager:
        return None
    if _tls.graph_stack:
        return _tls.graph_stack[-1]
    if not _eager_enabled[0] and not _tls.tracing:
        return get_default_graph()
    return None


def get_default_graph():
    """The innermost graph of `as_default()`, else the trace graph when tracing, else the
    global default graph."""
    if _tls.graph_stack:
        return _tls.graph_stack[-1]
    if (_eager_enabled[0] or _tls.tracing) and _context.is_tracing():
        return _current_trace_graph()
    with _global_graph_lock:
        if _global_graph[0] is None:
            _global_graph[0] = Graph()
        return _global_graph[0]


def reset_default_graph():
    if _tls.graph_stack:
        raise AssertionError("Do not use reset_default_graph() inside a graph's as_default() block.")
    with _global_graph_lock:
        _global_graph[0] = Graph()


# ---- Graphs -------------------------------------------------------------------------------------

_graph_wrappers = weakref.WeakValueDictionary()  # C graph id -> Graph (one wrapper per graph)


_graph_wrappers_lock = threading.Lock()


def _wrap_graph(c_graph):
    key = c_graph.id()
    if key == 0:
        # An op of a trace still running: its graph is the trace's (no handle of its own yet).
        return _current_trace_graph()
    with _graph_wrappers_lock:
        g = _graph_wrappers.get(key)
        if g is None:
            g = Graph.__new__(Graph)
            g._init(c_graph)
            _graph_wrappers[key] = g
    return g


def _current_trace_graph():
    """The graph of the function being traced on this thread."""
    return _wrap_graph(_context.trace_graph())


class _GraphDefault:
    def __init__(self, graph):
        self._graph = graph

    def __enter__(self):
        _tls.graph_stack.append(self._graph)
        return self._graph

    def __exit__(self, *exc):
        _tls.graph_stack.pop()
        return False


class Graph:
    """A dataflow graph (graft_swig.Graph): its ops, tensors, scopes and collections."""

    def __init__(self):
        self._init(_c.Graph())
        with _graph_wrappers_lock:
            _graph_wrappers[self._c.id()] = self

    def _init(self, c_graph):
        self._c = c_graph
        self._ops = {}  # op name -> Operation
        self._collections_values = {}  # id -> Python object (GRAFT_ITEM_VALUE items)
        self._next_value_id = 1
        self._device_functions = []
        self._seed = None
        self._lock = threading.RLock()
        self._gradient_override = []
        self._unfeedable = set()
        self._unfetchable = set()
        self._building_function = False

    # -- context managers
    def as_default(self):
        return _GraphDefault(self)

    def name_scope(self, name):
        return _GraphNameScope(self, name)

    def control_dependencies(self, control_inputs):
        return _ControlDependencies(self, control_inputs)

    def device(self, device_name_or_function):
        return _GraphDevice(self, device_name_or_function)

    def container(self, container_name):
        return _PushPop(lambda: self._c.push_container(container_name), self._c.pop_container, container_name)

    def colocate_with(self, op, ignore_existing=False):
        if op is None:
            if not ignore_existing:
                raise ValueError("Trying to reset colocation (op is None) but ignore_existing is not True")
            return _PushPop(lambda: self._c.push_colocation(_c.Operation(), True), self._c.pop_colocation)
        op = _as_op(op)
        return _PushPop(lambda: self._c.push_colocation(op._c, bool(ignore_existing)), self._c.pop_colocation)

    def gradient_override_map(self, op_type_map):
        if not isinstance(op_type_map, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        keys = list(op_type_map.keys())
        values = [op_type_map[k] for k in keys]
        return _PushPop(lambda: self._c.push_gradient_override_map(keys, values), self._c.pop_gradient_override_map)

    # -- ops and tensors
    def _wrap_op(self, c_op):
        name = c_op.name()
        op = self._ops.get(name)
        if op is None or not op._c.same_as(c_op):
            op = Operation(c_op, self)
            self._ops[name] = op
        return op

    def get_operations(self):
        return [self._wrap_op(o) for o in self._c.operations()]

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        try:
            return self._wrap_op(self._c.op_by_name(name))
        except errors.OpError:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        if hasattr(obj, "_as_graph_element") and not isinstance(obj, (Tensor, Operation)):
            obj = obj._as_graph_element()
        if isinstance(obj, str):
            if ":" in obj:
                if not allow_tensor:
                    raise ValueError(f"Name {obj!r} appears to refer to a Tensor, not a Operation.")
                op_name, _, index = obj.rpartition(":")
                try:
                    index = int(index)
                except ValueError:
                    raise ValueError(f"The name {obj!r} looks a like a Tensor name, but is not a valid one.") from None
                try:
                    op = self._wrap_op(self._c.op_by_name(op_name))
                except errors.OpError:
                    raise KeyError(f"The name {obj!r} refers to a Tensor which does not exist. "
                                   f"The operation, {op_name!r}, does not exist in the graph.") from None
                if index < 0 or index >= len(op.outputs):
                    raise KeyError(f"The name {obj!r} refers to a Tensor which does not exist. "
                                   f"The operation, {op_name!r}, exists but only has {len(op.outputs)} outputs.")
                return op.outputs[index]
            if not allow_operation:
                raise ValueError(f"The name {obj!r} looks like an (invalid) Operation name, not a Tensor. "
                                 "Tensor names must be of the form \"<op_name>:<output_index>\".")
            try:
                return self._wrap_op(self._c.op_by_name(obj))
            except errors.OpError:
                raise KeyError(f"The name {obj!r} refers to an Operation not in the graph.") from None
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        kinds = " or ".join(k for k, ok in (("Tensor", allow_tensor), ("Operation", allow_operation)) if ok)
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {kinds}.")

    def create_op(self, op_type, inputs, dtypes=None, input_types=None, name=None, attrs=None, op_def=None,
                  compute_shapes=True, compute_device=True):
        for x in inputs:
            if not isinstance(x, Tensor):
                raise TypeError(f"Input #{inputs.index(x)} is not a tensor: {x!r}")
        with self.as_default():
            outs = apply_op(op_type, list(inputs), attrs or {}, name=name, raw_outputs=True)
        return outs[0].op if outs else outs.op

    # -- properties
    @property
    def finalized(self):
        return self._c.finalized()

    def finalize(self):
        self._c.finalize()

    @property
    def version(self):
        return self._c.version()

    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed
        self._c.set_seed(seed is not None, 0 if seed is None else int(seed))

    @property
    def graph_def_versions(self):
        from graft import graph_io
        return graph_io.graph_def_versions(self)

    @property
    def building_function(self):
        return self._building_function

    def unique_name(self, name, mark_as_used=True):
        return self._c.unique_name(name, bool(mark_as_used))

    def get_name_scope(self):
        return self._c.name_scope()

    def as_graph_def(self, from_version=None, add_shapes=False):
        from graft import graph_io
        return graph_io.GraphDef(self._c.export_graph_def(bool(add_shapes), -1 if from_version is None
                                                          else int(from_version)))

    def is_feedable(self, tensor):
        return tensor.name not in self._unfeedable

    def is_fetchable(self, tensor_or_op):
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op.name not in self._unfetchable

    def prevent_feeding(self, tensor):
        self._unfeedable.add(tensor.name)

    def prevent_fetching(self, op):
        self._unfetchable.add(op.name)

    # -- collections
    def _item(self, value):
        if isinstance(value, Operation):
            return _c.CollectionItem.of_op(value._c)
        if isinstance(value, Tensor) and value._value is None and value.graph is self:
            return _c.CollectionItem.of_tensor(value._out())
        if isinstance(value, str):
            return _c.CollectionItem.of_string(value)
        for known_id, known in self._collections_values.items():
            if known is value:
                break
        else:
            known_id = self._next_value_id
            self._collections_values[known_id] = value
            self._next_value_id += 1
        name = getattr(value, "name", None)
        return _c.CollectionItem.of_value(known_id, name if isinstance(name, str) else "")

    def _unitem(self, item):
        if item.kind == _c.GRAFT_ITEM_OP:
            return self._wrap_op(item.op())
        if item.kind == _c.GRAFT_ITEM_TENSOR:
            t = item.tensor()
            return self._wrap_op(t.op()).outputs[t.index()]
        if item.kind == _c.GRAFT_ITEM_STRING:
            return item.string
        return self._collections_values[item.value]

    def add_to_collection(self, name, value):
        with self._lock:
            self._c.add_to_collection(name, self._item(value))

    def add_to_collections(self, names, value):
        if isinstance(names, str):
            names = [names]
        for name in dict.fromkeys(names):
            self.add_to_collection(name, value)

    def get_collection(self, name, scope=None):
        with self._lock:
            return [self._unitem(i) for i in self._c.get_collection(name, scope or "")]

    def get_collection_ref(self, name):
        return _CollectionRef(self, name)

    def get_all_collection_keys(self):
        return list(self._c.collection_keys())

    def clear_collection(self, name):
        self._c.set_collection(name, [])

    def __repr__(self):
        return f"<graft.Graph object at {id(self):#x}>"


class _CollectionRef(list):
    """get_collection_ref's live list: changes are written back to the graph's collection."""

    def __init__(self, graph, name):
        super().__init__(graph.get_collection(name))
        self._graph, self._name = graph, name
        self._sync()

    def _sync(self):
        self._graph._c.set_collection(self._name, [self._graph._item(v) for v in self])

    def _mutating(name):  # noqa: N805 - a method factory
        def method(self, *args, **kwargs):
            result = getattr(list, name)(self, *args, **kwargs)
            self._sync()
            return result
        return method

    for _m in ("append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "__setitem__",
               "__delitem__", "__iadd__"):
        locals()[_m] = _mutating(_m)
    del _m, _mutating


class _PushPop:
    def __init__(self, push, pop, value=None):
        self._push, self._pop, self._value = push, pop, value

    def __enter__(self):
        self._push()
        return self._value

    def __exit__(self, *exc):
        self._pop()
        return False


class _GraphNameScope:
    def __init__(self, graph, name):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name_scope name must be a string, got {type(name).__name__}")
        self._graph, self._name = graph, name

    def __enter__(self):
        try:
            return self._graph._c.push_name_scope(self._name or "")
        except errors.InvalidArgumentError as e:
            raise ValueError(str(e)) from None

    def __exit__(self, *exc):
        self._graph._c.pop_name_scope()
        return False


def _as_op(x):
    if isinstance(x, Operation):
        return x
    if isinstance(x, Tensor):
        return x.op
    if isinstance(getattr(x, "op", None), Operation):  # a Variable: its handle op
        return x.op
    if hasattr(x, "_as_graph_element"):
        return _as_op(x._as_graph_element())
    raise TypeError(f"Control input must be Operation or Tensor: {x!r}")


class _ControlDependencies:
    def __init__(self, graph, control_inputs):
        if control_inputs is not None:
            if isinstance(control_inputs, (Tensor, Operation)) or not hasattr(control_inputs, "__iter__"):
                raise TypeError(f"Control inputs must be a list of Operation or Tensor objects, got "
                                f"{type(control_inputs).__name__}")
            control_inputs = [_as_op(x) for x in control_inputs]
        self._graph, self._inputs = graph, control_inputs

    def __enter__(self):
        if self._inputs is None:
            self._graph._c.push_no_control_dependencies()
        else:
            self._graph._c.push_control_dependencies([op._c for op in self._inputs])

    def __exit__(self, *exc):
        self._graph._c.pop_control_dependencies()
        return False


class _DeviceFunctionAdapter(_c.DeviceFunction):
    def __init__(self, graph, fn):
        super().__init__()
        self._graph, self._fn = graph, fn

    def device_for(self, c_op):
        try:
            op = Operation(c_op, self._graph)
            spec = self._fn(op)
            if spec is None:
                return ""
            return spec.to_string() if hasattr(spec, "to_string") else str(spec)
        except Exception:  # noqa: BLE001 - a failing device function places nothing
            return ""


class _GraphDevice:
    def __init__(self, graph, device):
        self._graph = graph
        if callable(device) and not isinstance(device, str):
            self._fn = _DeviceFunctionAdapter(graph, device)
            self._spec = None
        else:
            self._fn = None
            self._spec = "" if device is None else (device.to_string() if hasattr(device, "to_string")
                                                   else str(device))

    def __enter__(self):
        if self._fn is not None:
            self._graph._device_functions.append(self._fn)
            self._graph._c.push_device_function(self._fn)
        else:
            try:
                self._graph._c.push_device(self._spec)
            except errors.InvalidArgumentError as e:
                raise ValueError(str(e)) from None

    def __exit__(self, *exc):
        self._graph._c.pop_device()
        if self._fn is not None:
            self._graph._device_functions.pop()
        return False


# ---- Operations ---------------------------------------------------------------------------------

_ATTR_GETTERS = {
    _c.GRAFT_ATTR_STRING: lambda op, n: op.attr_string(n),
    _c.GRAFT_ATTR_INT: lambda op, n: op.attr_int(n),
    _c.GRAFT_ATTR_FLOAT: lambda op, n: op.attr_float(n),
    _c.GRAFT_ATTR_BOOL: lambda op, n: op.attr_bool(n),
    _c.GRAFT_ATTR_TYPE: lambda op, n: _dtypes.as_dtype(op.attr_dtype(n)),
    _c.GRAFT_ATTR_SHAPE: lambda op, n: _shape_from_c(op.attr_shape(n)),
    _c.GRAFT_ATTR_TENSOR: lambda op, n: _numpy_of(op.attr_tensor(n)),
    _c.GRAFT_ATTR_FUNC: lambda op, n: op.attr_func(n),
    _c.GRAFT_ATTR_STRING_LIST: lambda op, n: list(op.attr_string_list(n)),
    _c.GRAFT_ATTR_INT_LIST: lambda op, n: list(op.attr_int_list(n)),
    _c.GRAFT_ATTR_FLOAT_LIST: lambda op, n: list(op.attr_float_list(n)),
    _c.GRAFT_ATTR_BOOL_LIST: lambda op, n: list(op.attr_bool_list(n)),
    _c.GRAFT_ATTR_TYPE_LIST: lambda op, n: [_dtypes.as_dtype(t) for t in op.attr_dtype_list(n)],
    _c.GRAFT_ATTR_SHAPE_LIST: lambda op, n: [_shape_from_c(s) for s in op.attr_shape_list(n)],
}


class Operation:
    """A node of a graph: its type, name, inputs, outputs, device and attributes."""

    def __init__(self, c_op, graph):
        self._c = c_op
        self._graph = graph
        self._outputs = None
        self._traceback = []

    @property
    def name(self):
        return self._c.name()

    @property
    def type(self):
        return self._c.type()

    @property
    def device(self):
        return self._c.device()

    @property
    def graph(self):
        return self._graph

    @property
    def inputs(self):
        return [_graph_tensor(self._graph, self._c.input(i)) for i in range(self._c.num_inputs())]

    @property
    def outputs(self):
        if self._outputs is None:
            self._outputs = [Tensor._from_output(self._graph, self, i) for i in range(self._c.num_outputs())]
        return list(self._outputs)

    def values(self):
        return tuple(self.outputs)

    @property
    def control_inputs(self):
        return [self._graph._wrap_op(o) for o in self._c.control_inputs()]

    @property
    def _control_outputs(self):
        return [self._graph._wrap_op(o) for o in self._c.control_outputs()]

    def colocation_groups(self):
        """The "loc:@name" groups the op is colocated with (bytes), its own when none is set."""
        return [g.encode() for g in self._c.colocation_groups()]

    @property
    def op_def(self):
        """The op's definition, as far as graft exposes it: its name (the op type)."""
        import types
        return types.SimpleNamespace(name=self.type)

    @property
    def node_def(self):
        from graft import graph_io
        return graph_io.node_def_of(self)

    @property
    def traceback(self):
        """The call stack where the op was made (graph mode), outermost first."""
        return list(self._traceback)

    def get_attr(self, name):
        try:
            kind = self._c.attr_type(name)
        except errors.OpError:
            raise ValueError(f"Operation {self.name!r} has no attr named {name!r}.") from None
        getter = _ATTR_GETTERS.get(kind)
        if getter is None:
            raise ValueError(f"Operation {self.name!r}: attr {name!r} has a type Graft cannot return")
        return getter(self._c, name)

    @property
    def _attr_names(self):
        return list(self._c.attr_names())

    def run(self, feed_dict=None, session=None):
        from graft import session as _session
        sess = session or _session.get_default_session()
        if sess is None:
            raise ValueError("Cannot execute operation using `run()`: No default session is registered.")
        sess.run(self, feed_dict)

    def __repr__(self):
        return f"<graft.Operation '{self.name}' type={self.type}>"

    def __eq__(self, other):
        return isinstance(other, Operation) and self._c.same_as(other._c)

    def __hash__(self):
        return hash((id(self._graph), self.name))


def _shape_from_c(shape):
    return TensorShape(None) if shape.rank() < 0 else TensorShape([None if d < 0 else d for d in shape.dims()])


def _shape_to_c(shape):
    shape = as_shape(shape)
    if shape.rank is None:
        return _c.Shape()
    return _c.Shape([-1 if d is None else d for d in shape.as_list()])


# ---- Tensors ------------------------------------------------------------------------------------

class _ArrayView:
    """Exports a graft tensor's buffer to NumPy without a copy (keeps the tensor alive)."""

    __slots__ = ("_tensor", "__array_interface__")

    def __init__(self, tensor, np_dtype, shape, writable=False):
        """np_dtype: a NumPy dtype, or its type string ("<f4"). writable: only for a tensor that
        alone holds its buffer (Tensor.is_exclusive)."""
        self._tensor = tensor
        self.__array_interface__ = {"data": (tensor.data_address(), not writable), "shape": tuple(shape),
                                    "typestr": np_dtype if isinstance(np_dtype, str) else np.dtype(np_dtype).str,
                                    "version": 3}


def _numpy_of(c_tensor, copy=False, typestr=None, take=False):
    """A NumPy array of a graft_swig.Tensor: a read-only view, or a copy. typestr, when the
    caller knows the tensor is numeric, is its NumPy type string ("<f4"): the copy is then made
    at once, without looking the dtype up (Session.run's results). take (with typestr): a
    tensor that alone holds its Graft-owned buffer becomes a writable array over it instead of
    a copy (the array keeps the tensor)."""
    if typestr is not None and copy and c_tensor.data_address() != 0:
        if take and c_tensor.is_exclusive():
            return np.asarray(_ArrayView(c_tensor, typestr, c_tensor.shape(), writable=True))
        return np.array(_ArrayView(c_tensor, typestr, c_tensor.shape()))
    dtype = _dtypes.as_dtype(c_tensor.dtype())
    shape = tuple(c_tensor.shape())
    if dtype == _dtypes.string:
        n = c_tensor.num_elements()
        arr = np.empty(n, dtype=object)
        for i in range(n):
            arr[i] = c_tensor.string_at(i)
        return arr.reshape(shape) if shape else arr[0]
    np_dtype = dtype.as_numpy_dtype
    if np_dtype is None:
        raise TypeError(f"Cannot convert a tensor of dtype {dtype.name} to a NumPy array")
    if c_tensor.num_elements() == 0 or c_tensor.data_address() == 0:
        arr = np.zeros(shape, dtype=np_dtype)
    elif np.dtype(np_dtype).kind == "V":
        # A dtype NumPy has no type string for (ml_dtypes' bfloat16): exported as its bits.
        bits = np.dtype("u%d" % np.dtype(np_dtype).itemsize)
        arr = np.asarray(_ArrayView(c_tensor, bits, shape)).view(np_dtype)
        if copy:
            arr = arr.copy()
    else:
        arr = np.asarray(_ArrayView(c_tensor, np_dtype, shape))
        if copy:
            arr = arr.copy()
    return arr


_DEVICE_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


class Tensor:
    """A tensor: the output of an op of a graph or trace, or (EagerTensor) a concrete value."""

    # Unset fields read as these class defaults (instances stay cheap to make).
    _value = None  # graft_swig.Value: concrete (eager) or symbolic (a trace's)
    _output = None  # graft_swig.Output: the tensor in its graph
    _graph = None
    _op = None
    _shape = None
    _dtype = None

    # NumPy defers binary operators with a Tensor on the right to the Tensor.
    __array_priority__ = 100

    def __init__(self, value=None, output=None, graph=None, op=None):
        if value is not None:
            self._value = value
        if output is not None:
            self._output = output
        if graph is not None:
            self._graph = graph
        if op is not None:
            self._op = op

    @classmethod
    def _from_output(cls, graph, op, index):
        t = cls.__new__(cls)
        Tensor.__init__(t, output=op._c.output(index), graph=graph, op=op)
        return t

    def _out(self):
        if self._output is None:
            self._output = self._value.output()
        return self._output

    @property
    def dtype(self):
        if self._dtype is None:
            self._dtype = _dtypes.as_dtype(self._value.dtype() if self._value is not None else self._out().dtype())
        return self._dtype

    @property
    def shape(self):
        if self._value is not None:
            return _shape_from_c(self._value.shape())
        return _shape_from_c(self._out().shape())

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        shape = as_shape(shape)
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape {shape}.")
        try:
            self._out().set_shape(_shape_to_c(shape))
        except errors.OpError as e:
            raise ValueError(str(e)) from None

    @property
    def graph(self):
        if self._graph is None:
            self._graph = _wrap_graph(self._out().op().graph())
        return self._graph

    @property
    def op(self):
        if self._op is None:
            self._op = self.graph._wrap_op(self._out().op())
        return self._op

    @property
    def name(self):
        return f"{self.op.name}:{self.value_index}"

    @property
    def value_index(self):
        return self._out().index()

    @property
    def device(self):
        return self.op.device

    @property
    def ndim(self):
        return self.shape.rank

    def consumers(self):
        return [self.graph._wrap_op(o) for o in self._out().consumers()]

    def eval(self, feed_dict=None, session=None):
        from graft import session as _session
        sess = session or _session.get_default_session()
        if sess is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered.")
        return sess.run(self, feed_dict)

    def ref(self):
        return _TensorRef(self)

    def experimental_ref(self):
        return self.ref()

    def __hash__(self):
        if self._value is None:
            return id(self)  # a Graph's tensor: hashable, compared by identity (feed_dict keys)
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def __bool__(self):
        raise OperatorNotAllowedInGraphError(
            "Using a symbolic `graft.Tensor` as a Python `bool` is not allowed: this tensor has no value "
            "while the graph is built. Use graft.cond (or graft.while_loop) to branch on a tensor.")

    def __iter__(self):
        shape = self.shape
        if shape.rank is None or shape[0] is None:
            raise OperatorNotAllowedInGraphError(
                "Iterating over a symbolic `graft.Tensor` is not allowed: its length is unknown. "
                "Use graft.while_loop to loop over a tensor.")
        from graft import ops
        return iter(ops.unstack(self, num=shape[0]))

    def __len__(self):
        shape = self.shape
        if shape.rank is None or shape[0] is None:
            raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}) of shape {shape}.")
        return shape[0]

    def __repr__(self):
        return f"<graft.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __str__(self):
        return f'Tensor("{self.name}", shape={self.shape}, dtype={self.dtype.name})'

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic graft.Tensor ({self.name}) to a numpy array: it has no value "
            "while the graph is built.")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class EagerTensor(Tensor):
    """A concrete tensor: its value is known (.numpy())."""

    _np = None

    def __init__(self, value):
        self._value = value

    def _c_tensor(self):
        return self._value.to_tensor()

    def _view(self):
        if self._np is None:
            self._np = _numpy_of(self._value.to_tensor())
        return self._np

    def numpy(self):
        """The value as a NumPy array (a copy; bytes objects for strings)."""
        v = self._view()
        return v.copy() if isinstance(v, np.ndarray) else v

    @property
    def shape(self):
        if self._shape is None:
            self._shape = TensorShape(self._value.to_tensor().shape())
        return self._shape

    def set_shape(self, shape):
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape {as_shape(shape)}.")

    @property
    def device(self):
        return _DEVICE_CPU

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    def __bool__(self):
        return bool(self._view())

    def __int__(self):
        return int(self._view())

    def __float__(self):
        return float(self._view())

    def __index__(self):
        v = self._view()
        if not self.dtype.is_integer:
            raise TypeError(f"Only integer scalar tensors can be converted to an index, not {self.dtype.name}")
        return int(v)

    def __complex__(self):
        return complex(self._view())

    def __len__(self):
        if not self.shape.rank:
            raise TypeError("Scalar tensor has no `len()`")
        return self.shape[0]

    def __iter__(self):
        if not self.shape.rank:
            raise TypeError("Cannot iterate over a scalar tensor.")
        from graft import ops
        return iter(ops.unstack(self, num=self.shape[0]))

    def __array__(self, dtype=None, copy=None):
        v = self._view()
        arr = np.asarray(v)
        if dtype is not None:
            arr = arr.astype(dtype)
        elif copy:
            arr = arr.copy()
        return arr

    def __format__(self, spec):
        if self.shape.rank == 0:
            return format(self._view(), spec)
        return format(str(self), spec)

    def __repr__(self):
        return f"<graft.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={_np_repr(self._view())}>"

    def __str__(self):
        return f"graft.Tensor({_np_repr(self._view())}, shape={self.shape}, dtype={self.dtype.name})"

    def __reduce__(self):
        from graft import ops
        return ops.convert_to_tensor, (self.numpy(),)


def _np_repr(v):
    if isinstance(v, np.ndarray):
        return np.array2string(v, separator=" " if v.ndim else ", ")
    return repr(v)


class _TensorRef:
    """A hashable reference to a tensor (Tensor.ref())."""

    __slots__ = ("_t",)

    def __init__(self, t):
        self._t = t

    def deref(self):
        return self._t

    def __hash__(self):
        return id(self._t)

    def __eq__(self, other):
        return isinstance(other, _TensorRef) and other._t is self._t


def _graph_tensor(graph, c_output):
    op = graph._wrap_op(c_output.op())
    return op.outputs[c_output.index()]


_object_new = object.__new__


def _eager(value):
    """An EagerTensor of a graft_swig.Value (the fast way to make one)."""
    t = _object_new(EagerTensor)
    t._value = value
    return t


def _symbolic(value):
    t = _object_new(Tensor)
    t._value = value
    return t


def _wrap_value(value, symbolic):
    return _symbolic(value) if symbolic else _eager(value)


# ---- Converting Python values ---------------------------------------------------------------------

def _flatten_nested(value):
    """Flattens nested lists/tuples of scalars (row-major) with their shape; None if ragged."""
    if isinstance(value, (list, tuple)):
        if not value:
            return [], [0]
        parts = [_flatten_nested(v) for v in value]
        if any(p is None for p in parts):
            return None
        shape0 = parts[0][1]
        if any(p[1] != shape0 for p in parts):
            raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {value!r}")
        flat = []
        for p in parts:
            flat.extend(p[0])
        return flat, [len(value)] + shape0
    if isinstance(value, (Tensor, np.ndarray)):
        return None
    return [value], []


def _c_tensor_from_numpy(arr, dtype=None):
    """A graft_swig.Tensor holding a copy of NumPy array arr (cast to dtype if given)."""
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
        if dtype == _dtypes.string:
            arr = np.asarray(arr, dtype=object)
        else:
            src = np.asarray(arr)
            if src.dtype.kind in "OSU":
                raise TypeError(f"Cannot convert {arr!r} to EagerTensor of dtype {dtype.name}")
            target = np.dtype(dtype.as_numpy_dtype)
            if src.dtype.kind == "f" and target.kind in "iu" and not np.all(np.mod(src, 1) == 0):
                raise TypeError(f"Cannot convert {arr!r} to EagerTensor of dtype {dtype.name}")
            arr = src.astype(target, copy=False)
    arr = np.asarray(arr)
    if arr.dtype.kind in "OSU":
        flat = [x if isinstance(x, bytes) else str(x).encode() for x in arr.reshape(-1)]
        return _c.tensor_from_bytes_list(list(arr.shape), flat)
    dt = _dtypes.as_dtype(arr.dtype)
    if not arr.flags.c_contiguous:
        arr = arr.copy(order="C")
    return _c.Tensor.from_bytes(dt.as_datatype_enum, list(arr.shape), arr.reshape(-1).view(np.uint8))


def _host_elements(value, dtype):
    """A Python scalar or nested list as (kind, flat elements, dims, dtype code or 0) for the C
    API's one conversion rule (graft_tensor_from_host): kind "ints", "doubles", "bools" or
    "strings" says how the elements travel, and the C rule picks or checks the dtype. None for
    lists holding tensors; "numpy" (with the array) for values only NumPy converts (complex)."""
    d = _dtypes.as_dtype(dtype).as_datatype_enum if dtype is not None else 0
    flat = _flatten_nested(value)
    if flat is None:
        return None
    elems, dims = flat
    if elems and all(isinstance(e, (bool, np.bool_)) for e in elems):
        return "bools", [bool(e) for e in elems], dims, d
    if all(isinstance(e, (int, np.integer)) for e in elems) and elems:
        return "ints", [int(e) for e in elems], dims, d
    if all(isinstance(e, (int, float, np.integer, np.floating)) for e in elems):
        return "doubles", [float(e) for e in elems], dims, d  # an empty list too
    if all(isinstance(e, (str, bytes)) for e in elems):
        return "strings", [e if isinstance(e, bytes) else e.encode() for e in elems], dims, d
    if any(isinstance(e, complex) for e in elems):
        return "numpy", np.array(value), dims, d
    raise TypeError(f"Failed to convert elements of {value!r} to Tensor. Consider casting elements to a "
                    "supported type.")


def _from_host(make, value, host):
    """make(*host) for host = _host_elements(value, ...), the C rule's refusals as TypeError."""
    kind, elems, dims, d = host
    try:
        return make(kind, elems, dims, d)
    except (OverflowError, TypeError):
        if kind != "ints":
            raise
        # SWIG refuses an int beyond int64 as it marshals the elements: no host int holds it.
        raise TypeError(f"Can't convert Python int {value!r} to a graft int64 or uint64 tensor") from None
    except errors.InvalidArgumentError as e:
        raise TypeError(str(e)) from None


def _host_tensor(kind, elems, dims, d):
    """A graft_swig.Tensor by the C rule (Tensor.from_host_*)."""
    if kind == "ints":
        return _c.Tensor.from_host_ints(elems, dims, d)
    if kind == "doubles":
        return _c.Tensor.from_host_doubles(elems, dims, d)
    if kind == "bools":
        return _c.Tensor.from_host_bools(elems, dims, d)
    if kind == "strings":
        if d in (0, _c.GRAFT_STRING):  # the bytes as they are (NUL bytes included)
            return _c.tensor_from_bytes_list(dims, elems)
        return _c.Tensor.from_host_strings([e.decode("latin-1") for e in elems], dims, d)
    return _c_tensor_from_numpy(elems, d or None)


def _context_host_value(kind, elems, dims, d):
    """A graft_swig.Value on the context by the C rule (Context.from_*)."""
    if kind == "ints":
        return _context.from_ints(elems, dims, d)
    if kind == "doubles":
        return _context.from_doubles(elems, dims, d)
    if kind == "bools":
        return _context.from_bools(elems, dims, d)
    return _context.from_tensor(_host_tensor(kind, elems, dims, d))


def _host_dtype(value):
    """The DType the C rule gives a Python scalar or nested list; None for other values."""
    try:
        host = _host_elements(value, None)
        return None if host is None else _dtypes.as_dtype(_from_host(_host_tensor, value, host).dtype())
    except (TypeError, ValueError):
        return None


def _host_value(value, dtype):
    """A graft_swig.Value (on the context: concrete, or a constant of the trace) for a Python or
    NumPy value."""
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        c_tensor = _c_tensor_from_numpy(value, dtype)
        if _context.is_tracing():  # a constant of the traced graph, as TensorFlow makes one
            return apply_op("Const", [], {"value": c_tensor, "dtype": _dtypes.as_dtype(c_tensor.dtype())})[0]._value
        return _context.from_tensor(c_tensor)
    host = _host_elements(value, dtype)
    if host is None:
        # Lists holding tensors: stack them.
        from graft import ops
        return ops.stack([convert_to_tensor(v, dtype=dtype) for v in value])._value
    return _from_host(_context_host_value, value, host)


_conversion_functions = []  # (priority, order, base type, function), lowest priority first


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers conversion_func(value, dtype=None, name=None, as_ref=False) -> Tensor for
    instances of base_type (a type or tuple of types); lower priorities are tried first."""
    if not (isinstance(base_type, type) or (isinstance(base_type, tuple) and
                                            all(isinstance(t, type) for t in base_type))):
        raise TypeError("base_type must be a type or a tuple of types.")
    if not callable(conversion_func):
        raise TypeError("conversion_func must be callable.")
    _conversion_functions.append((priority, len(_conversion_functions), base_type, conversion_func))
    _conversion_functions.sort(key=lambda e: (e[0], e[1]))


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None, as_ref=False, preferred_dtype=None):
    """A Tensor for value: a Tensor (checked against dtype), a NumPy array, a Python scalar or
    nested list; in graph mode a Const op of the default graph."""
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    if _conversion_functions and not isinstance(value, Tensor):
        for _, _, base_type, fn in _conversion_functions:
            if isinstance(value, base_type):
                out = fn(value, dtype=dtype, name=name, as_ref=as_ref)
                if out is not NotImplemented:
                    if not isinstance(out, Tensor):
                        raise RuntimeError(f"Conversion function {fn!r} for type {base_type} returned non-Tensor: "
                                           f"{out!r}")
                    if dtype is not None and not dtype.is_compatible_with(out.dtype):
                        raise RuntimeError(f"Conversion function {fn!r} for type {base_type} returned incompatible "
                                           f"dtype: requested = {dtype.name}, actual = {out.dtype.name}")
                    return out
    hint = dtype_hint or preferred_dtype
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        g = _graph_mode_graph()
        if g is not None and isinstance(value, EagerTensor):
            return constant_in_graph(g, value.numpy(), value.dtype, name)
        return value
    if hasattr(value, "_as_tensor") and not isinstance(value, type):
        return convert_to_tensor(value._as_tensor(), dtype=dtype, name=name)
    if dtype is None and hint is not None:
        try:
            return convert_to_tensor(value, dtype=hint, name=name)
        except (TypeError, ValueError):
            pass
    g = _graph_mode_graph()
    if g is not None:
        return constant_in_graph(g, value, dtype, name)
    if value is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.")
    v = _host_value(value, dtype)
    if name is not None and _context.is_tracing():
        return _apply_context("Identity", [Tensor(value=v)], {}, name)[0]
    return _wrap_value(v, _context.is_tracing())


def constant_in_graph(graph, value, dtype=None, name=None, shape=None):
    if isinstance(value, Tensor):
        value = value.numpy()
    tensor = _host_c_tensor(value, dtype, shape)
    b = _c.OpBuilder(graph._c, "Const", name or "Const")
    b.set_attr_tensor("value", tensor)
    b.set_attr_dtype("dtype", tensor.dtype())
    op = graph._wrap_op(_finish(b, "Const"))
    return op.outputs[0]


def _host_c_tensor(value, dtype=None, shape=None):
    """A graft_swig.Tensor of value (TensorFlow's constant conversion), reshaped to shape."""
    if isinstance(value, EagerTensor):
        value = value.numpy()
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        t = _c_tensor_from_numpy(np.asarray(value), dtype)
    else:
        if value is None:
            raise ValueError("None values not supported.")
        host = _host_elements(value, dtype)
        if host is None:
            t = _host_value(value, dtype).to_tensor()  # lists holding tensors
        else:
            t = _from_host(_host_tensor, value, host)
    if shape is not None:
        shape = list(as_shape(shape).as_list())
        n = int(np.prod(shape)) if shape else 1
        arr = _numpy_of(t)
        arr = np.asarray(arr)
        if arr.size == n:
            arr = arr.reshape(shape)
        elif arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        else:
            raise TypeError(f"Eager execution of graft.constant with unsupported shape. Tried to convert "
                            f"{arr.size} elements to shape {shape}.")
        t = _c_tensor_from_numpy(arr, t.dtype())
    return t


# ---- Applying ops ----------------------------------------------------------------------------------

def _attr_kind(v):
    """The kind of a Python attr value (the AttrSetter method for it), or None."""
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, _dtypes.DType):
        return "dtype"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    if isinstance(v, (str, bytes)):
        return "string"
    if isinstance(v, TensorShape):
        return "shape"
    if isinstance(v, (_c.Tensor, EagerTensor)):
        return "tensor"
    if isinstance(v, _Func):
        return "func"
    return None


def _attr_marshal(kind, v):
    """v as the host value the AttrSetter method for kind takes."""
    if kind == "bool":
        return bool(v)
    if kind == "dtype":
        return v.as_datatype_enum
    if kind == "int":
        return int(v)
    if kind == "float":
        return float(v)
    if kind == "string":
        return v.decode("latin-1") if isinstance(v, bytes) else v
    if kind == "shape":
        return _shape_to_c(v)
    if kind == "tensor":
        return v._c_tensor() if isinstance(v, EagerTensor) else v
    return v.name  # func


def _set_attr(setter, name, value):
    """Sets attr name on an OpBuilder or OpCall (both AttrSetters) by the Python value's own
    kind; the C++ AttrSetter converts it to the type the op declares for the attr, or refuses it
    (TypeError, as TensorFlow's op construction raises for a bad attr value)."""
    if isinstance(value, (list, tuple)):
        kinds = {_attr_kind(v) for v in value}
        if kinds == {"int", "float"}:
            kinds = {"float"}  # mixed numbers travel as floats
        if not value:
            kind = "int"  # an empty list of any kind: the declared list type decides
        elif len(kinds) == 1 and None not in kinds:
            kind = kinds.pop()
        else:
            raise TypeError(f"Unsupported list attr {name}={value!r}")
        method, arg = getattr(setter, f"set_attr_{kind}_list"), [_attr_marshal(kind, v) for v in value]
    else:
        kind = _attr_kind(value)
        if kind is None:
            raise TypeError(f"Unsupported attr {name}={value!r}")
        method, arg = getattr(setter, f"set_attr_{kind}"), _attr_marshal(kind, value)
    try:
        method(name, arg)
    except errors.InvalidArgumentError as e:
        raise TypeError(str(e)) from None


class _Func:
    """A function-valued attr (the name of a function of the graph's library)."""

    def __init__(self, name):
        self.name = name


def _finish(builder, op_type):
    try:
        return builder.finish()
    except errors.InvalidArgumentError as e:
        # Graph construction reports bad inputs as ValueError, as TensorFlow does.
        raise ValueError(str(e)) from None
    except errors.FailedPreconditionError as e:
        raise RuntimeError(str(e)) from None


def _graph_input(graph, x, dtype_hint=None):
    if isinstance(x, Tensor) and not isinstance(x, EagerTensor):
        if x.graph is not graph:
            raise ValueError(f"Tensor {x.name} must be from the same graph as the op being created.")
        return x._out()
    if isinstance(x, Tensor):
        return constant_in_graph(graph, x.numpy(), x.dtype)._out()
    return constant_in_graph(graph, x, dtype_hint)._out()


def _apply_graph(graph, op_type, inputs, attrs, name, dtype_hint):
    b = _c.OpBuilder(graph._c, op_type, name or "")
    for x in inputs:
        if isinstance(x, list):
            b.add_input_list([_graph_input(graph, v, dtype_hint) for v in x])
        else:
            b.add_input(_graph_input(graph, x, dtype_hint))
    for k, v in attrs.items():
        if v is not None:
            _set_attr(b, k, v)
    op = graph._wrap_op(_finish(b, op_type))
    op._traceback = traceback.extract_stack()[:-3]  # where the op was made (Operation.traceback)
    return op.outputs if op.outputs else op


def _context_input(x, dtype_hint):
    if isinstance(x, Tensor):
        if x._value is None:
            raise ValueError(f"Tensor {x.name} belongs to a graph; it cannot be used in an eager op or a "
                             "graft.function trace (use graft.compat.v1.Session to run it).")
        return x._value
    return _host_value(x, dtype_hint)


def _apply_context(op_type, inputs, attrs, name, dtype_hint=None):
    if not attrs and name is None and not (_tls.device_stack and _tls.device_stack[-1]):
        simple = []
        for x in inputs:
            if isinstance(x, list):
                break
            simple.append(x._value if isinstance(x, Tensor) and x._value is not None
                          else _context_input(x, dtype_hint))
        else:
            try:
                symbolic, values = _run_op(_context, op_type, simple)
            except errors.InvalidArgumentError as e:
                if _context.is_tracing():
                    raise ValueError(str(e)) from None
                raise
            return [_symbolic(v) for v in values] if symbolic else [_eager(v) for v in values]
    call = _c.OpCall(_context, op_type)
    if _tls.device_stack and _tls.device_stack[-1]:
        call.set_device(_tls.device_stack[-1])
    for x in inputs:
        if isinstance(x, list):
            call.add_input_list([_context_input(v, dtype_hint) for v in x])
        else:
            call.add_input(_context_input(x, dtype_hint))
    for k, v in (attrs or {}).items():
        if v is not None:
            _set_attr(call, k, v)
    tracing = _context.is_tracing()
    if tracing and name:
        call.set_name(name)
    try:
        values = call.execute()
    except errors.InvalidArgumentError as e:
        if tracing:
            raise ValueError(str(e)) from None
        raise
    return [_symbolic(v) for v in values] if tracing else [_eager(v) for v in values]


def apply_op(op_type, inputs, attrs=None, name=None, dtype_hint=None, raw_outputs=False):
    """Makes op_type with inputs (tensors, Python values, or lists of them for list arguments)
    and attrs where ops go now; returns its outputs (a list) or, for an op without outputs in
    graph mode, the Operation."""
    g = None if _tls.eager else _tls.graph_stack[-1] if _tls.graph_stack else (
        None if _eager_enabled[0] or _tls.tracing else get_default_graph())
    if g is None:
        # Tensors of a Graph used outside as_default(): the op goes to their graph.
        for x in inputs:
            for v in (x if isinstance(x, list) else (x,)):
                if isinstance(v, Tensor) and v._value is None:
                    g = v.graph
                    break
            if g is not None:
                break
    if g is not None:
        return _apply_graph(g, op_type, inputs, attrs or {}, name, dtype_hint)
    return _apply_context(op_type, inputs, attrs, name, dtype_hint)


# ---- Scopes for whatever graph ops go to now ------------------------------------------------------

def _scope_graph():
    """The graph that scopes apply to now: graph mode's, the trace's, or None (eager)."""
    g = _graph_mode_graph()
    if g is None and _context.is_tracing():
        g = _current_trace_graph()
    return g


class name_scope:  # noqa: N801 - TensorFlow's name
    """A name scope for the ops made inside (eagerly it only gives the scope's name). With
    values (TensorFlow 1's op_scope), their graph is the default graph inside."""

    def __init__(self, name, default_name=None, values=None):
        if name is None and default_name is None and values is not None:
            raise ValueError("At least one of name (None) and default_name (None) must be provided.")
        self._name = name if name is not None else default_name
        self._ctx = None
        self._graph_ctx = None
        self._values = values

    def __enter__(self):
        if self._values:
            for v in self._values:
                if isinstance(v, Tensor) and v._value is None:
                    self._graph_ctx = v.graph.as_default()
                    self._graph_ctx.__enter__()
                    break
        g = _scope_graph()
        if g is None:
            if self._name is None:
                return ""
            return self._name if self._name.endswith("/") else self._name + "/"
        self._ctx = g.name_scope(self._name)
        return self._ctx.__enter__()

    def __exit__(self, *exc):
        if self._ctx is not None:
            self._ctx.__exit__(*exc)
        if self._graph_ctx is not None:
            self._graph_ctx.__exit__(*exc)
        return False


class _Deferred:
    """A context manager of whatever graph is current at __enter__ (no-op eagerly)."""

    def __init__(self, make):
        self._make, self._ctx = make, None

    def __enter__(self):
        g = _scope_graph()
        if g is None:
            return None
        self._ctx = self._make(g)
        return self._ctx.__enter__() if self._ctx is not None else None

    def __exit__(self, *exc):
        if self._ctx is not None:
            self._ctx.__exit__(*exc)
        return False


def control_dependencies(control_inputs):
    if control_inputs is not None and _graph_mode_graph() is None and not _context.is_tracing():
        # Eagerly ops run in order; callables (as TensorFlow allows) are called.
        for c in control_inputs:
            if callable(c):
                c()
        return _Deferred(lambda g: None)
    return _Deferred(lambda g: g.control_dependencies(control_inputs))


class _EagerDevice:
    """An eager device scope: ops called eagerly inside it run on that device when it has a
    kernel for them (their results come back to host memory), else on the CPU."""

    def __init__(self, name):
        self._name = name

    def __enter__(self):
        _tls.device_stack.append(self._name)

    def __exit__(self, *exc):
        _tls.device_stack.pop()
        return False


class _DeviceScope(_Deferred):
    def __init__(self, device_name):
        super().__init__(lambda g: g.device(device_name))
        self._name = device_name
        self._eager = None

    def __enter__(self):
        if _scope_graph() is None:
            if isinstance(self._name, str) or self._name is None:
                self._eager = _EagerDevice(self._name or "")
                return self._eager.__enter__()
            return None
        return super().__enter__()

    def __exit__(self, *exc):
        if self._eager is not None:
            self._eager, eager = None, self._eager
            return eager.__exit__(*exc)
        return super().__exit__(*exc)


def device(device_name):
    return _DeviceScope(device_name)


def container(container_name):
    return _Deferred(lambda g: g.container(container_name))


def colocate_with(op, ignore_existing=False):
    return _Deferred(lambda g: g.colocate_with(op, ignore_existing))
