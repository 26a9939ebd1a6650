"""Bad attrs and shape arguments: convolution and pooling with zero, negative or huge strides,
ksize and dilations, invalid data_format and padding, mismatched channels; axes, perms, masks,
k and equations out of range or contradictory; operand shapes that do not match."""

import pb
from catalogue import either, error, ok, value
from ops import const, op, T, placeholder
from pb import FLOAT, INT32, INT64

CAT_NN = "conv_pool"
CAT = "axes_shapes"


def image(n=1, h=4, w=4, ch=1):
    return const("img", [[[[1.0] * ch] * w] * h] * n, FLOAT)


def filt(h=2, w=2, cin=1, cout=1):
    dims = [h, w, cin, cout]
    return const("filter", [[[[1.0] * cout] * cin] * w] * h, FLOAT, dims=dims if 0 in dims else None)


def conv(c, name, op_type="Conv2D", strides=(1, 1, 1, 1), padding="VALID", img=None, fil=None, expect=None,
         known_bug=None, note=None, **attrs):
    attrs.setdefault("T", T(FLOAT))
    nodes = [img or image(), fil or filt(),
             op(name, op_type, ["img", "filter"], strides=list(strides), padding=padding, **attrs)]
    c.graph(name, CAT_NN, nodes, expect, known_bug=known_bug, note=note)


def pool(c, name, op_type="MaxPool", ksize=(1, 2, 2, 1), strides=(1, 1, 1, 1), padding="VALID", img=None,
         expect=None, sanitizer_bug=None, **attrs):
    attrs.setdefault("T", T(FLOAT))
    nodes = [img or image(), op(name, op_type, ["img"], ksize=list(ksize), strides=list(strides), padding=padding,
                                **attrs)]
    c.graph(name, CAT_NN, nodes, expect, sanitizer_bug=sanitizer_bug)




