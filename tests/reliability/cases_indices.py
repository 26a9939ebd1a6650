"""Indices out of range, negative or unsorted: gathers, scatters, segment reductions,
SparseToDense, Bincount, DynamicStitch, InvertPermutation, ResourceGather. TensorFlow's CPU
kernels refuse these with an error (or define the result, e.g. OneHot of an out-of-range index
is a row of off_value); reading or writing out of bounds is the bug these cases look for."""

import pb
from catalogue import either, error, ok, value
from ops import const, op, T, placeholder
from pb import FLOAT, INT32, INT64, a_shape

CAT = "indices"
M = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def add(c):
    def gather(name, indices, axis=0, expect=None, itype=INT32, batch_dims=0):
        c.graph(name, CAT, [const("x", M, FLOAT), const("i", indices, itype), const("axis", axis),
                            op(name, "GatherV2", ["x", "i", "axis"], Tparams=T(FLOAT), Tindices=T(itype),
                               Taxis=T(INT32), batch_dims=batch_dims)], expect)
    gather("gatherv2_index_out_of_range", [0, 5])
    gather("gatherv2_index_negative", [-1])
    gather("gatherv2_index_int64_huge", [2 ** 62], itype=INT64)
    gather("gatherv2_index_int64_min", [-2 ** 63], itype=INT64)
    gather("gatherv2_axis_out_of_range", [0], axis=2)
    gather("gatherv2_axis_negative_out_of_range", [0], axis=-3)
    gather("gatherv2_batch_dims_too_large", [[0]], batch_dims=3)
    gather("gatherv2_last_valid_index", [1, 0], expect=ok({"gatherv2_last_valid_index": value(
        "f4", [2, 3], [4.0, 5.0, 6.0, 1.0, 2.0, 3.0])}))
    gather("gatherv2_axis1_out_of_range", [3], axis=1)
    c.graph("gatherv2_empty_params_any_index", CAT, [
        const("x", [], FLOAT, dims=[0, 3]), const("i", [0]), const("axis", 0),
        op("gatherv2_empty_params_any_index", "GatherV2", ["x", "i", "axis"], Tparams=T(FLOAT), Tindices=T(INT32),
           Taxis=T(INT32))])

    def gathernd(name, indices, expect=None):
        c.graph(name, CAT, [const("x", M, FLOAT), const("i", indices),
                            op(name, "GatherNd", ["x", "i"], Tparams=T(FLOAT), Tindices=T(INT32))], expect)
    gathernd("gathernd_index_out_of_range", [[1, 3]])
    gathernd("gathernd_index_negative", [[0, -1]])
    gathernd("gathernd_index_depth_too_large", [[0, 0, 0]])
    gathernd("gathernd_scalar_indices", 0)

    def scatternd(name, indices, updates, shape, expect=None):
        c.graph(name, CAT, [const("i", indices), const("u", updates, FLOAT), const("s", shape),
                            op(name, "ScatterNd", ["i", "u", "s"], T=T(FLOAT), Tindices=T(INT32))], expect)
    scatternd("scatternd_index_out_of_range", [[4]], [1.0], [4])
    scatternd("scatternd_index_negative", [[-1]], [1.0], [4])
    scatternd("scatternd_shape_negative", [[0]], [1.0], [-4])
    scatternd("scatternd_updates_mismatch", [[0], [1]], [1.0, 2.0, 3.0], [4])
    scatternd("scatternd_shape_empty_index_any", [[0]], [1.0], [0])
    scatternd("scatternd_duplicate_indices_sum", [[1], [1]], [1.0, 2.0], [3],
              expect=ok({"scatternd_duplicate_indices_sum": value("f4", [3], [0.0, 3.0, 0.0])}))

    def tsu(name, indices, updates, expect=None):
        c.graph(name, CAT, [const("x", [1.0, 2.0, 3.0], FLOAT), const("i", indices), const("u", updates, FLOAT),
                            op(name, "TensorScatterUpdate", ["x", "i", "u"], T=T(FLOAT), Tindices=T(INT32))], expect)
    tsu("tensorscatterupdate_index_out_of_range", [[3]], [9.0])
    tsu("tensorscatterupdate_index_negative", [[-2]], [9.0])
    tsu("tensorscatterupdate_index_too_deep", [[0, 0]], [9.0])

    def segment(name, op_type, ids, nseg=None, data=(1.0, 2.0, 3.0), expect=None):
        nodes = [const("d", list(data), FLOAT), const("ids", ids)]
        inputs = ["d", "ids"]
        attrs = {"T": T(FLOAT), "Tindices": T(INT32)}
        if nseg is not None:
            nodes.append(const("n", nseg))
            inputs.append("n")
            attrs["Tnumsegments"] = T(INT32)
        nodes.append(op(name, op_type, inputs, **attrs))
        c.graph(name, CAT, nodes, expect)
    segment("unsortedsegmentsum_id_out_of_range", "UnsortedSegmentSum", [0, 1, 7], 3)
    segment("unsortedsegmentsum_negative_segments", "UnsortedSegmentSum", [0, 1, 2], -3)
    segment("unsortedsegmentsum_ids_length_mismatch", "UnsortedSegmentSum", [0, 1], 3)
    segment("unsortedsegmentsum_negative_id_dropped", "UnsortedSegmentSum", [0, -1, 1], 2,
            expect=ok({"unsortedsegmentsum_negative_id_dropped": value("f4", [2], [1.0, 3.0])}))
    segment("unsortedsegmentmax_id_out_of_range", "UnsortedSegmentMax", [0, 3, 1], 3)
    segment("segmentsum_unsorted_ids", "SegmentSum", [1, 0, 1])
    segment("segmentsum_negative_ids", "SegmentSum", [-1, 0, 0])
    segment("segmentsum_huge_last_id", "SegmentSum", [0, 0, 2 ** 31 - 1])
    segment("segmentprod_length_mismatch", "SegmentProd", [0, 0])
    segment("segmentsum_gap_gives_zero", "SegmentSum", [0, 0, 2],
            expect=ok({"segmentsum_gap_gives_zero": value("f4", [3], [3.0, 0.0, 3.0])}))

    def bincount(name, arr, size, weights=(), expect=None):
        c.graph(name, CAT, [const("x", arr), const("size", size),
                            const("w", list(weights), FLOAT, dims=[len(weights)]),
                            op(name, "DenseBincount", ["x", "size", "w"], Tidx=T(INT32), T=T(FLOAT))], expect)
    bincount("densebincount_negative_size", [1, 2], -1)
    bincount("densebincount_negative_value", [1, -2], 4)
    bincount("densebincount_value_beyond_size", [1, 9], 4,
             expect=ok({"densebincount_value_beyond_size": value("f4", [4], [0.0, 1.0, 0.0, 0.0])}))
    bincount("densebincount_weights_mismatch", [1, 2], 4, weights=[1.0, 2.0, 3.0])

    def stitch(name, idx, data, expect=None):
        nodes = [const("i%d" % k, v) for k, v in enumerate(idx)]
        nodes += [const("d%d" % k, v, FLOAT) for k, v in enumerate(data)]
        nodes.append(op(name, "DynamicStitch", ["i%d" % k for k in range(len(idx))] +
                        ["d%d" % k for k in range(len(data))], T=T(FLOAT), N=len(idx)))
        c.graph(name, CAT, nodes, expect)
    stitch("dynamicstitch_negative_index", [[0, -1]], [[1.0, 2.0]])
    stitch("dynamicstitch_data_shape_mismatch", [[0, 1]], [[1.0, 2.0, 3.0]])
    stitch("dynamicstitch_gap_zero_filled", [[0, 2]], [[1.0, 2.0]],
           expect=ok({"dynamicstitch_gap_zero_filled": value("f4", [3], [1.0, 0.0, 2.0])}))

    def tensorlist(name, tail, fetch_op, expect=None, n=2):
        """A list of n float scalars (TensorListReserve) followed by the nodes in tail."""
        nodes = [const("eshape", [], INT32, dims=[0]), const("n", n),
                 op("list", "TensorListReserve", ["eshape", "n"], element_dtype=T(FLOAT), shape_type=T(INT32))]
        c.graph(name, CAT, nodes + tail, expect, fetch=fetch_op)
    tensorlist("tensorlistgetitem_index_out_of_range", [
        const("i", 5), op("tensorlistgetitem_index_out_of_range", "TensorListGetItem", ["list", "i", "eshape"],
                          element_dtype=T(FLOAT))], None)
    tensorlist("tensorlistgetitem_index_negative", [
        const("i", -1), op("tensorlistgetitem_index_negative", "TensorListGetItem", ["list", "i", "eshape"],
                           element_dtype=T(FLOAT))], None)
    tensorlist("tensorlistsetitem_index_out_of_range", [
        const("i", 2), const("v", 1.0, FLOAT),
        op("tensorlistsetitem_index_out_of_range", "TensorListSetItem", ["list", "i", "v"], element_dtype=T(FLOAT)),
        op("len", "TensorListLength", ["tensorlistsetitem_index_out_of_range"])], "len")
    tensorlist("tensorlistpopback_empty", [
        op("tensorlistpopback_empty", "TensorListPopBack", ["list", "eshape"], element_dtype=T(FLOAT))],
        "tensorlistpopback_empty:1", n=0)
    tensorlist("tensorliststack_dtype_mismatch", [
        op("tensorliststack_dtype_mismatch", "TensorListStack", ["list", "eshape"], element_dtype=T(INT32),
           num_elements=-1)], None)
    tensorlist("tensorliststack_unset_elements_are_zeros", [
        op("tensorliststack_unset_elements_are_zeros", "TensorListStack", ["list", "eshape"],
           element_dtype=T(FLOAT), num_elements=-1)], None,
        ok({"tensorliststack_unset_elements_are_zeros": value("f4", [2], [0.0, 0.0])}))
    c.graph("tensorlistfromtensor_scalar", CAT, [
        const("t", 1.0, FLOAT), const("eshape", [], INT32, dims=[0]),
        op("tensorlistfromtensor_scalar", "TensorListFromTensor", ["t", "eshape"], element_dtype=T(FLOAT),
           shape_type=T(INT32)),
        op("len", "TensorListLength", ["tensorlistfromtensor_scalar"])], fetch="len",
        expect=error("'tensorlistfromtensor_scalar'"))
    c.graph("stackpopv2_empty", CAT, [
        const("size", 4), op("stack", "StackV2", ["size"], elem_type=T(FLOAT), stack_name="s"),
        op("stackpopv2_empty", "StackPopV2", ["stack"], elem_type=T(FLOAT))])
    c.graph("stackpushv2_past_max_size", CAT, [
        const("size", 1), const("v", 1.0, FLOAT), op("stack", "StackV2", ["size"], elem_type=T(FLOAT), stack_name="s"),
        op("push1", "StackPushV2", ["stack", "v"], T=T(FLOAT)),
        op("stackpushv2_past_max_size", "StackPushV2", ["stack", "v", "^push1"], T=T(FLOAT))], either(),
        note="TensorFlow 2.21 lets the push past max_size succeed; Graft refuses it")
    c.graph("sparsesoftmaxxent_label_out_of_range", CAT, [
        const("logits", [[1.0, 2.0, 3.0]], FLOAT), const("labels", [5]),
        op("sparsesoftmaxxent_label_out_of_range", "SparseSoftmaxCrossEntropyWithLogits", ["logits", "labels"],
           T=T(FLOAT), Tlabels=T(INT32))])
    c.graph("sparsesoftmaxxent_label_negative", CAT, [
        const("logits", [[1.0, 2.0, 3.0]], FLOAT), const("labels", [-1]),
        op("sparsesoftmaxxent_label_negative", "SparseSoftmaxCrossEntropyWithLogits", ["logits", "labels"],
           T=T(FLOAT), Tlabels=T(INT32))])
    c.graph("bucketize_boundaries_unsorted", CAT, [
        const("x", [1.0, 5.0], FLOAT),
        op("bucketize_boundaries_unsorted", "Bucketize", ["x"], T=T(FLOAT), boundaries=pb.a_list(f=[3.0, 1.0]))])

    def invperm(name, perm, expect=None):
        c.graph(name, CAT, [const("p", perm), op(name, "InvertPermutation", ["p"], T=T(INT32))], expect)
    invperm("invertpermutation_out_of_range", [0, 3, 1])
    invperm("invertpermutation_duplicate", [0, 0, 1])
    invperm("invertpermutation_negative", [-1, 0, 1])

    def onehot(name, indices, expect):
        c.graph(name, CAT, [const("i", indices), const("depth", 3), const("on", 1.0, FLOAT), const("off", 0.0, FLOAT),
                            op(name, "OneHot", ["i", "depth", "on", "off"], T=T(FLOAT), TI=T(INT32), axis=-1)],
                expect)
    onehot("onehot_index_out_of_range_is_off", [5, -1, 1],
           ok({"onehot_index_out_of_range_is_off": value("f4", [3, 3], [0.0] * 7 + [1.0, 0.0])}))

    def resource_gather(name, indices, expect=None):
        nodes = [op("var", "VarHandleOp", dtype=T(FLOAT), shape=a_shape([3]), container="", shared_name="v"),
                 const("init", [1.0, 2.0, 3.0], FLOAT),
                 op("assign", "AssignVariableOp", ["var", "init"], dtype=T(FLOAT)),
                 const("i", indices),
                 op(name, "ResourceGather", ["var", "i", "^assign"], dtype=T(FLOAT), Tindices=T(INT32))]
        c.graph(name, CAT, nodes, expect)
    resource_gather("resourcegather_index_out_of_range", [0, 3])
    resource_gather("resourcegather_index_negative", [-1])
    resource_gather("resourcegather_in_range", [2, 0],
                    ok({"resourcegather_in_range": value("f4", [2], [3.0, 1.0])}))
    c.graph("resourcegather_uninitialized", CAT, [
        op("var", "VarHandleOp", dtype=T(FLOAT), shape=a_shape([3]), container="", shared_name="v"),
        const("i", [0]), op("resourcegather_uninitialized", "ResourceGather", ["var", "i"], dtype=T(FLOAT),
                            Tindices=T(INT32))])
    c.graph("readvariableop_dtype_mismatch", CAT, [
        op("var", "VarHandleOp", dtype=T(FLOAT), shape=a_shape([3]), container="", shared_name="v"),
        const("init", [1, 2, 3]), op("assign", "AssignVariableOp", ["var", "init"], dtype=T(INT32)),
        op("readvariableop_dtype_mismatch", "ReadVariableOp", ["var", "^assign"], dtype=T(FLOAT))],
        error("'assign'"))
    c.graph("unique_fed_empty", CAT, [
        placeholder("p", FLOAT), op("unique_fed_empty", "Unique", ["p"], T=T(FLOAT), out_idx=T(INT32))],
        feeds=["p=[]:float32"], fetch=["unique_fed_empty:0", "unique_fed_empty:1"],
        expect=ok({"unique_fed_empty:0": value("f4", [0], []), "unique_fed_empty:1": value("i4", [0], [])}))
    c.graph("where_empty", CAT, [
        const("x", [], pb.BOOL, dims=[0, 2]), op("where_empty", "Where", ["x"], T=T(pb.BOOL))],
        expect=ok({"where_empty": value("i8", [0, 2], [])}))
