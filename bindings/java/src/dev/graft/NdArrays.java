/*
 * NdArrays: n-d Java arrays (float[][], int[][][], String[], ...) to and from flat row-major
 * arrays with a shape, for Tensor.fromArray / toArray / copyTo (and Context.fromArray,
 * Value.toArray). The shape is the nesting's: rank from the array's type, each dimension from
 * the first sub-array at that depth; every other sub-array must have the same length (else
 * IllegalArgumentException naming the dimension and where). A dimension of length 0 hides the
 * ones below it, which are then 0 (new float[0][3] is shape [0, 0]: Java keeps no 3).
 *
 * Element types and the dtypes they give: float FLOAT32, double FLOAT64, int INT32, long INT64,
 * boolean BOOL, byte UINT8 (bit for bit; an INT8 tensor reads back as byte too), String STRING.
 */
package dev.graft;

import java.lang.reflect.Array;
import java.util.Arrays;

final class NdArrays {
  private NdArrays() {}

  /** An array's elements, flat in row-major order, with its shape and element type. */
  static final class Flat {
    final Class<?> type;
    final long[] shape;
    final Object data; // float[], double[], int[], long[], boolean[], byte[] or String[]

    Flat(Class<?> type, long[] shape, Object data) {
      this.type = type;
      this.shape = shape;
      this.data = data;
    }

    /** The dtype of the element type. */
    int dtype() {
      return dtypeOf(type);
    }
  }

  static int dtypeOf(Class<?> type) {
    if (type == float.class) return DType.FLOAT32;
    if (type == double.class) return DType.FLOAT64;
    if (type == int.class) return DType.INT32;
    if (type == long.class) return DType.INT64;
    if (type == boolean.class) return DType.BOOL;
    if (type == byte.class) return DType.UINT8;
    if (type == String.class) return DType.STRING;
    return DType.INVALID;
  }

  /**
   * The Java element type of a dtype's arrays; GraftException (GRAFT_EDTYPE) for a dtype that
   * has none.
   */
  static Class<?> elementType(int dtype) {
    if (dtype == DType.FLOAT32) return float.class;
    if (dtype == DType.FLOAT64) return double.class;
    if (dtype == DType.INT32) return int.class;
    if (dtype == DType.INT64) return long.class;
    if (dtype == DType.BOOL) return boolean.class;
    if (dtype == DType.UINT8 || dtype == DType.INT8) return byte.class;
    if (dtype == DType.STRING) return String.class;
    throw Status.exception(Status.EDTYPE, "graft: a " + DType.name(dtype) + " tensor has no Java array type "
        + "(float32, float64, int32, int64, bool, uint8, int8 and string tensors have)");
  }

  /** The element type named in messages: "float", "String". */
  private static String typeName(Class<?> type) {
    return type.getSimpleName();
  }

  /**
   * array's elements and shape: an n-d array of one of the element types, or a boxed scalar
   * (Float, Double, Integer, Long, Boolean, Byte) or a String for rank 0.
   */
  static Flat flatten(Object array) {
    if (array == null) throw new NullPointerException("graft: null array");
    Class<?> c = array.getClass();
    if (!c.isArray()) {
      if (array instanceof Float) return new Flat(float.class, new long[0], new float[] {(Float) array});
      if (array instanceof Double) return new Flat(double.class, new long[0], new double[] {(Double) array});
      if (array instanceof Integer) return new Flat(int.class, new long[0], new int[] {(Integer) array});
      if (array instanceof Long) return new Flat(long.class, new long[0], new long[] {(Long) array});
      if (array instanceof Boolean) return new Flat(boolean.class, new long[0], new boolean[] {(Boolean) array});
      if (array instanceof Byte) return new Flat(byte.class, new long[0], new byte[] {(Byte) array});
      if (array instanceof String) return new Flat(String.class, new long[0], new String[] {(String) array});
      throw unsupported(c);
    }
    int rank = 0;
    Class<?> type = c;
    while (type.isArray()) {
      type = type.getComponentType();
      ++rank;
    }
    if (dtypeOf(type) == DType.INVALID) throw unsupported(c);
    long[] shape = new long[rank];
    Object a = array;
    for (int d = 0; d < rank; ++d) {
      shape[d] = Array.getLength(a);
      if (d + 1 == rank) break;
      if (shape[d] == 0) break; // the dimensions below are 0
      a = Array.get(a, 0);
      if (a == null) throw nullAt(new int[rank], d + 1);
    }
    int n = elementCount(shape);
    Object flat = Array.newInstance(type, n);
    int end = copy(array, 0, shape, new int[rank], flat, 0, true);
    if (end != n) throw new IllegalStateException("graft: flattened " + end + " of " + n + " elements");
    return flat(type, shape, flat);
  }

  private static Flat flat(Class<?> type, long[] shape, Object flat) {
    if (type == String.class) {
      String[] s = (String[]) flat;
      for (int i = 0; i < s.length; ++i) {
        if (s[i] == null) {
          int[] index = new int[shape.length];
          for (int d = shape.length - 1, rest = i; d >= 0; --d) {
            index[d] = (int) (rest % shape[d]);
            rest /= shape[d];
          }
          throw new IllegalArgumentException("graft: the array has a null String at " + where(index, shape.length));
        }
      }
    }
    return new Flat(type, shape, flat);
  }

  /**
   * The n-d array of shape holding flat's elements (row-major); for rank 0 the one element,
   * boxed (a Float, ..., a String).
   */
  static Object unflatten(Object flat, Class<?> type, long[] shape) {
    if (shape.length == 0) return Array.get(flat, 0);
    int[] dims = new int[shape.length];
    for (int d = 0; d < shape.length; ++d) dims[d] = toInt(shape[d], shape);
    Object out = Array.newInstance(type, dims);
    copy(out, 0, shape, new int[shape.length], flat, 0, false);
    return out;
  }

