#pragma once
// Stencil programs: the user functions, as source text shared by the CPU and CUDA backends.
//
// A user function is `template <typename T, typename In> KTUNE_HD T <name>(const In& in)`,
// where in(dy, dx) is the staged cell dy rows south and dx columns east of the output cell
// (negative: north / west). It is straight-line code (no loops), so counting operations in
// its text counts what runs per output element.
//
// Real programs (kernels/stencil/cuda/stencil_<name>.cuh, also #included by the CPU backend):
//   1 gaussian  5x5 binomial blur, borders 2: sum of w[dy]*w[dx]*in(dy,dx), w = 1 4 6 4 1,
//               row-major order, divided by 256.        types int, float, double
//   2 life      Conway's Game of Life, borders 1: 8-neighbour count of non-zero cells; alive
//               next iff count == 3 or (alive and count == 2); output 1/0.   type int
//   3 heat      explicit heat step, borders 1: c + 0.25*(n + s + e + w - 4c).  float, double
//   4 sobel     gradient magnitude, borders 1: sqrt(gx^2 + gy^2).             float, double
//   5 nms       non-maximum suppression, borders 1: centre if no neighbour of the 3x3 window
//               is greater, else 0.                                 int, float, double
//   6 threshold borders 0 (pointwise): 1 if centre > 0 else 0.     int, float, double
// Synthetic (program 0): generated from a template by substitution of the border sizes (1..30
// each), the element type and the body: acc = in(0,0); then along the north arm i = 1..north
// acc = acc + T(k)*in(-i,0), then south (+i,0), east (0,+i), west (0,-i), with integer weights
// k = (i + arm) % 3 + 1 (arm 0..3). The heavy body adds 16 rounds of
// acc = acc*T(0.5) + sqrt(acc*acc + T(1)) (float/double) or acc = (acc*7 + 3) % 1009 - 504
// (int). The CPU backend runs the same sequence with loops (stencil_cpu_kernel.hpp).
//
// Instruction mix: counted in the generated user-function text (works without a GPU and for
// both backends): arithmetic (+ - * / % and compound assignments), comparisons and branches
// (< > <= >= == != && || ! ?), loads (in(...) calls), special functions (ktune_sqrt).
#include <string>
#include <vector>

#include "kernels/stencil/stencil_family.hpp"

namespace ktune::stencil {

struct ProgramInfo {
  Program id;
  std::string name;
  int north, south, east, west;  // fixed borders (synthetic: -1, chosen per problem)
  std::vector<ElemType> types;   // types the program accepts
};

const std::vector<ProgramInfo>& programs();  // indexed by program id
const ProgramInfo& program_info(Program p);

// The user function's name in the generated source ("ktune_gaussian", "ktune_synthetic").
std::string user_function_name(const Scenario& s);
// The user function's text (from the embedded .cuh for real programs, generated for synthetic).
std::string user_function_source(const Scenario& s);
// The text generated for a synthetic scenario.
std::string generate_synthetic(const Scenario& s);

// A self-contained C++ translation unit body: prelude (KTUNE_HD = inline, ktune_sqrt), the
// element typedef, the border constants and the user function.
std::string cpp_source(const Scenario& s);
// The NVRTC program: prelude, typedef, border constants, user function and the kernel frame
// (stencil_frame.cuh), whose entry point is kCudaEntry.
std::string cuda_source(const Scenario& s);
inline constexpr const char* kCudaEntry = "ktune_stencil";

struct InstructionMix {
  int arith = 0, compare = 0, load = 0, special = 0;
  int total() const { return arith + compare + load + special; }
  int ops() const { return arith + compare + special; }  // "work" per output element
};
// Counts by kind in the body of the first function in `source` (comments ignored).
InstructionMix count_instructions(const std::string& source);
InstructionMix instruction_mix(const Scenario& s);


}  // namespace ktune::stencil
