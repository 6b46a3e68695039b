#include "engine/d2c/inputs.hpp"

#include <algorithm>
#include <compare>
#include <limits>
#include <stdexcept>

#include "hashing/canonical.hpp"

namespace ddsmc::engine {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
// A state's input DBs are kept for the next state with the same fresh
// constants (successive BFS states often have them) while they fit here.
constexpr size_t kMaxCacheWords = size_t{1} << 20;

}  // namespace

InputEnumerator::InputEnumerator(const CompiledModel& cm) : cm_(cm), preds_(cm.input_preds) {
  std::sort(preds_.begin(), preds_.end());
  bound_ = cm.model->bounds.input;
}

void InputEnumerator::for_each(const std::vector<Word>& state_fresh, Sink out) {
  if (bound_ == 0 || preds_.empty()) {  // the empty DB only: no cache needed
    db_.clear();
    out(db_);
    return;
  }
  if (cache_valid_ && cache_key_ == state_fresh) {
    for (const auto& db : cache_) out(db);
    return;
  }
  cache_valid_ = false;
  cache_key_ = state_fresh;
  cache_.clear();
  const uint32_t fixed = cm_.layout.num_fixed;
  old_.resize(fixed);
  for (Word c = 0; c < fixed; ++c) old_[c] = c;
  old_.insert(old_.end(), state_fresh.begin(), state_fresh.end());
  first_new_ = state_fresh.empty() ? fixed : std::max<Word>(fixed, state_fresh.back() + 1);
  size_t cached_words = 0;
  bool caching = true;
  enumerate([&](const std::vector<Word>& db) {
    if (caching) {
      cached_words += db.size() + 8;
      if (cached_words > kMaxCacheWords) {
        caching = false;
        cache_.clear();
        cache_.shrink_to_fit();
      } else {
        cache_.push_back(db);
      }
    }
    out(db);
  });
  cache_valid_ = caching;  // only a finished enumeration is a valid cache
}

void InputEnumerator::random_db(const std::vector<Word>& state_fresh, std::mt19937_64& rng,
                                std::vector<Word>& out) const {
  out.clear();
  if (bound_ == 0 || preds_.empty()) return;
  // rng() % n rather than a distribution: mt19937_64's output is fixed by
  // the standard, so a seed gives the same run with every library.
  const uint64_t size = rng() % (std::min(bound_, kMaxRandomFacts) + 1);
  uint32_t max_arity = 0;
  for (Word p : preds_) max_arity = std::max(max_arity, cm_.layout.arity[p]);
  const uint32_t fixed = cm_.layout.num_fixed;
  const Word first_new = state_fresh.empty() ? fixed : std::max<Word>(fixed, state_fresh.back() + 1);
  const uint64_t olds = fixed + state_fresh.size();
  const uint64_t domain = olds + size * max_arity;
  for (uint64_t f = 0; f < size; ++f) {
    const Word pred = preds_[rng() % preds_.size()];
    out.push_back(pred);
    for (uint32_t i = 0; i < cm_.layout.arity[pred]; ++i) {
      const uint64_t r = rng() % domain;
      out.push_back(r < fixed ? static_cast<Word>(r)
                    : r < olds ? state_fresh[r - fixed]
                               : static_cast<Word>(first_new + (r - olds)));
    }
  }
  hashing::normalize_db(out, cm_.layout);
}

// Moves to the next candidate fact: the next argument tuple of the same
// predicate in rank order, else the first tuple of the next predicate. A
// tuple may use the old constants, the new ones the DB already has, and new
// ones in first-appearance order (rank old + num_new first, then + 1, ...):
// the other tuples can never be part of a canonical DB.
void InputEnumerator::advance(Level& level) const {
  const uint32_t olds = static_cast<uint32_t>(old_.size());
  auto& r = level.ranks;
  for (size_t i = r.size(); i-- > 0;) {
    uint32_t next_new = level.num_new;  // largest new index allowed at position i
    for (size_t j = 0; j < i; ++j)
      if (r[j] >= olds) next_new = std::max(next_new, r[j] - olds + 1);
    if (r[i] < olds + next_new) {
      ++r[i];
      std::fill(r.begin() + static_cast<std::ptrdiff_t>(i) + 1, r.end(), 0u);
      return;
    }
  }
  if (++level.pred_index < preds_.size()) level.ranks.assign(cm_.layout.arity[preds_[level.pred_index]], 0u);
}

