# frozen_string_literal: true

# bindings/ruby/lib/graft/saved_model.rb: a loaded SavedModel with Ruby's own collections, as
# TensorFlow's SavedModelBundle / tf.saved_model.load give it:
#
#   model = Graft::SavedModel.load("models/half_plus_two")       # tags: ["serve"]
#   model.signature_names                                          # => ["serving_default", ...]
#   model.signatures["serving_default"].inputs                     # => { "x" => [:float32, [1]] }
#   model.run("x" => [1.0])                                        # => { "y" => Graft::Tensor }
#   model.run({ "inputs" => ["a"] }, signature: "regress_x_to_y", outputs: ["outputs"])
#
# The graph and its session (variables restored) are model.graph and model.session.
module Graft
  class SavedModel
    # A signature's inputs and outputs: Hashes of key => [dtype Symbol, dims Array (nil: unknown)].
    Signature = Struct.new(:name, :method_name, :inputs, :outputs)

    # The SavedModel in dir: the MetaGraph tagged tags (["serve"] by default).
    def self.load(dir, tags: ["serve"])
      new(dir, tags: tags)
    end

    # The tag sets in dir, each an Array of tags.
    def self.tags(dir)
      Graft.invoke { Graft_swig::SavedModel.list_tags(dir.to_s) }.split("\n").map { |line| line.split(",") }
    end

    def initialize(dir, tags: ["serve"])
      @native = Graft.invoke { Graft_swig::SavedModel.new(dir.to_s, Array(tags).map(&:to_s)) }
      @signatures = @native.signatures.to_h do |s|
        [s.name, Signature.new(s.name, s.method_name, describe(s.inputs), describe(s.outputs)).freeze]
      end.freeze
    end

    # Signature name => Signature.
    attr_reader :signatures

    def signature_names
      @signatures.keys
    end

    # Runs signature with inputs (key => Tensor, or Ruby data made a tensor of the input's
    # dtype); returns output key => Tensor for outputs (all the signature's by default).
    # timeout_ms and cancellation as Session#run's.
    def run(inputs = nil, signature: "serving_default", outputs: nil, timeout_ms: 0, cancellation: nil, **more)
      inputs = Graft.keyword_hash(inputs, more) # a brace-less input Hash arrives as keywords
      sig = @signatures.fetch(signature.to_s) do
        raise NotFoundError, "graft: the SavedModel has no signature '#{signature}' (it has #{signature_names.inspect})"
      end
      keys = []
      values = []
      inputs.each do |key, value|
        spec = sig.inputs.fetch(key.to_s) do
          raise ArgumentError, "graft: signature '#{sig.name}' has no input '#{key}' (it has #{sig.inputs.keys.inspect})"
        end
        keys << key.to_s
        values << Graft.tensor(value, dtype: value.is_a?(Tensor) ? nil : spec[0])
      end
      output_keys = (outputs || sig.outputs.keys).map(&:to_s)
      result = Graft.invoke do
        @native.run(sig.name, keys, values, output_keys, Integer(timeout_ms), cancellation)
      end.to_a
      output_keys.zip(result).to_h
    end

    def graph
      @native.graph
    end

    # The model's session (its variables restored): runs any tensor of graph.
    def session
      @native.session
    end

    def inspect
      "#<Graft::SavedModel signatures=#{signature_names.inspect}>"
    end

    private

    def describe(tensors)
      tensors.to_h { |t| [t.key, [Graft.dtype(t.dtype), t.shape.to_a]] }
    end
  end
end
