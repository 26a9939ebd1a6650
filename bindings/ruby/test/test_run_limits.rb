# frozen_string_literal: true

# bindings/ruby/test/test_run_limits.rb: a session's memory cap, run deadlines and
# cancellation raise the matching Graft errors and leave the session usable.

require_relative "test_helper"

class TestRunLimits < Minitest::Test
  def fill_graph
    g = Graft::Graph.new
    dims = g.placeholder(:int64, shape: [nil], name: "dims")
    fill = g.op(:Fill, dims, g.const(1.0), name: "fill")
    [g, dims, fill]
  end

  def test_memory_cap_fails_the_op_and_keeps_the_session
    g, dims, fill = fill_graph
    sess = Graft::Session.new(g, max_memory_bytes: 1 << 20)
    error = assert_raises(Graft::ResourceExhaustedError) { sess.run(fill, dims => [1024, 1024]) }
    assert_match(/Fill op 'fill'/, error.message)
    assert_match(/memory cap of 1048576 bytes/, error.message)
    assert_equal [1.0, 1.0, 1.0], sess.run(fill, dims => [3]).to_a
  end

  def test_cancellation_and_deadline
    g, dims, fill = fill_graph
    sess = Graft::Session.new(g)
    token = Graft::Cancellation.new
    token.cancel
    assert token.cancelled
    assert_raises(Graft::CancelledError) { sess.run(fill, { dims => [2] }, cancellation: token) }
    token.reset
    assert_equal [1.0, 1.0], sess.run(fill, { dims => [2] }, cancellation: token, timeout_ms: 60_000).to_a

    # 100 products of 512 x 512 matrices (hundreds of ms on two cores, far above a coarse-clock
    # tick even on a fast machine) under a 1 ms deadline.
    h = Graft::Graph.new
    x = h.placeholder(:float32, name: "x")
    slow = x
    100.times { |i| slow = h.op(:MatMul, slow, x, name: "m#{i}") }
    zeros = Graft.tensor(Array.new(512) { Array.new(512, 0.0) }, dtype: :float32)
    hs = Graft::Session.new(h)
    error = assert_raises(Graft::DeadlineExceededError) { hs.run(slow, { x => zeros }, timeout_ms: 1) }
    assert_match(/passed its deadline \(before op 'm\d+' of type MatMul/, error.message)
    assert_equal [512, 512], hs.run(slow, { x => zeros }).shape
  end
end
