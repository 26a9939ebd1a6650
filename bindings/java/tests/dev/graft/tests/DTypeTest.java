/*
 * DTypeTest: dev.graft.DType matches the C API's dtype table: every dtype graft_dtype_list gives
 * has a DType constant with its code, named as graft_dtype_name names it (upper case), and
 * every DType constant but INVALID is in the table.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class DTypeTest {
  /** DType's public static final int fields by name. */
  private static Map<String, Integer> constants() throws IllegalAccessException {
    Map<String, Integer> out = new TreeMap<>();
    for (Field f : DType.class.getFields()) {
      int m = f.getModifiers();
      if (Modifier.isStatic(m) && Modifier.isFinal(m) && f.getType() == int.class) out.put(f.getName(), f.getInt(null));
    }
    return out;
  }

  @Test
  void everyCDtypeHasItsConstant() throws IllegalAccessException {
    Map<String, Integer> constants = constants();
    int[] all = DType.all();
    assertTrue(all.length > 0);
    for (int code : all) {
      String name = DType.name(code); // graft_dtype_name, "invalid(n)" for a code it does not name
      assertFalse(name.startsWith("invalid("), "graft_dtype_name(" + code + ")");
      String field = name.toUpperCase(Locale.ROOT);
      assertTrue(constants.containsKey(field), "DType has no constant " + field + " for dtype " + code);
      assertEquals(code, (int) constants.get(field), "DType." + field);
      assertTrue(DType.isValid(code));
    }
  }

  @Test
  void everyConstantIsACDtype() throws IllegalAccessException {
    java.util.Set<Integer> codes = new java.util.HashSet<>();
    for (int code : DType.all()) codes.add(code);
    for (Map.Entry<String, Integer> e : constants().entrySet()) {
      if (e.getKey().equals("INVALID")) {
        assertEquals(0, (int) e.getValue()); // GRAFT_DTYPE_INVALID
        assertFalse(DType.isValid(e.getValue()));
        continue;
      }
      assertTrue(codes.contains(e.getValue()), "DType." + e.getKey() + " is not in graft_dtype_list");
      assertEquals(e.getKey().toLowerCase(Locale.ROOT), DType.name(e.getValue()));
    }
    assertEquals(codes.size() + 1, constants().size(), "one DType constant per C dtype, and INVALID");
  }

  @Test
  void namesAndSizes() {
    assertEquals("invalid(999)", DType.name(999));
    assertEquals(4, DType.size(DType.FLOAT32));
    assertEquals(8, DType.size(DType.INT64));
    assertEquals(0, DType.size(DType.STRING));
    assertEquals(1, DType.size(DType.BOOL)); // Tensor.toArray reads a bool as one byte
    assertTrue(DType.isFloating(DType.FLOAT16) && !DType.isFloating(DType.INT32));
    assertTrue(DType.isInteger(DType.INT8) && !DType.isInteger(DType.BOOL));
    assertTrue(DType.isUnsigned(DType.UINT8) && !DType.isUnsigned(DType.INT64));
    assertTrue(DType.isComplex(DType.COMPLEX64));
    assertTrue(DType.isQuantized(DType.QINT8));
  }

  @Test
  void statusCodes() {
    assertEquals(0, Status.OK);
    assertEquals("GRAFT_EINVAL", Status.name(Status.EINVAL));
    assertEquals("GRAFT_EDEADLINE", Status.name(Status.EDEADLINE));
    assertTrue(Status.ENOTFOUND < 0);
  }
}
