// `ddsmc check` and `ddsmc simulate` end to end (replay: replay_cli_test.cpp): every case
// runs the real binary, as a user does, and looks at what a user or a script
// sees: the exit code (docs/reference.md §6: 0 holds, 1 fails, 2 usage or model error,
// 3 incomplete), the text on stdout/stderr, and the --json / --trace files.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/app/cli_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc::test;
using nlohmann::json;

namespace {

const char* const kExamples[] = {"counter_machine_halting", "counter_machine_nonhalting", "echo",     "flooding",
                                 "gossip",                  "leader_election",            "ping_pong", "relay",
                                 "retry_ack",               "spanning_tree",              "token_ring"};
const char* const kPropertyKeys[] = {"sometimes_total", "sometimes_partial", "always_total", "always_partial"};
const char* const kPropertyNames[] = {"sometimes-total", "sometimes-partial", "always-total", "always-partial"};

// One node that sends itself two messages for every message it processes: the
// self-loop channel grows without bound, so `channel 2` is exceeded after three
// steps. The reachable states within the bound are exactly three:
// {start}, {tick}, {tick, tock}; with `channel 3` five.
const char* const kGrowingChannel =
    "transport tick/0, tock/0.\n"
    "network { a. }\n"
    "bounds { channel 2. }\n"
    "tick@N if start@_, my_name(N).\n"
    "tick@N if tick@_, my_name(N).\n"
    "tock@N if tick@_, my_name(N).\n"
    "tick@N if tock@_, my_name(N).\n"
    "tock@N if tock@_, my_name(N).\n";

// A node that remembers every input constant: its DB outgrows `state 1`.
const char* const kGrowingState =
    "input v/1.\n"
    "state seen/1.\n"
    "transport tick/0.\n"
    "network { a. }\n"
    "bounds { state 1. }\n"
    "tick@N if start@_, my_name(N).\n"
    "tick@N if tick@_, my_name(N).\n"
    "seen(X) if v(X).\n"
    "seen(X) if prev seen(X).\n";

// Infinitely many states (every input constant is remembered, no bounds) and
// no run converges (flip toggles for ever): only --max-states ends the check,
// and the partial graph already holds a genuine always-* counterexample.
const char* const kEndless =
    "input v/1.\n"
    "state flip/0, seen/1.\n"
    "transport tick/0.\n"
    "network { a. }\n"
    "tick@N if start@_, my_name(N).\n"
    "tick@N if tick@_, my_name(N).\n"
    "flip if tick@_, not prev flip.\n"
    "seen(X) if v(X).\n"
    "seen(X) if prev seen(X).\n";

// "states N, transitions M, ..." from the text report.
struct Counts {
  bool found = false;
  uint64_t states = 0, transitions = 0;
};

Counts text_counts(const std::string& text) {
  static const std::regex re(R"((?:^|\n)states ([0-9]+), transitions ([0-9]+)(?: \(orbits under a group of order [0-9]+\))?, )");
  std::smatch m;
  Counts c;
  if (std::regex_search(text, m, re)) {
    c.found = true;
    c.states = std::stoull(m[1]);
    c.transitions = std::stoull(m[2]);
  }
  return c;
}

// The verdict word the text report prints for a property, "" when absent.
std::string text_verdict(const std::string& text, const std::string& property) {
  for (const auto& line : lines_of(text)) {
    if (line.rfind(property + " ", 0) != 0) continue;
    std::istringstream in(line.substr(property.size()));
    std::string word;
    in >> word;
    return word;
  }
  return "";
}

std::string verdict_word(const json& holds) {
  if (holds.is_null()) return "undecided";
  return holds.get<bool>() ? "holds" : "FAILS";
}

// docs/reference.md §7.2: a trace is a list of steps, each with the channel served (null for
// the idle step), the payload, the input, the facts added and removed, the
// messages sent, and for a lasso the index where the cycle starts.
void expect_trace_shape(const json& t, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(t.is_object()) << t.dump();
  ASSERT_TRUE(t.contains("steps") && t["steps"].is_array()) << t.dump();
  ASSERT_TRUE(t.contains("loop_start")) << t.dump();
  EXPECT_TRUE(t["loop_start"].is_null() || t["loop_start"].is_number_unsigned()) << t["loop_start"];
  if (t["loop_start"].is_number_unsigned()) {
    EXPECT_LT(t["loop_start"].get<size_t>(), t["steps"].size());
  }
  EXPECT_TRUE(t.contains("initial") && t["initial"].is_object());
  const json& steps = t["steps"];
  for (size_t i = 0; i < steps.size(); ++i) {
    const json& s = steps[i];
    SCOPED_TRACE("step " + std::to_string(i) + ": " + s.dump());
    ASSERT_TRUE(s.is_object());
    EXPECT_EQ(s.value("index", json()), json(i));
    ASSERT_TRUE(s.contains("channel"));
    ASSERT_TRUE(s.contains("stable") && s["stable"].is_boolean());
    if (s["channel"].is_null()) {  // the idle step: every channel empty, the state unchanged
      EXPECT_EQ(s.value("idle", json()), json(true));
      EXPECT_TRUE(s["stable"].get<bool>());
      continue;
    }
    ASSERT_TRUE(s["channel"].is_object());
    EXPECT_TRUE(s["channel"].value("from", json()).is_string());
    EXPECT_TRUE(s["channel"].value("to", json()).is_string());
    EXPECT_TRUE(s.value("payload", json()).is_string());
    for (const char* key : {"input", "added", "removed"}) {
      ASSERT_TRUE(s.contains(key) && s[key].is_array()) << key;
      for (const auto& f : s[key]) EXPECT_TRUE(f.is_string()) << key;
    }
    ASSERT_TRUE(s.contains("sent") && s["sent"].is_array());
    for (const auto& msg : s["sent"]) {
      EXPECT_TRUE(msg.value("to", json()).is_string()) << msg;
      EXPECT_TRUE(msg.value("payload", json()).is_string()) << msg;
    }
    // A stable step changed nothing in the processing node's DB.
    if (s["stable"].get<bool>()) {
      EXPECT_TRUE(s["added"].empty() && s["removed"].empty());
    }
  }
}

// docs/reference.md §7.1: the keys and types of a --json report, with `keys` the properties checked.
void expect_report_shape(const json& j, const std::vector<std::string>& keys) {
  ASSERT_TRUE(j.is_object()) << j.dump().substr(0, 2000);
  ASSERT_TRUE(j.contains("states") && j["states"].is_number_unsigned()) << j.dump().substr(0, 2000);
  ASSERT_TRUE(j.contains("transitions") && j["transitions"].is_number_unsigned());
  ASSERT_TRUE(j.contains("complete") && j["complete"].is_boolean());
  ASSERT_TRUE(j.contains("fairness") && j["fairness"].is_string());
  std::string fairness = j["fairness"].get<std::string>();
  EXPECT_TRUE(fairness == "channel" || fairness == "none") << fairness;
  ASSERT_TRUE(j.contains("bound_exceeded"));
  const json& b = j["bound_exceeded"];
  EXPECT_TRUE(b.is_null() || b.is_object()) << b;
  if (b.is_object()) {
    std::string kind = b.value("kind", std::string());
    EXPECT_TRUE(kind == "state" || kind == "channel") << b;
    EXPECT_FALSE(j["complete"].get<bool>()) << "a bound stopped the check";
    ASSERT_TRUE(b.contains("trace"));
    expect_trace_shape(b["trace"], "bound_exceeded trace");
    EXPECT_TRUE(b["trace"]["loop_start"].is_null()) << "a run to a state is not a lasso";
  }
  ASSERT_TRUE(j.contains("properties") && j["properties"].is_object());
  std::set<std::string> got, want(keys.begin(), keys.end());
  for (const auto& [key, p] : j["properties"].items()) got.insert(key);
  EXPECT_EQ(got, want) << j["properties"].dump().substr(0, 2000);
  for (const auto& [key, p] : j["properties"].items()) {
    SCOPED_TRACE(key);
    ASSERT_TRUE(p.is_object());
    ASSERT_TRUE(p.contains("holds") && p.contains("trace")) << p.dump().substr(0, 500);
    EXPECT_TRUE(p["holds"].is_null() || p["holds"].is_boolean()) << p["holds"];
    bool sometimes = key.rfind("sometimes_", 0) == 0;
    // A witness comes with every sometimes-* that holds, a counterexample with
    // every always-* that fails; nothing else has a trace.
    bool needs_trace = p["holds"].is_boolean() && p["holds"].get<bool>() == sometimes;
    EXPECT_EQ(!p["trace"].is_null(), needs_trace) << p.dump().substr(0, 500);
    if (!p["trace"].is_null()) {
      expect_trace_shape(p["trace"], key + " trace");
      EXPECT_TRUE(p["trace"]["loop_start"].is_number_unsigned()) << "witnesses and counterexamples are lassos";
    }
    if (!j["complete"].get<bool>() && p["holds"].is_boolean()) {
      EXPECT_FALSE(p["trace"].is_null()) << "a verdict on a partial graph needs its lasso";
    }
  }
  ASSERT_TRUE(j.contains("stats") && j["stats"].is_object());
  const json& st = j["stats"];
  EXPECT_TRUE(st.value("seconds", json()).is_number()) << st;
  if (st.value("seconds", json()).is_number()) {
    EXPECT_GE(st["seconds"].get<double>(), 0.0);
  }
  EXPECT_TRUE(st.value("analysis_seconds", json()).is_number()) << st;
  if (st.value("analysis_seconds", json()).is_number()) {
    EXPECT_GE(st["analysis_seconds"].get<double>(), 0.0);
  }
  EXPECT_TRUE(st.value("peak_rss_bytes", json()).is_number_unsigned()) << st;
  if (st.value("peak_rss_bytes", json()).is_number_unsigned()) {
    EXPECT_GT(st["peak_rss_bytes"].get<uint64_t>(), 0u);
  }
  // The memory breakdown: every part present, and the parts are the
  // bytes_per_state figure.
  ASSERT_TRUE(st.contains("memory") && st["memory"].is_object()) << st;
  uint64_t parts = 0;
  for (const char* k : {"tree_nodes", "tree_leaves", "visited", "roots", "labels", "edge_rows", "edge_index"}) {
    ASSERT_TRUE(st["memory"].value(k, json()).is_number_unsigned()) << k << " " << st["memory"];
    parts += st["memory"][k].get<uint64_t>();
  }
  EXPECT_EQ(st["memory"]["total"].get<uint64_t>(), parts);
  EXPECT_GT(parts, 0u);
  if (j["states"].get<uint64_t>() > 0) {
    EXPECT_NEAR(st["bytes_per_state"].get<double>(), double(parts) / j["states"].get<double>(), 1e-6);
  }
  EXPECT_TRUE(st.value("ranks", json()).is_number_unsigned()) << st;
  if (st.value("ranks", json()).is_number_unsigned()) {
    EXPECT_GE(st["ranks"].get<uint64_t>(), 1u);
  }
  EXPECT_TRUE(st.value("threads", json()).is_number_unsigned()) << st;
  if (st.value("threads", json()).is_number_unsigned()) {
    EXPECT_GE(st["threads"].get<uint64_t>(), 1u);
  }
}

std::vector<std::string> all_keys() { return {std::begin(kPropertyKeys), std::end(kPropertyKeys)}; }

// The text report agrees with the JSON: counts and one verdict line per
// property (none after a bound stopped the check: nothing was analysed).
void expect_text_matches_json(const std::string& text, const json& j) {
  Counts c = text_counts(text);
  ASSERT_TRUE(c.found) << text;
  EXPECT_EQ(c.states, j["states"].get<uint64_t>());
  EXPECT_EQ(c.transitions, j["transitions"].get<uint64_t>());
  for (size_t i = 0; i < 4; ++i) {
    if (!j["properties"].contains(kPropertyKeys[i]) || j["bound_exceeded"].is_object()) {
      EXPECT_EQ(text_verdict(text, kPropertyNames[i]), "") << kPropertyNames[i] << " was not checked\n" << text;
      continue;
    }
    EXPECT_EQ(text_verdict(text, kPropertyNames[i]), verdict_word(j["properties"][kPropertyKeys[i]]["holds"]))
        << kPropertyNames[i] << "\n" << text;
  }
}


// The `% expect fairness=F: sometimes-total=B ...` line of an example file.
std::map<std::string, bool> expected_verdicts(const std::string& file, const std::string& fairness) {
  std::map<std::string, bool> out;
  const std::string prefix = "% expect fairness=" + fairness + ":";
  for (const auto& line : lines_of(read_text(file))) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream in(line.substr(prefix.size()));
    std::string item;
    while (in >> item) {
      auto eq = item.find('=');
      if (eq == std::string::npos) continue;
      std::string key = item.substr(0, eq);
      for (auto& ch : key)
        if (ch == '-') ch = '_';
      out[key] = item.substr(eq + 1) == "true";
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Exit codes

TEST(CheckCliExitCodes, EveryPropertyHoldsExitsZero) {
  // (Without symmetry: the hand count is of the whole state space.)
  auto c = check_json({example("flooding"), "--symmetry", "none"});
  EXPECT_EQ(c.run.exit_code, 0) << describe(c.run);
  expect_report_shape(c.report, all_keys());
  expect_text_matches_json(c.run.out, c.report);
  EXPECT_TRUE(c.report["complete"].get<bool>());
  EXPECT_TRUE(c.report["bound_exceeded"].is_null());
  for (const char* key : kPropertyKeys) EXPECT_EQ(c.report["properties"][key]["holds"], json(true)) << key;
  // flooding.d2c on its own ring(4): 784 states, 3,361 transitions (examples/README.md).
  EXPECT_EQ(c.report["states"], 784);
  EXPECT_EQ(c.report["transitions"], 3361);
  EXPECT_TRUE(contains(c.run.out, "complete")) << describe(c.run);
}

TEST(CheckCliExitCodes, SomePropertyFailsExitsOne) {
  auto c = check_json({example("ping_pong")});
  EXPECT_EQ(c.run.exit_code, 1) << describe(c.run);
  expect_report_shape(c.report, all_keys());
  expect_text_matches_json(c.run.out, c.report);
  for (const char* key : kPropertyKeys) EXPECT_EQ(c.report["properties"][key]["holds"], json(false)) << key;
  // Counterexamples are printed on stdout, witnesses are not.
  EXPECT_TRUE(contains(c.run.out, "counterexample")) << describe(c.run);
  EXPECT_TRUE(contains(c.run.out, "loop starts here")) << describe(c.run);
}

void expect_usage_error(const CliResult& r) {
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_FALSE(r.err.empty()) << describe(r);
  EXPECT_EQ(text_counts(r.out).found, false) << "no check ran\n" << describe(r);
}

TEST(CheckCliExitCodes, UsageAndModelErrorsExitTwo) {
  std::string model = example("flooding");
  {
    SCOPED_TRACE("--property");
    CliResult r = cli({"check", model, "--property", "eventually-total"});
    expect_usage_error(r);
    EXPECT_TRUE(contains(r.err, "--property")) << describe(r);
  }
  {
    SCOPED_TRACE("--fairness");
    CliResult r = cli({"check", model, "--fairness", "weak"});
    expect_usage_error(r);
    EXPECT_TRUE(contains(r.err, "--fairness")) << describe(r);
  }
  {
    SCOPED_TRACE("--on-bound");
    expect_usage_error(cli({"check", model, "--on-bound", "ignore"}));
  }
  {
    SCOPED_TRACE("missing file");
    std::string missing = ddsmc::test::temp_dir() + "/no_such_model.d2c";
    CliResult r = cli({"check", missing});
    expect_usage_error(r);
    EXPECT_TRUE(contains(r.err, "no_such_model.d2c")) << describe(r);
  }
  {
    SCOPED_TRACE("ring:0");
    CliResult r = cli({"check", model, "--network", "ring:0"});
    expect_usage_error(r);
    EXPECT_TRUE(contains(r.err, "ring:0")) << describe(r);
  }
  {
    SCOPED_TRACE("no model");
    expect_usage_error(cli({"check"}));
  }
  {
    SCOPED_TRACE("model error");
    CliResult r = cli({"check", temp_file("state p/0.\nnetwork ring(2).\np if q.\n")});
    expect_usage_error(r);
    EXPECT_TRUE(contains(r.err, "error")) << describe(r);
  }
  {
    SCOPED_TRACE("--json not writable");
    CliResult r = cli({"check", model, "--json", ddsmc::test::temp_dir() + "/no/such/dir/r.json"});
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "cannot write")) << describe(r);
  }
}

// CLI11 used to wrap "-1" to 2^64 - 1 for the unsigned options: `--max-states -1`
// meant "no limit" and `simulate --steps -1` never ended.
TEST(CheckCliExitCodes, NegativeCountsAreUsageErrors) {
  std::string model = example("ping_pong");
  for (const char* opt : {"--max-states", "--threads", "--trace-steps"}) {
    SCOPED_TRACE(opt);
    CliResult r = cli({"check", model, opt, "-1"});
    expect_usage_error(r);
    EXPECT_TRUE(contains(r.err, opt)) << describe(r);
  }
  for (const char* opt : {"--steps", "--seed"}) {
    SCOPED_TRACE(opt);
    CliResult r = run_ddsmc({"simulate", model, opt, "-1"}, 10);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, opt)) << describe(r);
  }
  expect_usage_error(cli({"check", model, "--channel-bound", "-2"}));
}

