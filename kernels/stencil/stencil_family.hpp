#pragma once
// The 2D stencil family: out(r, c) = f(window of in around (r, c)) over a rows x cols row-major
// matrix, where the window reaches `north` rows up, `south` rows down, `west` columns left and
// `east` columns right. Cells outside the matrix take the padding value 0 (boundary 0) or the
// nearest in-range cell (boundary 1, clamp). Each work-group computes a tile of R x C outputs
// and first stages the tile plus its border in local memory (CUDA shared memory; a
// thread-local buffer on the CPU).
//
// Problem features, in order: program, north, south, east, west, type, heavy, boundary, rows,
// cols. program: 0 synthetic, 1 gaussian, 2 life, 3 heat, 4 sobel, 5 nms, 6 threshold (see
// stencil_programs.hpp). type: 0 int32, 1 float, 2 double.
//
// Space: one param `wg` = "RxC" (work-group rows x cols), R and C powers of two in 1..1024 with
// 2 <= R*C <= 1024: 65 configs, the same on every backend. A backend whose (kernel's) maximum
// work-group size or local memory is smaller refuses the configs beyond it at run time (status
// refused, the message says which limit), so the valid space differs per device.
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/family.hpp"

namespace ktune::stencil {

enum class Program { synthetic = 0, gaussian, life, heat, sobel, nms, threshold };
enum class ElemType { i32 = 0, f32 = 1, f64 = 2 };
enum class Boundary { pad = 0, clamp = 1 };

constexpr int kProgramCount = 7;
constexpr int kMaxSyntheticBorder = 30;

struct Scenario {
  Program program = Program::synthetic;
  int north = 1, south = 1, east = 1, west = 1;
  ElemType type = ElemType::f32;
  bool heavy = false;
  Boundary boundary = Boundary::pad;
  int64_t rows = 0, cols = 0;

  int64_t elements() const { return rows * cols; }
  int window_rows() const { return north + south + 1; }
  int window_cols() const { return west + east + 1; }
};

struct WorkGroup {
  int rows = 1, cols = 1;
  int size() const { return rows * cols; }
};

// Validates every feature; throws Error naming the problem and what is wrong.
Scenario scenario_of(const Problem& p);
Problem problem_of(const Scenario& s, std::vector<std::string> tags = {});
WorkGroup work_group_of(const Space& space, const Config& c);

std::string program_name(Program p);  // "synthetic", "gaussian", ...
std::string type_name(ElemType t);    // "int", "float", "double"
size_t elem_bytes(ElemType t);

class StencilFamily final : public Family {
 public:
  StencilFamily();
  std::string name() const override { return "stencil"; }
  const Space& space() const override { return space_; }
  std::vector<std::string> feature_names() const override;
  // elements, elem_bytes, window_cells (whole staged border rectangle per output), halo_cells,
  // and the instruction mix of the program's generated user function (see
  // stencil_programs.hpp): op counts and densities by kind.
  std::vector<std::string> derived_feature_names() const override;
  std::vector<double> derived_features(const Problem& p) const override;
  // Operations per run: elements x (arithmetic + comparison + special ops of the user
  // function, counted in its generated source). The bench's "GFLOP/s" is then G ops/s.
  double flops(const Problem& p) const override;
  void validate(const Problem& p) const override { scenario_of(p); }
  // Embedded as workloads/stencil/stencil-<name>.csv.
  std::vector<std::string> builtin_workloads() const override {
    return {"synthetic", "real", "stencil-small", "tiny"};
  }
  Workload builtin_workload(const std::string& name) const override;

 private:
  Space space_;
};

}  // namespace ktune::stencil
