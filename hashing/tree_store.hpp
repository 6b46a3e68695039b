// A concurrent tree-compressed store of canonical states (recursive state
// compression, after Laarman, van de Pol and Weber, "Parallel recursive
// state compression for free", 2011): instead of one flat copy of every
// state's bytes, each part of the segmented encoding (SegmentedEncoding:
// node DBs, then channels) is interned once as a *leaf*, and a state is a
// fixed-shape binary tree over its parts' leaf ids whose internal *nodes*
// are interned pairs (left id, right id). A state that differs from others
// in a few parts shares every other subtree with them, so it costs a few new
// 8-byte pairs instead of its whole encoding.
//
// Shape. For P parts the tree is the same for every state: the part range
// [0, P) split recursively, the left half taking the middle part of an odd
// range. Positions: leaves 0..P-1 (part p at position p, or at a position
// the constructor is given), internal nodes
// P..2P-2 in post-order, so every node's children come before it and the
// root is position 2P-2. A *tree* (tree_size() = 2P-1 ids) gives the id at
// every position; callers may keep one to intern a successor incrementally.
//
// Ids. Leaves and nodes have separate dense 32-bit id spaces (0, 1, 2, ...
// in creation order); the shape tells them apart (a node's children at
// positions below P are leaf ids). With P == 1 the root is the leaf id and
// there are no nodes. One node table serves every position: a pair (a, b)
// met at two positions is one node, even when it means leaves at one and
// nodes at the other (leaves a..d of ids 0..3 give (0, 1) = node 0, (2, 3) =
// node 1 and the root (node 0, node 1) = node 0 again): ids are read back
// through the shape, so this is sound. By induction on the shape, at any
// one position the id is an injective function of the leaf ids below it:
// two states of the store have the same root id iff their part byte strings
// are equal, i.e. iff their encodings are equal (the parts being fixed in
// number). Roots of two stores, or of different layouts, are unrelated.
//
// Tables. Both are lock-free open-addressing hash-consing tables with
// linear probing and no deletion, in the manner of ConcurrentTable: a slot
// is claimed by one compare-and-swap, the claimer takes the next id from an
// atomic counter, writes the entry's data (the pair, or the leaf's bytes)
// and then publishes the id with a release store; readers that meet a slot
// being filled with their tag spin (then yield) until it is published. No
// locks anywhere. A slot is 32 bits: with capacity 2^c the low c bits hold
// id + 1 (ids stay below the load limit < 2^c, so id + 1 never reaches the
// all-ones pattern, which marks a slot being filled, nor all-ones minus one,
// which marks a slot abandoned by a failed allocation), and the 32 - c high
// bits hold a tag from the hash's high bits, so most mismatching slots are
// skipped without touching the data (a tag match is only a candidate: the
// data is compared). Deviation from ConcurrentTable's 16-byte slots: the
// slots hold ids only, the data lives in id-indexed arrays, so growth
// rehashes 4-byte slots and ids never move.
//
// Data. Node id -> pair (left << 32 | right, 8 bytes) and leaf id -> offset
// of its record (varint length, bytes) in a byte arena, in arrays of fixed
// segments allocated on first use (by compare-and-swap on a directory entry
// sized, between rounds, for every id the load limit allows); the arena is a
// list of geometrically growing chunks, a record never straddling two. Data
// never moves, so materialize() may read it while other threads intern.
//
// Memory per node: an 8-byte pair plus 4 / load bytes of slot: 13 B at the
// 0.8 maximum load, 14.7 B at 0.6, 16 B at 0.5 (just after a doubling the
// load is 0.4: 18 B), plus at most one partly used 2 MiB pair segment.
// Leaves cost 4 / load + 8 bytes plus their record. (LTSmin's tree uses the
// slot index as the id and stores the pair in the slot: 8 / load bytes, 10 B
// at 0.8, but then ids move when the table grows.) The price of stable ids:
// a node lookup that hits reads a slot and then the pair, two cache misses
// where LTSmin's slot-held pair takes one.
//
// Cost. intern(): P leaf lookups (XXH3-64 of the part, probe, compare) and
// P - 1 node lookups. intern_patched(): the changed parts' leaves and the
// nodes on their paths to the root (at most depth = ceil(log2 P) each), the
// caller keeping the base state's tree (intern() gives it, or tree_of() from
// its root: P - 1 pair reads). nodes() depends on the order of interning
// (which pairs of two positions happen to coincide), not only on the states.
//
// Growth, as with ConcurrentTable: a find-or-put that would pass the
// maximum load throws TableFull; the caller grows the store while no thread
// is inside it (between rounds) and redoes its round. grow() doubles the
// table(s) that threw; reserve() makes room ahead. The leaves and nodes an
// interrupted intern made stay (they are the state's own, found again when
// the round is redone), and every id stays valid.
//
// Thread safety: intern*, tree_of, materialize, leaf, node and the counts
// are safe from any number of threads at once; grow, reserve and the
// destructor need every other thread out. A root (or tree) is valid in a
// thread once the intern that returned it happened before (the store's
// release/acquire publication carries the data with it).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "hashing/huge_pages.hpp"
#include "hashing/state.hpp"

