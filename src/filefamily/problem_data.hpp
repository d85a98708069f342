#pragma once
// The host side of one problem of a file family, shared by the CPU and CUDA backends: each
// argument's initial contents (filled as the file says), the expected outputs (the reference
// function's, or the file's ReferenceArguments), and the verdict on a run's outputs.
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "ktune/host_measure.hpp"
#include "ktune/problem.hpp"
#include "src/filefamily/spec.hpp"

namespace ktune::filefamily {

class FileFamily;

// 64-byte aligned bytes (vector loads of any width), zeroed.
struct Buffer {
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte[], Free> data;
  size_t bytes = 0;
  explicit Buffer(size_t n = 0);
};

// Unwritten float outputs stay NaN and fail the check; integers get a byte pattern.
void poison(ElementType t, std::byte* p, size_t count);

class ProblemData {
 public:
  ProblemData(const FileFamily& family, const Problem& problem);

  const FileSpec& spec() const { return spec_; }
  size_t count(size_t arg) const { return counts_[arg]; }  // elements (1 for scalars)
  const Buffer& initial(size_t arg) const { return initial_[arg]; }
  double vector_bytes() const { return vector_bytes_; }  // all vectors of one copy
  bool output(size_t arg) const;                         // a WriteOnly or ReadWrite vector

  // The worst verdict on a run whose output bytes (of each output argument) `output` gives:
  // the reference function's relative Frobenius error over all outputs, then each of the
  // file's ReferenceArguments with its own method and threshold.
  RunVerdict judge(const std::function<const std::byte*(size_t arg)>& output) const;

 private:
  struct Expected {
    size_t arg = 0;
    std::vector<double> values;
    Validation validation = Validation::side_by_side;
    double threshold = 0;
  };
  void run_reference(const FileFamily& family);
  void read_expected();

  const FileSpec& spec_;
  std::vector<size_t> counts_;
  std::vector<Buffer> initial_;
  double vector_bytes_ = 0;
  std::vector<std::vector<double>> reference_;  // per argument; empty for inputs
  std::vector<Expected> expected_;
};

}  // namespace ktune::filefamily
