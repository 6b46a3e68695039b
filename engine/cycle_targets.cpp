#include "engine/cycle_targets.hpp"

#include <algorithm>

#include "engine/system.hpp"  // kIdleArc

namespace ddsmc::engine {

TargetCollector::TargetCollector(uint32_t num_arcs, Fairness f, bool need_unstable)
    : need_unstable_(need_unstable), cover_(f == Fairness::Channel ? num_arcs : 0) {}

void TargetCollector::edge(StateId source, const Edge& e) {
  const Key k{source, e.target, e.label};
  first_ = std::min(first_, k);
  if (need_unstable_ && !e.stable()) unstable_ = std::min(unstable_, k);
  const uint32_t arc = e.arc();
  if (arc != kIdleArc && arc < cover_.size()) cover_[arc] = std::min(cover_[arc], k);
}

bool TargetCollector::settled() const {
  if (first_.none() || (need_unstable_ && unstable_.none())) return false;
  return std::none_of(cover_.begin(), cover_.end(), [](const Key& k) { return k.none(); });
}

void TargetCollector::merge(const TargetCollector& other) {
  first_ = std::min(first_, other.first_);
  unstable_ = std::min(unstable_, other.unstable_);
  for (size_t a = 0; a < cover_.size(); ++a) cover_[a] = std::min(cover_[a], other.cover_[a]);
}

std::vector<uint64_t> TargetCollector::words() const {
  std::vector<uint64_t> w;
  w.reserve(num_words());
  auto put = [&](const Key& k) { w.insert(w.end(), {k.source, k.target, uint64_t{k.label}}); };
  put(first_);
  put(unstable_);
  for (const Key& k : cover_) put(k);
  return w;
}

void TargetCollector::from_words(const uint64_t* w) {
  auto get = [&](Key& k) {
    k = {w[0], w[1], static_cast<uint32_t>(w[2])};
    w += 3;
  };
  get(first_);
  get(unstable_);
  for (Key& k : cover_) get(k);
}

std::optional<CycleTargets> TargetCollector::targets() const {
  if (!settled()) return std::nullopt;
  std::vector<Key> edges{first_}, states;
  if (need_unstable_) edges.push_back(unstable_);
  for (const Key& k : cover_) (k.is_edge() ? edges : states).push_back(k);
  for (auto* v : {&edges, &states}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  CycleTargets t;
  for (const Key& k : states) t.states.push_back(k.source);
  for (const Key& k : edges) {
    Edge e;
    e.target = k.target;
    e.label = k.label;
    t.edges.emplace_back(k.source, e);
  }
  return t;
}

}  // namespace ddsmc::engine
