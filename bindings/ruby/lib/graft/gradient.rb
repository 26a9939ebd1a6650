# frozen_string_literal: true

require "monitor"

# bindings/ruby/lib/graft/gradient.rb: gradient functions from Ruby blocks (TensorFlow's
# RegisterGradient / NoGradient), used by Graph#gradients.
#
#   Graft.register_gradient("TimesTen") { |op, grad| op.graph.op(:Mul, grad, 10.0) }
#   g.gradient_override_map("Identity" => "TimesTen") { y = g.op(:Identity, x) }
#   g.gradients(y, x)                                   # => [the Output of 10 * 1]
#
# The block gets the op and one incoming gradient per output (nil where none flows) and returns
# the gradient of each input (an Array, or one Output for an op of one input; nil for none).
# A block that raises fails Graph#gradients with a Graft::Error whose cause is the exception.
# Registrations last as long as the process: the block stays referenced here.

module Graft
  class << self
    # Registers the block as the gradient of op type (or override name) op_type;
    # Graft::AlreadyExistsError when op_type has one.
    def register_gradient(op_type, &block)
      raise ArgumentError, "graft: Graft.register_gradient needs a block" unless block

      GRADIENTS_LOCK.synchronize do
        body = GradientBlock.new(block)
        Graft.invoke { Graft_swig::GradientFunction.register_function(op_type.to_s, body) }
        GRADIENTS[op_type.to_s] = body # Graft holds a raw pointer to body for good
      end
      block
    end

    # Declares op_type not differentiable (no gradient flows through it).
    def no_gradient(op_type)
      Graft.invoke { Graft_swig::GradientFunction.register_none(op_type.to_s) }
      nil
    end
  end

  GRADIENTS = {}
  GRADIENTS_LOCK = Monitor.new
  private_constant :GRADIENTS, :GRADIENTS_LOCK

  # The GradientFunction director running a Ruby block.
  class GradientBlock < Graft_swig::GradientFunction
    def initialize(callable)
      super()
      @callable = callable
    end

    # The director's method: ctx is only valid during the call.
    def gradient(ctx)
      Callback.guard do
        op = ctx.op
        grads = Array.new(op.num_outputs) do |i|
          g = ctx.output_grad(i)
          g.valid ? g : nil
        end
        result = @callable.call(op, *grads)
        result = [result] unless result.is_a?(Array)
        if result.size != op.num_inputs
          raise ArgumentError, "graft: the gradient block of #{op.type} op '#{op.name}' returned " \
                               "#{result.size} gradients for #{op.num_inputs} inputs"
        end
        result.each_with_index { |r, i| ctx.set_input_grad(i, Graph.output_of(r)) unless r.nil? }
      end
    end
  end

  class Graph
    # Runs the block with ops built inside using the gradient registered under another name:
    # map is {"OpType" => "GradientName"}.
    def gradient_override_map(map)
      push_gradient_override_map(map.keys.map(&:to_s), map.values.map(&:to_s))
      begin
        yield
      ensure
        pop_gradient_override_map
      end
    end
  end
end
