// --memory LIMIT: reaching it stops the check with exit 3, reason
// "memory-limit", the figures so far and a message saying what to raise;
// sizes that are not sizes are usage errors; the limit is in the stats.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/app/cli_support.hpp"

using namespace ddsmc::test;

namespace {

TEST(MemoryLimit, ALowLimitStopsWithExitThreeAndTheFiguresSoFar) {
  // flooding on ring:9 has 1,745,408 states: far more than 48 MiB holds.
  for (const char* threads : {"1", "2"}) {
    SCOPED_TRACE(threads);
    Checked c = check_json({example("flooding"), "--network", "ring:9", "--memory", "48M", "--threads", threads});
    EXPECT_EQ(c.run.exit_code, 3) << describe(c.run);
    ASSERT_TRUE(c.report.is_object()) << describe(c.run);
    EXPECT_EQ(c.report["complete"], false);
    EXPECT_EQ(c.report["incomplete_reason"], "memory-limit");
    EXPECT_GT(c.report["states"].get<uint64_t>(), 0u);
    EXPECT_LT(c.report["states"].get<uint64_t>(), 1745408u);
    EXPECT_EQ(c.report["stats"]["memory_limit_bytes"], uint64_t{48} << 20);
    for (const auto& [key, p] : c.report["properties"].items()) {
      // Nothing can fail in flooding, so no verdict is reached on a partial graph.
      EXPECT_TRUE(p["holds"].is_null()) << key;
    }
    EXPECT_TRUE(contains(c.run.err, "stopped at the memory limit of 48.0 MiB (--memory)")) << describe(c.run);
    EXPECT_TRUE(contains(c.run.err, "raise --memory")) << describe(c.run);
    EXPECT_TRUE(contains(c.run.out, "INCOMPLETE (memory-limit)")) << describe(c.run);
  }
}

TEST(MemoryLimit, AHighEnoughLimitChangesNothing) {
  Checked low = check_json({example("leader_election"), "--network", "ring:3", "--memory", "2G"});
  Checked none = check_json({example("leader_election"), "--network", "ring:3"});
  ASSERT_TRUE(low.report.is_object() && none.report.is_object());
  EXPECT_EQ(low.run.exit_code, none.run.exit_code);
  EXPECT_EQ(low.report["stats"]["memory_limit_bytes"], uint64_t{2} << 30);
  EXPECT_GT(none.report["stats"]["memory_limit_bytes"].get<uint64_t>(), 0u);  // the default
  low.report.erase("stats");
  none.report.erase("stats");
  EXPECT_EQ(low.report, none.report);
}

TEST(MemoryLimit, SizesInEveryUnit) {
  const std::vector<std::pair<std::string, uint64_t>> sizes = {
      {"3000000000", 3000000000ull}, {"2G", uint64_t{2} << 30}, {"1.5g", uint64_t{3} << 29},
      {"512M", uint64_t{512} << 20}, {"512MiB", uint64_t{512} << 20}, {"1T", uint64_t{1} << 40},
      {"4096k", uint64_t{4} << 20}, {"100MB", uint64_t{100} << 20}};
  for (const auto& [text, bytes] : sizes) {
    Checked c = check_json({example("ping_pong"), "--memory", text});
    ASSERT_TRUE(c.report.is_object()) << text << "\n" << describe(c.run);
    EXPECT_EQ(c.report["stats"]["memory_limit_bytes"], bytes) << text;
  }
}

TEST(MemoryLimit, WhatIsNotASizeIsAUsageError) {
  for (const char* bad : {"", "abc", "0", "0.1", "12Q", "1.2.3", "-5G", "G", "99999999999T", "1e9"}) {
    CliResult r = cli({"check", example("ping_pong"), "--memory", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, "--memory")) << bad << "\n" << describe(r);
  }
}

}  // namespace
