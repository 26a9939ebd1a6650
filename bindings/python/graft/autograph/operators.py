"""The runtime half of AutoGraph: the functions converted code calls in place of Python's
statements and operators.

Each one looks at its operands when it runs: on Python values (and eager tensors) it does what
Python does; on a symbolic tensor of a trace it builds graph control flow (graft.cond,
graft.while_loop) or the matching op. The converted code hands a statement's bodies over as
functions and its variables over as a pair of closures, get_state() -> tuple and
set_state(tuple), over the names that the statement changes and that are read afterwards.
"""
import builtins
import sys
import threading

import numpy as np

from graft import control_flow as _cf
from graft import dtypes as _dtypes
from graft import framework as _fw
from graft import nest
from graft import ops as _ops
from graft.control_flow import TensorArray
from graft.framework import EagerTensor, Tensor, convert_to_tensor
from graft.tensor_shape import TensorShape, as_shape


class Undefined:
    """The value of a variable that the converted code names before Python would have bound it."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<undefined {self.name}>"


def ld(value):
    """A read of a variable that may still be undefined: Python's error if it is."""
    if type(value) is Undefined:
        raise UnboundLocalError(f"cannot access local variable '{value.name}' where it is not associated with a value")
    return value


def retval(value):
    return None if type(value) is Undefined else value


def _symbolic(x):
    return isinstance(x, Tensor) and not isinstance(x, EagerTensor)


def _special(name):
    """Variables the converter made (return value, break/continue flags)."""
    return name.startswith("ag__")


def _shown(name):
    return "the return value" if name == "ag__retval" else f"'{name}'"


class _Retry(Exception):
    """A trace found what a variable must look like (dtype of an undefined one): trace again."""


# ---- State: variables as flat lists of tensors ---------------------------------------------------

_TENSOR_LEAVES = (Tensor, np.ndarray, np.generic, bool, int, float)


def _leaf_kind(leaf):
    if isinstance(leaf, TensorArray):
        return "TA"
    if isinstance(leaf, _TENSOR_LEAVES):
        return "T"
    return "P"


class _VarSpec:
    """How one variable travels through a cond or a loop: its structure and, per leaf, 'T' (a
    tensor), 'TA' (a TensorArray, by its handle) or 'P' (a Python object passed through)."""

    __slots__ = ("treedef", "kinds", "leaves", "meta", "from_python")

    def __init__(self, value, hint=None):
        self.leaves, self.treedef = nest.flatten_with_treedef(value)
        self.kinds = [_leaf_kind(x) for x in self.leaves]
        self.from_python = [isinstance(x, (bool, int, float)) for x in self.leaves]
        self.meta = []  # per leaf: (dtype, shape) of a tensor, the prototype TensorArray, or None
        hint = hint or {}
        for j, (kind, leaf) in enumerate(zip(self.kinds, self.leaves)):
            if kind == "T":
                t = _as_tensor(leaf, hint.get(j))
                self.leaves[j] = t
                self.meta.append((t.dtype, t.shape))
            else:
                self.meta.append(leaf if kind == "TA" else None)

    def flat(self):
        return [x.handle if k == "TA" else x for k, x in zip(self.kinds, self.leaves) if k != "P"]

    def rebuild(self, it):
        leaves = []
        for kind, leaf in zip(self.kinds, self.leaves):
            if kind == "T":
                leaves.append(next(it))
            elif kind == "TA":
                leaves.append(leaf._new(next(it), None))
            else:
                leaves.append(leaf)
        return nest.pack_leaves(self.treedef, leaves)


def _as_tensor(leaf, dtype=None):
    if isinstance(leaf, Tensor) and (dtype is None or leaf.dtype == dtype):
        return leaf
    return convert_to_tensor(leaf, dtype=dtype)


def _placeholder(meta):
    """A value standing in for an undefined one: zeros of the other side's dtype."""
    if isinstance(meta, TensorArray):
        return TensorArray(meta.dtype, size=0, dynamic_size=True, element_shape=meta._element_shape)
    dtype, shape = meta
    dims = [0 if d is None else d for d in shape.as_list()] if shape.rank is not None else []
    return _ops.zeros(dims, dtype=dtype)


