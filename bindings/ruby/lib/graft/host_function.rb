# frozen_string_literal: true

require "monitor"

# bindings/ruby/lib/graft/host_function.rb: host functions (tf.py_function) from Ruby blocks.
#
#   rev = Graft.host_function("reverse") { |inputs| Graft.tensor(inputs[0].to_a.reverse) }
#   rev.call([1.0, 2.0, 3.0], tout: :float32).to_a        # => [3.0, 2.0, 1.0]
#   ctx.host_call("reverse", x, tout: [:float32])          # the same, by token
#   rev.unregister
#
# A block that raises fails the op: the call raises a Graft::Error whose message contains the
# exception's message (and whose cause is the exception). Registration is process-wide, by
# token; a registered function stays alive (and registered) until unregistered. Graft may run
# a host-function op on a worker thread of a Session, where Ruby cannot run: that run fails,
# so graphs of many ops with Ruby host functions want Session.new(graph, threads: 1).

module Graft
  class << self
    # Registers the block under token: see HostFunction.
    def host_function(token, &block)
      HostFunction.new(token, &block)
    end
  end

  # A Ruby block registered as the host function of a token.
  class HostFunction
    REGISTRY = {}
    REGISTRY_LOCK = Monitor.new
    private_constant :REGISTRY, :REGISTRY_LOCK

    attr_reader :token

    # The HostFunction registered under token, or nil.
    def self.[](token)
      REGISTRY_LOCK.synchronize { REGISTRY[token.to_s] }
    end

    # Registers the block (called with the input Tensors, returning a Tensor, an Array of
    # them, Ruby data or nil) under token; Graft::AlreadyExistsError when token is taken.
    def initialize(token, &block)
      raise ArgumentError, "graft: Graft.host_function needs a block" unless block

      @token = token.to_s
      @body = HostBlock.new(block)
      REGISTRY_LOCK.synchronize do
        Graft_swig::HostFunction.register_function(@token, @body)
        REGISTRY[@token] = self # Graft holds a raw pointer to @body until unregister
      end
    end

    def registered?
      REGISTRY_LOCK.synchronize { REGISTRY[@token].equal?(self) }
    end

    # Unregisters the function; later calls of the token fail (Graft::NotFoundError...).
    def unregister
      REGISTRY_LOCK.synchronize do
        return false unless REGISTRY[@token].equal?(self)

        Graft.invoke { Graft_swig::HostFunction.unregister_function(@token) }
        REGISTRY.delete(@token)
        true
      end
    end

    # Runs the host-function op on inputs with outputs of dtypes tout (see Context#host_call).
    def call(*inputs, tout:, context: nil)
      (context || Graft.current_context).host_call(@token, *inputs, tout: tout)
    end

    def inspect
      "#<Graft::HostFunction #{@token}#{' (unregistered)' unless registered?}>"
    end
  end
end
