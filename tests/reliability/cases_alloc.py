"""Huge shapes from tiny graphs: ops whose output size comes from a small input or attr
(Fill, RandomUniform, Tile, Range, OneHot, Pad, Resize*, BroadcastTo, ...), so a few bytes ask
for terabytes, negative sizes, or element counts that overflow int64. Each must fail with an
error naming the op (or give TensorFlow's empty result), never crash or be killed."""

from catalogue import ok, value
from ops import const, op, T, placeholder
from pb import FLOAT, INT32, INT64, STRING

CAT = "alloc"
BIG = 10 ** 12
I31, I32, I62 = 2 ** 31, 2 ** 32, 2 ** 62


def fill(c, name, dims, dtype=INT64, expect=None, **kw):
    c.graph(name, CAT, [const("dims", dims, dtype), const("v", 1.0, FLOAT),
                        op(name, "Fill", ["dims", "v"], T=T(FLOAT), index_type=T(dtype))], expect, **kw)


def shaped(c, name, op_type, dims, dtype=INT32, extra_attrs=None, expect=None):
    """An op whose only input is the shape (RandomUniform, RandomStandardNormal, Empty...)."""
    attrs = {"T": T(dtype), "dtype": T(FLOAT)}
    attrs.update(extra_attrs or {})
    c.graph(name, CAT, [const("shape", dims, dtype), op(name, op_type, ["shape"], **attrs)], expect)


