#include "engine/d2c/successors.hpp"

#include <algorithm>

namespace ddsmc::engine {
namespace {

// Position of the entry for `fact` in a channel, or where it would go.
size_t channel_find(const std::vector<Word>& ch, const Word* fact, const hashing::StateLayout& layout, bool* found) {
  size_t len = layout.fact_words(fact[0]);
  size_t i = 0;
  while (i < ch.size()) {
    size_t elen = layout.fact_words(ch[i]);
    auto cmp = std::lexicographical_compare_three_way(ch.begin() + i, ch.begin() + i + elen, fact, fact + len);
    if (cmp == 0) {
      *found = true;
      return i;
    }
    if (cmp > 0) break;
    i += elen + 1;
  }
  *found = false;
  return i;
}

// Adds v to an ascending list of distinct values unless it is there: a
// step touches a few arcs, where this beats sorting (and a call to sort).
inline void insert_sorted(std::vector<uint32_t>& list, uint32_t v) {
  size_t i = list.size();
  while (i > 0 && list[i - 1] > v) --i;
  if (i > 0 && list[i - 1] == v) return;
  list.insert(list.begin() + static_cast<std::ptrdiff_t>(i), v);
}

}  // namespace

void channel_add(std::vector<Word>& ch, const Word* fact, const hashing::StateLayout& layout) {
  bool found = false;
  size_t i = channel_find(ch, fact, layout, &found);
  size_t len = layout.fact_words(fact[0]);
  if (found) {
    ++ch[i + len];
    return;
  }
  ch.insert(ch.begin() + i, fact, fact + len);
  ch.insert(ch.begin() + i + len, 1);
}

void channel_remove(std::vector<Word>& ch, const Word* fact, const hashing::StateLayout& layout) {
  bool found = false;
  size_t i = channel_find(ch, fact, layout, &found);
  if (!found) return;
  size_t len = layout.fact_words(fact[0]);
  if (--ch[i + len] == 0) ch.erase(ch.begin() + i, ch.begin() + i + len + 1);
}

void send_messages(hashing::GlobalState& s, model::NodeId from, const std::vector<Word>& sent, const CompiledModel& cm,
                   std::vector<uint32_t>& touched) {
  const auto& layout = cm.layout;
  const auto& net = cm.model->network;
  touched.clear();
  // A few messages are inserted in place; many (more words than a handful
  // of messages take) are appended and each channel is sorted once, which
  // keeps a step that sends 200,000 messages linear-logarithmic instead of
  // quadratic.
  const bool bulk = sent.size() > 64;
  for (size_t k = 0; k < sent.size(); k += 1 + layout.fact_words(sent[k + 1])) {
    uint32_t out_arc = *net.arc_id(from, sent[k]);
    const Word* fact = sent.data() + k + 1;
    auto& ch = s.channels[out_arc];
    if (bulk) {
      ch.insert(ch.end(), fact, fact + layout.fact_words(fact[0]));
      ch.push_back(1);
    } else {
      channel_add(ch, fact, layout);
    }
    if (bulk)
      touched.push_back(out_arc);
    else
      insert_sorted(touched, out_arc);
  }
  if (bulk) {
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (uint32_t t : touched) hashing::normalize_channel(s.channels[t], layout);
  }
}

SuccessorGenerator::SuccessorGenerator(const CompiledModel& cm) : cm_(cm), eval_(cm), inputs_(cm) {}

SuccessorGenerator::SuccessorGenerator(const CompiledModel& cm, std::shared_ptr<const CompiledStepLibrary> compiled)
    : cm_(cm), eval_(cm), inputs_(cm) {
  if (compiled) compiled_ = std::make_unique<CompiledStepEvaluator>(std::move(compiled));
}

void SuccessorGenerator::set_cancellation(Cancellation* c) {
  cancel_ = c;
  eval_.set_cancellation(c);
  if (compiled_) compiled_->set_cancellation(c);
  inputs_.set_cancellation(c);
}

void SuccessorGenerator::successors(const hashing::GlobalState& s, Sink sink) {
  const auto& layout = cm_.layout;
  state_fresh(s, fresh_);
  bool any_message = false;
  std::vector<Word>& payload = payload_;
  succ_ = s;
  for (uint32_t a = 0; a < layout.num_arcs; ++a) {
    const auto& ch = s.channels[a];
    if (ch.empty()) continue;
    any_message = true;
    for (size_t i = 0; i < ch.size();) {
      size_t len = layout.fact_words(ch[i]);
      payload.assign(ch.begin() + i, ch.begin() + i + len);
      i += len + 1;
      if (!cm_.input_matters[payload[0]]) {
        // The step reads no input: every input DB gives the empty one's
        // steps (docs/engine.md §5).
        cancel_->poll();
        expand(s, a, payload.data(), no_input_, sink);
        continue;
      }
      inputs_.for_each(fresh_, [&](const std::vector<Word>& input) {
        cancel_->poll();
        expand(s, a, payload.data(), input, sink);
      });
    }
  }
  if (!any_message) sink(EdgeLabel{kIdleArc, true}, s, StepDetail{});
}

void SuccessorGenerator::steps(const hashing::GlobalState& s, uint32_t arc, const Word* payload,
                               const std::vector<Word>& input, Sink sink) {
  succ_ = s;
  expand(s, arc, payload, input, sink);
}

void SuccessorGenerator::state_fresh(const hashing::GlobalState& s, std::vector<Word>& out) const {
  if (cm_.may_have_fresh)
    hashing::fresh_constants(s, cm_.layout, out);
  else
    out.clear();
}

// One step per choice outcome; succ_ == s on entry and on return.
void SuccessorGenerator::expand(const hashing::GlobalState& s, uint32_t a, const Word* payload,
                                const std::vector<Word>& input, Sink sink) {
  const auto& layout = cm_.layout;
  const model::Arc arc = cm_.model->network.arc(a);
  StepInput in{arc.dst, &s.dbs[arc.dst], arc.src, payload, &input};
  auto on_result = [&](const StepResult& r) {
    // Edit the copy in place: the node's DB, the served channel and the
    // channels sent on; restore them after the sink has seen it. A stable
    // step (its DB unchanged) leaves the DB alone and out of the changed
    // parts, which spares the store encoding and looking it up again.
    const bool stable = r.db == s.dbs[arc.dst];
    if (!stable) succ_.dbs[arc.dst] = r.db;
    channel_remove(succ_.channels[a], payload, layout);
    StepDetail detail;
    detail.arc = a;
    detail.payload = payload;
    detail.input = &input;
    detail.result = &r;
    // The source is within bounds, so an unchanged DB is too.
    if (!stable) detail.violation = check_db_bound(r.db, arc.dst, cm_, scratch_);
    send_messages(succ_, arc.dst, r.sent, cm_, touched_);
    insert_sorted(touched_, a);
    if (!detail.violation)
      for (uint32_t t : touched_)
        if ((detail.violation = check_channel_bound(succ_.channels[t], t, cm_))) break;
    parts_.clear();
    if (!stable) parts_.push_back(arc.dst);
    for (uint32_t t : touched_) parts_.push_back(layout.num_nodes + t);
    detail.changed_parts = &parts_;
    sink(EdgeLabel{a, stable}, succ_, detail);
    if (!stable) succ_.dbs[arc.dst] = s.dbs[arc.dst];
    for (uint32_t t : touched_) succ_.channels[t] = s.channels[t];
  };
  if (compiled_)
    compiled_->evaluate(in, on_result);
  else
    eval_.evaluate(in, on_result);
}

hashing::GlobalState initial_state(const CompiledModel& cm) {
  const auto& m = *cm.model;
  hashing::GlobalState s;
  s.dbs.resize(cm.layout.num_nodes);
  s.channels.resize(cm.layout.num_arcs);
  for (model::NodeId n = 0; n < cm.layout.num_nodes; ++n) {
    for (const auto& f : m.init_facts[n]) {
      if (f.pred == model::kMyName || f.pred == model::kNeighbor) continue;  // built-ins are implied
      s.dbs[n].push_back(f.pred);
      s.dbs[n].insert(s.dbs[n].end(), f.args.begin(), f.args.end());
    }
    hashing::normalize_db(s.dbs[n], cm.layout);
    Word start = model::kStart;
    channel_add(s.channels[*m.network.arc_id(n, n)], &start, cm.layout);
  }
  return s;
}

}  // namespace ddsmc::engine
