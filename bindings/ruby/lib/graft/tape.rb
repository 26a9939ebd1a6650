# frozen_string_literal: true

# bindings/ruby/lib/graft/tape.rb: gradient tapes (TensorFlow's tf.GradientTape) over
# graft/tape.h: eager automatic differentiation.
#
#   ctx = Graft.default_context
#   x = ctx.constant(3.0)
#   y = nil
#   tape = Graft.gradient_tape { |t| t.watch(x); y = ctx.op(:Mul, x, x) }
#   tape.gradient(y, x).value                       # => 6.0
#
# A tape records the eager ops that its thread runs on its context while it records: in the
# block of Graft.gradient_tape (it stops when the block ends), or from GradientTape.new until
# #stop. Trainable variables read meanwhile are watched (watch_accessed_variables: false turns
# that off); #watch marks other sources. #gradient computes gradients once, or as often as
# asked with persistent: true. Tapes nest: a tape recording around another's #gradient records
# it, and its own #gradient of that result is a second derivative.
#
# Threads: a tape records on the thread that started it, and only that thread may stop it (or
# close it while it records): elsewhere #stop and #close raise Graft::FailedPreconditionError.
# A recording tape stays referenced by its thread, so that the GC never frees it while it
# records. #close frees the native tape at once; otherwise the GC does.

module Graft
  GradientTape = Graft_swig::GradientTape

  class << self
    # A GradientTape of context (the current one by default), recording from now on. With a
    # block: yields the tape, stops it when the block ends and returns it (ask #gradient after
    # the block, as after TensorFlow's `with` block).
    def gradient_tape(persistent: false, watch_accessed_variables: true, context: nil)
      tape = GradientTape.new(context, persistent: persistent, watch_accessed_variables: watch_accessed_variables)
      return tape unless block_given?

      begin
        yield tape
      ensure
        tape.stop if tape.recording?
      end
      tape
    end
  end

  # The tapes recording on each thread (see GradientTape: kept referenced while they record).
  module RecordingTapes
    module_function

    def tapes
      Thread.current.thread_variable_get(:graft_recording_tapes) ||
        Thread.current.thread_variable_set(:graft_recording_tapes, [])
    end

    def started(tape)
      tapes << tape
    end

    def stopped(tape)
      list = tapes
      index = list.rindex { |t| t.equal?(tape) }
      list.delete_at(index) if index
    end
  end
  private_constant :RecordingTapes

  class GradientTape
    alias_method :native_initialize, :initialize
    alias_method :native_stop, :stop
    alias_method :native_start, :start
    alias_method :native_watch, :watch
    alias_method :native_gradient, :gradient
    alias_method :native_watched_variables, :watched_variables
    private :native_initialize, :native_stop, :native_start, :native_watch, :native_gradient,
            :native_watched_variables, :free_native, :is_recording, :gradient_sparse

    # A tape of context (the current one by default) that records from now on; see
    # Graft.gradient_tape for the block form.
    def initialize(context = nil, persistent: false, watch_accessed_variables: true)
      @context = context || Graft.current_context
      @persistent = persistent ? true : false
      @closed = false
      native_initialize(@context, @persistent, watch_accessed_variables ? true : false)
      RecordingTapes.started(self)
    end

    attr_reader :context

    def persistent?
      @persistent
    end

    def closed?
      @closed
    end

    def recording?
      !@closed && is_recording
    end

    # Pauses recording; Graft::FailedPreconditionError when the tape does not record, or
    # records on another thread.
    def stop
      check_open
      native_stop
      RecordingTapes.stopped(self)
      self
    end

    # Resumes recording on this thread; Graft::FailedPreconditionError when it records.
    def start
      check_open
      native_start
      RecordingTapes.started(self)
      self
    end

    # Runs the block with recording paused (TensorFlow's stop_recording): its ops are not
    # recorded. Returns the block's value.
    def stop_recording
      raise ArgumentError, "graft: GradientTape#stop_recording needs a block" unless block_given?

      stop
      begin
        yield
      ensure
        start
      end
    end

    # Watches values (Values, or Arrays of them): tensors, or variable handles
    # (Context#variable). Integer, bool and string values are ignored.
    def watch(*values)
      check_open
      values.flatten.each do |v|
        raise ArgumentError, "graft: GradientTape#watch takes Values, not #{v.class}" unless v.is_a?(Value)

        native_watch(v)
      end
      self
    end

    # The handles of the variables watched so far (by #watch, or read while recording).
    def watched_variables
      check_open
      native_watched_variables.to_a
    end

    # The gradient of the sum of targets (a Value or an Array) with respect to each source (a
    # Value, a variable handle for the gradient of its value, or an Array of them): a Value, or
    # an Array for an Array of sources, nil where no gradient flows (zeros of the source's
    # shape with unconnected: :zero). output_gradients: the upstream gradient of the target
    # (an Array of them, one per target, for an Array of targets; Values or Ruby data), ones
    # when nil. A tape that is not persistent computes gradients
    # once: a second call raises Graft::FailedPreconditionError. With sparse: true, a source
    # that only gathers read (ResourceGather of a variable: an embedding table) gets a
    # Graft::IndexedSlices of Values (values, indices, dense_shape: its rows), as TensorFlow's
    # tape gives.
    def gradient(targets, sources, output_gradients: nil, unconnected: :none, sparse: false)
      check_open
      unless %i[none zero].include?(unconnected)
        raise ArgumentError, "graft: unconnected must be :none or :zero, not #{unconnected.inspect}"
      end

      target_list = targets.is_a?(Array) ? targets : [targets]
      source_list = sources.is_a?(Array) ? sources : [sources]
      dys = if output_gradients.nil? then []
            elsif targets.is_a?(Array) then output_gradients
            else [output_gradients]
            end
      dys = dys.each_with_index.map { |d, i| @context.constant(d, dtype: target_list[i]&.dtype) }
      grads = Graft.invoke do # gradient blocks (Graft.register_gradient) may run
        next native_gradient(target_list, source_list, dys, unconnected == :zero).to_a unless sparse

        values, indices, shapes = gradient_sparse(target_list, source_list, dys, unconnected == :zero).to_a.map(&:to_a)
        values.each_index.map { |i| indices[i].valid ? IndexedSlices.new(values[i], indices[i], shapes[i]) : values[i] }
      end
      grads = grads.map { |g| g.is_a?(IndexedSlices) || g.valid ? g : nil }
      sources.is_a?(Array) ? grads : grads.first
    end

    # Stops the tape if it records (on its own thread only: elsewhere this raises
    # Graft::FailedPreconditionError and the tape stays open) and frees it now. The gradients
    # it computed stay valid; a later call on the tape raises Graft::FailedPreconditionError.
    def close
      return nil if @closed

      stop if is_recording
      @closed = true
      free_native
      nil
    end

    def inspect
      state = if @closed then "closed"
              elsif recording? then "recording"
              else "stopped"
              end
      "#<Graft::GradientTape #{state}#{' persistent' if @persistent}>"
    end

    private

    def check_open
      raise FailedPreconditionError, "graft: use of a closed GradientTape" if @closed
    end
  end
end
