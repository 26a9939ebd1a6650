/* Image resizing (kernels/cpu/image_kernels.cc): ResizeBilinear (float32 output for every
 * input type) and ResizeNearestNeighbor with align_corners / half_pixel_centers, up and down,
 * their gradient ops ResizeBilinearGrad and ResizeNearestNeighborGrad, the gradients of the
 * forward ops through graft_graph_add_gradients, and the errors TensorFlow's kernels give;
 * ResizeBicubic and ResizeBicubicGrad (align_corners / half_pixel_centers, uint8, gradient
 * function); ImageProjectiveTransformV2/V3 (kernels/cpu/image_transform_kernels.cc).
 * Expected values are TensorFlow 2.21's (tf.raw_ops on the same inputs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test_util.h"
#include "kernel_test_util.h"

#define I32S(...) ((const int32_t[]){__VA_ARGS__})

/* A 1x3x4x2 image: ((i * 0.75 - 5)^2) / 10 for i = 0..23. */
static const float kImage[] = {2.5f, 1.80624998f, 1.22500002f, 0.756250024f, 0.400000006f, 0.15625f, 0.0250000004f, 0.00625000009f, 0.100000001f, 0.306250006f, 0.625f, 1.05624998f, 1.60000002f, 2.2562499f, 3.0250001f, 3.90625f, 4.9000001f, 6.0062499f, 7.2249999f, 8.55624962f, 10.0f, 11.5562496f, 13.2250004f, 15.0062504f};
/* A 1x5x3x2 gradient: (i % 7) - 2.5. */
static const float kGrads[] = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, -2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, -2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, -2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, -2.5f, -1.5f};

static graft_op *resize(graft_graph *g, const char *type, const char *name, graft_op *images, graft_op *size,
                        int align_corners, int half_pixel) {
  graft_op_desc *d = desc(g, type, name);
  in(d, images);
  in(d, size);
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "align_corners", align_corners));
  GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "half_pixel_centers", half_pixel));
  return fin(d);
}

/* ---- Forward ------------------------------------------------------------------------------- */

struct resize_case {
  int align_corners, half_pixel;
  int32_t h, w;
  float bilinear[30];
  float nearest[30];
};
static const struct resize_case kCases[] = {
    {0, 0, 5, 3,
     {2.5f, 1.80624998f, 0.949999988f, 0.556249976f, 0.149999976f, 0.0562499836f, 1.05999994f, 0.90624994f, 0.950000048f, 1.09625006f, 1.59000003f, 2.03625011f, 1.0600003f, 1.4462502f, 2.39000034f, 3.07625008f, 4.47000074f, 5.45625067f, 3.9400003f, 4.86625051f, 6.71000004f, 7.93624973f, 10.2300014f, 11.7562513f, 4.9000001f, 6.0062499f, 8.14999962f, 9.55624962f, 12.1500006f, 13.8562508f},
     {2.5f, 1.80624998f, 1.22500002f, 0.756250024f, 0.400000006f, 0.15625f, 2.5f, 1.80624998f, 1.22500002f, 0.756250024f, 0.400000006f, 0.15625f, 0.100000001f, 0.306250006f, 0.625f, 1.05624998f, 1.60000002f, 2.2562499f, 0.100000001f, 0.306250006f, 0.625f, 1.05624998f, 1.60000002f, 2.2562499f, 4.9000001f, 6.0062499f, 7.2249999f, 8.55624962f, 10.0f, 11.5562496f}},
    {0, 0, 2, 6,
     {2.5f, 1.80624998f, 1.64999998f, 1.10625005f, 0.949999988f, 0.556249976f, 0.400000006f, 0.15625f, 0.149999976f, 0.0562499836f, 0.0250000004f, 0.00625000009f, 2.5f, 3.15625f, 3.45000005f, 4.2562499f, 4.55000019f, 5.50624943f, 5.79999971f, 6.90624952f, 7.35000038f, 8.60625076f, 8.125f, 9.45625019f},
     {2.5f, 1.80624998f, 2.5f, 1.80624998f, 1.22500002f, 0.756250024f, 0.400000006f, 0.15625f, 0.400000006f, 0.15625f, 0.0250000004f, 0.00625000009f, 0.100000001f, 0.306250006f, 0.100000001f, 0.306250006f, 0.625f, 1.05624998f, 1.60000002f, 2.2562499f, 1.60000002f, 2.2562499f, 3.0250001f, 3.90625f}},
    {0, 1, 5, 3,
     {2.2874999f, 1.6312499f, 0.8125f, 0.456250012f, 0.0874999464f, 0.0312499702f, 1.44749987f, 1.15124989f, 0.932500005f, 0.936250091f, 1.16750026f, 1.4712503f, 0.1875f, 0.431250036f, 1.11249995f, 1.65625f, 2.78750038f, 3.63125038f, 3.24750066f, 4.03125095f, 5.61250114f, 6.69625092f, 8.72750282f, 10.1112518f, 5.2874999f, 6.4312501f, 8.61250019f, 10.0562496f, 12.687501f, 14.4312506f},
     {2.5f, 1.80624998f, 0.400000006f, 0.15625f, 0.0250000004f, 0.00625000009f, 2.5f, 1.80624998f, 0.400000006f, 0.15625f, 0.0250000004f, 0.00625000009f, 0.100000001f, 0.306250006f, 1.60000002f, 2.2562499f, 3.0250001f, 3.90625f, 4.9000001f, 6.0062499f, 10.0f, 11.5562496f, 13.2250004f, 15.0062504f, 4.9000001f, 6.0062499f, 10.0f, 11.5562496f, 13.2250004f, 15.0062504f}},
    {0, 1, 2, 6,
     {1.89999998f, 1.43124998f, 1.48749995f, 1.13125002f, 1.01250005f, 0.806249976f, 0.762499928f, 0.706249952f, 0.737499952f, 0.831250012f, 0.774999976f, 0.981250048f, 3.70000005f, 4.58124971f, 4.63749981f, 5.6312499f, 5.9625001f, 7.10624981f, 7.51250076f, 8.80624962f, 9.28750038f, 10.7312498f, 10.6750011f, 12.2312508f},
     {2.5f, 1.80624998f, 1.22500002f, 0.756250024f, 1.22500002f, 0.756250024f, 0.400000006f, 0.15625f, 0.0250000004f, 0.00625000009f, 0.0250000004f, 0.00625000009f, 4.9000001f, 6.0062499f, 7.2249999f, 8.55624962f, 7.2249999f, 8.55624962f, 10.0f, 11.5562496f, 13.2250004f, 15.0062504f, 13.2250004f, 15.0062504f}},
    {1, 0, 5, 3,
     {2.5f, 1.80624998f, 0.8125f, 0.456250012f, 0.0250000004f, 0.00625000009f, 1.29999995f, 1.05624998f, 0.962499976f, 1.0562501f, 1.52499998f, 1.95625007f, 0.100000001f, 0.306250006f, 1.11249995f, 1.65625f, 3.0250001f, 3.90625f, 2.5f, 3.15625f, 4.86250019f, 5.85624981f, 8.125f, 9.45625019f, 4.9000001f, 6.0062499f, 8.61250019f, 10.0562496f, 13.2250004f, 15.0062504f},
     {2.5f, 1.80624998f, 0.400000006f, 0.15625f, 0.0250000004f, 0.00625000009f, 0.100000001f, 0.306250006f, 1.60000002f, 2.2562499f, 3.0250001f, 3.90625f, 0.100000001f, 0.306250006f, 1.60000002f, 2.2562499f, 3.0250001f, 3.90625f, 4.9000001f, 6.0062499f, 10.0f, 11.5562496f, 13.2250004f, 15.0062504f, 4.9000001f, 6.0062499f, 10.0f, 11.5562496f, 13.2250004f, 15.0062504f}},
    {1, 0, 2, 6,
     {2.5f, 1.80624998f, 1.7349999f, 1.17624998f, 1.05999994f, 0.636250019f, 0.564999938f, 0.276249975f, 0.24999997f, 0.0962499827f, 0.0250000004f, 0.00625000009f, 4.9000001f, 6.0062499f, 6.29500008f, 7.53624964f, 7.78000021f, 9.15625f, 9.44499969f, 10.9562492f, 11.2900009f, 12.9362507f, 13.2250004f, 15.0062504f},
     {2.5f, 1.80624998f, 1.22500002f, 0.756250024f, 1.22500002f, 0.756250024f, 0.400000006f, 0.15625f, 0.400000006f, 0.15625f, 0.0250000004f, 0.00625000009f, 4.9000001f, 6.0062499f, 7.2249999f, 8.55624962f, 7.2249999f, 8.55624962f, 10.0f, 11.5562496f, 10.0f, 11.5562496f, 13.2250004f, 15.0062504f}},
};

