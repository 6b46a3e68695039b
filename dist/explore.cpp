#include "dist/explore.hpp"

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

#include "dist/gather.hpp"
#include "dist/link.hpp"
#include "dist/offers.hpp"
#include "dist/wire.hpp"
#include "engine/level.hpp"
#include "engine/parallel.hpp"
#include "engine/workers.hpp"
#include "hashing/state.hpp"

namespace ddsmc::dist {
namespace {

using engine::Candidate;
using engine::Edge;
using engine::kNoState;
using engine::kProvisional;
using engine::StateId;
using engine::StopReason;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

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
int guarded(F&& f) {
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
  DistBfs(const engine::System& system, const engine::ExploreOptions& opts, MPI_Comm comm, engine::ExploreResult& res)
      : system_(system), opts_(opts), res_(res), link_(comm), ranks_(link_.size()), me_(link_.rank()),
        local_(system.layout(), opts.initial_table), threads_(opts.threads ? opts.threads : engine::hardware_threads()),
        pool_(threads_), arena_(static_cast<int>(threads_)) {
    const engine::Cancellation& cancel = opts.cancel ? *opts.cancel : engine::Cancellation::none();
    for (size_t w = 0; w < threads_; ++w)
      workers_.push_back(std::make_unique<Worker>(system, opts.on_bound, local_.store().tree(), cancel, ranks_,
                                                  local_.label_words()));
    res.threads = threads_;
    res.ranks = static_cast<uint32_t>(ranks_);
  }

  void run() {
    start_initial();
    StateId first = 0;
    while (res_.complete && first < states_) {
      const StateId end = first + std::min<StateId>(states_ - first, kSlice);
      run_slice(first, end);
      first = end;
    }
  }

  // Sums the figures over the ranks and gathers the graph on rank 0.
  void finish() {
    // (pruned_states is summed over the ranks slice by slice already)
    std::array<uint64_t, 6> sums{0, 0, 0, 0, 0, link_.exchange().stats().bytes_sent};
    for (const auto& w : workers_) {
      const hashing::CanonicalStats s = w->expander.stats();
      sums[0] += s.calls, sums[1] += s.fast_path, sums[2] += s.refined, sums[3] += s.individualized, sums[4] += s.nauty;
    }
    link_.allreduce(sums, MPI_UINT64_T, MPI_SUM);
    res_.canonical = {sums[0], sums[1], sums[2], sums[3], sums[4]};
    res_.bytes_sent = sums[5];
    {
      Timed t(times_.gather);
      // (on this rank's arena: the calling thread runs it, so MPI stays on the main thread)
      arena_.execute([&] { gather_graph(local_, gids_, states_, link_.collectives(), res_); });
    }
    res_.rank_seconds = {{"expand", times_.expand}, {"send", times_.send}, {"offers", times_.offers},
                         {"phases", times_.phases}, {"commit", times_.commit}, {"gather", times_.gather},
                         {"collectives", link_.seconds_waiting()}};
  }

  std::unique_ptr<Shard> take_shard() { return std::make_unique<Shard>(std::move(local_), std::move(gids_)); }

  void stop(std::string reason) {
    res_.complete = false;
    res_.incomplete_reason = std::move(reason);
  }

 private:
  void start_initial() {
    hashing::GlobalState init = system_.initial_state();
    const hashing::SegmentedEncoding& enc = workers_[0]->expander.canonical_encoding(init);
    if (partition_.owner(enc) == partition_.me) {
      auto& tree = local_.store().tree();
      const uint32_t root = engine::intern_growing([&] { return tree.intern(enc); }, [&] { local_.store().grow(); });
      std::vector<uint64_t> labels(local_.label_words());
      local_.labels_of(init, system_, labels.data());
      local_.fill_state(local_.add_states(1), root, labels.data());
      local_.store().bind(root, 0);
      gids_.push_back(0);
    }
    states_ = 1;
    if (auto v = system_.check_bounds(init)) {
      res_.violation = v;
      res_.violating_state = 0;
      stop("bound");
    }
  }

  // One slice [first, end) of the BFS queue, in the phases of docs/dist.md.
  void run_slice(StateId first, StateId end) {
    first_ = first;
    lfirst_ = next_local_;
    StateId lend = lfirst_;
    while (lend < gids_.size() && gids_[lend] < end) ++lend;
    spans_.assign(lend - lfirst_, Span{});
    new_.clear();
    violation_.store(false);
    for (auto& w : workers_) w->edges.clear(), w->replies.clear();
    const uint64_t room = opts_.max_states ? opts_.max_states - std::min<uint64_t>(opts_.max_states, states_)
                                           : std::numeric_limits<uint64_t>::max();
    const bool stop_at_violation = opts_.on_bound == engine::OnBound::Stop;

    // Phase 1: expand in rounds of ids, offering successors to their owners.
    int stop_code = 0;
    Vote vote;
    const StateId round = static_cast<StateId>(std::max<size_t>(1024, 4096 * threads_) * size_t(ranks_));
    StateId la = lfirst_;
    for (StateId lo = first; lo < end;) {
      const StateId hi = static_cast<StateId>(std::min<uint64_t>(end, uint64_t{lo} + round));
      StateId lb = la;
      while (lb < lend && gids_[lb] < hi) ++lb;
      if (!stop_code) stop_code = guarded([&] {
        Timed t(times_.expand);
        check_memory();
        expand(la, lb);
      });
      {
        Timed t(times_.send);
        send_outboxes();
        link_.pump();
      }
      RecordBatch offers = link_.take(kOffer);
      if (!stop_code) stop_code = guarded([&] {
        Timed t(times_.offers);
        process_offers(offers);
      });
      // The ranks vote on going on; a round's vote is read at the end of
      // the next round, so that no rank waits for the others at every
      // round (the decisions come a round late, which changes nothing but
      // how many sources a cut-off slice expands).
      bool halt = false;
      if (vote.pending) halt = read_vote(vote, room, stop_at_violation, stop_code);
      vote.start(link_, stop_code, violation_.load(), new_.size());
      la = lb;
      lo = hi;
      report_progress(vote.found, end - lo);
      if (halt) break;
    }
    if (vote.pending) read_vote(vote, room, stop_at_violation, stop_code);
    {
      Timed t(times_.phases);
      link_.finish_phase(kOffer, [&](RecordBatch& b) {
        if (!stop_code) stop_code = guarded([&] {
          Timed t(times_.offers);
          process_offers(b);
        });
      });
    }
    std::array<uint64_t, 1> code{uint64_t(stop_code)};
    link_.allreduce(code, MPI_UINT64_T, MPI_MAX);
    if (code[0]) {  // the slice is dropped, as the sequential BFS drops its level
      stop(engine::stop_reason_name(static_cast<StopReason>(code[0])));
      return;
    }

    // Phase 2: number the new states in sequential BFS order.
    Cut cut;
    {
      Timed t(times_.phases);
      cut = number(end, room, stop_at_violation);
    }
    {
      Timed t(times_.commit);
      commit(cut.keep);
    }

    // Phase 3: every step learns its target; the sources' edges are stored.
    const StateId last = cut.halted != kNoState ? cut.halted : end;
    {
      Timed t(times_.phases);
      tell_targets(last);
    }
    {
      Timed t(times_.commit);
      store_edges(last);
    }
    next_local_ = lend;
    if (cut.violating != kNoState) {
      res_.violating_state = cut.violating;
      res_.violating_parent = cut.halted;
      res_.violation = bound_of(cut.violating);
      stop("bound");
    } else if (cut.max_states) {
      stop("max-states");
    }
  }

  // The bound a committed state exceeds, which its owner finds (collective).
  std::optional<engine::BoundViolation> bound_of(StateId gid) {
    std::array<uint32_t, 5> v{0, 0, 0, 0, 0};  // found, kind, where, value, bound
    auto it = std::lower_bound(gids_.begin(), gids_.end(), gid);
    if (it != gids_.end() && *it == gid) {
      hashing::GlobalState s;
      if (!hashing::decode(local_.bytes(static_cast<StateId>(it - gids_.begin())), system_.layout(), s))
        throw std::logic_error("dist: a stored state does not decode");
      if (auto b = system_.check_bounds(s)) v = {1, uint32_t(b->kind), b->where, b->value, b->bound};
    }
    link_.allreduce(v, MPI_UINT32_T, MPI_MAX);
    if (!v[0]) throw std::logic_error("dist: the violating state is within its bounds");
    return engine::BoundViolation{engine::BoundViolation::Kind(v[1]), v[2], v[3], v[4]};
  }

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
  bool read_vote(Vote& v, uint64_t room, bool stop_at_violation, int& stop_code) {
    link_.wait(v.requests[0]);
    link_.wait(v.requests[1]);
    v.pending = false;
    v.found = v.sum[0];
    if (v.max[0]) stop_code = static_cast<int>(v.max[0]);
    return v.max[0] || v.sum[0] > room || (stop_at_violation && v.max[1]);
  }

  void check_memory() {
    if (opts_.memory_limit && opts_.memory_in_use && opts_.memory_in_use() > opts_.memory_limit)
      throw engine::Cancelled(StopReason::MemoryLimit);
  }

  // Expands the local sources [la, lb) on the workers. The successors this
  // rank owns are interned and claimed at once; when that fills the store,
  // it grows and the round is redone (what the round appended is dropped;
  // its claims are found again).
  void expand(StateId la, StateId lb) {
    struct Mark {
      size_t edges, replies;
      std::vector<size_t> out;
    };
    std::vector<Mark> marks;
    for (const auto& w : workers_) {
      Mark m{w->edges.size(), w->replies.size(), {}};
      for (const auto& box : w->out) m.out.push_back(box.size());
      marks.push_back(std::move(m));
    }
    for (;;) {
      try {
        arena_.execute([&] {
          engine::parallel_for(la, lb, 16, [&](const tbb::blocked_range<StateId>& r) {
            const uint32_t slot = engine::worker_slot();
            Worker& w = *workers_[slot];
            for (StateId s = r.begin(); s < r.end(); ++s) {
              w.cancel.poll();
              expand_one(s, w, slot);
            }
          });
        });
        return;
      } catch (const hashing::TreeStoreFull&) {
        for (size_t i = 0; i < workers_.size(); ++i) {
          Worker& w = *workers_[i];
          w.edges.resize(marks[i].edges);
          w.replies.resize(marks[i].replies);
          for (size_t d = 0; d < w.out.size(); ++d) w.out[d].resize(marks[i].out[d]);
        }
        check_memory_for(local_.store().bytes_to_grow());
        local_.store().grow();
      }
    }
  }

  void expand_one(StateId s, Worker& w, uint32_t slot) {
    Span& span = spans_[s - lfirst_];
    span.worker = slot;
    span.begin = w.edges.size();
    const uint64_t pruned_before = w.expander.pruned();
    const StateId source = gids_[s];
    uint32_t ordinal = 0;
    struct Closer {  // the source's offer units end with its expansion, however it ends
      Worker& w;
      ~Closer() { w.offers.close(w.out); }
    } closer{w};
    w.expander.expand_partitioned(local_.root(s), partition_, [&](const Candidate& c) {
      if (c.owner == partition_.me) {
        claim(c.root, c.violating, [&](uint64_t* out) { local_.labels_of(*c.state, system_, out); },
              {uint32_t(me_), s, source, ordinal, 0}, w);
      } else {
        local_.labels_of(*c.state, system_, w.labels.data());
        w.offers.add(w.out, s, source, ordinal, c, w.labels);
      }
      ++ordinal;
      w.edges.emplace_back(kNoState, c.label);
    });
    span.end = w.edges.size();
    span.pruned = w.expander.pruned() - pruned_before;
    span.expanded = true;
  }

  void send_outboxes() {
    for (auto& w : workers_)
      for (int to = 0; to < ranks_; ++to) {
        link_.send_bundle(to, w->out[size_t(to)]);
      }
  }

  // Interns the offered states on the workers, a unit (record) at a time;
  // a full store grows and the offers not processed yet are redone.
  void process_offers(const RecordBatch& b) {
    std::vector<uint32_t> done(b.size(), 0);  // per unit: its offers processed
    for (;;) {
      try {
        arena_.execute([&] {
          engine::parallel_for(size_t{0}, b.size(), 8, [&](const tbb::blocked_range<size_t>& r) {
            const uint32_t slot = engine::worker_slot();
            for (size_t i = r.begin(); i < r.end(); ++i) offer_unit(b.record(i), b.recs[i].from, *workers_[slot], done[i]);
          });
        });
        return;
      } catch (const hashing::TreeStoreFull&) {
        check_memory_for(local_.store().bytes_to_grow());
        local_.store().grow();
      }
    }
  }

  void check_memory_for(size_t bytes) {
    if (!opts_.memory_limit || !opts_.memory_in_use || bytes == 0) return;
    if (opts_.memory_in_use() + bytes > opts_.memory_limit) throw engine::Cancelled(StopReason::MemoryLimit);
  }

  // The offers of a unit after the first `done`, which counts them.
  void offer_unit(std::span<const uint8_t> record, int from, Worker& w, uint32_t& done) {
    hashing::TreeStore& tree = local_.store().tree();
    UnitReader unit(record, tree.parts(), local_.label_words(), w.unit);
    w.cache.assign(tree.tree_size(), hashing::TreeStore::kUnknown);
    for (uint32_t k = 0; unit.next(); ++k) {
      if (k < done) continue;
      // Throws TreeStoreFull before anything but the store changed.
      const uint32_t root = tree.intern_overlay(unit.base, unit.base_begin(), w.cache.data(), unit.changed());
      claim(root, unit.violating, [&](uint64_t* out) { std::copy(unit.labels().begin(), unit.labels().end(), out); },
            {uint32_t(from), unit.source_local, unit.source, unit.ordinal, 0}, w);
      ++done;
    }
  }

  // The step `step` (its ref unset) reaches the state of root `root`, owned
  // here: claims it as new or lowers its least key, and notes whom to tell
  // its id.
  template <class Labels>
  void claim(uint32_t root, bool violating, Labels&& labels, Reply step, Worker& w) {
    const uint64_t key = uint64_t{step.source_gid} << 32 | step.ordinal;
    auto made = [&]() -> uint32_t {
      NewState n;
      n.root = root;
      n.violating = violating;
      n.key = key;
      if (local_.label_words() > 1) n.more_labels = std::make_unique<uint64_t[]>(local_.label_words());
      labels(n.more_labels ? n.more_labels.get() : &n.label);
      auto it = new_.push_back(std::move(n));
      const auto index = static_cast<uint64_t>(it - new_.begin());
      if (index >= kProvisional - 2) throw std::length_error("more than 2^31 new states in one BFS slice");
      if (violating) violation_.store(true, std::memory_order_relaxed);
      return kProvisional | static_cast<uint32_t>(index);
    };
    auto claim = local_.store().find_or_claim(root, made);
    if (!claim.inserted && (claim.ref & kProvisional)) {
      std::atomic_ref<uint64_t> least(new_[claim.ref & ~kProvisional].key);
      uint64_t seen = least.load(std::memory_order_relaxed);
      while (key < seen && !least.compare_exchange_weak(seen, key, std::memory_order_relaxed)) {
      }
    }
    step.ref = (claim.ref & kProvisional) ? claim.ref : gids_[claim.ref];
    w.replies.push_back(step);
  }

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
  Cut number(StateId end, uint64_t room, bool stop_at_violation) {
    std::vector<Found> found;
    for (auto& w : workers_)
      for (const Reply& r : w->replies) {
        if (!(r.ref & kProvisional)) continue;
        const uint32_t index = r.ref & ~kProvisional;
        if (new_[index].key != (uint64_t{r.source_gid} << 32 | r.ordinal)) continue;
        if (int(r.rank) == me_) {  // this rank's own step: no record
          found.push_back({r.source_gid, r.ordinal, me_, index});
          continue;
        }
        rec_.clear();
        Writer out(rec_);
        out.u32(r.source_local);
        out.u32(r.ordinal);
        out.u32(index);
        link_.post(int(r.rank), kDiscovery, rec_);
      }
    link_.finish_phase(kDiscovery, [&](RecordBatch& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        Reader in(b.record(i));
        const uint32_t source_local = in.u32(), ordinal = in.u32(), index = in.u32();
        found.push_back({gids_[source_local], ordinal, b.recs[i].from, index});
      }
    });
    std::vector<uint32_t> count(end - first_, 0);
    for (const Found& f : found) ++count[f.source - first_];
    link_.allreduce(count.data(), static_cast<int>(count.size()), MPI_UINT32_T, MPI_SUM);
    std::vector<uint64_t> start(count.size() + 1, 0);
    for (size_t p = 0; p < count.size(); ++p) start[p + 1] = start[p] + count[p];

    Cut cut;
    cut.keep = start.back();
    if (cut.keep > room) {  // the first new state past the limit halts, and is not added
      cut.keep = room;
      cut.max_states = true;
      const size_t p = static_cast<size_t>(std::upper_bound(start.begin(), start.end(), room) - start.begin()) - 1;
      cut.halted = first_ + static_cast<StateId>(p);
    }
    std::sort(found.begin(), found.end(),
              [](const Found& a, const Found& b) { return std::tie(a.source, a.ordinal) < std::tie(b.source, b.ordinal); });
    for (size_t i = 0; i < found.size();) {
      const size_t j = i;
      for (; i < found.size() && found[i].source == found[j].source; ++i) {
        const StateId gid = states_ + static_cast<StateId>(start[found[i].source - first_] + (i - j));
        if (found[i].owner == me_) {
          new_[found[i].index].gid = gid;
          continue;
        }
        rec_.clear();
        Writer out(rec_);
        out.u32(found[i].index);
        out.u32(gid);
        link_.post(found[i].owner, kAssign, rec_);
      }
    }
    link_.finish_phase(kAssign, [&](RecordBatch& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        Reader in(b.record(i));
        const uint32_t index = in.u32();
        new_[index].gid = in.u32();
      }
    });
    if (stop_at_violation) {  // the first state over a bound halts, and is added
      std::array<uint64_t, 1> least{~uint64_t{0}};
      for (const NewState& n : new_)
        if (n.violating && n.gid < states_ + cut.keep) least[0] = std::min(least[0], uint64_t{n.gid} << 32 | (n.key >> 32));
      link_.allreduce(least, MPI_UINT64_T, MPI_MIN);
      if (least[0] != ~uint64_t{0}) {
        cut.violating = static_cast<StateId>(least[0] >> 32);
        cut.halted = static_cast<StateId>(least[0]);
        cut.keep = cut.violating - states_ + 1;
        cut.max_states = false;
      }
    }
    return cut;
  }

