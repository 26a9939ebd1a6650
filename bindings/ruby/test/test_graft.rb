# frozen_string_literal: true

# bindings/ruby/test/test_graft.rb: the Ruby binding's minitest suite (ctest ruby.minitest):
#   ruby -Ilib -I<extension dir> test/test_graft.rb

require_relative "test_helper"
require_relative "test_errors"
require_relative "test_tensor"
require_relative "test_graph"
require_relative "test_run_limits"
require_relative "test_devices"
require_relative "test_gradients"
require_relative "test_tape"
require_relative "test_function"
require_relative "test_host_function"
require_relative "test_gc"
require_relative "test_lifetime"
require_relative "test_one_vocabulary"
require_relative "test_op_library"
require_relative "test_saved_model"
