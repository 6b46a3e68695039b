#include "engine/edge_store.hpp"

#include <algorithm>
#include <stdexcept>

namespace ddsmc::engine {
namespace {

unsigned varint_size(uint64_t v) {
  unsigned n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

void write_varint(uint8_t*& p, uint64_t v) {
  for (; v >= 0x80; v >>= 7) *p++ = static_cast<uint8_t>(v | 0x80);
  *p++ = static_cast<uint8_t>(v);
}

// The two numbers of an edge, as read_edge() reads them back.
uint64_t target_code(StateId base, bool first, StateId target) {
  if (!first) {
    if (target < base) throw std::logic_error("edge row not sorted by target");
    return target - base;
  }
  const int64_t d = int64_t{target} - int64_t{base};
  return (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);  // zigzag
}

uint64_t label_code(const Edge& e) {
  const uint64_t arc = e.arc() == kIdleArc ? 0 : uint64_t{e.arc()} + 1;
  return arc << 1 | (e.stable() ? 1u : 0u);
}

}  // namespace

uint32_t EdgeStore::encoded_size(StateId source, std::span<const Edge> edges) {
  uint64_t n = 0;
  StateId base = source;
  bool first = true;
  for (const Edge& e : edges) {
    n += varint_size(target_code(base, first, e.target)) + varint_size(label_code(e));
    base = e.target;
    first = false;
  }
  if (n > 0xffffffffu) throw std::length_error("the edges of one state take more than 4 GiB");
  return static_cast<uint32_t>(n);
}

uint64_t EdgeStore::place(uint32_t size) {
  if (size == 0) return end_place();
  if (chunks_.empty() || chunks_.back().used + size > chunks_.back().capacity) {
    const uint64_t capacity = std::max<uint64_t>(kChunk, size);
    chunks_.push_back(Chunk{std::make_unique_for_overwrite<uint8_t[]>(capacity), capacity, 0});
  }
  const uint64_t at = end_place();
  chunks_.back().used += size;
  return at;
}

void EdgeStore::add(StateId first, std::span<const uint32_t> sizes) {
  const StateId had_rows = rows();
  if (first < had_rows) throw std::logic_error("edge rows added out of order");
  const size_t had = begin_.size(), had_chunks = chunks_.size();
  const uint64_t had_end = end_place();
  try {
    begin_.resize(size_t{first} + sizes.size() + 1);
    for (size_t s = had_rows; s < first; ++s) begin_[s] = had_end;  // sources never expanded
    for (size_t i = 0; i < sizes.size(); ++i) begin_[first + i] = place(sizes[i]);
    begin_[first + sizes.size()] = end_place();
  } catch (...) {
    chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(had_chunks), chunks_.end());
    if (had_chunks) chunks_.back().used = offset_of(had_end);
    begin_.resize(had);
    if (had) begin_[had - 1] = had_end;
    throw;
  }
}

void EdgeStore::encode(StateId source, std::span<const Edge> edges) {
  const auto [b, e] = span_of(source);
  if (encoded_size(source, edges) != static_cast<size_t>(e - b))
    throw std::logic_error("edge row does not fit the room made for it");
  write_row(source, edges, b);
}

uint8_t* EdgeStore::write_row(StateId source, std::span<const Edge> edges, uint8_t* out) {
  StateId base = source;
  bool first = true;
  for (const Edge& x : edges) {
    write_varint(out, target_code(base, first, x.target));
    write_varint(out, label_code(x));
    base = x.target;
    first = false;
  }
  return out;
}

uint64_t EdgeStore::memory_bytes() const {
  uint64_t n = begin_.memory_bytes() + chunks_.capacity() * sizeof(Chunk);
  for (const Chunk& c : chunks_) n += c.capacity;
  return n;
}

}  // namespace ddsmc::engine
