// SIGINT and SIGTERM reach the real binary wherever it is: inside one step
// that would run for minutes, the first signal stops the work with the
// figures so far (exit 3, "interrupted", the JSON and the trace written);
// a second signal, a second or more after the first, exits at once even
// where nothing can be polled (a write blocked on a full pipe), while one
// that follows the first at once (timeout(1) signals the process, then its
// group) is the same request. Bounds on waiting are generous on purpose: the
// point is that the process does not hang, not how fast it is.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/app/models.hpp"
#include "tests/test_support.hpp"

using ddsmc::test::CliResult;
using ddsmc::test::kToggleForEver;
using ddsmc::test::long_step_model;
using ddsmc::test::summary;
using ddsmc::test::read_text;
using ddsmc::test::run_ddsmc;
using ddsmc::test::Spawned;
using ddsmc::test::spawn_ddsmc;
using ddsmc::test::temp_file;
using ddsmc::test::wait_for;
using nlohmann::json;

namespace {

constexpr double kStopBound = 20;  // seconds a stopped process may take to exit (a hang otherwise)

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

json load_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in, nullptr, false);
}

// Runs `args`, sends `sig` after `after` seconds (by then the binary is
// inside the long step; for `check`, counted from its choice of step
// evaluator, after which it explores) and waits for it to exit.
CliResult interrupted_run(const std::vector<std::string>& args, int sig, double after = 1.0) {
  Spawned s = spawn_ddsmc(args);
  EXPECT_GT(s.pid, 0);
  if (args[0] == "check") {
    EXPECT_TRUE(ddsmc::test::wait_for_text(s.err_path, ddsmc::test::kBackendChosen, 60)) << read_text(s.err_path);
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(after));
  EXPECT_EQ(kill(s.pid, sig), 0);
  CliResult r;
  r.exit_code = wait_for(s.pid, kStopBound);
  r.out = read_text(s.out_path);
  r.err = read_text(s.err_path);
  return r;
}

void expect_check_stops_inside_the_step(int sig) {
  std::string model = temp_file(long_step_model());
  std::string report = temp_file("", ".json");
  CliResult r = interrupted_run({"check", model, "--json", report}, sig);
  ASSERT_NE(r.exit_code, -2) << "still running " << kStopBound << " s after the signal\n" << summary(r);
  EXPECT_EQ(r.exit_code, 3) << summary(r);
  EXPECT_TRUE(contains(r.out, "states 4, transitions 3, INCOMPLETE (interrupted)")) << summary(r);
  json j = load_json(report);
  ASSERT_TRUE(j.is_object()) << "the JSON report is written\n" << summary(r);
  EXPECT_EQ(j["complete"], json(false));
  EXPECT_EQ(j.value("incomplete_reason", json()), "interrupted");
  EXPECT_EQ(j["states"], json(4)) << "the states found before the long step";
  EXPECT_EQ(j["transitions"], json(3));
  for (const auto& [key, p] : j["properties"].items()) EXPECT_TRUE(p["holds"].is_null()) << key;
}

TEST(Signals, SigintInsideOneLongStepStopsWithTheFiguresSoFar) { expect_check_stops_inside_the_step(SIGINT); }

TEST(Signals, SigtermInsideOneLongStepStopsWithTheFiguresSoFar) { expect_check_stops_inside_the_step(SIGTERM); }

