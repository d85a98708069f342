#pragma once
// A CPU convolution plan (the steady state of an inference engine): the convolution as the
// implicit GEMM
//   out (k × n·p·q, column-major, ldc = k: the NHWC output) = filter (k × c·r·s) · patches
// with everything that does not depend on the input done once, at construction:
//   - the KRSC filter packed into panels of kMR output channels, K-major (zero rows past k), so
//     that a call never re-packs it (ktune::conv2d's im2col and 1×1 kinds pack it on every call,
//     once per thread task: at batch 1 that packing cost as much as the arithmetic);
//   - the split of C into tasks (channel panels × pixel columns) for the shared helper-thread pool
//     of the packed GEMM or the caller's OpenMP team (cpu_task_workers.hpp);
//   - one B workspace per thread (kc × the widest task's columns), claimed by a task while it runs;
//   - for a padded layer, a zero-bordered copy of the input (only its interior is written per
//     call), so that no window leaves the image.
// A call runs a 32 × 12 AVX-512 register tile (24 accumulators) over the prepacked filter and
// patches read in place (implicit im2col: no patch matrix): a 1×1 stride-1 layer's input is the
// patch matrix (pixel rows c floats apart); otherwise pieces of at most 12 pixels within one
// output row are read one filter row per segment (filter row r of pixel j starts stride·c
// floats after pixel j − 1's), the filter rows of a K block in one tile call. Panels whose windows
// leave the image (PlanBlocking::pad_input off) are packed into the workspace instead. The epilogue
// (bias, residual add, ReLU) runs on each tile as it leaves the registers after the last K block.
// 3×3 stride-1 layers over >= 16 channels run Winograd F(4×4, 3×3) instead (a quarter of the
// multiplies; conv_cpu_winograd.hpp, PlanBlocking::winograd_m). The register tile and what the
// paths share are in conv_cpu_tile.hpp.
// No allocation after construction. Without AVX-512 the same loop nest runs a plain C++ tile
// (correct, slower).
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "kernels/common/cpu/conv_cpu_tile.hpp"
#include "kernels/common/cpu/conv_cpu_winograd.hpp"
#include "kernels/common/cpu/cpu_task_workers.hpp"

