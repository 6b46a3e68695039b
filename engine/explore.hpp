// Breadth-first exploration of the state space up to isomorphism (SPEC
// sections 2-3): the sequential back-end. Ids follow BFS order, so parent
// links give shortest paths (used for the bound-violation trace).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "engine/bounds.hpp"
#include "engine/cancel.hpp"
#include "engine/compile.hpp"
#include "engine/state_graph.hpp"
#include "hashing/canonical.hpp"

namespace ddsmc::engine {

enum class OnBound : uint8_t { Stop, Prune };

struct ExploreProgress {
  uint64_t states = 0, transitions = 0, queue = 0;
  double seconds = 0;
};

struct ExploreOptions {
  uint64_t max_states = 0;  // 0: no limit
  OnBound on_bound = OnBound::Stop;
  // Polled before each state and inside each expansion: a stop request ends
  // the exploration with reason "interrupted" or "out-of-memory". nullptr:
  // Cancellation::none().
  Cancellation* cancel = nullptr;
  std::function<void(const ExploreProgress&)> progress;  // called every ~2 s
  double progress_interval = 2.0;
};

struct ExploreResult {
  explicit ExploreResult(const hashing::StateLayout& layout) : graph(layout) {}
  StateGraph graph;
  bool complete = true;
  // "bound", "max-states", "interrupted", "out-of-memory" (a Cancelled
  // stop, or std::bad_alloc during the exploration; the graph stays valid)
  std::string incomplete_reason;
  std::optional<BoundViolation> violation;   // with on_bound=stop
  StateId violating_state = kNoState;        // in the graph, with its parent chain
  uint64_t pruned_states = 0;                // successors cut by on_bound=prune (with repeats)
  hashing::CanonicalStats canonical;
  double seconds = 0;
};

ExploreResult explore(const CompiledModel& cm, const ExploreOptions& opts);

}  // namespace ddsmc::engine
