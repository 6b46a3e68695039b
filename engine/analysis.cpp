#include "engine/analysis.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <stdexcept>

#include "engine/fair_scc.hpp"
#include "engine/parallel.hpp"

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

Verdict analyze_with(const StateGraph& g, Property p, Fairness f, bool complete, Cancellation& cancel,
                     bool parallel) {
  Verdict v;
  v.property = p;
  switch (p) {
    case Property::SometimesTotal:
    case Property::SometimesPartial: {
      // A converged suffix: stable edges only, between states meeting the
      // fault condition; every explored state is reachable.
      Subgraph sub;
      sub.cancel = &cancel;
      sub.stable_edges_only = true;
      if (p == Property::SometimesTotal)
        sub.keep_state = [&](StateId s) { return !g.any_faulty(s); };
      else
        sub.keep_state = [&](StateId s) { return !g.all_faulty(s); };
      v.lasso = find_fair_scc(g, sub, true, f, false, parallel, v.stats);
      if (v.lasso) v.holds = true;
      else if (complete) v.holds = false;
      break;
    }
    case Property::AlwaysTotal: {
      Subgraph sub;
      sub.cancel = &cancel;
      sub.keep_state = [&](StateId s) { return !g.any_faulty(s); };
      v.lasso = find_fair_scc(g, sub, false, f, true, parallel, v.stats);
      if (v.lasso) v.holds = false;
      else if (complete) v.holds = true;
      break;
    }
    case Property::AlwaysPartial: {
      // Nodes that are never faulty anywhere give the same subgraph: check it once.
      std::vector<char> ever_faulty = ever_faulty_nodes(g, cancel, parallel);
      bool checked_clean = false;
      for (uint32_t n = 0; n < g.num_nodes() && !v.lasso; ++n) {
        if (!ever_faulty[n]) {
          if (checked_clean) continue;
          checked_clean = true;
        }
        Subgraph sub;
        sub.cancel = &cancel;
        sub.keep_state = [&g, n](StateId s) { return !g.faulty(s, n); };
        v.lasso = find_fair_scc(g, sub, false, f, true, parallel, v.stats);
        if (v.lasso) v.node = n;
      }
      if (v.lasso) v.holds = false;
      else if (complete) v.holds = true;
      break;
    }
  }
  return v;
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
