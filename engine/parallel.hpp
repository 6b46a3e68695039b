// The one parallel loop of the engine, and the slot of the worker running
// a loop body (to index per-worker state: expanders, edge buffers).
//
// Normally both are TBB's: tbb::parallel_for on the caller's task arena and
// tbb::this_task_arena::current_thread_index(). In a ThreadSanitizer build
// they run on plain std::threads instead (as many as the arena allows, the
// caller being slot 0), because Debian's libtbb is not built with
// -fsanitize=thread: TSan cannot see the synchronisation inside it and
// reports TBB's own hand-overs (task objects, wait contexts) as races. The
// loop bodies, the visited set and everything they share are the same code
// in both builds, so TSan checks exactly what ddsmc adds.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#if defined(__SANITIZE_THREAD__)
#define DDSMC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DDSMC_TSAN 1
#endif
#endif

#ifdef DDSMC_TSAN
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace ddsmc::engine {

#ifdef DDSMC_TSAN
namespace detail {
inline thread_local uint32_t worker_slot = 0;
}  // namespace detail

inline uint32_t worker_slot() { return detail::worker_slot; }

template <class Index, class Body>
void parallel_for(Index begin, Index end, size_t grain, Body&& body) {
  if (begin >= end) return;
  const size_t step = std::max<size_t>(grain, 1), last = static_cast<size_t>(end);
  const auto threads = static_cast<uint32_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  std::atomic<size_t> next{static_cast<size_t>(begin)};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto run = [&](uint32_t slot) {
    const uint32_t saved = detail::worker_slot;
    detail::worker_slot = slot;
    for (;;) {
      const size_t lo = next.fetch_add(step);
      if (lo >= last) break;
      try {
        body(tbb::blocked_range<Index>(static_cast<Index>(lo), static_cast<Index>(std::min(last, lo + step))));
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(last);
        break;
      }
    }
    detail::worker_slot = saved;
  };
  std::vector<std::thread> helpers;
  for (uint32_t slot = 1; slot < threads; ++slot) helpers.emplace_back(run, slot);
  run(0);
  for (auto& t : helpers) t.join();
  if (error) std::rethrow_exception(error);
}

#else

inline uint32_t worker_slot() { return static_cast<uint32_t>(tbb::this_task_arena::current_thread_index()); }

// Runs body(subrange) over [begin, end) in chunks of at least `grain`, on
// the task arena the caller is in.
template <class Index, class Body>
void parallel_for(Index begin, Index end, size_t grain, Body&& body) {
  if (begin >= end) return;
  tbb::parallel_for(tbb::blocked_range<Index>(begin, end, grain), body);
}

#endif

}  // namespace ddsmc::engine
