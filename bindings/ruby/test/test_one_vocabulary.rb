# frozen_string_literal: true

# bindings/ruby/test/test_one_vocabulary.rb: attrs set by the Ruby value's class and converted
# by the op's declared attr type (graft.hpp's AttrSetter); host data made tensors by the C API's
# one rule (graft_tensor_from_host); the dtype table from graft_dtype_list.

require_relative "test_helper"

class TestOneVocabulary < Minitest::Test
  def setup
    @ctx = Graft::Context.new
  end

  def test_integer_for_a_float_attr
    g = Graft::Graph.new
    x = g.placeholder(:float32, shape: [2], name: "x")
    lr = g.op(:LeakyRelu, x, alpha: 1)
    assert_equal 1.0, lr.attr(:alpha)
    assert_kind_of Float, lr.attr(:alpha)
    assert_equal [-4.0, 3.0], @ctx.op(:LeakyRelu, @ctx.constant([-2.0, 3.0]), alpha: 2).to_a
  end

  def test_empty_list_attr
    g = Graft::Graph.new
    x = g.placeholder(:float32, shape: [2], name: "x")
    sq = g.op(:Squeeze, x, squeeze_dims: [])
    assert_equal [], sq.attr(:squeeze_dims)
    assert_equal [1.0, 2.0], @ctx.op(:Squeeze, @ctx.constant([1.0, 2.0]), squeeze_dims: []).to_a
  end

  def test_dtype_names_for_type_attrs
    g = Graft::Graph.new
    assert_equal :int64, g.op(:Placeholder, name: "p", dtype: "int64").attr(:dtype)
    assert_equal :float64, g.op(:Placeholder, name: "q", dtype: :float64).attr(:dtype)
  end

  def test_mismatched_attr_type_names_op_type_and_attr
    g = Graft::Graph.new
    x = g.placeholder(:float32, shape: [2, 2], name: "x")
    error = assert_raises(Graft::InvalidArgumentError) { g.op(:MatMul, x, x, transpose_a: "yes") }
    assert_match(/MatMul/, error.message)
    assert_match(/transpose_a/, error.message)
    error = assert_raises(Graft::InvalidArgumentError) { @ctx.op(:LeakyRelu, @ctx.constant([1.0]), alpha: true) }
    assert_match(/LeakyRelu/, error.message)
    assert_match(/alpha/, error.message)
  end

  def test_host_conversion_by_the_c_rule
    assert_equal :int64, Graft.tensor(2**40).dtype
    assert_equal :int32, Graft.tensor([1, -(2**31)]).dtype
    assert_equal :int64, Graft.tensor([1, 2**31]).dtype
    error = assert_raises(ArgumentError) { Graft.tensor(1.5, dtype: :int32) }
    assert_match(/1\.5/, error.message)
    assert_raises(RangeError) { Graft.tensor([300], dtype: :uint8) }
    assert_raises(RangeError) { Graft.tensor([2**40], dtype: :int32) }
    assert_equal [2, 3], Graft.tensor([2.0, 3.0], dtype: :int32).to_a
    assert_equal :float32, Graft.tensor([1, 2.5]).dtype
    assert_equal :int64, @ctx.constant(2**40).dtype
  end

  def test_dtype_table_from_the_c_api
    codes = Graft_swig.dtype_codes.to_a
    refute_empty codes
    codes.each do |code|
      name = Graft_swig.graft_dtype_name(code).to_sym
      assert_equal code, Graft::DTYPES[name], name.to_s
      ref = Graft_swig.graft_dtype_as_ref(code)
      assert_equal ref, Graft::DTYPES[:"#{name}_ref"]
    end
    assert_equal codes.size * 2, Graft::DTYPES.size
  end
end
