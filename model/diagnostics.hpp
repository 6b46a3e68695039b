// Errors and warnings found while loading a model, each located in its file.
// Loading collects them all (so one run reports several independent errors)
// and the caller decides the exit code: any error means exit 2.
#pragma once

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

class Diagnostics {
 public:
  explicit Diagnostics(std::string file = {}) : file_(std::move(file)) {}
  void error(Loc loc, std::string message);
  void warning(Loc loc, std::string message);
  bool has_errors() const { return errors_ > 0; }
  size_t error_count() const { return errors_; }
  const std::vector<Diagnostic>& all() const { return items_; }
  const std::string& file() const { return file_; }
  void set_file(std::string file) { file_ = std::move(file); }
  // One formatted line per diagnostic, in the order they were found.
  std::string format_all() const;

 private:
  std::string file_;
  std::vector<Diagnostic> items_;
  size_t errors_ = 0;
};

}  // namespace ddsmc::model