// ---------------------------------------------------------------------------
// Bounds: stop (default) and prune

TEST(CheckCliBounds, ChannelBoundExceededStopsWithExitThree) {
  std::string model = temp_file(kGrowingChannel);
  auto c = check_json({model});
  EXPECT_EQ(c.run.exit_code, 3) << describe(c.run);
  expect_report_shape(c.report, all_keys());
  expect_text_matches_json(c.run.out, c.report);
  EXPECT_FALSE(c.report["complete"].get<bool>());
  EXPECT_EQ(c.report.value("incomplete_reason", json()), "bound");
  EXPECT_EQ(c.report.value("within_bounds", json()), json(false));
  const json& b = c.report["bound_exceeded"];
  ASSERT_TRUE(b.is_object()) << c.report.dump(1);
  EXPECT_EQ(b["kind"], "channel");
  EXPECT_EQ(b.value("bound", json()), 2);
  EXPECT_EQ(b.value("value", json()), 3);
  EXPECT_EQ(b.value("channel", json()), "a -> a");
  // The shortest run to it: start, tick, tick (each tick sends tick and tock).
  ASSERT_TRUE(b["trace"]["steps"].is_array());
  EXPECT_EQ(b["trace"]["steps"].size(), 3u) << b["trace"].dump(1);
  // No property is analysed on a system that is not bounded as declared.
  for (const char* key : kPropertyKeys) EXPECT_TRUE(c.report["properties"][key]["holds"].is_null()) << key;
  EXPECT_TRUE(contains(c.run.out, "channel bound 2 exceeded")) << describe(c.run);
  // Bound advice: the least bound this run needs.
  EXPECT_TRUE(contains(c.run.out, "this run needs --channel-bound 3 or more; --on-bound prune checks within 2"))
      << describe(c.run);
  EXPECT_TRUE(contains(c.run.out, "INCOMPLETE")) << describe(c.run);
  // States found so far include the violating state: {start}, {tick}, {tick, tock}, and one over the bound.
  EXPECT_EQ(c.report["states"], 4);
}

