# frozen_string_literal: true

# bindings/ruby/test/test_function.rb: traced functions (retracing and the trace cache),
# eager ops, control flow, and blocks that fail.

require_relative "test_helper"

class TestFunction < Minitest::Test
  def setup
    @ctx = Graft::Context.new
  end

  def test_two_shapes_trace_twice_then_hit_the_cache
    traced_shapes = []
    f = Graft.function("double") do |ctx, x|
      traced_shapes << x.shape
      assert x.symbolic?
      assert ctx.tracing?
      ctx.op(:AddV2, x, x)
    end
    assert_equal [2.0, 4.0], f.call([1.0, 2.0], context: @ctx).to_a
    assert_equal 1, f.tracing_count
    assert_equal [[2.0, 4.0, 6.0]], f.call([[1.0, 2.0, 3.0]], context: @ctx).to_a
    assert_equal 2, f.tracing_count
    assert_equal [[10.0, 12.0, 14.0]], f.call([[5.0, 6.0, 7.0]], context: @ctx).to_a
    assert_equal [-2.0, 0.0], f.call([-1.0, 0.0], context: @ctx).to_a
    assert_equal 2, f.tracing_count # cache hits: no new trace
    assert_equal [[2], [1, 3]], traced_shapes
  end

  # Values only take the one-call path (Graft_swig::Function#ruby_call_values); anything else
  # the general one. Both give the same results, traces and errors.
  def test_value_arguments_and_mixed_arguments_agree
    f = Graft.function("axpy", context: @ctx) { |ctx, a, x, y| ctx.op(:AddV2, ctx.op(:Mul, a, x), y) }
    a = @ctx.constant(2.0)
    x = @ctx.constant([1.0, 2.0])
    y = @ctx.constant([10.0, 20.0])
    assert_equal [12.0, 24.0], f.call(a, x, y).to_a
    assert_equal 1, f.tracing_count
    assert_equal [12.0, 24.0], f.call(2.0, x, [10.0, 20.0]).to_a # a host Float keys a new trace
    assert_equal 2, f.tracing_count
    assert_equal [12.0, 24.0], f.call(a, x, y).to_a
    assert_equal 2, f.tracing_count
    results = Graft.function("pair", context: @ctx) { |ctx, v| [ctx.op(:Neg, v), ctx.op(:Square, v)] }.call(x)
    assert_equal [[-1.0, -2.0], [1.0, 4.0]], results.map(&:to_a)
    typed = Graft.function("typed", input_signature: [[:float32, [2]]], context: @ctx) { |ctx, v| ctx.op(:Neg, v) }
    error = assert_raises(Graft::Error) { typed.call(@ctx.constant([1, 2])) } # int32 Value
    assert_match(/int32|dtype/i, error.message)
  end

  def test_host_arguments_key_the_cache
    f = Graft.function("scale", context: @ctx) { |ctx, x, k| ctx.op(:Mul, x, k.to_f) }
    assert_equal [3.0, 6.0], f.call([1.0, 2.0], 3).to_a
    assert_equal [3.0, 3.0], f.call([1.0, 1.0], 3).to_a
    assert_equal 1, f.tracing_count
    assert_equal [5.0, 5.0], f.call([1.0, 1.0], 5).to_a
    assert_equal 2, f.tracing_count
  end

  def test_input_signature_traces_once
    f = Graft.function("sig", input_signature: [[:float32, [nil]]], context: @ctx) { |ctx, x| ctx.op(:Neg, x) }
    assert_equal [-1.0], f.call([1.0]).to_a
    assert_equal [-1.0, -2.0, -3.0], f.call([1.0, 2.0, 3.0]).to_a
    assert_equal 1, f.tracing_count
    assert_raises(Graft::Error) { f.call([1, 2]) } # int32 does not match the signature
  end

  def test_several_outputs_and_concrete_functions
    f = Graft.function("split", context: @ctx) { |ctx, x| [ctx.op(:Neg, x), ctx.op(:Square, x)] }
    neg, sq = f.call([2.0, 3.0])
    assert_equal [-2.0, -3.0], neg.to_a
    assert_equal [4.0, 9.0], sq.to_a
    cf = f.concrete_for([:float32, [2]])
    assert_equal 2, cf.outputs.size
    assert_equal [:float32], cf.inputs.map(&:dtype)
    assert_operator cf.graph.num_ops, :>=, 3
    assert_equal [-1.0, -1.0], cf.call([1.0, 1.0])[0].to_a
    refute_empty cf.function_def
  end

  def test_functions_call_functions
    inner = Graft.function("inner") { |ctx, x| ctx.op(:Mul, x, 2.0) }
    outer = Graft.function("outer") { |ctx, x| ctx.op(:AddV2, inner.call(x), 1.0) }
    assert_equal [3.0, 5.0], outer.call([1.0, 2.0], context: @ctx).to_a
    assert_equal 1, outer.tracing_count
    assert_equal 1, inner.tracing_count
  end

  def test_eager_ops
    x = @ctx.constant([[1.0, 2.0], [3.0, 4.0]])
    refute x.symbolic?
    assert_equal [[7.0, 10.0], [15.0, 22.0]], @ctx.op(:MatMul, x, x).to_a
    assert_equal [[2.0, 4.0], [6.0, 8.0]], @ctx.op(:Mul, x, 2.0).to_a
    assert_equal [4.0, 6.0], @ctx.op(:Sum, x, 0).to_a
    pieces = @ctx.op(:Unpack, x, num: 2, axis: 0)
    assert_equal [[1.0, 2.0], [3.0, 4.0]], pieces.map(&:to_a)
    assert_raises(Graft::Error) { @ctx.op(:MatMul, x, @ctx.constant([1.0])) }
  end

  def test_cond_and_while_loop
    pick = lambda do |flag|
      @ctx.cond(flag, [1.0, 2.0], true_fn: ->(c, v) { c.op(:Neg, v) }, false_fn: ->(_c, v) { v })
    end
    assert_equal [-1.0, -2.0], pick.call(true).to_a
    assert_equal [1.0, 2.0], pick.call(false).to_a
    assert_equal 12, @ctx.while_loop(0, cond: ->(c, i) { c.op(:Less, i, 10) }, body: ->(c, i) { c.op(:AddV2, i, 3) }).value
    traced = Graft.function("branchy", context: @ctx) do |ctx, x|
      total = ctx.op(:Sum, x, 0)
      ctx.cond(ctx.op(:Greater, total, 0.0), x, true_fn: ->(c, v) { c.op(:Neg, v) }, false_fn: ->(_c, v) { v })
    end
    assert_equal [-1.0, -2.0], traced.call([1.0, 2.0]).to_a
    assert_equal [-1.0, -2.0], traced.call([-1.0, -2.0]).to_a
    assert_equal 1, traced.tracing_count
  end

  def test_a_raising_block_fails_the_call_with_its_message
    f = Graft.function("bad", context: @ctx) { |_ctx, _x| raise ArgumentError, "no good trace" }
    error = assert_raises(Graft::Error) { f.call([1.0]) }
    assert_match(/no good trace/, error.message)
    assert_equal "GRAFT_EINVAL", error.code_name
    assert_kind_of ArgumentError, error.cause
    assert_equal "no good trace", error.cause.message
    # the function stays usable
    assert_raises(Graft::Error) { f.call([1.0]) }
  end

  def test_an_op_failing_inside_the_block_keeps_its_code
    f = Graft.function("shapes", context: @ctx) { |ctx, x| ctx.op(:MatMul, x, x) }
    error = assert_raises(Graft::Error) { f.call([1.0, 2.0]) } # rank 1: MatMul needs rank 2
    assert_kind_of Graft::Error, error.cause
    assert_equal [[1.0]], f.call([[1.0]]).to_a
  end

  def test_non_local_exits_from_a_block_do_not_unwind_through_graft
    thrower = Graft.function("thrower", context: @ctx) { |_ctx, _x| throw :out, 1 }
    result = catch(:out) do
      error = assert_raises(Graft::Error) { thrower.call([1.0]) }
      assert_match(/break, return or throw/, error.message)
      :no_throw
    end
    assert_equal :no_throw, result
    breaker = Graft.function("breaker", context: @ctx) { |_ctx, _x| break 5 }
    assert_raises(Graft::Error) { breaker.call([1.0]) }
  end

  def test_interrupts_propagate_unchanged
    f = Graft.function("interrupted", context: @ctx) { |_ctx, _x| raise Interrupt }
    assert_raises(Interrupt) { f.call([1.0]) }
  end

  def test_ruby_threads_calling_functions_whose_blocks_yield_the_gvl
    f = Graft.function("sleepy", context: @ctx) do |ctx, x|
      sleep 0.02 # lets the other threads run while this thread is inside a trace
      ctx.op(:Neg, x)
    end
    threads = Array.new(4) do |i|
      Thread.new { Array.new(6) { |k| f.call([i.to_f] * (1 + (k % 2))).to_a } }
    end
    results = threads.map(&:value)
    results.each_with_index do |r, i|
      assert_equal Array.new(6) { |k| [-i.to_f] * (1 + (k % 2)) }, r
    end
    assert_equal 2, f.tracing_count
  end

  # While one thread is inside a callback, another thread's call that may run callbacks waits
  # (without the GVL) until it ends, and can be interrupted while it waits; calls that run no
  # callbacks go on.
  def test_the_callback_gate
    inside = Queue.new
    release = Queue.new
    blocked = Graft.function("blocked", context: @ctx) do |ctx, x|
      inside << true
      release.pop # the GVL is free while this thread waits here
      ctx.op(:Neg, x)
    end
    holder = Thread.new { blocked.call([2.0]).to_a }
    inside.pop
    assert_equal [1.0, 2.0], Graft.tensor([1.0, 2.0]).to_a # no callbacks: not gated
    waiter = Thread.new { @ctx.op(:AddV2, @ctx.constant([1.0]), @ctx.constant([2.0])).to_a }
    assert_nil waiter.join(0.1) # waiting at the gate
    interrupted = Thread.new do
      Thread.current.report_on_exception = false
      @ctx.op(:Neg, @ctx.constant([1.0])).to_a
    end
    sleep 0.05
    interrupted.raise(ArgumentError, "stop waiting")
    error = assert_raises(ArgumentError) { interrupted.join } # raised as is, after the wrapper's cleanup
    assert_equal "stop waiting", error.message
    release << true
    assert_equal [-2.0], holder.value
    assert_equal [3.0], waiter.value
    assert_equal [-4.0], blocked.call([4.0]).to_a
  end

  # Objects the extension makes carry their SWIG type on their class, and take it when first
  # passed back in (graft_ruby.i): results, frozen results and wrong types convert as before.
  def test_results_passed_back_into_the_extension
    neg = Graft.function("neg_back", context: @ctx) { |ctx, x| ctx.op(:Neg, x) }
    y = neg.call(@ctx.constant([1.5]))
    assert_equal [1.5], neg.call(y).to_a # through the fast path's kind_of check
    assert_equal [-3.0], @ctx.op(:AddV2, y, y).to_a # through SWIG's conversion
    frozen = neg.call(@ctx.constant([2.0])).freeze
    assert_empty frozen.instance_variables # made without SWIG's instance variable
    assert_equal [2.0], @ctx.op(:Neg, frozen).to_a
    assert_equal [2.0], @ctx.op(:Neg, frozen).to_a # (converted through a twin each time)
    noted = neg.call(@ctx.constant([3.0]))
    noted.instance_variable_set(:@note, "an instance variable of its own before its first conversion")
    assert_equal [3.0], @ctx.op(:Neg, noted).to_a
    list = Graft_swig::ArgList.new
    list.add_value(frozen)
    assert_raises(TypeError) { list.add_value(frozen.to_tensor) } # a Tensor is no Value
    assert_raises(TypeError) { list.add_value(Object.new) }
    GC.start
    assert_equal [-2.0], frozen.to_a # still owned once, by frozen
  end

  def test_nil_and_data_results
    none = Graft.function("none", context: @ctx) { |_ctx, _x| nil }
    assert_nil none.call([1.0])
    data = Graft.function("data", context: @ctx) { |_ctx, _x| [[1, 2]] }
    assert_equal [[1, 2]], data.call([1.0]).to_a
  end
end
