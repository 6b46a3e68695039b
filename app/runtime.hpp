// Process-level services for long runs: signals, the memory guard, and
// memory figures for progress lines and stats.
//
// Signals. SIGINT and SIGTERM set Cancellation::kInterrupt in the word
// stop_requests(), which the engine polls (engine/cancel.hpp): the command
// stops its work and reports what it has. Before begin_graceful_stop()
// (loading the model, replay, lint: nothing partial worth reporting) a first
// signal exits at once; a second signal always does, unless it comes within
// a second of the first: that is the same request again (timeout(1) signals
// the process and then its process group). Exiting at once is a one-line
// message on stderr and exit code 3 (async-signal-safe: write(2),
// clock_gettime(2), _exit(2)); output files may then be incomplete.
// SIGXFSZ is ignored: past a file-size limit writes fail with EFBIG, which
// the outputs report as any failed write (app/output.hpp, exit 3).
//
// Memory. install_memory_guard() sets aside an emergency reserve. The first
// allocation that fails releases it and sets Cancellation::kMemoryLow (the
// allocation is then retried, and usually succeeds), so the engine stops at
// its next poll while there is still memory to unwind and write a report; a
// failure after that throws std::bad_alloc. A std::bad_alloc that still ends
// in std::terminate (thrown out of a destructor, say) exits 3 with a message
// instead of aborting.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ddsmc::app {

// The word the handlers set; pass it to engine::Cancellation.
const std::atomic<unsigned>& stop_requests();
// At the start of main: the handlers, the memory guard (reserve of `bytes`)
// and the terminate handler.
void install_process_guards(size_t reserve_bytes);
// From now on a first SIGINT/SIGTERM asks the engine to stop.
void begin_graceful_stop();

// Sets request bits (engine::Cancellation::k...) from any thread.
void request_stop(unsigned bits);
// True while the reserve is spent (kMemoryLow set).
bool memory_low();
// Tries to set the reserve aside again (after the engine stopped for memory
// and freed what it held); on success clears kMemoryLow.
bool refill_memory_reserve();
// For code building large reports: throws std::bad_alloc while memory_low(),
// so that it gives up while the freed reserve still covers the unwinding.
void throw_if_memory_low();

uint64_t peak_rss_bytes();
uint64_t current_rss_bytes();
// The resident set, and its file-backed (and shared) part.
struct Resident {
  uint64_t total = 0, file = 0;
};
Resident resident_bytes();
// Gives the memory malloc holds free back to the system (glibc keeps the
// freed buffers of the exploration's worker threads in their arenas; the
// analysis would otherwise run on top of them). A no-op elsewhere.
void release_free_memory();

}  // namespace ddsmc::app
