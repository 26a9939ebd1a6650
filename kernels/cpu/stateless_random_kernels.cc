// CPU kernels for TensorFlow's stateless random ops, bit for bit TensorFlow's CPU kernels:
//   StatelessRandomGetKeyCounter, StatelessRandomGetKeyCounterAlg, StatelessRandomGetAlg;
//   StatelessRandomUniform, StatelessRandomNormal, StatelessTruncatedNormal,
//   StatelessRandomUniformInt, StatelessRandomUniformFullInt (a shape-[2] `seed` input), and
//   their V2 forms taking a `key` (uint64 [1]), a `counter` (uint64 [2]) and an `alg` (int32).
//
// The generator is Philox4x32-10 (philox.h). A seed (s0, s1) becomes a key and a counter as in
// TensorFlow: one Philox block of the counter (s0 low, s0 high, s1 low, s1 high) under the fixed
// key (0x3ec8f720, 0x02461e29) gives (k0, k1, c2, c3); the key is (k0, k1) and the counter
// (0, 0, c2, c3). As uint64 tensors, the key is k0 | k1 << 32 and the counter
// {c0 | c1 << 32, c2 | c3 << 32}. Only Philox (alg 1, and auto-select, 3) is implemented on
// CPU, as in TensorFlow; ThreeFry (2) is refused with its name.
//
// The output is filled in groups; group g takes the generator's block g (the counter advanced
// by g), and a last partial group keeps the group's first values. What one block gives:
//   uniform float32: 4 values, (bits & 0x7fffff | 1.0f's exponent) - 1; float64: 2 values from
//     (the first word's low 20 bits : the second word) as a mantissa; float16: 4, the low 10
//     bits over 1024; bfloat16: 4, the low 7 bits over 128 (the same construction on their
//     mantissas);
//   normal (Box-Muller): float32 from word pairs (u1 from the first, clamped below at 1e-7;
//     theta = 2*pi*u2 from the second, computed in double and rounded to float;
//     r = sqrt(-2 log u1); r*sin(theta), r*cos(theta)); float16/bfloat16 round the float32
//     values; float64 takes four words per pair of values (two 52-bit uniforms);
//   truncated normal: normals redrawn until |x| < 2, the pairs drawn one word (float64: four
//     words) at a time from a stream of the generator's words; group g's stream starts at block
//     g * (group size * 256 / 4), so each group has its own reserved stretch of blocks;
//   uniform int in [lo, hi): lo + bits % (hi - lo) in the unsigned type, 32-bit types one word
//     per value, 64-bit ones two words per value, the first the low half;
//   full-range int: the bits themselves, laid out as above.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/float16.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/philox.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

using Block = Philox4x32::Block;
using Dims = std::vector<int64_t>;

// TensorFlow's Algorithm enum (rng_alg.h).
constexpr int32_t kAlgPhilox = 1;
constexpr int32_t kAlgThreeFry = 2;
constexpr int32_t kAlgAutoSelect = 3;

// ---- Seeds, keys and counters -----------------------------------------------------------------

// The generator TensorFlow derives from a seed pair.
Philox4x32 FromSeed(uint64_t s0, uint64_t s1) {
  const Block mixed = Philox4x32::Compute(
      {static_cast<uint32_t>(s0), static_cast<uint32_t>(s0 >> 32), static_cast<uint32_t>(s1),
       static_cast<uint32_t>(s1 >> 32)},
      {0x3ec8f720u, 0x02461e29u});
  return Philox4x32({0, 0, mixed[2], mixed[3]}, {mixed[0], mixed[1]});
}

Status ReadSeed(const Tensor& seed, Philox4x32* gen) {
  if (seed.rank() != 1 || seed.dims()[0] != 2) {
    return errors::InvalidArgument("seed must have shape [2], not ", ShapeText(seed.dims()));
  }
  uint64_t s[2];
  for (int i = 0; i < 2; ++i) {
    s[i] = seed.dtype() == DType::kInt32 ? static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[i]))
           : seed.dtype() == DType::kUInt32 ? static_cast<uint64_t>(seed.data<uint32_t>()[i])
                                            : seed.data<uint64_t>()[i];  // int64 and uint64 alike
  }
  *gen = FromSeed(s[0], s[1]);
  return Status::Ok();
}

