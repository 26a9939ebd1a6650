"""graft.gradients (TensorFlow's tf.gradients): symbolic gradients added to a graph, in graph mode
(a graft.Graph / compat.v1) or inside a traced graft.function, over graft_graph_add_gradients_ex.

Gradient functions registered from Python (graft.RegisterGradient) are registered with the C
library's gradient registry (graft_gradient_register) through a SWIG director, so that the C
gradient builder calls them like the built-in ones; graft.no_gradient / NotDifferentiable
registers an op type as not differentiable there."""
import enum
import threading

from graft import errors
from graft import framework as _fw
from graft import graft_swig as _c
from graft.framework import Tensor, convert_to_tensor
from graft.indexed_slices import IndexedSlices


class UnconnectedGradients(enum.Enum):
    """What an x that no y depends on gets: None, or zeros of its shape and dtype."""
    NONE = "none"
    ZERO = "zero"


_tls = threading.local()  # .error: the exception a Python gradient function raised


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _is_variable(x):
    from graft import variables
    return isinstance(x, variables.Variable)


class _GraphMode:
    """Tensors of a graft.Graph: graph tensors in, graph tensors out."""

    def __init__(self, graph):
        self.graph = graph

    def output(self, x, what, dtype=None):
        if _is_variable(x):
            if x.graph is not self.graph:
                raise ValueError(f"{what}: variable {x.name} is not of the graph of ys")
            return x._handle_tensor._out()
        if not isinstance(x, Tensor) or x._value is not None:
            with self.graph.as_default():
                x = convert_to_tensor(x, dtype=dtype)
        if x.graph is not self.graph:
            raise ValueError(f"{what}: tensor {x.name} is not of the graph of ys")
        return x._out()

    def tensor(self, o):
        return _fw._graph_tensor(self.graph, o)


class _TraceMode:
    """Symbolic values of the function being traced: their tensors in the trace graph, and the
    gradients back as symbolic values (graft_value_from_output)."""

    def __init__(self):
        self.c_graph = _fw._context.trace_graph()

    def output(self, x, what, dtype=None):
        from graft import variables
        if isinstance(x, variables._TracedVariable):
            return x._handle_arg._out()
        if _is_variable(x):
            if x._graph is not None:
                raise ValueError(f"{what}: variable {x.name} belongs to a Graph, not to the traced function")
            # A variable the function captures: its handle's capture placeholder in the trace.
            ident = _fw.apply_op("Identity", [x.handle])[0]
            return ident._out().op().input(0)
        if isinstance(x, Tensor) and x._value is None:
            raise ValueError(f"{what}: tensor {x.name} belongs to a Graph, not to the traced function")
        if not isinstance(x, Tensor):
            x = convert_to_tensor(x, dtype=dtype)
        if not x._value.is_symbolic():
            # An eager tensor the function captures: its capture placeholder in the trace.
            ident = _fw.apply_op("Identity", [x])[0]
            return ident._out().op().input(0)
        return x._out()

    def tensor(self, o):
        return _fw._symbolic(_fw._context.value_from_output(o))


def _mode_of(ys):
    for y in ys:
        if isinstance(y, Tensor) and y._value is None:
            return _GraphMode(y.graph)
        if _is_variable(y) and y._graph is not None:
            return _GraphMode(y._graph)
    g = _fw._graph_mode_graph()
    if g is not None:
        return _GraphMode(g)
    if _fw._context.is_tracing():
        return _TraceMode()
    raise RuntimeError("graft.gradients is not supported when eager execution is enabled. "
                       "Use graft.GradientTape instead (or call it inside a graft.function).")


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """The symbolic partial derivatives of sum(ys) with respect to each x: a list of one tensor per
    x, None where no gradient flows (unless unconnected_gradients is ZERO), an IndexedSlices where
    only gathers read x (an embedding). ys and xs are tensors
    or lists of them (variables count by their handle); grad_ys the upstream gradients (ones when
    None). Graph mode or inside a traced function only."""
    ys, xs = _as_list(ys), _as_list(xs)
    if not ys:
        raise ValueError("graft.gradients: ys is empty")
    unconnected = UnconnectedGradients(unconnected_gradients)
    mode = _mode_of(ys)
    # A variable among ys stands for its value; among xs, for its handle (every read's gradient).
    c_ys = [mode.output(_value_of(y), f"ys[{i}]") for i, y in enumerate(ys)]
    c_xs = [mode.output(x, f"xs[{i}]") for i, x in enumerate(xs)]
    c_dys = []
    if grad_ys is not None:
        dys = _as_list(grad_ys)
        if len(dys) != len(ys):
            raise ValueError(f"Passed {len(dys)} grad_ys for {len(ys)} ys")
        for i, (dy, y) in enumerate(zip(dys, c_ys)):
            if dy is None:
                dy = _ones_like(mode, y)
            c_dys.append(dy if isinstance(dy, _c.Output) else mode.output(dy, f"grad_ys[{i}]",
                                                                          _dtype_of(y)))
    c_stop = [mode.output(s, f"stop_gradients[{i}]") for i, s in enumerate(_as_list(stop_gradients))]
    graph = mode.graph._c if isinstance(mode, _GraphMode) else mode.c_graph
    _tls.error = None
    try:
        values, indices, shapes = graph.add_gradients_sparse(c_ys, c_xs, c_dys, c_stop,
                                                             unconnected is UnconnectedGradients.ZERO,
                                                             name or "gradients")
    except errors.OpError as e:
        pending, _tls.error = getattr(_tls, "error", None), None
        if pending is not None:
            raise pending from e
        if isinstance(e, errors.NotFoundError):
            raise LookupError(str(e)) from None
        raise
    # Rows (a variable or tensor only gathers read) come back as IndexedSlices, as in TF.
    return [None if not v.valid() else
            IndexedSlices(mode.tensor(v), mode.tensor(i), mode.tensor(s)) if i.valid() else mode.tensor(v)
            for v, i, s in zip(values, indices, shapes)]