static void test_resize(void **state) {
  graft_graph *g = *state;
  graft_op *img = konst(g, "img", GRAFT_FLOAT32, D(1, 3, 4, 2), kImage);
  for (int i = 0; i < N_OF(kCases); ++i) {
    const struct resize_case *c = &kCases[i];
    char name[32];
    snprintf(name, sizeof name, "size%d", i);
    graft_op *size = konst(g, name, GRAFT_INT32, D(2), ((const int32_t[]){c->h, c->w}));
    snprintf(name, sizeof name, "bilinear%d", i);
    graft_op *bilinear = resize(g, "ResizeBilinear", name, img, size, c->align_corners, c->half_pixel);
    const int64_t dims[] = {1, c->h, c->w, 2};
    expect_f32_near(run(g, bilinear), dims, 4, c->bilinear, 1e-5f);
    snprintf(name, sizeof name, "nearest%d", i);
    /* Nearest neighbour copies: exact. */
    expect(run(g, resize(g, "ResizeNearestNeighbor", name, img, size, c->align_corners, c->half_pixel)), GRAFT_FLOAT32,
           dims, 4, c->nearest);
  }
  graft_op *out = resize(g, "ResizeBilinear", "shaped", img, konst(g, "s", GRAFT_INT32, D(2), I32S(5, 3)), 0, 0);
  assert_output_shape(out, 0, "(1, 5, 3, 2)");
}

