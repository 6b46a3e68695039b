// The explored state space as the analysis sees it: states by dense id (in
// discovery order, 0 is the initial state), their labelled edges, and per
// state the two facts the convergence analysis needs — which nodes are
// faulty and which channels are empty. Every back-end produces one.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "hashing/state.hpp"

namespace ddsmc::engine {

using StateId = uint32_t;
inline constexpr StateId kNoState = 0xffffffffu;

// 8 bytes: the target and the label (arc served, stable) packed in one word.
struct Edge {
  StateId target = 0;
  uint32_t label = 1;  // arc << 1 | stable; the idle self-loop stores arc 0x7fffffff
  Edge() = default;
  Edge(StateId t, uint32_t arc, bool stable) : target(t), label((arc == kIdleArcLabel ? 0x7fffffffu : arc) << 1 | stable) {}
  uint32_t arc() const { return (label >> 1) == 0x7fffffffu ? kIdleArcLabel : label >> 1; }
  bool stable() const { return label & 1u; }
  friend bool operator==(const Edge&, const Edge&) = default;
  static constexpr uint32_t kIdleArcLabel = 0xffffffffu;  // == engine::kIdleArc
};

class StateGraph {
 public:
  explicit StateGraph(const hashing::StateLayout& layout);

  // Adds a state; returns its id. `bytes` is its canonical encoding.
  StateId add_state(std::string_view bytes, const hashing::GlobalState& s, StateId parent);
  // Sets the edges of the most recently expanded state; states are expanded
  // in id order, each exactly once (edges of unexpanded states are empty).
  void set_edges(StateId s, std::span<const Edge> edges);

  uint32_t num_states() const { return static_cast<uint32_t>(offsets_.size()); }
  uint32_t num_nodes() const { return num_nodes_; }
  uint32_t num_arcs() const { return num_arcs_; }
  uint64_t num_edges() const { return edges_.size(); }
  std::span<const Edge> edges(StateId s) const;
  bool expanded(StateId s) const { return s + 1 < edge_begin_.size(); }
  std::string_view bytes(StateId s) const;
  StateId parent(StateId s) const { return parent_[s]; }
  bool faulty(StateId s, uint32_t node) const { return bit(faulty_, fault_words_, s, node); }
  bool any_faulty(StateId s) const;
  bool all_faulty(StateId s) const;
  bool channel_empty(StateId s, uint32_t arc) const { return bit(empty_, empty_words_, s, arc); }
  uint64_t memory_bytes() const;

 private:
  static bool bit(const std::vector<uint64_t>& v, uint32_t words, StateId s, uint32_t i) {
    return (v[size_t(s) * words + i / 64] >> (i % 64)) & 1u;
  }
  const hashing::StateLayout* layout_;
  uint32_t num_nodes_, num_arcs_, fault_words_, empty_words_;
  std::vector<char> arena_;
  std::vector<uint64_t> offsets_;  // start of each state's bytes in arena_
  std::vector<StateId> parent_;
  std::vector<uint64_t> faulty_, empty_;
  std::vector<uint64_t> edge_begin_{0};  // CSR over edges_
  std::vector<Edge> edges_;
};

}  // namespace ddsmc::engine
