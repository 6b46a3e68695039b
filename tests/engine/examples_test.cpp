// Every bundled example: its expected verdicts (the `% expect` lines in the
// file) under both fairness modes, its hand-derived counts (`% hand-count`),
// and every trace the checker produces for it replays, its claim included.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "engine/analysis.hpp"
#include "engine/d2c/system.hpp"
#include "engine/d2c/replay.hpp"
#include "engine/d2c/trace.hpp"
#include "model/load.hpp"
#include "tests/engine/graph_compare.hpp"
#include "tests/engine/replay_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;

namespace {

struct Expectations {
  std::map<std::string, std::map<std::string, bool>> verdicts;  // fairness -> property -> holds
  struct Count {
    std::string network;
    uint64_t states, transitions;
  };
  std::vector<Count> counts;
};

Expectations read_expectations(const std::string& path) {
  Expectations e;
  std::ifstream in(path);
  std::string line;
  std::regex expect_re(R"(^% expect fairness=(\w+):(.*)$)");
  std::regex pair_re(R"(([a-z-]+)=(true|false))");
  std::regex count_re(R"(^% hand-count network=(\S+) states=(\d+) transitions=(\d+))");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, expect_re)) {
      std::string rest = m[2];
      auto& v = e.verdicts[m[1]];
      for (std::sregex_iterator it(rest.begin(), rest.end(), pair_re), end; it != end; ++it)
        v[(*it)[1]] = (*it)[2] == "true";
    } else if (std::regex_search(line, m, count_re)) {
      e.counts.push_back({m[1], std::stoull(m[2]), std::stoull(m[3])});
    }
  }
  return e;
}

std::optional<model::Model> load(const std::string& path, std::optional<std::string> network = std::nullopt) {
  model::Diagnostics diag;
  model::Overrides ov;
  ov.network_spec = std::move(network);
  auto m = model::load_model(path, ov, diag);
  EXPECT_TRUE(m.has_value()) << diag.format_all();
  return m;
}

// What the verdict's lasso claims.
engine::TraceClaim claim_of(const engine::Verdict& v, engine::Fairness f) {
  engine::TraceClaim c;
  c.property = v.property;
  c.kind = *v.holds ? engine::TraceClaim::Kind::Witness : engine::TraceClaim::Kind::Counterexample;
  c.never_faulty = v.node;
  c.fairness = f;
  return c;
}

class Example : public ::testing::TestWithParam<std::string> {};

TEST_P(Example, VerdictsAndReplayableTraces) {
  const std::string path = GetParam();
  Expectations e = read_expectations(path);
  ASSERT_EQ(e.verdicts.size(), 2u) << path << " must state its expected verdicts for fairness=channel and none";
  auto m = load(path);
  ASSERT_TRUE(m);
  engine::CompiledModel cm = engine::compile(*m);
  engine::ExploreResult res = engine::explore(cm, {});
  ASSERT_TRUE(res.complete) << res.incomplete_reason;
  for (const auto& [fairness_name, props] : e.verdicts) {
    engine::Fairness f = fairness_name == "none" ? engine::Fairness::None : engine::Fairness::Channel;
    ASSERT_EQ(props.size(), 4u) << path;
    for (auto p : engine::kAllProperties) {
      SCOPED_TRACE(std::string(engine::property_name(p)) + " fairness=" + fairness_name);
      engine::Verdict v = engine::analyze(res.graph, p, f, true);
      ASSERT_TRUE(v.holds.has_value());
      EXPECT_EQ(*v.holds, props.at(engine::property_name(p)));
      bool needs_trace = (p == engine::Property::SometimesTotal || p == engine::Property::SometimesPartial) == *v.holds;
      EXPECT_EQ(v.lasso.has_value(), needs_trace);
      if (!v.lasso) continue;
      auto run = engine::lift(cm, res.graph, engine::lasso_hops(v.lasso->states, v.lasso->edges, v.lasso->loop_start));
      ASSERT_TRUE(run.has_value()) << "the lasso does not lift to a concrete run";
      // The run replays, and its claim (witness or counterexample) holds.
      engine::ReplayResult r = engine::replay(cm, test::to_replay(*run), v.lasso->loop_start, nullptr, claim_of(v, f));
      EXPECT_TRUE(r.ok()) << "step " << r.steps_ok << ": " << r.problem;
      EXPECT_FALSE(r.claim.empty());
    }
  }
}

TEST_P(Example, HandCounts) {
  const std::string path = GetParam();
  size_t checked = 0;
  for (const auto& c : read_expectations(path).counts) {
    SCOPED_TRACE(path + " on " + c.network);
    auto m = load(path, c.network);
    ASSERT_TRUE(m);
    engine::CompiledModel cm = engine::compile(*m);
    engine::ExploreResult res = engine::explore(cm, {});
    ASSERT_TRUE(res.complete);
    EXPECT_EQ(res.graph.num_states(), c.states);
    EXPECT_EQ(res.graph.num_edges(), c.transitions);
    ++checked;
  }
  RecordProperty("hand_counts", static_cast<int>(checked));
}

// Threads vs one thread: on its own network and on each hand-counted one,
// every example gives the very same graph (ids, bytes, parents, labels,
// edges) at 2 and 4 threads as at 1, hence the same counts and verdicts.
TEST_P(Example, SameGraphAtEveryThreadCount) {
  const std::string path = GetParam();
  std::vector<std::optional<std::string>> networks{std::nullopt};
  for (const auto& c : read_expectations(path).counts) networks.push_back(c.network);
  for (const auto& net : networks) {
    SCOPED_TRACE(path + " on " + net.value_or("its own network"));
    auto m = load(path, net);
    ASSERT_TRUE(m);
    engine::CompiledModel cm = engine::compile(*m);
    engine::ExploreOptions one;
    engine::ExploreResult base = engine::explore(cm, one);
    for (size_t threads : {2, 4}) {
      engine::ExploreOptions opts;
      opts.threads = threads;
      engine::ExploreResult res = engine::explore(cm, opts);
      EXPECT_EQ(res.threads, threads);
      EXPECT_EQ(test::result_difference(base, res), "") << threads << " threads";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, Example, ::testing::ValuesIn(test::example_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return std::filesystem::path(info.param).stem().string();
                         });

}  // namespace
