// `ddsmc replay` end to end: every field of a step must agree with the
// replayed run, and a file that is not a trace exits 2 with a message. The
// traces are real `check` output, edited here. (The claims of the traces:
// replay_claims_cli_test.cpp.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/app/cli_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc::test;
using nlohmann::json;

namespace {

// One node that sends `ping` to `z`, which is no node: the message is
// dropped. Its sometimes-total witness: step 0 drops ping@z, step 1 is idle.
const char* const kDropsAMessage =
    "state done/0.\n"
    "transport ping/0.\n"
    "network { a. }\n"
    "ping@z if start@_.\n"
    "done if start@_.\n"
    "done if prev done.\n"
    "done if ping@_.\n";

struct DropsTrace {
  std::string model = temp_file(kDropsAMessage);
  json file;
  json& step(size_t i) { return file["traces"][0]["trace"]["steps"][i]; }
};

DropsTrace drops_trace() {
  DropsTrace d;
  std::string path = scratch();
  CliResult r = cli({"check", d.model, "--property", "sometimes-total", "--trace", path});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  d.file = load_json(path);
  EXPECT_EQ(d.step(0).value("dropped", json()), json::parse(R"([{"to": "z", "payload": "ping"}])")) << d.file.dump(1);
  EXPECT_TRUE(d.step(1)["channel"].is_null()) << d.file.dump(1);
  return d;
}

// The first step on a channel between two different nodes.
size_t first_step_between_nodes(const json& trace) {
  const json& steps = trace["steps"];
  size_t k = 0;
  while (k < steps.size() &&
         (steps[k]["channel"].is_null() || steps[k]["channel"]["from"] == steps[k]["channel"]["to"]))
    ++k;
  return k;
}

void expect_format_error(const CliResult& r, const std::string& message) {
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, message)) << "expected: " << message << "\n" << describe(r);
}

TEST(CheckCliReplay, UntouchedTraceReplays) {
  auto p = ping_pong_trace();
  CliResult r = replay_json(p.model, p.file);
  expect_all_replay(r, 1);
  EXPECT_TRUE(contains(r.out, "loop closes at step " + std::to_string(p.trace()["loop_start"].get<size_t>())))
      << describe(r);
  // A bare trace object (not wrapped in a file) replays too.
  expect_all_replay(replay_json(p.model, p.trace()), 1);
}

TEST(CheckCliReplay, TamperedPayloadNamesTheStep) {
  auto p = ping_pong_trace();
  // A step on a channel between two nodes: `start` is only ever on self-loops.
  size_t k = first_step_between_nodes(p.trace());
  ASSERT_LT(k, p.trace()["steps"].size());
  p.trace()["steps"][k]["payload"] = "start";
  expect_wrong_step(replay_json(p.model, p.file), k);
}

TEST(CheckCliReplay, TamperedAddedRemovedOrSentNamesTheStep) {
  for (const char* key : {"added", "removed", "sent"}) {
    SCOPED_TRACE(key);
    auto p = ping_pong_trace();
    size_t k = first_step_with(p.trace(), key);
    ASSERT_LT(k, p.trace()["steps"].size()) << "no step with " << key;
    p.trace()["steps"][k][key] = json::array();
    CliResult r = replay_json(p.model, p.file);
    expect_wrong_step(r, k);
    EXPECT_TRUE(contains(r.out, "the program computes")) << describe(r);
  }
  {
    SCOPED_TRACE("input beyond the input bound");
    auto p = ping_pong_trace();
    p.trace()["steps"][1]["input"] = json::array({"flip"});
    expect_wrong_step(replay_json(p.model, p.file), 1);
  }
}

