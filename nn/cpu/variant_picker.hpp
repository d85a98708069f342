#pragma once
// The rule by which `auto` (nn/cpu/auto_backend.cpp) picks the whole-network variant of each
// inference from the times of the inferences themselves, and, with one picker per layer over its
// candidate backends (a layer's times in the network as the "inferences"), each layer's candidate
// in the per-layer variant. The set-up rounds' choice alone was not
// enough on this project's 2-core KVM guest: a process could enter a state in which ktune's conv
// plans took ~1.4x their CPU time (docs/networks.md, "slow states") after set-up had timed them;
// and the whole machine ran ~10 % faster after set-up than during it (VGG16 b16 bf16: set-up
// 864 vs 882 ms for the per-layer variant against `ktune_bf16` alone, then 779 vs 755), so a
// rule that compared a contender's set-up times with the current variant's recent ones, re-timed
// it every 16th inference and switched on a 3 % lead kept the slower one (`auto_bf16` 1.031x).
//
// Here a variant is judged only against the variant running (the current) at the same moment: a
// variant's relative time at an inference is its time over the mean of the current's times at
// the nearest inferences before and after it (within kPairSpan; the set-up rounds interleave the
// variants, a re-timing sits between two inferences of the current), which cancels a drift of
// the machine that reaches both alike (a linear clock ramp exactly, when bracketed). Its estimate
// is the weighted median of its last kWindow relative times, the newest weighing 1 and each older
// kDecay times the next: with three or more, one new time alone never moves it past the others,
// and the two newest agreeing always decide, so no one-off measurement (set-up's included) holds
// a pick for long. The next inference runs the variant of smallest estimate once it has at least
// kMinEvidence relative times and both its estimate and its newest relative time are a lead
// below the current: kSwitch (1 %: measured against the current, not against stale times, so a
// small lead is real and worth taking), or the current's jitter between consecutive inferences
// where that is larger (under heavy load an equal variant would otherwise win by chance); the
// newest too, so that a time paired across a step of the machine, as the first inference after
// set-up is, cannot switch back by itself.
//
// Re-timings (never two in a row, so each is bracketed by the current): fresh evidence first —
// from the first pick, and again whenever the current's level (median of its last 3 times) moves
// by more than kShift (or twice its jitter, below), every variant whose estimate, rescaled by that
// move, is within kDoubt of the current is re-timed once, the most promising first; a newest time
// that lead below the current that does not decide yet is confirmed by the next re-timing, whenever
// it shows; then every kExploreEvery-th pick the contender (within kContender) timed longest ago,
// and every kRetimeEvery-th the variant timed longest ago whatever its estimate. Steady-state cost:
// one inference in kExploreEvery at <= kContender x the current's time, one in kRetimeEvery at any.
// Deterministic: the same recorded times give the same picks (ties to the lower index). Nothing
// is allocated after construction (the engine's forward allocates nothing).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace ktune::nn::cpu {

class VariantPicker {
 public:
  // Inferences remembered: the last 4 times of a variant re-timed only every kRetimeEvery-th.
  static constexpr int kHistory = 4 * 64;
  static constexpr int kWindow = 8;    // relative times per variant in its estimate
  static constexpr int kPairSpan = 3;  // how far a reference time of the current may lie
  static constexpr double kDecay = 0.7;
  static constexpr int kMinEvidence = 3;
  static constexpr double kSwitch = 0.01;
  // A re-timing costs what the variant is slower: in a benchmark of 20 inferences, one in 8 at up
  // to 1.25x (two or three of them) moved `auto`'s ResNet-50 b1 median by a few percent in a
  // steering run, so one in 16 at up to 1.15x.
  static constexpr int kExploreEvery = 16;
  static constexpr double kContender = 1.15;
  static constexpr double kDoubt = 1.3;
  static constexpr int kRetimeEvery = 64;
  static_assert(kHistory == 4 * kRetimeEvery);
  static constexpr double kShift = 0.2;

  explicit VariantPicker(int variants)
      : variants_(std::max(variants, 1)),
        needs_(size_t(variants_)),
        prior_(size_t(variants_)),
        memo_(size_t(variants_)) {}

