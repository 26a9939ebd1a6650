"""Malformed graph structure: cycles without loop ops, inputs that name nothing, duplicate
names, unknown ops, missing or mistyped attrs, wrong input counts and dtypes, version checks;
function libraries that recurse or lie about their signatures; functional control flow
(While, If) and TensorFlow 1 frames (Enter/Merge/Switch/NextIteration/Exit) that are
malformed or never end (stopped by `graft run --timeout`); deep nesting."""

import pb
from catalogue import either, error, ok, value
from ops import const, op, T, identity, placeholder
from pb import FLOAT, INT32, BOOL, STRING, a_func, a_list, a_type

CAT = "structure"
CAT_FN = "functions"
CAT_CF = "control_flow"


def nested_attr(depth):
    """An AttrValue nested depth levels deep: func { attr { a: func { attr { ... } } } }."""
    nested = a_func("leaf")
    for _ in range(depth):
        nested = a_func("f", {"a": nested})
    return nested


def add_graph(c):
    x = const("x", [1.0, 2.0], FLOAT)

    def g(name, nodes, expect=None, **kw):
        c.graph(name, CAT, nodes, expect, **kw)
    g("cycle_two_nodes", [identity("cycle_two_nodes", "b"), identity("b", "cycle_two_nodes")])
    g("cycle_three_nodes_with_const", [x, op("cycle_three_nodes_with_const", "AddV2", ["x", "c"], T=T(FLOAT)),
                                       identity("b", "cycle_three_nodes_with_const"), identity("c", "b")])
    g("self_loop", [identity("self_loop", "self_loop")])
    g("input_names_missing_node", [identity("input_names_missing_node", "nosuch")],
      error("'input_names_missing_node'", "nosuch"))
    g("input_index_out_of_range", [x, identity("input_index_out_of_range", "x:7")])
    g("input_index_negative", [x, identity("input_index_negative", "x:-1")])
    g("input_index_not_a_number", [x, identity("input_index_not_a_number", "x:abc")])
    g("input_index_overflows", [x, identity("input_index_overflows", "x:99999999999999999999")])
    g("input_empty_string", [x, identity("input_empty_string", "")])
    g("input_only_caret", [x, op("input_only_caret", "Identity", ["x", "^"], T=T(FLOAT))])
    g("duplicate_node_names", [const("duplicate_node_names", 1.0, FLOAT), const("duplicate_node_names", 2.0, FLOAT)])
    g("control_input_to_itself", [op("control_input_to_itself", "Identity", ["x", "^control_input_to_itself"],
                                     T=T(FLOAT)), x])
    g("control_input_missing", [x, op("control_input_missing", "Identity", ["x", "^nosuch"], T=T(FLOAT))],
      error("'control_input_missing'", "nosuch"))
    g("data_input_after_control_input", [x, op("data_input_after_control_input", "Identity", ["^x", "x"],
                                               T=T(FLOAT))])
    g("unknown_op", [x, op("unknown_op", "NoSuchOpAnywhere", ["x"])], error("'unknown_op'", "NoSuchOpAnywhere"))
    g("empty_op_type", [x, op("empty_op_type", "", ["x"])])
    g("empty_node_name", [x, identity("", "x")], error(), fetch=":0")
    g("node_name_with_space", [x, identity("node name", "x")], error("node name"), fetch="node name")
    g("missing_required_attr", [x, op("missing_required_attr", "Cumsum", ["x", "x"])])
    g("attr_wrong_kind", [x, op("attr_wrong_kind", "Identity", ["x"], T=pb.a_i(3))])
    g("attr_list_where_scalar", [x, op("attr_list_where_scalar", "Identity", ["x"], T=a_list(types=[FLOAT]))])
    g("attr_type_not_allowed", [const("s", ["a"], STRING),
                                op("attr_type_not_allowed", "MatMul", ["s", "s"], T=T(STRING))])
    g("attr_dtype_invalid_enum", [x, op("attr_dtype_invalid_enum", "Identity", ["x"], T=a_type(250))])
    g("too_many_inputs", [x, op("too_many_inputs", "Identity", ["x", "x"], T=T(FLOAT))])
    g("too_few_inputs", [x, op("too_few_inputs", "AddV2", ["x"], T=T(FLOAT))])
    g("input_dtype_mismatch", [x, const("i", [1, 2]), op("input_dtype_mismatch", "AddV2", ["x", "i"], T=T(FLOAT))])
    g("unknown_attr", [x, op("unknown_attr", "Identity", ["x"], T=T(FLOAT), bogus=7)],
      note="TensorFlow 2.21's import_graph_def drops the unknown attr and runs")
    g("colocation_names_missing_node", [x, op("colocation_names_missing_node", "Identity", ["x"], T=T(FLOAT),
                                              _class=a_list(s=["loc:@nosuch"]))], either(),
      note="TensorFlow's importer refuses a colocation with a node that does not exist")
    g("output_shapes_too_few", [op("output_shapes_too_few", "Unpack", ["x"], T=T(FLOAT), num=2, axis=0,
                                   _output_shapes=a_list(shapes=[[]])), x], either(), fetch="output_shapes_too_few:1",
      note="TensorFlow's importer refuses _output_shapes with fewer entries than outputs")
    g("device_unknown_type", [x, pb.node("device_unknown_type", "Identity", ["x"], {"T": T(FLOAT)},
                                         device="/device:TPU:7")],
      ok({"device_unknown_type": value("f4", [2], [1.0, 2.0])}))
    g("device_garbage", [x, pb.node("device_garbage", "Identity", ["x"], {"T": T(FLOAT)},
                                    device="/job:::/replica:x/task:-1/device:")])
    g("producer_negative", [x, identity("producer_negative", "x")], error(), producer=-1)
    g("min_consumer_huge", [x, identity("min_consumer_huge", "x")], error(), min_consumer=10 ** 9)
    g("fetch_output_index_past_end", [x, identity("fetch_output_index_past_end", "x")],
      error("fetch_output_index_past_end"), fetch="fetch_output_index_past_end:3")
    g("target_is_a_tensor_of_a_failing_op", [
        const("i", [5]), op("gather", "GatherV2", ["x", "i", "axis"], Tparams=T(FLOAT), Tindices=T(INT32),
                            Taxis=T(INT32)),
        const("axis", 0), x, op("target_is_a_tensor_of_a_failing_op", "NoOp", ["^gather"])],
      error("'gather'"), fetch=[], extra=["--target", "target_is_a_tensor_of_a_failing_op"])

    odd = pb.function(b'odd "name"\\\n\x01\x7f\xff\xfe\xc3\xa9', [("a", FLOAT)], [("out", FLOAT)],
                      [identity("i", "a")], {"out": "i:output:0"})
    rel = c.write("graphs/inspect_json_odd_function_name.pb", pb.graph([x], [odd]))
    c.add("inspect_json_odd_function_name", CAT, ["inspect", "--json", rel],
          ok(stdout=['odd \\"name\\"'], stdout_json=True))

    addn = [placeholder("p", FLOAT), op("addn_10000_inputs", "AddN", ["p"] * 10000, T=T(FLOAT), N=10000)]
    g("addn_10000_inputs", addn, ok({"addn_10000_inputs": value("f4", [1], [10000.0])}), feeds=["p=[1.0]"])

    # An attr nested thousands of levels deep (func -> attr -> func ...): a parser that recurses
    # per level without a limit overflows the stack; TensorFlow's stops at 100 levels, as Graft's
    # check before protobuf-c's unpack does (the message names the field, not the node).
    for depth, label in ((3000, "3000"), (100000, "100k")):
        name = "attr_nested_%s_deep" % label
        g(name, [x, pb.node(name, "Identity", ["x"], {"T": T(FLOAT), "_deep": nested_attr(depth)})],
          error("nests messages more than 100 deep"))


