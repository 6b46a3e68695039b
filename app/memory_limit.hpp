// --memory: the memory a check may use, and the watch that enforces it.
//
// The limit is enforced twice: the exploration does not grow its visited
// set past it (engine/explore), and a watch thread reads the process's
// resident set every 20 ms and, once it passes the limit, asks the engine
// to stop (Cancellation::kMemoryLimit): exploration, analysis and traces
// stop at their next poll with reason "memory-limit", exit 3, the figures
// so far. Never an out-of-memory kill, as long as the limit leaves the
// kernel room (the default does).
//
// The same thread keeps the state graph's edge rows on disk out of the
// resident set (engine/spill_file.hpp): while they are mapped it polls
// every 4 ms, and once the process's file-backed resident pages pass what
// they were at the start by kMappedSlack, it drops the mapped pages (they
// stay in the kernel's page cache). So the resident set, the limit and the
// peak RSS count the rows read back at most about kMappedSlack plus what
// the analysis reads in 4 ms, not the whole file.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

namespace ddsmc::app {

// "16G", "512M", "1.5G", "64k", "1000000" (bytes); binary units K, M, G, T
// (upper or lower case, an optional trailing "B" or "iB"). nullopt when the
// text is not such a size, is zero, or overflows 64 bits.
std::optional<uint64_t> parse_memory_size(const std::string& text);

// The memory this process may use: physical memory, capped by the cgroup's
// limit (v2 memory.max, v1 memory.limit_in_bytes) when there is one.
uint64_t available_memory();
// The default --memory: 85 % of available_memory().
uint64_t default_memory_limit();

// "1.5 GiB", "300.0 MiB": for messages.
std::string format_bytes(uint64_t bytes);

class MemoryWatch {
 public:
  static constexpr uint64_t kMappedSlack = uint64_t{16} << 20;
  // Starts watching (limit 0: only the mapped pages).
  explicit MemoryWatch(uint64_t limit);
  ~MemoryWatch();
  MemoryWatch(const MemoryWatch&) = delete;
  MemoryWatch& operator=(const MemoryWatch&) = delete;
  // Whether the watch asked the engine to stop.
  bool fired() const { return fired_.load(); }

 private:
  void run(uint64_t limit);
  std::atomic<bool> stop_{false}, fired_{false};
  std::thread thread_;
};

}  // namespace ddsmc::app
