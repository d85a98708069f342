#pragma once
// A GEMM config decoded into the template parameters of its kernel kind. Self-contained
// (C++17/20, no ktune or standard-library dependencies beyond <string_view>) and constexpr, so
// the same parser serves the sweep at run time and the deployed library at compile time, where
// nvcc and g++ turn the selector header's config strings into template instantiations.
//
// Kinds and their config strings (the seed kind keeps the seed paper's spelling, without kind=):
//   seed    r=2;a=4;c=8;wg=16x16                               CPU and CUDA
//   tiled   kind=tiled;bm=128;bn=128;bk=8;tm=8;tn=8;vec=4;db=1  CUDA: shared-memory tiles
//   splitk  kind=splitk;bm=64;bn=64;bk=16;tm=4;tn=4;vec=4;db=1;splits=8
//                                                              CUDA: tiled over K slices + reduce
//   packed  kind=packed;mr=16;nr=6;kc=256;mc=96;nc=2048       CPU: packing, cache blocking,
//                                                              SIMD register-blocked micro-kernel
//   warp    kind=warp;bm=128;bn=128;bk=8;wm=32;wn=64;tm=8;tn=8;st=3;gr=8;splits=1
//                                                              CUDA: warp tiles, cp.async stages,
//                                                              rasterized blocks, optional split-K
//   packedz kind=packedz;mr=32;nr=12;kc=256;mc=192;nc=3072;pa=0;pb=1
//                                                              CPU with AVX-512: packed with zmm
//                                                              register tiles, pa/pb = pack A/B
//   warpsplit kind=warpsplit;bm=64;bn=64;bk=16;wm=32;wn=32;tm=4;tn=8;st=3;gr=1;splits=8
//                                                              CUDA: the warp kernel over K slices
//                                                              + the split-K reduction
//   mma     kind=mma;bm=128;bn=128;bk=32;wm=64;wn=64;st=4       CUDA sm_80+: tensor cores
//                                                              (mma.sync), tf32/bf16/fp16 only
//   wgmma   kind=wgmma;bm=128;bn=256;bk=64;st=4;gr=8            CUDA sm_90a: warpgroup MMA fed by
//                                                              TMA, persistent, bf16/fp16 only
//   mmasplit kind=mmasplit;bm=64;bn=64;bk=32;wm=32;wn=32;st=3;splits=16
//                                                              CUDA sm_80+: the mma kernel over K
//                                                              slices + the split-K reduction
//   wgmmatf32 kind=wgmmatf32;bm=128;bn=128;bk=32;st=4;gr=8    CUDA sm_90a: wgmma in tf32 (K tiles
//                                                              of 32 floats, K-major operands;
//                                                              others copied K-major first)
//   wgmmapp kind=wgmmapp;bm=128;bn=128;bk=64;st=6;gr=8           CUDA sm_90a: wgmma ping-pong (each
//                                                              consumer warpgroup owns whole
//                                                              tiles), bf16/fp16 only
//   wgmmamc kind=wgmmamc;bm=256;bn=128;bk=64;st=4;gr=1;cl=2      CUDA sm_90a: the cooperative wgmma
//                                                              kernel in clusters of cl blocks
//                                                              along N sharing A's tile by TMA
//                                                              multicast, bf16/fp16 only
//   wgmmats kind=wgmmats;bm=256;bn=128;bk=64;st=4;gr=1;cl=1      CUDA sm_90a: the cooperative wgmma
//                                                              kernel (cl 1) or its clusters
//                                                              (cl 2) storing C by TMA from
//                                                              shared memory, bf16/fp16 only
//   wgmmacs kind=wgmmacs;bm=256;bn=128;bk=64;st=4;gr=1;cl=1      CUDA sm_90a: wgmmats's staging,
//                                                              stored by the consumer threads in
//                                                              16-byte pieces, bf16/fp16 only
//   wgmmasplit kind=wgmmasplit;bm=128;bn=128;bk=64;st=4;gr=8;splits=8
//                                                              CUDA sm_90a: the cooperative wgmma
//                                                              kernel over (tile, K slice) units,
//                                                              FP32 partials + the split-K
//                                                              reduction, bf16/fp16 only
#include <cstddef>
#include <string_view>

