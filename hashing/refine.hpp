// Internal to hashing/: the facts of a state that mention fresh constants,
// and colour refinement of those constants (the 1-dimensional
// Weisfeiler-Leman test on the state seen as a coloured hypergraph).
#pragma once

#include <cstdint>
#include <vector>

#include "hashing/state.hpp"

namespace ddsmc::hashing::detail {

// The facts of a state that mention a fresh constant, with the fresh ids
// made compact: the i-th smallest fresh constant of the state is
// "constant i" (num_fixed + i in the words below, i in [0, k)). Facts
// without fresh constants are the same under every renaming and are left
// out.
struct FactTable {
  uint32_t num_fixed = 0;
  uint32_t k = 0;          // number of fresh constants
  uint32_t max_arity = 0;  // over the facts below
  // Fact f is words[off[f] .. off[f+1]) = [location, pred, count, args...];
  // location is the node index, or num_nodes + arc index; count is 1 in DBs.
  // Words from off.back() on are scratch.
  std::vector<Word> words;
  std::vector<uint32_t> off;
  // Occurrences of constant x: occ[occ_start[x] .. occ_start[x+1]).
  struct Occ {
    uint32_t fact;
    uint32_t pos;  // argument position, 0-based
  };
  std::vector<uint32_t> occ_start;
  std::vector<Occ> occ;

  uint32_t num_facts() const { return static_cast<uint32_t>(off.size()) - 1; }
  // One pass over s: the table, and s's distinct fresh constants ascending
  // in `fresh` (fresh[i] is constant i). k = 0 when s has none.
  void build(const GlobalState& s, const StateLayout& layout, std::vector<Word>& fresh);

 private:
  void add_runs(const std::vector<Word>& run_words, Word location, uint32_t extra, const StateLayout& layout,
                std::vector<Word>& fresh);
  void compact_ids(const std::vector<Word>& fresh);
  void fill_occurrences();
  std::vector<uint32_t> fill_;
  // Per fresh id c - num_fixed: the pass that last saw it (seen_ == pass_),
  // and then its compact index.
  std::vector<uint32_t> seen_, index_;
  uint32_t pass_ = 0;
  uint32_t used_ = 0;  // words written by this build
};

// Colourings are "cell start" colourings: the colour of x is the number of
// constants in smaller cells, so a cell's colour is its first rank and a
// discrete colouring is a permutation of 0..k-1. Colours are ordered by
// isomorphism-invariant signatures only, never by constant ids.
//
// A round hashes each fact with its fresh constants replaced by their
// colours, then splits every cell by the multiset of (fact hash, position)
// over its constants' occurrences, ordering the new cells by that hash. A
// hash is a function of invariant data, so the order is invariant; a
// collision could only leave a cell unsplit (more search), never mislead.
class Refiner {
 public:
  // Refines `col` (a valid colouring) until stable; returns the cell count.
  uint32_t refine(const FactTable& t, std::vector<uint32_t>& col);
  // Exact fact colours under `col`: the rank of each fact's descriptor
  // [location, pred, count, args with fresh constants replaced by colours].
  void fact_colours(const FactTable& t, const std::vector<uint32_t>& col, std::vector<uint32_t>& out);
  // Work done so far, in rounds x (facts + constants): a search budget that,
  // like the rounds themselves, is the same on every state of a class.
  uint64_t work() const { return work_; }

 private:
  struct Key {
    uint64_t col, sig;
    uint32_t x;
  };
  std::vector<uint64_t> fact_hash_;
  std::vector<Key> keys_;
  std::vector<Word> desc_;  // exact descriptors, same layout as FactTable::words
  std::vector<uint32_t> forder_, seen_;
  uint64_t work_ = 0;
};

}  // namespace ddsmc::hashing::detail
