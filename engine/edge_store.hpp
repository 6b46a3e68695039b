// The edges of the state graph, compressed (docs/engine.md §8): compressed
// sparse rows whose rows are byte strings. Per edge one LEB128 varint,
//   target delta << L | label code,
// where the target delta is taken from the source id for a row's first
// edge (zigzag: it may point backwards) and from the previous target after
// it (a row is sorted by target, so >= 0), and the label code is
// (arc + 1) << 1 | stable, the idle arc as arc + 1 = 0, in L bits: just
// enough for the graph's arcs. Rows are decoded on the fly, forwards only.
//
// Writing is the two-phase bulk scheme of StateGraph: add() makes room for
// a batch of rows, one sequential call, all or nothing; then encode() fills
// each row, from any thread (distinct rows). Rows live in the 1 MiB chunks
// of a ChunkedArena, never moved (each row within one chunk, a longer one
// in an allocation of its own); growing never copies them.
//
// Edges on disk (spill_to): from then on, add() first moves the chunks of
// complete rows (every row before the arena's end is complete when add()
// is called: the batch before it was encoded), and those of the index
// before the block it writes, to a SpillFile, 4 MiB at a time
// (ChunkSpiller), and reads them back through a read-only mapping of the
// file: readers see the same bytes at stable addresses and never know. spill_rest() moves the rest once no row will be added. A
// failure to write (a full disk, `ulimit -f`) stops the spilling, not the
// store: the rows stay in memory from then on, and spill_error() says why.
//
// The index, about 4.1 bytes per row: per block of 64 rows a 64-bit base
// (the global byte position where its first row begins) and per row a
// 32-bit position relative to it. A row ends where the next one begins
// when that is in the same chunk, else at the used end of its own chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string>

#include "engine/chunked.hpp"
#include "engine/spill_file.hpp"
#include "engine/system.hpp"

namespace ddsmc::engine {

// A state's id: 64-bit, so that a distributed graph may hold more than
// 2^32 states (a process or rank holds at most kMaxLocalStates of them,
// engine/state_store.hpp). In rows it costs nothing: targets are delta-coded.
using StateId = uint64_t;
inline constexpr StateId kNoState = ~StateId{0};

// An edge as everything outside this store sees it: the target and the
// label (arc served, stable) packed in one word.
struct Edge {
  StateId target = 0;
  uint32_t label = 1;  // arc << 1 | stable; the idle self-loop stores arc 0x7fffffff
  Edge() = default;
  Edge(StateId t, uint32_t arc, bool stable) : target(t), label((arc == kIdleArc ? kPackedIdle : arc) << 1 | stable) {}
  Edge(StateId t, const EdgeLabel& l) : Edge(t, l.arc, l.stable) {}
  uint32_t arc() const { return (label >> 1) == kPackedIdle ? kIdleArc : label >> 1; }
  bool stable() const { return label & 1u; }
  friend bool operator==(const Edge&, const Edge&) = default;

