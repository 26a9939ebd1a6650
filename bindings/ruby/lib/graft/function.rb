# frozen_string_literal: true

# bindings/ruby/lib/graft/function.rb: traced functions (tf.function) from Ruby blocks.
#
#   f = Graft.function("f") { |ctx, x| ctx.op(:AddV2, x, x) }
#   f.call([1.0, 2.0])          # traces for float32 [2], runs: a Value [2.0, 4.0]
#   f.call([1.0, 2.0, 3.0])     # a new shape: traced again
#   f.call([5.0, 6.0, 7.0])     # same signature: the cached trace runs
#   f.tracing_count             # => 2
#
# Arguments: Values, Tensors and Ruby Arrays are traced as tensors (their dtype and shape key
# the trace cache); Integers, Floats, Strings and true/false are host arguments passed to the
# block as they are (their values key the cache). The block gets the tracing Context first.

module Graft
  class << self
    # A traced Function of the block (see Function.new).
    def function(name = nil, **options, &block)
      Function.new(name, **options, &block)
    end
  end

  # A function traced from a Ruby block, called on a Context (by default the one current
  # where it is called: the tracing one inside another function's block, else the default).
  class Function
    attr_reader :name

    @count = 0
    class << self
      # A fresh function name.
      def unique_name
        @count += 1
        "ruby_function_#{@count}"
      end
    end

    # input_signature: TensorSpecs (or [dtype, shape] pairs) fixing the inputs, for one trace
    # of any matching arguments; reduce_retracing: relax shapes after a retrace.
    def initialize(name = nil, input_signature: nil, reduce_retracing: false, context: nil, &block)
      raise ArgumentError, "graft: Graft.function needs a block" unless block

      @name = (name || Function.unique_name).to_s
      @body = TraceBlock.new(block) # Graft keeps a raw pointer to it: it lives as long as we do
      specs = input_signature&.map { |s| s.is_a?(TensorSpec) ? s : Graft.spec(*s) }
      @context = context
      @native = Graft_swig::Function.new(@name, @body, specs || [], !specs.nil?, reduce_retracing)
    end

    # Calls the function (tracing it first for a new signature): returns a Value, an Array of
    # Values, or nil. context: the Context to call it on.
    def call(*args, context: nil)
      ctx = context || @context || Graft.current_context
      # Graft.invoke's work without its block (the hot path): nil unless every argument is a Value
      Thread.current[:graft_callback_error] = nil
      values = begin
        @native.ruby_call_values(ctx, args)
      rescue Error => e
        Graft.reraise_with_cause(e)
      end
      return values.size == 1 ? values.first : Graft.unwrap(values) if values

      list = Function.arg_list(ctx, args)
      Graft.unwrap(Graft.invoke { @native.call(ctx, list) }.to_a)
    end
    alias [] call

    def to_proc
      method(:call).to_proc
    end

    # How many times the block was traced.
    def tracing_count
      @native.tracing_count
    end

    # The ConcreteFunction (the traced graph) for args, tracing it if needed.
    def concrete(*args, context: nil)
      ctx = context || @context || Graft.current_context
      list = Function.arg_list(ctx, args)
      ConcreteFunction.new(Graft.invoke { @native.get_concrete(ctx, list) }, self, ctx)
    end

    # The ConcreteFunction for inputs of specs (TensorSpecs or [dtype, shape] pairs).
    def concrete_for(*specs, context: nil)
      ctx = context || @context || Graft.current_context
      list = specs.map { |s| s.is_a?(TensorSpec) ? s : Graft.spec(*s) }
      ConcreteFunction.new(Graft.invoke { @native.get_concrete_for_specs(ctx, list) }, self, ctx)
    end

    def inspect
      "#<Graft::Function #{@name} traced #{tracing_count}x>"
    end

    # The ArgList of Ruby arguments.
    def self.arg_list(ctx, args)
      list = Graft_swig::ArgList.new
      args.each do |arg|
        case arg
        when Value then list.add_value(arg)
        when Tensor, Array then list.add_value(ctx.constant(arg))
        when Integer then list.add_int(arg)
        when Float then list.add_float(arg)
        when String, Symbol then list.add_string(arg.to_s)
        when true, false then list.add_bool(arg)
        else raise TypeError, "graft: a function argument cannot be #{arg.inspect}"
        end
      end
      list
    end
  end

  # One traced graph of a Function: called with Values (or data) only.
  class ConcreteFunction
    def initialize(native, function, context)
      @native = native
      @function = function # keeps the traced block alive while this may retrace
      @context = context
    end

    def name
      @native.name
    end

    # The function's graph (a Graph borrowed from it).
    def graph
      @native.graph
    end

    def inputs
      @native.inputs.to_a
    end

    def outputs
      @native.outputs.to_a
    end

    # The serialized FunctionDef (a binary String).
    def function_def
      @native.function_def
    end

    # Adds the function (and what it calls) to graph's library, for ops with a func attr.
    def add_to_graph(graph)
      @native.add_to_graph(graph)
    end

    # Runs the traced graph on inputs (Values, Tensors or Ruby data).
    def call(*inputs, context: nil)
      ctx = context || @context
      values = inputs.map { |v| ctx.constant(v) }
      Graft.unwrap(Graft.invoke { @native.call(ctx, values) }.to_a)
    end
    alias [] call

    def inspect
      "#<Graft::ConcreteFunction #{name}>"
    end
  end
end
