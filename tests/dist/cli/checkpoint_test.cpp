// Checkpoints under MPI (docs/engine.md §14): every rank writes its part
// and rank 0 the manifest; a resume on as many ranks gives exactly the
// uninterrupted single-process result, whether the checkpoint was a
// periodic one or the one SIGTERM to the ranks leaves; a checkpoint of one
// process and one of `-np 1` are the same thing; another rank count, a
// damaged or missing part, or a part of another checkpoint is refused with
// exit code 2 and a sentence naming the rank.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/dist/cli/dist_support.hpp"

using namespace ddsmc::test;

namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  static int n = 0;
  const std::string dir = temp_dir() + "/dist-" + name + "-" + std::to_string(++n);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// A checkpoint at every slice boundary, to the end of the run (np 0: one
// process): the last one is taken before the last slice.
std::string periodic_checkpoint(int np, const std::vector<std::string>& check) {
  const std::string ckpt = fresh_dir("periodic") + "/ckpt";
  const auto args = with(check, {"--checkpoint", ckpt, "--checkpoint-every", "0", "--threads", "1"});
  const CliResult r = np ? run_mpi(np, with({"check"}, args)) : cli(with({"check"}, args));
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || contains(r.out, "INCOMPLETE (max-states)")) << describe(r);
  EXPECT_TRUE(contains(r.err, "checkpoint of")) << describe(r);
  EXPECT_TRUE(fs::exists(ckpt + "/checkpoint.ddsmc")) << describe(r);
  return ckpt;
}

size_t parts_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().rfind("rank-", 0) == 0;
  return n;
}

TEST(DistCheckpointCli, ResumedRanksEqualTheUninterruptedRun) {
  const std::vector<std::vector<std::string>> checks = {
      {example("flooding"), "--network", "ring:5"},
      {example("gossip")},  // failing properties: traces through the resumed graph
      {example("leader_election"), "--max-states", "5000"},
      // network symmetry: the quotient's parts, gathered on rank 0 after the resume
      {example("gossip"), "--network", "star:4", "--symmetry", "auto"},
  };
  for (const auto& check : checks) {
    SCOPED_TRACE(check[0]);
    const CheckRun single = check_single(check, 1);
    for (const Layout layout : {Layout{2, 1}, Layout{3, 2}}) {
      const std::string ckpt = periodic_checkpoint(layout.ranks, check);
      EXPECT_EQ(parts_in(ckpt), size_t(layout.ranks));
      const CheckRun resumed = check_mpi(layout, with(check, {"--resume", ckpt}));
      EXPECT_TRUE(contains(resumed.run.err, "resuming from")) << describe(resumed.run);
      expect_same_check(single, resumed, layout, check[0]);
    }
  }
}

TEST(DistCheckpointCli, OneProcessAndOneRankShareTheirCheckpoints) {
  const std::vector<std::string> check = {example("gossip")};
  const CheckRun single = check_single(check, 1);
  const CheckRun from_process = check_mpi({1, 1}, with(check, {"--resume", periodic_checkpoint(0, check)}));
  expect_same_check(single, from_process, {1, 1}, check[0]);
  const CheckRun from_rank = check_single(with(check, {"--resume", periodic_checkpoint(1, check)}), 1);
  EXPECT_EQ(from_rank.run.exit_code, single.run.exit_code) << describe(from_rank.run);
  EXPECT_EQ(without_stats(from_rank.report), without_stats(single.report));
  EXPECT_EQ(from_rank.traces, single.traces);
}

