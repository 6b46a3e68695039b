// --scratch DIR|none: where the state graph's edge rows go (engine/
// spill_file.hpp). The same check gives the same figures and verdicts with
// the rows on disk and in memory; a directory that cannot take them is a
// usage error when given, and a file that cannot grow (`ulimit -f`) keeps
// the rows in memory with a warning, never a crash or another verdict.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/app/cli_support.hpp"

using namespace ddsmc::test;

namespace {

// What must not depend on where the rows are.
void expect_same_check(const json& a, const json& b) {
  ASSERT_TRUE(a.is_object() && b.is_object());
  EXPECT_EQ(a["states"], b["states"]);
  EXPECT_EQ(a["transitions"], b["transitions"]);
  EXPECT_EQ(a["complete"], b["complete"]);
  EXPECT_EQ(a["properties"], b["properties"]);  // verdicts and traces
}

TEST(Scratch, RowsOnDiskGiveTheSameCheckAsInMemory) {
  // flooding ring:7 holds (about 3 MiB of rows: batches and the rest go to
  // disk); token_ring ring:4 fails every property (lassos, read back from
  // the mapped rows).
  const std::string dir = temp_dir();
  for (const auto& args : std::vector<std::vector<std::string>>{{example("flooding"), "--network", "ring:7"},
                                                                 {example("token_ring"), "--network", "ring:4"}}) {
    SCOPED_TRACE(args[0]);
    auto with = [&](const std::string& scratch) {
      auto a = args;
      a.insert(a.end(), {"--scratch", scratch, "--threads", "2"});
      return check_json(a);
    };
    Checked disk = with(dir), memory = with("none");
    EXPECT_EQ(disk.run.exit_code, memory.run.exit_code) << describe(disk.run);
    const std::regex seconds(", [0-9.]+ s\n");  // (the one line that may differ)
    EXPECT_EQ(std::regex_replace(disk.run.out, seconds, ""), std::regex_replace(memory.run.out, seconds, ""));
    expect_same_check(disk.report, memory.report);
    const json& s = disk.report["stats"]["scratch"];
    EXPECT_EQ(s["dir"], dir);
    EXPECT_TRUE(s["filesystem"].is_string());
    EXPECT_GT(s["disk_bytes"].get<uint64_t>(), 0u);
    EXPECT_TRUE(s["error"].is_null());
    const json& m = memory.report["stats"]["scratch"];
    EXPECT_EQ(m["disk_bytes"], 0u);
    EXPECT_EQ(m["kept_in_memory"], "--scratch none");
  }
}

TEST(Scratch, ADirectoryThatCannotTakeTheRowsIsAUsageError) {
  for (const std::string& bad : {std::string("/nonexistent/ddsmc"), temp_file("x", ".txt"), std::string("/proc")}) {
    SCOPED_TRACE(bad);
    const CliResult r = cli({"check", example("flooding"), "--network", "ring:3", "--scratch", bad});
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "ddsmc: --scratch " + bad + ": ")) << describe(r);
    EXPECT_TRUE(r.out.empty()) << describe(r);
  }
}

TEST(Scratch, AFileSizeLimitKeepsTheRowsInMemoryWithAWarning) {
  // ulimit -f 1 MiB: the spill file cannot take flooding ring:7's rows. The
  // interpreted step: a compiler would write past the limit too.
  const std::string dir = temp_dir(), json_path = scratch();
  SpawnOptions limited;
  limited.file_size_limit = 1 << 20;
  // Without symmetry (whose rows fit the first megabyte).
  const std::vector<std::string> args{"check",         example("flooding"), "--network", "ring:7", "--backend",
                                      "interpreted",   "--symmetry",        "none"};
  auto a = args;
  a.insert(a.end(), {"--scratch", dir, "--json", json_path});
  const CliResult r = run_ddsmc(a, kCliTimeout, limited);
  Checked memory = check_json({args[1], args[2], args[3], args[4], args[5], args[6], args[7], "--scratch", "none"});
  EXPECT_EQ(r.exit_code, memory.run.exit_code) << describe(r);
  const json report = load_json(json_path);
  expect_same_check(report, memory.report);
  const json& s = report["stats"]["scratch"];
  EXPECT_TRUE(contains(s["error"].get<std::string>(), dir + ": ")) << s;
  EXPECT_TRUE(contains(s["error"].get<std::string>(), "File too large")) << s;
  EXPECT_EQ(s["disk_bytes"], 0u);
  EXPECT_TRUE(contains(r.err, "ddsmc: warning: " + dir)) << describe(r);
  EXPECT_TRUE(contains(r.err, "the edge rows stayed in memory")) << describe(r);
}

}  // namespace
