"""Gradients (`graft run --grad-y Y --grad-x X`) of malicious graphs: the symbolic gradient
builder walks the same bad indices, endless loops and recursive functions as the forward
run, plus gradients fed with the wrong shape and xs that do not exist or cannot have one."""

import pb
from catalogue import error, ok
from ops import const, op, T, placeholder
from pb import FLOAT, INT32, BOOL, a_func, a_list

CAT = "gradients"


def add(c):
    x = placeholder("x", FLOAT)
    axis = const("axis", 0)

    def grad(name, nodes, grad_args, expect, functions=(), feeds=("x=[1.0, 2.0]",), **kw):
        rel = c.write("graphs/%s.pb" % name, pb.graph(nodes, functions))
        args = ["run", rel] + [a for f in feeds for a in ("--feed", f)] + list(grad_args)
        c.add(name, CAT, args, expect, **kw)

    def gather(indices):
        return [x, axis, const("i", indices),
                op("g", "GatherV2", ["x", "i", "axis"], Tparams=T(FLOAT), Tindices=T(INT32), Taxis=T(INT32))]

    grad("grad_through_gather_out_of_range", gather([5]) + [op("y", "Sum", ["g", "axis"], T=T(FLOAT),
                                                               Tidx=T(INT32))],
         ["--grad-y", "y", "--grad-x", "x"], error("'g'"))
    grad("grad_y_of_the_wrong_shape", gather([1]), ["--grad-y", "g=[1.0, 2.0, 3.0]", "--grad-x", "x"],
         error("g_grad"))
    grad("grad_x_missing", gather([1]), ["--grad-y", "g", "--grad-x", "nosuch"], error("nosuch"))
    grad("grad_x_integer_has_none", gather([1]), ["--grad-y", "g", "--grad-x", "i"], ok(stdout=["d/di = None"]))
    grad("grad_through_stop_gradient_is_none", [x, op("y", "StopGradient", ["x"], T=T(FLOAT))],
         ["--grad-y", "y", "--grad-x", "x"], ok(stdout=["d/dx = None"]))
    grad("grad_of_huge_broadcast", [x, const("s", [10 ** 12, 2], pb.INT64),
                                    op("b", "BroadcastTo", ["x", "s"], T=T(FLOAT), Tidx=T(pb.INT64))],
         ["--grad-y", "b", "--grad-x", "x"], error("'b'"))
    grad("grad_of_split_num_zero", [x, axis, op("s", "Split", ["axis", "x"], T=T(FLOAT), num_split=0)],
         ["--grad-y", "s", "--grad-x", "x"], error("'s'"))

    # A While over a float that never ends: the forward run needs the deadline.
    loop = [("v", FLOAT)]
    cond = pb.function("forever", loop, [("c", BOOL)], [const("t", True, BOOL)], {"c": "t:output:0"})
    body = pb.function("same", loop, [("o", FLOAT)], [op("n", "Identity", ["v"], T=T(FLOAT))],
                       {"o": "n:output:0"})
    grad("grad_through_endless_while", [x, op("w", "While", ["x"], T=a_list(types=[FLOAT]), cond=a_func("forever"),
                                              body=a_func("same"))],
         ["--grad-y", "w", "--grad-x", "x", "--timeout", "500"], error("deadline"), functions=[cond, body])

    def calls(name, callee):
        return pb.function(name, [("a", FLOAT)], [("out", FLOAT)], [call("call", callee, "a")],
                           {"out": "call:output:0"})

    def call(name, f, arg):
        return op(name, "PartitionedCall", [arg], Tin=a_list(types=[FLOAT]), Tout=a_list(types=[FLOAT]), f=a_func(f))

    # The forward run refuses these cleanly (recursion; calls nested more than 64 deep).
    grad("grad_through_recursive_function", [x, call("y", "rec", "x")], ["--grad-y", "y", "--grad-x", "x"],
         error("rec"), functions=[calls("rec", "rec")])
    grad("grad_through_mutually_recursive_functions", [x, call("y", "ping", "x")],
         ["--grad-y", "y", "--grad-x", "x"], error("ping"),
         functions=[calls("ping", "pong"), calls("pong", "ping")])
    depth = 5000
    chain = [calls("f%d" % i, "f%d" % (i + 1)) for i in range(depth - 1)]
    chain.append(pb.function("f%d" % (depth - 1), [("a", FLOAT)], [("out", FLOAT)],
                             [op("i", "Neg", ["a"], T=T(FLOAT))], {"out": "i:y:0"}))
    grad("grad_through_call_chain_5000", [x, call("y", "f0", "x")], ["--grad-y", "y", "--grad-x", "x"],
         error("nested too deeply"), functions=chain)
    # Recursion through If branches and a While body: the forward run says "calls itself".
    def if_node(name, cond, arg, branch):
        return op(name, "If", [cond, arg], Tcond=T(BOOL), Tin=a_list(types=[FLOAT]), Tout=a_list(types=[FLOAT]),
                  then_branch=a_func(branch), else_branch=a_func(branch))
    rif = pb.function("rif", [("a", FLOAT)], [("out", FLOAT)],
                      [const("t", True, BOOL), if_node("i", "t:output:0", "a", "rif")], {"out": "i:output:0"})
    wcond = pb.function("wcond", loop, [("c", BOOL)], [const("t", True, BOOL)], {"c": "t:output:0"})
    wbody = pb.function("wbody", loop, [("o", FLOAT)], [
        op("w", "While", ["v"], T=a_list(types=[FLOAT]), cond=a_func("wcond"), body=a_func("wbody"))],
        {"o": "w:output:0"})
    recursive = {
        "if": ([x, const("p", True, BOOL), if_node("y", "p", "x", "rif")], [rif], "rif"),
        "while_body": ([x, op("y", "While", ["x"], T=a_list(types=[FLOAT]), cond=a_func("wcond"),
                              body=a_func("wbody"))], [wcond, wbody], "wbody"),
    }
    for kind, (nodes, fns, fname) in sorted(recursive.items()):
        grad("recursive_%s_forward" % kind, nodes, ["--fetch", "y"], error(fname, "calls itself"), functions=fns)
        grad("grad_through_recursive_%s" % kind, nodes, ["--grad-y", "y", "--grad-x", "x"], error(fname),
             functions=fns)
    grad("call_chain_5000_forward", [x, call("y", "f0", "x")], ["--fetch", "y"], error("nested too deeply"),
         functions=chain)
