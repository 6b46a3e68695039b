#include "app/runtime.hpp"

#include <sys/resource.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <csignal>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

#include "engine/cancel.hpp"
#include "engine/d2c/compiler_run.hpp"

namespace ddsmc::app {
namespace {

using engine::Cancellation;

std::atomic<unsigned> g_requests{0};
std::atomic<bool> g_graceful{false};
std::atomic<void*> g_reserve{nullptr};
size_t g_reserve_bytes = 0;
std::terminate_handler g_previous_terminate = nullptr;

static_assert(std::atomic<unsigned>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

void say(const char* msg) {
  size_t n = 0;
  while (msg[n]) ++n;
  ssize_t w = ::write(STDERR_FILENO, msg, n);
  (void)w;
}

// A signal within this long of the first is the same request: timeout(1)
// sends SIGTERM to the child and then to its process group, a shell's
// Ctrl-C may reach the process twice.
constexpr int64_t kSameRequestNs = 1'000'000'000;

// CLOCK_MONOTONIC in nanoseconds (clock_gettime is async-signal-safe).
int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

std::atomic<int64_t> g_first_signal_ns{0};
static_assert(std::atomic<int64_t>::is_always_lock_free, "the signal handler needs lock-free atomics");

extern "C" void on_stop_signal(int) {
  // A compiler building the model's step (before any work) goes with ddsmc:
  // in its own process group, it would not see a signal sent to ddsmc alone.
  engine::kill_running_compiler();
  // The first signal's time is set before its request bit, so that one
  // arriving at once on another thread finds it.
  const int64_t now = monotonic_ns();
  int64_t unset = 0;
  g_first_signal_ns.compare_exchange_strong(unset, now);
  unsigned before = g_requests.fetch_or(Cancellation::kInterrupt);
  if (before & Cancellation::kInterrupt) {
    if (now - g_first_signal_ns.load() < kSameRequestNs) return;  // the same request again
    say("ddsmc: second signal: exiting at once (exit 3); output may be incomplete\n");
    _exit(3);
  }
  if (!g_graceful.load()) {
    say("ddsmc: interrupted before any result (exit 3)\n");
    _exit(3);
  }
}

void on_allocation_failure() {
  void* reserve = g_reserve.exchange(nullptr);
  if (!reserve) throw std::bad_alloc();
  std::free(reserve);
  g_requests.fetch_or(Cancellation::kMemoryLow);
}

[[noreturn]] void on_terminate() {
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      say("ddsmc: out of memory; the check is incomplete (exit 3)\n");
      _exit(3);
    } catch (...) {
    }
  }
  if (g_previous_terminate) g_previous_terminate();
  std::abort();
}

}  // namespace

const std::atomic<unsigned>& stop_requests() { return g_requests; }

void install_process_guards(size_t reserve_bytes) {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESTART;  // interrupted reads and writes resume
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // Past a file-size limit (ulimit -f) a write fails with EFBIG, and the
  // output it was for reports "cannot write" (exit 3), instead of SIGXFSZ
  // killing the process with a cut report and no word.
  signal(SIGXFSZ, SIG_IGN);
  g_reserve_bytes = reserve_bytes;
  refill_memory_reserve();
  std::set_new_handler(on_allocation_failure);
  g_previous_terminate = std::set_terminate(on_terminate);
}

void begin_graceful_stop() { g_graceful.store(true); }

void request_stop(unsigned bits) { g_requests.fetch_or(bits); }

bool memory_low() { return (g_requests.load() & Cancellation::kMemoryLow) != 0; }

bool refill_memory_reserve() {
  if (g_reserve.load()) return true;
  // malloc, not new: a failure here must not run the new-handler.
  void* reserve = std::malloc(g_reserve_bytes);
  if (!reserve) return false;
  void* expected = nullptr;
  if (!g_reserve.compare_exchange_strong(expected, reserve)) std::free(reserve);
  g_requests.fetch_and(~Cancellation::kMemoryLow);
  return true;
}

void throw_if_memory_low() {
  if (memory_low()) throw std::bad_alloc();
}

uint64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

Resident resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return {};
  unsigned long size = 0, resident = 0, shared = 0;
  const int n = std::fscanf(f, "%lu %lu %lu", &size, &resident, &shared);
  std::fclose(f);
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return n == 3 ? Resident{resident * page, shared * page} : Resident{};
}

uint64_t current_rss_bytes() { return resident_bytes().total; }

void release_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace ddsmc::app
