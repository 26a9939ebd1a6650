# frozen_string_literal: true

# bindings/ruby/lib/graft/device.rb: the devices of this machine (graft_device_list, as
# TensorFlow's tf.config.list_physical_devices).
#
#   Graft.devices.map(&:name)
#   # => ["/job:localhost/replica:0/task:0/device:CPU:0",
#   #     "/job:localhost/replica:0/task:0/device:OPENCL:0"]
#   Graft.devices(:opencl).first.compute_units   # => 16
#   Graft::Session.new(g, default_device: "/device:OPENCL:0", strict_placement: true)
#
# The CPU comes first, then each registered device type's devices (the OpenCL devices: "GPU" for
# GPUs and accelerators, "OPENCL" for CPU OpenCL devices such as PoCL; GRAFT_OPENCL=0 hides
# them), in the order a session numbers them, so a device's name places ops on it (Graph#device,
# op(..., device:), Session.new(default_device:)).

module Graft
  # One device: its full name ("/job:localhost/replica:0/task:0/device:OPENCL:0"), device_type
  # ("CPU", "GPU", "OPENCL"; also read as type), model (the CPU's model name or the OpenCL
  # device's name), vendor, driver (driver and runtime versions; the kernel's release for the
  # CPU), memory_bytes (global memory; the host's RAM for the CPU) and compute_units (the CPU's
  # hardware threads). A field the device does not report is "" (0 for numbers). A frozen copy.
  DeviceInfo = Struct.new(:name, :device_type, :model, :vendor, :driver, :memory_bytes, :compute_units) do
    alias_method :type, :device_type

    def cpu?
      device_type == "CPU"
    end

    def inspect
      "#<Graft::DeviceInfo #{name} (#{device_type}) #{model.inspect}>"
    end
  end

  class << self
    # The devices of this machine as Graft::DeviceInfo, the CPU first; with device_type ("CPU",
    # :opencl, ...) only those of that type. Finding them may start the OpenCL runtime (tens of
    # milliseconds the first time in a process).
    def devices(device_type = nil)
      list = Graft_swig.list_devices.to_a.map do |d|
        DeviceInfo.new(d.name, d.device_type, d.model, d.vendor, d.driver, d.memory_bytes, d.compute_units).freeze
      end
      return list if device_type.nil?

      type = device_type.to_s.upcase
      list.select { |d| d.device_type == type }
    end
    alias_method :list_devices, :devices
  end
end
