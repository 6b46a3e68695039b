// The sets a step derives into: a relation (fixed-arity tuples) and the
// messages sent (variable-length [dest, pred, args...] runs). Both keep
// insertion order and reject duplicates. Small sets (node DBs hold tens of
// facts) are searched by a linear scan; from kIndexFrom entries on, a hash
// index over the stored runs makes each insertion O(1), so a step deriving
// 200,000 facts is linear, not quadratic.
#pragma once

#include <cstdint>
#include <vector>

#include "hashing/state.hpp"

namespace ddsmc::engine {

using hashing::Word;

// Open-addressing hash index of runs that the caller stores: slots hold
// (32 hash bits, id + 1); equality is the caller's `same(id)`.
class RunIndex {
 public:
  static uint64_t hash(const Word* run, size_t len);
  void clear() {
    slots_.clear();
    size_ = 0;
  }
  // Returns false if `same(i)` holds for an indexed id i; otherwise indexes
  // `id` (whose run hashes to `h`) and returns true.
  template <class Same>
  bool insert(uint64_t h, uint32_t id, Same&& same) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    const uint64_t frag = h >> 32;
    const size_t mask = slots_.size() - 1;
    for (size_t i = frag & mask;; i = (i + 1) & mask) {
      const uint64_t s = slots_[i];
      if (s == 0) {
        slots_[i] = frag << 32 | (uint64_t{id} + 1);
        ++size_;
        return true;
      }
      if ((s >> 32) == frag && same(static_cast<uint32_t>(s) - 1)) return false;
    }
  }

 private:
  void grow();
  std::vector<uint64_t> slots_;
  size_t size_ = 0;
};

inline constexpr uint32_t kIndexFrom = 16;

// A relation of one predicate during a step: `count` tuples of `arity`
// words each.
class Relation {
 public:
  explicit Relation(uint32_t arity = 0) : arity_(arity) {}
  // clear() and append() run for every relation of every step: inline.
  void clear() {
    tuples_.clear();
    count_ = 0;
    if (indexed_) drop_index();
  }
  // Drops the tuples from `count` on (the undo of a choice outcome).
  void truncate(uint32_t count);
  // Appends a tuple known not to be present (loading a normalized DB).
  void append(const Word* tuple) {
    tuples_.insert(tuples_.end(), tuple, tuple + arity_);
    ++count_;
    if (indexed_) index_last();
  }
  // Adds the tuple unless present; true when it was new.
  bool insert(const Word* tuple);
  uint32_t count() const { return count_; }
  uint32_t arity() const { return arity_; }
  const Word* tuple(uint32_t t) const { return tuples_.data() + size_t{t} * arity_; }

 private:
  void drop_index();
  void index_last();
  uint32_t arity_;
  std::vector<Word> tuples_;  // arity words per tuple (none for arity 0)
  uint32_t count_ = 0;
  RunIndex index_;
  bool indexed_ = false;
};

// The messages a step sends: a set of [dest, pred, args...] runs in the
// order first derived.
class MessageSet {
 public:
  explicit MessageSet(const hashing::StateLayout& layout) : layout_(layout) {}
  void clear() { truncate(0); }
  void truncate(size_t words);
  // Adds the run [dest, pred, args...] unless present.
  void add(const Word* run);
  const std::vector<Word>& runs() const { return runs_; }
  size_t run_words(const Word* run) const { return 1 + layout_.fact_words(run[1]); }

 private:
  const hashing::StateLayout& layout_;
  std::vector<Word> runs_;
  std::vector<size_t> starts_;  // offset of each run
  RunIndex index_;
  bool indexed_ = false;
};

}  // namespace ddsmc::engine
