// The Ref* explorers identify states with hashing::canonicalize_brute_force.
// Check that tool itself against docs/reference.md §3.7 written out naively: two
// states are isomorphic iff a bijection of their fresh constants (identity
// on the fixed ones) maps one onto the other, compared as sets of facts per
// node and multisets of payloads per arc.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "hashing/canonical.hpp"
#include "tests/engine/reference_explore_impl.hpp"
#include "tests/hashing/random_states.hpp"

using namespace ddsmc;
using namespace ddsmc::reftest;

namespace {

// A state as plain sets: per node a set of facts, per arc a multiset.
struct Plain {
  std::vector<std::set<Fact>> dbs;
  std::vector<Multiset> channels;
  friend bool operator==(const Plain&, const Plain&) = default;
};

Plain plain(const GlobalState& s, const StateLayout& layout) {
  Plain p;
  for (const auto& db : s.dbs) p.dbs.push_back(to_facts(db, layout));
  for (const auto& ch : s.channels) p.channels.push_back(channel_multiset(ch, layout));
  return p;
}

Plain rename_plain(const Plain& p, const std::map<ConstId, ConstId>& f) {
  auto map_fact = [&](Fact x) {
    for (ConstId& a : x.args)
      if (auto it = f.find(a); it != f.end()) a = it->second;
    return x;
  };
  Plain out;
  for (const auto& db : p.dbs) {
    std::set<Fact> d;
    for (const Fact& x : db) d.insert(map_fact(x));
    out.dbs.push_back(d);
  }
  for (const auto& ch : p.channels) {
    Multiset m;
    for (const auto& [x, n] : ch) m[map_fact(x)] += n;
    out.channels.push_back(m);
  }
  return out;
}

std::vector<ConstId> fresh_of(const Plain& p, uint32_t num_fixed) {
  std::set<ConstId> out;
  for (const auto& db : p.dbs)
    for (const Fact& x : db)
      for (ConstId a : x.args)
        if (a >= num_fixed) out.insert(a);
  for (const auto& ch : p.channels)
    for (const auto& [x, n] : ch)
      for (ConstId a : x.args)
        if (a >= num_fixed) out.insert(a);
  return {out.begin(), out.end()};
}

// docs/reference.md §3.7, literally: is there a bijection of the fresh constants of a
// onto those of b that maps a onto b?
bool naive_isomorphic(const Plain& a, const Plain& b, uint32_t num_fixed) {
  std::vector<ConstId> fa = fresh_of(a, num_fixed), fb = fresh_of(b, num_fixed);
  if (fa.size() != fb.size()) return false;
  std::vector<size_t> perm(fb.size());
  std::iota(perm.begin(), perm.end(), size_t{0});
  do {
    std::map<ConstId, ConstId> f;
    for (size_t i = 0; i < fa.size(); ++i) f[fa[i]] = fb[perm[i]];
    if (rename_plain(a, f) == b) return true;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return false;
}

TEST(RefBruteForce, CanonicalFormIsARenamingAndSeparatesLikeSpec) {
  hashing::test::Rng rng(2718);
  int pairs = 0, iso = 0;
  for (int round = 0; round < 300; ++round) {
    hashing::test::LayoutLimits lim;
    lim.max_nodes = 2;
    lim.max_arcs = 3;
    lim.max_preds = 3;
    lim.max_arity = 2;
    StateLayout layout = hashing::test::random_layout(rng, lim);
    hashing::test::StateLimits sl;
    sl.max_fresh = 4;
    sl.max_db = 3;
    sl.max_channel = 2;
    GlobalState s = hashing::test::random_state(rng, layout, sl);
    // t: either a random renaming of s (isomorphic) or another random state.
    GlobalState t;
    if (hashing::test::uniform(rng, 0, 1)) {
      std::vector<Word> fresh = hashing::fresh_constants(s, layout);
      std::vector<Word> targets(12);
      std::iota(targets.begin(), targets.end(), layout.num_fixed);
      std::shuffle(targets.begin(), targets.end(), rng);
      std::vector<Word> map(fresh.empty() ? 0 : fresh.back() - layout.num_fixed + 1, hashing::kUnmapped);
      for (size_t i = 0; i < fresh.size(); ++i) map[fresh[i] - layout.num_fixed] = targets[i];
      t = hashing::rename(s, layout, map);
    } else {
      t = hashing::test::random_state(rng, layout, sl);
    }
    hashing::CanonicalForm cs = hashing::canonicalize_brute_force(s, layout);
    hashing::CanonicalForm ct = hashing::canonicalize_brute_force(t, layout);
    // The form is s renamed by a bijection onto num_fixed, num_fixed+1, ...
    Plain ps = plain(s, layout), pcs = plain(cs.state, layout);
    EXPECT_TRUE(naive_isomorphic(ps, pcs, layout.num_fixed));
    std::vector<ConstId> f = fresh_of(pcs, layout.num_fixed);
    for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(f[i], layout.num_fixed + i);
    EXPECT_EQ(cs.bytes, hashing::encode(cs.state, layout));
    // Same bytes iff isomorphic.
    bool same = naive_isomorphic(ps, plain(t, layout), layout.num_fixed);
    EXPECT_EQ(cs.bytes == ct.bytes, same);
    ++pairs;
    iso += same;
  }
  EXPECT_GT(iso, 100);
  EXPECT_LT(iso, pairs);
}

}  // namespace
