// Breadth-first exploration of the state space up to isomorphism
// (docs/reference.md §3) over the language-free System: one algorithm for every
// thread count (docs/engine.md §9). It is level-synchronous: the workers of
// a TBB arena expand one BFS level at a time into the shared lock-free
// state store (tree-compressed states and the visited set), and each level
// is committed in the order sequential BFS would have found its states. So ids, parents, edges, cut-offs and hence
// every result are the same at every thread count, and parent links give
// shortest paths (the bound-violation trace).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/expander.hpp"
#include "engine/placement.hpp"
#include "engine/state_graph.hpp"
#include "engine/system.hpp"
#include "hashing/canonical.hpp"

namespace ddsmc::engine {

struct ExploreProgress {
  uint64_t states = 0, transitions = 0, queue = 0;
  uint64_t disk = 0;  // bytes of the graph on disk (ExploreOptions::spill)
  double seconds = 0;
};

struct ExploreOptions {
  size_t threads = 1;       // workers (0: every core the process may use)
  uint64_t max_states = 0;  // 0: no limit
  size_t initial_table = size_t{1} << 16;  // room in the state store to start with, in tree nodes (it grows)
  OnBound on_bound = OnBound::Stop;
  // Under MPI: which parts of a state place it on a rank (dist/partition.hpp).
  PlacementRule placement;
  // Polled before each state and inside each expansion (each worker polls
  // a copy): a stop request ends the exploration with reason "interrupted"
  // or "out-of-memory", dropping the level in progress. nullptr:
  // Cancellation::none().
  Cancellation* cancel = nullptr;
  // --memory: with a limit (bytes) and a way to read the process's memory
  // in use, the exploration stops with reason "memory-limit" (dropping the
  // level in progress) before growing the state store past the limit.
  uint64_t memory_limit = 0;
  std::function<uint64_t()> memory_in_use;
  // --scratch: the file the graph's write-once parts (edge rows and index,
  // roots, labels) go to as they are committed (StateGraph::spill_to), or
  // nullptr to keep them in memory.
  std::shared_ptr<SpillFile> spill;
  // Called about every progress_interval seconds, by whichever worker sees
  // that a report is due (one at a time).
  std::function<void(const ExploreProgress&)> progress;
  double progress_interval = 2.0;
  // Between slices, when checkpoint_due() says so (on any rank):
  // checkpoint() with the graph committed so far (the app's
  // --checkpoint-every; engine/checkpoint.hpp). Under MPI every rank calls
  // it at the same point, with its shard.
  std::function<bool()> checkpoint_due;
  std::function<void(const struct ExplorePoint&)> checkpoint;
  // Before each round, with the states found so far (one process only; not
  // polled under MPI): true when the system's generator() now evaluates
  // steps another way, giving the same successors in the same order (the
  // app's compiled step, ready after a compile in the background): every
  // worker then takes a new generator before the round.
  std::function<bool(uint64_t states)> generators_changed;
};

// An exploration between two slices, as a checkpoint saves it: this
// process's graph (under MPI, this rank's shard, and its states' global
// ids), its states [0, graph.num_expanded()) expanded, and the figures over
// every rank: the states [next, states) are the BFS queue.
struct ExplorePoint {
  explicit ExplorePoint(const StateGraph& g, const std::vector<StateId>* ids = nullptr) : graph(g), gids(ids) {}
  const StateGraph& graph;
  const std::vector<StateId>* gids = nullptr;  // local id -> global id (nullptr: the same)
  uint64_t states = 0, next = 0, transitions = 0, pruned_states = 0;
  hashing::CanonicalStats canonical;
  hashing::StateSizes sizes;
  double seconds = 0;
};

struct ExploreResult {
  // edge_arcs: the range of the edges' arc fields (System::edge_arcs; 0: the layout's arcs).
  explicit ExploreResult(const hashing::StateLayout& layout, size_t initial_store = size_t{1} << 12,
                         uint32_t edge_arcs = 0)
      : graph(layout, initial_store, edge_arcs) {}
  StateGraph graph;
  bool complete = true;
  // "bound", "max-states", "interrupted", "out-of-memory", "memory-limit"
  // (a Cancelled stop, or std::bad_alloc during the exploration; the graph
  // stays valid)
  std::string incomplete_reason;
  std::optional<BoundViolation> violation;   // with on_bound=stop
  StateId violating_state = kNoState;        // in the graph (engine/bfs_tree.hpp gives its path)
  StateId violating_parent = kNoState;       // its BFS parent, which has no edges recorded (kNoState for 0)
  uint64_t pruned_states = 0;                // successors cut by on_bound=prune (with repeats) from the expanded states
  hashing::CanonicalStats canonical;
  // The largest DB and channel sizes of the states explored (over every
  // rank; within the bounds): docs/reference.md §5.5.
  hashing::StateSizes sizes;
  StateGraph::Memory memory;  // the graph's, as the exploration left it (before end_exploration)
  double seconds = 0;
  size_t threads = 1;              // workers used (per rank)
  // Over every rank: the distributed engine leaves the graph in shards
  // (`graph` is then empty); one process: the graph's.
  bool sharded = false;
  uint64_t shard_states = 0, shard_transitions = 0;
  uint64_t num_states() const { return sharded ? shard_states : graph.num_states(); }
  uint64_t num_transitions() const { return sharded ? shard_transitions : graph.num_edges(); }
};

ExploreResult explore(const System& system, const ExploreOptions& opts);

// Continues an exploration that a checkpoint restored into `res`
// (engine/checkpoint.hpp): states [0, next) expanded, [next, states) the
// BFS queue. The result equals an uninterrupted explore()'s; `res.seconds`
// gets this part's time added.
void explore_from(const System& system, const ExploreOptions& opts, ExploreResult& res, StateId next);

}  // namespace ddsmc::engine
