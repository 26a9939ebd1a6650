// TensorFlow 1 loops (Enter/Merge/Switch/LoopCond/NextIteration/Exit frames) seen as functional
// While loops, so that the gradient builder differentiates a whole loop at once with
// AddWhileGradient (function_gradients.h). The loop structure comes from the graph alone (the
// Enter ops' frame_name attrs, the NextIteration back edges into Merges, the Exits), not from
// TensorFlow's Python loop contexts, so loops imported from a GraphDef are differentiable too.
//
// Tf1Frames assigns every op its frame as the frame executor does (an op runs in the frame of
// its forward inputs; Enter opens the frame it names, Exit returns to the parent). For the gradient
// builder, an Enter and an Exit belong to the frame inside (inner_frame), so that a loop is the
// set of ops whose inner frame is the loop's frame or one nested in it.
//
// ExtractTf1Loop writes a loop's condition and body as library functions: each takes the loop
// variables (the values of the loop's Merges: an Enter's initial value, then each
// NextIteration's) followed by the loop invariants (the loop's other Enters), the condition
// returns the LoopCond's input, the body each NextIteration's input followed by the invariants
// unchanged. The ops are copied (nested loops and conds included); the loop's own ops become
// the functions' arguments.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph.h"

namespace graft {

class Tf1Frames {
 public:
  // Assigns frames to every op of graph (creation order is a dependency order but for the
  // back edges into Merges).
  Status Build(const Graph& graph);
  // 0: the root frame (outside every loop).
  int inner_frame(const Node* n) const;
  // The frame directly below the root that holds frame f (f itself when its parent is the
  // root); 0 for the root.
  int top_frame(int f) const;
  int parent(int f) const { return parent_[static_cast<size_t>(f)]; }
  const std::string& name(int f) const { return name_[static_cast<size_t>(f)]; }
  bool empty() const { return parent_.size() <= 1; }

 private:
  std::vector<int> parent_{-1};
  std::vector<std::string> name_{""};
  std::unordered_map<const Node*, int> frame_;        // the frame an op runs in
  std::unordered_map<const Node*, int> inner_;        // Enter: the frame it opens; Exit: the one it leaves
};

struct Tf1Loop {
  std::string cond;  // library functions (added to the graph's library)
  std::string body;
  bool stateful = false;        // the loop holds a stateful op
  std::vector<Output> inputs;   // the loop variables' initial values, then the invariants
  std::vector<Node*> exits;     // per loop variable: its Exit, or nullptr; size: the number of loop variables
};

// Extracts top-level frame `frame` of graph (see above). Errors name the op that does not fit a
// well-formed loop.
Status ExtractTf1Loop(Graph& graph, const Tf1Frames& frames, int frame, Tf1Loop* out);

}  // namespace graft
