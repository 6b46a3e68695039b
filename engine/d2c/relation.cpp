#include "engine/d2c/relation.hpp"

#include <algorithm>

namespace ddsmc::engine {

uint64_t RunIndex::hash(const Word* run, size_t len) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
  for (size_t i = 0; i < len; ++i) {
    h ^= run[i];
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  h *= 0x94d049bb133111ebull;  // final avalanche, so that the top 32 bits are usable
  return h ^ (h >> 29);
}

void RunIndex::grow() {
  std::vector<uint64_t> old;
  old.swap(slots_);
  slots_.assign(std::max<size_t>(64, old.size() * 2), 0);
  const size_t mask = slots_.size() - 1;
  for (uint64_t s : old) {
    if (s == 0) continue;
    size_t i = (s >> 32) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void Relation::truncate(uint32_t count) {
  if (count >= count_) return;
  tuples_.resize(size_t{count} * arity_);
  count_ = count;
  if (indexed_) drop_index();
}

void Relation::drop_index() {
  index_.clear();
  indexed_ = false;
}

void Relation::index_last() {
  index_.insert(RunIndex::hash(tuple(count_ - 1), arity_), count_ - 1, [](uint32_t) { return false; });
}

bool Relation::insert(const Word* tuple) {
  const uint32_t arity = arity_;
  if (arity == 0) {
    if (count_) return false;
    count_ = 1;
    return true;
  }
  auto same = [&](uint32_t t) { return std::equal(tuple, tuple + arity, tuples_.data() + size_t{t} * arity); };
  if (!indexed_ && count_ >= kIndexFrom) {
    indexed_ = true;
    for (uint32_t t = 0; t < count_; ++t)
      index_.insert(RunIndex::hash(tuples_.data() + size_t{t} * arity, arity), t, [](uint32_t) { return false; });
  }
  if (indexed_) {
    if (!index_.insert(RunIndex::hash(tuple, arity), count_, same)) return false;
  } else {
    for (uint32_t t = 0; t < count_; ++t)
      if (same(t)) return false;
  }
  tuples_.insert(tuples_.end(), tuple, tuple + arity);
  ++count_;
  return true;
}

void MessageSet::truncate(size_t words) {
  if (words >= runs_.size()) return;
  runs_.resize(words);
  while (!starts_.empty() && starts_.back() >= words) starts_.pop_back();
  if (indexed_) {
    index_.clear();
    indexed_ = false;
  }
}

void MessageSet::add(const Word* run) {
  const size_t len = run_words(run);
  auto same = [&](uint32_t i) {
    const Word* other = runs_.data() + starts_[i];
    return run_words(other) == len && std::equal(run, run + len, other);
  };
  const auto n = static_cast<uint32_t>(starts_.size());
  if (!indexed_ && n >= kIndexFrom) {
    indexed_ = true;
    for (uint32_t i = 0; i < n; ++i) {
      const Word* r = runs_.data() + starts_[i];
      index_.insert(RunIndex::hash(r, run_words(r)), i, [](uint32_t) { return false; });
    }
  }
  if (indexed_) {
    if (!index_.insert(RunIndex::hash(run, len), n, same)) return;
  } else {
    for (uint32_t i = 0; i < n; ++i)
      if (same(i)) return;
  }
  starts_.push_back(runs_.size());
  runs_.insert(runs_.end(), run, run + len);
}

}  // namespace ddsmc::engine