  // A whole forward of `variant` took ms.
  void record(int variant, double ms) {
    if (variant < 0 || variant >= variants_) throw std::out_of_range("VariantPicker::record");
    const size_t at = size_t(stamp_ % kHistory);
    variant_[at] = variant;
    ms_[at] = ms;
    ++stamp_;
  }
  // The variant's estimate relative to the current (1 for the current; infinity while it has
  // no relative time).
  double relative(int variant, int fallback) const {
    const int c = current_ >= 0 ? current_ : fallback;
    return variant == c ? 1.0 : evidence(variant, c).estimate;
  }
  // The variant picked last, re-timings aside; `fallback` before the first pick.
  int current(int fallback) const { return current_ >= 0 ? current_ : fallback; }
  // The variant the rule runs now, re-timings aside; `fallback` while there is no current.
  int best(int fallback) const {
    const int c = current_ >= 0 ? current_ : fallback;
    int top = c;
    const double bar = 1 - lead(c);
    double top_estimate = bar;
    for (int v = 0; v < variants_; ++v) {
      if (v == c) continue;
      const auto e = evidence(v, c);
      if (e.count >= kMinEvidence && e.newest < bar && e.estimate < top_estimate)
        top = v, top_estimate = e.estimate;
    }
    return top;
  }
  // The variant the next inference runs.
  int next(int fallback) {
    const int top = best(fallback);
    if (first_pick_ < 0) start_epoch(top, 1.0);
    if (top != current_ && current_ >= 0) epoch_level_ = level(top);
    current_ = top;
    ++picks_;
    const double now = level(top), shift = 1 + std::max(kShift, 2 * lead(top));
    if (epoch_level_ > 0 && now > 0 && (now > shift * epoch_level_ || now * shift < epoch_level_))
      start_epoch(top, now / epoch_level_);
    else if (epoch_level_ <= 0)
      epoch_level_ = now;
    if (stamp_ > 0 && variant_[size_t((stamp_ - 1) % kHistory)] != top) return top;
    const int retime = retiming(top);
    return retime >= 0 ? retime : top;
  }

 private:
  struct Evidence {
    double estimate = std::numeric_limits<double>::infinity();
    double newest = std::numeric_limits<double>::infinity();
    int count = 0, fresh = 0;  // relative times; of them taken since the epoch began
  };

  bool remembered(int64_t s) const { return s >= 0 && s < stamp_ && s >= stamp_ - kHistory; }
  int variant_at(int64_t s) const { return variant_[size_t(s % kHistory)]; }
  double ms_at(int64_t s) const { return ms_[size_t(s % kHistory)]; }

  // v's last kWindow relative times against c and their weighted median.
  // Memoised until the next record or epoch: next() asks the same twice (best, then retiming),
  // and `auto` runs one picker per layer every inference, so the scans add up.
  Evidence evidence(int v, int c) const {
    if (memo_stamp_ != stamp_ || memo_epoch_ != epoch_stamp_ || memo_c_ != c) {
      for (auto& m : memo_) m.valid = false;
      memo_stamp_ = stamp_, memo_epoch_ = epoch_stamp_, memo_c_ = c;
    }
    Memo& m = memo_[size_t(v)];
    if (!m.valid) m = {scan(v, c), true};
    return m.evidence;
  }
  Evidence scan(int v, int c) const {
    Evidence e;
    std::array<double, kWindow> ratio{}, weight{};
    double w = 1, total = 0;
    for (int64_t s = stamp_ - 1; remembered(s) && e.count < kWindow; --s) {
      if (variant_at(s) != v) continue;
      double sum = 0;
      int n = 0;
      for (int64_t d = 1; d <= kPairSpan; ++d)
        if (remembered(s - d) && variant_at(s - d) == c) {
          sum += ms_at(s - d), ++n;
          break;
        }
      for (int64_t d = 1; d <= kPairSpan; ++d)
        if (remembered(s + d) && variant_at(s + d) == c) {
          sum += ms_at(s + d), ++n;
          break;
        }
      if (n == 0) continue;
      ratio[size_t(e.count)] = ms_at(s) / (sum / n);
      weight[size_t(e.count)] = w;
      if (e.count == 0) e.newest = ratio[0];
      if (s >= epoch_stamp_) ++e.fresh;
      total += w;
      w *= kDecay;
      ++e.count;
    }
    for (int i = 1; i < e.count; ++i)  // sort by ratio, weights alongside (at most kWindow)
      for (int j = i; j > 0 && ratio[size_t(j)] < ratio[size_t(j - 1)]; --j) {
        std::swap(ratio[size_t(j)], ratio[size_t(j - 1)]);
        std::swap(weight[size_t(j)], weight[size_t(j - 1)]);
      }
    double below = 0;
    for (int i = 0; i < e.count; ++i)
      if ((below += weight[size_t(i)]) >= total / 2) {
        e.estimate = ratio[size_t(i)];
        break;
      }
    return e;
  }

