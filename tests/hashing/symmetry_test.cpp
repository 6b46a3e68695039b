// hashing/symmetry: the enumerated group of node permutations, their action
// on states, and the canonical form under the group and renaming, against
// brute force over every element and every renaming.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "hashing/symmetry.hpp"
#include "tests/hashing/random_states.hpp"
#include "tests/hashing/symmetry_support.hpp"

using namespace ddsmc::hashing;
using namespace ddsmc::hashing::test;

namespace {

StateLayout layout_of(const NetworkShape& sh, Rng& rng) {
  StateLayout l;
  l.num_nodes = sh.num_nodes;
  l.num_arcs = static_cast<uint32_t>(sh.arcs.size());
  l.num_fixed = sh.num_fixed;
  l.arity = {0, 1, 2, uniform(rng, 1, 2)};
  return l;
}

}  // namespace

TEST(SymmetryGroup, RingRotationsAndReflectionsMakeTheDihedralGroup) {
  for (uint32_t n = 3; n <= 7; ++n) {
    const SymmetryGroup g = SymmetryGroup::generate(ring(n), {rotation(n), reflection(n)}, 1000);
    EXPECT_EQ(g.order(), 2 * n);
    EXPECT_EQ(g.generators().size(), 2u);
    for (uint32_t a = 0; a < g.order(); ++a) {
      EXPECT_EQ(g.compose(g.inverse(a), a), 0u);
      EXPECT_EQ(g.compose(a, g.inverse(a)), 0u);
      for (uint32_t b = 0; b < g.order(); ++b) {
        const uint32_t c = g.compose(a, b);  // b first, then a
        for (uint32_t v = 0; v < n; ++v) EXPECT_EQ(g.element(c).node[v], g.element(a).node[g.element(b).node[v]]);
      }
    }
  }
}

TEST(SymmetryGroup, ArcsAndConstantsFollowTheNodes) {
  const NetworkShape sh = ring(5);
  const SymmetryGroup g = SymmetryGroup::generate(sh, {rotation(5)}, 100);
  ASSERT_EQ(g.order(), 5u);
  for (uint32_t i = 0; i < g.order(); ++i) {
    const NodePermutation& p = g.element(i);
    for (uint32_t a = 0; a < sh.arcs.size(); ++a) {
      EXPECT_EQ(sh.arcs[p.arc[a]].first, p.node[sh.arcs[a].first]);
      EXPECT_EQ(sh.arcs[p.arc[a]].second, p.node[sh.arcs[a].second]);
    }
    for (uint32_t n = 0; n < 5; ++n) EXPECT_EQ(p.constant[n], p.node[n]);
    EXPECT_EQ(p.constant[5], 5u);  // not a node name: fixed
  }
}

TEST(SymmetryGroup, RefusesWhatIsNotAnAutomorphismAndGroupsOverTheCap) {
  const NetworkShape line = shape(3, {{0, 1}, {1, 2}});
  EXPECT_THROW(SymmetryGroup::generate(line, {{1, 0, 2}}, 100), std::invalid_argument);
  EXPECT_THROW(SymmetryGroup::generate(line, {{0, 0, 2}}, 100), std::invalid_argument);
  EXPECT_EQ(SymmetryGroup::generate(line, {{2, 1, 0}}, 100).order(), 2u);
  EXPECT_THROW(SymmetryGroup::generate(ring(6), {rotation(6), reflection(6)}, 11), std::length_error);
}

TEST(SymmetryGroup, CycleNotation) {
  const SymmetryGroup g = SymmetryGroup::generate(ring(4), {rotation(4)}, 100);
  auto name = [](uint32_t n) { return "n" + std::to_string(n); };
  EXPECT_EQ(g.cycles(0, name), "()");
  EXPECT_EQ(g.cycles(g.generators()[0], name), "(n0 n1 n2 n3)");
}

