"""The second pass of the converter: control flow and operators become calls of
graft.autograph.operators (named `ag__` in converted code).

An `if`, `while` or `for` becomes nested functions for its bodies (they declare the names the
statement assigns `nonlocal`, so they update the enclosing function's variables), a pair of
get_state/set_state functions over the names the statement changes that are live afterwards,
and a call of ag__.if_stmt / while_stmt / for_stmt, which decides when it runs whether Python
or the graph does the branching. `and`, `or`, `not`, `a if c else b`, `assert` and calls
become operator calls that do the same. Names that a statement may assign before Python would
have bound them start as ag__.Undefined and are read through ag__.ld.
"""
import ast

from graft.autograph import analysis
from graft.autograph.lowering import Lowering


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _ag(attr):
    return ast.Attribute(value=_name("ag__"), attr=attr, ctx=ast.Load())


def _call(func, *args):
    return ast.Call(func=func, args=list(args), keywords=[])


def _thunk(expr):
    return ast.Lambda(args=_no_args(), body=expr)


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[])


def _def(name, body, params=()):
    args = _no_args()
    args.args = [ast.arg(arg=p) for p in params]
    fn = ast.FunctionDef(name=name, args=args, body=body or [ast.Pass()], decorator_list=[], returns=None,
                         type_comment=None)
    if hasattr(ast.FunctionDef, "type_params") or "type_params" in ast.FunctionDef._fields:
        fn.type_params = []
    return fn


def _names_tuple(names, store=False):
    return ast.Tuple(elts=[_name(n, store) for n in names], ctx=ast.Store() if store else ast.Load())


def _strings(names):
    return ast.Tuple(elts=[ast.Constant(value=n) for n in names], ctx=ast.Load())


