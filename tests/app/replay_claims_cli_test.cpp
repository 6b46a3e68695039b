// `ddsmc replay` checks what each trace claims (semantics.md §10): a bound
// trace ends at the first state over a bound; a witness is a lasso whose
// cycle is stable, meets the fault condition and is fair; a counterexample
// is a lasso with no faulty state (for its node), a non-stable step in the
// cycle and a fair cycle. Every trace ddsmc writes passes; traces edited
// from real `check` output fail, each for the condition it breaks.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/app/cli_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc::test;
using nlohmann::json;

namespace {

// Node a ticks itself for ever (stable) and pings b once; b answers the ping
// with a pong to itself, and flips its state at every pong for ever. With
// fairness none a run may leave the ping or the pong unserved and converge;
// with channel fairness both are served and no run converges. So
// sometimes-total holds only without fairness, and its witness cycle is
// unfair under channel fairness.
const char* const kUnfairConvergence =
    "state source/0, flip/0.\n"
    "transport tick/0, ping/0, pong/0.\n"
    "network { a - b. }\n"
    "init at a { source. }\n"
    "bounds { state 0. channel 2. }\n"
    "source if prev source.\n"
    "tick@N if prev source, start@_, my_name(N).\n"
    "tick@N if tick@_, my_name(N).\n"
    "ping@M if prev source, start@_, neighbor(M).\n"
    "pong@N if ping@_, my_name(N).\n"
    "pong@N if pong@_, my_name(N).\n"
    "flip if pong@_, not prev flip.\n";

// The same ping, but node a is faulty right after its start and clears the
// error at its next step. Every run that pings b has a faulty state, so
// always-total holds; always-partial fails with b never faulty, and the
// counterexample's stem (not its cycle) has a faulty state.
const char* const kFaultyStem =
    "state source/0, flip/0.\n"
    "transport ping/0, pong/0, clear/0.\n"
    "network { a - b. }\n"
    "init at a { source. }\n"
    "bounds { state 0. channel 2. }\n"
    "source if prev source.\n"
    "error if prev source, start@_.\n"
    "clear@N if prev source, start@_, my_name(N).\n"
    "ping@M if prev source, start@_, neighbor(M).\n"
    "pong@N if ping@_, my_name(N).\n"
    "pong@N if pong@_, my_name(N).\n"
    "flip if pong@_, not prev flip.\n"
    "flip if clear@_, prev flip.\n";

// `check ARGS --trace T --json J`: the result and both files.
struct Checked {
  CliResult run;
  json trace, report;
};

Checked check_files(std::vector<std::string> args) {
  std::string trace = scratch(), report = scratch();
  args.insert(args.begin(), "check");
  for (const std::string& a : {std::string("--trace"), trace, std::string("--json"), report}) args.push_back(a);
  Checked c{cli(args), json(), json()};
  c.trace = load_json(trace);
  c.report = load_json(report);
  EXPECT_TRUE(c.trace.is_object() && c.trace["traces"].is_array()) << describe(c.run);
  return c;
}

// The entry of a --trace file for `property` ("sometimes-total", ...).
json& entry(json& file, const std::string& property) {
  for (auto& e : file["traces"])
    if (e.value("property", std::string()) == property) return e;
  ADD_FAILURE() << "no trace for " << property << " in " << file.dump().substr(0, 500);
  static json none;
  return none;
}

// One trace fails its claim with `message`; the file's other traces may pass.
void expect_claim_fails(const CliResult& r, const std::string& message) {
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.out, "but the claim fails: ")) << describe(r);
  EXPECT_TRUE(contains(r.out, message)) << "expected: " << message << "\n" << describe(r);
}

// ---------------------------------------------------------------------------
// Everything ddsmc writes is accepted

