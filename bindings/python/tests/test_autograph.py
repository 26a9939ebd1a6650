"""AutoGraph (graft.autograph, graft.function(autograph=True)): Python control flow on tensors
becomes graph control flow. Each converted function is checked against the same Python function
run eagerly (plain Python on eager tensors) on the same inputs, and the traced graph is checked
for the If/While ops that stand for the converted statements."""
import os
import sys
import tempfile
import warnings

import numpy as np
import pytest

import graft
from graft import autograph


def _value(x):
    if isinstance(x, (list, tuple)):
        return [_value(v) for v in x]
    if isinstance(x, graft.TensorArray):
        return x.stack().numpy()
    return x.numpy() if hasattr(x, "numpy") else x


def check(fn, *args, input_signature=None):
    """graft.function(fn)(*args) equals fn(*args) run eagerly; returns the traced function."""
    tensors = [graft.constant(a) if isinstance(a, (list, np.ndarray, int, float)) and not isinstance(a, bool)
               else a for a in args]
    expected = _value(fn(*tensors))
    traced = graft.function(fn, input_signature=input_signature)
    got = _value(traced(*tensors))
    if not isinstance(expected, list):
        got, expected = [got], [expected]
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    return traced


def op_types(traced, *args):
    """The op types of the traced graph and of the functions it calls (If/While bodies)."""
    cf = traced.get_concrete_function(*[graft.constant(a) if not isinstance(a, graft.Tensor) else a for a in args])
    found = set()
    todo = [cf.graph]
    seen = set()
    while todo:
        g = todo.pop()
        for op in g.get_operations():
            found.add(op.type)
    data = cf.function_def
    for name in (b"StatelessIf", b"StatelessWhile", b"While", b"If"):
        if name in data:
            found.add(name.decode())
    del seen
    return found


# ---- if ---------------------------------------------------------------------------------------

def test_if_elif_else_on_tensors():
    def f(x):
        if x > 10:
            y = x * 2
        elif x > 0:
            y = x + 100
        else:
            y = -x
        return y
    for v in (20, 5, -3):
        traced = check(f, v)
    assert {"StatelessIf"} & op_types(traced, 1) or "If" in op_types(traced, 1)


def test_if_on_python_value_stays_python():
    def f(x, flag):
        if flag:
            x = x + 1
        else:
            x = x - 1
        return x
    traced = graft.function(f)
    assert traced(graft.constant(1), True).numpy() == 2
    assert traced(graft.constant(1), False).numpy() == 0
    types = op_types(traced, 1, True) if False else set(
        op.type for op in traced.get_concrete_function(graft.constant(1), True).graph.get_operations())
    assert not types & {"If", "StatelessIf"}


def test_variable_set_in_one_branch_only_is_an_error_naming_it():
    def f(x):
        if x > 0:
            y = x
        return y
    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        graft.function(f)(graft.constant(1))

    def g(x):
        if x > 0:
            pass
        else:
            z = x
        return z
    with pytest.raises(ValueError, match="'z' must also be initialized in the if branch"):
        graft.function(g)(graft.constant(1))


def test_branch_local_temporaries_and_python_objects():
    def f(x):
        scale = 3
        if x > 0:
            tmp = x * scale   # used only inside the branch
            x = tmp + 1
        else:
            x = x - scale
        return x
    check(f, 4)
    check(f, -4)


def test_nested_ifs_and_return_in_branches():
    def f(x, y):
        if x > 0:
            if y > 0:
                return x + y
            return x - y
        elif y > 0:
            return y
        return x * y
    for a, b in ((1, 2), (1, -2), (-1, 2), (-1, -2)):
        check(f, a, b)


def test_conditional_expression():
    def f(x):
        return x * 2 if x > 0 else x - 1
    check(f, 3)
    check(f, -3)


def test_return_on_one_path_only_is_an_error():
    def f(x):
        if x > 0:
            return x
    with pytest.raises(ValueError, match="return value"):
        graft.function(f)(graft.constant(1))


# ---- while ------------------------------------------------------------------------------------

def test_while_on_tensor_finds_loop_variables():
    def f(n):
        i = 0
        total = 0
        unused_after = 5
        while i < n:
            sq = i * i          # body-local temporary, not a loop variable
            total += sq
            i += 1
        del unused_after
        return total, i
    traced = check(f, 7)
    assert {"StatelessWhile", "While"} & op_types(traced, 7)


def test_while_with_break_continue():
    def f(n):
        i = 0
        s = 0
        while i < n:
            i += 1
            if i % 3 == 0:
                continue
            if s > 20:
                break
            s += i
        return s, i
    check(f, 30)
    check(f, 4)


