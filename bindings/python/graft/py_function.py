"""graft.py_function: a Python function run eagerly as an op (EagerPyFunc) inside a graph or a
traced function. The function is registered under a unique token (the op's `token` attr) as a
host function of the C library; it gets EagerTensors and returns values converted to Tout.

It is differentiable once (graft.gradients, graft.GradientTape): the gradient op calls func again
under a gradient tape and differentiates the graft ops it ran; what func computes through NumPy
has no gradient (zeros)."""
import itertools
import threading

import numpy as np

from graft import dtypes as _dtypes
from graft import errors
from graft import framework as _fw
from graft import graft_swig as _c
from graft.framework import EagerTensor, convert_to_tensor

_tokens = itertools.count()
_registry = {}  # token -> _HostFunction (kept alive while graphs may run it)
_registry_lock = threading.Lock()


class _HostFunction(_c.HostFunction):
    def __init__(self, func, tout, single):
        super().__init__()
        self._func, self._tout, self._single = func, tout, single

    def call(self, inputs, outputs):
        try:
            args = [EagerTensor(_fw._context.from_tensor(inputs.get(i))) for i in range(inputs.size())]
            with _fw.eager_scope():
                result = self._func(*args)
            if self._single:
                result = [result]
            elif result is None:
                result = []
            elif not isinstance(result, (list, tuple)):
                result = [result]
            if len(result) != len(self._tout):
                return (f"py_function returned {len(result)} values, but Tout has {len(self._tout)} dtypes")
            for value, dtype in zip(result, self._tout):
                if isinstance(value, EagerTensor):
                    if value.dtype != dtype:
                        return (f"py_function returned a {value.dtype.name} tensor where Tout expects "
                                f"{dtype.name}")
                    outputs.append(value._value.to_tensor())
                else:
                    outputs.append(_fw._c_tensor_from_numpy(np.asarray(value), dtype))
            return ""
        except BaseException as e:  # noqa: BLE001 - reported through the op's error
            return f"{type(e).__name__}: {e}"


def _unregister(token):
    _c.HostFunction.unregister_function(token)
    with _registry_lock:
        del _registry[token]


class _Registration:
    """Keeps an eager py_function's host function registered while a gradient tape that
    recorded it may differentiate it (the gradient calls the function again)."""

    def __init__(self, token):
        self._token = token

    def __del__(self):
        try:
            _unregister(self._token)
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803 - TensorFlow's names
    """Runs func(*inp) as an op; Tout is a dtype (one output) or a list of dtypes."""
    return _host_function_op("EagerPyFunc", func, inp, Tout, name)


def _host_function_op(op_type, func, inp, Tout, name):  # noqa: N803
    if func is None:
        raise TypeError("py_function(): func is required")
    single = Tout is not None and not isinstance(Tout, (list, tuple))
    tout = [] if Tout is None else ([Tout] if single else list(Tout))
    tout = [_dtypes.as_dtype(t) for t in tout]
    inputs = [convert_to_tensor(x) for x in (inp or [])]
    token = f"pyfunc_{next(_tokens)}"
    host = _HostFunction(func, tout, single)
    _c.HostFunction.register_function(token, host)
    with _registry_lock:
        _registry[token] = host
    eager = _fw.executing_eagerly()
    try:
        attrs = {"token": token, "Tin": [t.dtype for t in inputs], "Tout": tout}
        if op_type == "EagerPyFunc":
            attrs["is_async"] = False
        out = _fw.apply_op(op_type, [inputs], attrs, name=name)
    finally:
        if eager:
            from graft import backprop
            tapes = list(backprop._active.tapes)
            if tapes:
                registration = _Registration(token)
                for tape in tapes:
                    tape._keep_alive.append(registration)
            else:
                _unregister(token)
    if isinstance(out, _fw.Operation):
        out = []
    if single:
        return out[0]
    return list(out) if Tout is not None else None


eager_py_func = py_function


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803
    """Like py_function, but func gets and returns NumPy arrays; a PyFunc op, which has no
    gradient (graft.gradients gives None through it, as TensorFlow's)."""
    if func is None:
        raise TypeError("numpy_function(): func is required")

    def wrapped(*args):
        return func(*[a.numpy() for a in args])
    return _host_function_op("PyFunc", wrapped, inp, Tout, name)


py_func = numpy_function
