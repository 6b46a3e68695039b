// The one wait of the lock-free tables: a thread that finds a slot another
// thread has claimed but not yet published waits for the value. The
// claimer publishes right after writing one entry, so the wait is short:
// spin, then yield after 64 tries (a claimer descheduled mid-write).
#pragma once

#include <cstdint>
#include <thread>

namespace ddsmc::hashing {

// Loads `slot` (a std::atomic or std::atomic_ref; acquire) until
// published(value); returns that value.
template <class Atomic, class Published>
auto wait_published(const Atomic& slot, Published&& published) {
  for (uint32_t spins = 0;; ++spins) {
    const auto v = slot.load(std::memory_order_acquire);
    if (published(v)) return v;
    if (spins > 64) std::this_thread::yield();
  }
}

}  // namespace ddsmc::hashing
