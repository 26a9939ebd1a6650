# frozen_string_literal: true

require_relative "test_helper"

# Graft::SavedModel (signatures as Hashes, run with a Hash of inputs) and
# Graph#import_graph_def (return elements as an Array), with their errors.
class TestSavedModel < Minitest::Test
  CONFORMANCE = ENV.fetch("GRAFT_CONFORMANCE_DIR") { File.expand_path("../../../../shared/conformance", __dir__) }
  HALF_PLUS_TWO = File.join(CONFORMANCE, "savedmodels", "half_plus_two_tf2")

  def test_load_and_run
    skip "no #{HALF_PLUS_TWO}" unless File.directory?(HALF_PLUS_TWO)
    model = Graft::SavedModel.load(HALF_PLUS_TWO)
    assert_includes model.signature_names, "serving_default"
    sig = model.signatures["serving_default"]
    assert_equal({ "x" => [:float32, [1]] }, sig.inputs)
    assert_equal(["y"], sig.outputs.keys)
    out = model.run("x" => [4.0])
    assert_equal ["y"], out.keys
    assert_equal [4.0 * 0.5 + 2.0], out["y"].to_a
    # Another signature, its one output chosen by key.
    out = model.run({ "inputs" => [3.0] }, signature: "regress_x2_to_y3", outputs: ["outputs"])
    assert_equal ["outputs"], out.keys
    assert_equal 1, out["outputs"].to_a.flatten.size
    refute_nil model.graph
    refute_nil model.session
    assert_equal [["serve"]], Graft::SavedModel.tags(HALF_PLUS_TWO)
  end

  def test_errors
    skip "no #{HALF_PLUS_TWO}" unless File.directory?(HALF_PLUS_TWO)
    model = Graft::SavedModel.load(HALF_PLUS_TWO)
    e = assert_raises(Graft::NotFoundError) { model.run({ "x" => [1.0] }, signature: "nope") }
    assert_match(/no signature 'nope'/, e.message)
    e = assert_raises(ArgumentError) { model.run("z" => [1.0]) }
    assert_match(/no input 'z'/, e.message)
    e = assert_raises(Graft::Error) { model.run("x" => [1.0, 2.0]) }
    assert_match(/shape|2/, e.message)
    e = assert_raises(Graft::Error) { Graft::SavedModel.load(File.join(CONFORMANCE, "no_such_model")) }
    assert_match(/no_such_model/, e.message)
    e = assert_raises(Graft::Error) { Graft::SavedModel.load(HALF_PLUS_TWO, tags: ["train"]) }
    assert_match(/train/, e.message)
  end

  def test_import_graph_def
    g = Graft::Graph.new
    a = g.const([[1.0, 2.0]], name: "a")
    g.op(:MatMul, a, a, transpose_b: true, name: "mm")
    bytes = g.graph_def

    h = Graft::Graph.new
    op, out = h.import_graph_def(bytes, return_elements: ["mm", "mm:0"])
    assert_equal "import/mm", op.name
    assert_equal [[5.0]], Graft::Session.new(h).run(out).to_a
    # No prefix, and an input mapped to a tensor of this graph.
    k = Graft::Graph.new
    b = k.const([[3.0, 0.0]], name: "b")
    (mm,) = k.import_graph_def(bytes, prefix: "", input_map: { "a:0" => b }, return_elements: ["mm:0"])
    assert_equal "mm", mm.op.name
    assert_equal [[9.0]], Graft::Session.new(k).run(mm).to_a
    # All or nothing: a bad element leaves the graph as it was.
    before = k.operations.size
    e = assert_raises(Graft::Error) { k.import_graph_def(bytes, prefix: "again", return_elements: ["nope:0"]) }
    assert_match(/nope/, e.message)
    assert_equal before, k.operations.size
    assert_raises(Graft::Error) { k.import_graph_def("not a graph def") }
  end
end