namespace ddsmc::hashing {

// Thrown by TreeStore's interns when a table is too full to insert.
struct TreeStoreFull : std::runtime_error {
  TreeStoreFull() : std::runtime_error("tree store full") {}
};

namespace tree_detail {

// Elements by id, in segments of 2^kBits allocated on first use (every
// element of a new segment reads `unset` until written). cover(n) sizes the
// directory for ids below n (no other thread inside); slot() is safe from
// any number of threads; an element written before a release that a reader
// acquires is visible to it.
template <class T, unsigned kBits>
class SegmentedArray {
 public:
  static constexpr size_t kSegment = size_t{1} << kBits;
  explicit SegmentedArray(T unset) : unset_(unset) {}
  SegmentedArray(const SegmentedArray&) = delete;
  SegmentedArray& operator=(const SegmentedArray&) = delete;
  ~SegmentedArray() { release(); }
  // Frees every segment: back to covering nothing (no other thread inside).
  void release() {
    for (size_t i = 0; i < dir_size_; ++i) FreeHuge()(dir_[i].load(std::memory_order_relaxed));
    dir_.reset();
    dir_size_ = 0;
    segments_.store(0, std::memory_order_relaxed);
  }
  void cover(size_t n) {
    const size_t want = (n + kSegment - 1) >> kBits;
    if (want <= dir_size_) return;
    auto dir = std::make_unique<std::atomic<T*>[]>(want);
    for (size_t i = 0; i < dir_size_; ++i) dir[i].store(dir_[i].load(std::memory_order_relaxed), std::memory_order_relaxed);
    dir_ = std::move(dir);
    dir_size_ = want;
  }
  size_t covered() const { return dir_size_ << kBits; }
  // Element i for writing; allocates its segment if need be (may throw std::bad_alloc).
  T& slot(size_t i) {
    std::atomic<T*>& d = dir_[i >> kBits];
    T* seg = d.load(std::memory_order_acquire);
    if (!seg) seg = allocate(d);
    return seg[i & (kSegment - 1)];
  }
  // Element i, which must have been written (and published to this thread).
  const T& operator[](size_t i) const { return dir_[i >> kBits].load(std::memory_order_acquire)[i & (kSegment - 1)]; }
  // Element i, or `unset` if its segment was never allocated (no other thread inside).
  T get_or_unset(size_t i) const {
    const T* seg = (i >> kBits) < dir_size_ ? dir_[i >> kBits].load(std::memory_order_relaxed) : nullptr;
    return seg ? seg[i & (kSegment - 1)] : unset_;
  }
  size_t memory_bytes() const {
    return segments_.load(std::memory_order_relaxed) * kSegment * sizeof(T) + dir_size_ * sizeof(std::atomic<T*>);
  }