namespace ktune::kernels::gemm {

enum class Kind {
  seed,
  tiled,
  splitk,
  packed,
  warp,
  packedz,
  warpsplit,
  mma,
  wgmma,
  mmasplit,
  wgmmatf32,
  wgmmapp,
  wgmmamc,
  wgmmats,
  wgmmacs,
  wgmmasplit
};

// The arithmetic of a GEMM problem (its `precision` feature; absent means fp32, so problems and
// data from before precisions existed keep their keys). C is FP32 and accumulation FP32 in all.
//   fp32: FP32 A and B, IEEE FMA (every kind but mma and wgmma)
//   tf32: FP32 A and B read as TF32 (10-bit mantissa) by the tensor cores (mma: rounded to
//         nearest by cvt.rna; wgmmatf32: truncated by the tensor cores)
//   bf16, fp16: 16-bit A and B (mma, wgmma; bf16 also packedz on CPUs with AVX512_BF16)
enum class Precision { fp32 = 0, tf32 = 1, bf16 = 2, fp16 = 3 };
constexpr const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::bf16:
      return "bf16";
    case Precision::fp16:
      return "fp16";
  }
  return "?";
}
// Bytes of one A or B element.
constexpr int input_bytes(Precision p) {
  return p == Precision::bf16 || p == Precision::fp16 ? 2 : 4;
}
// Whether kernels of `kind` compute problems of precision p: the mma kind runs the tensor-core
// precisions only (mmasplit likewise), wgmma (wgmmapp, wgmmamc, wgmmats, wgmmacs, wgmmasplit) the
// 16-bit ones, wgmmatf32
// tf32, packedz FP32 and bf16 (its AVX512_BF16 kernels), every other kind FP32 only.
constexpr bool runs_mma_kernel(Kind kind) { return kind == Kind::mma || kind == Kind::mmasplit; }
// The kinds the Hopper kernel (gemm_wgmma.cuh) runs.
constexpr bool runs_wgmma_kernel(Kind kind) {
  return kind == Kind::wgmma || kind == Kind::wgmmatf32 || kind == Kind::wgmmapp ||
         kind == Kind::wgmmamc || kind == Kind::wgmmats || kind == Kind::wgmmacs ||
         kind == Kind::wgmmasplit;
}
constexpr bool kind_serves(Kind kind, Precision p) {
  if (kind == Kind::wgmma || kind == Kind::wgmmapp || kind == Kind::wgmmamc ||
      kind == Kind::wgmmats || kind == Kind::wgmmacs || kind == Kind::wgmmasplit)
    return p == Precision::bf16 || p == Precision::fp16;
  if (kind == Kind::wgmmatf32) return p == Precision::tf32;
  if (kind == Kind::packedz) return p == Precision::fp32 || p == Precision::bf16;
  return runs_mma_kernel(kind) == (p != Precision::fp32);
}
// Whether kernels of `kind` store C in the 16-bit input type (Shape::c16): mma, mmasplit, the
// wgmma kernels whose epilogue stores it (wgmma, wgmmapp, wgmmamc) and wgmmasplit (its FP32
// partials summed by the split-K reduction into 16-bit C). wgmmats / wgmmacs stage FP32
// boxes: with 16-bit C they fall back to wgmma's or wgmmamc's plain store, so a sweep refuses them
// rather than timing those kernels twice under other names. The CPU kinds store FP32 only.
constexpr bool kind_serves_c16(Kind kind) {
  return runs_mma_kernel(kind) || kind == Kind::wgmma || kind == Kind::wgmmapp ||
         kind == Kind::wgmmamc || kind == Kind::wgmmasplit;
}

// Seed kernel: each work item computes an r×c tile of C stepping along K by a; work-group
// (wg_x along M, wg_y along N).
struct SeedParams {
  int r = 1, a = 1, c = 1, wg_x = 1, wg_y = 1;
};

