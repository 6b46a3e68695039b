#include "dist/bfs.hpp"

namespace ddsmc::dist::detail {

engine::Numbered DistBfs::number(StateId end, bool stop_at_violation) {
  engine::Slice& slice = *slice_;
  std::vector<StateId>& ids = slice.ids();
  const uint64_t room = slice.room();
  std::vector<Found> found;
  for (auto& w : workers_)
    for (const Reply& r : w->replies) {
      if (!(r.ref & kProvisionalTarget)) continue;
      const auto index = static_cast<uint32_t>(r.ref & ~kProvisionalTarget);
      if (slice.new_state(index).key != engine::discovery_key(r.source_in_slice, r.ordinal)) continue;
      if (int(r.rank) == me_) {  // this rank's own step: no record
        found.push_back({first_ + r.source_in_slice, r.ordinal, me_, index});
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

  engine::Numbered out;
  engine::SliceCut& cut = out.cut;
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
        ids[found[i].index] = gid;
        continue;
      }
      rec_.clear();
      Writer out(rec_);
      out.u32(found[i].index);
      out.varint(gid);
      link_.post(found[i].owner, kAssign, rec_);
    }
  }
  link_.finish_phase(kAssign, [&](RecordBatch& b) {
    for (size_t i = 0; i < b.size(); ++i) {
      Reader in(b.record(i));
      const uint32_t index = in.u32();
      ids[index] = in.varint();
    }
  });
  if (stop_at_violation) {  // the first state over a bound halts, and is added
    // (its id, from the slice's first new one) << 32 | its discoverer's
    // position in the slice: both below 2^31.
    std::array<uint64_t, 1> least{~uint64_t{0}};
    for (size_t i = 0; i < ids.size(); ++i) {
      const engine::Slice::NewState& n = slice.new_state(i);
      if (n.violating && ids[i] < states_ + cut.keep)
        least[0] = std::min(least[0], (ids[i] - states_) << 32 | engine::key_source(n.key));
    }
    link_.allreduce(least, MPI_UINT64_T, MPI_MIN);
    if (least[0] != ~uint64_t{0}) {
      cut.violating = states_ + (least[0] >> 32);
      cut.halted = first_ + (least[0] & 0xffffffffu);
      cut.keep = cut.violating - states_ + 1;
      cut.max_states = false;
    }
  }
  // This rank's kept states, in id order.
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < states_ + cut.keep) out.kept.push_back(static_cast<uint32_t>(i));
  std::sort(out.kept.begin(), out.kept.end(), [&](uint32_t a, uint32_t b) { return ids[a] < ids[b]; });
  return out;
}

StateId DistBfs::committed(const engine::Numbered& n, StateId end) {
  new_locals_.assign(slice_->new_states(), engine::kNoLocal);
  for (uint32_t i : n.kept) {
    new_locals_[i] = static_cast<uint32_t>(gids_.size());
    gids_.push_back(slice_->ids()[i]);
  }
  states_ += static_cast<StateId>(n.cut.keep);
  const StateId last = n.cut.halted != kNoState ? n.cut.halted : end;
  {
    Timed t(times_.phases);
    tell_targets(last);
  }
  StateId llast = lfirst_;
  while (llast < slice_->end() && gids_[llast] < last) ++llast;
  return llast;
}

void DistBfs::tell_targets(StateId last) {
  for (auto& w : workers_)
    for (const Reply& r : w->replies) {
      if (first_ + r.source_in_slice >= last) continue;
      StateId target = r.ref;  // its handle
      if (r.ref & kProvisionalTarget) {
        const size_t index = r.ref & ~kProvisionalTarget;
        if (new_locals_[index] == engine::kNoLocal) throw std::logic_error("dist: a kept step leads to a dropped state");
        target = handles_.of(new_locals_[index]);
      }
      if (int(r.rank) == me_) {
        slice_->set_target(r.source_local, r.ordinal, target);
        continue;
      }
      rec_.clear();
      Writer out(rec_);
      out.u32(r.source_local);
      out.u32(r.ordinal);
      out.varint(target);
      link_.post(int(r.rank), kReply, rec_);
    }
  link_.finish_phase(kReply, [&](RecordBatch& b) {
    for (size_t i = 0; i < b.size(); ++i) {
      Reader in(b.record(i));
      const uint32_t source_local = in.u32(), ordinal = in.u32();
      const StateId target = in.varint();
      slice_->set_target(source_local, ordinal, target);
    }
  });
}

}  // namespace ddsmc::dist::detail