namespace ktune::kernels::cpu_conv {

// Cache blocks of the plan: kc of the K dimension per B panel (kc × kNR floats stay in L1),
// at most max_cols pixels and max_rows channels per task (the task's B block and filter block
// stay in L2).
// pad_input: a padded layer copies its input into a zero-bordered buffer of the plan first, so
// that every panel reads its patches in place (off: border panels are packed).
// join_rows: a tile reading its patches in place runs the filter rows of a K block in one call,
// accumulators in registers (off: a call per filter row, which loads and stores them each time:
// per 9 K steps on the 3×3 layers over 3 channels).
// whole_k_floats: a layer whose widest task's patch matrix (pixels × K) has at most this many
// floats runs K in one block, else blocks of kc (fc at batch 1: 1.5x -> 1.0x oneDNN's time on
// one Zen 5 core). Default: every layer (the patches are read in place, so a task's B is the
// input, not a packed copy that must fit a cache): on the quiet 2-core EPYC all of K in one block
// took 0.93-0.97x the time of the former 256K-float threshold, medians summed over ResNet-50 and
// VGG16 at batch 1 and 16 (results/amd-epyc-2c/networks-cpuconv, variant kcall), and more than
// 3 % longer (median and minimum) only on ResNet-50's layer4 3×3 stride-2 at batch 1 (1.06-1.08x)
// and VGG16's 4096 -> 4096 fc at batch 16 (1.04x).
struct PlanBlocking {
  int kc = 256, max_cols = 384, max_rows = 256;
  bool pad_input = true;
  bool join_rows = true;
  int64_t whole_k_floats = INT64_MAX;
  // winograd_m: 3×3 stride-1 layers over at least kWinogradMinChannels input channels run
  // Winograd F(m×m, 3×3) (conv_cpu_winograd.hpp), m = 2 or 4; 0: never. winograd_floats: its
  // V and M buffers per block of T tiles (α²·T·(c + k) floats) at most this many, but
  // T >= winograd_min_tiles (the transformed filter, α²·c·k floats, is streamed once per block).
  int winograd_m = 4;
  int64_t winograd_floats = 1 << 20;
  int64_t winograd_min_tiles = 48;
  // Fewer Winograd tiles per call than one register tile's 12 columns (ResNet-50's 7×7 maps at
  // batch 1: 4 tiles) read the transformed filter, 4× the filter's size for F(4×4), for too
  // little arithmetic: the direct path (7×7 × 512 at batch 1, 2 threads, minima on the loaded
  // EPYC: 1.22 ms Winograd, 0.65 direct; 14×14 × 256, 16 tiles: 0.66 Winograd, 1.18 direct).
  // With winograd_m = 4, a layer with too few F(4×4) tiles but enough F(2×2) ones (those 7×7
  // maps: 16) runs F(2×2): 0.64 ms median against 0.74 direct on the quiet EPYC
  // (results/amd-epyc-2c/networks-cpuconv, variants wino2 and plan, layer4.1.conv2 at batch 1).
  // winograd4_min_call_tiles: F(4×4) on fewer tiles per call runs F(2×2) (the cpu_plan kind keeps
  // this step while it forces the rest, winograd_min_call_tiles 0: on those 7×7 maps F(4×4)'s
  // 37.7 MB transformed filter comes from memory in every call, and tuned_conv_bench, one call
  // per round taking turns with oneDNN, put it at 0.76× oneDNN against 0.92-0.98× for F(2×2), two
  // runs each on the loaded 2-core EPYC; the sweep's back-to-back calls had timed it the faster).
  int64_t winograd_min_call_tiles = 12;
  int64_t winograd4_min_call_tiles = 12;
  // winograd_fused_tiles > 0: Winograd runs fused blocks of this many tiles (rounded up to the
  // register tile's 12), each block's three phases on one thread in its own V and M
  // (WinogradPlan's fused); 0: blocks of winograd_floats, each phase shared by the threads.
  int64_t winograd_fused_tiles = 0;
  // With winograd_fused_tiles > 0: fused only where a call has at least this many F(m×m) tiles
  // and at most this many output channels, the phases-shared blocks elsewhere (defaults: fused
  // wherever winograd_fused_tiles asks).
  int64_t winograd_fused_min_call_tiles = 0;
  int64_t winograd_fused_max_k = INT64_MAX;
  // rows_outer: a task with more output channels than pixels runs its channel panels outermost
  // on every path (1×1 stride 1 always did; off, there too pixels outermost: the cpu_plan_1x1
  // kind's outer=0, where ResNet-50's 1×1 layers at batch 1 with a task's filter block in L2
  // ran faster that way, 28×28 × 64 -> 256 0.151 against 0.163 ms, 14×14 × 1024 -> 256 0.60 against
  // 0.67, medians of 30 cold calls, 2 threads, loaded EPYC; 14×14 × 512 -> 1024 and 7×7 × 1024
  // -> 2048 slower, 1.11 against 1.03, 1.12 against 1.07), so that a panel's filter K block is read
  // from memory once and from L2 for the task's further pieces (pixels outermost, ResNet-50's
  // layer4 3×3 stride 2 at batch 1, 49 pixels × K = 4608, streamed a task's 2.4 MB filter block
  // once per piece). prefetch_panels: in that order, the next panel's filter K block is asked for
  // into L2 while the current one computes, a share per piece (at batch 1 the filter, read once per
  // call, comes from memory and is the larger operand).
  bool rows_outer = true;
  bool prefetch_panels = true;
  // pack_aliased: a 1×1 stride-1 layer whose pixel rows (c floats) are a multiple of 4 KB apart
  // (kAliasFloats) packs each piece's 12 rows into the workspace (kNR floats per K step) before
  // its tiles read them: read in place, the 12 lines a K step touches fall in one 8-way L1 set
  // and evict each other (c = 1024 ran at 212 GFLOP/s against 227-230 for c = 1008 and 1040 on
  // 14×14 -> 512 and 7×7 -> 2048, minima of 150 alternating calls, 2 threads, EPYC; c = 512,
  // 2 KB apart, two sets, ran at full speed).
  bool pack_aliased = true;
  // pad_per_thread (with pad_input): each thread's workspace slot has its own zero-bordered
  // buffer, into which a task copies the image rows its windows read that the slot does not hold
  // yet in this call, instead of the shared copy that a parallel region of its own writes before
  // the tasks (a fork and join more per call, and half of the copy in the other core's L2).
  // Channel-split tasks (batch-1 deep layers) copy the whole input once per thread, pixel-split
  // ones (stems, batch 16) about their own rows. The batch-1 3×3 stride-2 layers lose most to the
  // shared copy: 14×14 × 256 took 0.265 ms, minima, where the same layer without padding on a
  // 16×16 map took 0.249 (loaded 2-core EPYC). A choice of the cpu_plan_tpad kind, not a default.
  bool pad_per_thread = false;
  // pad_on_demand (with pad_input, without pad_per_thread): the shared padded copy is written by
  // the tasks themselves, each copying the image rows its windows read that no task of this call
  // has claimed yet and waiting for those another task is copying, instead of by a parallel region
  // of its own before them: no fork and join more per call, no barrier between the copy and the
  // first tiles, and a row is copied by the first thread to read it, just before. The padded copy
  // costs the 3×3 stride-2 layers and the 7×7 stem 5-8 % of their time (the same GEMM on a
  // pre-padded input, quiet 2-core EPYC: 56×56 × 128 stride 2 at batch 16 18.0 ms against 19.6).
  // The `ktune` backend's choice (nn/cpu/ktune_backend.cpp), not a default: the sweep's kinds keep
  // theirs.
  bool pad_on_demand = false;
  // balanced_split: the split keeps cutting until the task count is a multiple of the threads,
  // however many tasks that makes (off: it stops at 8 per thread, so that max_cols 192 and
  // max_rows 512 left ResNet-50's 56×56 × 64 -> 256 1×1 layer at batch 1 in 17 tasks, 9 on one
  // core and 8 on the other: 0.55 ms against 0.49 for 10 tasks, medians of 60 alternating warm
  // calls, 2 threads, EPYC; 1.00 against 0.97 ms on one thread). A choice of the cpu_plan_1x1
  // kind, not a default.
  bool balanced_split = false;
};

// Pixel rows this many floats apart (4 KB, the L1's way size: 64 sets of 64 bytes) map to one
// L1 set (PlanBlocking::pack_aliased).
constexpr int64_t kAliasFloats = 1024;

// The largest filter K block (K steps × kMR floats: 256 KB, a quarter of a Zen 4 core's L2)
// that PlanBlocking::prefetch_panels asks for while the previous one computes.
constexpr int64_t kPrefetchPanelFloats = 64 * 1024;

// Fewer input channels (the c = 3 stems) make each of Winograd's α² GEMMs a K = c sum: the
// direct path's filter rows of 9·c steps use the register tile better.
constexpr int64_t kWinogradMinChannels = 16;

namespace plan_detail {

// Column `pixel` of the patch matrix, K steps [p0, p0 + kb), into out (kNR floats apart). K index
// p is (r, s, c) as in KRSC, walked as (r, position in the s·c run): a filter row inside the
// image is one contiguous run of the NHWC input, so only pixels at the left / right border go
// cell by cell.
inline void pack_column(const Shape& s, const float* input, int64_t p0, int kb, int64_t pixel,
                        float* out) {
  const int64_t P = s.p(), Q = s.q(), sc = s.s * s.c, end = p0 + kb;
  const int64_t n = pixel / (P * Q), y0 = pixel / Q % P * s.stride - s.pad,
                x0 = pixel % Q * s.stride - s.pad;
  const float* image = input + n * s.h * s.w * s.c;
  const bool inside_x = x0 >= 0 && x0 + s.s <= s.w;
  int64_t r = p0 / sc, pos = p0 % sc;
  for (int64_t p = p0; p < end;) {
    const int64_t y = y0 + r;
    int64_t run = std::min(sc - pos, end - p);
    const float* in = nullptr;  // nullptr: zero padding
    if (y >= 0 && y < s.h) {
      if (inside_x) {
        in = image + (y * s.w + x0) * s.c + pos;
      } else {
        const int64_t t = pos / s.c, ch = pos % s.c, x = x0 + t;
        run = std::min(s.c - ch, run);
        if (x >= 0 && x < s.w) in = image + (y * s.w + x) * s.c + ch;
      }
    }
    float* o = out + (p - p0) * kNR;
    if (in == nullptr) {
      for (int64_t i = 0; i < run; ++i) o[i * kNR] = 0.f;
    } else {
      for (int64_t i = 0; i < run; ++i) o[i * kNR] = in[i];
    }
    p += run;
    pos += run;
    if (pos == sc) {
      pos = 0;
      ++r;
    }
  }
}

// One B panel: K steps [p0, p0 + kb) × pixels [j0, j0 + cols) of the patch matrix, stored
// K-major with kNR floats per step (columns >= cols zero). When all kNR pixels are there and
// their filter windows inside the image along x (most panels), a filter row inside the image for
// all of them is copied one K step at a time, kNR contiguous floats per step (column by column,
// the stores are kNR floats apart: the packing took about a fifth of a 3×3 layer's time).
inline void pack_patches(const Shape& s, const float* input, int64_t p0, int kb, int64_t j0,
                         int cols, float* dst) {
  const int64_t P = s.p(), Q = s.q(), sc = s.s * s.c, end = p0 + kb, row = s.w * s.c;
  int64_t y0[kNR], at[kNR];  // window top row; image + window left column, in floats
  bool interior = cols == kNR;
  for (int j = 0; j < cols && interior; ++j) {
    const int64_t pixel = j0 + j, x0 = pixel % Q * s.stride - s.pad;
    y0[j] = pixel / Q % P * s.stride - s.pad;
    at[j] = pixel / (P * Q) * s.h * row + x0 * s.c;
    interior = x0 >= 0 && x0 + s.s <= s.w;
  }
  if (!interior) {
    for (int j = 0; j < kNR; ++j)
      if (j < cols)
        pack_column(s, input, p0, kb, j0 + j, dst + j);
      else
        for (int p = 0; p < kb; ++p) dst[p * kNR + j] = 0.f;
    return;
  }
  int64_t r = p0 / sc, pos = p0 % sc;
  for (int64_t p = p0; p < end;) {
    const int64_t run = std::min(sc - pos, end - p);
    const float* src[kNR];  // nullptr: this filter row is padding for the pixel
    bool all_in = true;
    for (int j = 0; j < kNR; ++j) {
      const int64_t y = y0[j] + r;
      const bool in = y >= 0 && y < s.h;
      src[j] = in ? input + at[j] + y * row + pos : nullptr;
      all_in = all_in && in;
    }
    float* o = dst + (p - p0) * kNR;
    if (all_in) {
      for (int64_t i = 0; i < run; ++i)
#pragma GCC unroll 12
        for (int j = 0; j < kNR; ++j) o[i * kNR + j] = src[j][i];
    } else {
      for (int j = 0; j < kNR; ++j)
        for (int64_t i = 0; i < run; ++i) o[i * kNR + j] = src[j] ? src[j][i] : 0.f;
    }
    p += run;
    pos += run;
    if (pos == sc) {
      pos = 0;
      ++r;
    }
  }
}

// cols pixel rows of the patch matrix (ld floats apart, the K steps of each contiguous), kb K
// steps of each, copied to dst kb + kAliasPad floats apart (PlanBlocking::pack_aliased): whole
// runs, at copy speed (a transposing copy to kNR floats per step, a float at a time, cost more
// than the conflicts: 7×7 × 1024 -> 2048 at 193 GFLOP/s against 213 in place).
constexpr int64_t kAliasPad = 16;  // one cache line: the copied rows fall in different L1 sets
inline void copy_pixel_rows(const float* b, int64_t ld, int cols, int kb, float* dst) {
  for (int j = 0; j < cols; ++j) std::copy_n(b + j * ld, kb, dst + j * (kb + kAliasPad));
}

struct Task {
  int64_t row0, rows, col0, cols;  // channels [row0, row0 + rows), pixels [col0, col0 + cols)
};

// Cuts C (k channels × pixels) into tasks of at most max_rows × max_cols on tile boundaries,
// then more until every thread has two (a slow helper's work can be taken over) and, while
// tasks are few, until their count is a multiple of the threads (else one thread idles for
// most of the last task); each further cut takes the dimension whose tasks are larger.
inline std::vector<Task> split(int64_t k, int64_t pixels, int threads, const PlanBlocking& bl) {
  const int64_t row_tiles = (k + kMR - 1) / kMR, col_tiles = (pixels + kNR - 1) / kNR;
  const int64_t max_row_tiles = std::max<int64_t>(1, bl.max_rows / kMR);
  const int64_t max_col_tiles = std::max<int64_t>(1, bl.max_cols / kNR);
  int64_t ci = (row_tiles + max_row_tiles - 1) / max_row_tiles;
  int64_t cj = (col_tiles + max_col_tiles - 1) / max_col_tiles;
  const int64_t want = threads > 1 ? 2 * int64_t(threads) : 1;
  auto cut = [&] {
    if (ci >= row_tiles && cj >= col_tiles) return false;
    const bool rows =
        cj >= col_tiles || (ci < row_tiles && row_tiles * kMR / ci > col_tiles * kNR / cj);
    (rows ? ci : cj) += 1;
    return true;
  };
  while (ci * cj < want && cut()) {
  }
  while (threads > 1 && ci * cj % threads != 0 &&
         (bl.balanced_split || ci * cj < 8 * int64_t(threads)) && cut()) {
  }
  std::vector<Task> tasks;
  for (int64_t i = 0; i < ci; ++i)
    for (int64_t j = 0; j < cj; ++j) {
      const int64_t r0 = i * row_tiles / ci * kMR, r1 = std::min(k, (i + 1) * row_tiles / ci * kMR);
      const int64_t c0 = j * col_tiles / cj * kNR,
                    c1 = std::min(pixels, (j + 1) * col_tiles / cj * kNR);
      if (r1 > r0 && c1 > c0) tasks.push_back({r0, r1 - r0, c0, c1 - c0});
    }
  return tasks;
}

}  // namespace plan_detail

class ConvPlan {
 public:
  // filter: KRSC, read only during construction. threads: 0 = OpenMP's thread count.
  ConvPlan(const Shape& s, const float* filter, int threads = 0, PlanBlocking bl = {})
      : s_(s), bl_(bl) {
    using namespace plan_detail;
    const int64_t ck = s.gemm_k(), panels = (s.k + kMR - 1) / kMR;
#ifdef _OPENMP
    if (threads <= 0) threads = omp_get_max_threads();
#endif
    threads_ = std::max(threads, 1);
    // Too little work to pay for waking a helper (the packed GEMM's threshold).
    if (double(s.gemm_m()) * double(s.k) * double(ck) < 64.0 * 1024) threads_ = 1;
    const auto call_tiles = [&](int64_t m) {
      return s.n * ((s.p() + m - 1) / m) * ((s.q() + m - 1) / m);
    };
    int m = bl.winograd_m;
    // Too few F(4×4) tiles: F(2×2), if it has enough (below, winograd_min_call_tiles).
    if (m == 4 && call_tiles(4) < bl.winograd4_min_call_tiles) m = 2;
    if ((m == 2 || m == 4) && s.c >= kWinogradMinChannels && WinogradPlan::applies(s) &&
        call_tiles(m) >= bl.winograd_min_call_tiles) {
      const int64_t a = m + 2;
      const bool fused = bl.winograd_fused_tiles > 0 &&
                         call_tiles(m) >= bl.winograd_fused_min_call_tiles &&
                         s.k <= bl.winograd_fused_max_k;
      const int64_t tiles =
          fused ? bl.winograd_fused_tiles
                : std::max(bl.winograd_floats / (a * a * (s.c + s.k)), bl.winograd_min_tiles);
      winograd_ = std::make_unique<WinogradPlan>(s, filter, m, threads_, tiles, fused);
      return;
    }
    filter_ = aligned_floats(size_t(panels * ck * kMR));
    for (int64_t ip = 0; ip < panels; ++ip)
      for (int64_t p = 0; p < ck; ++p)
        for (int64_t i = 0; i < kMR; ++i) {
          const int64_t ch = ip * kMR + i;
          filter_[size_t((ip * ck + p) * kMR + i)] = ch < s.k ? filter[ch * ck + p] : 0.f;
        }
    tasks_ = split(s.k, s.gemm_m(), threads_, bl_);
    in_place_ = s.r == 1 && s.s == 1 && s.stride == 1 && s.pad == 0;
    pack_pixels_ = in_place_ && bl.pack_aliased && ck % kAliasFloats == 0;
    g_ = s;
    if (bl.pad_input && !in_place_ && s.pad > 0) {
      g_.h += 2 * s.pad;
      g_.w += 2 * s.pad;
      g_.pad = 0;
      padded_floats_ = g_.n * g_.h * g_.w * g_.c;
      const int64_t count = padded_floats_ * (bl.pad_per_thread ? threads_ : 1);
      padded_ = aligned_floats(size_t(count));
      std::fill_n(padded_.get(), count, 0.f);  // the border stays zero
      if (bl.pad_per_thread) copied_.assign(size_t(threads_), CopiedRows{});
      if (bl.pad_on_demand && !bl.pad_per_thread) {
        row_state_ = std::make_unique<std::atomic<int64_t>[]>(size_t(s.n * s.h));
        for (int64_t i = 0; i < s.n * s.h; ++i) row_state_[size_t(i)] = 0;
      }
    }
    zeros_ = aligned_floats(size_t(s.s * s.c));
    std::fill_n(zeros_.get(), s.s * s.c, 0.f);
    int64_t widest = 0;
    for (const Task& t : tasks_) widest = std::max(widest, t.cols);
    // Pieces of a task (for_each_piece): at most one per kNR pixels plus one per row it touches.
    const int64_t pieces = (widest + kNR - 1) / kNR + widest / g_.q() + 2;
    // Few pixels per task (fc, the 7×7 maps at batch 1) or a short K (<= 682 with tasks of 384
    // pixels): all of K in one block. The task's patches stay in L2 anyway, and each tile then
    // streams its whole filter panel instead of a kc piece of a panel per K block (a fresh stream
    // for the prefetchers every kc steps).
    kc_ = widest * ck <= bl_.whole_k_floats ? ck : std::max(bl_.kc, 1);
    // Only windows that leave the image are packed: none once the padded copy removed the
    // padding (with all of K in one block a slot of VGG16-sized layers took several MB).
    // pack_pixels_: a 1×1 task's pieces copied (copy_pixel_rows), one at a time or, channel
    // panels outermost, all of them first.
    const int64_t kb = std::min<int64_t>(kc_, ck);
    slot_floats_ = pack_pixels_ ? (kb + kAliasPad) * kNR * pieces
                   : g_.pad > 0 ? kb * kNR * pieces
                                : 0;
    workspace_ = aligned_floats(size_t(slot_floats_ * threads_));
    busy_ = std::make_unique<std::atomic<bool>[]>(size_t(threads_));
    for (int i = 0; i < threads_; ++i) busy_[size_t(i)] = false;
  }

