#include "hashing/visited_set.hpp"

namespace ddsmc::hashing {

FingerprintTable::FingerprintTable(size_t initial_capacity) {
  size_t cap = 16;
  while (cap < initial_capacity) cap <<= 1;
  slots_.resize(cap);
  mask_ = cap - 1;
}

uint32_t FingerprintTable::find(const Fingerprint& f) const {
  for (size_t i = index_of(f);; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.id == kNone) return kNone;
    if (s.lo == f.lo && s.hi == f.hi) return s.id;
  }
}

uint32_t FingerprintTable::insert(const Fingerprint& f, uint32_t id) {
  // Keep the load factor at most 1/2: probes stay short.
  if ((size_ + 1) * 2 > slots_.size()) grow();
  for (size_t i = index_of(f);; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.id == kNone) {
      s = Slot{f.lo, f.hi, id};
      ++size_;
      return id;
    }
    if (s.lo == f.lo && s.hi == f.hi) return s.id;
  }
}

void FingerprintTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == kNone) continue;
    size_t i = static_cast<size_t>(s.lo) & mask_;
    while (slots_[i].id != kNone) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace ddsmc::hashing
