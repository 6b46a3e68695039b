// Helpers the resolver's passes share for their messages: locations, plurals,
// shortened rule texts, and "did you mean" suggestions for undeclared names.
#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "model/resolve/context.hpp"

namespace ddsmc::model::resolver {
namespace {

// Levenshtein distance between a and b, or cap + 1 when it exceeds cap.
size_t edit_distance(std::string_view a, std::string_view b, size_t cap) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > cap) return cap + 1;
  std::vector<size_t> row(b.size() + 1), next(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    next[0] = i;
    size_t best = next[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      next[j] = std::min({row[j] + 1, next[j - 1] + 1, sub});
      best = std::min(best, next[j]);
    }
    if (best > cap) return cap + 1;
    std::swap(row, next);
  }
  return std::min(row[b.size()], cap + 1);
}

}  // namespace

std::string loc_text(Loc l) { return fmt::format("line {}:{}", l.line, l.col); }

// Rule texts inside messages are cut to keep a message on one screen line.
std::string shorten(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  return s.substr(0, max - 3) + "...";
}

std::string plural(size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// The closest declared name within a small edit distance (none for names
// of 1-2 characters, 1 up to 5, else 2), or "" when none.
std::string Suggestions::closest(const std::string& name, const std::vector<Predicate>& preds) {
  auto cached = cache_.find(name);
  if (cached != cache_.end()) return cached->second;
  std::string best;
  const size_t max_distance = name.size() <= 2 ? 0 : name.size() <= 5 ? 1 : 2;
  size_t best_distance = max_distance + 1;
  if (name.size() <= 64 && max_distance > 0) {
    for (const Predicate& p : preds) {
      if (budget_ <= 0) break;
      size_t diff = p.name.size() > name.size() ? p.name.size() - name.size() : name.size() - p.name.size();
      if (diff > max_distance) continue;
      budget_ -= static_cast<int64_t>((name.size() + 1) * (p.name.size() + 1));
      size_t d = edit_distance(name, p.name, max_distance);
      if (d < best_distance) {
        best_distance = d;
        best = p.name;
      }
    }
  }
  if (cache_.size() < 10000) cache_.emplace(name, best);
  return best;
}

std::string Resolution::rule_where(uint32_t rule) const {
  if (rule == kNone) return "in an init block";
  return fmt::format("in {} '{}'", prog.rules[rule].body.empty() ? "fact" : "rule", shorten(m.rules[rule].text));
}

}  // namespace ddsmc::model::resolver
