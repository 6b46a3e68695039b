#include "dist/bfs.hpp"

namespace ddsmc::dist::detail {

void DistBfs::expand(StateId la, StateId lb) {
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

void DistBfs::expand_one(StateId s, Worker& w, uint32_t slot) {
  Span& span = spans_[s - lfirst_];
  span.worker = slot;
  span.begin = w.edges.size();
  const uint64_t pruned_before = w.expander.pruned();
  {
    struct Closer {  // the source's offer units end with its expansion, however it ends
      Worker& w;
      ~Closer() { w.offers.close(w.out); }
    } closer{w};
    try {
      expand_steps(s, w);
    } catch (const engine::ExpansionCut&) {
      // The cut-off falls within this source's steps (engine/level.hpp).
    }
  }
  span.end = w.edges.size();
  span.pruned = w.expander.pruned() - pruned_before;
  span.expanded = true;
}

void DistBfs::expand_steps(StateId s, Worker& w) {
  const StateId source = gids_[s];
  uint32_t ordinal = 0;
  uint64_t claimed = 0;  // new states this rank claimed for the source's steps
  w.expander.expand_partitioned(local_.root(s), partition_, [&](const Candidate& c) {
    bool inserted = false;
    if (c.owner == partition_.me) {
      inserted = claim(c.root, c.violating, [&](uint64_t* out) { local_.labels_of(*c.state, system_, out); },
                       {uint32_t(me_), s, source, ordinal, 0}, w);
    } else {
      local_.labels_of(*c.state, system_, w.labels.data());
      w.offers.add(w.out, s, source, ordinal, c, w.labels);
    }
    ++ordinal;
    w.edges.emplace_back(kNoState, c.label);
    if (inserted && ++claimed > room_) throw engine::ExpansionCut{};
  });
}

void DistBfs::send_outboxes() {
  for (auto& w : workers_)
    for (int to = 0; to < ranks_; ++to) {
      link_.send_bundle(to, w->out[size_t(to)]);
    }
}

void DistBfs::process_offers(const RecordBatch& b) {
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

void DistBfs::offer_unit(std::span<const uint8_t> record, int from, Worker& w, uint32_t& done) {
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

template <class Labels>
bool DistBfs::claim(uint32_t root, bool violating, Labels&& labels, Reply step, Worker& w) {
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
    engine::lower_discovery_key(new_[claim.ref & ~kProvisional].key, key);
  }
  step.ref = (claim.ref & kProvisional) ? claim.ref : gids_[claim.ref];
  w.replies.push_back(step);
  return claim.inserted;
}

}  // namespace ddsmc::dist::detail
