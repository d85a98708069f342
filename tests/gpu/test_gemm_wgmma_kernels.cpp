// The Hopper tensor-core GEMM kernels (kernels/gemm/cuda/gemm_wgmma.cuh) compiled by NVRTC for
// sm_90a and launched through gemm_wgmma_launch.hpp, against the host float64 reference of the
// FP32 inputs with the per-precision bound: every config of the `wgmma` kind x 4 transposes x
// bf16 / fp16 on a shape of whole tiles and on ragged batched ones (partial M, N and K tiles:
// TMA's zero fill and the predicated epilogue), alpha / beta; refusals (precisions, misaligned
// leading dimensions and base pointers). The `wgmmatf32` kind likewise in tf32, with the K-major
// copies of MN-major and misaligned operands (odd leading dimensions, bases off the 16-byte grid).
// The `wgmmapp` kind (the ping-pong kernel) and the `wgmmamc` kind (the cooperative kernel in
// clusters of 2 blocks sharing A by TMA multicast; its ragged shapes have odd N tile counts, so
// that a cluster's second block falls past the N edge) like `wgmma`. The `wgmmats` kind (C stored
// by TMA from shared memory, one block or clusters) likewise with C on TMA's 16-byte grid (ldc a
// multiple of 4: the TMA store, clipped at the M and N edges) and off it (the plain epilogue it
// falls back to), and with beta != 0 (likewise); the `wgmmacs` kind (the same staging stored by
// the consumer threads in 16-byte pieces) likewise. The `wgmmasplit` kind (the cooperative kernel
// over (tile, K slice) units, FP32 partial sums in a NaN-poisoned workspace, then the split-K
// reduction into FP32 or 16-bit C): every config x transposes x bf16 / fp16 x both C types on
// whole tiles, ragged batched shapes (k of exactly `splits` K tiles, the last partial, so k <
// splits * bk), more units than SMs, alpha / beta; its refusals (empty slices, no workspace,
// other precisions, misalignment). The bound itself is tested
// with planted errors in tests/core/test_gemm_precision.cpp.
// The compile checks need NVRTC only; the rest an sm_90 device.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "kernels/common/gemm_config.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cuda/gemm_wgmma_launch.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/cubin_info.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/family.hpp"
#include "tests/gpu/gemm_kernel_fixture.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/gpu/tc_gemm_fixture.hpp"

namespace {

using ktune::cuda::NvrtcRequest;
using ktune::kernels::gemm::BlockedParams;
using ktune::kernels::gemm::Precision;
using ktune::kernels::gemm::Shape;
namespace gcuda = ktune::kernels::gemm::cuda;
namespace gemm = ktune::kernels::gemm;

const std::vector<Precision> kPrecisions = {Precision::bf16, Precision::fp16};

// The `wgmma` kind of the GEMM space in the space's order, read from the family.
std::vector<BlockedParams> wgmma_space() { return ktune::test::gemm_kind_configs("kind:wgmma"); }
std::vector<BlockedParams> wgmma_pp_space() {
  return ktune::test::gemm_kind_configs("kind:wgmmapp");
}
std::vector<BlockedParams> wgmma_mc_space() {
  return ktune::test::gemm_kind_configs("kind:wgmmamc");
}
std::vector<BlockedParams> wgmma_ts_space() {
  return ktune::test::gemm_kind_configs("kind:wgmmats");
}
std::vector<BlockedParams> wgmma_cs_space() {
  return ktune::test::gemm_kind_configs("kind:wgmmacs");
}
std::vector<BlockedParams> wgmma_tf32_space() {
  return ktune::test::gemm_kind_configs("kind:wgmmatf32");
}
std::vector<BlockedParams> wgmma_split_space() {
  return ktune::test::gemm_kind_configs("kind:wgmmasplit");
}

NvrtcRequest wgmma_request(const BlockedParams& p, Precision precision, bool ta, bool tb,
                           bool c16 = false) {
  return ktune::test::kernel_request(
      "gemm_wgmma.cuh", gcuda::wgmma_name_expression(p, precision, ta, tb, c16), "sm_90a");
}
// The split-K reduction into q's 16-bit type, compiled with the wgmma kernels (as the sweep does).
NvrtcRequest reduce16_request(Precision q) {
  return ktune::test::kernel_request("gemm_wgmma.cuh", gcuda::splitk_reduce16_name_expression(q),
                                     "sm_90a");
}
NvrtcRequest pack_request(bool k_contiguous) {
  return ktune::test::kernel_request("gemm_wgmma.cuh",
                                     gcuda::wgmma_pack_name_expression(k_contiguous), "sm_90a");
}

// A 16-bit Hopper kind: bf16 and fp16 problems, never tf32 or fp32.
void expect_serves_16bit_only(gemm::Kind kind) {
  for (Precision q : {Precision::bf16, Precision::fp16}) EXPECT_TRUE(gemm::kind_serves(kind, q));
  for (Precision q : {Precision::tf32, Precision::fp32}) EXPECT_FALSE(gemm::kind_serves(kind, q));
}

TEST(WgmmaTf32GemmHost, ConfigsNameExpressionAndWorkspace) {
  const gemm::GemmConfig g =
      gemm::parse_gemm_config("kind=wgmmatf32;bm=128;bn=128;bk=32;st=4;gr=8");
  ASSERT_TRUE(g.valid);
  EXPECT_EQ(g.kind, gemm::Kind::wgmmatf32);
  EXPECT_TRUE(gemm::runs_wgmma_kernel(g.kind));
  // Whatever the transposes, the K-major instantiation (the launcher copies the others).
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::tf32, t & 1, t & 2),
              "ktune_gemm_wgmma<128,128,4,8,1,1,0>");
  // 32 floats a row: the bytes of the 16-bit kernel's 64-element rows.
  EXPECT_EQ(gemm::wgmma_smem_bytes(g.blocked), 4 * 256 * 128 + 64 + 1024);
  const auto space = wgmma_tf32_space();
  ASSERT_EQ(space.size(), 24u);
  const auto sixteen = wgmma_space();
  for (size_t i = 0; i < space.size(); ++i) {
    EXPECT_TRUE(gcuda::wgmma_supported_params(space[i]));
    EXPECT_EQ(space[i].bk, 32);
    EXPECT_EQ(space[i].bm, sixteen[i].bm);  // the wgmma kind's tiles, in its order
    EXPECT_EQ(space[i].bn, sixteen[i].bn);
    EXPECT_EQ(space[i].st, sixteen[i].st);
    EXPECT_EQ(space[i].gr, sixteen[i].gr);
  }
  EXPECT_TRUE(gemm::kind_serves(gemm::Kind::wgmmatf32, Precision::tf32));
  for (Precision q : {Precision::fp32, Precision::bf16, Precision::fp16})
    EXPECT_FALSE(gemm::kind_serves(gemm::Kind::wgmmatf32, q));
  // Workspace: A (m lines) when not K-major on the grid, then B (n lines); lines of k rounded
  // up to 4 floats.
  alignas(16) static float base[8];
  const float* off = base + 1;
  EXPECT_EQ(
      gcuda::wgmma_tf32_workspace_floats(true, false, 10, 20, 30, 2, base, 32, 320, base, 32, 640),
      0);
  EXPECT_EQ(
      gcuda::wgmma_tf32_workspace_floats(false, false, 10, 20, 30, 2, base, 12, 360, base, 32, 640),
      2 * 10 * 32);
  EXPECT_EQ(gcuda::wgmma_tf32_workspace_floats(true, true, 10, 20, 30, 1, base, 32, 0, base, 20, 0),
            20 * 32);
  EXPECT_EQ(gcuda::wgmma_tf32_workspace_floats(true, false, 10, 20, 30, 1, off, 32, 0, base, 31, 0),
            10 * 32 + 20 * 32);  // A's base and B's leading dimension off the grid
  EXPECT_EQ(
      gcuda::wgmma_tf32_workspace_floats(true, false, 10, 20, 30, 3, base, 32, 322, base, 32, 640),
      3 * 10 * 32);  // A's batch stride off the grid
}

