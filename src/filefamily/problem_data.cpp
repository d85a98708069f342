// The host side of one problem of a file family (problem_data.hpp).
#include "src/filefamily/problem_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "ktune/error.hpp"
#include "src/filefamily/expression.hpp"
#include "src/filefamily/file_family.hpp"

namespace ktune::filefamily {
namespace {

namespace fs = std::filesystem;

// Calls f(T{}) with the C++ type of an element type.
template <typename F>
decltype(auto) with_type(ElementType t, F&& f) {
  switch (t) {
    case ElementType::int8:
      return f(int8_t{});
    case ElementType::uint8:
      return f(uint8_t{});
    case ElementType::int16:
      return f(int16_t{});
    case ElementType::uint16:
      return f(uint16_t{});
    case ElementType::int32:
      return f(int32_t{});
    case ElementType::uint32:
      return f(uint32_t{});
    case ElementType::int64:
      return f(int64_t{});
    case ElementType::uint64:
      return f(uint64_t{});
    case ElementType::f32:
      return f(float{});
    default:
      return f(double{});
  }
}

std::vector<double> to_doubles(ElementType t, const std::byte* p, size_t count) {
  return with_type(t, [&](auto zero) {
    using T = decltype(zero);
    std::vector<double> out(count);
    for (size_t i = 0; i < count; ++i) {
      T v;
      std::memcpy(&v, p + i * sizeof(T), sizeof(T));
      out[i] = double(v);
    }
    return out;
  });
}

std::string read_raw(const FileSpec& s, const std::string& file, const std::string& field,
                     size_t bytes) {
  const fs::path path = fs::path(s.dir) / file;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: {}: cannot read '{}'", s.path, field, file));
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() != bytes)
    throw Error(fmt::format("{}: {}: '{}' holds {} bytes, the argument {}", s.path, field, file,
                            data.size(), bytes));
  return data;
}

// Element i of a Generator fill: its DataSource expression at i.
std::vector<double> generated(const std::string& expression, size_t count) {
  const Expression e(expression, {"i"});
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = e.eval({double(i)});
  return out;
}

// Constant, seeded random (floats in [-1, 1) without 0, integers in [0, 100)), generated from
// the element index, or file contents.
void fill(const FileSpec& s, const Argument& a, size_t index, size_t count, std::byte* out) {
  if (a.fill == Fill::binary_raw) {
    const std::string field = fmt::format("KernelSpecification.Arguments[{}].DataSource", index);
    const std::string data = read_raw(s, a.data_source, field, count * element_bytes(a.type));
    std::memcpy(out, data.data(), data.size());
    return;
  }
  const std::vector<double> values =
      a.fill == Fill::generator ? generated(a.data_source, count) : std::vector<double>{};
  with_type(a.type, [&](auto zero) {
    using T = decltype(zero);
    std::mt19937_64 rng(a.seed);
    for (size_t i = 0; i < count; ++i) {
      T v = static_cast<T>(values.empty() ? a.fill_value : values[i]);
      if (a.fill == Fill::random) {
        if constexpr (std::is_floating_point_v<T>) {
          std::uniform_real_distribution<T> u(T(-1), T(1));
          do v = u(rng);
          while (v == T(0));
        } else {
          v = static_cast<T>(std::uniform_int_distribution<int>(0, 99)(rng));
        }
      }
      std::memcpy(out + i * sizeof(T), &v, sizeof(T));
    }
  });
}

// Sum of absolute differences, or the largest (relative) one; NaN counts as infinite.
double deviation(const std::vector<double>& got, const std::vector<double>& want,
                 Validation validation) {
  double sum = 0, worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::abs(got[i] - want[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    sum += d;
    const double r = validation == Validation::side_by_side_relative
                         ? d / std::max(std::abs(want[i]), 1e-300)
                         : d;
    worst = std::max(worst, r);
  }
  return validation == Validation::absolute_difference ? sum : worst;
}

}  // namespace

void Buffer::Free::operator()(std::byte* p) const { std::free(p); }

Buffer::Buffer(size_t n) : bytes(n) {
  const size_t rounded = std::max<size_t>(64, (n + 63) / 64 * 64);
  data.reset(static_cast<std::byte*>(std::aligned_alloc(64, rounded)));
  if (!data) throw Error(fmt::format("cannot allocate {} bytes", n));
  std::memset(data.get(), 0, rounded);
}

void poison(ElementType t, std::byte* p, size_t count) {
  if (t == ElementType::f32 || t == ElementType::f64) {
    with_type(t, [&](auto zero) {
      using T = decltype(zero);
      const T nan = std::numeric_limits<T>::quiet_NaN();
      for (size_t i = 0; i < count; ++i) std::memcpy(p + i * sizeof(T), &nan, sizeof(T));
    });
  } else {
    std::memset(p, 0xA5, count * element_bytes(t));
  }
}

ProblemData::ProblemData(const FileFamily& family, const Problem& problem) : spec_(family.spec()) {
  const std::vector<double> extents = family.argument_extents(problem);
  for (size_t i = 0; i < spec_.arguments.size(); ++i) {
    const Argument& a = spec_.arguments[i];
    const size_t count = a.scalar ? 1 : size_t(extents[i]);
    counts_.push_back(count);
    initial_.emplace_back(count * element_bytes(a.type));
    if (a.scalar) {
      with_type(a.type, [&](auto zero) {
        const auto v = static_cast<decltype(zero)>(extents[i]);
        std::memcpy(initial_.back().data.get(), &v, sizeof(v));
      });
    } else {
      fill(spec_, a, i, count, initial_.back().data.get());
      vector_bytes_ += double(initial_.back().bytes);
    }
  }
  if (spec_.reference) run_reference(family);
  read_expected();
}

bool ProblemData::output(size_t i) const {
  return !spec_.arguments[i].scalar && spec_.arguments[i].access != Access::read_only;
}

// The reference function writes its outputs in double; it reads the initial inputs.
void ProblemData::run_reference(const FileFamily& family) {
  std::vector<std::vector<double>> outputs(spec_.arguments.size());
  std::vector<void*> ptrs;
  for (size_t i = 0; i < spec_.arguments.size(); ++i) {
    if (output(i)) {
      outputs[i] = spec_.arguments[i].access == Access::read_write
                       ? to_doubles(spec_.arguments[i].type, initial_[i].data.get(), counts_[i])
                       : std::vector<double>(counts_[i], 0.0);
      ptrs.push_back(outputs[i].data());
    } else {
      ptrs.push_back(initial_[i].data.get());
    }
  }
  family.reference().entry(ptrs.data());
  reference_ = std::move(outputs);
}

void ProblemData::read_expected() {
  for (size_t r = 0; r < spec_.reference_arguments.size(); ++r) {
    const ReferenceArgument& ref = spec_.reference_arguments[r];
    Expected e;
    for (size_t i = 0; i < spec_.arguments.size(); ++i)
      if (spec_.arguments[i].name == ref.target) e.arg = i;
    const ElementType type = spec_.arguments[e.arg].type;
    if (ref.fill == Fill::binary_raw) {
      const std::string field =
          fmt::format("KernelSpecification.ReferenceArguments[{}].DataSource", r);
      const std::string data =
          read_raw(spec_, ref.data_source, field, counts_[e.arg] * element_bytes(type));
      e.values = to_doubles(type, reinterpret_cast<const std::byte*>(data.data()), counts_[e.arg]);
    } else if (ref.fill == Fill::generator) {
      e.values = generated(ref.data_source, counts_[e.arg]);
    } else {
      e.values.assign(counts_[e.arg], ref.fill_value);
    }
    e.validation = ref.validation;
    e.threshold = ref.threshold;
    expected_.push_back(std::move(e));
  }
}

RunVerdict ProblemData::judge(const std::function<const std::byte*(size_t arg)>& output_of) const {
  RunVerdict verdict;
  verdict.ok = true;
  if (!reference_.empty()) {
    double diff = 0, norm = 0;
    for (size_t i = 0; i < spec_.arguments.size(); ++i) {
      if (!output(i)) continue;
      const auto got = to_doubles(spec_.arguments[i].type, output_of(i), counts_[i]);
      for (size_t k = 0; k < got.size(); ++k) {
        diff += (got[k] - reference_[i][k]) * (got[k] - reference_[i][k]);
        norm += reference_[i][k] * reference_[i][k];
      }
    }
    verdict = judge_error(std::sqrt(diff / std::max(norm, 1e-300)), spec_.tolerance);
  }
  for (const Expected& e : expected_) {
    if (!verdict.ok) break;
    const auto got = to_doubles(spec_.arguments[e.arg].type, output_of(e.arg), counts_[e.arg]);
    RunVerdict v = judge_error(deviation(got, e.values, e.validation), e.threshold);
    if (!v.ok) v.message = fmt::format("{}: {}", spec_.arguments[e.arg].name, v.message);
    v.rel_error = std::max(v.rel_error, verdict.rel_error);
    verdict = v;
  }
  return verdict;
}

}  // namespace ktune::filefamily
