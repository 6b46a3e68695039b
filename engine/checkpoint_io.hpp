// The checkpoint files' reading and writing (engine/checkpoint.hpp): a
// file written through a buffer and an XXH3-64 hash of its bytes, whose
// checksum ends it; and a file read back only once its whole content
// matched that checksum, through a buffer.
#pragma once

#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "engine/checkpoint.hpp"

namespace ddsmc::engine::checkpoint_io {

inline constexpr char kMagic[8] = {'D', 'D', 'S', 'M', 'C', '-', 'C', 'K'};
inline constexpr size_t kBuffer = size_t{1} << 20;

struct FreeHash {
  void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};
using HashState = std::unique_ptr<XXH3_state_t, FreeHash>;

class HashedOut {
 public:
  // Creates (truncates) the file; error() says whether that failed.
  explicit HashedOut(const std::string& path);
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    if (buffer_.size() + n > kBuffer) flush();
    if (n > kBuffer) return write_now(b, n);
    buffer_.insert(buffer_.end(), b, b + n);
  }
  void u32(uint32_t v) { bytes(&v, sizeof v); }
  void u64(uint64_t v) { bytes(&v, sizeof v); }
  void varint(uint64_t v) {
    uint8_t b[10];
    size_t n = 0;
    do {
      b[n] = static_cast<uint8_t>(v & 0x7f);
      v >>= 7;
      if (v) b[n] |= 0x80;
      ++n;
    } while (v);
    bytes(b, n);
  }
  // Appends the checksum and flushes; false if anything failed.
  bool finish();
  // The errno of the creation or the first write that failed (0: none).
  int error() const { return error_; }

 private:
  void flush() {
    write_now(buffer_.data(), buffer_.size());
    buffer_.clear();
  }
  void write_now(const uint8_t* p, size_t n);
  void note_error();
  std::ofstream out_;
  int error_ = 0;
  HashState state_;
  std::vector<uint8_t> buffer_;
};

class CheckedIn {
 public:
  // Opens the file and checks it whole against its checksum (and its
  // magic) before anything in it is read; throws CheckpointError.
  explicit CheckedIn(const std::string& path);
  void bytes(void* p, size_t n) {
    auto* out = static_cast<uint8_t*>(p);
    while (n > 0) {
      if (at_ == buffer_.size()) refill();
      const size_t k = std::min(n, buffer_.size() - at_);
      std::copy_n(buffer_.data() + at_, k, out);
      at_ += k, out += k, n -= k;
    }
  }
  uint32_t u32() {
    uint32_t v;
    bytes(&v, sizeof v);
    return v;
  }
  uint64_t u64() {
    uint64_t v;
    bytes(&v, sizeof v);
    return v;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (at_ == buffer_.size()) refill();
      const uint8_t b = buffer_[at_++];
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
    throw CheckpointError("the checkpoint is corrupted (a length is malformed)");
  }
  // The content must end here (only the checksum after it).
  void finish() const;

 private:
  void refill();
  std::ifstream in_;
  uint64_t left_ = 0;  // content bytes not read into the buffer yet
  std::vector<uint8_t> buffer_;
  size_t at_ = 0;
};

}  // namespace ddsmc::engine::checkpoint_io
