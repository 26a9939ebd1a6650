# frozen_string_literal: true

# bindings/ruby/lib/graft/callbacks.rb: the Ruby side of the extension's directors, and the
# entry point of every native call that may call Ruby back.
#
# Graft calls a traced block through a TraceBody director (TraceBlock) and a host function
# through a HostFunction director (HostBlock). The directors enter Ruby with rb_funcall, so
# nothing may unwind out of them through Graft's C++ frames: Callback.guard turns any
# exception into the failure message the directors return (the C++ layer's convention), and a
# break, return or throw out of a block into a message of its own. Graft.invoke then raises
# the call's Graft::Error with the callback's exception as its cause, or the exception itself
# when it is no StandardError (Interrupt, SystemExit...).
#
# Graft keeps only raw pointers to the directors: whoever hands one to Graft keeps a Ruby
# reference to it for as long as Graft may call it (Function, HostFunction's registry, the
# locals of Context#cond and #while_loop).

module Graft
  class << self
    # Runs a native call that may call Ruby back, and raises its Graft::Error with the
    # exception of the callback that failed as its cause (or that exception itself when it is
    # no StandardError). Such calls need no lock here: the extension holds the GVL through a
    # call, and one that may run callbacks waits (without the GVL) while another thread's
    # callback is running (the callback gate, graft_ruby.i), so a thread never blocks inside
    # Graft on a lock that a suspended callback's call holds.
    def invoke
      Thread.current[:graft_callback_error] = nil
      yield
    rescue Error => e
      reraise_with_cause(e)
    end

    # What Graft.invoke raises for the Graft::Error e of a call it made (the callers that do
    # without its block, for speed, clear :graft_callback_error first and rescue into this).
    def reraise_with_cause(error)
      original = Thread.current[:graft_callback_error]
      Thread.current[:graft_callback_error] = nil
      raise error unless original
      raise original unless original.is_a?(StandardError)

      raise error, error.message, error.backtrace, cause: original
    end

    # Records the exception a callback turned into its failure message.
    def callback_failed(exception)
      Thread.current[:graft_callback_error] = exception
    end
  end

  # Runs callback code for a director.
  module Callback
    module_function

    # Yields; returns "" on success, else the failure message. Never raises, and stops a
    # break, return or throw out of the block (the return in the ensure clause does that).
    def guard
      done = false
      message = begin
        yield
        done = true
        ""
      rescue Exception => e # rubocop:disable Lint/RescueException -- nothing may unwind into C++
        done = true
        Graft.callback_failed(e)
        text = e.message.to_s
        text.empty? ? e.class.name : text
      end
      message
    ensure
      # rubocop:disable Lint/EnsureReturn
      return "graft: a Ruby callback left its block with break, return or throw" unless done
      # rubocop:enable Lint/EnsureReturn
    end
  end

  # A block traced into a function (or a branch or body of cond and while_loop): called with
  # the tracing Context and the arguments (symbolic Values, host Integers, Floats, Strings,
  # true/false); returns a Value, an Array of Values, Ruby data (a constant) or nil.
  class TraceBlock < Graft_swig::TraceBody
    def initialize(callable)
      super()
      @callable = callable
    end

    # The director's method: ctx, args and outputs are only valid during the call.
    def trace(ctx, args, outputs)
      Callback.guard do
        context = ctx.copy
        values = Array.new(args.size) { |i| TraceBlock.argument(args, i) }
        result = Graft.with_context(context) { @callable.call(context, *values) }
        TraceBlock.results(context, result).each { |v| outputs.append(v) }
      end
    end

    def self.argument(args, index)
      case args.kind_at(index)
      when Graft_swig::GRAFT_ARG_VALUE then args.value_at(index)
      when Graft_swig::GRAFT_ARG_INT then args.int_at(index)
      when Graft_swig::GRAFT_ARG_FLOAT then args.float_at(index)
      when Graft_swig::GRAFT_ARG_STRING then args.string_at(index)
      when Graft_swig::GRAFT_ARG_BOOL then args.bool_at(index)
      else raise UnimplementedError, "graft: argument #{index} is of an unknown kind"
      end
    end

    def self.results(context, result)
      case result
      when nil then []
      when Value then [result]
      when Array
        if result.any? { |r| r.is_a?(Value) || r.is_a?(Tensor) }
          result.map { |r| context.constant(r) }
        else
          [context.constant(result)]
        end
      else [context.constant(result)]
      end
    end
  end

  # A host function's block: called with the input Tensors (an Array); returns a Tensor, an
  # Array of Tensors, Ruby data (one tensor) or nil.
  class HostBlock < Graft_swig::HostFunction
    def initialize(callable)
      super()
      @callable = callable
    end

    # The director's method: inputs and outputs are only valid during the call.
    def call(inputs, outputs)
      Callback.guard do
        tensors = Array.new(inputs.size) { |i| inputs.get(i) }
        HostBlock.results(@callable.call(tensors)).each { |t| outputs.append(t) }
      end
    end

    def self.results(result)
      case result
      when nil then []
      when Tensor then [result]
      when Value then [result.to_tensor]
      when Array
        if result.any? { |r| r.is_a?(Tensor) || r.is_a?(Value) }
          result.map { |r| Graft.tensor(r) }
        else
          [Graft.tensor(result)]
        end
      else [Graft.tensor(result)]
      end
    end
  end
end
