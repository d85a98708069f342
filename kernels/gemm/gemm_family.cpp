#include "kernels/gemm/gemm_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "ktune/error.hpp"

namespace ktune::kernels::gemm {

namespace {

const std::vector<std::string> kTileValues = {"1", "2", "4", "8"};
// The seed paper's ten work-group shapes (x along M, y along N).
const std::vector<std::string> kWorkGroups = {"1x64", "1x128", "8x8",  "8x16", "8x32",
                                              "16x8", "16x16", "32x8", "64x1", "128x1"};
// Element counts above this would overflow 32-bit index arithmetic in kernels.
constexpr double kMaxElements = 2147483647.0;

bool is_integer(double v) { return std::isfinite(v) && std::floor(v) == v; }

// Tiled kernels: whole vectors per thread for both tile loads, 64..256 threads, and shared
// memory within the 48 KiB a block gets without opting in.
std::optional<std::string> blocked_violation(const Space& space, const Config& c) {
  const GemmConfig g = gemm_config_of(space, c);
  const BlockedParams& p = g.blocked;
  const int threads = p.threads();
  if (threads < 64 || threads > 256) return fmt::format("{} threads (64..256)", threads);
  if ((p.bm + p.bn) * p.bk * 4 * (p.db ? 2 : 1) > 48 * 1024)
    return std::string("shared memory over 48 KiB");
  if ((p.bm * p.bk) % (threads * p.vec) != 0 || (p.bn * p.bk) % (threads * p.vec) != 0)
    return std::string("tile loads are not whole vectors per thread");
  return std::nullopt;
}

std::optional<std::string> packed_violation(const Space& space, const Config& c) {
  const PackedParams p = gemm_config_of(space, c).packed;
  if (is_packed_micro_tile(p.mr, p.nr)) return std::nullopt;
  return fmt::format("micro-tile {}x{} is not implemented", p.mr, p.nr);
}

std::optional<std::string> packedz_violation(const Space& space, const Config& c) {
  const PackedParams p = gemm_config_of(space, c).packed;
  if (is_packedz_micro_tile(p.mr, p.nr)) return std::nullopt;
  return fmt::format("AVX-512 micro-tile {}x{} is not implemented", p.mr, p.nr);
}

// Warp-tiled kernels: 32 lanes tile each warp tile exactly, 4 or 8 warps per block.
std::optional<std::string> warp_violation(const Space& space, const Config& c) {
  const BlockedParams p = gemm_config_of(space, c).blocked;
  if (p.bm % p.wm != 0 || p.bn % p.wn != 0)
    return std::string("warp tile does not divide the block");
  const int lanes = (p.wm / p.tm) * (p.wn / p.tn);
  if (lanes != 32) return fmt::format("{} lanes per warp tile (32)", lanes);
  const int threads = p.threads();
  if (threads < 128 || threads > 256) return fmt::format("{} threads (128..256)", threads);
  return std::nullopt;
}

// Tensor-core kernels: 4 or 8 warps a block, one warp tile each.
std::optional<std::string> mma_violation(const Space& space, const Config& c) {
  const BlockedParams p = gemm_config_of(space, c).blocked;
  if (p.bm % p.wm != 0 || p.bn % p.wn != 0)
    return std::string("warp tile does not divide the block");
  const int warps = (p.bm / p.wm) * (p.bn / p.wn);
  if (warps != 4 && warps != 8) return fmt::format("{} warps (4 or 8)", warps);
  return std::nullopt;
}

// Hopper tensor-core kernels: the stages' tiles within the 227 KiB a block may opt in to.
std::optional<std::string> wgmma_violation(const Space& space, const Config& c) {
  const BlockedParams p = gemm_config_of(space, c).blocked;
  // One warpgroup holds a ping-pong tile, two share a cooperative one.
  const int threads = p.pp ? 128 : 256;
  if (p.bm * p.bn > 128 * threads)
    return fmt::format("{} accumulators a thread (128)", p.bm * p.bn / threads);
  const long long bytes = wgmma_smem_bytes(p);
  if (bytes > 227 * 1024) return fmt::format("{} bytes of shared memory (227 KiB)", bytes);
  return std::nullopt;
}

// The params of the kinds of the Hopper kernel: block tiles, stages and rasterization, with the
// K tile (elements) of their precisions.
std::vector<Param> wgmma_params(const char* bk) {
  using V = std::vector<std::string>;
  return {{"bm", V{"128", "256"}},
          {"bn", V{"64", "128", "256"}},
          {"bk", V{bk}},
          {"st", V{"3", "4", "6"}},
          {"gr", V{"1", "8"}}};
}

// The params of the staged-epilogue kinds (wgmmats, wgmmacs): the cooperative kernel's tiles of
// N >= 128 with 4 stages (their 32 KiB of staging still fit), both rasterizations, one block or
// clusters of 2.
std::vector<Param> wgmma_staged_params() {
  using V = std::vector<std::string>;
  return {{"bm", V{"128", "256"}}, {"bn", V{"128", "256"}}, {"bk", V{"64"}},
          {"st", V{"4"}},          {"gr", V{"1", "8"}},     {"cl", V{"1", "2"}}};
}

std::vector<SpaceKind> gemm_kinds() {
  using V = std::vector<std::string>;
  return {
      {"seed",
       {{"r", kTileValues}, {"a", kTileValues}, {"c", kTileValues}, {"wg", kWorkGroups}},
       nullptr},
      {"tiled",
       {{"bm", V{"32", "64", "128"}},
        {"bn", V{"32", "64", "128"}},
        {"bk", V{"8", "16"}},
        {"tm", V{"4", "8"}},
        {"tn", V{"4", "8"}},
        {"vec", V{"1", "4"}},
        {"db", V{"0", "1"}}},
       blocked_violation},
      {"splitk",
       {{"bm", V{"32", "64"}},
        {"bn", V{"32", "64"}},
        {"bk", V{"16", "32"}},
        {"tm", V{"4"}},
        {"tn", V{"4"}},
        {"vec", V{"4"}},
        {"db", V{"1"}},
        {"splits", V{"2", "4", "8", "16", "32", "64"}}},
       blocked_violation},
      {"packed",
       {{"mr", V{"8", "16", "24"}},
        {"nr", V{"4", "6", "8", "12"}},
        {"kc", V{"128", "256", "512"}},
        {"mc", V{"48", "96", "192"}},
        {"nc", V{"960", "3840"}}},
       packed_violation},
      {"warp",
       {{"bm", V{"64", "128", "256"}},
        {"bn", V{"64", "128", "256"}},
        {"bk", V{"8", "16"}},
        {"wm", V{"32", "64"}},
        {"wn", V{"32", "64"}},
        {"tm", V{"4", "8"}},
        {"tn", V{"4", "8"}},
        {"st", V{"3", "4"}},
        {"gr", V{"1", "8"}},
        {"splits", V{"1"}}},
       warp_violation},
      // Appended after warp so that no earlier kind's ids move (docs/ARCHITECTURE.md).
      {"packedz",
       {{"mr", V{"16", "32", "48", "64"}},
        {"nr", V{"6", "8", "12"}},
        {"kc", V{"128", "256", "512"}},
        {"mc", V{"192", "384"}},
        {"nc", V{"3072"}},
        {"pa", V{"0", "1"}},
        {"pb", V{"0", "1"}}},
       packedz_violation},
      // The warp kernel over K slices, for problems whose m x n tiles leave SMs idle while k is
      // long (the split-K-bound dnn and large shapes): 64/128 blocks with the 4x8 and 8x8 thread
      // tiles the warp sweep favours, one K step, three stages and no rasterization, since with
      // few tiles the slice count is what decides. Appended after packedz.
      {"warpsplit",
       {{"bm", V{"64", "128"}},
        {"bn", V{"64", "128"}},
        {"bk", V{"16"}},
        {"wm", V{"32", "64"}},
        {"wn", V{"32", "64"}},
        {"tm", V{"4", "8"}},
        {"tn", V{"8"}},
        {"st", V{"3"}},
        {"gr", V{"1"}},
        {"splits", V{"2", "4", "8", "16", "32", "64"}}},
       warp_violation},
      // Tensor cores (mma.sync; gemm_mma.cuh) for tf32 / bf16 / fp16 problems: block and warp
      // tiles, K tiles of 32 or 64 (64 halves the barriers per K) and 3 or 4 cp.async stages;
      // 72 configs. Appended after warpsplit.
      {"mma",
       {{"bm", V{"64", "128", "256"}},
        {"bn", V{"64", "128", "256"}},
        {"bk", V{"32", "64"}},
        {"wm", V{"32", "64"}},
        {"wn", V{"32", "64"}},
        {"st", V{"3", "4"}}},
       mma_violation},
      // Hopper tensor cores (wgmma fed by TMA, persistent, warp-specialized; gemm_wgmma.cuh) for
      // bf16 / fp16 problems: block tiles of two consumer warpgroups, K tiles of 64 (one
      // 128-byte swizzle row of 16-bit elements), 3, 4 or 6 stages, block rows swept one by one
      // or in groups of 8; 24 configs. Appended after mma.
      {"wgmma", wgmma_params("64"), wgmma_violation},
      // The mma kernel over K slices (FP32 partial sums + the split-K reduction), for the
      // tensor-core problems whose m x n tiles leave SMs idle while k is long (the worst dnn
      // shapes: m x n of one tile, k of 10^4 to 2 * 10^5): the small block tiles the mma sweep
      // favours, K tiles of 32 or 64, three stages, and up to 128 slices so that one tile fills
      // the 132 SMs; 42 configs. Appended after wgmma.
      {"mmasplit",
       {{"bm", V{"64", "128"}},
        {"bn", V{"64", "128"}},
        {"bk", V{"32", "64"}},
        {"wm", V{"32"}},
        {"wn", V{"32"}},
        {"st", V{"3"}},
        {"splits", V{"2", "4", "8", "16", "32", "64", "128"}}},
       mma_violation},
      // The wgmma kernel in tf32 (gemm_wgmma.cuh with PREC 1): the wgmma kind's tiles, stages and
      // rasterization with K tiles of 32 floats (the same 128 bytes a row, so the same shared
      // memory); operands that are not K-major on TMA's 16-byte grid are copied so first, inside
      // the call; 24 configs. Appended after mmasplit.
      {"wgmmatf32", wgmma_params("32"), wgmma_violation},
      // The wgmma kernel's ping-pong form (ktune_gemm_wgmma_pp): each consumer warpgroup owns
      // whole bm x bn tiles and the two alternate, so that one's K loop hides the other's
      // epilogue; 64 x 256 and 128 x 128 tiles (at most 128 accumulators a thread; 64 x 128 for
      // small shapes), 4 to 6 stages within 227 KiB, both rasterizations; 16 configs. Appended
      // after wgmmatf32.
      {"wgmmapp",
       {{"bm", V{"64", "128"}},
        {"bn", V{"128", "256"}},
        {"bk", V{"64"}},
        {"st", V{"4", "5", "6"}},
        {"gr", V{"1", "8"}}},
       wgmma_violation},
      // The cooperative wgmma kernel in thread-block clusters (ktune_gemm_wgmma_mc): cl = 2
      // blocks on adjacent N tiles of one M tile, each loading half of their common A tile and
      // multicasting it to both, so that A's L2 -> SM traffic halves; the wgmma kind's tiles of
      // N 128 and 256 (the A tile is then the larger share of a stage), 3, 4 or 6 stages within
      // 227 KiB, both rasterizations (over cluster tiles); 14 configs. Appended after wgmmapp.
      {"wgmmamc",
       {{"bm", V{"128", "256"}},
        {"bn", V{"128", "256"}},
        {"bk", V{"64"}},
        {"st", V{"3", "4", "6"}},
        {"gr", V{"1", "8"}},
        {"cl", V{"2"}}},
       wgmma_violation},
      // The cooperative kernel, one block (cl 1) or clusters of 2 (cl 2), storing C through
      // shared memory by TMA (ktune_gemm_wgmma_ts / _mcts): the consumer warps write their
      // accumulators to two 8 KiB buffers each and go on to the next tile's K loop while the copy
      // engine stores them, instead of 64 to 128 scattered 4-byte stores a thread; the tiles of
      // N >= 128 with 4 stages (the buffers' 32 KiB still fit 227 KiB), both rasterizations;
      // 12 configs. Appended after wgmmamc.
      {"wgmmats", wgmma_staged_params(), wgmma_violation},
      // wgmmats's staging stored by the consumer threads themselves (ktune_gemm_wgmma_cs /
      // _mccs): 16-byte stores, a warp's covering 4 whole 128-byte column pieces, and the copy
      // engine left to the loads; the same 12 configs. Appended after wgmmats.
      {"wgmmacs", wgmma_staged_params(), wgmma_violation},
      // The cooperative kernel over (tile, K slice) work units (ktune_gemm_wgmma_sk): each unit
      // multiplies its slice of K and stores raw FP32 sums to the workspace, and the split-K
      // reduction forms C. For the decode / prefill shapes whose few output tiles leave most of
      // the 132 SMs idle while k is deep (bf16 TN 2048 x 128 x 8192: 16 tiles of 128 x 128): the
      // cooperative tiles of 64 to 128 accumulators a thread, 4 or 6 stages within 227 KiB,
      // groups of 8 block rows, 2 to 16 slices; 28 configs. Appended after wgmmacs.
      {"wgmmasplit",
       {{"bm", V{"128", "256"}},
        {"bn", V{"64", "128", "256"}},
        {"bk", V{"64"}},
        {"st", V{"4", "6"}},
        {"gr", V{"8"}},
        {"splits", V{"2", "4", "8", "16"}}},
       wgmma_violation},
  };
}

}  // namespace

GemmConfig gemm_config_of(const Space& space, const Config& c) {
  const std::string text = space.to_string(c);
  const GemmConfig g = parse_gemm_config(text);
  if (!g.valid) throw Error(fmt::format("gemm config '{}' does not decode", text));
  return g;
}

GemmFamily::GemmFamily() : space_("gemm", gemm_kinds()) {}

std::vector<std::string> GemmFamily::feature_names() const {
  return {"transa", "transb", "m", "n", "k", "batch"};
}

void GemmFamily::validate(const Problem& p) const { shape_of(p); }

Shape shape_of(const Problem& p) {
  auto get = [&](const char* name) {
    double v = p.get(name);
    if (!is_integer(v))
      throw Error(fmt::format("gemm problem '{}': {} must be an integer", p.key(), name));
    return v;
  };
  const double ta = get("transa"), tb = get("transb");
  if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1))
    throw Error(fmt::format("gemm problem '{}': transa/transb must be 0 or 1", p.key()));
  const double m = get("m"), n = get("n"), k = get("k"), batch = get("batch");
  if (m < 1 || n < 1 || k < 1 || batch < 1)
    throw Error(fmt::format("gemm problem '{}': m, n, k and batch must be at least 1", p.key()));
  if (m * k * batch > kMaxElements || k * n * batch > kMaxElements || m * n * batch > kMaxElements)
    throw Error(fmt::format("gemm problem '{}': a matrix exceeds 2^31 elements", p.key()));
  Shape s = packed_shape(ta == 1, tb == 1, int64_t(m), int64_t(n), int64_t(k), int64_t(batch));
  if (std::find(p.names.begin(), p.names.end(), "precision") != p.names.end()) {
    const double v = get("precision");
    if (v < 0 || v > 3)
      throw Error(
          fmt::format("gemm problem '{}': precision must be 0 (fp32), 1 (tf32), 2 (bf16) "
                      "or 3 (fp16)",
                      p.key()));
    s.precision = Precision(int(v));
  }
  if (std::find(p.names.begin(), p.names.end(), "c16") != p.names.end()) {
    const double v = get("c16");
    if (v != 0 && v != 1)
      throw Error(
          fmt::format("gemm problem '{}': c16 must be 0 (C in FP32) or 1 (C in the "
                      "16-bit input type)",
                      p.key()));
    if (v == 1 && input_bytes(s.precision) != 2)
      throw Error(fmt::format("gemm problem '{}': c16=1 needs bf16 or fp16 inputs, not {}", p.key(),
                              precision_name(s.precision)));
    s.c16 = v == 1;
  }
  return s;
}

