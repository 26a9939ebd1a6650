// Built-in ops: see builtin_ops.h for the family.
//
// Image resizing (NHWC): ResizeBilinear and ResizeBicubic (float32 output for every input type,
// as TensorFlow), ResizeNearestNeighbor, and their gradient ops ResizeBilinearGrad,
// ResizeBicubicGrad and ResizeNearestNeighborGrad; ImageProjectiveTransformV2/V3 (Keras' RandomRotation, RandomZoom,
// RandomTranslation). Signatures as TensorFlow 2.21's registry.
#include <string_view>
#include <vector>

#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {

using namespace shape_fns;

namespace {

// [batch, size[0], size[1], channels] from a 4-D input (batch and channels from input 0) and
// a size vector of two (input 1), read when it is a constant.
Status ResizedShape(InferenceContext& c) {
  PartialShape images;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 4, &images));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1));
  int64_t len;
  GRAFT_RETURN_IF_ERROR(VectorLength(c, 1, "size", &len));
  if (len != kUnknownDim && len != 2) return errors::InvalidArgument("size must have two elements, got ", len);
  std::vector<int64_t> size;
  int64_t h = kUnknownDim, w = kUnknownDim;
  if (c.ConstantInts(1, &size) && size.size() == 2) {
    if (size[0] <= 0 || size[1] <= 0) {
      return errors::InvalidArgument("output dimensions must be positive, got size [", size[0], ", ", size[1], "]");
    }
    h = size[0];
    w = size[1];
  }
  c.set_output(0, PartialShape({images.dim(0), h, w, images.dim(3)}));
  return Status::Ok();
}

// ResizeBilinearGrad: shaped like original_image (input 1).
Status BilinearGradShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 4));
  PartialShape image;
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 4, &image));
  c.set_output(0, image);
  return Status::Ok();
}

// ImageProjectiveTransformV2/V3: [batch, output_shape[0], output_shape[1], channels]; the
// transforms are [batch or 1, 8].
Status ProjectiveTransformShape(InferenceContext& c) {
  PartialShape images, transforms;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 4, &images));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 2, &transforms));
  if (transforms.dim(1) != kUnknownDim && transforms.dim(1) != 8) {
    return errors::InvalidArgument("Input transform should be num_images x 8 or 1 x 8, got shape ",
                                   transforms.ToString());
  }
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 1));
  int64_t len;
  GRAFT_RETURN_IF_ERROR(VectorLength(c, 2, "output_shape", &len));
  if (len != kUnknownDim && len != 2) return errors::InvalidArgument("output_shape must have two elements, got ", len);
  if (c.num_inputs() > 3) GRAFT_RETURN_IF_ERROR(c.WithScalar(3));
  std::vector<int64_t> size;
  int64_t h = kUnknownDim, w = kUnknownDim;
  if (c.ConstantInts(2, &size) && size.size() == 2) {
    if (size[0] <= 0 || size[1] <= 0) {
      return errors::InvalidArgument("output dimensions must be positive, got [", size[0], ", ", size[1], "]");
    }
    h = size[0];
    w = size[1];
  }
  c.set_output(0, PartialShape({images.dim(0), h, w, images.dim(3)}));
  return Status::Ok();
}

ShapeFn ResizeAttrs(ShapeFn fn) { return NeedsAttrs({"align_corners", "half_pixel_centers"}, std::move(fn)); }

}  // namespace

void RegisterImageOps(OpRegistry& r) {
  using B = OpDefBuilder;
  Add(r, B("ResizeBilinear").Input("images: T").Input("size: int32").Output("resized_images: float")
             .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double}")
             .Attr("align_corners: bool = false").Attr("half_pixel_centers: bool = false"),
      ResizeAttrs(ResizedShape));
  Add(r, B("ResizeNearestNeighbor").Input("images: T").Input("size: int32").Output("resized_images: T")
             .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}")
             .Attr("align_corners: bool = false").Attr("half_pixel_centers: bool = false"),
      ResizeAttrs(ResizedShape));
  Add(r, B("ResizeBilinearGrad").Input("grads: float").Input("original_image: T").Output("output: T")
             .Attr("T: {float, bfloat16, half, double}").Attr("align_corners: bool = false")
             .Attr("half_pixel_centers: bool = false"),
      ResizeAttrs(BilinearGradShape));
  Add(r, B("ResizeBicubic").Input("images: T").Input("size: int32").Output("resized_images: float")
             .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}")
             .Attr("align_corners: bool = false").Attr("half_pixel_centers: bool = false"),
      ResizeAttrs(ResizedShape));
  Add(r, B("ResizeBicubicGrad").Input("grads: float").Input("original_image: T").Output("output: T")
             .Attr("T: {float, double}").Attr("align_corners: bool = false")
             .Attr("half_pixel_centers: bool = false"),
      ResizeAttrs(BilinearGradShape));
  for (const char* name : {"ImageProjectiveTransformV2", "ImageProjectiveTransformV3"}) {
    const bool v3 = std::string_view(name) == "ImageProjectiveTransformV3";
    B b(name);
    b.Input("images: dtype").Input("transforms: float").Input("output_shape: int32");
    if (v3) b.Input("fill_value: float");
    b.Output("transformed_images: dtype").Attr("dtype: {uint8, int32, int64, half, bfloat16, float, double}")
        .Attr("interpolation: string").Attr("fill_mode: string = 'CONSTANT'");
    Add(r, b, NeedsAttrs({"interpolation"}, ProjectiveTransformShape));
  }
  Add(r, B("ResizeNearestNeighborGrad").Input("grads: T").Input("size: int32").Output("output: T")
             .Attr("T: {uint8, int8, int32, half, float, double, bfloat16}").Attr("align_corners: bool = false")
             .Attr("half_pixel_centers: bool = false"),
      ResizeAttrs(ResizedShape));
}

}  // namespace graft::ops
