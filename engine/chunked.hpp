// Append-only storage in chunks, for the state graph: growing never moves or
// copies what is stored (a std::vector doubling a few hundred MiB copies
// them, in the one thread that grows it), and fresh memory is not zeroed,
// so it is first touched by whichever worker writes it. The growing calls
// are for one thread at a time; reading and writing distinct elements is
// safe from any number of threads meanwhile not growing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace ddsmc::engine {

// Elements by index. New elements are uninitialized: callers write them.
template <class T, unsigned kBits = 16>
class ChunkedVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  static constexpr size_t kChunk = size_t{1} << kBits;
  size_t size() const { return size_; }
  // Grows or shrinks to n elements; may throw std::bad_alloc (then unchanged).
  void resize(size_t n) {
    while (chunks_.size() * kChunk < n) chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunk));
    size_ = n;
  }
  void push_back(const T& v) {
    resize(size_ + 1);
    (*this)[size_ - 1] = v;
  }
  T& operator[](size_t i) { return chunks_[i >> kBits][i & (kChunk - 1)]; }
  const T& operator[](size_t i) const { return chunks_[i >> kBits][i & (kChunk - 1)]; }
  size_t memory_bytes() const { return chunks_.size() * kChunk * sizeof(T); }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

// Runs of elements, each contiguous: append(n) gives the offset of n
// elements in a row. A run that does not fit in the rest of a chunk starts
// the next one; a run longer than a chunk gets a chunk of its own size.
template <class T, unsigned kBits = 20>
class ChunkedArena {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  static constexpr uint64_t kChunk = uint64_t{1} << kBits;
  // Offset of n new, uninitialized elements; may throw std::bad_alloc (then unchanged).
  uint64_t append(size_t n) {
    uint64_t off = end_;
    if (n == 0) return off;
    const uint64_t used = off & (kChunk - 1);
    if (used != 0 && used + n > kChunk) off = (off | (kChunk - 1)) + 1;
    const size_t c = off >> kBits;
    const size_t spans = n > kChunk ? (n + kChunk - 1) >> kBits : 1;
    if (chunks_.size() < c + spans) chunks_.resize(c + spans);
    if (n > kChunk || !chunks_[c].data) {
      const size_t cap = n > kChunk ? n : kChunk;
      if (chunks_[c].capacity < cap) chunks_[c] = Chunk{std::make_unique_for_overwrite<T[]>(cap), cap};
    }
    end_ = n > kChunk ? off + spans * kChunk : off + n;
    return off;
  }
  // Forgets everything from `end` on (a rolled back append); keeps the memory.
  void truncate(uint64_t end) { end_ = end; }
  uint64_t end() const { return end_; }
  T* at(uint64_t off) { return chunks_[off >> kBits].data.get() + (off & (kChunk - 1)); }
  const T* at(uint64_t off) const { return chunks_[off >> kBits].data.get() + (off & (kChunk - 1)); }
  size_t memory_bytes() const {
    size_t b = 0;
    for (const auto& c : chunks_) b += c.capacity * sizeof(T);
    return b;
  }

 private:
  struct Chunk {
    std::unique_ptr<T[]> data;
    size_t capacity = 0;
  };
  std::vector<Chunk> chunks_;
  uint64_t end_ = 0;
};

}  // namespace ddsmc::engine