  // Adds this rank's new states among the first `keep` to its graph, in id order.
  void commit(uint64_t keep) {
    const StateId limit = states_ + static_cast<StateId>(keep);
    std::vector<uint32_t> mine;
    for (size_t i = 0; i < new_.size(); ++i)
      if (new_[i].gid < limit) mine.push_back(static_cast<uint32_t>(i));
    std::sort(mine.begin(), mine.end(), [&](uint32_t a, uint32_t b) { return new_[a].gid < new_[b].gid; });
    const StateId base = local_.add_states(mine.size());
    arena_.execute([&] {
      engine::parallel_for(size_t{0}, mine.size(), 256, [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i < r.end(); ++i) {
          const NewState& n = new_[mine[i]];
          local_.fill_state(base + static_cast<StateId>(i), n.root, n.labels());
          local_.store().bind(n.root, base + static_cast<StateId>(i));
        }
      });
    });
    for (uint32_t i : mine) gids_.push_back(new_[i].gid);
    states_ = limit;
  }

  // Tells every step of a source below `last` its target's id.
  void tell_targets(StateId last) {
    for (auto& w : workers_)
      for (const Reply& r : w->replies) {
        if (r.source_gid >= last) continue;
        const StateId target = (r.ref & kProvisional) ? new_[r.ref & ~kProvisional].gid : r.ref;
        if (target >= states_) throw std::logic_error("dist: a kept step leads to a dropped state");
        if (int(r.rank) == me_) {
          set_target(r.source_local, r.ordinal, target);
          continue;
        }
        rec_.clear();
        Writer out(rec_);
        out.u32(r.source_local);
        out.u32(r.ordinal);
        out.u32(target);
        link_.post(int(r.rank), kReply, rec_);
      }
    link_.finish_phase(kReply, [&](RecordBatch& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        Reader in(b.record(i));
        const uint32_t source_local = in.u32(), ordinal = in.u32(), target = in.u32();
        set_target(source_local, ordinal, target);
      }
    });
  }

  void set_target(StateId source_local, uint32_t ordinal, StateId target) {
    const Span& span = spans_[source_local - lfirst_];
    workers_[span.worker]->edges[span.begin + ordinal].target = target;
  }

  // The edges of the local sources below `last`: sorted, deduplicated and
  // encoded into the local graph (targets are global ids).
  void store_edges(StateId last) {
    StateId llast = lfirst_;
    while (llast - lfirst_ < spans_.size() && gids_[llast] < last) ++llast;
    std::vector<uint32_t> counts(llast - lfirst_), sizes(llast - lfirst_);
    arena_.execute([&] {
      engine::parallel_for(lfirst_, llast, 64, [&](const tbb::blocked_range<StateId>& r) {
        for (StateId s = r.begin(); s < r.end(); ++s) {
          const Span& span = spans_[s - lfirst_];
          if (!span.expanded) throw std::logic_error("dist: slice finished with an unexpanded state");
          auto& buf = workers_[span.worker]->edges;
          auto b = buf.begin() + static_cast<std::ptrdiff_t>(span.begin);
          auto e = buf.begin() + static_cast<std::ptrdiff_t>(span.end);
          for (auto it = b; it != e; ++it)
            if (it->target == kNoState) throw std::logic_error("dist: a step without its target");
          std::sort(b, e, [](const Edge& x, const Edge& y) { return std::tie(x.target, x.label) < std::tie(y.target, y.label); });
          counts[s - lfirst_] = static_cast<uint32_t>(std::unique(b, e) - b);
          sizes[s - lfirst_] = local_.edge_bytes(s, {b, counts[s - lfirst_]});
        }
      });
    });
    if (llast > lfirst_) local_.add_edges(lfirst_, counts, sizes);
    arena_.execute([&] {
      engine::parallel_for(lfirst_, llast, 64, [&](const tbb::blocked_range<StateId>& r) {
        for (StateId s = r.begin(); s < r.end(); ++s) {
          const Span& span = spans_[s - lfirst_];
          const auto& buf = workers_[span.worker]->edges;
          local_.write_edges(s, {buf.begin() + static_cast<std::ptrdiff_t>(span.begin), counts[s - lfirst_]});
        }
      });
    });
    std::array<uint64_t, 2> sums{0, 0};
    for (uint32_t c : counts) sums[0] += c;
    for (StateId s = lfirst_; s < llast; ++s) sums[1] += spans_[s - lfirst_].pruned;
    link_.allreduce(sums, MPI_UINT64_T, MPI_SUM);
    transitions_ += sums[0];
    res_.pruned_states += sums[1];
  }

  void report_progress(uint64_t found, uint64_t queue) {
    if (me_ != 0 || !opts_.progress || since(last_progress_) < opts_.progress_interval) return;
    last_progress_ = Clock::now();
    opts_.progress({states_ + found, transitions_, queue + found, since(start_)});
  }

  const engine::System& system_;
  const engine::ExploreOptions& opts_;
  engine::ExploreResult& res_;
  Link link_;
  int ranks_, me_;
  engine::Partition partition_{uint32_t(ranks_), uint32_t(me_)};
  engine::StateGraph local_;     // the states this rank owns, by local id (in global id order)
  std::vector<StateId> gids_;    // local id -> global id
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
  tbb::concurrent_vector<NewState> new_;
  std::atomic<bool> violation_{false};
  std::vector<uint8_t> rec_;     // a record being written (main thread)
  struct {
    double expand = 0, send = 0, offers = 0, phases = 0, commit = 0, gather = 0;
  } times_;
  Clock::time_point start_ = Clock::now(), last_progress_ = Clock::now();
};

}  // namespace

engine::ExploreResult explore(const engine::System& system, const engine::ExploreOptions& opts, MPI_Comm comm,
                              std::unique_ptr<Shard>& shard) {
  const auto start = Clock::now();
  engine::ExploreResult res(system.layout(), 1 << 12);
  // The protocol has every rank in every collective: a rank that leaves it
  // on an error it cannot report in-band takes the job down rather than
  // leave the others waiting.
  try {
    DistBfs bfs(system, opts, comm, res);
    bfs.run();
    bfs.finish();
    shard = bfs.take_shard();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddsmc: internal error in the distributed exploration: %s\n", e.what());
    MPI_Abort(comm, 3);
  }
  res.seconds = since(start);
  return res;
}

}  // namespace ddsmc::dist
