"""graft.cond, graft.while_loop and graft.TensorArray.

Eagerly the chosen branch / the loop runs at once; inside a graft.function the branches, the
condition and the body are traced as functions and recorded as If/While ops (graft_cond,
graft_while_loop of the C API), the outer tensors they use being captured.
"""
import numpy as np

from graft import dtypes as _dtypes
from graft import errors
from graft import framework as _fw
from graft import graft_swig as _c
from graft import nest
from graft import tensor_shape as _tensor_shape
from graft.framework import EagerTensor, Tensor, convert_to_tensor


class TensorArray:
    """A list of tensors of one dtype, written and read by index (a TensorList underneath)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = _dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._element_shape = element_shape
        # The length when known in Python (writes at Python ints grow a dynamic array).
        self._size = size if isinstance(size, int) else None
        if handle is not None:
            self._handle = handle
            return
        shape = _element_shape_tensor(element_shape)
        n = convert_to_tensor(0 if size is None else size, dtype=_dtypes.int32)
        self._handle = _fw.apply_op("TensorListReserve", [shape, n], {"element_dtype": self._dtype})[0]

    @property
    def dtype(self):
        return self._dtype

    @property
    def handle(self):
        return self._handle

    @property
    def flow(self):
        return self._handle

    @property
    def element_shape(self):
        from graft.tensor_shape import TensorShape
        return TensorShape(self._element_shape)

    def _new(self, handle, size=None):
        ta = TensorArray(self._dtype, handle=handle, dynamic_size=self._dynamic_size,
                         element_shape=self._element_shape)
        ta._size = size
        return ta

    def write(self, index, value, name=None):
        value = convert_to_tensor(value, dtype=self._dtype)
        handle, size = self._handle, self._size
        if isinstance(index, EagerTensor):
            index = int(index)
        if self._dynamic_size and isinstance(index, int):
            if size is None and not _fw._context.is_tracing() and _fw._graph_mode_graph() is None:
                size = int(_fw.apply_op("TensorListLength", [handle], {})[0])
            if size is not None:
                while size <= index:
                    handle = _fw.apply_op("TensorListPushBack", [handle, value], {"element_dtype": self._dtype})[0]
                    size += 1
        attrs = {"element_dtype": self._dtype}
        if self._dynamic_size and size is None:
            attrs["resize_if_index_out_of_bounds"] = True  # an index known when the op runs grows the list
        index = convert_to_tensor(index, dtype=_dtypes.int32)
        out = _fw.apply_op("TensorListSetItem", [handle, index, value], attrs, name=name)[0]
        return self._new(out, size)

    def read(self, index, name=None):
        index = convert_to_tensor(index, dtype=_dtypes.int32)
        shape = _element_shape_tensor(self._element_shape)
        return _fw.apply_op("TensorListGetItem", [self._handle, index, shape], {"element_dtype": self._dtype},
                            name=name)[0]

    def stack(self, name=None):
        shape = _element_shape_tensor(self._element_shape)
        return _fw.apply_op("TensorListStack", [self._handle, shape], {"element_dtype": self._dtype,
                                                                         "num_elements": -1}, name=name)[0]

    def gather(self, indices, name=None):
        from graft import ops
        return ops.gather(self.stack(), indices, name=name)

    def concat(self, name=None):
        from graft import ops
        stacked = self.stack()
        s = ops.shape(stacked)
        return ops.reshape(stacked, ops.concat([[-1], s[2:]], 0), name=name)

    def unstack(self, value, name=None):
        value = convert_to_tensor(value, dtype=self._dtype)
        from graft import ops
        shape = ops.shape(value)[1:]
        out = _fw.apply_op("TensorListFromTensor", [value, shape], {"element_dtype": self._dtype}, name=name)[0]
        return self._new(out, value.shape[0] if value.shape.rank else None)

    def scatter(self, indices, value, name=None):
        ta = self
        for i, idx in enumerate(np.asarray(indices).reshape(-1)):
            ta = ta.write(int(idx), value[i])
        return ta

    def size(self, name=None):
        return _fw.apply_op("TensorListLength", [self._handle], {}, name=name)[0]

    def close(self, name=None):
        return None


def _element_shape_tensor(element_shape):
    if element_shape is None:
        return convert_to_tensor(-1, dtype=_dtypes.int32)
    from graft.tensor_shape import as_shape
    s = as_shape(element_shape)
    if s.rank is None:
        return convert_to_tensor(-1, dtype=_dtypes.int32)
    return convert_to_tensor(np.array([-1 if d is None else d for d in s.as_list()], dtype=np.int32))


# ---- Flattening loop variables (TensorArrays travel as their handles) --------------------------------

def _flatten_vars(structure):
    leaves, treedef = nest.flatten_with_treedef(structure)
    kinds, values = [], []
    for leaf in leaves:
        if isinstance(leaf, TensorArray):
            kinds.append(("TA", leaf))
            values.append(leaf.handle)
        else:
            kinds.append(("T", None))
            values.append(leaf)
    return treedef, kinds, values


def _pack_vars(treedef, kinds, tensors):
    leaves = []
    for (kind, proto), t in zip(kinds, tensors):
        leaves.append(proto._new(t, None) if kind == "TA" else t)
    return nest.pack_leaves(treedef, leaves)


def _wrap(value):
    return Tensor(value=value) if value.is_symbolic() else EagerTensor(value)


class _Pending:
    exc = None


class _Body(_c.TraceBody):
    """A Python callable as a branch, condition or body of graft_cond / graft_while_loop."""

    def __init__(self, fn, to_args, from_result):
        super().__init__()
        self._fn, self._to_args, self._from_result = fn, to_args, from_result
        self.structure = None
        self.error = None

    def trace(self, ctx, args, outputs):
        try:
            values = [_wrap(args.get(i).value()) for i in range(args.size())]
            with _fw.tracing_scope():
                result = self._fn(*self._to_args(values))
            for v in self._from_result(self, result):
                outputs.append(v._value)
            return ""
        except BaseException as e:  # noqa: BLE001 - re-raised by the caller
            self.error = e
            return f"{type(e).__name__}: {e}"


def _raise(bodies, exc):
    for b in bodies:
        if b.error is not None:
            err, b.error = b.error, None
            raise err.with_traceback(err.__traceback__) from None
    raise exc


def cond(pred, true_fn=None, false_fn=None, name=None):
    """true_fn() if pred else false_fn(); both return the same structure of tensors."""
    if true_fn is None or false_fn is None:
        raise TypeError("cond(): true_fn and false_fn are required")
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond(): true_fn and false_fn must be callable")
    if isinstance(pred, (bool, np.bool_)):
        return true_fn() if pred else false_fn()
    if _fw._graph_mode_graph() is not None:
        raise errors.UnimplementedError("graft.cond in a Graph (graph mode) is not supported; use it eagerly or "
                                        "inside a graft.function")
    pred = convert_to_tensor(pred)

    def results(body, result):
        leaves, treedef = nest.flatten_with_treedef(result)
        tensors = [convert_to_tensor(x) for x in leaves]
        body.structure = treedef
        return tensors

    then_body = _Body(true_fn, lambda values: (), results)
    else_body = _Body(false_fn, lambda values: (), results)
    try:
        values = _fw._context.cond(pred._value, [], then_body, else_body)
    except errors.OpError as e:
        _raise((then_body, else_body), e)
    treedef = then_body.structure or else_body.structure
    if then_body.structure is not None and else_body.structure is not None and \
            then_body.structure.key != else_body.structure.key:
        raise ValueError("true_fn and false_fn must return the same nested structure")
    tensors = [_wrap(v) for v in values]
    if treedef is None:
        return tensors
    return nest.pack_leaves(treedef, tensors)


def _invariant_shapes(shape_invariants, single, kinds, tensors):
    """One C shape per flattened loop variable: its invariant (a TensorShape, a list of dims,
    or None for its own shape), as TensorFlow's shape_invariants, which have loop_vars'
    structure; [] when there are none."""
    if shape_invariants is None:
        return []
    given = [shape_invariants] if single else list(shape_invariants)
    flat = []
    for g in given:
        if g is None or isinstance(g, _tensor_shape.TensorShape):
            flat.append(g)
        elif isinstance(g, (list, tuple)) and all(d is None or isinstance(d, int) for d in g):
            flat.append(_tensor_shape.TensorShape(g))
        else:
            flat.extend(_tensor_shape.TensorShape(x) if x is not None else None for x in nest.flatten(g))
    if len(flat) != len(tensors):
        raise ValueError(f"while_loop(): shape_invariants has {len(flat)} shapes for {len(tensors)} loop variables")
    shapes = []
    for (kind, _), t, inv in zip(kinds, tensors, flat):
        use = t.shape if inv is None or kind == "TA" else inv
        shapes.append(_tensor_shape._to_c(use.as_list() if use.rank is not None else None))
    return shapes


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeats body(*loop_vars) while cond(*loop_vars); returns the final loop variables with the
    structure of loop_vars."""
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop(): cond and body must be callable")
    if _fw._graph_mode_graph() is not None:
        raise errors.UnimplementedError("graft.while_loop in a Graph (graph mode) is not supported; use it eagerly "
                                        "or inside a graft.function")
    single = not isinstance(loop_vars, (list, tuple))
    structure = (loop_vars,) if single else loop_vars
    treedef, kinds, values = _flatten_vars(structure)
    tensors = [convert_to_tensor(v) for v in values]
    dtypes = [t.dtype for t in tensors]
    counter = maximum_iterations is not None
    if counter:
        tensors = [convert_to_tensor(0, dtype=_dtypes.int32)] + tensors
        limit = convert_to_tensor(maximum_iterations, dtype=_dtypes.int32)

    def to_args(vals):
        if counter:
            vals = vals[1:]
        packed = _pack_vars(treedef, kinds, vals)
        return packed if not single else (packed[0],)

    def cond_result(b, result):
        r = convert_to_tensor(result)
        return [r]

    def body_result(b, result):
        if single:
            result = (result,)
        elif isinstance(result, (list, tuple)) and len(result) == len(structure) and type(result) != type(structure):
            result = type(structure)(result) if not hasattr(type(structure), "_fields") else type(structure)(*result)
        _, _, new_values = _flatten_vars(result)
        if len(new_values) != len(dtypes):
            raise ValueError(f"body returned {len(new_values)} loop variables, expected {len(dtypes)}")
        out = [convert_to_tensor(v, dtype=d) for v, d in zip(new_values, dtypes)]
        return out

    if counter:
        from graft import ops

        def cond_values(*vals):
            return ops.logical_and(ops.less(vals[0], limit), convert_to_tensor(cond(*to_args(list(vals)))))

        def body_values(*vals):
            out = body(*to_args(list(vals)))
            return [ops.add(vals[0], 1)] + body_result(None, out)
        cond_body = _Body(cond_values, lambda vals: vals, cond_result)
        loop_body = _Body(body_values, lambda vals: vals, lambda b, r: r)
    else:
        cond_body = _Body(cond, to_args, cond_result)
        loop_body = _Body(body, to_args, body_result)
    shapes = _invariant_shapes(shape_invariants, single, kinds, tensors[1:] if counter else tensors)
    if shapes and counter:
        shapes = [_tensor_shape._to_c([])] + shapes
    try:
        out = _fw._context.while_loop(cond_body, loop_body, [t._value for t in tensors], shapes)
    except errors.OpError as e:
        _raise((cond_body, loop_body), e)
    result = [_wrap(v) for v in out]
    if counter:
        result = result[1:]
    packed = _pack_vars(treedef, kinds, result)
    return packed[0] if single else packed