TEST(WgmmaGemmHost, ConfigTextNameExpressionAndSharedMemory) {
  const gemm::GemmConfig g = gemm::parse_gemm_config("kind=wgmma;bm=128;bn=256;bk=64;st=4;gr=8");
  ASSERT_TRUE(g.valid);
  EXPECT_EQ(g.kind, gemm::Kind::wgmma);
  EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::bf16, true, false),
            "ktune_gemm_wgmma<128,256,4,8,2,1,0>");
  EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::bf16, true, false, /*c16=*/true),
            "ktune_gemm_wgmma<128,256,4,8,2,1,0,1>");  // C in bf16: the C16 instantiation
  // 4 stages of (128 + 256) x 64 16-bit elements, 8 barriers, 1024 bytes of alignment slack.
  EXPECT_EQ(gemm::wgmma_smem_bytes(g.blocked), 4 * 384 * 128 + 64 + 1024);
  EXPECT_FALSE(gemm::parse_gemm_config("kind=wgmma;bm=128;bn=256;bk=64;st=4").valid);
  EXPECT_FALSE(gemm::parse_gemm_config("kind=wgmma;bm=128;bn=256;bk=64;st=4;gr=8;wm=64").valid);
  EXPECT_EQ(wgmma_space().size(), 24u);
  for (const BlockedParams& p : wgmma_space()) {
    EXPECT_TRUE(gcuda::wgmma_supported_params(p));
    EXPECT_LE(gemm::wgmma_smem_bytes(p), 227 * 1024);
  }
  expect_serves_16bit_only(gemm::Kind::wgmma);
}

TEST(WgmmaPpGemmHost, ConfigTextNameExpressionAndSharedMemory) {
  const gemm::GemmConfig g = gemm::parse_gemm_config("kind=wgmmapp;bm=64;bn=256;bk=64;st=5;gr=8");
  ASSERT_TRUE(g.valid);
  EXPECT_EQ(g.kind, gemm::Kind::wgmmapp);
  EXPECT_TRUE(gemm::runs_wgmma_kernel(g.kind));
  EXPECT_EQ(g.blocked.pp, 1);
  EXPECT_EQ(gemm::parse_gemm_config("kind=wgmma;bm=128;bn=256;bk=64;st=4;gr=8").blocked.pp, 0);
  EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::fp16, false, true),
            "ktune_gemm_wgmma_pp<64,256,5,8,3,0,1>");
  EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::fp16, false, true, /*c16=*/true),
            "ktune_gemm_wgmma_pp<64,256,5,8,3,0,1,1>");
  // 5 stages of (64 + 256) x 64 16-bit elements, 10 barriers, 1024 bytes of alignment slack.
  EXPECT_EQ(gemm::wgmma_smem_bytes(g.blocked), 5 * 320 * 128 + 80 + 1024);
  const auto space = wgmma_pp_space();
  EXPECT_EQ(space.size(), 16u);
  for (const BlockedParams& p : space) {
    EXPECT_TRUE(gcuda::wgmma_supported_params(p));
    EXPECT_LE(p.bm * p.bn, 128 * 128);  // one warpgroup's 128 accumulators a thread
    EXPECT_LE(gemm::wgmma_smem_bytes(p), 227 * 1024);
  }
  // A cooperative-only tile is outside the ping-pong template, and the reverse.
  BlockedParams wide = g.blocked;
  wide.bm = 128;
  EXPECT_FALSE(gcuda::wgmma_supported_params(wide));
  wide.pp = 0;
  EXPECT_TRUE(gcuda::wgmma_supported_params(wide));
  BlockedParams narrow = g.blocked;
  narrow.pp = 0;
  EXPECT_FALSE(gcuda::wgmma_supported_params(narrow));  // bm 64 needs one warpgroup a tile
  expect_serves_16bit_only(gemm::Kind::wgmmapp);
}

TEST(WgmmaMcGemmHost, ConfigTextNameExpressionAndClusters) {
  const std::string text = "kind=wgmmamc;bm=256;bn=128;bk=64;st=4;gr=1;cl=2";
  const gemm::GemmConfig g = gemm::parse_gemm_config(text);
  ASSERT_TRUE(g.valid) << text;
  // The cluster kernel's instantiation, whatever the transposes; cl from the config, pp 0.
  EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::bf16, false, true),
            "ktune_gemm_wgmma_mc<256,128,4,1,2,0,1>");
  EXPECT_EQ(std::string(gemm::kind_name(g.kind)), "wgmmamc");
  EXPECT_TRUE(gemm::runs_wgmma_kernel(g.kind));
  EXPECT_EQ(g.blocked.cl, 2);
  EXPECT_EQ(g.blocked.pp, 0);
  // The cooperative kernel's shared memory: each block holds the whole A tile.
  EXPECT_EQ(gemm::wgmma_smem_bytes(g.blocked), 4 * 384 * 128 + 64 + 1024);
  // One block a cluster is the wgmma kind; cl belongs to wgmmamc only.
  EXPECT_FALSE(gemm::parse_gemm_config("kind=wgmmamc;bm=256;bn=128;bk=64;st=4;gr=1;cl=1").valid);
  EXPECT_FALSE(gemm::parse_gemm_config("kind=wgmmamc;bm=256;bn=128;bk=64;st=4;gr=1").valid);
  EXPECT_FALSE(gemm::parse_gemm_config("kind=wgmma;bm=256;bn=128;bk=64;st=4;gr=1;cl=2").valid);
  EXPECT_EQ(gemm::parse_gemm_config("kind=wgmma;bm=256;bn=128;bk=64;st=4;gr=1").blocked.cl, 1);
  const auto space = wgmma_mc_space();
  EXPECT_EQ(space.size(), 14u);
  for (const BlockedParams& p : space) {
    EXPECT_TRUE(gcuda::wgmma_supported_params(p));
    EXPECT_EQ(p.cl, 2);
    EXPECT_GE(p.bn, 128);
    EXPECT_LE(gemm::wgmma_smem_bytes(p), 227 * 1024);
  }
  // Clusters of the ping-pong kernel, of 3 blocks, or in tf32 (bk 32) are outside the template.
  BlockedParams other = g.blocked;
  other.pp = 1, other.bm = 128;
  EXPECT_FALSE(gcuda::wgmma_supported_params(other));
  other = g.blocked;
  other.cl = 3;
  EXPECT_FALSE(gcuda::wgmma_supported_params(other));
  other = g.blocked;
  other.bk = 32;
  EXPECT_FALSE(gcuda::wgmma_supported_params(other));
  expect_serves_16bit_only(gemm::Kind::wgmmamc);
}

TEST(WgmmaTsGemmHost, ConfigTextNameExpressionAndSharedMemory) {
  const gemm::GemmConfig g =
      gemm::parse_gemm_config("kind=wgmmats;bm=256;bn=128;bk=64;st=4;gr=1;cl=1");
  ASSERT_TRUE(g.valid);
  EXPECT_EQ(std::string(gemm::kind_name(g.kind)), "wgmmats");
  EXPECT_TRUE(gemm::runs_wgmma_kernel(g.kind));
  EXPECT_EQ(g.blocked.ts, 1);
  EXPECT_EQ(g.blocked.pp, 0);
  EXPECT_EQ(gemm::parse_gemm_config("kind=wgmmamc;bm=256;bn=128;bk=64;st=4;gr=1;cl=2").blocked.ts,
            0);
  EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::bf16, false, false),
            "ktune_gemm_wgmma_ts<256,128,4,1,2,0,0>");
  BlockedParams cluster = g.blocked;
  cluster.cl = 2;
  EXPECT_EQ(gcuda::wgmma_name_expression(cluster, Precision::fp16, true, true),
            "ktune_gemm_wgmma_mcts<256,128,4,1,3,1,1>");
  // The cooperative kernel's stages plus two 8 KiB buffers per consumer warpgroup.
  EXPECT_EQ(gemm::wgmma_smem_bytes(g.blocked), 4 * 384 * 128 + 32768 + 64 + 1024);
  EXPECT_FALSE(gemm::parse_gemm_config("kind=wgmmats;bm=256;bn=128;bk=64;st=4;gr=1").valid);
  const auto space = wgmma_ts_space();
  EXPECT_EQ(space.size(), 12u);
  int clusters = 0;
  for (const BlockedParams& p : space) {
    EXPECT_TRUE(gcuda::wgmma_supported_params(p));
    EXPECT_EQ(p.ts, 1);
    EXPECT_GE(p.bn, 128);
    clusters += p.cl == 2;
    EXPECT_LE(gemm::wgmma_smem_bytes(p), 227 * 1024);
  }
  EXPECT_EQ(clusters, 6);
  BlockedParams other = g.blocked;
  other.pp = 1, other.bm = 128;
  EXPECT_FALSE(gcuda::wgmma_supported_params(other));  // no ping-pong form
  other = g.blocked;
  other.bk = 32;
  EXPECT_FALSE(gcuda::wgmma_supported_params(other));  // no tf32 form
  expect_serves_16bit_only(gemm::Kind::wgmmats);
}