def _placeholder_like(spec):
    return nest.pack_leaves(spec.treedef, [_placeholder(m) if k != "P" else leaf
                                           for k, m, leaf in zip(spec.kinds, spec.meta, spec.leaves)])


# ---- if ------------------------------------------------------------------------------------------

def if_stmt(cond, body, orelse, get_state, set_state, names):
    if not _symbolic(cond):
        if cond:
            body()
        else:
            orelse()
        return
    _staged_if(cond, body, orelse, get_state, set_state, names)


def _staged_if(cond, body, orelse, get_state, set_state, names):
    init = get_state()
    hints = {}  # variable index -> what an undefined side must look like / leaf dtypes
    for _ in range(2 * len(names) + 2):
        specs = {}
        try:
            out = _cf.cond(cond, lambda: _then_branch(body, init, get_state, set_state, names, specs, hints),
                           lambda: _else_branch(orelse, init, get_state, set_state, names, specs, hints))
            break
        except _Retry:
            continue
    it = iter(out if isinstance(out, list) else [out])
    values = []
    for i, name in enumerate(names):
        spec = specs["then"][i]
        values.append(Undefined(name) if spec is None else spec.rebuild(it))
    set_state(tuple(values))


def _then_branch(body, init, get_state, set_state, names, specs, hints):
    set_state(init)
    with _staged_body():
        body()
    vals = get_state()
    mine, flat = [], []
    for i, v in enumerate(vals):
        if type(v) is Undefined:
            if i in hints and "like" in hints[i]:
                v = _placeholder_like(hints[i]["like"])
            else:
                mine.append(None)
                continue
        spec = _VarSpec(v, hints.get(i, {}).get("dtypes"))
        mine.append(spec)
        flat.extend(spec.flat())
    specs["then"] = mine
    return flat


def _else_branch(orelse, init, get_state, set_state, names, specs, hints):
    set_state(init)
    with _staged_body():
        orelse()
    vals = get_state()
    flat = []
    for i, (name, v, then) in enumerate(zip(names, vals, specs["then"])):
        undefined = type(v) is Undefined
        if then is None:
            if undefined:
                continue
            _defined_late(hints, i, name, v, "must also be initialized in the if branch: it is set in the else "
                          "branch of an `if` on a tensor and used afterwards (graft.cond needs it from both branches)")
        if undefined:
            if not _special(name):
                raise ValueError(f"'{name}' must also be initialized in the else branch: it is set in the if branch "
                                 f"of an `if` on a tensor and used afterwards (graft.cond needs it from both branches)")
            v = _placeholder_like(then)
        leaves, treedef = nest.flatten_with_treedef(v)
        if treedef.key != then.treedef.key:
            raise ValueError(f"{_shown(name)} must have the same nested structure in both branches of an `if` on a "
                             f"tensor: {nest.pack_leaves(then.treedef, then.leaves)!r} and {v!r}")
        for j, (leaf, kind, tleaf, meta) in enumerate(zip(leaves, then.kinds, then.leaves, then.meta)):
            mine = _leaf_kind(leaf)
            if kind == "P" or mine == "P":
                if leaf is tleaf or (kind == mine == "P" and _same_python(leaf, tleaf)):
                    continue
                raise ValueError(f"{_shown(name)} is {tleaf!r} in the if branch and {leaf!r} in the else branch of an "
                                 f"`if` on a tensor: both must be tensors (or the same Python object)")
            if kind == "TA":
                if not isinstance(leaf, TensorArray) or leaf.dtype != tleaf.dtype:
                    raise ValueError(f"{_shown(name)} is a TensorArray in the if branch but {leaf!r} in the else "
                                     f"branch of an `if` on a tensor")
                flat.append(leaf.handle)
                continue
            dtype = meta[0]
            if isinstance(leaf, Tensor) and leaf.dtype != dtype:
                if then.from_python[j]:
                    hints.setdefault(i, {}).setdefault("dtypes", {})[j] = leaf.dtype
                    raise _Retry()
                raise ValueError(f"{_shown(name)} is {dtype.name} in the if branch and {leaf.dtype.name} in the else "
                                 f"branch of an `if` on a tensor: the dtypes must match")
            flat.append(_as_tensor(leaf, dtype))
    return flat


