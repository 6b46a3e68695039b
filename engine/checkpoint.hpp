// A checkpoint of a one-process exploration (docs/engine.md §14): the
// explored graph (every state's canonical encoding, and the edges of the
// states expanded so far) and the exploration's figures, in one file
// written under a temporary name and renamed, so that a file with the
// final name is always whole. The BFS queue is implicit: the states not
// expanded yet, [next, states), so resuming continues at `next` with the
// single-process numbering (docs/engine.md §9) and gives exactly the
// states, transitions and verdicts of an uninterrupted run.
//
// Format (version kFormat): "DDSMC-CK", a 32-bit format version, the
// metadata (Boost.Serialization, binary archive: same ddsmc build and
// architecture), then per state its encoding, then per expanded state its
// edges (targets as deltas from the previous one, labels; varints), and an
// XXH3-64 checksum of all that. Reading checks the magic,
// the version, every length against the file and the checksum, and throws
// CheckpointError (with a sentence for the user) on any mismatch.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "engine/explore.hpp"
#include "engine/system.hpp"

namespace ddsmc::engine {

inline constexpr uint32_t kCheckpointFormat = 1;

struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a checkpoint records besides the graph.
struct CheckpointMeta {
  std::string identity;  // what must be the same to resume (the app's check identity, hashed)
  uint32_t ranks = 1;
  uint64_t states = 0, next = 0, transitions = 0, pruned_states = 0;
  std::array<uint64_t, 5> canonical{};  // hashing::CanonicalStats
  double seconds = 0;                   // exploration time so far
};

// The file's path in a checkpoint directory.
std::string checkpoint_file(const std::string& dir);

// Writes `res` (states [0, next) expanded) to dir (created if missing).
// Throws CheckpointError when the file cannot be written.
void write_checkpoint(const std::string& dir, const ExploreResult& res, StateId next, CheckpointMeta meta);

// Reads the metadata, has `accept` check it (it throws CheckpointError to
// refuse: another check, say) before anything else is read, then the
// graph into `res` (a fresh result for the system's layout): states
// re-interned in id order, labels from the system, the visited set bound,
// the figures restored.
CheckpointMeta read_checkpoint(const std::string& dir, const System& system, ExploreResult& res,
                               const std::function<void(const CheckpointMeta&)>& accept);

}  // namespace ddsmc::engine
