/*
 * DType: Graft's dtypes (TensorFlow's DataType numbers) as int constants, and their names.
 *
 * No code is typed here: every constant is the C API's (graft/dtype.h, through SWIG), and
 * all() is the C API's table (graft_dtype_list). DTypeTest checks that every dtype of that table
 * has its constant here, named as graft_dtype_name() names it.
 */
package dev.graft;

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
  public static final int QINT8 = graft_swig.GRAFT_QINT8;
  public static final int QUINT8 = graft_swig.GRAFT_QUINT8;
  public static final int QINT32 = graft_swig.GRAFT_QINT32;
  public static final int BFLOAT16 = graft_swig.GRAFT_BFLOAT16;
  public static final int QINT16 = graft_swig.GRAFT_QINT16;
  public static final int QUINT16 = graft_swig.GRAFT_QUINT16;
  public static final int UINT16 = graft_swig.GRAFT_UINT16;
  public static final int COMPLEX128 = graft_swig.GRAFT_COMPLEX128;
  public static final int FLOAT16 = graft_swig.GRAFT_FLOAT16;
  public static final int RESOURCE = graft_swig.GRAFT_RESOURCE;
  public static final int VARIANT = graft_swig.GRAFT_VARIANT;
  public static final int UINT32 = graft_swig.GRAFT_UINT32;
  public static final int UINT64 = graft_swig.GRAFT_UINT64;

  /** Every dtype that is not a reference, in code order (the C API's graft_dtype_list). */
  public static int[] all() {
    return graft_swig.dtype_codes();
  }

  /** The dtype's name ("float32", ...), or "invalid(n)". */
  public static String name(int dtype) {
    String name = graft_swig.graft_dtype_name(dtype);
    return name == null ? "invalid(" + dtype + ")" : name;
  }

  /** Whether dtype is one of the C API's dtypes (reference dtypes included). */
  public static boolean isValid(int dtype) {
    return graft_swig.graft_dtype_is_valid(dtype) != 0;
  }

  /** Whether dtype is a real floating-point dtype (float16, bfloat16, float32, float64). */
  public static boolean isFloating(int dtype) {
    return graft_swig.graft_dtype_is_floating(dtype) != 0;
  }

  /** Whether dtype is complex64 or complex128. */
  public static boolean isComplex(int dtype) {
    return graft_swig.graft_dtype_is_complex(dtype) != 0;
  }

  /** Whether dtype is an integer dtype (not quantized, not bool). */
  public static boolean isInteger(int dtype) {
    return graft_swig.graft_dtype_is_integer(dtype) != 0;
  }

  /** Whether dtype is unsigned (uint8/16/32/64). */
  public static boolean isUnsigned(int dtype) {
    return graft_swig.graft_dtype_is_unsigned(dtype) != 0;
  }

  /** Whether dtype is quantized (qint8, quint8, ...). */
  public static boolean isQuantized(int dtype) {
    return graft_swig.graft_dtype_is_quantized(dtype) != 0;
  }

  /** The size of one element in bytes (0 for strings and other variable-size dtypes). */
  public static long size(int dtype) {
    return graft_swig.graft_dtype_size(dtype);
  }
}
