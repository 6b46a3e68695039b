// Fingerprint -> state id, open addressing with linear probing: the hot
// lookup of exploration, one cache line per probe instead of a node-based
// std::unordered_map. Single-writer; the parallel back-end shards it.
#pragma once

#include <cstdint>
#include <vector>

#include "hashing/fingerprint.hpp"

namespace ddsmc::hashing {

class FingerprintTable {
 public:
  static constexpr uint32_t kNone = 0xffffffffu;
  explicit FingerprintTable(size_t initial_capacity = 1024);

  // The id stored for `f`, or kNone.
  uint32_t find(const Fingerprint& f) const;
  // Inserts (f, id) if f is absent; returns the id now stored for f.
  uint32_t insert(const Fingerprint& f, uint32_t id);
  size_t size() const { return size_; }
  size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    uint64_t lo = 0, hi = 0;
    uint32_t id = kNone;
  };
  size_t index_of(const Fingerprint& f) const { return static_cast<size_t>(f.lo) & mask_; }
  void grow();
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace ddsmc::hashing
