#include "engine/d2c/replay.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/d2c/replay_claims.hpp"
#include "engine/d2c/system.hpp"
#include "hashing/canonical.hpp"

namespace ddsmc::engine {
namespace {

using Runs = std::vector<std::vector<Word>>;

bool channel_has(const std::vector<Word>& ch, const std::vector<Word>& fact, const hashing::StateLayout& layout) {
  for (size_t i = 0; i < ch.size();) {
    size_t len = layout.fact_words(ch[i]);
    if (std::equal(ch.begin() + i, ch.begin() + i + len, fact.begin(), fact.end())) return true;
    i += len + 1;
  }
  return false;
}

// The state after node `arc.dst` served `payload` on `arc_id` with outcome `r`.
hashing::GlobalState apply(const CompiledModel& cm, const hashing::GlobalState& cur, uint32_t arc_id,
                           const std::vector<Word>& payload, const StepResult& r) {
  const model::Arc arc = cm.model->network.arc(arc_id);
  hashing::GlobalState next = cur;
  next.dbs[arc.dst] = r.db;
  channel_remove(next.channels[arc_id], payload.data(), cm.layout);
  std::vector<uint32_t> touched;
  send_messages(next, arc.dst, r.sent, cm, touched);
  return next;
}

// Replays one step from `cur` into `next`; returns what is wrong with it, if anything.
class StepReplayer {
 public:
  explicit StepReplayer(const CompiledModel& cm) : cm_(cm), eval_(cm) {}

  std::optional<std::string> step(const hashing::GlobalState& cur, const ReplayStep& st, size_t position,
                                  hashing::GlobalState& next, std::optional<ConcreteStep>& computed) {
    if (st.index != position) return fmt::format("'index' is {}, but this is step {}", st.index, position);
    if (st.arc == kIdleArc) return idle(cur, st, next);
    const auto& layout = cm_.layout;
    const auto& net = cm_.model->network;
    if (st.idle) return "'idle' is true, but the step serves a channel";
    if (st.arc >= layout.num_arcs) return "no such channel";
    const model::Arc arc = net.arc(st.arc);
    if (st.node != arc.dst)
      return fmt::format("'node' is {}, but the channel {} -> {} is served by {}", net.name(st.node), net.name(arc.src),
                         net.name(arc.dst), net.name(arc.dst));
    if (st.payload.empty() || !channel_has(cur.channels[st.arc], st.payload, layout))
      return "the channel does not hold that payload";
    size_t input_facts = hashing::sorted_runs(st.input, 0, layout).size();
    if (input_facts > cm_.model->bounds.input)
      return fmt::format("the input has {} facts, more than the input bound {}", input_facts, cm_.model->bounds.input);
    for (size_t i = 0; i < st.input.size(); i += layout.fact_words(st.input[i]))
      if (cm_.model->pred(st.input[i]).kind != model::PredKind::Input)
        return "an input fact is not of an input predicate";
    std::vector<Word> input = st.input;
    hashing::normalize_db(input, layout);

    // The recorded effect: the new DB and the messages, as sets.
    Runs old_db = hashing::sorted_runs(cur.dbs[arc.dst], 0, layout);
    Runs added = hashing::sorted_runs(st.added, 0, layout), removed = hashing::sorted_runs(st.removed, 0, layout);
    for (const auto& f : removed)
      if (!std::binary_search(old_db.begin(), old_db.end(), f)) return "a removed fact is not in the node's DB";
    for (const auto& f : added)
      if (std::binary_search(old_db.begin(), old_db.end(), f)) return "an added fact is already in the node's DB";
    Runs want_db;
    for (const auto& f : old_db)
      if (!std::binary_search(removed.begin(), removed.end(), f)) want_db.push_back(f);
    want_db.insert(want_db.end(), added.begin(), added.end());
    std::sort(want_db.begin(), want_db.end());
    Runs want_sent = hashing::sorted_runs(st.sent, 1, layout),
         want_dropped = hashing::sorted_runs(st.dropped, 1, layout);

    // The first outcome, and the first with the recorded DB and messages sent, for the diagnosis.
    std::optional<StepResult> first, near;
    bool matched = false;
    StepInput in{arc.dst, &cur.dbs[arc.dst], arc.src, st.payload.data(), &input};
    eval_.evaluate(in, [&](const StepResult& r) {
      if (matched) return;
      if (!first) first = r;
      if (hashing::sorted_runs(r.db, 0, layout) != want_db || hashing::sorted_runs(r.sent, 1, layout) != want_sent)
        return;
      if (!near) near = r;
      if (hashing::sorted_runs(r.dropped, 1, layout) != want_dropped) return;
      matched = true;
      next = apply(cm_, cur, st.arc, st.payload, r);
    });
    if (!matched) {
      if (!first) return "the program has no outcome for this step";
      const StepResult& shown = near ? *near : *first;
      StepDetail d;
      d.arc = st.arc;
      d.payload = st.payload.data();
      d.input = &input;
      d.result = &shown;
      computed = make_step(cm_, cur, apply(cm_, cur, st.arc, st.payload, shown), d);
      return near ? "'dropped' does not list the messages the step drops (destinations that are not neighbours)"
                  : "no choice outcome of the program has the recorded effect (new DB and messages sent)";
    }
    if (st.stable != (added.empty() && removed.empty()))
      return st.stable ? "the step is recorded as stable but changes the DB"
                       : "the step is recorded as not stable but leaves the DB unchanged";
    return std::nullopt;
  }

