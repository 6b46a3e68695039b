#include "hashing/concurrent_table.hpp"

#include <bit>

#include "hashing/spin_wait.hpp"

namespace ddsmc::hashing {

ConcurrentTable::ConcurrentTable(size_t initial_capacity) { allocate(std::bit_ceil(std::max<size_t>(initial_capacity, 64))); }

void ConcurrentTable::allocate(size_t capacity) {
  slots_ = std::make_unique<Slot[]>(capacity);  // keys 0 (empty), values kPending
  mask_ = capacity - 1;
  limit_ = static_cast<size_t>(static_cast<double>(capacity) * kMaxLoad);
}

uint64_t ConcurrentTable::wait_value(const Slot& s) const {
  // The inserting thread stores the value right after its make().
  return wait_published(s.value, [](uint64_t v) { return v != kPending; });
}

void ConcurrentTable::grow() {
  std::unique_ptr<Slot[]> old = std::move(slots_);
  const size_t old_capacity = mask_ + 1;
  allocate(old_capacity * 2);
  for (size_t i = 0; i < old_capacity; ++i) {
    const uint64_t k = old[i].key.load(std::memory_order_relaxed);
    if (k == 0) continue;
    size_t j = k & mask_;
    while (slots_[j].key.load(std::memory_order_relaxed) != 0) j = (j + 1) & mask_;
    slots_[j].key.store(k, std::memory_order_relaxed);
    slots_[j].value.store(old[i].value.load(std::memory_order_relaxed), std::memory_order_relaxed);
  }
}

void ConcurrentTable::rebind(const Fingerprint& f, uint32_t from, uint32_t to) {
  const uint64_t key = key_of(f), tag = tag_of(f);
  for (uint64_t i = key & mask_;; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    const uint64_t k = s.key.load(std::memory_order_relaxed);
    if (k == 0) throw std::logic_error("ConcurrentTable::rebind: no such entry");
    if (k == key && s.value.load(std::memory_order_relaxed) == (tag | from)) {
      s.value.store(tag | to, std::memory_order_relaxed);
      return;
    }
  }
}

size_t ConcurrentTable::capacity_for(size_t more) const {
  size_t capacity = mask_ + 1;
  while (size() + more > static_cast<size_t>(static_cast<double>(capacity) * kMaxLoad)) capacity *= 2;
  return capacity;
}

void ConcurrentTable::reserve(size_t more) {
  while (size() + more > limit_) grow();
}

}  // namespace ddsmc::hashing
