#pragma once
// 8-float vectors (GCC/Clang vector extensions: AVX2 under -march=x86-64-v3 or native, plain
// code elsewhere) and the partial loads and stores the conv kernels use at channel tails.
#include <cstring>

#if defined(__FMA__)
#include <immintrin.h>
#endif

namespace ktune::kernels::conv2d::cpu::simd {

constexpr int kLanes = 8;
typedef float Vec __attribute__((vector_size(32)));

inline Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);  // unaligned; no aliasing casts
  return v;
}
inline void store(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }
// The first n (0..8) lanes from p, the rest zero.
inline Vec load_partial(const float* p, int n) {
  Vec v = {};
  std::memcpy(&v, p, sizeof(float) * size_t(n));
  return v;
}
inline void store_partial(float* p, Vec v, int n) { std::memcpy(p, &v, sizeof(float) * size_t(n)); }
// acc + a*b as one fused instruction where the target has FMA (ISO C++ flags keep the compiler
// from contracting a*b + c itself).
inline Vec fma(Vec a, Vec b, Vec acc) {
#if defined(__FMA__)
  return _mm256_fmadd_ps(a, b, acc);
#else
  return a * b + acc;
#endif
}
inline float sum(Vec v) {
  return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

}  // namespace ktune::kernels::conv2d::cpu::simd
