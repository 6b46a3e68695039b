// Where a command's results go, checked end to end: an output file is
// opened (created) before any work, so an unwritable path is a usage error
// (exit 2) before exploring; every write, the final flush and the close are
// checked, for files and for standard output alike, and the first failure
// is kept with its reason ("cannot write FILE: No space left on device",
// "File too large" past a file-size limit: SIGXFSZ is ignored,
// app/runtime.hpp). Two outputs that are one file are a usage error too.
// A command whose result could not be written exits 3 (semantics.md §10).
#pragma once

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ddsmc::app {

class Output {
 public:
  // Opens every output named on the command line (absent ones give
  // nullptr): files (created, then emptied, owned by `files`) or, for "-",
  // standard(). All or none: when one cannot be opened, the message is in
  // `error`, the result is empty, no file was emptied and the files this
  // call created are removed again. Two outputs that are one file (compared
  // by device and inode: the same path, a link, /dev/stdout beside "-", or
  // a file that is standard output while the command's text goes there)
  // are refused the same way; /dev/null may be named more than once.
  static std::vector<Output*> open_all(const std::vector<std::optional<std::string>>& paths,
                                       std::vector<std::unique_ptr<Output>>& files, std::string& error);
  // Standard output: one instance, which main() finishes after the command.
  static Output& standard();
  // Standard error, for text that goes there when the result takes stdout
  // (`--json -`); its failures are not reported (where would they go?).
  static Output& standard_error();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output();

  // Writes unless an earlier write failed; never throws.
  void write(std::string_view text) noexcept;
  // Flushes and closes (standard output too: main() does that last). False
  // when anything failed.
  bool finish() noexcept;
  // finish(), and on failure says so on stderr ("ddsmc: cannot write NAME:
  // reason; the result could not be delivered").
  bool deliver() noexcept;
  bool ok() const { return error_ == 0; }

 private:
  Output(std::FILE* f, std::string name) : file_(f), name_(std::move(name)) {}
  std::FILE* file_;
  std::string name_;
  int error_ = 0;  // errno of the first failure
};

// JSON text that cannot throw: invalid UTF-8 (a model path, a constant)
// comes out as U+FFFD. `indent` as in nlohmann::json::dump.
std::string dump_json(const nlohmann::json& j, int indent = -1);

}  // namespace ddsmc::app
