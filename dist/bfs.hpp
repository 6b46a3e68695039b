// The distributed breadth-first search's rank-local engine
// (docs/dist.md): one DistBfs per rank, its parts in three files —
// dist/explore.cpp (slices, rounds and votes, the start and the end),
// dist/bfs_expand.cpp (expanding sources, offers, claims) and
// dist/bfs_number.cpp (numbering a slice, its targets and edges).
// Internal to dist/: dist/explore.hpp is the interface.
#pragma once

#include <mpi.h>

#include <tbb/concurrent_vector.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "dist/explore.hpp"
#include "dist/link.hpp"
#include "dist/shard.hpp"
#include "dist/offers.hpp"
#include "dist/wire.hpp"
#include "engine/explore.hpp"
#include "engine/level.hpp"
#include "engine/parallel.hpp"
#include "engine/workers.hpp"
#include "hashing/state.hpp"

namespace ddsmc::dist::detail {

using engine::Candidate;
using engine::Edge;
using engine::kNoState;
using engine::kProvisional;
using engine::StateId;
using engine::StopReason;
using Clock = std::chrono::steady_clock;

inline double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Adds the time from construction to destruction to `total`.
class Timed {
 public:
  explicit Timed(double& total) : total_(total) {}
  ~Timed() { total_ += since(start_); }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  double& total_;
  Clock::time_point start_ = Clock::now();
};

// Record kinds, one per phase of a slice (docs/dist.md).
enum Kind : uint8_t {
  kOffer = 0,      // source rank -> owner: a source's successors it owns (dist/offers.hpp)
  kDiscovery = 1,  // owner -> source rank: this step is the least key of a new state
  kAssign = 2,     // source rank -> owner: the new state's id
  kReply = 3,      // owner -> source rank: the target id of a step
};

// Same sizes as explore.cpp's, so that a slice holds about as much.
inline constexpr StateId kSlice = StateId{1} << 17;

// An offer processed by its owner: whom to tell the step's target.
struct Reply {
  uint32_t rank, source_local, source_gid, ordinal;
  uint32_t ref;  // the target's id, or kProvisional | its index among the new states
};

struct Worker {
  Worker(const engine::System& system, engine::OnBound on_bound, hashing::TreeStore& store,
         const engine::Cancellation& c, int ranks, uint32_t label_words)
      : expander(system, on_bound, store), cancel(c), out(static_cast<size_t>(ranks)), offers(ranks, kOffer),
        labels(label_words) {
    expander.set_cancellation(&cancel);
  }
  engine::Expander expander;
  engine::Cancellation cancel;
  std::vector<Edge> edges;  // of the sources this worker expanded, contiguous per source
  std::vector<std::vector<uint8_t>> out;  // per destination rank: a bundle of offer units
  OfferWriter offers;            // the units of the source being expanded
  std::vector<Reply> replies;    // offers this worker processed (as owner)
  std::vector<uint64_t> labels;  // scratch
  UnitReader::Scratch unit;      // scratch: an offer unit being read
  std::vector<uint32_t> cache;   // scratch: its base's subtree ids
};

struct NewState {
  uint32_t root = 0;
  bool violating = false;
  uint64_t key = 0;  // least discovery key: source id << 32 | ordinal
  StateId gid = kNoState;
  uint64_t label = 0;
  std::unique_ptr<uint64_t[]> more_labels;
  const uint64_t* labels() const { return more_labels ? more_labels.get() : &label; }
};

struct Span {
  uint32_t worker = 0;
  size_t begin = 0, end = 0;
  uint64_t pruned = 0;
  bool expanded = false;
};

// A discovery at the source's rank: step (source, ordinal) found new state
// `index` of rank `owner`.
struct Found {
  StateId source;
  uint32_t ordinal;
  int owner;
  uint32_t index;
};

template <class F>
inline int guarded(F&& f) {
  try {
    f();
    return 0;
  } catch (const engine::Cancelled& c) {
    return static_cast<int>(c.reason());
  } catch (const std::bad_alloc&) {
    return static_cast<int>(StopReason::OutOfMemory);
  }
}

class DistBfs {
 public:
  // `restored`: this rank's part of a checkpoint to go on from (with
  // `resumed`, the figures over every rank), or nullptr.
  DistBfs(const engine::System& system, const engine::ExploreOptions& opts, MPI_Comm comm, engine::ExploreResult& res,
          std::unique_ptr<Shard> restored, const dist::Resumed* resumed)
      : system_(system), opts_(opts), res_(res), link_(comm), ranks_(link_.size()), me_(link_.rank()),
        local_(restored ? std::move(restored->graph()) : engine::StateGraph(system.layout(), opts.initial_table)),
        gids_(restored ? std::move(restored->gids()) : std::vector<StateId>{}),
        resumed_(resumed ? std::optional<dist::Resumed>(*resumed) : std::nullopt),
        threads_(opts.threads ? opts.threads : engine::hardware_threads()),
        pool_(threads_), arena_(static_cast<int>(threads_)) {
    const engine::Cancellation& cancel = opts.cancel ? *opts.cancel : engine::Cancellation::none();
    for (size_t w = 0; w < threads_; ++w)
      workers_.push_back(std::make_unique<Worker>(system, opts.on_bound, local_.store().tree(), cancel, ranks_,
                                                  local_.label_words()));
    res.threads = threads_;
    res.ranks = static_cast<uint32_t>(ranks_);
  }