def add_conv_pool(c):
    conv(c, "conv2d_stride_zero", strides=[1, 0, 0, 1])
    conv(c, "conv2d_stride_negative", strides=[1, -1, -1, 1])
    conv(c, "conv2d_stride_huge", strides=[1, 2 ** 40, 2 ** 40, 1])
    conv(c, "conv2d_stride_int64_min", strides=[1, -2 ** 63, 1, 1])
    conv(c, "conv2d_stride_three_entries", strides=[1, 1, 1])
    conv(c, "conv2d_stride_on_batch", strides=[2, 1, 1, 1])
    conv(c, "conv2d_dilation_zero", dilations=[1, 0, 0, 1])
    conv(c, "conv2d_dilation_negative", dilations=[1, -2, 1, 1])
    conv(c, "conv2d_dilation_huge", dilations=[1, 2 ** 40, 1, 1])
    conv(c, "conv2d_data_format_invalid", data_format="NCDHW")
    conv(c, "conv2d_data_format_garbage", data_format="XYZW")
    conv(c, "conv2d_padding_invalid", padding="FOO")
    conv(c, "conv2d_explicit_paddings_missing", padding="EXPLICIT")
    conv(c, "conv2d_explicit_paddings_short", padding="EXPLICIT", explicit_paddings=[0, 0, 1, 1])
    conv(c, "conv2d_explicit_paddings_negative", padding="EXPLICIT", explicit_paddings=[0, 0, -1, -1, 0, 0, 0, 0])
    conv(c, "conv2d_explicit_paddings_huge", padding="EXPLICIT",
         explicit_paddings=[0, 0, 2 ** 40, 2 ** 40, 0, 0, 0, 0])
    conv(c, "conv2d_explicit_paddings_on_batch", padding="EXPLICIT", explicit_paddings=[1, 1, 0, 0, 0, 0, 0, 0])
    conv(c, "conv2d_filter_zero_height", fil=filt(h=0))
    conv(c, "conv2d_filter_zero_out_channels", fil=filt(cout=0))
    conv(c, "conv2d_channels_mismatch", fil=filt(cin=3))
    conv(c, "conv2d_channels_not_multiple", img=image(ch=3), fil=filt(cin=2))
    conv(c, "conv2d_filter_rank3", fil=const("filter", [[[1.0]]], FLOAT))
    conv(c, "conv2d_input_rank3", img=const("img", [[[1.0]]], FLOAT))
    conv(c, "conv2d_filter_larger_than_input", fil=filt(h=5, w=5))
    conv(c, "conv2d_nchw_on_cpu", data_format="NCHW", img=const("img", [[[[1.0, 2.0], [3.0, 4.0]]]], FLOAT),
         fil=const("filter", [[[[1.0]]]], FLOAT),
         expect=ok({"conv2d_nchw_on_cpu": value("f4", [1, 1, 2, 2], [1.0, 2.0, 3.0, 4.0])}))
    dw = dict(op_type="DepthwiseConv2dNative")
    conv(c, "depthwise_stride_zero", strides=[1, 0, 0, 1], **dw)
    conv(c, "depthwise_channels_mismatch", fil=filt(cin=2), **dw)
    conv(c, "depthwise_dilation_zero", dilations=[1, 0, 0, 1], **dw)
    conv(c, "depthwise_filter_zero_multiplier", fil=filt(cout=0), **dw, expect=either(),
         note="TensorFlow refuses a filter with a zero dimension (as Graft's Conv2D does); Graft's depthwise "
              "gives an empty result")
    conv(c, "depthwise_filter_huge_multiplier", fil=const("filter", [1.0], FLOAT, dims=[1, 1, 1, 2 ** 40]), **dw,
         expect=error("'filter'"))  # the splat Const is refused before the conv

    pool(c, "maxpool_ksize_zero", ksize=[1, 0, 0, 1])
    pool(c, "maxpool_ksize_negative", ksize=[1, -2, 2, 1])
    pool(c, "maxpool_ksize_huge_valid", ksize=[1, 2 ** 31 - 1, 2 ** 31 - 1, 1])
    pool(c, "maxpool_ksize_huge_same", ksize=[1, 2 ** 31 - 1, 2 ** 31 - 1, 1], padding="SAME",
         expect=ok({"maxpool_ksize_huge_same": value("f4", [1, 4, 4, 1], [1.0] * 16)}))
    pool(c, "maxpool_ksize_on_batch", ksize=[2, 1, 1, 1])
    pool(c, "maxpool_ksize_short", ksize=[2, 2])
    pool(c, "maxpool_stride_zero", strides=[1, 0, 0, 1])
    pool(c, "maxpool_stride_negative", strides=[1, -1, 1, 1])
    pool(c, "maxpool_stride_huge", strides=[1, 2 ** 40, 2 ** 40, 1])
    pool(c, "maxpool_ksize_larger_than_input", ksize=[1, 5, 5, 1])
    pool(c, "maxpool_padding_invalid", padding="EXPLICIT")
    pool(c, "maxpool_data_format_invalid", data_format="NCDHW")
    pool(c, "avgpool_ksize_zero", "AvgPool", ksize=[1, 0, 0, 1])
    pool(c, "avgpool_ksize_on_depth", "AvgPool", ksize=[1, 1, 1, 2])
    pool(c, "avgpool_stride_zero", "AvgPool", strides=[1, 0, 1, 1])
    pool(c, "avgpool_ksize_huge_same", "AvgPool", ksize=[1, 2 ** 31 - 1, 2 ** 31 - 1, 1], padding="SAME",
         expect=ok({"avgpool_ksize_huge_same": value("f4", [1, 4, 4, 1], [1.0] * 16)}))
    pool(c, "avgpool_empty_input", "AvgPool", img=const("img", [], FLOAT, dims=[0, 4, 4, 1]),
         expect=ok({"avgpool_empty_input": value("f4", [0, 3, 3, 1], [])}))
    vol = const("img", [1.0], FLOAT, dims=[1, 2, 2, 2, 1])
    pool(c, "maxpool3d_ksize_zero", "MaxPool3D", ksize=[1, 0, 1, 1, 1], strides=[1, 1, 1, 1, 1], img=vol)
    pool(c, "maxpool3d_stride_zero", "MaxPool3D", ksize=[1, 1, 1, 1, 1], strides=[1, 1, 0, 1, 1], img=vol)
    pool(c, "avgpool3d_ksize_4d", "AvgPool3D", ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1, 1], img=vol)
    c.graph("conv3d_stride_zero", CAT_NN, [vol, const("filter", [1.0], FLOAT, dims=[1, 1, 1, 1, 1]),
                                           op("conv3d_stride_zero", "Conv3D", ["img", "filter"], T=T(FLOAT),
                                              strides=[1, 0, 1, 1, 1], padding="VALID")])
    c.graph("biasadd_bias_mismatch", CAT_NN, [image(ch=2), const("b", [1.0, 2.0, 3.0], FLOAT),
                                              op("biasadd_bias_mismatch", "BiasAdd", ["img", "b"], T=T(FLOAT))])
    c.graph("fusedbatchnorm_scale_mismatch", CAT_NN, [
        image(ch=2), const("s", [1.0], FLOAT), const("o", [0.0, 0.0], FLOAT),
        const("m", [0.0, 0.0], FLOAT), const("v", [1.0, 1.0], FLOAT),
        op("fusedbatchnorm_scale_mismatch", "FusedBatchNormV3", ["img", "s", "o", "m", "v"], T=T(FLOAT),
           U=T(FLOAT), is_training=False)])
    c.graph("conv2dbackpropinput_sizes_huge", CAT_NN, [
        const("sizes", [1, 2 ** 20, 2 ** 20, 1]), filt(), image(h=3, w=3),
        op("conv2dbackpropinput_sizes_huge", "Conv2DBackpropInput", ["sizes", "filter", "img"], T=T(FLOAT),
           strides=[1, 1, 1, 1], padding="VALID")])
    c.graph("conv2dbackpropinput_sizes_negative", CAT_NN, [
        const("sizes", [1, -4, 4, 1]), filt(), image(h=3, w=3),
        op("conv2dbackpropinput_sizes_negative", "Conv2DBackpropInput", ["sizes", "filter", "img"], T=T(FLOAT),
           strides=[1, 1, 1, 1], padding="VALID")])
    c.graph("conv2dbackpropfilter_sizes_mismatch", CAT_NN, [
        image(), const("sizes", [3, 3, 1, 1]), const("grad", [1.0], FLOAT, dims=[1, 3, 3, 1]),
        op("conv2dbackpropfilter_sizes_mismatch", "Conv2DBackpropFilter", ["img", "sizes", "grad"], T=T(FLOAT),
           strides=[1, 1, 1, 1], padding="VALID")])


