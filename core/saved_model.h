// SavedModel loading: a TensorFlow SavedModel directory (saved_model.pb, variables/, assets/)
// becomes a Graph, a Session whose variables hold the checkpoint's values, and the model's
// signatures — named inputs and outputs mapped to tensors of the graph. Both generations load
// the same way: TensorFlow 1 models restore through their saver's `save/restore_all` op,
// TensorFlow 2 models through the restore function their saver def names; then the init op
// runs with the asset paths fed.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/runtime/session.h"
#include "core/saved_model_signature.h"
#include "core/saved_object_graph.h"

namespace graft {

// The tag sets of the MetaGraphs of the SavedModel in dir (for `graft inspect`).
Status ReadSavedModelTags(const std::string& dir, std::vector<std::vector<std::string>>* out);

class SavedModel {
 public:
  // Loads the MetaGraph whose tag set is exactly `tags` (empty: {"serve"}) into graph (empty)
  // and restores its variables through session (a session over graph); both must outlive the
  // model. Errors name the file, the tags (listing the ones there are) or the op that failed
  // while restoring; on error graph may hold part of the model and should be dropped.
  static Status Load(const std::string& dir, std::vector<std::string> tags, Graph* graph, Session* session,
                     std::unique_ptr<SavedModel>* out);

  const Graph& graph() const { return *graph_; }
  Session& session() { return *session_; }
  const std::vector<std::string>& tags() const { return tags_; }
  const std::vector<Signature>& signatures() const { return signatures_; }
  // A signature, or else a restored concrete function, by name; nullptr when there is none.
  const Signature* FindSignature(std::string_view name) const;

  // The TensorFlow 2 object graph (core/saved_object_graph.h): objects()[0] is the saved root
  // object; empty for TensorFlow 1 models. functions() are the concrete functions its function
  // objects name, callable through Run by name.
  const std::vector<SavedObject>& objects() const { return objects_; }
  const std::vector<Signature>& functions() const { return functions_; }
  // The object at path: child names from the root joined by '.' ("layers.0.kernel"; "" is the
  // root). kNotFound names the first missing child and lists the children there are.
  Status FindObject(std::string_view path, int* out) const;
  // The current value of the variable object at path.
  Status ReadVariable(std::string_view path, Tensor* out);

  // Runs signature (or restored concrete function) `name`: inputs by key (every input the outputs depend on must be given),
  // outputs by key (empty: all, in key order). Errors name the signature and the key.
  // control, when given, may stop the run before any kernel (runtime/run_control.h).
  Status Run(std::string_view name, const std::vector<std::pair<std::string, Tensor>>& inputs,
             const std::vector<std::string>& output_keys, std::vector<Tensor>* outputs,
             const RunControl* control = nullptr);

 private:
  SavedModel() = default;
  Graph* graph_ = nullptr;
  Session* session_ = nullptr;
  std::vector<std::string> tags_;
  std::vector<Signature> signatures_;
  std::vector<SavedObject> objects_;
  std::vector<Signature> functions_;
};

}  // namespace graft
