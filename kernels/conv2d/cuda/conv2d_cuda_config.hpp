#pragma once
// A CUDA conv2d config decoded into the template parameters of its kernels. Self-contained
// (<string_view> and the GEMM config parser only) and constexpr, so the same parser serves the
// sweep at run time and the deployed library at compile time (selector config strings -> template
// instantiations).
//
// Kinds and their config strings (kernels in conv2d_*.cuh, launch in conv2d_cuda_launch.hpp):
//   cuda_direct   kind=cuda_direct;tp=2;tq=2;vk=4;vc=4;smem=1;wg=128
//                 output tile tp x tq x vk per thread, vc input channels per step, input patch
//                 staged in shared memory (smem=1) or read from global memory, wg threads
//   cuda_im2col   kind=cuda_im2col;bm=64;bn=64;bk=8;tm=8;tn=8
//                 patch matrix, then ktune's tiled GEMM (gemm_tiled.cuh) with these params
//   cuda_gemm1x1  kind=cuda_gemm1x1;bm=64;bn=64;bk=8;tm=8;tn=8
//                 1x1, stride 1, no padding: the NHWC input is the GEMM operand as it is
//   cuda_winograd kind=cuda_winograd;m=4;ft=pre;tv=4;bm=64;bn=64;bk=8;tm=8;tn=8
//                 F(m x m, 3x3), stride 1: transforms with tv channels per thread + T batched
//                 tiled GEMMs; ft=pre: the filter transform is done once outside the timed
//                 run (inference precomputes it per layer), ft=each: every run transforms it
//   cuda_igemm_mma kind=cuda_igemm_mma;bm=128;bn=128;bk=32;wm=64;wn=64;st=4
//                 tf32 / bf16 / fp16 problems only: implicit GEMM on the tensor cores (mma.sync),
//                 block tile bm x bn (pixels x output channels), K tile bk, warp tile wm x wn, st
//                 cp.async stages (conv2d_igemm_mma.cuh)
//   cuda_igemm_wgmma kind=cuda_igemm_wgmma;tp=8;tq=16;bn=128;st=4
//                 tf32 / bf16 / fp16, c % 64 (tf32: 32) == 0, sm_90a only: implicit GEMM on the
//                 Hopper warpgroup MMAs fed by TMA im2col (conv2d_wgmma.cuh): a block computes tp
//                 output rows x tq output columns of 128 / (tp·tq) images (128 GEMM rows) x bn
//                 output channels through an st-stage ring (launch: conv2d_wgmma_launch.hpp)
//   cuda_igemm_wgmma_persist kind=cuda_igemm_wgmma_persist;tp=8;tq=16;bn=128;st=4
//                 the same kernel with a persistent grid (PERSIST = 1: one block an SM walks the
//                 work items, its next loads overlapping its last item's epilogue); a kind of its
//                 own because the measured kinds' params never change (conv2d_kinds.hpp)
// The GEMM params are part of the conv config (the sweep measures the pair, the deployed
// library instantiates exactly the measured pair); the GEMM always loads float4 (vec=4, falling
// back to scalar loads where the layout does not allow them) and double-buffers (db=1).
#include <string_view>

#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::conv2d::cuda {

enum class CudaKind { direct, im2col, gemm1x1, winograd, igemm_mma, igemm_wgmma };

struct CudaConvConfig {
  CudaKind kind = CudaKind::direct;
  // cuda_direct
  int tp = 0, tq = 0, vk = 0, vc = 0, smem = 0, wg = 0;
  // GEMM of im2col, gemm1x1 and winograd
  int bm = 0, bn = 0, bk = 0, tm = 0, tn = 0;
  // winograd
  int m = 0, tv = 0;
  // igemm_mma (with bm, bn, bk); igemm_wgmma: tp x tq pixels of wg_images() images, bn, st
  int wm = 0, wn = 0, st = 0;
  int persist = 0;               // igemm_wgmma: 1 for kind cuda_igemm_wgmma_persist
  bool filter_each_run = false;  // ft=each
  bool valid = false;
  constexpr int gemm_threads() const { return tm && tn ? (bm / tm) * (bn / tn) : 0; }
  constexpr int mma_threads() const { return wm && wn ? 32 * (bm / wm) * (bn / wn) : 0; }
  // igemm_wgmma: the images of a block tile (its 128 GEMM rows are tp x tq pixels of each).
  constexpr int wg_images() const { return tp > 0 && tq > 0 ? 128 / (tp * tq) : 0; }
};

