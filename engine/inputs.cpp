#include "engine/inputs.hpp"

#include <algorithm>

namespace ddsmc::engine {

InputEnumerator::InputEnumerator(const CompiledModel& cm) : cm_(cm) {
  for (auto p : cm.input_preds) max_arity_ = std::max(max_arity_, cm.layout.arity[p]);
}

const std::vector<std::vector<Word>>& InputEnumerator::inputs_for(const std::vector<Word>& state_fresh) {
  // The input DBs depend only on which fresh constants the state holds.
  if (cached_ && cached_key_ == state_fresh) return inputs_;
  cached_ = true;
  cached_key_ = state_fresh;
  inputs_.clear();
  inputs_.emplace_back();  // the empty input DB
  uint32_t bound = cm_.model->bounds.input;
  if (bound == 0 || cm_.input_preds.empty()) return inputs_;

  const uint32_t fixed = cm_.layout.num_fixed;
  Word first_new = fixed;
  if (!state_fresh.empty()) first_new = std::max<Word>(fixed, state_fresh.back() + 1);
  std::vector<Word> domain;
  for (Word c = 0; c < fixed; ++c) domain.push_back(c);
  domain.insert(domain.end(), state_fresh.begin(), state_fresh.end());
  for (uint32_t k = 0; k < bound * max_arity_; ++k) domain.push_back(first_new + k);

  // Candidate facts in sorted order: by predicate, then arguments.
  std::vector<std::vector<Word>> facts;
  std::vector<Word> preds = cm_.input_preds;
  std::sort(preds.begin(), preds.end());
  for (Word p : preds) {
    uint32_t arity = cm_.layout.arity[p];
    std::vector<size_t> idx(arity, 0);
    while (true) {
      std::vector<Word> f{p};
      for (size_t i : idx) f.push_back(domain[i]);
      facts.push_back(std::move(f));
      size_t k = arity;
      while (k > 0 && ++idx[k - 1] == domain.size()) idx[--k] = 0;
      if (k == 0) break;
    }
  }

  // Subsets of size 1..bound as increasing index combinations; keep those
  // whose new constants appear as first_new, first_new+1, ... in order.
  for (uint32_t size = 1; size <= bound && size <= facts.size(); ++size) {
    std::vector<size_t> comb(size);
    for (uint32_t i = 0; i < size; ++i) comb[i] = i;
    while (true) {
      Word expect = first_new;
      bool canonical = true;
      for (size_t i = 0; i < size && canonical; ++i) {
        const auto& f = facts[comb[i]];
        for (size_t a = 1; a < f.size() && canonical; ++a) {
          if (f[a] < first_new) continue;
          if (f[a] == expect) ++expect;
          else if (f[a] > expect) canonical = false;
        }
      }
      if (canonical) {
        std::vector<Word> db;
        for (size_t i : comb) db.insert(db.end(), facts[i].begin(), facts[i].end());
        inputs_.push_back(std::move(db));
      }
      // Next combination.
      size_t k = size;
      while (k > 0 && comb[k - 1] == facts.size() - size + (k - 1)) --k;
      if (k == 0) break;
      ++comb[k - 1];
      for (size_t i = k; i < size; ++i) comb[i] = comb[i - 1] + 1;
    }
  }
  return inputs_;
}

}  // namespace ddsmc::engine
