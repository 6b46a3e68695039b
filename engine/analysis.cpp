#include "engine/analysis.hpp"

#include <algorithm>
#include <atomic>

#include "engine/fair_scc.hpp"
#include "engine/parallel.hpp"
#include "engine/properties.hpp"

namespace ddsmc::engine {
namespace {

// The nodes faulty in some state (a parallel sweep, or a loop).
std::vector<char> ever_faulty_nodes(const StateGraph& g, Cancellation& cancel, bool parallel) {
  if (!parallel) {
    std::vector<char> out(g.num_nodes(), 0);
    for (StateId s = 0; s < g.num_states(); ++s) {
      cancel.poll();
      for (uint32_t n = 0; n < g.num_nodes(); ++n)
        if (g.faulty(s, n)) out[n] = 1;
    }
    return out;
  }
  std::vector<std::atomic<char>> seen(g.num_nodes());
  for (auto& x : seen) x.store(0, std::memory_order_relaxed);
  cancel.poll();
  const int slots = std::max(1, tbb::this_task_arena::max_concurrency());
  std::vector<Cancellation> polls(static_cast<size_t>(slots), cancel);
  parallel_for(StateId{0}, g.num_states(), 4096, [&](const tbb::blocked_range<StateId>& r) {
    polls.at(worker_slot()).poll();
    for (StateId s = r.begin(); s != r.end(); ++s)
      for (uint32_t n = 0; n < g.num_nodes() && g.any_faulty(s); ++n)
        if (g.faulty(s, n) && !seen[n].load(std::memory_order_relaxed)) seen[n].store(1, std::memory_order_relaxed);
  });
  std::vector<char> out(g.num_nodes());
  for (uint32_t n = 0; n < g.num_nodes(); ++n) out[n] = seen[n].load();
  return out;
}

// The property's table (engine/properties.hpp) over this graph's searches.
Verdict analyze_with(const StateGraph& g, Property p, Fairness f, bool complete, Cancellation& cancel,
                     bool parallel) {
  auto ever_faulty = [&] { return ever_faulty_nodes(g, cancel, parallel); };
  auto find = [&](const Subgraph& h, AnalysisStats& stats, std::optional<Lasso>& lasso) {
    lasso = find_fair_scc(g, h, f, parallel, stats);
    return lasso.has_value();
  };
  return decide(g, p, complete, cancel, ever_faulty, find);
}

}  // namespace

const char* property_name(Property p) {
  switch (p) {
    case Property::SometimesTotal: return "sometimes-total";
    case Property::SometimesPartial: return "sometimes-partial";
    case Property::AlwaysTotal: return "always-total";
    case Property::AlwaysPartial: return "always-partial";
  }
  return "?";
}

const char* property_json_key(Property p) {
  switch (p) {
    case Property::SometimesTotal: return "sometimes_total";
    case Property::SometimesPartial: return "sometimes_partial";
    case Property::AlwaysTotal: return "always_total";
    case Property::AlwaysPartial: return "always_partial";
  }
  return "?";
}

Verdict analyze(const StateGraph& g, Property p, Fairness f, bool complete, Cancellation& cancel) {
  return analyze_with(g, p, f, complete, cancel, true);
}

Verdict analyze_sequential(const StateGraph& g, Property p, Fairness f, bool complete, Cancellation& cancel) {
  return analyze_with(g, p, f, complete, cancel, false);
}

}  // namespace ddsmc::engine
