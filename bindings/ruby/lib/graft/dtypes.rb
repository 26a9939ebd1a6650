# frozen_string_literal: true

# bindings/ruby/lib/graft/dtypes.rb: dtypes as Symbols (:float32, :int64, :bool, :string...).
#
# Everywhere the library takes a dtype it accepts a Symbol, a String or the C code (Integer);
# everywhere it returns one it returns the Symbol.

module Graft
  # Symbol => C code of every dtype Graft knows (reference dtypes end in _ref): the C API's
  # table (graft_dtype_list), then the reference dtype of each.
  DTYPES = Graft_swig.dtype_codes.to_a.then { |codes| codes + codes.map { |c| Graft_swig.graft_dtype_as_ref(c) } }
                                      .reject(&:zero?)
                                      .to_h { |code| [Graft_swig.graft_dtype_name(code).to_sym, code] }
                                      .freeze

  DTYPE_NAMES = DTYPES.invert.freeze
  private_constant :DTYPE_NAMES

  # pack/unpack directives of the dtypes whose elements Ruby reads and writes as numbers.
  PACK_FORMATS = {
    float32: "f", float64: "d", int8: "c", uint8: "C", int16: "s", uint16: "S",
    int32: "l", uint32: "L", int64: "q", uint64: "Q", bool: "C"
  }.freeze
  private_constant :PACK_FORMATS

  class << self
    # The C code of a dtype given as a Symbol, String or Integer.
    def dtype_code(dtype)
      case dtype
      when Integer then dtype
      when Symbol, String
        DTYPES.fetch(dtype.to_sym) { raise ArgumentError, "graft: unknown dtype #{dtype.inspect}" }
      else raise TypeError, "graft: a dtype is a Symbol, String or Integer, not #{dtype.inspect}"
      end
    end

    # The Symbol of a dtype given as a Symbol, String or Integer (nil for GRAFT_DTYPE_INVALID).
    def dtype(dtype)
      code = dtype_code(dtype)
      return nil if code.zero?

      DTYPE_NAMES.fetch(code) { raise ArgumentError, "graft: unknown dtype #{dtype.inspect}" }
    end

    # Whether obj names a dtype.
    def dtype?(obj)
      (obj.is_a?(Symbol) || obj.is_a?(String)) && DTYPES.key?(obj.to_sym)
    end

    # The dtype Ruby data given as an op input takes beside inputs of dtype hint: the hint
    # when the data are floats and the hint a floating dtype, or integers and an integer one;
    # else nil (inferred: an axis 0 beside float32 data stays int32).
    def input_dtype(data, hint)
      return nil if hint.nil?

      code = dtype_code(hint)
      elements = data.is_a?(Array) ? data.flatten : [data]
      return nil if elements.empty?

      if elements.all? { |x| x.is_a?(Float) }
        hint if Graft_swig.graft_dtype_is_floating(code).nonzero?
      elsif elements.all? { |x| x.is_a?(Integer) }
        hint if Graft_swig.graft_dtype_is_integer(code).nonzero?
      end
    end

    private

    def pack_format(dtype)
      PACK_FORMATS[dtype]
    end
  end
end
