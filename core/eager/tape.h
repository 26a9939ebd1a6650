// Tape: TensorFlow's GradientTape. While a tape is active on a thread, the eager ops that the
// thread runs in its context and whose inputs the tape tracks (watched tensors and variables,
// or outputs of ops it recorded) are recorded with their input and output tensors. Gradient()
// replays the recorded ops that lead to the targets as a graph, adds their gradient with the
// symbolic gradient builder (the same gradient functions as tf.gradients) and runs the
// gradient ops eagerly, through the context, so that an enclosing tape records them in turn
// (nested tapes: second derivatives).
//
// Inside a traced function the values are symbolic: Gradient() adds the gradient ops to the
// trace's graph (they become part of the traced function) and nothing is recorded.
//
// Threading: a tape records the ops of the thread that made it active; Gradient() and Watch()
// are for that thread too (as TensorFlow's tapes).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/eager/context.h"
#include "core/eager/value.h"
#include "core/gradients/gradient_builder.h"

namespace graft::eager {

struct TapeOptions {
  // Gradient() may be called more than once (the recorded tensors are kept until the tape goes).
  bool persistent = false;
  // Variables read while the tape records are watched without a Watch() call.
  bool watch_accessed_variables = true;
  // Tensors are also known by their buffer: a value made again from a watched or recorded
  // tensor (a host function's inputs and outputs cross the boundary as plain tensors) is the
  // same tensor to the tape.
  bool alias_buffers = false;
};

class Tape {
 public:
  // ctx null: the tape records the ops of any context on this thread (the first one recorded
  // runs the gradient ops).
  Tape(Context* ctx, TapeOptions options) : ctx_(ctx), options_(options) {}
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;
  ~Tape();

  Context* context() const { return ctx_; }
  const TapeOptions& options() const { return options_; }

  // Recording: Start() makes the tape active on this thread (ops are recorded from now on),
  // Stop() ends it (TensorFlow's stop_recording() pauses with Stop/Start). A tape may be
  // started on one thread at a time.
  Status Start();
  Status Stop();
  bool recording() const { return recording_; }

  // Marks v as a source: a concrete tensor, a variable's handle (resource), or a symbolic value.
  Status Watch(const Value& v);
  // Watches a plain tensor (kept by the tape); with alias_buffers, values made from it later
  // are the same source.
  Status WatchTensor(const Tensor& t, Value* as_value);
  // The variables (their handles) watched so far, in the order first watched.
  const std::vector<Value>& watched_variables() const { return watched_variables_; }

  // d(sum of targets)/d(source) for each source, weighted by output_gradients (empty: ones;
  // else one per target). An entry of out is empty where no gradient flows (kNone), or zeros
  // (kZero). A source that is a variable handle gets the gradient of the variable's value.
  // With rows non-null, a source that only gathers read (an embedding) gets its gradient as
  // rows (TensorFlow's IndexedSlices): (*out)[i] holds the values and (*rows)[i] the indices
  // and the dense shape; elsewhere (*rows)[i] is empty.
  struct Rows {
    Value indices;
    Value dense_shape;
  };
  Status Gradient(const std::vector<Value>& targets, const std::vector<Value>& sources,
                  const std::vector<Value>& output_gradients, UnconnectedGradients unconnected,
                  std::vector<std::optional<Value>>* out, std::vector<std::optional<Rows>>* rows = nullptr);

  // Called by Context::Execute after an eager op ran on a thread where this tape is active.
  void Record(Context* ctx, const OpCall& op, const std::vector<Value>& outputs);
  // Whether this tape records ctx's ops.
  bool Records(const Context* ctx) const { return ctx_ == nullptr || ctx_ == ctx; }
  // Whether an op with these inputs would be recorded.
  bool ShouldRecord(const OpCall& op) const;

  // The tapes active on this thread for ctx, innermost last (empty when none).
  static const std::vector<Tape*>& Active();

 private:
  struct Entry {
    std::string type;
    AttrMap attrs;
    std::vector<std::pair<size_t, bool>> args;  // per input argument: count, is_list
    std::vector<Value> inputs;                   // flat
    std::vector<Value> outputs;
  };

  static uint64_t Key(const Value& v);
  // Key(v), or with alias_buffers the key of the tracked tensor that shares v's buffer.
  uint64_t Resolve(const Value& v) const;
  Status SymbolicGradient(const std::vector<Value>& targets, const std::vector<Value>& sources,
                          const std::vector<Value>& output_gradients, UnconnectedGradients unconnected,
                          std::vector<std::optional<Value>>* out, std::vector<std::optional<Rows>>* rows);
  Status EagerGradient(const std::vector<Value>& targets, const std::vector<Value>& sources,
                       const std::vector<Value>& output_gradients, UnconnectedGradients unconnected,
                       std::vector<std::optional<Value>>* out, std::vector<std::optional<Rows>>* rows);

  Context* ctx_;
  TapeOptions options_;
  bool recording_ = false;
  bool used_ = false;
  std::unordered_set<uint64_t> tracked_;           // watched and recorded-output keys
  std::unordered_map<uint64_t, Value> watched_;    // key -> the watched value
  std::vector<Value> watched_variables_;
  std::vector<Entry> entries_;
  std::unordered_map<uint64_t, std::pair<size_t, int>> producer_;  // key -> entry, output index
  struct BufferUse {
    uint64_t key;
    DType dtype;
    std::vector<int64_t> dims;
  };
  void NoteBuffer(const Tensor& t, uint64_t key);
  // With alias_buffers: the tracked tensors made with each buffer, oldest first.
  std::unordered_map<const void*, std::vector<BufferUse>> key_of_buffer_;
};

// Runs node of a graph eagerly through ctx.Execute (so active tapes record it), with its
// inputs given flat, in the node's input order.
Status ExecuteNode(Context& ctx, const Node& node, const std::vector<Value>& inputs, std::vector<Value>* outputs);

}  // namespace graft::eager