static void test_resize_types(void **state) {
  graft_graph *g = *state;
  graft_op *u8 = konst(g, "u8", GRAFT_UINT8, D(1, 2, 3, 1), ((const uint8_t[]){0, 255, 10, 100, 50, 200}));
  graft_op *size = konst(g, "size", GRAFT_INT32, D(2), I32S(3, 4));
  /* Bilinear of uint8 is float32; nearest keeps uint8. */
  expect(run(g, resize(g, "ResizeBilinear", "bu8", u8, size, 0, 1)), GRAFT_FLOAT32, D(1, 3, 4, 1),
         ((const float[]){0.0f, 159.375f, 163.125f, 10.0f, 50.0f, 114.0625f, 134.6875f, 105.0f, 100.0f, 68.75f, 106.25f, 200.0f}));
  expect(run(g, resize(g, "ResizeNearestNeighbor", "nu8", u8, size, 0, 1)), GRAFT_UINT8, D(1, 3, 4, 1),
         ((const uint8_t[]){0, 255, 255, 10, 100, 50, 50, 200, 100, 50, 50, 200}));
  graft_op *f64 = konst(g, "f64", GRAFT_FLOAT64, D(1, 2, 3, 1), ((const double[]){0, 255, 10, 100, 50, 200}));
  expect(run(g, resize(g, "ResizeBilinear", "bf64", f64, konst(g, "s2", GRAFT_INT32, D(2), I32S(3, 2)), 1, 0)),
         GRAFT_FLOAT32, D(1, 3, 2, 1), ((const float[]){0.0f, 10.0f, 50.0f, 105.0f, 100.0f, 200.0f}));
}

/* ---- Gradients ----------------------------------------------------------------------------- */

struct grad_case {
  int align_corners, half_pixel;
  float bilinear[24];
  float nearest[24];
};
static const struct grad_case kGradCases[] = {
    {0, 0,
     {-1.10000014f, -2.5f, -0.73333323f, 0.200000003f, 0.199999824f, 1.13333309f, 1.13333344f, 2.06666684f, 4.39999962f, 1.79999948f, -1.4666667f, -1.33333302f, -0.866666675f, -0.26666674f, -0.266666591f, 0.800000131f, 2.20000005f, 4.20000029f, 3.19999981f, 0.799999833f, 0.33333388f, -0.199999914f, -2.53333378f, -1.20000005f},
     {1.0f, -4.0f, -2.0f, 0.0f, 2.0f, 4.0f, 0.0f, 0.0f, 4.0f, 6.0f, 1.0f, -4.0f, -2.0f, 0.0f, 0.0f, 0.0f, 0.5f, 1.5f, 2.5f, 3.5f, -2.5f, -1.5f, 0.0f, 0.0f}},
    {0, 1,
     {-0.333333373f, -2.5f, -0.766666651f, -0.400000036f, -0.400000274f, 0.66666615f, 1.50000024f, 2.83333397f, 3.74999976f, 2.91666603f, -0.100000203f, -0.766666532f, -1.0f, -1.20000005f, -0.74999994f, 0.750000238f, 1.16666687f, 2.50000024f, 2.53333354f, 1.49999976f, 1.73333406f, 0.700000048f, -2.83333397f, -1.50000036f},
     {1.0f, -4.0f, 0.0f, 0.0f, -2.0f, 0.0f, 2.0f, 4.0f, 2.5f, 3.5f, 0.0f, 0.0f, -2.5f, -1.5f, -0.5f, 0.5f, 2.0f, 4.0f, 0.0f, 0.0f, 6.0f, 1.0f, -4.0f, -2.0f}},
    {1, 0,
     {-0.75f, -2.75f, -0.625f, 0.125f, -0.625f, 0.125f, 1.75f, 3.25f, 5.0f, 3.5f, -0.75f, -1.5f, -0.75f, -1.5f, -1.0f, 1.0f, 1.25f, 2.75f, 2.125f, 1.125f, 2.125f, 1.125f, -3.25f, -1.75f},
     {-2.5f, -1.5f, 0.0f, 0.0f, -0.5f, 0.5f, 1.5f, 2.5f, 6.0f, 1.0f, 0.0f, 0.0f, -4.0f, -2.0f, 0.0f, 2.0f, 2.0f, 4.0f, 0.0f, 0.0f, 6.0f, 1.0f, -4.0f, -2.0f}},
};

/* The gradient ops on a 5x3 gradient of the 3x4 image, and the same through the gradients of
 * the forward ops (graft_graph_add_gradients with kGrads as the output's gradient). */
static void test_resize_gradients(void **state) {
  graft_graph *g = *state;
  graft_op *img = konst(g, "img", GRAFT_FLOAT32, D(1, 3, 4, 2), kImage);
  graft_op *grads = konst(g, "grads", GRAFT_FLOAT32, D(1, 5, 3, 2), kGrads);
  graft_op *size = konst(g, "size", GRAFT_INT32, D(2), I32S(5, 3));
  graft_op *orig = konst(g, "orig", GRAFT_INT32, D(2), I32S(3, 4));
  for (int i = 0; i < N_OF(kGradCases); ++i) {
    const struct grad_case *c = &kGradCases[i];
    char name[32];
    snprintf(name, sizeof name, "bgrad%d", i);
    graft_op_desc *d = desc(g, "ResizeBilinearGrad", name);
    in(d, grads);
    in(d, img);
    GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "align_corners", c->align_corners));
    GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "half_pixel_centers", c->half_pixel));
    expect_f32_near(run(g, fin(d)), D(1, 3, 4, 2), c->bilinear, 1e-5f);
    snprintf(name, sizeof name, "ngrad%d", i);
    expect(run(g, resize(g, "ResizeNearestNeighborGrad", name, grads, orig, c->align_corners, c->half_pixel)),
           GRAFT_FLOAT32, D(1, 3, 4, 2), c->nearest);

    snprintf(name, sizeof name, "fwd_b%d", i);
    graft_op *fb = resize(g, "ResizeBilinear", name, img, size, c->align_corners, c->half_pixel);
    snprintf(name, sizeof name, "fwd_n%d", i);
    graft_op *fn = resize(g, "ResizeNearestNeighbor", name, img, size, c->align_corners, c->half_pixel);
    graft_output x = {img, 0};
    graft_output dx[1];
    graft_output yb = {fb, 0}, yn = {fn, 0}, dy = {grads, 0};
    GT_OK(graft_graph_add_gradients(dx, g, &yb, 1, &x, 1, &dy, NULL));
    expect_f32_near(run_feeds(g, dx[0].op, dx[0].index, 0, NULL, NULL), D(1, 3, 4, 2), c->bilinear, 1e-5f);
    GT_OK(graft_graph_add_gradients(dx, g, &yn, 1, &x, 1, &dy, NULL));
    expect(run_feeds(g, dx[0].op, dx[0].index, 0, NULL, NULL), GRAFT_FLOAT32, D(1, 3, 4, 2), c->nearest);
  }
}

