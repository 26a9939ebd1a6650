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

  INT32_RANGE = (-(2**31)...(2**31)).freeze
  private_constant :INT32_RANGE

  class << self
    # A Tensor of data: a scalar or a nested Array of numbers, booleans or strings (or a
    # Tensor, or a concrete Value). dtype is inferred when not given: float32 for floats,
    # int32 for integers (int64 when one needs it), bool, string. shape reshapes the elements.
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
      dtype = dtype ? Graft.dtype(dtype) : infer_dtype(flat)
      Tensor.from_elements(dtype, dims, flat)
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

    def infer_dtype(flat)
      return :float32 if flat.empty? || flat.all?(Float)
      return :bool if flat.all? { |x| x == true || x == false }
      return :string if flat.all?(String)
      if flat.all?(Integer)
        low, high = flat.minmax
        return INT32_RANGE.cover?(low) && INT32_RANGE.cover?(high) ? :int32 : :int64
      end
      return :float32 if flat.all? { |x| x.is_a?(Numeric) && x.real? }

      bad = flat.find { |x| !x.is_a?(Numeric) || !x.real? }
      raise TypeError, "graft: cannot make a tensor of #{bad.inspect}"
    end
  end

  class Tensor
    alias_method :dtype_code, :dtype
    alias_method :size, :num_elements
    alias_method :valid?, :valid

    # A tensor of dtype (a Symbol) and dims from its elements in row-major order.
    def self.from_elements(dtype, dims, flat)
      dtype = Graft.dtype(dtype)
      code = Graft.dtype_code(dtype)
      case dtype
      when :string
        from_strings(dims, flat.map { |s| s.is_a?(String) ? s : s.to_s })
      when :bool
        from_bytes(code, dims, flat.map { |b| b ? 1 : 0 }.pack("C*"))
      else
        format = Graft.send(:pack_format, dtype)
        raise DTypeError, "graft: Ruby cannot fill a #{dtype} tensor" unless format

        flat = if format == "f" || format == "d"
                 flat.all?(Float) ? flat : flat.map { |x| Tensor.float_element(x) }
               else
                 Tensor.integer_elements(flat, dtype)
               end
        from_bytes(code, dims, flat.pack("#{format}*"))
      end
    end

    def self.float_element(x)
      raise TypeError, "graft: #{x.inspect} is no real number" unless x.is_a?(Numeric) && x.real?

      x.to_f
    end

    def self.integer_elements(flat, dtype)
      code = Graft.dtype_code(dtype)
      bits = Graft_swig.graft_dtype_size(code) * 8
      range = Graft_swig.graft_dtype_is_unsigned(code).nonzero? ? (0...(2**bits)) : (-(2**(bits - 1))...(2**(bits - 1)))
      if flat.all?(Integer)
        low, high = flat.minmax
        return flat if flat.empty? || (range.cover?(low) && range.cover?(high))
      end
      flat.map do |x|
        x = x.to_i if x.is_a?(Float) && x.finite? && x == x.truncate
        raise ArgumentError, "graft: #{x.inspect} is no integer (for #{dtype})" unless x.is_a?(Integer)
        raise RangeError, "graft: #{x} is out of range for #{dtype}" unless range.cover?(x)

        x
      end
    end

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
