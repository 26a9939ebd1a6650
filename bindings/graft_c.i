/*
 * bindings/graft_c.i: the parts of the C API the bindings use directly: status codes, dtypes
 * and their properties, and the constants of the C++ layer's int fields (attr types,
 * collection item kinds, argument kinds). Included by graft.i.
 */
%ignore graft_dtype_from_name;
%ignore graft_dtype_min;
%ignore graft_dtype_max;
%ignore graft_dtype_int_min;
%ignore graft_dtype_int_max;
%ignore graft_error_set;

%include "graft/common.h"
%include "graft/error.h"
%include "graft/dtype.h"
%include "graft/version.h"
%ignore graft_string_free;
%ignore graft_buffer_free;
%include "graft/memory.h"

%constant int GRAFT_ATTR_NONE = GRAFT_ATTR_NONE;
%constant int GRAFT_ATTR_STRING = GRAFT_ATTR_STRING;
%constant int GRAFT_ATTR_INT = GRAFT_ATTR_INT;
%constant int GRAFT_ATTR_FLOAT = GRAFT_ATTR_FLOAT;
%constant int GRAFT_ATTR_BOOL = GRAFT_ATTR_BOOL;
%constant int GRAFT_ATTR_TYPE = GRAFT_ATTR_TYPE;
%constant int GRAFT_ATTR_SHAPE = GRAFT_ATTR_SHAPE;
%constant int GRAFT_ATTR_TENSOR = GRAFT_ATTR_TENSOR;
%constant int GRAFT_ATTR_FUNC = GRAFT_ATTR_FUNC;
%constant int GRAFT_ATTR_PLACEHOLDER = GRAFT_ATTR_PLACEHOLDER;
%constant int GRAFT_ATTR_STRING_LIST = GRAFT_ATTR_STRING_LIST;
%constant int GRAFT_ATTR_INT_LIST = GRAFT_ATTR_INT_LIST;
%constant int GRAFT_ATTR_FLOAT_LIST = GRAFT_ATTR_FLOAT_LIST;
%constant int GRAFT_ATTR_BOOL_LIST = GRAFT_ATTR_BOOL_LIST;
%constant int GRAFT_ATTR_TYPE_LIST = GRAFT_ATTR_TYPE_LIST;
%constant int GRAFT_ATTR_SHAPE_LIST = GRAFT_ATTR_SHAPE_LIST;
%constant int GRAFT_ATTR_TENSOR_LIST = GRAFT_ATTR_TENSOR_LIST;
%constant int GRAFT_ATTR_FUNC_LIST = GRAFT_ATTR_FUNC_LIST;

%constant int GRAFT_ITEM_OP = GRAFT_ITEM_OP;
%constant int GRAFT_ITEM_TENSOR = GRAFT_ITEM_TENSOR;
%constant int GRAFT_ITEM_STRING = GRAFT_ITEM_STRING;
%constant int GRAFT_ITEM_VALUE = GRAFT_ITEM_VALUE;

%constant int GRAFT_ARG_VALUE = GRAFT_ARG_VALUE;
%constant int GRAFT_ARG_INT = GRAFT_ARG_INT;
%constant int GRAFT_ARG_FLOAT = GRAFT_ARG_FLOAT;
%constant int GRAFT_ARG_STRING = GRAFT_ARG_STRING;
%constant int GRAFT_ARG_BOOL = GRAFT_ARG_BOOL;

%constant unsigned int GRAFT_REWRITE_CONSTANT_FOLDING = GRAFT_REWRITE_CONSTANT_FOLDING;
%constant unsigned int GRAFT_REWRITE_COMMON_SUBEXPRESSIONS = GRAFT_REWRITE_COMMON_SUBEXPRESSIONS;
%constant unsigned int GRAFT_REWRITE_IDENTITY_REMOVAL = GRAFT_REWRITE_IDENTITY_REMOVAL;
%constant unsigned int GRAFT_REWRITE_FUSION = GRAFT_REWRITE_FUSION;