/* ---- ResizeBicubic ------------------------------------------------------------------------- */

struct bicubic_case {
  int align_corners, half_pixel;
  int32_t h, w;
  float values[30];
};
struct bicubic_grad_case {
  int align_corners, half_pixel;
  float values[24];
};
static const struct bicubic_case kBicubicCases[] = {
    {0, 0, 5, 3, {2.5f, 1.80624998f, 0.844704926f, 0.459227294f, 0.0971571282f, 0.0201348197f, 0.514009774f, 0.273501277f, 0.100686163f, 0.168449938f, 0.595847487f, 0.97206676f, 0.715215802f, 1.16648185f, 2.19749188f, 2.9570303f, 4.58937931f, 5.65737295f, 3.99657321f, 4.96588612f, 6.89840078f, 8.17598438f, 10.7106819f, 12.2967224f, 5.41823101f, 6.62164879f, 8.96155167f, 10.4732428f, 13.4157095f, 15.235857f}},
    {0, 0, 2, 6, {2.5f, 1.80624998f, 1.71760595f, 1.15310204f, 0.844704926f, 0.459227294f, 0.400000006f, 0.15625f, 0.0971571282f, 0.0201348197f, -0.0166666359f, -0.0104166549f, 2.2750001f, 3.015625f, 3.14049268f, 4.01036358f, 4.55017662f, 5.59907389f, 5.9124999f, 7.1031251f, 7.73543501f, 9.0927887f, 8.6833334f, 10.1239576f}},
    {0, 1, 5, 3, {2.53087783f, 1.79234838f, 0.733592391f, 0.309369236f, -0.153847933f, -0.263764322f, 1.36238873f, 0.967559099f, 0.525344193f, 0.44482103f, 0.598145187f, 0.831928492f, 0.149177462f, 0.378620893f, 1.0562501f, 1.5999999f, 2.87316799f, 3.73122454f, 3.28452182f, 4.13823843f, 5.93571091f, 7.10373402f, 9.49674606f, 10.9790764f, 5.51126051f, 6.70867682f, 9.12269115f, 10.6344137f, 13.6439676f, 15.4699965f}},
    {0, 1, 2, 6, {2.00351334f, 1.44603324f, 1.51237679f, 1.06236863f, 0.848001838f, 0.56791985f, 0.499802023f, 0.369573623f, 0.374495506f, 0.414193362f, 0.36618796f, 0.513357878f, 3.80321574f, 4.74354553f, 4.74294806f, 5.7907505f, 6.34094763f, 7.55867577f, 7.98787832f, 9.35545921f, 10.1249466f, 11.6624546f, 11.5475073f, 13.1924868f}},
    {1, 0, 5, 3, {2.5f, 1.80624998f, 0.728124976f, 0.371875018f, 0.0250000004f, 0.00625000009f, 0.850000024f, 0.521874905f, 0.174999952f, 0.184375077f, 0.568750024f, 0.915624857f, 0.100000001f, 0.306250006f, 1.02812493f, 1.57187486f, 3.0250001f, 3.90625f, 2.2750001f, 3.015625f, 4.80624962f, 5.8843751f, 8.40625f, 9.82187462f, 4.9000001f, 6.0062499f, 8.52812576f, 9.97187424f, 13.2250004f, 15.0062504f}},
    {1, 0, 2, 6, {2.5f, 1.80624998f, 1.80932367f, 1.22888398f, 0.96619606f, 0.553290904f, 0.550724804f, 0.251129985f, 0.165266469f, 0.0332060978f, 0.0250000004f, 0.00625000009f, 4.9000001f, 6.0062499f, 6.02228928f, 7.24184942f, 7.8597126f, 9.2468071f, 9.25720692f, 10.7576122f, 11.5522995f, 13.2202406f, 13.2250004f, 15.0062504f}},
};
static const struct bicubic_grad_case kBicubicGradCases[] = {
    {0, 0, {-1.3136971f, -2.92401218f, -0.836885989f, 0.237245619f, 0.315047026f, 1.31571686f, 1.27049971f, 2.06030273f, 5.39191914f, 2.05018783f, -2.34129333f, -2.17445016f, -1.13889432f, -0.376208663f, 0.0740072429f, 1.24281442f, 1.25511062f, 4.42937994f, 4.51183796f, 1.400195f, 0.453911304f, -0.199635521f, -3.1415627f, -1.5615356f}},
    {0, 1, {-0.325669527f, -2.98591733f, -1.02087581f, -0.275937885f, -0.682163715f, 0.680514216f, 1.88050044f, 3.24384499f, 4.21916819f, 3.2876761f, -0.457586229f, -1.25336087f, -1.19911861f, -1.61781967f, -0.610734344f, 0.913808525f, 0.885419011f, 2.83027959f, 3.03737402f, 1.65823901f, 2.3520515f, 0.930227757f, -3.57836485f, -1.91155457f}},
    {1, 0, {-0.742675781f, -3.02978516f, -0.937011719f, 0.287597656f, -0.937011719f, 0.287597656f, 2.03857422f, 3.25146484f, 5.59179688f, 3.80761719f, -0.779296875f, -1.94824219f, -0.779296875f, -1.94824219f, -0.970703125f, 1.40136719f, 0.510253906f, 2.76904297f, 2.60693359f, 1.36376953f, 2.60693359f, 1.36376953f, -3.70849609f, -2.10595703f}},
};

