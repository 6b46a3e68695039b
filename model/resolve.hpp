// Static checks (docs/reference.md §2.3, rules 1-6) and name resolution: turns a
// Program into the immutable Model the engine runs, applying command-line
// overrides for the network and the bounds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/ast.hpp"
#include "model/diagnostics.hpp"
#include "model/model.hpp"

namespace ddsmc::model {

struct Overrides {
  std::optional<std::string> network_spec;  // --network
  std::optional<uint32_t> input_bound;      // --input-bound
  std::optional<uint32_t> state_bound;      // --state-bound
  std::optional<uint32_t> channel_bound;    // --channel-bound
};

// Returns the model, or nullopt when `diag` received an error. Warnings
// (legal but suspicious programs) are added to `diag` either way.
std::optional<Model> resolve(const Program& program, const Overrides& overrides, Diagnostics& diag);

}  // namespace ddsmc::model
