// Process-level services for long runs: SIGINT/SIGTERM turn into a flag the
// exploration polls (so it stops cleanly with what it has), and memory
// figures for progress lines and stats.
#pragma once

#include <atomic>
#include <cstdint>

namespace ddsmc::app {

// Installs the handlers once; returns the flag they set.
const std::atomic<bool>& install_stop_handlers();
uint64_t peak_rss_bytes();
uint64_t current_rss_bytes();
double wall_seconds();  // since process start (first call)

}  // namespace ddsmc::app