 private:
  T* allocate(std::atomic<T*>& d) {
    HugeArray<T> seg = make_huge_array<T>(kSegment, unset_);  // (huge pages from 2 MiB segments on)
    T* expected = nullptr;
    if (!d.compare_exchange_strong(expected, seg.get(), std::memory_order_acq_rel, std::memory_order_acquire))
      return expected;  // another thread's segment won; ours is freed
    segments_.fetch_add(1, std::memory_order_relaxed);
    return seg.release();
  }
  std::unique_ptr<std::atomic<T*>[]> dir_;
  size_t dir_size_ = 0;
  std::atomic<size_t> segments_{0};
  T unset_;
};

// Append-only bytes for any number of threads: chunk k holds 2^(kBaseBits+k)
// bytes, so a fixed directory of chunk pointers covers any size and nothing
// ever moves. append(n) reserves n contiguous bytes (a run never straddles
// two chunks: the rest of a chunk too small for it is skipped).
class ByteArena {
 public:
  static constexpr unsigned kBaseBits = 16;
  static constexpr unsigned kChunks = 44;
  ByteArena() = default;
  ByteArena(const ByteArena&) = delete;
  ByteArena& operator=(const ByteArena&) = delete;
  ~ByteArena();
  // Offset of n >= 1 fresh bytes; may throw std::bad_alloc (the range is then lost).
  uint64_t append(size_t n);
  char* at(uint64_t off) { return chunks_[chunk_of(off)].load(std::memory_order_acquire) + (off - chunk_begin(chunk_of(off))); }
  const char* at(uint64_t off) const {
    return chunks_[chunk_of(off)].load(std::memory_order_acquire) + (off - chunk_begin(chunk_of(off)));
  }
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }
  size_t memory_bytes() const { return allocated_.load(std::memory_order_relaxed); }

 private:
  static unsigned chunk_of(uint64_t off);
  static uint64_t chunk_begin(unsigned k) { return ((uint64_t{1} << k) - 1) << kBaseBits; }
  static uint64_t chunk_size(unsigned k) { return uint64_t{1} << (kBaseBits + k); }
  std::array<std::atomic<char*>, kChunks> chunks_{};
  std::atomic<uint64_t> end_{0};
  std::atomic<uint64_t> used_{0};  // bytes handed out (without skipped tails)
  std::atomic<size_t> allocated_{0};
};

// The hash-consing index of one id space: 32-bit slots (see the file
// comment) mapping a 64-bit hash to the ids whose data the caller compares.
class IdTable {
 public:
  static constexpr double kMaxLoad = 0.8;
  static constexpr uint32_t kMaxIds = 0xfffffffcu;  // id + 1 stays below the two marker patterns
  explicit IdTable(size_t capacity);

  struct Result {
    uint32_t id;
    bool inserted;
  };
  // Finds the id of hash h for which same(id) holds, or claims a slot and
  // publishes make() (called once, by the claiming thread; it allocates the
  // id, writes its data and returns it). Throws TreeStoreFull at the load
  // limit. If make() throws, the slot is abandoned (matches nothing) and the
  // exception passes on.
  template <class Same, class Make>
  Result find_or_put(uint64_t h, Same&& same, Make&& make);

  // Rebuilds with `capacity` slots (a power of two) from ids [0, ids):
  // live(id) says whether id holds an entry, hash(id) gives its hash. No
  // other thread inside. Strong guarantee on std::bad_alloc.
  template <class Live, class Hash>
  void rebuild(size_t capacity, uint32_t ids, Live&& live, Hash&& hash);
  // Frees the slots but for a minimal table that takes no entry: every
  // find_or_put throws TreeStoreFull until a rebuild, which restores the
  // entries from their ids. size() keeps counting them. No other thread
  // inside.
  void drop();

  size_t size() const { return size_.load(std::memory_order_relaxed); }
  size_t capacity() const { return mask_ + 1; }
  size_t limit() const { return limit_; }
  // The least power-of-two capacity that holds `entries` at most kMaxLoad.
  static size_t capacity_for(size_t entries);
  // The entries a table of `capacity` slots takes before TableFull.
  static size_t limit_for(size_t capacity);
  bool overflowed() const { return overflowed_.load(std::memory_order_relaxed); }
  size_t memory_bytes() const { return capacity() * sizeof(uint32_t); }

 private:
  struct Geometry {
    uint64_t mask;
    uint32_t low_mask, tag_mask;
    size_t limit;
  };
  static Geometry geometry(size_t capacity);
  uint32_t wait(const std::atomic<uint32_t>& s) const;

