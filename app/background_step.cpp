#include "app/background_step.hpp"

namespace ddsmc::app {

BackgroundStep::BackgroundStep(const engine::CompiledModel& cm, engine::CompiledStepOptions opts) {
  opts.stop = &stop_;
  opts.cached_only = false;
  thread_ = std::thread([this, &cm, opts] {
    loaded_ = engine::CompiledStepLibrary::load(cm, opts);
    done_.store(true, std::memory_order_release);
  });
}

BackgroundStep::~BackgroundStep() {
  stop();
  thread_.join();
}

}  // namespace ddsmc::app
