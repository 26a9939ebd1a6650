/*
 * NdArrayTest: n-d Java arrays in and out of tensors and eager values (Tensor.fromArray,
 * toArray, copyTo; Context.fromArray, Value.toArray): the shape from the nesting, the dtype from
 * the element type (or converted to a given one), every element type round-tripping, and
 * ragged, null and mistyped arrays refused with IllegalArgumentException naming where.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.util.List;
import org.junit.jupiter.api.Test;

class NdArrayTest {
  @Test
  void float32Matrix() {
    float[][] m = {{1, 2, 3}, {4, 5, 6}};
    try (Tensor t = Tensor.fromArray(m)) {
      assertEquals(DType.FLOAT32, t.dtype());
      assertArrayEquals(new long[] {2, 3}, t.shape());
      assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, t.toFloats()); // row-major
      float[][] back = (float[][]) t.toArray();
      assertArrayEquals(m, back);
      assertNotSame(m, back);
      float[][] dst = new float[2][3];
      assertSame(dst, t.copyTo(dst));
      assertArrayEquals(m, dst);
    }
  }

  @Test
  void everyElementTypeRoundTrips() {
    double[][][] d = {{{1.5, -2}, {3, 4}}, {{5, 6}, {7, Double.MAX_VALUE}}};
    int[][] i = {{1, -2}, {Integer.MAX_VALUE, Integer.MIN_VALUE}, {0, 7}};
    long[] l = {1L << 40, -3, Long.MIN_VALUE};
    boolean[][] b = {{true, false, true}, {false, false, true}};
    byte[][] u8 = {{0, 1, (byte) 200}, {(byte) 255, 127, 128 - 256}};
    String[][] s = {{"graft", ""}, {"jni", "n-d ✓"}};
    Object[][] cases = {
        {d, DType.FLOAT64, new long[] {2, 2, 2}},
        {i, DType.INT32, new long[] {3, 2}},
        {l, DType.INT64, new long[] {3}},
        {b, DType.BOOL, new long[] {2, 3}},
        {u8, DType.UINT8, new long[] {2, 3}},
        {s, DType.STRING, new long[] {2, 2}},
    };
    for (Object[] c : cases) {
      try (Tensor t = Tensor.fromArray(c[0])) {
        String what = DType.name((int) c[1]);
        assertEquals((int) c[1], t.dtype(), what);
        assertArrayEquals((long[]) c[2], t.shape(), what);
        Object back = t.toArray();
        assertEquals(c[0].getClass(), back.getClass(), what);
        assertTrue(java.util.Objects.deepEquals(c[0], back), what);
        // copyTo into a fresh array of the same type and shape.
        Object dst = emptyLike(c[0]);
        assertTrue(java.util.Objects.deepEquals(c[0], t.copyTo(dst)), what);
      }
    }
    // What the flat readers see.
    try (Tensor t = Tensor.fromArray(u8)) {
      assertArrayEquals(new byte[] {0, 1, (byte) 200, (byte) 255, 127, (byte) 128}, t.bytes());
    }
    try (Tensor t = Tensor.fromArray(s)) {
      assertEquals(List.of("graft", "", "jni", "n-d ✓"), t.toStrings());
    }
    try (Tensor t = Tensor.fromArray(i)) {
      assertArrayEquals(new int[] {1, -2, Integer.MAX_VALUE, Integer.MIN_VALUE, 0, 7}, t.toInt32s());
    }
  }

  /** A zeroed array of a's type and shape. */
  private static Object emptyLike(Object a) {
    int rank = 0;
    Class<?> type = a.getClass();
    while (type.isArray()) {
      type = type.getComponentType();
      ++rank;
    }
    int[] dims = new int[rank];
    Object x = a;
    for (int d = 0; d < rank; ++d) {
      dims[d] = java.lang.reflect.Array.getLength(x);
      if (d + 1 < rank) x = java.lang.reflect.Array.get(x, 0);
    }
    return java.lang.reflect.Array.newInstance(type, dims);
  }

  @Test
  void scalarsAndEmptyArrays() {
    try (Tensor t = Tensor.fromArray(2.5f)) {
      assertEquals(DType.FLOAT32, t.dtype());
      assertEquals(0, t.shape().length);
      assertEquals(2.5f, t.toArray());
      assertThrows(IllegalArgumentException.class, () -> t.copyTo(new float[1]));
    }
    try (Tensor t = Tensor.fromArray("word")) {
      assertEquals(DType.STRING, t.dtype());
      assertEquals("word", t.toArray());
    }
    try (Tensor t = Tensor.fromArray(7L)) {
      assertEquals(DType.INT64, t.dtype());
      assertEquals(7L, t.toArray());
    }
    try (Tensor t = Tensor.fromArray(new float[2][0])) {
      assertArrayEquals(new long[] {2, 0}, t.shape());
      float[][] back = (float[][]) t.toArray();
      assertEquals(2, back.length);
      assertEquals(0, back[1].length);
    }
    // A zero-length dimension hides the ones below it: Java keeps no 3 in new float[0][3].
    try (Tensor t = Tensor.fromArray(new float[0][3])) {
      assertArrayEquals(new long[] {0, 0}, t.shape());
    }
  }

  @Test
  void convertingToADtype() {
    try (Tensor t = Tensor.fromArray(new double[][] {{1.5, 2}, {3, 4}}, DType.FLOAT32)) {
      assertEquals(DType.FLOAT32, t.dtype());
      assertArrayEquals(new float[][] {{1.5f, 2}, {3, 4}}, (float[][]) t.toArray());
    }
    try (Tensor t = Tensor.fromArray(new int[] {1, 2, 3}, DType.INT64)) {
      assertArrayEquals(new long[] {1, 2, 3}, (long[]) t.toArray());
    }
    try (Tensor t = Tensor.fromArray(new int[][] {{1, 2}}, DType.FLOAT64)) {
      assertArrayEquals(new double[][] {{1, 2}}, (double[][]) t.toArray());
    }
    // byte elements are uint8 by default, int8 when asked: the same bits either way.
    try (Tensor t = Tensor.fromArray(new byte[] {-1, 5}, DType.INT8)) {
      assertEquals(DType.INT8, t.dtype());
      assertArrayEquals(new byte[] {-1, 5}, (byte[]) t.toArray());
    }
    try (Tensor t = Tensor.fromArray(new byte[] {-1, 5}, DType.INT32)) {
      assertArrayEquals(new int[] {255, 5}, (int[]) t.toArray());
    }
    // An element that does not fit the dtype is the C API's error.
    assertThrows(GraftException.class, () -> Tensor.fromArray(new long[] {1L << 40}, DType.INT32));
  }

  @Test
  void raggedArraysNameTheDimension() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Tensor.fromArray(new float[][] {{1, 2, 3}, {4, 5}}));
    assertEquals("graft: ragged array: dimension 1 has length 2 at a[1] but 3 at a[0]", e.getMessage());

    e = assertThrows(IllegalArgumentException.class,
        () -> Tensor.fromArray(new int[][][] {{{1, 2}, {3, 4}}, {{5, 6}, {7}}}));
    assertEquals("graft: ragged array: dimension 2 has length 1 at a[1][1] but 2 at a[0][0]", e.getMessage());

    e = assertThrows(IllegalArgumentException.class, () -> Tensor.fromArray(new double[][] {{}, {1}}));
    assertTrue(e.getMessage().contains("dimension 1"), e.getMessage());

    e = assertThrows(IllegalArgumentException.class, () -> Tensor.fromArray(new long[][] {{1}, null}));
    assertEquals("graft: the array has null at a[1] (dimension 1)", e.getMessage());

    e = assertThrows(IllegalArgumentException.class, () -> Tensor.fromArray(new String[][] {{"a", "b"}, {"c", null}}));
    assertEquals("graft: the array has a null String at a[1][1]", e.getMessage());

    e = assertThrows(IllegalArgumentException.class, () -> Tensor.fromArray(new short[] {1, 2}));
    assertTrue(e.getMessage().contains("[S"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Tensor.fromArray(new Object[] {new float[] {1}}));
    assertThrows(NullPointerException.class, () -> Tensor.fromArray(null));

    // The same checks for eager values.
    try (Context ctx = new Context()) {
      e = assertThrows(IllegalArgumentException.class, () -> ctx.fromArray(new boolean[][] {{true}, {true, false}}));
      assertTrue(e.getMessage().contains("dimension 1"), e.getMessage());
    }
  }

  @Test
  void copyToChecksTheDestination() {
    try (Tensor t = Tensor.fromArray(new float[][] {{1, 2, 3}, {4, 5, 6}})) {
      float[][] wrongShape = new float[3][2];
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.copyTo(wrongShape));
      assertTrue(e.getMessage().contains("dimension 0 has length 3"), e.getMessage());
      assertArrayEquals(new float[3][2], wrongShape); // left as it was

      float[][] inner = {new float[3], new float[2]};
      e = assertThrows(IllegalArgumentException.class, () -> t.copyTo(inner));
      assertTrue(e.getMessage().contains("dimension 1 has length 2 at a[1]"), e.getMessage());
      assertArrayEquals(new float[3], inner[0]);

      e = assertThrows(IllegalArgumentException.class, () -> t.copyTo(new int[2][3]));
      assertTrue(e.getMessage().contains("float32") && e.getMessage().contains("int[][]"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> t.copyTo(new float[6]));
      assertTrue(e.getMessage().contains("rank"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> t.copyTo("not an array"));
    }
    // int8 reads back as byte, as uint8 does; a dtype with no Java array type is GRAFT_EDTYPE.
    try (Tensor h = Tensor.zeros(new long[] {2}, DType.FLOAT16)) {
      GraftException e = assertThrows(GraftException.class, h::toArray);
      assertEquals(Status.EDTYPE, e.code());
      assertEquals("GRAFT_EDTYPE", e.codeName());
      assertTrue(e.getMessage().contains("float16"), e.getMessage());
      assertThrows(GraftException.class, () -> h.copyTo(new float[2]));
    }
  }

  @Test
  void flatArraysWithAShape() {
    try (Tensor t = Tensor.fromFloats(new float[] {1, 2, 3, 4, 5, 6}, new long[] {3, 2})) {
      assertArrayEquals(new float[][] {{1, 2}, {3, 4}, {5, 6}}, (float[][]) t.toArray());
    }
    try (Tensor t = Tensor.fromInt64s(new long[] {1, 2}, new long[] {2, 1})) {
      assertArrayEquals(new long[][] {{1}, {2}}, (long[][]) t.toArray());
    }
    try (Tensor t = Tensor.fromHostBools(new boolean[] {true, false}, new long[] {1, 2}, DType.BOOL)) {
      assertArrayEquals(new boolean[][] {{true, false}}, (boolean[][]) t.toArray());
    }
    // data, then shape: a shape that does not hold the data is the C API's error.
    assertThrows(GraftException.class, () -> Tensor.fromDoubles(new double[] {1, 2, 3}, new long[] {2, 2}));
  }

  @Test
  void eagerValues() {
    try (Context ctx = new Context();
         Value a = ctx.fromArray(new float[][] {{1, 2}, {3, 4}});
         Value ids = ctx.fromArray(new long[] {1, 0}, DType.INT32);
         Value words = ctx.fromArray(new String[] {"x", "yz"})) {
      assertEquals(DType.FLOAT32, a.dtype());
      assertArrayEquals(new long[] {2, 2}, a.shape().dims());
      Value mm = ctx.op("MatMul").addInput(a).addInput(a).execute().get(0);
      assertArrayEquals(new float[][] {{7, 10}, {15, 22}}, (float[][]) mm.toArray());
      assertArrayEquals(new float[][] {{7, 10}, {15, 22}}, mm.copyTo(new float[2][2]));

      assertEquals(DType.INT32, ids.dtype());
      Value rows = ctx.op("GatherV2").addInput(a).addInput(ids).addInput(ctx.fromArray(0)).execute().get(0);
      assertArrayEquals(new float[][] {{3, 4}, {1, 2}}, (float[][]) rows.toArray());

      assertEquals(DType.STRING, words.dtype());
      assertArrayEquals(new String[] {"x", "yz"}, (String[]) words.toArray());

      try (Value flags = ctx.fromArray(new boolean[][] {{true}, {false}})) {
        assertArrayEquals(new boolean[][] {{true}, {false}}, (boolean[][]) flags.toArray());
      }
      try (Value bytes = ctx.fromArray(new byte[] {(byte) 250, 3})) {
        assertEquals(DType.UINT8, bytes.dtype());
        assertArrayEquals(new byte[] {(byte) 250, 3}, (byte[]) bytes.toArray());
      }
    }
  }
}
