// Where a check runs, as `ddsmc check` sees it once the model is loaded
// (docs/engine.md §12): the processes it runs on (one, or the ranks of an
// MPI job: dist/ranks.hpp) and their start-up agreement, then the Backend
// that explores, analyses and reads states back for the traces. The app
// talks to these two interfaces only, the same way in one process and
// under MPI; engine/local_backend.hpp and dist/mpi_backend.hpp implement
// them. Language-free, like the rest of engine/.
//
// Collective calls: under MPI every rank makes them, in the same order; in
// one process they are plain calls.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/analysis.hpp"
#include "engine/cancel.hpp"
#include "engine/checkpoint.hpp"
#include "engine/explore.hpp"
#include "engine/fairness.hpp"
#include "engine/system.hpp"

namespace ddsmc::engine {

// The figures of the processes that ran the check, for the report. One
// process leaves the lists empty: the report reads its own figures then.
struct RankFigures {
  uint32_t ranks = 1;
  uint64_t bytes_sent = 0;              // over every rank, in record batches
  std::vector<uint64_t> rank_states;    // states each rank owns
  std::vector<uint64_t> rank_peak_rss;  // each rank's peak RSS at the end of the exploration
  std::vector<StateGraph::Memory> rank_memory;  // each rank's graph by part, at the end of the exploration
  // Where rank 0's exploration time went, by part (dist/explore.cpp).
  std::vector<std::pair<std::string, double>> rank_seconds;
  // Successors over every rank, and those owned by another rank than
  // their source's (offered to it); rank 0's own of each, and the offers
  // it processed as owner (with rank_seconds: the cost of each kind).
  uint64_t successors = 0, crossing = 0;
  uint64_t rank0_successors = 0, rank0_crossing = 0, rank0_offers_in = 0;
};

// A checkpoint's exploration as this process read it back (its part under
// MPI; engine/checkpoint.hpp), to go on from.
struct Restored {
  StateGraph graph;
  std::vector<StateId> gids;  // local id -> global id
  CheckpointMeta meta;
};

// What the app writes when a stop interrupts the analysis (a checkpoint of
// the whole graph and the verdicts `decided`): called on every process
// with its graph (under MPI: its shard, `gids` its global ids).
using AnalysisCheckpoint = std::function<void(const ExploreResult& res, const StateGraph& graph,
                                              const std::vector<StateId>* gids,
                                              const std::vector<Verdict>& decided)>;

// Reads the canonical encodings of the states a trace passes through.
using StateBytes = std::function<std::string(StateId)>;

class Backend {
 public:
  virtual ~Backend() = default;
  // Collective: explores from the initial state, or goes on from
  // `restored`. The result stays here.
  virtual const ExploreResult& explore(const System& system, const ExploreOptions& opts,
                                       std::optional<Restored> restored) = 0;
  // This process's graph (under MPI: its shard) and its global ids
  // (nullptr: the ids are the graph's own).
  virtual const StateGraph& graph() const = 0;
  virtual const std::vector<StateId>* gids() const = 0;
  // Collective, after the exploration's checkpoint: from now on states are
  // only read back. `peak_rss`: this process's peak RSS, for the figures.
  virtual void end_exploration(uint64_t peak_rss) = 0;
  // Collective: runs `lead` (the analysis and the report, which call the
  // services below) on the leading process while the others serve it;
  // returns the exit code `lead` returned, on every process.
  virtual int lead(const std::function<int()>& lead) = 0;

  // The services of lead(). Each may throw Cancelled or std::bad_alloc.
  // The property's verdict (its lasso in global ids).
  virtual Verdict analyze(Property p, bool complete) = 0;
  // The path from state 0 to the bound violation (engine/bfs_tree.hpp).
  virtual std::vector<StateId> bound_path(StateId target, StateId target_parent) = 0;
  // The encodings of these states (only of these).
  virtual StateBytes encodings(const std::vector<StateId>& ids) = 0;
  // Under network symmetry, where states are orbit representatives: a
  // path from the initial state given concretely (engine/quotient_lasso);
  // nullopt without symmetry (the path lifts by encodings).
  virtual std::optional<ConcreteLasso> concrete_path(const std::vector<StateId>&) { return std::nullopt; }
  // A stop interrupted the analysis: the AnalysisCheckpoint on every
  // process, with the leader's `decided`.
  virtual void checkpoint_analysis(const std::vector<Verdict>& decided) = 0;
  virtual RankFigures figures() const = 0;
};

// The processes of one check and their start-up agreement.
class Processes {
 public:
  virtual ~Processes() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool root() const { return rank() == 0; }
  // The processes started on this machine (they share its memory).
  virtual int on_node() const = 0;
  // Collective: the largest of the processes' codes (0: all may go on).
  virtual int worst(int code) const = 0;
  // Collective: every process's value, by rank.
  virtual std::vector<uint64_t> all(uint64_t value) const = 0;
  // Collective: rank 0's value.
  virtual uint64_t from_root(uint64_t value) const = 0;
  // Collective: whether every process checks the same thing (`identity`;
  // nullopt: this one could not load its model): a message naming the
  // first process at fault otherwise.
  virtual std::optional<std::string> disagreement(const std::optional<std::string>& identity) const = 0;
  // The backend that runs the check on these processes (it keeps `cancel`
  // and `checkpoint`, and lives no longer than this object).
  virtual std::unique_ptr<Backend> backend(Fairness fairness, Cancellation& cancel,
                                           AnalysisCheckpoint checkpoint) = 0;
};

}  // namespace ddsmc::engine