def _defined_late(hints, i, name, value, problem):
    """A variable undefined where the staged statement starts is defined at its end: one the
    converter made (the return value) is traced again starting as a placeholder like value; a
    user's variable is an error."""
    if _special(name):
        hints.setdefault(i, {})["like"] = _VarSpec(value)
        raise _Retry()
    raise ValueError(f"'{name}' {problem}")


def _same_python(a, b):
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - objects without a plain equality
        return False


def if_exp(cond, true_fn, false_fn):
    if not _symbolic(cond):
        return true_fn() if cond else false_fn()
    return _cf.cond(cond, true_fn, false_fn)


# ---- Logical operators --------------------------------------------------------------------------

def and_(first, *rest):
    value = first
    for thunk in rest:
        if _symbolic(value):
            value = _lazy(value, thunk, True)
        elif not value:
            return value
        else:
            value = thunk()
    return value


def or_(first, *rest):
    value = first
    for thunk in rest:
        if _symbolic(value):
            value = _lazy(value, thunk, False)
        elif value:
            return value
        else:
            value = thunk()
    return value


def _lazy(value, thunk, is_and):
    """value and/or thunk() on a tensor: the right side runs only when needed (a cond)."""
    value = _ops.cast(value, _dtypes.bool) if value.dtype != _dtypes.bool else value

    def right():
        r = convert_to_tensor(thunk())
        return _ops.cast(r, _dtypes.bool) if r.dtype != _dtypes.bool else r
    if is_and:
        return _cf.cond(value, right, lambda: value)
    return _cf.cond(value, lambda: value, right)


def not_(x):
    if _symbolic(x):
        return _ops.logical_not(_ops.cast(x, _dtypes.bool) if x.dtype != _dtypes.bool else x)
    return not x


# ---- Loops --------------------------------------------------------------------------------------

class _Options:
    __slots__ = ("shape_invariants", "maximum_iterations", "appended")

    def __init__(self, opts, appended):
        opts = opts or {}
        unknown = set(opts) - {"shape_invariants", "maximum_iterations", "parallel_iterations", "swap_memory"}
        if unknown:
            raise TypeError(f"set_loop_options: unknown options {sorted(unknown)}")
        self.shape_invariants = list(opts.get("shape_invariants") or [])
        self.maximum_iterations = opts.get("maximum_iterations")
        self.appended = appended


def _invariant_for(options, value):
    for var, shape in options.shape_invariants:
        if var is value:
            return as_shape(shape)
    return None


def while_stmt(test, body, get_state, set_state, names, opts=None, appended=()):
    options = _Options(opts, appended)
    cond = test()
    while not _symbolic(cond):
        if not cond:
            return
        body()
        cond = test()
    # The condition is a tensor (at once, or from some iteration on): a while_loop from here.
    _staged_loop(lambda extra: test(), lambda extra: (body(), extra)[1], [], get_state, set_state, names, options)


def for_stmt(iterable, extra_test, body, get_state, set_state, names, opts=None, appended=()):
    options = _Options(opts, appended)
    if isinstance(iterable, _Range):
        return _staged_range(iterable, extra_test, body, get_state, set_state, names, options)
    if _symbolic(iterable):
        return _staged_tensor_loop(iterable, extra_test, body, get_state, set_state, names, options)
    if isinstance(iterable, TensorArray):
        return _staged_tensor_loop(iterable.stack(), extra_test, body, get_state, set_state, names, options)
    if isinstance(iterable, _Enumerate):
        t = iterable.tensor
        return _staged_items(_leading_dim(t), lambda i: (_ops.add(i, iterable.start), _ops.gather(t, i)), extra_test,
                             body, get_state, set_state, names, options)
    if isinstance(iterable, _Zip):
        ts = iterable.tensors
        n = _leading_dim(ts[0])
        for t in ts[1:]:
            n = _ops.minimum(n, _leading_dim(t))  # zip stops at the shortest
        return _staged_items(n, lambda i: tuple(_ops.gather(t, i) for t in ts), extra_test, body, get_state,
                             set_state, names, options)
    staged_guard = False
    for item in iterable:
        if extra_test is not None:
            more = extra_test()
            if _symbolic(more):
                staged_guard = True
            if staged_guard:
                # A break or return under a tensor condition: the rest of the (unrolled) loop
                # runs under conds of the loop's exit test.
                if_stmt(more, lambda item=item: body(item), lambda: None, get_state, set_state, names)
                continue
            if not more:
                break
        body(item)