  HugeArray<std::atomic<uint32_t>> slots_;  // (hashing/huge_pages.hpp)
  uint64_t mask_ = 0;
  uint32_t low_mask_ = 0;  // id + 1 field; all ones: being filled
  uint32_t tag_mask_ = 0;  // the bits above it
  size_t limit_ = 0;
  alignas(64) std::atomic<size_t> size_{0};
  std::atomic<bool> overflowed_{false};  // a find_or_put threw TreeStoreFull since the last rebuild
};

template <class Same, class Make>
IdTable::Result IdTable::find_or_put(uint64_t h, Same&& same, Make&& make) {
  const uint32_t tag = static_cast<uint32_t>(h >> 32) & tag_mask_;
  const uint32_t pending = tag | low_mask_, abandoned = low_mask_ - 1;
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    std::atomic<uint32_t>& s = slots_[i];
    uint32_t v = s.load(std::memory_order_acquire);
    if (v == 0) {
      if (size_.fetch_add(1, std::memory_order_relaxed) >= limit_) {
        size_.fetch_sub(1, std::memory_order_relaxed);
        overflowed_.store(true, std::memory_order_relaxed);
        throw TreeStoreFull();
      }
      if (s.compare_exchange_strong(v, pending, std::memory_order_acq_rel, std::memory_order_acquire)) {
        uint32_t id;
        try {
          id = make();
        } catch (...) {
          s.store(abandoned, std::memory_order_release);
          throw;
        }
        s.store(tag | (id + 1), std::memory_order_release);
        return {id, true};
      }
      size_.fetch_sub(1, std::memory_order_relaxed);  // v: what the winner put there
    }
    if ((v & tag_mask_) != tag) continue;
    if ((v & low_mask_) == low_mask_) v = wait(s);  // being filled, with our tag
    const uint32_t low = v & low_mask_;
    if (low == abandoned || (v & tag_mask_) != tag) continue;
    if (same(low - 1)) return {low - 1, false};
  }
}

template <class Live, class Hash>
void IdTable::rebuild(size_t capacity, uint32_t ids, Live&& live, Hash&& hash) {
  const Geometry g = geometry(capacity);
  // The slots hold ids only and the data lives elsewhere, so the new table
  // is built from the data alone: the old one is freed first, and a
  // doubling never holds both (that was the exploration's peak, a third of
  // the tree's memory more for a moment). If the new one cannot be had, a
  // table of the old size is rebuilt in the room just freed (else a table
  // that is full at once); then the failure goes on.
  const size_t had = slots_ ? static_cast<size_t>(mask_) + 1 : 0;
  slots_.reset();
  HugeArray<std::atomic<uint32_t>> slots;
  try {
    slots = make_huge_array<std::atomic<uint32_t>>(capacity, 0u);  // zero: empty
  } catch (...) {
    try {
      if (had && had < capacity) rebuild(had, ids, live, hash);
      else drop();
    } catch (...) {
      drop();
    }
    throw;
  }
  size_t n = 0;
  for (uint32_t id = 0; id < ids; ++id) {
    if (!live(id)) continue;
    const uint64_t h = hash(id);
    uint64_t i = h & g.mask;
    while (slots[i].load(std::memory_order_relaxed) != 0) i = (i + 1) & g.mask;
    slots[i].store((static_cast<uint32_t>(h >> 32) & g.tag_mask) | (id + 1), std::memory_order_relaxed);
    ++n;
  }
  slots_ = std::move(slots);
  mask_ = g.mask;
  low_mask_ = g.low_mask;
  tag_mask_ = g.tag_mask;
  limit_ = g.limit;
  size_.store(n, std::memory_order_relaxed);
  overflowed_.store(false, std::memory_order_relaxed);
}

}  // namespace tree_detail

class TreeStore {
 public:
  using TableFull = TreeStoreFull;
  static constexpr double kMaxLoad = tree_detail::IdTable::kMaxLoad;

  // A store for states of `parts` >= 1 parts, its tables starting with
  // room for about that many nodes and leaves.
  explicit TreeStore(uint32_t parts, size_t initial_nodes = 1 << 12, size_t initial_leaves = 1 << 10);
  // The same with part p at leaf position position[p] (a permutation of
  // 0..parts-1; empty: the identity). Parts that steps change together
  // should be neighbours: an intern_patched then re-interns one path to
  // the root instead of several.
  TreeStore(uint32_t parts, std::span<const uint32_t> position, size_t initial_nodes = 1 << 12,
            size_t initial_leaves = 1 << 10);
  TreeStore(const TreeStore&) = delete;
  TreeStore& operator=(const TreeStore&) = delete;

