# frozen_string_literal: true

# bindings/ruby/test/test_devices.rb: the machine's devices (Graft.devices, over
# graft_device_list) and a Session's placement options (default_device:, strict_placement:).
# The OpenCL checks run where an OpenCL device is listed (PoCL's CPU device stands in for a
# GPU); elsewhere they are skipped, and with GRAFT_OPENCL=0 no OpenCL device may be listed.

require_relative "test_helper"

class TestDevices < Minitest::Test
  A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].freeze
  B = [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]].freeze

  def opencl_devices
    Graft.devices.select { |d| %w[GPU OPENCL].include?(d.device_type) }
  end

  # MatMul(a, b) doubled (AddV2) of fed placeholders: nothing is folded when the graph is built.
  def matmul_graph(device: nil)
    g = Graft::Graph.new
    a = g.placeholder(:float32, name: "a")
    b = g.placeholder(:float32, name: "b")
    mm = g.op(:MatMul, a, b, name: "mm", device: device)
    y = g.op(:AddV2, mm, mm, name: "y", device: device)
    [g, a, b, y]
  end

  def run_matmul(graph, a, b, y, **options)
    Graft::Session.new(graph, **options).run(y, a => A, b => B).to_a
  end

  def test_cpu_is_listed_first
    devices = Graft.devices
    cpu = devices.first
    assert_kind_of Graft::DeviceInfo, cpu
    assert_equal "CPU", cpu.device_type
    assert_equal "CPU", cpu.type
    assert cpu.cpu?
    assert_equal "/job:localhost/replica:0/task:0/device:CPU:0", cpu.name
    refute_empty cpu.model
    assert_operator cpu.memory_bytes, :>=, 64 << 20
    assert_operator cpu.compute_units, :>=, 1
    assert cpu.frozen?
    assert_equal [cpu], Graft.devices("CPU")
    assert_equal [cpu], Graft.devices(:cpu)
    assert_equal devices, Graft.list_devices
    assert_equal [], Graft.devices(:tpu)
    assert_match(%r{\A#<Graft::DeviceInfo /job:localhost/replica:0/task:0/device:CPU:0 \(CPU\)}, cpu.inspect)
  end

  def test_opencl_devices_have_their_fields
    opencl = opencl_devices
    if ENV["GRAFT_OPENCL"] == "0"
      assert_equal [], opencl
      return
    end
    skip "no OpenCL device (built without GRAFT_OPENCL, or no OpenCL platform)" if opencl.empty?
    type = opencl.first.device_type
    opencl.select { |d| d.device_type == type }.each_with_index do |d, i|
      assert_equal "/job:localhost/replica:0/task:0/device:#{type}:#{i}", d.name
      refute d.cpu?
      refute_empty d.model, d.inspect
      refute_empty d.vendor, d.inspect
      assert d.driver.start_with?("OpenCL "), d.inspect
      assert_operator d.memory_bytes, :>, 0
      assert_operator d.compute_units, :>=, 1
    end
  end

  def test_default_device_gives_the_cpu_result
    g, a, b, y = matmul_graph
    cpu = run_matmul(g, a, b, y)
    assert_equal [[116.0, 128.0], [278.0, 308.0]], cpu
    # Every listed device, by its full name and by its short one: the CPU's result.
    Graft.devices.each do |d|
      short = d.name[d.name.index("/device:")..]
      assert_equal cpu, run_matmul(g, a, b, y, default_device: d.name), d.name
      assert_equal cpu, run_matmul(g, a, b, y, default_device: short, strict_placement: true), short
    end
  end

  def test_strict_placement_on_a_listed_device_runs
    opencl = opencl_devices
    skip "no OpenCL device" if opencl.empty?
    g, a, b, y = matmul_graph(device: opencl.first.name)
    assert_equal opencl.first.name, y.device
    assert_equal [[116.0, 128.0], [278.0, 308.0]], run_matmul(g, a, b, y, strict_placement: true)
  end

  def test_strict_placement_on_a_missing_device_names_the_op
    g = Graft::Graph.new
    a = g.placeholder(:float32, name: "a")
    b = g.placeholder(:float32, name: "b")
    far = g.op(:MatMul, a, b, name: "far_away", device: "/device:GPU:7")
    # Soft placement (the default): the CPU runs it.
    assert_equal [[58.0, 64.0], [139.0, 154.0]], run_matmul(g, a, b, far)
    # Strict: an error naming the op and the device.
    err = assert_raises(Graft::InvalidArgumentError) { run_matmul(g, a, b, far, strict_placement: true) }
    assert_equal "GRAFT_EINVAL", err.code_name
    assert_includes err.message, "far_away"
    assert_includes err.message, "/device:GPU:7"
  end

  def test_malformed_device_is_an_error
    g = Graft::Graph.new
    g.placeholder(:float32, name: "a")
    err = assert_raises(Graft::InvalidArgumentError) { Graft::Session.new(g, default_device: "/device:GPU:x:y") }
    assert_includes err.message, "default_device"
    # An op's device that does not parse: adding the op fails, naming it.
    err = assert_raises(Graft::InvalidArgumentError) { g.op(:AddV2, g["a:0"], g["a:0"], name: "bad", device: "/GPU:x:y") }
    assert_includes err.message, "'bad'"
    assert_raises(ArgumentError) { Graft::Session.new(g, default_devise: "/device:CPU:0") }
  end
end