TEST(WgmmaCsGemmHost, ConfigTextNameExpressionAndSharedMemory) {
  const gemm::GemmConfig g =
      gemm::parse_gemm_config("kind=wgmmacs;bm=256;bn=128;bk=64;st=4;gr=8;cl=2");
  ASSERT_TRUE(g.valid);
  EXPECT_EQ(std::string(gemm::kind_name(g.kind)), "wgmmacs");
  EXPECT_TRUE(gemm::runs_wgmma_kernel(g.kind));
  EXPECT_EQ(g.blocked.ts, 2);
  EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::bf16, false, false),
            "ktune_gemm_wgmma_mccs<256,128,4,8,2,0,0>");
  BlockedParams one = g.blocked;
  one.cl = 1;
  EXPECT_EQ(gcuda::wgmma_name_expression(one, Precision::fp16, true, false),
            "ktune_gemm_wgmma_cs<256,128,4,8,3,1,0>");
  EXPECT_EQ(gemm::wgmma_smem_bytes(g.blocked), 4 * 384 * 128 + 32768 + 64 + 1024);
  const auto space = wgmma_cs_space(), ts = wgmma_ts_space();
  ASSERT_EQ(space.size(), ts.size());
  for (size_t i = 0; i < space.size(); ++i) {
    EXPECT_TRUE(gcuda::wgmma_supported_params(space[i]));
    EXPECT_EQ(space[i].ts, 2);
    EXPECT_EQ(space[i].bm, ts[i].bm);  // wgmmats's configs, in its order
    EXPECT_EQ(space[i].bn, ts[i].bn);
    EXPECT_EQ(space[i].gr, ts[i].gr);
    EXPECT_EQ(space[i].cl, ts[i].cl);
  }
  BlockedParams other = g.blocked;
  other.ts = 3;
  EXPECT_FALSE(gcuda::wgmma_supported_params(other));
  expect_serves_16bit_only(gemm::Kind::wgmmacs);
}

TEST(WgmmaSplitGemmHost, ConfigTextNameExpressionAndRefusals) {
  const std::string text = "kind=wgmmasplit;bm=128;bn=128;bk=64;st=4;gr=8;splits=8";
  const gemm::GemmConfig g = gemm::parse_gemm_config(text);
  ASSERT_TRUE(g.valid) << text;
  EXPECT_EQ(std::string(gemm::kind_name(g.kind)), "wgmmasplit");
  EXPECT_TRUE(gemm::runs_wgmma_kernel(g.kind));
  EXPECT_FALSE(gemm::runs_mma_kernel(g.kind));
  EXPECT_EQ(g.blocked.splits, 8);
  EXPECT_EQ(g.blocked.pp, 0);
  EXPECT_EQ(g.blocked.cl, 1);
  EXPECT_EQ(g.blocked.ts, 0);
  // One instantiation for FP32 and 16-bit C: it stores FP32 partial sums.
  EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::bf16, true, false),
            "ktune_gemm_wgmma_sk<128,128,4,8,2,1,0>");
  EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::fp16, false, true, /*c16=*/true),
            "ktune_gemm_wgmma_sk<128,128,4,8,3,0,1>");
  EXPECT_EQ(gemm::wgmma_smem_bytes(g.blocked), 4 * 256 * 128 + 64 + 1024);
  // One slice is the wgmma kind; splits belongs to wgmmasplit only (and is required there).
  EXPECT_FALSE(
      gemm::parse_gemm_config("kind=wgmmasplit;bm=128;bn=128;bk=64;st=4;gr=8;splits=1").valid);
  EXPECT_FALSE(gemm::parse_gemm_config("kind=wgmmasplit;bm=128;bn=128;bk=64;st=4;gr=8").valid);
  EXPECT_FALSE(gemm::parse_gemm_config("kind=wgmma;bm=128;bn=128;bk=64;st=4;gr=8;splits=2").valid);
  EXPECT_FALSE(
      gemm::parse_gemm_config("kind=wgmmasplit;bm=128;bn=128;bk=64;st=4;gr=8;splits=2;cl=2").valid);
  expect_serves_16bit_only(gemm::Kind::wgmmasplit);
  EXPECT_TRUE(gemm::kind_serves_c16(gemm::Kind::wgmmasplit));
  const auto space = wgmma_split_space();
  EXPECT_EQ(space.size(), 28u);
  std::map<int, int> per_splits;
  for (const BlockedParams& p : space) {
    EXPECT_TRUE(gcuda::wgmma_supported_params(p));
    EXPECT_EQ(p.bk, 64);
    EXPECT_LE(p.bm * p.bn, 128 * 256);
    EXPECT_LE(gemm::wgmma_smem_bytes(p), 227 * 1024);
    ++per_splits[p.splits];
  }
  EXPECT_EQ(per_splits, (std::map<int, int>{{2, 7}, {4, 7}, {8, 7}, {16, 7}}));
  // Slices of the ping-pong, cluster or staged kernels, or in tf32, are outside the template.
  for (auto edit : {+[](BlockedParams& q) { q.pp = 1; }, +[](BlockedParams& q) { q.cl = 2; },
                    +[](BlockedParams& q) { q.ts = 1; }, +[](BlockedParams& q) { q.bk = 32; }}) {
    BlockedParams other = g.blocked;
    edit(other);
    EXPECT_FALSE(gcuda::wgmma_supported_params(other));
  }
  // Refusals made before any CUDA call (no GPU needed): a null kernel is the last of them.
  alignas(16) static unsigned short operand[8];
  alignas(16) static float partial[4];
  const void* reduce = partial;  // any non-null pointer: never launched here
  const gcuda::WgmmaSplitK split{reduce, partial};
  auto launch = [&](const BlockedParams& p, Precision q, long long m, long long n, long long k,
                    const gcuda::WgmmaSplitK& with, bool c16 = false) {
    const long long ldb = (k + 7) / 8 * 8;  // on TMA's 16-byte grid
    return gcuda::launch_wgmma(nullptr, 227 * 1024, p, q, false, false, m, n, k, 1, 1.0f, operand,
                               m, 0, operand, ldb, 0, 0.0f, partial, m, 0, nullptr, {}, c16, with);
  };
  auto expect_refused = [](const gcuda::TiledLaunch& r, const std::string& why) {
    EXPECT_TRUE(r.refused) << why;
    EXPECT_NE(r.message.find(why), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("ktune_gemm_wgmma_sk<"), std::string::npos) << r.message;
  };
  expect_refused(launch(g.blocked, Precision::tf32, 64, 64, 4096, split),
                 "the split-K kernel computes bf16 and fp16");
  expect_refused(launch(g.blocked, Precision::tf32, 64, 64, 4096, split, true), "16-bit C");
  expect_refused(launch(g.blocked, Precision::fp32, 64, 64, 4096, split), "computes tf32");
  // 7 K tiles for 8 slices (k = 448 would be 7 too; 449 is 8, the last of one element).
  expect_refused(launch(g.blocked, Precision::bf16, 64, 64, 448, split), "leave some empty");
  expect_refused(launch(g.blocked, Precision::bf16, 64, 64, 100, split), "leave some empty");
  expect_refused(launch(g.blocked, Precision::bf16, 64, 64, 449, {}), "workspace");
  expect_refused(launch(g.blocked, Precision::bf16, 64, 64, 449, {nullptr, partial}), "workspace");
  expect_refused(launch(g.blocked, Precision::bf16, 8192, 8192, 4096, split), "1024 MiB");
  expect_refused(launch(g.blocked, Precision::fp16, 64, 64, 449, {reduce, partial + 1}),
                 "16-byte aligned");
  expect_refused(launch(g.blocked, Precision::bf16, 64, 64, 449, split), "no kernel");
  expect_refused(launch(g.blocked, Precision::fp16, 64, 64, 449, split, true), "no kernel");
}