// Shared-memory tiled kernel: block tile bm×bn, K step bk, thread tile tm×tn, global loads of
// vec floats, db = double-buffered shared memory; splits > 1 slices K (kind splitk). Kind warp
// adds warp tiles wm×wn (wm > 0 marks the warp kernel), st pipeline stages and rasterization
// groups of gr block rows (vec and db unused); kind warpsplit is the warp kernel with splits > 1.
// Kind mma uses bm, bn, bk, wm, wn and st (tm = tn = 0): one warp per warp tile; kind mmasplit is
// the mma kernel with splits > 1 (FP32 partial sums, then the split-K reduction). Kind wgmma uses
// bm, bn, bk (64), st and gr (rasterization group); its blocks are 384 threads whatever the tile.
// Kind wgmmatf32 likewise with bk = 32 (32 floats: the same 128 bytes a row). Kind wgmmapp: the
// wgmma params with pp = 1 (set from the kind, not a config param): bm x bn is one consumer
// warpgroup's tile (the ping-pong kernel). Kind wgmmamc: the wgmma params and cl, the blocks of a
// thread-block cluster (2: two blocks on adjacent N tiles of one M tile, each loading half of the
// shared A tile and multicasting it to both); 1 for every other kind. Kind wgmmats: the wgmmamc
// params with cl 1 or 2 and ts = 1 (set from the kind): C stored by TMA from shared memory; kind
// wgmmacs likewise with ts = 2: the same staging stored by the consumer threads. Kind
// wgmmasplit: the wgmma params with splits >= 2: the cooperative kernel over (tile, K slice) units
// writing FP32 partial sums, then the split-K reduction.
struct BlockedParams {
  int bm = 0, bn = 0, bk = 0, tm = 0, tn = 0, vec = 1, db = 0, splits = 1;
  int wm = 0, wn = 0, st = 0, gr = 0;
  int pp = 0;
  int cl = 1;
  int ts = 0;
  constexpr int threads() const {
    if (tm == 0 || tn == 0) return wm > 0 && wn > 0 ? 32 * (bm / wm) * (bn / wn) : 0;
    return (bm / tm) * (bn / tn);
  }
};

// Dynamic shared memory of a wgmma block (KtuneWgmmaSmem<bm, bn, st>::kBytes of gemm_wgmma.cuh):
// st stages of tiles 128 bytes of K wide (64 16-bit or 32 tf32 elements), with ts two 8 KiB
// staging buffers of C per consumer warpgroup, 2 * st 8-byte barriers, 1024 bytes of alignment
// slack.
constexpr long long wgmma_smem_bytes(const BlockedParams& p) {
  return (long long)p.st * (p.bm + p.bn) * 128 + (p.ts ? 32768LL : 0) + 16LL * p.st + 1024;
}

// CPU packed kernels: micro-tile mr×nr held in SIMD registers, cache blocks mc×kc of A and
// kc×nc of B packed into contiguous panels. Kind packedz adds pa / pb: 0 reads op(A) / op(B)
// in place instead of packing it (kind packed always packs both).
struct PackedParams {
  int mr = 0, nr = 0, kc = 0, mc = 0, nc = 0;
  int pa = 1, pb = 1;
};

// The packed kernel's micro-tiles, the one list: the space's constraint, the sweep's
// instantiations and the tests read it. (mr/8)*nr accumulators plus the operands fit in 16 AVX2
// registers.
struct MicroTile {
  int mr, nr;
};
inline constexpr MicroTile kPackedMicroTiles[] = {{8, 4},  {8, 6},  {8, 8}, {8, 12},
                                                  {16, 4}, {16, 6}, {24, 4}};
constexpr bool is_packed_micro_tile(int mr, int nr) {
  for (const MicroTile& t : kPackedMicroTiles)
    if (t.mr == mr && t.nr == nr) return true;
  return false;
}

// The packedz kind's AVX-512 micro-tiles, the one list likewise: (mr/16)*nr zmm accumulators,
// 24 or 28 of the 32 registers, so that two FMA pipes of 4 cycles latency have independent
// chains and a k step needs at most ~1 load (vector or broadcast) per 2 FMAs (16x12: one per
// FMA, for narrow m).
inline constexpr MicroTile kPackedzMicroTiles[] = {{16, 12}, {32, 6}, {32, 8},
                                                   {32, 12}, {48, 8}, {64, 6}};
constexpr bool is_packedz_micro_tile(int mr, int nr) {
  for (const MicroTile& t : kPackedzMicroTiles)
    if (t.mr == mr && t.nr == nr) return true;
  return false;
}

struct GemmConfig {
  Kind kind = Kind::seed;
  SeedParams seed{};
  BlockedParams blocked{};
  PackedParams packed{};
  bool valid = false;  // false: the text did not parse (see parse_gemm_config)
};

