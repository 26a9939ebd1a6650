"""Corrupted files: copies of the conformance SavedModels with saved_model.pb, the variables
index or the data shard truncated, emptied, removed or with bytes flipped (drawn from a
random.Random seeded per model); broken GraphDef files; and .npy feeds with bad headers,
shapes, dtypes or lengths. A truncated, empty or missing file must give an error; a flipped
byte may still load (then only "exit 0, or 1 with a message" is asked)."""

import json
import os
import random
import shutil
import struct
import zlib

import npy
import pb
from catalogue import error, either, ok, value
from cases_structure import nested_attr
from ops import identity, placeholder

CAT_SM = "savedmodel_files"
CAT_GRAPH = "graph_files"
CAT_NPY = "npy_feeds"

# The corruptions that the larger models (saved_model.pb over 60 KB) get; the others get all.
LARGE_MODEL_SUBSET = ("pb_truncated_half", "pb_flip_1", "pb_flip_2", "index_flip_1", "data_flip_1",
                      "data_truncated_half")


def model_cases(conformance):
    """(model dir name, its first conformance step, the case folder), one per SavedModel."""
    seen = {}
    cases_dir = os.path.join(conformance, "cases")
    for name in sorted(os.listdir(cases_dir)):
        path = os.path.join(cases_dir, name, "case.json")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            case = json.load(f)
        if case.get("kind") == "savedmodel":
            model = os.path.basename(case["model"])
            seen.setdefault(model, (case["steps"][0], os.path.join(cases_dir, name), case))
    return [(m,) + seen[m] for m in sorted(seen)]


def naming(expect, path):
    """An error expectation that asks for the file's path in the message, unless it asks for more."""
    if expect["expect"] == "error" and not expect["message"]:
        return error(path)
    return expect


def flip(data, rng, count=1):
    data = bytearray(data)
    for _ in range(count):
        i = rng.randrange(len(data))
        data[i] ^= rng.randrange(1, 256)
    return bytes(data)


def huge_length(data):
    """The first length-delimited field's length replaced by a 10-byte varint of 2^62."""
    i = 0
    while i < len(data):
        tag = data[i]
        i += 1
        if tag & 7 == pb.VARINT:
            while data[i] & 0x80:
                i += 1
            i += 1
        elif tag & 7 == pb.LEN:
            j = i
            while data[j] & 0x80:
                j += 1
            return data[:i] + pb.varint(2 ** 62) + data[j + 1:]
        else:
            break
    return pb.key(2, pb.LEN) + pb.varint(2 ** 62) + data