// NVRTC only: every tf32 config and both copy kernels compile for sm_90a.
TEST(WgmmaTf32GemmNvrtc, EveryConfigAndTheCopyKernelsCompileForSm90a) {
  ktune::test::ScopedCacheDir cache("wgmma-tf32-all");
  std::vector<NvrtcRequest> requests = {pack_request(false), pack_request(true)};
  for (const BlockedParams& p : wgmma_tf32_space())
    requests.push_back(wgmma_request(p, Precision::tf32, true, false));
  ktune::test::expect_all_compile(requests);
}

// NVRTC only: every config compiles for sm_90a in both precisions (the transpose pair cycles
// over the configs).
TEST(WgmmaGemmNvrtc, EveryConfigCompilesForSm90a) {
  ktune::test::ScopedCacheDir cache("wgmma-all");
  auto configs = wgmma_space();
  for (const BlockedParams& p : wgmma_pp_space()) configs.push_back(p);
  for (const BlockedParams& p : wgmma_mc_space()) configs.push_back(p);
  for (const BlockedParams& p : wgmma_ts_space()) configs.push_back(p);
  for (const BlockedParams& p : wgmma_cs_space()) configs.push_back(p);
  std::vector<NvrtcRequest> requests;
  for (size_t i = 0; i < configs.size(); ++i)
    for (size_t q = 0; q < 2; ++q)
      requests.push_back(
          wgmma_request(configs[i], kPrecisions[q], (i + q) & 1, ((i + q) >> 1) & 1));
  ktune::test::expect_all_compile(requests);
}

// NVRTC only: the 16-bit-C instantiation (C16 = 1) of every config of the kinds a sweep with
// 16-bit C compiles (wgmma, wgmmapp, wgmmamc: kind_serves_c16), the precision and transpose
// pair cycling over the configs. The staged kinds' C16 instantiations are the deployed
// library's (aot_check_wgmma.cu) and SixteenBitCEveryKindMatchesTheReference's.
TEST(WgmmaGemmNvrtc, EverySixteenBitCConfigCompilesForSm90a) {
  ktune::test::ScopedCacheDir cache("wgmma-c16-all");
  auto configs = wgmma_space();
  for (const BlockedParams& p : wgmma_pp_space()) configs.push_back(p);
  for (const BlockedParams& p : wgmma_mc_space()) configs.push_back(p);
  std::vector<NvrtcRequest> requests;
  for (size_t i = 0; i < configs.size(); ++i)
    requests.push_back(wgmma_request(configs[i], kPrecisions[i % 2], (i >> 1) & 1, (i >> 2) & 1,
                                     /*c16=*/true));
  ktune::test::expect_all_compile(requests);
}

// NVRTC only: every split-K config compiles for sm_90a (the precision and transpose pair cycling
// over the configs; one instantiation serves both C types), with the 16-bit-C reductions the
// sweep compiles beside them; and each keeps the registers of the unsplit cooperative kernel of
// its tile and stages (ptxas caps both at 168 for 384 threads: a rise would be a spill risk
// nothing else in CI sees; nvcc 13 reports no spills for either).
TEST(WgmmaSplitGemmNvrtc, EveryConfigCompilesForSm90aWithTheUnsplitKernelsRegisters) {
  ktune::test::ScopedCacheDir cache("wgmma-split-all");
  const auto configs = wgmma_split_space();
  std::vector<NvrtcRequest> requests = {reduce16_request(Precision::bf16),
                                        reduce16_request(Precision::fp16)};
  for (size_t i = 0; i < configs.size(); ++i) {
    BlockedParams unsplit = configs[i];
    unsplit.splits = 1;
    for (const BlockedParams& p : {configs[i], unsplit})
      requests.push_back(wgmma_request(p, kPrecisions[i % 2], (i >> 1) & 1, (i >> 2) & 1));
  }
  const auto images = ktune::test::expect_all_compile(requests);
  for (size_t i = 0; i < configs.size(); ++i) {
    const auto& split = images[2 + 2 * i];
    const auto& unsplit = images[3 + 2 * i];
    if (split.cubin.empty() || unsplit.cubin.empty()) continue;  // reported above
    EXPECT_NE(split.lowered_name.find("ktune_gemm_wgmma_sk"), std::string::npos);
    const int registers = ktune::cubin_register_count(split.cubin, split.lowered_name);
    const int base = ktune::cubin_register_count(unsplit.cubin, unsplit.lowered_name);
    EXPECT_LE(registers, base) << requests[2 + 2 * i].name_expression;
    EXPECT_LE(registers, 168) << requests[2 + 2 * i].name_expression;
  }
}

class WgmmaGemmTest : public ktune::test::TensorCoreGemmTest {
 protected:
  void SetUp() override {
    TensorCoreGemmTest::SetUp();
    if (IsSkipped()) return;
    if (arch_ != "sm_90") GTEST_SKIP() << "wgmma needs an sm_90 device";
  }
  NvrtcRequest request(const BlockedParams& p, Precision q, bool ta, bool tb,
                       bool c16) const override {
    return wgmma_request(p, q, ta, tb, c16);
  }

  struct Result {
    double error = -1;  // relative error, -1 when refused
    std::string message;
  };

  // C = alpha*op(A)*op(B) + beta*C0 against the float64 reference of the FP32 values (C0
  // NaN-poisoned when beta == 0). a_offset shifts A's base by that many elements.
  Result run(const BlockedParams& p, Precision q, const Shape& s, float alpha, float beta,
             uint64_t seed, int a_offset = 0) {
    const ktune::test::GemmInputs in = ktune::test::gemm_inputs(s, beta, seed, a_offset);
    // The float64 reference depends on the FP32 values only, not on the precision or config.
    const std::string key =
        std::to_string(s.m) + "," + std::to_string(s.n) + "," + std::to_string(s.k) + "," +
        std::to_string(s.batch) + "," + std::to_string(s.transa) + std::to_string(s.transb) + "," +
        std::to_string(s.lda) + "," + std::to_string(s.ldb) + "," + std::to_string(s.ldc) + "," +
        std::to_string(seed) + "," + std::to_string(alpha) + "," + std::to_string(beta) + "," +
        std::to_string(a_offset);
    auto& ref = references_[key];
    if (ref.empty())
      ref = gemm::reference_gemm(s, in.a.data() + a_offset, in.b.data(), alpha, beta, in.c.data());
    const auto bits_a = gemm::to_input_bits(in.a, q), bits_b = gemm::to_input_bits(in.b, q);
    auto a = upload_bits(bits_a, "A"), b = upload_bits(bits_b, "B");
    auto c = ktune::test::upload(in.c, "C");
    const auto& k = kernel(p, q, s.transa, s.transb);
    const auto launch =
        gcuda::launch_wgmma(k.function(), max_shared_, p, q, s.transa, s.transb, s.m, s.n, s.k,
                            s.batch, alpha, a.data() + a_offset, s.lda, s.stride_a(), b.data(),
                            s.ldb, s.stride_b(), beta, c.data(), s.ldc, s.stride_c(), nullptr);
    EXPECT_EQ(launch.error, cudaSuccess) << launch.message;
    if (launch.refused) return {-1, launch.message};
    ktune::cuda::check(
        cudaDeviceSynchronize(),
        "cudaDeviceSynchronize(" + wgmma_request(p, q, s.transa, s.transb).name_expression + ")");
    const auto out = ktune::test::download(c);
    return {gemm::relative_error(s, out.data(), ref), ""};
  }