def fn_call(name, f, inputs, tin, tout, op_type="PartitionedCall"):
    return op(name, op_type, inputs, Tin=a_list(types=tin), Tout=a_list(types=tout), f=a_func(f))


def add_functions(c):
    x = const("x", [1.0, 2.0], FLOAT)
    one_in, one_out = [("a", FLOAT)], [("out", FLOAT)]

    def calls(name, callee_name):
        """A function named name that calls callee_name via PartitionedCall."""
        return pb.function(name, one_in, one_out, [fn_call("call", callee_name, ["a"], [FLOAT], [FLOAT])],
                           {"out": "call:output:0"})

    def f(name, functions, expect=None, top=None, **kw):
        nodes = [x, top or fn_call(name, functions[0][0], ["x"], [FLOAT], [FLOAT])]
        c.graph(name, CAT_FN, nodes, expect, functions=[fd for _, fd in functions], **kw)

    f("function_calls_itself", [("self_f", calls("self_f", "self_f"))])
    f("functions_call_each_other", [("ping", calls("ping", "pong")), ("pong", calls("pong", "ping"))])
    f("function_calls_itself_by_op_name", [("rec", pb.function("rec", one_in, one_out,
                                                                [op("call", "rec", ["a"])], {"out": "call:out:0"}))])
    f("function_call_undefined", [], top=fn_call(
        "function_call_undefined", "nosuch_function", ["x"], [FLOAT], [FLOAT]))
    f("function_ret_names_missing_node", [("bad_ret", pb.function("bad_ret", one_in, one_out, [],
                                                                  {"out": "nosuch:output:0"}))])
    f("function_ret_missing", [("no_ret", pb.function("no_ret", one_in, one_out, [identity("i", "a")], {}))])
    f("function_body_cycle", [("cyc", pb.function("cyc", one_in, one_out,
                                                  [identity("p", "q:output:0"), identity("q", "p:output:0")],
                                                  {"out": "p:output:0"}))])
    f("function_wrong_arg_count", [("ident", pb.function("ident", one_in, one_out, [identity("i", "a")],
                                                         {"out": "i:output:0"}))],
      top=fn_call("function_wrong_arg_count", "ident", ["x", "x"], [FLOAT, FLOAT], [FLOAT]))
    f("function_tout_mismatch", [("ident2", pb.function("ident2", one_in, one_out, [identity("i", "a")],
                                                        {"out": "i:output:0"}))],
      top=fn_call("function_tout_mismatch", "ident2", ["x"], [FLOAT], [INT32, INT32]))
    f("function_duplicate_definitions", [
        ("twice", pb.function("twice", one_in, one_out, [identity("i", "a")], {"out": "i:output:0"})),
        ("twice", pb.function("twice", one_in, one_out, [op("i", "Neg", ["a"], T=T(FLOAT))],
                              {"out": "i:y:0"}))], error("'twice'"))
    f("function_named_like_an_op", [("Identity", pb.function("Identity", one_in, one_out,
                                                              [op("i", "Neg", ["a"], T=T(FLOAT))], {"out": "i:y:0"}))],
      either(), note="TensorFlow refuses a function named like an op; Graft's PartitionedCall calls the function "
                     "and an Identity node stays the op")
    f("function_body_unknown_op", [("body_unknown", pb.function("body_unknown", one_in, one_out,
                                                                [op("i", "NoSuchOpAnywhere", ["a"])],
                                                                {"out": "i:output:0"}))])
    f("function_ret_wrong_output_arg", [("bad_arg", pb.function("bad_arg", one_in, one_out, [identity("i", "a")],
                                                                {"out": "i:nosuch:0"}))])
    f("function_ret_index_out_of_range", [("bad_idx", pb.function("bad_idx", one_in, one_out, [identity("i", "a")],
                                                                  {"out": "i:output:5"}))])
    f("function_gathers_out_of_range", [("gath", pb.function("gath", one_in, one_out, [
        const("idx", [7]), const("axis", 0),
        op("g", "GatherV2", ["a", "idx:output:0", "axis:output:0"], Tparams=T(FLOAT), Tindices=T(INT32),
           Taxis=T(INT32))], {"out": "g:output:0"}))], error("'g'"))

    def chain(name, depth, expect, **kw):
        fns = [calls("%s_f%d" % (name, i), "%s_f%d" % (name, i + 1)) for i in range(depth - 1)]
        fns.append(pb.function("%s_f%d" % (name, depth - 1), one_in, one_out, [op("i", "Neg", ["a"], T=T(FLOAT))],
                               {"out": "i:y:0"}))
        c.graph(name, CAT_FN, [x, fn_call(name, name + "_f0", ["x"], [FLOAT], [FLOAT])], expect, functions=fns,
                **kw)
    chain("function_call_chain_60", 60, ok({"function_call_chain_60": value("f4", [2], [-1.0, -2.0])}))
    chain("function_call_chain_1000", 1000, error("'function_call_chain_1000'", "nested too deeply"),
          note="TensorFlow 2.21 runs it; Graft refuses calls nested more than 64 deep")