TEST(CheckCliBounds, StateBoundExceededStopsWithExitThree) {
  auto c = check_json({temp_file(kGrowingState)});
  EXPECT_EQ(c.run.exit_code, 3) << describe(c.run);
  expect_report_shape(c.report, all_keys());
  const json& b = c.report["bound_exceeded"];
  ASSERT_TRUE(b.is_object()) << c.report.dump(1);
  EXPECT_EQ(b["kind"], "state");
  EXPECT_EQ(b.value("bound", json()), 1);
  EXPECT_EQ(b.value("node", json()), "a");
  EXPECT_GT(b.value("value", 0), 1);
  EXPECT_TRUE(contains(c.run.out, "state bound 1 exceeded")) << describe(c.run);
  // Bound advice: the least bound this run needs, and with it the run goes on past that state.
  const int needs = b.value("value", 0);
  EXPECT_TRUE(contains(c.run.out, "this run needs --state-bound " + std::to_string(needs) + " or more"))
      << describe(c.run);
  auto more = check_json({temp_file(kGrowingState), "--state-bound", std::to_string(needs)});
  EXPECT_GT(more.report.value("states", 0), c.report.value("states", 0)) << describe(more.run);
  const json& b2 = more.report["bound_exceeded"];
  EXPECT_TRUE(b2.is_null() || b2.value("value", 0) > needs || b2.value("kind", json()) != "state") << b2.dump();
}

