#pragma once
// Whether this build's AVX-512 kernels can issue bf16 dot products (vdpbf16ps) on the CPU it runs
// on: the instruction set cpuid reports, not the build's -march (the bf16 kernels carry their own
// target attribute, so any AVX-512 build has them). Each caller words its own refusal. C++17.

namespace ktune::kernels::cpu_isa {

enum class Bf16Support { ok, build_without_avx512, cpu_without_avx512_bf16 };

inline Bf16Support avx512_bf16_support() {
#if defined(__AVX512F__)
  return __builtin_cpu_supports("avx512bf16") ? Bf16Support::ok
                                              : Bf16Support::cpu_without_avx512_bf16;
#else
  return Bf16Support::build_without_avx512;
#endif
}

}  // namespace ktune::kernels::cpu_isa
