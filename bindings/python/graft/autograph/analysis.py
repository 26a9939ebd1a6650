"""Static analysis of a function's statements for the converter: which names a statement reads
and assigns, and which names are live (read later before being assigned again) after each
compound statement and at each loop's head.

The analysis runs on structured code (the lowering pass has already turned break, continue and
return into flag variables), so liveness is a backward pass over nested blocks, loops iterated
to a fixed point. Results are stored on the nodes: `ag_live_out` on if/while/for statements,
`ag_live_head` on loops.
"""
import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _target_names(target, out):
    if isinstance(target, ast.Name):
        out.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _target_names(elt, out)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, out)
    return out


def _params(args):
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    return names


def reads(node):
    """Names read by node, seen from its scope (a nested function's or comprehension's own
    names are not reads of the enclosing scope)."""
    cached = getattr(node, "_ag_reads", None)
    if cached is not None:
        return cached
    out = set()
    _collect_reads(node, out)
    try:
        node._ag_reads = out
    except AttributeError:  # pragma: no cover
        pass
    return out


def _collect_reads(node, out):
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load):
            out.add(node.id)
        return
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        inner = set()
        for child in node.body:
            _collect_reads(child, inner)
        out |= inner - _params(node.args) - assigned(node.body)
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None] + node.decorator_list:
            _collect_reads(d, out)
        return
    if isinstance(node, ast.Lambda):
        inner = set()
        _collect_reads(node.body, inner)
        out |= inner - _params(node.args)
        return
    if isinstance(node, _COMPREHENSIONS):
        inner, targets = set(), set()
        for gen in node.generators:
            _target_names(gen.target, targets)
        for child in ast.iter_child_nodes(node):
            _collect_reads(child, inner)
        out |= inner - targets
        return
    if isinstance(node, ast.AugAssign):
        _target_names(node.target, out)
    for child in ast.iter_child_nodes(node):
        _collect_reads(child, out)


def assigned(stmts):
    """Names assigned anywhere in stmts in their scope (not inside nested functions, lambdas,
    classes or comprehensions), including loop targets and the names of nested definitions."""
    out = set()
    for s in stmts:
        _collect_assigned(s, out)
    return out


def _collect_assigned(node, out):
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        return
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.add(node.name)
        return
    if isinstance(node, (ast.Lambda,) + _COMPREHENSIONS):
        return
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            out.add((alias.asname or alias.name).split(".")[0])
        return
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return
    for child in ast.iter_child_nodes(node):
        _collect_assigned(child, out)


def _kills(stmt):
    """Names a simple statement assigns for certain."""
    if isinstance(stmt, ast.Assign):
        out = set()
        for t in stmt.targets:
            _target_names(t, out)
        return out
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return _target_names(stmt.target, set())
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return assigned([stmt])
    return set()


def annotate_liveness(body):
    """Annotates the compound statements of a function body (the function's own scope)."""
    _block(body, frozenset())


def _block(stmts, live):
    for s in reversed(stmts):
        live = _stmt(s, live)
    return live


def _stmt(s, live):
    if isinstance(s, ast.If):
        s.ag_live_out = live
        return frozenset(reads(s.test)) | _block(s.body, live) | _block(s.orelse, live)
    if isinstance(s, ast.While):
        s.ag_live_out = live
        after = _block(s.orelse, live)
        head = frozenset(reads(s.test)) | after
        while True:
            new = frozenset(reads(s.test)) | _block(s.body, head) | after
            if new == head:
                break
            head = new
        s.ag_live_head = head
        return head
    if isinstance(s, (ast.For, ast.AsyncFor)):
        s.ag_live_out = live
        after = _block(s.orelse, live)
        extra = getattr(s, "ag_extra_test", None)
        extra_reads = frozenset(reads(extra)) if extra is not None else frozenset()
        target = _target_names(s.target, set())
        head = extra_reads | after
        while True:
            new = extra_reads | (_block(s.body, head) - target) | after
            if new == head:
                break
            head = new
        s.ag_live_head = head
        return head | reads(s.iter)
    if isinstance(s, (ast.With, ast.AsyncWith)):
        out = _block(s.body, live)
        for item in s.items:
            out |= reads(item.context_expr)
        return out
    if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        out = _block(s.finalbody, live)
        out = _block(s.orelse, out) | out
        for h in s.handlers:
            out |= _block(h.body, live)
        return _block(s.body, out) | out
    return (live - _kills(s)) | reads(s)
