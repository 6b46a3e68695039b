#include "engine/explore.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "engine/successors.hpp"

namespace ddsmc::engine {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The visited set: fingerprint -> id, with the stored bytes compared on a
// hit so that a fingerprint collision can never merge two states.
class VisitedSet {
 public:
  explicit VisitedSet(StateGraph& g) : graph_(g) {}
  // Returns the id and whether it is new.
  std::pair<StateId, bool> insert(const hashing::CanonicalForm& c, StateId parent) {
    auto [it, fresh] = map_.try_emplace(c.fingerprint, kNoState);
    if (!fresh) {
      if (graph_.bytes(it->second) != c.bytes) throw std::runtime_error("128-bit fingerprint collision");
      return {it->second, false};
    }
    it->second = graph_.add_state(c.bytes, c.state, parent);
    return {it->second, true};
  }
  std::optional<StateId> find(const hashing::CanonicalForm& c) const {
    auto it = map_.find(c.fingerprint);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }

 private:
  StateGraph& graph_;
  std::unordered_map<hashing::Fingerprint, StateId, hashing::FingerprintHash> map_;
};

}  // namespace

ExploreResult explore(const CompiledModel& cm, const ExploreOptions& opts) {
  auto start = Clock::now();
  ExploreResult res(cm.layout);
  StateGraph& g = res.graph;
  VisitedSet visited(g);
  hashing::Canonicalizer canon(cm.layout);
  SuccessorGenerator gen(cm);
  hashing::CanonicalForm form;

  auto stop = [&](std::string reason) {
    res.complete = false;
    res.incomplete_reason = std::move(reason);
  };

  hashing::GlobalState init = initial_state(cm);
  canon.canonicalize(init, form);
  visited.insert(form, kNoState);
  if (auto v = check_bounds(init, cm)) {
    res.violation = v;
    res.violating_state = 0;
    stop("bound");
  }

  hashing::GlobalState current;
  std::vector<Edge> edges;
  uint64_t transitions = 0;
  auto last_progress = Clock::now();
  for (StateId id = 0; id < g.num_states() && res.complete; ++id) {
    if (opts.interrupted && opts.interrupted->load(std::memory_order_relaxed)) {
      stop("interrupted");
      break;
    }
    if (!hashing::decode(g.bytes(id), cm.layout, current)) throw std::logic_error("stored state does not decode");
    edges.clear();
    bool halt = false;
    gen.successors(current, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepDetail&) {
      if (halt) return;
      auto violation = check_bounds(succ, cm);
      if (violation && opts.on_bound == OnBound::Prune) {
        ++res.pruned_states;
        return;
      }
      canon.canonicalize(succ, form);
      if (opts.max_states && g.num_states() >= opts.max_states && !visited.find(form)) {
        halt = true;
        stop("max-states");
        return;
      }
      auto [target, fresh] = visited.insert(form, id);
      edges.push_back(Edge{target, label.arc, label.stable});
      if (violation && fresh) {
        res.violation = violation;
        res.violating_state = target;
        halt = true;
        stop("bound");
      }
    });
    // Edges are distinct (source, target, arc, stable) tuples.
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
      return std::tie(a.target, a.arc, a.stable) < std::tie(b.target, b.arc, b.stable);
    });
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    transitions += edges.size();
    if (res.complete) g.set_edges(id, edges);
    if (opts.progress && since(last_progress) >= opts.progress_interval) {
      last_progress = Clock::now();
      opts.progress({g.num_states(), transitions, g.num_states() - id - 1, since(start)});
    }
  }
  res.canonical = canon.stats();
  res.seconds = since(start);
  return res;
}

}  // namespace ddsmc::engine
