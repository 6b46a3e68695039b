// `check --threads N` gives the report of `--threads 1`, byte for byte
// except the run's statistics: counts, verdicts, traces, a bound violation
// and a --max-states cut-off. The traces of the threaded run replay.
// Absurd thread counts (beyond a few per CPU, beyond 64 bits) are refused
// before any work.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/app/cli_support.hpp"
#include "tests/app/models.hpp"

using namespace ddsmc::test;

namespace {

Checked check(std::vector<std::string> args, const std::string& threads) {
  args.push_back("--threads");
  args.push_back(threads);
  return check_json(args);
}

void expect_same_at_every_thread_count(const std::vector<std::string>& args, int exit_code) {
  Checked one = check(args, "1");
  ASSERT_EQ(one.run.exit_code, exit_code) << describe(one.run);
  ASSERT_TRUE(one.report.is_object()) << describe(one.run);
  EXPECT_EQ(one.report["stats"]["threads"], 1);
  one.report.erase("stats");
  for (const char* threads : {"2", "3"}) {
    SCOPED_TRACE(std::string("--threads ") + threads);
    Checked more = check(args, threads);
    EXPECT_EQ(more.run.exit_code, exit_code) << describe(more.run);
    ASSERT_TRUE(more.report.is_object()) << describe(more.run);
    EXPECT_EQ(more.report["stats"]["threads"], std::stoi(threads));
    more.report.erase("stats");
    EXPECT_EQ(more.report, one.report);
  }
}

TEST(ThreadsCli, VerdictsAndTracesAreTheOneThreadOnes) {
  expect_same_at_every_thread_count({example("leader_election"), "--network", "ring:3"}, 0);
  expect_same_at_every_thread_count({example("retry_ack")}, 0);
  expect_same_at_every_thread_count({example("gossip"), "--fairness", "none"}, 1);
}

TEST(ThreadsCli, BoundViolationAndMaxStatesAreTheOneThreadOnes) {
  expect_same_at_every_thread_count({example("relay"), "--network", "star:3"}, 3);
  expect_same_at_every_thread_count({example("flooding"), "--network", "ring:6", "--max-states", "1000"}, 3);
}

TEST(ThreadsCli, ThreadedTracesReplay) {
  const std::string trace = scratch();
  const std::string model = example("leader_election");
  CliResult r = cli({"check", model, "--network", "ring:3", "--threads", "2", "--trace", trace});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  expect_all_replay(cli({"replay", model, trace}), 2);
}

TEST(ThreadsCli, ZeroThreadsMeansEveryCoreAndIsReported) {
  Checked r = check({example("flooding"), "--network", "ring:4"}, "0");
  ASSERT_TRUE(r.report.is_object()) << describe(r.run);
  EXPECT_GE(r.report["stats"]["threads"].get<int>(), 1);
}

// --max-states inside one expansion: the initial state has 160,000
// successors; a cut-off at 50 states ends its expansion there (it took
// every successor, and the memory for them, before), and the report says
// the 50 states it kept, the same at every thread count.
TEST(ThreadsCli, MaxStatesBoundsOneHugeExpansion) {
  const std::string model = temp_file(fan_out_model());
  expect_same_at_every_thread_count({model, "--max-states", "50"}, 3);
  for (const char* threads : {"1", "2"}) {
    SCOPED_TRACE(std::string("--threads ") + threads);
    Checked c = check({model, "--max-states", "50"}, threads);
    ASSERT_TRUE(c.report.is_object()) << describe(c.run);
    EXPECT_EQ(c.report["states"], 50);
    EXPECT_EQ(c.report["transitions"], 0) << "the one expanded state was cut short: no edges";
    EXPECT_EQ(c.report.value("incomplete_reason", json()), "max-states");
    EXPECT_TRUE(contains(c.run.out, "states 50, transitions 0, INCOMPLETE (max-states)")) << describe(c.run);
    // Successors interned and the state store's size: about the 51 states
    // claimed, not the 160,000 of the expansion (nor its 10 MiB of leaves).
    // (The store's least size is about 6 MiB: its pairs and its visited set
    // come in segments of one 2 MiB huge page each, hashing/huge_pages.hpp.)
    EXPECT_LT(c.report["stats"]["canonical"]["calls"].get<uint64_t>(), 5000u);
    EXPECT_LT(c.report["stats"]["memory"]["total"].get<uint64_t>(), uint64_t{8} << 20);
  }
}

// A million workers took gigabytes before the first state, 2^64 + 1 wrapped
// around: both are usage errors now, said at once. (Under an address-space
// limit, so that a binary that tries does not take the machine down.)
TEST(ThreadsCli, AbsurdThreadCountsAreRefused) {
  SpawnOptions limited;
  if (!built_with_address_sanitizer()) limited.address_space_limit = uint64_t{4} << 30;
  const struct {
    const char* threads;
    const char* says;
  } cases[] = {{"1000000", "at most"}, {"18446744073709551617", "too large"}, {"18446744073709551616", "too large"},
               {"-1", "must not be negative"}, {"2x", "whole number"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.threads);
    CliResult r = run_ddsmc({"check", example("ping_pong"), "--threads", c.threads, "--memory", "1G"}, kCliTimeout, limited);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "--threads") && contains(r.err, c.says)) << describe(r);
    EXPECT_TRUE(r.out.empty()) << describe(r);
  }
}

}  // namespace
