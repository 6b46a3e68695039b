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

// Adds v to an ascending list of distinct values unless it is there (then
// returns false): a step touches a few arcs, where this beats sorting (and
// a call to sort).
inline bool insert_sorted(std::vector<uint32_t>& list, uint32_t v) {
  size_t i = list.size();
  while (i > 0 && list[i - 1] > v) --i;
  if (i > 0 && list[i - 1] == v) return false;
  list.insert(list.begin() + static_cast<std::ptrdiff_t>(i), v);
  return true;
}

// The arc each message of `sent` (a StepResult's, of node `from`) goes on.
template <class F>
void for_each_message(model::NodeId from, const std::vector<Word>& sent, const CompiledModel& cm, F&& f) {
  const auto& net = cm.model->network;
  for (size_t k = 0; k < sent.size(); k += 1 + cm.layout.fact_words(sent[k + 1]))
    f(*net.arc_id(from, sent[k]), sent.data() + k + 1);
}

// send_messages(), calling before_edit(t) before the first edit of each
// channel t.
template <class BeforeEdit>
void send_messages(hashing::GlobalState& s, model::NodeId from, const std::vector<Word>& sent, const CompiledModel& cm,
                   std::vector<uint32_t>& touched, BeforeEdit&& before_edit) {
  const auto& layout = cm.layout;
  touched.clear();
  // A few messages are inserted in place; many (more words than a handful
  // of messages take) are appended and each channel is sorted once, which
  // keeps a step that sends 200,000 messages linear-logarithmic instead of
  // quadratic.
  if (sent.size() <= 64) {
    for_each_message(from, sent, cm, [&](uint32_t out_arc, const Word* fact) {
      if (insert_sorted(touched, out_arc)) before_edit(out_arc);
      channel_add(s.channels[out_arc], fact, layout);
    });
    return;
  }
  for_each_message(from, sent, cm, [&](uint32_t out_arc, const Word*) { touched.push_back(out_arc); });
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (uint32_t t : touched) before_edit(t);
  for_each_message(from, sent, cm, [&](uint32_t out_arc, const Word* fact) {
    auto& ch = s.channels[out_arc];
    ch.insert(ch.end(), fact, fact + layout.fact_words(fact[0]));
    ch.push_back(1);
  });
  for (uint32_t t : touched) hashing::normalize_channel(s.channels[t], layout);
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
  send_messages(s, from, sent, cm, touched, [](uint32_t) {});
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

void SuccessorGenerator::successors(hashing::GlobalState& s, Sink sink) {
  const auto& layout = cm_.layout;
  state_fresh(s, fresh_);
  bool any_message = false;
  std::vector<Word>& payload = payload_;
  for (uint32_t a = 0; a < layout.num_arcs; ++a) {
    // Each step edits this channel and restores its bytes, though maybe in
    // another buffer: it is indexed afresh after every step.
    const auto& ch = s.channels[a];
    if (ch.empty()) continue;
    any_message = true;
    for (size_t i = 0; i < ch.size();) {
      size_t len = layout.fact_words(ch[i]);
      // A copy: the step removes the payload from the channel.
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

void SuccessorGenerator::steps(hashing::GlobalState& s, uint32_t arc, const Word* payload,
                               const std::vector<Word>& input, Sink sink) {
  expand(s, arc, payload, input, sink);
}

void SuccessorGenerator::state_fresh(const hashing::GlobalState& s, std::vector<Word>& out) const {
  if (cm_.may_have_fresh)
    hashing::fresh_constants(s, cm_.layout, out);
  else
    out.clear();
}

// One step per choice outcome. Each edits s into its successor and back:
// the channels it edits are copied first and swapped back after the sink
// call (a few small vectors, where the inverse channel edits cost more:
// vector inserts in the middle).
void SuccessorGenerator::expand(hashing::GlobalState& s, uint32_t a, const Word* payload,
                                const std::vector<Word>& input, Sink sink) {
  const auto& layout = cm_.layout;
  const model::Arc arc = cm_.model->network.arc(a);
  StepInput in{arc.dst, &s.dbs[arc.dst], arc.src, payload, &input};
  auto on_result = [&](const StepResult& r) {
    // A stable step (its DB unchanged) leaves the DB alone and out of the
    // changed parts, which spares the store encoding and looking it up
    // again. A changed DB is swapped aside, not copied: its buffer, which
    // the evaluator may still read for the next outcome, stays as it is.
    auto& db = s.dbs[arc.dst];
    const bool stable = r.db == db;
    StepDetail detail;
    // The source is within bounds, so an unchanged DB is too.
    if (!stable) detail.violation = check_db_bound(r.db, arc.dst, cm_, scratch_);
    if (detail.violation && skip_violating_) {
      ++skipped_;
      return;
    }
    if (!stable) {
      saved_db_.swap(db);
      db = r.db;
    }
    saved_ = 0;
    save_channel(s, a);
    channel_remove(s.channels[a], payload, layout);
    detail.arc = a;
    detail.payload = payload;
    detail.input = &input;
    detail.result = &r;
    send_messages(s, arc.dst, r.sent, cm_, touched_, [&](uint32_t t) {
      if (t != a) save_channel(s, t);
    });
    insert_sorted(touched_, a);
    if (!detail.violation)
      for (uint32_t t : touched_)
        if ((detail.violation = check_channel_bound(s.channels[t], t, cm_))) break;
    parts_.clear();
    if (!stable) parts_.push_back(arc.dst);
    for (uint32_t t : touched_) parts_.push_back(layout.num_nodes + t);
    detail.changed_parts = &parts_;
    sink(EdgeLabel{a, stable}, s, detail);
    for (uint32_t k = 0; k < saved_; ++k) s.channels[saved_arcs_[k]].swap(saved_channels_[k]);
    if (!stable) db.swap(saved_db_);
  };
  if (compiled_)
    compiled_->evaluate(in, on_result);
  else
    eval_.evaluate(in, on_result);
}

void SuccessorGenerator::save_channel(const hashing::GlobalState& s, uint32_t t) {
  if (saved_ == saved_channels_.size()) {
    saved_channels_.emplace_back();
    saved_arcs_.push_back(0);
  }
  saved_arcs_[saved_] = t;
  saved_channels_[saved_].assign(s.channels[t].begin(), s.channels[t].end());
  ++saved_;
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
