// The D2C semantics behind the language-free System interface
// (engine/system.hpp): what every exploration back-end and the analysis
// see of a compiled model.
#pragma once

#include <memory>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/compiled_step.hpp"
#include "engine/explore.hpp"
#include "engine/system.hpp"

namespace ddsmc::engine {

class D2cSystem final : public System {
 public:
  // TEMPORARY (branch `compiled`, issue 9 prototype): with the environment
  // variable DDSMC_STEP_BACKEND=compiled, steps are evaluated by the
  // model's generated and compiled step function (compiled_step.hpp); a
  // model the generator refuses, or a failed compile, falls back to the
  // interpreter with a message on stderr. To be replaced by --backend.
  explicit D2cSystem(const CompiledModel& cm);
  // Steps through `compiled` (null: the interpreter), whatever the environment.
  D2cSystem(const CompiledModel& cm, std::shared_ptr<const CompiledStepLibrary> compiled)
      : cm_(cm), compiled_(std::move(compiled)) {}
  const hashing::StateLayout& layout() const override { return cm_.layout; }
  hashing::GlobalState initial_state() const override;
  std::optional<BoundViolation> check_bounds(const hashing::GlobalState& s) const override;
  bool faulty(const hashing::GlobalState& s, uint32_t node) const override;
  bool may_have_fresh() const override { return cm_.may_have_fresh; }
  std::unique_ptr<Generator> generator() const override;
  const CompiledModel& compiled() const { return cm_; }

 private:
  const CompiledModel& cm_;
  std::shared_ptr<const CompiledStepLibrary> compiled_;
};

// Explores a compiled model: explore() over its D2cSystem.
ExploreResult explore(const CompiledModel& cm, const ExploreOptions& opts);

}  // namespace ddsmc::engine