/* ResizeBicubic of kImage up and down in each mode (legacy: a = -0.75; half-pixel: a = -0.5
 * with renormalised edge taps), a uint8 image (float32 output, overshooting past 0..255 as
 * TensorFlow's), a large downscale; ResizeBicubicGrad of kGrads and the same through
 * ResizeBicubic's gradient function; the errors. */
static void test_resize_bicubic(void **state) {
  graft_graph *g = *state;
  graft_op *img = konst(g, "img", GRAFT_FLOAT32, D(1, 3, 4, 2), kImage);
  for (int i = 0; i < N_OF(kBicubicCases); ++i) {
    const struct bicubic_case *c = &kBicubicCases[i];
    char name[32];
    snprintf(name, sizeof name, "size%d", i);
    graft_op *size = konst(g, name, GRAFT_INT32, D(2), ((const int32_t[]){c->h, c->w}));
    snprintf(name, sizeof name, "bicubic%d", i);
    const int64_t dims[] = {1, c->h, c->w, 2};
    expect_f32_near(run(g, resize(g, "ResizeBicubic", name, img, size, c->align_corners, c->half_pixel)), dims, 4,
                    c->values, 1e-5f);
  }
  graft_op *u8 = konst(g, "u8", GRAFT_UINT8, D(1, 2, 3, 1), ((const uint8_t[]){0, 255, 10, 100, 50, 200}));
  expect_f32_near(run(g, resize(g, "ResizeBicubic", "cu8", u8, konst(g, "s34", GRAFT_INT32, D(2), I32S(3, 4)), 0, 1)),
                  D(1, 3, 4, 1), ((const float[]){-20.9595757f, 184.843613f, 186.64827f, -16.67696f, 44.6455231f, 117.574837f, 141.962112f, 102.518661f, 110.25061f, 50.3060532f, 97.2759399f, 221.714249f}), 1e-4f);
  float big[64];
  for (int i = 0; i < 64; ++i) big[i] = (float)(i % 9);
  graft_op *bigo = konst(g, "big", GRAFT_FLOAT32, D(1, 8, 8, 1), big);
  expect_f32_near(run(g, resize(g, "ResizeBicubic", "down", bigo, konst(g, "s32", GRAFT_INT32, D(2), I32S(3, 2)), 0, 1)),
                  D(1, 3, 2, 1), ((const float[]){-0.0908510536f, 4.68803787f, 7.59765625f, 2.03515625f, 4.31196213f, 4.76390266f}), 1e-5f);

  graft_op *grads = konst(g, "grads", GRAFT_FLOAT32, D(1, 5, 3, 2), kGrads);
  graft_op *size = konst(g, "s53", GRAFT_INT32, D(2), I32S(5, 3));
  for (int i = 0; i < N_OF(kBicubicGradCases); ++i) {
    const struct bicubic_grad_case *c = &kBicubicGradCases[i];
    char name[32];
    snprintf(name, sizeof name, "cgrad%d", i);
    graft_op_desc *d = desc(g, "ResizeBicubicGrad", name);
    in(d, grads);
    in(d, img);
    GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "align_corners", c->align_corners));
    GT_OK(graft_attrs_set_bool(graft_op_desc_attrs(d), "half_pixel_centers", c->half_pixel));
    expect_f32_near(run(g, fin(d)), D(1, 3, 4, 2), c->values, 1e-5f);
    snprintf(name, sizeof name, "fwd_c%d", i);
    graft_op *fc = resize(g, "ResizeBicubic", name, img, size, c->align_corners, c->half_pixel);
    graft_output x = {img, 0}, y = {fc, 0}, dy = {grads, 0};
    graft_output dx[1];
    GT_OK(graft_graph_add_gradients(dx, g, &y, 1, &x, 1, &dy, NULL));
    expect_f32_near(run_feeds(g, dx[0].op, dx[0].index, 0, NULL, NULL), D(1, 3, 4, 2), c->values, 1e-5f);
  }

  graft_op *pimg = ph(g, "pimg", GRAFT_FLOAT32);
  graft_op *c = resize(g, "ResizeBicubic", "c", pimg, size, 0, 0);
  expect_error(g, c, pimg, tensor(GRAFT_FLOAT32, D(2, 2), NULL), GRAFT_EINVAL, "ResizeBicubic op 'c'",
               "input must be 4-dimensional[2,2]");
  expect_error(g, c, pimg, tensor(GRAFT_FLOAT32, D(1, 0, 2, 1), NULL), GRAFT_EINVAL, "ResizeBicubic op 'c'",
               "input image must be of non-zero size");
  graft_op *pg = ph(g, "pg", GRAFT_FLOAT32);
  graft_op_desc *d = desc(g, "ResizeBicubicGrad", "cg");
  in(d, pg);
  in(d, img);
  graft_op *cg = fin(d);
  expect_error(g, cg, pg, tensor(GRAFT_FLOAT32, D(2, 5, 3, 2), NULL), GRAFT_EINVAL, "ResizeBicubicGrad op 'cg'",
               "must agree in batch and channels");
}

