/*
 * graft/graft.h: the whole public API of Graft. Include this one header.
 *
 * Only what these headers declare is the published API; anything else in libgraft is
 * internal and may change at any time.
 */
#ifndef GRAFT_GRAFT_H
#define GRAFT_GRAFT_H

#include "graft/common.h"
#include "graft/version.h"
#include "graft/error.h"
#include "graft/dtype.h"
#include "graft/shape.h"
#include "graft/tensor.h"
#include "graft/memory.h"
#include "graft/device.h"
#include "graft/attrs.h"
#include "graft/graph.h"
#include "graft/operation.h"
#include "graft/collection.h"
#include "graft/op_registry.h"
#include "graft/graph_def.h"
#include "graft/run_options.h"
#include "graft/session.h"
#include "graft/saved_model.h"
#include "graft/eager.h"
#include "graft/function.h"
#include "graft/control_flow.h"
#include "graft/gradients.h"
#include "graft/tape.h"
#include "graft/kernel.h"
#include "graft/library.h"
#include "graft/distributed.h"

#endif /* GRAFT_GRAFT_H */