// The algorithm of an `alg` input; Philox is the only one this CPU implementation has.
Status ReadAlg(const Tensor& alg) {
  if (alg.rank() != 0) return errors::InvalidArgument("alg must have shape [], not ", ShapeText(alg.dims()));
  const int32_t id = alg.data<int32_t>()[0];
  if (id == kAlgPhilox || id == kAlgAutoSelect) return Status::Ok();
  if (id == kAlgThreeFry) {
    return errors::InvalidArgument("Unsupported algorithm id: 2 (ThreeFry): only Philox (1) and auto-select (3) are "
                                   "implemented on CPU, as in TensorFlow");
  }
  return errors::InvalidArgument("Unsupported algorithm id: ", id);
}

Status ReadKeyCounter(const Tensor& key, const Tensor& counter, Philox4x32* gen) {
  if (key.rank() != 1 || key.dims()[0] != 1) {
    return errors::InvalidArgument("key must have shape [1], not ", ShapeText(key.dims()),
                                   ". (Note that batched keys are not supported yet.)");
  }
  if (counter.rank() != 1 || counter.dims()[0] < 2) {
    return errors::InvalidArgument("counter must be a vector with length at least 2; got shape: ",
                                   ShapeText(counter.dims()), ". (Note that batched counters are not supported yet.)");
  }
  const uint64_t k = key.data<uint64_t>()[0];
  const uint64_t* c = counter.data<uint64_t>();
  *gen = Philox4x32({static_cast<uint32_t>(c[0]), static_cast<uint32_t>(c[0] >> 32), static_cast<uint32_t>(c[1]),
                     static_cast<uint32_t>(c[1] >> 32)},
                    {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)});
  return Status::Ok();
}

Status ReadShape(const Tensor& shape_t, Dims* out) {
  if (shape_t.rank() != 1) {
    return errors::InvalidArgument("shape must be a vector of {int32,int64}, got shape ", ShapeText(shape_t.dims()));
  }
  out->resize(static_cast<size_t>(shape_t.num_elements()));
  for (int64_t i = 0; i < shape_t.num_elements(); ++i) {
    const int64_t d = shape_t.dtype() == DType::kInt64 ? shape_t.data<int64_t>()[i] : shape_t.data<int32_t>()[i];
    if (d < 0) return errors::InvalidArgument("Dimension ", d, " must be >= 0");
    (*out)[static_cast<size_t>(i)] = d;
  }
  int64_t n = 0;
  return CheckedNumElements(*out, &n);
}

// Where an op's inputs are: V1 ops have (shape, seed, extra...), V2 ops (shape, key, counter,
// alg, extra...). Reads the generator and returns the index of the first extra input.
template <bool kV2>
Status ReadGenerator(OpKernelContext& ctx, Philox4x32* gen, int* first_extra) {
  if constexpr (kV2) {
    GRAFT_RETURN_IF_ERROR(ReadKeyCounter(ctx.input(1), ctx.input(2), gen));
    GRAFT_RETURN_IF_ERROR(ReadAlg(ctx.input(3)));
    *first_extra = 4;
  } else {
    GRAFT_RETURN_IF_ERROR(ReadSeed(ctx.input(1), gen));
    *first_extra = 2;
  }
  return Status::Ok();
}

// ---- From random words to values --------------------------------------------------------------

// The element types: the stored C++ type and the dtype. float16/bfloat16 are stored as bits.
struct Half {
  using Storage = uint16_t;
  static constexpr DType kDType = DType::kFloat16;
};
struct BFloat16 {
  using Storage = uint16_t;
  static constexpr DType kDType = DType::kBFloat16;
};
template <typename T>
struct Plain {
  using Storage = T;
  static constexpr DType kDType = DTypeOf<T>();
};

float UintToFloat(uint32_t x) {
  const uint32_t bits = (x & 0x7fffffu) | 0x3f800000u;  // [1, 2)
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}

double UintsToDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (static_cast<uint64_t>(hi & 0xfffffu) << 32) | lo | 0x3ff0000000000000ull;  // [1, 2)
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}

constexpr double kPi = 3.14159265358979323846;

void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = UintToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;  // keep log() finite
  const auto theta = static_cast<float>(2.0 * kPi * static_cast<double>(UintToFloat(x1)));
  const float r = std::sqrt(-2.0f * std::log(u1));
  ::sincosf(theta, f0, f1);  // glibc's, as TensorFlow's Linux build
  *f0 *= r;
  *f1 *= r;
}

void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0, double* d1) {
  double u1 = UintsToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double theta = 2.0 * kPi * UintsToDouble(x2, x3);
  const double r = std::sqrt(-2.0 * std::log(u1));
  ::sincos(theta, d0, d1);
  *d0 *= r;
  *d1 *= r;
}

