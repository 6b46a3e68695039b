#include "engine/d2c/replay_claims.hpp"

#include <fmt/format.h>

#include "engine/fairness.hpp"

namespace ddsmc::engine {
namespace {

using Kind = TraceClaim::Kind;

bool is_witness_property(Property p) { return p == Property::SometimesTotal || p == Property::SometimesPartial; }

// "an always-total counterexample", "a sometimes-partial witness"
std::string claim_name(const TraceClaim& c) {
  return fmt::format("{} {} {}", is_witness_property(c.property) ? "a" : "an", property_name(c.property),
                     c.kind == Kind::Witness ? "witness" : "counterexample");
}

std::string state_name(size_t i, size_t num_steps) {
  if (i == 0) return "the initial state";
  if (i == num_steps) return "the last state";
  return fmt::format("the state before step {}", i);
}

std::string arc_name(const CompiledModel& cm, uint32_t a) {
  const auto& net = cm.model->network;
  return net.name(net.arc(a).src) + " -> " + net.name(net.arc(a).dst);
}

std::string violation_text(const CompiledModel& cm, const BoundViolation& v) {
  const char* plural = v.value == 1 ? "" : "s";
  if (v.kind == BoundViolation::Kind::State)
    return fmt::format("the state bound {} at {} ({} distinct constant{})", v.bound, cm.model->network.name(v.where),
                       v.value, plural);
  return fmt::format("the channel bound {} at {} ({} payload{})", v.bound, arc_name(cm, v.where), v.value, plural);
}

// What a report says of the bound exceeded, in words.
std::string recorded_text(const CompiledModel& cm, const TraceClaim::Bound& b) {
  std::string out = b.kind ? (*b.kind == BoundViolation::Kind::State ? "a state bound" : "a channel bound") : "a bound";
  if (b.bound) out += fmt::format(" of {}", *b.bound);
  if (b.node) out += " at " + cm.model->network.name(*b.node);
  if (b.arc) out += " at " + arc_name(cm, *b.arc);
  if (b.value) out += fmt::format(" with value {}", *b.value);
  return out;
}

bool agrees(const TraceClaim::Bound& b, const BoundViolation& v) {
  using K = BoundViolation::Kind;
  return (!b.kind || *b.kind == v.kind) && (!b.node || (v.kind == K::State && v.where == *b.node)) &&
         (!b.arc || (v.kind == K::Channel && v.where == *b.arc)) && (!b.value || *b.value == v.value) &&
         (!b.bound || *b.bound == v.bound);
}

std::optional<std::string> check_bound(const CompiledModel& cm, const ReplayedRun& run, const TraceClaim& claim,
                                       std::string& verified) {
  size_t n = run.steps.size();
  if (run.first_over_bound && run.first_over_bound->first < n)
    return fmt::format("{} already exceeds {}; a bound trace ends at the first state over a bound",
                       state_name(run.first_over_bound->first, n), violation_text(cm, run.first_over_bound->second));
  // Every bound the last state exceeds, measured as the checker does.
  std::vector<BoundViolation> over;
  std::vector<Word> scratch;
  for (uint32_t node = 0; node < cm.layout.num_nodes; ++node)
    if (auto v = check_db_bound(run.last.dbs[node], node, cm, scratch)) over.push_back(*v);
  for (uint32_t a = 0; a < cm.layout.num_arcs; ++a)
    if (auto v = check_channel_bound(run.last.channels[a], a, cm)) over.push_back(*v);
  if (over.empty()) {
    const auto& b = cm.model->bounds;
    auto text = [](const std::optional<uint32_t>& x) { return x ? std::to_string(*x) : std::string("none"); };
    return fmt::format(
        "the last state exceeds no bound of the model as loaded (state bound {}, channel bound {}); a bound trace ends "
        "at a state over a bound (if the check ran with --state-bound or --channel-bound, give replay the same)",
        text(b.state), text(b.channel));
  }
  for (const auto& v : over)
    if (agrees(claim.bound, v)) {
      verified = fmt::format("the last state exceeds {}, and no earlier state exceeds a bound", violation_text(cm, v));
      return std::nullopt;
    }
  return fmt::format("the report says {}, but the last state exceeds {}", recorded_text(cm, claim.bound),
                     violation_text(cm, over.front()));
}

std::string cycle_name(size_t loop_start, size_t num_steps) {
  if (loop_start + 1 == num_steps) return fmt::format("the cycle (step {})", loop_start);
  return fmt::format("the cycle (steps {}-{})", loop_start, num_steps - 1);
}

std::string first_faulty(const CompiledModel& cm, const StateGraph& g, StateId s) {
  for (uint32_t node = 0; node < g.num_nodes(); ++node)
    if (g.faulty(s, node)) return cm.model->network.name(node);
  return "?";
}

// The fairness condition on the cycle; its description in `fair` when it holds.
std::optional<std::string> check_fair(const CompiledModel& cm, const ReplayedRun& run, Fairness f,
                                      const std::string& cycle, std::string& fair) {
  ArcCoverage arcs(cm.layout.num_arcs, f);
  for (size_t i = *run.loop_start; i < run.steps.size(); ++i) {
    arcs.visit(run.states, static_cast<StateId>(i));
    arcs.serve(run.steps[i].arc);
  }
  if (auto left = arcs.uncovered(); !left.empty()) {
    std::string names;
    for (uint32_t a : left) names += (names.empty() ? "" : ", ") + arc_name(cm, a);
    return fmt::format(
        "{} is not fair under channel fairness: channel{} {} {} never empty on it and none of its steps "
        "serves {}",
        cycle, left.size() == 1 ? "" : "s", names, left.size() == 1 ? "is" : "are", left.size() == 1 ? "it" : "them");
  }
  fair = f == Fairness::Channel ? "is fair under channel fairness" : "needs no fairness condition (fairness none)";
  return std::nullopt;
}

std::optional<std::string> check_witness(const CompiledModel& cm, const ReplayedRun& run, const TraceClaim& claim,
                                         const std::string& cycle, std::string& verified) {
  const StateGraph& g = run.states;
  bool total = claim.property == Property::SometimesTotal;
  for (size_t i = *run.loop_start; i < run.steps.size(); ++i) {
    auto s = static_cast<StateId>(i);
    if (!run.steps[i].stable)
      return fmt::format("step {}, in {}, is not stable; the cycle of {} has only stable steps", i, cycle,
                         claim_name(claim));
    if (total && g.any_faulty(s))
      return fmt::format("{} is faulty in {}, in {}; no node is faulty in the cycle of {}", first_faulty(cm, g, s),
                         state_name(i, run.steps.size()), cycle, claim_name(claim));
    if (!total && g.all_faulty(s))
      return fmt::format("every node is faulty in {}, in {}; in the cycle of {} some node is not faulty",
                         state_name(i, run.steps.size()), cycle, claim_name(claim));
  }
  std::string fair;
  if (auto problem = check_fair(cm, run, claim.fairness, cycle, fair)) return problem;
  verified = fmt::format("{} is stable, {}, and {}", cycle,
                         total ? "has no faulty node" : "has a node that is not faulty in each state", fair);
  return std::nullopt;
}

std::optional<std::string> check_counterexample(const CompiledModel& cm, const ReplayedRun& run,
                                                const TraceClaim& claim, const std::string& cycle,
                                                std::string& verified) {
  const StateGraph& g = run.states;
  bool total = claim.property == Property::AlwaysTotal;
  if (!total && !claim.never_faulty) return "an always-partial counterexample must name the node that is never faulty";
  const std::string node = total ? std::string() : cm.model->network.name(*claim.never_faulty);
  for (StateId s = 0; s < g.num_states(); ++s) {
    if (total && g.any_faulty(s))
      return fmt::format("{} is faulty in {}; no node is ever faulty in {}", first_faulty(cm, g, s),
                         state_name(s, run.steps.size()), claim_name(claim));
    if (!total && g.faulty(s, *claim.never_faulty))
      return fmt::format("{} is faulty in {}, but {} says it is never faulty", node, state_name(s, run.steps.size()),
                         claim_name(claim));
  }
  bool unstable = false;
  for (size_t i = *run.loop_start; i < run.steps.size(); ++i) unstable |= !run.steps[i].stable;
  if (!unstable) return fmt::format("{} has no non-stable step; {} needs one", cycle, claim_name(claim));
  std::string fair;
  if (auto problem = check_fair(cm, run, claim.fairness, cycle, fair)) return problem;
  verified = fmt::format("{}, and {} has a non-stable step and {}",
                         total ? "no node is ever faulty" : node + " is never faulty", cycle, fair);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_claim(const CompiledModel& cm, const ReplayedRun& run, const TraceClaim& claim,
                                       std::string& verified) {
  if (claim.kind == Kind::None) return std::nullopt;
  if (claim.kind == Kind::Bound) return check_bound(cm, run, claim, verified);
  bool witness = claim.kind == Kind::Witness;
  if (witness != is_witness_property(claim.property))
    return witness ? fmt::format("{} fails with a counterexample; a witness shows sometimes-total or sometimes-partial",
                                 property_name(claim.property))
                   : fmt::format("{} holds with a witness; a counterexample refutes always-total or always-partial",
                                 property_name(claim.property));
  if (!run.loop_start) return fmt::format("{} is a lasso, but 'loop_start' is null", claim_name(claim));
  std::string cycle = cycle_name(*run.loop_start, run.steps.size());
  return witness ? check_witness(cm, run, claim, cycle, verified)
                 : check_counterexample(cm, run, claim, cycle, verified);
}

}  // namespace ddsmc::engine
