#pragma once
// The judgements `ktune demo` prints about its own measurements, as pure functions: which kind
// to sweep on this CPU, what a ktune-vs-vendor ratio's spread allows it to claim, and whether
// committed datasets were measured on this CPU model.
#include <cstddef>
#include <string>
#include <vector>

namespace ktune::cli::demo {

// The kind `--kind auto` sweeps: packedz where this build's kernels and the CPU running them
// both have AVX-512 (as the deployed CPU library defaults to packedz on AVX-512 targets), else
// packed. Any other request is returned unchanged.
std::string choose_kind(const std::string& requested, bool build_has_avx512, bool cpu_has_avx512);

// Paired rounds: each times ktune's config and the vendors back to back, so a load that comes
// and goes moves both sides of that round's ratio (vendor time / ktune time; > 1: ktune faster).
struct RatioSpread {
  double median = 0, lo = 0, hi = 0;  // lo, hi: the smallest and largest round's ratio
  size_t rounds = 0;
};

// The median of n independent rounds lies between their smallest and largest ratio with
// probability 1 - 2^(1-n): 94 % for 5 rounds, 75 % for 3. Fewer than this claim nothing.
inline constexpr size_t kMinRoundsForClaim = 5;

// Median, smallest and largest of the rounds' ratios (all zero for none).
RatioSpread spread_of(std::vector<double> ratios);

// Whether the rounds cannot tell ktune from the vendor: their range holds 1, or there are too
// few of them for the range to mean anything.
bool within_noise(const RatioSpread& s);

// "1.52× (1.41–1.6 over 5 rounds)", "within noise (0.93–1.08 over 5 rounds)" (three significant
// digits), or for fewer
// than kMinRoundsForClaim rounds "no claim (2 rounds)".
std::string describe(const RatioSpread& s);

// The rounds time each shape's best config again with the sweep's own TimingPolicy, so on a
// quiet machine their median GFLOP/s matches the sweep's measurement of that config. Further
// apart than this factor (either way), the machine was not in the state `ktune bench` measures
// in, and the demo says so: run-to-run medians on the quiet 2-core EPYC stayed within 10 %, and
// the sweep's figure, the best of many configs, errs high.
inline constexpr double kSweepAgreement = 1.25;

// "" when the rounds' median (GFLOP/s) agrees with the sweep's figure for the same config
// within kSweepAgreement, else a sentence saying how far apart they are and what it means
// (also "" when either figure is missing: <= 0).
std::string sweep_disagreement(double rounds_gflops, double sweep_gflops);

// How this CPU relates to the devices committed datasets were measured on, by device slug
// ("amd-epyc-2c": the model string slugified, then the thread count).
enum class CommittedCpu { same_cpu, same_model, none };
CommittedCpu match_committed(const std::string& slug, const std::vector<std::string>& committed);

// The model part of a CPU slug: "amd-epyc-2c" -> "amd-epyc" (a slug without a "-<N>c" tail is
// returned whole).
std::string model_of_slug(const std::string& slug);

// What the committed data says about this CPU (its model name and slug), in a sentence.
std::string committed_cpu_note(const std::string& cpu_name, const std::string& slug,
                               const std::vector<std::string>& committed);

}  // namespace ktune::cli::demo