// A float32 value as the element type (rounded to nearest even for the 16-bit floats).
template <typename E>
typename E::Storage FromFloat(float f) {
  if constexpr (std::is_same_v<E, Half>) {
    return FloatToHalf(f);
  } else if constexpr (std::is_same_v<E, BFloat16>) {
    return FloatToBFloat16(f);
  } else {
    return static_cast<typename E::Storage>(f);
  }
}

// Each distribution makes kCount values from one block.
template <typename E>
struct Uniform {
  static constexpr int kCount = std::is_same_v<E, Plain<double>> ? 2 : 4;
  using Out = std::array<typename E::Storage, kCount>;
  Out operator()(const Block& b) const {
    Out out;
    for (int i = 0; i < kCount; ++i) {
      if constexpr (std::is_same_v<E, Plain<double>>) {
        out[i] = UintsToDouble(b[2 * i], b[2 * i + 1]);
      } else if constexpr (std::is_same_v<E, Plain<float>>) {
        out[i] = UintToFloat(b[i]);
      } else if constexpr (std::is_same_v<E, Half>) {
        out[i] = FromFloat<E>(static_cast<float>(b[i] & 0x3ffu) / 1024.0f);  // exact
      } else {
        out[i] = FromFloat<E>(static_cast<float>(b[i] & 0x7fu) / 128.0f);  // exact
      }
    }
    return out;
  }
};

template <typename E>
struct Normal {
  static constexpr int kCount = std::is_same_v<E, Plain<double>> ? 2 : 4;
  using Out = std::array<typename E::Storage, kCount>;
  Out operator()(const Block& b) const {
    Out out;
    if constexpr (std::is_same_v<E, Plain<double>>) {
      BoxMullerDouble(b[0], b[1], b[2], b[3], &out[0], &out[1]);
    } else {
      for (int i = 0; i < 4; i += 2) {
        float f0, f1;
        BoxMullerFloat(b[i], b[i + 1], &f0, &f1);
        out[i] = FromFloat<E>(f0);
        out[i + 1] = FromFloat<E>(f1);
      }
    }
    return out;
  }
};

