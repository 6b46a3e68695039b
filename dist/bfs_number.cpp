#include "dist/bfs.hpp"

namespace ddsmc::dist::detail {

DistBfs::Cut DistBfs::number(StateId end, uint64_t room, bool stop_at_violation) {
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

void DistBfs::commit(uint64_t keep) {
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

void DistBfs::tell_targets(StateId last) {
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

void DistBfs::store_edges(StateId last) {
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
        counts[s - lfirst_] = engine::make_row(b, e);
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

}  // namespace ddsmc::dist::detail
