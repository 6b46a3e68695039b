#include "hashing/fingerprint.hpp"

#include <xxhash.h>

namespace ddsmc::hashing {

Fingerprint fingerprint(const void* data, size_t size) {
  XXH128_hash_t h = XXH3_128bits(data, size);
  return Fingerprint{h.low64, h.high64};
}

}  // namespace ddsmc::hashing
