// `--checkpoint`, `--checkpoint-every` and `--resume` through the real
// binary (docs/engine.md §14): a run resumed from a checkpoint taken
// mid-exploration gives exactly the uninterrupted run's report (all but
// `stats`) and traces, whether the checkpoint was a periodic one or the one
// SIGTERM leaves; a checkpoint of another check, a truncated, corrupted or
// foreign file, or a missing one is refused with exit code 2 and a
// sentence, never a crash.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>

#include "engine/checkpoint.hpp"
#include "engine/d2c/system.hpp"
#include "model/load.hpp"
#include "tests/app/cli_support.hpp"

namespace ddsmc::test {
namespace {

namespace fs = std::filesystem;

// A new directory under the tests' temporary one (shared by the process).
std::string fresh_dir(const std::string& name) {
  static int n = 0;
  const std::string dir = temp_dir() + "/" + name + "-" + std::to_string(++n);
  fs::create_directories(dir);
  return dir;
}

// The report without what may differ between two runs of the same check.
json core(const std::string& path) {
  json j = load_json(path);
  j.erase("stats");
  return j;
}

struct Reference {
  json report;
  std::string traces;
};

Reference reference(const std::vector<std::string>& check) {
  const std::string dir = fresh_dir("ref");
  std::vector<std::string> args = check;
  args.insert(args.end(), {"--json", dir + "/ref.json", "--trace", dir + "/ref-traces.json"});
  const CliResult r = cli(args);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || contains(r.out, "INCOMPLETE (bound)")) << describe(r);
  return {core(dir + "/ref.json"), read_text(dir + "/ref-traces.json")};
}

// Resumes `check` from `ckpt` and compares with the uninterrupted run.
void expect_resume_equals(const std::vector<std::string>& check, const std::string& ckpt, const Reference& ref,
                          const std::string& threads = "1") {
  const std::string dir = fresh_dir("resumed");
  std::vector<std::string> args = check;
  args.insert(args.end(), {"--resume", ckpt, "--threads", threads, "--json", dir + "/r.json", "--trace",
                           dir + "/r-traces.json"});
  const CliResult r = cli(args);
  EXPECT_TRUE(contains(r.err, "resuming from")) << describe(r);
  EXPECT_EQ(core(dir + "/r.json"), ref.report) << describe(r);
  EXPECT_EQ(read_text(dir + "/r-traces.json"), ref.traces);
}

// A run that writes a checkpoint at every slice boundary, to its end: the
// last one is taken before the last slice, so resuming redoes that slice.
std::string periodic_checkpoint(const std::vector<std::string>& check) {
  const std::string ckpt = fresh_dir("periodic") + "/ckpt";
  std::vector<std::string> args = check;
  args.insert(args.end(), {"--checkpoint", ckpt, "--checkpoint-every", "0"});
  const CliResult r = cli(args);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || contains(r.out, "INCOMPLETE (bound)")) << describe(r);
  EXPECT_TRUE(contains(r.err, "checkpoint of")) << describe(r);
  EXPECT_TRUE(fs::exists(ckpt + "/checkpoint.ddsmc"));
  EXPECT_FALSE(fs::exists(ckpt + "/checkpoint.ddsmc.tmp"));
  return ckpt;
}

TEST(CheckpointCli, ResumedRunsEqualUninterruptedOnes) {
  const std::vector<std::vector<std::string>> checks = {
      {"check", example("flooding"), "--network", "ring:6"},
      {"check", example("echo")},                     // fails, with traces
      {"check", example("gossip"), "--fairness", "none"},
      {"check", example("leader_election")},
      {"check", example("echo"), "--channel-bound", "1"},  // a bound exceeded after the resume
      // Network symmetry: the quotient's edges carry permutations, the traces are concrete.
      {"check", example("gossip"), "--symmetry", "auto"},
      {"check", example("leader_election"), "--symmetry", "auto"},
      {"check", example("echo"), "--channel-bound", "1", "--symmetry", "auto"},
  };
  for (const auto& check : checks) {
    SCOPED_TRACE(check[1]);
    const Reference ref = reference(check);
    const std::string ckpt = periodic_checkpoint(check);
    expect_resume_equals(check, ckpt, ref, "1");
    expect_resume_equals(check, ckpt, ref, "2");  // threads are not part of the check
  }
}

