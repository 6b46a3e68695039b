#include "engine/bounds.hpp"

#include <algorithm>

namespace ddsmc::engine {

std::optional<BoundViolation> check_bounds(const hashing::GlobalState& s, const CompiledModel& cm) {
  const auto& b = cm.model->bounds;
  const auto& layout = cm.layout;
  if (b.state) {
    std::vector<Word> consts;
    for (uint32_t n = 0; n < layout.num_nodes; ++n) {
      // The DB holds no my_name/neighbor facts: they are implied, and excluded by the SPEC.
      consts.clear();
      const auto& db = s.dbs[n];
      for (size_t i = 0; i < db.size();) {
        uint32_t arity = layout.arity[db[i]];
        consts.insert(consts.end(), db.begin() + i + 1, db.begin() + i + 1 + arity);
        i += 1 + arity;
      }
      std::sort(consts.begin(), consts.end());
      auto distinct = static_cast<uint32_t>(std::unique(consts.begin(), consts.end()) - consts.begin());
      if (distinct > *b.state) return BoundViolation{BoundViolation::Kind::State, n, distinct, *b.state};
    }
  }
  if (b.channel) {
    for (uint32_t a = 0; a < layout.num_arcs; ++a) {
      const auto& ch = s.channels[a];
      uint32_t total = 0;
      for (size_t i = 0; i < ch.size();) {
        size_t len = layout.fact_words(ch[i]);
        total += ch[i + len];
        i += len + 1;
      }
      if (total > *b.channel) return BoundViolation{BoundViolation::Kind::Channel, a, total, *b.channel};
    }
  }
  return std::nullopt;
}

}  // namespace ddsmc::engine