// As timeout(1) does: SIGTERM to the process, then, milliseconds later, to
// its process group. One request: the report is written, exit 3. (flooding
// on ring:9 has 1.7 M states: interrupted after a second of exploring, it
// still analyses what it found for a while, which is when the second
// signal comes.)
TEST(Signals, TwoSigtermsAtOnceAreOneRequest) {
  std::string report = temp_file("", ".json");
  ddsmc::test::SpawnOptions own_group;
  own_group.new_process_group = true;
  Spawned s = spawn_ddsmc({"check", ddsmc::test::source_path("examples/flooding.d2c"), "--network", "ring:9",
                           "--threads", "1", "--json", report},
                          own_group);
  ASSERT_GT(s.pid, 0);
  ASSERT_TRUE(ddsmc::test::wait_for_text(s.err_path, ddsmc::test::kBackendChosen, 60)) << read_text(s.err_path);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  ASSERT_EQ(kill(s.pid, SIGTERM), 0);
  // (Sent back to back, the two would often merge into one pending signal.)
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ASSERT_EQ(kill(-s.pid, SIGTERM), 0);
  CliResult r;
  r.exit_code = wait_for(s.pid, kStopBound);
  r.out = read_text(s.out_path);
  r.err = read_text(s.err_path);
  ASSERT_NE(r.exit_code, -2) << "still running " << kStopBound << " s after the signals\n" << summary(r);
  EXPECT_EQ(r.exit_code, 3) << summary(r);
  EXPECT_FALSE(contains(r.err, "second signal")) << summary(r);
  json j = load_json(report);
  ASSERT_TRUE(j.is_object()) << "the JSON report is written\n" << summary(r);
  EXPECT_EQ(j.value("incomplete_reason", json()), "interrupted");
  EXPECT_GT(j["states"].get<int>(), 1);
}

TEST(Signals, SimulateStopsInsideALongStepAndItsTraceReplays) {
  std::string model = temp_file(long_step_model());
  std::string trace = temp_file("", ".json");
  CliResult r = interrupted_run({"simulate", model, "--steps", "1000", "--trace", trace}, SIGINT);
  ASSERT_NE(r.exit_code, -2) << "still running " << kStopBound << " s after the signal\n" << summary(r);
  EXPECT_EQ(r.exit_code, 3) << summary(r);
  EXPECT_TRUE(contains(r.out, "3 steps: stopped early (interrupted)")) << summary(r);
  json t = load_json(trace);
  ASSERT_TRUE(t.is_object()) << "the trace file is valid JSON\n" << read_text(trace).substr(0, 2000);
  EXPECT_EQ(t.value("incomplete_reason", json()), "interrupted");
  ASSERT_EQ(t["traces"].size(), 1u);
  EXPECT_EQ(t["traces"][0]["trace"]["steps"].size(), 3u);
  CliResult replay = run_ddsmc({"replay", model, trace}, 60);
  EXPECT_EQ(replay.exit_code, 0) << summary(replay);
  EXPECT_TRUE(contains(replay.out, "(simulation): 3 steps replay")) << summary(replay);
}

// The binary writes to a pipe nobody reads: once the pipe is full it is
// blocked in write(2), where no poll can see the first signal. The second
// signal must end it at once all the same.
void expect_second_signal_exits_at_once(int first, int second) {
  std::string model = temp_file(kToggleForEver);
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  Spawned s = spawn_ddsmc({"simulate", model, "--steps", "100000000"}, {0, fds[1]});
  close(fds[1]);
  ASSERT_GT(s.pid, 0);
  // Wait (boundedly) until the pipe holds output: the run is under way and
  // soon blocked.
  int queued = 0;
  for (int i = 0; i < 2000 && queued == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(ioctl(fds[0], FIONREAD, &queued), 0);
  }
  EXPECT_GT(queued, 0) << "no output within 10 s";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(s.pid, first), 0);
  // (Within a second of the first, a signal is the same request.)
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_EQ(kill(s.pid, second), 0);
  CliResult r;
  r.exit_code = wait_for(s.pid, kStopBound);
  r.err = read_text(s.err_path);
  close(fds[0]);
  ASSERT_NE(r.exit_code, -2) << "the second signal did not end it\n" << summary(r);
  EXPECT_EQ(r.exit_code, 3) << summary(r);
  EXPECT_TRUE(contains(r.err, "second signal")) << summary(r);
}

TEST(Signals, SecondSigintExitsAtOnceWhileBlockedInAWrite) { expect_second_signal_exits_at_once(SIGINT, SIGINT); }

TEST(Signals, SigtermAfterSigintExitsAtOnceWhileBlockedInAWrite) {
  expect_second_signal_exits_at_once(SIGINT, SIGTERM);
}

}  // namespace
