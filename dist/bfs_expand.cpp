#include "dist/bfs.hpp"

namespace ddsmc::dist::detail {

void DistBfs::expand(StateId la, StateId lb) {
  slice_->expand_round(
      workers_, la, lb,
      [&](StateId s, Worker& w, uint32_t slot) {
        w.cancel.poll();
        Router router{*this, w, w.expander};
        slice_->expand(s, gids_[s], router, slot);
      },
      [&] { grow_store(); });
}

template <class Labels>
bool DistBfs::claim(uint32_t root, bool violating, Labels&& labels, Reply step, Worker& w) {
  const engine::StateStore::Claim claim =
      slice_->claim(root, violating, engine::discovery_key(step.source_in_slice, step.ordinal), labels);
  step.ref = (claim.ref & kProvisional) ? engine::provisional_target(claim.ref) : handles_.of(claim.ref);
  w.replies.push_back(step);
  return claim.inserted;
}

engine::Routed DistBfs::Router::route(const Candidate& c, StateId source, uint64_t key) {
  const StateId gid = bfs.slice_->source_of(key);
  const auto ordinal = static_cast<uint32_t>(key);
  ++w.successors;
  if (c.here) {
    const bool inserted =
        bfs.claim(c.root, c.violating, [&](uint64_t* out) { bfs.local_.labels_of(*c.state, bfs.system_, out); },
                  {uint32_t(bfs.me_), static_cast<uint32_t>(source), ordinal, static_cast<uint32_t>(engine::key_source(key)), 0}, w);
    return {kNoState, inserted};
  }
  ++w.crossing;
  bfs.local_.labels_of(*c.state, bfs.system_, w.labels.data());
  w.offers.add(w.out, bfs.partition_.owner(c.place), static_cast<uint32_t>(source), gid, ordinal, c, w.labels);
  return {kNoState, false};
}

void DistBfs::send_outboxes() {
  for (auto& w : workers_)
    for (int to = 0; to < ranks_; ++to) {
      link_.send_bundle(to, w->out[size_t(to)]);
    }
}

void DistBfs::process_offers(const RecordBatch& b) {
  std::vector<uint32_t> done(b.size(), 0);  // per unit: its offers processed
  engine::redo_when_full(
      [&] {
        arena_.execute([&] {
          engine::parallel_for(size_t{0}, b.size(), 8, [&](const tbb::blocked_range<size_t>& r) {
            const uint32_t slot = engine::worker_slot();
            for (size_t i = r.begin(); i < r.end(); ++i) offer_unit(b.record(i), b.recs[i].from, *workers_[slot], done[i]);
          });
        });
      },
      [] {}, [&] { grow_store(); });
}

void DistBfs::offer_unit(std::span<const uint8_t> record, int from, Worker& w, uint32_t& done) {
  hashing::TreeStore& tree = local_.store().tree();
  UnitReader unit(record, tree.parts(), local_.label_words(), w.unit);
  uint32_t* cache = w.subtrees.start(tree, unit.base, unit.base_begin());
  for (uint32_t k = 0; unit.next(); ++k) {
    if (k < done) continue;
    // Throws TreeStoreFull before anything but the store (and the cache's
    // ids, which stay valid) changed.
    const uint32_t root = tree.intern_overlay(unit.base, unit.base_begin(), cache, unit.changed());
    claim(root, unit.violating, [&](uint64_t* out) { std::copy(unit.labels().begin(), unit.labels().end(), out); },
          {uint32_t(from), unit.source_local, unit.ordinal, static_cast<uint32_t>(unit.source - first_), 0}, w);
    ++done;
    ++w.offers_in;
  }
}

}  // namespace ddsmc::dist::detail