// With --on-bound prune, under both fairness modes (CheckCliExamples replays
// the traces of the default --on-bound stop).
TEST(ReplayCliExamples, EveryTraceIsAcceptedWhenPruningUnderBothFairnessModes) {
  std::vector<std::string> models;
  for (const auto& f : std::filesystem::directory_iterator(source_path("examples")))
    if (f.path().extension() == ".d2c") models.push_back(f.path().string());
  std::sort(models.begin(), models.end());
  ASSERT_GE(models.size(), 10u);
  for (const auto& model : models) {
    for (const char* fairness : {"channel", "none"}) {
      SCOPED_TRACE(model + " fairness " + fairness);
      Checked c = check_files({model, "--fairness", fairness, "--on-bound", "prune"});
      ASSERT_TRUE(c.run.exit_code == 0 || c.run.exit_code == 1) << describe(c.run);
      EXPECT_EQ(c.trace.value("fairness", json()), fairness);
      size_t traces = c.trace["traces"].size();
      expect_all_replay(replay_json(model, c.trace), traces);
      expect_all_replay(replay_json(model, c.report), traces);
    }
  }
}

// ---------------------------------------------------------------------------
// Bound traces

// relay on star:3: the source's channels outgrow `channel 1`.
Checked relay_bound() {
  Checked c = check_files({example("relay"), "--network", "star:3"});
  EXPECT_EQ(c.run.exit_code, 3) << describe(c.run);
  EXPECT_EQ(c.trace["traces"].size(), 1u);
  EXPECT_EQ(c.trace["traces"][0].value("kind", json()), "bound");
  EXPECT_EQ(c.report["bound_exceeded"].value("kind", json()), "channel");
  return c;
}

TEST(ReplayCliClaims, BoundTraceEndsAtTheFirstStateOverABound) {
  const std::string model = example("relay");
  Checked c = relay_bound();
  expect_all_replay(replay_json(model, c.trace), 1);
  expect_all_replay(replay_json(model, c.report), 1);
  // Cut back to an in-bounds prefix.
  json& steps = c.trace["traces"][0]["trace"]["steps"];
  ASSERT_FALSE(steps.empty());
  json cut = c.trace;
  cut["traces"][0]["trace"]["steps"].erase(steps.size() - 1);
  expect_claim_fails(replay_json(model, cut), "the last state exceeds no bound");
  json cut_report = c.report;
  cut_report["bound_exceeded"]["trace"]["steps"].erase(steps.size() - 1);
  expect_claim_fails(replay_json(model, cut_report), "the last state exceeds no bound");
  // The bounds are those loaded, overrides included: with channel bound 0 the
  // run is over it from the start, with 2 never.
  std::string path = scratch();
  save_json(path, c.trace);
  expect_claim_fails(cli({"replay", model, path, "--channel-bound", "0"}),
                     "the initial state already exceeds the channel bound 0");
  expect_claim_fails(cli({"replay", model, path, "--channel-bound", "2"}), "the last state exceeds no bound");
}

// A bound exceeded under --channel-bound / --state-bound given to check: the
// files record the overrides, so replay needs no option to accept the trace.
TEST(ReplayCliClaims, BoundOverridesOfCheckAreRecordedForReplay) {
  const std::string model = example("relay");
  // The file's bounds are channel 1 and state 1: relay on star:3 exceeds a
  // channel bound of 2 after some steps, on line:3 a state bound of 0.
  for (const std::vector<std::string>& args : {std::vector<std::string>{"star:3", "--channel-bound", "2"},
                                               std::vector<std::string>{"line:3", "--state-bound", "0"}}) {
    Checked c = check_files({model, "--network", args[0], args[1], args[2]});
    ASSERT_EQ(c.run.exit_code, 3) << describe(c.run);
    const std::string key = args[1] == "--channel-bound" ? "channel_bound" : "state_bound";
    const int value = std::stoi(args[2]);
    EXPECT_EQ(c.trace.value(key, json()), value) << c.trace.dump().substr(0, 300);
    EXPECT_EQ(c.report.value(key, json()), value);
    EXPECT_EQ(c.report["bound_exceeded"].value("bound", json()), value);
    ASSERT_EQ(c.trace["traces"].size(), 1u);
    EXPECT_EQ(c.trace["traces"][0].value("kind", json()), "bound");
    expect_all_replay(replay_json(model, c.trace), 1);
    expect_all_replay(replay_json(model, c.report), 1);
  }
}

