#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/error.hpp"

namespace ktune {
namespace {

TEST(Space, GemmHasTheSeedPapers640ConfigsThenTheNewKinds) {
  kernels::gemm::GemmFamily family;
  const auto configs = family.space().enumerate();
  std::map<std::string, size_t> per_kind;
  std::set<std::string> names;
  for (const auto& c : configs) {
    ++per_kind[family.space().kind_name(c)];
    names.insert(family.space().to_string(c));
    if (c.id < 640) {
      EXPECT_EQ(c.kind, 0);
    }
  }
  EXPECT_EQ(per_kind["seed"], 640u);
  EXPECT_EQ(per_kind["tiled"], 178u);  // constrained: 64..256 threads, whole-vector loads
  EXPECT_EQ(per_kind["splitk"], 48u);
  EXPECT_EQ(per_kind["packed"], 126u);
  EXPECT_EQ(per_kind["warp"], 128u);      // 32 lanes per warp tile, 4 or 8 warps
  EXPECT_EQ(per_kind["packedz"], 144u);   // 6 AVX-512 micro-tiles x kc x mc x pa x pb
  EXPECT_EQ(per_kind["warpsplit"], 54u);  // 9 block x warp x thread tiles x 6 slice counts
  EXPECT_EQ(per_kind["mma"], 72u);        // 18 block x warp tiles of 4 or 8 warps x 2 bk x 2 stages
  EXPECT_EQ(per_kind["wgmma"], 24u);     // 5 block tiles x stages within 227 KiB x 2 rasterizations
  EXPECT_EQ(per_kind["mmasplit"], 42u);  // 3 block tiles of 4 or 8 warps x 2 bk x 7 slice counts
  EXPECT_EQ(per_kind["wgmmatf32"], 24u);   // the wgmma kind's tiles, stages and rasterizations
  EXPECT_EQ(per_kind["wgmmapp"], 16u);     // 3 warpgroup tiles x stages within 227 KiB x 2 gr
  EXPECT_EQ(per_kind["wgmmamc"], 14u);     // 3 block tiles of N >= 128 x stages x 2 gr, cl 2
  EXPECT_EQ(per_kind["wgmmats"], 12u);     // 3 block tiles of N >= 128, 4 stages x 2 gr x cl 1, 2
  EXPECT_EQ(per_kind["wgmmacs"], 12u);     // wgmmats's configs
  EXPECT_EQ(per_kind["wgmmasplit"], 28u);  // 7 block tiles x stages within 227 KiB x 4 splits
  EXPECT_EQ(names.size(), configs.size());
}

// Kinds are appended, never inserted: each kind's first id (its offset, the mixed-radix index 0
// of its params, valid or not) is what it was when the kind was added, and so are the committed
// datasets' ids. packedz came after warp: 640 + 288 + 48 + 216 + 1152; warpsplit after packedz.
TEST(Space, GemmKindOffsetsNeverMove) {
  kernels::gemm::GemmFamily family;
  const Space& s = family.space();
  EXPECT_EQ(s.parse("kind=tiled;bm=32;bn=32;bk=8;tm=4;tn=4;vec=1;db=0").id, 640);
  EXPECT_EQ(s.parse("kind=splitk;bm=32;bn=32;bk=16;tm=4;tn=4;vec=4;db=1;splits=2").id, 928);
  EXPECT_EQ(s.parse("kind=packed;mr=8;nr=4;kc=128;mc=48;nc=960").id, 976);
  EXPECT_EQ(s.parse("kind=warp;bm=64;bn=64;bk=8;wm=32;wn=32;tm=4;tn=4;st=3;gr=1;splits=1").id,
            1192);
  EXPECT_EQ(s.parse("kind=packedz;mr=16;nr=6;kc=128;mc=192;nc=3072;pa=0;pb=0").id, 2344);
  EXPECT_EQ(s.parse("kind=warpsplit;bm=64;bn=64;bk=16;wm=32;wn=32;tm=4;tn=8;st=3;gr=1;splits=2").id,
            2344 + 288);
  EXPECT_EQ(s.parse("kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3").id, 2344 + 288 + 192);
  EXPECT_EQ(s.parse("kind=wgmma;bm=128;bn=64;bk=64;st=3;gr=1").id, 2344 + 288 + 192 + 144);
  EXPECT_EQ(s.parse("kind=mmasplit;bm=64;bn=64;bk=32;wm=32;wn=32;st=3;splits=2").id,
            2344 + 288 + 192 + 144 + 36);
  EXPECT_EQ(s.parse("kind=wgmmatf32;bm=128;bn=64;bk=32;st=3;gr=1").id,
            2344 + 288 + 192 + 144 + 36 + 56);
  EXPECT_EQ(s.parse("kind=wgmmapp;bm=64;bn=128;bk=64;st=4;gr=1").id,
            2344 + 288 + 192 + 144 + 36 + 56 + 36);
  EXPECT_EQ(s.parse("kind=wgmmamc;bm=128;bn=128;bk=64;st=3;gr=1;cl=2").id,
            2344 + 288 + 192 + 144 + 36 + 56 + 36 + 24);
  EXPECT_EQ(s.parse("kind=wgmmats;bm=128;bn=128;bk=64;st=4;gr=1;cl=1").id,
            2344 + 288 + 192 + 144 + 36 + 56 + 36 + 24 + 24);
  EXPECT_EQ(s.parse("kind=wgmmacs;bm=128;bn=128;bk=64;st=4;gr=1;cl=1").id,
            2344 + 288 + 192 + 144 + 36 + 56 + 36 + 24 + 24 + 16);
  EXPECT_EQ(s.parse("kind=wgmmasplit;bm=128;bn=64;bk=64;st=4;gr=8;splits=2").id,
            2344 + 288 + 192 + 144 + 36 + 56 + 36 + 24 + 24 + 16 + 16);
  // Mixed radix, first param most significant: bm 256 (x 24), bn 128 (x 8), st 4, splits 16.
  EXPECT_EQ(s.parse("kind=wgmmasplit;bm=256;bn=128;bk=64;st=4;gr=8;splits=16").id,
            2344 + 288 + 192 + 144 + 36 + 56 + 36 + 24 + 24 + 16 + 16 + 35);
  EXPECT_EQ(s.product_size(), 2344 + 288 + 192 + 144 + 36 + 56 + 36 + 24 + 24 + 16 + 16 + 48);
}

TEST(Space, ConfigListsSelectWholeKinds) {
  kernels::gemm::GemmFamily family;
  const Space& s = family.space();
  const auto warp = parse_config_list(s, "kind:warp");
  ASSERT_EQ(warp.size(), 128u);
  for (const Config& c : warp) EXPECT_EQ(s.kind_name(c), "warp");
  const auto mixed = parse_config_list(s, "kind:splitk,0,kind:warp");
  EXPECT_EQ(mixed.size(), 48u + 1u + 128u);
  EXPECT_EQ(mixed[48].id, 0);
  EXPECT_THROW(parse_config_list(s, "kind:nope"), Error);
  const auto g = kernels::gemm::gemm_config_of(s, warp.front());
  EXPECT_EQ(g.kind, kernels::gemm::Kind::warp);
  EXPECT_GT(g.blocked.wm, 0);
}

TEST(Space, KindsKeepStableIdsAndTheirOwnParams) {
  kernels::gemm::GemmFamily family;
  const Space& s = family.space();
  // The seed kind keeps its plain spelling and ids; other kinds start after it.
  const Config tiled = s.parse("kind=tiled;bm=128;bn=64;bk=8;tm=8;tn=4;vec=4;db=1");
  EXPECT_EQ(s.kind_name(tiled), "tiled");
  EXPECT_GE(tiled.id, 640);
  EXPECT_EQ(s.to_string(tiled), "kind=tiled;bm=128;bn=64;bk=8;tm=8;tn=4;vec=4;db=1");
  EXPECT_EQ(s.parse("db=1;vec=4;tn=4;tm=8;bk=8;bn=64;bm=128;kind=tiled").id, tiled.id);
  EXPECT_EQ(s.parse(std::to_string(tiled.id)).id, tiled.id);
  EXPECT_EQ(s.int_value(tiled, "bm"), 128);
  EXPECT_TRUE(s.has_param(tiled, "vec"));
  EXPECT_FALSE(s.has_param(tiled, "r"));
  EXPECT_THROW(s.value(tiled, "r"), Error);
  EXPECT_THROW(s.parse("kind=warp;bm=128"), Error);
  EXPECT_THROW(s.parse("kind=tiled;bm=128;bn=64;bk=8;tm=8;tn=4;vec=4"), Error);  // db missing
  EXPECT_THROW(s.parse("kind=tiled;r=2;a=4;c=8;wg=16x16"), Error);               // seed params
  // A config violating its kind's constraint parses but is not enumerated.
  const Config many_threads = s.parse("kind=tiled;bm=128;bn=128;bk=8;tm=4;tn=4;vec=1;db=0");
  EXPECT_TRUE(s.violates(many_threads).has_value());
  // Every config round-trips through its string and its id.
  for (const auto& c : s.enumerate()) {
    EXPECT_EQ(s.parse(s.to_string(c)).id, c.id);
    EXPECT_EQ(s.at(c.id).kind, c.kind);
  }
  // The compile-time decoder agrees with the space.
  const auto g = kernels::gemm::gemm_config_of(s, tiled);
  EXPECT_EQ(g.kind, kernels::gemm::Kind::tiled);
  EXPECT_EQ(g.blocked.bm, 128);
  EXPECT_EQ(g.blocked.tn, 4);
  EXPECT_EQ(g.blocked.splits, 1);
  static_assert(kernels::gemm::parse_gemm_config("kind=splitk;bm=32;bn=64;bk=16;tm=4;tn=4;vec=4;"
                                                 "db=1;splits=8")
                    .blocked.splits == 8);
  static_assert(!kernels::gemm::parse_gemm_config("r=2;a=4;c=8").valid);  // wg missing
}

TEST(Space, MultiKindNumericViewLeadsWithTheKind) {
  kernels::gemm::GemmFamily family;
  const Space& s = family.space();
  const auto names = s.numeric_names();
  ASSERT_GE(names.size(), 6u);
  EXPECT_EQ(names[0], "kind");
  const auto seed = s.numeric_values(s.parse("r=2;a=4;c=8;wg=32x8"));
  const auto packed = s.numeric_values(s.parse("kind=packed;mr=16;nr=4;kc=256;mc=96;nc=960"));
  ASSERT_EQ(seed.size(), names.size());
  ASSERT_EQ(packed.size(), names.size());
  auto at = [&](const std::vector<double>& v, const char* name) {
    return v[size_t(std::find(names.begin(), names.end(), name) - names.begin())];
  };
  EXPECT_EQ(at(seed, "kind"), 0);
  EXPECT_EQ(at(seed, "wg_x"), 32);
  EXPECT_EQ(at(seed, "mr"), 0);  // not a seed param
  EXPECT_EQ(at(packed, "kind"), 3);
  EXPECT_EQ(at(packed, "kc"), 256);
  EXPECT_EQ(at(packed, "r"), 0);
}

TEST(Space, IdsAreStableMixedRadixIndices) {
  kernels::gemm::GemmFamily family;
  const Space& s = family.space();
  // r=2 (1), a=4 (2), c=8 (3), wg=16x16 (6): ((1*4 + 2)*4 + 3)*10 + 6 = 276.
  EXPECT_EQ(s.parse("r=2;a=4;c=8;wg=16x16").id, 276);
  EXPECT_EQ(s.to_string(s.at(276)), "r=2;a=4;c=8;wg=16x16");
  EXPECT_EQ(s.parse("wg=16x16;c=8;a=4;r=2").id, 276);  // any order
  EXPECT_EQ(s.parse("276").id, 276);                   // plain id
}

TEST(Space, RoundTripsEveryConfig) {
  kernels::gemm::GemmFamily family;
  const Space& s = family.space();
  for (const auto& c : s.enumerate()) EXPECT_EQ(s.parse(s.to_string(c)).id, c.id);
}

TEST(Space, RejectsBadConfigsNamingThem) {
  kernels::gemm::GemmFamily family;
  const Space& s = family.space();
  EXPECT_THROW(s.parse("r=3;a=4;c=8;wg=16x16"), Error);
  EXPECT_THROW(s.parse("r=2;a=4;c=8"), Error);
  EXPECT_THROW(s.parse("r=2;a=4;c=8;wg=16x16;q=1"), Error);
  EXPECT_THROW(s.parse(std::to_string(s.product_size())), Error);  // one past the last id
  try {
    s.parse("r=2;a=4;c=8;wg=7x7");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("7x7"), std::string::npos);
  }
}

TEST(Space, NumericViewSplitsWorkGroups) {
  const Space s("seedlike", std::vector<Param>{{"r", {"1", "2"}}, {"wg", {"8x8", "32x8"}}});
  EXPECT_EQ(s.numeric_names(), (std::vector<std::string>{"r", "wg_x", "wg_y"}));
  EXPECT_EQ(s.numeric_values(s.parse("r=2;wg=32x8")), (std::vector<double>{2, 32, 8}));
}

}  // namespace
}  // namespace ktune
