#include "kernels/cpu/winograd.h"

#include <algorithm>

#include "core/runtime/parallel_for.h"
#include "kernels/cpu/conv_util.h"

namespace graft::cpu {
namespace {

// The 1-D transforms of F(m, 3), applied to `n` interleaved lanes at once (channels, or a
// filter's [c, oc] plane): point j of the input at in[j * is + lane], point k of the result at
// out[k * os + lane]. Written out rather than as matrix products: most coefficients are 0 or
// +-1, and multiplying by a zero cannot be dropped by the compiler (0 * inf is NaN).
template <int M>
struct F3;

template <>
struct F3<2> {
  static constexpr int kA = 4;
  template <typename T>
  static void Input(const T* __restrict in, int64_t is, T* __restrict out, int64_t os, int64_t n) {
    for (int64_t e = 0; e < n; ++e) {
      const T d0 = in[e], d1 = in[is + e], d2 = in[2 * is + e], d3 = in[3 * is + e];
      out[e] = d0 - d2;
      out[os + e] = d1 + d2;
      out[2 * os + e] = d2 - d1;
      out[3 * os + e] = d1 - d3;
    }
  }
  template <typename T>
  static void Output(const T* __restrict in, int64_t is, T* __restrict out, int64_t os, int64_t n) {
    for (int64_t e = 0; e < n; ++e) {
      const T m0 = in[e], m1 = in[is + e], m2 = in[2 * is + e], m3 = in[3 * is + e];
      out[e] = m0 + m1 + m2;
      out[os + e] = m1 - m2 - m3;
    }
  }
  template <typename T>
  static void Filter(const T* __restrict in, int64_t is, T* __restrict out, int64_t os, int64_t n) {
    for (int64_t e = 0; e < n; ++e) {
      const T g0 = in[e], g1 = in[is + e], g2 = in[2 * is + e];
      out[e] = g0;
      out[os + e] = (g0 + g1 + g2) * T(0.5);
      out[2 * os + e] = (g0 - g1 + g2) * T(0.5);
      out[3 * os + e] = g2;
    }
  }
};

template <>
struct F3<4> {
  static constexpr int kA = 6;
  template <typename T>
  static void Input(const T* __restrict in, int64_t is, T* __restrict out, int64_t os, int64_t n) {
    for (int64_t e = 0; e < n; ++e) {
      const T d0 = in[e], d1 = in[is + e], d2 = in[2 * is + e], d3 = in[3 * is + e], d4 = in[4 * is + e],
              d5 = in[5 * is + e];
      out[e] = T(4) * d0 - T(5) * d2 + d4;
      out[os + e] = d3 + d4 - T(4) * (d1 + d2);
      out[2 * os + e] = d4 - d3 + T(4) * (d1 - d2);
      out[3 * os + e] = d4 - d2 + T(2) * (d3 - d1);
      out[4 * os + e] = d4 - d2 - T(2) * (d3 - d1);
      out[5 * os + e] = T(4) * d1 - T(5) * d3 + d5;
    }
  }
  template <typename T>
  static void Output(const T* __restrict in, int64_t is, T* __restrict out, int64_t os, int64_t n) {
    for (int64_t e = 0; e < n; ++e) {
      const T m0 = in[e], m1 = in[is + e], m2 = in[2 * is + e], m3 = in[3 * is + e], m4 = in[4 * is + e],
              m5 = in[5 * is + e];
      const T s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4;
      out[e] = m0 + s12 + s34;
      out[os + e] = d12 + T(2) * d34;
      out[2 * os + e] = s12 + T(4) * s34;
      out[3 * os + e] = d12 + T(8) * d34 + m5;
    }
  }
  template <typename T>
  static void Filter(const T* __restrict in, int64_t is, T* __restrict out, int64_t os, int64_t n) {
    for (int64_t e = 0; e < n; ++e) {
      const T g0 = in[e], g1 = in[is + e], g2 = in[2 * is + e];
      out[e] = g0 / T(4);
      out[os + e] = -(g0 + g1 + g2) / T(6);
      out[2 * os + e] = -(g0 - g1 + g2) / T(6);
      out[3 * os + e] = g0 / T(24) + g1 / T(12) + g2 / T(6);
      out[4 * os + e] = g0 / T(24) - g1 / T(12) + g2 / T(6);
      out[5 * os + e] = g2;
    }
  }
};

// Channels of a tile transformed at once: the tile's buffers (2 x a^2 x kLanes) stay in L1.
constexpr int64_t kLanes = 64;

template <int M, typename T>
std::vector<T> FilterTransform(const T* g, int64_t c, int64_t oc) {
  constexpr int kA = F3<M>::kA;
  const int64_t plane = c * oc;
  std::vector<T> tmp(static_cast<size_t>(3 * kA * plane)), u(static_cast<size_t>(kA * kA * plane));
  // tmp[i][l] = sum_j G[l][j] g[i][j]; u[k][l] = sum_i G[k][i] tmp[i][l].
  for (int i = 0; i < 3; ++i) F3<M>::Filter(g + i * 3 * plane, plane, tmp.data() + i * kA * plane, plane, plane);
  for (int l = 0; l < kA; ++l) F3<M>::Filter(tmp.data() + l * plane, kA * plane, u.data() + l * plane, kA * plane, plane);
  return u;
}

// Input transform of tiles [begin, end) of the block starting at tile t0 (of bt tiles):
// v[k * kA + l][tile][channel].
template <int M, typename T>
void InputTiles(const WinogradShape& s, const T* x, int64_t t0, int64_t bt, int64_t begin, int64_t end, T* v) {
  constexpr int kA = F3<M>::kA;
  const int64_t tw = (s.ow + M - 1) / M, per_image = (s.oh + M - 1) / M * tw, c = s.c;
  T d[kA * kA * kLanes], tmp[kA * kA * kLanes];
  for (int64_t ti = begin; ti < end; ++ti) {
    const int64_t t = t0 + ti, img = t / per_image, y0 = (t % per_image) / tw * M - s.ph, x0 = t % tw * M - s.pw;
    for (int64_t c0 = 0; c0 < c; c0 += kLanes) {
      const int64_t lanes = std::min(kLanes, c - c0);
      for (int i = 0; i < kA; ++i) {
        const int64_t iy = y0 + i;
        for (int j = 0; j < kA; ++j) {
          const int64_t ix = x0 + j;
          T* dst = d + (i * kA + j) * kLanes;
          if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) {
            std::fill(dst, dst + lanes, T(0));
          } else {
            const T* src = x + ((img * s.h + iy) * s.w + ix) * c + c0;
            std::copy(src, src + lanes, dst);
          }
        }
      }
      for (int i = 0; i < kA; ++i) F3<M>::Input(d + i * kA * kLanes, kLanes, tmp + i * kA * kLanes, kLanes, lanes);
      for (int l = 0; l < kA; ++l) {
        F3<M>::Input(tmp + l * kLanes, kA * kLanes, v + (l * bt + ti) * c + c0, kA * bt * c, lanes);
      }
    }
  }
}

// Output transform of tiles [begin, end) of the block from prod[k * kA + l][tile][channel],
// then the epilogue, into the tiles' part of y that lies inside the output.
template <int M, typename T>
void OutputTiles(const WinogradShape& s, const T* prod, int64_t t0, int64_t bt, int64_t begin, int64_t end,
                 const Epilogue<T>& epilogue, T* y) {
  constexpr int kA = F3<M>::kA;
  const int64_t tw = (s.ow + M - 1) / M, per_image = (s.oh + M - 1) / M * tw, oc = s.oc;
  T tmp[M * kA * kLanes], out[M * M * kLanes];
  for (int64_t ti = begin; ti < end; ++ti) {
    const int64_t t = t0 + ti, img = t / per_image, oy0 = (t % per_image) / tw * M, ox0 = t % tw * M;
    for (int64_t o0 = 0; o0 < oc; o0 += kLanes) {
      const int64_t lanes = std::min(kLanes, oc - o0);
      for (int l = 0; l < kA; ++l) {
        F3<M>::Output(prod + (l * bt + ti) * oc + o0, kA * bt * oc, tmp + l * kLanes, kA * kLanes, lanes);
      }
      for (int r = 0; r < M; ++r) F3<M>::Output(tmp + r * kA * kLanes, kLanes, out + r * M * kLanes, kLanes, lanes);
      for (int r = 0; r < M && oy0 + r < s.oh; ++r) {
        for (int q = 0; q < M && ox0 + q < s.ow; ++q) {
          T* src = out + (r * M + q) * kLanes;
          epilogue.Apply(src, o0, lanes);
          std::copy(src, src + lanes, y + ((img * s.oh + oy0 + r) * s.ow + ox0 + q) * oc + o0);
        }
      }
    }
  }
}

template <int M, typename T>
void Convolve(const WinogradShape& s, const T* x, const T* u, const Epilogue<T>& epilogue, T* y) {
  constexpr int kP = F3<M>::kA * F3<M>::kA;
  const int64_t total = s.n * ((s.oh + M - 1) / M) * ((s.ow + M - 1) / M);
  const int64_t c = s.c, oc = s.oc;
  // Tiles per block: the block's transformed input and products (kP x tiles x channels each)
  // about 4 MiB, so they stay in the last-level cache between the transforms and the gemms.
  const int64_t budget = (int64_t{1} << 20) / (kP * std::max(c, oc));
  const int64_t bt = std::min(total, std::max<int64_t>(budget, 16));
  std::vector<T> v(static_cast<size_t>(kP * bt * c)), prod(static_cast<size_t>(kP * bt * oc));
  for (int64_t t0 = 0; t0 < total; t0 += bt) {
    const int64_t tiles = std::min(bt, total - t0);
    ParallelFor(tiles, 4, [&](int64_t begin, int64_t end) { InputTiles<M>(s, x, t0, bt, begin, end, v.data()); });
    for (int p = 0; p < kP; ++p) {
      GemmRowMajor<T>(false, false, tiles, oc, c, v.data() + p * bt * c, c, u + p * c * oc, oc, false,
                      prod.data() + p * bt * oc, oc);
    }
    ParallelFor(tiles, 4,
                [&](int64_t begin, int64_t end) { OutputTiles<M>(s, prod.data(), t0, bt, begin, end, epilogue, y); });
  }
}

}  // namespace

