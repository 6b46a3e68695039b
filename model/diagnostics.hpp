// Errors and warnings found while loading a model, each located in its file.
// Loading collects them (so one run reports several independent errors) and
// the caller decides the exit code: any error means exit 2.
//
// At most kMaxShownPerPhase errors and as many warnings are kept per phase
// (reading, lexing, parsing, resolving); the rest are only counted, so a file
// with a million errors costs a million counter increments, not a million
// messages, and format_all() ends with a line saying how many were not shown.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/ast.hpp"

namespace ddsmc::model {

struct Diagnostic {
  enum class Severity { Error, Warning };
  Severity severity = Severity::Error;
  std::string file;
  Loc loc;
  std::string message;
  // "FILE:LINE:COL: error: message" (or without LINE:COL when loc is unset).
  std::string format() const;
};

// The phases of loading; each has its own cap. The lexer and the parser run
// interleaved (the parser pulls tokens), so each names its phase per report.
enum class Phase : uint8_t { Read, Lex, Parse, Resolve };
inline constexpr size_t kNumPhases = 4;

inline constexpr size_t kMaxShownPerPhase = 100;

class Diagnostics {
 public:
  explicit Diagnostics(std::string file = {}) : file_(std::move(file)) {}

  // The phase of the reports made with error(loc, ...) and warning(loc, ...);
  // Read until set (resolve() sets Resolve).
  void set_phase(Phase p) { phase_ = p; }
  void error(Loc loc, std::string message) { error(phase_, loc, std::move(message)); }
  void warning(Loc loc, std::string message) { warning(phase_, loc, std::move(message)); }
  void error(Phase phase, Loc loc, std::string message);
  void warning(Phase phase, Loc loc, std::string message);
  // True once `phase` has kMaxShownPerPhase errors: further errors of that
  // phase are only counted. A reporter that cannot cheaply go on (the lexer
  // and the parser) stops then, and says so with stop().
  bool phase_full(Phase phase) const { return counts_[index(phase)].shown_errors >= kMaxShownPerPhase; }
  // Records that `phase` gave up at `loc` (always shown, counted as an error).
  void stop(Phase phase, Loc loc, std::string message);

  bool has_errors() const { return errors_ > 0; }
  size_t error_count() const { return errors_; }      // shown or not
  size_t warning_count() const { return warnings_; }  // shown or not
  // The diagnostics that are shown, in the order they were found.
  const std::vector<Diagnostic>& all() const { return items_; }
  const std::string& file() const { return file_; }
  void set_file(std::string file) { file_ = std::move(file); }
  // One formatted line per shown diagnostic, then, for each phase that had
  // more than it shows, "FILE: N more errors while resolving not shown ...".
  std::string format_all() const;

 private:
  struct Counts {
    size_t errors = 0, warnings = 0;              // all reported
    size_t shown_errors = 0, shown_warnings = 0;  // kept in items_
  };
  static size_t index(Phase p) { return static_cast<size_t>(p); }
  void add(Phase phase, Diagnostic::Severity severity, Loc loc, std::string message);

  std::string file_;
  Phase phase_ = Phase::Read;
  std::vector<Diagnostic> items_;
  std::array<Counts, kNumPhases> counts_{};
  size_t errors_ = 0;
  size_t warnings_ = 0;
};

}  // namespace ddsmc::model
