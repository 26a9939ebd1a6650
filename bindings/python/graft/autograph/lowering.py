"""The first pass of the converter: `return`, `break` and `continue` inside compound statements
become assignments to flag variables, the statements after them run under `if not flag`, and
loops test the flags; `lst.append(x)` statements become `lst = ag__.list_append(lst, x)` so
that the list is a variable the loop carries. The result is plain Python with no jumps, which
the control-flow pass can turn into functions.
"""
import ast

RETVAL = "ag__retval"
DO_RETURN = "ag__do_return"


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _assign(id_, value):
    return ast.Assign(targets=[_name(id_, True)], value=value, lineno=0)


def _not_any(flags):
    tests = [ast.UnaryOp(op=ast.Not(), operand=_name(f)) for f in sorted(flags)]
    return tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.And(), values=tests)


def _ag(attr):
    return ast.Attribute(value=_name("ag__"), attr=attr, ctx=ast.Load())


def _walk_scope(node):
    """Nodes of node's scope (not inside nested functions, lambdas or classes)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                todo.append(child)


def _returns_inside_compound(body):
    for s in body:
        if isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.AsyncFor, ast.AsyncWith)) or \
                type(s).__name__ in ("TryStar", "Match"):
            if any(isinstance(n, ast.Return) for n in _walk_scope(s)):
                return True
    return False


class _Loop:
    def __init__(self, index):
        self.break_flag = f"ag__break_{index}"
        self.continue_flag = f"ag__continue_{index}"
        self.used_break = False
        self.used_continue = False


class Lowering:
    def __init__(self):
        self._loops = 0
        self._lower_returns = False
        self._locals = set()

    def lower_function(self, fn):
        """Rewrites fn.body (an ast.FunctionDef) in place."""
        from graft.autograph import analysis
        declared = {n for node in _walk_scope(fn) if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}
        # Lists the function's own variables hold (a global or enclosing list is appended to in place).
        self._locals = (analysis._params(fn.args) | analysis.assigned(fn.body)) - declared
        self._lower_returns = _returns_inside_compound(fn.body)
        body = list(fn.body)
        if self._lower_returns:
            returns_value = any(isinstance(n, ast.Return) and n.value is not None for n in _walk_scope(fn))
            if returns_value and not _always_returns(body):
                body.append(ast.Return(value=ast.Constant(value=None)))
            new, _ = self._block(body, None)
            undefined = ast.Call(func=_ag("Undefined"), args=[ast.Constant(value=RETVAL)], keywords=[])
            fn.body = [_assign(DO_RETURN, ast.Constant(value=False)), _assign(RETVAL, undefined)] + new + [
                ast.Return(value=ast.Call(func=_ag("retval"), args=[_name(RETVAL)], keywords=[]))]
        else:
            fn.body, _ = self._block(body, None)
        return fn

    def _block(self, stmts, loop):
        out, flags = [], set()
        for index, s in enumerate(stmts):
            new, may_set, certain = self._stmt(s, loop)
            out.extend(new)
            flags |= may_set
            if certain:
                return out, flags
            if may_set:
                rest, rest_flags = self._block(stmts[index + 1:], loop)
                if rest:
                    out.append(ast.copy_location(ast.If(test=_not_any(may_set), body=rest, orelse=[]),
                                                 stmts[index + 1]))
                return out, flags | rest_flags
        return out, flags

    def _stmt(self, s, loop):
        """(new statements, flags they may set, whether they set one for certain)."""
        if isinstance(s, ast.Return) and self._lower_returns:
            value = s.value if s.value is not None else ast.Constant(value=None)
            new = [ast.copy_location(_assign(DO_RETURN, ast.Constant(value=True)), s),
                   ast.copy_location(_assign(RETVAL, value), s)]
            return new, {DO_RETURN}, True
        if isinstance(s, ast.Break) and loop is not None:
            loop.used_break = True
            return [ast.copy_location(_assign(loop.break_flag, ast.Constant(value=True)), s)], {loop.break_flag}, True
        if isinstance(s, ast.Continue) and loop is not None:
            loop.used_continue = True
            return ([ast.copy_location(_assign(loop.continue_flag, ast.Constant(value=True)), s)],
                    {loop.continue_flag}, True)
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and _is_append(s.value) and \
                s.value.func.value.id in self._locals:
            call = s.value
            target = call.func.value
            new = ast.Assign(targets=[_name(target.id, True)],
                             value=ast.Call(func=_ag("list_append"), args=[_name(target.id), call.args[0]],
                                            keywords=[]))
            return [ast.copy_location(new, s)], set(), False
        if isinstance(s, ast.If):
            s.body, f1 = self._block(s.body, loop)
            s.orelse, f2 = self._block(s.orelse, loop)
            return [s], f1 | f2, False
        if isinstance(s, (ast.While, ast.For)):
            return self._loop(s, loop)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            s.body, flags = self._block(s.body, loop)
            return [s], flags, False
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            flags = set()
            for attr in ("body", "orelse", "finalbody"):
                block, f = self._block(getattr(s, attr), loop)
                setattr(s, attr, block)
                flags |= f
            for h in s.handlers:
                h.body, f = self._block(h.body, loop)
                flags |= f
            return [s], flags, False
        return [s], set(), False

    def _loop(self, s, outer):
        self._loops += 1
        loop = _Loop(self._loops)
        if s.body and _is_loop_options(s.body[0]):
            call = s.body.pop(0).value
            s.ag_options = ast.Dict(keys=[ast.Constant(value=k.arg) for k in call.keywords],
                                    values=[k.value for k in call.keywords])
        body, flags = self._block(s.body, loop)
        flags -= {loop.break_flag, loop.continue_flag}
        if loop.used_continue:
            body.insert(0, ast.copy_location(_assign(loop.continue_flag, ast.Constant(value=False)), s))
        s.body = body or [ast.Pass()]
        exits = set(flags)
        if loop.used_break:
            exits.add(loop.break_flag)
        before = []
        if loop.used_break:
            before.append(ast.copy_location(_assign(loop.break_flag, ast.Constant(value=False)), s))
        if exits:
            if isinstance(s, ast.While):
                s.test = ast.BoolOp(op=ast.And(), values=[_not_any(exits), s.test])
            else:
                s.ag_extra_test = _not_any(exits)
        after = []
        if s.orelse:
            orelse, f = self._block(s.orelse, outer)
            flags |= f
            if exits:
                after.append(ast.copy_location(ast.If(test=_not_any(exits), body=orelse, orelse=[]), s.orelse[0]))
            else:
                after.extend(orelse)
            s.orelse = []
        return before + [s] + after, flags, False


def _is_append(call):
    return isinstance(call.func, ast.Attribute) and call.func.attr == "append" and \
        isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords and \
        not isinstance(call.args[0], ast.Starred)


def _is_loop_options(stmt):
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    func = stmt.value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return name == "set_loop_options" and not stmt.value.args


def _always_returns(stmts):
    """Whether a block cannot run off its end (it ends in a return or raise on every path)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _always_returns(last.body)
    return False
