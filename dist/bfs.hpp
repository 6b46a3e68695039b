// The distributed breadth-first search's rank-local engine
// (docs/dist.md): one DistBfs per rank, which runs the BFS slice kernel
// (engine/slice.hpp) with the MPI policies: a successor is claimed here if
// this rank owns it, else offered to its owner (Router), and the new states
// are numbered by the discovery/assign phases (Numbering). Its parts are in
// three files: dist/explore.cpp (slices, rounds and votes, the start and
// the end), dist/bfs_expand.cpp (the router: expanding sources, offers,
// claims) and dist/bfs_number.cpp (the numbering of a slice and its
// targets). Internal to dist/: dist/explore.hpp is the interface.
#pragma once

#include <mpi.h>

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
#include "dist/handles.hpp"
#include "dist/link.hpp"
#include "dist/shard.hpp"
#include "dist/offers.hpp"
#include "dist/partition.hpp"
#include "dist/wire.hpp"
#include "engine/explore.hpp"
#include "engine/parallel.hpp"
#include "engine/slice.hpp"
#include "engine/workers.hpp"
#include "hashing/state.hpp"

namespace ddsmc::dist::detail {

using engine::Candidate;
using engine::Edge;
using engine::kNoState;
using engine::kProvisional;
using engine::kProvisionalTarget;
using engine::kSlice;
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

// An offer processed by its owner, or a step claimed where it was found:
// whom to tell the step's target. One per successor this rank owns in a
// slice (about a million in a slice of kSlice sources at ring:10), so it
// is kept to 24 bytes: the source by its place in the slice, which the
// discovery keys (engine/slice.hpp) already hold in 32 bits.
struct Reply {
  uint32_t rank, source_local;
  uint32_t ordinal;
  uint32_t source_in_slice;  // the source's global id less the slice's first
  StateId ref;  // the target's handle (dist/handles.hpp), or kProvisionalTarget | its index among the new states
};
static_assert(sizeof(Reply) == 24);

// A worker: the kernel's (expander, edges) and the offers it writes and
// processes.
struct Worker : engine::SliceWorker {
  Worker(const engine::System& system, engine::OnBound on_bound, hashing::TreeStore& store,
         const engine::Cancellation& c, int ranks, uint32_t label_words)
      : SliceWorker(system, on_bound, store, c), out(static_cast<size_t>(ranks)), offers(ranks, kOffer),
        labels(label_words) {}
  std::vector<std::vector<uint8_t>> out;  // per destination rank: a bundle of offer units
  OfferWriter offers;            // the units of the source being expanded
  std::vector<Reply> replies;    // offers this worker processed (as owner)
  std::vector<uint64_t> labels;  // scratch
  UnitReader::Scratch unit;      // scratch: an offer unit being read
  // Successors this worker generated, those it offered to another rank,
  // and the offers it processed as owner (RankFigures).
  uint64_t successors = 0, crossing = 0, offers_in = 0;
  BaseSubtrees subtrees;         // the ids of its units' bases' subtrees
  // Where a round began (edges, replies, outboxes), to redo it.
  struct Mark {
    size_t edges, replies;
    std::vector<size_t> out;
  };
  Mark mark() const {
    Mark m{edges.size(), replies.size(), {}};
    for (const auto& box : out) m.out.push_back(box.size());
    return m;
  }
  void rewind(const Mark& m) {
    edges.resize(m.edges);
    replies.resize(m.replies);
    for (size_t d = 0; d < out.size(); ++d) out[d].resize(m.out[d]);
  }
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
  // `resumed`, the figures over every rank), or nullptr. `base`: the
  // initial state's global id (dist/id_base.hpp; checked).
  DistBfs(const engine::System& system, const engine::ExploreOptions& opts, MPI_Comm comm, engine::ExploreResult& res,
          std::unique_ptr<Shard> restored, const dist::Resumed* resumed, StateId base)
      : system_(system), opts_(opts), res_(res), base_(base), link_(comm), ranks_(link_.size()), me_(link_.rank()),
        local_(restored ? std::move(restored->graph()) : engine::StateGraph(system.layout(), opts.initial_table, system.edge_arcs())),
        gids_(restored ? std::move(restored->gids()) : std::vector<StateId>{}),
        resumed_(resumed ? std::optional<dist::Resumed>(*resumed) : std::nullopt),
        threads_(opts.threads ? opts.threads : engine::hardware_threads()),
        pool_(threads_), arena_(static_cast<int>(threads_)) {
    for (StateId& gid : gids_) gid += base_;  // (a checkpoint's ids are ordinary)
    const engine::Cancellation& cancel = opts.cancel ? *opts.cancel : engine::Cancellation::none();
    for (size_t w = 0; w < threads_; ++w)
      workers_.push_back(std::make_unique<Worker>(system, opts.on_bound, local_.store().tree(), cancel, ranks_,
                                                  local_.label_words()));
    res.threads = threads_;
    if (opts.spill) local_.spill_to(opts.spill);
  }

  void run();

  // Sums the figures over the ranks.
  void finish();

  // The shard, with the figures over the ranks that finish() filled.
  std::unique_ptr<Shard> take_shard() {
    auto shard = std::make_unique<Shard>(std::move(local_), std::move(gids_), base_);
    shard->figures() = std::move(figures_);
    return shard;
  }

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
  // Collective: the largest sizes over every rank's workers (and the checkpoint resumed).
  hashing::StateSizes state_sizes();

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

