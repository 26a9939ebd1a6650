/*
 * DType: Graft's dtypes (TensorFlow's DataType numbers) as int constants, and their names.
 */
package graft;

public final class DType {
  private DType() {}

  public static final int INVALID = graft_swig.GRAFT_DTYPE_INVALID;
  public static final int FLOAT32 = graft_swig.GRAFT_FLOAT32;
  public static final int FLOAT64 = graft_swig.GRAFT_FLOAT64;
  public static final int INT32 = graft_swig.GRAFT_INT32;
  public static final int UINT8 = graft_swig.GRAFT_UINT8;
  public static final int INT16 = graft_swig.GRAFT_INT16;
  public static final int INT8 = graft_swig.GRAFT_INT8;
  public static final int STRING = graft_swig.GRAFT_STRING;
  public static final int COMPLEX64 = graft_swig.GRAFT_COMPLEX64;
  public static final int INT64 = graft_swig.GRAFT_INT64;
  public static final int BOOL = graft_swig.GRAFT_BOOL;
  public static final int BFLOAT16 = graft_swig.GRAFT_BFLOAT16;
  public static final int UINT16 = graft_swig.GRAFT_UINT16;
  public static final int COMPLEX128 = graft_swig.GRAFT_COMPLEX128;
  public static final int FLOAT16 = graft_swig.GRAFT_FLOAT16;
  public static final int RESOURCE = graft_swig.GRAFT_RESOURCE;
  public static final int VARIANT = graft_swig.GRAFT_VARIANT;
  public static final int UINT32 = graft_swig.GRAFT_UINT32;
  public static final int UINT64 = graft_swig.GRAFT_UINT64;

  /** The dtype's name ("float32", ...), or "invalid(n)". */
  public static String name(int dtype) {
    String name = graft_swig.graft_dtype_name(dtype);
    return name == null ? "invalid(" + dtype + ")" : name;
  }

  /** The size of one element in bytes (0 for strings and other variable-size dtypes). */
  public static long size(int dtype) {
    return graft_swig.graft_dtype_size(dtype);
  }
}
