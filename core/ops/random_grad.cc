// Gradients of the random ops: none. The stateless random ops are not differentiable, as
// TensorFlow registers them (NotDifferentiable): a gradient reaching them stops there.
#include "core/ops/builtin_ops.h"

namespace graft::ops {

void RegisterRandomGradients(GradientRegistry& r) {
  for (const char* name :
       {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal", "StatelessRandomUniformInt",
        "StatelessRandomUniformFullInt", "StatelessRandomUniformV2", "StatelessRandomNormalV2",
        "StatelessTruncatedNormalV2", "StatelessRandomUniformIntV2", "StatelessRandomUniformFullIntV2"}) {
    AddGradient(r, name, nullptr);
  }
}

}  // namespace graft::ops
