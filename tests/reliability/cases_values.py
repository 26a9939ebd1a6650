"""Values at the edges, where the answer is TensorFlow's (checked against TensorFlow 2.21 on
the CPU when the case was written): casts of NaN and infinities to integers, integer division
by zero and INT_MIN / -1, shifts past the width, reductions of empty tensors, strings that are
not numbers, garbage fed to ParseExample, and a chain of 100,000 Identity ops."""

import pb
from catalogue import error, ok, value
from ops import const, op, T, placeholder
from pb import FLOAT, DOUBLE, INT32, INT64, STRING, BOOL

CAT = "values"
NAN, INF = float("nan"), float("inf")
I32_MIN, I64_MIN = -2 ** 31, -2 ** 63


def add(c):
    def cast(name, x, src, dst, out_dtype, want, truncate=False):
        c.graph(name, CAT, [const("x", x, src),
                            op(name, "Cast", ["x"], SrcT=T(src), DstT=T(dst), Truncate=truncate)],
                ok({name: value(out_dtype, [len(x)], want)}))
    specials = [NAN, INF, -INF, 1e10, -1e10, 2.5, -2.5]
    cast("cast_float_specials_to_int32", specials, FLOAT, INT32, "i4",
         [I32_MIN, I32_MIN, I32_MIN, I32_MIN, I32_MIN, 2, -2])
    cast("cast_float_specials_to_int64", specials, FLOAT, INT64, "i8",
         [I64_MIN, I64_MIN, I64_MIN, 10000000000, -10000000000, 2, -2])
    cast("cast_double_specials_to_int32", specials, DOUBLE, INT32, "i4",
         [I32_MIN, I32_MIN, I32_MIN, I32_MIN, I32_MIN, 2, -2])
    cast("cast_float_specials_to_uint8", specials, FLOAT, pb.UINT8, "u1", [0, 0, 0, 0, 0, 2, 254])
    cast("cast_float_specials_to_bool", specials, FLOAT, BOOL, "b1", [True] * 7)
    cast("cast_double_huge_to_float", [1e300, -1e300, 1e-300], DOUBLE, FLOAT, "f4", [INF, -INF, 0.0])
    cast("cast_int64_to_int32_wraps", [2 ** 40 + 5, -2 ** 63], INT64, INT32, "i4", [5, 0])

    def binary(name, op_type, a, b, dtype, expect):
        c.graph(name, CAT, [const("a", a, dtype), const("b", b, dtype), op(name, op_type, ["a", "b"], T=T(dtype))],
                expect)
    binary("floordiv_int32_by_zero", "FloorDiv", [7, -7], [0, 0], INT32, error("'floordiv_int32_by_zero'"))
    binary("floormod_int32_by_zero", "FloorMod", [7], [0], INT32, error("'floormod_int32_by_zero'"))
    binary("div_int32_by_zero", "Div", [7], [0], INT32, error("'div_int32_by_zero'"))
    binary("truncatediv_int64_by_zero", "TruncateDiv", [7], [0], INT64, error("'truncatediv_int64_by_zero'"))
    binary("truncatemod_int32_by_zero", "TruncateMod", [7], [0], INT32, error("'truncatemod_int32_by_zero'"))
    binary("floordiv_int32_min_by_minus_one", "FloorDiv", [I32_MIN], [-1], INT32,
           ok({"floordiv_int32_min_by_minus_one": value("i4", [1], [I32_MIN])}))
    binary("floordiv_int64_min_by_minus_one", "FloorDiv", [I64_MIN], [-1], INT64,
           ok({"floordiv_int64_min_by_minus_one": value("i8", [1], [I64_MIN])}))
    binary("floormod_int32_min_by_minus_one", "FloorMod", [I32_MIN], [-1], INT32,
           ok({"floormod_int32_min_by_minus_one": value("i4", [1], [0])}))
    binary("truncatemod_int64_min_by_minus_one", "TruncateMod", [I64_MIN], [-1], INT64,
           ok({"truncatemod_int64_min_by_minus_one": value("i8", [1], [0])}))
    binary("divnonan_int32_by_zero", "DivNoNan", [7.0], [0.0], FLOAT,
           ok({"divnonan_int32_by_zero": value("f4", [1], [0.0])}))
    binary("realdiv_float_by_zero", "RealDiv", [1.0, -1.0, 0.0], [0.0, 0.0, 0.0], FLOAT,
           ok({"realdiv_float_by_zero": value("f4", [3], [INF, -INF, NAN])}))
    binary("pow_int32_negative_exponent", "Pow", [2], [-1], INT32, error("'pow_int32_negative_exponent'"))
    binary("pow_int32_overflow", "Pow", [3], [40], INT32,
           ok({"pow_int32_overflow": value("i4", [1], [689956897])}))  # 3**40 mod 2**32
    binary("mul_int32_overflow_wraps", "Mul", [2 ** 30], [4], INT32,
           ok({"mul_int32_overflow_wraps": value("i4", [1], [0])}))
    binary("addv2_int64_overflow_wraps", "AddV2", [2 ** 63 - 1], [1], INT64,
           ok({"addv2_int64_overflow_wraps": value("i8", [1], [I64_MIN])}))

    def unary(name, op_type, x, dtype, expect):
        c.graph(name, CAT, [const("x", x, dtype), op(name, op_type, ["x"], T=T(dtype))], expect)
    unary("abs_int32_min", "Abs", [I32_MIN], INT32, ok({"abs_int32_min": value("i4", [1], [I32_MIN])}))
    unary("neg_int64_min", "Neg", [I64_MIN], INT64, ok({"neg_int64_min": value("i8", [1], [I64_MIN])}))
    unary("sqrt_negative_is_nan", "Sqrt", [-1.0], FLOAT, ok({"sqrt_negative_is_nan": value("f4", [1], [NAN])}))
    unary("log_zero_is_minus_inf", "Log", [0.0, -1.0], FLOAT,
          ok({"log_zero_is_minus_inf": value("f4", [2], [-INF, NAN])}))
    unary("reciprocal_int32_zero", "Reciprocal", [0], INT32, error("'reciprocal_int32_zero'"))

    def reduce(name, op_type, dims, dtype, want_dtype, want):
        c.graph(name, CAT, [const("x", [], dtype, dims=dims), const("axis", [0]),
                            op(name, op_type, ["x", "axis"], T=T(dtype), Tidx=T(INT32))],
                ok({name: value(want_dtype, [dims[1]], want)}))
    reduce("mean_of_empty_is_nan", "Mean", [0, 2], FLOAT, "f4", [NAN, NAN])
    reduce("max_of_empty_float", "Max", [0, 2], FLOAT, "f4", [-INF, -INF])
    reduce("min_of_empty_int32", "Min", [0, 2], INT32, "i4", [2 ** 31 - 1] * 2)
    reduce("prod_of_empty_int64", "Prod", [0, 2], INT64, "i8", [1, 1])
    reduce("sum_of_empty_float", "Sum", [0, 2], FLOAT, "f4", [0.0, 0.0])
    reduce("mean_of_empty_int32", "Mean", [0, 2], INT32, "i4", [0, 0])

    c.graph("softmax_empty_classes", CAT, [const("x", [], FLOAT, dims=[2, 0]),
                                           op("softmax_empty_classes", "Softmax", ["x"], T=T(FLOAT))],
            expect=ok({"softmax_empty_classes": value("f4", [2, 0], [])}))
    c.graph("softmax_scalar", CAT, [const("x", 1.0, FLOAT), op("softmax_scalar", "Softmax", ["x"], T=T(FLOAT))])
    c.graph("softmax_huge_logits", CAT, [const("x", [[1e30, 0.0], [-INF, 0.0], [-1e30, -1e30]], FLOAT),
                                         op("softmax_huge_logits", "Softmax", ["x"], T=T(FLOAT))],
            expect=ok({"softmax_huge_logits": value("f4", [3, 2], [1.0, 0.0, 0.0, 1.0, 0.5, 0.5])}))
    c.graph("logsoftmax_empty", CAT, [const("x", [], FLOAT, dims=[0, 3]),
                                      op("logsoftmax_empty", "LogSoftmax", ["x"], T=T(FLOAT))],
            expect=ok({"logsoftmax_empty": value("f4", [0, 3], [])}))

    def as_string(name, x, expect, known_bug=None, **attrs):
        c.graph(name, CAT, [const("x", x, FLOAT), op(name, "AsString", ["x"], T=T(FLOAT), **attrs)], expect,
                known_bug=known_bug)
    as_string("asstring_huge_width", [1.0], error("'asstring_huge_width'", "width"), width=2 ** 40)
    as_string("asstring_huge_precision", [1.0], error("'asstring_huge_precision'", "precision"), precision=2 ** 40)
    as_string("asstring_fill_two_chars", [1.0], error("'asstring_fill_two_chars'"), fill="ab", width=4)
    as_string("asstring_fill_percent", [1.0], error("'asstring_fill_percent'"), fill="%", width=10)
    as_string("asstring_scientific_and_shortest", [1.0], error("'asstring_scientific_and_shortest'"),
              scientific=True, shortest=True)

    def ngrams(name, widths, expect=None, pad_width=-1, splits=(0, 2)):
        c.graph(name, CAT, [const("data", ["a", "b"], STRING), const("splits", list(splits), INT64),
                            op(name, "StringNGrams", ["data", "splits"], separator=" ", ngram_widths=widths,
                               left_pad="<", right_pad=">", pad_width=pad_width, preserve_short_sequences=False,
                               Tsplits=T(INT64))], expect)
    ngrams("stringngrams_width_zero", [0])
    ngrams("stringngrams_width_negative", [-1])
    ngrams("stringngrams_pad_width_huge", [2], pad_width=2 ** 31 - 1,  # padding is capped at width - 1
           expect=ok({"stringngrams_pad_width_huge": value("S", [3], [b"< a", b"a b", b"b >"])}))
    ngrams("stringngrams_splits_out_of_range", [1], splits=(0, 9))
    ngrams("stringngrams_splits_decreasing", [1], splits=(2, 0))

    def regex(name, op_type, pattern, expect=None):
        nodes = [const("s", ["abc"], STRING)]
        if op_type == "RegexReplace":
            nodes += [const("p", pattern, STRING), const("r", "x", STRING)]
            nodes.append(op(name, op_type, ["s", "p", "r"]))
        else:
            nodes.append(op(name, op_type, ["s"], pattern=pattern, rewrite="x"))
        c.graph(name, CAT, nodes, expect)
    regex("regexreplace_invalid_pattern", "RegexReplace", "(")
    regex("staticregexreplace_invalid_pattern", "StaticRegexReplace", "[a-")
    c.graph("stringformat_placeholder_mismatch", CAT, [
        const("x", [1.0], FLOAT),
        op("stringformat_placeholder_mismatch", "StringFormat", ["x"], T=pb.a_list(types=[FLOAT]),
           template="{} {}", placeholder="{}", summarize=3)])
    c.graph("stringtohashbucketfast_zero_buckets", CAT, [
        const("s", ["a"], STRING), op("stringtohashbucketfast_zero_buckets", "StringToHashBucketFast", ["s"],
                                      num_buckets=0)])
    c.graph("readfile_missing", CAT, [
        const("f", "/nonexistent/graft/reliability", STRING), op("readfile_missing", "ReadFile", ["f"])])
    c.graph("checknumerics_nan", CAT, [
        const("x", [1.0, NAN], FLOAT), op("checknumerics_nan", "CheckNumerics", ["x"], T=T(FLOAT), message="boom")],
        expect=error("'checknumerics_nan'", "boom"))
    c.graph("assert_false", CAT, [
        const("c", False, BOOL), const("d", "the data", STRING),
        op("assert_false", "Assert", ["c", "d"], T=pb.a_list(types=[STRING]), summarize=3),
        op("after", "Identity", ["d", "^assert_false"], T=T(STRING))], fetch="after",
        expect=error("'assert_false'"))
    c.graph("clipbyvalue_min_above_max", CAT, [
        const("x", [1.0, 5.0, 9.0], FLOAT), const("lo", 6.0, FLOAT), const("hi", 4.0, FLOAT),
        op("clipbyvalue_min_above_max", "ClipByValue", ["x", "lo", "hi"], T=T(FLOAT))],
        ok({"clipbyvalue_min_above_max": value("f4", [3], [6.0, 6.0, 6.0])}))  # max(min(x, hi), lo)
    c.graph("resizebilinear_align_and_half_pixel", CAT, [
        const("img", [[[[1.0], [2.0]], [[3.0], [4.0]]]], FLOAT), const("size", [4, 4]),
        op("resizebilinear_align_and_half_pixel", "ResizeBilinear", ["img", "size"], T=T(FLOAT),
           align_corners=True, half_pixel_centers=True)])

    def parse_example(name, serialized, expect, **kw):
        nodes = [const("s", serialized, STRING), const("names", [], STRING, dims=[0]),
                 const("key", "f", STRING), const("dflt", [0.0], FLOAT)]
        nodes.append(op(name, "ParseExample", ["s", "names", "key", "dflt"], Nsparse=0, Ndense=1,
                        sparse_types=pb.a_list(), Tdense=pb.a_list(types=[FLOAT]),
                        dense_shapes=pb.a_list(shapes=[[1]])))
        c.graph(name, CAT, nodes, expect, **kw)
    parse_example("parseexample_garbage", [b"\xff\xfe\x00garbage"], error("'parseexample_garbage'"))
    parse_example("parseexample_huge_length", [b"\x0a\xff\xff\xff\xff\x0f"], error("'parseexample_huge_length'"),
                  note="TensorFlow 2.21 reads this as an empty Example and gives the default")
    parse_example("parseexample_wrong_feature_type", [
        # Example{features{feature{key:"f" value{bytes_list{value:"x"}}}}}
        pb.f_bytes(1, pb.f_bytes(1, pb.f_bytes(1, "f") + pb.f_bytes(2, pb.f_bytes(1, pb.f_bytes(1, "x")))))],
        error("'parseexample_wrong_feature_type'"))
    parse_example("parseexample_too_many_values", [
        pb.f_bytes(1, pb.f_bytes(1, pb.f_bytes(1, "f") + pb.f_bytes(2, pb.f_bytes(2, pb.f_packed(
            1, [1.0, 2.0], "f")))))], error("'parseexample_too_many_values'"))
    parse_example("parseexample_empty_string_uses_default", [b""],
                  ok({"parseexample_empty_string_uses_default": value("f4", [1, 1], [0.0])}))

    chain = [placeholder("x", FLOAT)]
    prev = "x"
    for i in range(100000):
        name = "id%d" % i
        chain.append(pb.node(name, "Identity", [prev], {"T": T(FLOAT)}))
        prev = name
    c.graph("identity_chain_100k", CAT, chain, feeds=["x=[1.5, -2]"], fetch=prev,
            expect=ok({prev: value("f4", [2], [1.5, -2.0])}), timeout=120)  # ~30 s in a Debug ASan build
