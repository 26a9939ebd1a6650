// Calls by op name: a node whose op is the name of a function in the graph's library is a call
// of that function, as TensorFlow treats it (TensorFlow 1's `Defun` writes its calls this way,
// in graphs and inside function bodies). Graft has one call mechanism, the PartitionedCall ops,
// so such a node is imported as a (Stateful)PartitionedCall of the function: it runs, exports
// and differentiates like every other call.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/function_library.h"
#include "core/graph.h"

namespace graft {

// What a caller sees of a library function: its arguments and results, each one tensor of a
// fixed dtype (the only kind of function signature calls support).
struct LibrarySignature {
  std::string name;
  std::vector<std::string> arg_names, ret_names;
  std::vector<DType> arg_types, ret_types;
  bool stateful = false;  // the signature says so, or a body op is stateful
};

// Reads f's signature. Errors say which argument is polymorphic or a list.
Status ReadLibrarySignature(const LibraryFunction& f, LibrarySignature* out);

// Turns spec (type: f's name; inputs flat in inputs[0], as GraphDef import builds them; attrs
// as the NodeDef had them) into a call of f. The node's own attrs ('_' first) stay on the call;
// any other attr is an error, since f declares none. Errors name the function and say what
// does not match (input count, an input's dtype); the caller adds the node.
Status RewriteAsLibraryCall(const LibraryFunction& f, NodeSpec* spec);

}  // namespace graft
