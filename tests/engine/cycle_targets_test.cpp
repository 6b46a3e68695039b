// engine/cycle_targets.hpp: the targets do not depend on the order in which
// the SCC's states and edges are seen, nor on how they are split among
// collectors that are merged after a round trip through words (as the
// ranks do, dist/source_scc.cpp); and they are what the definition says,
// computed here directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "engine/cycle_targets.hpp"
#include "engine/system.hpp"

using namespace ddsmc;
using engine::Edge;
using engine::StateId;

namespace {

struct Event {
  StateId source;
  bool is_state;
  Edge edge;                  // (an edge event)
  std::vector<char> empty;    // per arc (a state event)
};

void feed(engine::TargetCollector& c, const Event& e) {
  if (e.is_state) c.state(e.source, [&](uint32_t a) { return e.empty[a] != 0; });
  else c.edge(e.source, e.edge);
}

}  // namespace

TEST(CycleTargets, AnyOrderAndAnySplitGiveTheTargetsOfTheDefinition) {
  std::mt19937 rng(11);
  constexpr uint32_t kArcs = 3;
  for (int round = 0; round < 500; ++round) {
    const bool unstable = round % 2 == 0;
    const auto fairness = round % 5 == 0 ? engine::Fairness::None : engine::Fairness::Channel;
    std::vector<Event> events;
    const uint32_t n = 1 + rng() % 6;
    for (StateId s = 0; s < n; ++s) {
      Event st{s * 7, true, {}, std::vector<char>(kArcs)};
      for (char& x : st.empty) x = rng() % 5 == 0;
      events.push_back(st);
      for (uint32_t k = rng() % 3; k > 0; --k) {
        const uint32_t arc = rng() % 4 == 0 ? engine::kIdleArc : rng() % kArcs;
        events.push_back({s * 7, false, Edge((rng() % n) * 7, arc, rng() % 2 == 0), {}});
      }
    }
    // The definition: least edge, least unstable edge, per arc the least cover.
    auto key = [](const Event& e) {
      return e.is_state ? std::tuple(e.source, engine::kNoState, ~uint32_t{0}) : std::tuple(e.source, e.edge.target, e.edge.label);
    };
    std::sort(events.begin(), events.end(), [&](const Event& a, const Event& b) { return key(a) < key(b); });
    std::optional<Event> first, least_unstable;
    std::vector<std::optional<Event>> cover(fairness == engine::Fairness::Channel ? kArcs : 0);
    for (const Event& e : events) {
      if (!e.is_state) {
        if (!first) first = e;
        if (!e.edge.stable() && !least_unstable) least_unstable = e;
        if (e.edge.arc() != engine::kIdleArc && e.edge.arc() < cover.size() && !cover[e.edge.arc()]) cover[e.edge.arc()] = e;
      } else {
        for (uint32_t a = 0; a < cover.size(); ++a)
          if (e.empty[a] && !cover[a]) cover[a] = e;
      }
    }
    const bool qualifies = first && (!unstable || least_unstable) &&
                           std::all_of(cover.begin(), cover.end(), [](const auto& c) { return c.has_value(); });
    std::set<StateId> want_states;
    std::set<std::tuple<StateId, StateId, uint32_t>> want_edges;
    if (qualifies) {
      std::vector<Event> picked{*first};
      if (unstable) picked.push_back(*least_unstable);
      for (const auto& c : cover) picked.push_back(*c);
      for (const Event& e : picked) {
        if (e.is_state) want_states.insert(e.source);
        else want_edges.insert({e.source, e.edge.target, e.edge.label});
      }
    }

    // In key order, then shuffled and split among three collectors.
    engine::TargetCollector ordered(kArcs, fairness, unstable);
    for (const Event& e : events) feed(ordered, e);
    std::shuffle(events.begin(), events.end(), rng);
    std::vector<engine::TargetCollector> parts(3, engine::TargetCollector(kArcs, fairness, unstable));
    for (const Event& e : events) feed(parts[rng() % 3], e);
    engine::TargetCollector merged(kArcs, fairness, unstable), copy = merged;
    for (const auto& p : parts) {
      const std::vector<uint64_t> w = p.words();
      ASSERT_EQ(w.size(), p.num_words());
      copy.from_words(w.data());
      merged.merge(copy);
    }
    for (const engine::TargetCollector* c : {&ordered, &merged}) {
      const auto t = c->targets();
      ASSERT_EQ(t.has_value(), qualifies) << "round " << round;
      if (!t) continue;
      EXPECT_EQ(std::set<StateId>(t->states.begin(), t->states.end()), want_states) << "round " << round;
      EXPECT_TRUE(std::is_sorted(t->states.begin(), t->states.end()));
      EXPECT_EQ(t->states.size(), want_states.size()) << "round " << round << ": a state twice";
      std::vector<std::tuple<StateId, StateId, uint32_t>> got;
      for (const auto& [s, e] : t->edges) got.emplace_back(s, e.target, e.label);
      EXPECT_EQ(got, std::vector(want_edges.begin(), want_edges.end())) << "round " << round;
    }
    EXPECT_EQ(ordered.settled(), qualifies);
  }
}