  const Shape& shape() const { return s_; }
  size_t tasks() const { return tasks_.size(); }
  int64_t workspace_floats() const { return slot_floats_ * threads_; }  // packed patches
  int64_t k_block() const { return kc_; }             // K steps per block (direct path)
  bool packs_pixels() const { return pack_pixels_; }  // PlanBlocking::pack_aliased applies
  int winograd_m() const { return winograd_ ? winograd_->m() : 0; }  // 0: the direct path
  int64_t winograd_block() const { return winograd_ ? winograd_->tiles_per_block() : 0; }
  bool winograd_fused() const { return winograd_ && winograd_->fused(); }

  // output = epilogue(conv(input)); input and output NHWC, not overlapping. One call at a time.
  void run(const float* input, float* output, const Epilogue& e = {}) {
    if (winograd_) return winograd_->run(input, output, e);
    ++call_;
    if (padded_ && copied_.empty() && !row_state_) {  // the shared copy, rows split among threads
      const int64_t rows = s_.n * s_.h, parts = std::min<int64_t>(rows, 2 * threads_);
      auto copy = [&](int64_t part) {
        copy_interior(input, rows * part / parts, rows * (part + 1) / parts, padded_.get());
      };
      run_tasks(parts, threads_, copy);
      input = padded_.get();
    }
    auto task = [&](int64_t t) { run_task(tasks_[size_t(t)], input, output, e); };
    run_tasks(int64_t(tasks_.size()), threads_, task);
  }

