// The CUDA kinds of the conv2d space (kernels in kernels/conv2d/cuda/conv2d_*.cuh, config
// strings decoded by kernels/conv2d/cuda/conv2d_cuda_config.hpp). Appended after the CPU kinds;
// append new kinds at the end only (see kernels/conv2d/conv2d_kinds.hpp).
// Sizes: cuda_direct 184, cuda_im2col 37, cuda_gemm1x1 37, cuda_winograd 296: 554 configs, so an
// H100 sweep of both networks at batch 1 and 16 fits in two 9-minute device calls. cuda_igemm_mma
// (tf32 / bf16 / fp16 problems only; the FP32 kinds refuse those) adds 40. cuda_igemm_wgmma (tf32 /
// bf16 / fp16, sm_90 only) adds 40 after the CPU plan kinds (add_cuda_wgmma_kinds: ids never
// move), cuda_igemm_wgmma_persist 40 more after cpu_plan_tpad (add_cuda_wgmma_persist_kinds).
#include <fmt/format.h>

#include "kernels/conv2d/conv2d_kinds.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_config.hpp"

namespace ktune::kernels::conv2d {

namespace {

using V = std::vector<std::string>;

// tp x tq x vk accumulators per thread: more than 32 spill on the direct kernel.
std::optional<std::string> direct_cuda_violation(const Space& space, const Config& c) {
  const int acc = space.int_value(c, "tp") * space.int_value(c, "tq") * space.int_value(c, "vk");
  if (acc > 32) return fmt::format("{} accumulators per thread (tp x tq x vk) exceed 32", acc);
  return std::nullopt;
}

// The rules of the GEMM family's tiled kind (gemm_tiled.cuh with vec = 4, db = 1): 64..256
// threads, whole float4 vectors per thread for both tile loads.
std::optional<std::string> gemm_violation(const Space& space, const Config& c) {
  const int bm = space.int_value(c, "bm"), bn = space.int_value(c, "bn");
  const int bk = space.int_value(c, "bk"), tm = space.int_value(c, "tm");
  const int tn = space.int_value(c, "tn");
  const int threads = (bm / tm) * (bn / tn);
  if (threads < 64 || threads > 256) return fmt::format("{} GEMM threads (64..256)", threads);
  if ((bm * bk) % (threads * 4) != 0 || (bn * bk) % (threads * 4) != 0)
    return std::string("GEMM tile loads are not whole float4 vectors per thread");
  return std::nullopt;
}

// 4 to 8 warps per block (fewer leave the tensor cores idle while a block waits on its copies).
std::optional<std::string> igemm_mma_violation(const Space& space, const Config& c) {
  const int warps = (space.int_value(c, "bm") / space.int_value(c, "wm")) *
                    (space.int_value(c, "bn") / space.int_value(c, "wn"));
  if (warps < 4 || warps > 8) return fmt::format("{} warps per block (4..8)", warps);
  return std::nullopt;
}

// 128 GEMM rows a block made of whole tp x tq image tiles, and the stage ring within a Hopper
// block's shared memory (bn 256 with 6 stages is 295 KB).
std::optional<std::string> igemm_wgmma_violation(const Space& space, const Config& c) {
  const int pixels = space.int_value(c, "tp") * space.int_value(c, "tq");
  if (pixels > 128 || 128 % pixels != 0)
    return fmt::format("tp x tq = {} pixels does not divide the 128 rows of a block", pixels);
  const long long bytes = cuda::cuda_config_detail::wgmma_smem_bytes(space.int_value(c, "bn"),
                                                                     space.int_value(c, "st"));
  if (bytes > cuda::cuda_config_detail::kHopperMaxSharedBytes)
    return fmt::format("{} bytes of shared memory exceed a Hopper block's 227 KiB", bytes);
  return std::nullopt;
}

std::vector<Param> gemm_params() {
  return {{"bm", V{"32", "64", "128"}},
          {"bn", V{"32", "64", "128"}},
          {"bk", V{"8", "16"}},
          {"tm", V{"4", "8"}},
          {"tn", V{"4", "8"}}};
}

// The wgmma kinds' params: tp output rows x tq output columns of 128 / (tp·tq) images a block
// (tp·tq = 128: one image; 64: two; 32: four), bn output channels, st TMA stages. The tiles and
// widths cover the best configs of the kernel's standalone bench
// (results/h100-80gb-hbm3/conv-wgmma-1): 8x16, 16x8, 8x8 (x2), 4x8 (x4) with bn 64 / 128 / 256,
// plus 4x16 (x2).
std::vector<Param> wgmma_params() {
  return {{"tp", V{"4", "8", "16"}},
          {"tq", V{"8", "16"}},
          {"bn", V{"64", "128", "256"}},
          {"st", V{"3", "4", "6"}}};
}

}  // namespace

void add_cuda_kinds(std::vector<SpaceKind>& kinds) {
  // Tiled direct convolution: a thread computes tp x tq output pixels x vk output channels,
  // vc input channels per step; smem = 1 stages the block's input patch in shared memory.
  kinds.push_back({"cuda_direct",
                   {{"tp", V{"1", "2", "4"}},
                    {"tq", V{"1", "2", "4"}},
                    {"vk", V{"2", "4", "8"}},
                    {"vc", V{"1", "4"}},
                    {"smem", V{"0", "1"}},
                    {"wg", V{"128", "256"}}},
                   direct_cuda_violation});
  // Patch matrix + ktune's tiled GEMM; the GEMM params are part of the conv config.
  kinds.push_back({"cuda_im2col", gemm_params(), gemm_violation});
  // 1x1 stride-1 unpadded layers: one tiled GEMM over the NHWC input as it is.
  kinds.push_back({"cuda_gemm1x1", gemm_params(), gemm_violation});
  // Winograd F(m x m, 3x3): ft = pre times the layer with its filter transform precomputed
  // (inference), ft = each transforms the filter in every run; tv channels per transform thread.
  std::vector<Param> wino = {{"m", V{"2", "4"}}, {"ft", V{"pre", "each"}}, {"tv", V{"1", "4"}}};
  for (Param& p : gemm_params()) wino.push_back(std::move(p));
  kinds.push_back({"cuda_winograd", std::move(wino), gemm_violation});
  // Implicit GEMM on the tensor cores (conv2d_igemm_mma.cuh): pixels x output channels per block,
  // warp tiles, K tile and cp.async stages.
  kinds.push_back({"cuda_igemm_mma",
                   {{"bm", V{"64", "128"}},
                    {"bn", V{"64", "128"}},
                    {"bk", V{"32", "64"}},
                    {"wm", V{"32", "64"}},
                    {"wn", V{"32", "64"}},
                    {"st", V{"3", "4"}}},
                   igemm_mma_violation});
}

void add_cuda_wgmma_kinds(std::vector<SpaceKind>& kinds) {
  // Implicit GEMM on the Hopper warpgroup MMAs (conv2d_wgmma.cuh), one work item a block.
  kinds.push_back({"cuda_igemm_wgmma", wgmma_params(), igemm_wgmma_violation});
}

void add_cuda_wgmma_persist_kinds(std::vector<SpaceKind>& kinds) {
  // The same kernel and configs with a persistent grid (PERSIST = 1: one block an SM walks the
  // work items; the producer loads the next item while the consumers store the last one). On
  // the H100 the best of three configs ran VGG16 batch 16 in 0.991 ms against 1.119 without it
  // (results/h100-80gb-hbm3/conv-wgmma-persist); a kind of its own, since the params of a
  // measured kind never change.
  kinds.push_back({"cuda_igemm_wgmma_persist", wgmma_params(), igemm_wgmma_violation});
}

}  // namespace ktune::kernels::conv2d
