// Gradient functions of the image ops (see builtin_ops.h): ResizeBilinear, ResizeBicubic and
// ResizeNearestNeighbor, through their gradient ops, as TensorFlow's image_grad.py.
// ResizeBilinearGrad and ResizeBicubicGrad are not differentiable (as TensorFlow).
#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_context.h"
#include "core/ops/builtin_ops.h"

namespace graft::ops {
namespace {

AttrMap ResizeAttrs(const Node* op) {
  AttrMap out;
  for (const char* n : {"align_corners", "half_pixel_centers"}) {
    if (const AttrValue* v = op->attr(n)) out[n] = *v;
  }
  return out;
}

// ResizeBilinear: ResizeBilinearGrad of g against the image (only float images get one: the
// gradient op is defined for them).
Status ResizeBilinearGradFn(GradientContext& ctx) {
  const DType t = BaseDType(ctx.input(0).node->output_type(ctx.input(0).index));
  if (!DTypeIsFloating(t)) return Status::Ok();
  GradOps b(ctx);
  Output g = b.Op("ResizeBilinearGrad", {ctx.grad(), ctx.input(0)}, ResizeAttrs(ctx.op));
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, g);
  return Status::Ok();
}

// ResizeBicubic: ResizeBicubicGrad of g against the image (float and double images only, the
// gradient op's types, as TensorFlow's image_grad.py).
Status ResizeBicubicGradFn(GradientContext& ctx) {
  const DType t = BaseDType(ctx.input(0).node->output_type(ctx.input(0).index));
  if (t != DType::kFloat32 && t != DType::kFloat64) return Status::Ok();
  GradOps b(ctx);
  Output g = b.Op("ResizeBicubicGrad", {ctx.grad(), ctx.input(0)}, ResizeAttrs(ctx.op));
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, g);
  return Status::Ok();
}

// ResizeNearestNeighbor: g summed back into the pixels it copied, sized like the image
// (its height and width: constants when static).
Status ResizeNearestNeighborGradFn(GradientContext& ctx) {
  GradOps b(ctx);
  Output x = ctx.input(0);
  Output hw;
  auto shape = StaticShape(x);
  if (shape && shape->size() == 4) {
    hw = b.Int32s({(*shape)[1], (*shape)[2]});
  } else {
    hw = b.Op("Slice", {b.Shape(x), b.Int32s({1}), b.Int32s({2})});
  }
  Output g = b.Op("ResizeNearestNeighborGrad", {ctx.grad(), hw}, ResizeAttrs(ctx.op));
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, g);
  return Status::Ok();
}

}  // namespace

void RegisterImageGradients(GradientRegistry& r) {
  AddGradient(r, "ResizeBilinear", ResizeBilinearGradFn);
  AddGradient(r, "ResizeNearestNeighbor", ResizeNearestNeighborGradFn);
  AddGradient(r, "ResizeBilinearGrad", nullptr);
  AddGradient(r, "ResizeBicubic", ResizeBicubicGradFn);
  AddGradient(r, "ResizeBicubicGrad", nullptr);
}

}  // namespace graft::ops