TEST(CheckCliReplay, DroppedStepNamesTheStep) {
  auto p = ping_pong_trace();
  // Drop a step whose message the next step consumes: the next step then
  // finds its channel empty.
  json& steps = p.trace()["steps"];
  size_t k = 0;
  for (; k + 1 < steps.size(); ++k) {
    const json& next = steps[k + 1];
    if (steps[k]["channel"].is_null() || next["channel"].is_null()) continue;
    if (next["channel"]["from"] == next["channel"]["to"]) continue;
    bool consumes = false;
    for (const auto& m : steps[k]["sent"])
      consumes |= m["to"] == next["channel"]["to"] && m["payload"] == next["payload"] &&
                  next["channel"]["from"] == steps[k]["channel"]["to"];
    if (consumes) break;
  }
  ASSERT_LT(k + 1, steps.size());
  steps.erase(k);
  if (p.trace()["loop_start"].get<size_t>() > k) p.trace()["loop_start"] = p.trace()["loop_start"].get<size_t>() - 1;
  expect_wrong_step(replay_json(p.model, p.file), k);
}

TEST(CheckCliReplay, WrongLoopStartIsReported) {
  {
    auto p = ping_pong_trace();
    p.trace()["loop_start"] = p.trace()["loop_start"].get<size_t>() + 1;
    CliResult r = replay_json(p.model, p.file);
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.out, "loop does not close")) << describe(r);
  }
  {
    auto p = ping_pong_trace();
    p.trace()["steps"].erase(p.trace()["steps"].size() - 1);  // the cycle no longer closes
    CliResult r = replay_json(p.model, p.file);
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.out, "loop does not close")) << describe(r);
  }
  {
    auto p = ping_pong_trace();
    p.trace()["loop_start"] = p.trace()["steps"].size();
    CliResult r = replay_json(p.model, p.file);
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.out, "loop_start")) << describe(r);
  }
  // An empty run with a loop used to read past the replayed states (exit 139),
  // and `loop_start: 0` passed as a zero-step loop.
  for (int loop_start : {0, 3, 100000}) {
    SCOPED_TRACE(loop_start);
    CliResult r = replay_json(example("ping_pong"), json{{"steps", json::array()}, {"loop_start", loop_start}});
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.out, "loop_start")) << describe(r);
  }
}

TEST(CheckCliReplay, MalformedFilesExitTwoWithAMessage) {
  std::string model = example("ping_pong");
  // A step on n0 -> n1 with `rest` after its index, channel and node.
  auto step = [](const std::string& rest) {
    return R"({"steps": [{"index": 0, "channel": {"from": "n0", "to": "n1"}, "node": "n1", )" + rest + "}]}";
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "the trace file is empty"},
      {"{\"steps\": [", "not valid JSON"},
      {"[1, 2, 3]", "steps"},
      {"{\"hello\": 1}", "steps"},
      {"{\"steps\": 3}", "steps"},
      {"{\"traces\": []}", "no trace"},
      {"{\"traces\": [{\"kind\": \"witness\", \"property\": \"sometimes-total\"}]}", "steps"},
      {"{\"steps\": [{\"index\": 0, \"channel\": {\"from\": \"n0\", \"to\": \"nowhere\"}}]}", "unknown node"},
      {step(R"("payload": "nosuch")"), "unknown predicate"},
      {step(R"j("payload": "ball(x)")j"), "error"},
      {step(R"("payload": "flip")"), "transport"},
      {step(R"("input": [])"), "'payload' is missing"},
      {step(R"("payload": "ball", "input": [], "added": "flip")"), "list"},
      {"{\"steps\": [], \"loop_start\": \"x\"}", "loop_start"},
      {"{\"steps\": [], \"loop_start\": -1}", "loop_start"},
  };
  for (const auto& [content, message] : cases) {
    SCOPED_TRACE(content);
    std::string path = temp_file(content, ".json");
    CliResult r = cli({"replay", model, path});
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "error")) << describe(r);
    EXPECT_TRUE(contains(r.err, message)) << describe(r);
  }
  CliResult missing = cli({"replay", model, ddsmc::test::temp_dir() + "/no_such_trace.json"});
  EXPECT_EQ(missing.exit_code, 2) << describe(missing);
  EXPECT_TRUE(contains(missing.err, "cannot open")) << describe(missing);
  EXPECT_EQ(cli({"replay", model}).exit_code, 2);
}