TEST(ReplayCliClaims, BoundFieldsOfTheReportMustAgree) {
  const std::string model = example("relay");
  Checked c = relay_bound();
  const json b = c.report["bound_exceeded"];
  ASSERT_TRUE(b.contains("channel") && b.contains("value") && b.contains("bound")) << b.dump();
  std::vector<std::pair<std::string, json>> edits = {{"kind", "state"},
                                                     {"value", b["value"].get<int>() + 1},
                                                     {"bound", b["bound"].get<int>() + 1},
                                                     {"channel", "n1 -> n1"},
                                                     {"node", "n0"}};
  for (const auto& [key, value] : edits) {
    SCOPED_TRACE(key);
    json report = c.report;
    report["bound_exceeded"][key] = value;
    expect_claim_fails(replay_json(model, report), "the report says");
  }
  json report = c.report;
  report["bound_exceeded"]["kind"] = "memory";
  CliResult r = replay_json(model, report);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "trace 1 (bound): 'kind' must be")) << describe(r);
}

// ---------------------------------------------------------------------------
// Witnesses and counterexamples

TEST(ReplayCliClaims, WitnessRelabelledAsAlwaysTotalCounterexampleFails) {
  const std::string model = example("echo");
  Checked c = check_files({model});
  ASSERT_EQ(c.run.exit_code, 1) << describe(c.run);
  json witness = entry(c.trace, "sometimes-total");
  witness["kind"] = "counterexample";
  witness["property"] = "always-total";
  json file = c.trace;
  file["traces"] = json::array({witness});
  expect_claim_fails(replay_json(model, file), "has no non-stable step; an always-total counterexample needs one");
  // The same in a report.
  json report = c.report;
  report["properties"]["always_total"]["trace"] = report["properties"]["sometimes_total"]["trace"];
  expect_claim_fails(replay_json(model, report), "has no non-stable step; an always-total counterexample needs one");
}

TEST(ReplayCliClaims, TraceOfTheWrongKindForItsPropertyFails) {
  const std::string model = example("echo");
  Checked c = check_files({model});
  {
    json file = c.trace;
    entry(file, "sometimes-total")["property"] = "always-total";  // a witness of always-total
    expect_claim_fails(replay_json(model, file), "always-total fails with a counterexample");
  }
  {
    json file = c.trace;
    entry(file, "always-total")["property"] = "sometimes-total";  // a counterexample of sometimes-total
    expect_claim_fails(replay_json(model, file), "sometimes-total holds with a witness");
  }
  {
    json report = c.report;
    report["properties"]["sometimes_total"]["holds"] = false;
    expect_claim_fails(replay_json(model, report), "sometimes-total holds with a witness");
    report["properties"]["sometimes_total"]["holds"] = nullptr;
    CliResult r = replay_json(model, report);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "(sometimes_total): 'holds' must be true or false")) << describe(r);
  }
}

TEST(ReplayCliClaims, CounterexampleNeedsALoopWithANonStableStep) {
  {
    auto p = ping_pong_trace();
    expect_all_replay(replay_json(p.model, p.file), 1);
    p.trace()["loop_start"] = nullptr;
    expect_claim_fails(replay_json(p.model, p.file), "an always-total counterexample is a lasso");
  }
  {
    // The cycle without its non-stable steps (renumbered) is not a run that closes.
    auto p = ping_pong_trace();
    json& steps = p.trace()["steps"];
    size_t loop_start = p.trace()["loop_start"].get<size_t>();
    size_t removed = 0;
    for (size_t i = steps.size(); i-- > loop_start;)
      if (steps[i]["stable"] == false) steps.erase(i), ++removed;
    ASSERT_GT(removed, 0u);
    for (size_t i = 0; i < steps.size(); ++i) steps[i]["index"] = i;
    CliResult r = replay_json(p.model, p.file);
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_FALSE(contains(r.out, "steps replay, and the loop closes at step " + std::to_string(loop_start) + ";"))
        << describe(r);
  }
}