Precision parse_precision(const std::string& text) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16})
    if (text == precision_name(p)) return p;
  throw Error(fmt::format("unknown gemm precision '{}' (fp32, tf32, bf16, fp16)", text));
}

Problem with_precision(const Problem& problem, Precision precision) {
  Shape s = shape_of(problem);
  s.precision = precision;
  s.c16 = s.c16 && input_bytes(precision) == 2;  // 16-bit C stays 16-bit C where it can
  return problem_of(s, problem.tags);
}

Variant parse_variant(const std::string& text) {
  const size_t colon = text.find(':');
  Variant v{parse_precision(text.substr(0, colon)), false};
  if (colon == std::string::npos) return v;
  const std::string rest = text.substr(colon + 1);
  const std::string input = precision_name(v.precision);
  if (rest.rfind("c=", 0) != 0)
    throw Error(fmt::format("gemm workload variant '{}': after ':' only c=fp32 or c={} (C's type)",
                            text, input));
  const std::string c = rest.substr(2);
  if (c == "fp32") return v;
  if (c != input || input_bytes(v.precision) != 2)
    throw Error(fmt::format("gemm workload variant '{}': C is fp32{}", text,
                            input_bytes(v.precision) == 2
                                ? " or " + input
                                : " for " + input + " (16-bit C needs bf16 or fp16 inputs)"));
  v.c16 = true;
  return v;
}

