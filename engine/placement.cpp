#include "engine/placement.hpp"

#include <algorithm>
#include <charconv>

#include "hashing/fingerprint.hpp"

namespace ddsmc::engine {

std::optional<PlacementRule> PlacementRule::parse(std::string_view text) {
  if (text == "all") return PlacementRule{1};
  if (text == "nodes") return PlacementRule{0};
  constexpr std::string_view prefix = "nodes+arcs/";
  if (!text.starts_with(prefix)) return std::nullopt;
  text.remove_prefix(prefix.size());
  uint32_t k = 0;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, k);
  if (text.empty() || error != std::errc() || at != end || k == 0 || k > (1u << 20)) return std::nullopt;
  return PlacementRule{k};
}

std::string PlacementRule::text() const {
  if (arc_stride == 1) return "all";
  if (arc_stride == 0) return "nodes";
  return "nodes+arcs/" + std::to_string(arc_stride);
}

std::vector<uint8_t> key_parts(const PlacementRule& rule, uint32_t nodes, uint32_t arcs) {
  std::vector<uint8_t> in(size_t{nodes} + arcs, 0);
  std::fill(in.begin(), in.begin() + nodes, uint8_t{1});
  if (rule.arc_stride)
    for (uint32_t a = 0; a < arcs; a += rule.arc_stride) in[nodes + a] = 1;
  return in;
}

uint64_t placement_key(const hashing::SegmentedEncoding& e, std::span<const uint8_t> in_key) {
  uint64_t key = 0;
  for (uint32_t p = 0; p + 1 < e.begin.size(); ++p)
    if (in_key[p]) key += hashing::part_key(std::string_view(e.bytes).substr(e.begin[p], e.begin[p + 1] - e.begin[p]), p);
  return key;
}

}  // namespace ddsmc::engine