 private:
  // A panel whose pixels lie in one output row with their windows inside the image along x reads
  // its patches in place, one filter row at a time: filter row r of pixel j starts at
  // left + (y0 + r)·w·c + j·stride·c and runs s·c floats.
  struct WindowRow {
    bool ok = false;
    int64_t y0 = 0;
    int64_t left = 0;  // input offset of the first pixel's window at filter row -y0 (image row 0)
  };
  WindowRow window_row(int64_t col, int cols) const {
    const int64_t P = g_.p(), Q = g_.q(), q0 = col % Q;
    const int64_t x_first = q0 * g_.stride - g_.pad, x_last = (q0 + cols - 1) * g_.stride - g_.pad;
    if (q0 + cols > Q || x_first < 0 || x_last + g_.s > g_.w) return {};
    return {true, col / Q % P * g_.stride - g_.pad,
            col / (P * Q) * g_.h * g_.w * g_.c + x_first * g_.c};
  }

  // f(col, cols) for the pieces of task t's pixels: each output row's part cut into pieces of
  // kNR, so that no tile straddles two rows, the last two evened out when the last would be
  // narrower than kNR / 2 (a tile of few pixels has too few FMA chains: a 14-pixel row is 7 + 7,
  // not 12 + 2).
  template <class F>
  void for_each_piece(const plan_detail::Task& t, F&& f) const {
    const int64_t Q = g_.q();
    for (int64_t c = t.col0, end = t.col0 + t.cols; c < end;) {
      const int64_t part = std::min(end - c, Q - c % Q);
      pieces_of_run(c, part, f);
      c += part;
    }
  }

