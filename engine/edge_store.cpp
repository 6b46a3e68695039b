#include "engine/edge_store.hpp"

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
    const auto d = static_cast<int64_t>(e.target - base);  // (two's complement: may point backwards)
    delta = (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);  // zigzag
  } else {
    if (e.target < base) throw std::logic_error("edge row not sorted by target");
    delta = e.target - base;
  }
  if (e.arc() != kIdleArc && e.arc() >= num_arcs) throw std::logic_error("edge label with an arc past the graph's");
  const uint32_t code = e.label + 2;  // (arc + 1) << 1 | stable, the idle arc wrapping round to 0
  // code < 2^bits <= 2^31; the delta must leave it room in 64 bits (about
  // 2^40 states apart at 2^22 arcs: far beyond any graph held)
  if (bits < 64 && (delta >> (64 - bits)) != 0) throw std::length_error("an edge's target is too far from its source");
  return delta << bits | code;
}

}  // namespace

EdgeStore::EdgeStore(uint32_t num_arcs)
    : num_arcs_(num_arcs), bits_(static_cast<unsigned>(std::bit_width(2 * uint64_t{num_arcs} + 1))) {
  if (num_arcs > kMaxArcs) throw std::length_error("2^30 arcs or more: edge labels do not fit the edge code");
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

void EdgeStore::add(StateId first, std::span<const uint32_t> sizes) {
  const StateId had = rows_;
  if (first < had) throw std::logic_error("edge rows added out of order");
  if (sizes.size() > kNoState - first) throw std::length_error("more than 2^32 - 1 edge rows");
  if (arena_.end() / Arena::kChunk < rows_spilled_.done() || rows_ / kBlockRows / blocks_.kChunk < index_spilled_.done())
    throw std::logic_error("edge rows added after spill_rest()");
  // The chunks of complete rows, and of the index before the block of row
  // rows() (which this add may write), to disk. All or nothing too: nothing
  // moves if it fails.
  rows_spilled_.move(spill_.get(), arena_, arena_.end() / Arena::kChunk, false, spill_error_);
  index_spilled_.move(spill_.get(), blocks_, rows_ / kBlockRows / blocks_.kChunk, false, spill_error_);
  const uint64_t last = uint64_t{first} + sizes.size();  // rows() after
  auto size_of = [&](uint64_t s) -> uint32_t { return s < first ? 0 : sizes[s - first]; };

  // First the plan, changing nothing: every block's rows, from its base to
  // the end of its last one, within 32 bits of offset.
  uint64_t end = arena_.end(), base = had % kBlockRows ? blocks_[had / kBlockRows].base : 0;
  for (uint64_t s = had; s < last; ++s) {
    const Arena::Run r = Arena::fit(end, size_of(s));
    if (s % kBlockRows == 0) base = r.begin;
    if (r.begin + size_of(s) - base > 0xffffffffu)
      throw std::length_error("64 consecutive edge rows span 4 GiB or more: the edge index cannot hold them");
    end = r.end;
  }

  // Then the room. The slot of row `had` holds the end of row had - 1 (in a
  // block not yet full): restored, with the arena, if an allocation fails.
  const size_t had_blocks = blocks_.size();
  const uint64_t had_end = arena_.end();
  const uint32_t had_slot = had % kBlockRows ? blocks_[had / kBlockRows].rel[had % kBlockRows] : 0;
  try {
    blocks_.resize((last + kBlockRows - 1) / kBlockRows);
    for (uint64_t s = had; s < last; ++s) {
      const uint64_t at = arena_.append(size_of(s));
      Block& k = blocks_[s / kBlockRows];
      const auto i = static_cast<uint32_t>(s % kBlockRows);
      if (i == 0) {
        k.base = at;
        k.rel[0] = 0;  // until the block's last row comes: span_of reads it for row 0 (masked)
      } else {
        k.rel[i] = static_cast<uint32_t>(at - k.base);
      }
      if (i == kBlockRows - 1 || s + 1 == last)  // the block's or the store's last row: its end
        k.rel[(i + 1) % kBlockRows] = static_cast<uint32_t>(at + size_of(s) - k.base);
    }
  } catch (...) {
    arena_.truncate(had_end);
    blocks_.resize(had_blocks);
    if (had % kBlockRows) blocks_[had / kBlockRows].rel[had % kBlockRows] = had_slot;
    throw;
  }
  rows_ = static_cast<StateId>(last);
}

void EdgeStore::spill_rest() {
  rows_spilled_.move(spill_.get(), arena_, arena_.chunks(), true, spill_error_);
  index_spilled_.move(spill_.get(), blocks_, blocks_.chunks(), true, spill_error_);
}

void EdgeStore::encode(StateId source, std::span<const Edge> edges) {
  if (source >= rows()) throw std::logic_error("edge row written before room was made for it");
  const auto [b, e] = span_of(source);
  if (encoded_size(source, edges) != static_cast<size_t>(e - b))
    throw std::logic_error("edge row does not fit the room made for it");
  write_row(source, edges, const_cast<uint8_t*>(b));  // the store's own bytes, held const by span_of
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

}  // namespace ddsmc::engine
