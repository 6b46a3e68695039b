#include "engine/cancel.hpp"

namespace ddsmc::engine {

const std::atomic<unsigned> Cancellation::kNever{0};

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::None: return "";
    case StopReason::Interrupted: return "interrupted";
    case StopReason::OutOfMemory: return "out-of-memory";
    case StopReason::MemoryLimit: return "memory-limit";
    case StopReason::InternalError: return "internal-error";
  }
  return "";
}

const char* Cancelled::what() const noexcept {
  switch (reason_) {
    case StopReason::OutOfMemory: return "stopped: out of memory";
    case StopReason::MemoryLimit: return "stopped: memory limit reached";
    default: return "stopped: interrupted";
  }
}

Cancellation& Cancellation::none() {
  // Its word is never set, so poll() never reaches slow_poll() and never
  // writes: sharing it between threads is safe.
  static Cancellation token;
  return token;
}

void Cancellation::slow_poll() {
  unsigned r = requests_->load(std::memory_order_relaxed);
  if (r & kMemoryLow) throw Cancelled(StopReason::OutOfMemory);
  if (r & kMemoryLimit) throw Cancelled(StopReason::MemoryLimit);
  if (!(r & kInterrupt)) return;
  if (!seen_) {
    seen_ = true;
    noticed_ = Clock::now();
    countdown_ = kClockEvery;
  }
  if (grace_ == Clock::duration::zero()) throw Cancelled(StopReason::Interrupted);
  if (--countdown_ > 0) return;
  countdown_ = kClockEvery;
  if (Clock::now() - noticed_ >= grace_) throw Cancelled(StopReason::Interrupted);
}

}  // namespace ddsmc::engine