void InputEnumerator::push_fact(Word pred, const std::vector<uint32_t>& ranks) {
  const size_t olds = old_.size();
  fact_begin_.push_back(db_.size());
  db_.push_back(pred);
  for (uint32_t r : ranks) {
    uint64_t id = r < olds ? old_[r] : uint64_t{first_new_} + (r - olds);
    if (id >= hashing::kUnmapped) throw std::length_error("input enumeration: constant ids exhausted");
    db_.push_back(static_cast<Word>(id));
  }
}

void InputEnumerator::pop_fact() {
  db_.resize(fact_begin_.back());
  fact_begin_.pop_back();
}

void InputEnumerator::enumerate(Sink out) {
  db_.clear();
  fact_begin_.clear();
  out(db_);
  if (bound_ == 0 || preds_.empty()) return;
  if (levels_.empty()) levels_.emplace_back();
  levels_[0].num_new = 0;
  levels_[0].pred_index = 0;
  levels_[0].ranks.assign(cm_.layout.arity[preds_[0]], 0u);
  const uint32_t olds = static_cast<uint32_t>(old_.size());
  size_t depth = 1;  // levels in use; the DB has depth - 1 facts
  while (depth > 0) {
    cancel_->poll();
    if (levels_[depth - 1].pred_index >= preds_.size()) {
      if (--depth > 0) pop_fact();
      continue;
    }
    if (levels_.size() == depth) levels_.emplace_back();
    Level& level = levels_[depth - 1];
    Level& child = levels_[depth];
    child.pred_index = level.pred_index;
    child.ranks = level.ranks;
    child.num_new = level.num_new;
    for (uint32_t r : level.ranks)
      if (r >= olds) child.num_new = std::max(child.num_new, r - olds + 1);
    push_fact(preds_[level.pred_index], level.ranks);
    advance(level);
    if (canonical(child.num_new)) {
      out(db_);
      if (depth < bound_) {  // the DB has `depth` facts now
        advance(child);
        ++depth;
        continue;
      }
    }
    pop_fact();
  }
}

// Compares the image of fact `fact` under the labels assigned so far,
// extended greedily (its unlabelled new constants get the next labels in
// order of appearance), with the fact at `position` of the DB.
int InputEnumerator::compare_image(size_t fact, size_t position, uint32_t assigned) {
  const Word* f = db_.data() + fact_begin_[fact];
  const size_t len = cm_.layout.fact_words(f[0]);
  image_.assign(f, f + len);
  unassigned_a_.clear();
  for (size_t i = 1; i < len; ++i) {
    if (f[i] < first_new_) continue;
    uint32_t idx = f[i] - first_new_;
    if (label_[idx] != kNone) {
      image_[i] = first_new_ + label_[idx];
      continue;
    }
    auto it = std::find(unassigned_a_.begin(), unassigned_a_.end(), idx);
    image_[i] = first_new_ + assigned + static_cast<uint32_t>(it - unassigned_a_.begin());
    if (it == unassigned_a_.end()) unassigned_a_.push_back(idx);
  }
  const Word* d = db_.data() + fact_begin_[position];
  auto c = std::lexicographical_compare_three_way(image_.begin(), image_.end(), d, d + cm_.layout.fact_words(d[0]));
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

// Facts a and b have the same image under the labels assigned so far (so the
// same predicate, and their unlabelled new constants in the same pattern).
// They are twins when swapping those constants position by position (their
// sets being disjoint) maps the DB onto itself: then choosing b next gives
// the same images as choosing a, and b's branch can be skipped.
bool InputEnumerator::twins(size_t a, size_t b) {
  auto unlabelled = [&](size_t fact, std::vector<uint32_t>& out) {
    out.clear();
    const Word* f = db_.data() + fact_begin_[fact];
    for (size_t i = 1; i < cm_.layout.fact_words(f[0]); ++i) {
      if (f[i] < first_new_ || label_[f[i] - first_new_] != kNone) continue;
      if (std::find(out.begin(), out.end(), f[i]) == out.end()) out.push_back(f[i]);
    }
  };
  unlabelled(a, unassigned_a_);
  unlabelled(b, unassigned_b_);
  if (unassigned_a_.empty() || unassigned_a_.size() != unassigned_b_.size()) return false;
  for (Word w : unassigned_a_)
    if (std::find(unassigned_b_.begin(), unassigned_b_.end(), w) != unassigned_b_.end()) return false;
  auto swap_word = [&](Word w) {
    for (size_t i = 0; i < unassigned_a_.size(); ++i) {
      if (w == unassigned_a_[i]) return static_cast<Word>(unassigned_b_[i]);
      if (w == unassigned_b_[i]) return static_cast<Word>(unassigned_a_[i]);
    }
    return w;
  };
  // tau(DB) is a subset of DB (tau is injective, so then it is DB itself):
  // look every swapped fact up among the sorted facts.
  const size_t k = fact_begin_.size();
  auto fact_less = [&](size_t i, const std::vector<Word>& key) {
    const Word* f = db_.data() + fact_begin_[i];
    return std::lexicographical_compare(f, f + cm_.layout.fact_words(f[0]), key.begin(), key.end());
  };
  for (size_t i = 0; i < k; ++i) {
    const Word* f = db_.data() + fact_begin_[i];
    swapped_.assign(f, f + cm_.layout.fact_words(f[0]));
    for (size_t j = 1; j < swapped_.size(); ++j) swapped_[j] = swap_word(swapped_[j]);
    size_t lo = 0, hi = k;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (fact_less(mid, swapped_)) lo = mid + 1;
      else hi = mid;
    }
    if (lo == k) return false;
    const Word* g = db_.data() + fact_begin_[lo];
    if (!std::equal(swapped_.begin(), swapped_.end(), g, g + cm_.layout.fact_words(g[0]))) return false;
  }
  return true;
}

