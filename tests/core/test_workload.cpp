#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/workload.hpp"

namespace ktune {
namespace {

const Family& gemm_family() {
  register_builtin();
  return find_family("gemm");
}

TEST(Workload, DnnHas431DistinctShapesWithTheirNetworks) {
  const Workload w = load_workload(gemm_family(), "dnn");
  ASSERT_EQ(w.problems.size(), 431u);
  std::map<std::string, int> per_network;
  for (const auto& p : w.problems) {
    ASSERT_FALSE(p.tags.empty()) << p.key();
    for (const auto& t : p.tags) ++per_network[t];
  }
  EXPECT_EQ(per_network.size(), 3u);
  EXPECT_GT(per_network["vgg"], 0);
  EXPECT_GT(per_network["resnet"], 0);
  EXPECT_GT(per_network["mobilenet"], 0);
}

TEST(Workload, DnnSmallIsASubsetOfDnn) {
  const Workload all = load_workload(gemm_family(), "dnn");
  const Workload small = load_workload(gemm_family(), "dnn-small");
  EXPECT_GE(small.problems.size(), 12u);
  EXPECT_LE(small.problems.size(), 30u);
  for (const auto& p : small.problems) {
    bool found = false;
    for (const auto& q : all.problems) found |= q.key() == p.key();
    EXPECT_TRUE(found) << p.key();
  }
}

// The sample of scripts/make_dnn_sample.py: dnn shapes with their tags, none of dnn-small, every
// transpose pair of dnn, batched and not, from each FLOP quartile of dnn.
TEST(Workload, DnnSampleIsAStratifiedSubsetOfDnnDisjointFromDnnSmall) {
  const Family& family = gemm_family();
  const Workload all = load_workload(family, "dnn");
  const Workload sample = load_workload(family, "dnn-sample");
  const Workload small = load_workload(family, "dnn-small");
  ASSERT_EQ(sample.problems.size(), 48u);
  std::map<std::string, const Problem*> by_key;
  for (const auto& p : all.problems) by_key[p.key()] = &p;
  std::vector<double> flops;
  for (const auto& p : all.problems) flops.push_back(family.flops(p));
  std::sort(flops.begin(), flops.end());
  std::map<std::string, int> kinds, quartiles;
  for (const auto& p : all.problems) kinds[p.key().substr(0, p.key().find(";m="))] = 0;
  for (const auto& p : sample.problems) {
    ASSERT_TRUE(by_key.count(p.key())) << p.key();
    EXPECT_EQ(p.tags, by_key[p.key()]->tags) << p.key();
    for (const auto& q : small.problems) EXPECT_NE(q.key(), p.key());
    ++kinds[p.key().substr(0, p.key().find(";m="))];
    const std::string key = p.key();
    ++kinds[key.substr(key.rfind(";batch=")) == ";batch=1" ? "single" : "batched"];
    const auto rank = std::lower_bound(flops.begin(), flops.end(), family.flops(p)) - flops.begin();
    ++quartiles[std::to_string(4 * rank / flops.size())];
  }
  for (const auto& [kind, count] : kinds) EXPECT_GT(count, 0) << kind;
  EXPECT_EQ(kinds.size(), 5u);  // 3 transpose pairs, batched, single
  EXPECT_EQ(quartiles.size(), 4u);
}

// llm: 61 distinct shapes of three models, forward at four token counts and the backward pair,
// none of them in the training workloads (dnn, large) of the tensor-core selectors.
TEST(Workload, LlmIsDistinctFromTheTrainingWorkloads) {
  const Family& family = gemm_family();
  const Workload llm = load_workload(family, "llm@bf16");
  ASSERT_EQ(llm.problems.size(), 61u);
  std::map<std::string, int> pairs, tokens;
  for (const auto& p : llm.problems) {
    EXPECT_EQ(p.tags, std::vector<std::string>{"llm"});
    const std::string key = p.key();
    ++pairs[key.substr(0, key.find(";m="))];
    if (key.find("transa=1") == 0) ++tokens[std::to_string(p.get("n"))];
  }
  EXPECT_EQ(pairs.size(), 3u);  // TN forward, NN input and NT weight gradients
  EXPECT_EQ(tokens.size(), 4u);
  for (const char* training : {"dnn@bf16", "large@bf16"})
    for (const auto& q : load_workload(family, training).problems)
      for (const auto& p : llm.problems) EXPECT_NE(p.key(), q.key()) << training;
}

// vit.csv (a file): the 36 GEMMs of ViT-S/B/L encoder layers at 1 and 8 images, in no committed
// workload, so that it is held out for every selector (workloads/gemm/README.md).
TEST(Workload, VitFileIsDistinctFromEveryCommittedWorkload) {
  const Family& family = gemm_family();
  const Workload vit =
      load_workload(family, std::string(KTUNE_SOURCE_DIR) + "/workloads/gemm/vit.csv");
  ASSERT_EQ(vit.problems.size(), 36u);
  for (const std::string other :
       {"dnn", "large", "llm", "dnn-extra.csv", "dnn-heldout.csv", "sampled-live.csv"}) {
    const std::string name = other.find(".csv") == std::string::npos
                                 ? other
                                 : std::string(KTUNE_SOURCE_DIR) + "/workloads/gemm/" + other;
    for (const auto& q : load_workload(family, name).problems)
      for (const auto& p : vit.problems) EXPECT_NE(p.key(), q.key()) << other;
  }
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Workload, ReadsFamilyCsvFiles) {
  const auto path = write_temp("w_ok.csv", "transa,transb,m,n,k,batch\n0,1,4,5,6,1\n1,0,7,8,9,2\n");
  const Workload w = load_workload(gemm_family(), path);
  ASSERT_EQ(w.problems.size(), 2u);
  EXPECT_EQ(w.problems[1].key(), "transa=1;transb=0;m=7;n=8;k=9;batch=2");
}

// "FILE@bf16": a workload file in one of GEMM's precisions, as the built-in "llm@bf16".
TEST(Workload, FileWithAPrecisionVariant) {
  const auto path = write_temp("w_var.csv", "transa,transb,m,n,k,batch\n0,1,4,5,6,1\n");
  const Workload w = load_workload(gemm_family(), path + "@bf16");
  ASSERT_EQ(w.problems.size(), 1u);
  EXPECT_EQ(w.problems[0].key(), "transa=0;transb=1;m=4;n=5;k=6;batch=1;precision=2");
  EXPECT_EQ(w.name, "w_var@bf16");
  try {
    load_workload(gemm_family(), path + "@int3");
    FAIL() << "an unknown precision was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown gemm precision 'int3'"), std::string::npos)
        << e.what();
  }
}

TEST(Workload, MalformedFilesNameTheFileAndLine) {
  const auto bad_value =
      write_temp("w_bad.csv", "transa,transb,m,n,k,batch\n0,0,4,5,6,1\n0,0,x,5,6,1\n");
  try {
    load_workload(gemm_family(), bad_value);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad_value + ":3"), std::string::npos) << e.what();
  }
  const auto short_row = write_temp("w_short.csv", "transa,transb,m,n,k,batch\n0,0,4,5\n");
  EXPECT_THROW(load_workload(gemm_family(), short_row), Error);
  const auto no_column = write_temp("w_nocol.csv", "transa,m,n,k,batch\n0,4,5,6,1\n");
  EXPECT_THROW(load_workload(gemm_family(), no_column), Error);
  const auto zero_size = write_temp("w_zero.csv", "transa,transb,m,n,k,batch\n0,0,0,5,6,1\n");
  EXPECT_THROW(load_workload(gemm_family(), zero_size), Error);
  EXPECT_THROW(load_workload(gemm_family(), "/nonexistent/w.csv"), Error);
}

}  // namespace
}  // namespace ktune
