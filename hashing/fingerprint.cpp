#include "hashing/fingerprint.hpp"

#include <xxhash.h>

namespace ddsmc::hashing {

Fingerprint fingerprint(const void* data, size_t size) {
  XXH128_hash_t h = XXH3_128bits(data, size);
  return Fingerprint{h.low64, h.high64};
}

uint64_t part_key(std::string_view part_bytes, uint32_t part) {
  return XXH3_64bits_withSeed(part_bytes.data(), part_bytes.size(), 0x9e3779b97f4a7c15ull * (uint64_t{part} + 1));
}

}  // namespace ddsmc::hashing
