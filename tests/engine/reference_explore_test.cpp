// Differential tests of engine::explore against a naive reference explorer
// (reference_explore_impl.hpp): BFS over concrete global states, identified
// with hashing::canonicalize_brute_force, edges counted as distinct
// (source class, target class, arc, stable) (docs/reference.md §3.7). Compared on the
// bundled examples (default network, line:2, ring:3) and on random programs
// with an input predicate (fresh constants) under small state and channel
// bounds with on-bound prune: the same classes, the same edges, the same
// verdicts.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "engine/analysis.hpp"
#include "engine/bfs_tree.hpp"
#include "engine/d2c/system.hpp"
#include "engine/d2c/successors.hpp"
#include "tests/engine/graph_compare.hpp"
#include "tests/engine/reference_explore_impl.hpp"
#include "tests/engine/reference_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;
using namespace ddsmc::reftest;

namespace {

// The engine's graph in the reference's class numbering: every stored
// state's brute-force canonical bytes, and its edges.
struct Mapped {
  std::set<std::string> classes;
  std::set<std::tuple<std::string, std::string, uint32_t, bool>> edges;
  uint64_t states = 0, transitions = 0;
};

Mapped map_engine_graph(const engine::StateGraph& g, const StateLayout& layout) {
  Mapped out;
  std::vector<std::string> bf(g.num_states());
  GlobalState s;
  for (uint32_t i = 0; i < g.num_states(); ++i) {
    EXPECT_TRUE(hashing::decode(g.bytes(i), layout, s));
    bf[i] = hashing::canonicalize_brute_force(s, layout).bytes;
    out.classes.insert(bf[i]);
  }
  for (uint32_t i = 0; i < g.num_states(); ++i)
    for (const engine::Edge& e : g.edges(i)) out.edges.insert(std::make_tuple(bf[i], bf[e.target], e.arc(), e.stable()));
  out.states = g.num_states();
  out.transitions = g.num_edges();
  return out;
}

Mapped map_ref_graph(const RefGraph& g) {
  Mapped out;
  out.classes.insert(g.bytes.begin(), g.bytes.end());
  for (const RefEdge& e : g.edges) out.edges.insert(std::make_tuple(g.bytes[e.src], g.bytes[e.dst], e.arc, e.stable));
  out.states = g.bytes.size();
  out.transitions = g.edges.size();
  return out;
}

std::string describe_state(const model::Model& m, const StateLayout& layout, const std::string& bytes) {
  GlobalState s;
  if (!hashing::decode(bytes, layout, s)) return "(undecodable)";
  std::string out;
  for (NodeId n = 0; n < s.dbs.size(); ++n) out += " " + m.network.name(n) + facts_string(m, to_facts(s.dbs[n], layout));
  const auto& arcs = m.network.arcs();
  for (uint32_t a = 0; a < s.channels.size(); ++a) {
    if (s.channels[a].empty()) continue;
    out += " [" + m.network.name(arcs[a].src) + ">" + m.network.name(arcs[a].dst) + ":";
    for (const auto& [f, n] : channel_multiset(s.channels[a], layout))
      out += " " + m.fact_to_string(f) + (n > 1 ? "x" + std::to_string(n) : "");
    out += "]";
  }
  return out;
}

// Compares two graphs; returns a description of the first differences.
std::string diff_graphs(const model::Model& m, const StateLayout& layout, const Mapped& eng, const Mapped& ref) {
  std::string out;
  int shown = 0;
  if (eng.states != eng.classes.size())
    out += "engine stores " + std::to_string(eng.states) + " states but they form " +
           std::to_string(eng.classes.size()) + " isomorphism classes (isomorphic states not merged)\n";
  for (const auto& c : eng.classes)
    if (!ref.classes.count(c) && shown++ < 5) out += "only in engine:" + describe_state(m, layout, c) + "\n";
  for (const auto& c : ref.classes)
    if (!eng.classes.count(c) && shown++ < 10) out += "only in reference:" + describe_state(m, layout, c) + "\n";
  for (const auto& e : eng.edges)
    if (!ref.edges.count(e) && shown++ < 15)
      out += "edge only in engine: " + describe_state(m, layout, std::get<0>(e)) + "  ->  " +
             describe_state(m, layout, std::get<1>(e)) + " arc " + std::to_string(std::get<2>(e)) +
             (std::get<3>(e) ? " stable\n" : " changing\n");
  for (const auto& e : ref.edges)
    if (!eng.edges.count(e) && shown++ < 20)
      out += "edge only in reference: " + describe_state(m, layout, std::get<0>(e)) + "  ->  " +
             describe_state(m, layout, std::get<1>(e)) + " arc " + std::to_string(std::get<2>(e)) +
             (std::get<3>(e) ? " stable\n" : " changing\n");
  if (eng.transitions != eng.edges.size())
    out += "engine counts " + std::to_string(eng.transitions) + " transitions but has " +
           std::to_string(eng.edges.size()) + " distinct edges up to isomorphism\n";
  return out;
}

// The verdicts of the four properties under both fairness modes.
std::vector<std::optional<bool>> verdicts(const engine::StateGraph& g) {
  std::vector<std::optional<bool>> out;
  for (auto f : {engine::Fairness::Channel, engine::Fairness::None})
    for (auto p : engine::kAllProperties) out.push_back(engine::analyze(g, p, f, true).holds);
  return out;
}

enum class Outcome { Compared, EngineIncomplete, ReferenceIncomplete };

struct Comparison {
  Outcome outcome = Outcome::Compared;
  uint64_t states = 0, transitions = 0;
  uint64_t fresh_states = 0;  // classes holding a fresh constant
  bool bound_hit = false;     // some successor was over a bound (cut by prune)
};

// Explores `m` with the engine (on-bound prune) and with the reference using
// `succ`; on a complete pair, expects the same classes, edges and verdicts.
Comparison compare_explore(const model::Model& m, const engine::CompiledModel& cm,
                           const std::function<std::vector<RefSucc>(const GlobalState&)>& succ, uint32_t max_states,
                           const std::string& what) {
  Comparison c;
  // The renamable constants are exactly the non-fixed ones of docs/reference.md §3.7.
  std::set<ConstId> all_fixed;
  for (ConstId k = 0; k < cm.layout.num_fixed; ++k) all_fixed.insert(k);
  EXPECT_EQ(spec_fixed_constants(m), all_fixed) << what;
  engine::ExploreOptions opts;
  opts.on_bound = engine::OnBound::Prune;
  opts.max_states = max_states;
  opts.threads = 1;
  engine::ExploreResult res = engine::explore(cm, opts);
  // Threads vs one thread: the very same result, complete or not (three
  // threads on prune, two on stop: more threads than cores, and as many).
  engine::ExploreOptions more = opts;
  more.threads = 3;
  EXPECT_EQ(test::result_difference(res, engine::explore(cm, more)), "") << "3 threads, " << what;
  if (!res.complete) {
    c.outcome = Outcome::EngineIncomplete;
    return c;
  }
  RefGraph ref = ref_explore(cm, succ, max_states);
  if (!ref.complete) {
    c.outcome = Outcome::ReferenceIncomplete;
    return c;
  }
  Mapped eng = map_engine_graph(res.graph, cm.layout), rm = map_ref_graph(ref);
  c.states = rm.states;
  c.transitions = rm.transitions;
  for (const auto& st : ref.states) c.fresh_states += fresh_count(st, cm.layout) > 0;
  EXPECT_EQ(res.graph.num_states(), ref.bytes.size()) << what;
  EXPECT_EQ(res.graph.num_edges(), ref.edges.size()) << what;
  std::string diff = diff_graphs(m, cm.layout, eng, rm);
  EXPECT_EQ(diff, "") << what;
  if (diff.empty()) {
    engine::StateGraph sg = to_state_graph(ref, cm);
    EXPECT_EQ(verdicts(res.graph), verdicts(sg)) << what;
  }
  // on-bound stop: a bound is exceeded iff the prune run cut something, and
  // the violating state found is a shallowest one (BFS: shortest trace).
  engine::ExploreOptions stop_opts;
  stop_opts.max_states = max_states;
  stop_opts.threads = 1;
  engine::ExploreResult st = engine::explore(cm, stop_opts);
  stop_opts.threads = 2;
  EXPECT_EQ(test::result_difference(st, engine::explore(cm, stop_opts)), "") << "2 threads, on-bound stop, " << what;
  c.bound_hit = !ref.cut_from.empty();
  if (ref.cut_from.empty()) {
    EXPECT_TRUE(st.complete) << st.incomplete_reason << "\n" << what;
    EXPECT_EQ(st.graph.num_states(), ref.bytes.size()) << what;
    EXPECT_EQ(st.graph.num_edges(), ref.edges.size()) << what;
  } else {
    EXPECT_FALSE(st.complete) << what;
    EXPECT_EQ(st.incomplete_reason, "bound") << what;
    EXPECT_TRUE(st.violation.has_value()) << what;
    uint32_t want_depth = 0xffffffffu;
    for (uint32_t id : ref.cut_from) want_depth = std::min(want_depth, ref.depth[id] + 1);
    uint32_t got_depth = 0;
    if (st.violating_state != engine::kNoState)
      got_depth = static_cast<uint32_t>(
          engine::bfs_tree_path(st.graph, st.violating_state, st.violating_parent).size() - 1);
    EXPECT_EQ(got_depth, want_depth) << "depth of the bound violation found with on-bound stop\n" << what;
  }
  return c;
}

TEST(RefExplore, InitialStateMatchesTheSpec) {
  for (const auto& path : test::example_files())
    for (std::optional<std::string> net : {std::optional<std::string>{}, std::optional<std::string>{"ring:3"}}) {
      model::Diagnostics diag;
      model::Overrides ov;
      ov.network_spec = net;
      auto m = model::load_model(path, ov, diag);
      ASSERT_TRUE(m) << diag.format_all();
      engine::CompiledModel cm = engine::compile(*m);
      EXPECT_EQ(engine::initial_state(cm), ref_initial_state(*m)) << path;
    }
}

// Every example small enough, on its default network and on line:2 and
// ring:3; the successors come from engine::SuccessorGenerator (tested
// against the naive successor function below and in reference_inputs_test).
TEST(RefExplore, ExamplesAgreeWithReferenceExplorer) {
  auto t0 = std::chrono::steady_clock::now();
  int compared = 0;
  for (const auto& path : test::example_files()) {
    for (std::optional<std::string> net :
         {std::optional<std::string>{}, std::optional<std::string>{"line:2"}, std::optional<std::string>{"ring:3"}}) {
      model::Diagnostics diag;
      model::Overrides ov;
      ov.network_spec = net;
      auto m = model::load_model(path, ov, diag);
      ASSERT_TRUE(m) << diag.format_all();
      engine::CompiledModel cm = engine::compile(*m);
      engine::SuccessorGenerator gen(cm);
      std::string what = std::filesystem::path(path).filename().string() + " on " + net.value_or("its network");
      Comparison c = compare_explore(
          *m, cm, [&](const GlobalState& s) { return engine_successors(gen, s); }, 4000, what);
      if (c.outcome == Outcome::Compared) {
        ++compared;
        std::cout << "[RefExplore] " << what << ": " << c.states << " states, " << c.transitions
                  << " transitions, same as the engine\n";
      } else {
        std::cout << "[RefExplore] " << what << ": skipped ("
                  << (c.outcome == Outcome::EngineIncomplete ? "over 4000 states or out of bounds"
                                                             : "reference gave up")
                  << ")\n";
      }
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[RefExplore] examples: " << compared << " compared, " << secs << " s\n";
  EXPECT_GE(compared, 12);
}

// The small examples again, now with the fully naive successor function
// (naive inputs, the reference step, naive channel edits).
TEST(RefExplore, SmallExamplesWithNaiveSuccessors) {
  int compared = 0;
  for (const auto& [file, net] : std::vector<std::pair<std::string, std::string>>{
           {"ping_pong.d2c", "line:2"},
           {"retry_ack.d2c", "line:2"},
           {"spanning_tree.d2c", "line:2"},
           {"relay.d2c", "line:2"},
           {"flooding.d2c", "line:2"},
           {"counter_machine_halting.d2c", "line:1"},
           {"counter_machine_nonhalting.d2c", "line:1"},
           {"echo.d2c", "line:2"},
       }) {
    model::Diagnostics diag;
    auto m = model::load_model(test::source_path("examples/" + file), network_override(net), diag);
    ASSERT_TRUE(m) << diag.format_all();
    engine::CompiledModel cm = engine::compile(*m);
    RefSuccessors naive(cm, StepImpl::Reference);
    Comparison c = compare_explore(*m, cm, std::ref(naive), 3000, file + " on " + net + " (naive successors)");
    if (c.outcome == Outcome::Compared) ++compared;
  }
  EXPECT_GE(compared, 7);
}

// Random programs with an input predicate, small bounds, on-bound prune.
struct RandomExploreStats {
  int programs = 0, compared = 0, compared_naive = 0, with_fresh = 0, bound_hit = 0, skipped = 0;
  uint64_t states = 0, max_states = 0;
};

struct RandomExploreConfig {
  uint64_t seed = 0;
  int want = 0;                      // programs to compare
  bool with_input = true;            // the program declares and reads an input predicate
  std::vector<std::string> networks;  // picked uniformly
  uint32_t max_state_bound = 2, max_channel_bound = 2;
  double input_bound_two = 0.25;     // chance of `input 2`
  uint32_t max_states = 1500;
  uint32_t naive_below = 150;        // also compare with naive successors up to this many classes
};

void random_explore(const RandomExploreConfig& cfg, RandomExploreStats& st) {
  Rng rng(cfg.seed);
  GenOptions opt;
  opt.min_input = opt.max_input = cfg.with_input ? 1 : 0;
  opt.max_input_arity = 1;
  opt.max_state = 2;
  opt.max_transport_arity = 1;
  opt.min_rules = 3;
  opt.max_rules = 6;
  ProgramGenerator gen(rng, opt);
  int failures = 0;
  int attempts = 0;
  while (st.compared < cfg.want && failures == 0 && attempts < cfg.want * 20) {
    ++attempts;
    std::string text = cfg.with_input && coin(rng, 0.8) ? gen.generate_explore() : gen.generate();
    model::Overrides ov;
    ov.network_spec = pick(rng, cfg.networks);
    ov.state_bound = uni(rng, 1, cfg.max_state_bound);
    ov.channel_bound = uni(rng, 1, cfg.max_channel_bound);
    if (cfg.with_input) ov.input_bound = coin(rng, cfg.input_bound_two) ? 2 : 1;
    auto m = load_text(text, ov);
    if (!m) continue;
    ++st.programs;
    engine::CompiledModel cm = engine::compile(*m);
    engine::SuccessorGenerator sg(cm);
    std::string what = "random program (network " + *ov.network_spec + ", state " + std::to_string(*ov.state_bound) +
                       ", channel " + std::to_string(*ov.channel_bound) + ", input " +
                       std::to_string(m->bounds.input) + ", on-bound prune):\n" + text;
    Comparison c = compare_explore(
        *m, cm, [&](const GlobalState& s) { return engine_successors(sg, s); }, cfg.max_states, what);
    if (c.outcome != Outcome::Compared) {
      ++st.skipped;
      continue;
    }
    ++st.compared;
    st.states += c.states;
    st.max_states = std::max<uint64_t>(st.max_states, c.states);
    if (c.fresh_states) ++st.with_fresh;
    if (c.bound_hit) ++st.bound_hit;
    if (c.states <= cfg.naive_below) {
      RefSuccessors naive(cm, StepImpl::Reference);
      Comparison n = compare_explore(*m, cm, std::ref(naive), cfg.max_states, what + "(naive successors)");
      if (n.outcome == Outcome::Compared) ++st.compared_naive;
    }
    if (::testing::Test::HasFailure()) ++failures;  // one reproducer is enough
  }
}

void print_stats(const char* what, const RandomExploreStats& st, double secs) {
  std::cout << "[RefExplore] " << what << ": " << st.programs << " programs loaded, " << st.compared << " compared ("
            << st.compared_naive << " also with naive successors, " << st.with_fresh
            << " reaching fresh constants, " << st.bound_hit << " with states cut by a bound), " << st.skipped
            << " skipped; " << st.states << " states in all, largest " << st.max_states << "; " << secs << " s\n";
}

TEST(RefExplore, RandomProgramsWithInputsAgree) {
  auto t0 = std::chrono::steady_clock::now();
  RandomExploreStats st;
  RandomExploreConfig cfg;
  cfg.seed = 99;
  cfg.want = 400;
  cfg.networks = {"line:2", "line:2", "line:2", "line:2", "line:1", "line:1", "ring:3"};
  random_explore(cfg, st);
  print_stats("random, input", st, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (::testing::Test::HasFailure()) return;
  EXPECT_GE(st.compared, 400);
  EXPECT_GE(st.compared_naive, 150);
  EXPECT_GE(st.with_fresh, 120);
  EXPECT_GE(st.bound_hit, 80);
}

// Three-node networks with inputs: more interleavings, more fresh constants.
TEST(RefExplore, RandomProgramsWithInputsOnThreeNodesAgree) {
  auto t0 = std::chrono::steady_clock::now();
  RandomExploreStats st;
  RandomExploreConfig cfg;
  cfg.seed = 1234;
  cfg.want = 100;
  cfg.networks = {"ring:3", "line:3"};
  cfg.input_bound_two = 0.1;
  cfg.max_states = 2500;
  cfg.naive_below = 60;
  random_explore(cfg, st);
  print_stats("random, input, 3 nodes", st,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (::testing::Test::HasFailure()) return;
  EXPECT_GE(st.compared, 100);
  EXPECT_GE(st.with_fresh, 20);
}

// No input: no fresh constants (the engine's plain-encoding path), larger
// networks and bounds.
TEST(RefExplore, RandomProgramsWithoutInputsOnLargerNetworksAgree) {
  auto t0 = std::chrono::steady_clock::now();
  RandomExploreStats st;
  RandomExploreConfig cfg;
  cfg.seed = 555;
  cfg.want = 150;
  cfg.with_input = false;
  cfg.networks = {"ring:3", "line:3", "star:4", "complete:3", "ring:4"};
  cfg.max_state_bound = 3;
  cfg.max_states = 3000;
  cfg.naive_below = 80;
  random_explore(cfg, st);
  print_stats("random, no input, larger networks", st,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (::testing::Test::HasFailure()) return;
  EXPECT_GE(st.compared, 150);
  EXPECT_EQ(st.with_fresh, 0);
  EXPECT_GE(st.bound_hit, 20);
}

}  // namespace