namespace config_detail {

constexpr bool parse_int(std::string_view s, int& out) {
  if (s.empty() || s.size() > 9) return false;
  int v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    v = v * 10 + (ch - '0');
  }
  out = v;
  return true;
}

// "16x8" -> (16, 8)
constexpr bool parse_pair(std::string_view s, int& x, int& y) {
  const size_t sep = s.find('x');
  if (sep == std::string_view::npos) return false;
  return parse_int(s.substr(0, sep), x) && parse_int(s.substr(sep + 1), y);
}

// An integer param of a config string: its name, where it goes, its bit in the "seen" mask.
struct IntField {
  std::string_view name;
  int* slot;
  int bit;
};

// Parses `value` into the field named `name` and marks its bit; false for an unknown name or a
// value that is not a non-negative integer.
template <size_t N>
constexpr bool assign_field(const IntField (&fields)[N], std::string_view name,
                            std::string_view value, int& seen) {
  for (const IntField& f : fields) {
    if (f.name == name) {
      seen |= 1 << f.bit;
      return parse_int(value, *f.slot);
    }
  }
  return false;
}

// Calls assign(name, value) on each "name=value" item of "a=1;b=2" (empty items skipped); false
// when an item has no '=' or assign refuses it. Shared by every config-string parser.
template <typename Assign>
constexpr bool for_each_param(std::string_view text, Assign&& assign) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t semi = text.find(';', pos);
    if (semi == std::string_view::npos) semi = text.size();
    const std::string_view item = text.substr(pos, semi - pos);
    pos = semi + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || !assign(item.substr(0, eq), item.substr(eq + 1))) {
      return false;
    }
  }
  return true;
}

constexpr bool assign(GemmConfig& g, std::string_view name, std::string_view value, int& seen) {
  if (name == "kind") {
    if (value == "seed")
      g.kind = Kind::seed;
    else if (value == "tiled")
      g.kind = Kind::tiled;
    else if (value == "splitk")
      g.kind = Kind::splitk;
    else if (value == "packed")
      g.kind = Kind::packed;
    else if (value == "warp")
      g.kind = Kind::warp;
    else if (value == "packedz")
      g.kind = Kind::packedz;
    else if (value == "warpsplit")
      g.kind = Kind::warpsplit;
    else if (value == "mma")
      g.kind = Kind::mma;
    else if (value == "wgmma")
      g.kind = Kind::wgmma;
    else if (value == "mmasplit")
      g.kind = Kind::mmasplit;
    else if (value == "wgmmatf32")
      g.kind = Kind::wgmmatf32;
    else if (value == "wgmmapp")
      g.kind = Kind::wgmmapp;
    else if (value == "wgmmamc")
      g.kind = Kind::wgmmamc;
    else if (value == "wgmmats")
      g.kind = Kind::wgmmats;
    else if (value == "wgmmacs")
      g.kind = Kind::wgmmacs;
    else if (value == "wgmmasplit")
      g.kind = Kind::wgmmasplit;
    else
      return false;
    return true;
  }
  if (name == "wg") {
    seen |= 1 << 3;
    return parse_pair(value, g.seed.wg_x, g.seed.wg_y);
  }
  const IntField fields[] = {{"r", &g.seed.r, 0},
                             {"a", &g.seed.a, 1},
                             {"c", &g.seed.c, 2},
                             {"bm", &g.blocked.bm, 4},
                             {"bn", &g.blocked.bn, 5},
                             {"bk", &g.blocked.bk, 6},
                             {"tm", &g.blocked.tm, 7},
                             {"tn", &g.blocked.tn, 8},
                             {"vec", &g.blocked.vec, 9},
                             {"db", &g.blocked.db, 10},
                             {"splits", &g.blocked.splits, 11},
                             {"mr", &g.packed.mr, 12},
                             {"nr", &g.packed.nr, 13},
                             {"kc", &g.packed.kc, 14},
                             {"mc", &g.packed.mc, 15},
                             {"nc", &g.packed.nc, 16},
                             {"wm", &g.blocked.wm, 17},
                             {"wn", &g.blocked.wn, 18},
                             {"st", &g.blocked.st, 19},
                             {"gr", &g.blocked.gr, 20},
                             {"pa", &g.packed.pa, 21},
                             {"pb", &g.packed.pb, 22},
                             {"cl", &g.blocked.cl, 23}};
  return assign_field(fields, name, value, seen);
}

