// Tests of hashing/canonical: canonical forms are invariant under renaming,
// separate exactly what the brute-force reference separates, are always a
// renaming of their input, and stay fast on highly symmetric states.
#include "hashing/canonical.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/hashing/random_states.hpp"

namespace ddsmc::hashing {
namespace {

using test::random_layout;
using test::random_renaming;
using test::random_state;
using test::Rng;
using test::uniform;

// out must be s with its fresh constants renamed bijectively onto
// num_fixed .. num_fixed+k-1, normalised and encoded.
void expect_renaming_of(const GlobalState& s, const StateLayout& l, const CanonicalForm& out) {
  const std::vector<Word> fresh = fresh_constants(s, l);
  if (fresh.empty()) {
    EXPECT_TRUE(out.renaming.empty());
  } else {
    ASSERT_EQ(out.renaming.size(), fresh.back() - l.num_fixed + 1);
    std::set<Word> images;
    for (Word c : fresh) {
      const Word img = out.renaming[c - l.num_fixed];
      EXPECT_GE(img, l.num_fixed);
      EXPECT_LT(img, l.num_fixed + fresh.size());
      images.insert(img);
    }
    EXPECT_EQ(images.size(), fresh.size());  // a bijection onto num_fixed..num_fixed+k-1
    const size_t mapped = out.renaming.size() - std::count(out.renaming.begin(), out.renaming.end(), kUnmapped);
    EXPECT_EQ(mapped, fresh.size());  // ids that do not occur are unmapped
  }
  EXPECT_EQ(rename(s, l, out.renaming), out.state);
  EXPECT_EQ(test::fact_count(out.state, l), test::fact_count(s, l));
  GlobalState back;
  ASSERT_TRUE(decode(out.bytes, l, back));
  EXPECT_EQ(back, out.state);
  EXPECT_EQ(out.fingerprint, fingerprint(out.bytes));
}

void print_stats(const char* what, const CanonicalStats& st) {
  std::printf("  %s: calls %llu, fast %llu, refined %llu, individualized %llu, nauty %llu\n", what,
              static_cast<unsigned long long>(st.calls), static_cast<unsigned long long>(st.fast_path),
              static_cast<unsigned long long>(st.refined), static_cast<unsigned long long>(st.individualized),
              static_cast<unsigned long long>(st.nauty));
}

void add_stats(CanonicalStats& sum, const CanonicalStats& st) {
  sum.calls += st.calls;
  sum.fast_path += st.fast_path;
  sum.refined += st.refined;
  sum.individualized += st.individualized;
  sum.nauty += st.nauty;
}

CanonicalForm canon(Canonicalizer& c, const GlobalState& s) {
  CanonicalForm out;
  c.canonicalize(s, out);
  return out;
}

TEST(Canonical, NoFreshConstantsIsTheEncoding) {
  StateLayout l;
  l.arity = {1, 2};
  l.num_nodes = 2;
  l.num_arcs = 3;
  l.num_fixed = 4;
  GlobalState s{{{0, 1, 1, 0, 3}, {}}, {{0, 2, 5}, {}, {}}};
  Canonicalizer c(l);
  const CanonicalForm out = canon(c, s);
  EXPECT_EQ(out.bytes, encode(s, l));
  EXPECT_TRUE(out.renaming.empty());
  EXPECT_EQ(out.state, s);
  EXPECT_EQ(c.stats().fast_path, 1u);
  EXPECT_EQ(canonicalize_brute_force(s, l).bytes, out.bytes);
}

// A state of one node and one arc over a single binary predicate: random
// sparse digraphs of fresh constants, where refinement ties often.
GlobalState random_digraph(Rng& rng, const StateLayout& l, uint32_t vertices, uint32_t edges) {
  GlobalState s{std::vector<std::vector<Word>>(l.num_nodes), std::vector<std::vector<Word>>(l.num_arcs)};
  for (uint32_t e = 0; e < edges; ++e)
    s.dbs[0].insert(s.dbs[0].end(), {1, l.num_fixed + uniform(rng, 0, vertices - 1),
                                     l.num_fixed + uniform(rng, 0, vertices - 1)});
  normalize_db(s.dbs[0], l);
  return s;
}

// (a) canonical(pi(s)) == canonical(s) under random renamings, including
// renamings onto sparse, large fresh ids.
TEST(Canonical, InvariantUnderRandomRenamings) {
  Rng rng(11);
  CanonicalStats sum;
  for (int iter = 0; iter < 4000; ++iter) {
    StateLayout l = random_layout(rng);
    GlobalState s;
    if (iter % 8 == 3) {  // sparse digraphs: refinement ties, the search settles them
      l.arity = {1, 2};
      const uint32_t v = uniform(rng, 3, 12);
      s = random_digraph(rng, l, v, uniform(rng, v, 2 * v));
    } else if (iter % 8 == 7) {  // disjoint directed cycles: refinement sees nothing
      l.arity = {1, 2};
      s = GlobalState{std::vector<std::vector<Word>>(l.num_nodes), std::vector<std::vector<Word>>(l.num_arcs)};
      Word base = l.num_fixed;
      for (uint32_t n = uniform(rng, 1, 4); n > 0; --n) {
        const uint32_t len = uniform(rng, 2, 8);
        for (Word i = 0; i < len; ++i) s.dbs[0].insert(s.dbs[0].end(), {1, base + i, base + (i + 1) % len});
        base += len;
      }
      normalize_db(s.dbs[0], l);
    } else {
      s = random_state(rng, l);
    }
    Canonicalizer c(l);
    const CanonicalForm base = canon(c, s);
    expect_renaming_of(s, l, base);
    for (int r = 0; r < 3; ++r) {
      // Mostly nearby ids; sometimes ids up to 2^20 (the renaming vector is
      // indexed by id, so those are costly to check).
      const uint32_t range = r == 0 ? 16 : (r == 1 || iter % 64 ? 1u << 12 : 1u << 20);
      const GlobalState t = rename(s, l, random_renaming(rng, s, l, range));
      const CanonicalForm other = canon(c, t);
      ASSERT_EQ(other.bytes, base.bytes) << "iteration " << iter;
      expect_renaming_of(t, l, other);
    }
    add_stats(sum, c.stats());
  }
  print_stats("random renamings", sum);
  EXPECT_GT(sum.individualized, 0u);
  EXPECT_GT(sum.nauty, 0u);
}

// A random local change: one argument replaced, one fact added or dropped.
GlobalState perturb(Rng& rng, const GlobalState& s, const StateLayout& l) {
  GlobalState t = s;
  const uint32_t where = uniform(rng, 0, l.num_nodes + l.num_arcs - 1);
  const bool is_db = where < l.num_nodes;
  std::vector<Word>& run = is_db ? t.dbs[where] : t.channels[where - l.num_nodes];
  const uint32_t extra = is_db ? 0 : 1;
  std::vector<size_t> starts;
  for (size_t i = 0; i < run.size(); i += l.fact_words(run[i]) + extra) starts.push_back(i);
  const std::vector<Word> fresh = fresh_constants(s, l);
  const uint32_t what = uniform(rng, 0, 2);
  if (what == 0 && !starts.empty()) {  // change an argument
    const size_t at = starts[uniform(rng, 0, static_cast<uint32_t>(starts.size()) - 1)];
    const uint32_t n = l.fact_words(run[at]);
    if (n > 1) {
      const Word c = fresh.empty() || uniform(rng, 0, 1) ? l.num_fixed + uniform(rng, 0, 6)
                                                         : fresh[uniform(rng, 0, static_cast<uint32_t>(fresh.size()) - 1)];
      run[at + uniform(rng, 1, n - 1)] = c;
    }
  } else if (what == 1 && !starts.empty()) {  // drop a fact
    const size_t k = uniform(rng, 0, static_cast<uint32_t>(starts.size()) - 1);
    const size_t end = k + 1 < starts.size() ? starts[k + 1] : run.size();
    run.erase(run.begin() + starts[k], run.begin() + end);
  } else {  // add a fact
    test::StateLimits lim;
    test::random_fact(rng, l, lim, static_cast<uint32_t>(fresh.size()) + 1, run);
    if (extra) run.push_back(1);
  }
  if (is_db)
    normalize_db(run, l);
  else
    normalize_channel(run, l);
  return t;
}

// (b) canonical forms agree exactly when the brute force says isomorphic.
TEST(Canonical, SeparatesExactlyLikeBruteForce) {
  Rng rng(12);
  int equal = 0, different = 0;
  for (int iter = 0; iter < 2500; ++iter) {
    test::LayoutLimits ll;
    ll.max_preds = iter % 2 ? 2 : 5;  // few predicates: more symmetry, more ties
    const StateLayout l = random_layout(rng, ll);
    test::StateLimits lim;
    lim.max_fresh = 6;
    lim.max_db = iter % 3 ? 4 : 7;
    const GlobalState s = random_state(rng, l, lim);
    GlobalState t = rename(s, l, random_renaming(rng, s, l, 40));
    if (uniform(rng, 0, 2) == 0) t = perturb(rng, t, l);
    if (fresh_constants(t, l).size() > 7) continue;
    Canonicalizer c(l);
    const CanonicalForm cs = canon(c, s), ct = canon(c, t);
    const bool iso = canonicalize_brute_force(s, l).bytes == canonicalize_brute_force(t, l).bytes;
    ASSERT_EQ(cs.bytes == ct.bytes, iso) << "iteration " << iter;
    (iso ? equal : different)++;
  }
  EXPECT_GT(equal, 1000);
  EXPECT_GT(different, 200);
}

// canonical_state() gives what canonicalize() gives, on a reused
// canonicalizer, and hands back the input itself, uncopied, when the input
// is its own canonical form. The inputs are what the explorer feeds it:
// arbitrary states, canonical ones, and canonical ones after a local change
// (a successor of a canonical state), which are often still canonical.
TEST(Canonical, CanonicalStateIsTheFormAndTheInputItselfWhenCanonical) {
  Rng rng(13);
  uint64_t same_object = 0, copied = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    test::LayoutLimits ll;
    ll.max_preds = iter % 2 ? 2 : 5;
    const StateLayout l = random_layout(rng, ll);
    test::StateLimits lim;
    lim.max_fresh = 6;
    const GlobalState s = random_state(rng, l, lim);
    Canonicalizer fresh_one(l), reused(l);
    const GlobalState cs = canon(fresh_one, s).state;
    for (const GlobalState& x : {s, rename(s, l, random_renaming(rng, s, l, 40)), cs, perturb(rng, cs, l)}) {
      Canonicalizer reference(l);
      const CanonicalForm want = canon(reference, x);
      CanonicalForm out;
      const GlobalState& got = reused.canonical_state(x, out);
      ASSERT_EQ(got, want.state) << "iteration " << iter;
      expect_renaming_of(x, l, CanonicalForm{want.bytes, want.fingerprint, out.renaming, want.state});
      if (&got == &x)
        ++same_object;
      else
        ++copied;
    }
    EXPECT_LE(reused.stats().identity, reused.stats().refined + reused.stats().nauty);
  }
  // The canonical inputs (a quarter of them, and many perturbed ones) come
  // back as themselves; the renamed ones mostly do not.
  EXPECT_GT(same_object, 3000u);
  EXPECT_GT(copied, 1000u);
}

// All directed graphs (with optional unary marks) on 4 fresh vertices with
// few edges: the classes by canonical form are exactly the classes by brute
// force. Such small regular-ish graphs make refinement tie often.
TEST(Canonical, SmallGraphClassesMatchBruteForce) {
  StateLayout l;
  l.arity = {2, 1};  // e(X, Y), mark(X)
  l.num_nodes = 1;
  l.num_arcs = 1;
  l.num_fixed = 1;
  Canonicalizer c(l);
  std::map<std::string, std::string> brute_to_canon, canon_to_brute;
  const uint32_t v = 4;
  for (uint32_t edges = 0; edges < (1u << 12); ++edges) {
    if (__builtin_popcount(edges) > 5) continue;
    GlobalState s{{{}}, {{}}};
    uint32_t bit = 0;
    for (uint32_t a = 0; a < v; ++a)
      for (uint32_t b = 0; b < v; ++b) {
        if (a == b) continue;
        if (edges >> bit++ & 1) s.dbs[0].insert(s.dbs[0].end(), {0, 1 + a, 1 + b});
      }
    if (edges % 7 == 0) s.dbs[0].insert(s.dbs[0].end(), {1, 1});  // sometimes mark vertex 0
    if (edges % 5 == 0) s.channels[0].insert(s.channels[0].end(), {1, 2, 2});
    normalize_db(s.dbs[0], l);
    const CanonicalForm cf = canon(c, s);
    const std::string brute = canonicalize_brute_force(s, l).bytes;
    auto [it1, new1] = brute_to_canon.emplace(brute, cf.bytes);
    auto [it2, new2] = canon_to_brute.emplace(cf.bytes, brute);
    EXPECT_EQ(it1->second, cf.bytes);
    EXPECT_EQ(it2->second, brute);
  }
  EXPECT_EQ(brute_to_canon.size(), canon_to_brute.size());
  EXPECT_GT(c.stats().individualized, 0u);
}

// Random digraphs on 5 and 6 fresh vertices, plus unary marks: the classes
// by canonical form are exactly the classes by brute force.
TEST(Canonical, RandomGraphClassesMatchBruteForce) {
  Rng rng(14);
  StateLayout l;
  l.arity = {1, 2};  // mark(X), e(X, Y)
  l.num_nodes = 1;
  l.num_arcs = 1;
  l.num_fixed = 1;
  Canonicalizer c(l);
  std::map<std::string, std::string> brute_to_canon, canon_to_brute;
  for (int iter = 0; iter < 1500; ++iter) {
    const uint32_t v = iter % 3 ? 5 : 6;
    GlobalState s = random_digraph(rng, l, v, uniform(rng, v - 1, 2 * v));
    if (iter % 2) {  // close it under reversal: undirected graphs are more symmetric
      std::vector<Word>& db = s.dbs[0];
      for (size_t i = 0, n = db.size(); i < n; i += 3) db.insert(db.end(), {1, db[i + 2], db[i + 1]});
    }
    if (iter % 5 == 0) s.dbs[0].insert(s.dbs[0].end(), {0, l.num_fixed + uniform(rng, 0, v - 1)});
    normalize_db(s.dbs[0], l);
    const CanonicalForm cf = canon(c, s);
    const std::string brute = canonicalize_brute_force(s, l).bytes;
    EXPECT_EQ(brute_to_canon.emplace(brute, cf.bytes).first->second, cf.bytes);
    EXPECT_EQ(canon_to_brute.emplace(cf.bytes, brute).first->second, brute);
  }
  EXPECT_EQ(brute_to_canon.size(), canon_to_brute.size());
  print_stats("random graph classes", c.stats());
  EXPECT_GT(c.stats().individualized, 0u);
}

TEST(Canonical, ScratchReuseDoesNotLeakBetweenCalls) {
  Rng rng(13);
  const StateLayout l = random_layout(rng);
  Canonicalizer shared(l);
  for (int iter = 0; iter < 1000; ++iter) {
    test::StateLimits lim;
    lim.max_db = uniform(rng, 0, 8);
    const GlobalState s = random_state(rng, l, lim);
    Canonicalizer fresh(l);
    const CanonicalForm a = canon(shared, s), b = canon(fresh, s);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.renaming, b.renaming);
    EXPECT_EQ(a.state, b.state);
  }
}