  // The tf32 kind: FP32 inputs, A shifted by a_offset and B by b_offset elements (bases off the
  // 16-byte grid), the copies' workspace NaN-poisoned; workspace_floats < 0: the launcher's need.
  Result run_tf32(const BlockedParams& p, const Shape& s, float alpha, float beta, uint64_t seed,
                  int a_offset = 0, int b_offset = 0, long long workspace_floats = -1) {
    ktune::test::GemmInputs in = ktune::test::gemm_inputs(s, beta, seed, a_offset);
    in.b.insert(in.b.begin(), size_t(b_offset), 0.5f);
    const std::string key =
        "tf32," + std::to_string(s.m) + "," + std::to_string(s.n) + "," + std::to_string(s.k) +
        "," + std::to_string(s.batch) + "," + std::to_string(s.transa) + std::to_string(s.transb) +
        "," + std::to_string(s.lda) + "," + std::to_string(s.ldb) + "," + std::to_string(s.ldc) +
        "," + std::to_string(seed) + "," + std::to_string(alpha) + "," + std::to_string(beta) +
        "," + std::to_string(a_offset) + "," + std::to_string(b_offset);
    auto& ref = references_[key];
    if (ref.empty())
      ref = gemm::reference_gemm(s, in.a.data() + a_offset, in.b.data() + b_offset, alpha, beta,
                                 in.c.data());
    auto a = ktune::test::upload(in.a, "A"), b = ktune::test::upload(in.b, "B");
    auto c = ktune::test::upload(in.c, "C");
    const float* da = a.data() + a_offset;
    const float* db = b.data() + b_offset;
    const long long need =
        gcuda::wgmma_tf32_workspace_floats(s.transa, s.transb, s.m, s.n, s.k, s.batch, da, s.lda,
                                           s.stride_a(), db, s.ldb, s.stride_b());
    const long long floats = workspace_floats < 0 ? need : workspace_floats;
    ktune::cuda::DeviceBuffer<float> workspace(size_t(floats > 0 ? floats : 1), "workspace");
    ktune::cuda::check(cudaMemset(workspace.data(), 0xFF, workspace.bytes()),
                       "cudaMemset(poison workspace)");
    gcuda::WgmmaTf32Pack pack{kernels_.get(pack_request(false)).function(),
                              kernels_.get(pack_request(true)).function(),
                              floats > 0 ? workspace.data() : nullptr, floats};
    const auto& k = kernel(p, Precision::tf32, s.transa, s.transb);
    const auto launch =
        gcuda::launch_wgmma(k.function(), max_shared_, p, Precision::tf32, s.transa, s.transb, s.m,
                            s.n, s.k, s.batch, alpha, da, s.lda, s.stride_a(), db, s.ldb,
                            s.stride_b(), beta, c.data(), s.ldc, s.stride_c(), nullptr, pack);
    EXPECT_EQ(launch.error, cudaSuccess) << launch.message;
    if (launch.refused) return {-1, launch.message};
    ktune::cuda::check(cudaDeviceSynchronize(),
                       "cudaDeviceSynchronize(tf32 " +
                           wgmma_request(p, Precision::tf32, 1, 0).name_expression + ")");
    const auto out = ktune::test::download(c);
    return {gemm::relative_error(s, out.data(), ref), ""};
  }

  // C in q's 16-bit type (bf16 / fp16): C0 rounded to it (the reference reads it so; NaN bits
  // when beta == 0), the C16 instantiation and the launcher's c16, C read back as 16-bit values.
  Result run16(const BlockedParams& p, Precision q, const Shape& s, float alpha, float beta,
               uint64_t seed) {
    ktune::test::GemmInputs in = ktune::test::gemm_inputs(s, beta, seed, 0);
    for (float& x : in.c) x = gemm::round_input(x, q);
    const auto ref = gemm::reference_gemm(s, in.a.data(), in.b.data(), alpha, beta, in.c.data());
    auto a = upload_bits(gemm::to_input_bits(in.a, q), "A");
    auto b = upload_bits(gemm::to_input_bits(in.b, q), "B");
    auto c = upload_bits(gemm::to_input_bits(in.c, q), "C");
    const auto& k = kernel(p, q, s.transa, s.transb, /*c16=*/true);
    const auto launch = gcuda::launch_wgmma(
        k.function(), max_shared_, p, q, s.transa, s.transb, s.m, s.n, s.k, s.batch, alpha,
        a.data(), s.lda, s.stride_a(), b.data(), s.ldb, s.stride_b(), beta, c.data(), s.ldc,
        s.stride_c(), nullptr, {}, /*c16=*/true);
    EXPECT_EQ(launch.error, cudaSuccess) << launch.message;
    if (launch.refused) return {-1, launch.message};
    ktune::cuda::check(cudaDeviceSynchronize(),
                       "cudaDeviceSynchronize(" +
                           wgmma_request(p, q, s.transa, s.transb, true).name_expression + ")");
    std::vector<uint16_t> bits(in.c.size());
    ktune::cuda::check(cudaMemcpy(bits.data(), c.data(), c.bytes(), cudaMemcpyDeviceToHost),
                       "cudaMemcpy(C back)");
    const std::vector<float> out = gemm::from_input_bits(bits, q);
    return {gemm::relative_error(s, out.data(), ref), ""};
  }

  // Split-K (kind wgmmasplit): C = alpha*op(A)*op(B) + beta*C0 in FP32 C or (c16) C in q's
  // 16-bit type (C0 rounded to it; NaN when beta == 0), the partial sums' workspace
  // NaN-poisoned (a slice the kernel fails to write shows as NaN in C), the reduction for C's
  // type; workspace_floats < 0: what the launch needs (tiled_workspace_floats).
  Result run_split(const BlockedParams& p, Precision q, const Shape& s, float alpha, float beta,
                   uint64_t seed, bool c16, long long workspace_floats = -1) {
    ktune::test::GemmInputs in = ktune::test::gemm_inputs(s, beta, seed, 0);
    if (c16)
      for (float& x : in.c) x = gemm::round_input(x, q);
    // The reference depends on q only through 16-bit C0 (read when beta != 0).
    const std::string c0 = c16 && beta != 0 ? std::to_string(int(q)) : "-";
    const std::string key = "split," + c0 + "," + std::to_string(s.m) + "," + std::to_string(s.n) +
                            "," + std::to_string(s.k) + "," + std::to_string(s.batch) + "," +
                            std::to_string(s.transa) + std::to_string(s.transb) + "," +
                            std::to_string(s.lda) + "," + std::to_string(s.ldb) + "," +
                            std::to_string(s.ldc) + "," + std::to_string(seed) + "," +
                            std::to_string(alpha) + "," + std::to_string(beta);
    auto& ref = references_[key];
    if (ref.empty())
      ref = gemm::reference_gemm(s, in.a.data(), in.b.data(), alpha, beta, in.c.data());
    auto a = upload_bits(gemm::to_input_bits(in.a, q), "A");
    auto b = upload_bits(gemm::to_input_bits(in.b, q), "B");
    ktune::cuda::DeviceBuffer<float> c32(c16 ? 1 : in.c.size(), "C");
    ktune::cuda::DeviceBuffer<uint16_t> c16_out(c16 ? in.c.size() : 1, "16-bit C");
    if (c16) {
      c16_out = upload_bits(gemm::to_input_bits(in.c, q), "16-bit C");
    } else {
      c32 = ktune::test::upload(in.c, "C");
    }
    const long long need = (long long)gcuda::tiled_workspace_floats(p, s.m, s.n, s.batch);
    const long long floats = workspace_floats < 0 ? need : workspace_floats;
    ktune::cuda::DeviceBuffer<float> workspace(size_t(floats > 0 ? floats : 1), "workspace");
    ktune::cuda::check(cudaMemset(workspace.data(), 0xFF, workspace.bytes()),
                       "cudaMemset(poison workspace)");
    const void* reduce = c16 ? kernels_.get(reduce16_request(q)).function()
                             : kernels_.get(ktune::test::splitk_reduce_request(arch_)).function();
    const gcuda::WgmmaSplitK split{reduce, floats > 0 ? workspace.data() : nullptr};
    void* c = c16 ? static_cast<void*>(c16_out.data()) : static_cast<void*>(c32.data());
    const auto& k = kernel(p, q, s.transa, s.transb, c16);
    const auto launch =
        gcuda::launch_wgmma(k.function(), max_shared_, p, q, s.transa, s.transb, s.m, s.n, s.k,
                            s.batch, alpha, a.data(), s.lda, s.stride_a(), b.data(), s.ldb,
                            s.stride_b(), beta, c, s.ldc, s.stride_c(), nullptr, {}, c16, split);
    EXPECT_EQ(launch.error, cudaSuccess) << launch.message;
    if (launch.refused) return {-1, launch.message};
    ktune::cuda::check(cudaDeviceSynchronize(),
                       "cudaDeviceSynchronize(" +
                           wgmma_request(p, q, s.transa, s.transb).name_expression +
                           " splits=" + std::to_string(p.splits) + ")");
    std::vector<float> out;
    if (c16) {
      std::vector<uint16_t> bits(in.c.size());
      ktune::cuda::check(
          cudaMemcpy(bits.data(), c16_out.data(), c16_out.bytes(), cudaMemcpyDeviceToHost),
          "cudaMemcpy(C back)");
      out = gemm::from_input_bits(bits, q);
    } else {
      out = ktune::test::download(c32);
    }
    return {gemm::relative_error(s, out.data(), ref), ""};
  }