Problem problem_of(const Shape& s, std::vector<std::string> tags) {
  Problem p;
  p.names = {"transa", "transb", "m", "n", "k", "batch"};
  p.values = {s.transa ? 1.0 : 0.0, s.transb ? 1.0 : 0.0, double(s.m),
              double(s.n),          double(s.k),          double(s.batch)};
  if (s.precision != Precision::fp32) {
    p.names.push_back("precision");
    p.values.push_back(double(int(s.precision)));
  }
  if (s.c16) {
    p.names.push_back("c16");
    p.values.push_back(1.0);
  }
  p.tags = std::move(tags);
  return p;
}

Tile tile_of(const Space& space, const Config& c) {
  if (c.kind != 0)
    throw Error(fmt::format("gemm config '{}' is not of the seed kind", space.to_string(c)));
  Tile t;
  t.r = space.int_value(c, "r");
  t.a = space.int_value(c, "a");
  t.c = space.int_value(c, "c");
  const std::string& wg = space.value(c, "wg");
  const size_t x = wg.find('x');
  t.wg_x = std::stoi(wg.substr(0, x));
  t.wg_y = std::stoi(wg.substr(x + 1));
  return t;
}

std::string tile_config_string(const Tile& t) {
  return fmt::format("r={};a={};c={};wg={}x{}", t.r, t.a, t.c, t.wg_x, t.wg_y);
}

}  // namespace ktune::kernels::gemm
