# frozen_string_literal: true

# bindings/ruby/test/test_graph.rb: building graphs (MatMul among them) and running them.

require_relative "test_helper"

class TestGraph < Minitest::Test
  def test_matmul_of_consts
    g = Graft::Graph.new
    a = g.const([[1.0, 2.0], [3.0, 4.0]], name: "a")
    b = g.const([[5.0, 6.0], [7.0, 8.0]], name: "b")
    mm = g.op(:MatMul, a, b, name: "mm")
    assert_equal "MatMul", mm.type
    assert_equal [2, 2], mm[0].shape
    assert_equal :float32, mm[0].dtype
    out = Graft::Session.new(g).run(mm)
    assert_kind_of Graft::Tensor, out
    assert_equal [[19.0, 22.0], [43.0, 50.0]], out.to_a
  end

  def test_matmul_of_placeholders_with_feeds_and_transpose
    g = Graft::Graph.new
    x = g.placeholder(:float64, shape: [nil, 3], name: "x")
    w = g.placeholder(:float64, name: "w")
    y = g.op(:MatMul, x, w, transpose_b: true, name: "y")
    assert_equal [nil, 3], x.shape
    assert_equal true, y.attr(:transpose_b)
    assert_equal false, y.attr(:transpose_a)
    assert_equal :float64, y.attr(:T)
    sess = Graft::Session.new(g)
    r = sess.run([y, x], x => [[1, 2, 3]], w => Graft.tensor([[1, 0, 1], [0, 1, 0]], dtype: :float64))
    assert_equal [[4.0, 2.0]], r[0].to_a
    assert_equal [[1.0, 2.0, 3.0]], r[1].to_a
    # feeds by name, a second run on the same session
    assert_equal [[2.0, 1.0]], sess.run("y:0", { "x:0" => [[1, 1, 1]], "w:0" => [[1, 1, 0], [0, 1, 0]] }).to_a
  end

  def test_ops_are_found_and_compared
    g = Graft::Graph.new
    c = g.const(1.0, name: "c")
    g.op(:Identity, c, name: "i")
    assert_equal 2, g.num_ops
    assert_equal %w[c i], g.operations.map(&:name)
    assert_equal g["i"], g["i"]
    assert_equal c, g["c:0"]
    assert_equal g, c.op.graph
    assert_equal [c], g["i"].inputs
    assert_equal [g["i"]], c.consumers.to_a
  end

  def test_name_scopes_control_dependencies_and_targets
    g = Graft::Graph.new
    c = g.const(2.0, name: "c")
    scoped = g.name_scope("block") { |scope| [scope, g.op(:Identity, c, name: "id")] }
    assert_equal "block/", scoped[0]
    assert_equal "block/id", scoped[1].name
    dep = g.control_dependencies(c) { g.op(:NoOp, name: "after") }
    assert_equal [c.op], dep.control_inputs.to_a
    assert_nil Graft::Session.new(g).run([], targets: [dep]).first
  end

  def test_attr_types
    g = Graft::Graph.new
    c = g.const([[1, 2, 3]], dtype: :int32)
    t = g.op(:Transpose, c, [1, 0], name: "t")
    assert_equal [[1], [2], [3]], Graft::Session.new(g).run(t).to_a
    p = g.placeholder(:float32, shape: [2, nil], name: "p")
    assert_equal [2, nil], p.op.attr(:shape)
    assert_equal :float32, p.op.attr("dtype")
    assert_equal Graft.tensor([[1, 2, 3]]), c.op.attr(:value)
    assert_raises(TypeError) { g.op(:NoOp, bogus: Object.new) }
  end

  def test_run_errors
    g = Graft::Graph.new
    x = g.placeholder(:float32, shape: [2], name: "x")
    y = g.op(:Neg, x)
    error = assert_raises(Graft::Error) { Graft::Session.new(g).run(y) } # x is not fed
    assert_match(/x/, error.message)
    assert_raises(Graft::Error) { Graft::Session.new(g).run(y, x => [1, 2, 3]) } # wrong shape
    assert_raises(Graft::NotFoundError) { Graft::Session.new(g).run("nope:0") }
    assert_raises(ArgumentError) { Graft::Session.new(g).run(y, bogus: 1) }
  end

  def test_graph_def_round_trip
    g = Graft::Graph.new
    g.op(:MatMul, g.const([[2.0]], name: "a"), g.const([[3.0]], name: "b"), name: "mm")
    bytes = g.graph_def
    assert_equal Encoding::BINARY, bytes.encoding
    h = Graft::Graph.new
    h.import_graph_def(bytes, prefix: "copy")
    assert_equal [[6.0]], Graft::Session.new(h).run(h["copy/mm"]).to_a
  end
end
