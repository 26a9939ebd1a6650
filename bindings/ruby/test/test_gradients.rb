# frozen_string_literal: true

# bindings/ruby/test/test_gradients.rb: symbolic gradients (Graph#gradients).

require_relative "test_helper"

class TestGradients < Minitest::Test
  def test_gradient_of_a_product_and_a_matmul
    g = Graft::Graph.new
    x = g.placeholder(:float32, shape: [2], name: "x")
    w = g.const(3.0, name: "w")
    y = g.op(:Mul, x, w)
    dx, dw = g.gradients(y, [x, w])
    assert_match(/\Agradients/, dx.name)
    r = Graft::Session.new(g).run([dx, dw], x => [1.0, 2.0])
    assert_equal [3.0, 3.0], r[0].to_a
    assert_in_delta 3.0, r[1].value, 1e-6

    a = g.const([[1.0, 2.0]], name: "a")
    b = g.const([[3.0], [4.0]], name: "b")
    mm = g.op(:MatMul, a, b)
    da, db = g.gradients([mm], [a, b], grad_ys: [g.const([[2.0]])])
    out = Graft::Session.new(g).run([da, db])
    assert_equal [[6.0, 8.0]], out[0].to_a
    assert_equal [[2.0], [4.0]], out[1].to_a
  end

  def test_unconnected_and_stop_gradients
    g = Graft::Graph.new
    a = g.const(2.0)
    b = g.const(5.0)
    y = g.op(:Square, a)
    assert_equal [nil], g.gradients(y, b)
    zero = g.gradients(y, b, unconnected: :zero).first
    assert_equal 0.0, Graft::Session.new(g).run(zero).value
    twice = g.op(:Mul, a, g.const(2.0))
    sum = g.op(:AddV2, a, twice)
    da = g.gradients(sum, a, stop_gradients: [twice], name: "stopped").first
    assert_match(/\Astopped/, da.name)
    assert_equal 1.0, Graft::Session.new(g).run(da).value
    assert_raises(ArgumentError) { g.gradients(y, a, unconnected: :maybe) }
  end

  def test_ruby_gradient_blocks
    Graft.register_gradient("RubyTimesTen") { |op, grad| op.graph.op(:Mul, grad, 10.0) }
    Graft.register_gradient("RubyFails") { |_op, _grad| raise "no gradient today" }
    assert_raises(Graft::AlreadyExistsError) { Graft.register_gradient("RubyTimesTen") { |_op, g| g } }
    Graft.no_gradient("RubyStops")
    g = Graft::Graph.new
    x = g.const([3.0, 4.0], name: "x")
    y = z = s = nil
    g.gradient_override_map("Identity" => "RubyTimesTen", "Neg" => "RubyFails", "Square" => "RubyStops") do
      y = g.op(:Identity, x)
      z = g.op(:Neg, x)
      s = g.op(:Square, x)
    end
    dx = g.gradients(y, x).first
    assert_equal [10.0, 10.0], Graft::Session.new(g).run(dx).to_a
    n = g.num_ops
    e = assert_raises(Graft::Error) { g.gradients(z, x) }
    assert_match(/no gradient today/, e.message)
    assert_kind_of RuntimeError, e.cause
    assert_equal n, g.num_ops
    assert_equal [nil], g.gradients(s, x)
  end
  def test_gradients_as_rows
    g = Graft::Graph.new
    params = g.placeholder(:float32, shape: [3, 2], name: "params")
    rows = g.op(:GatherV2, params, g.const([2, 0, 2]), g.const(0))
    r = g.gradients(rows, params, sparse: true).first
    assert_instance_of Graft::IndexedSlices, r
    feed = { params => [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
    values, indices, shape = Graft::Session.new(g).run([r.values, r.indices, r.dense_shape], feed)
    assert_equal [[1.0, 1.0]] * 3, values.to_a
    assert_equal [2, 0, 2], indices.to_a
    assert_equal [3, 2], shape.to_a
    dense = g.gradients([rows, g.op(:Square, params)], params, sparse: true, name: "mixed").first
    assert_instance_of Graft::Output, dense
    assert_equal [[3.0, 5.0], [6.0, 8.0], [12.0, 14.0]], Graft::Session.new(g).run(dense, feed).to_a
    assert_instance_of Graft::Output, g.gradients(rows, params, name: "plain").first
  end
end
