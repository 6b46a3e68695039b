// The successor function's input enumeration is complete up to isomorphism
// (docs/reference.md §3.5, §3.7): for small systems, ALL input DBs are
// enumerated naively (every set of at most `input` facts over the fixed
// constants, the state's constants and input*maxarity new ids), the
// successors are canonicalized with the brute force, and the set of
// successor classes (with arc and stable labels) must equal the one of
// engine::SuccessorGenerator. Also: successors of isomorphic concrete
// states (sparse, permuted fresh ids) are the same classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <numeric>

#include "engine/d2c/inputs.hpp"
#include "engine/d2c/successors.hpp"
#include "tests/engine/reference_explore_impl.hpp"
#include "tests/engine/reference_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;
using namespace ddsmc::reftest;

namespace {

using SuccClasses = std::set<std::tuple<std::string, uint32_t, bool>>;

SuccClasses classes_of(const std::vector<RefSucc>& succs, const StateLayout& layout) {
  SuccClasses out;
  for (const RefSucc& r : succs)
    out.insert(std::make_tuple(hashing::canonicalize_brute_force(r.state, layout).bytes, r.arc, r.stable));
  return out;
}

std::string state_string(const model::Model& m, const StateLayout& layout, const GlobalState& s) {
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

// Compares naive and engine successor classes at state s; false on a difference.
bool compare_at(const model::Model& m, const engine::CompiledModel& cm, RefSuccessors& naive,
                engine::SuccessorGenerator& gen, const GlobalState& s, const std::string& text) {
  SuccClasses want = classes_of(naive(s), cm.layout);
  SuccClasses got = classes_of(engine_successors(gen, s), cm.layout);
  if (want == got) return true;
  std::string diff;
  for (const auto& c : want)
    if (!got.count(c)) {
      GlobalState t;
      hashing::decode(std::get<0>(c), cm.layout, t);
      diff += "  missing from the engine: arc " + std::to_string(std::get<1>(c)) +
              (std::get<2>(c) ? " stable " : " changing ") + state_string(m, cm.layout, t) + "\n";
    }
  for (const auto& c : got)
    if (!want.count(c)) {
      GlobalState t;
      hashing::decode(std::get<0>(c), cm.layout, t);
      diff += "  only in the engine: arc " + std::to_string(std::get<1>(c)) +
              (std::get<2>(c) ? " stable " : " changing ") + state_string(m, cm.layout, t) + "\n";
    }
  ADD_FAILURE() << "successor classes differ at state" << state_string(m, cm.layout, s) << "\n"
                << diff << "program (network " << m.network.description() << ", input bound " << m.bounds.input
                << "):\n"
                << text;
  return false;
}

struct InputStats {
  int programs = 0, states = 0, fresh_states = 0;
};

// Random explore-style programs; at every reachable class (up to a cap),
// naive successors vs the engine's.
void check_random(uint64_t seed, int programs, uint32_t input_bound, uint32_t input_arity, StepImpl impl,
                  uint32_t states_per_program, InputStats& st) {
  Rng rng(seed);
  GenOptions opt;
  opt.min_input = opt.max_input = 1;
  opt.max_input_arity = input_arity;
  opt.max_state = 2;
  opt.max_transport_arity = 1;
  ProgramGenerator gen(rng, opt);
  int attempts = 0;
  while (st.programs < programs && attempts++ < programs * 20 && !::testing::Test::HasFailure()) {
    std::string text = input_arity <= 1 && coin(rng, 0.8) ? gen.generate_explore() : gen.generate();
    model::Overrides ov;
    ov.network_spec = coin(rng, 0.7) ? "line:2" : "line:1";
    ov.state_bound = uni(rng, 1, 2);
    ov.channel_bound = uni(rng, 1, 2);
    ov.input_bound = input_bound;
    auto m = load_text(text, ov);
    if (!m || m->bounds.input == 0) continue;
    engine::CompiledModel cm = engine::compile(*m);
    engine::SuccessorGenerator gen_engine(cm);
    RefGraph g = ref_explore(
        cm, [&](const GlobalState& s) { return engine_successors(gen_engine, s); }, 300, 5);
    if (!g.complete) continue;
    ++st.programs;
    RefSuccessors naive(cm, impl);
    engine::SuccessorGenerator gen2(cm);
    // The states with the most fresh constants first: they are the interesting ones.
    std::vector<uint32_t> order(g.states.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return fresh_count(g.states[a], cm.layout) > fresh_count(g.states[b], cm.layout);
    });
    for (size_t i = 0; i < order.size() && i < states_per_program; ++i) {
      const GlobalState& s = g.states[order[i]];
      ++st.states;
      if (fresh_count(s, cm.layout)) ++st.fresh_states;
      if (!compare_at(*m, cm, naive, gen2, s, text)) return;
    }
  }
}

TEST(RefInputs, CompleteUpToIsomorphismInputBound1) {
  InputStats st;
  check_random(5, 80, 1, 1, StepImpl::Reference, 30, st);
  std::cout << "[RefInputs] bound 1, arity 1, reference step: " << st.programs << " programs, " << st.states
            << " states (" << st.fresh_states << " with fresh constants)\n";
  EXPECT_GE(st.programs, 80);
  EXPECT_GE(st.fresh_states, 200);
}

TEST(RefInputs, CompleteUpToIsomorphismInputBound2) {
  InputStats st;
  check_random(6, 60, 2, 1, StepImpl::Engine, 20, st);
  std::cout << "[RefInputs] bound 2, arity 1: " << st.programs << " programs, " << st.states << " states ("
            << st.fresh_states << " with fresh constants)\n";
  EXPECT_GE(st.programs, 60);
  EXPECT_GE(st.fresh_states, 100);
}

TEST(RefInputs, CompleteUpToIsomorphismBinaryInputs) {
  InputStats st;
  check_random(7, 40, 1, 2, StepImpl::Engine, 15, st);
  InputStats st2;
  check_random(8, 12, 2, 2, StepImpl::Engine, 4, st2);
  std::cout << "[RefInputs] arity 2: bound 1: " << st.programs << " programs, " << st.states << " states; bound 2: "
            << st2.programs << " programs, " << st2.states << " states (" << st2.fresh_states
            << " with fresh constants)\n";
  EXPECT_GE(st.programs, 40);
  EXPECT_GE(st2.programs, 12);
}

// A hand-made binary-input program whose states hold several fresh constants:
// every state reachable within the bounds, input bound 2.
TEST(RefInputs, BinaryInputsIntoStateWithBoundTwo) {
  const std::string text =
      "input in/2.\n"
      "state kept/2.\n"
      "transport poll/0.\n"
      "kept(X, Y) if in(X, Y).\n"
      "kept(X, Y) if prev kept(X, Y), not in(Y, _).\n"
      "poll@M if poll@_, my_name(M).\n"
      "poll@M if start@_, my_name(M).\n";
  model::Overrides ov;
  ov.network_spec = "line:1";
  ov.input_bound = 2;
  ov.state_bound = 3;
  ov.channel_bound = 1;
  std::string err;
  auto m = load_text(text, ov, &err);
  ASSERT_TRUE(m) << err;
  engine::CompiledModel cm = engine::compile(*m);
  engine::SuccessorGenerator gen(cm), gen2(cm);
  RefGraph g = ref_explore(
      cm, [&](const GlobalState& s) { return engine_successors(gen, s); }, 2000, 6);
  ASSERT_TRUE(g.complete) << g.why_incomplete;
  RefSuccessors naive(cm, StepImpl::Engine);
  int checked = 0;
  for (const auto& s : g.states) {
    if (checked >= 25) break;
    ++checked;
    if (!compare_at(*m, cm, naive, gen2, s, text)) break;
  }
  std::cout << "[RefInputs] binary inputs, bound 2: " << g.states.size() << " classes, " << checked << " checked\n";
}

// The input DBs themselves: the engine's are legal input DBs, every naive
// input DB equals one of them after renaming the new constants (those neither
// fixed nor in the state), and no two of them are such renamings of each
// other (orderly generation: exactly one DB per class).
TEST(RefInputs, InputDbsAreExactlyOnePerRenamingClass) {
  struct Case {
    std::string decl, reads;  // the input predicates, and a rule reading each of them
    uint32_t bound;
    size_t states = 4;  // how many of the test states below (the larger cases: the empty one only)
  };
  int cases = 0;
  size_t dbs_total = 0;
  for (const Case& c : std::vector<Case>{{"input p/1.", "seen if p(_).", 1},
                                         {"input p/1.", "seen if p(_).", 2},
                                         {"input p/1.", "seen if p(_).", 3},
                                         {"input p/1.", "seen if p(_).", 4},
                                         {"input p/2.", "seen if p(_, _).", 1},
                                         {"input p/2.", "seen if p(_, _).", 2},
                                         {"input p/0, q/1.", "seen if p.\nseen if q(_).", 2},
                                         {"input p/1, q/2.", "seen if p(_).\nseen if q(_, _).", 2},
                                         {"input p/2, q/1.", "seen if p(_, _).\nseen if q(_).", 2},
                                         {"input p/2.", "seen if p(_, _).", 3, 1},
                                         {"input p/3.", "seen if p(_, _, _).", 2, 1}}) {
    std::string text = c.decl + "\nstate s/1, seen/0.\ntransport t/1.\ns(X) if t(X)@_.\n" + c.reads +
                       "\nt(a)@M if start@_, my_name(M).\n";
    model::Overrides ov;
    ov.network_spec = "line:1";
    ov.input_bound = c.bound;
    auto m = load_text(text, ov);
    ASSERT_TRUE(m);
    engine::CompiledModel cm = engine::compile(*m);
    const uint32_t nf = cm.layout.num_fixed;
    // States with no, one or two fresh constants (sparse ids too).
    const std::vector<std::vector<Word>> fresh_sets{{}, {nf}, {nf, nf + 1}, {nf + 2, nf + 5}};
    for (size_t fi = 0; fi < c.states; ++fi) {
      const std::vector<Word>& fresh = fresh_sets[fi];
      ++cases;
      GlobalState s;
      s.dbs.resize(1);
      s.channels.resize(1);
      std::set<Fact> db;
      for (Word f : fresh) db.insert(Fact{*m->find_pred("s"), {f}});
      s.dbs[0] = to_words(db);
      std::set<ConstId> known;  // fixed and state constants
      for (ConstId k = 0; k < nf; ++k) known.insert(k);
      known.insert(fresh.begin(), fresh.end());
      // Key of an input DB: least sorted fact list over all renamings of its new constants.
      auto key = [&](const std::set<Fact>& in) {
        std::vector<ConstId> news;
        for (const Fact& f : in)
          for (ConstId a : f.args)
            if (!known.count(a) && std::find(news.begin(), news.end(), a) == news.end()) news.push_back(a);
        std::sort(news.begin(), news.end());
        std::vector<uint32_t> perm(news.size());
        std::iota(perm.begin(), perm.end(), 0u);
        std::optional<std::vector<Fact>> best;
        do {
          std::set<Fact> renamed;
          for (Fact f : in) {
            for (ConstId& a : f.args) {
              auto it = std::find(news.begin(), news.end(), a);
              if (it != news.end()) a = 1000000 + perm[it - news.begin()];
            }
            renamed.insert(f);
          }
          std::vector<Fact> v(renamed.begin(), renamed.end());
          if (!best || v < *best) best = v;
        } while (std::next_permutation(perm.begin(), perm.end()));
        return *best;
      };
      std::set<std::vector<Fact>> naive_keys, engine_keys;
      for (const auto& in : ref_input_dbs(*m, cm.layout, s)) naive_keys.insert(key(in));
      engine::InputEnumerator en(cm);
      std::vector<std::vector<Word>> dbs;
      en.for_each(hashing::fresh_constants(s, cm.layout), [&](const std::vector<Word>& db) { dbs.push_back(db); });
      ASSERT_FALSE(dbs.empty());
      dbs_total += dbs.size();
      EXPECT_TRUE(dbs.front().empty()) << "the empty input DB comes first";
      for (const auto& w : dbs) {
        std::vector<Word> norm = w;
        hashing::normalize_db(norm, cm.layout);
        EXPECT_EQ(norm, w) << "input DB not normalized";
        std::set<Fact> in = to_facts(w, cm.layout);
        EXPECT_LE(in.size(), c.bound);
        for (const Fact& f : in) EXPECT_EQ(m->preds[f.pred].kind, model::PredKind::Input);
        EXPECT_TRUE(engine_keys.insert(key(in)).second)
            << c.decl << " bound " << c.bound << ": two input DBs of one class";
      }
      EXPECT_EQ(engine_keys, naive_keys) << c.decl << " bound " << c.bound << ", " << fresh.size()
                                         << " fresh constants in the state";
    }
  }
  std::cout << "[RefInputs] input DBs: " << cases << " cases, " << dbs_total << " input DBs, one per class\n";
}

// Genericity: the successors of isomorphic concrete states (fresh ids moved
// to sparse, permuted values) are the same classes.
TEST(RefInputs, IsomorphicStatesHaveTheSameSuccessorClasses) {
  Rng rng(31337);
  GenOptions opt;
  opt.min_input = opt.max_input = 1;
  opt.max_input_arity = 1;
  opt.max_state = 2;
  opt.max_transport_arity = 1;
  ProgramGenerator gen(rng, opt);
  int programs = 0, states = 0;
  for (int attempt = 0; attempt < 400 && programs < 60 && !::testing::Test::HasFailure(); ++attempt) {
    std::string text = gen.generate_explore();
    model::Overrides ov;
    ov.network_spec = "line:2";
    ov.state_bound = 2;
    ov.channel_bound = uni(rng, 1, 2);
    ov.input_bound = 1;
    auto m = load_text(text, ov);
    if (!m) continue;
    engine::CompiledModel cm = engine::compile(*m);
    engine::SuccessorGenerator g1(cm), g2(cm);
    RefGraph g = ref_explore(
        cm, [&](const GlobalState& s) { return engine_successors(g1, s); }, 300, 5);
    if (!g.complete) continue;
    ++programs;
    for (const auto& s : g.states) {
      std::vector<Word> fresh = hashing::fresh_constants(s, cm.layout);
      if (fresh.empty()) continue;
      // A random injective map of the fresh ids onto num_fixed .. num_fixed+19.
      std::vector<Word> targets(20);
      std::iota(targets.begin(), targets.end(), cm.layout.num_fixed);
      std::shuffle(targets.begin(), targets.end(), rng);
      std::vector<Word> map(fresh.back() - cm.layout.num_fixed + 1, hashing::kUnmapped);
      for (size_t i = 0; i < fresh.size(); ++i) map[fresh[i] - cm.layout.num_fixed] = targets[i];
      GlobalState r = hashing::rename(s, cm.layout, map);
      ++states;
      SuccClasses a = classes_of(engine_successors(g2, s), cm.layout);
      SuccClasses b = classes_of(engine_successors(g2, r), cm.layout);
      EXPECT_EQ(a, b) << "state" << state_string(*m, cm.layout, s) << " renamed to"
                      << state_string(*m, cm.layout, r) << "\n"
                      << text;
      if (a != b) break;
    }
  }
  std::cout << "[RefInputs] renamed states: " << programs << " programs, " << states << " states\n";
  EXPECT_GE(states, 100);
}

}  // namespace
