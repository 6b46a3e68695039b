// Networks and node permutations for the symmetry tests: a NetworkShape
// from undirected edges, rings, their rotation and reflection.
#pragma once

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "hashing/symmetry.hpp"

namespace ddsmc::hashing::test {

// Arcs in (from, to) order, self-loops included; node n is named by fixed
// constant n, and `extra` more fixed constants follow.
inline NetworkShape shape(uint32_t nodes, const std::vector<std::pair<uint32_t, uint32_t>>& edges,
                          uint32_t extra = 1) {
  NetworkShape s;
  s.num_nodes = nodes;
  std::set<std::pair<uint32_t, uint32_t>> arcs;
  for (uint32_t n = 0; n < nodes; ++n) arcs.insert({n, n});
  for (auto [a, b] : edges) arcs.insert({a, b}), arcs.insert({b, a});
  s.arcs.assign(arcs.begin(), arcs.end());
  for (uint32_t n = 0; n < nodes; ++n) s.node_const.push_back(n);
  s.num_fixed = nodes + extra;
  return s;
}

inline std::vector<std::pair<uint32_t, uint32_t>> ring_edges(uint32_t n) {
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t i = 0; i < n; ++i) e.push_back({i, (i + 1) % n});
  return e;
}

inline NetworkShape ring(uint32_t n, uint32_t extra = 1) { return shape(n, ring_edges(n), extra); }

inline std::vector<uint32_t> rotation(uint32_t n) {
  std::vector<uint32_t> p(n);
  for (uint32_t i = 0; i < n; ++i) p[i] = (i + 1) % n;
  return p;
}

inline std::vector<uint32_t> reflection(uint32_t n) {
  std::vector<uint32_t> p(n);
  for (uint32_t i = 0; i < n; ++i) p[i] = (n - i) % n;
  return p;
}

}  // namespace ddsmc::hashing::test