  // f(col, cols) for pixels [c, c + part) in pieces of kNR, the last two evened out when the
  // last would be narrower than kNR / 2.
  template <class F>
  static void pieces_of_run(int64_t c, int64_t part, F& f) {
    constexpr int kNR = plan_detail::kNR;
    const int64_t full = (part - 1) / kNR, rest = part - full * kNR;  // rest: 1..kNR
    const bool even = full > 0 && rest < kNR / 2;
    for (int64_t i = 0; i < full - (even ? 1 : 0); ++i) f(c + i * kNR, kNR);
    if (even) {
      const int64_t at = c + (full - 1) * kNR, first = (kNR + rest) / 2;
      f(at, int(first));
      f(at + first, int(kNR + rest - first));
    } else {
      f(c + full * kNR, int(rest));
    }
  }

  // K steps [pc, pc + kb) of the tiles of a WindowRow panel, channels [row0, row0 + rows): a
  // segment per filter row (a row above or below the image reads zeros_), up to kSegments of them
  // per tile call (PlanBlocking::join_rows; else one per call). Each group of segments is built
  // once for all the panel's channel tiles, walking (filter row, position) without divisions
  // (VGG16's stem has 27 K steps per tile: perf put much of its time outside the tile's loop;
  // built per tile it ran in 1.30-1.44 ms, now 1.07-1.20, minima of 60 calls over 6 rotated
  // buffers, 2 threads, the two builds taking turns on the loaded EPYC; the stride-2 layers and
  // the 7×7 stem unchanged).
  void run_window_row(const WindowRow& w, const float* input, int64_t pc, int kb, int64_t col,
                      int cols, int64_t row0, int64_t rows, const Epilogue& e,
                      float* output) const {
    constexpr int kSegments = 8;
    const int64_t sc = s_.s * s_.c, ck = s_.gemm_k(), row_floats = g_.w * g_.c;
    const int most = bl_.join_rows ? kSegments : 1;
    plan_detail::Segment seg[kSegments];
    int64_t r = pc / sc, pos = pc % sc;
    for (int64_t from = pc, end = pc + kb; from < end;) {
      int n = 0;
      int64_t p = from;
      for (; p < end && n < most; ++n) {
        const int64_t run = std::min(sc - pos, end - p), y = w.y0 + r;
        const bool inside = y >= 0 && y < g_.h;
        seg[n] = {inside ? input + w.left + y * row_floats + pos : zeros_.get() + pos,
                  inside ? s_.stride * s_.c : 0, int(run)};
        p += run;
        pos += run;
        if (pos == sc) {
          pos = 0;
          ++r;
        }
      }
      for (int64_t row = row0; row < row0 + rows; row += plan_detail::kMR) {
        plan_detail::TileOut o = tile_out(output, e, col, row, pc, kb);
        o.first = from == 0;
        o.last = p == ck;
        const float* a = filter_.get() + (row / plan_detail::kMR * ck + from) * plan_detail::kMR;
        plan_detail::any_tile<false>(cols, seg, n, a, o);
      }
      from = p;
    }
  }