TEST(CheckCliBounds, BoundTraceReplays) {
  std::string model = temp_file(kGrowingChannel);
  std::string trace = scratch(), report = scratch();
  CliResult r = cli({"check", model, "--trace", trace, "--json", report});
  ASSERT_EQ(r.exit_code, 3) << describe(r);
  json t = load_json(trace);
  ASSERT_TRUE(t.is_object() && t["traces"].is_array()) << t.dump();
  ASSERT_EQ(t["traces"].size(), 1u) << t.dump();
  EXPECT_EQ(t["traces"][0]["kind"], "bound");
  expect_all_replay(cli({"replay", model, trace}), 1);
  expect_all_replay(cli({"replay", model, report}), 1);
}

TEST(CheckCliBounds, PruneCountsOnlyStatesWithinBoundsAndDecides) {
  std::string model = temp_file(kGrowingChannel);
  auto c = check_json({model, "--on-bound", "prune"});
  EXPECT_NE(c.run.exit_code, 3) << describe(c.run);
  EXPECT_TRUE(c.run.exit_code == 0 || c.run.exit_code == 1) << describe(c.run);
  expect_report_shape(c.report, all_keys());
  expect_text_matches_json(c.run.out, c.report);
  EXPECT_EQ(c.report.value("within_bounds", json()), json(true));
  EXPECT_TRUE(c.report["complete"].get<bool>());
  EXPECT_TRUE(c.report["bound_exceeded"].is_null());
  EXPECT_FALSE(c.report.contains("incomplete_reason"));
  EXPECT_EQ(c.report["states"], 3) << "{start}, {tick}, {tick, tock}";
  EXPECT_EQ(c.report["transitions"], 2);
  for (const char* key : kPropertyKeys) EXPECT_TRUE(c.report["properties"][key]["holds"].is_boolean()) << key;
  // {tick, tock} has all its successors cut: a dead end, so no run converges
  // (sometimes-* fail) and no run diverges (always-* hold).
  EXPECT_EQ(c.report["properties"]["sometimes_total"]["holds"], json(false));
  EXPECT_EQ(c.report["properties"]["always_total"]["holds"], json(true));
  EXPECT_EQ(c.run.exit_code, 1) << describe(c.run);
  EXPECT_TRUE(contains(c.run.out, "(within bounds)")) << describe(c.run);
  EXPECT_FALSE(contains(c.run.out, "exceeded")) << describe(c.run);

  auto wider = check_json({model, "--on-bound", "prune", "--channel-bound", "3"});
  EXPECT_EQ(wider.report["states"], 5) << describe(wider.run);
  auto stop = check_json({model, "--on-bound", "stop"});
  EXPECT_EQ(stop.run.exit_code, 3) << describe(stop.run);
  EXPECT_EQ(stop.report.value("within_bounds", json()), json(false));
}

