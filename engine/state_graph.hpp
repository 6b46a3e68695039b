// The explored state space as the analysis sees it: states by dense id (in
// discovery order, 0 is the initial state), their labelled edges, and per
// state the two facts the convergence analysis needs — which nodes are
// faulty and which channels are empty. Every back-end produces one. A
// state's encoding is kept once, tree-compressed, in the StateStore, which
// is also the visited set; the graph keeps its 4-byte root.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/chunked.hpp"
#include "engine/edge_store.hpp"
#include "engine/state_store.hpp"
#include "engine/system.hpp"
#include "hashing/state.hpp"

namespace ddsmc::engine {

// A state's index in one process's graph where 4 bytes per state matter
// (the analysis's per-state arrays): below kMaxLocalStates, so 32 bits
// hold it and kNoLocal.
using LocalIndex = uint32_t;
inline constexpr LocalIndex kNoLocal = 0xffffffffu;

class StateGraph {
 public:
  // `initial_store`: the store's initial room, in nodes and leaves.
  // `edge_arcs`: the range of the edges' arc fields, when it is not the
  // layout's arcs (0): under network symmetry an arc field also carries a
  // group element (engine/system.hpp, quotient_arc).
  explicit StateGraph(const hashing::StateLayout& layout, size_t initial_store = size_t{1} << 12,
                      uint32_t edge_arcs = 0);

  // The states' encodings and the visited set (root id -> state id).
  StateStore& store() { return *store_; }
  // From now on the per-state arrays (roots, labels) and the edges (rows
  // and index, engine/edge_store.hpp) go to `file` as they are committed,
  // 4 MiB at a time (engine/spill_file.hpp): their memory becomes disk.
  // A failure to write stops that, not the graph: spill_error() says why.
  void spill_to(std::shared_ptr<SpillFile> file);
  const std::string& spill_error() const { return error_.empty() ? edges_.spill_error() : error_; }
  // The exploration is over: the visited set goes (StateStore) and the
  // rest of the arrays goes to disk when they go there. No state or edge
  // can be added after it.
  void end_exploration();
  const StateStore& store() const { return *store_; }

  // Adds a state (sequential use: tests, replay); returns its id. `bytes`
  // is its canonical encoding (empty: encode(s)); the system gives its fault
  // labels. The visited set is left alone.
  StateId add_state(std::string_view bytes, const hashing::GlobalState& s, const System& system);
  // Sets the edges of the most recently expanded state; states are expanded
  // in id order, each exactly once (edges of unexpanded states are empty).
  // They are stored sorted by (target, label) and without duplicates.
  void set_edges(StateId s, std::span<const Edge> edges);

  // Bulk additions for the parallel back-ends, each all or nothing. Adds n
  // states (ids num_states() onwards, returned first); then fill_state()
  // writes each, from any thread (distinct ids): the root of its encoding
  // in store() and its labels. (No parent: the BFS tree is read back from
  // the edges, engine/bfs_tree.hpp.)
  StateId add_states(size_t n);
  void fill_state(StateId id, uint32_t root, const uint64_t* labels);
  // A state's labels as fill_state() takes them: label_words() words of
  // bits, the faulty nodes (bit n) then the empty channels (bit
  // num_nodes + a).
  uint32_t label_words() const { return label_words_; }
  void labels_of(const hashing::GlobalState& s, const System& system, uint64_t* out) const;
  // The labels of state s in that form.
  void labels(StateId s, uint64_t* out) const;
  // Gives the states first, first + 1, ... (in id order after every state
  // with edges so far; states skipped get none) counts[i] edges each, in
  // sizes[i] = edge_bytes(their edges) bytes; then write_edges() writes
  // each one's edges, sorted by (target, label) and distinct, from any
  // thread (distinct states).
  uint32_t edge_bytes(StateId s, std::span<const Edge> edges) const { return edges_.encoded_size(s, edges); }
  void add_edges(StateId first, std::span<const uint32_t> counts, std::span<const uint32_t> sizes);
  void write_edges(StateId s, std::span<const Edge> edges) { edges_.encode(s, edges); }

  StateId num_states() const { return num_states_; }
  uint32_t num_nodes() const { return num_nodes_; }
  uint32_t num_arcs() const { return num_arcs_; }
  // The range of the edges' arc fields: num_arcs(), or wider under network
  // symmetry (the constructor's edge_arcs).
  uint32_t edge_arcs() const { return edges_.arcs(); }
  uint64_t num_edges() const { return num_edges_; }
  // `for (const Edge& e : g.edges(s))`, decoded on the fly; or a cursor
  // (next_edge() gives the edge at c and advances it) where a walk must
  // stop and resume, as a depth-first search does.
  EdgeStore::Row edges(StateId s) const { return edges_.row(s); }
  bool next_edge(StateId s, EdgeCursor& c, Edge& e) const { return edges_.next(s, c, e); }
  bool expanded(StateId s) const { return s < edges_.rows(); }
  // The expanded states are [0, num_expanded()).
  StateId num_expanded() const { return static_cast<StateId>(edges_.rows()); }
  // A state's canonical encoding, read back from the store.
  std::string bytes(StateId s) const;
  uint32_t root(StateId s) const { return root_[s]; }
  bool faulty(StateId s, uint32_t node) const { return bit(s, node); }
  bool any_faulty(StateId s) const;
  bool all_faulty(StateId s) const;
  bool channel_empty(StateId s, uint32_t arc) const { return bit(s, num_nodes_ + arc); }
  // Where the graph's bytes are (every table and index; the JSON's
  // stats.memory): the store's tree (nodes, leaves), its visited set (root
  // id -> state), and per state its root, labels and edges (rows and their
  // index), each in memory; and `disk`, the parts on disk (spill_to), not
  // in total().
  struct Memory {
    uint64_t tree_nodes = 0, tree_leaves = 0, visited = 0, roots = 0, labels = 0, edge_rows = 0, edge_index = 0;
    uint64_t disk = 0;
    uint64_t total() const { return tree_nodes + tree_leaves + visited + roots + labels + edge_rows + edge_index; }
    Memory& operator+=(const Memory& o) {
      tree_nodes += o.tree_nodes, tree_leaves += o.tree_leaves, visited += o.visited, roots += o.roots;
      labels += o.labels, edge_rows += o.edge_rows, edge_index += o.edge_index, disk += o.disk;
      return *this;
    }
  };
  Memory memory() const;
  uint64_t memory_bytes() const { return memory().total(); }

 private:
  size_t words_for(size_t states) const { return (states * label_bits_ + 63) / 64; }
  bool bit(StateId s, uint32_t i) const {
    const uint64_t pos = uint64_t{s} * label_bits_ + i;
    return (labels_[pos >> 6] >> (pos & 63)) & 1u;
  }
  uint32_t num_nodes_, num_arcs_, label_words_;
  uint32_t label_bits_;  // nodes + arcs: each state's labels, packed end to end
  StateId num_states_ = 0;  // one process's: at most kMaxLocalStates (engine/state_store.hpp)
  std::unique_ptr<StateStore> store_;  // (a pointer: the graph moves, the store's atomics cannot)
  ChunkedVector<uint32_t> root_;     // per state: its root in store_
  ChunkedVector<uint64_t> labels_;   // label_bits_ per state, packed (a state's bits may span two words)
  EdgeStore edges_;                  // per expanded state, its edges
  uint64_t num_edges_ = 0;
  std::shared_ptr<SpillFile> spill_;
  std::string error_;                    // why roots or labels stopped going to disk
  ChunkSpiller roots_spilled_, labels_spilled_;
};

}  // namespace ddsmc::engine
