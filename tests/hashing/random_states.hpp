// Random layouts, states and renamings for the hashing tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "hashing/state.hpp"

namespace ddsmc::hashing::test {

using Rng = std::mt19937_64;

inline uint32_t uniform(Rng& rng, uint32_t lo, uint32_t hi) {  // inclusive
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

struct LayoutLimits {
  uint32_t max_nodes = 4, max_arcs = 8, max_preds = 5, max_arity = 3, max_fixed = 5;
};

inline StateLayout random_layout(Rng& rng, const LayoutLimits& lim = {}) {
  StateLayout layout;
  layout.num_nodes = uniform(rng, 1, lim.max_nodes);
  layout.num_arcs = uniform(rng, 1, lim.max_arcs);
  layout.num_fixed = uniform(rng, 0, lim.max_fixed);
  layout.arity.resize(uniform(rng, 1, lim.max_preds));
  for (auto& a : layout.arity) a = uniform(rng, 0, lim.max_arity);
  return layout;
}

struct StateLimits {
  uint32_t max_fresh = 8;     // a state uses up to this many fresh ids
  uint32_t max_db = 4;        // facts per DB before dedup
  uint32_t max_channel = 3;   // entries per channel before merging
  uint32_t max_count = 3;
  uint32_t fresh_stride = 1;  // > 1: sparse fresh ids
  double fresh_bias = 0.7;    // chance an argument is fresh (when fixed exist)
};

// A fact whose fresh arguments are among the first `fresh` fresh ids.
inline void random_fact(Rng& rng, const StateLayout& layout, const StateLimits& lim, uint32_t fresh,
                        std::vector<Word>& out) {
  const Word pred = uniform(rng, 0, static_cast<uint32_t>(layout.arity.size()) - 1);
  out.push_back(pred);
  for (uint32_t i = 0; i < layout.arity[pred]; ++i) {
    const bool want_fresh = layout.num_fixed == 0 || std::bernoulli_distribution(lim.fresh_bias)(rng);
    if (want_fresh && fresh > 0)
      out.push_back(layout.num_fixed + uniform(rng, 0, fresh - 1) * lim.fresh_stride);
    else  // a fixed constant; with none, a fresh one after all
      out.push_back(layout.num_fixed ? uniform(rng, 0, layout.num_fixed - 1) : layout.num_fixed);
  }
}

inline GlobalState random_state(Rng& rng, const StateLayout& layout, const StateLimits& lim = {}) {
  GlobalState s;
  s.dbs.resize(layout.num_nodes);
  s.channels.resize(layout.num_arcs);
  const uint32_t fresh = uniform(rng, 0, lim.max_fresh);
  for (auto& db : s.dbs) {
    for (uint32_t n = uniform(rng, 0, lim.max_db); n > 0; --n) random_fact(rng, layout, lim, fresh, db);
    normalize_db(db, layout);
  }
  for (auto& ch : s.channels) {
    for (uint32_t n = uniform(rng, 0, lim.max_channel); n > 0; --n) {
      random_fact(rng, layout, lim, fresh, ch);
      ch.push_back(uniform(rng, 1, lim.max_count));
    }
    normalize_channel(ch, layout);
  }
  return s;
}

// A random bijection of s's fresh constants onto distinct fresh ids below
// num_fixed + range (widened to twice their number if smaller).
inline std::vector<Word> random_renaming(Rng& rng, const GlobalState& s, const StateLayout& layout, uint32_t range) {
  const std::vector<Word> fresh = fresh_constants(s, layout);
  range = std::max(range, 2 * static_cast<uint32_t>(fresh.size()));
  std::vector<Word> map;
  if (fresh.empty()) return map;
  map.assign(fresh.back() - layout.num_fixed + 1, 0xffffffffu);
  std::vector<Word> targets;
  while (targets.size() < fresh.size()) {
    const Word t = layout.num_fixed + uniform(rng, 0, range - 1);
    if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
  }
  for (size_t i = 0; i < fresh.size(); ++i) map[fresh[i] - layout.num_fixed] = targets[i];
  return map;
}

inline size_t fact_count(const GlobalState& s, const StateLayout& layout) {
  size_t n = 0;
  for (const auto& db : s.dbs)
    for (size_t i = 0; i < db.size(); i += layout.fact_words(db[i])) ++n;
  for (const auto& ch : s.channels)
    for (size_t i = 0; i < ch.size(); i += layout.fact_words(ch[i]) + 1) ++n;
  return n;
}

}  // namespace ddsmc::hashing::test
