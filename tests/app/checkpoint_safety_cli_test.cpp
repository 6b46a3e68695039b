// What `--checkpoint DIR` and `--resume DIR` must never do (docs/engine.md
// §14), through the real binary: resume a checkpoint of another model or
// network because the files were read from a pipe (the identity is made of
// the bytes loaded, not of the paths read again), refuse a checkpoint for
// option strings that change nothing (the identity has the effective
// bounds), delete the user's files in DIR, let two checks spoil each
// other's checkpoints in one DIR (the second is refused: a lock), leave
// temporary files after a failed write, print a write's error once per
// slice, or say "resume with --resume" when nothing was written.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "tests/app/cli_support.hpp"

namespace ddsmc::test {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  static int n = 0;
  const std::string dir = temp_dir() + "/safety-" + name + "-" + std::to_string(++n);
  fs::create_directories(dir);
  return dir;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// `ddsmc ARGS` as a shell command line (arguments quoted).
std::string ddsmc_line(const std::vector<std::string>& args) {
  std::string line = quoted(ddsmc_binary());
  for (const auto& a : args) line += " " + quoted(a);
  return line;
}

// `cat FILE | ddsmc ARGS`: the binary reads a pipe where ARGS say /dev/stdin.
CliResult piped(const std::string& file, const std::vector<std::string>& args) {
  return run_program("/bin/sh", {"-c", "cat " + quoted(file) + " | " + ddsmc_line(args)}, kCliTimeout);
}

// ddsmc ARGS with RLIMIT_FSIZE 0 and SIGXFSZ ignored: every write into a
// regular file fails (as on a full disk); stdout and stderr go through a
// pipe, which the limit does not touch, and the exit code is printed last
// as "exit N".
CliResult without_file_writes(const std::vector<std::string>& args) {
  const std::string script = "(ulimit -f 0; trap '' XFSZ; " + ddsmc_line(args) + "; echo \"exit $?\") 2>&1 | cat";
  return run_program("/bin/sh", {"-c", script}, kCliTimeout);
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

json core(const std::string& path) {
  json j = load_json(path);
  j.erase("stats");
  return j;
}

// flooding with its relay rule taken out: the same predicates (so its
// states decode from flooding's checkpoint), another protocol.
std::string flooding_without_relay() {
  std::string text = read_text(example("flooding"));
  const std::string relay = "have if token@_.";
  const size_t at = text.find(relay);
  EXPECT_NE(at, std::string::npos);
  text.replace(at, relay.size(), "% no relay");
  return temp_file(text);
}

TEST(CheckpointSafetyCli, AModelReadFromAPipeIsIdentifiedByTheBytesLoaded) {
  const std::string flooding = example("flooding"), other = flooding_without_relay();
  const std::vector<std::string> check = {"check", "/dev/stdin", "--network", "ring:5", "--backend", "interpreted"};
  const std::string dir = fresh_dir("pipe"), ckpt = dir + "/ckpt";
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = check;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  CliResult r = piped(flooding, with({"--checkpoint", ckpt, "--checkpoint-every", "0", "--json", dir + "/ref.json"}));
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_TRUE(fs::exists(ckpt + "/checkpoint.ddsmc")) << describe(r);
  // Another model through the pipe: another check.
  r = piped(other, with({"--resume", ckpt}));
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "is of another check")) << describe(r);
  // The same model through the pipe resumes, to the uninterrupted report.
  r = piped(flooding, with({"--resume", ckpt, "--json", dir + "/resumed.json"}));
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "resuming from")) << describe(r);
  EXPECT_EQ(core(dir + "/resumed.json"), core(dir + "/ref.json"));
}

TEST(CheckpointSafetyCli, ANetworkReadFromAPipeIsIdentifiedByTheNetworkLoaded) {
  const std::string ring = temp_file("n0 n1\nn1 n2\nn2 n3\nn3 n4\nn4 n0\n", ".net");
  // Another network of as many nodes and arcs (its states decode alike).
  const std::string other = temp_file("n0 n1\nn1 n2\nn2 n0\nn2 n3\nn3 n4\n", ".net");
  const std::string ckpt = fresh_dir("net") + "/ckpt";
  const std::vector<std::string> check = {"check", example("flooding"), "--network", "/dev/stdin", "--backend",
                                          "interpreted"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = check;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  CliResult r = piped(ring, with({"--checkpoint", ckpt, "--checkpoint-every", "0"}));
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  r = piped(other, with({"--resume", ckpt}));
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "is of another check")) << describe(r);
  if (fs::exists("/bin/bash")) {  // a process substitution, <(cat FILE)
    const std::string script =
        ddsmc_line({"check", example("flooding"), "--backend", "interpreted", "--resume", ckpt}) + " --network <(cat " +
        quoted(other) + ")";
    r = run_program("/bin/bash", {"-c", script}, kCliTimeout);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "is of another check")) << describe(r);
  }
  r = piped(ring, with({"--resume", ckpt}));
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "resuming from")) << describe(r);
}

