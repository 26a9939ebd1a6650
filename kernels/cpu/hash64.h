// Hash64: TensorFlow's legacy 64-bit string hash (MurmurHash64A with the seed 0xDECAFCAFFE),
// used by the deprecated StringToHashBucket op.
#pragma once

#include <cstdint>
#include <string_view>

namespace graft::cpu {

uint64_t Hash64(std::string_view s, uint64_t seed = 0xDECAFCAFFEull);

}  // namespace graft::cpu
