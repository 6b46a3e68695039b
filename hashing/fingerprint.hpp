// 128-bit fingerprints of canonical state bytes (XXH3-128). Two states are
// the same class exactly when their canonical bytes are equal; the
// fingerprint is what hash tables of whole states key on. The ranks'
// partition keys on part_key sums instead (engine/placement.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace ddsmc::hashing {

struct Fingerprint {
  uint64_t lo = 0;
  uint64_t hi = 0;
  friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};

Fingerprint fingerprint(const void* data, size_t size);
inline Fingerprint fingerprint(std::string_view bytes) { return fingerprint(bytes.data(), bytes.size()); }

// The partition key of a state (which rank owns it, dist/): the sum mod
// 2^64 of part_key over the parts of its segmented encoding (node DBs,
// then channels), so that a step updates it from the parts it changed
// alone. Equal encodings have equal keys.
uint64_t part_key(std::string_view part_bytes, uint32_t part);
// The owner among `parts` of a partition key (its high bits, scaled).
inline uint32_t owner_of_key(uint64_t key, uint32_t parts) {
  return static_cast<uint32_t>(((key >> 32) * parts) >> 32);
}

struct FingerprintHash {
  size_t operator()(const Fingerprint& f) const noexcept { return static_cast<size_t>(f.lo); }
};

}  // namespace ddsmc::hashing
