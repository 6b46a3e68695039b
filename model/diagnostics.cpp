#include "model/diagnostics.hpp"

#include <fmt/format.h>

namespace ddsmc::model {

std::string Diagnostic::format() const {
  const char* sev = severity == Severity::Error ? "error" : "warning";
  if (loc.line == 0) return fmt::format("{}: {}: {}", file, sev, message);
  return fmt::format("{}:{}:{}: {}: {}", file, loc.line, loc.col, sev, message);
}

void Diagnostics::error(Loc loc, std::string message) {
  items_.push_back({Diagnostic::Severity::Error, file_, loc, std::move(message)});
  ++errors_;
}

void Diagnostics::warning(Loc loc, std::string message) {
  items_.push_back({Diagnostic::Severity::Warning, file_, loc, std::move(message)});
}

std::string Diagnostics::format_all() const {
  std::string out;
  for (const auto& d : items_) {
    out += d.format();
    out += '\n';
  }
  return out;
}

}  // namespace ddsmc::model
