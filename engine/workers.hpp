// The TBB worker pool every parallel back-end shares: one place that decides
// how many threads the process uses (--threads; 0 = all cores).
#pragma once

#include <cstddef>
#include <memory>

namespace ddsmc::engine {

class WorkerPool {
 public:
  explicit WorkerPool(size_t threads);  // 0: hardware_threads()
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  size_t threads() const { return threads_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  size_t threads_;
};

// The CPUs the process may use: its affinity mask, capped by its cgroup CPU
// quota (a container or a Slurm job with --cpus-per-task).
size_t hardware_threads();

// The most workers a process may ask for (--threads): kThreadsPerCpu per
// CPU it may use. More only costs memory and time (each worker has its
// buffers, every round waits for all of them); a million would take gigabytes
// before the first state.
inline constexpr size_t kThreadsPerCpu = 4;
size_t max_threads();

}  // namespace ddsmc::engine
