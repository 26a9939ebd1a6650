"""Converting functions: reading their source, running the passes, compiling the result so that
its line numbers are the original file's (tracebacks and errors point at the user's lines), and
caching it per code object (the compiled code) and per function (the function built on it).

The converted function is built on the original's globals and closure cells, so it sees the
same module variables and the same enclosing variables as the original.
"""
import ast
import builtins
import functools
import inspect
import sys
import textwrap
import types
import warnings
import weakref

from graft.autograph import transformer

_DO_NOT_CONVERT = "__graft_autograph_do_not_convert__"
_CONVERTED = "__graft_autograph_converted__"

_code_cache = {}  # code object -> (converted code, converted source) or None (cannot convert)
_function_cache = weakref.WeakKeyDictionary()  # function -> converted function
_warned = set()
_verbosity = [0]


class ConversionError(Exception):
    """A function AutoGraph cannot convert (to_graph / to_code)."""


def set_verbosity(level, alsologtostdout=False):
    """Above 0, each conversion is reported on stderr (level 2 and up: with its converted source)."""
    _verbosity[0] = int(level)


def do_not_convert(func=None):
    """Marks func to run as written (AutoGraph leaves it and what it calls alone)."""
    if func is None:
        return do_not_convert
    try:
        setattr(func, _DO_NOT_CONVERT, True)
        return func
    except (AttributeError, TypeError):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)
        setattr(wrapper, _DO_NOT_CONVERT, True)
        return wrapper


# ---- Which callables are converted -------------------------------------------------------------

_LIBRARY_ROOTS = {"graft", "numpy", "pytest", "_pytest", "pluggy", "scipy"} | set(sys.stdlib_module_names)


def _is_library(fn):
    # Where the code lives (a wrapper made by functools.wraps takes its wrapped function's
    # __module__, not its globals).
    globals_ = getattr(fn, "__globals__", None) or {}
    for module in (getattr(fn, "__module__", None), globals_.get("__name__")):
        if module and module.split(".")[0] in _LIBRARY_ROOTS:
            return True
    return False


def convert_callable(fn):
    """What converted code calls for fn: its converted version if it is user code."""
    if isinstance(fn, types.FunctionType):
        return convert(fn, warn=True) if _convertible(fn) else fn
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
        if not _convertible(fn.__func__):
            return fn
        converted = convert(fn.__func__, warn=True)
        return fn if converted is fn.__func__ else types.MethodType(converted, fn.__self__)
    return fn


def _convertible(fn):
    if getattr(fn, _DO_NOT_CONVERT, False) or getattr(fn, _CONVERTED, False):
        return False
    return not _is_library(fn)


# ---- Conversion --------------------------------------------------------------------------------

def convert(fn, warn=True):
    """The converted version of a Python function (cached), or fn itself, with a warning, when its
    source cannot be read or converted."""
    try:
        return _function_cache[fn]
    except (KeyError, TypeError):
        pass
    if not isinstance(fn, types.FunctionType) or getattr(fn, _DO_NOT_CONVERT, False):
        return fn
    entry = _code_cache.get(fn.__code__, False)
    if entry is False:
        try:
            entry = _convert_code(fn)
        except _CannotConvert as e:
            entry = None
            if warn and fn.__code__ not in _warned:
                _warned.add(fn.__code__)
                warnings.warn(f"AutoGraph could not convert {fn.__qualname__} and runs it as written: {e}",
                              stacklevel=3)
        _code_cache[fn.__code__] = entry
    if entry is None:
        converted = fn
    else:
        converted = _instantiate(fn, entry[0])
    _function_cache[fn] = converted
    return converted


class _CannotConvert(Exception):
    pass


def _source_tree(fn):
    """The function's definition parsed, with the original file's line and column numbers."""
    try:
        lines, first = inspect.getsourcelines(fn.__code__)  # its own code, not a __wrapped__ one
    except (OSError, TypeError) as e:
        raise _CannotConvert(f"its source code is not available ({e})") from None
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = 0
    for a, b in zip(lines, dedented.splitlines(True)):
        if b.strip():
            indent = len(a) - len(b)
            break
    try:
        tree = ast.parse(dedented)
    except SyntaxError as e:
        raise _CannotConvert(f"its source could not be parsed ({e.msg})") from None
    node = tree.body[0] if tree.body else None
    if fn.__name__ == "<lambda>":
        node = _lambda_as_def(tree, fn)
    elif not isinstance(node, ast.FunctionDef):
        raise _CannotConvert("its source is not a def statement")
    ast.increment_lineno(tree, first - 1)
    if indent:
        for n in ast.walk(tree):
            if hasattr(n, "col_offset") and getattr(n, "col_offset", None) is not None:
                n.col_offset += indent
                if getattr(n, "end_col_offset", None) is not None:
                    n.end_col_offset += indent
    return node, fn.__code__.co_filename


