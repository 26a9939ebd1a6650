# frozen_string_literal: true

# bindings/ruby/test/test_host_function.rb: host-function ops running Ruby blocks, and blocks
# that raise.

require_relative "test_helper"

class TestHostFunction < Minitest::Test
  include GraftTestHelper

  def setup
    @ctx = Graft::Context.new
    @registered = []
  end

  def teardown
    @registered.each(&:unregister)
  end

  def register(prefix, &block)
    Graft.host_function(unique_token(prefix), &block).tap { |h| @registered << h }
  end

  def test_eager_host_function
    seen = nil
    rev = register("reverse") do |inputs|
      seen = inputs
      Graft.tensor(inputs[0].to_a.reverse, dtype: inputs[0].dtype)
    end
    out = rev.call([1.0, 2.0, 3.0], tout: :float32, context: @ctx)
    assert_equal [3.0, 2.0, 1.0], out.to_a
    assert_equal 1, seen.size
    assert_kind_of Graft::Tensor, seen[0]
    assert_equal [1.0, 2.0, 3.0], seen[0].to_a # the inputs outlive the call
    assert rev.registered?
    assert_same rev, Graft::HostFunction[rev.token]
  end

  def test_several_inputs_and_outputs
    h = register("sum_diff") { |(a, b)| [Graft.tensor([a.value + b.value]), Graft.tensor([a.value - b.value])] }
    sum, diff = @ctx.host_call(h.token, 5.0, 3.0, tout: %i[float32 float32])
    assert_equal [8.0], sum.to_a
    assert_equal [2.0], diff.to_a
  end

  def test_a_raising_block_fails_the_op_with_its_message
    h = register("tokenizer") { |_inputs| raise ArgumentError, "tokenizer exploded" }
    error = assert_raises(Graft::InvalidArgumentError) { h.call(["text"], tout: :string, context: @ctx) }
    assert_match(/tokenizer exploded/, error.message)
    assert_match(/#{h.token}/, error.message)
    assert_equal Graft_swig::GRAFT_EINVAL, error.code
    assert_equal "GRAFT_EINVAL", error.code_name
    assert_instance_of ArgumentError, error.cause
    # a message-less exception still fails the op
    quiet = register("quiet") { |_inputs| raise Class.new(StandardError), "" }
    assert_raises(Graft::Error) { quiet.call([1.0], tout: :float32, context: @ctx) }
  end

  def test_a_block_returning_the_wrong_count_or_dtype_fails
    none = register("none") { |_inputs| nil }
    assert_raises(Graft::Error) { none.call([1.0], tout: :float32, context: @ctx) }
    ints = register("ints") { |_inputs| Graft.tensor([1, 2]) }
    error = assert_raises(Graft::Error) { ints.call([1.0], tout: :float32, context: @ctx) }
    assert_match(/int32|float32|dtype/, error.message)
  end

  def test_host_function_in_a_traced_function_and_in_a_graph
    calls = 0
    h = register("square") do |inputs|
      calls += 1
      Graft.tensor(inputs[0].values.map { |v| v * v }, shape: inputs[0].shape)
    end
    f = Graft.function("with_host", context: @ctx) { |ctx, x| ctx.host_call(h.token, x, tout: [:float32]) }
    assert_equal [4.0, 9.0], f.call([2.0, 3.0]).to_a
    assert_equal [16.0, 25.0], f.call([4.0, 5.0]).to_a
    assert_equal 1, f.tracing_count
    assert_equal 2, calls # recorded once, run at every call
    g = Graft::Graph.new
    op = g.op(:EagerPyFunc, [g.const([3.0])], token: h.token, Tin: [:float32], Tout: [:float32])
    assert_equal [9.0], Graft::Session.new(g, threads: 1).run(op).to_a
  end

  def test_registration_errors
    h = register("dup") { |inputs| inputs }
    assert_raises(Graft::AlreadyExistsError) { Graft.host_function(h.token) { |inputs| inputs } }
    assert h.unregister
    refute h.registered?
    refute h.unregister
    assert_nil Graft::HostFunction[h.token]
    error = assert_raises(Graft::Error) { @ctx.host_call(h.token, 1.0, tout: :float32) }
    assert_match(/#{h.token}/, error.message)
  end

  def test_ruby_cannot_run_on_graft_worker_threads_but_nothing_crashes
    h = register("worker") { |inputs| inputs[0] }
    g = Graft::Graph.new
    c = g.const([1.0])
    ops = Array.new(40) { |i| g.op(:EagerPyFunc, [c], token: h.token, Tin: [:float32], Tout: [:float32], name: "h#{i}") }
    results = Array.new(5) do
      Graft::Session.new(g, threads: 4).run(ops).map(&:to_a)
    rescue Graft::Error => e
      assert_match(/not a Ruby thread/, e.message)
      :failed
    end
    results.each { |r| assert(r == :failed || r == Array.new(40) { [1.0] }) }
    assert_equal Array.new(40) { [1.0] }, Graft::Session.new(g, threads: 1).run(ops).map(&:to_a)
  end
end