TEST(SymmetryPermute, MovesPartsAndRenamesNodeConstants) {
  const NetworkShape sh = ring(3);
  StateLayout l;
  l.num_nodes = 3;
  l.num_arcs = static_cast<uint32_t>(sh.arcs.size());
  l.num_fixed = sh.num_fixed;  // 0..2 name nodes, 3 does not
  l.arity = {1};
  const SymmetryGroup g = SymmetryGroup::generate(sh, {rotation(3)}, 100);
  GlobalState s;
  s.dbs = {{0, 1, 0, 3}, {}, {0, 7}};  // node 0: p(n1), p(c); node 2: p(fresh 7)
  s.channels.assign(l.num_arcs, {});
  s.channels[1] = {0, 2, 4};  // arc (0, 1): p(n2) x4
  GlobalState out;
  permute(s, l, g.element(g.generators()[0]), out);  // n -> n + 1
  EXPECT_EQ(out.dbs[1], (std::vector<Word>{0, 2, 0, 3}));
  EXPECT_EQ(out.dbs[0], (std::vector<Word>{0, 7}));
  EXPECT_TRUE(out.dbs[2].empty());
  const auto arc12 = std::find(sh.arcs.begin(), sh.arcs.end(), std::make_pair(1u, 2u)) - sh.arcs.begin();
  EXPECT_EQ(out.channels[arc12], (std::vector<Word>{0, 0, 4}));
}

// For random states s: the canonical form of ρ(σ(s)) is s's; the forms of
// two states are equal iff brute force (least encoding over every element
// and renaming) says they are; and the form is ρ(σ(s)) for the element σ
// and renaming ρ it reports.
TEST(SymmetricCanonical, AgreesWithBruteForceOverTheGroupAndRenamings) {
  struct Case {
    NetworkShape shape;
    std::vector<std::vector<uint32_t>> gens;
  };
  const std::vector<Case> cases = {
      {ring(3), {rotation(3), reflection(3)}},                       // S3
      {ring(4), {rotation(4), reflection(4)}},                       // D4
      {shape(4, {{0, 1}, {0, 2}, {0, 3}}), {{0, 2, 1, 3}, {0, 2, 3, 1}}},  // star: S3 on the leaves
      {shape(3, {{0, 1}, {1, 2}}), {{2, 1, 0}}},                      // line: S2
  };
  Rng rng(2312);
  for (const Case& c : cases) {
    const SymmetryGroup g = SymmetryGroup::generate(c.shape, c.gens, 1000);
    for (int round = 0; round < 12; ++round) {
      // Odd rounds: a few unary facts over node names, so that invariant
      // vectors tie between elements that give different states.
      const bool sparse = round % 2;
      StateLayout l = layout_of(c.shape, rng);
      if (sparse) l.arity = {1, 1};
      SymmetricCanonicalizer canon(l, g);
      StateLimits lim;
      lim.max_fresh = sparse ? 1 : 3;
      lim.max_db = 2;
      lim.max_channel = sparse ? 0 : 1;
      lim.max_count = 2;
      lim.fresh_bias = sparse ? 0.1 : 0.4;
      std::vector<GlobalState> states;
      for (int i = 0; i < 24; ++i) {
        GlobalState s = random_state(rng, l, lim);
        states.push_back(s);
        GlobalState moved;
        permute(s, l, g.element(uniform(rng, 0, static_cast<uint32_t>(g.order()) - 1)), moved);
        states.push_back(rename(moved, l, random_renaming(rng, moved, l, 6)));
      }
      std::vector<std::string> fast, slow;
      for (const GlobalState& s : states) {
        CanonicalForm f;
        uint32_t e = 0;
        canon.canonicalize(s, f, &e);
        GlobalState expect;
        permute(s, l, g.element(e), expect);
        if (!f.renaming.empty()) expect = rename(expect, l, f.renaming);
        ASSERT_EQ(f.state, expect);
        ASSERT_EQ(f.bytes, encode(f.state, l));
        fast.push_back(f.bytes);
        slow.push_back(canonical_bytes_brute_force(s, l, g));
      }
      for (size_t i = 0; i < states.size(); i += 2) EXPECT_EQ(fast[i], fast[i + 1]);
      for (size_t i = 0; i < states.size(); ++i)
        for (size_t j = i + 1; j < states.size(); ++j) ASSERT_EQ(fast[i] == fast[j], slow[i] == slow[j]) << i << " " << j;
    }
  }
}