TEST(CheckCliReplay, NetworkSpecIsRecordedInTheTrace) {
  std::string model = example("flooding");
  std::string trace = scratch(), report = scratch();
  CliResult r = cli({"check", model, "--network", "ring:3", "--trace", trace, "--json", report});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(load_json(trace).value("network_spec", json()), "ring:3");
  EXPECT_EQ(load_json(report).value("network_spec", json()), "ring:3");
  expect_all_replay(cli({"replay", model, trace}), 2);
  expect_all_replay(cli({"replay", model, report}), 2);
  // The command line still wins: on ring:4 the ring:3 trace does not fit.
  CliResult other = cli({"replay", model, trace, "--network", "ring:4"});
  EXPECT_NE(other.exit_code, 0) << describe(other);
  EXPECT_LT(other.exit_code, 128) << describe(other);
}

TEST(CheckCliReplay, InputBoundIsRecordedInTheTrace) {
  // relay with two input facts per step: the bound run uses both.
  std::string model = example("relay");
  std::string trace = scratch();
  CliResult r = cli({"check", model, "--input-bound", "2", "--trace", trace});
  ASSERT_NE(r.exit_code, 2) << describe(r);
  json t = load_json(trace);
  EXPECT_EQ(t.value("input_bound", json()), 2) << t.dump().substr(0, 300);
  ASSERT_FALSE(t["traces"].empty());
  expect_all_replay(cli({"replay", model, trace}), t["traces"].size());
  // With the file's own bound (1) the two-fact inputs are illegal.
  bool two_facts = false;
  for (const auto& e : t["traces"])
    for (const auto& s : e["trace"]["steps"]) two_facts |= s.contains("input") && s["input"].size() == 2;
  if (two_facts) {
    CliResult strict = cli({"replay", model, trace, "--input-bound", "1"});
    EXPECT_EQ(strict.exit_code, 1) << describe(strict);
    EXPECT_TRUE(contains(strict.out, "more than the input bound 1")) << describe(strict);
  }
}

// ---------------------------------------------------------------------------
// Every field of a step agrees with the replayed run

TEST(ReplayCliFields, IndexMustBeTheStepsPosition) {
  auto p = ping_pong_trace();
  size_t k = first_step_between_nodes(p.trace());
  p.trace()["steps"][k]["index"] = k + 1;
  CliResult r = replay_json(p.model, p.file);
  expect_wrong_step(r, k);
  EXPECT_TRUE(contains(r.out, "'index' is " + std::to_string(k + 1))) << describe(r);
  p.trace()["steps"][k]["index"] = std::to_string(k);
  expect_format_error(replay_json(p.model, p.file), "step " + std::to_string(k) + ": 'index' must be a step number");
}

TEST(ReplayCliFields, NodeMustBeTheChannelsDestination) {
  auto p = ping_pong_trace();
  size_t k = first_step_between_nodes(p.trace());
  json& step = p.trace()["steps"][k];
  ASSERT_EQ(step["node"], step["channel"]["to"]);
  step["node"] = step["channel"]["from"];
  CliResult r = replay_json(p.model, p.file);
  expect_wrong_step(r, k);
  EXPECT_TRUE(contains(r.out, "'node'")) << describe(r);
  step["node"] = "nowhere";
  expect_format_error(replay_json(p.model, p.file), "unknown node 'nowhere'");
}

TEST(ReplayCliFields, DroppedMustBeTheDroppedMessagesAsASet) {
  auto d = drops_trace();
  expect_all_replay(replay_json(d.model, d.file), 1);
  // Listed twice: still the same set.
  d.step(0)["dropped"].push_back(d.step(0)["dropped"][0]);
  expect_all_replay(replay_json(d.model, d.file), 1);
  for (json wrong :
       {json::array(), json::parse(R"([{"to": "z", "payload": "ping"}, {"to": "a", "payload": "ping"}])"),
        json::parse(R"([{"to": "a", "payload": "ping"}])"), json::parse(R"([{"to": "z", "payload": "done"}])")}) {
    SCOPED_TRACE(wrong.dump());
    d.step(0)["dropped"] = wrong;
    CliResult r = replay_json(d.model, d.file);
    expect_wrong_step(r, 0);
    EXPECT_TRUE(contains(r.out, "'dropped'")) << describe(r);
    EXPECT_TRUE(contains(r.out, "drops ping@z")) << describe(r);
  }
}

