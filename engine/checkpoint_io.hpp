// The checkpoint files' reading and writing (engine/checkpoint.hpp): a
// file written and read back through an XXH3-64 hash of its bytes, whose
// checksum ends it, and the check of a whole file against it.
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

#include "engine/checkpoint.hpp"

namespace ddsmc::engine::checkpoint_io {

inline constexpr char kMagic[8] = {'D', 'D', 'S', 'M', 'C', '-', 'C', 'K'};

// A file written through a buffer, hashed as it goes.
class HashedOut {
 public:
  explicit HashedOut(const std::string& path) : out_(path, std::ios::binary | std::ios::trunc), state_(XXH3_createState()) {
    if (!out_) throw CheckpointError("cannot create " + path);
    XXH3_64bits_reset(state_.get());
  }
  void bytes(const void* p, size_t n) {
    XXH3_64bits_update(state_.get(), p, n);
    out_.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
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
  bool finish() {
    const uint64_t digest = XXH3_64bits_digest(state_.get());
    out_.write(reinterpret_cast<const char*>(&digest), sizeof digest);
    out_.flush();
    return static_cast<bool>(out_);
  }

 private:
  struct Free {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  std::ofstream out_;
  std::unique_ptr<XXH3_state_t, Free> state_;
};

// The same file read back, hashed as it goes; any short read is an error.
class HashedIn {
 public:
  explicit HashedIn(const std::string& path) : in_(path, std::ios::binary), state_(XXH3_createState()) {
    if (!in_) throw CheckpointError("cannot open " + path);
    XXH3_64bits_reset(state_.get());
  }
  void bytes(void* p, size_t n) {
    raw(p, n);
    XXH3_64bits_update(state_.get(), p, n);
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
      uint8_t b;
      bytes(&b, 1);
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
    throw CheckpointError("the checkpoint is corrupted (a length is malformed)");
  }
  // Reads the stored checksum and compares; the file must end there.
  void finish() {
    const uint64_t digest = XXH3_64bits_digest(state_.get());
    uint64_t stored;
    raw(&stored, sizeof stored);
    if (stored != digest) throw CheckpointError("the checkpoint is corrupted (its checksum does not match)");
    if (in_.peek() != std::char_traits<char>::eof()) throw CheckpointError("the checkpoint has bytes after its end");
  }

 private:
  void raw(void* p, size_t n) {
    in_.read(static_cast<char*>(p), static_cast<std::streamsize>(n));
    if (static_cast<size_t>(in_.gcount()) != n) throw CheckpointError("the checkpoint is truncated");
  }
  struct Free {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  std::ifstream in_;
  std::unique_ptr<XXH3_state_t, Free> state_;
};

// The whole file against its checksum, before anything in it is believed.
void verify(const std::string& path);

}  // namespace ddsmc::engine::checkpoint_io