 private:
  static std::optional<std::string> idle(const hashing::GlobalState& cur, const ReplayStep& st,
                                         hashing::GlobalState& next) {
    if (!st.idle) return "a step with 'channel': null is the idle step and must say 'idle': true";
    if (!st.stable) return "the idle step is stable";
    for (const auto& ch : cur.channels)
      if (!ch.empty()) return "the step is idle, but some channel is not empty";
    next = cur;
    return std::nullopt;
  }

  const CompiledModel& cm_;
  StepEvaluator eval_;
};

// A recorded step that replayed, as a step of a concrete run.
ConcreteStep concrete_step(const CompiledModel& cm, const ReplayStep& st) {
  ConcreteStep c;
  c.arc = st.arc;
  if (st.arc != kIdleArc) {
    c.node = st.node;
    c.from = cm.model->network.arc(st.arc).src;
  }
  c.payload = st.payload;
  c.input = st.input;
  c.added = st.added;
  c.removed = st.removed;
  c.sent = st.sent;
  c.dropped = st.dropped;
  c.stable = st.stable;
  return c;
}

}  // namespace

ReplayResult replay(const CompiledModel& cm, const std::vector<ReplayStep>& steps, std::optional<size_t> loop_start,
                    const std::vector<std::vector<Word>>* initial, const TraceClaim& claim, ConcreteRun* out) {
  const auto& layout = cm.layout;
  ReplayResult res;
  auto fail = [&](ReplayResult::Failure how, std::string why) {
    res.failure = how;
    res.problem = std::move(why);
    return res;
  };
  // The run's states as the claim check reads them; only the loop's first
  // state and the current one are kept whole.
  ReplayedRun run{steps, loop_start, StateGraph(layout), std::nullopt, initial_state(cm)};
  const D2cSystem system(cm);
  hashing::GlobalState loop_state;
  auto record = [&](const hashing::GlobalState& s) {
    StateId id = run.states.add_state({}, s, system);
    if (claim.kind == TraceClaim::Kind::Bound && !run.first_over_bound)
      if (auto v = check_bounds(s, cm)) run.first_over_bound.emplace(id, *v);
    if (loop_start && *loop_start == id) loop_state = s;
    if (out) out->states.push_back(s);
  };
  if (out) *out = ConcreteRun{{}, {}, loop_start};
  if (initial) {
    if (initial->size() != layout.num_nodes)
      return fail(ReplayResult::Failure::Initial, "the recorded initial state does not list every node");
    for (uint32_t n = 0; n < layout.num_nodes; ++n) {
      std::vector<Word> db = (*initial)[n];
      hashing::normalize_db(db, layout);
      if (db != run.last.dbs[n])
        return fail(ReplayResult::Failure::Initial,
                    "the recorded initial DB of " + cm.model->network.name(n) + " is not the model's initial state");
    }
  }
  record(run.last);
  StepReplayer replayer(cm);
  hashing::GlobalState next;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (auto problem = replayer.step(run.last, steps[i], i, next, res.computed))
      return fail(ReplayResult::Failure::Step, std::move(*problem));
    std::swap(run.last, next);
    if (out) out->steps.push_back(concrete_step(cm, steps[i]));
    record(run.last);
    ++res.steps_ok;
  }
  if (loop_start) {
    // The loop holds at least one step: it starts before the last step.
    if (*loop_start >= steps.size())
      return fail(ReplayResult::Failure::Loop, "loop_start is not the index of a step of the trace");
    hashing::Canonicalizer canon(layout);
    hashing::CanonicalForm a, b;
    canon.canonicalize(run.last, a);
    canon.canonicalize(loop_state, b);
    if (a.bytes != b.bytes)
      return fail(ReplayResult::Failure::Loop,
                  fmt::format("the loop does not close: the last state is not a renaming of the state before step {}",
                              *loop_start));
  }
  if (auto problem = check_claim(cm, run, claim, res.claim))
    return fail(ReplayResult::Failure::Claim, std::move(*problem));
  return res;
}

}  // namespace ddsmc::engine
