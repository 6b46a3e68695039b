#include "engine/explore.hpp"

#include <algorithm>
#include <chrono>

#include "engine/successors.hpp"
#include "hashing/visited_set.hpp"

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
  std::pair<StateId, bool> insert(const hashing::CanonicalForm& c, const hashing::GlobalState& s, StateId parent) {
    StateId next = graph_.num_states();
    StateId id = table_.insert(c.fingerprint, next);
    if (id != next) {
      if (graph_.bytes(id) != c.bytes) throw std::runtime_error("128-bit fingerprint collision");
      return {id, false};
    }
    graph_.add_state(c.bytes, s, parent);
    return {id, true};
  }
  bool contains(const hashing::CanonicalForm& c) const { return table_.find(c.fingerprint) != table_.kNone; }

 private:
  StateGraph& graph_;
  hashing::FingerprintTable table_;
};

// Canonical bytes of a state; without fresh constants that is the encoding.
class Canonical {
 public:
  explicit Canonical(const CompiledModel& cm) : cm_(cm), canon_(cm.layout) {}
  // The state about to be expanded: its successors are encoded by patching it.
  void set_base(const hashing::GlobalState& s) {
    if (!cm_.may_have_fresh) hashing::encode_segmented(s, cm_.layout, base_);
  }
  // Fills form; returns the state in canonical naming. `changed` (optional)
  // lists the parts in which s differs from the base.
  const hashing::GlobalState& of(const hashing::GlobalState& s, hashing::CanonicalForm& form,
                                 const std::vector<uint32_t>* changed = nullptr) {
    if (cm_.may_have_fresh) {
      canon_.canonicalize(s, form);
      return form.state;
    }
    if (changed)
      hashing::encode_patched(base_, s, cm_.layout, changed->data(), changed->size(), form.bytes);
    else
      hashing::encode(s, cm_.layout, form.bytes);
    form.fingerprint = hashing::fingerprint(form.bytes);
    ++plain_;
    return s;
  }
  hashing::CanonicalStats stats() const {
    hashing::CanonicalStats st = canon_.stats();
    st.calls += plain_;
    st.fast_path += plain_;
    return st;
  }

 private:
  const CompiledModel& cm_;
  hashing::Canonicalizer canon_;
  hashing::SegmentedEncoding base_;
  uint64_t plain_ = 0;
};

}  // namespace

ExploreResult explore(const CompiledModel& cm, const ExploreOptions& opts) {
  auto start = Clock::now();
  ExploreResult res(cm.layout);
  StateGraph& g = res.graph;
  VisitedSet visited(g);
  Canonical canon(cm);
  SuccessorGenerator gen(cm);
  hashing::CanonicalForm form;

  auto stop = [&](std::string reason) {
    res.complete = false;
    res.incomplete_reason = std::move(reason);
  };

  Cancellation& cancel = opts.cancel ? *opts.cancel : Cancellation::none();
  gen.set_cancellation(&cancel);
  // A stop request or an allocation failure ends the exploration with the
  // graph built so far: the state being expanded keeps no edges (as with
  // max-states), the states it discovered stay. Every StateGraph update is
  // all-or-nothing, so the graph is consistent whatever threw.
  auto expand_all = [&] {
    hashing::GlobalState init = initial_state(cm);
    visited.insert(form, canon.of(init, form), kNoState);
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
      cancel.poll();
      if (!hashing::decode(g.bytes(id), cm.layout, current)) throw std::logic_error("stored state does not decode");
      edges.clear();
      canon.set_base(current);
      // Thrown by the sink to stop generating successors once exploration
      // halts (max-states, a bound): the rest of the state's steps, which
      // may be very many, are never computed.
      struct Halt {};
      auto on_successor = [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepDetail& d) {
        const auto& violation = d.violation;
        if (violation && opts.on_bound == OnBound::Prune) {
          ++res.pruned_states;
          return;
        }
        const hashing::GlobalState& named = canon.of(succ, form, d.changed_parts);
        if (opts.max_states && g.num_states() >= opts.max_states && !visited.contains(form)) {
          stop("max-states");
          throw Halt{};
        }
        auto [target, fresh] = visited.insert(form, named, id);
        edges.push_back(Edge(target, label.arc, label.stable));
        if (violation && fresh) {
          res.violation = violation;
          res.violating_state = target;
          stop("bound");
          throw Halt{};
        }
      };
      try {
        gen.successors(current, on_successor);
      } catch (const Halt&) {
      }
      // Edges are distinct (source, target, arc, stable) tuples.
      std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
        return std::tie(a.target, a.label) < std::tie(b.target, b.label);
      });
      edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
      transitions += edges.size();
      if (res.complete) g.set_edges(id, edges);
      if (opts.progress && since(last_progress) >= opts.progress_interval) {
        last_progress = Clock::now();
        opts.progress({g.num_states(), transitions, g.num_states() - id - 1, since(start)});
      }
    }
  };
  try {
    expand_all();
  } catch (const Cancelled& c) {
    if (res.complete) stop(stop_reason_name(c.reason()));
  } catch (const std::bad_alloc&) {
    if (res.complete) stop(stop_reason_name(StopReason::OutOfMemory));
  }
  res.canonical = canon.stats();
  res.seconds = since(start);
  return res;
}

}  // namespace ddsmc::engine