def test_while_condition_becomes_a_tensor_mid_loop():
    def f(x):
        i = 0
        while i < 3:          # a Python condition...
            i = i + x         # ...until i becomes a tensor
        return i
    check(f, 1)


def test_return_inside_loop():
    def f(x):
        i = 0
        while i < 100:
            if i * i > x:
                return i
            i += 1
        return -1
    check(f, 50)
    check(f, 20000)


# ---- for --------------------------------------------------------------------------------------

def test_for_over_tensor_rows():
    def f(m):
        total = graft.zeros([3])
        for row in m:
            total = total + row * 2
        return total
    traced = check(f, np.arange(12, dtype=np.float32).reshape(4, 3))
    assert {"StatelessWhile", "While"} & op_types(traced, np.ones((2, 3), np.float32))


def test_for_over_graft_range_and_range_of_tensor():
    def f(n):
        s = 0
        for i in graft.range(n):
            s += i
        for j in range(n):
            s += 2 * j
        for k in graft.range(1, n, 2):
            s += k
        return s
    check(f, 9)


def test_for_over_python_iterables_is_unrolled():
    def f(x):
        for k in [1, 2, 3]:
            x = x * k
        for k in range(2):
            x = x + k
        return x
    traced = check(f, 2.0)
    types = set(op.type for op in traced.get_concrete_function(graft.constant(2.0)).graph.get_operations())
    assert not types & {"While", "StatelessWhile"}


def test_break_continue_return_in_for_and_nested_loops():
    def f(m):
        count = 0
        for row in m:
            for v in row:
                if v < 0:
                    break
                if v % 2 == 0:
                    continue
                count += v
            if count > 30:
                return count * 100
        return count
    check(f, np.array([[1, 2, 3], [5, -1, 7], [9, 11, 2]], np.int32))
    check(f, np.array([[1, 2, 3], [5, 1, 7]], np.int32))


def test_break_under_tensor_condition_in_unrolled_loop():
    def f(x):
        s = 0.0
        for k in [1.0, 2.0, 3.0, 4.0]:
            if s > x:
                break
            s = s + k
        return s
    check(f, 2.5)
    check(f, 100.0)


def test_for_else_and_while_else():
    def f(x):
        found = -1
        for i in graft.range(5):
            if i == x:
                found = i
                break
        else:
            found = 99
        return found
    check(f, 3)
    check(f, 7)


def test_loop_variable_defined_only_in_loop_is_an_error():
    def f(n):
        for i in graft.range(n):
            y = i * 2
        return y
    with pytest.raises(ValueError, match="'y' must be defined before the loop"):
        graft.function(f)(graft.constant(3))


# ---- TensorArrays and lists ------------------------------------------------------------------

def test_tensor_array_grown_in_loop():
    def f(x):
        ta = graft.TensorArray(graft.int32, size=0, dynamic_size=True)
        for i in graft.range(graft.shape(x)[0]):
            ta = ta.write(i, x[i] * 10)
        return ta.stack()
    check(f, [1, 2, 3])


def test_python_list_becomes_tensor_array():
    def f(x):
        out = []
        autograph.experimental.set_element_type(out, graft.float32)
        for v in x:
            out.append(v * v)
        return graft.stack(out)

    def g(x):
        out = []
        for v in x:
            out.append(v + 1.0)
        return autograph.experimental.stack(out)
    check(f, [1.0, 2.0, 3.0])
    check(g, [1.0, 2.0, 3.0])


def test_list_of_python_loop_stays_a_list():
    def f(x):
        parts = []
        for k in range(3):
            parts.append(x * k)
        return graft.stack(parts)
    check(f, 2.0)


# ---- Operators --------------------------------------------------------------------------------

def test_and_or_not_on_tensors():
    def f(x, y):
        a = (x > 0) and (y > 0)
        b = (x > 0) or (y > 0)
        c = not (x > y)
        if a or not b:
            r = 1
        else:
            r = 2
        return graft.cast(a, graft.int32) * 100 + graft.cast(b, graft.int32) * 10 + graft.cast(c, graft.int32) + r
    for a, b in ((1, 2), (-1, 2), (-1, -2), (3, -1)):
        check(f, a, b)


def test_and_is_lazy_on_tensors():
    def f(x, target):
        i = 0
        n = graft.shape(x)[0]
        while i < n and x[i] != target:   # x[i] must not run when i == n
            i += 1
        return i
    check(f, [4, 5, 6], 5)
    check(f, [4, 5, 6], 9)