TEST(SymmetricCanonical, TheTrivialGroupIsTheRenamingCanonicalForm) {
  Rng rng(7);
  const NetworkShape sh = ring(4);
  const SymmetryGroup g(sh);
  const StateLayout l = layout_of(sh, rng);
  SymmetricCanonicalizer canon(l, g);
  Canonicalizer plain(l);
  for (int i = 0; i < 200; ++i) {
    const GlobalState s = random_state(rng, l);
    CanonicalForm a, b;
    uint32_t e = 99;
    canon.canonicalize(s, a, &e);
    plain.canonicalize(s, b);
    EXPECT_EQ(e, 0u);
    EXPECT_EQ(a.bytes, b.bytes);
  }
}

TEST(SymmetricCanonical, WithoutFreshConstantsTheRenamingIsSkippedAndNothingChanges) {
  Rng rng(11);
  const NetworkShape sh = ring(4);
  const SymmetryGroup g = SymmetryGroup::generate(sh, {rotation(4), reflection(4)}, 100);
  for (int round = 0; round < 4; ++round) {
    StateLayout l = layout_of(sh, rng);
    if (round % 2) l.arity = {1, 1};
    SymmetricCanonicalizer with(l, g, true), without(l, g, false);
    StateLimits lim;
    lim.max_fresh = 0;  // fixed constants only
    lim.max_db = 2;
    lim.max_channel = 1;
    for (int i = 0; i < 300; ++i) {
      const GlobalState s = random_state(rng, l, lim);
      ASSERT_TRUE(fresh_constants(s, l).empty());
      CanonicalForm a, b;
      uint32_t ea = 0, eb = 0;
      with.canonicalize(s, a, &ea);
      without.canonicalize(s, b, &eb);
      EXPECT_EQ(a.bytes, b.bytes);
      EXPECT_EQ(a.state, b.state);
      EXPECT_EQ(ea, eb);
    }
  }
}

TEST(SymmetricCanonical, ChangedPartsAgainstABaseGiveTheFullForm) {
  Rng rng(29);
  const NetworkShape sh = ring(4);
  const SymmetryGroup g = SymmetryGroup::generate(sh, {rotation(4), reflection(4)}, 100);
  const StateLayout l = layout_of(sh, rng);
  SymmetricCanonicalizer incremental(l, g), full(l, g);
  StateLimits lim;
  lim.max_fresh = 2;
  lim.max_db = 2;
  lim.max_channel = 1;
  const uint32_t parts = l.num_nodes + l.num_arcs;
  for (int i = 0; i < 300; ++i) {
    const GlobalState base = random_state(rng, l, lim);
    incremental.set_base(base);
    for (int k = 0; k < 4; ++k) {
      GlobalState succ = base;
      const GlobalState other = random_state(rng, l, lim);
      std::vector<uint32_t> changed;
      for (uint32_t p = 0; p < parts; ++p)
        if (std::bernoulli_distribution(0.2)(rng)) {
          changed.push_back(p);
          part_words(succ, l.num_nodes, p) = part_words(other, l.num_nodes, p);
        }
      CanonicalForm a, b;
      uint32_t ea = 0, eb = 0;
      const GlobalState& ra = incremental.canonical_state(succ, a, &ea, &changed);
      const GlobalState& rb = full.canonical_state(succ, b, &eb);
      EXPECT_EQ(ra, rb);
      EXPECT_EQ(ea, eb);
    }
  }
}