// Bits of the params each kind requires (and accepts).
constexpr int required_bits(Kind kind) {
  switch (kind) {
    case Kind::seed:
      return 0xF;
    case Kind::tiled:
      return 0x7F0;
    case Kind::splitk:
      return 0xFF0;
    case Kind::packed:
      return 0x1F000;
    case Kind::warp:  // bm bn bk tm tn splits wm wn st gr
    case Kind::warpsplit:
      return 0x1E09F0;
    case Kind::packedz:  // packed's params, pa, pb
      return 0x61F000;
    case Kind::mma:  // bm bn bk wm wn st
      return 0xE0070;
    case Kind::wgmma:  // bm bn bk st gr
    case Kind::wgmmatf32:
    case Kind::wgmmapp:
      return 0x180070;
    case Kind::mmasplit:  // mma's params, splits
      return 0xE0870;
    case Kind::wgmmamc:  // wgmma's params, cl
    case Kind::wgmmats:
    case Kind::wgmmacs:
      return 0x980070;
    case Kind::wgmmasplit:  // wgmma's params, splits
      return 0x180870;
  }
  return 0;
}

}  // namespace config_detail

// Parses a canonical config string (params in any order). Returns valid == false for unknown
// names, values that are not non-negative integers, missing or foreign params of the kind, and a
// warpsplit, mmasplit or wgmmasplit config of one split, and a wgmmamc config of one block a
// cluster.
constexpr GemmConfig parse_gemm_config(std::string_view text) {
  GemmConfig g;
  int seen = 0;
  const bool parsed =
      config_detail::for_each_param(text, [&](std::string_view name, std::string_view value) {
        return config_detail::assign(g, name, value, seen);
      });
  if (!parsed || seen != config_detail::required_bits(g.kind)) return GemmConfig{};
  if (g.kind == Kind::warpsplit && g.blocked.splits < 2) return GemmConfig{};   // that is warp
  if (g.kind == Kind::mmasplit && g.blocked.splits < 2) return GemmConfig{};    // that is mma
  if (g.kind == Kind::wgmmasplit && g.blocked.splits < 2) return GemmConfig{};  // that is wgmma
  if (g.kind == Kind::tiled) g.blocked.splits = 1;
  if (g.kind == Kind::wgmmapp) g.blocked.pp = 1;
  if (g.kind == Kind::wgmmamc && g.blocked.cl < 2) return GemmConfig{};  // that is wgmma
  if (g.kind == Kind::wgmmats) g.blocked.ts = 1;
  if (g.kind == Kind::wgmmacs) g.blocked.ts = 2;
  g.valid = true;
  return g;
}

constexpr const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::seed:
      return "seed";
    case Kind::tiled:
      return "tiled";
    case Kind::splitk:
      return "splitk";
    case Kind::packed:
      return "packed";
    case Kind::warp:
      return "warp";
    case Kind::packedz:
      return "packedz";
    case Kind::warpsplit:
      return "warpsplit";
    case Kind::mma:
      return "mma";
    case Kind::wgmma:
      return "wgmma";
    case Kind::mmasplit:
      return "mmasplit";
    case Kind::wgmmatf32:
      return "wgmmatf32";
    case Kind::wgmmapp:
      return "wgmmapp";
    case Kind::wgmmamc:
      return "wgmmamc";
    case Kind::wgmmats:
      return "wgmmats";
    case Kind::wgmmacs:
      return "wgmmacs";
    case Kind::wgmmasplit:
      return "wgmmasplit";
  }
  return "?";
}

// packedz runs on CPUs with AVX-512 only: builds for other targets refuse it (the CPU backend
// records why; a tuned library fails to compile).
constexpr bool runs_on_cpu(Kind kind) {
  return kind == Kind::seed || kind == Kind::packed || kind == Kind::packedz;
}
constexpr bool runs_on_cuda(Kind kind) { return kind != Kind::packed && kind != Kind::packedz; }
// The kinds the warp-tiled kernel (gemm_warp.cuh) runs; the others of CUDA run the tiled one.
constexpr bool runs_warp_kernel(Kind kind) { return kind == Kind::warp || kind == Kind::warpsplit; }

}  // namespace ktune::kernels::gemm