def test_print_in_tensor_control_flow_becomes_graft_print(capfd):
    @graft.function
    def f(x):
        print("traced with", type(x).__name__)   # top level: Python's print, at trace time
        for v in x:
            print("value:", v)                   # in a loop on a tensor: graft.print, every call
        return x + 1
    f(graft.constant([41, 42]))
    f(graft.constant([7, 8]))
    out = capfd.readouterr()
    text = out.out + out.err
    assert text.count("traced with Tensor") == 1
    assert [line for line in text.splitlines() if line.startswith("value")] == [
        "value: 41", "value: 42", "value: 7", "value: 8"]


def test_assert_on_tensor_is_an_assert_op():
    @graft.function
    def f(x):
        assert x > 0, "x must be positive"
        return x * 2
    assert f(graft.constant(3)).numpy() == 6
    with pytest.raises(graft.errors.InvalidArgumentError, match="x must be positive"):
        f(graft.constant(-3))


def test_len_of_tensor_is_dynamic():
    def f(x):
        return len(x) * 2
    traced = graft.function(f, input_signature=[graft.TensorSpec([None], graft.float32)])
    assert traced(graft.constant([1.0, 2.0, 3.0])).numpy() == 6
    assert traced(graft.constant([1.0])).numpy() == 2


# ---- Calls ------------------------------------------------------------------------------------

def helper_clip(x):
    if x > 10:
        return graft.constant(10)
    return x


def test_user_functions_are_converted_recursively():
    def f(x):
        return helper_clip(x) + helper_clip(x * 3)
    check(f, 2)
    check(f, 5)


def test_do_not_convert():
    @autograph.experimental.do_not_convert
    def raw(x):
        if x > 0:
            return x
        return -x

    @graft.function
    def f(x):
        return raw(x)
    with pytest.raises(graft.OperatorNotAllowedInGraphError):
        f(graft.constant(1))