  // Compiles the split-K kernels of configs (one per transpose pair and precision: both C types
  // share it) and the reductions.
  void prepare_split(const std::vector<BlockedParams>& configs) {
    prepare(configs, kPrecisions);
    precompile({reduce16_request(Precision::bf16), reduce16_request(Precision::fp16),
                ktune::test::splitk_reduce_request(arch_)});
  }

  // Compiles the tf32 instantiations of configs and the copy kernels (distinct requests only).
  void prepare_tf32(const std::vector<BlockedParams>& configs) {
    std::vector<NvrtcRequest> requests = {pack_request(false), pack_request(true)};
    for (const BlockedParams& p : configs)
      requests.push_back(wgmma_request(p, Precision::tf32, true, false));
    precompile(requests);
  }

  void expect_every_config_matches(const std::vector<BlockedParams>& configs,
                                   bool ldc_on_grid = false);
  void expect_refuses_misaligned_and_other_precisions(const BlockedParams& p);

  static ktune::cuda::DeviceBuffer<uint16_t> upload_bits(const std::vector<uint16_t>& host,
                                                         const char* name) {
    ktune::cuda::DeviceBuffer<uint16_t> out(host.size(), name);
    ktune::cuda::check(cudaMemcpy(out.data(), host.data(), out.bytes(), cudaMemcpyHostToDevice),
                       "cudaMemcpy(16-bit input)");
    return out;
  }

 private:
  std::map<std::string, std::vector<double>> references_;
};

using ktune::test::make_shape;

// Leading dimensions padded to a multiple of 8 elements (16 bytes, what TMA needs): `pad` extra
// elements, rounded up.
Shape aligned_shape(bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t batch) {
  Shape s = make_shape(ta, tb, m, n, k, batch);
  auto up8 = [](int64_t v) { return (v + 8) / 8 * 8; };  // at least one element of padding
  s.lda = up8(s.lda), s.ldb = up8(s.ldb), s.ldc = s.ldc + 1;
  return s;
}
// aligned_shape with ldc padded to a multiple of 4 floats instead (C on TMA's 16-byte grid).
Shape c_aligned_shape(bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t batch) {
  Shape s = aligned_shape(ta, tb, m, n, k, batch);
  s.ldc = (s.ldc + 3) / 4 * 4;
  return s;
}

// Every config x transposes x precision: whole tiles with exact leading dimensions; a ragged
// batched shape (partial M, N and K tiles, padded leading dimensions, odd ldc); and one of 24
// batches with more tiles than an H100 has SMs (132) for every tile shape and 5 K tiles, so that
// blocks take several tiles and the stage ring wraps (the persistent loop and the barriers'
// phases; in ping-pong both consumer warpgroups take tiles, some blocks an odd number).
// ldc_on_grid: the ragged shapes' ldc a multiple of 4 (C's TMA store in kind wgmmats).
void WgmmaGemmTest::expect_every_config_matches(const std::vector<BlockedParams>& configs,
                                                bool ldc_on_grid) {
  const auto ragged = ldc_on_grid ? c_aligned_shape : aligned_shape;
  prepare(configs, kPrecisions);
  int ran = 0;
  for (const BlockedParams& p : configs) {
    for (Precision q : kPrecisions) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        for (const Shape& s : {make_shape(ta, tb, 256, 256, 192, 1), ragged(ta, tb, 77, 45, 70, 2),
                               ragged(ta, tb, 300, 260, 264, 24)}) {
          const Result r = run(p, q, s, 1.0f, 0.0f, 11u + unsigned(t));
          const std::string what = wgmma_request(p, q, ta, tb).name_expression +
                                   " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                                   " k=" + std::to_string(s.k);
          EXPECT_GE(r.error, 0) << what << ": refused: " << r.message;
          if (r.error < 0) continue;
          ++ran;
          EXPECT_LE(r.error, gemm::error_bound(s.k, q)) << what;
        }
      }
    }
  }
  EXPECT_EQ(ran, int(configs.size()) * 2 * 4 * 3);
}

TEST_F(WgmmaGemmTest, EveryConfigTransposeAndPrecisionMatchesTheReference) {
  expect_every_config_matches(wgmma_space());
}

TEST_F(WgmmaGemmTest, PingPongEveryConfigTransposeAndPrecisionMatchesTheReference) {
  expect_every_config_matches(wgmma_pp_space());
}

// Clusters: the shapes above have odd N tile counts (45 and 260 columns: 1 and 3 tiles of 128,
// 1 and 2 of 256; 256 columns of 256: one), so the second block of an edge cluster computes
// nothing but still copies its share of A for the first; the 24-batch shape gives each cluster
// several units (the ring wraps across both blocks' barriers).
TEST_F(WgmmaGemmTest, ClusterEveryConfigTransposeAndPrecisionMatchesTheReference) {
  expect_every_config_matches(wgmma_mc_space());
}

// The TMA-store epilogue: whole tiles (ldc = m, on the grid), the ragged shapes with ldc padded
// to 4 floats (partial boxes clipped at M and N; the 24-batch shape's 3 x 2 or 3 x 3 tiles a
// batch with 256-column tiles past the N edge in clusters), then the ragged shapes with odd ldc
// (C off the grid: the plain epilogue).
TEST_F(WgmmaGemmTest, TmaStoreEveryConfigTransposeAndPrecisionMatchesTheReference) {
  // The driver maps C on the grid (so these shapes take the TMA store), and the launcher never
  // asks it to off the grid.
  ktune::cuda::DeviceBuffer<float> c(4096, "C");
  CUtensorMap map;
  EXPECT_TRUE(gcuda::wgmma_detail::encode_c(map, c.data(), 77, 45, 80, 2, 80 * 45));
  EXPECT_TRUE(gcuda::wgmma_detail::encode_c(map, c.data(), 256, 256, 256, 1, 0));
  EXPECT_FALSE(gcuda::wgmma_detail::encode_c(map, c.data(), 77, 45, 78, 2, 78 * 45));
  EXPECT_FALSE(gcuda::wgmma_detail::encode_c(map, c.data() + 1, 256, 256, 256, 1, 0));
  expect_every_config_matches(wgmma_ts_space(), /*ldc_on_grid=*/true);
}
TEST_F(WgmmaGemmTest, TmaStoreKindOffTheGridFallsBackAndMatches) {
  expect_every_config_matches(wgmma_ts_space());
}
// The staging stored by the threads: the same shapes (16-byte stores inside, element stores at
// the M edge, none past N), then off the grid (the plain epilogue).
TEST_F(WgmmaGemmTest, ThreadStoreEveryConfigTransposeAndPrecisionMatchesTheReference) {
  expect_every_config_matches(wgmma_cs_space(), /*ldc_on_grid=*/true);
}
TEST_F(WgmmaGemmTest, ThreadStoreKindOffTheGridFallsBackAndMatches) {
  expect_every_config_matches(wgmma_cs_space());
}