  // Share `part` of `parts` of the filter K block [pc, pc + kb) of task t's channel panel after
  // the one at `row`, asked for into L2 (PlanBlocking::prefetch_panels; nothing after the task's
  // last panel, nor for a K block larger than kPrefetchPanelFloats: the fc layers' panels, up to
  // 3 MB, would evict the panel being read).
  void prefetch_next_panel(const plan_detail::Task& t, int64_t row, int64_t pc, int kb,
                           int64_t part, int64_t parts) const {
    constexpr int kMR = plan_detail::kMR;
    const int64_t floats = int64_t(kb) * kMR;
    if (!bl_.prefetch_panels || row + kMR >= t.row0 + t.rows || floats > kPrefetchPanelFloats)
      return;
    const float* a = filter_.get() + ((row / kMR + 1) * s_.gemm_k() + pc) * kMR;
    for (int64_t f = floats * part / parts / 16 * 16, end = floats * (part + 1) / parts; f < end;
         f += 16)
      __builtin_prefetch(a + f, 0, 2);
  }

  // The output tile of channels [row, row + kMR) × pixels from col, for K block [pc, pc + kb).
  plan_detail::TileOut tile_out(float* output, const Epilogue& e, int64_t col, int64_t row,
                                int64_t pc, int kb) const {
    const int64_t at = col * s_.k + row;
    return {output + at,
            e.residual ? e.residual + at : nullptr,
            e.bias ? e.bias + row : nullptr,
            s_.k,
            int(std::min<int64_t>(plan_detail::kMR, s_.k - row)),
            pc == 0,
            pc + kb >= s_.gemm_k(),
            e.relu};
  }

