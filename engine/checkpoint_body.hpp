// A checkpoint part's body (engine/checkpoint.hpp, docs/engine.md §14,
// format 4): the rank's states as the StateGraph holds them, written in
// bulk and read back without canonicalising, encoding, decoding or
// interning any state. In order:
//   - the global ids: per state the delta from the previous one (varints;
//     ascending, the first from 0);
//   - the store: the tree's part count, then the tree as TreeStore::save
//     writes it (leaves and nodes in id order, so every root keeps its id);
//   - per state its root (varint) and its labels (faulty nodes, empty
//     channels: the graph's label bits, (nodes + arcs + 7) / 8 bytes,
//     little end first); writing them costs less than recomputing them,
//     which would decode every state;
//   - per expanded state its row: the edge count, then per edge the
//     target's delta from the previous one (rows are sorted) and the label.
// Reading loads the tree (its index rebuilt from the ids), checks with
// TreeStore::check_trees that every root's tree reaches only nodes and
// leaves the store holds, at the right positions, and that every leaf
// decodes as its part; binds each root to its state in the visited set
// (two states with one root are refused); then the rows. Every count, id
// and length is checked; any mismatch throws CheckpointError (a sentence
// for the user) and leaves `graph` to be discarded.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/checkpoint.hpp"
#include "engine/checkpoint_io.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::engine::checkpoint_body {

// What the part's header says its body holds, and the manifest's bounds.
struct Counts {
  uint64_t states = 0, expanded = 0, transitions = 0;  // this part's
  uint64_t all_states = 0;                             // every part's (global ids below it)
  bool identity_ids = false;                           // one part: global ids are 0, 1, ...
  uint64_t ranks = 1;  // rows name targets by handle (dist/handles.hpp): below all_states × ranks
};

// Writes the body of the part of `g` (global ids `gids`, or the local ids).
void write(checkpoint_io::HashedOut& out, const StateGraph& g, const std::vector<StateId>* gids);

// Reads a body into `g` (fresh: no state yet, for the system's layout);
// `gids` gets the global ids.
void read(checkpoint_io::CheckedIn& in, const Counts& counts, const System& system, StateGraph& g,
          std::vector<StateId>& gids);

}  // namespace ddsmc::engine::checkpoint_body
