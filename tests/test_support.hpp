// Helpers shared by the test suites: where the sources are, and running the
// real ddsmc binary the way a user does (exit code, stdout, stderr).
#pragma once

#include <string>
#include <vector>

namespace ddsmc::test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string source_path(const std::string& relative);  // DDSMC_SOURCE_DIR/relative
std::string ddsmc_binary();
CliResult run_ddsmc(const std::vector<std::string>& args, double timeout_seconds = 300);
// A scratch file with `content`, removed at process exit; returns its path.
std::string temp_file(const std::string& content, const std::string& suffix = ".d2c");
std::string temp_dir();
std::string read_text(const std::string& path);

}  // namespace ddsmc::test