def _value_of(x):
    return x.read_value() if _is_variable(x) else x


def gradients_v1(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False, gate_gradients=False,
                 aggregation_method=None, stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """TensorFlow 1's tf.gradients signature (colocate_gradients_with_ops is accepted and ignored)."""
    return gradients(ys, xs, grad_ys=grad_ys, name=name, gate_gradients=gate_gradients,
                     aggregation_method=aggregation_method, stop_gradients=stop_gradients,
                     unconnected_gradients=unconnected_gradients)


def _dtype_of(c_output):
    from graft import dtypes
    return dtypes.as_dtype(c_output.dtype())


def _ones_like(mode, c_output):
    from graft import ops
    if isinstance(mode, _GraphMode):
        with mode.graph.as_default():
            return ops.ones_like(mode.tensor(c_output))._out()
    return ops.ones_like(mode.tensor(c_output))._out()


# ---- Gradient functions from Python ---------------------------------------------------------------

class _PythonGradient(_c.GradientFunction):
    """A Python gradient function `f(op, *grads) -> grads` (TensorFlow's signature: one incoming
    gradient per output, None where none flows; one gradient per input returned, None allowed),
    called by the C gradient builder. The registry keeps it (and so f) alive for the process, as
    long as the C registration lasts."""

    def __init__(self, op_type, fn):
        super().__init__()
        self._op_type, self._fn = op_type, fn

    def gradient(self, ctx):
        try:
            graph = _fw._wrap_graph(ctx.graph())
            op = graph._wrap_op(ctx.op())
            grads = []
            for i in range(len(op.outputs)):
                o = ctx.output_grad(i)
                grads.append(_fw._graph_tensor(graph, o) if o.valid() else None)
            with graph.as_default():
                result = self._fn(op, *grads)
                if result is None or isinstance(result, Tensor) or not isinstance(result, (list, tuple)):
                    result = [result]
                result = list(result)
                n_in = len(op.inputs)
                if len(result) != n_in:
                    return (f"the gradient function of '{self._op_type}' returned {len(result)} gradients for "
                            f"op '{op.name}', which has {n_in} inputs")
                for i, g in enumerate(result):
                    if g is None:
                        continue
                    if not isinstance(g, Tensor) or g._value is not None:
                        g = convert_to_tensor(g, dtype=op.inputs[i].dtype)
                    ctx.set_input_grad(i, g._out())
            return ""
        except BaseException as e:  # noqa: BLE001 - re-raised by graft.gradients
            _tls.error = e
            return f"{type(e).__name__}: {e}"


def register_gradient_function(op_type, fn):
    """Registers fn with the C gradient registry; KeyError if op_type already has a gradient
    (built-in or registered)."""
    if _c.GradientFunction.lookup(op_type) != 0:
        raise KeyError(f"Registering two gradient with name '{op_type}'!")
    director = _PythonGradient(op_type, fn)
    _c.GradientFunction.register_function(op_type, director)
    return director


def register_no_gradient(op_type):
    if _c.GradientFunction.lookup(op_type) != 0:
        raise KeyError(f"Registering two gradient with name '{op_type}'!")
    _c.GradientFunction.register_none(op_type)
