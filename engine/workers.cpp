#include "engine/workers.hpp"

#include <tbb/global_control.h>
#include <tbb/info.h>

namespace ddsmc::engine {

struct WorkerPool::Impl {
  explicit Impl(size_t n) : control(tbb::global_control::max_allowed_parallelism, n) {}
  tbb::global_control control;
};

size_t hardware_threads() {
  int n = tbb::info::default_concurrency();
  return n > 0 ? static_cast<size_t>(n) : 1;
}

WorkerPool::WorkerPool(size_t threads)
    : impl_(std::make_unique<Impl>(threads == 0 ? hardware_threads() : threads)),
      threads_(threads == 0 ? hardware_threads() : threads) {}

WorkerPool::~WorkerPool() = default;

}  // namespace ddsmc::engine
