# frozen_string_literal: true

# bindings/ruby/test/test_tensor.rb: tensors from and to Ruby data, shapes, dtypes.

require_relative "test_helper"

class TestTensor < Minitest::Test
  def test_nested_floats
    t = Graft.tensor([[1.5, 2], [3, 4]])
    assert_equal :float32, t.dtype
    assert_equal [2, 2], t.shape
    assert_equal 4, t.size
    assert_equal [[1.5, 2.0], [3.0, 4.0]], t.to_a
    assert_equal [1.5, 2.0, 3.0, 4.0], t.values
  end

  def test_inferred_dtypes
    assert_equal :int32, Graft.tensor([1, 2]).dtype
    assert_equal :int64, Graft.tensor([1, 2**40]).dtype
    assert_equal :bool, Graft.tensor([true, false]).dtype
    assert_equal :string, Graft.tensor(%w[a bc]).dtype
    assert_equal [2**40], Graft.tensor([2**40]).to_a
  end

  def test_explicit_dtypes_round_trip
    { float64: [0.1, -2.5], int64: [-(2**62), 7], int8: [-128, 127], uint8: [0, 255],
      int16: [-3, 4], uint16: [65_535, 0], uint32: [4_000_000_000, 1], bool: [false, true] }.each do |dtype, data|
      t = Graft.tensor(data, dtype: dtype)
      assert_equal dtype, t.dtype
      assert_equal data, t.to_a, dtype.to_s
    end
  end

  def test_scalars_strings_and_empty
    s = Graft.tensor(3.25, dtype: :float64)
    assert_equal [], s.shape
    assert_in_delta 3.25, s.value
    assert_equal [3.25], s.to_a
    bytes = "a\0b".b
    assert_equal [bytes, "z"], Graft.tensor([bytes, "z"]).to_a
    assert_equal [[], []], Graft.tensor([[], []]).to_a
    assert_equal [2, 0], Graft.tensor([[], []]).shape
  end

  def test_reshape_and_errors
    assert_equal [[1, 2, 3], [4, 5, 6]], Graft.tensor([1, 2, 3, 4, 5, 6], shape: [2, 3]).to_a
    assert_raises(Graft::ShapeError) { Graft.tensor([1, 2, 3], shape: [2, 2]) }
    assert_raises(ArgumentError) { Graft.tensor([[1, 2], [3]]) }
    assert_raises(ArgumentError) { Graft.tensor([1, 2], dtype: :nope) }
    assert_raises(TypeError) { Graft.tensor([nil]) }
    assert_raises(ArgumentError) { Graft.tensor([1.5], dtype: :int32) }
  end

  def test_equality
    assert_equal Graft.tensor([1.0, 2.0]), Graft.tensor([1, 2], dtype: :float32)
    refute_equal Graft.tensor([1.0, 2.0]), Graft.tensor([1.0, 2.0], dtype: :float64)
  end

  def test_shapes
    assert_equal [2, nil], Graft.shape([2, nil]).to_a
    assert_nil Graft.shape(nil).to_a
    assert Graft.shape([2, 3]).fully_defined?
    refute Graft.shape([2, nil]).fully_defined?
    assert_equal "(2, None)", Graft.shape([2, nil]).to_s
  end
end
