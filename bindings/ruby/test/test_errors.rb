# frozen_string_literal: true

# bindings/ruby/test/test_errors.rb: graft::Error becomes Graft::Error (subclass per code).

require_relative "test_helper"

class TestErrors < Minitest::Test
  def test_hierarchy
    assert_operator Graft::Error, :<, StandardError
    assert_operator Graft::InvalidArgumentError, :<, Graft::Error
    assert_operator Graft::NotFoundError, :<, Graft::Error
    assert_equal Graft_swig::GRAFT_EINVAL, Graft::InvalidArgumentError::CODE
    assert_equal Graft::ShapeError, Graft::Error.for_code(Graft_swig::GRAFT_ESHAPE)
    assert_equal Graft::Error, Graft::Error.for_code(-999)
  end

  def test_native_failure_raises_the_code_class_with_the_c_message
    g = Graft::Graph.new
    error = assert_raises(Graft::NotFoundError) { g.op_by_name("missing") }
    assert_equal Graft_swig::GRAFT_ENOTFOUND, error.code
    assert_equal "GRAFT_ENOTFOUND", error.code_name
    assert_match(/missing/, error.message)
    assert_match(/graft_graph_op_by_name/, error.message)
  end

  def test_errors_of_the_raw_extension_are_graft_errors
    error = assert_raises(Graft::Error) { Graft_swig::Tensor.from_floats([3], [1.0]) }
    refute_equal 0, error.code
    assert_match(/\AGRAFT_E[A-Z]+\z/, error.code_name)
  end

  def test_error_made_in_ruby_has_its_class_code
    error = Graft::ShapeError.new("bad shape")
    assert_equal Graft_swig::GRAFT_ESHAPE, error.code
    assert_equal "GRAFT_ESHAPE", error.code_name
    assert_equal "bad shape", error.message
  end

  def test_failed_call_leaves_the_objects_usable
    g = Graft::Graph.new
    a = g.const([[1.0, 2.0]])
    error = assert_raises(Graft::Error) { g.op(:MatMul, a, a) } # [1,2] x [1,2]: inner dims differ
    assert_includes %w[GRAFT_ESHAPE GRAFT_EINVAL], error.code_name
    assert_equal [[5.0]], Graft::Session.new(g).run(g.op(:MatMul, a, g.const([[1.0], [2.0]]))).to_a
  end

  def test_empty_handles_raise_instead_of_crashing
    error = assert_raises(Graft::InvalidArgumentError) { Graft::Tensor.new.dtype }
    assert_match(/empty Tensor/, error.message)
  end
end