// Words of a generator one at a time (TensorFlow's SingleSampleAdapter).
class WordStream {
 public:
  explicit WordStream(Philox4x32 gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == 4) {
      block_ = gen_();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  Philox4x32 gen_;
  Block block_{};
  int used_ = 4;
};

template <typename E>
struct TruncatedNormal {
  static constexpr int kCount = std::is_same_v<E, Plain<double>> ? 2 : 4;
  using Out = std::array<typename E::Storage, kCount>;
  Out operator()(WordStream& words) const {
    Out out;
    int n = 0;
    for (;;) {
      if constexpr (std::is_same_v<E, Plain<double>>) {
        const uint32_t x0 = words(), x1 = words(), x2 = words(), x3 = words();
        double d[2];
        BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
        for (double v : d) {
          if (std::abs(v) < 2.0) {
            out[n++] = v;
            if (n == kCount) return out;
          }
        }
      } else {
        const uint32_t x0 = words(), x1 = words();
        float f[2];
        BoxMullerFloat(x0, x1, &f[0], &f[1]);
        for (float v : f) {
          if (std::abs(v) < 2.0f) {
            out[n++] = FromFloat<E>(v);
            if (n == kCount) return out;
          }
        }
      }
    }
  }
};

template <typename T>
struct UniformInt {
  using U = std::make_unsigned_t<T>;
  static constexpr int kCount = sizeof(T) == 4 ? 4 : 2;
  using Out = std::array<T, kCount>;
  T lo;
  U range;
  Out operator()(const Block& b) const {
    Out out;
    for (int i = 0; i < kCount; ++i) {
      U bits;
      if constexpr (sizeof(T) == 4) {
        bits = b[i];
      } else {
        bits = static_cast<U>(b[2 * i]) | (static_cast<U>(b[2 * i + 1]) << 32);
      }
      out[i] = static_cast<T>(static_cast<U>(static_cast<U>(lo) + bits % range));
    }
    return out;
  }
};

template <typename T>
struct FullInt {
  using U = std::make_unsigned_t<T>;
  static constexpr int kCount = sizeof(T) == 4 ? 4 : 2;
  using Out = std::array<T, kCount>;
  Out operator()(const Block& b) const {
    Out out;
    for (int i = 0; i < kCount; ++i) {
      if constexpr (sizeof(T) == 4) {
        out[i] = static_cast<T>(b[i]);
      } else {
        out[i] = static_cast<T>(static_cast<U>(b[2 * i]) | (static_cast<U>(b[2 * i + 1]) << 32));
      }
    }
    return out;
  }
};

// Fills out[0, n) group by group: group g from block g of gen.
template <typename S, typename D>
void Fill(Philox4x32 gen, const D& dist, S* out, int64_t n) {
  for (int64_t i = 0; i < n; i += D::kCount) {
    const auto values = dist(gen());
    const int64_t take = std::min<int64_t>(D::kCount, n - i);
    for (int64_t j = 0; j < take; ++j) out[i + j] = values[static_cast<size_t>(j)];
  }
}

// The same for distributions that use a variable number of words: group g reads from block
// g * kCount * 256 / 4 on.
template <typename S, typename D>
void FillReserved(const Philox4x32& gen, const D& dist, S* out, int64_t n) {
  constexpr uint64_t kBlocksPerGroup = D::kCount * 256 / 4;
  uint64_t group = 0;
  for (int64_t i = 0; i < n; i += D::kCount, ++group) {
    Philox4x32 g = gen;
    g.Skip(group * kBlocksPerGroup);
    WordStream words(g);
    const auto values = dist(words);
    const int64_t take = std::min<int64_t>(D::kCount, n - i);
    for (int64_t j = 0; j < take; ++j) out[i + j] = values[static_cast<size_t>(j)];
  }
}

// ---- Kernels ------------------------------------------------------------------------------------

enum class Kind { kUniform, kNormal, kTruncatedNormal };

// StatelessRandomUniform/Normal, StatelessTruncatedNormal and their V2 forms.
template <typename E, Kind K, bool kV2>
class FloatKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    Dims dims;
    GRAFT_RETURN_IF_ERROR(ReadShape(ctx.input(0), &dims));
    Philox4x32 gen;
    int extra = 0;
    GRAFT_RETURN_IF_ERROR(ReadGenerator<kV2>(ctx, &gen, &extra));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, E::kDType, dims, &out));
    auto* p = out->data<typename E::Storage>();
    if constexpr (K == Kind::kUniform) {
      Fill(gen, Uniform<E>{}, p, out->num_elements());
    } else if constexpr (K == Kind::kNormal) {
      Fill(gen, Normal<E>{}, p, out->num_elements());
    } else {
      FillReserved(gen, TruncatedNormal<E>{}, p, out->num_elements());
    }
    return Status::Ok();
  }
};

// StatelessRandomUniformInt(V2): minval and maxval scalars; minval < maxval unless the output is
// empty.
template <typename T, bool kV2>
class UniformIntKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    Dims dims;
    GRAFT_RETURN_IF_ERROR(ReadShape(ctx.input(0), &dims));
    Philox4x32 gen;
    int extra = 0;
    GRAFT_RETURN_IF_ERROR(ReadGenerator<kV2>(ctx, &gen, &extra));
    const Tensor& lo_t = ctx.input(extra);
    const Tensor& hi_t = ctx.input(extra + 1);
    if (lo_t.rank() != 0) return errors::InvalidArgument("minval must be 0-D, got shape ", ShapeText(lo_t.dims()));
    if (hi_t.rank() != 0) return errors::InvalidArgument("maxval must be 0-D, got shape ", ShapeText(hi_t.dims()));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), dims, &out));
    if (out->num_elements() == 0) return Status::Ok();
    const T lo = lo_t.data<T>()[0], hi = hi_t.data<T>()[0];
    if (!(lo < hi)) return errors::InvalidArgument("Need minval < maxval, got ", lo, " >= ", hi);
    using U = std::make_unsigned_t<T>;
    Fill(gen, UniformInt<T>{lo, static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo))}, out->data<T>(),
         out->num_elements());
    return Status::Ok();
  }
};

// StatelessRandomUniformFullInt(V2).
template <typename T, bool kV2>
class FullIntKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    Dims dims;
    GRAFT_RETURN_IF_ERROR(ReadShape(ctx.input(0), &dims));
    Philox4x32 gen;
    int extra = 0;
    GRAFT_RETURN_IF_ERROR(ReadGenerator<kV2>(ctx, &gen, &extra));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DTypeOf<T>(), dims, &out));
    Fill(gen, FullInt<T>{}, out->data<T>(), out->num_elements());
    return Status::Ok();
  }
};

