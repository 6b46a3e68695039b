#include "dist/explore.hpp"

#include "dist/bfs.hpp"
#include "dist/id_base.hpp"

namespace ddsmc::dist::detail {

void DistBfs::run() {
  const StateId resumed_at = resumed_ ? resume() : kNoState;
  StateId first = resumed_ ? resumed_at : base_;
  if (!resumed_) start_initial();
  while (res_.complete && first < states_) {
    if (first != resumed_at && opts_.checkpoint && checkpoint_due()) checkpoint(first);
    const StateId end = first + std::min<StateId>(states_ - first, kSlice);
    run_slice(first, end);
    first = end;
  }
}

hashing::CanonicalStats DistBfs::canonical_stats() {
  hashing::CanonicalStats mine;
  for (const auto& w : workers_) mine += w->expander.stats();
  std::array<uint64_t, 5> sums{mine.calls, mine.fast_path, mine.refined, mine.individualized, mine.nauty};
  link_.allreduce(sums, MPI_UINT64_T, MPI_SUM);
  hashing::CanonicalStats all{sums[0], sums[1], sums[2], sums[3], sums[4]};
  if (resumed_) all += resumed_->canonical;  // (the same on every rank)
  return all;
}

hashing::StateSizes DistBfs::state_sizes() {
  hashing::StateSizes mine;
  for (const auto& w : workers_) mine |= w->expander.sizes();
  std::array<uint32_t, 3> most{mine.db_facts, mine.db_constants, mine.channel_messages};
  link_.allreduce(most, MPI_UINT32_T, MPI_MAX);
  hashing::StateSizes all{most[0], most[1], most[2]};
  if (resumed_) all |= resumed_->sizes;  // (the same on every rank)
  return all;
}

StateId DistBfs::resume() {
  std::array<uint64_t, 3> sums{local_.num_states(), local_.num_expanded(), local_.num_edges()};
  link_.allreduce(sums, MPI_UINT64_T, MPI_SUM);
  states_ = base_ + static_cast<StateId>(sums[0]);
  transitions_ = sums[2];
  next_local_ = local_.num_expanded();
  res_.pruned_states = resumed_->pruned_states;
  return base_ + static_cast<StateId>(sums[1]);
}

bool DistBfs::checkpoint_due() {
  std::array<uint64_t, 1> due{opts_.checkpoint_due && opts_.checkpoint_due() ? 1u : 0u};
  link_.allreduce(due, MPI_UINT64_T, MPI_MAX);
  return due[0] != 0;
}

void DistBfs::checkpoint(StateId next) {
  // A checkpoint holds ordinary ids, whatever the base (dist/id_base.hpp).
  std::vector<StateId> ordinary;
  if (base_) {
    ordinary.reserve(gids_.size());
    for (StateId gid : gids_) ordinary.push_back(gid - base_);
  }
  engine::ExplorePoint p(local_, base_ ? &ordinary : &gids_);
  p.states = states_ - base_;
  p.next = next - base_;
  p.transitions = transitions_;
  p.pruned_states = res_.pruned_states;
  p.canonical = canonical_stats();
  p.sizes = state_sizes();
  p.seconds = since(start_) + (resumed_ ? resumed_->seconds : 0);
  opts_.checkpoint(p);
}

void DistBfs::finish() {
  // (pruned_states is summed over the ranks slice by slice already)
  res_.canonical = canonical_stats();
  res_.sizes = state_sizes();
  engine::RankFigures& figures = figures_;
  figures.ranks = static_cast<uint32_t>(ranks_);
  std::array<uint64_t, 1> sent{link_.exchange().stats().bytes_sent};
  link_.allreduce(sent, MPI_UINT64_T, MPI_SUM);
  figures.bytes_sent = sent[0];
  // The graph stays in the shards (the analysis is distributed too,
  // dist/analysis.hpp): the totals, each rank's count and the memory.
  res_.sharded = true;
  res_.shard_states = states_ - base_;
  std::array<uint64_t, 1> edges{local_.num_edges()};
  link_.allreduce(edges, MPI_UINT64_T, MPI_SUM);
  res_.shard_transitions = edges[0];
  uint64_t owned = local_.num_states();
  figures.rank_states.assign(static_cast<size_t>(link_.size()), 0);
  MPI_Allgather(&owned, 1, MPI_UINT64_T, figures.rank_states.data(), 1, MPI_UINT64_T, link_.collectives());
  // Each rank's graph by part (Memory is its parts, uint64_t each, gathered
  // as they are), and their sum.
  using Memory = engine::StateGraph::Memory;
  constexpr int kParts = sizeof(Memory) / sizeof(uint64_t);
  static_assert(sizeof(Memory) == kParts * sizeof(uint64_t));
  const Memory m = local_.memory();
  figures.rank_memory.resize(static_cast<size_t>(link_.size()));
  MPI_Allgather(&m, kParts, MPI_UINT64_T, figures.rank_memory.data(), kParts, MPI_UINT64_T, link_.collectives());
  res_.memory = {};
  for (const Memory& r : figures.rank_memory) res_.memory += r;
  figures.rank_seconds = {{"expand", times_.expand}, {"send", times_.send}, {"offers", times_.offers},
                          {"phases", times_.phases}, {"commit", times_.commit},
                          {"collectives", link_.seconds_waiting()}};
  std::array<uint64_t, 3> counts{};  // successors, crossing, offers processed (this rank)
  for (const auto& w : workers_) counts = {counts[0] + w->successors, counts[1] + w->crossing, counts[2] + w->offers_in};
  figures.rank0_successors = counts[0];
  figures.rank0_crossing = counts[1];
  figures.rank0_offers_in = counts[2];
  link_.allreduce(counts, MPI_UINT64_T, MPI_SUM);
  figures.successors = counts[0];
  figures.crossing = counts[1];
}

void DistBfs::start_initial() {
  hashing::GlobalState init = system_.initial_state();
  workers_[0]->expander.note_sizes(init);  // (on every rank: the maximum is the same)
  const hashing::SegmentedEncoding& enc = workers_[0]->expander.canonical_encoding(init);
  if (partition_.owner(enc) == partition_.me) {
    auto& tree = local_.store().tree();
    const uint32_t root = engine::intern_growing([&] { return tree.intern(enc); }, [&] { local_.store().grow(); });
    std::vector<uint64_t> labels(local_.label_words());
    local_.labels_of(init, system_, labels.data());
    local_.fill_state(local_.add_states(1), root, labels.data());
    local_.store().bind(root, 0);
    gids_.push_back(base_);
  }
  states_ = base_ + 1;
  if (auto v = system_.check_bounds(init)) {
    res_.violation = v;
    res_.violating_state = base_;
    stop("bound");
  }
}

void DistBfs::run_slice(StateId first, StateId end) {
  first_ = first;
  lfirst_ = next_local_;
  StateId lend = lfirst_;
  while (lend < gids_.size() && gids_[lend] < end) ++lend;
  for (auto& w : workers_) w->replies.clear();
  const uint64_t room = engine::slice_room(opts_.max_states, states_ - base_);
  slice_ = std::make_unique<engine::Slice>(local_, arena_, workers_, lfirst_, lend, first_, room);
  const bool stop_at_violation = opts_.on_bound == engine::OnBound::Stop;

  // Phase 1: expand in rounds of ids, offering successors to their owners.
  int stop_code = 0;
  Vote vote;
  const StateId round = engine::round_sources(threads_) * static_cast<StateId>(ranks_);
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
    vote.start(link_, stop_code, slice_->found_violation(), slice_->new_states());
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
    slice_.reset();
    return;
  }