TEST(CheckpointCli, SigtermLeavesACheckpointToResumeFrom) {
  const std::vector<std::string> check = {"check", example("flooding"), "--network", "ring:8"};
  const Reference ref = reference(check);
  const std::string ckpt = fresh_dir("sigterm") + "/ckpt";
  std::vector<std::string> args = check;
  args.insert(args.end(), {"--threads", "1", "--checkpoint", ckpt, "--checkpoint-every", "0"});
  Spawned s = spawn_ddsmc(args);
  // Once the first periodic checkpoint exists, the exploration is under way.
  for (int i = 0; i < 2000 && !fs::exists(ckpt + "/checkpoint.ddsmc"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kill(s.pid, SIGTERM), 0);
  const int code = wait_for(s.pid, 60);
  const std::string err = read_text(s.err_path);
  EXPECT_EQ(code, 3) << err;
  EXPECT_TRUE(contains(err, "resume with --resume")) << err;
  expect_resume_equals(check, ckpt, ref, "2");
}

// A checkpoint of a whole graph whose analysis was stopped after deciding
// two properties, as SIGTERM during the analysis leaves it (made here from
// the last periodic checkpoint, explored to its end in this process): the
// resume takes the saved verdicts, lassos included, and analyses the rest.
TEST(CheckpointCli, AResumedAnalysisTakesTheVerdictsDecidedBeforeTheStop) {
  // (Without symmetry: the test reads the checkpoint as a plain graph.)
  const std::vector<std::string> check = {"check", example("echo"), "--symmetry", "none"};
  const Reference ref = reference(check);
  const std::string periodic = periodic_checkpoint(check);
  model::Diagnostics diag(example("echo"));
  auto m = model::load_model(example("echo"), {}, diag);
  ASSERT_TRUE(m);
  const engine::CompiledModel cm = engine::compile(*m);
  const engine::D2cSystem system(cm);
  const engine::CheckpointMeta meta = engine::read_checkpoint_manifest(periodic);
  engine::ExploreResult res(cm.layout);
  std::vector<engine::StateId> gids;
  engine::read_checkpoint_part(periodic, 0, meta, system, res.graph, gids);
  res.pruned_states = meta.pruned_states;
  engine::explore_from(system, {}, res, static_cast<engine::StateId>(meta.next));
  ASSERT_TRUE(res.complete);
  const engine::Property second = engine::kAllProperties[1];
  auto stopped_analysis = [&](bool flip_second) {
    const std::string dir = fresh_dir("analysis") + "/ckpt";
    engine::ExplorePoint p(res.graph);
    p.states = p.next = res.graph.num_states();
    p.transitions = res.graph.num_edges();
    p.pruned_states = res.pruned_states;
    engine::CheckpointMeta whole = engine::checkpoint_meta(p);
    whole.identity = meta.identity;
    whole.generation = meta.generation + 1;
    for (auto prop : {engine::kAllProperties[0], second})
      whole.verdicts.push_back(engine::analyze(res.graph, prop, engine::Fairness::Channel, true));
    if (flip_second) {
      whole.verdicts[1].holds = !*whole.verdicts[1].holds;
      whole.verdicts[1].lasso.reset();
    }
    engine::write_checkpoint_part(dir, 0, p, whole);
    engine::write_checkpoint_manifest(dir, whole);
    return dir;
  };
  expect_resume_equals(check, stopped_analysis(false), ref);
  // The saved verdicts are taken, not analysed again: a flipped one shows.
  const std::string dir = fresh_dir("flipped");
  const CliResult r =
      cli({"check", example("echo"), "--symmetry", "none", "--resume", stopped_analysis(true), "--json", dir + "/r.json"});
  const json j = load_json(dir + "/r.json");
  auto key = [](engine::Property p) {  // the report's key: always_partial
    std::string k = engine::property_name(p);
    std::replace(k.begin(), k.end(), '-', '_');
    return k;
  };
  ASSERT_TRUE(j.contains("properties")) << describe(r);
  const auto& got = j["properties"];
  const auto& want = ref.report["properties"];
  EXPECT_EQ(got[key(second)]["holds"], !want[key(second)]["holds"].get<bool>()) << describe(r);
  // The properties not saved are analysed as usual.
  for (auto p : {engine::kAllProperties[2], engine::kAllProperties[3]}) EXPECT_EQ(got[key(p)], want[key(p)]);
}

TEST(CheckpointCli, ACheckpointOfAnotherCheckIsRefused) {
  const std::vector<std::string> check = {"check", example("flooding"), "--network", "ring:5"};
  const std::string ckpt = periodic_checkpoint(check);
  for (const auto& other : std::vector<std::vector<std::string>>{
           {"check", example("flooding"), "--network", "ring:4"},
           {"check", example("flooding"), "--network", "ring:5", "--fairness", "none"},
           {"check", example("flooding"), "--network", "ring:5", "--max-states", "100"},
           {"check", example("echo"), "--network", "ring:5"}}) {
    // The refusal comes before any output is touched: an earlier report stays.
    const std::string report = fresh_dir("kept") + "/report.json";
    std::ofstream(report) << "{\"earlier\": true}\n";
    std::vector<std::string> args = other;
    args.insert(args.end(), {"--resume", ckpt, "--json", report});
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "is of another check")) << describe(r);
    EXPECT_EQ(read_text(report), "{\"earlier\": true}\n");
  }
}

