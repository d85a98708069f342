// ktune merge (store_merge.hpp): keys deduplicated, devices/tags/records carried, refusals of
// mismatched code versions, config spaces and config ids that leave the output untouched.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_test_util.hpp"
#include "ktune/error.hpp"
#include "ktune/provenance.hpp"
#include "ktune/store.hpp"
#include "ktune/store_merge.hpp"
#include "measurement_test_util.hpp"

namespace ktune {
namespace {

using testing::read_file;
using testing::temp_path;

Measurement row(const std::string& device, const std::string& problem, const std::string& config,
                int64_t id, double ms) {
  Measurement m = testing::ok_measurement(device, "fam", problem, config, id, ms, 3);
  m.tags = {"t-" + problem};
  return m;
}

void make_store(const std::string& path, const std::vector<Measurement>& rows,
                const std::map<std::string, std::string>& records = {}) {
  Store s(path);
  for (const auto& m : rows) {
    DeviceInfo d;
    d.slug = m.device;
    d.spec = "cpu";
    d.backend = "cpu";
    d.name = "Device " + d.slug;
    d.features = {{"threads", 2}};
    s.put_device(d);
  }
  for (const auto& [k, v] : records) s.put_record(k, v);
  s.put_all(rows);
}

TEST(StoreMerge, DeduplicatesKeysAndCarriesDevicesTagsRecords) {
  const auto a = temp_path("merge_a.sqlite"), b = temp_path("merge_b.sqlite");
  const auto out = temp_path("merge_out.sqlite");
  const std::map<std::string, std::string> rec = {{kCodeVersionRecord, code_version()}};
  make_store(a, {row("d1", "p1", "c0", 0, 1.0), row("d1", "p2", "c0", 0, 2.0)}, rec);
  make_store(b, {row("d1", "p2", "c0", 0, 9.0), row("d2", "p1", "c1", 1, 3.0)}, rec);
  const MergeSummary s = merge_stores(out, {a, b});
  EXPECT_EQ(s.read, 4u);
  EXPECT_EQ(s.added, 3u);
  EXPECT_EQ(s.duplicates, 1u);
  const Store merged(out, Store::Mode::read_only);
  const auto rows = merged.query();
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& m : rows) {  // the first input's row wins a duplicated key
    if (m.device == "d1" && m.problem == "p2") {
      EXPECT_DOUBLE_EQ(m.outcome.timing.median_ms, 2.0);
    }
  }
  ASSERT_EQ(merged.devices().size(), 2u);
  EXPECT_EQ(merged.devices()[1].name, "Device d2");
  EXPECT_EQ(merged.problem_tags("fam").at({"fam", "p1"}), std::vector<std::string>{"t-p1"});
  EXPECT_EQ(merged.records(), rec);
  EXPECT_FALSE(std::filesystem::exists(out + ".merging-" + std::to_string(::getpid())));

  // Merging into an existing output adds only what is new.
  const auto c = temp_path("merge_c.sqlite");
  make_store(c, {row("d3", "p1", "c0", 0, 4.0), row("d1", "p1", "c0", 0, 5.0)});
  const MergeSummary again = merge_stores(out, {c});
  EXPECT_EQ(again.added, 1u);
  EXPECT_EQ(again.duplicates, 1u);
  EXPECT_EQ(Store(out, Store::Mode::read_only).count(), 4u);
}

// Each refusal names the offending input and leaves the output as it was (absent or unchanged).
void expect_refused(const std::string& out, const std::vector<std::string>& inputs,
                    const std::string& names, const std::string& why) {
  const bool existed = std::filesystem::exists(out);
  const std::string before = existed ? read_file(out) : "";
  try {
    merge_stores(out, inputs);
    ADD_FAILURE() << "merge of " << names << " was not refused";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'" + names + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  EXPECT_EQ(std::filesystem::exists(out), existed);
  if (existed) {
    EXPECT_EQ(read_file(out), before);
  }
}

TEST(StoreMerge, RefusesMismatchedCodeVersionSpaceOrConfigIds) {
  const auto a = temp_path("mm_a.sqlite"), old = temp_path("mm_old.sqlite");
  const auto other_space = temp_path("mm_space.sqlite"), ids = temp_path("mm_ids.sqlite");
  const auto out = temp_path("mm_out.sqlite");
  const std::string space = space_record_key("fam");
  make_store(a, {row("d1", "p1", "c0", 0, 1.0)},
             {{kCodeVersionRecord, "ktune-1.0.0"}, {space, "aaaa"}});
  make_store(old, {row("d2", "p1", "c0", 0, 1.0)}, {{kCodeVersionRecord, "ktune-0.9.0"}});
  make_store(other_space, {row("d2", "p1", "c0", 0, 1.0)}, {{space, "bbbb"}});
  make_store(ids, {row("d2", "p1", "c0", 5, 1.0)});  // no records: its config ids still count

  expect_refused(out, {a, old}, old, "code_version 'ktune-0.9.0'");
  expect_refused(out, {a, other_space}, other_space, "space:fam 'bbbb'");
  expect_refused(out, {a, ids}, ids, "config 'c0' has id 5");
  expect_refused(out, {a, temp_path("mm_missing.sqlite")}, temp_path("mm_missing.sqlite"),
                 "not a store file");

  // An existing output takes part in the check and stays byte-identical on refusal.
  merge_stores(out, {a});
  expect_refused(out, {old}, old, "code_version");
  expect_refused(out, {out}, out, "is the output store");
}

TEST(StoreMerge, SweepRefusesToResumeIntoAStoreOfOtherCode) {
  const auto path = temp_path("mm_stamp.sqlite");
  Space space("fam", {Param{"x", {"1", "2"}}});
  {
    Store s(path);
    stamp_store(s, space);  // first sweep: records this build
    stamp_store(s, space);  // resuming with the same code: fine
    EXPECT_EQ(s.records().at(space_record_key("fam")), space_fingerprint(space));
  }
  Space grown("fam", {Param{"x", {"1", "2", "4"}}});
  EXPECT_NE(space_fingerprint(grown), space_fingerprint(space));
  Store s(path);
  try {
    stamp_store(s, grown);
    ADD_FAILURE() << "a changed space was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_EQ(s.records().at(space_record_key("fam")), space_fingerprint(space));
}

}  // namespace
}  // namespace ktune