  uint32_t parts() const { return parts_; }
  // Ids per tree: leaves at positions [0, parts) (part p at position(p)),
  // nodes after, the root last.
  uint32_t tree_size() const { return 2 * parts_ - 1; }
  uint32_t root_position() const { return 2 * parts_ - 2; }
  uint32_t position(uint32_t part) const { return position_[part]; }
  // The child positions of internal position j (parts() <= j < tree_size()).
  std::pair<uint32_t, uint32_t> children(uint32_t j) const { return kids_[j - parts_]; }

  // Interns a state (s.begin has parts() + 1 offsets; parts may be empty)
  // and returns its root id; `tree`, if given, receives its tree_size() ids.
  // Thread-safe. Throws TableFull (grow, then intern again).
  uint32_t intern(const SegmentedEncoding& s, uint32_t* tree = nullptr);
  uint32_t intern(std::string_view bytes, const uint32_t* begin, uint32_t* tree = nullptr);

  // Incremental intern: the state equal to the one of tree `base` (from an
  // intern or tree_of) except for the parts listed, whose new bytes are
  // given. Interns only the changed leaves and the nodes above them;
  // returns the root and, if `tree` is given (it may be `base` itself),
  // the new tree. Parts may repeat (the last bytes win).
  struct Part {
    uint32_t part;
    std::string_view bytes;
  };
  uint32_t intern_patched(const uint32_t* base, std::span<const Part> changed, uint32_t* tree = nullptr);
  // The same with the new parts taken from s (the successor's segmented
  // encoding; only the listed parts of s are read).
  uint32_t intern_patched(const uint32_t* base, const SegmentedEncoding& s, const uint32_t* changed, size_t num_changed,
                          uint32_t* tree = nullptr);

  // The state equal to `base` (a whole encoding, as intern() takes it)
  // except for the parts listed, whose new bytes are given, without a tree
  // of the base in this store: `cache` (tree_size() ids, every one
  // kUnknown at first, kept by the caller between calls with the same
  // base) holds the ids of the base's subtrees interned so far. A subtree
  // with no changed part takes the base's id (interned on first use, then
  // cached), the others are interned from their children, so only subtrees
  // the successor has are interned. Returns the root intern() of the
  // successor's whole encoding would. Parts may repeat (the last bytes
  // win). When every part is listed, `base` is not read (begin may be
  // null). Thread-safe (the cache is the caller's); throws TableFull (the
  // cache stays valid: grow, then call again).
  static constexpr uint32_t kUnknown = ~uint32_t{0};
  uint32_t intern_overlay(std::string_view base, const uint32_t* begin, uint32_t* cache, std::span<const Part> changed);

  // Reading back (thread-safe, also while others intern).
  void tree_of(uint32_t root, uint32_t* tree) const;
  // The same into a tree that holds another tree of this store (or
  // kUnknown everywhere): only the subtrees whose id changed are read, so
  // a state that shares most parts with the one before costs a few pair
  // reads instead of parts() - 1.
  void update_tree(uint32_t root, uint32_t* tree) const;
  void materialize(uint32_t root, std::string& out) const;  // == encode() of the state
  void materialize(uint32_t root, SegmentedEncoding& out) const;
  // The same from a tree (tree_of's result): no pair reads.
  void materialize_tree(const uint32_t* tree, std::string& out) const;
  std::string_view leaf(uint32_t id) const;
  std::pair<uint32_t, uint32_t> node(uint32_t id) const {
    const uint64_t p = pairs_[id];
    return {static_cast<uint32_t>(p >> 32), static_cast<uint32_t>(p)};
  }

  // Growth (no other thread inside the store). grow() doubles the tables
  // that threw TableFull since the last growth (the node table if none did),
  // or rebuilds them after drop_index().
  void grow();
  // Frees the hash-consing index (the tables' slots, about half the
  // store), keeping everything reading states back needs. An intern after
  // it throws TableFull, and grow() rebuilds the index from the nodes and
  // leaves. No other thread inside.
  void drop_index();
  // Room for `more_nodes` more nodes and `more_leaves` more leaves.
  void reserve(size_t more_nodes, size_t more_leaves = 0);