  void run();

  // Sums the figures over the ranks.
  void finish();

  std::unique_ptr<Shard> take_shard() { return std::make_unique<Shard>(std::move(local_), std::move(gids_)); }

  void stop(std::string reason) {
    res_.complete = false;
    res_.incomplete_reason = std::move(reason);
  }

 private:
  void start_initial();

  // Takes up a restored shard: the totals over the ranks and where the
  // BFS queue starts (returned).
  StateId resume();

  // Between slices: whether any rank's checkpoint is due (collective).
  bool checkpoint_due();
  // Hands the graph so far to opts_.checkpoint (collective).
  void checkpoint(StateId next);
  // The canonical-form figures over every rank (collective).
  hashing::CanonicalStats canonical_stats();

  // One slice [first, end) of the BFS queue, in the phases of docs/dist.md.
  void run_slice(StateId first, StateId end);

  // The bound a committed state exceeds, which its owner finds (collective).
  std::optional<engine::BoundViolation> bound_of(StateId gid);

  // A round's vote: the worst stop code, whether a state over a bound was
  // found, and the new states found so far, over the ranks.
  struct Vote {
    std::array<uint64_t, 2> max{};
    std::array<uint64_t, 1> sum{};
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    bool pending = false;
    uint64_t found = 0;  // as of the last vote read
    void start(Link& link, int stop_code, bool violation, uint64_t found_here) {
      max = {uint64_t(stop_code), violation ? 1u : 0u};
      sum = {found_here};
      requests[0] = link.start_allreduce(max.data(), 2, MPI_UINT64_T, MPI_MAX);
      requests[1] = link.start_allreduce(sum.data(), 1, MPI_UINT64_T, MPI_SUM);
      pending = true;
    }
  };
  // Waits for the vote; true when the rounds should end: a stop, or a
  // cut-off among the states found (every source below the voting round's
  // end is expanded: later sources only find larger keys).
  bool read_vote(Vote& v, uint64_t room, bool stop_at_violation, int& stop_code);

  void check_memory() {
    if (opts_.memory_limit && opts_.memory_in_use && opts_.memory_in_use() > opts_.memory_limit)
      throw engine::Cancelled(StopReason::MemoryLimit);
  }

  // Expands the local sources [la, lb) on the workers. The successors this
  // rank owns are interned and claimed at once; when that fills the store,
  // it grows and the round is redone (what the round appended is dropped;
  // its claims are found again).
  void expand(StateId la, StateId lb);

