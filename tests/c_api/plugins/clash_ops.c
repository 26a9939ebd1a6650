/* A test op library that fails halfway: it defines ClashFirst, then ZeroOut, which the example
 * library (examples/plugin) defines already. Nothing of it may be registered. */
#include <graft/graft.h>

static int define(const char *name) {
  graft_op_def_builder *b = NULL;
  int rc = graft_op_def_builder_new(&b, name);
  if (rc == GRAFT_OK) rc = graft_op_def_builder_add_input(b, "x: int32");
  if (rc == GRAFT_OK) rc = graft_op_def_builder_add_output(b, "y: int32");
  if (rc != GRAFT_OK) {
    graft_op_def_builder_free(b);
    return rc;
  }
  return graft_op_register(b);
}

static int init(void) {
  int rc = define("ClashFirst");
  if (rc == GRAFT_OK) rc = graft_gradient_register_none("ClashFirst");
  if (rc == GRAFT_OK) rc = define("ZeroOut");
  return rc;
}

GRAFT_DEFINE_OP_LIBRARY(init)
