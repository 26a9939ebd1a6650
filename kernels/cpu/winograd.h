// Winograd convolution F(m x m, 3 x 3) for 3x3 stride-1 undilated NHWC convolutions, m = 2 or
// 4 (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks", 2015): each m x m
// output tile is A^T [(G g G^T) . (B^T d B)] A over an (m + 2)^2 input tile d, so that the
// product over the input channels becomes (m + 2)^2 gemms of [tiles, c] x [c, oc]: 2.25 (m = 2)
// or 4 (m = 4) times fewer multiplications than the direct convolution. The input transform
// and the output transform (with the epilogue: bias and activation) run on the intra-op
// threads, the gemms on BLAS's.
//
// Error: the transforms' coefficients (up to 8 for m = 4) enlarge rounding error. Measured
// against a double-precision direct convolution (test_kernels_conv, 3x3x256 filters and inputs
// in [-1, 1]): the largest error is 5e-7 (m = 2) and 9.5e-6 (m = 4) of the output's largest
// magnitude; the test bounds them at 2e-6 and 2e-5. TensorFlow's conformance tolerance
// (1e-4) and GPU libraries' Winograd paths accept as much.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/epilogue.h"

namespace graft::cpu {

struct WinogradShape {
  int64_t n = 0, h = 0, w = 0, c = 0;  // input, NHWC
  int64_t oc = 0;                      // output channels
  int64_t oh = 0, ow = 0;              // output size
  int64_t ph = 0, pw = 0;              // leading padding
};

// The transformed filter of tile size m: [(m + 2)^2, c, oc], from a [3, 3, c, oc] filter.
template <typename T>
std::vector<T> WinogradFilter(int m, const T* filter, int64_t c, int64_t oc);

// y [n, oh, ow, oc] = epilogue(conv(x, filter)), u = WinogradFilter(m, filter, ...).
template <typename T>
void WinogradConv(int m, const WinogradShape& s, const T* x, const T* u, const Epilogue<T>& epilogue, T* y);

// The tile size to use for a shape, or 0 when the im2col path is the better one.
int WinogradTile(const WinogradShape& s);

}  // namespace graft::cpu