  // Bulk save and load, for a checkpoint to write the store as it is
  // (docs/engine.md §14, format 4): the leaves (their records) and the
  // nodes (their pairs) as they are, in id order, with the ids lost to an
  // allocation failure marked. A store loaded from them holds the same
  // states under the same ids and hands out new ids after them; its
  // hash-consing index is rebuilt from the ids (about 50 ns a node), not
  // filled by interning every state again (about 2 µs a state). save()
  // writes through out.varint(), out.bytes() and out.u64(); load() reads
  // the same through `in`, into a store of the same parts and positions
  // that holds nothing yet, and checks every count and length
  // (std::runtime_error). It cannot check that a pair names subtrees of the
  // right shape: check_trees() does, for the roots the caller holds. No
  // other thread inside.
  template <class Out>
  void save(Out& out) const;
  template <class In>
  void load(In& in);
  // Whether the tree of every root root_of(0 .. n-1) reaches only ids the
  // store holds, each at a position where it is a node or a leaf (a node's
  // pair was written, a leaf's record too), and, with leaf_ok, whether
  // leaf_ok(part, bytes) holds for every leaf at the position of its part
  // (a checkpoint checks that the leaf decodes as that part). Each
  // (position, id) pair is checked once, remembered in an array by id (a
  // pair at a second position, rare, in a hash set), so this costs a few
  // array reads per new subtree and scales with the nodes, not with n
  // times the tree size. After it held, tree_of() and materialize() of
  // those roots read nothing outside the store. No thread interning.
  template <class RootOf>
  bool check_trees(size_t n, RootOf&& root_of) const {
    return check_trees(n, root_of, [](uint32_t, std::string_view) { return true; });
  }
  template <class RootOf, class LeafOk>
  bool check_trees(size_t n, RootOf&& root_of, LeafOk&& leaf_ok) const;

  // Every root id the store can return before its next growth is below
  // this bound (node ids, or leaf ids with one part).
  size_t root_id_bound() const { return parts_ == 1 ? leaf_offsets_.covered() : pairs_.covered(); }

  // Ids handed out (including the rare ones lost to an allocation failure).
  size_t nodes() const { return next_node_.load(std::memory_order_relaxed); }
  size_t leaves() const { return next_leaf_.load(std::memory_order_relaxed); }
  uint64_t leaf_bytes() const { return arena_.used(); }  // leaf records (lengths and bytes)
  size_t node_capacity() const { return node_table_.capacity(); }
  size_t leaf_capacity() const { return leaf_table_.capacity(); }
  struct Memory {
    size_t node_slots = 0, node_pairs = 0, leaf_slots = 0, leaf_offsets = 0, leaf_arena = 0;
    size_t total() const { return node_slots + node_pairs + leaf_slots + leaf_offsets + leaf_arena; }
  };
  Memory memory() const;
  size_t memory_bytes() const { return memory().total(); }

 private:
  static constexpr uint64_t kUnset = ~uint64_t{0};  // no pair / no record: an id lost to bad_alloc
  uint32_t intern_leaf(std::string_view bytes);
  uint32_t intern_node(uint32_t left, uint32_t right);
  uint64_t leaf_hash(uint32_t id) const;
  void resize_nodes(size_t capacity);
  void resize_leaves(size_t capacity);

  // load()'s steps: the next leaf (record bytes, or lost), the next node
  // (pair, or kUnset), and the index over them at the end.
  void load_leaf(const std::string* bytes);
  void load_node(uint64_t pair);
  void load_index();
  // check_trees()'s memory: per leaf and per node id the position (+ 1)
  // it was found good at first (0: none yet), and the (position, id) pairs
  // found good at another position.
  struct Checked {
    std::vector<uint32_t> leaf_at, node_at;
    std::unordered_set<uint64_t> more;
    std::vector<uint64_t> stack;
  };
  // Whether (position, id) was found good, marking it found if not (its
  // subtree is then checked, or the whole check fails).
  static bool checked_before(std::vector<uint32_t>& at, std::unordered_set<uint64_t>& more, uint32_t position,
                             uint32_t id);
  // Whether a leaf id / node id is one the store holds (its record or its
  // pair written).
  bool leaf_held(uint32_t id) const { return id < leaves() && leaf_offsets_.get_or_unset(id) != kUnset; }
  uint64_t pair_held(uint32_t id) const { return id < nodes() ? pairs_.get_or_unset(id) : kUnset; }

