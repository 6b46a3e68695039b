#include "engine/d2c/trace.hpp"

#include <algorithm>

#include "hashing/canonical.hpp"

namespace ddsmc::engine {

ConcreteStep make_step(const CompiledModel& cm, const hashing::GlobalState& before, const hashing::GlobalState& after,
                       const StepDetail& d) {
  ConcreteStep st;
  st.arc = d.arc;
  if (d.arc == kIdleArc) return st;
  const auto& arc = cm.model->network.arc(d.arc);
  st.node = arc.dst;
  st.from = arc.src;
  st.payload.assign(d.payload, d.payload + cm.layout.fact_words(d.payload[0]));
  st.input = *d.input;
  auto old_facts = hashing::sorted_runs(before.dbs[arc.dst], 0, cm.layout);
  auto new_facts = hashing::sorted_runs(after.dbs[arc.dst], 0, cm.layout);
  for (const auto& f : new_facts)
    if (!std::binary_search(old_facts.begin(), old_facts.end(), f)) st.added.insert(st.added.end(), f.begin(), f.end());
  for (const auto& f : old_facts)
    if (!std::binary_search(new_facts.begin(), new_facts.end(), f))
      st.removed.insert(st.removed.end(), f.begin(), f.end());
  st.sent = d.result->sent;
  st.dropped = d.result->dropped;
  st.stable = st.added.empty() && st.removed.empty();
  return st;
}

std::vector<Hop> lasso_hops(const std::vector<StateId>& states, const std::vector<Edge>& edges, size_t loop_start) {
  std::vector<Hop> hops;
  for (size_t i = 0; i < edges.size(); ++i)
    hops.push_back({edges[i], i + 1 < states.size() ? states[i + 1] : states[loop_start]});
  return hops;
}

std::vector<Hop> path_hops(const std::vector<StateId>& path) {
  std::vector<Hop> hops;
  for (size_t i = 1; i < path.size(); ++i) hops.push_back({std::nullopt, path[i]});
  return hops;
}

RunBuilder::RunBuilder(const CompiledModel& cm)
    : cm_(cm), next_fresh_(cm.layout.num_fixed), state_(initial_state(cm)) {}

ConcreteStep RunBuilder::append(const EdgeLabel& label, const hashing::GlobalState& succ, const StepDetail& d) {
  const auto& layout = cm_.layout;
  const hashing::GlobalState& cur = state_;
  if (d.arc == kIdleArc) {  // the idle self-loop: nothing happens
    state_ = succ;
    return ConcreteStep{};
  }
  // Rename the constants this step introduced to ids never used before in
  // the run, so that each fresh constant keeps one name throughout.
  std::vector<Word> old_fresh = hashing::fresh_constants(cur, layout);
  for (Word c : old_fresh) next_fresh_ = std::max(next_fresh_, c + 1);
  std::vector<Word> succ_fresh = hashing::fresh_constants(succ, layout);
  Word max_id = layout.num_fixed;
  for (Word c : succ_fresh) max_id = std::max(max_id, c + 1);
  std::vector<Word> input = *d.input;
  for (size_t i = 0; i < input.size(); i += layout.fact_words(input[i]))
    for (size_t a = 1; a < layout.fact_words(input[i]); ++a) max_id = std::max(max_id, input[i + a] + 1);
  std::vector<Word> map(max_id - layout.num_fixed, hashing::kUnmapped);
  for (Word c : old_fresh)
    if (c < max_id) map[c - layout.num_fixed] = c;
  std::vector<Word> introduced = succ_fresh;
  for (size_t i = 0; i < input.size(); i += layout.fact_words(input[i]))
    for (size_t a = 1; a < layout.fact_words(input[i]); ++a)
      if (input[i + a] >= layout.num_fixed) introduced.push_back(input[i + a]);
  std::sort(introduced.begin(), introduced.end());
  introduced.erase(std::unique(introduced.begin(), introduced.end()), introduced.end());
  Word fresh_id = next_fresh_;
  for (Word c : introduced)
    if (!std::binary_search(old_fresh.begin(), old_fresh.end(), c)) map[c - layout.num_fixed] = fresh_id++;
  next_fresh_ = fresh_id;
  hashing::GlobalState next = succ_fresh.empty() ? succ : hashing::rename(succ, layout, map);
  auto rename_word = [&](Word& w) {
    if (w >= layout.num_fixed && w < max_id) w = map[w - layout.num_fixed];
  };
  // Runs of [lead word?, pred, args...]; a dropped message's lead (its
  // destination constant) may itself be fresh.
  auto rename_run = [&](std::vector<Word>& w, size_t lead, bool rename_lead) {
    for (size_t i = 0; i < w.size();) {
      size_t len = lead + layout.fact_words(w[i + lead]);
      if (rename_lead) rename_word(w[i]);
      for (size_t a = lead + 1; a < len; ++a) rename_word(w[i + a]);
      i += len;
    }
  };
  StepResult result = *d.result;
  rename_run(input, 0, false);
  rename_run(result.sent, 1, false);
  rename_run(result.dropped, 1, true);
  hashing::normalize_db(input, layout);
  StepDetail renamed = d;
  renamed.input = &input;
  renamed.result = &result;
  ConcreteStep step = make_step(cm_, cur, next, renamed);
  step.stable = label.stable;
  state_ = std::move(next);
  return step;
}

std::optional<ConcreteRun> lift(const CompiledModel& cm, const StateGraph& g, const std::vector<Hop>& hops,
                                Cancellation& cancel) {
  return lift(cm, [&](StateId s) { return g.bytes(s); }, hops, cancel);
}

std::optional<ConcreteRun> lift(const CompiledModel& cm, FunctionRef<std::string(StateId)> bytes_of,
                                const std::vector<Hop>& hops, Cancellation& cancel) {
  SuccessorGenerator gen(cm);
  gen.set_cancellation(&cancel);
  hashing::Canonicalizer canon(cm.layout);
  hashing::CanonicalForm form;
  RunBuilder builder(cm);
  ConcreteRun run;
  run.states.push_back(builder.state());
  for (const Hop& hop : hops) {
    cancel.poll();
    const std::string want = bytes_of(hop.target);
    bool found = false;
    // Copy: append() replaces the state while the generator still reads it.
    hashing::GlobalState cur = builder.state();
    gen.successors(cur, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepDetail& d) {
      if (found) return;
      if (hop.edge && (label.arc != hop.edge->arc() || label.stable != hop.edge->stable())) return;
      canon.canonicalize(succ, form);
      if (form.bytes != want) return;
      found = true;
      run.steps.push_back(builder.append(label, succ, d));
      run.states.push_back(builder.state());
    });
    if (!found) return std::nullopt;
  }
  return run;
}

}  // namespace ddsmc::engine
