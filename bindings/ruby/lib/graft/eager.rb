# frozen_string_literal: true

# bindings/ruby/lib/graft/eager.rb: eager execution (Context, Value) and control flow.
#
#   ctx = Graft.default_context
#   x = ctx.constant([1.0, 2.0])
#   ctx.op(:Mul, x, 3.0).to_a                      # => [3.0, 6.0]
#   ctx.cond(ctx.constant(true), x, true_fn: ->(c, v) { c.op(:Neg, v) },
#                                   false_fn: ->(c, v) { v })
#
# Inside a traced block (Graft.function) the same calls record ops into the function's graph
# and give symbolic Values.

module Graft
  Context = Graft_swig::Context
  Value = Graft_swig::Value
  TensorSpec = Graft_swig::TensorSpec

  class << self
    # The process's default Context (made on first use).
    def default_context
      @default_context ||= Context.new
    end

    # The context of the innermost block being traced on this thread, else the default one.
    def current_context
      stack = Thread.current[:graft_contexts]
      stack.nil? || stack.empty? ? default_context : stack.last
    end

    # Runs the block with ctx as current_context.
    def with_context(ctx)
      stack = (Thread.current[:graft_contexts] ||= [])
      stack.push(ctx)
      begin
        yield ctx
      ensure
        stack.pop
      end
    end

    # A TensorSpec (an input signature entry): dtype and partial shape (nil dims unknown).
    def spec(dtype, shape = nil, name: "")
      TensorSpec.new(dtype_code(dtype), Graft.shape(shape), name.to_s)
    end
  end

  class Context
    alias_method :native_cond, :cond
    alias_method :native_while_loop, :while_loop
    alias_method :native_host_function_call, :host_function_call

    # A Value of data (see Graft.tensor).
    def constant(data, dtype: nil)
      return data if data.is_a?(Value) && (dtype.nil? || data.dtype == Graft.dtype(dtype))

      from_tensor(Graft.tensor(data, dtype: dtype))
    end

    # Runs (or, while tracing, records) the op type on inputs: Values, Arrays of Values for
    # list inputs, or Ruby data made Values of the first Value's dtype. attrs as Graph#op.
    # Returns the output Value, nil for none, an Array for several.
    def op(type, *inputs, name: nil, **attrs)
      call = Graft_swig::OpCall.new(self, type.to_s)
      hint = inputs.flatten.find { |i| i.is_a?(Value) }&.dtype
      inputs.each do |input|
        if input.is_a?(Array) && !input.empty? && input.all? { |i| i.is_a?(Value) }
          call.add_input_list(input)
        else
          call.add_input(constant(input, dtype: Graft.input_dtype(input, hint)))
        end
      end
      call.set_name(name.to_s) if name
      Attrs.apply(call, attrs)
      Graft.unwrap(Graft.invoke { call.execute }.to_a)
    end

    # Runs (or records) the host-function op calling the function registered under token with
    # inputs; tout: the outputs' dtypes. Returns as #op.
    def host_call(token, *inputs, tout:)
      values = inputs.map { |v| constant(v) }
      dtypes = Array(tout).map { |d| Graft.dtype_code(d) }
      Graft.unwrap(Graft.invoke { native_host_function_call(token.to_s, values, dtypes) }.to_a)
    end

    # if pred then true_fn(ctx, *inputs) else false_fn(ctx, *inputs): both are traced into
    # functions (and the result chosen at run time) while tracing, only one runs eagerly.
    def cond(pred, *inputs, true_fn:, false_fn:)
      then_body = TraceBlock.new(true_fn)
      else_body = TraceBlock.new(false_fn)
      values = inputs.map { |v| constant(v) }
      result = Graft.invoke { native_cond(constant(pred), values, then_body, else_body) }.to_a
      Graft.unwrap(result)
    end

    # while cond(ctx, *vars): vars = body(ctx, *vars). Returns the final variables (one Value
    # for one variable).
    def while_loop(*vars, cond:, body:)
      cond_body = TraceBlock.new(cond)
      loop_body = TraceBlock.new(body)
      values = vars.map { |v| constant(v) }
      Graft.unwrap(Graft.invoke { native_while_loop(cond_body, loop_body, values) }.to_a)
    end

    # A resource variable initialized to initial; read it with #read_variable. A gradient tape
    # watches a trainable variable when it is read (see Graft.gradient_tape).
    def variable(initial, name: "", trainable: true)
      handle = variable_new(constant(initial), name.to_s)
      variable_set_trainable(handle, false) unless trainable
      handle
    end

    def read_variable(handle)
      variable_read(handle)
    end

    def assign_variable(handle, value)
      variable_assign(handle, constant(value, dtype: read_variable(handle).dtype))
    end

    def tracing?
      is_tracing
    end

    def inspect
      "#<Graft::Context#{' (tracing)' if tracing?}>"
    end
  end

  class Value
    alias_method :dtype_code, :dtype
    alias_method :native_shape, :shape

    def dtype
      Graft.dtype(dtype_code)
    end

    # The shape: dims with nil for unknown ones; nil for an unknown rank.
    def shape
      native_shape.to_a
    end

    def symbolic?
      is_symbolic
    end

    # A concrete value's elements (see Tensor#value and #to_a).
    def value
      to_tensor.value
    end

    def to_a
      to_tensor.to_a
    end

    def inspect
      return "#<Graft::Value (empty)>" unless valid
      return "#<Graft::Value symbolic #{output.name} #{dtype} #{shape.inspect}>" if symbolic?

      "#<Graft::Value #{dtype} #{shape.inspect} #{to_tensor.value.inspect}>"
    rescue Graft::Error
      "#<Graft::Value #{dtype} #{shape.inspect}>"
    end
  end

  # A Hash argument given without braces (feeds, inputs) that arrived as keywords: hash merged
  # with more, whose Symbol keys are keywords the method does not know (ArgumentError).
  def self.keyword_hash(hash, more)
    unknown = more.keys.grep(Symbol)
    raise ArgumentError, "graft: unknown keyword: #{unknown.first.inspect}" unless unknown.empty?

    (hash || {}).merge(more)
  end

  # nil for no values, the Value for one, else the Array.
  def self.unwrap(values)
    case values.size
    when 0 then nil
    when 1 then values.first
    else values
    end
  end
end
