// `check --backend`: the compiled step and the interpreter give the same
// report (every count, verdict and trace; only the run's statistics differ)
// on every bundled example under both fairness modes and on a bound
// violation; what auto and compiled do when no compiler can be run, and
// when the compiler fails (a ddsmc bug, named as one).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/app/cli_support.hpp"

using namespace ddsmc::test;

namespace {

// `ddsmc check ARGS --backend B --json J --trace T` with `env` (NAME=VALUE
// words) in its environment: the run, the report without its statistics,
// the statistics and the traces.
struct Backed {
  CliResult run;
  json report, stats, traces;
};

Backed check_with(const std::string& backend, std::vector<std::string> args,
                  const std::vector<std::string>& env = {}) {
  const std::string report = scratch(), traces = scratch();
  std::vector<std::string> words = env;
  words.push_back(ddsmc_binary());
  words.insert(words.end(), {"check", "--backend", backend, "--json", report, "--trace", traces});
  words.insert(words.end(), args.begin(), args.end());
  Backed b{run_program("/usr/bin/env", words, kCliTimeout), load_json(report), json(), load_json(traces)};
  if (b.report.is_object()) {
    b.stats = b.report["stats"];
    b.report.erase("stats");
  }
  return b;
}

void expect_same_reports(const std::vector<std::string>& args) {
  SCOPED_TRACE(testing::PrintToString(args));
  Backed interpreted = check_with("interpreted", args);
  Backed compiled = check_with("compiled", args);
  ASSERT_TRUE(interpreted.report.is_object()) << describe(interpreted.run);
  ASSERT_TRUE(compiled.report.is_object()) << describe(compiled.run);
  EXPECT_EQ(interpreted.stats["backend"], "interpreted");
  EXPECT_EQ(compiled.stats["backend"], "compiled");
  EXPECT_EQ(compiled.run.exit_code, interpreted.run.exit_code) << describe(compiled.run);
  EXPECT_EQ(compiled.report, interpreted.report);
  EXPECT_EQ(compiled.traces, interpreted.traces);
  EXPECT_GT(interpreted.report["states"].get<uint64_t>(), 0u);
}

}  // namespace

TEST(BackendCli, CompiledAndInterpretedGiveTheSameReportOnEveryExample) {
  for (const std::string& model : example_files())
    for (const char* fairness : {"channel", "none"}) expect_same_reports({model, "--fairness", fairness});
}

TEST(BackendCli, CompiledAndInterpretedAgreeOnBoundsAndCutOffs) {
  expect_same_reports({example("relay"), "--network", "star:3"});
  expect_same_reports({example("relay"), "--network", "star:3", "--on-bound", "prune"});
  expect_same_reports({example("flooding"), "--network", "ring:6", "--max-states", "1000", "--threads", "2"});
  expect_same_reports({example("leader_election"), "--network", "ring:4", "--threads", "2"});
}

TEST(BackendCli, WithoutACompilerAutoInterpretsAndCompiledIsRefused) {
  const std::vector<std::string> env{"DDSMC_CXX=/nonexistent/c++"};
  Backed a = check_with("auto", {example("flooding"), "--network", "ring:4"}, env);
  EXPECT_EQ(a.run.exit_code, 0) << describe(a.run);
  EXPECT_EQ(a.stats["backend"], "interpreted");
  EXPECT_TRUE(contains(a.run.err, "backend interpreted (no compiler: /nonexistent/c++")) << describe(a.run);
  Backed c = check_with("compiled", {example("flooding"), "--network", "ring:4"}, env);
  EXPECT_EQ(c.run.exit_code, 2) << describe(c.run);
  EXPECT_TRUE(contains(c.run.err, "--backend compiled: no compiler")) << describe(c.run);
}

TEST(BackendCli, ACompilerErrorIsADdsmcBugThatAutoSurvives) {
  const std::string cache = temp_dir();
  const std::vector<std::string> env{"DDSMC_CXX=" + failing_compiler(), "DDSMC_CACHE_DIR=" + cache};
  Backed a = check_with("auto", {example("flooding"), "--network", "ring:4"}, env);
  EXPECT_EQ(a.run.exit_code, 0) << describe(a.run);
  EXPECT_EQ(a.stats["backend"], "interpreted");
  EXPECT_TRUE(contains(a.run.err, "ddsmc bug: the generated step function " + cache + "/step-")) << describe(a.run);
  Backed c = check_with("compiled", {example("flooding"), "--network", "ring:4"}, env);
  EXPECT_EQ(c.run.exit_code, 2) << describe(c.run);
  EXPECT_TRUE(contains(c.run.err, "ddsmc bug")) << describe(c.run);
}

TEST(BackendCli, TheObjectIsCachedAndItsCompileTimeReported) {
  const std::string cache = temp_dir();
  const std::vector<std::string> env{"DDSMC_CACHE_DIR=" + cache};
  Backed first = check_with("auto", {example("echo")}, env);
  ASSERT_EQ(first.stats["backend"], "compiled") << describe(first.run);
  EXPECT_GT(first.stats["compile_seconds"].get<double>(), 0.0);
  EXPECT_TRUE(contains(first.run.err, "backend compiled (" + cache + "/step-")) << describe(first.run);
  Backed second = check_with("auto", {example("echo")}, env);
  EXPECT_EQ(second.stats["backend"], "compiled");
  EXPECT_EQ(second.stats["compile_seconds"].get<double>(), 0.0);
  EXPECT_TRUE(contains(second.run.err, ", cached)")) << describe(second.run);
  EXPECT_EQ(second.report, first.report);
  size_t objects = 0;
  for (const auto& e : std::filesystem::directory_iterator(cache)) objects += e.path().extension() == ".so";
  EXPECT_EQ(objects, 1u);
}