TEST(ReplayCliFields, StableMustBeABooleanThatMatchesTheDbChange) {
  auto p = ping_pong_trace();
  size_t k = 0;
  while (k < p.trace()["steps"].size() && p.trace()["steps"][k]["stable"] == true) ++k;
  ASSERT_LT(k, p.trace()["steps"].size()) << "the counterexample has a non-stable step";
  const std::string where = "trace 1 (always-total counterexample), step " + std::to_string(k) + ": ";
  json& step = p.trace()["steps"][k];
  step["stable"] = true;
  CliResult flipped = replay_json(p.model, p.file);
  expect_wrong_step(flipped, k);
  EXPECT_TRUE(contains(flipped.out, "recorded as stable")) << describe(flipped);
  step["stable"] = "false";
  expect_format_error(replay_json(p.model, p.file), where + "'stable' must be true or false");
  step["stable"] = 0;
  expect_format_error(replay_json(p.model, p.file), where + "'stable' must be true or false");
  step.erase("stable");
  expect_format_error(replay_json(p.model, p.file), where + "'stable' is missing");
}

TEST(ReplayCliFields, EveryFieldCheckWritesIsRequired) {
  auto d = drops_trace();
  for (const char* key :
       {"index", "channel", "node", "payload", "input", "added", "removed", "sent", "dropped", "stable"}) {
    SCOPED_TRACE(key);
    auto copy = d;
    ASSERT_TRUE(copy.step(0).contains(key));
    copy.step(0).erase(key);
    expect_format_error(replay_json(copy.model, copy.file),
                        std::string("trace 1 (sometimes-total witness), step 0: '") + key + "' is missing");
  }
  for (const char* key : {"index", "channel", "idle", "stable"}) {
    SCOPED_TRACE(std::string("idle step: ") + key);
    auto copy = d;
    ASSERT_TRUE(copy.step(1).contains(key));
    copy.step(1).erase(key);
    expect_format_error(replay_json(copy.model, copy.file),
                        std::string("trace 1 (sometimes-total witness), step 1: '") + key + "' is missing");
  }
}

TEST(ReplayCliFields, IdleStepSaysIdleAndIsStable) {
  auto d = drops_trace();
  {
    auto copy = d;
    copy.step(1)["idle"] = false;
    CliResult r = replay_json(copy.model, copy.file);
    expect_wrong_step(r, 1);
    EXPECT_TRUE(contains(r.out, "'idle': true")) << describe(r);
  }
  {
    auto copy = d;
    copy.step(1)["stable"] = false;
    expect_wrong_step(replay_json(copy.model, copy.file), 1);
  }
  {
    auto copy = d;
    copy.step(0)["idle"] = true;  // a step that serves a channel is not idle
    expect_wrong_step(replay_json(copy.model, copy.file), 0);
  }
  {
    auto copy = d;
    copy.step(1)["sent"] = json::array();
    expect_format_error(replay_json(copy.model, copy.file), "step 1: an idle step ('channel': null) has no 'sent'");
  }
}

// ---------------------------------------------------------------------------
// Files that are not traces

TEST(ReplayCliFiles, DirectoryEmptyOrUnreadableFileExitsTwo) {
  std::string model = example("ping_pong");
  struct Case {
    std::string path, message;
  };
  std::vector<Case> cases = {{temp_dir(), "cannot read the trace file: Is a directory"},
                             {temp_file("", ".json"), "the trace file is empty"},
                             {"/proc/self/mem", "cannot read the trace file"}};  // reading it at offset 0 fails (EIO)
  // Permissions do not stop root; the test runs as root in some containers.
  if (::geteuid() != 0) {
    std::string locked = temp_file("{}", ".json");
    std::filesystem::permissions(locked, std::filesystem::perms::none);
    cases.push_back({locked, "cannot open the trace file"});
  }
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    CliResult r = cli({"replay", model, c.path});
    expect_format_error(r, c.message);
    EXPECT_FALSE(contains(r.err, "internal error")) << describe(r);
  }
}

}  // namespace
