#include "engine/d2c/bounds.hpp"

#include <algorithm>

namespace ddsmc::engine {

std::optional<BoundViolation> check_db_bound(const std::vector<Word>& db, uint32_t node, const CompiledModel& cm,
                                             std::vector<Word>& consts) {
  const auto& b = cm.model->bounds;
  if (!b.state) return std::nullopt;
  // The DB holds no my_name/neighbor facts: they are implied, and excluded (docs/reference.md §2.7).
  // Without more constant occurrences than the bound it cannot be exceeded:
  // counted first, without copying them (the common case, once per step).
  size_t occurrences = 0;
  for (size_t i = 0; i < db.size(); i += 1 + cm.layout.arity[db[i]]) occurrences += cm.layout.arity[db[i]];
  if (occurrences <= *b.state) return std::nullopt;
  consts.clear();
  for (size_t i = 0; i < db.size();) {
    uint32_t arity = cm.layout.arity[db[i]];
    consts.insert(consts.end(), db.begin() + i + 1, db.begin() + i + 1 + arity);
    i += 1 + arity;
  }
  std::sort(consts.begin(), consts.end());
  auto distinct = static_cast<uint32_t>(std::unique(consts.begin(), consts.end()) - consts.begin());
  if (distinct > *b.state) return BoundViolation{BoundViolation::Kind::State, node, distinct, *b.state};
  return std::nullopt;
}

std::optional<BoundViolation> check_channel_bound(const std::vector<Word>& ch, uint32_t arc, const CompiledModel& cm) {
  const auto& b = cm.model->bounds;
  if (!b.channel) return std::nullopt;
  uint64_t total = 0;  // counts are 32-bit each: their sum may not be
  for (size_t i = 0; i < ch.size();) {
    size_t len = cm.layout.fact_words(ch[i]);
    total += ch[i + len];
    i += len + 1;
  }
  if (total > *b.channel) {
    auto value = static_cast<uint32_t>(std::min<uint64_t>(total, UINT32_MAX));
    return BoundViolation{BoundViolation::Kind::Channel, arc, value, *b.channel};
  }
  return std::nullopt;
}

std::optional<BoundViolation> check_bounds(const hashing::GlobalState& s, const CompiledModel& cm) {
  std::vector<Word> scratch;
  for (uint32_t n = 0; n < cm.layout.num_nodes; ++n)
    if (auto v = check_db_bound(s.dbs[n], n, cm, scratch)) return v;
  for (uint32_t a = 0; a < cm.layout.num_arcs; ++a)
    if (auto v = check_channel_bound(s.channels[a], a, cm)) return v;
  return std::nullopt;
}

}  // namespace ddsmc::engine