def unary_axis(c, name, op_type, x, axis, expect=None, axis_dtype=INT32, known_bug=None, **attrs):
    """op_type(x, axis) with x a float Const."""
    c.graph(name, CAT, [const("x", x, FLOAT), const("axis", axis, axis_dtype),
                        op(name, op_type, ["x", "axis"], T=T(FLOAT), **attrs)], expect, known_bug=known_bug)


def add_axes(c):
    m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    unary_axis(c, "cumsum_axis_out_of_range", "Cumsum", m, 2, Tidx=T(INT32))
    unary_axis(c, "cumsum_axis_negative_out_of_range", "Cumsum", m, -3, Tidx=T(INT32))
    unary_axis(c, "cumsum_axis_not_scalar", "Cumsum", m, [0, 1], Tidx=T(INT32))
    unary_axis(c, "argmax_axis_out_of_range", "ArgMax", m, 5, Tidx=T(INT32), output_type=T(INT64))
    unary_axis(c, "argmax_axis_int32_min", "ArgMax", m, -2 ** 31, Tidx=T(INT32), output_type=T(INT64))
    unary_axis(c, "argmin_axis_out_of_range", "ArgMin", m, -3, Tidx=T(INT32), output_type=T(INT64))
    c.graph("argmax_empty_axis", CAT, [const("x", [], FLOAT, dims=[0, 3]), const("axis", 0),
                                       op("argmax_empty_axis", "ArgMax", ["x", "axis"], T=T(FLOAT), Tidx=T(INT32),
                                          output_type=T(INT64))])
    unary_axis(c, "mean_axis_out_of_range", "Mean", m, [0, 7], Tidx=T(INT32))
    unary_axis(c, "sum_axis_out_of_range", "Sum", m, -9, Tidx=T(INT32))
    unary_axis(c, "sum_axis_duplicated", "Sum", m, [1, 1, -1], Tidx=T(INT32))
    unary_axis(c, "prod_axis_int64_huge", "Prod", m, 2 ** 40, Tidx=T(INT64), axis_dtype=INT64)
    unary_axis(c, "reversev2_axis_out_of_range", "ReverseV2", m, [2], Tidx=T(INT32))
    unary_axis(c, "reversev2_axis_duplicated", "ReverseV2", m, [1, -1], Tidx=T(INT32))
    unary_axis(c, "expanddims_axis_out_of_range", "ExpandDims", m, 4, Tdim=T(INT32))
    unary_axis(c, "expanddims_axis_not_scalar", "ExpandDims", m, [0, 1], Tdim=T(INT32))
    unary_axis(c, "transpose_perm_repeated", "Transpose", m, [0, 0], Tperm=T(INT32))
    unary_axis(c, "transpose_perm_out_of_range", "Transpose", m, [0, 5], Tperm=T(INT32))
    unary_axis(c, "transpose_perm_negative", "Transpose", m, [-1, 0], Tperm=T(INT32),
               expect=ok({"transpose_perm_negative": value("f4", [3, 2], [1.0, 4.0, 2.0, 5.0, 3.0, 6.0])}))
    unary_axis(c, "transpose_perm_wrong_length", "Transpose", m, [1, 0, 2], Tperm=T(INT32))
    unary_axis(c, "topkv2_k_larger_than_n", "TopKV2", m, 4)
    unary_axis(c, "topkv2_k_negative", "TopKV2", m, -1)
    unary_axis(c, "topkv2_k_not_scalar", "TopKV2", m, [1, 2])
    unary_axis(c, "topkv2_k_zero", "TopKV2", m, 0, expect=ok({"topkv2_k_zero": value("f4", [2, 0], [])}))
    unary_axis(c, "reshape_two_minus_ones", "Reshape", m, [-1, -1], Tshape=T(INT32))
    unary_axis(c, "reshape_wrong_count", "Reshape", m, [4], Tshape=T(INT32))
    unary_axis(c, "reshape_minus_two", "Reshape", m, [-2, -3], Tshape=T(INT32))
    unary_axis(c, "reshape_minus_one_not_divisible", "Reshape", m, [-1, 4], Tshape=T(INT32))
    unary_axis(c, "reshape_overflow", "Reshape", m, [2 ** 62, 2 ** 62, 0, -1], Tshape=T(INT64), axis_dtype=INT64)
    c.graph("reshape_empty_with_minus_one", CAT, [
        const("x", [], FLOAT, dims=[0]), const("s", [-1, 0]),
        op("reshape_empty_with_minus_one", "Reshape", ["x", "s"], T=T(FLOAT), Tshape=T(INT32))],
        ok({"reshape_empty_with_minus_one": value("f4", [1, 0], [])}))
    c.graph("squeeze_non_one_dim", CAT, [const("x", m, FLOAT),
                                         op("squeeze_non_one_dim", "Squeeze", ["x"], T=T(FLOAT), squeeze_dims=[0])])
    c.graph("squeeze_dim_out_of_range", CAT, [const("x", m, FLOAT),
                                              op("squeeze_dim_out_of_range", "Squeeze", ["x"], T=T(FLOAT),
                                                 squeeze_dims=[9])])

    def split(name, num_split, axis=0, expect=None, **kw):
        c.graph(name, CAT, [const("axis", axis), const("x", [1.0, 2.0, 3.0, 4.0], FLOAT),
                            op(name, "Split", ["axis", "x"], T=T(FLOAT), num_split=num_split)], expect, **kw)
    # 2^31 - 1 outputs: refused when the op is made (an op has at most 2^20 outputs), before the
    # graph would build metadata for each.
    split("split_num_2e31", 2 ** 31 - 1)
    split("split_num_zero", 0)
    split("split_num_negative", -2)
    split("split_not_divisible", 3)
    split("split_axis_out_of_range", 2, axis=1)

    def splitv(name, sizes, num_split, axis=0, expect=None, **kw):
        c.graph(name, CAT, [const("x", [1.0, 2.0, 3.0, 4.0], FLOAT), const("sizes", sizes), const("axis", axis),
                            op(name, "SplitV", ["x", "sizes", "axis"], T=T(FLOAT), Tlen=T(INT32),
                               num_split=num_split)], expect, **kw)
    splitv("splitv_sizes_too_large", [3, 3], 2)
    splitv("splitv_two_minus_ones", [-1, -1], 2)
    splitv("splitv_negative_size", [-2, 6], 2)
    splitv("splitv_count_mismatch", [1, 1, 2], 2)
    splitv("splitv_num_split_huge", [4], 2 ** 31 - 1)
    c.graph("unpack_num_2e31", CAT, [placeholder("x", FLOAT), op("unpack_num_2e31", "Unpack", ["x"], T=T(FLOAT),
                                                                  num=2 ** 31 - 1, axis=0)],
            feeds=["x=[1.0]"])
    c.graph("shapen_n_2e31", CAT, [placeholder("x", FLOAT), op("shapen_n_2e31", "ShapeN", ["x"], T=T(FLOAT),
                                                                N=2 ** 31 - 1, out_type=T(INT32))],
            feeds=["x=[1.0]"])
    splitv("splitv_axis_out_of_range", [2, 2], 2, axis=-2)

    def slice_(name, begin, size, expect=None):
        c.graph(name, CAT, [const("x", m, FLOAT), const("b", begin), const("s", size),
                            op(name, "Slice", ["x", "b", "s"], T=T(FLOAT), Index=T(INT32))], expect)
    slice_("slice_beyond_end", [1, 1], [2, 2])
    slice_("slice_begin_negative", [-1, 0], [1, 1])
    slice_("slice_size_negative", [0, 0], [1, -2])
    slice_("slice_begin_huge", [0, 2 ** 31 - 1], [1, 1])
    slice_("slice_rank_mismatch", [0], [1, 1])

    def strided(name, begin, end, strides, expect=None, **masks):
        c.graph(name, CAT, [const("x", m, FLOAT), const("b", begin), const("e", end), const("s", strides),
                            op(name, "StridedSlice", ["x", "b", "e", "s"], T=T(FLOAT), Index=T(INT32), **masks)],
                expect)
    strided("stridedslice_stride_zero", [0, 0], [2, 3], [1, 0])
    strided("stridedslice_two_ellipses", [0, 0], [1, 1], [1, 1], ellipsis_mask=3)
    strided("stridedslice_shrink_out_of_range", [5, 0], [6, 1], [1, 1], shrink_axis_mask=1)
    strided("stridedslice_lengths_differ", [0], [1, 1], [1, 1, 1])
    strided("stridedslice_int32_min_stride", [0, 0], [2, 3], [1, -2 ** 31],
            expect=ok({"stridedslice_int32_min_stride": value("f4", [2, 0], [])}))
    strided("stridedslice_all_masks", [0, 0], [1, 1], [1, 1], begin_mask=-1, end_mask=-1, ellipsis_mask=0,
            new_axis_mask=-1, shrink_axis_mask=-1,
            expect=ok({"stridedslice_all_masks": value("f4", [1, 1, 2, 3], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])}))
    strided("stridedslice_huge_bounds", [-2 ** 31, -2 ** 31], [2 ** 31 - 1, 2 ** 31 - 1], [1, 1],
            expect=ok({"stridedslice_huge_bounds": value("f4", [2, 3], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])}))

    def concat(name, parts, axis, expect=None):
        nodes = [const("p%d" % i, p, FLOAT) for i, p in enumerate(parts)] + [const("axis", axis)]
        nodes.append(op(name, "ConcatV2", ["p%d" % i for i in range(len(parts))] + ["axis"], T=T(FLOAT),
                        N=len(parts), Tidx=T(INT32)))
        c.graph(name, CAT, nodes, expect)
    concat("concatv2_axis_out_of_range", [m, m], 2)
    concat("concatv2_axis_int32_min", [m, m], -2 ** 31)
    concat("concatv2_ranks_differ", [m, [1.0, 2.0]], 0)
    concat("concatv2_dims_differ", [m, [[1.0, 2.0]]], 0)
    c.graph("concatv2_n_mismatch", CAT, [const("p0", m, FLOAT), const("axis", 0),
                                         op("concatv2_n_mismatch", "ConcatV2", ["p0", "p0", "axis"], T=T(FLOAT), N=5,
                                            Tidx=T(INT32))])
    c.graph("pack_shapes_differ", CAT, [const("a", [1.0, 2.0], FLOAT), const("b", [1.0], FLOAT),
                                        op("pack_shapes_differ", "Pack", ["a", "b"], T=T(FLOAT), N=2, axis=0)])
    c.graph("pack_axis_out_of_range", CAT, [const("a", [1.0, 2.0], FLOAT),
                                            op("pack_axis_out_of_range", "Pack", ["a", "a"], T=T(FLOAT), N=2,
                                               axis=3)])
    c.graph("unpack_num_mismatch", CAT, [const("a", m, FLOAT),
                                         op("unpack_num_mismatch", "Unpack", ["a"], T=T(FLOAT), num=3, axis=0)])

    def binary(name, op_type, a, b, expect=None, **attrs):
        attrs.setdefault("T", T(FLOAT))
        c.graph(name, CAT, [const("a", a, FLOAT), const("b", b, FLOAT), op(name, op_type, ["a", "b"], **attrs)],
                expect)
    binary("matmul_inner_mismatch", "MatMul", m, m)
    binary("matmul_rank3", "MatMul", [m], [m])
    binary("matmul_transpose_mismatch", "MatMul", m, m, transpose_a=True, transpose_b=True)
    binary("batchmatmulv2_batch_mismatch", "BatchMatMulV2", [m, m, m], [[[1.0], [1.0], [1.0]]] * 2)
    binary("batchmatmulv2_rank1", "BatchMatMulV2", [1.0, 2.0], [1.0, 2.0])
    binary("addv2_shapes_incompatible", "AddV2", m, [1.0, 2.0])
    binary("squareddifference_incompatible", "SquaredDifference", [1.0, 2.0, 3.0], [1.0, 2.0])
    c.graph("matmul_empty_inner", CAT, [const("a", [], FLOAT, dims=[2, 0]), const("b", [], FLOAT, dims=[0, 2]),
                                        op("matmul_empty_inner", "MatMul", ["a", "b"], T=T(FLOAT))],
            expect=ok({"matmul_empty_inner": value("f4", [2, 2], [0.0] * 4)}))

    def einsum(name, equation, operands, expect=None, known_bug=None):
        nodes = [const("x%d" % i, x, FLOAT) for i, x in enumerate(operands)]
        nodes.append(op(name, "Einsum", ["x%d" % i for i in range(len(operands))], T=T(FLOAT), N=len(operands),
                        equation=equation))
        c.graph(name, CAT, nodes, expect, known_bug=known_bug)
    einsum("einsum_no_arrow_wrong_inputs", "ij,jk", [m])
    einsum("einsum_two_arrows", "ij->ji->ij", [m])
    einsum("einsum_output_label_unknown", "ij->ik", [m])
    einsum("einsum_label_repeated_in_output", "ij->iij", [m],
           ok({"einsum_label_repeated_in_output": value("f4", [2, 2, 3],
                                                        [1.0, 2.0, 3.0] + [0.0] * 6 + [4.0, 5.0, 6.0])}))
    einsum("einsum_dimension_mismatch", "i,i->", [[1.0, 2.0], [1.0, 2.0, 3.0]])
    einsum("einsum_rank_mismatch", "ijk->i", [m])
    einsum("einsum_non_letter_labels", "i$,j#->ij", [[[1.0]], [[1.0]]],
           ok({"einsum_non_letter_labels": value("f4", [1, 1], [1.0])}))
    einsum("einsum_two_ellipses", "...i...->i", [m])
    einsum("einsum_empty_equation", "", [m])
    einsum("einsum_three_operands_declared_two", "i,i,i->i", [[1.0], [1.0]])

    c.graph("select_condition_mismatch", CAT, [const("c", [True, False, True], pb.BOOL), const("a", m, FLOAT),
                                               op("select_condition_mismatch", "Select", ["c", "a", "a"],
                                                  T=T(FLOAT))])
    c.graph("matrixbandpart_num_lower_too_big", CAT, [
        const("x", m, FLOAT), const("lo", 5, INT64), const("hi", 0, INT64),
        op("matrixbandpart_num_lower_too_big", "MatrixBandPart", ["x", "lo", "hi"], T=T(FLOAT), Tindex=T(INT64))])
    c.graph("spacetobatchnd_block_zero", CAT, [
        const("x", [[[[1.0], [2.0]], [[3.0], [4.0]]]], FLOAT), const("block", [0, 0]), const("pad", [[0, 0], [0, 0]]),
        op("spacetobatchnd_block_zero", "SpaceToBatchND", ["x", "block", "pad"], T=T(FLOAT), Tblock_shape=T(INT32),
           Tpaddings=T(INT32))])
    c.graph("spacetobatchnd_block_negative", CAT, [
        const("x", [[[[1.0], [2.0]], [[3.0], [4.0]]]], FLOAT), const("block", [-2, 2]),
        const("pad", [[0, 0], [0, 0]]),
        op("spacetobatchnd_block_negative", "SpaceToBatchND", ["x", "block", "pad"], T=T(FLOAT),
           Tblock_shape=T(INT32), Tpaddings=T(INT32))])
    c.graph("batchtospacend_crops_too_large", CAT, [
        const("x", [[[[1.0]]], [[[2.0]]], [[[3.0]]], [[[4.0]]]], FLOAT), const("block", [2, 2]),
        const("crops", [[3, 3], [0, 0]]),
        op("batchtospacend_crops_too_large", "BatchToSpaceND", ["x", "block", "crops"], T=T(FLOAT),
           Tblock_shape=T(INT32), Tcrops=T(INT32))])
    c.graph("batchtospacend_batch_not_divisible", CAT, [
        const("x", [[[[1.0]]], [[[2.0]]], [[[3.0]]]], FLOAT), const("block", [2, 2]),
        const("crops", [[0, 0], [0, 0]]),
        op("batchtospacend_batch_not_divisible", "BatchToSpaceND", ["x", "block", "crops"], T=T(FLOAT),
           Tblock_shape=T(INT32), Tcrops=T(INT32))])


def add(c):
    add_conv_pool(c)
    add_axes(c)