class _Range:
    """range(...) or graft.range(...) iterated by a for loop on tensors: never materialized."""

    def __init__(self, start, limit, delta, dtype=None):
        values = [start, limit, delta]
        if dtype is None:
            dtype = next((v.dtype for v in values if isinstance(v, Tensor)), _dtypes.int32)
        self.start, self.limit, self.delta = (convert_to_tensor(v, dtype=dtype) if not isinstance(v, Tensor)
                                              else _ops.cast(v, dtype) if v.dtype != dtype else v for v in values)
        self.delta_value = delta if isinstance(delta, (int, float)) else None


class _Enumerate:
    """enumerate(tensor[, start]) iterated by a for loop: (index, element) pairs, staged."""

    def __init__(self, tensor, start):
        self.tensor = tensor
        self.start = convert_to_tensor(start, dtype=_dtypes.int32)


class _Zip:
    """zip(tensors...) iterated by a for loop: tuples of their elements, staged."""

    def __init__(self, tensors):
        self.tensors = tensors


def _as_loop_tensor(x):
    return x.stack() if isinstance(x, TensorArray) else x


def for_iterable(fn, args, kwargs):
    """The iterable of a for loop written as a call: ranges on tensors stay ranges; enumerate
    and zip over tensors become staged loops over their first axis."""
    kwargs = kwargs or {}
    if fn is builtins.enumerate and args and (_symbolic(args[0]) or isinstance(args[0], TensorArray)):
        start = args[1] if len(args) > 1 else kwargs.get("start", 0)
        return _Enumerate(_as_loop_tensor(args[0]), start)
    if fn is builtins.zip and args and not kwargs and any(_symbolic(a) or isinstance(a, TensorArray) for a in args):
        if not all(_symbolic(a) or isinstance(a, (Tensor, TensorArray)) for a in args):
            raise ValueError("zip() in a loop on tensors needs every argument to be a tensor or TensorArray "
                             "(a Python list cannot be iterated by a graph loop)")
        return _Zip([_as_loop_tensor(convert_to_tensor(a) if not isinstance(a, TensorArray) else a) for a in args])
    if fn is builtins.range and any(_symbolic(a) for a in args):
        start, limit, delta = _range_args(args)
        return _Range(start, limit, delta)
    if fn is _ops.range and _fw._context.is_tracing():
        start, limit, delta = _range_args(args, kwargs)
        return _Range(start, limit, delta, kwargs.get("dtype"))
    return converted_call(fn, args, kwargs)


def _range_args(args, kwargs=None):
    kwargs = dict(kwargs or {})
    kwargs.pop("dtype", None)
    kwargs.pop("name", None)
    args = list(args)
    for key in ("start", "limit", "delta"):
        if key in kwargs:
            args.append(kwargs.pop(key))
    if len(args) == 1:
        return 0, args[0], 1
    if len(args) == 2:
        return args[0], args[1], 1
    return args[0], args[1], args[2]


def _staged_range(rng, extra_test, body, get_state, set_state, names, options):
    def test(extra):
        i = extra[0]
        if rng.delta_value is not None:
            more = _ops.less(i, rng.limit) if rng.delta_value > 0 else _ops.greater(i, rng.limit)
        else:
            more = _ops.where(_ops.greater(rng.delta, 0), _ops.less(i, rng.limit), _ops.greater(i, rng.limit))
        return _with_extra(more, extra_test)

    def step(extra):
        body(extra[0])
        return [_ops.add(extra[0], rng.delta)]
    target = _ops.zeros([], dtype=rng.start.dtype)
    _staged_loop(test, step, [rng.start], get_state, set_state, names, options, target)