TEST(CheckpointSafetyCli, TheIdentityHasTheEffectiveBoundsNotTheOptions) {
  // flooding declares `state 0. channel 1.`
  const std::vector<std::string> check = {"check", example("flooding"), "--network", "ring:5", "--backend",
                                          "interpreted"};
  const std::string ckpt = fresh_dir("bounds") + "/ckpt";
  std::vector<std::string> args = check;
  args.insert(args.end(), {"--checkpoint", ckpt, "--checkpoint-every", "0"});
  CliResult r = cli(args);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (const auto& same : std::vector<std::vector<std::string>>{{"--state-bound", "0"},
                                                                 {"--state-bound", "0", "--channel-bound", "1"}}) {
    args = check;
    args.insert(args.end(), same.begin(), same.end());
    args.insert(args.end(), {"--resume", ckpt});
    r = cli(args);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(contains(r.err, "resuming from")) << describe(r);
  }
  args = check;
  args.insert(args.end(), {"--state-bound", "1", "--resume", ckpt});
  r = cli(args);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "is of another check")) << describe(r);
}

// Which rank holds a state depends on --partition-key, so a checkpoint does
// too (as parse() normalises the rule); a rule that does not parse is a
// usage error.
TEST(CheckpointSafetyCli, TheIdentityHasThePartitionKey) {
  const std::vector<std::string> check = {"check", example("flooding"), "--network", "ring:4", "--backend",
                                          "interpreted"};
  const std::string ckpt = fresh_dir("placement") + "/ckpt";
  std::vector<std::string> args = check;
  args.insert(args.end(), {"--partition-key", "all", "--checkpoint", ckpt, "--checkpoint-every", "0"});
  CliResult r = cli(args);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  args = check;
  const std::string report = fresh_dir("placement-json") + "/report.json";
  args.insert(args.end(), {"--partition-key", "nodes+arcs/1", "--resume", ckpt, "--json", report});
  r = cli(args);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "resuming from")) << describe(r);
  EXPECT_EQ(load_json(report)["stats"]["partition_key"], "all");  // as normalised
  args = check;
  args.insert(args.end(), {"--resume", ckpt});  // the default, nodes+arcs/3
  r = cli(args);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "is of another check")) << describe(r);
  args = check;
  args.insert(args.end(), {"--partition-key", "nodes+arcs/0"});
  r = cli(args);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "not a partition key")) << describe(r);
}

TEST(CheckpointSafetyCli, TheUsersFilesInTheDirectorySurviveCheckpoints) {
  const std::string dir = fresh_dir("users");
  const std::vector<std::pair<std::string, std::string>> mine = {
      {"rank-0.log", "my log\n"},
      {"rank-0.results.csv", "a,b\n1,2\n"},
      {"rank-1.txt", "notes\n"},
      {"notes.txt", "more notes\n"},
      {"rank-0.0123456789abcdef.ddsmc", "named like a part, but mine\n"},
      {"rank-0.0123456789abcdef.ddsmc.tmp", "named like a temporary part, but mine\n"},
      {"checkpoint.ddsmc.txt", "mine\n"}};
  for (const auto& [name, content] : mine) std::ofstream(dir + "/" + name) << content;
  // A temporary part a killed ddsmc left behind: ddsmc's own, removed.
  std::ofstream(dir + "/rank-0.fedcba9876543210.ddsmc.tmp") << "DDSMC-CK and then nothing";
  const std::vector<std::string> check = {"check", example("flooding"), "--network", "ring:5", "--backend",
                                          "interpreted"};
  for (int run = 0; run < 2; ++run) {  // the second run removes the first's parts
    std::vector<std::string> args = check;
    args.insert(args.end(), {"--checkpoint", dir, "--checkpoint-every", "0"});
    const CliResult r = cli(args);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    ASSERT_TRUE(contains(r.err, "checkpoint of")) << describe(r);
  }
  for (const auto& [name, content] : mine) EXPECT_EQ(read_text(dir + "/" + name), content) << name;
  EXPECT_FALSE(fs::exists(dir + "/rank-0.fedcba9876543210.ddsmc.tmp"));
  // Of ddsmc's parts, only the manifest's is left.
  size_t parts = 0;
  static const std::regex part_name(R"(rank-0\.[0-9a-f]{16}\.ddsmc)");
  for (const auto& e : fs::directory_iterator(dir))
    parts += std::regex_match(e.path().filename().string(), part_name) &&
             read_text(e.path().string()).rfind("DDSMC-CK", 0) == 0;
  EXPECT_EQ(parts, 1u);
  std::vector<std::string> args = check;
  args.insert(args.end(), {"--resume", dir});
  const CliResult r = cli(args);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "resuming from")) << describe(r);
}