  /**
   * Checks that dst is an n-d array of shape and of dtype's element type (as copyTo needs it):
   * IllegalArgumentException naming what differs.
   */
  static void checkDestination(int dtype, long[] shape, Object dst) {
    if (dst == null) throw new NullPointerException("graft: copyTo(null)");
    Class<?> type = elementType(dtype);
    Class<?> c = dst.getClass();
    if (!c.isArray()) {
      throw new IllegalArgumentException("graft: copyTo needs an array, not a " + c.getName()
          + (shape.length == 0 ? " (a scalar's value is toArray())" : ""));
    }
    int rank = 0;
    Class<?> dstType = c;
    while (dstType.isArray()) {
      dstType = dstType.getComponentType();
      ++rank;
    }
    if (dstType != type) {
      throw new IllegalArgumentException("graft: a " + DType.name(dtype) + " tensor cannot be copied into a "
          + c.getSimpleName() + " (it needs " + typeName(type) + " elements)");
    }
    if (rank != shape.length) {
      throw new IllegalArgumentException("graft: a tensor of shape " + Arrays.toString(shape) + " (rank "
          + shape.length + ") cannot be copied into a " + c.getSimpleName() + " (rank " + rank + ")");
    }
    check(dst, 0, shape, new int[rank]);
  }

  /** Copies flat's elements into dst, which checkDestination accepted. */
  static void fill(Object flat, long[] shape, Object dst) {
    copy(dst, 0, shape, new int[shape.length], flat, 0, false);
  }

  /**
   * Walks a (sub-)array of depth d (its index path in index[0, d)), checking that each
   * sub-array has the length of shape, and copies its elements to (toFlat) or from flat at
   * offset; returns the offset after them.
   */
  private static int copy(Object a, int d, long[] shape, int[] index, Object flat, int offset, boolean toFlat) {
    int n = Array.getLength(a);
    if (n != shape[d]) throw ragged(index, d, n, shape);
    if (d + 1 == shape.length) {
      if (toFlat)
        System.arraycopy(a, 0, flat, offset, n);
      else
        System.arraycopy(flat, offset, a, 0, n);
      return offset + n;
    }
    Object[] rows = (Object[]) a;
    for (int i = 0; i < n; ++i) {
      index[d] = i;
      if (rows[i] == null) throw nullAt(index, d + 1);
      offset = copy(rows[i], d + 1, shape, index, flat, offset, toFlat);
    }
    return offset;
  }

  /** copy's checks without the copy. */
  private static void check(Object a, int d, long[] shape, int[] index) {
    int n = Array.getLength(a);
    if (n != shape[d]) {
      throw new IllegalArgumentException("graft: a tensor of shape " + Arrays.toString(shape)
          + " cannot be copied into the array: its dimension " + d + " has length " + n + " at " + where(index, d)
          + ", not " + shape[d]);
    }
    if (d + 1 == shape.length) return;
    Object[] rows = (Object[]) a;
    for (int i = 0; i < n; ++i) {
      index[d] = i;
      if (rows[i] == null) throw nullAt(index, d + 1);
      check(rows[i], d + 1, shape, index);
    }
  }

  /** "a[1][0]": the sub-array at index path index[0, depth). */
  private static String where(int[] index, int depth) {
    StringBuilder s = new StringBuilder("a");
    for (int i = 0; i < depth; ++i) s.append('[').append(index[i]).append(']');
    return s.toString();
  }

  /* shape[d] is the length of the first sub-array at depth d (a[0][0]...). */
  private static IllegalArgumentException ragged(int[] index, int d, int n, long[] shape) {
    int[] first = new int[d];
    return new IllegalArgumentException("graft: ragged array: dimension " + d + " has length " + n + " at "
        + where(index, d) + " but " + shape[d] + " at " + where(first, d));
  }

  private static IllegalArgumentException nullAt(int[] index, int depth) {
    return new IllegalArgumentException("graft: the array has null at " + where(index, depth) + " (dimension "
        + depth + ")");
  }

  private static IllegalArgumentException unsupported(Class<?> c) {
    return new IllegalArgumentException("graft: no tensor of a " + c.getName() + ": an n-d array (or a scalar) of "
        + "float, double, int, long, boolean, byte (uint8) or String elements");
  }

  private static int elementCount(long[] shape) {
    long n = 1;
    for (long d : shape) {
      n *= d;
      if (n > Integer.MAX_VALUE - 8) break;
    }
    return toInt(n, shape);
  }

  private static int toInt(long n, long[] shape) {
    if (n > Integer.MAX_VALUE - 8)
      throw new IllegalArgumentException("graft: shape " + Arrays.toString(shape) + " is too large for a Java array");
    return (int) n;
  }

  static double[] widen(float[] v) {
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; ++i) out[i] = v[i];
    return out;
  }

  static long[] widen(int[] v) {
    long[] out = new long[v.length];
    for (int i = 0; i < v.length; ++i) out[i] = v[i];
    return out;
  }

  /** Bytes as integers: signed (int8) or unsigned (uint8, the default reading of a byte). */
  static long[] widen(byte[] v, boolean signed) {
    long[] out = new long[v.length];
    for (int i = 0; i < v.length; ++i) out[i] = signed ? v[i] : (v[i] & 0xFF);
    return out;
  }

  static boolean[] bools(byte[] v) {
    boolean[] out = new boolean[v.length];
    for (int i = 0; i < v.length; ++i) out[i] = v[i] != 0;
    return out;
  }
}