def _leading_dim(tensor):
    if tensor.shape.rank == 0:
        raise ValueError("Cannot iterate over a scalar tensor")
    return _ops.shape(tensor, out_type=_dtypes.int32)[0]


def _staged_tensor_loop(tensor, extra_test, body, get_state, set_state, names, options):
    _staged_items(_leading_dim(tensor), lambda i: _ops.gather(tensor, i), extra_test, body, get_state, set_state,
                  names, options)


def _staged_items(n, item, extra_test, body, get_state, set_state, names, options):
    """for i in range(n): body(item(i)), staged (i an int32 tensor)."""
    def test(extra):
        return _with_extra(_ops.less(extra[0], n), extra_test)

    def step(extra):
        body(item(extra[0]))
        return [_ops.add(extra[0], 1)]
    _staged_loop(test, step, [convert_to_tensor(0, dtype=_dtypes.int32)], get_state, set_state, names, options)


def _with_extra(more, extra_test):
    if extra_test is None:
        return more
    return and_(more, extra_test)


def _staged_loop(test, step, extra_init, get_state, set_state, names, options, target=None):
    """while test(extra): extra = step(extra), as a graft.while_loop whose loop variables are
    extra (the loop's own counters) and the flattened state."""
    init = list(get_state())
    hints = {}
    for _ in range(2 * len(names) + 2):
        try:
            return _try_staged_loop(test, step, extra_init, init, get_state, set_state, names, options, hints)
        except _Retry:
            continue
    raise RuntimeError("AutoGraph: the loop's variables did not settle")  # pragma: no cover


def _entry_value(name, value, options, hint):
    """What a variable enters a staged loop as (lists that grow in the loop become TensorArrays)."""
    if "like" in hint and type(value) is Undefined:
        return _placeholder_like(hint["like"])
    if isinstance(value, list) and name in options.appended:
        try:
            return _list_to_tensor_array(value, hint.get("element_dtype"), name)
        except _NeedsDtype:
            return list(value)  # a first trace appends to a copy, to find the dtype
    return value


def _try_staged_loop(test, step, extra_init, init, get_state, set_state, names, options, hints):
    specs = []
    flat = list(extra_init)
    n_extra = len(extra_init)
    for i, (name, value) in enumerate(zip(names, init)):
        hint = hints.get(i, {})
        value = _entry_value(name, value, options, hint)
        if type(value) is Undefined:
            specs.append(None)
            continue
        spec = _VarSpec(value, hint.get("dtypes"))
        specs.append(spec)
        flat.extend(spec.flat())

    def unflatten(vals):
        it = iter(vals[n_extra:])
        return tuple(Undefined(name) if spec is None else spec.rebuild(it) for name, spec in zip(names, specs))

    def loop_cond(*vals):
        set_state(unflatten(vals))
        more = test(list(vals[:n_extra]))
        return convert_to_tensor(more)

    def loop_body(*vals):
        set_state(unflatten(vals))
        with _staged_body():
            extra = step(list(vals[:n_extra]))
        return list(extra) + _loop_outputs(get_state(), init, names, specs, options, hints)

    # Shape invariants (set_loop_options) of the flattened variables; the rest keep their shapes.
    invariants = [None] * n_extra
    for name, value, spec in zip(names, init, specs):
        if spec is None:
            continue
        entry_leaves = nest.flatten(value) if type(value) is not Undefined else [None] * len(spec.kinds)
        for kind, entry_leaf in zip(spec.kinds, entry_leaves):
            if kind != "P":
                invariants.append(_invariant_for(options, entry_leaf) if kind == "T" and entry_leaf is not None
                                  else None)
    given = any(x is not None for x in invariants)
    out = _cf.while_loop(loop_cond, loop_body, flat, shape_invariants=invariants if given else None,
                         maximum_iterations=options.maximum_iterations)
    out = out if isinstance(out, list) else list(out)
    set_state(unflatten(out))


