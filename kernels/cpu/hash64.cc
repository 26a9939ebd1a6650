// MurmurHash64A (Austin Appleby's MurmurHash2, 64-bit variant): 8-byte little-endian words
// mixed into the state by multiply-shift rounds, the 1..7 trailing bytes folded in last.
#include "kernels/cpu/hash64.h"

namespace graft::cpu {

uint64_t Hash64(std::string_view s, uint64_t seed) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ull;
  constexpr int kShift = 47;
  const size_t n = s.size();
  uint64_t h = seed ^ (n * kMul);
  size_t i = 0;
  auto byte = [&](size_t at) { return static_cast<uint64_t>(static_cast<uint8_t>(s[at])); };
  for (; i + 8 <= n; i += 8) {
    uint64_t k = 0;
    for (int j = 7; j >= 0; --j) k = (k << 8) | byte(i + static_cast<size_t>(j));
    k *= kMul;
    k ^= k >> kShift;
    k *= kMul;
    h ^= k;
    h *= kMul;
  }
  if (i < n) {
    for (size_t j = n - i; j-- > 0;) h ^= byte(i + j) << (8 * j);
    h *= kMul;
  }
  h ^= h >> kShift;
  h *= kMul;
  h ^= h >> kShift;
  return h;
}

}  // namespace graft::cpu
