#include "engine/replay.hpp"

#include <algorithm>

#include "hashing/canonical.hpp"

namespace ddsmc::engine {
namespace {

bool channel_has(const std::vector<Word>& ch, const std::vector<Word>& fact, const hashing::StateLayout& layout) {
  for (size_t i = 0; i < ch.size();) {
    size_t len = layout.fact_words(ch[i]);
    if (std::equal(ch.begin() + i, ch.begin() + i + len, fact.begin(), fact.end())) return true;
    i += len + 1;
  }
  return false;
}

}  // namespace

ReplayResult replay(const CompiledModel& cm, const std::vector<ReplayStep>& steps, std::optional<size_t> loop_start,
                    const std::vector<std::vector<Word>>* initial) {
  const auto& layout = cm.layout;
  const auto& net = cm.model->network;
  ReplayResult res;
  StepEvaluator eval(cm);
  std::vector<hashing::GlobalState> states{initial_state(cm)};
  auto fail = [&](std::string why) {
    res.ok = false;
    res.problem = std::move(why);
    return res;
  };
  if (initial) {
    if (initial->size() != layout.num_nodes) return fail("the recorded initial state does not list every node");
    for (uint32_t n = 0; n < layout.num_nodes; ++n) {
      std::vector<Word> db = (*initial)[n];
      hashing::normalize_db(db, layout);
      if (db != states[0].dbs[n])
        return fail("the recorded initial DB of " + net.name(n) + " is not the model's initial state");
    }
  }
  for (const ReplayStep& st : steps) {
    const hashing::GlobalState& cur = states.back();
    if (st.idle) {
      for (const auto& ch : cur.channels)
        if (!ch.empty()) return fail("the step is idle, but some channel is not empty");
      states.push_back(cur);
      ++res.steps_ok;
      continue;
    }
    if (st.arc >= layout.num_arcs) return fail("no such channel");
    if (st.payload.empty() || !channel_has(cur.channels[st.arc], st.payload, layout))
      return fail("the channel does not hold that payload");
    size_t input_facts = hashing::sorted_runs(st.input, 0, layout).size();
    if (input_facts > cm.model->bounds.input)
      return fail("the input has " + std::to_string(input_facts) + " facts, more than the input bound " +
                  std::to_string(cm.model->bounds.input));
    for (size_t i = 0; i < st.input.size(); i += layout.fact_words(st.input[i]))
      if (cm.model->pred(st.input[i]).kind != model::PredKind::Input) return fail("an input fact is not of an input predicate");
    const model::Arc arc = net.arc(st.arc);
    std::vector<Word> input = st.input;
    hashing::normalize_db(input, layout);
    // The recorded effect: the new DB and the messages as sets.
    auto old_db = hashing::sorted_runs(cur.dbs[arc.dst], 0, layout);
    auto added = hashing::sorted_runs(st.added, 0, layout), removed = hashing::sorted_runs(st.removed, 0, layout);
    for (const auto& f : removed)
      if (!std::binary_search(old_db.begin(), old_db.end(), f)) return fail("a removed fact is not in the node's DB");
    for (const auto& f : added)
      if (std::binary_search(old_db.begin(), old_db.end(), f)) return fail("an added fact is already in the node's DB");

    std::vector<std::vector<Word>> want_db;
    for (const auto& f : old_db)
      if (!std::binary_search(removed.begin(), removed.end(), f)) want_db.push_back(f);
    want_db.insert(want_db.end(), added.begin(), added.end());
    std::sort(want_db.begin(), want_db.end());
    want_db.erase(std::unique(want_db.begin(), want_db.end()), want_db.end());
    auto want_sent = hashing::sorted_runs(st.sent, 1, layout);

    bool matched = false;
    StepInput in{arc.dst, &cur.dbs[arc.dst], arc.src, st.payload.data(), &input};
    hashing::GlobalState next;
    std::optional<ReplayStep> first;
    eval.evaluate(in, [&](const StepResult& r) {
      if (matched) return;
      auto got_db = hashing::sorted_runs(r.db, 0, layout);
      auto got_sent = hashing::sorted_runs(r.sent, 1, layout);
      if (got_db != want_db || got_sent != want_sent) {
        if (!first) {
          ReplayStep c;
          for (const auto& f : got_db)
            if (!std::binary_search(old_db.begin(), old_db.end(), f)) c.added.insert(c.added.end(), f.begin(), f.end());
          for (const auto& f : old_db)
            if (!std::binary_search(got_db.begin(), got_db.end(), f)) c.removed.insert(c.removed.end(), f.begin(), f.end());
          c.sent = r.sent;
          first = c;
        }
        return;
      }
      matched = true;
      next = cur;
      next.dbs[arc.dst] = r.db;
      channel_remove(next.channels[st.arc], st.payload.data(), layout);
      for (size_t k = 0; k < r.sent.size(); k += 1 + layout.fact_words(r.sent[k + 1]))
        channel_add(next.channels[*net.arc_id(arc.dst, r.sent[k])], r.sent.data() + k + 1, layout);
    });
    if (!matched) {
      res.computed = first;
      return fail("no choice outcome of the program has the recorded effect (new DB and messages sent)");
    }
    if (st.stable && *st.stable != (added.empty() && removed.empty()))
      return fail("the step is recorded as stable but changes the DB, or the other way round");
    states.push_back(std::move(next));
    ++res.steps_ok;
  }
  if (loop_start) {
    // The loop holds at least one step: it starts before the last step.
    if (*loop_start >= steps.size()) return fail("loop_start is not the index of a step of the trace");
    hashing::Canonicalizer canon(layout);
    hashing::CanonicalForm a, b;
    canon.canonicalize(states.back(), a);
    canon.canonicalize(states[*loop_start], b);
    if (a.bytes != b.bytes)
      return fail("the loop does not close: the last state is not a renaming of the state before step " +
                  std::to_string(*loop_start));
  }
  return res;
}

}  // namespace ddsmc::engine
