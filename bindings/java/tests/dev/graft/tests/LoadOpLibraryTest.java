/*
 * LoadOpLibraryTest: Graft.loadOpLibrary (tf.load_op_library) with examples/plugin's library,
 * whose ZeroOut is then built with OpBuilder and run in a Session, and called eagerly with OpCall.
 * The library is the file GRAFT_EXAMPLE_OPS names (ctest's java.junit sets it); without it the
 * tests are skipped.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graft.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoadOpLibraryTest {
  private static String examplePath() {
    String path = System.getenv("GRAFT_EXAMPLE_OPS");
    assumeTrue(path != null && !path.isEmpty(),
        "GRAFT_EXAMPLE_OPS is not set: set it to the built examples/plugin/libgraft_example_ops.so (ctest's java.junit sets it)");
    return path;
  }

  @Test
  void loadsTheExampleLibrary() throws Exception {
    String path = examplePath();
    try (Library lib = Graft.loadOpLibrary(path)) {
      assertEquals(List.of("ZeroOut", "Swish", "SwishGrad"), lib.opNames());
      assertEquals(List.of("zero_out", "swish", "swish_grad"), lib.functionNames());
      assertTrue(Files.isSameFile(Path.of(path), Path.of(lib.path())), lib.path());
      assertTrue(lib.toString().contains("ZeroOut"), lib.toString());
      // Loading it again registers nothing again.
      try (Library again = Graft.loadOpLibrary(Path.of(path))) {
        assertEquals(lib.path(), again.path());
        assertEquals(lib.opNames(), again.opNames());
      }
    }
  }

  @Test
  void zeroOutInAGraph() {
    Graft.loadOpLibrary(examplePath()).close();
    try (Graph g = new Graph();
         Tensor v = Tensor.fromInt32s(new int[] {5, 3, 1, 9}, new long[] {2, 2})) {
      Operation x = g.opBuilder("Const", "x").setAttrTensor("value", v).setAttrDtype("dtype", DType.INT32).finish();
      Operation z = g.opBuilder("ZeroOut", "zeroed").addInput(x.output(0)).finish();
      assertEquals("ZeroOut", z.type());
      assertEquals(new Shape(new long[] {2, 2}), z.output(0).shape()); // the library's shape function
      try (Session s = new Session(g)) {
        try (Result out = s.run(List.of(z.output(0)))) {
          assertEquals(DType.INT32, out.get(0).dtype());
          assertArrayEquals(new long[] {2, 2}, out.get(0).shape());
          assertArrayEquals(new int[][] {{5, 0}, {0, 0}}, (int[][]) out.get("zeroed").toArray());
        }
      }
    }
  }

  @Test
  void zeroOutEagerly() {
    Graft.loadOpLibrary(examplePath()).close();
    try (Context ctx = new Context();
         Value x = ctx.fromInts(new long[] {7, 8, 9}, new long[] {3}, DType.INT32);
         OpCall call = ctx.op("ZeroOut").addInput(x)) {
      List<Value> out = call.execute();
      try (Tensor t = out.get(0).toTensor()) {
        assertArrayEquals(new int[] {7, 0, 0}, t.toInt32s());
      }
      out.get(0).close();
    }
  }

  @Test
  void aBadPathIsNotFound(@TempDir Path dir) {
    String missing = dir.resolve("no_such_ops.so").toString();
    GraftException e = assertThrows(GraftException.class, () -> Graft.loadOpLibrary(missing));
    assertEquals("GRAFT_ENOTFOUND", e.codeName());
    assertTrue(e.getMessage().contains(missing), e.getMessage());
  }
}