def _loop_outputs(values, init, names, specs, options, hints):
    flat = []
    for i, (name, value, spec) in enumerate(zip(names, values, specs)):
        if spec is None:
            if type(value) is Undefined:
                continue
            _defined_late(hints, i, name, value, "must be defined before the loop: it is set in a loop on a tensor "
                          "and used afterwards (or in the next iteration)")
        if isinstance(value, list) and name in options.appended and isinstance(init[i], list):
            # A Python list appended to in the body's first trace: its elements give the dtype.
            dtype = _list_dtype(value, name)
            hints.setdefault(i, {})["element_dtype"] = dtype
            raise _Retry()
        leaves, treedef = nest.flatten_with_treedef(value)
        if treedef.key != spec.treedef.key:
            raise ValueError(f"{_shown(name)} has the structure {nest.pack_leaves(spec.treedef, spec.leaves)!r} "
                             f"before the loop but {value!r} after one iteration: it must keep its structure")
        for j, (leaf, kind, before, meta) in enumerate(zip(leaves, spec.kinds, spec.leaves, spec.meta)):
            if kind == "P":
                if leaf is not before and not _same_python(leaf, before):
                    raise ValueError(f"{_shown(name)} is the Python value {before!r} before a loop on a tensor and "
                                     f"{leaf!r} after one iteration: only tensors can change in such a loop")
                continue
            if kind == "TA":
                if not isinstance(leaf, TensorArray):
                    raise ValueError(f"{_shown(name)} is a TensorArray before the loop but {leaf!r} after one "
                                     "iteration")
                flat.append(leaf.handle)
                continue
            if isinstance(leaf, TensorArray) or _leaf_kind(leaf) != "T":
                raise ValueError(f"{_shown(name)} is a tensor before the loop but {leaf!r} after one iteration")
            dtype, shape = meta
            entry = init[i]
            entry_leaf = nest.flatten(entry)[j] if type(entry) is not Undefined else None
            if isinstance(leaf, Tensor) and leaf.dtype != dtype:
                if isinstance(entry_leaf, (bool, int, float)) and not isinstance(entry_leaf, Tensor):
                    hints.setdefault(i, {}).setdefault("dtypes", {})[j] = leaf.dtype
                    raise _Retry()
                raise ValueError(f"{_shown(name)} has dtype {dtype.name} before the loop, but dtype {leaf.dtype.name} "
                                 f"after one iteration")
            t = _as_tensor(leaf, dtype)
            _check_shape(name, t, shape, _invariant_for(options, entry_leaf) if entry_leaf is not None else None)
            flat.append(t)
    return flat


def _check_shape(name, tensor, entry_shape, invariant):
    shape = tensor.shape
    if invariant is not None:
        if not invariant.is_compatible_with(shape):
            raise ValueError(f"{_shown(name)} has shape {shape} after one iteration, which is not compatible with "
                             f"its shape invariant {invariant}")
        return
    if not entry_shape.is_compatible_with(shape):
        raise ValueError(f"{_shown(name)} has shape {entry_shape} before the loop, but shape {shape} after one "
                         f"iteration. To allow the shape to vary across iterations, use "
                         f"graft.autograph.experimental.set_loop_options(shape_invariants=[({name}, "
                         f"graft.TensorShape(...))]) as the loop's first statement")


def set_loop_options(shape_invariants=None, maximum_iterations=None, parallel_iterations=None, swap_memory=None):
    """As the first statement of a loop on tensors: its shape invariants and iteration limit.
    (The converter takes it out of the loop; run unconverted it does nothing.)"""
    return None


# ---- Lists --------------------------------------------------------------------------------------

_element_types = {}  # id(list) -> (list, dtype, shape)


def set_element_type(entity, dtype, shape=None):
    """Declares the dtype (and element shape) of a Python list that a loop on tensors grows:
    the loop turns it into a TensorArray of that dtype."""
    if isinstance(entity, list):
        _element_types[id(entity)] = (entity, _dtypes.as_dtype(dtype), shape)
    return entity