def add_control_flow(c):
    i0 = const("i0", 0)
    loop_vars = [("i", INT32)]

    def cond_lt(name, limit):
        return pb.function(name, loop_vars, [("c", BOOL)],
                           [const("lim", limit), op("lt", "Less", ["i", "lim:output:0"], T=T(INT32))],
                           {"c": "lt:z:0"})

    def body_add(name, step=1):
        return pb.function(name, loop_vars, [("o", INT32)],
                           [const("one", step), op("add", "AddV2", ["i", "one:output:0"], T=T(INT32))],
                           {"o": "add:z:0"})

    def while_(name, cond, body, functions, expect=None, types=(INT32,), inputs=("i0",), extra_nodes=(), **kw):
        nodes = [i0] + list(extra_nodes) + [
            op(name, "While", list(inputs), T=a_list(types=list(types)), cond=a_func(cond), body=a_func(body))]
        c.graph(name, CAT_CF, nodes, expect, functions=functions, **kw)

    while_("while_counts_to_ten", "lt10", "inc", [cond_lt("lt10", 10), body_add("inc")],
           ok({"while_counts_to_ten": value("i4", [], [10])}))
    while_("while_never_ends", "lt_max", "stay", [cond_lt("lt_max", 1), body_add("stay", 0)],
           error("'while_never_ends'", "deadline"), extra=["--timeout", "500"])
    while_("while_body_output_count_mismatch", "lt10b", "two_out", [
        cond_lt("lt10b", 10),
        pb.function("two_out", loop_vars, [("o", INT32), ("p", INT32)], [identity("id", "i", INT32)],
                    {"o": "id:output:0", "p": "id:output:0"})])
    while_("while_body_output_dtype_mismatch", "lt10c", "to_float", [
        cond_lt("lt10c", 10),
        pb.function("to_float", loop_vars, [("o", FLOAT)], [op("cast", "Cast", ["i"], SrcT=T(INT32), DstT=T(FLOAT))],
                    {"o": "cast:y:0"})])
    while_("while_cond_not_scalar", "vec_cond", "inc2", [
        pb.function("vec_cond", loop_vars, [("c", BOOL)], [const("v", [True, True], BOOL)], {"c": "v:output:0"}),
        body_add("inc2")])
    while_("while_cond_missing", "no_such_cond", "inc3", [body_add("inc3")])
    while_("while_cond_returns_two", "two_conds", "inc4", [
        pb.function("two_conds", loop_vars, [("c", BOOL), ("d", BOOL)], [const("t", True, BOOL)],
                    {"c": "t:output:0", "d": "t:output:0"}), body_add("inc4")])
    while_("while_t_mismatch_inputs", "lt10d", "inc5", [cond_lt("lt10d", 10), body_add("inc5")],
           types=(INT32, INT32))

    def if_(name, then_fn, else_fn, functions, expect=None, cond="p", tout=(FLOAT,), cond_type=BOOL, extra_nodes=(),
            **kw):
        nodes = [const("x", [1.0, 2.0], FLOAT)] + list(extra_nodes) + [
            op(name, "If", [cond, "x"], Tcond=T(cond_type), Tin=a_list(types=[FLOAT]), Tout=a_list(types=list(tout)),
               then_branch=a_func(then_fn), else_branch=a_func(else_fn))]
        c.graph(name, CAT_CF, nodes, expect, functions=functions, **kw)
    neg = pb.function("neg", [("a", FLOAT)], [("out", FLOAT)], [op("n", "Neg", ["a"], T=T(FLOAT))], {"out": "n:y:0"})
    two = pb.function("two", [("a", FLOAT)], [("o1", FLOAT), ("o2", FLOAT)], [identity("i", "a")],
                      {"o1": "i:output:0", "o2": "i:output:0"})
    p_true = const("p", True, BOOL)
    if_("if_branch_output_count_mismatch", "neg", "two", [neg, two], extra_nodes=[p_true],
        note="TensorFlow 2.21 checks only the branch it takes")
    if_("if_branch_missing", "neg", "nosuch_branch", [neg], extra_nodes=[p_true])
    ident = pb.function("ident", [("a", FLOAT)], [("out", FLOAT)], [identity("i", "a")], {"out": "i:output:0"})
    if_("if_cond_empty_string_is_false", "neg", "ident", [neg, ident], cond_type=STRING,
        extra_nodes=[const("p", "", STRING)],
        expect=ok({"if_cond_empty_string_is_false": value("f4", [2], [1.0, 2.0])}))
    if_("if_cond_vector", "neg", "neg", [neg], extra_nodes=[const("p", [True, False], BOOL)],  # non-empty: true
        expect=ok({"if_cond_vector": value("f4", [2], [-1.0, -2.0])}))

    # TensorFlow 1 frames.
    def v1(name, nodes, expect=None, **kw):
        c.graph(name, CAT_CF, nodes, expect, **kw)

    def loop(limit_node, step, prefix=""):
        """A well-formed TF1 while loop: i = 0; while i < limit: i += step."""
        return [const("zero", 0), limit_node, const("step", step),
                op("enter", "Enter", ["zero"], T=T(INT32), frame_name="loop", is_constant=False,
                   parallel_iterations=10),
                op("merge", "Merge", ["enter", "next"], T=T(INT32), N=2),
                op("enter_lim", "Enter", ["limit"], T=T(INT32), frame_name="loop", is_constant=True,
                   parallel_iterations=10),
                op("less", "Less", ["merge", "enter_lim"], T=T(INT32)),
                op("cond", "LoopCond", ["less"]),
                op("switch", "Switch", ["merge", "cond"], T=T(INT32)),
                op("enter_step", "Enter", ["step"], T=T(INT32), frame_name="loop", is_constant=True,
                   parallel_iterations=10),
                op("add", "AddV2", ["switch:1", "enter_step"], T=T(INT32)),
                op("next", "NextIteration", ["add"], T=T(INT32)),
                op(prefix + "exit", "Exit", ["switch:0"], T=T(INT32))]
    v1("tf1_loop_counts_to_ten", loop(const("limit", 10), 1, "tf1_loop_counts_to_ten_"),
       ok({"tf1_loop_counts_to_ten_exit": value("i4", [], [10])}), fetch="tf1_loop_counts_to_ten_exit")
    v1("tf1_loop_never_ends", loop(const("limit", 1), 0, "tf1_loop_never_ends_"),
       error("deadline"), fetch="tf1_loop_never_ends_exit", extra=["--timeout", "500"])
    v1("tf1_next_iteration_without_merge", [
        const("zero", 0), op("tf1_next_iteration_without_merge", "NextIteration", ["zero"], T=T(INT32)),
        identity("after", "tf1_next_iteration_without_merge", INT32)], fetch="after",
       note="TensorFlow 2.21 passes the value through")
    v1("tf1_merge_loop_without_enter", [
        const("zero", 0), op("tf1_merge_loop_without_enter", "Merge", ["zero", "next"], T=T(INT32), N=2),
        op("next", "NextIteration", ["tf1_merge_loop_without_enter"], T=T(INT32))],
       error("'next'"), extra=["--timeout", "500"])
    v1("tf1_exit_without_enter", [const("zero", 0), op("tf1_exit_without_enter", "Exit", ["zero"], T=T(INT32))])
    v1("tf1_enter_without_frame_name", [
        const("zero", 0), op("e", "Enter", ["zero"], T=T(INT32), frame_name="", is_constant=False,
                             parallel_iterations=10),
        op("tf1_enter_without_frame_name", "Exit", ["e"], T=T(INT32))], error("'e'", "frame_name"))
    v1("tf1_switch_pred_not_scalar", [
        const("zero", 0), const("pred", [True, False], BOOL),
        op("tf1_switch_pred_not_scalar", "Switch", ["zero", "pred"], T=T(INT32))])
    v1("tf1_enter_parallel_iterations_zero", [
        const("zero", 0), op("tf1_enter_parallel_iterations_zero", "Enter", ["zero"], T=T(INT32), frame_name="f",
                             is_constant=False, parallel_iterations=0),
        op("ex", "Exit", ["tf1_enter_parallel_iterations_zero"], T=T(INT32))], ok({"ex": value("i4", [], [0])}),
       fetch="ex")
    v1("tf1_two_frames_one_merge", [
        const("zero", 0),
        op("e1", "Enter", ["zero"], T=T(INT32), frame_name="f1", is_constant=False, parallel_iterations=1),
        op("e2", "Enter", ["zero"], T=T(INT32), frame_name="f2", is_constant=False, parallel_iterations=1),
        op("tf1_two_frames_one_merge", "Merge", ["e1", "e2"], T=T(INT32), N=2),
        op("ex", "Exit", ["tf1_two_frames_one_merge"], T=T(INT32))], fetch="ex")


def add(c):
    add_graph(c)
    add_functions(c)
    add_control_flow(c)
