#include "engine/workers.hpp"

#include <sched.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>

namespace ddsmc::engine {
namespace {

// The CPUs the process may run on (its affinity mask).
size_t affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return static_cast<size_t>(CPU_COUNT(&set));
}

// The CPU quota of the process's cgroup, rounded up (v2 cpu.max, else v1
// cpu.cfs_quota_us / cpu.cfs_period_us); 0 when there is none.
size_t cgroup_cpus() {
  std::ifstream v2("/sys/fs/cgroup/cpu.max");
  std::string quota;
  double period = 0;
  if (v2 >> quota >> period) {
    if (quota == "max" || period <= 0) return 0;
    return static_cast<size_t>(std::ceil(std::stod(quota) / period));
  }
  std::ifstream q("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), p("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  double quota_us = 0;
  if (q >> quota_us && p >> period && quota_us > 0 && period > 0)
    return static_cast<size_t>(std::ceil(quota_us / period));
  return 0;
}

}  // namespace

struct WorkerPool::Impl {
  explicit Impl(size_t n) : control(tbb::global_control::max_allowed_parallelism, n) {}
  tbb::global_control control;
};

size_t hardware_threads() {
  size_t n = affinity_cpus();
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  if (size_t quota = cgroup_cpus(); quota > 0) n = std::min(n, quota);
  return std::max<size_t>(n, 1);
}

size_t max_threads() { return kThreadsPerCpu * hardware_threads(); }

WorkerPool::WorkerPool(size_t threads)
    : impl_(std::make_unique<Impl>(threads == 0 ? hardware_threads() : threads)),
      threads_(threads == 0 ? hardware_threads() : threads) {}

WorkerPool::~WorkerPool() = default;

}  // namespace ddsmc::engine
