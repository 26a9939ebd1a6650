"""graft.GradientTape: TensorFlow's tf.GradientTape over Graft's gradient tape (graft/tape.h).

Eagerly, the tape records the ops run while it is active (and, op by op, the graft.functions
called under it) and computes gradients with the same gradient functions as graft.gradients;
inside a graft.function, gradient() adds the gradient to the traced graph."""
import contextlib
import threading

from graft import graft_swig as _c
from graft import framework as _fw
from graft import nest as _nest
from graft.gradients_impl import UnconnectedGradients
from graft.indexed_slices import IndexedSlices




class _Active(threading.local):
    def __init__(self):
        self.tapes = []
        self.readers = []  # lists collecting the variables read (custom_gradient's)


_active = _Active()


def _variable_accessed(variable, eager=True):
    """Called by Variable.read_value and sparse_read: lists collecting reads get it; tapes that
    watch accessed variables watch it (an eager variable, or one seen in a trace)."""
    for seen in _active.readers:
        if not any(v is variable for v in seen):
            seen.append(variable)
    if not eager:
        return
    for tape in _active.tapes:
        if tape._watch_accessed_variables and tape._recording and variable.trainable:
            tape._watch_variable(variable)


@contextlib.contextmanager
def _collect_variable_reads():
    """Yields the list of the variables read (in any mode) while the block runs."""
    seen = []
    _active.readers.append(seen)
    try:
        yield seen
    finally:
        _active.readers.remove(seen)


def _source_value(x, what):
    from graft.variables import Variable
    if isinstance(x, Variable):
        if x._graph is not None:
            raise TypeError(f"{what}: Variable {x.name} belongs to a Graph; use graft.gradients there")
        return x._handle
    if isinstance(x, _fw.Tensor):
        if x._value is None:
            raise TypeError(f"{what}: {x.name} is a tensor of a Graph; use graft.gradients there")
        return x._value
    return _fw.convert_to_tensor(x)._value


