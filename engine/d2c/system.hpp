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
  // Steps are evaluated by `compiled`, the model's generated and compiled
  // step function (compiled_step.hpp), or by the interpreter when it is
  // null; both give the same successors in the same order.
  explicit D2cSystem(const CompiledModel& cm, std::shared_ptr<const CompiledStepLibrary> compiled = nullptr)
      : cm_(cm), compiled_(std::move(compiled)) {}
  const hashing::StateLayout& layout() const override { return cm_.layout; }
  hashing::GlobalState initial_state() const override;
  std::optional<BoundViolation> check_bounds(const hashing::GlobalState& s) const override;
  bool faulty(const hashing::GlobalState& s, uint32_t node) const override;
  bool may_have_fresh() const override { return cm_.may_have_fresh; }
  std::unique_ptr<Generator> generator() const override;
  const CompiledModel& compiled() const { return cm_; }
  // Generators made from now on evaluate steps with `compiled` (null: the
  // interpreter). Not while another thread calls generator().
  void use_step(std::shared_ptr<const CompiledStepLibrary> compiled) { compiled_ = std::move(compiled); }
  // Explores up to this group (engine/d2c/symmetry.hpp gives the model's);
  // null or trivial: none. Before any generator is made.
  void set_symmetry(std::shared_ptr<const hashing::SymmetryGroup> group) {
    symmetry_ = group && !group->trivial() ? std::move(group) : nullptr;
  }
  const hashing::SymmetryGroup* symmetry() const override { return symmetry_.get(); }

 private:
  const CompiledModel& cm_;
  std::shared_ptr<const CompiledStepLibrary> compiled_;
  std::shared_ptr<const hashing::SymmetryGroup> symmetry_;
};

// Explores a compiled model: explore() over its D2cSystem.
ExploreResult explore(const CompiledModel& cm, const ExploreOptions& opts);

}  // namespace ddsmc::engine