class _Expressions(ast.NodeTransformer):
    """Rewrites the expressions of one statement (not nested statements)."""

    def __init__(self, scope):
        self._scope = scope

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        return ast.copy_location(ast.Call(func=_ag(op), args=[node.values[0]] + [_thunk(v) for v in node.values[1:]],
                                          keywords=[]), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call(_ag("not_"), node.operand), node)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.copy_location(_call(_ag("if_exp"), node.test, _thunk(node.body), _thunk(node.orelse)), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "ag__":
            return node
        if isinstance(func, ast.Name) and func.id == "super" and not node.args and self._scope.super_args:
            node.args = [_name(a) for a in self._scope.super_args]
            return node
        if isinstance(func, ast.Name) and func.id in ("super", "locals", "globals", "vars", "eval", "exec"):
            return node
        args = ast.Tuple(elts=node.args, ctx=ast.Load())
        if node.keywords:
            kwargs = ast.Dict(keys=[ast.Constant(value=k.arg) if k.arg is not None else None for k in node.keywords],
                              values=[k.value for k in node.keywords])
        else:
            kwargs = ast.Constant(value=None)
        return ast.copy_location(_call(_ag("converted_call"), func, args, kwargs), node)

    def visit_FunctionDef(self, node):  # a def inside an expression cannot happen; statements handle defs
        return node

    def visit_Lambda(self, node):
        node.args = self.visit(node.args)
        node.body = self.visit(node.body)
        return node


class _Scope:
    """What the converter knows of the function whose body it rewrites."""

    def __init__(self, fn, super_args=None):
        self.params = analysis._params(fn.args)
        self.globals = set()
        for n in ast.walk(fn):
            if isinstance(n, ast.Global):
                self.globals.update(n.names)
        self.super_args = super_args
        self.maybe_undefined = set()


class ControlFlow:
    def __init__(self):
        self._count = 0

    def _next(self):
        self._count += 1
        return self._count

    def function(self, fn, super_args=None, top=True):
        """Rewrites a FunctionDef (and the defs nested in it) in place."""
        Lowering().lower_function(fn)
        analysis.annotate_liveness(fn.body)
        scope = _Scope(fn, super_args)
        fn.body = self._block(fn.body, set(scope.params), scope)
        if scope.maybe_undefined:
            _Loads(scope.maybe_undefined).visit_body(fn)
        if not top:
            exprs = _Expressions(scope)
            fn.args.defaults = [exprs.visit(d) for d in fn.args.defaults]
            fn.args.kw_defaults = [exprs.visit(d) if d is not None else None for d in fn.args.kw_defaults]
            fn.decorator_list = [exprs.visit(d) for d in fn.decorator_list]
        return fn

    def _block(self, stmts, bound, scope):
        out = []
        for s in stmts:
            out.extend(self._stmt(s, bound, scope))
        return out

    def _stmt(self, s, bound, scope):
        exprs = _Expressions(scope)
        if isinstance(s, ast.If):
            return self._if(s, bound, scope, exprs)
        if isinstance(s, ast.While):
            return self._while(s, bound, scope, exprs)
        if isinstance(s, ast.For):
            return self._for(s, bound, scope, exprs)
        if isinstance(s, ast.FunctionDef):
            ControlFlow.function(self, s, top=False)
            bound.add(s.name)
            return [s]
        if isinstance(s, (ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(s.name)
            return [s]
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                item.context_expr = exprs.visit(item.context_expr)
            s.body = self._block(s.body, set(bound), scope)
            return [s]
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            s.body = self._block(s.body, set(bound), scope)
            s.orelse = self._block(s.orelse, set(bound), scope)
            s.finalbody = self._block(s.finalbody, set(bound), scope)
            for h in s.handlers:
                h.body = self._block(h.body, set(bound), scope)
            return [s]
        if isinstance(s, ast.Assert):
            msg = _thunk(exprs.visit(s.msg)) if s.msg is not None else ast.Constant(value=None)
            return [ast.copy_location(ast.Expr(value=_call(_ag("assert_stmt"), exprs.visit(s.test), msg)), s)]
        s = exprs.visit(s)
        bound |= analysis._kills(s)
        return [s]

    # ---- Compound statements ----------------------------------------------------------------------

    def _declare(self, names, scope):
        out = []
        local = sorted(n for n in names if n not in scope.globals)
        glob = sorted(n for n in names if n in scope.globals)
        if local:
            out.append(ast.Nonlocal(names=local))
        if glob:
            out.append(ast.Global(names=glob))
        return out

    def _init_undefined(self, names, bound, scope):
        out = []
        for n in sorted(names - bound - scope.globals):
            out.append(ast.Try(body=[ast.Expr(value=_name(n))],
                               handlers=[ast.ExceptHandler(type=_name("NameError"), name=None, body=[
                                   ast.Assign(targets=[_name(n, True)],
                                              value=_call(_ag("Undefined"), ast.Constant(value=n)), lineno=0)])],
                               orelse=[], finalbody=[]))
            scope.maybe_undefined.add(n)
        bound |= names
        return out

    def _state(self, n, outputs, scope):
        get = _def(f"ag__get_state_{n}", [ast.Return(value=_names_tuple(outputs))])
        if outputs:
            setter_body = self._declare(outputs, scope) + [
                ast.Assign(targets=[_names_tuple(outputs, True)], value=_name("ag__values"), lineno=0)]
        else:
            setter_body = [ast.Pass()]
        return get, _def(f"ag__set_state_{n}", setter_body, ["ag__values"])

    def _if(self, s, bound, scope, exprs):
        n = self._next()
        modified = analysis.assigned(s.body + s.orelse)
        outputs = sorted(modified & s.ag_live_out)
        pre = self._init_undefined(modified, bound, scope)
        decl = self._declare(modified, scope)
        body = _def(f"ag__if_body_{n}", decl + self._block(s.body, set(bound), scope))
        orelse = _def(f"ag__else_body_{n}", decl + self._block(s.orelse, set(bound), scope))
        get, put = self._state(n, outputs, scope)
        call = ast.Expr(value=_call(_ag("if_stmt"), exprs.visit(s.test), _name(body.name), _name(orelse.name),
                                    _name(get.name), _name(put.name), _strings(outputs)))
        return [ast.copy_location(x, s) for x in pre + [body, orelse, get, put, call]]

    def _loop_parts(self, s, modified, bound, scope):
        loop_vars = sorted(modified & s.ag_live_head)
        appended = sorted({a.targets[0].id for a in ast.walk(ast.Module(body=s.body, type_ignores=[]))
                           if isinstance(a, ast.Assign) and isinstance(a.value, ast.Call)
                           and isinstance(a.value.func, ast.Attribute) and a.value.func.attr == "list_append"
                           and isinstance(a.value.func.value, ast.Name) and a.value.func.value.id == "ag__"})
        options = getattr(s, "ag_options", None)
        options = _Expressions(scope).visit(options) if options is not None else ast.Constant(value=None)
        return loop_vars, appended, options

    def _while(self, s, bound, scope, exprs):
        n = self._next()
        modified = analysis.assigned(s.body)
        loop_vars, appended, options = self._loop_parts(s, modified, bound, scope)
        pre = self._init_undefined(modified, bound, scope)
        test = _def(f"ag__loop_test_{n}", [ast.Return(value=exprs.visit(s.test))])
        body = _def(f"ag__loop_body_{n}", self._declare(modified, scope) + self._block(s.body, set(bound), scope))
        get, put = self._state(n, loop_vars, scope)
        call = ast.Expr(value=ast.Call(func=_ag("while_stmt"), args=[
            _name(test.name), _name(body.name), _name(get.name), _name(put.name), _strings(loop_vars), options,
            _strings(appended)], keywords=[]))
        return [ast.copy_location(x, s) for x in pre + [test, body, get, put, call]]

    def _for(self, s, bound, scope, exprs):
        n = self._next()
        target_names = analysis._target_names(s.target, set())
        modified = analysis.assigned(s.body) | target_names
        loop_vars, appended, options = self._loop_parts(s, modified, bound, scope)
        pre = self._init_undefined(modified, bound, scope)
        assign_target = ast.copy_location(ast.Assign(targets=[s.target], value=_name("ag__itr")), s)
        body = _def(f"ag__loop_body_{n}", self._declare(modified, scope) + [assign_target] +
                    self._block(s.body, set(bound) | target_names, scope), ["ag__itr"])
        parts = [body]
        extra = getattr(s, "ag_extra_test", None)
        if extra is not None:
            extra_fn = _def(f"ag__extra_test_{n}", [ast.Return(value=exprs.visit(extra))])
            parts.append(extra_fn)
            extra_arg = _name(extra_fn.name)
        else:
            extra_arg = ast.Constant(value=None)
        it = s.iter
        if isinstance(it, ast.Call):
            call = exprs.visit(it)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                    call.func.attr == "converted_call":
                call.func = _ag("for_iterable")
            it = call
        else:
            it = exprs.visit(it)
        get, put = self._state(n, loop_vars, scope)
        call = ast.Expr(value=ast.Call(func=_ag("for_stmt"), args=[
            it, extra_arg, _name(body.name), _name(get.name), _name(put.name), _strings(loop_vars), options,
            _strings(appended)], keywords=[]))
        return [ast.copy_location(x, s) for x in pre + parts + [get, put, call]]


class _Loads(ast.NodeTransformer):
    """Reads of names that may hold ag__.Undefined go through ag__.ld (Python's error if so)."""

    def __init__(self, names):
        self._names = names

    def visit_body(self, fn):
        fn.body = [self.visit(s) for s in fn.body]

    def visit_FunctionDef(self, node):
        if node.name.startswith("ag__get_state_"):
            return node
        self.generic_visit(node)
        return node

    def visit_Try(self, node):
        # The ag__.Undefined initializations read the name bare (that is their point).
        if len(node.handlers) == 1 and isinstance(node.handlers[0].type, ast.Name) and \
                node.handlers[0].type.id == "NameError" and len(node.body) == 1 and \
                isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Name):
            return node
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self._names:
            return ast.copy_location(_call(_ag("ld"), node), node)
        return node
