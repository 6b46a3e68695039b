// The subcommands of the ddsmc binary. Each returns the process exit code
// (SPEC section 5: 0 holds, 1 fails, 2 usage or model error, 3 incomplete).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/resolve.hpp"

namespace ddsmc::app {

inline constexpr int kExitHolds = 0;
inline constexpr int kExitFails = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIncomplete = 3;

// Options every command that loads a model shares.
struct ModelOptions {
  std::string path;
  model::Overrides overrides;
};

int run_lint(const ModelOptions& opts);

}  // namespace ddsmc::app