def _lambda_as_def(tree, fn):
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
               and [a.arg for a in n.args.args] == list(fn.__code__.co_varnames[:fn.__code__.co_argcount])]
    if len(lambdas) != 1:
        raise _CannotConvert("its lambda could not be told apart from others on its lines")
    lam = lambdas[0]
    node = transformer._def("<lambda>", [ast.copy_location(ast.Return(value=lam.body), lam.body)])
    node.name = "ag__lambda"
    node.args = lam.args
    ast.copy_location(node, lam)
    return node


def _convert_code(fn):
    node, filename = _source_tree(fn)
    node.decorator_list = []
    node.returns = None
    node.args.defaults = []
    node.args.kw_defaults = [None] * len(node.args.kw_defaults)
    for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs + \
            [x for x in (node.args.vararg, node.args.kwarg) if x is not None]:
        a.annotation = None
    freevars = list(fn.__code__.co_freevars)
    super_args = None
    params = [a.arg for a in node.args.posonlyargs + node.args.args]
    if "__class__" in freevars and params:
        super_args = ["__class__", params[0]]
    transformer.ControlFlow().function(node, super_args=super_args)
    factory_params = ["ag__"] + [v for v in freevars if v != "ag__"]
    factory = transformer._def("ag__factory", [node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
                               factory_params)
    ast.copy_location(factory, node)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        code = compile(module, filename, "exec", dont_inherit=True)
    except SyntaxError as e:
        raise _CannotConvert(f"its converted code does not compile ({e.msg}, line {e.lineno})") from None
    namespace = {"__builtins__": builtins}
    exec(code, namespace)  # noqa: S102 - our own generated code
    inner = namespace["ag__factory"](*([None] * len(factory_params)))
    if _verbosity[0] > 0:
        print(f"AutoGraph converted {fn.__qualname__}", file=sys.stderr)
        if _verbosity[0] > 1:
            print(ast.unparse(node), file=sys.stderr)
    return inner.__code__, node


def _instantiate(fn, code):
    from graft.autograph import operators
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = []
    for name in code.co_freevars:
        if name == "ag__":
            closure.append(types.CellType(operators))
        else:
            closure.append(cells.get(name, types.CellType()))
    converted = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, tuple(closure))
    converted.__kwdefaults__ = fn.__kwdefaults__
    converted.__dict__.update(fn.__dict__)
    converted.__qualname__ = fn.__qualname__
    converted.__doc__ = fn.__doc__
    converted.__module__ = fn.__module__
    converted.__wrapped__ = fn
    setattr(converted, _CONVERTED, True)
    return converted


# ---- Public entry points ------------------------------------------------------------------------

def _unwrap(entity):
    from graft.function import Function
    if isinstance(entity, Function):
        return entity.python_function
    return entity


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """The converted version of a Python function (or method): it runs as the original on Python
    values and builds graph control flow on tensors."""
    entity = _unwrap(entity)
    if isinstance(entity, types.MethodType):
        return types.MethodType(to_graph(entity.__func__), entity.__self__)
    if not isinstance(entity, types.FunctionType):
        raise ConversionError(f"to_graph: {entity!r} is not a Python function")
    try:
        entry = _code_cache.get(entity.__code__, False)
        if entry is False:
            entry = _convert_code(entity)
            _code_cache[entity.__code__] = entry
    except _CannotConvert as e:
        raise ConversionError(f"to_graph: cannot convert {entity.__qualname__}: {e}") from None
    if entry is None:
        raise ConversionError(f"to_graph: cannot convert {entity.__qualname__}")
    return convert(entity)


def to_code(entity, recursive=True, experimental_optional_features=None):
    """The source of the converted function, as Python code."""
    entity = _unwrap(entity)
    if isinstance(entity, types.MethodType):
        entity = entity.__func__
    to_graph(entity)
    return ast.unparse(_code_cache[entity.__code__][1]) + "\n"