// StatelessRandomGetKeyCounter (kWithAlg false) and StatelessRandomGetKeyCounterAlg.
template <bool kWithAlg>
class GetKeyCounterKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    Philox4x32 gen;
    GRAFT_RETURN_IF_ERROR(ReadSeed(ctx.input(0), &gen));
    Tensor *key = nullptr, *counter = nullptr;
    const int64_t key_dims[] = {1}, counter_dims[] = {2};
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kUInt64, key_dims, &key));
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(1, DType::kUInt64, counter_dims, &counter));
    const auto& k = gen.key();
    const auto& c = gen.counter();
    key->data<uint64_t>()[0] = k[0] | (static_cast<uint64_t>(k[1]) << 32);
    counter->data<uint64_t>()[0] = c[0] | (static_cast<uint64_t>(c[1]) << 32);
    counter->data<uint64_t>()[1] = c[2] | (static_cast<uint64_t>(c[3]) << 32);
    if constexpr (kWithAlg) {
      Tensor* alg = nullptr;
      GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(2, DType::kInt32, {}, &alg));
      alg->data<int32_t>()[0] = kAlgPhilox;
    }
    return Status::Ok();
  }
};

// StatelessRandomGetAlg: the algorithm this device uses, Philox.
class GetAlgKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsCheap() const override { return true; }
  Status Compute(OpKernelContext& ctx) const override {
    Tensor* alg = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kInt32, {}, &alg));
    alg->data<int32_t>()[0] = kAlgPhilox;
    return Status::Ok();
  }
};

template <template <typename, Kind, bool> class Kern, Kind K, bool kV2>
void RegisterFloats(KernelRegistry& r, const char* op) {
  auto reg = [&](DType d, KernelFactory f) { (void)r.Register(op, kDeviceCpu, "dtype", {d}, std::move(f)); };
  reg(DType::kFloat16, &CreateKernel<Kern<Half, K, kV2>>);
  reg(DType::kBFloat16, &CreateKernel<Kern<BFloat16, K, kV2>>);
  reg(DType::kFloat32, &CreateKernel<Kern<Plain<float>, K, kV2>>);
  reg(DType::kFloat64, &CreateKernel<Kern<Plain<double>, K, kV2>>);
}

template <template <typename, bool> class Kern, bool kV2>
void RegisterInts(KernelRegistry& r, const char* op) {
  auto reg = [&]<typename T>() {
    (void)r.Register(op, kDeviceCpu, "dtype", {DTypeOf<T>()}, &CreateKernel<Kern<T, kV2>>);
  };
  reg.template operator()<int32_t>();
  reg.template operator()<int64_t>();
  reg.template operator()<uint32_t>();
  reg.template operator()<uint64_t>();
}

}  // namespace

void RegisterStatelessRandomKernels(KernelRegistry& r) {
  (void)r.Register("StatelessRandomGetKeyCounter", kDeviceCpu, "", {}, &CreateKernel<GetKeyCounterKernel<false>>);
  (void)r.Register("StatelessRandomGetKeyCounterAlg", kDeviceCpu, "", {}, &CreateKernel<GetKeyCounterKernel<true>>);
  (void)r.Register("StatelessRandomGetAlg", kDeviceCpu, "", {}, &CreateKernel<GetAlgKernel>);
  RegisterFloats<FloatKernel, Kind::kUniform, false>(r, "StatelessRandomUniform");
  RegisterFloats<FloatKernel, Kind::kNormal, false>(r, "StatelessRandomNormal");
  RegisterFloats<FloatKernel, Kind::kTruncatedNormal, false>(r, "StatelessTruncatedNormal");
  RegisterFloats<FloatKernel, Kind::kUniform, true>(r, "StatelessRandomUniformV2");
  RegisterFloats<FloatKernel, Kind::kNormal, true>(r, "StatelessRandomNormalV2");
  RegisterFloats<FloatKernel, Kind::kTruncatedNormal, true>(r, "StatelessTruncatedNormalV2");
  RegisterInts<UniformIntKernel, false>(r, "StatelessRandomUniformInt");
  RegisterInts<UniformIntKernel, true>(r, "StatelessRandomUniformIntV2");
  RegisterInts<FullIntKernel, false>(r, "StatelessRandomUniformFullInt");
  RegisterInts<FullIntKernel, true>(r, "StatelessRandomUniformFullIntV2");
}

}  // namespace graft::cpu