def corruptions(rng, has_variables, has_fingerprint):
    """name -> (file relative to the model dir, how to change its bytes (None: remove it), expectation)."""
    out = {
        "pb_empty": ("saved_model.pb", lambda d: b"", error()),
        "pb_one_byte": ("saved_model.pb", lambda d: d[:1], error()),
        "pb_truncated_tenth": ("saved_model.pb", lambda d: d[:len(d) // 10], error()),
        "pb_truncated_half": ("saved_model.pb", lambda d: d[:len(d) // 2], error()),
        "pb_truncated_last_byte": ("saved_model.pb", lambda d: d[:-1], error()),
        "pb_huge_length": ("saved_model.pb", huge_length, error()),
        "pb_missing": ("saved_model.pb", None, error()),
        "pb_garbage_appended": ("saved_model.pb", lambda d: d + bytes(rng.randrange(256) for _ in range(64)),
                                either()),
    }
    for k in range(1, 4):
        out["pb_flip_%d" % k] = ("saved_model.pb", lambda d: flip(d, rng), either())
    out["pb_flip_32"] = ("saved_model.pb", lambda d: flip(d, rng, 32), either())
    if has_variables:
        idx, data = "variables/variables.index", "variables/variables.data-00000-of-00001"
        out.update({
            "index_empty": (idx, lambda d: b"", error()),
            "index_truncated_half": (idx, lambda d: d[:len(d) // 2], error()),
            "index_truncated_footer": (idx, lambda d: d[:-8], error()),
            "index_missing": (idx, None, error()),
            "index_flip_1": (idx, lambda d: flip(d, rng), either()),
            "index_flip_8": (idx, lambda d: flip(d, rng, 8), either()),
            "data_empty": (data, lambda d: b"", error()),
            "data_truncated_half": (data, lambda d: d[:len(d) // 2], error()),
            "data_missing_shard": (data, None, error()),
            "data_flip_1": (data, lambda d: flip(d, rng), either()),
            "data_garbage_appended": (data, lambda d: d + b"\xff" * 16, either()),
            "variables_dir_missing": ("variables", None, error()),
        })
    if has_fingerprint:
        out["fingerprint_flip_4"] = ("fingerprint.pb", lambda d: flip(d, rng, 4), either())
        out["fingerprint_empty"] = ("fingerprint.pb", lambda d: b"", either())
    return out


# TF2 object graphs (MetaGraphDef.object_graph_def): saved_model.pb rewritten at the field level.
OBJECTS = [2, 7]  # SavedModel.meta_graphs -> MetaGraphDef.object_graph_def
I31 = 2 ** 31 - 1


def set_varints(field, v):
    def change(fields):
        for f in fields:
            if f[0] == field:
                f[1], f[2] = pb.VARINT, v
    return change


def set_bytes(field, v):
    def change(fields):
        for f in fields:
            if f[0] == field:
                f[1], f[2] = pb.LEN, v
    return change


def drop(field):
    return lambda fields: fields.__setitem__(slice(None), [f for f in fields if f[0] != field])


def append(field, v):
    return lambda fields: fields.append([field, pb.LEN, v])


OBJECT_EDITS = {  # name -> (path below OBJECTS, change, expectation)
    "child_id_huge": ([(1, 0), (1, 0)], set_varints(1, I31), error()),
    "child_id_negative": ([(1, 0), (1, 0)], set_varints(1, -1), error()),
    "root_is_its_own_child": ([(1, 0)], append(1, pb.f_int(1, 0) + pb.f_bytes(2, "self")), either()),
    "dependency_id_huge": ([1, 15], set_varints(1, I31), either()),
    "bound_inputs_huge": ([2, 2], set_bytes(2, pb.varint(I31)), either()),
    "function_names_missing": ([1, 6], set_bytes(1, b"nosuch"), either()),
    "variable_dtype_invalid": ([1, 7], set_varints(1, 99), error()),
    "variable_shape_negative": ([1, 7], set_bytes(2, pb.shape([-5])), either()),
    "nodes_removed": ([], drop(1), either()),
}


def object_graph_cases(c, model, src, step, case_dir):
    with open(os.path.join(src, "saved_model.pb"), "rb") as f:
        data = f.read()
    variants = {"objects_" + k: (pb.rewrite(data, OBJECTS + p, ch), e) for k, (p, ch, e) in OBJECT_EDITS.items()}
    variants["objects_removed"] = (pb.rewrite(data, [2], drop(7)), either())
    for name, (blob, expect) in variants.items():
        rel = "models/%s/%s" % (model, name)
        shutil.copytree(src, os.path.join(c.outdir, rel))
        c.write(rel + "/saved_model.pb", blob)
        c.add("sm_%s_%s" % (model, name), CAT_SM, run_args(c, model, rel, step, case_dir, {}), naming(expect, rel))


def run_args(c, model, rel_dir, step, case_dir, want_outputs):
    """`graft run DIR --signature S --input K=@FILE ... --output K[=FILE]` for the step."""
    args = ["run", rel_dir, "--signature", step.get("signature", "serving_default")]
    for key, path in sorted(step.get("feeds", {}).items()):
        with open(os.path.join(case_dir, path), "rb") as f:
            rel = c.write("feeds/%s_%s.npy" % (model, key), f.read())
        args += ["--input", "%s=@%s" % (key, rel)]
    for key in sorted(step.get("fetches", {})):
        args += ["--output", "%s=%s" % (key, want_outputs[key]["file"]) if key in want_outputs else key]
    return args


def add_savedmodels(c, conformance):
    root = os.path.join(conformance, "savedmodels")
    for model, step, case_dir, case in model_cases(conformance):
        src = os.path.join(root, model)
        rng = random.Random(zlib.crc32(model.encode()))
        has_vars = os.path.isdir(os.path.join(src, "variables"))
        large = os.path.getsize(os.path.join(src, "saved_model.pb")) > 60000
        # The intact copy: the conformance result, so that the harness itself is checked.
        outputs = {}
        for k, (key, path) in enumerate(sorted(step.get("fetches", {}).items())):
            want = npy.read(os.path.join(case_dir, path))
            outputs[key] = value(want.dtype, want.shape, want.values, rtol=case.get("rtol", 1e-5),
                                 atol=case.get("atol", 1e-6))
            outputs[key]["file"] = "results/sm_%s_intact.%d.npy" % (model, k)
        rel = "models/%s/intact" % model
        shutil.copytree(src, os.path.join(c.outdir, rel))
        c.add("sm_%s_intact" % model, CAT_SM, run_args(c, model, rel, step, case_dir, outputs), ok(outputs))
        c.add("sm_%s_inspect_intact" % model, CAT_SM, ["inspect", rel], ok(stdout=["MetaGraph tag sets"]))
        for name, (target, change, expect) in corruptions(rng, has_vars,
                                                          os.path.isfile(os.path.join(src, "fingerprint.pb"))).items():
            if large and name not in LARGE_MODEL_SUBSET:
                continue
            rel = "models/%s/%s" % (model, name)
            dst = os.path.join(c.outdir, rel)
            shutil.copytree(src, dst)
            path = os.path.join(dst, target)
            if change is None:
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
            else:
                with open(path, "rb") as f:
                    data = f.read()
                with open(path, "wb") as f:
                    f.write(change(data))
            expect = naming(expect, rel)
            c.add("sm_%s_%s" % (model, name), CAT_SM, run_args(c, model, rel, step, case_dir, {}), expect)
            if name.startswith("pb_") and name in LARGE_MODEL_SUBSET + ("pb_empty", "pb_huge_length"):
                c.add("sm_%s_inspect_%s" % (model, name), CAT_SM, ["inspect", rel], expect)
        if model.endswith(("_tf2", "_tf221")) and not large:
            object_graph_cases(c, model, src, step, case_dir)


def add_synthetic_models(c):
    """SavedModels written here: a GraphDef nested too deeply for a recursive parser, a cyclic
    GraphDef, no MetaGraph tagged serve, and a directory that is no SavedModel."""
    deep_graph = pb.graph([pb.node("x", "Const", attrs={"_deep": nested_attr(3000)})])
    meta = pb.f_bytes(1, pb.f_bytes(4, "serve")) + pb.f_bytes(2, deep_graph)
    c.write("models/synthetic/nested_deep/saved_model.pb", pb.f_int(1, 1) + pb.f_bytes(2, meta))
    c.add("sm_synthetic_nested_deep", CAT_SM, ["inspect", "models/synthetic/nested_deep"],
          error("nests messages more than 100 deep"))
    meta = pb.f_bytes(1, pb.f_bytes(4, "serve")) + pb.f_bytes(2, pb.graph([identity("y", "y")]))
    c.write("models/synthetic/cyclic_graph/saved_model.pb", pb.f_int(1, 1) + pb.f_bytes(2, meta))
    c.add("sm_synthetic_cyclic_graph", CAT_SM, ["run", "models/synthetic/cyclic_graph", "--input", "x=1"],
          error("'y'"))
    meta = pb.f_bytes(1, pb.f_bytes(4, "train")) + pb.f_bytes(2, pb.graph([]))
    c.write("models/synthetic/no_serve_tag/saved_model.pb", pb.f_int(1, 1) + pb.f_bytes(2, meta))
    c.add("sm_synthetic_no_serve_tag", CAT_SM, ["inspect", "models/synthetic/no_serve_tag"], error("serve"))
    c.write("models/synthetic/not_a_model/readme.txt", b"nothing here\n")
    c.add("sm_synthetic_not_a_model", CAT_SM, ["inspect", "models/synthetic/not_a_model"], error())


def add_graph_files(c, conformance):
    """Broken copies of graphs/addition_int32.pb (x + y, int32), run with x=2, y=3."""
    path = os.path.join(conformance or "", "graphs", "addition_int32.pb")
    if conformance and os.path.isfile(path):
        with open(path, "rb") as f:
            data = f.read()
    else:  # the same graph, written here: Placeholders x, y (int32) -> AddV2 z
        data = pb.graph([placeholder("x", pb.INT32), placeholder("y", pb.INT32),
                         pb.node("z", "AddV2", ["x", "y"], {"T": pb.a_type(pb.INT32)})])
    rng = random.Random(22)
    run, fetch = ["--feed", "x=2", "--feed", "y=3", "--fetch", "z"], "z"
    variants = {
        "intact": (data, ok({fetch: value("i4", [], [5])})),
        "empty": (b"", error("x")),  # an empty GraphDef: no op 'x' to feed
        "one_byte": (data[:1], error()),
        "truncated_half": (data[:len(data) // 2], error()),
        "truncated_last_byte": (data[:-1], error()),
        "huge_length": (huge_length(data), error()),
        "random_bytes": (bytes(rng.randrange(256) for _ in range(512)), error()),
        "text_format": (b'node { name: "z" op: "Const" }\n', error()),
        "wrong_wire_type_for_node": (pb.f_int(1, 5) + data, error()),
        "negative_length": (pb.key(1, pb.LEN) + pb.varint(-1) + data, error()),
        "varint_eleven_bytes": (pb.key(3, pb.VARINT) + b"\xff" * 10 + b"\x01" + data, error()),
        "group_wire_type": (bytes([0x0B]) + data, error()),
        "zero_field_number": (bytes([0x00, 0x00]) + data, error()),
        "garbage_appended": (data + bytes(rng.randrange(256) for _ in range(32)), either()),
    }
    for k in range(1, 6):
        variants["flip_%d" % k] = (flip(data, rng), either())
    for vname, (blob, expect) in variants.items():
        rel = c.write("graphs/file_addition_int32_%s.pb" % vname, blob)
        expect = naming(expect, rel)
        args = ["run", rel] + run
        if expect["expect"] == "ok":
            expect["outputs"][fetch]["file"] = "results/file_%s.npy" % vname
            args = args[:-1] + ["%s=%s" % (fetch, expect["outputs"][fetch]["file"])]
        c.add("graphfile_%s" % vname, CAT_GRAPH, args, expect)
        if vname in ("truncated_half", "huge_length", "random_bytes", "flip_1"):
            c.add("graphfile_inspect_%s" % vname, CAT_GRAPH, ["inspect", rel], expect)
            c.add("graphfile_dot_%s" % vname, CAT_GRAPH, ["dot", rel], expect)
    os.makedirs(os.path.join(c.outdir, "graphs", "a_directory.pb"), exist_ok=True)
    c.add("graphfile_is_a_directory_inspect", CAT_GRAPH, ["inspect", "graphs/a_directory.pb/"], error())
    c.add("graphfile_missing", CAT_GRAPH, ["run", "graphs/no_such_file.pb", "--fetch", "z"], error("no_such_file"))


def add_npy_feeds(c):
    graph = c.write("graphs/npy_feed_graph.pb", pb.graph([
        placeholder("x", pb.FLOAT), pb.node("y", "Identity", ["x"], {"T": pb.a_type(pb.FLOAT)}),
        placeholder("s", pb.STRING), pb.node("t", "Identity", ["s"], {"T": pb.a_type(pb.STRING)})]))
    f4 = struct.pack("<2f", 1.5, -2.0)

    def feed(name, blob, expect, placeholder_name="x", fetch="y"):
        rel = c.write("feeds/%s.npy" % name, blob)
        expect = naming(expect, rel)
        args = ["run", graph, "--feed", "%s=@%s" % (placeholder_name, rel)]
        if expect["expect"] == "ok" and expect["outputs"]:
            expect["outputs"][fetch]["file"] = "results/%s.npy" % name
            args += ["--fetch", "%s=%s" % (fetch, expect["outputs"][fetch]["file"])]
        else:
            args += ["--fetch", fetch]
        c.add(name, CAT_NPY, args, expect)

    w = npy.write
    feed("npy_intact", w("<f4", (2,), f4), ok({"y": value("f4", [2], [1.5, -2.0])}))
    feed("npy_version_2_intact", w("<f4", (2,), f4, version=2), ok({"y": value("f4", [2], [1.5, -2.0])}))
    feed("npy_big_endian", w(">f4", (2,), struct.pack(">2f", 1.5, -2.0)), ok({"y": value("f4", [2], [1.5, -2.0])}))
    feed("npy_empty_array", w("<f4", (0, 3), b""), ok({"y": value("f4", [0, 3], [])}))
    feed("npy_bad_magic", b"\x93NUMPX" + w("<f4", (2,), f4)[6:], error())
    feed("npy_empty_file", b"", error())
    feed("npy_truncated_preamble", w("<f4", (2,), f4)[:8], error())
    feed("npy_version_9", w("<f4", (2,), f4, version=9), error())
    feed("npy_header_length_past_end", w("<f4", (2,), f4, hlen=60000), error())
    feed("npy_header_length_4gb", w("<f4", (2,), f4, version=2, hlen=0xFFFFFFFF), error())
    feed("npy_header_not_a_dict", w("", (), f4, header="[1, 2, 3]"), error())
    feed("npy_header_missing_shape", w("", (), f4, header="{'descr': '<f4', 'fortran_order': False}"), error())
    feed("npy_header_unterminated", w("", (), f4, header="{'descr': '<f4', 'shape': (2,"), error())
    feed("npy_header_non_ascii", w("", (), f4, header="{'descr': '<f4\xff\xfe', 'fortran_order': False, "
                                                     "'shape': (2,)}"), error())
    feed("npy_header_nul_bytes", w("", (), f4, header="{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\0\0"),
         either())
    feed("npy_shape_huge", w("<f4", (10 ** 12, 10 ** 12), f4), error())
    feed("npy_shape_overflows_int64", w("<f4", (2 ** 62, 2 ** 62, 16), f4), error())
    feed("npy_shape_negative", w("", (), f4, header="{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}"),
         error())
    feed("npy_shape_not_integers", w("", (), f4, header="{'descr': '<f4', 'fortran_order': False, "
                                                        "'shape': ('a', 2.5)}"), error())
    feed("npy_shape_rank_100", w("<f4", (1,) * 100, f4[:4]), either())
    feed("npy_data_truncated", w("<f4", (4,), f4), error())
    feed("npy_data_one_byte_short", w("<f4", (2,), f4[:-1]), error())
    feed("npy_data_extra_bytes", w("<f4", (2,), f4 + b"\0" * 4), either())
    feed("npy_dtype_mismatch_int32", w("<i4", (2,), struct.pack("<2i", 1, 2)), error("x"))
    feed("npy_fortran_order_2d", w("<f4", (1, 2), f4, fortran_order=True), error())
    feed("npy_fortran_order_1d", w("<f4", (2,), f4, fortran_order=True), either())
    feed("npy_object_dtype", w("|O", (2,), b"\0" * 16), error())
    feed("npy_void_dtype", w("|V4", (2,), f4), error())
    feed("npy_structured_dtype", w("", (), f4, header="{'descr': [('a', '<f4')], 'fortran_order': False, "
                                                      "'shape': (2,)}"), error())
    feed("npy_descr_nonsense", w("<f3", (2,), f4), error())
    feed("npy_descr_huge_itemsize", w("|S99999999999", (2,), b"ab"), error(), "s", "t")
    feed("npy_descr_empty", w("", (2,), f4), error())
    feed("npy_unicode_into_string", w("<U2", (1,), "hi".encode("utf-32-le")),
         ok({"t": value("S", [1], [b"hi"])}), "s", "t")
    feed("npy_bytes_into_string", w("|S3", (2,), b"abcde\0"), ok({"t": value("S", [2], [b"abc", b"de"])}), "s", "t")
    feed("npy_unicode_truncated", w("<U2", (2,), "hi".encode("utf-32-le")), error(), "s", "t")
    feed("npy_unicode_invalid_code_point", w("<U1", (1,), struct.pack("<I", 0xFFFFFFFF)), either(), "s", "t")
    c.add("npy_missing_file", CAT_NPY, ["run", graph, "--feed", "x=@feeds/no_such_file.npy", "--fetch", "y"],
          error("no_such_file"))
    os.makedirs(os.path.join(c.outdir, "feeds", "a_directory.npy"), exist_ok=True)
    c.add("npy_is_a_directory", CAT_NPY, ["run", graph, "--feed", "x=@feeds/a_directory.npy", "--fetch", "y"],
          error())


def add(c, conformance):
    if conformance and os.path.isdir(os.path.join(conformance, "savedmodels")):
        add_savedmodels(c, conformance)
    add_synthetic_models(c)
    add_graph_files(c, conformance)
    add_npy_feeds(c)
