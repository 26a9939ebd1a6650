// SipHash-2-4 as specified: 8-byte little-endian message words each through two rounds, a last
// word holding the length's low byte on top and the remaining bytes, then four rounds.
#include "kernels/cpu/siphash.h"

namespace graft::cpu {
namespace {

uint64_t RotateLeft(uint64_t v, int s) { return (v << s) | (v >> (64 - s)); }

struct State {
  uint64_t v0, v1, v2, v3;
  void Round() {
    v0 += v1;
    v1 = RotateLeft(v1, 13);
    v1 ^= v0;
    v0 = RotateLeft(v0, 32);
    v2 += v3;
    v3 = RotateLeft(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = RotateLeft(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = RotateLeft(v1, 17);
    v1 ^= v2;
    v2 = RotateLeft(v2, 32);
  }
  void Absorb(uint64_t m) {
    v3 ^= m;
    Round();
    Round();
    v0 ^= m;
  }
};

}  // namespace

uint64_t SipHash24(uint64_t k0, uint64_t k1, std::string_view s) {
  State st{k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull, k0 ^ 0x6c7967656e657261ull,
           k1 ^ 0x7465646279746573ull};
  const size_t n = s.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t m = 0;
    for (int j = 7; j >= 0; --j) m = (m << 8) | static_cast<uint8_t>(s[i + static_cast<size_t>(j)]);
    st.Absorb(m);
  }
  uint64_t last = static_cast<uint64_t>(n & 0xff) << 56;
  for (size_t j = 0; i + j < n; ++j) last |= static_cast<uint64_t>(static_cast<uint8_t>(s[i + j])) << (8 * j);
  st.Absorb(last);
  st.v2 ^= 0xff;
  for (int r = 0; r < 4; ++r) st.Round();
  return st.v0 ^ st.v1 ^ st.v2 ^ st.v3;
}

}  // namespace graft::cpu
