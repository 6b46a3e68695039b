#include "engine/level.hpp"

#include <algorithm>

#include "engine/parallel.hpp"

namespace ddsmc::engine {

std::vector<uint32_t> KeyOrder::bfs_order(Slice& slice) {
  // Bucketed by parent (a counting sort over the slice's sources), then
  // each parent's few children by ordinal.
  const size_t n = slice.new_states(), sources = slice.end() - slice.first();
  auto parent = [&](size_t i) { return static_cast<size_t>(key_source(slice.new_state(i).key)); };
  std::vector<uint32_t> start(sources + 1, 0);
  for (size_t i = 0; i < n; ++i) ++start[parent(i) + 1];
  for (size_t p = 1; p < start.size(); ++p) start[p] += start[p - 1];
  std::vector<uint32_t> order(n), next(start.begin(), start.end() - 1);
  for (size_t i = 0; i < n; ++i) order[next[parent(i)]++] = static_cast<uint32_t>(i);
  slice.arena().execute([&] {
    parallel_for(size_t{0}, sources, 1024, [&](const tbb::blocked_range<size_t>& r) {
      for (size_t p = r.begin(); p < r.end(); ++p)
        std::sort(order.begin() + start[p], order.begin() + start[p + 1],
                  [&](uint32_t a, uint32_t b) { return slice.new_state(a).key < slice.new_state(b).key; });
    });
  });
  return order;
}

Numbered KeyOrder::number(Slice& slice) {
  Numbered out;
  out.kept = bfs_order(slice);
  SliceCut& cut = out.cut;
  cut.keep = out.kept.size();
  if (cut.keep > slice.room()) {  // the first new state past the limit halts, and is not added
    cut.keep = slice.room();
    cut.max_states = true;
    cut.halted = slice.source_of(slice.new_state(out.kept[cut.keep]).key);
  }
  if (stop_at_violation_ && slice.found_violation()) {  // the first state over a bound halts, and is added
    for (size_t i = 0; i < cut.keep; ++i) {
      const Slice::NewState& n = slice.new_state(out.kept[i]);
      if (!n.violating) continue;
      cut.keep = i + 1;
      cut.max_states = false;
      cut.halted = slice.source_of(n.key);
      cut.violating = graph_.num_states() + static_cast<StateId>(i);
      break;
    }
  }
  out.kept.resize(cut.keep);
  for (size_t i = 0; i < out.kept.size(); ++i) slice.ids()[out.kept[i]] = graph_.num_states() + static_cast<StateId>(i);
  return out;
}

}  // namespace ddsmc::engine