  // The median of c's last 3 times (0 while it has none).
  double level(int c) const {
    std::array<double, 3> t{};
    int n = 0;
    for (int64_t s = stamp_ - 1; remembered(s) && n < 3; --s)
      if (variant_at(s) == c) t[size_t(n++)] = ms_at(s);
    if (n == 0) return 0;
    std::sort(t.begin(), t.begin() + n);
    return n == 2 ? (t[0] + t[1]) / 2 : t[size_t(n / 2)];
  }

  // The lead a variant needs over c: kSwitch, or c's jitter where that is larger — the median
  // of |t / t' - 1| over c's last kWindow pairs of consecutive times. Noise that large makes
  // two agreeing relative times below 1 - kSwitch common for an equal variant; a step of the
  // machine is one pair and moves no median.
  double lead(int c) const {
    std::array<double, kWindow> jumps{};
    int n = 0;
    double later = -1;
    for (int64_t s = stamp_ - 1; remembered(s) && n < kWindow; --s) {
      if (variant_at(s) != c) continue;
      if (later > 0) jumps[size_t(n++)] = std::abs(later / ms_at(s) - 1);
      later = ms_at(s);
    }
    if (n == 0) return kSwitch;
    std::sort(jumps.begin(), jumps.begin() + n);
    const double jitter =
        n % 2 ? jumps[size_t(n / 2)] : (jumps[size_t(n / 2 - 1)] + jumps[size_t(n / 2)]) / 2;
    return std::max(kSwitch, jitter);
  }

  // From now, each variant needs fresh relative times by how promising it is, its estimate
  // divided by how much the current's level moved (a current that became slow makes the
  // others relatively faster).
  void start_epoch(int c, double shift) {
    if (first_pick_ < 0) first_pick_ = picks_;
    epoch_stamp_ = stamp_;
    epoch_level_ = level(c);
    for (int v = 0; v < variants_; ++v) {
      prior_[size_t(v)] = v == c ? 1.0 : evidence(v, c).estimate / shift;
      needs_[size_t(v)] = v != c && prior_[size_t(v)] <= kDoubt ? 1 : 0;
    }
  }

  // The variant to re-time instead of the current c, or -1.
  int retiming(int c) {
    const double bar = 1 - lead(c);
    int pick = -1;
    double pick_key = 0;
    // Fresh evidence: a promising first time confirmed first, then the most promising.
    for (int v = 0; v < variants_; ++v) {
      if (v == c) continue;
      const auto e = evidence(v, c);
      // A newest time that would win but does not decide yet (one alone never does): confirmed
      // by the next re-timing, so a real lead is taken two re-timings after it shows.
      const bool confirm = e.newest < bar && (e.estimate >= bar || e.count < kMinEvidence);
      if (!confirm && e.fresh >= needs_[size_t(v)]) continue;
      const double key = (confirm ? -1e9 : 0) + (e.fresh >= 1 ? e.newest : prior_[size_t(v)]);
      if (pick < 0 || key < pick_key) pick = v, pick_key = key;
    }
    if (pick >= 0) return pick;
    const bool any = picks_ % kRetimeEvery == 0;
    if (!any && picks_ % kExploreEvery != 0) return -1;
    int64_t oldest_stamp = 0;
    for (int v = 0; v < variants_; ++v) {
      if (v == c || (!any && evidence(v, c).estimate > kContender)) continue;
      const int64_t last = last_stamp(v);
      if (pick < 0 || last < oldest_stamp) pick = v, oldest_stamp = last;
    }
    return pick;
  }
  // The inference v last ran (-1: not within the history).
  int64_t last_stamp(int v) const {
    for (int64_t s = stamp_ - 1; remembered(s); --s)
      if (variant_at(s) == v) return s;
    return -1;
  }

  int variants_;
  std::array<int, kHistory> variant_{};
  std::array<double, kHistory> ms_{};
  int64_t stamp_ = 0, picks_ = 0, first_pick_ = -1, epoch_stamp_ = 0;
  double epoch_level_ = 0;
  std::vector<int> needs_;     // by variant: fresh relative times wanted this epoch
  std::vector<double> prior_;  // by variant: its estimate when the epoch began, rescaled
  int current_ = -1;           // the last pick that was not a re-timing
  struct Memo {
    Evidence evidence;
    bool valid = false;
  };
  mutable std::vector<Memo> memo_;  // by variant: evidence(v, memo_c_) at memo_stamp_
  mutable int64_t memo_stamp_ = -1, memo_epoch_ = -1;
  mutable int memo_c_ = -1;
};

}  // namespace ktune::nn::cpu