// ---- highly symmetric states ---------------------------------------------------

// One node, one arc; p/1, q/2; num_fixed = 2.
StateLayout sym_layout() {
  StateLayout l;
  l.arity = {1, 2};
  l.num_nodes = 1;
  l.num_arcs = 1;
  l.num_fixed = 2;
  return l;
}
constexpr Word kP = 0, kQ = 1, kF = 2;  // kF: the first fresh id

GlobalState make(const StateLayout& l, const std::vector<std::vector<Word>>& facts) {
  GlobalState s{{{}}, {{}}};
  for (const auto& f : facts) s.dbs[0].insert(s.dbs[0].end(), f.begin(), f.end());
  normalize_db(s.dbs[0], l);
  return s;
}

// Directed cycles q(c_i, c_{i+1}) of the given lengths over fresh constants.
GlobalState cycles(const StateLayout& l, const std::vector<uint32_t>& lengths, bool undirected = false) {
  std::vector<std::vector<Word>> facts;
  Word base = kF;
  for (uint32_t n : lengths) {
    for (uint32_t i = 0; i < n; ++i) {
      facts.push_back({kQ, base + i, base + (i + 1) % n});
      if (undirected) facts.push_back({kQ, base + (i + 1) % n, base + i});
    }
    base += n;
  }
  return make(l, facts);
}