  void expand_one(StateId s, Worker& w, uint32_t slot);
  // expand_one()'s steps: claims and offers. Like engine::Level::expand,
  // throws ExpansionCut once this rank claimed more than room_ new states
  // for them: the max-states cut-off falls within them (the other ranks'
  // share of the successors, offered, is bounded as theirs is in
  // expectation: the partition spreads states evenly).
  void expand_steps(StateId s, Worker& w);

  void send_outboxes();

  // Interns the offered states on the workers, a unit (record) at a time;
  // a full store grows and the offers not processed yet are redone.
  void process_offers(const RecordBatch& b);

  void check_memory_for(size_t bytes) {
    if (!opts_.memory_limit || !opts_.memory_in_use || bytes == 0) return;
    if (opts_.memory_in_use() + bytes > opts_.memory_limit) throw engine::Cancelled(StopReason::MemoryLimit);
  }

  // The offers of a unit after the first `done`, which counts them.
  void offer_unit(std::span<const uint8_t> record, int from, Worker& w, uint32_t& done);

  // The step `step` (its ref unset) reaches the state of root `root`, owned
  // here: claims it as new or lowers its least key, and notes whom to tell
  // its id. True when it was new (claimed now).
  template <class Labels>
  bool claim(uint32_t root, bool violating, Labels&& labels, Reply step, Worker& w);

  struct Cut {
    uint64_t keep = 0;           // new states kept (the first ones in BFS order)
    StateId halted = kNoState;   // the source a cut-off interrupts
    StateId violating = kNoState;
    bool max_states = false;
  };

  // The new states' ids: the source ranks learn which of their steps
  // discovered new states, count them per source (summed over the ranks,
  // every rank learns where each source's discoveries start) and number
  // them in (source, ordinal) order, which is the sequential BFS's.
  Cut number(StateId end, uint64_t room, bool stop_at_violation);

  // Adds this rank's new states among the first `keep` to its graph, in id order.
  void commit(uint64_t keep);

  // Tells every step of a source below `last` its target's id.
  void tell_targets(StateId last);

  void set_target(StateId source_local, uint32_t ordinal, StateId target) {
    const Span& span = spans_[source_local - lfirst_];
    workers_[span.worker]->edges[span.begin + ordinal].target = target;
  }

  // The edges of the local sources below `last`: sorted, deduplicated and
  // encoded into the local graph (targets are global ids).
  void store_edges(StateId last);

  void report_progress(uint64_t found, uint64_t queue);

  const engine::System& system_;
  const engine::ExploreOptions& opts_;
  engine::ExploreResult& res_;
  Link link_;
  int ranks_, me_;
  engine::Partition partition_{uint32_t(ranks_), uint32_t(me_)};
  engine::StateGraph local_;     // the states this rank owns, by local id (in global id order)
  std::vector<StateId> gids_;    // local id -> global id
  std::optional<dist::Resumed> resumed_;
  size_t threads_;
  engine::WorkerPool pool_;
  tbb::task_arena arena_;
  std::vector<std::unique_ptr<Worker>> workers_;
  StateId states_ = 0;           // committed, over all ranks
  uint64_t transitions_ = 0;     // over all ranks
  StateId next_local_ = 0;       // the first local state not expanded
  // The slice in progress.
  StateId first_ = 0, lfirst_ = 0;
  std::vector<Span> spans_;      // per local source of the slice
  uint64_t room_ = 0;            // new states the slice may keep (the max-states cut-off)
  tbb::concurrent_vector<NewState> new_;
  std::atomic<bool> violation_{false};
  std::vector<uint8_t> rec_;     // a record being written (main thread)
  struct {
    double expand = 0, send = 0, offers = 0, phases = 0, commit = 0;
  } times_;
  Clock::time_point start_ = Clock::now(), last_progress_ = Clock::now();
};

}  // namespace ddsmc::dist::detail
