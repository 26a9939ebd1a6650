/*
 * DeviceTest: the machine's devices (Graft.listDevices, over graft_device_list) and placement
 * options of a Session (Session.Options: defaultDevice, strictPlacement). The OpenCL checks run
 * where an OpenCL device is listed (PoCL's CPU device stands in for a GPU); elsewhere they are
 * skipped, and with GRAFT_OPENCL=0 no OpenCL device may be listed.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class DeviceTest {
  private static final float[] A = {1, 2, 3, 4, 5, 6};
  private static final float[] B = {7, 8, 9, 10, 11, 12};

  private static List<DeviceInfo> openClDevices() {
    List<DeviceInfo> out = new ArrayList<>();
    for (DeviceInfo d : Graft.listDevices())
      if (d.getDeviceType().equals("GPU") || d.getDeviceType().equals("OPENCL")) out.add(d);
    return out;
  }

  private static Operation placeholder(Graph g, String name) {
    return g.opBuilder("Placeholder", name).setAttrDtype("dtype", DType.FLOAT32).finish();
  }

  /** MatMul(a, b) + a·b (AddV2) of fed placeholders: nothing is folded at build time. */
  private static float[] run(Graph g, Output y, Output a, Output b, Session.Options options) {
    try (Session s = new Session(g, options);
         Tensor av = Tensor.fromFloats(A, new long[] {2, 3});
         Tensor bv = Tensor.fromFloats(B, new long[] {3, 2})) {
      try (Result out = s.run(List.of(y), Map.of(a, av, b, bv))) {
        Tensor t = out.get(0);
        assertArrayEquals(new long[] {2, 2}, t.shape());
        return t.toFloats();
      }
    }
  }

  @Test
  void cpuIsListedFirst() {
    List<DeviceInfo> devices = Graft.listDevices();
    assertFalse(devices.isEmpty());
    DeviceInfo cpu = devices.get(0);
    assertEquals("CPU", cpu.getDeviceType());
    assertEquals("/job:localhost/replica:0/task:0/device:CPU:0", cpu.getName());
    assertFalse(cpu.getModel().isEmpty());
    assertTrue(cpu.getMemoryBytes() >= 64L << 20, cpu.toString());
    assertTrue(cpu.getComputeUnits() >= 1, cpu.toString());
    assertEquals(1, Graft.listDevices("CPU").size());
    assertEquals(cpu, Graft.listDevices("CPU").get(0));
    assertEquals(cpu.hashCode(), Graft.listDevices("CPU").get(0).hashCode());
    assertTrue(cpu.toString().startsWith("DeviceInfo(/job:localhost/replica:0/task:0/device:CPU:0, CPU"), cpu.toString());
    assertEquals(List.of(), Graft.listDevices("TPU"));
    cpu.close();
    assertTrue(cpu.isClosed());
    assertEquals("DeviceInfo(closed)", cpu.toString());
    assertThrows(IllegalStateException.class, cpu::getName);
  }

  @Test
  void openClDevicesHaveTheirFields() {
    List<DeviceInfo> opencl = openClDevices();
    if ("0".equals(System.getenv("GRAFT_OPENCL"))) {
      assertEquals(List.of(), opencl);
      return;
    }
    Assumptions.assumeFalse(opencl.isEmpty(), "no OpenCL device (built without GRAFT_OPENCL, or no OpenCL platform)");
    String type = opencl.get(0).getDeviceType();
    int index = 0;
    for (DeviceInfo d : opencl) {
      if (!d.getDeviceType().equals(type)) continue;
      assertEquals("/job:localhost/replica:0/task:0/device:" + type + ":" + index++, d.getName());
      assertFalse(d.getModel().isEmpty(), d.toString());
      assertFalse(d.getVendor().isEmpty(), d.toString());
      assertTrue(d.getDriver().startsWith("OpenCL "), d.toString());
      assertTrue(d.getMemoryBytes() > 0, d.toString());
      assertTrue(d.getComputeUnits() >= 1, d.toString());
    }
  }

  @Test
  void defaultDeviceGivesTheCpuResult() {
    try (Graph g = new Graph()) {
      Output a = placeholder(g, "a").output(0);
      Output b = placeholder(g, "b").output(0);
      Output mm = g.opBuilder("MatMul", "mm").addInput(a).addInput(b).finish().output(0);
      Output y = g.opBuilder("AddV2", "y").addInput(mm).addInput(mm).finish().output(0);
      float[] cpu = run(g, y, a, b, new Session.Options());
      assertArrayEquals(new float[] {116, 128, 278, 308}, cpu);
      // Every listed device, by its full name and by its short one: the CPU's result.
      for (DeviceInfo d : Graft.listDevices()) {
        String shortName = d.getName().substring(d.getName().indexOf("/device:"));
        assertArrayEquals(cpu, run(g, y, a, b, new Session.Options().defaultDevice(d.getName())), d.getName());
        assertArrayEquals(cpu, run(g, y, a, b, new Session.Options().defaultDevice(shortName).strictPlacement(true)),
                          shortName);
      }
    }
  }

  @Test
  void strictPlacementOnAListedDeviceRuns() {
    List<DeviceInfo> opencl = openClDevices();
    Assumptions.assumeFalse(opencl.isEmpty(), "no OpenCL device");
    try (Graph g = new Graph()) {
      Output a = placeholder(g, "a").output(0);
      Output b = placeholder(g, "b").output(0);
      g.pushDevice(opencl.get(0).getName());
      Output mm = g.opBuilder("MatMul", "mm").addInput(a).addInput(b).finish().output(0);
      Output y = g.opBuilder("AddV2", "y").addInput(mm).addInput(mm).finish().output(0);
      g.popDevice();
      assertEquals(opencl.get(0).getName(), mm.op().device());
      assertArrayEquals(new float[] {116, 128, 278, 308}, run(g, y, a, b, new Session.Options().strictPlacement(true)));
    }
  }

  @Test
  void strictPlacementOnAMissingDeviceNamesTheOp() {
    try (Graph g = new Graph()) {
      Output a = placeholder(g, "a").output(0);
      Output b = placeholder(g, "b").output(0);
      Output mm = g.opBuilder("MatMul", "far_away").addInput(a).addInput(b).setDevice("/device:GPU:7").finish().output(0);
      // Soft placement (the default): the CPU runs it.
      assertArrayEquals(new float[] {58, 64, 139, 154}, run(g, mm, a, b, new Session.Options()));
      // Strict: an error naming the op and the device.
      GraftException e = assertThrows(GraftException.class,
                                      () -> run(g, mm, a, b, new Session.Options().strictPlacement(true)));
      assertEquals("GRAFT_EINVAL", e.codeName());
      assertEquals(Status.EINVAL, e.code());
      assertTrue(e.getMessage().contains("far_away"), e.getMessage());
      assertTrue(e.getMessage().contains("/device:GPU:7"), e.getMessage());
    }
  }

  @Test
  void malformedDeviceIsAnError() {
    try (Graph g = new Graph()) {
      placeholder(g, "a");
      GraftException e = assertThrows(GraftException.class,
                                      () -> new Session(g, new Session.Options().defaultDevice("/device:GPU:x:y")));
      assertEquals("GRAFT_EINVAL", e.codeName());
      assertTrue(e.getMessage().contains("default_device"), e.getMessage());
      // An op's device that does not parse: adding the op fails, naming it.
      e = assertThrows(GraftException.class, () -> g.opBuilder("AddV2", "bad").addInput(g.opByName("a").output(0))
                                                      .addInput(g.opByName("a").output(0)).setDevice("/device:GPU:x:y").finish());
      assertEquals("GRAFT_EINVAL", e.codeName());
      assertTrue(e.getMessage().contains("bad"), e.getMessage());
    }
  }

  @Test
  void optionsAreFluent() {
    Session.Options o = new Session.Options().numThreads(2).trackMemory(true).defaultDevice(null).strictPlacement(true);
    assertEquals(2, o.numThreads());
    assertTrue(o.trackMemory());
    assertEquals("", o.defaultDevice());
    assertTrue(o.strictPlacement());
    assertEquals(0, o.disabledRewrites());
    long off = Session.Options.REWRITE_CONSTANT_FOLDING | Session.Options.REWRITE_FUSION;
    assertEquals(off, o.disabledRewrites(off).disabledRewrites());
    assertNotEquals(0, Session.Options.REWRITE_COMMON_SUBEXPRESSIONS & ~off);
  }
}
