#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "ktune/error.hpp"
#include "ktune/store.hpp"
#include "measurement_test_util.hpp"

namespace ktune {
namespace {

Measurement sample(const std::string& config, Status status, double perf) {
  Measurement m = testing::ok_measurement("dev", "gemm", "m=1", config, 7, 1.5, 3);
  m.outcome.status = status;
  m.outcome.message = status == Status::ok ? "" : "why, with \"quotes\"";
  m.perf = perf;
  return m;
}

std::string fresh_path(const std::string& name) {
  const std::string path = ::testing::TempDir() + name;
  std::filesystem::remove(path);
  return path;
}

TEST(Store, PutSkipsDuplicatesAndPersists) {
  const auto path = fresh_path("store_a.sqlite");
  {
    Store s(path);
    EXPECT_TRUE(s.put(sample("x", Status::ok, 10)));
    EXPECT_FALSE(s.put(sample("x", Status::ok, 99)));  // same key: kept as first stored
    EXPECT_EQ(s.put_all({sample("y", Status::refused, 0), sample("x", Status::ok, 1)}), 1u);
  }
  Store again(path, Store::Mode::read_only);
  const auto rows = again.query();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].perf, 10);
  EXPECT_EQ(rows[1].outcome.status, Status::refused);
  EXPECT_EQ(rows[1].outcome.message, "why, with \"quotes\"");
  EXPECT_EQ(again.keys("dev", "gemm").size(), 2u);
  EXPECT_TRUE(again.keys("other", "gemm").empty());
}

TEST(Store, UnwritableOrMissingPathsAreOneLineErrors) {
  EXPECT_THROW(Store{"/nonexistent-dir/x.sqlite"}, Error);
  EXPECT_THROW((Store{fresh_path("missing.sqlite"), Store::Mode::read_only}), Error);
  const auto not_db = ::testing::TempDir() + "not_a_db.sqlite";
  {
    std::FILE* f = std::fopen(not_db.c_str(), "w");
    std::fputs("hello, not sqlite\n", f);
    std::fclose(f);
  }
  EXPECT_THROW((Store{not_db, Store::Mode::read_only}), Error);
  EXPECT_THROW(Store{not_db}, Error);
}

TEST(Store, DeviceFeaturesRoundTrip) {
  const auto path = fresh_path("store_dev.sqlite");
  Store s(path);
  DeviceInfo d{"cpu", "cpu", "slug-1", "Some CPU", {{"threads", 2}, {"l2_bytes", 1048576}}};
  s.put_device(d);
  const auto devices = s.devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].slug, "slug-1");
  ASSERT_EQ(devices[0].features.size(), 2u);
}

TEST(Store, TagsArePerProblemAndOlderStoresStayReadable) {
  const auto path = fresh_path("store_tags.sqlite");
  {
    Store s(path);
    Measurement a = sample("x", Status::ok, 10);
    a.tags = {"vgg16"};
    s.put(a);
    Measurement b = sample("y", Status::ok, 5);  // same problem, another tag
    b.tags = {"resnet50"};
    s.put_all({b});
    s.put_tags("gemm", {{"m=2", {"mobilenet"}}});
  }
  {
    Store ro(path, Store::Mode::read_only);
    const auto ms = ro.query();
    ASSERT_EQ(ms.size(), 2u);
    for (const auto& m : ms) EXPECT_EQ(m.tags, (std::vector<std::string>{"resnet50", "vgg16"}));
    EXPECT_EQ(ro.problem_tags("gemm").at({"gemm", "m=2"}), std::vector<std::string>{"mobilenet"});
  }
  // A store written before problem_tags existed: read-only it reads without tags; a read-write
  // open adds the table.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE problem_tags", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  {
    Store ro(path, Store::Mode::read_only);
    const auto ms = ro.query();
    ASSERT_EQ(ms.size(), 2u);
    EXPECT_TRUE(ms[0].tags.empty());
    EXPECT_TRUE(ro.problem_tags().empty());
  }
  Store rw(path);
  rw.put_tags("gemm", "m=1", {"vgg16"});
  EXPECT_EQ(rw.query()[0].tags, std::vector<std::string>{"vgg16"});
}

}  // namespace
}  // namespace ktune