/* ---- Errors -------------------------------------------------------------------------------- */

static void test_resize_errors(void **state) {
  graft_graph *g = *state;
  graft_op *img = ph(g, "img", GRAFT_FLOAT32);
  graft_op *size = konst(g, "size", GRAFT_INT32, D(2), I32S(3, 3));
  graft_op *b = resize(g, "ResizeBilinear", "b", img, size, 0, 0);
  graft_op *n = resize(g, "ResizeNearestNeighbor", "n", img, size, 0, 0);
  expect_error(g, b, img, tensor(GRAFT_FLOAT32, D(2, 2), NULL), GRAFT_EINVAL, "ResizeBilinear op 'b'",
               "input must be 4-dimensional[2,2]");
  expect_error(g, n, img, tensor(GRAFT_FLOAT32, D(2, 2), NULL), GRAFT_EINVAL, "ResizeNearestNeighbor op 'n'",
               "input must be 4-dimensional[2,2]");
  expect_error(g, b, img, tensor(GRAFT_FLOAT32, D(1, 0, 2, 1), NULL), GRAFT_EINVAL, "ResizeBilinear op 'b'",
               "input image must be of non-zero size");
  expect_error(g, n, img, tensor(GRAFT_FLOAT32, D(1, 2, 2, 0), NULL), GRAFT_EINVAL, "ResizeNearestNeighbor op 'n'",
               "image must have at least one channel");
  graft_op *sz = ph(g, "sz", GRAFT_INT32);
  graft_op *b2 = resize(g, "ResizeBilinear", "b2", konst(g, "z", GRAFT_FLOAT32, D(1, 2, 2, 1), NULL), sz, 0, 0);
  expect_error(g, b2, sz, tensor(GRAFT_INT32, D(2), I32S(0, 3)), GRAFT_EINVAL, "ResizeBilinear op 'b2'",
               "output dimensions must be positive");
  expect_error(g, b2, sz, tensor(GRAFT_INT32, D(3), I32S(1, 2, 3)), GRAFT_EINVAL, "ResizeBilinear op 'b2'",
               "shape_t must have two elements[3]");
  /* Both attrs set: refused when the kernel is made. */
  graft_op *both =
      resize(g, "ResizeNearestNeighbor", "both", konst(g, "z2", GRAFT_FLOAT32, D(1, 2, 2, 1), NULL), size, 1, 1);
  expect_error(g, both, NULL, NULL, GRAFT_EINVAL, "both", "If half_pixel_centers is True, align_corners must be False.");
  /* Known while building: a rank that is not 4. */
  graft_op_desc *d = desc(g, "ResizeBilinear", "rank3");
  in(d, konst(g, "r3", GRAFT_FLOAT32, D(2, 2, 1), NULL));
  in(d, size);
  graft_op *op = NULL;
  GT_ERR(GRAFT_ESHAPE, graft_op_desc_finish(&op, d), "ResizeBilinear", "rank");
}

/* ImageProjectiveTransformV2/V3 (kernels/cpu/image_transform_kernels.cc): a rotation about
 * the centre and a projective transform of a 1x4x5x2 float image in every interpolation and fill
 * mode, uint8 images, V2's zero fill, the shared transform, and the errors; TensorFlow 2.21's
 * values. */
static graft_op *transform(graft_graph *g, const char *name, graft_op *img, graft_op *tr, graft_op *size, graft_op *fill,
                           const char *interp, const char *mode) {
  graft_op_desc *d = desc(g, fill ? "ImageProjectiveTransformV3" : "ImageProjectiveTransformV2", name);
  in(d, img);
  in(d, tr);
  in(d, size);
  if (fill) in(d, fill);
  GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "interpolation", interp, strlen(interp)));
  if (mode) GT_OK(graft_attrs_set_string(graft_op_desc_attrs(d), "fill_mode", mode, strlen(mode)));
  return fin(d);
}

