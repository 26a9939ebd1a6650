# frozen_string_literal: true

# bindings/ruby/test/test_op_library.rb: Graft.load_op_library (tf.load_op_library) with
# examples/plugin's library, whose ZeroOut is then built with Graph#op and run in a Session, and
# run eagerly with Context#op. The library is the file GRAFT_EXAMPLE_OPS names (ctest's
# ruby.minitest sets it); without it the tests are skipped.

require "pathname"
require "tmpdir"
require_relative "test_helper"

class TestOpLibrary < Minitest::Test
  def example_ops
    path = ENV.fetch("GRAFT_EXAMPLE_OPS", "")
    if path.empty?
      skip "GRAFT_EXAMPLE_OPS is not set: set it to the built examples/plugin/libgraft_example_ops.so " \
           "(ctest's ruby.minitest sets it)"
    end
    path
  end

  def test_load_lists_the_ops
    path = example_ops
    lib = Graft.load_op_library(path)
    assert_kind_of Graft::OpLibrary, lib
    assert_equal %w[ZeroOut Swish SwishGrad], lib.op_names
    assert_equal %w[zero_out swish swish_grad], lib.function_names
    assert_equal File.realpath(path), File.realpath(lib.path)
    assert lib.frozen?
    assert_match(/ZeroOut/, lib.inspect)
    # Loading it again (here from a Pathname) registers nothing again.
    again = Graft.load_op_library(Pathname.new(path))
    assert_equal lib, again
  end

  def test_zero_out_in_a_graph
    Graft.load_op_library(example_ops)
    g = Graft::Graph.new
    x = g.const([[5, 3], [1, 9]], dtype: :int32, name: "x")
    z = g.op(:ZeroOut, x, name: "zeroed")
    assert_equal "ZeroOut", z.type
    assert_equal [2, 2], z[0].shape # the library's shape function
    assert_equal [[5, 0], [0, 0]], Graft::Session.new(g).run(z).to_a
  end

  def test_zero_out_eagerly
    Graft.load_op_library(example_ops)
    ctx = Graft.default_context
    out = ctx.op(:ZeroOut, ctx.constant([7, 8, 9], dtype: :int32))
    assert_equal [7, 0, 0], out.to_a
  end

  def test_bad_path_is_not_found
    Dir.mktmpdir do |dir|
      missing = File.join(dir, "no_such_ops.so")
      error = assert_raises(Graft::NotFoundError) { Graft.load_op_library(missing) }
      assert_includes error.message, missing
    end
  end
end
