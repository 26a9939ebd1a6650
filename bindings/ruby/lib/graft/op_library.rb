# frozen_string_literal: true

# bindings/ruby/lib/graft/op_library.rb: loading op libraries (TensorFlow's tf.load_op_library;
# graft/library.h).
#
#   lib = Graft.load_op_library("build/examples/plugin/libgraft_example_ops.so")
#   lib.op_names                                  # => ["ZeroOut", "Swish", "SwishGrad"]
#   g = Graft::Graph.new
#   Graft::Session.new(g).run(g.op(:ZeroOut, g.const([5, 3, 1], dtype: :int32))).to_a  # => [5, 0, 0]
#   Graft.default_context.op(:Swish, Graft.default_context.constant([1.0]))

module Graft
  # An op library Graft.load_op_library loaded: path, the file it was loaded from (absolute), and
  # op_names, the op types it registered in registration order; function_names are those in
  # snake case (ZeroOut -> zero_out, TensorFlow's names of op functions). A frozen copy: the
  # library stays loaded for the rest of the process.
  OpLibrary = Struct.new(:path, :op_names, :function_names) do
    def inspect
      "#<Graft::OpLibrary #{path} ops=#{op_names.inspect}>"
    end
  end

  class << self
    # Loads the op library at path (a String or Pathname; a path with a '/' is a file, else dlopen
    # searches): a shared library made with GRAFT_DEFINE_OP_LIBRARY (graft/kernel.h) whose ops,
    # kernels, shape functions and gradients are registered, all or nothing, for the rest of the
    # process. Its ops are then made as built-in ops are, by type (Graph#op, Context#op). Loading
    # the same file again registers nothing again. Returns a Graft::OpLibrary. Raises
    # Graft::NotFoundError (no such file, or not an op library; the message names the path),
    # Graft::UnimplementedError (built against a newer kernel ABI), Graft::AlreadyExistsError (one
    # of its ops is registered already).
    def load_op_library(path)
      lib = Graft_swig::Library.load(File.path(path))
      OpLibrary.new(lib.path.freeze, lib.op_names.to_a.map(&:freeze).freeze,
                    lib.function_names.to_a.map(&:freeze).freeze).freeze
    end
  end
end
