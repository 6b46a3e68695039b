// The explored state space as the analysis sees it: states by dense id (in
// discovery order, 0 is the initial state), their labelled edges, and per
// state the two facts the convergence analysis needs — which nodes are
// faulty and which channels are empty. Every back-end produces one.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/chunked.hpp"
#include "engine/edge_store.hpp"
#include "engine/system.hpp"
#include "hashing/state.hpp"

namespace ddsmc::engine {

class StateGraph {
 public:
  explicit StateGraph(const hashing::StateLayout& layout);

  // Adds a state; returns its id. `bytes` is its canonical encoding; the
  // system gives its fault labels.
  StateId add_state(std::string_view bytes, const hashing::GlobalState& s, StateId parent, const System& system);
  // Sets the edges of the most recently expanded state; states are expanded
  // in id order, each exactly once (edges of unexpanded states are empty).
  // They are stored sorted by (target, label) and without duplicates.
  void set_edges(StateId s, std::span<const Edge> edges);

  // Bulk additions for the parallel back-ends, each all or nothing. Adds
  // sizes.size() states whose canonical encodings have those sizes (ids
  // num_states() onwards, returned first); then fill_state() writes each,
  // from any thread (distinct ids).
  StateId add_states(std::span<const uint32_t> sizes);
  void fill_state(StateId id, std::string_view bytes, StateId parent, const uint64_t* labels);
  // A state's labels as fill_state() takes them: label_words() words, the
  // faulty-node bits, then the empty-channel bits.
  uint32_t label_words() const { return fault_words_ + empty_words_; }
  void labels_of(const hashing::GlobalState& s, const System& system, uint64_t* out) const;
  // Gives the states first, first + 1, ... (in id order after every state
  // with edges so far; states skipped get none) counts[i] edges each, in
  // sizes[i] = edge_bytes(their edges) bytes; then write_edges() writes
  // each one's edges, sorted by (target, label) and distinct, from any
  // thread (distinct states).
  uint32_t edge_bytes(StateId s, std::span<const Edge> edges) const { return edges_.encoded_size(s, edges); }
  void add_edges(StateId first, std::span<const uint32_t> counts, std::span<const uint32_t> sizes);
  void write_edges(StateId s, std::span<const Edge> edges) { edges_.encode(s, edges); }

  uint32_t num_states() const { return num_states_; }
  uint32_t num_nodes() const { return num_nodes_; }
  uint32_t num_arcs() const { return num_arcs_; }
  uint64_t num_edges() const { return num_edges_; }
  // `for (const Edge& e : g.edges(s))`, decoded on the fly; or a cursor
  // (next_edge() gives the edge at c and advances it) where a walk must
  // stop and resume, as a depth-first search does.
  EdgeStore::Row edges(StateId s) const { return edges_.row(s); }
  bool next_edge(StateId s, EdgeCursor& c, Edge& e) const { return edges_.next(s, c, e); }
  bool expanded(StateId s) const { return s < edges_.rows(); }
  std::string_view bytes(StateId s) const;
  StateId parent(StateId s) const { return parent_[s]; }
  bool faulty(StateId s, uint32_t node) const { return bit(faulty_, fault_words_, s, node); }
  bool any_faulty(StateId s) const;
  bool all_faulty(StateId s) const;
  bool channel_empty(StateId s, uint32_t arc) const { return bit(empty_, empty_words_, s, arc); }
  uint64_t memory_bytes() const;

 private:
  static bool bit(const ChunkedVector<uint64_t>& v, uint32_t words, StateId s, uint32_t i) {
    return (v[size_t(s) * words + i / 64] >> (i % 64)) & 1u;
  }
  uint32_t num_nodes_, num_arcs_, fault_words_, empty_words_;
  uint32_t num_states_ = 0;
  ChunkedArena<char> arena_;             // canonical bytes of every state
  ChunkedVector<uint64_t> byte_begin_;   // per state: its bytes' offset in arena_
  ChunkedVector<uint32_t> byte_size_;    // per state: their length
  ChunkedVector<StateId> parent_;
  ChunkedVector<uint64_t> faulty_, empty_;  // fault_words_ / empty_words_ per state
  EdgeStore edges_;                      // per expanded state, its edges
  uint64_t num_edges_ = 0;
};

}  // namespace ddsmc::engine
