#pragma once
// What ptxas decided for a kernel, read from its CUBIN without the CUDA driver: CI compiles
// kernels with NVRTC on machines without a GPU and can still check the registers they use (a
// register count that grows costs blocks per SM, and nothing else in CI would notice).
#include <string_view>

namespace ktune {

// The registers per thread of the kernel whose symbol (the mangled name, e.g. NVRTC's lowered
// name) is kernel_symbol: its EIATTR_REGCOUNT attribute in the CUBIN's global .nv.info section.
// Throws Error naming what is wrong when the bytes are not a well-formed little-endian ELF64
// CUBIN, or the kernel or its count is not there. Every read is bounds-checked (any bytes are
// safe to pass).
int cubin_register_count(std::string_view cubin, std::string_view kernel_symbol);

}  // namespace ktune
