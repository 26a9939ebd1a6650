// Fingerprint64: FarmHash's 64-bit fingerprint of a byte string (Google's farmhash
// Fingerprint64, the "na" variant of its Hash64, a CityHash descendant). TensorFlow's
// Fingerprint64 and StringToHashBucketFast use it; its values are fixed for all time.
#pragma once

#include <cstdint>
#include <string_view>

namespace graft::cpu {

uint64_t Fingerprint64(std::string_view s);

}  // namespace graft::cpu
