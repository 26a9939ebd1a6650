# frozen_string_literal: true

# bindings/ruby/lib/graft/tensor.rb: Graft::Tensor (dense tensors) and Graft::Shape, with
# conversions from and to Ruby numbers, booleans, strings and nested Arrays.
#
#   t = Graft.tensor([[1, 2], [3, 4]], dtype: :float32)
#   t.shape   # => [2, 2]
#   t.dtype   # => :float32
#   t.to_a    # => [[1.0, 2.0], [3.0, 4.0]]

module Graft
  Tensor = Graft_swig::Tensor
  Shape = Graft_swig::Shape

  INT64_RANGE = (-(2**63)...(2**63)).freeze
  private_constant :INT64_RANGE

  class << self
    # A Tensor of data: a scalar or a nested Array of numbers, booleans or strings (or a
    # Tensor, or a concrete Value). The C API's one rule makes the tensor (graft_tensor_from_host):
    # dtype is inferred when not given (float32 for floats, int32 for integers, int64 when one
    # needs it, bool, string), and a given dtype must hold every element (an element that is no
    # integer for an integer dtype raises ArgumentError, one out of its range RangeError). shape
    # reshapes the elements.
    def tensor(data, dtype: nil, shape: nil)
      if data.is_a?(Tensor) || data.is_a?(Value)
        t = data.is_a?(Tensor) ? data : data.to_tensor
        return t if dtype.nil? || Graft.dtype(dtype) == t.dtype

        raise DTypeError, "graft: tensor is #{t.dtype}, not #{Graft.dtype(dtype)}"
      end
      flat, dims = flatten(data)
      if shape
        dims = shape.to_a
        count = dims.inject(1, :*)
        raise ShapeError, "graft: #{flat.size} elements do not fill shape #{dims.inspect}" unless count == flat.size
      end
      Tensor.from_elements(dtype && Graft.dtype(dtype), dims, flat)
    end

    # A partial Shape: dims with nil (or -1) for unknown dimensions; nil for an unknown rank.
    def shape(dims)
      return dims if dims.is_a?(Shape)
      return Shape.new if dims.nil?

      Shape.new(dims.map { |d| d.nil? ? -1 : Integer(d) })
    end

    private

    # [elements, dims] of a scalar or a rectangular nested Array.
    def flatten(data)
      dims = []
      probe = data
      while probe.is_a?(Array)
        dims << probe.size
        probe = probe.first
      end
      flat = []
      collect(data, dims, 0, flat)
      [flat, dims]
    end

    def collect(node, dims, depth, flat)
      return flat << node if depth == dims.size # a scalar (dims is [])

      unless node.is_a?(Array) && node.size == dims[depth]
        raise ArgumentError, "graft: ragged nested Array (expected #{dims[depth]} elements at depth #{depth})"
      end

      if depth == dims.size - 1
        raise ArgumentError, "graft: ragged nested Array (too deep at depth #{depth + 1})" if node.any?(Array)

        flat.concat(node)
      else
        node.each { |child| collect(child, dims, depth + 1, flat) }
      end
    end
  end

  class Tensor
    alias_method :dtype_code, :dtype
    alias_method :size, :num_elements
    alias_method :valid?, :valid

    # A tensor of dtype (a Symbol, or nil to infer it) and dims from its elements in row-major
    # order, by the C API's rule (Tensor.from_host_*). Ruby only sorts the elements into one kind
    # of host element: all true/false (bools), all Integer (ints), real numbers (doubles), all
    # String (strings); an empty list is doubles (float32).
    def self.from_elements(dtype, dims, flat)
      code = dtype.nil? ? 0 : Graft.dtype_code(dtype)
      kind = host_kind(flat)
      # Strings of the string dtype travel with their lengths (they may hold NUL bytes).
      return from_strings(dims, flat) if kind == :strings && [0, Graft_swig::GRAFT_STRING].include?(code)

      host_error_as_ruby do
        case kind
        when :bools then from_host_bools(flat, dims, code)
        when :ints then from_host_ints(flat, dims, code)
        when :doubles then from_host_doubles(flat.map(&:to_f), dims, code)
        else from_host_strings(flat, dims, code)
        end
      end
    end

    # The kind of host element of flat (see from_elements); TypeError for any other mix.
    def self.host_kind(flat)
      return :doubles if flat.empty?
      return :bools if flat.all? { |x| x == true || x == false }
      return :strings if flat.all?(String)
      if flat.all?(Integer)
        bad = flat.find { |x| !INT64_RANGE.cover?(x) }
        raise RangeError, "graft: #{bad} is out of range for a host integer (int64)" if bad

        return :ints
      end
      return :doubles if flat.all? { |x| x.is_a?(Numeric) && x.real? }

      bad = flat.find { |x| !x.is_a?(Numeric) || !x.real? }
      raise TypeError, "graft: cannot make a tensor of #{bad.inspect}"
    end

    # The C rule's refusal of one element as Ruby's exception: one that is no integer for an
    # integer dtype (GRAFT_EDTYPE) is an ArgumentError, one out of the dtype's range
    # (GRAFT_EINVAL) a RangeError, with the C message. Other failures stay Graft::Errors.
    def self.host_error_as_ruby
      yield
    rescue Graft::Error => e
      raise unless e.message.match?(/\belement \d+\b/)

      case e.code
      when Graft_swig::GRAFT_EDTYPE then raise ArgumentError, e.message
      when Graft_swig::GRAFT_EINVAL then raise RangeError, e.message
      else raise
      end
    end
    private_class_method :host_kind, :host_error_as_ruby

    # The dtype as a Symbol (:float32...).
    def dtype
      Graft.dtype(dtype_code)
    end

    def rank
      shape.size
    end

    # The elements in row-major order (Floats, Integers, true/false or binary Strings).
    def values
      case (type = dtype)
      when :string then to_strings
      when :bool then bytes.unpack("C*").map { |b| b != 0 }
      else
        format = Graft.send(:pack_format, type)
        raise DTypeError, "graft: Ruby cannot read a #{type} tensor" unless format

        bytes.unpack("#{format}*")
      end
    end

    # The elements nested as the shape says (a scalar for a scalar tensor).
    def value
      dims = shape
      flat = values
      dims.empty? ? flat.first : nest(flat, dims, 0, 0)
    end

    # The elements as a nested Array (a one-element Array for a scalar).
    def to_a
      v = value
      v.is_a?(Array) ? v : [v]
    end

    def ==(other)
      other.is_a?(Tensor) && dtype == other.dtype && shape == other.shape && values == other.values
    end
    alias eql? ==

    def hash
      [dtype, shape, values].hash
    end

    def inspect
      return "#<Graft::Tensor (empty)>" unless valid?

      shown = size <= 16 ? value.inspect : "#{values.first(16).inspect[0...-1]}, ...]"
      "#<Graft::Tensor #{dtype} #{shape.inspect} #{shown}>"
    rescue Graft::Error
      "#<Graft::Tensor #{dtype} #{shape.inspect}>"
    end
    alias to_s inspect

    private

    def nest(flat, dims, depth, offset)
      return flat[offset, dims[depth]] if depth == dims.size - 1

      stride = dims[(depth + 1)..].inject(1, :*)
      Array.new(dims[depth]) { |i| nest(flat, dims, depth + 1, offset + (i * stride)) }
    end
  end

  class Shape
    alias_method :native_dims, :dims

    # The dims with nil for unknown ones, or nil for an unknown rank.
    def to_a
      rank.negative? ? nil : native_dims.map { |d| d.negative? ? nil : d }
    end
    alias dims to_a

    def known_rank?
      !rank.negative?
    end

    def fully_defined?
      is_fully_defined
    end

    def ==(other)
      other.is_a?(Shape) && to_a == other.to_a
    end

    def inspect
      "#<Graft::Shape #{to_string}>"
    end
    alias to_s to_string
  end
end