TEST(ReplayCliClaims, CounterexampleWithAFaultyStateInTheStemFails) {
  const std::string model = temp_file(kFaultyStem);
  Checked c = check_files({model, "--property", "always-partial"});
  ASSERT_EQ(c.run.exit_code, 1) << describe(c.run);
  expect_all_replay(replay_json(model, c.trace), 1);
  json& ce = entry(c.trace, "always-partial");
  ASSERT_EQ(ce["trace"].value("never_faulty", json()), "b");
  // Node a is faulty after the step that adds `error`, a step of the stem.
  const json& steps = ce["trace"]["steps"];
  size_t k = 0;
  while (k < steps.size() &&
         !(steps[k].contains("added") && steps[k]["added"].dump().find("\"error\"") != std::string::npos))
    ++k;
  ASSERT_LT(k + 1, ce["trace"]["loop_start"].get<size_t>() + 1) << "the faulty state is in the stem";
  const std::string faulty = "a is faulty in the state before step " + std::to_string(k + 1);
  {
    json file = c.trace;
    entry(file, "always-partial")["property"] = "always-total";
    expect_claim_fails(replay_json(model, file), faulty + "; no node is ever faulty in an always-total counterexample");
  }
  {
    json file = c.trace;
    entry(file, "always-partial")["trace"]["never_faulty"] = "a";
    expect_claim_fails(replay_json(model, file),
                       faulty + ", but an always-partial counterexample says it is never faulty");
  }
}

TEST(ReplayCliClaims, CycleMustBeFairUnderTheRecordedFairness) {
  const std::string model = temp_file(kUnfairConvergence);
  Checked fair = check_files({model, "--property", "sometimes-total"});
  EXPECT_EQ(fair.report["properties"]["sometimes_total"]["holds"], json(false)) << describe(fair.run);
  Checked c = check_files({model, "--property", "sometimes-total", "--fairness", "none"});
  ASSERT_EQ(c.run.exit_code, 0) << describe(c.run);
  expect_all_replay(replay_json(model, c.trace), 1);
  expect_all_replay(replay_json(model, c.report), 1);
  // The witness leaves a message to b unserved: b's pong (or the ping, or b's start).
  const std::string unfair = "is not fair under channel fairness: channel";
  json file = c.trace;
  file["fairness"] = "channel";
  CliResult r = replay_json(model, file);
  expect_claim_fails(r, unfair);
  EXPECT_TRUE(std::regex_search(r.out, std::regex("channels? [a-z >,-]*(a|b) -> b[a-z >,-]* (is|are) never empty")))
      << describe(r);
  file.erase("fairness");  // the default: channel
  expect_claim_fails(replay_json(model, file), unfair);
  json report = c.report;
  report["fairness"] = "channel";
  expect_claim_fails(replay_json(model, report), unfair);
}

TEST(ReplayCliClaims, AlwaysPartialCounterexampleNamesItsNeverFaultyNode) {
  const std::string model = example("relay");
  Checked c = check_files({model, "--property", "always-partial"});
  ASSERT_EQ(c.run.exit_code, 1) << describe(c.run);
  json file = c.trace;
  entry(file, "always-partial")["trace"].erase("never_faulty");
  CliResult r = replay_json(model, file);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "trace 1 (always-partial counterexample): 'never_faulty' is missing")) << describe(r);
  json report = c.report;
  report["properties"]["always_partial"]["trace"]["never_faulty"] = "nowhere";
  r = replay_json(model, report);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "trace 1 (always-partial counterexample): unknown node 'nowhere'")) << describe(r);
}

TEST(ReplayCliClaims, UnknownKindPropertyOrFairnessExitTwo) {
  const std::string model = example("echo");
  Checked c = check_files({model, "--property", "sometimes-total"});
  auto expect_rejected = [&](const json& doc, const std::string& message) {
    CliResult r = replay_json(model, doc);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, message)) << "expected: " << message << "\n" << describe(r);
  };
  json file = c.trace;
  file["traces"][0]["kind"] = "proof";
  expect_rejected(file, "trace 1: 'kind' must be bound, witness, counterexample or simulation");
  file = c.trace;
  file["traces"][0]["property"] = "eventually";
  expect_rejected(file, "trace 1: 'property' must be");
  file = c.trace;
  file["fairness"] = "weak";
  expect_rejected(file, "'fairness' must be \"channel\" or \"none\"");
  json report = c.report;
  report["fairness"] = "weak";
  expect_rejected(report, "'fairness' must be \"channel\" or \"none\"");
  report = c.report;
  report["properties"]["eventually_total"] = {{"holds", true}, {"trace", nullptr}};
  expect_rejected(report, "unknown property 'eventually_total'");
}

}  // namespace
