// The visited set of the exploration back-ends: fingerprint -> 32-bit
// reference, shared by every worker. Lock-free open addressing with linear
// probing and no deletion: find and insert are one call (find_or_put), and a
// slot is claimed by one compare-and-swap on its key word, as Rumur's
// set_insert and LTSmin's dbs-ll do.
//
// Exactness: a key match is only a candidate; the caller's `same(ref)`
// compares the stored canonical bytes, so two different states are never
// identified, whatever their fingerprints.
//
// Growth happens while no worker is inside find_or_put (between rounds of
// the level-synchronous exploration): a find_or_put that would pass the
// maximum load throws TableFull instead, and the caller redoes its round
// after grow(). The table never stops the world in the middle of a round.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "hashing/fingerprint.hpp"

namespace ddsmc::hashing {

class ConcurrentTable {
 public:
  // Thrown by find_or_put when the table is too full to insert: grow() and retry.
  struct TableFull : std::runtime_error {
    TableFull() : std::runtime_error("visited set full") {}
  };
  static constexpr uint32_t kNoRef = 0xffffffffu;
  static constexpr double kMaxLoad = 0.8;
  static constexpr uint64_t kPending = ~uint64_t{0};

  explicit ConcurrentTable(size_t initial_capacity = 1 << 16);

  struct Result {
    uint32_t ref = kNoRef;
    bool inserted = false;
  };
  // Finds the entry of fingerprint f for which same(ref) holds, or claims a
  // slot and stores make() (called once, by the inserting thread only,
  // before the entry becomes visible; it must not return kNoRef). Safe from
  // any number of threads at once.
  template <class Same, class Make>
  Result find_or_put(const Fingerprint& f, Same&& same, Make&& make);

  // Replaces the reference `from` stored for f by `to` (no worker may be
  // inside find_or_put; safe from several threads for distinct entries): the
  // exploration renumbers a level's new states this way.
  void rebind(const Fingerprint& f, uint32_t from, uint32_t to);
  // Doubles the capacity (no worker may be inside find_or_put).
  void grow();
  // Makes room for `more` entries at most kMaxLoad (no worker inside).
  void reserve(size_t more);
  // The capacity reserve(more) would leave (the current one if no growth).
  size_t capacity_for(size_t more) const;
  size_t size() const { return size_.load(std::memory_order_relaxed); }
  size_t capacity() const { return mask_ + 1; }
  size_t memory_bytes() const { return capacity() * sizeof(Slot); }

 private:
  struct Slot {
    std::atomic<uint64_t> key{0};    // fingerprint low word, never 0; 0: empty
    std::atomic<uint64_t> value{kPending};  // top 32 bits of the high word << 32 | ref; kPending until filled
  };
  static uint64_t key_of(const Fingerprint& f) { return f.lo ? f.lo : 1; }
  static uint64_t tag_of(const Fingerprint& f) { return f.hi >> 32 << 32; }
  void allocate(size_t capacity);
  uint64_t wait_value(const Slot& s) const;

  std::unique_ptr<Slot[]> slots_;
  size_t mask_ = 0;
  size_t limit_ = 0;  // entries allowed before TableFull
  std::atomic<size_t> size_{0};
};

template <class Same, class Make>
ConcurrentTable::Result ConcurrentTable::find_or_put(const Fingerprint& f, Same&& same, Make&& make) {
  const uint64_t key = key_of(f), tag = tag_of(f);
  for (uint64_t i = key & mask_;; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    uint64_t k = s.key.load(std::memory_order_acquire);
    if (k == 0) {
      if (size_.fetch_add(1, std::memory_order_relaxed) >= limit_) {
        size_.fetch_sub(1, std::memory_order_relaxed);
        throw TableFull();
      }
      if (s.key.compare_exchange_strong(k, key, std::memory_order_acq_rel)) {
        uint32_t ref;
        try {
          ref = make();
        } catch (...) {
          // Leave the slot pointing nowhere: tag 0 and kNoRef match no
          // lookup (make() never returns kNoRef).
          s.value.store(kNoRef, std::memory_order_release);
          throw;
        }
        s.value.store(tag | ref, std::memory_order_release);
        return {ref, true};
      }
      size_.fetch_sub(1, std::memory_order_relaxed);  // k now holds the key that won the slot
    }
    if (k != key) continue;
    const uint64_t v = wait_value(s);
    if ((v & ~uint64_t{0xffffffff}) != tag) continue;
    const auto ref = static_cast<uint32_t>(v);
    if (ref != kNoRef && same(ref)) return {ref, false};
  }
}

}  // namespace ddsmc::hashing
