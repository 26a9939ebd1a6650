// SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012): a keyed
// 64-bit hash of a byte string under a 128-bit key given as two 64-bit words. TensorFlow's
// StringToHashBucketStrong hashes with it, keyed by its `key` attr.
#pragma once

#include <cstdint>
#include <string_view>

namespace graft::cpu {

uint64_t SipHash24(uint64_t k0, uint64_t k1, std::string_view s);

}  // namespace graft::cpu