// Is the DB the least of its class: no renaming of its new constants gives a
// smaller sorted fact list? Branch and bound over the order in which facts
// take the positions of the sorted image: at each position only the facts
// whose greedy image equals the DB's fact there are followed (one smaller
// means not canonical, only larger ones means this branch cannot go below
// the DB), and one fact per twin class.
bool InputEnumerator::canonical(uint32_t num_new) {
  const size_t k = fact_begin_.size();
  if (k <= 1 || num_new <= 1) return true;  // one fact, or no two new constants to swap
  label_.assign(num_new, kNone);
  placed_.assign(k, 0);
  cands_.clear();
  undo_.clear();
  struct Frame {
    size_t cand_begin, cand_end, next, undo_begin;
    size_t chosen;
  };
  std::vector<Frame> frames;
  uint32_t assigned = 0;
  // The candidates for the next position; false when some fact maps below the DB.
  auto open_frame = [&]() {
    const size_t position = frames.size();
    const size_t begin = cands_.size();
    for (size_t g = 0; g < k; ++g) {
      if (placed_[g]) continue;
      int c = compare_image(g, position, assigned);
      if (c < 0) return false;
      if (c > 0) continue;
      bool twin = false;
      for (size_t i = begin; i < cands_.size() && !twin; ++i) twin = twins(cands_[i], g);
      if (!twin) cands_.push_back(static_cast<uint32_t>(g));
    }
    frames.push_back({begin, cands_.size(), begin, undo_.size(), kNone});
    return true;
  };
  if (!open_frame()) return false;
  while (!frames.empty()) {
    Frame& fr = frames.back();
    if (fr.chosen != kNone) {  // undo the previous choice at this position
      placed_[fr.chosen] = 0;
      for (size_t i = fr.undo_begin; i < undo_.size(); ++i) label_[undo_[i]] = kNone;
      assigned -= static_cast<uint32_t>(undo_.size() - fr.undo_begin);
      undo_.resize(fr.undo_begin);
      fr.chosen = kNone;
    }
    if (fr.next == fr.cand_end) {
      cands_.resize(fr.cand_begin);
      frames.pop_back();
      continue;
    }
    const size_t g = cands_[fr.next++];
    fr.chosen = g;
    placed_[g] = 1;
    const Word* f = db_.data() + fact_begin_[g];
    for (size_t i = 1; i < cm_.layout.fact_words(f[0]); ++i) {
      if (f[i] < first_new_ || label_[f[i] - first_new_] != kNone) continue;
      label_[f[i] - first_new_] = assigned++;
      undo_.push_back(f[i] - first_new_);
    }
    if (frames.size() < k && !open_frame()) return false;
  }
  return true;
}

}  // namespace ddsmc::engine