struct Timed {
  CanonicalForm form;
  double seconds;
};
Timed timed(Canonicalizer& c, const GlobalState& s) {
  const auto t0 = std::chrono::steady_clock::now();
  Timed r{canon(c, s), 0};
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// Canonicalizes s and a few random renamings of it: same bytes, each a
// renaming of its input, each under a second. Returns s's form.
CanonicalForm check_symmetric(const char* name, const StateLayout& l, const GlobalState& s) {
  Rng rng(std::hash<std::string>{}(name));
  Canonicalizer c(l);
  const Timed base = timed(c, s);
  expect_renaming_of(s, l, base.form);
  double worst = base.seconds;
  for (int r = 0; r < 3; ++r) {
    const GlobalState t = rename(s, l, random_renaming(rng, s, l, 1u << 16));
    const Timed other = timed(c, t);
    EXPECT_EQ(other.form.bytes, base.form.bytes) << name;
    expect_renaming_of(t, l, other.form);
    worst = std::max(worst, other.seconds);
  }
  EXPECT_LT(worst, 1.0) << name;
  const CanonicalStats& st = c.stats();
  std::printf("  %-28s worst %8.3f ms  (refined %llu, individualized %llu, nauty %llu)\n", name, worst * 1e3,
              static_cast<unsigned long long>(st.refined), static_cast<unsigned long long>(st.individualized),
              static_cast<unsigned long long>(st.nauty));
  return base.form;
}

TEST(CanonicalSymmetric, InterchangeableSingletons) {
  const StateLayout l = sym_layout();
  for (uint32_t n : {20u, 40u}) {
    std::vector<std::vector<Word>> facts;
    for (uint32_t i = 0; i < n; ++i) facts.push_back({kP, kF + i});
    const std::string name = "p(c) x" + std::to_string(n);
    const CanonicalForm f = check_symmetric(name.c_str(), l, make(l, facts));
    EXPECT_EQ(f.state, make(l, facts));  // already canonical: any order is the same set
  }
}

TEST(CanonicalSymmetric, SingletonsSpreadOverDbAndChannel) {
  const StateLayout l = sym_layout();
  GlobalState s{{{}}, {{}}};
  for (Word i = 0; i < 30; ++i) {
    s.dbs[0].insert(s.dbs[0].end(), {kP, kF + i});
    if (i % 2) s.channels[0].insert(s.channels[0].end(), {kP, kF + i, 1 + i % 3});
  }
  normalize_db(s.dbs[0], l);
  normalize_channel(s.channels[0], l);
  check_symmetric("p(c) x30 + channel", l, s);
}

TEST(CanonicalSymmetric, Rings) {
  const StateLayout l = sym_layout();
  check_symmetric("directed ring 40", l, cycles(l, {40}));
  check_symmetric("directed ring 100", l, cycles(l, {100}));
  check_symmetric("undirected ring 40", l, cycles(l, {40}, true));
}

// Refinement cannot tell these apart (every vertex looks alike), the
// canonical form must.
TEST(CanonicalSymmetric, DisjointCyclesAreNotOneCycle) {
  const StateLayout l = sym_layout();
  for (bool undirected : {false, true}) {
    const std::string d = undirected ? "undirected " : "directed ";
    const auto one20 = check_symmetric((d + "C20").c_str(), l, cycles(l, {20}, undirected));
    const auto two10 = check_symmetric((d + "2xC10").c_str(), l, cycles(l, {10, 10}, undirected));
    const auto c5c15 = check_symmetric((d + "C5+C15").c_str(), l, cycles(l, {5, 15}, undirected));
    const auto four5 = check_symmetric((d + "4xC5").c_str(), l, cycles(l, {5, 5, 5, 5}, undirected));
    const auto one40 = check_symmetric((d + "C40").c_str(), l, cycles(l, {40}, undirected));
    const auto two20 = check_symmetric((d + "2xC20").c_str(), l, cycles(l, {20, 20}, undirected));
    const std::set<std::string> distinct{one20.bytes, two10.bytes, c5c15.bytes, four5.bytes};
    EXPECT_EQ(distinct.size(), 4u);
    EXPECT_NE(one40.bytes, two20.bytes);
  }
}

// Two 3-regular graphs on 6 vertices: K3,3 and the prism. Refinement sees
// nothing, the brute force and the canonical form see the difference.
TEST(CanonicalSymmetric, RegularGraphsOnSixVertices) {
  const StateLayout l = sym_layout();
  auto graph = [&](const std::vector<std::pair<Word, Word>>& edges) {
    std::vector<std::vector<Word>> facts;
    for (auto [a, b] : edges) {
      facts.push_back({kQ, kF + a, kF + b});
      facts.push_back({kQ, kF + b, kF + a});
    }
    return make(l, facts);
  };
  const GlobalState k33 = graph({{0, 3}, {0, 4}, {0, 5}, {1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}, {2, 5}});
  const GlobalState prism = graph({{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {0, 3}, {1, 4}, {2, 5}});
  const auto a = check_symmetric("K3,3", l, k33), b = check_symmetric("prism", l, prism);
  EXPECT_NE(a.bytes, b.bytes);
  EXPECT_NE(canonicalize_brute_force(k33, l).bytes, canonicalize_brute_force(prism, l).bytes);
}

TEST(CanonicalSymmetric, CompleteBipartite) {
  const StateLayout l = sym_layout();
  auto bipartite = [&](uint32_t m, uint32_t n, bool undirected) {
    std::vector<std::vector<Word>> facts;
    for (Word a = 0; a < m; ++a)
      for (Word b = 0; b < n; ++b) {
        facts.push_back({kQ, kF + a, kF + m + b});
        if (undirected) facts.push_back({kQ, kF + m + b, kF + a});
      }
    return make(l, facts);
  };
  check_symmetric("K6,6 directed", l, bipartite(6, 6, false));
  check_symmetric("K8,8 undirected", l, bipartite(8, 8, true));
  const auto k5x7 = check_symmetric("K5,7 directed", l, bipartite(5, 7, false));
  const auto k7x5 = check_symmetric("K7,5 directed", l, bipartite(7, 5, false));
  EXPECT_NE(k5x7.bytes, k7x5.bytes);
  // K4,4 plus a fixed mark on one side vs on the other: not isomorphic.
  GlobalState left = bipartite(4, 4, false), right = left;
  left.dbs[0].insert(left.dbs[0].end(), {kP, kF + 0});
  right.dbs[0].insert(right.dbs[0].end(), {kP, kF + 4});
  normalize_db(left.dbs[0], l);
  normalize_db(right.dbs[0], l);
  EXPECT_NE(check_symmetric("K4,4 mark left", l, left).bytes, check_symmetric("K4,4 mark right", l, right).bytes);
}

// Twin classes: data items with the same facts, individualised a class at a
// time. Several classes in one cell, and twins that do share facts (a
// clique), which the twin rule leaves to the search or nauty.
TEST(CanonicalSymmetric, TwinClasses) {
  const StateLayout l = sym_layout();
  // Hubs h0, h1 each with 6 private leaves: q(h, leaf). Leaves of one hub
  // are twins; the two hubs' leaf classes share a cell.
  std::vector<std::vector<Word>> facts;
  for (Word h = 0; h < 2; ++h)
    for (Word i = 0; i < 6; ++i) facts.push_back({kQ, kF + h, kF + 2 + 6 * h + i});
  const GlobalState hubs = make(l, facts);
  check_symmetric("2 hubs x 6 leaves", l, hubs);
  // Unbalanced: 5 and 7 leaves must differ from 6 and 6.
  facts.pop_back();
  facts.push_back({kQ, kF + 0, kF + 20});
  EXPECT_NE(check_symmetric("hubs 7+5", l, make(l, facts)).bytes, check_symmetric("hubs 6+6", l, hubs).bytes);
  // Cliques K8 (both directions) vs K8 minus one edge pair.
  auto clique = [&](uint32_t n, bool drop_one) {
    std::vector<std::vector<Word>> f;
    for (Word a = 0; a < n; ++a)
      for (Word b = 0; b < n; ++b)
        if (a != b && !(drop_one && a + b == 1)) f.push_back({kQ, kF + a, kF + b});
    return make(l, f);
  };
  EXPECT_NE(check_symmetric("K8", l, clique(8, false)).bytes, check_symmetric("K8 - edge", l, clique(8, true)).bytes);
  check_symmetric("K12", l, clique(12, false));
}

// Which path each kind of state takes, by the stats counters.
TEST(Canonical, EveryPathIsExercised) {
  const StateLayout l = sym_layout();
  Canonicalizer c(l);
  CanonicalForm out;
  c.canonicalize(make(l, {{kP, 0}, {kQ, 0, 1}}), out);  // no fresh constant
  EXPECT_EQ(c.stats().fast_path, 1u);
  c.canonicalize(make(l, {{kP, kF}, {kQ, kF, kF + 1}}), out);  // refinement tells them apart
  EXPECT_EQ(c.stats().refined, 1u);
  c.canonicalize(cycles(l, {6}), out);  // one individualisation settles a ring
  EXPECT_EQ(c.stats().individualized, 1u);
  c.canonicalize(cycles(l, {7, 7, 7}), out);  // 21 x 14 x 7 leaves: too many
  EXPECT_EQ(c.stats().nauty, 1u);
  EXPECT_EQ(c.stats().calls, 4u);
}

// nauty keeps its work areas thread-local: canonicalizers on two threads.
TEST(Canonical, ConcurrentCanonicalizers) {
  const StateLayout l = sym_layout();
  const std::vector<GlobalState> states{cycles(l, {7, 7, 7}), cycles(l, {21}), cycles(l, {9, 12}, true)};
  std::vector<std::string> expected;
  {
    Canonicalizer c(l);
    for (const auto& s : states) expected.push_back(canon(c, s).bytes);
  }
  auto work = [&](int seed, bool* ok) {
    Canonicalizer c(l);
    Rng rng(seed);
    *ok = true;
    for (int i = 0; i < 60; ++i) {
      const size_t k = i % states.size();
      const GlobalState t = rename(states[k], l, random_renaming(rng, states[k], l, 100));
      *ok = *ok && canon(c, t).bytes == expected[k];
    }
  };
  bool ok1 = false, ok2 = false;
  std::thread t1(work, 1, &ok1), t2(work, 2, &ok2);
  t1.join();
  t2.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

}  // namespace
}  // namespace ddsmc::hashing
