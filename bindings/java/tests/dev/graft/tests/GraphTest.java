/*
 * GraphTest: building graphs with OpBuilder and running them in a Session (MatMul, feeds,
 * attrs, introspection), and the errors graph building reports.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GraphTest {
  private static Operation constant(Graph g, String name, Tensor value) {
    return g.opBuilder("Const", name).setAttrTensor("value", value).setAttrDtype("dtype", value.dtype()).finish();
  }

  @Test
  void matMulOfConstantsRuns() {
    try (Graph g = new Graph();
         Tensor av = Tensor.fromFloats(new float[] {1, 2, 3, 4, 5, 6}, new long[] {2, 3});
         Tensor bv = Tensor.fromFloats(new float[] {7, 8, 9, 10, 11, 12}, new long[] {3, 2})) {
      Operation a = constant(g, "a", av);
      Operation b = constant(g, "b", bv);
      Operation mm = g.opBuilder("MatMul", "mm").addInput(a.output(0)).addInput(b.output(0)).finish();
      assertEquals("MatMul", mm.type());
      assertEquals("mm", mm.name());
      assertEquals(3, g.numOps());
      try (Session s = new Session(g)) {
        Result out = s.run(List.of(mm.output(0)));
        assertEquals(1, out.size());
        Tensor r = out.get(0);
        assertEquals(DType.FLOAT32, r.dtype());
        assertArrayEquals(new long[] {2, 2}, r.shape());
        assertArrayEquals(new float[] {58, 64, 139, 154}, r.toFloats());
        assertSame(r, out.get("mm:0"));
        assertSame(r, out.get("mm")); // an op's name is its output 0, as in TensorFlow
        out.close();
        assertTrue(r.isClosed());
      }
    }
  }

  @Test
  void matMulOfPlaceholdersWithFeedsAndTranspose() {
    try (Graph g = new Graph()) {
      Operation x = g.opBuilder("Placeholder", "x").setAttrDtype("dtype", DType.FLOAT64)
                        .setAttrShape("shape", new Shape(new long[] {-1, 2})).finish();
      Operation w = g.opBuilder("Placeholder", "w").setAttrDtype("dtype", DType.FLOAT64).finish();
      Operation mm = g.opBuilder("MatMul", "").addInput(x.output(0)).addInput(w.output(0))
                         .setAttrBool("transpose_b", true).finish();
      assertEquals("MatMul", mm.name()); // "" names the op after its type
      assertTrue(mm.attrBool("transpose_b"));
      assertFalse(mm.attrBool("transpose_a"));
      assertEquals(new Shape(new long[] {-1, 2}), x.output(0).shape());
      assertEquals("(None, 2)", x.output(0).shape().toString());

      try (Session s = new Session(g);
           Tensor xv = Tensor.fromDoubles(new double[] {1, 2}, new long[] {1, 2});
           Tensor wv = Tensor.fromDoubles(new double[] {1, 0, 0, 1, 1, 1}, new long[] {3, 2})) {
        Result out = s.run(List.of(mm.output(0)), Map.of(x.output(0), xv, w.output(0), wv));
        assertArrayEquals(new long[] {1, 3}, out.get(0).shape());
        assertArrayEquals(new double[] {1, 2, 3}, out.get(0).toDoubles());
        assertArrayEquals(new double[][] {{1, 2, 3}}, (double[][]) out.get(0).toArray());

        // The same run with (no) targets, a timeout and no cancellation.
        try (Result again = s.run(List.of(mm.output(0)), Map.of(x.output(0), xv, w.output(0), wv), List.of(), 60000, null)) {
          assertArrayEquals(new double[] {1, 2, 3}, again.get("MatMul:0").toDoubles());
        }
      }
    }
  }

  @Test
  void introspection() {
    try (Graph g = new Graph(); Tensor v = Tensor.scalar(2.5f)) {
      Operation c = constant(g, "c", v);
      Operation sq = g.opBuilder("Square", "sq").addInput(c.output(0)).finish();
      assertEquals(c, g.opByName("c"));
      assertEquals(c.output(0), g.tensorByName("c:0"));
      assertEquals(c.output(0).hashCode(), g.tensorByName("c:0").hashCode());
      assertNotEquals(c.output(0), sq.output(0));
      assertEquals("c:0", c.output(0).name());
      assertEquals(DType.FLOAT32, sq.output(0).dtype());
      assertEquals(List.of(sq), c.output(0).consumers());
      assertEquals(c, sq.input(0).op());
      assertEquals(g, sq.graph());
      assertEquals(2, g.operations().size());
      assertEquals(2.5f, c.attrTensor("value").toFloats()[0]);
      assertEquals("float32", DType.name(c.attrDtype("dtype")));
      try (Session s = new Session(g)) {
        assertEquals(6.25f, s.run(List.of(sq.output(0))).get(0).toFloats()[0]);
      }
    }
  }

  @Test
  void int64ValuesAndDimsRoundTrip() {
    long big = (1L << 40) + 7;
    try (Tensor t = Tensor.fromInt64s(new long[] {big, -big, Long.MIN_VALUE}, new long[] {3});
         Graph g = new Graph()) {
      assertArrayEquals(new long[] {big, -big, Long.MIN_VALUE}, t.toInt64s());
      assertEquals(3, t.numElements());
      assertEquals(24, t.byteSize());
      Operation c = g.opBuilder("Const", "c").setAttrTensor("value", t).setAttrDtype("dtype", DType.INT64).finish();
      Operation dims = constant(g, "dims", Tensor.fromInt32s(new int[] {2}, new long[] {1}));
      Operation random = g.opBuilder("RandomUniform", "random").addInput(dims.output(0))
                             .setAttrDtype("dtype", DType.FLOAT32).setAttrInt("seed", big).setAttrInt("seed2", -big)
                             .finish();
      assertEquals(big, random.attrInt("seed"));
      assertEquals(-big, random.attrInt("seed2"));
      try (Session s = new Session(g)) {
        assertArrayEquals(new long[] {big, -big, Long.MIN_VALUE}, s.run(List.of(c.output(0))).get(0).toInt64s());
      }
    }
    Shape s = new Shape(new long[] {big, -1, 3});
    assertEquals(3, s.rank());
    assertArrayEquals(new long[] {big, -1, 3}, s.dims());
    assertFalse(s.isFullyDefined());
    assertEquals(-1, Shape.unknown().rank());
    try (Tensor z = Tensor.zeros(new long[] {2, 3}, DType.INT32)) {
      assertArrayEquals(new long[] {2, 3}, z.shape());
      assertArrayEquals(new int[6], z.toInt32s());
    }
  }

  @Test
  void stringsAndBytes() {
    try (Tensor t = Tensor.fromStrings(List.of("graft", "jni"), new long[] {2})) {
      assertEquals(DType.STRING, t.dtype());
      assertEquals(List.of("graft", "jni"), t.toStrings());
      assertArrayEquals("jni".getBytes(), t.stringAt(1));
    }
    try (Tensor t = Tensor.fromBytes(new byte[] {1, 0, (byte) 255}, new long[] {3}, DType.UINT8)) {
      assertArrayEquals(new byte[] {1, 0, (byte) 255}, t.bytes());
    }
    try (Graph g = new Graph()) {
      g.opBuilder("Const", "c").setAttrTensor("value", Tensor.scalar(1)).setAttrDtype("dtype", DType.INT32).finish();
      byte[] def = g.exportGraphDef(false);
      assertTrue(def.length > 0);
      try (Graph h = new Graph()) {
        ImportResult r = h.importGraphDef(def, "imported", List.of(), List.of(), List.of("c:0"));
        assertEquals("imported/c:0", r.tensors().get(0).name());
        assertEquals(1, h.numOps());
      }
    }
  }

  @Test
  void buildErrorsAreGraftExceptions() {
    try (Graph g = new Graph()) {
      GraftException e = assertThrows(GraftException.class, () -> g.opBuilder("NoSuchOp", "x").finish());
      assertTrue(e.code() < 0);
      assertTrue(e.codeName().startsWith("GRAFT_E"), e.codeName());
      assertTrue(e.getMessage().contains("NoSuchOp"), e.getMessage());

      GraftException missing = assertThrows(GraftException.class, () -> g.opByName("nothing"));
      assertEquals("GRAFT_ENOTFOUND", missing.codeName());
      assertEquals(Status.ENOTFOUND, missing.code());

      // A MatMul of mismatched shapes fails when the op is added.
      Operation a = constant(g, "a", Tensor.fromFloats(new float[6], new long[] {2, 3}));
      Operation b = constant(g, "b", Tensor.fromFloats(new float[6], new long[] {2, 3}));
      OpBuilder builder = g.opBuilder("MatMul", "bad").addInput(a.output(0)).addInput(b.output(0));
      GraftException shape = assertThrows(GraftException.class, builder::finish);
      assertFalse(shape.getMessage().isEmpty());
      assertTrue(builder.isClosed()); // finish consumes the builder, even when it fails
    }
  }

  @Test
  void runErrorsAreGraftExceptions() {
    try (Graph g = new Graph()) {
      Operation x = g.opBuilder("Placeholder", "x").setAttrDtype("dtype", DType.FLOAT32).finish();
      Operation sq = g.opBuilder("Square", "sq").addInput(x.output(0)).finish();
      try (Session s = new Session(g)) {
        // An unfed placeholder.
        GraftException e = assertThrows(GraftException.class, () -> s.run(List.of(sq.output(0))));
        assertTrue(e.getMessage().contains("x"), e.getMessage());
        // A feed of the wrong dtype.
        try (Tensor wrong = Tensor.scalar(1)) {
          assertThrows(GraftException.class, () -> s.run(List.of(sq.output(0)), Map.of(x.output(0), wrong)));
        }
        // Reading a float tensor as ints is the layer's dtype error.
        try (Tensor f = Tensor.scalar(1.0f)) {
          GraftException d = assertThrows(GraftException.class, f::toInt32s);
          assertEquals("GRAFT_EDTYPE", d.codeName());
        }
      }
    }
  }

  @Test
  void devicesCollectionsAndFinalize() {
    try (Graph g = new Graph()) {
      g.pushDeviceFunction(op -> op.type().equals("Const") ? "/device:CPU:0" : null);
      Operation onCpu = constant(g, "on_cpu", Tensor.scalar(1.0f));
      Operation sq = g.opBuilder("Square", "sq").addInput(onCpu.output(0)).finish();
      g.popDevice();
      g.pushDevice("/device:CPU:0");
      Operation pinned = constant(g, "pinned", Tensor.scalar(2.0f));
      g.popDevice();
      Operation free = constant(g, "free", Tensor.scalar(3.0f));
      assertEquals("/device:CPU:0", onCpu.device());
      assertEquals("", sq.device());
      assertEquals("/device:CPU:0", pinned.device());
      assertEquals("", free.device());

      CollectionItem text = CollectionItem.ofString("hello");
      CollectionItem op = CollectionItem.ofOp(sq);
      g.addToCollection("things", text);
      g.addToCollection("things", op);
      List<CollectionItem> items = g.getCollection("things", "");
      assertEquals(2, items.size());
      assertEquals("hello", items.get(0).getString());
      assertEquals(CollectionItem.STRING, items.get(0).getKind());
      assertEquals(CollectionItem.OP, items.get(1).getKind());
      assertEquals(sq, items.get(1).op());
      assertEquals(List.of("things"), g.collectionKeys());

      assertFalse(g.isFinalized());
      g.finalizeGraph();
      assertTrue(g.isFinalized());
      GraftException e = assertThrows(GraftException.class, () -> constant(g, "late", Tensor.scalar(4.0f)));
      assertEquals("GRAFT_EPRECONDITION", e.codeName());
    }
  }

  @Test
  void savedModelRoundTrip(@TempDir Path dir) {
    String path = dir.resolve("model").toString();
    try (Graph g = new Graph()) {
      Operation x = g.opBuilder("Placeholder", "x").setAttrDtype("dtype", DType.FLOAT32)
                        .setAttrShape("shape", new Shape(new long[] {-1})).finish();
      Operation y = g.opBuilder("Square", "y").addInput(x.output(0)).finish();
      try (Session s = new Session(g)) {
        SavedModel.save(s, path, List.of("serve"), List.of("serving_default"), List.of(List.of("x")),
                        List.of(List.of(x.output(0))), List.of(List.of("y")), List.of(List.of(y.output(0))));
      }
    }
    assertEquals("serve", SavedModel.listTags(path).trim());
    try (SavedModel m = SavedModel.load(path)) {
      Signature sig = m.signature("serving_default");
      assertEquals("x", sig.inputs().get(0).getKey());
      assertEquals(new Shape(new long[] {-1}), sig.inputs().get(0).shape());
      assertEquals("y:0", sig.outputs().get(0).getTensorName());
      assertEquals(1, m.signatures().size());
      try (Tensor in = Tensor.fromFloats(new float[] {3, 4}, new long[] {2})) {
        try (Result out = m.run(Map.of("x", in))) {
          assertArrayEquals(new float[] {9, 16}, out.get("y").toFloats());
        }
      }
      assertThrows(GraftException.class, () -> m.signature("nope"));
    }
  }
}
