#include <gtest/gtest.h>

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
