#include "engine/edge_store.hpp"

#include <algorithm>
#include <bit>
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

// The number an edge is coded as, read_edge() reading it back.
uint64_t edge_number(StateId base, bool first, const Edge& e, uint32_t num_arcs, unsigned bits) {
  uint64_t delta = 0;
  if (first) {
    const int64_t d = int64_t{e.target} - int64_t{base};
    delta = (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);  // zigzag, < 2^33
  } else {
    if (e.target < base) throw std::logic_error("edge row not sorted by target");
    delta = e.target - base;
  }
  if (e.arc() != kIdleArc && e.arc() >= num_arcs) throw std::logic_error("edge label with an arc past the graph's");
  const uint32_t code = e.label + 2;  // (arc + 1) << 1 | stable, the idle arc wrapping round to 0
  return delta << bits | code;        // code < 2^bits <= 2^31: fits
}

}  // namespace

EdgeStore::EdgeStore(uint32_t num_arcs)
    : num_arcs_(num_arcs), bits_(static_cast<unsigned>(std::bit_width(2 * uint64_t{num_arcs} + 1))) {
  if (num_arcs >= (uint32_t{1} << 30)) throw std::length_error("2^30 arcs or more: edge labels do not fit the edge code");
}

uint32_t EdgeStore::encoded_size(StateId source, std::span<const Edge> edges) const {
  uint64_t n = 0;
  StateId base = source;
  bool first = true;
  for (const Edge& e : edges) {
    n += varint_size(edge_number(base, first, e, num_arcs_, bits_));
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
  if (source >= rows()) throw std::logic_error("edge row written before room was made for it");
  const auto [b, e] = span_of(source);
  if (encoded_size(source, edges) != static_cast<size_t>(e - b))
    throw std::logic_error("edge row does not fit the room made for it");
  write_row(source, edges, b);
}

uint8_t* EdgeStore::write_row(StateId source, std::span<const Edge> edges, uint8_t* out) const {
  StateId base = source;
  bool first = true;
  for (const Edge& e : edges) {
    write_varint(out, edge_number(base, first, e, num_arcs_, bits_));
    base = e.target;
    first = false;
  }
  return out;
}

uint64_t EdgeStore::row_bytes() const {
  uint64_t n = chunks_.capacity() * sizeof(Chunk);
  for (const Chunk& c : chunks_) n += c.capacity;
  return n;
}

uint64_t EdgeStore::index_bytes() const { return begin_.memory_bytes(); }

}  // namespace ddsmc::engine
