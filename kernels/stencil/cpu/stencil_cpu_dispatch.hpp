#pragma once
// The user function of a stencil program on the CPU, chosen by the family's program code
// (0 synthetic, 1 gaussian, 2 life, 3 heat, 4 sobel, 5 nms, 6 threshold). Header-only and free
// of ktune's library, so that the file-family re-expression of the stencil family
// (examples/own-kernels/stencil_file) runs the very code of the built-in CPU backend.
#include <cstdint>
#include <type_traits>

#include "kernels/stencil/cpu/stencil_cpu_kernel.hpp"

namespace ktune::stencil::cpu {

struct Shape {
  int program = 0;
  int north = 1, south = 1, east = 1, west = 1;
  bool heavy = false;
};

// Calls run(fn) with the program's user function fn(in) of a cell accessor in(dy, dx).
// Returns false, calling nothing, for an unknown program or one that does not take type T
// (heat and sobel are floating-point only).
template <typename T, typename Run>
bool with_user_function(const Shape& s, Run&& run) {
  constexpr bool floating = !std::is_integral_v<T>;
  switch (s.program) {
    case 0:
      run(Synthetic<T>{s.north, s.south, s.east, s.west, s.heavy});
      return true;
    case 1:
      run([](const auto& v) { return ktune_gaussian<T>(v); });
      return true;
    case 2:
      run([](const auto& v) { return ktune_life<T>(v); });
      return true;
    case 3:
      if constexpr (floating) run([](const auto& v) { return ktune_heat<T>(v); });
      return floating;
    case 4:
      if constexpr (floating) run([](const auto& v) { return ktune_sobel<T>(v); });
      return floating;
    case 5:
      run([](const auto& v) { return ktune_nms<T>(v); });
      return true;
    case 6:
      run([](const auto& v) { return ktune_threshold<T>(v); });
      return true;
    default:
      return false;
  }
}

}  // namespace ktune::stencil::cpu