namespace cuda_config_detail {

constexpr int kDirectBits = 0x3F, kGemmBits = 0x7C0, kWinoBits = 0x3800;
constexpr int kIgemmBits = 0x1C0 | 0x1C000;       // bm, bn, bk; wm, wn, st
constexpr int kWgmmaBits = 0x3 | 0x80 | 0x10000;  // tp, tq; bn; st
// Dynamic shared memory of a cuda_igemm_wgmma block (KtuneConvWgSmem<BN, ST>::kBytes of
// conv2d_wgmma.cuh: a 128 x 64 A tile and a bn x 64 B tile of 16-bit values a stage, the stages'
// mbarriers and the 1024-byte alignment slack) and the opt-in limit of an H100 / H200 block.
constexpr long long wgmma_smem_bytes(int bn, int st) {
  return (long long)st * (128 * 128 + bn * 128) + 16 * st + 1024;
}
constexpr long long kHopperMaxSharedBytes = 232448;

constexpr bool assign(CudaConvConfig& g, std::string_view name, std::string_view value, int& seen) {
  if (name == "kind") {
    if (value == "cuda_direct")
      g.kind = CudaKind::direct;
    else if (value == "cuda_im2col")
      g.kind = CudaKind::im2col;
    else if (value == "cuda_gemm1x1")
      g.kind = CudaKind::gemm1x1;
    else if (value == "cuda_winograd")
      g.kind = CudaKind::winograd;
    else if (value == "cuda_igemm_mma")
      g.kind = CudaKind::igemm_mma;
    else if (value == "cuda_igemm_wgmma")
      g.kind = CudaKind::igemm_wgmma;
    else if (value == "cuda_igemm_wgmma_persist")
      g.kind = CudaKind::igemm_wgmma, g.persist = 1;
    else
      return false;
    return true;
  }
  if (name == "ft") {
    seen |= 1 << 13;
    g.filter_each_run = value == "each";
    return value == "each" || value == "pre";
  }
  const gemm::config_detail::IntField fields[] = {
      {"tp", &g.tp, 0},     {"tq", &g.tq, 1},  {"vk", &g.vk, 2},  {"vc", &g.vc, 3},
      {"smem", &g.smem, 4}, {"wg", &g.wg, 5},  {"bm", &g.bm, 6},  {"bn", &g.bn, 7},
      {"bk", &g.bk, 8},     {"tm", &g.tm, 9},  {"tn", &g.tn, 10}, {"m", &g.m, 11},
      {"tv", &g.tv, 12},    {"wm", &g.wm, 14}, {"wn", &g.wn, 15}, {"st", &g.st, 16}};
  return gemm::config_detail::assign_field(fields, name, value, seen);
}

constexpr int required_bits(CudaKind kind) {
  switch (kind) {
    case CudaKind::direct:
      return kDirectBits;
    case CudaKind::im2col:
    case CudaKind::gemm1x1:
      return kGemmBits;
    case CudaKind::winograd:
      return kGemmBits | kWinoBits;
    case CudaKind::igemm_mma:
      return kIgemmBits;
    case CudaKind::igemm_wgmma:
      return kWgmmaBits;
  }
  return 0;
}

}  // namespace cuda_config_detail

// Parses a canonical config string (params in any order). valid == false for other kinds,
// unknown names, bad values, and missing or foreign params of the kind.
constexpr CudaConvConfig parse_cuda_conv_config(std::string_view text) {
  CudaConvConfig g;
  int seen = 0;
  bool has_kind = false;
  const bool parsed =
      gemm::config_detail::for_each_param(text, [&](std::string_view name, std::string_view value) {
        has_kind = has_kind || name == "kind";
        return cuda_config_detail::assign(g, name, value, seen);
      });
  if (!parsed || !has_kind || seen != cuda_config_detail::required_bits(g.kind))
    return CudaConvConfig{};
  if (g.kind == CudaKind::winograd && g.m != 2 && g.m != 4) return CudaConvConfig{};
  // The igemm_mma template's own rules (the space's constraint is stricter): warp tiles of whole
  // m16n8k16 pairs, whole K steps, whole 16-byte chunks per thread.
  if (g.kind == CudaKind::igemm_mma &&
      (g.bm <= 0 || g.bn <= 0 || g.wm <= 0 || g.wn <= 0 || g.st < 2 || g.bk <= 0 ||
       g.bk % 16 != 0 || g.wm % 16 != 0 || g.wn % 16 != 0 || g.bm % g.wm != 0 || g.bn % g.wn != 0 ||
       (g.bm * (g.bk / 8)) % g.mma_threads() != 0 || (g.bn * (g.bk / 8)) % g.mma_threads() != 0))
    return CudaConvConfig{};
  // The wgmma template's rules: 128 GEMM rows a block (two consumer warpgroups of 64) made of
  // whole tp x tq image tiles, wgmma N of 64 / 128 / 256, at least two stages, and the ring
  // within a Hopper block's shared memory.
  if (g.kind == CudaKind::igemm_wgmma &&
      (g.tp <= 0 || g.tq <= 0 || g.tp * g.tq > 128 || 128 % (g.tp * g.tq) != 0 ||
       (g.bn != 64 && g.bn != 128 && g.bn != 256) || g.st < 2 ||
       cuda_config_detail::wgmma_smem_bytes(g.bn, g.st) >
           cuda_config_detail::kHopperMaxSharedBytes))
    return CudaConvConfig{};
  g.valid = true;
  return g;
}

}  // namespace ktune::kernels::conv2d::cuda