// An initial state over a bound stops the check even under prune: nothing is
// decided, so nothing is "within bounds"; the (empty) run to it replays.
TEST(CheckCliBounds, InitialStateOverABoundStopsEvenWhenPruning) {
  std::string model = temp_file(
      "state p/1.\nnetwork { a. }\ninit { p(x). }\nbounds { state 0. }\np(X) if prev p(X).\n");
  for (const char* mode : {"stop", "prune"}) {
    SCOPED_TRACE(mode);
    std::string report = scratch();
    CliResult r = cli({"check", model, "--on-bound", mode, "--json", report});
    json j = load_json(report);
    EXPECT_EQ(r.exit_code, 3) << describe(r);
    expect_report_shape(j, all_keys());
    ASSERT_TRUE(j["bound_exceeded"].is_object()) << j.dump(1);
    EXPECT_EQ(j["bound_exceeded"]["kind"], "state");
    EXPECT_TRUE(j["bound_exceeded"]["trace"]["steps"].empty());
    EXPECT_EQ(j["states"], 1);
    EXPECT_EQ(j.value("within_bounds", json()), json(false));
    for (const char* key : kPropertyKeys) EXPECT_TRUE(j["properties"][key]["holds"].is_null()) << key;
    expect_all_replay(cli({"replay", model, report}), 1);
    // Bound advice: pruning cannot help here, so it is not offered.
    EXPECT_TRUE(contains(r.out, "the initial state needs --state-bound 1 or more")) << describe(r);
    EXPECT_FALSE(contains(r.out, "--on-bound prune")) << describe(r);
  }
}

// ---------------------------------------------------------------------------
// --max-states

TEST(CheckCliMaxStates, StopsIncompleteAndUndecided) {
  auto c = check_json({example("leader_election"), "--max-states", "10"});
  EXPECT_EQ(c.run.exit_code, 3) << describe(c.run);
  expect_report_shape(c.report, all_keys());
  expect_text_matches_json(c.run.out, c.report);
  EXPECT_FALSE(c.report["complete"].get<bool>());
  EXPECT_EQ(c.report.value("incomplete_reason", json()), "max-states");
  EXPECT_EQ(c.report["states"], 10);
  EXPECT_TRUE(c.report["bound_exceeded"].is_null());
  for (const char* key : kPropertyKeys) EXPECT_TRUE(c.report["properties"][key]["holds"].is_null()) << key;
  EXPECT_TRUE(contains(c.run.out, "INCOMPLETE (max-states)")) << describe(c.run);
  EXPECT_TRUE(contains(c.run.out, "undecided")) << describe(c.run);
}

TEST(CheckCliMaxStates, LimitAtOrAboveTheStateCountIsComplete) {
  // ping_pong has 10 states: a limit of 10 is not hit, 9 is.
  auto at = check_json({example("ping_pong"), "--max-states", "10"});
  EXPECT_EQ(at.run.exit_code, 1) << describe(at.run);
  EXPECT_TRUE(at.report["complete"].get<bool>()) << describe(at.run);
  EXPECT_EQ(at.report["states"], 10);
  auto below = check_json({example("ping_pong"), "--max-states", "9"});
  EXPECT_EQ(below.run.exit_code, 3) << describe(below.run);
  EXPECT_FALSE(below.report["complete"].get<bool>());
  EXPECT_EQ(below.report["states"], 9);
}

// A counterexample found in a partial graph is genuine: the property fails
// (exit 1); what was not decided stays null.
TEST(CheckCliMaxStates, CounterexampleInPartialGraphIsAFailure) {
  std::string model = temp_file(kEndless);
  std::string report = scratch();
  CliResult r = cli({"check", model, "--max-states", "50", "--json", report});
  json j = load_json(report);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  expect_report_shape(j, all_keys());
  expect_text_matches_json(r.out, j);
  EXPECT_FALSE(j["complete"].get<bool>());
  EXPECT_EQ(j["states"], 50);
  EXPECT_EQ(j["properties"]["always_total"]["holds"], json(false));
  EXPECT_EQ(j["properties"]["always_partial"]["holds"], json(false));
  EXPECT_TRUE(j["properties"]["sometimes_total"]["holds"].is_null());
  EXPECT_TRUE(j["properties"]["sometimes_partial"]["holds"].is_null());
  expect_all_replay(cli({"replay", model, report}), 2);
}