int WinogradTile(const WinogradShape& s) {
  // Small channel counts make the gemms too thin to gain, and tiny outputs waste most of a tile.
  if (s.c < 16 || s.oc < 16 || s.oh < 2 || s.ow < 2) return 0;
  return s.oh >= 4 && s.ow >= 4 ? 4 : 2;
}

template <typename T>
std::vector<T> WinogradFilter(int m, const T* filter, int64_t c, int64_t oc) {
  return m == 4 ? FilterTransform<4>(filter, c, oc) : FilterTransform<2>(filter, c, oc);
}

template <typename T>
void WinogradConv(int m, const WinogradShape& s, const T* x, const T* u, const Epilogue<T>& epilogue, T* y) {
  if (m == 4) {
    Convolve<4>(s, x, u, epilogue, y);
  } else {
    Convolve<2>(s, x, u, epilogue, y);
  }
}

template std::vector<float> WinogradFilter(int, const float*, int64_t, int64_t);
template std::vector<double> WinogradFilter(int, const double*, int64_t, int64_t);
template void WinogradConv(int, const WinogradShape&, const float*, const float*, const Epilogue<float>&, float*);
template void WinogradConv(int, const WinogradShape&, const double*, const double*, const Epilogue<double>&, double*);

}  // namespace graft::cpu
