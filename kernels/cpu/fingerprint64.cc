// FarmHash's Fingerprint64, written from the published algorithm: strings up to 16, 32 and 64
// bytes are mixed directly from a few 64-bit loads; longer strings run a 56-byte state over
// 64-byte chunks and finish on the last 64 bytes. Loads are little-endian.
#include "kernels/cpu/fingerprint64.h"

#include <cstring>
#include <utility>

namespace graft::cpu {
namespace {

constexpr uint64_t kK0 = 0xc3a5c85c97cb3127ull;
constexpr uint64_t kK1 = 0xb492b66fbe98f273ull;
constexpr uint64_t kK2 = 0x9ae16a3b2f90404full;

uint64_t Load64(const char* p) {
  uint8_t b[8];
  std::memcpy(b, p, 8);
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}

uint64_t Load32(const char* p) {
  uint8_t b[4];
  std::memcpy(b, p, 4);
  return static_cast<uint64_t>(b[0]) | (static_cast<uint64_t>(b[1]) << 8) | (static_cast<uint64_t>(b[2]) << 16) |
         (static_cast<uint64_t>(b[3]) << 24);
}

uint64_t RotateRight(uint64_t v, int shift) { return shift == 0 ? v : (v >> shift) | (v << (64 - shift)); }

uint64_t ShiftMix(uint64_t v) { return v ^ (v >> 47); }

uint64_t Mix16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

uint64_t UpTo16(const char* s, size_t len) {
  if (len >= 8) {
    const uint64_t mul = kK2 + len * 2;
    const uint64_t a = Load64(s) + kK2;
    const uint64_t b = Load64(s + len - 8);
    const uint64_t c = RotateRight(b, 37) * mul + a;
    const uint64_t d = (RotateRight(a, 25) + b) * mul;
    return Mix16(c, d, mul);
  }
  if (len >= 4) {
    const uint64_t mul = kK2 + len * 2;
    const uint64_t a = Load32(s);
    return Mix16(len + (a << 3), Load32(s + len - 4), mul);
  }
  if (len > 0) {
    const auto a = static_cast<uint8_t>(s[0]);
    const auto b = static_cast<uint8_t>(s[len >> 1]);
    const auto c = static_cast<uint8_t>(s[len - 1]);
    const uint32_t y = static_cast<uint32_t>(a) + (static_cast<uint32_t>(b) << 8);
    const uint32_t z = static_cast<uint32_t>(len) + (static_cast<uint32_t>(c) << 2);
    return ShiftMix(y * kK2 ^ z * kK0) * kK2;
  }
  return kK2;
}

uint64_t UpTo32(const char* s, size_t len) {
  const uint64_t mul = kK2 + len * 2;
  const uint64_t a = Load64(s) * kK1;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * kK2;
  return Mix16(RotateRight(a + b, 43) + RotateRight(c, 30) + d, a + RotateRight(b + kK2, 18) + c, mul);
}

uint64_t UpTo64(const char* s, size_t len) {
  const uint64_t mul = kK2 + len * 2;
  const uint64_t a = Load64(s) * kK2;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * kK2;
  const uint64_t y = RotateRight(a + b, 43) + RotateRight(c, 30) + d;
  const uint64_t z = Mix16(y, a + RotateRight(b + kK2, 18) + c, mul);
  const uint64_t e = Load64(s + 16) * mul;
  const uint64_t f = Load64(s + 24);
  const uint64_t g = (y + Load64(s + len - 32)) * mul;
  const uint64_t h = (z + Load64(s + len - 24)) * mul;
  return Mix16(RotateRight(e + f, 43) + RotateRight(g, 30) + h, e + RotateRight(f + a, 18) + g, mul);
}

// Two 64-bit values from 32 bytes and two seeds.
std::pair<uint64_t, uint64_t> Weak32(const char* s, uint64_t a, uint64_t b) {
  const uint64_t w = Load64(s), x = Load64(s + 8), y = Load64(s + 16), z = Load64(s + 24);
  a += w;
  b = RotateRight(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += RotateRight(a, 44);
  return {a + z, b + c};
}

}  // namespace

uint64_t Fingerprint64(std::string_view str) {
  const char* s = str.data();
  const size_t len = str.size();
  if (len <= 16) return UpTo16(s, len);
  if (len <= 32) return UpTo32(s, len);
  if (len <= 64) return UpTo64(s, len);

  constexpr uint64_t kSeed = 81;
  uint64_t x = kSeed;
  uint64_t y = kSeed * kK1 + 113;
  uint64_t z = ShiftMix(y * kK2 + 113) * kK2;
  std::pair<uint64_t, uint64_t> v{0, 0}, w{0, 0};
  x = x * kK2 + Load64(s);
  const char* end = s + ((len - 1) / 64) * 64;
  const char* last64 = end + ((len - 1) & 63) - 63;
  do {
    x = RotateRight(x + y + v.first + Load64(s + 8), 37) * kK1;
    y = RotateRight(y + v.second + Load64(s + 48), 42) * kK1;
    x ^= w.second;
    y += v.first + Load64(s + 40);
    z = RotateRight(z + w.first, 33) * kK1;
    v = Weak32(s, v.second * kK1, x + w.first);
    w = Weak32(s + 32, z + w.second, y + Load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t mul = kK1 + ((z & 0xff) << 1);
  s = last64;
  w.first += ((len - 1) & 63);
  v.first += w.first;
  w.first += v.first;
  x = RotateRight(x + y + v.first + Load64(s + 8), 37) * mul;
  y = RotateRight(y + v.second + Load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + Load64(s + 40);
  z = RotateRight(z + w.first, 33) * mul;
  v = Weak32(s, v.second * mul, x + w.first);
  w = Weak32(s + 32, z + w.second, y + Load64(s + 16));
  std::swap(z, x);
  return Mix16(Mix16(v.first, w.first, mul) + ShiftMix(y) * kK0 + z, Mix16(v.second, w.second, mul) + x, mul);
}

}  // namespace graft::cpu