  // Phase 2: number the new states in sequential BFS order, and commit
  // them; phase 3: every step learns its target, the sources' edges are
  // stored (the kernel's finish, with this rank's numbering).
  Numbering numbering{*this, end, stop_at_violation};
  engine::Slice::Outcome out;
  {
    const double phases_before = times_.phases;
    double whole = 0;
    {
      Timed t(whole);
      out = slice_->finish(numbering);
    }
    times_.commit += whole - (times_.phases - phases_before);
  }
  slice_.reset();
  std::array<uint64_t, 2> sums{out.transitions, out.pruned};
  link_.allreduce(sums, MPI_UINT64_T, MPI_SUM);
  transitions_ += sums[0];
  res_.pruned_states += sums[1];
  const engine::SliceCut& cut = out.cut;
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

std::optional<engine::BoundViolation> DistBfs::bound_of(StateId gid) {
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

bool DistBfs::read_vote(Vote& v, uint64_t room, bool stop_at_violation, int& stop_code) {
  link_.wait(v.requests[0]);
  link_.wait(v.requests[1]);
  v.pending = false;
  v.found = v.sum[0];
  if (v.max[0]) stop_code = static_cast<int>(v.max[0]);
  return v.max[0] || engine::cut_certain(v.sum[0], v.max[1] != 0, room, stop_at_violation);
}

void DistBfs::report_progress(uint64_t found, uint64_t queue) {
  if (me_ != 0 || !opts_.progress || since(last_progress_) < opts_.progress_interval) return;
  last_progress_ = Clock::now();
  opts_.progress({states_ - base_ + found, transitions_, queue + found, opts_.spill ? opts_.spill->bytes() : 0, since(start_)});
}

}  // namespace ddsmc::dist::detail

namespace ddsmc::dist {

engine::ExploreResult explore(const engine::System& system, const engine::ExploreOptions& opts, MPI_Comm comm,
                              std::unique_ptr<Shard>& shard, const Resumed* resumed, engine::StateId id_base) {
  const auto start = detail::Clock::now();
  {
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    checked_id_base(id_base, ranks);  // (the same on every rank: all throw, before any collective)
  }
  engine::ExploreResult res(system.layout(), 1 << 12);
  // The protocol has every rank in every collective: a rank that leaves it
  // on an error it cannot report in-band takes the job down rather than
  // leave the others waiting.
  try {
    detail::DistBfs bfs(system, opts, comm, res, resumed ? std::move(shard) : nullptr, resumed, id_base);
    bfs.run();
    bfs.finish();
    shard = bfs.take_shard();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddsmc: internal error in the distributed exploration: %s\n", e.what());
    MPI_Abort(comm, 3);
  }
  res.seconds = detail::since(start) + (resumed ? resumed->seconds : 0);
  return res;
}

}  // namespace ddsmc::dist