TEST(CheckpointSafetyCli, ASecondCheckOnTheSameDirectoryIsRefused) {
  const std::string dir = fresh_dir("two"), ckpt = dir + "/ckpt";
  // The first check runs for seconds (with a checkpoint at every slice);
  // the second starts as soon as the first checkpoint is there.
  const std::vector<std::string> first = {"check", example("flooding"), "--network", "ring:8"};
  std::vector<std::string> args = first;
  args.insert(args.end(),
              {"--backend", "interpreted", "--threads", "1", "--checkpoint", ckpt, "--checkpoint-every", "0"});
  Spawned s = spawn_ddsmc(args);
  for (int i = 0; i < 2000 && !fs::exists(ckpt + "/checkpoint.ddsmc"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(fs::exists(ckpt + "/checkpoint.ddsmc"));
  // The second check is refused before any work: its report is not created.
  const CliResult second = cli({"check", example("flooding"), "--network", "ring:4", "--backend", "interpreted",
                                "--checkpoint", ckpt, "--json", dir + "/second.json"});
  EXPECT_EQ(second.exit_code, 2) << describe(second);
  EXPECT_TRUE(contains(second.err, "another ddsmc check is writing its checkpoints")) << describe(second);
  EXPECT_FALSE(fs::exists(dir + "/second.json"));
  kill(s.pid, SIGTERM);
  const int code = wait_for(s.pid, 60);
  EXPECT_TRUE(code == 3 || code == 0) << read_text(s.err_path);
  // The first check's checkpoint is whole; its lock went with it.
  args = first;
  args.insert(args.end(), {"--threads", "2", "--resume", ckpt, "--checkpoint", ckpt});
  const CliResult r = cli(args);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "resuming from")) << describe(r);
}

TEST(CheckpointSafetyCli, AFailedWriteLeavesNoTemporaryFileAndIsReportedOnce) {
  const std::string ckpt = fresh_dir("full") + "/ckpt";
  const CliResult r = without_file_writes({"check", example("flooding"), "--network", "ring:5", "--backend",
                                           "interpreted", "--checkpoint", ckpt, "--checkpoint-every", "0"});
  EXPECT_TRUE(contains(r.out, "exit 0")) << describe(r);
  EXPECT_EQ(count(r.out, "no checkpoint written to"), 1u) << describe(r);
  EXPECT_TRUE(contains(r.out, "the check goes on")) << describe(r);
  EXPECT_FALSE(contains(r.out, "resume with")) << describe(r);
  for (const auto& e : fs::directory_iterator(ckpt))
    EXPECT_NE(e.path().extension(), ".tmp") << e.path() << " left behind";
}

TEST(CheckpointSafetyCli, NoResumeHintWhenTheStopsCheckpointIsNotWritten) {
  const std::string ckpt = fresh_dir("nohint") + "/ckpt";
  // --memory 1M stops the exploration at once; its checkpoint cannot be written.
  const CliResult r = without_file_writes({"check", example("flooding"), "--network", "ring:5", "--backend",
                                           "interpreted", "--memory", "1M", "--checkpoint", ckpt});
  EXPECT_TRUE(contains(r.out, "exit 3")) << describe(r);
  EXPECT_EQ(count(r.out, "no checkpoint written to"), 1u) << describe(r);
  EXPECT_FALSE(contains(r.out, "resume with")) << describe(r);
  for (const auto& e : fs::directory_iterator(ckpt))
    EXPECT_NE(e.path().extension(), ".tmp") << e.path() << " left behind";
}

TEST(CheckpointSafetyCli, AnUnusableCheckpointDirectoryIsRefusedOnceBeforeAnyWork) {
  const std::string report = fresh_dir("unusable") + "/report.json";
  const CliResult r = cli({"check", example("flooding"), "--network", "ring:4", "--backend", "interpreted",
                           "--checkpoint", "/dev/null/ckpt", "--checkpoint-every", "0", "--json", report});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_EQ(count(r.err, "/dev/null/ckpt"), 1u) << describe(r);
  EXPECT_FALSE(fs::exists(report));
}

}  // namespace
}  // namespace ddsmc::test
