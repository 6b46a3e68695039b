// `check --backend`: the compiled step and the interpreter give the same
// report (every count, verdict and trace; only the run's statistics differ)
// on every bundled example under both fairness modes and on a bound
// violation; what auto and compiled do when no compiler can be run, and
// when the compiler fails (a ddsmc bug, named as one); auto's compile in
// the background, which no check waits for.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
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

// With `env`, auto interprets flooding and says `why`; compiled is refused
// (exit 2) and says `refused`.
void expect_auto_interprets(const std::vector<std::string>& env, const std::string& why, const std::string& refused) {
  Backed a = check_with("auto", {example("flooding"), "--network", "ring:4"}, env);
  EXPECT_EQ(a.run.exit_code, 0) << describe(a.run);
  EXPECT_EQ(a.stats["backend"], "interpreted");
  EXPECT_TRUE(contains(a.run.err, why)) << describe(a.run);
  Backed c = check_with("compiled", {example("flooding"), "--network", "ring:4"}, env);
  EXPECT_EQ(c.run.exit_code, 2) << describe(c.run);
  EXPECT_TRUE(contains(c.run.err, refused)) << describe(c.run);
}

// The compiler's child whose pid the fake compiler wrote to `pid_file` is
// gone (or a zombie not reaped yet) within 5 s; killed if not.
void expect_compiler_gone(const std::string& pid_file) {
  pid_t child = 0;
  std::ifstream(pid_file) >> child;
  ASSERT_GT(child, 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string pid_text, name, state;
    gone = !(stat >> pid_text >> name >> state) || state == "Z";
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the compiler's child " << child << " outlived ddsmc";
  if (!gone) ::kill(child, SIGKILL);
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
  expect_auto_interprets({"DDSMC_CXX=/nonexistent/c++"}, "backend interpreted (no compiler: /nonexistent/c++",
                         "--backend compiled: no compiler");
}

// A compile auto started in the background: the check never waits for it,
// reports what the interpreter reports, and says what became of the compile
// if it ended before the exploration did (`why`, when given). compiled
// waits for the same compile and is refused with `refused`.
void expect_auto_goes_on(const std::vector<std::string>& env, const std::string& why, const std::string& refused) {
  Backed a = check_with("auto", {example("flooding"), "--network", "ring:4"}, env);
  EXPECT_EQ(a.run.exit_code, 0) << describe(a.run);
  EXPECT_EQ(a.stats["backend"], "interpreted");
  EXPECT_TRUE(contains(a.run.err, "backend interpreted until the compiled step is ready")) << describe(a.run);
  if (contains(a.run.err, "backend interpreted (")) {
    EXPECT_TRUE(contains(a.run.err, why)) << describe(a.run);
  }
  Backed c = check_with("compiled", {example("flooding"), "--network", "ring:4"}, env);
  EXPECT_EQ(c.run.exit_code, 2) << describe(c.run);
  EXPECT_TRUE(contains(c.run.err, refused)) << describe(c.run);
  Backed i = check_with("interpreted", {example("flooding"), "--network", "ring:4"}, env);
  EXPECT_EQ(a.report, i.report);
}

TEST(BackendCli, ACompilerErrorIsADdsmcBugThatAutoSurvives) {
  const std::string cache = temp_dir();
  expect_auto_goes_on({"DDSMC_CXX=" + failing_compiler(), "DDSMC_CACHE_DIR=" + cache},
                      "ddsmc bug: the generated step function " + cache + "/step-", "ddsmc bug");
}

// auto does not wait for the compiler: a compiler that would hang for a
// minute delays no check, and the check stops it when it ends (it runs in a
// process group of its own, so only ddsmc can).
TEST(BackendCli, AutoNeverWaitsForTheCompiler) {
  const std::string pid_file = temp_dir() + "/slow-compiler";
  const std::string cc = temp_file("#!/bin/sh\n[ \"$1\" = --version ] && { echo slow-cc; exit 0; }\nsleep 1000 &\necho $! > " +
                                   pid_file + ".tmp\nmv " + pid_file + ".tmp " + pid_file + "\nwait\n", ".sh");
  std::filesystem::permissions(cc, std::filesystem::perms::owner_all);
  const std::vector<std::string> env{"DDSMC_CXX=" + cc, "DDSMC_COMPILE_TIMEOUT=60",
                                     "DDSMC_CACHE_DIR=" + temp_dir() + "/slow-cache"};
  const auto t0 = std::chrono::steady_clock::now();
  Backed a = check_with("auto", {example("flooding"), "--network", "ring:5"}, env);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(a.run.exit_code, 0) << describe(a.run);
  EXPECT_LT(took, 50.0) << describe(a.run);  // the compiler alone would take 60 s before it is given up on
  EXPECT_EQ(a.stats["backend"], "interpreted");
  EXPECT_TRUE(a.stats["compiled_from_state"].is_null());
  EXPECT_EQ(a.report, check_with("interpreted", {example("flooding"), "--network", "ring:5"}).report);
  if (!std::filesystem::exists(pid_file)) return;  // the check was over before the compiler started
  expect_compiler_gone(pid_file);
}

// A check long enough for the compile: it switches to the compiled step
// between two rounds, says from which state on, and reports exactly what
// the interpreter reports; the next check finds the step in the cache.
TEST(BackendCli, AutoTakesTheCompiledStepWhenItIsReady) {
  const std::string cache = temp_dir() + "/switch-cache";
  const std::vector<std::string> args{example("flooding"), "--network", "ring:8", "--threads", "2"};
  Backed a = check_with("auto", args, {"DDSMC_CACHE_DIR=" + cache});
  Backed i = check_with("interpreted", args);
  ASSERT_EQ(a.run.exit_code, 0) << describe(a.run);
  EXPECT_EQ(a.report, i.report);
  EXPECT_EQ(a.traces, i.traces);
  // (On a machine so loaded that ring:8 ends first, the run interprets to
  // the end, which the report also says.)
  if (a.stats["backend"] == "compiled") {
    EXPECT_GT(a.stats["compiled_from_state"].get<uint64_t>(), 0u);
    EXPECT_LT(a.stats["compiled_from_state"].get<uint64_t>(), a.report["states"].get<uint64_t>());
    EXPECT_GT(a.stats["compile_seconds"].get<double>(), 0.0);
    EXPECT_TRUE(contains(a.run.err, "backend compiled from state ")) << describe(a.run);
    Backed again = check_with("auto", args, {"DDSMC_CACHE_DIR=" + cache});
    EXPECT_EQ(again.stats["backend"], "compiled");
    EXPECT_TRUE(again.stats["compiled_from_state"].is_null());
    EXPECT_TRUE(contains(again.run.err, ", cached)")) << describe(again.run);
  } else {
    EXPECT_EQ(a.stats["backend"], "interpreted");
    EXPECT_TRUE(a.stats["compiled_from_state"].is_null());
  }
}

TEST(BackendCli, TheObjectIsCachedAndItsCompileTimeReported) {
  const std::string cache = temp_dir();
  const std::vector<std::string> env{"DDSMC_CACHE_DIR=" + cache};
  Backed first = check_with("compiled", {example("echo")}, env);  // (auto would not wait for it)
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

// Issue 20: what the cache holds is verified before it runs. Another model's
// object planted under ping_pong's key would report "always-total holds";
// ddsmc rebuilds the entry, says why, and reports the true verdict.
TEST(BackendCli, AForeignObjectInTheCacheNeverDecidesAVerdict) {
  const std::string cache = temp_dir() + "/foreign-cache";
  const std::vector<std::string> env{"DDSMC_CACHE_DIR=" + cache};
  const std::vector<std::string> args{example("ping_pong"), "--property", "always-total"};
  Backed truth = check_with("interpreted", args, env);
  ASSERT_EQ(truth.run.exit_code, 1) << describe(truth.run);
  Backed echo = check_with("compiled", {example("echo")}, env);  // (compiled names the object)
  Backed pp = check_with("compiled", args, env);
  ASSERT_EQ(pp.run.exit_code, 1) << describe(pp.run);
  std::string echo_so, pp_so;
  for (const auto& e : std::filesystem::directory_iterator(cache)) {
    if (e.path().extension() != ".so") continue;
    const std::string p = e.path().string();
    (contains(echo.run.err, p) ? echo_so : pp_so) = p;
  }
  ASSERT_FALSE(echo_so.empty() || pp_so.empty()) << describe(echo.run) << describe(pp.run);
  std::filesystem::copy_file(echo_so, pp_so, std::filesystem::copy_options::overwrite_existing);
  // auto sees it at once (and interprets while it compiles the step anew);
  // compiled rebuilds it and runs the true step.
  Backed seen = check_with("auto", args, env);
  EXPECT_EQ(seen.run.exit_code, 1) << describe(seen.run);
  EXPECT_EQ(seen.report, truth.report);
  EXPECT_TRUE(contains(seen.run.err, "warning: the cached step " + pp_so + " is not used")) << describe(seen.run);
  std::filesystem::copy_file(echo_so, pp_so, std::filesystem::copy_options::overwrite_existing);
  Backed planted = check_with("compiled", args, env);
  EXPECT_EQ(planted.run.exit_code, 1) << describe(planted.run);
  EXPECT_EQ(planted.report, truth.report);
  EXPECT_EQ(planted.stats["backend"], "compiled");
  EXPECT_TRUE(contains(planted.run.err, "warning: the cached step " + pp_so + " is not used")) << describe(planted.run);
}

// A cache directory others can write is refused: auto interprets and says
// why, compiled stops with exit 2.
TEST(BackendCli, ACacheOthersCanWriteIsRefused) {
  const std::string cache = temp_dir() + "/open-cache";
  std::filesystem::create_directories(cache);
  std::filesystem::permissions(cache, std::filesystem::perms::all);
  expect_auto_interprets({"DDSMC_CACHE_DIR=" + cache},
                         "backend interpreted (the cache directory " + cache + " cannot be trusted", "cannot be trusted");
}

// Without HOME the cache is in the home directory of the password database,
// never in a predictable shared place such as /tmp/ddsmc-cache-UID.
TEST(BackendCli, WithoutHomeTheCacheIsNotInASharedPlace) {
  Backed a = check_with("compiled", {example("flooding"), "--network", "ring:4"},
                        {"-u", "HOME", "-u", "DDSMC_CACHE_DIR", "-u", "XDG_CACHE_HOME"});
  EXPECT_EQ(a.run.exit_code, 0) << describe(a.run);
  EXPECT_EQ(a.stats["backend"], "compiled") << describe(a.run);
  EXPECT_FALSE(contains(a.run.err, "/tmp/ddsmc-cache")) << describe(a.run);
  EXPECT_TRUE(contains(a.run.err, "/.cache/ddsmc/step-") || contains(a.run.err, "compiled for this run only"))
      << describe(a.run);
}

// A compiler that hangs: auto interprets without waiting for it (and gives
// up on it after DDSMC_COMPILE_TIMEOUT if the check lasts that long);
// compiled stops with exit 2 after that time. Neither waits for ever.
TEST(BackendCli, AHangingCompilerIsGivenUpOn) {
  const std::string cc = temp_file("#!/bin/sh\n[ \"$1\" = --version ] && { echo hang-cc; exit 0; }\nexec sleep 1000\n", ".sh");
  std::filesystem::permissions(cc, std::filesystem::perms::owner_all);
  expect_auto_goes_on({"DDSMC_CXX=" + cc, "DDSMC_COMPILE_TIMEOUT=1", "DDSMC_CACHE_DIR=" + temp_dir() + "/hang-cache"},
                      "took longer than 1 s", "took longer than 1 s");
}

// SIGTERM to ddsmc while it compiles the step: ddsmc exits (3, before any
// result) and takes the compiler with it, children included, although the
// compiler runs in a process group of its own.
TEST(BackendCli, ASignalDuringTheCompileStopsTheCompilerToo) {
  const std::string pid_file = temp_dir() + "/compiler-child";
  const std::string cc = temp_file("#!/bin/sh\n[ \"$1\" = --version ] && { echo hang-cc; exit 0; }\nsleep 1000 &\necho $! > " +
                                   pid_file + ".tmp\nmv " + pid_file + ".tmp " + pid_file + "\nwait\n", ".sh");
  std::filesystem::permissions(cc, std::filesystem::perms::owner_all);
  Spawned s = spawn_program("/usr/bin/env", {"DDSMC_CXX=" + cc, "DDSMC_CACHE_DIR=" + temp_dir() + "/signal-cache",
                                             ddsmc_binary(), "check", example("flooding"), "--network", "ring:4",
                                             "--backend", "compiled"});
  for (int i = 0; i < 3000 && !std::filesystem::exists(pid_file); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(std::filesystem::exists(pid_file)) << read_text(s.err_path);
  ::kill(s.pid, SIGTERM);
  EXPECT_EQ(wait_for(s.pid, 30), 3) << read_text(s.err_path);
  expect_compiler_gone(pid_file);
}
