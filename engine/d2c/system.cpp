#include "engine/d2c/system.hpp"

#include "engine/d2c/bounds.hpp"
#include "engine/d2c/successors.hpp"

namespace ddsmc::engine {
namespace {

// The D2C successor function as a back-end sees it: the label, the
// successor and the language-free part of the step's detail.
class D2cGenerator final : public Generator {
 public:
  D2cGenerator(const CompiledModel& cm, std::shared_ptr<const CompiledStepLibrary> compiled)
      : gen_(cm, std::move(compiled)) {}
  void successors(hashing::GlobalState& s, Sink sink) override {
    gen_.successors(s, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepDetail& d) {
      sink(label, succ, d);
    });
  }
  void set_cancellation(Cancellation* c) override { gen_.set_cancellation(c); }
  void set_skip_violating(bool skip) override { gen_.set_skip_violating(skip); }
  uint64_t skipped() const override { return gen_.skipped(); }

 private:
  SuccessorGenerator gen_;
};

}  // namespace

hashing::GlobalState D2cSystem::initial_state() const { return engine::initial_state(cm_); }

std::optional<BoundViolation> D2cSystem::check_bounds(const hashing::GlobalState& s) const {
  return engine::check_bounds(s, cm_);
}

bool D2cSystem::faulty(const hashing::GlobalState& s, uint32_t node) const {
  // Facts are sorted by predicate, and `error` (0-ary) has a built-in id.
  const auto& db = s.dbs[node];
  for (size_t i = 0; i < db.size(); i += cm_.layout.fact_words(db[i])) {
    if (db[i] == model::kError) return true;
    if (db[i] > model::kError) return false;
  }
  return false;
}

std::unique_ptr<Generator> D2cSystem::generator() const { return std::make_unique<D2cGenerator>(cm_, compiled_); }

ExploreResult explore(const CompiledModel& cm, const ExploreOptions& opts) { return explore(D2cSystem(cm), opts); }

}  // namespace ddsmc::engine