// A witness found in a partial graph decides sometimes-*; the always-* stay
// undecided, so the check is still incomplete (exit 3).
TEST(CheckCliMaxStates, WitnessInPartialGraphDecidesSometimes) {
  auto c = check_json({example("relay"), "--max-states", "20"});
  EXPECT_EQ(c.run.exit_code, 3) << describe(c.run);
  expect_report_shape(c.report, all_keys());
  EXPECT_FALSE(c.report["complete"].get<bool>());
  EXPECT_EQ(c.report["properties"]["sometimes_total"]["holds"], json(true));
  EXPECT_TRUE(c.report["properties"]["always_total"]["holds"].is_null());
}

// Even when every selected property is decided from the partial graph, the
// check stopped early: docs/reference.md §6 says exit 3, and the JSON says complete: false.
TEST(CheckCliMaxStates, AllDecidedButIncompleteExitsThree) {
  auto c = check_json({example("relay"), "--property", "sometimes-total", "--max-states", "20"});
  EXPECT_EQ(c.run.exit_code, 3) << describe(c.run);
  expect_report_shape(c.report, {"sometimes_total"});
  EXPECT_FALSE(c.report["complete"].get<bool>());
  EXPECT_EQ(c.report["properties"]["sometimes_total"]["holds"], json(true));
}

// ---------------------------------------------------------------------------
// --json