// The one file of `dir` whose name starts with `prefix`.
std::string file_starting(const std::string& dir, const std::string& prefix) {
  std::string found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0) {
      EXPECT_TRUE(found.empty()) << "two files " << prefix << "* in " << dir;
      found = e.path().filename().string();
    }
  EXPECT_FALSE(found.empty()) << "no file " << prefix << "* in " << dir;
  return found;
}

TEST(CheckpointCli, DamagedOrMissingCheckpointsAreRefused) {
  const std::vector<std::string> check = {"check", example("flooding"), "--network", "ring:5"};
  const std::string good = periodic_checkpoint(check);
  // A checkpoint is its manifest and (one process) one part; beside them,
  // the directory's lock file.
  const std::string manifest = "checkpoint.ddsmc", part = file_starting(good, "rank-0.");
  EXPECT_EQ(std::distance(fs::directory_iterator(good), fs::directory_iterator()), 3);
  EXPECT_TRUE(fs::exists(good + "/ddsmc.lock"));
  // The same check's checkpoint of another generation: its part is whole
  // but not this manifest's.
  const std::string other = periodic_checkpoint(check);
  const std::string other_part = file_starting(other, "rank-0.");
  ASSERT_NE(part, other_part);
  // A copy of the good checkpoint with `file` replaced (or removed).
  auto damaged = [&](const std::string& file, const std::optional<std::string>& content) {
    const std::string dir = fresh_dir("damaged");
    fs::copy(good, dir);
    if (content) std::ofstream(dir + "/" + file, std::ios::binary | std::ios::trunc) << *content;
    else fs::remove(dir + "/" + file);
    return dir;
  };
  std::vector<std::pair<std::string, std::string>> cases = {
      {damaged(part, std::nullopt), "part of the checkpoint is missing"},
      {damaged(part, read_text(other + "/" + other_part)), "belongs to another checkpoint"},
      {damaged(manifest, std::string("not a checkpoint at all, just text")), "not a ddsmc checkpoint"},
      {damaged(manifest, std::string()), "truncated"},
      {fresh_dir("empty"), "no checkpoint"},
  };
  for (const std::string& file : {manifest, part}) {
    const std::string bytes = read_text(good + "/" + file);
    ASSERT_GT(bytes.size(), 40u);
    std::string flipped = bytes;
    flipped[bytes.size() / 2] = static_cast<char>(flipped[bytes.size() / 2] ^ 0x40);
    std::string header_flipped = bytes;
    header_flipped[20] = static_cast<char>(header_flipped[20] ^ 0x01);
    for (const auto& [content, what] : std::vector<std::pair<std::string, std::string>>{
             {bytes.substr(0, bytes.size() / 2), "truncated or corrupted"},
             {bytes.substr(0, bytes.size() - 3), "truncated or corrupted"},
             {bytes.substr(0, 5), "truncated"},
             {flipped, "truncated or corrupted"},
             {header_flipped, "truncated or corrupted"},
             {bytes + "x", "truncated or corrupted"}})
      cases.emplace_back(damaged(file, content), what);
  }
  for (const auto& [dir, what] : cases) {
    std::vector<std::string> args = check;
    args.insert(args.end(), {"--resume", dir});
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << what << ": " << describe(r);
    EXPECT_TRUE(contains(r.err, what)) << what << ": " << describe(r);
    EXPECT_TRUE(contains(r.err, "cannot resume")) << describe(r);
  }
}

TEST(CheckpointCli, CheckpointEveryNeedsADirectoryAndADuration) {
  CliResult r = cli({"check", example("ping_pong"), "--checkpoint-every", "10s"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "needs --checkpoint")) << describe(r);
  r = cli({"check", example("ping_pong"), "--checkpoint", fresh_dir("c"), "--checkpoint-every", "soon"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "not a duration")) << describe(r);
}

}  // namespace
}  // namespace ddsmc::test
