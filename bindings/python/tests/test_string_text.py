"""graft.strings.lower/upper/as_string/ngrams (issue #17): the text ops of Keras'
TextVectorization and Hashing layers. Expected values are TensorFlow 2.21's on the same inputs."""
import numpy as np
import pytest

import graft


def _bytes(t):
    return [bytes(x) for x in np.asarray(t.numpy()).ravel()]


def test_lower_upper_ascii_and_utf8():
    x = np.array(["Hello WORLD \u00c0\u00c9", "\u0391\u039f\u0394\u039f\u03a3 \u03a3A", "\u0130 \u1e9e"], dtype=object)
    assert _bytes(graft.strings.lower(x)) == [b"hello world \xc3\x80\xc3\x89",
                                               "\u0391\u039f\u0394\u039f\u03a3 \u03a3a".encode(), "\u0130 \u1e9e".encode()]
    assert _bytes(graft.strings.lower(x, encoding="utf-8")) == [
        "hello world \u00e0\u00e9".encode(), "\u03b1\u03bf\u03b4\u03bf\u03c2 \u03c3a".encode(), "i\u0307 \u00df".encode()]
    y = np.array(["stra\u00dfe \ufb01", "\u00e0b\u00ff"], dtype=object)
    assert _bytes(graft.strings.upper(y, encoding="utf-8")) == ["STRASSE FI".encode(), "\u00c0B\u0178".encode()]
    assert _bytes(graft.strings.upper(y)) == ["STRA\u00dfE \ufb01".encode(), "\u00e0B\u00ff".encode()]
    assert _bytes(graft.strings.lower(np.array([b"\xc3(A\xff"], dtype=object), encoding="utf-8")) == [
        b"\xef\xbf\xbd(a\xef\xbf\xbd"]
    with pytest.raises(graft.errors.InvalidArgumentError, match="only utf-8 or '' \\(no encoding\\)"):
        graft.strings.lower(x, encoding="UTF-8")


def test_as_string():
    f = np.array([1.5, -2.25, 1e10], np.float32)
    assert _bytes(graft.strings.as_string(f)) == [b"1.500000", b"-2.250000", b"10000000000.000000"]
    assert _bytes(graft.strings.as_string(f, precision=2, width=10)) == [b"      1.50", b"     -2.25",
                                                                          b"10000000000.00"]
    assert _bytes(graft.strings.as_string(f, shortest=True)) == [b"1.5", b"-2.25", b"1e+10"]
    assert _bytes(graft.strings.as_string(f[:2], scientific=True)) == [b"1.500000e+00", b"-2.250000e+00"]
    assert _bytes(graft.strings.as_string(np.array([1, -2, 300], np.int64), width=5, fill="0")) == [
        b"00001", b"-0002", b"00300"]
    assert _bytes(graft.strings.as_string(np.array([True, False]))) == [b"true", b"false"]
    assert _bytes(graft.strings.as_string(np.array([1.5, 0.1], np.float16))) == [b"1.500000", b"0.099976"]
    s = graft.strings.as_string(np.array([[1, 2]], np.int32))
    assert s.shape.as_list() == [1, 2]
    with pytest.raises(graft.errors.InvalidArgumentError, match="precision not supported for datatype int32"):
        graft.strings.as_string(np.array([1], np.int32), precision=2)
    with pytest.raises(graft.errors.InvalidArgumentError, match="Fill argument not supported"):
        graft.strings.as_string(f, fill="x", width=4)


def test_ngrams_dense():
    x = np.array([["a", "b", "c"], ["d", "e", "f"]], dtype=object)
    out = graft.strings.ngrams(x, [1, 2])
    assert out.shape.as_list() == [2, 5]
    assert [[bytes(v) for v in row] for row in out.numpy()] == [
        [b"a", b"b", b"c", b"a b", b"b c"], [b"d", b"e", b"f", b"d e", b"e f"]]
    assert _bytes(graft.strings.ngrams(np.array(["a", "b", "c"], dtype=object), 3, separator="|",
                                       pad_values=("L", "R"))) == [b"L|L|a", b"L|a|b", b"a|b|c", b"b|c|R", b"c|R|R"]
    assert _bytes(graft.strings.ngrams(np.array(["a", "b"], dtype=object), 3, preserve_short_sequences=True)) == [
        b"a b"]

    @graft.function
    def f(t):
        return graft.strings.ngrams(t, 2, separator="_")

    assert _bytes(f(np.array([["x", "y", "z"]], dtype=object))) == [b"x_y", b"y_z"]

    @graft.function(input_signature=[graft.TensorSpec([None, None], graft.string)])
    def g(t):  # shape known at run time only
        return graft.strings.ngrams(t, 2, separator="_")

    out = g(np.array([["x", "y", "z"], ["a", "b", "c"]], dtype=object))
    assert [[bytes(v) for v in row] for row in out.numpy()] == [[b"x_y", b"y_z"], [b"a_b", b"b_c"]]
