// The input DBs a step may receive (SPEC section 2, "Inputs"): every set of
// at most `input` facts over the fixed constants, the constants of the
// current global state, and fresh constants. Fresh constants are generated in
// canonical order (first use in the sorted DB picks the next fresh id), which
// removes most copies that only permute new constants; with arity >= 2 some
// remain (e.g. {p(#1,a), p(#2,#1)} and {p(#1,#2), p(#2,a)}), costing only
// work: the canonical form merges their successors.
#pragma once

#include <vector>

#include "engine/compile.hpp"

namespace ddsmc::engine {

class InputEnumerator {
 public:
  explicit InputEnumerator(const CompiledModel& cm);
  // All input DBs for a state whose constants are `state_constants` (its
  // fresh constants, ascending). The empty DB comes first.
  const std::vector<std::vector<Word>>& inputs_for(const std::vector<Word>& state_fresh);

 private:
  const CompiledModel& cm_;
  uint32_t max_arity_ = 0;
  std::vector<Word> cached_key_;
  bool cached_ = false;
  std::vector<std::vector<Word>> inputs_;
};

}  // namespace ddsmc::engine