  // A task of a 1×1 stride-1 layer: the input is the patch matrix (pixel j's K steps contiguous),
  // read in place, or its pieces packed first where their rows alias in L1 (pack_pixels_).
  void run_1x1_task(const plan_detail::Task& t, const float* input, float* output,
                    const Epilogue& e) const {
    using namespace plan_detail;
    const int64_t ck = s_.gemm_k();
    const int slot = pack_pixels_ ? claim_slot() : -1;
    float* bpack = pack_pixels_ ? workspace_.get() + slot * slot_floats_ : nullptr;
    for (int64_t pc = 0; pc < ck; pc += kc_) {
      const int kb = int(std::min<int64_t>(kc_, ck - pc));
      // Piece i (pixels [col, col + cols)), channels [row, row + kMR).
      auto tile = [&](int64_t col, int cols, int64_t row, int64_t i) {
        const float* a = filter_.get() + (row / kMR * ck + pc) * kMR;
        const TileOut o = tile_out(output, e, col, row, pc, kb);
        if (bpack)
          any_tile<false>(cols, kb, a, bpack + i * kNR * (kb + kAliasPad), kb + kAliasPad, o);
        else
          any_tile<false>(cols, kb, a, input + col * ck + pc, ck, o);
      };
      // Pixels in pieces of kNR, the last two evened out (49: 12, 12, 12, 7, 6, not a last tile
      // of one pixel, whose two FMA chains wait on each other's latency). The task's larger
      // operand is walked once, the smaller one reused from the cache: a fc layer at batch 16
      // (16 pixels, 4096 × 4096 weights) read its filter panels once per piece with the pixels
      // outside (PlanBlocking::rows_outer off: pixels outside all the same).
      if (bl_.rows_outer && t.rows > t.cols) {
        int64_t pieces = 0;
        auto count = [&](int64_t col, int cols) {
          if (bpack)
            copy_pixel_rows(input + col * ck + pc, ck, cols, kb,
                            bpack + pieces * kNR * (kb + kAliasPad));
          ++pieces;
        };
        pieces_of_run(t.col0, t.cols, count);
        for (int64_t row = t.row0; row < t.row0 + t.rows; row += kMR) {
          int64_t i = 0;
          auto piece = [&](int64_t col, int cols) {
            prefetch_next_panel(t, row, pc, kb, i, pieces);
            tile(col, cols, row, i++);
          };
          pieces_of_run(t.col0, t.cols, piece);
        }
      } else {
        const int64_t task_end = (t.col0 + t.cols) * ck;
        auto piece = [&](int64_t col, int cols) {
          if (bpack) {  // one piece at a time, used by every channel panel while in L1 / L2
            copy_pixel_rows(input + col * ck + pc, ck, cols, kb, bpack);
          } else {
            // The task's next kNR pixels (contiguous: their rows of ck floats) asked for into L2
            // while this piece computes: the tile reads its 12 pixel rows a float at a time
            // each, too scattered for the hardware prefetchers, and at batch 16 the input comes
            // from memory (56×56 × 64 -> 64: minima 2.62-3.03 ms -> 2.26-2.46, 28×28 × 128 ->
            // 512: 10.3-10.9 -> 8.8-10.3; six interleaved runs, 2 threads, loaded EPYC; batch 1
            // within the noise).
            for (int64_t i = (col + cols) * ck, end = std::min(task_end, i + int64_t(kNR) * ck);
                 i < end; i += 16)
              __builtin_prefetch(input + i, 0, 2);
          }
          for (int64_t row = t.row0; row < t.row0 + t.rows; row += kMR) tile(col, cols, row, 0);
        };
        pieces_of_run(t.col0, t.cols, piece);
      }
    }
    if (bpack) release_slot(slot);
  }

  // Image rows [i0, i1) of the input (n·h of them) into the interior of the padded buffer.
  void copy_interior(const float* input, int64_t i0, int64_t i1, float* padded) const {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t b = i / s_.h, y = i % s_.h;
      std::copy_n(input + i * s_.w * s_.c, s_.w * s_.c,
                  padded + ((b * g_.h + y + s_.pad) * g_.w + s_.pad) * s_.c);
    }
  }

  // PlanBlocking::pad_per_thread: slot's padded copy of this call's input, holding at least the
  // image rows task t's windows read: a task copies those it needs that the slot's earlier tasks
  // of this call did not (the rows of n·h, a range per slot; a slot is held by one task at a time,
  // claim_slot's acquire orders a later holder after the copy). Channel-split tasks (batch 1, deep
  // layers) need every row: one whole copy per slot; pixel-split ones (the stems) their own rows.
  const float* slot_input(int slot, const float* input, const plan_detail::Task& t) {
    if (copied_.empty() && !row_state_) return input;  // unpadded, or the shared copy made
    const int64_t P = s_.p(), first = t.col0 / s_.q(), last = (t.col0 + t.cols - 1) / s_.q();
    const auto input_row = [&](int64_t out_row, int64_t r) {  // image row, clamped to its image
      const int64_t b = out_row / P, y = out_row % P * s_.stride - s_.pad + r;
      return b * s_.h + std::clamp<int64_t>(y, 0, s_.h);
    };
    const int64_t lo = input_row(first, 0), hi = input_row(last, s_.r);
    if (row_state_) return shared_rows(input, lo, hi);
    float* padded = padded_.get() + slot * padded_floats_;
    CopiedRows& c = copied_[size_t(slot)];
    if (c.call != call_) c = {call_, lo, lo};
    if (lo < c.lo) copy_interior(input, lo, c.lo, padded);
    if (hi > c.hi) copy_interior(input, std::max(lo, c.hi), hi, padded);
    if (lo > c.hi || hi < c.lo) {  // not adjacent: the slot keeps this task's range only
      c.lo = lo;
      c.hi = hi;
    } else {
      c.lo = std::min(c.lo, lo);
      c.hi = std::max(c.hi, hi);
    }
    return padded;
  }

