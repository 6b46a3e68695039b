#include "engine/level.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "engine/parallel.hpp"

namespace ddsmc::engine {

void Level::expand(StateId source, Expander& expander, Edges& out, uint32_t worker) {
  Span& span = spans_[source - first_];
  span.worker = worker;
  span.begin = out.edges.size();
  const uint64_t pruned_before = expander.pruned();
  uint32_t ordinal = 0;
  uint64_t claimed = 0;  // new states this source's steps claimed
  try {
    expand_steps(source, expander, out, ordinal, claimed);
  } catch (const ExpansionCut&) {
    // The cut-off falls within this source's steps: the rest cannot matter.
  }
  span.end = out.edges.size();
  span.pruned = expander.pruned() - pruned_before;
  span.expanded = true;
}

void Level::expand_steps(StateId source, Expander& expander, Edges& out, uint32_t& ordinal, uint64_t& claimed) {
  expander.expand(graph_.root(source), [&](const Candidate& c) {
    const uint64_t key = uint64_t{source} << 32 | ordinal++;
    auto made = [&]() -> uint32_t {
      NewState n{c.root, c.violating, key, 0, nullptr};
      if (graph_.label_words() > 1) n.more_labels = std::make_unique<uint64_t[]>(graph_.label_words());
      graph_.labels_of(*c.state, system_, n.more_labels ? n.more_labels.get() : &n.label);
      auto it = new_.push_back(std::move(n));
      const auto index = static_cast<uint64_t>(it - new_.begin());
      // (kProvisional | index stays below the store's reserved references)
      if (index >= kProvisional - 2) throw std::length_error("more than 2^31 new states in one BFS level");
      if (c.violating) violation_.store(true, std::memory_order_relaxed);
      return kProvisional | static_cast<uint32_t>(index);
    };
    auto r = store_.find_or_claim(c.root, made);
    if (!r.inserted && (r.ref & kProvisional)) {
      // Keep the least key of every step that reaches the state.
      lower_discovery_key(new_[r.ref & ~kProvisional].key, key);
    }
    out.edges.emplace_back(r.ref, c.label);
    if (r.inserted && ++claimed > room_) throw ExpansionCut{};
  });
}

std::vector<uint32_t> Level::bfs_order() const {
  // Bucketed by parent (a counting sort over the frontier), then each
  // parent's few children by ordinal.
  const size_t n = new_.size();
  std::vector<uint32_t> start(spans_.size() + 1, 0);
  for (size_t i = 0; i < n; ++i) ++start[(new_[i].key >> 32) - first_ + 1];
  for (size_t p = 1; p < start.size(); ++p) start[p] += start[p - 1];
  std::vector<uint32_t> order(n), next(start.begin(), start.end() - 1);
  for (size_t i = 0; i < n; ++i) order[next[(new_[i].key >> 32) - first_]++] = static_cast<uint32_t>(i);
  parallel_for(size_t{0}, spans_.size(), 1024, [&](const tbb::blocked_range<size_t>& r) {
    for (size_t p = r.begin(); p < r.end(); ++p)
      std::sort(order.begin() + start[p], order.begin() + start[p + 1],
                [&](uint32_t a, uint32_t b) { return new_[a].key < new_[b].key; });
  });
  return order;
}

Level::Outcome Level::finish(std::vector<Edges*>& workers, uint64_t room, bool stop_at_violation) {
  Outcome outcome;
  // The new states in sequential BFS order, and where a cut-off falls.
  std::vector<uint32_t> order = bfs_order();
  size_t keep = order.size();
  std::optional<StateId> halted;
  if (keep > room) {  // the first new state past the limit halts, and is not added
    keep = static_cast<size_t>(room);
    outcome.max_states = true;
    halted = static_cast<StateId>(new_[order[keep]].key >> 32);
  }
  if (stop_at_violation && violation_.load()) {  // the first state over a bound halts, and is added
    for (size_t i = 0; i < keep; ++i) {
      if (!new_[order[i]].violating) continue;
      keep = i + 1;
      outcome.max_states = false;
      halted = static_cast<StateId>(new_[order[i]].key >> 32);
      outcome.violating = graph_.num_states() + static_cast<StateId>(i);
      outcome.violating_parent = *halted;
      break;
    }
  }

  // Commit the states kept, in that order, and renumber them in the store.
  const StateId base = graph_.add_states(keep);
  std::vector<StateId> final_id(new_.size(), kNoState);
  for (size_t i = 0; i < keep; ++i) final_id[order[i]] = base + static_cast<StateId>(i);
  parallel_for(size_t{0}, keep, 256, [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i < r.end(); ++i) {
      const NewState& n = new_[order[i]];
      graph_.fill_state(base + static_cast<StateId>(i), n.root, n.labels());
      store_.bind(n.root, base + static_cast<StateId>(i));
    }
  });

  // The edges of the frontier up to the state a cut-off interrupts (that
  // one keeps none: it was not fully expanded, as in sequential BFS):
  // targets renumbered, sorted and deduplicated in place, sized, then
  // encoded into the graph.
  const StateId last = halted ? *halted : end();
  std::vector<uint32_t> counts(last - first_), row_bytes(last - first_);
  parallel_for(first_, last, 64, [&](const tbb::blocked_range<StateId>& r) {
    for (StateId s = r.begin(); s < r.end(); ++s) {
      const Span& span = spans_[s - first_];
      if (!span.expanded) throw std::logic_error("level finished with an unexpanded state");
      auto& buf = workers[span.worker]->edges;
      auto b = buf.begin() + static_cast<std::ptrdiff_t>(span.begin);
      auto e = buf.begin() + static_cast<std::ptrdiff_t>(span.end);
      for (auto it = b; it != e; ++it)
        if (it->target & kProvisional) it->target = final_id[it->target & ~kProvisional];
      counts[s - first_] = make_row(b, e);
      row_bytes[s - first_] = graph_.edge_bytes(s, {b, counts[s - first_]});
    }
  });
  if (last > first_) graph_.add_edges(first_, counts, row_bytes);
  parallel_for(first_, last, 64, [&](const tbb::blocked_range<StateId>& r) {
    for (StateId s = r.begin(); s < r.end(); ++s) {
      const Span& span = spans_[s - first_];
      const auto& buf = workers[span.worker]->edges;
      auto b = buf.begin() + static_cast<std::ptrdiff_t>(span.begin);
      graph_.write_edges(s, {b, counts[s - first_]});
    }
  });
  for (uint32_t c : counts) outcome.transitions += c;
  for (StateId s = first_; s < last; ++s) outcome.pruned += spans_[s - first_].pruned;
  return outcome;
}

}  // namespace ddsmc::engine
