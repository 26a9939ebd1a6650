# frozen_string_literal: true

# bindings/ruby/lib/graft/graph.rb: building graphs (Graph, Operation, Output) and running
# them (Session).
#
#   g = Graft::Graph.new
#   x = g.placeholder(:float32, shape: [nil, 2], name: "x")
#   w = g.const([[1.0], [2.0]], name: "w")
#   y = g.op(:MatMul, x, w, name: "y")
#   Graft::Session.new(g).run(y, x => [[3.0, 4.0]]).to_a   # => [[11.0]]
#
# Attributes are keyword arguments of op, typed by their Ruby value: Integer, Float,
# true/false, a dtype Symbol (:float32), String, Tensor, Shape (Graft.shape([2, nil])),
# Graft.func("name"), or an Array of one of these for a list attr.

module Graft
  Graph = Graft_swig::Graph
  Operation = Graft_swig::Operation
  Output = Graft_swig::Output
  Session = Graft_swig::Session
  OpBuilder = Graft_swig::OpBuilder
  # A token whose cancel stops every run given it (Session#run's cancellation:) with
  # Graft::CancelledError; reset makes it usable again. Runs hold the GVL: a Ruby thread cannot
  # cancel a run in flight (Session#run's timeout_ms can stop it).
  Cancellation = Graft_swig::Cancellation

  # A function attr's value: the name of a function of the graph (or of the context).
  Func = Struct.new(:name)

  # A gradient given as rows (TensorFlow's tf.IndexedSlices), from Graph#gradients(sparse: true):
  # zero except at the rows indices (1-D int32 or int64) of a tensor of shape dense_shape, which
  # get the matching rows of values; a row named twice gets both. ResourceScatterAdd or a
  # ResourceSparseApply* op applies it to those rows only.
  IndexedSlices = Struct.new(:values, :indices, :dense_shape)

  # A func attr naming the function name (a ConcreteFunction's name, say).
  def self.func(name)
    Func.new(name.respond_to?(:name) ? name.name : name.to_s)
  end

  # Sets the attrs of an OpBuilder or OpCall from Ruby values (see the file's comment).
  module Attrs
    module_function

    def apply(builder, attrs)
      attrs.each { |name, value| set(builder, name.to_s, value) }
    end

    # Sets attr name by the Ruby value's class alone; the op's definition decides the attr type
    # (graft.hpp's AttrSetter): an Integer for a float attr, an empty Array for any list attr,
    # a Symbol or String naming a dtype for a type attr. A value that cannot be the declared
    # type raises Graft::InvalidArgumentError naming the op type and the attr.
    def set(builder, name, value)
      case value
      when true, false then builder.set_attr_bool(name, value)
      when Integer then builder.set_attr_int(name, value)
      when Float then builder.set_attr_float(name, value)
      when Symbol, String then builder.set_attr_string(name, value.to_s)
      when Tensor then builder.set_attr_tensor(name, value)
      when Shape then builder.set_attr_shape(name, value)
      when Func then builder.set_attr_func(name, value.name)
      when Array then set_list(builder, name, value)
      else raise TypeError, "graft: attr #{name}: no attr value of #{value.inspect}"
      end
    end

    def set_list(builder, name, list)
      if list.all? { |v| v.is_a?(Integer) } # [] too: any list setter takes the declared type
        builder.set_attr_int_list(name, list)
      elsif list.all? { |v| v == true || v == false }
        builder.set_attr_bool_list(name, list)
      elsif list.all? { |v| v.is_a?(Numeric) }
        builder.set_attr_float_list(name, list.map(&:to_f))
      elsif list.all? { |v| v.is_a?(Symbol) || v.is_a?(String) }
        builder.set_attr_string_list(name, list.map(&:to_s))
      elsif list.all? { |v| v.is_a?(Shape) }
        builder.set_attr_shape_list(name, list)
      elsif list.all? { |v| v.is_a?(Func) }
        builder.set_attr_func_list(name, list.map(&:name))
      else
        raise TypeError, "graft: attr #{name}: no list attr value of #{list.inspect}"
      end
    end
  end

  class Graph
    alias_method :native_operations, :operations
    alias_method :current_name_scope, :name_scope

    # Adds an op: inputs are Outputs (an Operation stands for its first output), Arrays of them
    # for list inputs, or Ruby data made a Const of the first input's dtype. Returns the
    # Operation.
    def op(type, *inputs, name: nil, device: nil, control_inputs: nil, **attrs)
      builder = OpBuilder.new(self, type.to_s, name.to_s)
      hint = inputs.flatten.find { |i| i.is_a?(Output) || i.is_a?(Operation) }
      hint = hint.is_a?(Operation) ? hint.output(0).dtype : hint&.dtype
      inputs.each do |input|
        if input.is_a?(Array) && input.all? { |i| i.is_a?(Output) || i.is_a?(Operation) }
          builder.add_input_list(input.map { |i| Graph.output_of(i) })
        else
          builder.add_input(input.is_a?(Output) || input.is_a?(Operation) ? Graph.output_of(input) : const(input, dtype: Graft.input_dtype(input, hint)))
        end
      end
      Array(control_inputs).each { |op| builder.add_control_input(op.is_a?(Output) ? op.op : op) }
      builder.set_device(device) if device
      Attrs.apply(builder, attrs)
      builder.finish
    end

    # A Const op of value (see Graft.tensor); returns its Output.
    def const(value, dtype: nil, name: nil)
      t = Graft.tensor(value, dtype: dtype)
      op(:Const, name: name || "Const", value: t, dtype: t.dtype).output(0)
    end

    # A Placeholder of dtype and (partial) shape; returns its Output.
    def placeholder(dtype, shape: nil, name: nil)
      attrs = { dtype: Graft.dtype(dtype) }
      attrs[:shape] = Graft.shape(shape) unless shape.nil?
      op(:Placeholder, name: name || "Placeholder", **attrs).output(0)
    end

    # The op named name, or the tensor "op:index".
    def [](name)
      name.to_s.include?(":") ? tensor_by_name(name.to_s) : op_by_name(name.to_s)
    end

    def operations
      native_operations.to_a
    end

    def each_op(&block)
      return enum_for(:each_op) unless block

      operations.each(&block)
    end

    # Runs the block with ops created under the name scope name; yields the scope ("name/").
    # Without a name: the current scope.
    def name_scope(name = nil)
      return current_name_scope if name.nil?

      scope = push_name_scope(name.to_s)
      begin
        yield scope
      ensure
        pop_name_scope
      end
    end

    # Runs the block with ops created depending on ops (Operations or Outputs).
    def control_dependencies(*ops)
      push_control_dependencies(ops.flatten.map { |o| o.is_a?(Output) ? o.op : o })
      begin
        yield
      ensure
        pop_control_dependencies
      end
    end

    # Runs the block with ops created on device.
    def device(name)
      push_device(name.to_s)
      begin
        yield
      ensure
        pop_device
      end
    end

    # Symbolic gradients (TensorFlow's tf.gradients): adds the ops computing d(sum of ys)/dx for
    # each x and returns an Array of one Output per x, nil where no gradient flows (zeros with
    # unconnected: :zero). ys and xs are Outputs (or Operations) or Arrays of them; grad_ys the
    # upstream gradients (one per y, ones when nil); stop_gradients are held constant; the ops go
    # under the name scope name ("gradients").
    #
    # With sparse: true, an x that only gathers read (an embedding table) gets a
    # Graft::IndexedSlices (values, indices, dense_shape: its rows), as TensorFlow's tf.gradients.
    def gradients(ys, xs, grad_ys: nil, stop_gradients: nil, unconnected: :none, name: "gradients", sparse: false)
      unless %i[none zero].include?(unconnected)
        raise ArgumentError, "graft: unconnected must be :none or :zero, not #{unconnected.inspect}"
      end
      outs = ->(list) { Array(list).map { |o| Graph.output_of(o) } }
      args = [outs.call(ys), outs.call(xs), outs.call(grad_ys), outs.call(stop_gradients), unconnected == :zero,
              name.to_s]
      Graft.invoke do # gradient blocks (Graft.register_gradient) may run
        next add_gradients(*args).map { |o| o.valid ? o : nil } unless sparse

        values, indices, shapes = add_gradients_sparse(*args).to_a.map(&:to_a)
        values.each_index.map do |i|
          if indices[i].valid then IndexedSlices.new(values[i], indices[i], shapes[i])
          elsif values[i].valid then values[i]
          end
        end
      end
    end

    # The serialized GraphDef (a binary String).
    def graph_def(add_shapes: false)
      export_graph_def(add_shapes)
    end

    # Imports a serialized GraphDef (a binary String) into this graph, its names under prefix
    # ("import" as TensorFlow's import_graph_def; "" adds none). input_map: "name:i" of the
    # GraphDef => an Output of this graph ("^name" => an Operation, for control inputs).
    # return_elements: names of ops ("name") and tensors ("name:i") to return, in order: an
    # Array of Operations and Outputs. All or nothing: a failure leaves the graph as it was.
    alias_method :native_import_graph_def, :import_graph_def

    def import_graph_def(graph_def, prefix: "import", input_map: {}, return_elements: [])
      names = []
      tensors = []
      input_map.each do |name, target|
        names << name.to_s
        tensors << (target.is_a?(Operation) ? target.output(0) : Graph.output_of(target))
      end
      elements = return_elements.map(&:to_s)
      result = Graft.invoke { native_import_graph_def(graph_def.to_s.b, prefix.to_s, names, tensors, elements) }
      ops = result.ops.to_a
      outs = result.tensors.to_a
      elements.each_index.map { |i| outs[i].valid ? outs[i] : ops[i] }
    end

    def ==(other)
      other.is_a?(Graph) && same_as(other)
    end
    alias eql? ==

    def hash
      id.hash
    end

    def inspect
      "#<Graft::Graph #{num_ops} ops>"
    end

    # The Output an input or fetch stands for.
    def self.output_of(obj)
      case obj
      when Output then obj
      when Operation then obj.output(0)
      else raise TypeError, "graft: expected an Output or Operation, not #{obj.inspect}"
      end
    end
  end

  class Operation
    # The op's output i.
    def [](index)
      output(index)
    end

    def outputs
      Array.new(num_outputs) { |i| output(i) }
    end

    def inputs
      Array.new(num_inputs) { |i| input(i) }
    end

    def stateful?
      is_stateful
    end

    # The attr name's value, typed by the attr's type (dtypes as Symbols, shapes as Arrays).
    def attr(name)
      name = name.to_s
      case attr_type(name)
      when Graft_swig::GRAFT_ATTR_STRING then attr_string(name)
      when Graft_swig::GRAFT_ATTR_INT then attr_int(name)
      when Graft_swig::GRAFT_ATTR_FLOAT then attr_float(name)
      when Graft_swig::GRAFT_ATTR_BOOL then attr_bool(name)
      when Graft_swig::GRAFT_ATTR_TYPE then Graft.dtype(attr_dtype(name))
      when Graft_swig::GRAFT_ATTR_SHAPE then attr_shape(name).to_a
      when Graft_swig::GRAFT_ATTR_TENSOR then attr_tensor(name)
      when Graft_swig::GRAFT_ATTR_FUNC then attr_func(name)
      when Graft_swig::GRAFT_ATTR_INT_LIST then attr_int_list(name).to_a
      when Graft_swig::GRAFT_ATTR_FLOAT_LIST then attr_float_list(name).to_a
      when Graft_swig::GRAFT_ATTR_BOOL_LIST then attr_bool_list(name).to_a
      when Graft_swig::GRAFT_ATTR_TYPE_LIST then attr_dtype_list(name).map { |d| Graft.dtype(d) }
      when Graft_swig::GRAFT_ATTR_STRING_LIST then attr_string_list(name).to_a
      when Graft_swig::GRAFT_ATTR_SHAPE_LIST then attr_shape_list(name).map(&:to_a)
      else raise UnimplementedError, "graft: op '#{self.name}': attr '#{name}' has a type Ruby cannot read"
      end
    end

    def ==(other)
      other.is_a?(Operation) && same_as(other)
    end
    alias eql? ==

    def hash
      id.hash
    end

    def inspect
      "#<Graft::Operation #{name} (#{type})>"
    end
  end

  class Output
    alias_method :dtype_code, :dtype
    alias_method :native_shape, :shape

    def dtype
      Graft.dtype(dtype_code)
    end

    # The static shape: dims with nil for unknown ones; nil for an unknown rank.
    def shape
      native_shape.to_a
    end

    def shape=(dims)
      set_shape(Graft.shape(dims))
    end

    def ==(other)
      other.is_a?(Output) && same_as(other)
    end
    alias eql? ==

    def hash
      id.hash
    end

    def to_s
      name
    end

    def inspect
      "#<Graft::Output #{name} #{dtype} #{shape.inspect}>"
    end
  end

  class Session
    alias_method :native_initialize, :initialize
    alias_method :native_run, :run
    private :native_initialize

    # A session running graph; threads 0 uses one per core. A graph whose host functions are
    # Ruby blocks needs threads: 1 if it has many ops: Ruby cannot run on Graft's workers.
    #
    # default_device ("/device:OPENCL:0", a name from Graft.devices) is the device of the ops
    # that name none (ops with no kernel there, or with state or strings, stay on the CPU); one
    # that does not parse raises Graft::InvalidArgumentError. With strict_placement: true an op
    # whose own device is missing, or has no kernel for it, fails the run with
    # Graft::InvalidArgumentError naming the op and the device, instead of running on the CPU.
    # max_memory_bytes caps the tensor memory the session's runs hold at once (0: none): an op
    # over it fails the run with Graft::ResourceExhaustedError naming the op and the cap.
    def initialize(graph, threads: 0, track_memory: false, default_device: nil, strict_placement: false,
                   max_memory_bytes: 0)
      native_initialize(graph, threads, track_memory, 0, default_device.to_s, strict_placement ? true : false,
                        Integer(max_memory_bytes))
    end

    # Runs the graph: fetches is an Output (or Operation) or an Array of them; feeds maps
    # Outputs (or tensor names) to Tensors or Ruby data of their dtype; targets are Operations
    # run for their effects. Returns a Tensor, or an Array of them for an Array of fetches.
    # timeout_ms: the run stops with Graft::DeadlineExceededError once that many milliseconds
    # have passed; cancellation: a Graft::Cancellation, which stops it with
    # Graft::CancelledError when it is cancelled (before the run, or from a thread that is not
    # Ruby's: a run holds the GVL, so other Ruby threads wait for it; use timeout_ms there).
    # The session stays usable either way.
    def run(fetches, feeds = nil, **options)
      targets = options.delete(:targets) || []
      timeout_ms = Integer(options.delete(:timeout_ms) || 0)
      cancellation = options.delete(:cancellation)
      feeds = Graft.keyword_hash(feeds, options) # a brace-less feed Hash arrives as keywords
      graph = self.graph
      list = fetches.is_a?(Array) ? fetches : [fetches]
      outputs = list.map { |f| Graph.output_of(f.is_a?(String) ? graph[f] : f) }
      feed_outputs = []
      feed_values = []
      feeds.each do |key, value|
        out = Graph.output_of(key.is_a?(String) ? graph[key] : key)
        feed_outputs << out
        feed_values << Graft.tensor(value, dtype: value.is_a?(Tensor) ? nil : out.dtype)
      end
      ops = Array(targets).map { |t| t.is_a?(Output) ? t.op : t }
      result = Graft.invoke { native_run(outputs, feed_outputs, feed_values, ops, timeout_ms, cancellation) }.to_a
      fetches.is_a?(Array) ? result : result.first
    end

    def inspect
      "#<Graft::Session #{graph.inspect}>"
    end
  end
end
