/*
 * AttrTest: OpBuilder and OpCall share every attr setter (graft.hpp's AttrSetter), each fluent
 * (it returns the builder or call), converting the value by the type the op declares for the
 * attr: an int for a float attr, a dtype name for a type attr, an empty list for any list.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.util.List;
import org.junit.jupiter.api.Test;

class AttrTest {
  @Test
  void opCallListSettersAreFluent() {
    try (Context ctx = new Context();
         Value x = ctx.fromDoubles(new double[] {1, 2, 3}, new long[] {1, 3, 1}, DType.FLOAT32)) {
      OpCall call = ctx.op("Squeeze").addInput(x).setAttrIntList("squeeze_dims", new long[] {0, 2});
      assertEquals(AttrType.INT_LIST, call.attrDeclaredType("squeeze_dims"));
      List<Value> out = call.setAttrString("T", "float32").execute();
      try (Shape shape = out.get(0).shape()) {
        assertArrayEquals(new long[] {3}, shape.dims());
      }
      assertArrayEquals(new float[] {1, 2, 3}, out.get(0).toFloats());
      call.close();
    }
  }

  @Test
  void valuesConvertByTheDeclaredType() {
    try (Context ctx = new Context();
         Value x = ctx.fromDoubles(new double[] {-10, 10}, new long[] {2}, DType.FLOAT32)) {
      // An integer for the float attr alpha.
      Value y = ctx.op("LeakyRelu").addInput(x).setAttrInt("alpha", 1).execute().get(0);
      assertArrayEquals(new float[] {-10, 10}, y.toFloats());
      // A float for an int attr is refused, naming the attr and its declared type.
      GraftException e = assertThrows(GraftException.class, () -> ctx.op("Squeeze").setAttrFloat("squeeze_dims", 1.5));
      assertTrue(e.getMessage().contains("squeeze_dims"), e.getMessage());
      assertTrue(e.getMessage().contains("list(int)"), e.getMessage());
    }
  }

  @Test
  void opBuilderSettersAreFluent() {
    try (Graph g = new Graph()) {
      Operation x = g.opBuilder("Placeholder", "x").setAttrString("dtype", "float32")
                        .setAttrShape("shape", new Shape(new long[] {1, 2})).finish();
      Operation s = g.opBuilder("Squeeze", "s").addInput(x.output(0)).setAttrIntList("squeeze_dims", new long[0])
                        .setAttrDtype("T", DType.FLOAT32).finish();
      assertEquals(DType.FLOAT32, s.output(0).dtype());
      assertEquals("Squeeze", s.type());
    }
  }
}
