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
#include <utility>
#include <vector>

namespace ddsmc::engine {

// Elements by index. New elements are uninitialized: callers write them.
// A chunk may move out as ChunkedArena's do (rebase()).
template <class T, unsigned kBits = 16>
class ChunkedVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using value_type = T;
  static constexpr size_t kChunk = size_t{1} << kBits;
  size_t size() const { return size_; }
  // Grows or shrinks to n elements; may throw std::bad_alloc (then unchanged).
  void resize(size_t n) {
    while (at_.size() * kChunk < n) {
      auto fresh = std::make_unique_for_overwrite<T[]>(kChunk);
      at_.reserve(at_.size() + 1);
      owned_.reserve(owned_.size() + 1);
      at_.push_back(fresh.get());
      owned_.push_back(std::move(fresh));
    }
    size_ = n;
  }
  void push_back(const T& v) {
    resize(size_ + 1);
    (*this)[size_ - 1] = v;
  }
  T& operator[](size_t i) { return at_[i >> kBits][i & (kChunk - 1)]; }
  const T& operator[](size_t i) const { return at_[i >> kBits][i & (kChunk - 1)]; }
  // Chunk slots so far, and chunk c's elements (all kChunk of them).
  size_t chunks() const { return at_.size(); }
  std::pair<const T*, size_t> used(size_t c) const { return {at_[c], kChunk}; }
  // As ChunkedArena::rebase(): chunk c now lives at `elsewhere` (a copy the
  // caller keeps valid), read-only from now on; its memory is freed.
  void rebase(size_t c, const T* elsewhere) {
    if (!owned_[c]) return;
    at_[c] = const_cast<T*>(elsewhere);  // (read-only from now on, as promised)
    owned_[c].reset();
    moved_ += kChunk * sizeof(T);
  }
  // The chunks in memory (not the table of them).
  size_t memory_bytes() const { return at_.size() * kChunk * sizeof(T) - moved_; }
  uint64_t rebased_bytes() const { return moved_; }

 private:
  std::vector<T*> at_;                       // where each chunk is
  std::vector<std::unique_ptr<T[]>> owned_;  // the chunks in memory (null once rebased)
  size_t size_ = 0;
  uint64_t moved_ = 0;
};

// Runs of elements, each contiguous: append(n) gives the offset of n
// elements in a row. Offsets are global, the chunk being offset >> kBits.
// A run that does not fit in the rest of a chunk starts the next one; a run
// longer than a chunk gets one allocation of its own size, at the start of
// as many chunk slots as it spans (the next run starts after them). Each
// chunk keeps where its used part ends, so a caller that knows where a run
// begins but only that the next one is in another chunk finds its end.
// A chunk whose runs are complete may move out (rebase()): its elements
// then live in memory the caller provides and keeps (a mapped file, say),
// and its own memory is freed; where its runs are stays the same.
template <class T, unsigned kBits = 20>
class ChunkedArena {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using value_type = T;
  static constexpr uint64_t kChunk = uint64_t{1} << kBits;
  struct Run {
    uint64_t begin, end;  // end: where the arena ends after the run
  };
  // Where append(n) puts n elements if the arena ends at `end`: arithmetic
  // only, so a caller can plan a batch before allocating anything.
  static Run fit(uint64_t end, size_t n) {
    if (n == 0) return {end, end};
    const uint64_t used = end & (kChunk - 1);
    const uint64_t off = used != 0 && used + n > kChunk ? (end | (kChunk - 1)) + 1 : end;
    return {off, n > kChunk ? off + slots(n) * kChunk : off + n};
  }
  // Whether off + n is in the chunk of off.
  static bool fits_in_chunk(uint64_t off, uint64_t n) { return (off & (kChunk - 1)) + n < kChunk; }

  // Offset of n new, uninitialized elements; may throw std::bad_alloc (then unchanged).
  uint64_t append(size_t n) {
    const Run r = fit(end_, n);
    if (n == 0) return r.begin;
    const size_t c = r.begin >> kBits;
    const size_t cap = n > kChunk ? n : kChunk;
    std::unique_ptr<T[]> fresh;  // allocated first: nothing changes if it fails
    if (c >= chunks_.size() || chunks_[c].capacity < cap) fresh = std::make_unique_for_overwrite<T[]>(cap);
    if (chunks_.size() < c + slots(n)) chunks_.resize(c + slots(n));
    if (fresh) {
      T* at = fresh.get();
      chunks_[c] = Chunk{std::move(fresh), at, cap, 0};
    }
    chunks_[c].used = (r.begin & (kChunk - 1)) + n;
    end_ = r.end;
    return r.begin;
  }
  // Forgets everything from `end` (an earlier end()) on, as rolled back
  // appends, and frees the chunks wholly past it.
  void truncate(uint64_t end) {
    const size_t keep = (end + kChunk - 1) >> kBits;
    if (chunks_.size() > keep) chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(keep), chunks_.end());
    if (end & (kChunk - 1)) chunks_[end >> kBits].used = end & (kChunk - 1);
    end_ = end;
  }
  uint64_t end() const { return end_; }
  T* at(uint64_t off) { return chunks_[off >> kBits].at + (off & (kChunk - 1)); }
  const T* at(uint64_t off) const { return chunks_[off >> kBits].at + (off & (kChunk - 1)); }
  // The end of the used part of the chunk holding `off` (of the run, for a
  // run longer than a chunk).
  const T* used_end(uint64_t off) const {
    const Chunk& c = chunks_[off >> kBits];
    return c.at + c.used;
  }
  // Chunk slots so far, and the used part of slot c (empty for the slots a
  // long run spans after its first).
  size_t chunks() const { return chunks_.size(); }
  std::pair<const T*, size_t> used(size_t c) const { return {chunks_[c].at, chunks_[c].used}; }
  // Chunk c's elements now live at `elsewhere`, which holds a copy of its
  // used part and stays valid as long as the arena: its own memory is
  // freed. Only for a chunk no append() or truncate() touches again (its
  // runs complete, before end()'s chunk): the elements are read, never
  // written, from then on.
  void rebase(size_t c, const T* elsewhere) {
    Chunk& k = chunks_[c];
    if (!k.data) return;
    k.at = const_cast<T*>(elsewhere);  // (read-only from now on, as promised)
    k.data.reset();
    moved_ += k.capacity * sizeof(T);
  }
  // The chunks in the arena's own memory and the table of them; and the
  // chunks rebased elsewhere.
  size_t memory_bytes() const {
    size_t b = chunks_.capacity() * sizeof(Chunk);
    for (const auto& c : chunks_)
      if (c.data) b += c.capacity * sizeof(T);
    return b;
  }
  uint64_t rebased_bytes() const { return moved_; }

 private:
  static uint64_t slots(size_t n) { return n > kChunk ? (n + kChunk - 1) >> kBits : 1; }
  struct Chunk {
    std::unique_ptr<T[]> data;  // null once rebased
    T* at = nullptr;            // where the elements are: data's, or elsewhere
    size_t capacity = 0;
    size_t used = 0;  // elements from the start in use (up to capacity)
  };
  std::vector<Chunk> chunks_;
  uint64_t end_ = 0;
  uint64_t moved_ = 0;  // bytes of the chunks rebased
};

}  // namespace ddsmc::engine
