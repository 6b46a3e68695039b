// Stopping long work from outside (a signal, memory running out). Whoever
// wants a stop sets a bit in a shared atomic word (a signal handler may: the
// write is one lock-free atomic operation); the engine polls a Cancellation
// at points never far apart in time and unwinds with Cancelled, which
// explore() and simulate() catch (keeping what they have) and analyze() and
// lift() let through to the caller.
//
// Where the engine polls: before each state (explore) or step (simulate,
// lift), once per input DB in SuccessorGenerator and per candidate fact in
// InputEnumerator, every 1024 steps of a
// rule's join and head facts inserted by a fixpoint (StepEvaluator), and in
// every graph walk of the analysis. One Cancellation per thread (it keeps a
// little state of its own); the word it reads may be shared by any number.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>

namespace ddsmc::engine {

// InternalError is never a Cancelled: the app's own mark for a result that
// contradicts itself (a witness that does not lift to a run), which must
// leave the verdict undecided like a stop does.
enum class StopReason : uint8_t { None, Interrupted, OutOfMemory, MemoryLimit, InternalError };

// "interrupted", "out-of-memory", "memory-limit", "internal-error" (the JSON
// incomplete_reason and analysis_stopped values); "" for None.
const char* stop_reason_name(StopReason r);

class Cancelled : public std::exception {
 public:
  explicit Cancelled(StopReason r) : reason_(r) {}
  StopReason reason() const noexcept { return reason_; }
  const char* what() const noexcept override;

 private:
  StopReason reason_;
};

class Cancellation {
 public:
  using Clock = std::chrono::steady_clock;
  // Bits of the request word.
  static constexpr unsigned kInterrupt = 1;  // SIGINT/SIGTERM: stop, keep what was found
  static constexpr unsigned kMemoryLow = 2;  // the emergency memory reserve was spent
  static constexpr unsigned kMemoryLimit = 4;  // the process reached --memory

  // Never stops.
  Cancellation() = default;
  explicit Cancellation(const std::atomic<unsigned>& requests) : requests_(&requests) {}

  // A process-wide token that never stops (it only reads): the default of
  // every component that can be cancelled.
  static Cancellation& none();

  // From now on an interrupt stops the work only `grace` after a poll first
  // saw it (the default, zero, stops at once). A memory stop (low or at
  // the limit) is never delayed. Used for the analysis and the traces after an interrupted
  // exploration: they get a short time to finish what they can.
  void set_grace(Clock::duration grace) { grace_ = grace; }

  // Throws Cancelled when the work must stop. Cheap enough for inner loops:
  // one relaxed atomic load while nothing is requested; the clock is read
  // only every kClockEvery polls while an interrupt waits out its grace.
  void poll() {
    if (requests_->load(std::memory_order_relaxed) != 0) [[unlikely]]
      slow_poll();
  }

 private:
  static constexpr uint32_t kClockEvery = 1024;
  void slow_poll();

  static const std::atomic<unsigned> kNever;
  const std::atomic<unsigned>* requests_ = &kNever;
  Clock::duration grace_{0};
  Clock::time_point noticed_{};
  bool seen_ = false;
  uint32_t countdown_ = 0;
};

}  // namespace ddsmc::engine