 private:
  static constexpr uint32_t kPackedIdle = kIdleArc >> 1;
};

namespace edge_code {

inline uint64_t read_varint(const uint8_t*& p) {
  uint64_t b = *p++;
  if (b < 0x80) return b;
  uint64_t v = b & 0x7f;
  for (unsigned shift = 7;; shift += 7) {
    b = *p++;
    v |= (b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}

// Decodes one edge at p (advancing it): `base` is the source id for a
// row's first edge (then `first`), else the previous target; labels take
// `bits` bits. The label code is Edge::label + 2 (mod 2^32): the idle
// arc's packed labels wrap round to codes 0 and 1.
inline Edge read_edge(const uint8_t*& p, StateId base, bool first, unsigned bits) {
  const uint64_t v = read_varint(p);
  const uint64_t d = v >> bits;
  const uint64_t delta = first ? (d >> 1) ^ (0 - (d & 1)) : d;  // zigzag back to two's complement
  Edge e;
  e.target = static_cast<StateId>(base + delta);
  e.label = static_cast<uint32_t>(v & ((uint64_t{1} << bits) - 1)) - 2;
  return e;
}

}  // namespace edge_code

// Where a walk over one row stands, small enough for a depth-first stack:
// the byte offset of the next edge in the row and the previous target.
struct EdgeCursor {
  uint32_t offset = 0;
  StateId previous = 0;
};

class EdgeStore {
 public:
  // The arcs an edge's code can name: fewer than 2^30 (an arc and the
  // stable bit, doubled for the idle loop's code, fit 32 bits).
  static constexpr uint64_t kMaxArcs = (uint64_t{1} << 30) - 1;
  // A row, decoded as it is walked: `for (const Edge& e : row)`.
  class Row {
   public:
    class iterator {
     public:
      using iterator_concept = std::forward_iterator_tag;
      using iterator_category = std::input_iterator_tag;  // operator* returns a value
      using value_type = Edge;
      using difference_type = std::ptrdiff_t;
      using reference = Edge;
      iterator() = default;
      Edge operator*() const { return edge_; }
      iterator& operator++() {
        at_ = next_;
        if (at_ != end_) edge_ = edge_code::read_edge(next_, edge_.target, false, bits_);
        return *this;
      }
      iterator operator++(int) {
        iterator old = *this;
        ++*this;
        return old;
      }
      friend bool operator==(const iterator& a, const iterator& b) { return a.at_ == b.at_; }

     private:
      friend class Row;
      iterator(const uint8_t* at, const uint8_t* end, StateId source, unsigned bits)
          : at_(at), next_(at), end_(end), bits_(bits) {
        if (at_ != end_) edge_ = edge_code::read_edge(next_, source, true, bits_);
      }
      const uint8_t* at_ = nullptr;    // the current edge's bytes (end_: past the last)
      const uint8_t* next_ = nullptr;  // the next edge's bytes
      const uint8_t* end_ = nullptr;
      unsigned bits_ = 0;
      Edge edge_;
    };
    Row() = default;
    // The row of `source` coded in [begin, end) with labels of `bits` bits.
    Row(const uint8_t* begin, const uint8_t* end, StateId source, unsigned bits)
        : begin_(begin), end_(end), source_(source), bits_(bits) {}
    iterator begin() const { return {begin_, end_, source_, bits_}; }
    iterator end() const { return {end_, end_, source_, bits_}; }
    bool empty() const { return begin_ == end_; }
    size_t bytes() const { return static_cast<size_t>(end_ - begin_); }

   private:
    const uint8_t* begin_ = nullptr;
    const uint8_t* end_ = nullptr;
    StateId source_ = 0;
    unsigned bits_ = 0;
  };

  // For edges whose arcs are below num_arcs (or idle); std::length_error
  // from 2^30 arcs on.
  explicit EdgeStore(uint32_t num_arcs);
  unsigned label_bits() const { return bits_; }
  // The range of the edges' arc fields (the constructor's num_arcs).
  uint32_t arcs() const { return num_arcs_; }

  // The bytes encode() writes for this row (sorted by target, and arcs
  // within the graph's, else std::logic_error); std::length_error past
  // 4 GiB.
  uint32_t encoded_size(StateId source, std::span<const Edge> edges) const;
  // The code itself: writes the row's encoded_size() bytes at `out`, which
  // Row(out, end, source, label_bits()) reads back; returns the end.
  uint8_t* write_row(StateId source, std::span<const Edge> edges, uint8_t* out) const;

  // Rows so far: sources 0 .. rows() - 1 have one (maybe empty).
  StateId rows() const { return rows_; }
  // Makes room for the rows of sources first, first + 1, ... of sizes[i]
  // bytes each (encoded_size); the sources from rows() up to first get
  // empty rows. All or nothing: may throw std::bad_alloc, or
  // std::length_error if 64 rows in a block would span 4 GiB or more.
  void add(StateId first, std::span<const uint32_t> sizes);
  // Writes the row of `source` into its room, which must be encoded_size()
  // bytes (else std::logic_error). From any thread, distinct sources.
  void encode(StateId source, std::span<const Edge> edges);

  // The row of a source (empty past rows()).
  Row row(StateId source) const {
    if (source >= rows()) return {};
    const auto [b, e] = span_of(source);
    return {b, e, source, bits_};
  }
  // The next edge of a row from `c` on (then advanced), or false at its end.
  bool next(StateId source, EdgeCursor& c, Edge& out) const {
    if (source >= rows()) return false;
    const auto [b, e] = span_of(source);
    const uint8_t* p = b + c.offset;
    if (p == e) return false;
    out = edge_code::read_edge(p, c.offset ? c.previous : source, c.offset == 0, bits_);
    c.offset = static_cast<uint32_t>(p - b);
    c.previous = out.target;
    return true;
  }
  // Rows and index on disk from now on, in `file` (shared: the graph's
  // other arrays go there too); moves the rows so far at the next add(),
  // or spill_rest().
  void spill_to(std::shared_ptr<SpillFile> file) { spill_ = std::move(file); }
  bool spilling() const { return spill_ != nullptr && spill_error_.empty(); }
  // Moves every row and the index to the file: after the last add()'s
  // encode() calls.
  void spill_rest();
  // Why rows stopped going to disk ("" while they go, or never went).
  const std::string& spill_error() const { return spill_error_; }

  uint64_t memory_bytes() const { return row_bytes() + index_bytes(); }
  uint64_t row_bytes() const { return arena_.memory_bytes(); }     // the chunks the rows live in, in memory
  uint64_t disk_bytes() const { return arena_.rebased_bytes(); }   // the chunks on disk
  uint64_t index_disk_bytes() const { return blocks_.rebased_bytes(); }
  uint64_t index_bytes() const { return blocks_.memory_bytes(); }  // where each row begins

 private:
  using Arena = ChunkedArena<uint8_t>;
  static constexpr unsigned kBlockBits = 6;
  static constexpr uint32_t kBlockRows = 1u << kBlockBits;
  // The index of rows 64k .. 64k + 63: `base`, the arena offset where row
  // 64k begins, and rel[i], where row 64k + i begins relative to it. Row
  // 64k's own slot would always hold 0: rel[0] holds where the block's last
  // row ends instead (0 until it is added). So each row finds its end in
  // its own block, in the next slot (mod 64): the next row's begin, or the
  // end of the block's last row, or, past the store's last row, that row's
  // end.
  struct Block {
    uint64_t base;
    uint32_t rel[kBlockRows];
  };
  struct Range {
    const uint8_t* begin;
    const uint8_t* end;
  };
  // A row's bytes: from its begin up to the next one's begin (its end, for
  // a block's last row) when that is in the same chunk, else up to the used
  // end of its chunk (the next row starts a new chunk, or the row fills its
  // own). An empty row may stand where no chunk is yet: no pointers then.
  // Row 0's begin is rel[0] masked to 0, not a branch: the cursor walk
  // comes here for every edge.
  Range span_of(StateId s) const {
    const Block& k = blocks_[s >> kBlockBits];
    const uint32_t i = s & (kBlockRows - 1);
    const uint32_t begin = k.rel[i] & (0u - (i != 0)), next = k.rel[(i + 1) & (kBlockRows - 1)];
    if (begin == next) return {nullptr, nullptr};
    const uint64_t b = k.base + begin;
    const uint8_t* p = arena_.at(b);
    return {p, Arena::fits_in_chunk(b, next - begin) ? p + (next - begin) : arena_.used_end(b)};
  }

  uint32_t num_arcs_;
  unsigned bits_;  // of a label code: (arc + 1) << 1 | stable < 2^bits_
  StateId rows_ = 0;
  std::shared_ptr<SpillFile> spill_;
  std::string spill_error_;
  ChunkSpiller rows_spilled_, index_spilled_;
  Arena arena_;                    // the rows' bytes
  ChunkedVector<Block, 9> blocks_;  // the index, in chunks of 512 blocks (32768 rows, 33 pages)
  static_assert(sizeof(Block) * 512 % 4096 == 0, "index chunks must be whole pages to go to disk");
};

}  // namespace ddsmc::engine
