// Out of memory is an incomplete result, never a crash: under an address
// space limit (RLIMIT_AS, set in the child) `check` stops with exit 3,
// incomplete_reason "out-of-memory" and the JSON report, and `simulate`,
// which streams its run, keeps a trace file that parses and replays.
//
// ASan and TSan reserve terabytes of address space, so a limit means nothing
// there: these tests are skipped in such builds.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/app/models.hpp"
#include "tests/test_support.hpp"

using ddsmc::test::CliResult;
using ddsmc::test::memory_bomb_model;
using ddsmc::test::summary;
using ddsmc::test::read_text;
using ddsmc::test::run_ddsmc;
using ddsmc::test::source_path;
using ddsmc::test::temp_file;
using nlohmann::json;

namespace {

constexpr double kTimeout = 60;
// Far below what the runs below want, above what the binary needs to start
// and report (about 10 MiB mapped at start, plus its 64 MiB emergency
// reserve). Small, so that the runs reach it in a second or two.
constexpr uint64_t kLimit = uint64_t{128} << 20;

#define SKIP_UNDER_SANITIZERS()                                                                    \
  if (ddsmc::test::built_with_address_sanitizer())                                                 \
  GTEST_SKIP() << "ASan/TSan reserve terabytes of address space: an RLIMIT_AS test means nothing"

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

json load_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in, nullptr, false);
}

CliResult limited(const std::vector<std::string>& args) { return run_ddsmc(args, kTimeout, {kLimit, -1}); }

void expect_out_of_memory_report(const CliResult& r, const json& j) {
  EXPECT_EQ(r.exit_code, 3) << summary(r);
  EXPECT_TRUE(contains(r.out, "INCOMPLETE (out-of-memory)")) << summary(r);
  ASSERT_TRUE(j.is_object()) << "the JSON report is written\n" << summary(r);
  EXPECT_EQ(j["complete"], json(false));
  EXPECT_EQ(j.value("incomplete_reason", json()), "out-of-memory");
  ASSERT_TRUE(j["properties"].is_object());
  EXPECT_EQ(j["properties"].size(), 4u);
  for (const auto& [key, p] : j["properties"].items()) {
    EXPECT_TRUE(p.contains("holds") && p.contains("trace")) << key;
    if (p["holds"].is_boolean()) {
      EXPECT_FALSE(p["trace"].is_null()) << key << ": a verdict on a partial graph has its lasso";
    }
  }
}

TEST(OutOfMemory, SimulateKeepsAReplayableTraceOfTheStepsTaken) {
  SKIP_UNDER_SANITIZERS();
  std::string model = temp_file(memory_bomb_model());
  std::string trace = temp_file("", ".json");
  CliResult r = limited({"simulate", model, "--steps", "1000000", "--trace", trace});
  EXPECT_EQ(r.exit_code, 3) << summary(r);
  EXPECT_TRUE(contains(r.out, "    4. a -> a: tick  +pos(5)  -pos(4)")) << "each step printed as taken\n" << summary(r);
  EXPECT_TRUE(contains(r.out, "5 steps: stopped early (out-of-memory)")) << summary(r);
  json t = load_json(trace);
  ASSERT_TRUE(t.is_object()) << "the trace file is valid JSON\n" << read_text(trace).substr(0, 2000);
  EXPECT_EQ(t.value("incomplete_reason", json()), "out-of-memory");
  ASSERT_EQ(t["traces"].size(), 1u);
  EXPECT_EQ(t["traces"][0]["trace"]["steps"].size(), 5u);
  CliResult replay = run_ddsmc({"replay", model, trace}, kTimeout);
  EXPECT_EQ(replay.exit_code, 0) << summary(replay);
  EXPECT_TRUE(contains(replay.out, "(simulation): 5 steps replay")) << summary(replay);
}

TEST(OutOfMemory, CheckStopsInsideAStepWithTheFiguresSoFar) {
  SKIP_UNDER_SANITIZERS();
  std::string report = temp_file("", ".json");
  CliResult r = limited({"check", temp_file(memory_bomb_model()), "--json", report});
  json j = load_json(report);
  expect_out_of_memory_report(r, j);
  EXPECT_EQ(j["states"], json(6)) << "the states found before the sixth step";
  EXPECT_EQ(j["transitions"], json(5));
}

// The graph itself fills the address space (flooding on ring:9 has millions
// of states): the exploration stops with what it has, and the analysis of
// that partial graph still runs.
TEST(OutOfMemory, CheckStopsWhenTheGraphFillsMemory) {
  SKIP_UNDER_SANITIZERS();
  std::string report = temp_file("", ".json");
  CliResult r = limited({"check", source_path("examples/flooding.d2c"), "--network", "ring:9", "--json", report});
  json j = load_json(report);
  expect_out_of_memory_report(r, j);
  EXPECT_GT(j["states"].get<uint64_t>(), 10000u) << "the figures so far";
  EXPECT_TRUE(contains(r.out, "states " + std::to_string(j["states"].get<uint64_t>()) + ", transitions " +
                                  std::to_string(j["transitions"].get<uint64_t>())))
      << summary(r);
}

}  // namespace
