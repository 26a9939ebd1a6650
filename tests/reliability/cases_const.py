"""Malformed constants and placeholders: tensor_content of the wrong length, dtypes that do
not exist or do not match, negative or overflowing shapes, splats that expand to gigabytes,
attrs of the wrong kind. The importer must refuse them with an error naming the node."""

import pb
from catalogue import error, ok, value
from ops import op, raw_const, T
from pb import FLOAT, INT32, STRING, a_tensor, a_type, a_i, a_shape

CAT = "const"


def add(c):
    def bad(name, tensor_proto, dtype=FLOAT, expect=None, **kw):
        c.graph(name, CAT, [raw_const(name, tensor_proto, dtype)], expect, **kw)

    bad("const_content_too_short", pb.tensor(FLOAT, [2], content=b"\0" * 7))
    bad("const_content_too_long", pb.tensor(FLOAT, [2], content=b"\0" * 12))
    bad("const_content_not_multiple", pb.tensor(pb.DOUBLE, [1], content=b"\0" * 5), pb.DOUBLE)
    bad("const_dtype_attr_mismatch", pb.tensor(INT32, [1], values=[1]), FLOAT)
    bad("const_dtype_99", pb.tensor(99, [1], values=[1], val_field=(7, None)), 99)
    bad("const_dtype_invalid_zero", pb.tensor(0, [1]), 0)
    bad("const_dtype_ref", pb.tensor(101, [1], values=[1.0], val_field=(5, "f")), 101)
    bad("const_dtype_negative", pb.tensor(-1, [1]), -1)
    bad("const_dtype_resource", pb.tensor(pb.RESOURCE, [1]), pb.RESOURCE)
    bad("const_dtype_variant", pb.tensor(pb.VARIANT, [1]), pb.VARIANT)
    bad("const_negative_dim", pb.tensor(FLOAT, [-3], values=[1.0]))
    bad("const_unknown_dim", pb.tensor(FLOAT, [-1], values=[1.0]))
    bad("const_unknown_rank", pb.tensor(FLOAT, None, values=[1.0]) + pb.f_bytes(2, pb.shape(None)),
        note="TensorFlow 2.21 reads an unknown-rank shape as a scalar")
    bad("const_count_overflows_int64", pb.tensor(FLOAT, [2 ** 32] * 3, values=[1.0]))
    bad("const_splat_1e12_floats", pb.tensor(FLOAT, [10 ** 12], values=[1.0]))
    bad("const_splat_1e9_strings", pb.tensor(STRING, [10 ** 9], strings=[b"a"]), STRING)
    bad("const_splat_2e31_bools", pb.tensor(pb.BOOL, [2 ** 31], values=[1]), pb.BOOL)
    lax = "TensorFlow 2.21 keeps the first values and runs"
    bad("const_more_values_than_shape", pb.tensor(FLOAT, [2], values=[1.0, 2.0, 3.0]), note=lax)
    bad("const_more_strings_than_shape", pb.tensor(STRING, [1], strings=[b"a", b"b"]), STRING, note=lax)
    bad("const_content_for_strings", pb.tensor(STRING, [2], content=b"abcdefgh"), STRING)
    bad("const_rank_300", pb.tensor(FLOAT, [1] * 300, values=[1.0]))
    # TensorFlow reads only the *_val field of the dtype: int_val on a float tensor is ignored.
    bad("const_values_of_other_dtype", pb.tensor(FLOAT, [2], values=[1, 2], val_field=(7, None)),
        expect=ok({"const_values_of_other_dtype": value("f4", [2], [0.0, 0.0])}))
    bad("const_bool_value_7", pb.tensor(pb.BOOL, [1], values=[7]), pb.BOOL,
        expect=ok({"const_bool_value_7": value("b1", [1], [True])}))
    bad("const_int8_value_out_of_range", pb.tensor(pb.INT8, [1], values=[1000]), pb.INT8,
        expect=ok({"const_int8_value_out_of_range": value("i1", [1], [-24])}))
    bad("const_half_value_out_of_range", pb.tensor(pb.HALF, [1], values=[1 << 20]), pb.HALF,
        expect=ok({"const_half_value_out_of_range": value("f2", [1], [0.0])}))
    bad("const_splat_empty_shape_ok", pb.tensor(FLOAT, [0, 10 ** 12], values=[1.0]),
        expect=ok({"const_splat_empty_shape_ok": value("f4", [0, 10 ** 12], [])}))
    # tensor_content declaring 2^40 bytes that are not there: the whole file fails to parse.
    bad("const_huge_declared_content", pb.tensor(FLOAT, [2]) + pb.key(4, pb.LEN) + pb.varint(2 ** 40),
        expect=error("graphs/const_huge_declared_content.pb"))

    def node(name, nd, expect=None):
        c.graph(name, CAT, [nd], expect)
    node("const_missing_value", pb.node("const_missing_value", "Const", attrs={"dtype": a_type(FLOAT)}))
    node("const_missing_dtype", pb.node("const_missing_dtype", "Const",
                                        attrs={"value": a_tensor(pb.tensor(FLOAT, [1], values=[1.0]))}))
    node("const_value_is_int", pb.node("const_value_is_int", "Const", attrs={"dtype": a_type(FLOAT), "value": a_i(3)}))
    node("const_dtype_is_string", pb.node("const_dtype_is_string", "Const", attrs={
        "dtype": pb.a_s("float"), "value": a_tensor(pb.tensor(FLOAT, [1], values=[1.0]))}))
    node("const_with_input", pb.node("const_with_input", "Const", ["const_with_input"], attrs={
        "dtype": a_type(FLOAT), "value": a_tensor(pb.tensor(FLOAT, [1], values=[1.0]))}))

    def placeholder(name, dtype, dims, feed, expect=None):
        c.graph(name, CAT, [pb.node(name, "Placeholder", attrs={"dtype": a_type(dtype), "shape": a_shape(dims)})],
                expect, feeds=[feed])
    placeholder("placeholder_shape_minus_five", FLOAT, [-5], "placeholder_shape_minus_five=[1.0]")
    placeholder("placeholder_dtype_invalid", 77, [1], "placeholder_dtype_invalid=[1.0]")
    placeholder("placeholder_feed_wrong_shape", FLOAT, [3], "placeholder_feed_wrong_shape=[1.0, 2.0]",
                error("placeholder_feed_wrong_shape"))
    placeholder("placeholder_feed_wrong_dtype", FLOAT, [1], "placeholder_feed_wrong_dtype=[1]:int32",
                error("placeholder_feed_wrong_dtype"))
    c.graph("placeholder_not_fed", CAT, [op("placeholder_not_fed", "Placeholder", dtype=T(FLOAT))])
