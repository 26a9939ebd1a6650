/*
 * AttrType: the types of op attrs (the C API's graft_attr_type) as int constants, which
 * Operation.attrType(name) and OpBuilder/OpCall.attrDeclaredType(name) return. The constants
 * are the C API's, through SWIG.
 */
package dev.graft;

public final class AttrType {
  private AttrType() {}

  /** No such attr, or the op declares none of that name. */
  public static final int NONE = graft_swig.GRAFT_ATTR_NONE;
  public static final int STRING = graft_swig.GRAFT_ATTR_STRING;
  public static final int INT = graft_swig.GRAFT_ATTR_INT;
  public static final int FLOAT = graft_swig.GRAFT_ATTR_FLOAT;
  public static final int BOOL = graft_swig.GRAFT_ATTR_BOOL;
  /** A dtype. */
  public static final int TYPE = graft_swig.GRAFT_ATTR_TYPE;
  public static final int SHAPE = graft_swig.GRAFT_ATTR_SHAPE;
  public static final int TENSOR = graft_swig.GRAFT_ATTR_TENSOR;
  /** A function's name. */
  public static final int FUNC = graft_swig.GRAFT_ATTR_FUNC;
  public static final int PLACEHOLDER = graft_swig.GRAFT_ATTR_PLACEHOLDER;
  public static final int STRING_LIST = graft_swig.GRAFT_ATTR_STRING_LIST;
  public static final int INT_LIST = graft_swig.GRAFT_ATTR_INT_LIST;
  public static final int FLOAT_LIST = graft_swig.GRAFT_ATTR_FLOAT_LIST;
  public static final int BOOL_LIST = graft_swig.GRAFT_ATTR_BOOL_LIST;
  public static final int TYPE_LIST = graft_swig.GRAFT_ATTR_TYPE_LIST;
  public static final int SHAPE_LIST = graft_swig.GRAFT_ATTR_SHAPE_LIST;
  public static final int TENSOR_LIST = graft_swig.GRAFT_ATTR_TENSOR_LIST;
  public static final int FUNC_LIST = graft_swig.GRAFT_ATTR_FUNC_LIST;
}