def add(c):
    fill(c, "fill_1e12", [BIG])
    fill(c, "fill_2e31_squared", [I31, I31])
    fill(c, "fill_count_overflows_int64", [I32, I32, I32])
    fill(c, "fill_bytes_overflow_int64", [I62, 2])
    fill(c, "fill_int64_max", [2 ** 63 - 1])
    fill(c, "fill_negative_dim", [-5], INT32)
    fill(c, "fill_minus_one", [-1, 4], INT32)
    fill(c, "fill_int32_min", [-I31], INT32)
    fill(c, "fill_zero_times_huge", [0, BIG], expect=ok({"fill_zero_times_huge": value("f4", [0, BIG], [])}))
    fill(c, "fill_huge_times_zero_times_huge", [BIG, 0, BIG],
         expect=ok({"fill_huge_times_zero_times_huge": value("f4", [BIG, 0, BIG], [])}))
    fill(c, "fill_40gb", [10 ** 5, 10 ** 5], INT32)
    fill(c, "fill_5gb", [5 * 2 ** 28], INT32)
    c.graph("fill_dims_matrix", CAT, [const("dims", [[2, 2]], INT32), const("v", 1.0, FLOAT),
                                     op("fill_dims_matrix", "Fill", ["dims", "v"], T=T(FLOAT), index_type=T(INT32))])
    c.graph("fill_value_not_scalar", CAT, [const("dims", [2], INT32), const("v", [1.0, 2.0], FLOAT),
                                          op("fill_value_not_scalar", "Fill", ["dims", "v"], T=T(FLOAT),
                                             index_type=T(INT32))])
    fill_str = [const("dims", [10 ** 9], INT64), const("v", "abcdefgh", STRING),
                op("fill_string_1e9", "Fill", ["dims", "v"], T=T(STRING), index_type=T(INT64))]
    c.graph("fill_string_1e9", CAT, fill_str)

    for op_type in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"):
        low = op_type.lower()
        shaped(c, low + "_1e12", op_type, [BIG], INT64)
        shaped(c, low + "_negative", op_type, [3, -2])
    shaped(c, "randomuniform_2e31_squared", "RandomUniform", [I31, I31], INT64)
    c.graph("randomuniformint_huge", CAT, [
        const("shape", [BIG], INT64), const("lo", 0), const("hi", 10),
        op("randomuniformint_huge", "RandomUniformInt", ["shape", "lo", "hi"], T=T(INT64), Tout=T(INT32))])
    c.graph("randomuniformint_empty_range", CAT, [
        const("shape", [4], INT32), const("lo", 10), const("hi", 10),
        op("randomuniformint_empty_range", "RandomUniformInt", ["shape", "lo", "hi"], T=T(INT32), Tout=T(INT32))])

    def tile(name, shape_in, multiples, mtype=INT32, expect=None):
        c.graph(name, CAT, [const("x", [1.0] * shape_in, FLOAT), const("m", multiples, mtype),
                            op(name, "Tile", ["x", "m"], T=T(FLOAT), Tmultiples=T(mtype))], expect)
    tile("tile_1e9_squared", 2, [10 ** 9], INT64)
    tile("tile_multiples_overflow", 2, [2 ** 62], INT64)
    tile("tile_negative", 2, [-3])
    tile("tile_wrong_length", 2, [2, 2])
    tile("tile_zero", 2, [0], expect=ok({"tile_zero": value("f4", [0], [])}))

    def rng(name, start, limit, delta, dtype=INT64, expect=None):
        c.graph(name, CAT, [const("start", start, dtype), const("limit", limit, dtype), const("delta", delta, dtype),
                            op(name, "Range", ["start", "limit", "delta"], Tidx=T(dtype))], expect)
    rng("range_1e12", 0, BIG, 1)
    rng("range_full_int64", -2 ** 63, 2 ** 63 - 1, 1)
    rng("range_delta_zero", 0, 10, 0)
    rng("range_wrong_direction", 10, 0, 1)
    rng("range_float_1e30", 0.0, 1e30, 1.0, FLOAT)
    rng("range_float_nan", 0.0, float("nan"), 1.0, FLOAT)
    rng("range_float_inf", 0.0, float("inf"), 1.0, FLOAT)
    rng("range_int32_overflow", -2 ** 31, 2 ** 31 - 1, 2 ** 30 + 1, INT32,
        expect=ok({"range_int32_overflow": value("i4", [4], [-2147483648, -1073741823, 2, 1073741827])}))

    def reserve(name, n, element_shape=-1):
        c.graph(name, CAT, [const("shape", element_shape), const("n", n),
                            op(name, "TensorListReserve", ["shape", "n"], element_dtype=T(FLOAT),
                               shape_type=T(INT32)),
                            op(name + "_len", "TensorListLength", [name])], fetch=name + "_len")
    reserve("tensorlistreserve_2e31", I31 - 1)
    reserve("tensorlistreserve_negative", -5)

    def onehot(name, depth, axis=-1, expect=None):
        c.graph(name, CAT, [const("i", [0, 1]), const("depth", depth), const("on", 1.0, FLOAT),
                            const("off", 0.0, FLOAT),
                            op(name, "OneHot", ["i", "depth", "on", "off"], T=T(FLOAT), TI=T(INT32), axis=axis)],
                expect)
    onehot("onehot_depth_2e31", 2 ** 31 - 1)
    onehot("onehot_depth_negative", -1)
    onehot("onehot_axis_invalid", 3, axis=-2)
    onehot("onehot_axis_huge", 3, axis=7)

    def pad(name, paddings, op_type="Pad", mode=None, expect=None):
        attrs = {"T": T(FLOAT), "Tpaddings": T(INT64)}
        if mode is not None:
            attrs["mode"] = mode
        c.graph(name, CAT, [const("x", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], FLOAT), const("p", paddings, INT64),
                            op(name, op_type, ["x", "p"], **attrs)], expect)
    pad("pad_1e10", [[10 ** 10, 10 ** 10], [0, 0]])
    pad("pad_overflow", [[2 ** 62, 2 ** 62], [0, 0]])
    pad("pad_negative", [[-1, 0], [0, 0]])
    pad("pad_wrong_shape", [[1, 1]])
    pad("mirrorpad_too_wide", [[0, 0], [3, 3]], "MirrorPad", "REFLECT")
    pad("mirrorpad_symmetric_too_wide", [[0, 0], [4, 0]], "MirrorPad", "SYMMETRIC")
    pad("mirrorpad_negative", [[0, 0], [-1, 0]], "MirrorPad", "REFLECT")
    pad("mirrorpad_bad_mode", [[0, 0], [1, 1]], "MirrorPad", "WRAP")

    def resize(name, op_type, size):
        c.graph(name, CAT, [const("img", [[[[1.0], [2.0]], [[3.0], [4.0]]]], FLOAT), const("size", size),
                            op(name, op_type, ["img", "size"], T=T(FLOAT))])
    resize("resizebilinear_1e6_squared", "ResizeBilinear", [10 ** 6, 10 ** 6])
    resize("resizebilinear_int32_max", "ResizeBilinear", [2 ** 31 - 1, 2 ** 31 - 1])
    resize("resizebilinear_zero", "ResizeBilinear", [0, 0])
    resize("resizebilinear_negative", "ResizeBilinear", [-1, 4])
    resize("resizenearest_1e6_squared", "ResizeNearestNeighbor", [10 ** 6, 10 ** 6])
    resize("resizenearest_negative", "ResizeNearestNeighbor", [4, -4])
    resize("resizebicubic_1e6_squared", "ResizeBicubic", [10 ** 6, 10 ** 6])
    resize("resizebilinear_size_of_three", "ResizeBilinear", [2, 2, 2])

    def bcast(name, shape, expect=None):
        c.graph(name, CAT, [const("x", [1.0, 2.0, 3.0], FLOAT), const("s", shape, INT64),
                            op(name, "BroadcastTo", ["x", "s"], T=T(FLOAT), Tidx=T(INT64))], expect)
    bcast("broadcastto_1e12", [BIG, 3])
    bcast("broadcastto_incompatible", [2])
    bcast("broadcastto_negative", [-1, 3])

    # Empty inputs whose product is huge: a few bytes in, terabytes out.
    def empty2(name, dims_a, dims_b, op_type, **attrs):
        c.graph(name, CAT, [const("da", dims_a), const("db", dims_b), const("v", 1.0, FLOAT),
                            op("a", "Fill", ["da", "v"], T=T(FLOAT), index_type=T(INT32)),
                            op("b", "Fill", ["db", "v"], T=T(FLOAT), index_type=T(INT32)),
                            op(name, op_type, ["a", "b"], T=T(FLOAT), **attrs)])
    empty2("matmul_empty_inner_huge_output", [10 ** 6, 0], [0, 10 ** 6], "MatMul")
    empty2("batchmatmul_broadcast_huge", [10 ** 6, 1, 1, 0], [1, 10 ** 6, 0, 1], "BatchMatMulV2")
    empty2("addv2_broadcast_huge", [10 ** 6, 1], [1, 10 ** 6], "AddV2")
    c.graph("einsum_outer_huge", CAT, [const("d", [10 ** 5]), const("v", 1.0, FLOAT),
                                       op("a", "Fill", ["d", "v"], T=T(FLOAT), index_type=T(INT32)),
                                       op("einsum_outer_huge", "Einsum", ["a", "a"], T=T(FLOAT), N=2,
                                          equation="i,j->ij")])
    c.graph("unsortedsegmentsum_1e12_segments", CAT, [
        const("data", [1.0, 2.0], FLOAT), const("ids", [0, 1]), const("n", BIG, INT64),
        op("unsortedsegmentsum_1e12_segments", "UnsortedSegmentSum", ["data", "ids", "n"], T=T(FLOAT),
           Tindices=T(INT32), Tnumsegments=T(INT64))])
    c.graph("scatternd_shape_1e12", CAT, [
        const("i", [[0]], INT64), const("u", [1.0], FLOAT), const("s", [BIG], INT64),
        op("scatternd_shape_1e12", "ScatterNd", ["i", "u", "s"], T=T(FLOAT), Tindices=T(INT64))])
    c.graph("densebincount_size_1e12", CAT, [
        const("x", [1, 2]), const("size", 2 ** 31 - 1), const("w", [], FLOAT, dims=[0]),
        op("densebincount_size_1e12", "DenseBincount", ["x", "size", "w"], Tidx=T(INT32), T=T(FLOAT))])
    c.graph("dynamicstitch_index_2e9", CAT, [
        const("i", [2 * 10 ** 9]), const("d", [1.0], FLOAT),
        op("dynamicstitch_index_2e9", "DynamicStitch", ["i", "d"], T=T(FLOAT), N=1)])
    c.graph("concat_huge_empty_parts", CAT, [
        const("d", [0, BIG], INT64), const("v", 1.0, FLOAT), const("axis", 0),
        op("a", "Fill", ["d", "v"], T=T(FLOAT), index_type=T(INT64)),
        op("concat_huge_empty_parts", "ConcatV2", ["a", "a", "axis"], T=T(FLOAT), N=2, Tidx=T(INT32))],
        expect=ok({"concat_huge_empty_parts": value("f4", [0, BIG], [])}))
    c.graph("placeholder_fed_huge_shape_reshape", CAT, [
        placeholder("p", FLOAT), const("s", [BIG, BIG], INT64),
        op("placeholder_fed_huge_shape_reshape", "Reshape", ["p", "s"], T=T(FLOAT), Tshape=T(INT64))],
        feeds=["p=[1.0, 2.0]"])
