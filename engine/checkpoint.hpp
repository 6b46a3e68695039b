// Checkpoints of an exploration (docs/engine.md §14): the explored graph
// (the state store's tree as it is, every state's root and labels, and the
// edges of the states expanded so far) and the exploration's figures. The
// BFS queue is implicit: the states not expanded yet, [next, states), so
// resuming continues at `next` with the sequential numbering (docs/engine.md
// §9) and gives exactly the states, transitions and verdicts of an
// uninterrupted run.
//
// A checkpoint in DIR is a generation: one part per rank (one process: one
// part), DIR/rank-K.GENERATION.ddsmc, each holding that rank's states
// (their global ids, its store, their roots, labels and rows), then the
// manifest DIR/checkpoint.ddsmc naming the generation, written last. Every
// file is written under a temporary name and renamed, and the manifest only
// once every part is whole, so the manifest always names a whole checkpoint
// (the previous one until the new one is complete); older generations'
// parts are removed after that (ddsmc's own files only: the user's files
// in DIR are never touched). A part is read back by the rank that wrote it
// (the same rank count: another one is refused, app/checkpointing).
//
// File format (version kCheckpointFormat): "DDSMC-CK", a 32-bit format
// version, the metadata (Boost.Serialization, binary archive: same ddsmc
// build and architecture), the body, an XXH3-64 checksum of all that. A
// part's body (engine/checkpoint_body.hpp): the global ids, the store's
// tree in bulk, per state its root and labels, per expanded state its
// edges; resuming loads the tree and rebuilds its index and the visited
// set from the ids, re-interning nothing. Reading checks the whole file
// against its checksum before it believes anything in it, then the magic,
// the version, every length and id, and every root's tree, and throws
// CheckpointError (a sentence for the user) on any mismatch.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/analysis.hpp"
#include "engine/explore.hpp"
#include "engine/system.hpp"

namespace ddsmc::engine {

// 3: the check's identity is made of what was loaded (issue 20); a format-2
// checkpoint is refused for its format, not as "another check".
// 4: a part holds the store's tree in bulk instead of every state's
// encoding (issue 21); a format-3 checkpoint is refused for its format.
inline constexpr uint32_t kCheckpointFormat = 5;

struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The manifest: what the checkpoint is of, and the figures over every rank.
struct CheckpointMeta {
  std::string identity;  // what must be the same to resume (the app's check identity, hashed)
  uint32_t ranks = 1;
  uint64_t generation = 0;
  uint64_t states = 0, next = 0, transitions = 0, pruned_states = 0;
  std::array<uint64_t, 5> canonical{};  // hashing::CanonicalStats
  std::array<uint32_t, 3> sizes{};      // hashing::StateSizes (format 5 on)
  double seconds = 0;                   // exploration time so far
  // A checkpoint of a whole graph whose analysis was stopped: the verdicts
  // decided before the stop, lassos included (global state ids), which a
  // resume takes instead of analysing those properties again.
  std::vector<Verdict> verdicts;
};

// The manifest's figures for an exploration point.
CheckpointMeta checkpoint_meta(const ExplorePoint& p);

// The manifest's path in a checkpoint directory, and a part's.
std::string checkpoint_file(const std::string& dir);
std::string checkpoint_part_file(const std::string& dir, uint32_t rank, uint64_t generation);

// Writes this rank's part of checkpoint `meta` (dir created if missing):
// the states of p.graph (global ids p.gids, or the same as local ones),
// the edges of [0, p.graph.num_expanded()). Throws CheckpointError.
void write_checkpoint_part(const std::string& dir, uint32_t rank, const ExplorePoint& p, const CheckpointMeta& meta);
// Writes the manifest, which makes the generation the checkpoint.
void write_checkpoint_manifest(const std::string& dir, const CheckpointMeta& meta);
// Removes ddsmc's own files of this rank that the checkpoint of generation
// `keep` does not use, and nothing else in dir: its parts of other
// generations and the temporary files a stopped writer left (rank 0: the
// manifest's too). A file is ddsmc's when its name is exactly a part's
// (rank-K.<16 hex digits>.ddsmc, or .ddsmc.tmp; checkpoint.ddsmc.tmp) and
// it begins with the checkpoint magic (a temporary file may be empty).
void remove_other_checkpoint_parts(const std::string& dir, uint32_t rank, uint64_t keep);

// Reads the manifest (checked whole first).
CheckpointMeta read_checkpoint_manifest(const std::string& dir);
// Reads this rank's part of that checkpoint into `graph` (fresh, for the
// system's layout): its store's tree loaded as it was (every root keeps its
// id), the states' roots and labels in local id order, the visited set
// bound, the rows of its expanded states; `gids` gets their global ids (for
// one rank they must be 0, 1, ...). No state is decoded or interned.
void read_checkpoint_part(const std::string& dir, uint32_t rank, const CheckpointMeta& meta, const System& system,
                          StateGraph& graph, std::vector<StateId>& gids);

}  // namespace ddsmc::engine