def _list_dtype(values, name):
    for v in values:
        if isinstance(v, Tensor):
            return v.dtype
    if values:
        return convert_to_tensor(values[0]).dtype
    raise ValueError(f"'{name}' is an empty list grown in a loop on a tensor: declare its element dtype with "
                     "graft.autograph.experimental.set_element_type")


def _list_to_tensor_array(values, element_dtype, name):
    known = _element_types.get(id(values))
    shape = None
    if known is not None and known[0] is values:
        element_dtype, shape = known[1], known[2]
    if element_dtype is None:
        if not values:
            raise _NeedsDtype()
        element_dtype = _list_dtype(values, name)
    ta = TensorArray(element_dtype, size=0, dynamic_size=True, element_shape=shape)
    for v in values:
        ta = list_append(ta, v)
    return ta


class _NeedsDtype(Exception):
    pass


def list_append(target, value):
    """target.append(value) as a statement: TensorArrays grow by one element, lists in place."""
    if isinstance(target, TensorArray):
        value = convert_to_tensor(value, dtype=target.dtype)
        handle = _fw.apply_op("TensorListPushBack", [target.handle, value], {"element_dtype": target.dtype})[0]
        return target._new(handle, None)
    target.append(value)
    return target


def stack(target, strict=True):
    """The elements of a list grown by a loop (a TensorArray after a loop on tensors) as one tensor."""
    if isinstance(target, TensorArray):
        return target.stack()
    return _ops.stack(target)


# ---- Builtins -----------------------------------------------------------------------------------

class _Staging(threading.local):
    depth = 0  # how many staged bodies (cond branches, while_loop bodies) are being traced


_staging = _Staging()


class _staged_body:
    def __enter__(self):
        _staging.depth += 1

    def __exit__(self, *exc):
        _staging.depth -= 1


def print_(*objects, sep=" ", end="\n", file=None, flush=False):
    """print in converted code: a Python print (at trace time, as TensorFlow's) except inside a
    branch or loop on a tensor, where it prints tensors when the graph runs (graft.print)."""
    if _staging.depth and any(_symbolic(x) for x in nest.flatten(list(objects))):
        stream = file if file in (None, sys.stdout, sys.stderr) else None
        return _ops.print(*objects, sep=sep, end=end, output_stream=stream if stream is not None else sys.stdout)
    builtins.print(*objects, sep=sep, end=end, file=file, flush=flush)
    return None


def len_(x):
    if isinstance(x, TensorArray):
        return x.size()
    if isinstance(x, Tensor) and not isinstance(x, EagerTensor):
        shape = x.shape
        if shape.rank == 0:
            raise ValueError("len requires a non-scalar tensor")
        if shape.rank is not None and shape[0] is not None:
            return shape[0]
        return _ops.shape(x, out_type=_dtypes.int32)[0]
    return builtins.len(x)


def range_(*args):
    if any(_symbolic(a) for a in args):
        start, limit, delta = _range_args(args)
        return _ops.range(start, limit, delta)
    return builtins.range(*args)


def assert_stmt(test, message):
    if not _symbolic(test):
        if not test:
            msg = message() if message is not None else None
            raise AssertionError(msg) if msg is not None else AssertionError()
        return None
    msg = message() if message is not None else "Assertion failed"
    data = msg if isinstance(msg, (list, tuple)) else [msg]
    return _ops.Assert(test, list(data))


# ---- Calls --------------------------------------------------------------------------------------

_BUILTINS = {builtins.print: print_, builtins.len: len_, builtins.range: range_}


def converted_call(fn, args, kwargs):
    """fn(*args, **kwargs) from converted code: user functions are converted first."""
    kwargs = kwargs or {}
    try:
        special = _BUILTINS.get(fn)
    except TypeError:  # unhashable callables
        special = None
    if special is not None:
        return special(*args, **kwargs)
    if fn is _ops.stack and args and isinstance(args[0], TensorArray):
        return args[0].stack()
    from graft.autograph import conversion
    return conversion.convert_callable(fn)(*args, **kwargs)