TEST(DistCheckpointCli, SigtermToTheRanksLeavesACheckpointToResumeFrom) {
  const std::vector<std::string> check = {example("flooding"), "--network", "ring:9"};
  const std::string ckpt = fresh_dir("term") + "/ckpt";
  Spawned s = spawn_mpi(2, with({"check"}, with(check, {"--threads", "1", "--checkpoint", ckpt})));
  ASSERT_GT(s.pid, 0);
  // The ranks are the launcher's ddsmc descendants.
  std::vector<pid_t> ranks;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (ranks.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    ranks.clear();
    for (const auto& p : descendants(s.pid))
      if (fs::path(process_argv0(p.pid)).filename() == fs::path(ddsmc_binary()).filename() &&
          !process_env(p.pid, "OMPI_COMM_WORLD_RANK").empty())
        ranks.push_back(p.pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(ranks.size(), 2u) << read_text(s.err_path);
  ASSERT_TRUE(wait_for_text(s.err_path, kBackendChosen, 60)) << read_text(s.err_path);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  ASSERT_EQ(waitpid(s.pid, nullptr, WNOHANG), 0) << "mpiexec ended before SIGTERM: the run is too short";
  for (pid_t p : ranks) ASSERT_EQ(kill(p, SIGTERM), 0);
  const int code = wait_for(s.pid, 60);
  const CliResult stopped{code, read_text(s.out_path), read_text(s.err_path)};
  ASSERT_EQ(code, 3) << describe(stopped);
  EXPECT_TRUE(contains(stopped.err, "resume with --resume")) << describe(stopped);
  EXPECT_EQ(parts_in(ckpt), 2u);
  const CheckRun resumed = check_mpi({2, 1}, with(check, {"--resume", ckpt}));
  EXPECT_TRUE(contains(resumed.run.err, "resuming from")) << describe(resumed.run);
  expect_same_check(check_single(check, 2), resumed, {2, 1}, "");
}

TEST(DistCheckpointCli, OtherRankCountsAndDamagedPartsAreRefused) {
  const std::vector<std::string> check = {example("flooding"), "--network", "ring:4"};
  const std::string good = periodic_checkpoint(2, check);
  std::string part1;
  for (const auto& e : fs::directory_iterator(good))
    if (e.path().filename().string().rfind("rank-1.", 0) == 0) part1 = e.path().filename().string();
  ASSERT_FALSE(part1.empty());
  auto copy = [&] {
    const std::string dir = fresh_dir("damaged");
    fs::copy(good, dir);
    return dir;
  };
  const std::string truncated = copy(), missing = copy(), foreign = copy();
  const std::string bytes = read_text(good + "/" + part1);
  std::ofstream(truncated + "/" + part1, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  fs::remove(missing + "/" + part1);
  // Rank 1's part of another checkpoint of the same check, under this one's name.
  const std::string other = periodic_checkpoint(2, check);
  for (const auto& e : fs::directory_iterator(other))
    if (e.path().filename().string().rfind("rank-1.", 0) == 0)
      fs::copy_file(e.path(), foreign + "/" + part1, fs::copy_options::overwrite_existing);

  struct Case {
    int np;  // 0: one process
    std::string dir, what;
  };
  for (const Case& c : std::vector<Case>{{3, good, "written by 2 MPI ranks; this run has 3"},
                                         {0, good, "written by 2 MPI ranks; this run has 1"},
                                         {2, truncated, "rank 1: the checkpoint is truncated or corrupted"},
                                         {2, missing, "rank 1: rank 1's part of the checkpoint is missing"},
                                         {2, foreign, "belongs to another checkpoint"}}) {
    const auto args = with({"check"}, with(check, {"--resume", c.dir}));
    const CliResult r = c.np ? run_mpi(c.np, args) : cli(args);
    if (c.np) EXPECT_NE(r.exit_code, 0) << c.what << ": " << describe(r);  // (mpiexec's own code for a rank's 2)
    else EXPECT_EQ(r.exit_code, 2) << c.what << ": " << describe(r);
    EXPECT_TRUE(contains(r.err, "cannot resume from")) << c.what << ": " << describe(r);
    EXPECT_TRUE(contains(r.err, c.what)) << describe(r);
  }
}

}  // namespace
