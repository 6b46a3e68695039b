// The plain byte records the distributed engine exchanges: fixed-width
// little-endian integers, LEB128 varints and raw bytes appended to a
// buffer, and read back with bounds checks (a malformed record is a bug:
// std::logic_error). Ranks are assumed to share one byte order and word
// size, as the ranks of one MPI job on one cluster do.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace ddsmc::dist {

class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out) : out_(out) {}
  void u8(uint8_t v) { out_.push_back(v); }
  void u32(uint32_t v) { raw(&v, sizeof v); }
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<uint8_t>(v));
  }
  void bytes(std::string_view b) { raw(b.data(), b.size()); }
  void raw(const void* p, size_t n) {
    if (n == 0) return;
    const size_t at = out_.size();
    out_.resize(at + n);
    std::memcpy(out_.data() + at, p, n);
  }

 private:
  std::vector<uint8_t>& out_;
};

// Frames records into a bundle: a kind byte, then each record as a u32
// length and its bytes (dist/link.hpp). Open one per record: the length is
// written when it closes.
inline void begin_bundle(std::vector<uint8_t>& bundle, uint8_t kind) {
  if (bundle.empty()) bundle.push_back(kind);
}
class Framed {
 public:
  explicit Framed(std::vector<uint8_t>& bundle) : bundle_(bundle), at_(bundle.size()) { bundle.resize(at_ + 4); }
  ~Framed() {
    const auto n = static_cast<uint32_t>(bundle_.size() - at_ - 4);
    std::memcpy(bundle_.data() + at_, &n, 4);
  }
  Framed(const Framed&) = delete;
  Framed& operator=(const Framed&) = delete;

 private:
  std::vector<uint8_t>& bundle_;
  size_t at_;
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}
  uint8_t u8() { return *take(1); }
  uint32_t u32() { return fixed<uint32_t>(); }
  uint64_t u64() { return fixed<uint64_t>(); }
  uint64_t varint() {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      const uint8_t b = u8();
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
    throw std::logic_error("dist: malformed varint in a record");
  }
  std::string_view bytes(size_t n) { return {reinterpret_cast<const char*>(take(n)), n}; }
  std::string_view rest() { return bytes(in_.size() - pos_); }
  bool done() const { return pos_ == in_.size(); }

 private:
  template <class T>
  T fixed() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  const uint8_t* take(size_t n) {
    if (in_.size() - pos_ < n) throw std::logic_error("dist: truncated record");
    const uint8_t* p = in_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
};

}  // namespace ddsmc::dist