  // PlanBlocking::pad_on_demand: rows [lo, hi) of n·h of the shared padded copy hold this call's
  // input once this returns. Each row's state is 2·call + 1 while a task copies it, 2·call + 2
  // when copied in this call (less: from an earlier call); a task first copies every row of its
  // range it can claim, then waits for the rest (a claimer never waits before its copy is done,
  // so the waits end); the release store and acquire load order the copy before the reads.
  const float* shared_rows(const float* input, int64_t lo, int64_t hi) const {
    const int64_t claimed = 2 * call_ + 1, done = 2 * call_ + 2;
    for (int64_t i = lo; i < hi; ++i) {
      std::atomic<int64_t>& state = row_state_[size_t(i)];
      int64_t seen = state.load(std::memory_order_relaxed);
      if (seen < claimed &&
          state.compare_exchange_strong(seen, claimed, std::memory_order_relaxed)) {
        copy_interior(input, i, i + 1, padded_.get());
        state.store(done, std::memory_order_release);
      }
    }
    for (int64_t i = lo; i < hi; ++i)
      for (int spins = 0; row_state_[size_t(i)].load(std::memory_order_acquire) != done; ++spins) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (spins > 4096) std::this_thread::yield();  // the copier was descheduled
      }
    return padded_.get();
  }

  // A free workspace slot: at most threads_ tasks run at once, so one is always free soon.
  int claim_slot() const {
    int slot = 0;
    for (bool expected = false;; slot = (slot + 1) % threads_, expected = false)
      if (busy_[size_t(slot)].compare_exchange_weak(expected, true, std::memory_order_acquire))
        return slot;
  }
  void release_slot(int slot) const { busy_[size_t(slot)].store(false, std::memory_order_release); }

  void run_task(const plan_detail::Task& t, const float* input, float* output, const Epilogue& e) {
    using namespace plan_detail;
    if (in_place_) return run_1x1_task(t, input, output, e);
    const int slot = claim_slot();
    float* bpack = workspace_.get() + slot * slot_floats_;
    input = slot_input(slot, input, t);
    const int64_t ck = s_.gemm_k();
    for (int64_t pc = 0; pc < ck; pc += kc_) {
      const int kb = int(std::min<int64_t>(kc_, ck - pc));
      int64_t i = 0;  // piece index: its packed panel, if any, at bpack + i·kb·kNR
      for_each_piece(t, [&](int64_t col, int cols) {
        // else every window is inside the (padded) image: nothing to pack
        if (slot_floats_ > 0 && !window_row(col, cols).ok)
          pack_patches(g_, input, pc, kb, col, cols, bpack + i * kb * kNR);
        ++i;
      });
      const int64_t pieces = i;
      // Channels [row0, row0 + rows) of every piece, piece by piece.
      auto panels = [&](int64_t row0, int64_t rows) {
        i = 0;
        for_each_piece(t, [&](int64_t col, int cols) {
          if (rows == kMR) prefetch_next_panel(t, row0, pc, kb, i, pieces);
          const WindowRow w = window_row(col, cols);
          if (w.ok) {
            run_window_row(w, input, pc, kb, col, cols, row0, rows, e, output);
          } else {
            for (int64_t row = row0; row < row0 + rows; row += kMR)
              any_tile<true>(cols, kb, filter_.get() + (row / kMR * ck + pc) * kMR,
                             bpack + i * kb * kNR, kNR, tile_out(output, e, col, row, pc, kb));
          }
          ++i;
        });
      };
      if (bl_.rows_outer && t.rows > t.cols) {
        for (int64_t row = t.row0; row < t.row0 + t.rows; row += kMR)
          panels(row, std::min<int64_t>(kMR, t.row0 + t.rows - row));
      } else {
        panels(t.row0, t.rows);
      }
    }
    release_slot(slot);
  }

  Shape s_;
  PlanBlocking bl_;
  int threads_ = 1;
  int64_t kc_ = 1;         // K steps per block: bl_.kc, or all of K (PlanBlocking::whole_k_floats)
  bool in_place_ = false;  // 1×1 stride 1: the NHWC input is the patch matrix (ldb = c)
  bool pack_pixels_ = false;  // in_place_, its pieces packed first (PlanBlocking::pack_aliased)
  Shape g_;                   // the input as the kernels read it: s_, or its padded copy (pad 0)
  plan_detail::Floats filter_, workspace_, zeros_;  // zeros_: one filter row of padding
  plan_detail::Floats padded_;  // the padded copy of the input (one per slot), or null
  int64_t padded_floats_ = 0;   // one padded copy
  int64_t call_ = 0;            // calls of run(), for copied_
  struct CopiedRows {
    int64_t call = -1, lo = 0, hi = 0;  // image rows [lo, hi) of n·h hold call's input
  };
  std::vector<CopiedRows> copied_;  // pad_per_thread: what each slot's copy holds
  std::unique_ptr<std::atomic<int64_t>[]> row_state_;  // pad_on_demand: per row of n·h
  int64_t slot_floats_ = 0;
  std::vector<plan_detail::Task> tasks_;
  std::unique_ptr<std::atomic<bool>[]> busy_;
  std::unique_ptr<WinogradPlan> winograd_;  // set: the layer runs Winograd, nothing else is built
};

}  // namespace ktune::kernels::cpu_conv
