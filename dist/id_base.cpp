#include "dist/id_base.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include "engine/state_store.hpp"

namespace ddsmc::dist {

engine::StateId checked_id_base(uint64_t base, int ranks) {
  const uint64_t limit = uint64_t{1} << 63;
  const uint64_t room = engine::kMaxLocalStates * static_cast<uint64_t>(ranks > 0 ? ranks : 1);
  if (base >= limit || limit - base < room)
    throw std::invalid_argument("test id base " + std::to_string(base) + " leaves no room for " +
                                std::to_string(room) + " states below 2^63 at " + std::to_string(ranks) +
                                " rank(s)");
  return base;
}

std::optional<uint64_t> parse_id_base(const std::string& text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, v);
  if (text.empty() || error != std::errc() || at != end) return std::nullopt;
  return v;
}

engine::StateId id_base_from_environment(int ranks) {
  const char* text = std::getenv(kIdBaseVariable);
  if (!text) return 0;
  const auto base = parse_id_base(text);
  if (!base)
    throw std::invalid_argument(std::string(kIdBaseVariable) + "='" + text + "' is not a decimal number");
  return checked_id_base(*base, ranks);
}

}  // namespace ddsmc::dist