  // Expands the local sources [la, lb) on the workers (the kernel's round:
  // a round that fills the store is redone after it grew).
  void expand(StateId la, StateId lb);

  // The kernel's router (engine/slice.hpp): a successor this rank owns is
  // interned and claimed at once, one another rank owns is offered to it;
  // the edge's target is told later (tell_targets). Like the single
  // process, a source's expansion ends once this rank claimed more than
  // the slice's room for it: the max-states cut-off falls within its steps
  // (the other ranks' share of the successors, offered, is bounded as
  // theirs is in expectation: the partition spreads states evenly).
  struct Router {
    DistBfs& bfs;
    Worker& w;
    engine::Expander& expander;
    template <class F>
    void successors(uint32_t root, F&& each) {
      struct Closer {  // the source's offer units end with its expansion, however it ends
        Worker& w;
        ~Closer() { w.offers.close(w.out); }
      } closer{w};
      const Partition& partition = bfs.partition_;
      if (partition.ranks == 1)  // every successor is this rank's: no key to find
        expander.expand(root, each);
      else
        expander.expand_split(root, partition.in_key, [&partition](uint64_t key) { return partition.mine(key); },
                              each);
    }
    engine::Routed route(const Candidate& c, StateId source, uint64_t key);
  };

  void send_outboxes();

  // Interns the offered states on the workers, a unit (record) at a time;
  // a full store grows and the offers not processed yet are redone.
  void process_offers(const RecordBatch& b);

  void check_memory_for(size_t bytes) {
    if (!opts_.memory_limit || !opts_.memory_in_use || bytes == 0) return;
    if (opts_.memory_in_use() + bytes > opts_.memory_limit) throw engine::Cancelled(StopReason::MemoryLimit);
  }
  void grow_store() {
    check_memory_for(local_.store().bytes_to_grow());
    local_.store().grow();
  }

  // The offers of a unit after the first `done`, which counts them.
  void offer_unit(std::span<const uint8_t> record, int from, Worker& w, uint32_t& done);

  // The step `step` (its ref unset) reaches the state of root `root`, owned
  // here: claims it in the slice as new or lowers its least key, and notes
  // whom to tell its id. True when it was new (claimed now).
  template <class Labels>
  bool claim(uint32_t root, bool violating, Labels&& labels, Reply step, Worker& w);

  // The kernel's numbering (engine/slice.hpp): the phases below.
  struct Numbering {
    DistBfs& bfs;
    StateId end;  // of the slice (global)
    bool stop_at_violation;
    engine::Numbered number(engine::Slice&) {
      Timed t(bfs.times_.phases);
      return bfs.number(end, stop_at_violation);
    }
    StateId committed(engine::Slice&, const engine::Numbered& n) { return bfs.committed(n, end); }
  };

  // The new states' ids: the source ranks learn which of their steps
  // discovered new states, count them per source (summed over the ranks,
  // every rank learns where each source's discoveries start) and number
  // them in (source, ordinal) order, which is the sequential BFS's. Sets
  // the slice's ids of this rank's new states.
  engine::Numbered number(StateId end, bool stop_at_violation);

  // After this rank's kept states were committed: their global ids, the
  // targets of the steps (tell_targets), and the local end of the sources
  // whose edges are stored.
  StateId committed(const engine::Numbered& n, StateId end);

  // Tells every step of a source below `last` its target's id.
  void tell_targets(StateId last);

  void report_progress(uint64_t found, uint64_t queue);

  const engine::System& system_;
  const engine::ExploreOptions& opts_;
  engine::ExploreResult& res_;
  const StateId base_;           // the initial state's global id (0 but in tests)
  engine::RankFigures figures_;  // finish() fills them; the shard carries them on
  Link link_;
  int ranks_, me_;
  Partition partition_{uint32_t(ranks_), uint32_t(me_),
                       engine::key_parts(opts_.placement, system_.layout().num_nodes, system_.layout().num_arcs)};
  Handles handles_{uint32_t(ranks_), uint32_t(me_)};
  std::vector<uint32_t> new_locals_;  // per new state of the slice: its local id once committed here
  engine::StateGraph local_;     // the states this rank owns, by local id (in global id order)
  std::vector<StateId> gids_;    // local id -> global id
  std::optional<dist::Resumed> resumed_;
  size_t threads_;
  engine::WorkerPool pool_;
  tbb::task_arena arena_;
  std::vector<std::unique_ptr<Worker>> workers_;
  StateId states_ = 0;           // base_ + the states committed over all ranks (the next global id)
  uint64_t transitions_ = 0;     // over all ranks
  StateId next_local_ = 0;       // the first local state not expanded
  // The slice in progress: global and local first source, the kernel.
  StateId first_ = 0, lfirst_ = 0;
  std::unique_ptr<engine::Slice> slice_;
  std::vector<uint8_t> rec_;     // a record being written (main thread)
  struct {
    double expand = 0, send = 0, offers = 0, phases = 0, commit = 0;
  } times_;
  Clock::time_point start_ = Clock::now(), last_progress_ = Clock::now();
};

}  // namespace ddsmc::dist::detail