TEST(CheckCliJson, StdoutJsonIsTheSameReportAndTextGoesToStderr) {
  std::string model = example("echo");
  auto file = check_json({model});
  CliResult out = cli({"check", model, "--json", "-"});
  EXPECT_EQ(out.exit_code, file.run.exit_code) << describe(out);
  json j = json::parse(out.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "stdout must be exactly one JSON document\n" << describe(out);
  expect_report_shape(j, all_keys());
  expect_text_matches_json(out.err, j);
  expect_text_matches_json(file.run.out, file.report);
  for (const char* key : {"states", "transitions", "complete", "fairness", "bound_exceeded"})
    EXPECT_EQ(j[key], file.report[key]) << key;
  for (const char* key : kPropertyKeys) EXPECT_EQ(j["properties"][key], file.report["properties"][key]) << key;
}

TEST(CheckCliJson, SinglePropertyReportsOnlyThatProperty) {
  auto c = check_json({example("ping_pong"), "--property", "always-total"});
  EXPECT_EQ(c.run.exit_code, 1) << describe(c.run);
  expect_report_shape(c.report, {"always_total"});
  expect_text_matches_json(c.run.out, c.report);
  EXPECT_EQ(c.report["properties"]["always_total"]["holds"], json(false));

  auto holds = check_json({example("flooding"), "--property", "sometimes-partial"});
  EXPECT_EQ(holds.run.exit_code, 0) << describe(holds.run);
  expect_report_shape(holds.report, {"sometimes_partial"});
  EXPECT_EQ(holds.report["properties"]["sometimes_partial"]["holds"], json(true));

  // --property all is the default.
  auto all = check_json({example("ping_pong"), "--property", "all"});
  expect_report_shape(all.report, all_keys());
}

TEST(CheckCliJson, TraceFileHoldsEveryTraceOfTheReport) {
  std::string model = example("relay");
  std::string trace = scratch(), report = scratch();
  CliResult r = cli({"check", model, "--trace", trace, "--json", report});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  json t = load_json(trace), j = load_json(report);
  ASSERT_TRUE(t.is_object()) << read_text(trace);
  EXPECT_TRUE(t.value("network_spec", json(0)).is_null());
  ASSERT_TRUE(t.contains("traces") && t["traces"].is_array());
  std::map<std::string, json> by_property;
  for (const auto& e : t["traces"]) {
    std::string kind = e.value("kind", std::string());
    EXPECT_TRUE(kind == "witness" || kind == "counterexample") << e.dump().substr(0, 300);
    ASSERT_TRUE(e.contains("property") && e["property"].is_string());
    expect_trace_shape(e["trace"], e["property"].get<std::string>());
    by_property[e["property"].get<std::string>()] = e["trace"];
  }
  for (size_t i = 0; i < 4; ++i) {
    const json& p = j["properties"][kPropertyKeys[i]];
    if (p["trace"].is_null()) {
      EXPECT_EQ(by_property.count(kPropertyNames[i]), 0u) << kPropertyNames[i];
    } else {
      ASSERT_EQ(by_property.count(kPropertyNames[i]), 1u) << kPropertyNames[i];
      EXPECT_EQ(by_property[kPropertyNames[i]], p["trace"]) << kPropertyNames[i];
    }
  }
  // The always-partial counterexample names the node that is never faulty.
  EXPECT_TRUE(j["properties"]["always_partial"]["trace"].value("never_faulty", json()).is_string());
  // Fresh constants print as #1, #2, ...: the counter machine's witnesses
  // take fresh input cells (relay's lassos need none).
  std::string fresh_trace = scratch();
  CliResult fresh = cli({"check", example("counter_machine_halting"), "--trace", fresh_trace});
  EXPECT_EQ(fresh.exit_code, 0) << describe(fresh);
  EXPECT_TRUE(contains(read_text(fresh_trace), "new(#1)")) << read_text(fresh_trace).substr(0, 3000);
}

TEST(CheckCliJson, ReportIsDeterministic) {
  auto a = check_json({example("gossip")});
  auto b = check_json({example("gossip")});
  ASSERT_TRUE(a.report.is_object() && b.report.is_object());
  a.report.erase("stats");
  b.report.erase("stats");
  EXPECT_EQ(a.report, b.report);
}

// ---------------------------------------------------------------------------
// Every example: the verdicts of its `% expect` lines, and every trace replays.

TEST(CheckCliExamples, VerdictsMatchExpectLinesAndEveryTraceReplays) {
  for (const char* name : kExamples) {
    SCOPED_TRACE(name);
    std::string model = example(name);
    for (const char* fairness : {"channel", "none"}) {
      SCOPED_TRACE(fairness);
      auto expected = expected_verdicts(model, fairness);
      ASSERT_EQ(expected.size(), 4u) << "no % expect line for fairness=" << fairness;
      std::string trace = scratch(), report = scratch();
      CliResult r = cli({"check", model, "--fairness", fairness, "--trace", trace, "--json", report});
      json j = load_json(report);
      expect_report_shape(j, all_keys());
      expect_text_matches_json(r.out, j);
      EXPECT_TRUE(j["complete"].get<bool>());
      EXPECT_EQ(j["fairness"], fairness);
      bool all_hold = true;
      size_t with_trace = 0;
      for (const auto& [key, holds] : expected) {
        EXPECT_EQ(j["properties"][key]["holds"], json(holds)) << key;
        all_hold &= holds;
        with_trace += !j["properties"][key]["trace"].is_null();
      }
      EXPECT_EQ(r.exit_code, all_hold ? 0 : 1) << describe(r);
      json t = load_json(trace);
      ASSERT_TRUE(t.is_object() && t["traces"].is_array()) << read_text(trace).substr(0, 500);
      EXPECT_EQ(t["traces"].size(), with_trace);
      // Both the --trace file and the --json report replay, without options.
      expect_all_replay(cli({"replay", model, trace}), with_trace);
      expect_all_replay(cli({"replay", model, report}), with_trace);
    }
  }
}

// ---------------------------------------------------------------------------
// simulate

TEST(CheckCliSimulate, SameSeedSameRunAndEndsWithAStepCount) {
  std::string model = example("gossip");
  CliResult a = cli({"simulate", model, "--steps", "20", "--seed", "7"});
  CliResult b = cli({"simulate", model, "--steps", "20", "--seed", "7"});
  ASSERT_EQ(a.exit_code, 0) << describe(a);
  EXPECT_EQ(a.out, b.out);
  auto lines = lines_of(a.out);
  ASSERT_FALSE(lines.empty());
  std::smatch m;
  static const std::regex last(R"(^([0-9]+) steps(: .*)?$)");
  ASSERT_TRUE(std::regex_match(lines.back(), m, last)) << a.out;
  size_t steps = std::stoul(m[1]);
  EXPECT_LE(steps, 20u);
  EXPECT_GT(steps, 0u);
  // One numbered line per step.
  size_t numbered = 0;
  static const std::regex step(R"(^ +[0-9]+\. .*)");
  for (const auto& line : lines) numbered += std::regex_match(line, step);
  EXPECT_EQ(numbered, steps) << a.out;

  std::set<std::string> runs;
  for (const char* seed : {"1", "2", "3", "4", "5", "6"})
    runs.insert(cli({"simulate", model, "--steps", "20", "--seed", seed}).out);
  EXPECT_GT(runs.size(), 1u) << "different seeds should give different runs";
}

TEST(CheckCliSimulate, ConvergedRunEndsWithTheIdleStep) {
  CliResult r = cli({"simulate", example("flooding"), "--steps", "1000"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "idle")) << describe(r);
  EXPECT_TRUE(contains(lines_of(r.out).back(), "converged")) << describe(r);
}

TEST(CheckCliSimulate, TraceReplays) {
  for (const char* name : {"relay", "gossip", "leader_election", "echo"}) {
    SCOPED_TRACE(name);
    std::string model = example(name), trace = scratch();
    CliResult r = cli({"simulate", model, "--steps", "40", "--seed", "11", "--trace", trace});
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    json t = load_json(trace);
    ASSERT_TRUE(t.is_object() && t["traces"].is_array() && t["traces"].size() == 1) << read_text(trace);
    EXPECT_EQ(t["traces"][0]["kind"], "simulation");
    expect_trace_shape(t["traces"][0]["trace"], name);
    expect_all_replay(cli({"replay", model, trace}), 1);
  }
  // On another network, replay picks the network up from the file.
  std::string model = example("gossip"), trace = scratch();
  ASSERT_EQ(cli({"simulate", model, "--network", "ring:3", "--steps", "30", "--trace", trace}).exit_code, 0);
  expect_all_replay(cli({"replay", model, trace}), 1);
}

// Inputs of arity 3 with input bound 3 on two nodes: a state holding nine
// fresh constants has tens of millions of input DB classes. simulate draws
// one step at random instead of generating them all (50 steps took 100 s and
// 2 GB when it did), and the run still replays.
TEST(CheckCliSimulate, LargeInputDbsDoNotSlowARunDown) {
  const std::string model = temp_file(
      "input in/3.\nstate s/3.\ntransport go/0.\ns(X, Y, Z) if in(X, Y, Z).\n"
      "go@M if start@_, my_name(M).\ngo@M if go@_, my_name(M).\ngo@N if go@_, neighbor(N).\n"
      "network { a - b. }\nbounds { input 3. state 9. channel 2. }\n");
  const std::string trace = scratch();
  CliResult r = cli({"simulate", model, "--steps", "50", "--seed", "3", "--trace", trace});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(lines_of(r.out).back(), "50 steps") << describe(r);
  EXPECT_TRUE(contains(r.out, "input {in(")) << "some step takes an input DB\n" << describe(r);
  expect_all_replay(cli({"replay", model, trace}), 1);
}

// ---------------------------------------------------------------------------
// --fairness

TEST(CheckCliFairness, RetryAckAlwaysTotalNeedsChannelFairness) {
  std::string model = example("retry_ack");
  auto fair = check_json({model, "--property", "always-total", "--fairness", "channel"});
  EXPECT_EQ(fair.run.exit_code, 0) << describe(fair.run);
  expect_report_shape(fair.report, {"always_total"});
  EXPECT_EQ(fair.report["fairness"], "channel");
  EXPECT_EQ(fair.report["properties"]["always_total"]["holds"], json(true));

  auto unfair = check_json({model, "--property", "always-total", "--fairness", "none"});
  EXPECT_EQ(unfair.run.exit_code, 1) << describe(unfair.run);
  expect_report_shape(unfair.report, {"always_total"});
  EXPECT_EQ(unfair.report["fairness"], "none");
  EXPECT_EQ(unfair.report["properties"]["always_total"]["holds"], json(false));
  EXPECT_TRUE(contains(unfair.run.out, "fairness none")) << describe(unfair.run);
  // Same graph either way: fairness only changes the analysis.
  EXPECT_EQ(fair.report["states"], unfair.report["states"]);
  EXPECT_EQ(fair.report["transitions"], unfair.report["transitions"]);
}

// ---------------------------------------------------------------------------
// SIGINT / SIGTERM and progress lines

void expect_stops_cleanly(int sig, double after_seconds, bool want_progress) {
  std::string report = scratch();
  // flooding on ring:9 runs for tens of seconds (without symmetry: with
  // it, half of that).
  Spawned s = spawn_ddsmc({"check", example("flooding"), "--network", "ring:9", "--symmetry", "none", "--json", report});
  ASSERT_GT(s.pid, 0);
  ASSERT_TRUE(wait_for_text(s.err_path, kBackendChosen, 60)) << read_text(s.err_path);
  std::this_thread::sleep_for(std::chrono::duration<double>(after_seconds));
  ASSERT_EQ(kill(s.pid, sig), 0);
  auto sent = std::chrono::steady_clock::now();
  int code = wait_for(s.pid, 20);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  CliResult r{code, read_text(s.out_path), read_text(s.err_path)};
  ASSERT_NE(code, -2) << "did not stop within 20 s of the signal\n" << describe(r);
  EXPECT_EQ(code, 3) << describe(r);
  EXPECT_LT(took, 8.0) << "slow to stop after the signal";
  EXPECT_TRUE(contains(r.out, "INCOMPLETE (interrupted)")) << describe(r);
  json j = load_json(report);
  ASSERT_TRUE(j.is_object()) << "the JSON report is written on interruption\n" << describe(r);
  expect_report_shape(j, all_keys());
  expect_text_matches_json(r.out, j);
  EXPECT_FALSE(j["complete"].get<bool>());
  EXPECT_EQ(j.value("incomplete_reason", json()), "interrupted");
  EXPECT_GT(j["states"].get<uint64_t>(), 1000u) << "the figures so far";
  if (want_progress) {
    static const std::regex progress(
        R"(\[ *[0-9]+\.[0-9]s\] states [0-9]+ +transitions [0-9]+ .* [0-9]+ states/s +rss [0-9.]+ MiB)");
    EXPECT_TRUE(std::regex_search(r.err, progress)) << "a progress line every ~2 s on stderr\n" << describe(r);
  }
}

TEST(CheckCliSignals, SigintStopsWithTheFiguresSoFar) { expect_stops_cleanly(SIGINT, 1.5, false); }

TEST(CheckCliSignals, SigtermStopsAndProgressLinesAppear) { expect_stops_cleanly(SIGTERM, 2.7, true); }

TEST(CheckCliSignals, ShortRunPrintsNoProgress) {
  CliResult r = cli({"check", example("flooding")});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(contains(r.err, "states/s")) << describe(r);
}

// A witness or counterexample that does not lift to a concrete run is an
// internal inconsistency: its verdict is not reported (holds null, with the
// reason), and the exit code is 3 whatever the other verdicts. Forced with
// the test-only DDSMC_TESTING_FAIL_LIFT (docs/semantics.md §10).
class LiftFails : public ::testing::Test {
 protected:
  void SetUp() override { setenv("DDSMC_TESTING_FAIL_LIFT", "1", 1); }
  void TearDown() override { unsetenv("DDSMC_TESTING_FAIL_LIFT"); }
};

TEST_F(LiftFails, ATraceThatDoesNotLiftLeavesItsVerdictUndecided) {
  // ping_pong: always-total and always-partial fail with counterexamples
  // (both need a lift); the sometimes properties fail with no trace, yet
  // the exit code is 3, not 1.
  const std::string traces = scratch();
  Checked c = check_json({example("ping_pong"), "--trace", traces});
  EXPECT_EQ(c.run.exit_code, 3) << describe(c.run);
  ASSERT_TRUE(c.report.is_object()) << describe(c.run);
  for (const char* key : {"always_total", "always_partial"}) {
    const json& p = c.report["properties"][key];
    EXPECT_TRUE(p["holds"].is_null()) << key << ": " << p.dump();
    EXPECT_TRUE(p["trace"].is_null()) << key;
    EXPECT_TRUE(contains(p.value("reason", ""), "internal error")) << key << ": " << p.dump();
  }
  EXPECT_EQ(c.report.value("analysis_stopped", json()), "internal-error");
  EXPECT_TRUE(contains(c.run.err, "internal error: a trace did not lift")) << describe(c.run);
  EXPECT_TRUE(std::regex_search(c.run.out, std::regex("always-total +undecided \\(internal error"))) << describe(c.run);
  EXPECT_FALSE(contains(c.run.out, "holds")) << describe(c.run);
  EXPECT_TRUE(load_json(traces)["traces"].empty());
  // The run to a bound violation: not built, said why, exit 3.
  CliResult bound = cli({"check", example("relay"), "--network", "star:3"});
  EXPECT_EQ(bound.exit_code, 3) << describe(bound);
  EXPECT_TRUE(contains(bound.out, "internal error")) << describe(bound);
}

}  // namespace