class GradientTape:
    """Records operations for automatic differentiation, as tf.GradientTape.

        with graft.GradientTape() as tape:
            loss = graft.reduce_sum(model(x) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._tape = None
        self._recording = False
        self._used = False
        self._variables = {}  # id -> Variable, in the order first watched
        self._keep_alive = []  # what gradient() may still need (py_function registrations)

    def __enter__(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active tape.")
        # The C tape is always persistent: jacobian() asks for several gradients; a
        # non-persistent tape is released here after its first gradient() instead.
        self._tape = _c.GradientTape(_fw._context, True, self._watch_accessed_variables)
        self._recording = True
        self._used = False
        _active.tapes.append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._recording:
            self._stop()

    def _stop(self):
        self._tape.stop()
        self._recording = False
        if self in _active.tapes:
            _active.tapes.remove(self)

    def _watch_variable(self, variable):
        if id(variable) not in self._variables:
            self._variables[id(variable)] = variable
            self._tape.watch(variable._handle)

    def watch(self, tensor):
        """Makes the tape track tensor (a tensor, a variable, or a nested structure of them)."""
        if self._tape is None:
            raise ValueError("GradientTape.watch needs an active tape: use it inside `with GradientTape() as tape:`")
        from graft.variables import Variable
        for t in _nest.flatten(tensor):
            if isinstance(t, Variable):
                if t._graph is not None:
                    raise TypeError(f"Variable {t.name} belongs to a Graph")
                self._watch_variable(t)
            elif isinstance(t, _fw.Tensor):
                if t._value is None:
                    raise ValueError(f"Passed in object {t!r} of type 'Tensor', not tf.Tensor or tf.Variable")
                self._tape.watch(t._value)
            else:
                raise ValueError(f"Passed in object {t!r} of type '{type(t).__name__}', not tf.Tensor or "
                                 "tf.Variable or ExtensionType.")

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside this block are not recorded."""
        if not self._recording:
            raise ValueError("Tape must be recording when `stop_recording` is called")
        self._stop()
        try:
            yield
        finally:
            self._tape.start()
            self._recording = True
            _active.tapes.append(self)

    def reset(self):
        """Forgets everything recorded so far (the tape keeps recording)."""
        recording = self._recording
        if recording:
            self._stop()
        self._variables = {}
        self._keep_alive = []
        self._used = False
        self._tape = _c.GradientTape(_fw._context, True, self._watch_accessed_variables)
        if recording:
            self._recording = True
            _active.tapes.append(self)
        else:
            self._tape.stop()

    def watched_variables(self):
        """The variables watched so far (explicitly, or read while the tape recorded)."""
        return tuple(self._variables.values())

    def _check_usable(self):
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients (or "
                               "jacobians)")
        if self._tape is None:
            raise ValueError("GradientTape.gradient needs a tape that was used in a `with` block")

    def _raw_gradient(self, targets, sources, output_gradients, zero, rows=False):
        tv = _c.ValueVector([_source_value(t, "target") for t in targets])
        sv = _c.ValueVector([_source_value(s, "source") for s in sources])
        dv = _c.ValueVector([_fw.convert_to_tensor(d, dtype_hint=t.dtype)._value
                             for d, t in zip(output_gradients, targets)] if output_gradients else [])
        wrap = lambda v: _fw._wrap_value(v, v.is_symbolic()) if v.valid() else None  # noqa: E731
        if not rows:
            return [wrap(v) for v in self._tape.gradient(tv, sv, dv, zero)]
        # A source only gathers read (an embedding) gets IndexedSlices, as in TensorFlow.
        values, indices, shapes = self._tape.gradient_sparse(tv, sv, dv, zero)
        return [IndexedSlices(wrap(v), wrap(i), wrap(s)) if i.valid() else wrap(v)
                for v, i, s in zip(values, indices, shapes)]

    def _finish_use(self):
        if not self._persistent:
            self._used = True
            if not self._recording:
                self._tape = None  # the recorded tensors go now

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        """d(target)/d(sources): a structure like sources, None where no gradient flows (or zeros),
        an IndexedSlices where only gathers read the source (an embedding), as in TensorFlow."""
        self._check_usable()
        unconnected = UnconnectedGradients(unconnected_gradients)
        flat_targets = [t if isinstance(t, _fw.Tensor) else _fw.convert_to_tensor(t) for t in _nest.flatten(target)]
        flat_sources = _nest.flatten(sources)
        flat_dys = None
        if output_gradients is not None:
            flat_dys = _nest.flatten(output_gradients)
            if len(flat_dys) != len(flat_targets):
                raise ValueError(f"output_gradients has {len(flat_dys)} tensors for {len(flat_targets)} targets")
        grads = self._raw_gradient(flat_targets, flat_sources, flat_dys, unconnected is UnconnectedGradients.ZERO,
                                   rows=True)
        self._finish_use()
        return _nest.pack_sequence_as(sources, grads)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE, parallel_iterations=None,
                 experimental_use_pfor=True):
        """d(target[i...])/d(source[j...]) for each source: shape target.shape + source.shape (row by row)."""
        from graft import ops as _ops
        self._check_usable()
        unconnected = UnconnectedGradients(unconnected_gradients)
        target = target if isinstance(target, _fw.Tensor) else _fw.convert_to_tensor(target)
        flat_sources = _nest.flatten(sources)
        n = int(_ops.size(target).numpy()) if not target.shape.is_fully_defined() else target.shape.num_elements()
        rows = [[] for _ in flat_sources]
        for i in range(n):
            dy = _ops.reshape(_ops.one_hot(i, n, dtype=target.dtype), _ops.shape(target))
            grads = self._raw_gradient([target], flat_sources, [dy], True)
            for k, g in enumerate(grads):
                rows[k].append(g)
        out = []
        for k, s in enumerate(flat_sources):
            sv = _source_value(s, "source")
            if n == 0:
                out.append(None)
                continue
            jac = _ops.reshape(_ops.stack(rows[k]), _ops.concat([_ops.shape(target), _shape_of(s, sv)], 0))
            if unconnected is UnconnectedGradients.NONE and _all_zero_and_unconnected(self, target, s):
                jac = None
            out.append(jac)
        self._finish_use()
        return _nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """For target [b, ...] and source [b, ...]: d(target[b, i...])/d(source[b, j...])."""
        from graft import ops as _ops
        self._check_usable()
        target = target if isinstance(target, _fw.Tensor) else _fw.convert_to_tensor(target)
        tshape = target.shape
        if tshape.rank is None or tshape.rank < 1 or not tshape.is_fully_defined():
            raise ValueError("batch_jacobian needs a target with a known, fully defined shape of rank >= 1")
        b = tshape[0]
        m = tshape.num_elements() // b if b else 0
        rows = []
        for i in range(m):
            dy = _ops.reshape(_ops.tile(_ops.reshape(_ops.one_hot(i, m, dtype=target.dtype), [1, m]), [b, 1]),
                              _ops.shape(target))
            g = self._raw_gradient([target], [source], [dy],
                                   UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO)[0]
            if g is None:
                self._finish_use()
                return None
            rows.append(_ops.reshape(g, [b, -1]))
        sv = _source_value(source, "source")
        jac = _ops.stack(rows, axis=1)  # [b, m, source elements per row]
        out_shape = _ops.concat([_ops.shape(target), _ops.slice(_shape_of(source, sv), [1], [-1])], 0)
        self._finish_use()
        return _ops.reshape(jac, out_shape)


def _shape_of(source, value):
    from graft import ops as _ops
    from graft.variables import Variable
    if isinstance(source, Variable):
        return _ops.constant(source.shape.as_list(), dtype="int32")
    return _ops.shape(_fw._wrap_value(value, value.is_symbolic()))


def _all_zero_and_unconnected(tape, target, source):
    return tape._raw_gradient([target], [source], None, False)[0] is None
