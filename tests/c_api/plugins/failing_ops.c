/* A test op library whose init registers an op, then fails with a message of its own. */
#include <graft/graft.h>

static int init(void) {
  graft_op_def_builder *b = NULL;
  int rc = graft_op_def_builder_new(&b, "FailingFirst");
  if (rc == GRAFT_OK) rc = graft_op_def_builder_add_output(b, "y: int32");
  if (rc == GRAFT_OK) rc = graft_op_register(b);
  else graft_op_def_builder_free(b);
  if (rc != GRAFT_OK) return rc;
  return graft_error_set(GRAFT_EPRECONDITION, "failing_ops: the license server is unreachable");
}

GRAFT_DEFINE_OP_LIBRARY(init)
