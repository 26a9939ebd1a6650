// Resolving a node against its op definition: the part of creating an op that does not need
// the graph. Given the input dtypes (grouped by argument, or flat as in a GraphDef) and the
// attrs the caller set, it fills in defaults, infers type and length attrs from the inputs,
// validates every attr (type, allowed values, minimum), checks each input's dtype, and
// computes the output dtypes. The output shapes come after, from shape inference
// (RunShapeFn, shape_inference.h).
#pragma once

#include <string>
#include <vector>

#include "core/attr_value.h"
#include "core/op_registry.h"

namespace graft {

// The inputs given for one input argument of the op: one tensor, or a list.
struct InputGroup {
  std::vector<DType> types;
  bool is_list = false;
};

struct NodeSignature {
  std::vector<DType> input_types;   // flat, as the op expects them (ref types kept for ref args)
  std::vector<DType> output_types;  // flat
};

// Inputs grouped by argument (the C API's add_input / add_input_list calls, in order).
Status ResolveNodeSignature(const OpDef& def, std::string_view node_name, const std::vector<InputGroup>& inputs,
                            AttrMap* attrs, NodeSignature* out);

// Flat inputs (a GraphDef's node): the attrs decide how they split into arguments.
Status ResolveNodeSignatureFlat(const OpDef& def, std::string_view node_name, const std::vector<DType>& inputs,
                                AttrMap* attrs, NodeSignature* out);

}  // namespace graft