static void test_projective_transform(void **state) {
  graft_graph *g = *state;
  float iv[40];
  for (int i = 0; i < 40; ++i) iv[i] = (float)i;
  graft_op *img = konst(g, "pt_img", GRAFT_FLOAT32, D(1, 4, 5, 2), iv);
  graft_op *size = konst(g, "pt_size", GRAFT_INT32, D(2), (const int32_t[]){4, 5});
  float minus_one = -1;
  graft_op *fill = konst(g, "pt_fill", GRAFT_FLOAT32, SCALAR, &minus_one);
  graft_op *trs[2] = {
      konst(g, "pt_rot", GRAFT_FLOAT32, D(1, 8), (const float[]){0.921060979f, -0.389418334f, 0.742005527f, 0.389418334f, 0.921060979f, -0.660428166f, 0, 0}),
      konst(g, "pt_proj", GRAFT_FLOAT32, D(1, 8), (const float[]){1.29999995f, 0.200000003f, -1.70000005f, -0.100000001f, 0.800000012f, 0.600000024f, 0.0199999996f, -0.0299999993f}),
  };
  static const char *const interps[2] = {"NEAREST", "BILINEAR"};
  static const char *const modes[4] = {"REFLECT", "WRAP", "CONSTANT", "NEAREST"};
  static const float expected[2][2][4][40] = {
      {
          {
              {2, 3, 4, 5, 6, 7, 18, 19, 18, 19, 0, 1, 12, 13, 14, 15, 16, 17, 28, 29, 10, 11, 22, 23, 24, 25, 26, 27, 38, 39, 20, 21, 20, 21, 32, 33, 34, 35, 36, 37},
              {32, 33, 34, 35, 6, 7, 18, 19, 10, 11, 0, 1, 12, 13, 14, 15, 16, 17, 20, 21, 18, 19, 22, 23, 24, 25, 26, 27, 38, 39, 28, 29, 20, 21, 32, 33, 4, 5, 6, 7},
              {-1, -1, 4, 5, 6, 7, 18, 19, 18, 19, 0, 1, 12, 13, 14, 15, 16, 17, 28, 29, 10, 11, 22, 23, 24, 25, 26, 27, 38, 39, 20, 21, 20, 21, 32, 33, 34, 35, -1, -1},
              {2, 3, 4, 5, 6, 7, 18, 19, 18, 19, 0, 1, 12, 13, 14, 15, 16, 17, 28, 29, 10, 11, 22, 23, 24, 25, 26, 27, 38, 39, 20, 21, 20, 21, 32, 33, 34, 35, 36, 37},
          },
          {
              {1.48401105f, 2.48401093f, 3.32613301f, 4.32613277f, 6.35233974f, 7.35233974f, 12.088644f, 13.088645f, 16.9724522f, 17.9724522f, 3.31150222f, 4.31150246f, 9.04780769f, 10.0478077f, 14.7841129f, 15.7841129f, 20.5204182f, 21.5204163f, 26.1830616f, 27.1830616f, 11.8169374f, 12.8169384f, 17.4795799f, 18.4795799f, 23.2158871f, 24.2158833f, 28.9521942f, 29.9521904f, 34.6884956f, 35.6884918f, 21.0275459f, 22.0275459f, 25.911356f, 26.9113541f, 31.6476593f, 32.6476593f, 34.6738663f, 35.6738663f, 36.5159874f, 37.5159874f},
              {31.4840107f, 32.4840126f, 33.3261337f, 34.3261337f, 6.35233974f, 7.35233974f, 12.088644f, 13.088645f, 8.97245216f, 9.97245121f, 3.31150222f, 4.31150246f, 9.04780769f, 10.0478077f, 14.7841129f, 15.7841129f, 20.5204182f, 21.5204163f, 18.1830597f, 19.1830597f, 19.8169365f, 20.8169384f, 17.4795799f, 18.4795799f, 23.2158871f, 24.2158833f, 28.9521942f, 29.9521904f, 34.6884956f, 35.6884918f, 29.0275459f, 30.0275459f, 25.911356f, 26.9113541f, 31.6476593f, 32.6476593f, 4.67386675f, 5.67386675f, 6.51598883f, 7.5159893f},
              {-0.156499803f, 0.183071971f, 2.15370846f, 2.88269854f, 6.35233974f, 7.35233974f, 12.088644f, 13.088645f, 9.31170273f, 9.88545322f, 3.31150222f, 4.31150246f, 9.04780769f, 10.0478077f, 14.7841129f, 15.7841129f, 20.5204182f, 21.5204163f, 25.1818848f, 26.1450539f, 11.3448763f, 12.3080435f, 17.4795799f, 18.4795799f, 23.2158871f, 24.2158833f, 28.9521942f, 29.9521904f, 34.6884956f, 35.6884918f, 11.6383162f, 12.2120667f, 25.911356f, 26.9113541f, 31.6476593f, 32.6476593f, 25.0058956f, 25.7348843f, 11.739377f, 12.078949f},
              {1.48401105f, 2.48401093f, 3.32613301f, 4.32613277f, 6.35233974f, 7.35233974f, 12.088644f, 13.088645f, 16.9724522f, 17.9724522f, 3.31150222f, 4.31150246f, 9.04780769f, 10.0478077f, 14.7841129f, 15.7841129f, 20.5204182f, 21.5204163f, 26.1830616f, 27.1830616f, 11.8169374f, 12.8169384f, 17.4795799f, 18.4795799f, 23.2158871f, 24.2158833f, 28.9521942f, 29.9521904f, 34.6884956f, 35.6884918f, 21.0275459f, 22.0275459f, 25.911356f, 26.9113541f, 31.6476593f, 32.6476593f, 34.6738663f, 35.6738663f, 36.5159874f, 37.5159874f},
          },
      },
      {
          {
              {12, 13, 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 10, 11, 12, 13, 14, 15, 18, 19, 20, 21, 20, 21, 22, 23, 26, 27, 28, 29, 30, 31, 30, 31, 34, 35, 36, 37, 38, 39},
              {16, 17, 8, 9, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 12, 13, 14, 15, 18, 19, 28, 29, 28, 29, 22, 23, 26, 27, 28, 29, 8, 9, 0, 1, 34, 35, 36, 37, 30, 31},
              {-1, -1, 0, 1, 2, 3, 4, 5, 6, 7, -1, -1, 10, 11, 12, 13, 14, 15, 18, 19, -1, -1, 20, 21, 22, 23, 26, 27, 28, 29, -1, -1, 30, 31, 34, 35, 36, 37, 38, 39},
              {10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 10, 11, 12, 13, 14, 15, 18, 19, 20, 21, 20, 21, 22, 23, 26, 27, 28, 29, 30, 31, 30, 31, 34, 35, 36, 37, 38, 39},
          },
          {
              {7.4000001f, 8.39999962f, 4.90196085f, 5.90196085f, 5.57692337f, 6.57692337f, 6.98113251f, 7.98113203f, 8.33333206f, 9.33333302f, 15.525774f, 16.525774f, 13.1313114f, 14.1313124f, 14.0594063f, 15.0594063f, 15.3398066f, 16.3398056f, 16.5714283f, 17.5714283f, 24.1702118f, 25.1702118f, 21.875f, 22.875f, 23.061224f, 24.061224f, 24.1999989f, 25.2000008f, 25.2941189f, 26.294117f, 30.4175835f, 31.4175835f, 30.4301071f, 31.4301071f, 32.6315804f, 33.6315804f, 33.6082497f, 34.6082535f, 34.2626228f, 35.2626228f},
              {12.6000004f, 13.5999994f, 12.9019604f, 13.9019604f, 5.57692337f, 6.57692337f, 6.98113251f, 7.98113203f, 8.33333206f, 9.33333302f, 21.3402061f, 22.3402061f, 21.1313114f, 22.1313114f, 14.0594063f, 15.0594063f, 15.3398066f, 16.3398056f, 16.5714283f, 17.5714283f, 30.638298f, 31.638298f, 29.875f, 30.875f, 23.061224f, 24.061224f, 24.1999989f, 25.2000008f, 25.2941189f, 26.294117f, 7.58241749f, 8.58241749f, 0.430107355f, 1.43010736f, 32.6315804f, 33.6315804f, 33.6082497f, 34.6082535f, 26.2626228f, 27.2626228f},
              {-1, -1, 2.58746576f, 3.19530892f, 5.57692337f, 6.57692337f, 6.98113251f, 7.98113203f, 8.33333206f, 9.33333302f, -1, -1, 10.2765007f, 11.074481f, 14.0594063f, 15.0594063f, 15.3398066f, 16.3398056f, 16.5714283f, 17.5714283f, -1, -1, 21.8749962f, 22.8749962f, 23.061224f, 24.061224f, 24.1999989f, 25.2000008f, 25.2941189f, 26.294117f, -1, -1, 26.7125626f, 27.5942841f, 32.6315804f, 33.6315804f, 33.6082497f, 34.6082535f, 29.2760067f, 30.134594f},
              {6, 7.00000048f, 4.90196085f, 5.90196085f, 5.57692337f, 6.57692337f, 6.98113251f, 7.98113203f, 8.33333206f, 9.33333302f, 14.432991f, 15.432991f, 13.1313114f, 14.1313124f, 14.0594063f, 15.0594063f, 15.3398066f, 16.3398056f, 16.5714283f, 17.5714283f, 23.4042549f, 24.4042549f, 21.875f, 22.875f, 23.061224f, 24.061224f, 24.1999989f, 25.2000008f, 25.2941189f, 26.294117f, 30, 31, 30.4301071f, 31.4301071f, 32.6315804f, 33.6315804f, 33.6082497f, 34.6082535f, 34.2626228f, 35.2626228f},
          },
      },
  };
  char name[64];
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < 2; ++i) {
      for (int m = 0; m < 4; ++m) {
        snprintf(name, sizeof name, "pt_%d_%s_%s", t, interps[i], modes[m]);
        graft_op *op = transform(g, name, img, trs[t], size, fill, interps[i], modes[m]);
        if (t == 0 && i == 0 && m == 0) assert_output_shape(op, 0, "(1, 4, 5, 2)");
        expect_f32_near(run(g, op), D(1, 4, 5, 2), expected[t][i][m], 2e-5);
      }
    }
  }
  /* uint8 (bilinear rounds toward zero; fill 7), and V2 (fill 0, nearest rounds half away). */
  uint8_t uv[12];
  for (int i = 0; i < 12; ++i) uv[i] = (uint8_t)(20 * i);
  graft_op *u = konst(g, "pt_u8", GRAFT_UINT8, D(1, 3, 4, 1), uv);
  graft_op *size23 = konst(g, "pt_size23", GRAFT_INT32, D(2), (const int32_t[]){2, 3});
  float seven = 7;
  graft_op *shift = transform(g, "pt_u8_shift", u,
                              konst(g, "pt_tr_shift", GRAFT_FLOAT32, D(1, 8), (const float[]){1, 0, 0.5f, 0, 1, -0.7f, 0, 0}),
                              size23, konst(g, "pt_seven", GRAFT_FLOAT32, SCALAR, &seven), "BILINEAR", "CONSTANT");
  assert_output_shape(shift, 0, "(1, 2, 3, 1)");
  expect(run(g, shift), GRAFT_UINT8, D(1, 2, 3, 1), (const uint8_t[]){7, 13, 19, 34, 54, 74});
  graft_op *v2 = transform(g, "pt_v2", u,
                           konst(g, "pt_tr_v2", GRAFT_FLOAT32, D(1, 8), (const float[]){1, 0, 2.5f, 0, 1, -0.7f, 0, 0}),
                           size23, NULL, "NEAREST", NULL);
  expect(run(g, v2), GRAFT_UINT8, D(1, 2, 3, 1), (const uint8_t[]){0, 0, 0, 60, 0, 0});
  /* Two transforms for one image. */
  graft_op *tp = ph(g, "pt_tr", GRAFT_FLOAT32);
  graft_op *bad = transform(g, "pt_bad", img, tp, size, fill, "NEAREST", "CONSTANT");
  float zeros[16] = {0};
  expect_error(g, bad, tp, tensor(GRAFT_FLOAT32, D(2, 8), zeros), GRAFT_EINVAL, "ImageProjectiveTransformV3 op 'pt_bad'",
               "Input transform should be num_images x 8 or 1 x 8");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_resize, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resize_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resize_gradients, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resize_bicubic, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resize_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_projective_transform, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
