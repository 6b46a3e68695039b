#include "model/diagnostics.hpp"

#include <fmt/format.h>

namespace ddsmc::model {
namespace {

constexpr std::array<const char*, kNumPhases> kPhaseNames = {"reading", "lexing", "parsing", "resolving"};

std::string more(size_t n, const char* what) { return fmt::format("{} more {}{}", n, what, n == 1 ? "" : "s"); }

}  // namespace

std::string Diagnostic::format() const {
  const char* sev = severity == Severity::Error ? "error" : "warning";
  if (loc.line == 0) return fmt::format("{}: {}: {}", file, sev, message);
  return fmt::format("{}:{}:{}: {}: {}", file, loc.line, loc.col, sev, message);
}

void Diagnostics::add(Phase phase, Diagnostic::Severity severity, Loc loc, std::string message) {
  Counts& c = counts_[index(phase)];
  const bool is_error = severity == Diagnostic::Severity::Error;
  ++(is_error ? errors_ : warnings_);
  ++(is_error ? c.errors : c.warnings);
  size_t& shown = is_error ? c.shown_errors : c.shown_warnings;
  if (shown >= kMaxShownPerPhase) return;
  ++shown;
  items_.push_back({severity, file_, loc, std::move(message)});
}

void Diagnostics::error(Phase phase, Loc loc, std::string message) {
  add(phase, Diagnostic::Severity::Error, loc, std::move(message));
}

void Diagnostics::warning(Phase phase, Loc loc, std::string message) {
  add(phase, Diagnostic::Severity::Warning, loc, std::move(message));
}

void Diagnostics::stop(Phase phase, Loc loc, std::string message) {
  Counts& c = counts_[index(phase)];
  ++errors_;
  ++c.errors;
  ++c.shown_errors;
  items_.push_back({Diagnostic::Severity::Error, file_, loc, std::move(message)});
}

std::string Diagnostics::format_all() const {
  std::string out;
  for (const auto& d : items_) {
    out += d.format();
    out += '\n';
  }
  for (size_t p = 0; p < kNumPhases; ++p) {
    const Counts& c = counts_[p];
    const size_t errors = c.errors - c.shown_errors, warnings = c.warnings - c.shown_warnings;
    if (errors == 0 && warnings == 0) continue;
    std::string what = errors ? more(errors, "error") : "";
    if (warnings) what += (errors ? " and " : "") + more(warnings, "warning");
    out += fmt::format("{}: {} while {} not shown (at most {} of each per phase)\n", file_, what, kPhaseNames[p],
                       kMaxShownPerPhase);
  }
  return out;
}

}  // namespace ddsmc::model
