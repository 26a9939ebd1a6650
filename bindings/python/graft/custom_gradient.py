"""graft.custom_gradient (TensorFlow's tf.custom_gradient): f(*x) returns (y, grad_fn), and the
gradient of y with respect to x is grad_fn(*dy) instead of the gradient of f's ops.

The outputs handed back are those of an IdentityN over (y..., x...) whose gradient is overridden
(its "_gradient_op_type" attr) with one registered gradient function. That function finds the
call's grad_fn by the op's "_graft_custom_gradient" attr and gives y's inputs no gradient, so
nothing flows through f's own ops: the same in graph mode (graft.gradients), inside a
graft.function and under an eager graft.GradientTape (the tape replays the IdentityN with its
attrs). Eagerly, the call's grad_fn is kept while a tape that recorded it lives; in a graph it
is kept as long as the process, as TensorFlow does."""
import functools
import inspect
import itertools
import threading

from graft import framework as _fw
from graft import nest as _nest
from graft.framework import Tensor, convert_to_tensor

_OVERRIDE = "GraftCustomGradient"
_ids = itertools.count(1)
_grad_fns = {}  # call id -> (grad_fn, number of outputs, number of inputs)
_lock = threading.Lock()
_registered = False


def _ensure_registered():
    global _registered
    with _lock:
        if _registered:
            return
        _registered = True
    from graft.registries import RegisterGradient
    RegisterGradient(_OVERRIDE)(_identity_n_grad)


def _identity_n_grad(op, *grads):
    call = op.get_attr("_graft_custom_gradient")
    with _lock:
        entry = _grad_fns.get(int(call))
    if entry is None:
        raise LookupError(f"custom_gradient: the gradient function of call {call} (op '{op.name}') is gone: its "
                          "tape or graph no longer exists")
    grad_fn, ny, nx, variables = entry
    dvars = []
    if variables:
        dxs, dvars = grad_fn(*grads[:ny], variables=variables)
        dvars = list(dvars) if isinstance(dvars, (list, tuple)) else [dvars]
        if len(dvars) != len(variables):
            raise ValueError(f"custom_gradient: the gradient function returned {len(dvars)} variable gradients for "
                             f"{len(variables)} variables")
    else:
        dxs = grad_fn(*grads[:ny])
    if isinstance(dxs, (list, tuple)):
        dxs = list(dxs)
    else:
        dxs = [dxs]
    if len(dxs) != nx:
        raise ValueError(f"custom_gradient: the gradient function returned {len(dxs)} gradients for {nx} inputs")
    return [None] * ny + dxs + dvars


def _takes_variables(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True  # cannot tell: let the call decide
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


class _Release:
    """Forgets a call's grad_fn when the last tape that recorded it goes."""

    def __init__(self, call):
        self._call = call

    def __del__(self):
        with _lock:
            _grad_fns.pop(self._call, None)


def custom_gradient(f=None):
    """Decorates f(*x) -> (y, grad_fn) so that the gradient of y is grad_fn(*dy) (one gradient per
    x: a tensor, or a list of them). Positional tensor arguments only. When f reads trainable
    variables, grad_fn(*dy, variables=[...]) returns (input gradients, variable gradients), one
    per variable, as TensorFlow's."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise TypeError("custom_gradient: the decorated function takes positional tensor arguments only")
        xs = [convert_to_tensor(a) for a in args]
        from graft import backprop
        with backprop._collect_variable_reads() as read:
            result, grad_fn = f(*xs)
        if not callable(grad_fn):
            raise TypeError("custom_gradient: the decorated function must return (outputs, grad_fn)")
        # Trainable variables f read get their gradients from grad_fn(..., variables=...), which
        # returns (input gradients, variable gradients), as in TensorFlow.
        variables = [v for v in read if v.trainable]
        if variables and not _takes_variables(grad_fn):
            raise TypeError("custom_gradient: f reads variables, so grad_fn must accept a keyword argument "
                            "'variables' (and return the inputs' and the variables' gradients)")
        ys = _nest.flatten(result)
        ys = [convert_to_tensor(y) for y in ys]
        eager = _fw.executing_eagerly()
        tapes = list(backprop._active.tapes) if eager else []
        if eager and not tapes:
            return result  # nothing can ask for this gradient
        _ensure_registered()
        call = next(_ids)
        with _lock:
            _grad_fns[call] = (grad_fn, len(ys), len(xs), variables)
        # A read of each variable goes through the IdentityN too: its gradient reaches the
        # variable through the read (as TensorFlow records the variables' values).
        reads = [v.read_value() for v in variables]
        outs = _fw.apply_op("IdentityN", [ys + xs + reads],
                            {"_gradient_op_type": _OVERRIDE, "_graft_custom_gradient": call})
        if eager:
            release = _Release(call)
            for tape in tapes:
                tape._keep_alive.append(release)
        outs = list(outs)[:len(ys)]
        return _nest.pack_sequence_as(result, outs) if not isinstance(result, Tensor) else outs[0]

    return decorated
