#pragma once
// The rule by which `auto` (nn/cpu/auto_backend.cpp) picks the whole-network variant of each
// inference from the times of the inferences themselves. The set-up rounds' choice alone was not
// enough on this project's 2-core KVM guest: a process could enter a state in which ktune's conv
// plans took ~1.4× their CPU time and oneDNN's Winograd less (docs/networks.md, "slow states"),
// after set-up had timed them, so the variant kept there lost to a single backend for the rest of
// the run (VGG16 batch 16: `auto` 1.11× its best single backend). Here every inference is also a
// measurement: each variant's score is the median of its last kWindow whole-forward times (set-up
// rounds included), the next inference runs the variant of smallest score (staying on the one it
// ran unless another scores kSwitch lower: near-equal variants under noise would otherwise take
// turns at random, and a switch costs warm caches), and every
// kExploreEvery-th one re-times the contender (a variant within kContender of that score) timed
// longest ago, so a variant that became faster is seen again; every kRetimeEvery-th re-times the
// variant timed longest ago whatever its score, so no variant's score is older than that. Exploring
// costs at most one inference in kExploreEvery at most kContender× the best's time, and one in
// kRetimeEvery at any variant's time. Deterministic: the same recorded times give the same picks
// (ties to the lower index). Nothing is allocated after construction (the engine's forward
// allocates nothing).
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace ktune::nn::cpu {

// The last kWindow times of one thing, their median its score.
class RecentTimes {
 public:
  // Two odd times move no median of five. Three made `auto` take turns between variants on
  // VGG16 b16, whose inferences spread 1.4-1.7x within one process on the 2-core KVM guest
  // (5 / 3 / 6 inferences on three variants in a steering run); five still leaves a variant
  // that slowed for good after three of its inferences.
  static constexpr int kWindow = 5;

  void record(double ms, int64_t stamp) {
    ms_[size_t(count_ % kWindow)] = ms;
    ++count_;
    last_ = stamp;
  }
  bool empty() const { return count_ == 0; }
  int64_t last_stamp() const { return last_; }
  double median() const {
    if (count_ == 0) return std::numeric_limits<double>::infinity();
    const int n = int(std::min<int64_t>(count_, kWindow));
    std::array<double, kWindow> v = ms_;
    for (int i = 1; i < n; ++i)  // insertion sort of at most kWindow values
      for (int j = i; j > 0 && v[size_t(j)] < v[size_t(j - 1)]; --j)
        std::swap(v[size_t(j)], v[size_t(j - 1)]);
    return n % 2 ? v[size_t(n / 2)] : (v[size_t(n / 2 - 1)] + v[size_t(n / 2)]) / 2;
  }

 private:
  std::array<double, kWindow> ms_{};
  int64_t count_ = 0, last_ = -1;
};

class VariantPicker {
 public:
  // A re-timing costs what the variant is slower: in a benchmark of 20 inferences, one in 8 at up
  // to 1.25x (two or three of them) moved `auto`'s ResNet-50 b1 median by a few percent in a
  // steering run, so one in 16 at up to 1.15x.
  static constexpr int kExploreEvery = 16;
  static constexpr double kContender = 1.15;
  static constexpr int kRetimeEvery = 64;
  static constexpr double kSwitch = 0.03;

  explicit VariantPicker(int variants) : recent_(size_t(std::max(variants, 1))) {}

  // A whole forward of `variant` took ms.
  void record(int variant, double ms) { recent_.at(size_t(variant)).record(ms, stamp_++); }
  double score(int variant) const { return recent_.at(size_t(variant)).median(); }
  // The variant of smallest score (ties to the lower index); `fallback` while none was timed.
  int best(int fallback) const {
    int best = -1;
    for (int v = 0; v < int(recent_.size()); ++v)
      if (!recent_[size_t(v)].empty() && (best < 0 || score(v) < score(best))) best = v;
    return best < 0 ? fallback : best;
  }
  // The variant the next inference runs.
  int next(int fallback) {
    int top = best(fallback);
    if (current_ >= 0 && top != current_ && score(top) > (1 - kSwitch) * score(current_))
      top = current_;
    current_ = top;
    ++picks_;
    if (recent_[size_t(top)].empty()) return top;
    const bool retime = picks_ % kRetimeEvery == 0;
    if (++since_explore_ < kExploreEvery && !retime) return top;
    int oldest = -1;  // timed longest ago (never timed: first) among those eligible
    for (int v = 0; v < int(recent_.size()); ++v) {
      const auto& r = recent_[size_t(v)];
      if (v == top || (!retime && (r.empty() || score(v) > kContender * score(top)))) continue;
      if (oldest < 0 || r.last_stamp() < recent_[size_t(oldest)].last_stamp()) oldest = v;
    }
    if (oldest < 0) return top;
    since_explore_ = 0;
    return oldest;
  }

 private:
  std::vector<RecentTimes> recent_;
  int64_t stamp_ = 0, picks_ = 0;
  int since_explore_ = 0;
  int current_ = -1;  // the last pick that was not a re-timing
};

}  // namespace ktune::nn::cpu