// alpha and beta (C read and scaled), k shorter than one K tile, one batch; ping-pong, clusters
// and the TMA-store kind (beta != 0: its plain epilogue; alpha alone: its TMA store) too.
TEST_F(WgmmaGemmTest, AlphaBetaAndShortK) {
  for (const auto& staged : {wgmma_ts_space(), wgmma_cs_space()})
    for_three_configs(staged, kPrecisions, [&](const BlockedParams& p, Precision q, int t) {
      const Shape s = c_aligned_shape(t & 1, t & 2, 130, 67, 24, 1);
      const Result r = run(p, q, s, 0.75f, 0.0f, 7u);
      ASSERT_GE(r.error, 0) << r.message;
      EXPECT_LE(r.error, gemm::error_bound(s.k, q))
          << wgmma_request(p, q, t & 1, t & 2).name_expression << " alpha only";
    });
  for (const auto& space :
       {wgmma_space(), wgmma_pp_space(), wgmma_mc_space(), wgmma_ts_space(), wgmma_cs_space()})
    for_three_configs(space, kPrecisions, [&](const BlockedParams& p, Precision q, int t) {
      const Shape s = aligned_shape(t & 1, t & 2, 130, 67, 24, 1);
      const Result r = run(p, q, s, 0.75f, -0.5f, 5u);
      ASSERT_GE(r.error, 0) << r.message;
      EXPECT_LE(r.error, gemm::error_bound(s.k, q))
          << wgmma_request(p, q, t & 1, t & 2).name_expression;
    });
}

// C in the inputs' 16-bit type, every kind (cooperative, ping-pong, clusters, and the staged ones,
// which fall back to the plain epilogue: C on the 16-byte grid would take their staging in FP32)
// x one config each x transposes x bf16 / fp16: a ragged batched shape (beta == 0, NaN-poisoned
// 16-bit C not read; ldc on the grid) and alpha / beta (the old 16-bit C read), within the bound
// plus the output rounding. tf32 refuses 16-bit C.
TEST_F(WgmmaGemmTest, SixteenBitCEveryKindMatchesTheReference) {
  const std::vector<BlockedParams> configs = {wgmma_space().front(), wgmma_pp_space().back(),
                                              wgmma_mc_space().front(), wgmma_ts_space().back(),
                                              wgmma_cs_space().front()};
  prepare(configs, kPrecisions, /*c16=*/true);
  int ran = 0;
  for (const BlockedParams& p : configs)
    for (Precision q : kPrecisions)
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        for (const auto& [s, alpha, beta] :
             {std::tuple{c_aligned_shape(ta, tb, 77, 45, 70, 2), 1.0f, 0.0f},
              std::tuple{aligned_shape(ta, tb, 130, 67, 24, 1), 0.75f, -0.5f}}) {
          const Result r = run16(p, q, s, alpha, beta, 13u + unsigned(t));
          const std::string what =
              wgmma_request(p, q, ta, tb, true).name_expression + " m=" + std::to_string(s.m);
          ASSERT_GE(r.error, 0) << what << ": refused: " << r.message;
          EXPECT_LE(r.error, gemm::error_bound_16bit_output(s.k, q)) << what;
          ++ran;
        }
      }
  EXPECT_EQ(ran, 5 * 2 * 4 * 2);
  const BlockedParams p = wgmma_tf32_space().front();
  const auto r = gcuda::launch_wgmma(nullptr, max_shared_, p, Precision::tf32, true, false, 64, 64,
                                     64, 1, 1.0f, nullptr, 64, 0, nullptr, 64, 0, 0.0f, nullptr, 64,
                                     0, nullptr, {}, /*c16=*/true);
  EXPECT_TRUE(r.refused);
  EXPECT_NE(r.message.find("16-bit C"), std::string::npos) << r.message;
}

// What TMA cannot address is refused, never computed wrongly: leading dimensions and base
// pointers off the 16-byte grid; and the precisions the kernel does not compute.
TEST_F(WgmmaGemmTest, RefusesMisalignedOperandsAndOtherPrecisions) {
  for (const BlockedParams& p :
       {wgmma_space().front(), wgmma_pp_space().back(), wgmma_mc_space().front(),
        wgmma_ts_space().back(), wgmma_cs_space().back()})
    expect_refuses_misaligned_and_other_precisions(p);
}

void WgmmaGemmTest::expect_refuses_misaligned_and_other_precisions(const BlockedParams& p) {
  const Result odd_ld =
      run(p, Precision::bf16, make_shape(false, false, 77, 45, 70, 1, 1), 1, 0, 3);
  EXPECT_LT(odd_ld.error, 0);
  EXPECT_NE(odd_ld.message.find("16-byte"), std::string::npos) << odd_ld.message;
  const Result odd_base =
      run(p, Precision::fp16, make_shape(true, false, 64, 64, 64, 1), 1, 0, 3, /*a_offset=*/1);
  EXPECT_LT(odd_base.error, 0);
  const auto& k = kernel(p, Precision::bf16, false, false);
  float* none = nullptr;
  for (Precision q : {Precision::fp32, Precision::tf32}) {
    const auto r = gcuda::launch_wgmma(k.function(), max_shared_, p, q, false, false, 64, 64, 64, 1,
                                       1.0f, none, 64, 0, none, 64, 0, 0.0f, none, 64, 0, nullptr);
    EXPECT_TRUE(r.refused);
  }
}

// tf32: every config x transposes on whole tiles, a ragged batched shape with padded leading
// dimensions (partial M, N, K tiles), 24 batches of more tiles than SMs with 9 K tiles (the ring
// wraps), and odd leading dimensions with A's and B's bases off the 16-byte grid (every operand
// copied); NaN-poisoned C and workspace, float64 reference, the tf32 bound (truncation).
TEST_F(WgmmaGemmTest, Tf32EveryConfigTransposeEdgeAndMisalignmentMatchesTheReference) {
  const auto configs = wgmma_tf32_space();
  prepare_tf32(configs);
  int ran = 0;
  for (const BlockedParams& p : configs) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      struct Case {
        Shape s;
        int a_offset, b_offset;
      };
      for (const Case& c : {Case{make_shape(ta, tb, 256, 256, 96, 1), 0, 0},
                            Case{aligned_shape(ta, tb, 77, 45, 70, 2), 0, 0},
                            Case{aligned_shape(ta, tb, 300, 260, 264, 24), 0, 0},
                            Case{make_shape(ta, tb, 131, 67, 101, 3, 2), 1, 3}}) {
        const Shape& s = c.s;
        const Result r = run_tf32(p, s, 1.0f, 0.0f, 21u + unsigned(t), c.a_offset, c.b_offset);
        const std::string what = wgmma_request(p, Precision::tf32, ta, tb).name_expression +
                                 " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
                                 " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                                 " k=" + std::to_string(s.k) + " lda=" + std::to_string(s.lda);
        EXPECT_GE(r.error, 0) << what << ": refused: " << r.message;
        if (r.error < 0) continue;
        ++ran;
        EXPECT_LE(r.error, gemm::error_bound(s.k, Precision::tf32)) << what;
      }
    }
  }
  EXPECT_EQ(ran, int(configs.size()) * 4 * 4);
}

