// Epilogue: what a fused convolution or matmul applies to its result while it is still in
// cache: a per-channel bias, then an activation (the fused ops of the graph rewrite, Graft's
// counterpart of TensorFlow's _FusedConv2D / _FusedMatMul).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/runtime/kernel.h"
#include "kernels/cpu/kernel_util.h"

namespace graft::cpu {

enum class Activation { kNone, kRelu, kRelu6, kElu, kLeakyRelu, kSigmoid, kTanh };

// The activation named by a fused op's "activation" attr ("" or "None" for none); false for
// an unknown name.
inline bool ParseActivation(const std::string& name, Activation* out) {
  static constexpr struct {
    const char* name;
    Activation act;
  } kNames[] = {{"", Activation::kNone},         {"None", Activation::kNone},   {"Relu", Activation::kRelu},
                {"Relu6", Activation::kRelu6},   {"Elu", Activation::kElu},     {"LeakyRelu", Activation::kLeakyRelu},
                {"Sigmoid", Activation::kSigmoid}, {"Tanh", Activation::kTanh}};
  for (const auto& e : kNames) {
    if (name == e.name) {
      *out = e.act;
      return true;
    }
  }
  return false;
}

template <typename T>
struct Epilogue {
  const T* bias = nullptr;  // [channels], or none
  Activation act = Activation::kNone;
  T alpha = T(0.2);  // LeakyRelu's slope

  bool empty() const { return bias == nullptr && act == Activation::kNone; }

  // v (channels [c0, c0 + count) of one output position) = act(v + bias), elementwise as
  // the unfused BiasAdd and activation ops compute it.
  void Apply(T* v, int64_t c0, int64_t count) const {
    if (bias != nullptr) {
      for (int64_t i = 0; i < count; ++i) v[i] += bias[c0 + i];
    }
    switch (act) {
      case Activation::kNone: break;
      case Activation::kRelu:
        for (int64_t i = 0; i < count; ++i) v[i] = std::max(v[i], T(0));
        break;
      case Activation::kRelu6:
        for (int64_t i = 0; i < count; ++i) v[i] = std::min(std::max(v[i], T(0)), T(6));
        break;
      case Activation::kElu:
        for (int64_t i = 0; i < count; ++i) v[i] = v[i] < T(0) ? std::expm1(v[i]) : v[i];
        break;
      case Activation::kLeakyRelu:
        for (int64_t i = 0; i < count; ++i) v[i] = v[i] < T(0) ? v[i] * alpha : v[i];
        break;
      case Activation::kSigmoid:
        for (int64_t i = 0; i < count; ++i) v[i] = T(1) / (T(1) + std::exp(-v[i]));
        break;
      case Activation::kTanh:
        for (int64_t i = 0; i < count; ++i) v[i] = std::tanh(v[i]);
        break;
    }
  }
  // Rows [rows, ld] of `cols` channels each.
  void ApplyRows(T* v, int64_t rows, int64_t cols, int64_t ld) const {
    if (empty()) return;
    for (int64_t r = 0; r < rows; ++r) Apply(v + r * ld, 0, cols);
  }
};

// What a kernel that serves both a plain op and its fused form (Conv2D and _GraftFusedConv2D,
// ...) knows of the fused one: read once from the node's "activation" and "leakyrelu_alpha"
// attrs by Init, turned into each run's Epilogue over the bias input.
template <typename T>
class FusedEpilogue {
 public:
  // plain_type: the unfused op's type; any other node type is the fused op.
  Status Init(const Node& node, const char* plain_type) {
    fused_ = node.type() != plain_type;
    if (!fused_) return Status::Ok();
    std::string act;
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "activation", &act));
    if (!ParseActivation(act, &act_)) return errors::InvalidArgument(node.type(), ": unknown activation ", act);
    float alpha = 0.2f;
    if (node.attr("leakyrelu_alpha") != nullptr) GRAFT_RETURN_IF_ERROR(GetAttr(node, "leakyrelu_alpha", &alpha));
    alpha_ = static_cast<T>(alpha);
    return Status::Ok();
  }
  bool fused() const { return fused_; }
  // The run's epilogue (empty for the plain op) over input bias_input, which must be 1-D with
  // the result's `channels` output channels.
  Status Make(const OpKernelContext& ctx, int bias_input, int64_t channels, Epilogue<T>* out) const {
    *out = Epilogue<T>{};
    if (!fused_) return Status::Ok();
    const Tensor& bias = ctx.input(bias_input);
    if (bias.rank() != 1 || bias.dim(0) != channels) {
      return errors::InvalidArgument(ctx.node().type(), ": bias must be 1-D with the result's ", channels,
                                     " output channels, got ", ShapeText(bias.dims()));
    }
    *out = Epilogue<T>{bias.data<T>(), act_, alpha_};
    return Status::Ok();
  }

 private:
  bool fused_ = false;
  Activation act_ = Activation::kNone;
  T alpha_ = T(0.2);
};

}  // namespace graft::cpu