def test_autograph_false_traces_the_original():
    def f(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(graft.OperatorNotAllowedInGraphError):
        graft.function(f, autograph=False)(graft.constant(1))
    assert graft.function(f)(graft.constant(-2)).numpy() == 2


def test_to_code_and_to_graph():
    def f(x):
        while x > 1:
            x = x // 2
        return x
    code = autograph.to_code(f)
    assert "while_stmt" in code and "def f(x)" in code
    g = autograph.to_graph(f)
    assert g(7) == 1                      # Python values: Python semantics
    assert g(graft.constant(9)).numpy() == 1
    assert autograph.to_graph(f) is g      # cached per function


def test_methods_and_super():
    class Base:
        def scale(self, x):
            return x * 2

    class Model(Base):
        def __init__(self):
            self.bias = graft.constant(1)

        @graft.function
        def __call__(self, x):
            if x > 0:
                y = super().scale(x)
            else:
                y = x
            return y + self.bias
    m = Model()
    assert m(graft.constant(3)).numpy() == 7
    assert m(graft.constant(-3)).numpy() == -2


def test_closures_and_globals_are_shared():
    factor = graft.constant(3)

    def f(x):
        while x < 50:
            x = x * factor
        return x
    check(f, 2)


# ---- Shape invariants ------------------------------------------------------------------------

def test_loop_variable_changing_shape_needs_shape_invariants():
    def bad(n):
        x = graft.constant(0.0)
        for _ in graft.range(n):
            x = graft.zeros([3])
        return x
    with pytest.raises(ValueError, match="shape_invariants"):
        graft.function(bad)(graft.constant(2))

    def good(n):
        x = graft.constant([1.0])
        for _ in graft.range(n):
            autograph.experimental.set_loop_options(shape_invariants=[(x, graft.TensorShape([None]))])
            x = graft.concat([x, x], 0)
        return x
    assert graft.function(good)(graft.constant(3)).numpy().shape == (8,)


def test_maximum_iterations():
    def f(n):
        i = 0
        while i < n:
            autograph.experimental.set_loop_options(maximum_iterations=4)
            i += 1
        return i
    assert graft.function(f)(graft.constant(100)).numpy() == 4


# ---- Errors and unconvertible functions ---------------------------------------------------

def test_errors_point_at_the_user_line():
    def f(x):
        if x > 0:
            y = x + graft.constant("oops")   # the failing line
        else:
            y = x
        return y
    with pytest.raises(Exception) as info:
        graft.function(f)(graft.constant(1))
    frames = [(fr.filename, fr.lineno) for fr in __import__("traceback").extract_tb(info.value.__traceback__)]
    expected_line = f.__code__.co_firstlineno + 2
    assert (__file__, expected_line) in frames


def test_function_without_source_runs_unconverted_with_a_warning():
    namespace = {"graft": graft}
    exec("def no_source(x):\n    return x * 2\n", namespace)  # noqa: S102 - a function without a file
    with pytest.warns(UserWarning, match="could not convert"):
        out = graft.function(namespace["no_source"])(graft.constant(4))
    assert out.numpy() == 8


def test_conversion_is_cached_per_function():
    def f(x):
        if x > 0:
            x = x + 1
        return x
    first = autograph.to_graph(f)
    from graft.autograph import conversion
    assert conversion.convert(f) is first
    traced = graft.function(f)
    traced(graft.constant(1))
    traced(graft.constant(2.0))
    assert traced._converted is first


# ---- The AutoGraph guide's patterns ------------------------------------------------------

def test_guide_fizzbuzz():
    def fizzbuzz(n):
        codes = graft.TensorArray(graft.int32, size=0, dynamic_size=True)
        for i in graft.range(1, n + 1):
            if i % 15 == 0:
                code = -15
            elif i % 3 == 0:
                code = -3
            elif i % 5 == 0:
                code = -5
            else:
                code = i
            codes = codes.write(i - 1, code)
        return codes.stack()
    check(fizzbuzz, 16)


def test_guide_dynamic_rnn():
    rng = np.random.default_rng(0)
    w = graft.constant(rng.normal(size=(4, 5)).astype(np.float32))
    u = graft.constant(rng.normal(size=(5, 5)).astype(np.float32) * 0.5)

    def rnn(inputs, state):
        outputs = graft.TensorArray(graft.float32, size=0, dynamic_size=True)
        for t in graft.range(graft.shape(inputs)[0]):
            state = graft.tanh(graft.matmul(inputs[t], w) + graft.matmul(state, u))
            outputs = outputs.write(t, state)
        return outputs.stack(), state
    inputs = rng.normal(size=(6, 2, 4)).astype(np.float32)
    check(rnn, inputs, np.zeros((2, 5), np.float32))


def test_guide_while_with_break_search():
    def find(x, target):
        i = 0
        found = -1
        while i < graft.size(x):
            if x[i] == target:
                found = i
                break
            i += 1
        return found
    check(find, [3, 8, 5, 8], 8)
    check(find, [3, 8, 5, 8], 4)


def test_guide_collatz_steps_per_element():
    def collatz(x):
        steps = []
        autograph.experimental.set_element_type(steps, graft.int32)
        for n in x:
            count = 0
            while n > 1:
                if n % 2 == 0:
                    n = n // 2
                else:
                    n = 3 * n + 1
                count += 1
            steps.append(count)
        return graft.stack(steps)
    check(collatz, [1, 6, 7, 27])


# ---- SavedModel: the saved graph has If/While ops and gives Python's values ----------

def test_saved_model_with_converted_control_flow(tmp_path):
    @graft.function
    def model(x):
        total = graft.zeros([])
        for v in x:
            if v > 0:
                total += v
            else:
                total -= v * 2
        return total
    v1 = graft.compat.v1
    g = graft.Graph()
    with g.as_default():
        x = v1.placeholder(graft.float32, [None], name="x")
        y = model(x)
        with v1.Session(graph=g) as sess:
            graft.saved_model.save_session(sess, str(tmp_path / "m"), {"serving_default": ({"x": x}, {"y": y})})
    data = (tmp_path / "m" / "saved_model.pb").read_bytes()
    assert b"While" in data and b"If" in data and b"PyFunc" not in data
    loaded = graft.saved_model.load(str(tmp_path / "m"))
    for values in ([1.0, -2.0, 3.0], [-1.0], []):
        got = loaded.signatures["serving_default"](x=graft.constant(np.array(values, np.float32)))["y"].numpy()
        assert got == pytest.approx(float(model.python_function(graft.constant(np.array(values, np.float32)))))


def enumerate_and_zip(x, y):
    s = graft.constant(0.0)
    for i, v in enumerate(x):
        s += graft.cast(i, graft.float32) * v
    for i, v in enumerate(x, 10):
        s += graft.cast(i, graft.float32)
    for a, b in zip(x, y):  # zip stops at the shorter
        s += a * b
        if a > 1.5:
            break
    return s


def test_enumerate_and_zip_over_tensors():
    fn = check(enumerate_and_zip, graft.constant([1.0, 2.0, 3.0]), graft.constant([10.0, 20.0]))
    ops = {op.type for op in fn.get_concrete_function(graft.constant([1.0, 2.0, 3.0]),
                                                      graft.constant([10.0, 20.0])).graph.get_operations()}
    assert ops & {"While", "StatelessWhile"}
    check(enumerate_and_zip, graft.constant([0.5]), graft.constant([4.0, 5.0, 6.0]))


def test_zip_of_a_tensor_and_a_python_list_is_an_error():
    @graft.function
    def f(x):
        s = graft.constant(0.0)
        for a, b in zip(x, [1.0, 2.0]):
            s += a * b
        return s

    with pytest.raises(ValueError, match="zip\\(\\) in a loop on tensors"):
        f(graft.constant([1.0, 2.0]))