// tf32 alpha and beta (C read and scaled), k shorter than one K tile and not a multiple of 4.
TEST_F(WgmmaGemmTest, Tf32AlphaBetaAndShortK) {
  const auto configs = wgmma_tf32_space();
  const std::vector<BlockedParams> sample = {configs.front(), configs[configs.size() / 2],
                                             configs.back()};
  prepare_tf32(sample);
  for (const BlockedParams& p : sample)
    for (int t = 0; t < 4; ++t) {
      const Shape s = aligned_shape(t & 1, t & 2, 130, 67, 13, 1);
      const Result r = run_tf32(p, s, 0.75f, -0.5f, 5u);
      ASSERT_GE(r.error, 0) << r.message;
      EXPECT_LE(r.error, gemm::error_bound(s.k, Precision::tf32))
          << wgmma_request(p, Precision::tf32, t & 1, t & 2).name_expression << " t=" << t;
    }
}

// tf32 refusals: a workspace missing or too short for the copies; a 16-bit config (K tile 64) in
// tf32 and a tf32 one in bf16.
TEST_F(WgmmaGemmTest, Tf32RefusesAShortWorkspaceAndForeignKTiles) {
  const BlockedParams p = wgmma_tf32_space().front();
  prepare_tf32({p});
  const Shape nt = aligned_shape(false, true, 64, 64, 64, 1);  // both operands MN-major
  const Result none = run_tf32(p, nt, 1, 0, 3, 0, 0, /*workspace_floats=*/0);
  EXPECT_LT(none.error, 0);
  EXPECT_NE(none.message.find("workspace"), std::string::npos) << none.message;
  const Result shortws = run_tf32(p, nt, 1, 0, 3, 0, 0, 64 * 64);  // A's copy only
  EXPECT_LT(shortws.error, 0);
  const Result tn = run_tf32(p, aligned_shape(true, false, 64, 64, 64, 1), 1, 0, 3, 0, 0, 0);
  EXPECT_GE(tn.error, 0) << "K-major operands on the grid need no workspace: " << tn.message;
  const auto& k = kernel(p, Precision::tf32, true, false);
  float* nothing = nullptr;
  const auto bf16 =
      gcuda::launch_wgmma(k.function(), max_shared_, p, Precision::bf16, true, false, 64, 64, 64, 1,
                          1.0f, nothing, 64, 0, nothing, 64, 0, 0.0f, nothing, 64, 0, nullptr);
  EXPECT_TRUE(bf16.refused);
  const auto tf32 = gcuda::launch_wgmma(k.function(), max_shared_, wgmma_space().front(),
                                        Precision::tf32, true, false, 64, 64, 64, 1, 1.0f, nothing,
                                        64, 0, nothing, 64, 0, 0.0f, nothing, 64, 0, nullptr);
  EXPECT_TRUE(tf32.refused);
  EXPECT_NE(tf32.message.find("K tile"), std::string::npos) << tf32.message;
}

// Split-K: every config x transposes x bf16 / fp16 x FP32 and 16-bit C on
// - whole tiles (256 x 256, k of 16 K tiles: 1 to 8 tiles a slice), alpha 1, beta 0;
// - a ragged batched shape (partial M and N tiles, padded leading dimensions, odd ldc) whose k is
//   exactly `splits` K tiles with the last one partial (k = 64 * splits - 24 < splits * bk: one
//   tile a slice, the last slice's zero-filled by TMA), alpha and beta (C read);
// - k of 17 K tiles, not a multiple of the slices, the last partial (slices of 1 to 9 tiles
//   differing by one), 8 batches of 300 x 260: more units than an H100 / H200 has SMs (132), so
//   blocks take several units of different slices and the stage ring wraps across them;
// C NaN-poisoned when beta == 0, the workspace NaN-poisoned, the float64 reference, the
// precision's bound (16-bit C: with its rounding at the store).
TEST_F(WgmmaGemmTest, SplitKEveryConfigTransposePrecisionAndCTypeMatchesTheReference) {
  const auto configs = wgmma_split_space();
  prepare_split(configs);
  int ran = 0;
  for (const BlockedParams& p : configs) {
    for (Precision q : kPrecisions) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        struct Case {
          Shape s;
          float alpha, beta;
        };
        for (const Case& c :
             {Case{make_shape(ta, tb, 256, 256, 1024, 1), 1.0f, 0.0f},
              Case{aligned_shape(ta, tb, 77, 45, 64 * p.splits - 24, 2), 0.75f, -0.5f},
              Case{aligned_shape(ta, tb, 300, 260, 17 * 64 - 5, 8), 1.0f, 0.0f}}) {
          for (bool c16 : {false, true}) {
            const Shape& s = c.s;
            const Result r = run_split(p, q, s, c.alpha, c.beta, 31u + unsigned(t), c16);
            const std::string what = wgmma_request(p, q, ta, tb).name_expression +
                                     " splits=" + std::to_string(p.splits) + (c16 ? " c16" : "") +
                                     " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                                     " k=" + std::to_string(s.k);
            EXPECT_GE(r.error, 0) << what << ": refused: " << r.message;
            if (r.error < 0) continue;
            ++ran;
            EXPECT_LE(r.error,
                      c16 ? gemm::error_bound_16bit_output(s.k, q) : gemm::error_bound(s.k, q))
                << what;
          }
        }
      }
    }
  }
  EXPECT_EQ(ran, int(configs.size()) * 2 * 4 * 3 * 2);
}

// Split-K refusals on the device: k with fewer K tiles than slices (k < 64 * (splits - 1)),
// a workspace or reduction missing, leading dimensions and bases off TMA's 16-byte grid, and the
// precisions the kernel does not compute; nothing is written (C keeps its values).
TEST_F(WgmmaGemmTest, SplitKRefusesEmptySlicesMissingWorkspaceMisalignmentAndOtherPrecisions) {
  const auto configs = wgmma_split_space();
  const std::vector<BlockedParams> sample = {configs.front(), configs[configs.size() / 2],
                                             configs.back()};
  prepare_split(sample);
  for (const BlockedParams& p : sample) {
    const std::string what = wgmma_request(p, Precision::bf16, false, false).name_expression +
                             " splits=" + std::to_string(p.splits);
    const Result empty =
        run_split(p, Precision::bf16, aligned_shape(false, false, 64, 64, 64 * (p.splits - 1), 1),
                  1.0f, 0.0f, 3u, false);
    EXPECT_LT(empty.error, 0) << what;
    EXPECT_NE(empty.message.find("empty"), std::string::npos) << empty.message;
    const Result none = run_split(p, Precision::fp16, aligned_shape(true, false, 64, 64, 2048, 1),
                                  1.0f, 0.0f, 3u, true, /*workspace_floats=*/0);
    EXPECT_LT(none.error, 0) << what;
    EXPECT_NE(none.message.find("workspace"), std::string::npos) << none.message;
    const Result odd_ld =
        run_split(p, Precision::bf16, make_shape(false, false, 77, 45, 2048, 1, 1), 1, 0, 3, false);
    EXPECT_LT(odd_ld.error, 0) << what;
    EXPECT_NE(odd_ld.message.find("16-byte"), std::string::npos) << odd_ld.message;
    // And the same config serves the same shapes once k has a K tile a slice (sanity).
    const Result ok = run_split(
        p, Precision::bf16, aligned_shape(false, false, 64, 64, 64 * p.splits, 1), 1, 0, 3, false);
    EXPECT_GE(ok.error, 0) << what << ": " << ok.message;
    EXPECT_LE(ok.error, gemm::error_bound(64 * p.splits, Precision::bf16)) << what;
    const auto& k = kernel(p, Precision::bf16, false, false);
    float* none_ptr = nullptr;
    for (Precision q : {Precision::fp32, Precision::tf32}) {
      const auto r = gcuda::launch_wgmma(k.function(), max_shared_, p, q, false, false, 64, 64,
                                         2048, 1, 1.0f, none_ptr, 64, 0, none_ptr, 2048, 0, 0.0f,
                                         none_ptr, 64, 0, nullptr, {}, false, {});
      EXPECT_TRUE(r.refused) << what;
    }
  }
}

}  // namespace
