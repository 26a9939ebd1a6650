# frozen_string_literal: true

# bindings/ruby/test/test_gc.rb: objects free their native handles when collected, in any
# order, without crashes or growing memory; callbacks survive collection while Graft may call
# them.

require_relative "test_helper"

class TestGC < Minitest::Test
  include GraftTestHelper

  # One round of everything: a graph with a MatMul run by a session, eager ops, a traced
  # function called with two shapes, a host function registered, called and unregistered.
  def churn(index)
    g = Graft::Graph.new
    a = g.const([[1.0, 2.0], [3.0, 4.0]])
    x = g.placeholder(:float32, shape: [2, 2])
    mm = g.op(:MatMul, a, x)
    out = Graft::Session.new(g).run(mm, x => [[1.0, 0.0], [0.0, 1.0]])
    raise "bad MatMul" unless out.to_a == [[1.0, 2.0], [3.0, 4.0]]

    ctx = Graft::Context.new
    f = Graft.function("churn_#{index}") { |c, v| c.op(:Mul, v, v) }
    f.call([1.0, 2.0], context: ctx)
    f.call([1.0, 2.0, 3.0], context: ctx)
    raise "bad trace count" unless f.tracing_count == 2

    h = Graft.host_function(unique_token("churn")) { |inputs| inputs[0] }
    h.call([1.0], tout: :float32, context: ctx)
    h.unregister
    begin
      ctx.op(:MatMul, ctx.constant([1.0]), ctx.constant([1.0]))
    rescue Graft::Error
      nil # errors, with their temporaries, are churned too
    end
    # children outlive their parents here: only they are returned
    [mm.output(0), f.concrete([3.0], context: ctx), ctx.constant(index.to_f)]
  end

  def test_objects_are_freed_when_collected_and_memory_stays_bounded
    kept = nil
    200.times { |i| kept = churn(i) }
    GC.start(full_mark: true, immediate_sweep: true)
    before = rss_kib
    2000.times { |i| kept = churn(i) }
    GC.start(full_mark: true, immediate_sweep: true)
    after = rss_kib
    # 2000 rounds allocate hundreds of MB of native objects; what leaks would stay.
    assert_operator after - before, :<, 16 * 1024, "RSS grew from #{before} KiB to #{after} KiB"
    # the last round's survivors still work after their parents were collected
    out, cf, value = kept
    assert_equal "MatMul", out.op.type
    assert_equal [2, 2], out.shape
    assert_equal [9.0], cf.call([3.0]).to_a
    assert_in_delta 1999.0, value.value
  end

  def test_children_keep_their_parents_alive
    op = Graft::Graph.new.tap { |g| g.op(:NoOp, name: "lonely") }.operations.first
    sess_graph_output = begin
      g = Graft::Graph.new
      [Graft::Session.new(g), g.const([[2.0]])]
    end
    value = Graft::Context.new.constant([1.0, 2.0])
    GC.start(full_mark: true, immediate_sweep: true)
    assert_equal "lonely", op.name
    assert_equal 1, op.graph.num_ops
    sess, out = sess_graph_output
    assert_equal [[2.0]], sess.run(out).to_a
    assert_equal [1.0, 2.0], value.to_a
  end

  def test_callbacks_survive_gc_stress
    ctx = Graft::Context.new
    h = Graft.host_function(unique_token("stress")) { |inputs| Graft.tensor(inputs[0].values.map { |v| v + 1 }) }
    f = Graft.function("stressed") { |c, v| c.host_call(h.token, c.op(:Neg, v), tout: :float32) }
    GC.stress = true
    begin
      results = [[1.0, 2.0], [1.0, 2.0, 3.0], [4.0, 5.0]].map { |data| f.call(data, context: ctx).to_a }
    ensure
      GC.stress = false
    end
    assert_equal [[0.0, -1.0], [0.0, -1.0, -2.0], [-3.0, -4.0]], results
    assert_equal 2, f.tracing_count
  ensure
    h&.unregister
  end

  def test_callbacks_survive_compaction
    ctx = Graft::Context.new
    f = Graft.function("compacted") { |c, v| c.op(:Neg, v) }
    h = Graft.host_function(unique_token("compacted")) { |inputs| inputs[0] }
    assert_equal [-1.0], f.call([1.0], context: ctx).to_a
    # moves every object that is not pinned; the directors' Ruby objects must stay put
    GC.verify_compaction_references(double_heap: true, toward: :empty)
    assert_equal [-1.0, -2.0], f.call([1.0, 2.0], context: ctx).to_a
    assert_equal [2.0], h.call([2.0], tout: :float32, context: ctx).to_a
    assert_raises(Graft::NotFoundError) { Graft::Graph.new.op_by_name("moved") }
  ensure
    h&.unregister
  end

  def test_functions_dropped_without_calls_and_unreferenced_directors
    50.times { |i| Graft.function("never_#{i}") { |c, v| c.op(:Neg, v) } }
    50.times { Graft::TraceBlock.new(->(_c) {}) }
    GC.start(full_mark: true, immediate_sweep: true)
    g = Graft.function("after_gc") { |c, v| c.op(:Neg, v) }
    assert_equal [-1.0], g.call([1.0], context: Graft::Context.new).to_a
  end
end