  uint32_t parts_;
  std::vector<uint32_t> position_;                   // per part: its leaf position
  std::vector<uint32_t> part_at_;                    // per leaf position: its part
  std::vector<std::pair<uint32_t, uint32_t>> kids_;  // per internal position
  std::vector<uint32_t> parent_;                     // per position but the root
  tree_detail::IdTable node_table_, leaf_table_;
  tree_detail::SegmentedArray<uint64_t, 18> pairs_{kUnset};        // node id -> left << 32 | right (2 MiB segments)
  tree_detail::SegmentedArray<uint64_t, 12> leaf_offsets_{kUnset};  // leaf id -> record offset in arena_
  tree_detail::ByteArena arena_;
  alignas(64) std::atomic<uint32_t> next_node_{0};
  alignas(64) std::atomic<uint32_t> next_leaf_{0};
};

template <class Out>
void TreeStore::save(Out& out) const {
  const size_t leaves_n = leaves(), nodes_n = nodes();
  out.varint(leaves_n);
  for (size_t id = 0; id < leaves_n; ++id) {
    if (leaf_offsets_.get_or_unset(id) == kUnset) {
      out.varint(0);
      continue;
    }
    const std::string_view b = leaf(static_cast<uint32_t>(id));
    out.varint(b.size() + 1);
    out.bytes(b.data(), b.size());
  }
  out.varint(nodes_n);
  for (size_t id = 0; id < nodes_n; ++id) out.u64(pairs_.get_or_unset(id));
}

template <class In>
void TreeStore::load(In& in) {
  if (nodes() || leaves()) throw std::logic_error("TreeStore::load: the store is not empty");
  const uint64_t leaves_n = in.varint();
  if (leaves_n >= tree_detail::IdTable::kMaxIds) throw std::runtime_error("tree store: too many leaves");
  leaf_offsets_.cover(leaves_n);
  std::string bytes;
  for (uint64_t id = 0; id < leaves_n; ++id) {
    const uint64_t n = in.varint();
    if (n > (uint64_t{1} << 32)) throw std::runtime_error("tree store: a leaf is too long");
    if (n > 0) {
      bytes.resize(n - 1);
      in.bytes(bytes.data(), n - 1);
    }
    load_leaf(n > 0 ? &bytes : nullptr);
  }
  const uint64_t nodes_n = in.varint();
  if (nodes_n >= tree_detail::IdTable::kMaxIds) throw std::runtime_error("tree store: too many nodes");
  pairs_.cover(nodes_n);
  for (uint64_t id = 0; id < nodes_n; ++id) load_node(in.u64());
  load_index();
}

template <class RootOf, class LeafOk>
bool TreeStore::check_trees(size_t n, RootOf&& root_of, LeafOk&& leaf_ok) const {
  Checked c;
  c.leaf_at.assign(leaves(), 0);
  c.node_at.assign(nodes(), 0);
  for (size_t i = 0; i < n; ++i) {
    c.stack.assign(1, uint64_t{root_position()} << 32 | root_of(i));
    while (!c.stack.empty()) {
      const uint64_t at = c.stack.back();
      c.stack.pop_back();
      const auto position = static_cast<uint32_t>(at >> 32), id = static_cast<uint32_t>(at);
      if (position < parts_) {
        if (!leaf_held(id)) return false;
        if (checked_before(c.leaf_at, c.more, position, id)) continue;
        if (!leaf_ok(part_at_[position], leaf(id))) return false;
        continue;
      }
      const uint64_t pair = pair_held(id);
      if (pair == kUnset) return false;
      if (checked_before(c.node_at, c.more, position, id)) continue;
      const auto [l, r] = children(position);
      c.stack.push_back(uint64_t{l} << 32 | (pair >> 32));
      c.stack.push_back(uint64_t{r} << 32 | static_cast<uint32_t>(pair));
    }
  }
  return true;
}

}  // namespace ddsmc::hashing
