// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011): a counter-based generator. A 64-bit key and a 128-bit counter give a block of four
// 32-bit random words through ten rounds of multiplications and key bumps; each call returns
// the block of the current counter and then increments the counter by one (a 128-bit increment).
//
// TensorFlow's stateless random ops use this generator with the key and counter they derive
// from the op's seed (or take as inputs), so this one is laid out as TensorFlow lays its state:
// key word 0 is the low half of the key, counter word 0 the lowest word of the counter.
#pragma once

#include <array>
#include <cstdint>

namespace graft::cpu {

class Philox4x32 {
 public:
  using Block = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;

  Philox4x32() = default;
  Philox4x32(const Block& counter, const Key& key) : counter_(counter), key_(key) {}

  // The block of one (counter, key), without changing any state.
  static Block Compute(Block c, Key k) {
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k[0] += kWeyl0;
        k[1] += kWeyl1;
      }
      const uint64_t p0 = static_cast<uint64_t>(kMul0) * c[0];
      const uint64_t p1 = static_cast<uint64_t>(kMul1) * c[2];
      c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
    }
    return c;
  }

  // The next block.
  Block operator()() {
    const Block out = Compute(counter_, key_);
    Skip(1);
    return out;
  }

  // Advances the counter by n blocks.
  void Skip(uint64_t n) {
    const uint64_t low = (static_cast<uint64_t>(counter_[1]) << 32) | counter_[0];
    const uint64_t sum = low + n;
    counter_[0] = static_cast<uint32_t>(sum);
    counter_[1] = static_cast<uint32_t>(sum >> 32);
    if (sum < low && ++counter_[2] == 0) ++counter_[3];  // carry into the high 64 bits
  }

  const Block& counter() const { return counter_; }
  const Key& key() const { return key_; }

 private:
  static constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  static constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  Block counter_{};
  Key key_{};
};

}  // namespace graft::cpu
