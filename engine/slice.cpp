#include "engine/slice.hpp"

namespace ddsmc::engine {

void Slice::commit(const std::vector<uint32_t>& kept) {
  if (graph_.num_states() + kept.size() > kMaxLocalStates)
    throw std::length_error("more than 2^31 - 2 states in one process (a rank of a distributed check holds at most "
                            "that many: use more ranks)");
  const StateId base = graph_.add_states(kept.size());
  arena_.execute([&] {
    parallel_for(size_t{0}, kept.size(), 256, [&](const tbb::blocked_range<size_t>& r) {
      for (size_t i = r.begin(); i < r.end(); ++i) {
        const NewState& n = new_[kept[i]];
        graph_.fill_state(base + static_cast<StateId>(i), n.root, n.labels());
        store_.bind(n.root, static_cast<uint32_t>(base + i));  // (below kMaxLocalStates)
      }
    });
  });
}

void Slice::write_rows(StateId last, Outcome& out) {
  // Targets renumbered, rows sorted and deduplicated in place, sized, then
  // encoded into the graph.
  std::vector<uint32_t> counts(last - first_), sizes(last - first_);
  arena_.execute([&] {
    parallel_for(first_, last, 64, [&](const tbb::blocked_range<StateId>& r) {
      for (StateId s = r.begin(); s < r.end(); ++s) {
        const Span& span = spans_[s - first_];
        if (!span.expanded) throw std::logic_error("slice finished with an unexpanded state");
        auto& buf = *buffers_[span.worker];
        auto b = buf.begin() + static_cast<std::ptrdiff_t>(span.begin);
        auto e = buf.begin() + static_cast<std::ptrdiff_t>(span.end);
        for (auto it = b; it != e; ++it) {
          if (it->target == kNoState) throw std::logic_error("slice: a step without its target");
          if (it->target & kProvisionalTarget) it->target = ids_[it->target & ~kProvisionalTarget];
          if (it->target == kNoState) throw std::logic_error("slice: a kept step leads to a dropped state");
        }
        counts[s - first_] = make_row(b, e);
        sizes[s - first_] = graph_.edge_bytes(s, {b, counts[s - first_]});
      }
    });
  });
  if (last > first_) graph_.add_edges(first_, counts, sizes);
  arena_.execute([&] {
    parallel_for(first_, last, 64, [&](const tbb::blocked_range<StateId>& r) {
      for (StateId s = r.begin(); s < r.end(); ++s) {
        const Span& span = spans_[s - first_];
        const auto& buf = *buffers_[span.worker];
        graph_.write_edges(s, {buf.begin() + static_cast<std::ptrdiff_t>(span.begin), counts[s - first_]});
      }
    });
  });
  for (uint32_t c : counts) out.transitions += c;
  for (StateId s = first_; s < last; ++s) out.pruned += spans_[s - first_].pruned;
}

}  // namespace ddsmc::engine
