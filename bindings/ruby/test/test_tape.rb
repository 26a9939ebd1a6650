# frozen_string_literal: true

# bindings/ruby/test/test_tape.rb: gradient tapes (Graft.gradient_tape, Graft::GradientTape):
# a watched tensor, MatMul through a variable read (trainable variables are watched when read),
# persistent and one-shot tapes, unconnected sources, upstream gradients, nested tapes (second
# derivatives), pausing, closing, and the thread rules.

require_relative "test_helper"

class TestTape < Minitest::Test
  def setup
    @ctx = Graft::Context.new
  end

  def test_square_once
    x = @ctx.constant(3.0)
    y = nil
    tape = Graft.gradient_tape(context: @ctx) do |t|
      assert t.recording?
      t.watch(x)
      y = @ctx.op(:Mul, x, x)
    end
    refute tape.recording?
    dx = tape.gradient(y, x)
    assert_in_delta 6.0, dx.value, 1e-6
    # Not persistent: a second gradient is the C API's error.
    error = assert_raises(Graft::FailedPreconditionError) { tape.gradient(y, x) }
    assert_match(/persistent/, error.message)
    assert_equal "GRAFT_EPRECONDITION", error.code_name
    tape.close
    tape.close
    assert tape.closed?
    error = assert_raises(Graft::FailedPreconditionError) { tape.gradient(y, x) }
    assert_match(/closed GradientTape/, error.message)
    GC.start
    assert_in_delta 6.0, dx.value, 1e-6 # gradients outlive their tape
  end

  def test_matmul_through_a_variable_read
    x = @ctx.constant([[1.0, 2.0]])
    w = @ctx.variable([[3.0], [4.0]], name: "w")
    frozen = @ctx.variable(2.0, name: "frozen", trainable: false)
    z = nil
    tape = Graft.gradient_tape(context: @ctx) do |t|
      t.watch(x)
      y = @ctx.op(:MatMul, x, @ctx.read_variable(w)) # [[11]]
      z = @ctx.op(:Mul, y, @ctx.read_variable(frozen))
    end
    watched = tape.watched_variables # w (trainable, read), not frozen
    assert_equal 1, watched.size
    assert_equal [[3.0], [4.0]], @ctx.read_variable(watched.first).to_a
    dx, dw, dfrozen = tape.gradient(z, [x, w, frozen])
    assert_equal [[6.0, 8.0]], dx.to_a   # 2 w^T
    assert_equal [[2.0], [4.0]], dw.to_a # 2 x^T
    assert_nil dfrozen

    # Without watching accessed variables only explicit watches count.
    y2 = nil
    manual = Graft.gradient_tape(context: @ctx, watch_accessed_variables: false) do |t|
      t.watch(frozen)
      y2 = @ctx.op(:Mul, @ctx.read_variable(w), @ctx.read_variable(frozen))
    end
    assert_equal [nil, 7.0], manual.gradient(y2, [w, frozen]).map { |g| g&.value }
  end

  def test_gradient_as_rows
    emb = @ctx.variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name: "emb")
    y = nil
    tape = Graft.gradient_tape(context: @ctx, persistent: true) do
      rows = @ctx.op(:ResourceGather, emb, @ctx.constant([2, 0, 2]), dtype: :float32)
      y = @ctx.op(:Sum, @ctx.op(:Square, rows), @ctx.constant([0, 1]))
    end
    r = tape.gradient(y, emb, sparse: true)
    assert_instance_of Graft::IndexedSlices, r
    assert_equal [[10.0, 12.0], [2.0, 4.0], [10.0, 12.0]], r.values.to_a
    assert_equal [2, 0, 2], r.indices.to_a
    assert_equal [3, 2], r.dense_shape.to_a
    assert_equal [[2.0, 4.0], [0.0, 0.0], [20.0, 24.0]], tape.gradient(y, emb).to_a
  end

  def test_persistent_tape_and_unconnected_sources
    x = @ctx.constant(3.0)
    u = @ctx.constant([1.0, 2.0])
    tape = Graft::GradientTape.new(@ctx, persistent: true)
    assert tape.persistent?
    tape.watch(x, u)
    y = @ctx.op(:Square, x)
    z = @ctx.op(:Square, y) # x^4
    tape.stop
    assert_in_delta 108.0, tape.gradient(z, x).value, 1e-4
    assert_in_delta 6.0, tape.gradient(y, x).value, 1e-6
    assert_in_delta 60.0, tape.gradient(y, x, output_gradients: 10.0).value, 1e-5
    assert_in_delta 60.0, tape.gradient([y], [x], output_gradients: [10.0]).first.value, 1e-5
    assert_nil tape.gradient(z, u)
    assert_equal [nil, 108.0], tape.gradient(z, [u, x]).map { |g| g&.value&.round(3) }
    assert_equal [0.0, 0.0], tape.gradient(z, u, unconnected: :zero).to_a
    assert_raises(ArgumentError) { tape.gradient(z, u, unconnected: :zeros) }
    error = assert_raises(Graft::InvalidArgumentError) { tape.gradient([], x) }
    assert_match(/target/, error.message)
  end

  def test_second_derivative_with_nested_tapes
    x = @ctx.constant(3.0)
    dy = nil
    outer = Graft.gradient_tape(context: @ctx) do |o|
      o.watch(x)
      y = nil
      inner = Graft.gradient_tape(context: @ctx) do |i|
        i.watch(x)
        y = @ctx.op(:Mul, @ctx.op(:Mul, x, x), x) # x^3
      end
      dy = inner.gradient(y, x) # 3x^2, recorded by outer
      inner.close
    end
    assert_in_delta 27.0, dy.value, 1e-5
    assert_in_delta 18.0, outer.gradient(dy, x).value, 1e-5 # 6x
  end

  def test_stop_recording_and_threads
    x = @ctx.constant(2.0)
    tape = Graft.gradient_tape(persistent: true, context: @ctx)
    tape.watch(x)
    hidden = tape.stop_recording do
      refute tape.recording?
      @ctx.op(:Square, x)
    end
    assert tape.recording?
    error = assert_raises(Graft::FailedPreconditionError) { tape.start }
    assert_match(/already recording/, error.message)
    seen = @ctx.op(:Square, x)
    # A recording tape is stopped (and closed) on its own thread only.
    error = Thread.new do
      tape.close
      nil
    rescue Graft::Error => e
      e
    end.value
    assert_kind_of Graft::FailedPreconditionError, error
    assert_match(/another thread/, error.message)
    refute tape.closed?
    assert tape.recording?
    tape.stop
    error = assert_raises(Graft::FailedPreconditionError) { tape.stop }
    assert_match(/not recording/, error.message)
    assert_nil tape.gradient(hidden, x)
    assert_in_delta 4.0, tape.gradient([hidden, seen], x).value, 1e-6
    # A stopped tape may be used and closed on any thread.
    assert_in_delta 4.0, Thread.new { tape.gradient(seen, x).value.tap { tape.close } }.value, 1e-6
    assert tape.closed?
    assert_raises(ArgumentError) { tape.stop_recording }
  end

  def test_block_stops_the_tape_when_it_raises
    tape = nil
    assert_raises(RuntimeError) do
      Graft.gradient_tape(context: @ctx) do |t|
        tape = t
        raise "inside the tape"
      end
    end
    refute tape.recording?
    assert_match(/stopped/, tape.inspect)
    assert_raises(ArgumentError) { tape.watch(1.0) }
  end

  def test_dropped_tapes_are_collected
    x = @ctx.constant(1.0)
    200.times do
      Graft.gradient_tape(context: @ctx) { |t| t.watch(x) && @ctx.op(:Square, x) }
      t = Graft::GradientTape.new(@ctx)
      t.watch(x)
      t.stop
    end
    GC.start
    GC.compact if GC.respond_to?(:compact)
    y = nil
    tape = Graft.gradient_tape(context: @ctx) { |t| t.watch(x) && (y = @ctx.op(:Square, x)) }
    assert_in_delta 2.0, tape.gradient(y, x).value, 1e-6
  end
end
