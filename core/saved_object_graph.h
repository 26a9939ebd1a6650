// The object graph of a TensorFlow 2 SavedModel (MetaGraphDef.object_graph_def): the saved
// module's tracked objects — nested modules, lists and dicts of them (ListWrapper/DictWrapper),
// variables, tf.functions, assets, constants — as tf.saved_model.load restores them.
//
// Each tf.function is one or more concrete functions of the graph's library. Restoring makes
// each concrete function callable like a signature: a Placeholder per tensor argument (in
// TensorFlow's flattened order: the canonicalized input signature ((args...), {kwargs}) with
// dict keys sorted), a StatefulPartitionedCall of the function on those and on the objects it
// captured (SavedConcreteFunction.bound_inputs), and its outputs in the flattened order of its
// output signature. Everything is added to the graph at load time, so a loaded model's graph
// does not change afterwards and runs stay concurrent.
//
// A variable object is the VarHandleOp the graph's signature calls capture for it (so that a
// signature and a restored function see the same variable), or, when no graph call captures
// it, a VarHandleOp added here and restored from the checkpoint key its object names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/runtime/session.h"
#include "core/saved_model_signature.h"

struct Graftpb__MetaGraphDef;

namespace graft {

struct SavedObject {
  enum class Kind {
    kUserObject,  // a module or other tracked object
    kList,        // a list of tracked objects (TensorFlow's ListWrapper); children "0", "1", ...
    kDict,        // a dict of them (DictWrapper), children named by key
    kTuple,       // a tuple of them
    kVariable,
    kFunction,
    kConcreteFunction,
    kAsset,
    kConstant,
    kResource,
    kOther,
  };
  Kind kind = Kind::kOther;
  std::vector<std::pair<std::string, int>> children;  // (local name, object index), in saved order
  std::vector<int> functions;  // kFunction / kConcreteFunction: indexes into the restored functions
  Output value;                // kVariable: its read (ReadVariableOp); kConstant: the Const
  std::string variable_name;   // kVariable: the name TensorFlow gave it ("dense/kernel")
  bool trainable = false;      // kVariable
  std::string asset_path;      // kAsset: the file under the model's assets/
};

// How a SignatureDef's inputs or outputs nest: one dict by key, in the JSON of
// core/saved_model_signature.h (written by the same writer as the functions' structures).
std::string SignatureDefStructure(const std::vector<SignatureTensor>& tensors);

// Restores the object graph of mg (already imported into graph, its checkpoint at
// checkpoint_prefix restored through session; an empty prefix when the model has no
// variables): fills *objects (empty when the MetaGraph has no object graph) and *functions
// (each concrete function the objects name, as a Signature whose inputs are in argument order
// and outputs in flattened order; a function that cannot be called, for example because it
// captures a resource Graft cannot restore, has `unavailable` set and the rest is usable).
// Errors: a corrupt object graph or checkpoint (naming the object).
Status RestoreSavedObjectGraph(const Graftpb__MetaGraphDef* mg, const std::string& dir,
                               const std::string& checkpoint_prefix, Graph* graph, Session* session,
                               std::vector<SavedObject>* objects, std::vector<Signature>* functions);

}  // namespace graft
