// The input DBs a step may receive (docs/reference.md §3.5): every set of
// at most `input` facts of the input predicates, over the fixed constants,
// the constants of the current global state and new constants.
//
// Two input DBs that differ only by a renaming of their new constants (a
// renaming that fixes the state) give isomorphic successors with the same
// labels (docs/semantics.md Lemmas 1 and 3), so one DB per class is enough.
// The enumerator generates exactly one: the least one of its class (its
// canonical form), by orderly generation (Read, Faradzev): a canonical DB is
// extended only by facts above its largest fact, and an extension is kept
// only if it is canonical again. Canonicity is hereditary under removing the
// largest fact, so every canonical DB is reached once, from its canonical
// parent, and no non-canonical DB is ever extended. The work grows with the
// number of classes, not with the number of subsets; see docs/engine.md §5.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/function_ref.hpp"

namespace ddsmc::engine {

class InputEnumerator {
 public:
  explicit InputEnumerator(const CompiledModel& cm);
  using Sink = FunctionRef<void(const std::vector<Word>&)>;
  // Calls out(db) once for every input DB of a state whose fresh constants
  // are `state_fresh` (ascending), one per class up to renaming of the new
  // constants; db is normalized (sorted facts), the empty DB comes first.
  // Lazy: nothing is materialised beyond a small cache of the last state's
  // DBs. `out` may throw; the enumeration then simply stops.
  void for_each(const std::vector<Word>& state_fresh, Sink out);
  // One input DB drawn at random, for simulate: its size uniform in
  // 0 .. min(input, kMaxRandomFacts), each fact's predicate uniform among
  // the enumerated ones and each argument uniform among the old constants
  // and size * arity new ones. Normalized (so it may have fewer facts).
  static constexpr uint32_t kMaxRandomFacts = 16;
  void random_db(const std::vector<Word>& state_fresh, std::mt19937_64& rng, std::vector<Word>& out) const;
  // Polled once per candidate fact (never null).
  void set_cancellation(Cancellation* c) { cancel_ = c; }

 private:
  // One level of the generation: it extends a DB of `depth` facts by a
  // candidate fact, given as the predicate and the ranks of its arguments.
  struct Level {
    uint32_t num_new = 0;  // new constants the DB being extended uses
    size_t pred_index = 0;
    std::vector<uint32_t> ranks;
  };
  void enumerate(Sink out);
  void advance(Level& level) const;
  void push_fact(Word pred, const std::vector<uint32_t>& ranks);
  void pop_fact();
  bool canonical(uint32_t num_new);
  int compare_image(size_t fact, size_t position, uint32_t assigned);
  bool twins(size_t a, size_t b);

  const CompiledModel& cm_;
  Cancellation* cancel_ = &Cancellation::none();
  std::vector<Word> preds_;  // the input predicates some rule reads, ascending
  uint32_t bound_ = 0;
  // The domain of the current state: old constants (fixed, then the state's
  // fresh ones) are ranks 0 .. old_.size()-1, new constant i has rank
  // old_.size() + i and id first_new_ + i.
  std::vector<Word> old_;
  Word first_new_ = 0;
  // The DB being built: facts in ascending order, flat.
  std::vector<Word> db_;
  std::vector<size_t> fact_begin_;
  std::vector<Level> levels_;
  // Scratch of the canonicity test.
  std::vector<uint32_t> label_, cands_, undo_, unassigned_a_, unassigned_b_;
  std::vector<char> placed_;
  std::vector<Word> image_, swapped_;
  // Cache of the last state's DBs, kept while small.
  std::vector<Word> cache_key_;
  bool cache_valid_ = false;
  std::vector<std::vector<Word>> cache_;
};

}  // namespace ddsmc::engine
