#include "hashing/tree_store.hpp"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "hashing/spin_wait.hpp"

namespace ddsmc::hashing {

namespace tree_detail {

// ---- ByteArena ----------------------------------------------------------------

ByteArena::~ByteArena() {
  for (auto& c : chunks_) delete[] c.load(std::memory_order_relaxed);
}

unsigned ByteArena::chunk_of(uint64_t off) {
  return static_cast<unsigned>(std::bit_width((off >> kBaseBits) + 1)) - 1;
}

uint64_t ByteArena::append(size_t n) {
  uint64_t end = end_.load(std::memory_order_relaxed), off;
  unsigned k;
  do {
    // The first chunk boundary at or after `end` with room for n bytes.
    off = end;
    k = chunk_of(off);
    while (off + n > chunk_begin(k + 1)) {
      if (k + 1 >= kChunks) throw std::length_error("tree store: leaf arena exhausted");
      off = chunk_begin(++k);
    }
  } while (!end_.compare_exchange_weak(end, off + n, std::memory_order_relaxed));
  std::atomic<char*>& c = chunks_[k];
  if (!c.load(std::memory_order_acquire)) {
    std::unique_ptr<char[]> mem = std::make_unique_for_overwrite<char[]>(chunk_size(k));
    char* expected = nullptr;
    if (c.compare_exchange_strong(expected, mem.get(), std::memory_order_acq_rel, std::memory_order_acquire)) {
      mem.release();
      allocated_.fetch_add(chunk_size(k), std::memory_order_relaxed);
    }
  }
  used_.fetch_add(n, std::memory_order_relaxed);
  return off;
}

// ---- IdTable --------------------------------------------------------------------

IdTable::Geometry IdTable::geometry(size_t capacity) {
  if (capacity < 64 || !std::has_single_bit(capacity) || capacity > (size_t{1} << 32))
    throw std::length_error("tree store: bad table capacity");
  const auto c = static_cast<unsigned>(std::countr_zero(capacity));
  Geometry g;
  g.mask = capacity - 1;
  g.low_mask = c == 32 ? 0xffffffffu : (uint32_t{1} << c) - 1;
  g.tag_mask = ~g.low_mask;
  g.limit = limit_for(capacity);
  return g;
}

size_t IdTable::limit_for(size_t capacity) {
  return std::min<size_t>(static_cast<size_t>(static_cast<double>(capacity) * kMaxLoad), kMaxIds);
}

IdTable::IdTable(size_t capacity) {
  rebuild(
      std::bit_ceil(std::max<size_t>(capacity, 64)), 0, [](uint32_t) { return false; },
      [](uint32_t) { return uint64_t{0}; });
}

void IdTable::drop() {
  const Geometry g = geometry(64);
  slots_ = make_huge_array<std::atomic<uint32_t>>(64, 0u);  // zero: empty
  mask_ = g.mask;
  low_mask_ = g.low_mask;
  tag_mask_ = g.tag_mask;
  limit_ = 0;  // the first insert finds the table full
  overflowed_.store(false, std::memory_order_relaxed);
}

size_t IdTable::capacity_for(size_t entries) {
  size_t capacity = 64;
  while (static_cast<double>(entries) > static_cast<double>(capacity) * kMaxLoad) capacity *= 2;
  return capacity;
}

uint32_t IdTable::wait(const std::atomic<uint32_t>& s) const {
  return wait_published(s, [this](uint32_t v) { return (v & low_mask_) != low_mask_; });
}

}  // namespace tree_detail

// ---- TreeStore --------------------------------------------------------------------

namespace {

// splitmix64's finaliser: every bit of a node's pair reaches the slot index and the tag.
inline uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline uint64_t bytes_hash(std::string_view b) { return XXH3_64bits(b.data(), b.size()); }

// Leaf records: LEB128 length, then the bytes.
inline size_t put_length(char* p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  p[n++] = static_cast<char>(v);
  return n;
}

inline std::string_view read_record(const char* p) {
  uint64_t len = 0;
  unsigned shift = 0;
  for (;;) {
    const auto b = static_cast<unsigned char>(*p++);
    len |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  return {p, static_cast<size_t>(len)};
}

// Per-thread room for one tree (interns without a caller's tree, materialize).
uint32_t* scratch_tree(size_t n) {
  thread_local std::vector<uint32_t> t;
  if (t.size() < n) t.resize(n);
  return t.data();
}

}  // namespace

TreeStore::TreeStore(uint32_t parts, size_t initial_nodes, size_t initial_leaves)
    : TreeStore(parts, {}, initial_nodes, initial_leaves) {}

TreeStore::TreeStore(uint32_t parts, std::span<const uint32_t> position, size_t initial_nodes, size_t initial_leaves)
    : parts_(parts),
      node_table_(tree_detail::IdTable::capacity_for(initial_nodes)),
      leaf_table_(tree_detail::IdTable::capacity_for(initial_leaves)) {
  if (parts == 0 || parts > (1u << 30)) throw std::invalid_argument("TreeStore: parts must be in [1, 2^30]");
  if (position.empty()) {
    position_.resize(parts);
    for (uint32_t p = 0; p < parts; ++p) position_[p] = p;
  } else {
    std::vector<char> taken(parts, 0);
    for (uint32_t q : position)
      if (position.size() != parts || q >= parts || taken[q]++)
        throw std::invalid_argument("TreeStore: leaf positions are not a permutation of the parts");
    position_.assign(position.begin(), position.end());
  }
  part_at_.resize(parts);
  for (uint32_t p = 0; p < parts; ++p) part_at_[position_[p]] = p;
  // The shape: ranges split at the middle (the left half one longer), internal positions in post-order.
  kids_.reserve(parts - 1);
  auto build = [&](auto& self, uint32_t lo, uint32_t hi) -> uint32_t {
    if (hi - lo == 1) return lo;
    const uint32_t mid = lo + (hi - lo + 1) / 2;
    const uint32_t l = self(self, lo, mid);
    const uint32_t r = self(self, mid, hi);
    kids_.emplace_back(l, r);
    return parts_ + static_cast<uint32_t>(kids_.size()) - 1;
  };
  build(build, 0, parts);
  parent_.assign(tree_size(), 0);
  for (uint32_t j = parts_; j < tree_size(); ++j) {
    parent_[kids_[j - parts_].first] = j;
    parent_[kids_[j - parts_].second] = j;
  }
  pairs_.cover(node_table_.limit());
  leaf_offsets_.cover(leaf_table_.limit());
}

uint32_t TreeStore::intern_leaf(std::string_view bytes) {
  return leaf_table_
      .find_or_put(
          bytes_hash(bytes),
          [&](uint32_t id) {
            // leaf(id) == bytes, without the call: a leaf below 128 bytes
            // (the common case) has a one-byte length.
            const char* p = arena_.at(leaf_offsets_[id]);
            const auto n = static_cast<unsigned char>(*p);
            if (n < 0x80) return n == bytes.size() && std::memcmp(p + 1, bytes.data(), n) == 0;
            return read_record(p) == bytes;
          },
          [&] {
            const uint32_t id = next_leaf_.fetch_add(1, std::memory_order_relaxed);
            if (id >= tree_detail::IdTable::kMaxIds) throw std::length_error("tree store: too many leaves");
            uint64_t& slot = leaf_offsets_.slot(id);
            char head[10];
            const size_t h = put_length(head, bytes.size());
            const uint64_t off = arena_.append(h + bytes.size());
            char* p = arena_.at(off);
            std::memcpy(p, head, h);
            if (!bytes.empty()) std::memcpy(p + h, bytes.data(), bytes.size());
            slot = off;
            return id;
          })
      .id;
}

uint32_t TreeStore::intern_node(uint32_t left, uint32_t right) {
  const uint64_t key = uint64_t{left} << 32 | right;
  return node_table_
      .find_or_put(
          mix(key), [&](uint32_t id) { return pairs_[id] == key; },
          [&] {
            const uint32_t id = next_node_.fetch_add(1, std::memory_order_relaxed);
            if (id >= tree_detail::IdTable::kMaxIds) throw std::length_error("tree store: too many nodes");
            pairs_.slot(id) = key;
            return id;
          })
      .id;
}

std::string_view TreeStore::leaf(uint32_t id) const { return read_record(arena_.at(leaf_offsets_[id])); }

uint64_t TreeStore::leaf_hash(uint32_t id) const { return bytes_hash(leaf(id)); }

uint32_t TreeStore::intern(const SegmentedEncoding& s, uint32_t* tree) {
  if (s.begin.size() != size_t{parts_} + 1 || s.begin.back() != s.bytes.size())
    throw std::invalid_argument("TreeStore::intern: encoding of another number of parts");
  return intern(s.bytes, s.begin.data(), tree);
}

uint32_t TreeStore::intern(std::string_view bytes, const uint32_t* begin, uint32_t* tree) {
  uint32_t* t = tree ? tree : scratch_tree(tree_size());
  for (uint32_t p = 0; p < parts_; ++p)
    t[position_[p]] = intern_leaf(bytes.substr(begin[p], begin[p + 1] - begin[p]));
  for (uint32_t j = parts_; j < tree_size(); ++j) {
    const auto [l, r] = kids_[j - parts_];
    t[j] = intern_node(t[l], t[r]);
  }
  return t[root_position()];
}

uint32_t TreeStore::intern_patched(const uint32_t* base, std::span<const Part> changed, uint32_t* tree) {
  // One changed part (most steps: the served channel alone): its path to
  // the root, bottom-up, which is increasing position order as below.
  if (changed.size() == 1 && !tree) {
    if (changed[0].part >= parts_) throw std::out_of_range("TreeStore::intern_patched: no such part");
    uint32_t j = position_[changed[0].part], id = intern_leaf(changed[0].bytes);
    if (id == base[j]) return base[root_position()];
    while (j != root_position()) {
      const uint32_t up = parent_[j];
      const auto [l, r] = kids_[up - parts_];
      id = l == j ? intern_node(id, base[r]) : intern_node(base[l], id);
      j = up;
    }
    return id;
  }
  // The positions on the paths from the leaves whose id changed to the
  // root are marked (mark[j] == stamp: a fresh stamp per call instead of
  // clearing, id[j] their new id), then recomputed by a post-order walk of
  // the marked positions: children first, and in increasing position
  // order, as interning them sorted would. A part listed twice, or changed
  // back, may leave a node's children as they were: looking it up again
  // finds its old id.
  thread_local std::vector<uint32_t> mark, id;
  thread_local uint32_t stamp = 0;
  if (mark.size() < tree_size() || ++stamp == 0) {
    mark.assign(std::max<size_t>(mark.size(), tree_size()), 0);
    id.resize(mark.size());
    stamp = 1;
  }
  const uint32_t now = stamp, root = root_position();
  for (const Part& c : changed) {
    if (c.part >= parts_) throw std::out_of_range("TreeStore::intern_patched: no such part");
    const uint32_t leaf = intern_leaf(c.bytes), pos = position_[c.part];
    if (mark[pos] == now) {
      id[pos] = leaf;  // listed before: the last bytes win
      continue;
    }
    if (leaf == base[pos]) continue;
    id[pos] = leaf;
    mark[pos] = now;
    for (uint32_t j = pos; j != root;) {
      j = parent_[j];
      if (mark[j] == now) break;  // and every position above it
      mark[j] = now;
    }
  }
  if (tree && tree != base) std::copy(base, base + tree_size(), tree);
  auto at = [&](auto& self, uint32_t j) -> uint32_t {
    if (mark[j] != now) return base[j];
    if (j >= parts_) {
      const auto [l, r] = kids_[j - parts_];
      const uint32_t a = self(self, l);
      id[j] = intern_node(a, self(self, r));
    }
    if (tree) tree[j] = id[j];
    return id[j];
  };
  return at(at, root);
}

uint32_t TreeStore::intern_patched(const uint32_t* base, const SegmentedEncoding& s, const uint32_t* changed,
                                   size_t num_changed, uint32_t* tree) {
  if (s.begin.size() != size_t{parts_} + 1) throw std::invalid_argument("TreeStore::intern_patched: wrong parts");
  constexpr size_t kInline = 16;
  Part inline_parts[kInline];
  std::vector<Part> heap;
  Part* ps = inline_parts;
  if (num_changed > kInline) {
    heap.resize(num_changed);
    ps = heap.data();
  }
  for (size_t i = 0; i < num_changed; ++i) {
    const uint32_t p = changed[i];
    if (p >= parts_) throw std::out_of_range("TreeStore::intern_patched: no such part");
    ps[i] = Part{p, std::string_view(s.bytes).substr(s.begin[p], s.begin[p + 1] - s.begin[p])};
  }
  return intern_patched(base, std::span<const Part>(ps, num_changed), tree);
}

uint32_t TreeStore::intern_overlay(std::string_view base, const uint32_t* begin, uint32_t* cache,
                                   std::span<const Part> changed) {
  // Per position: 0 if the successor's subtree there is the base's, else
  // 1 + the index of the changed part (leaves) or 1 (internal positions).
  // Reset at the start of the next call, so that a TableFull leaves none set.
  thread_local std::vector<uint32_t> mark, touched;
  if (mark.size() < tree_size()) mark.resize(tree_size(), 0);
  for (uint32_t j : touched) mark[j] = 0;
  touched.clear();
  for (size_t i = 0; i < changed.size(); ++i) {
    if (changed[i].part >= parts_) throw std::out_of_range("TreeStore::intern_overlay: no such part");
    const uint32_t pos = position_[changed[i].part];
    if (!mark[pos]) touched.push_back(pos);
    mark[pos] = static_cast<uint32_t>(i) + 1;
    for (uint32_t j = pos; j != root_position();) {
      j = parent_[j];
      if (mark[j]) break;  // and every position above it
      mark[j] = 1;
      touched.push_back(j);
    }
  }
  auto base_id = [&](auto& self, uint32_t j) -> uint32_t {
    if (cache[j] != kUnknown) return cache[j];
    if (j < parts_) {
      if (!begin) throw std::invalid_argument("TreeStore::intern_overlay: an unchanged part and no base");
      const uint32_t p = part_at_[j];
      cache[j] = intern_leaf(base.substr(begin[p], begin[p + 1] - begin[p]));
    } else {
      const auto [l, r] = kids_[j - parts_];
      const uint32_t a = self(self, l);
      cache[j] = intern_node(a, self(self, r));
    }
    return cache[j];
  };
  if (changed.empty()) return base_id(base_id, root_position());
  // The marked positions, children first (post-order).
  thread_local std::vector<uint32_t> order, id;
  order.assign(touched.begin(), touched.end());
  std::sort(order.begin(), order.end());
  if (id.size() < tree_size()) id.resize(tree_size());
  for (uint32_t j : order) {
    if (j < parts_) {
      id[j] = intern_leaf(changed[mark[j] - 1].bytes);
      continue;
    }
    const auto [l, r] = kids_[j - parts_];
    const uint32_t a = mark[l] ? id[l] : base_id(base_id, l);
    id[j] = intern_node(a, mark[r] ? id[r] : base_id(base_id, r));
  }
  return id[root_position()];
}

void TreeStore::tree_of(uint32_t root, uint32_t* tree) const {
  tree[root_position()] = root;
  for (uint32_t j = root_position(); j >= parts_; --j) {
    const auto [l, r] = kids_[j - parts_];
    const auto [a, b] = node(tree[j]);
    tree[l] = a;
    tree[r] = b;
  }
}

void TreeStore::update_tree(uint32_t root, uint32_t* tree) const {
  // Ids at one position are injective in the subtree below it: an equal
  // id means an equal subtree, which is left as it is.
  auto update = [&](auto& self, uint32_t j, uint32_t id) -> void {
    if (tree[j] == id) return;
    tree[j] = id;
    if (j < parts_) return;
    const auto [l, r] = kids_[j - parts_];
    const auto [a, b] = node(id);
    self(self, l, a);
    self(self, r, b);
  };
  update(update, root_position(), root);
}

void TreeStore::materialize(uint32_t root, std::string& out) const {
  uint32_t* t = scratch_tree(tree_size());
  tree_of(root, t);
  materialize_tree(t, out);
}

void TreeStore::materialize_tree(const uint32_t* tree, std::string& out) const {
  out.clear();
  for (uint32_t p = 0; p < parts_; ++p) out.append(leaf(tree[position_[p]]));
}

void TreeStore::materialize(uint32_t root, SegmentedEncoding& out) const {
  uint32_t* t = scratch_tree(tree_size());
  tree_of(root, t);
  out.bytes.clear();
  out.begin.resize(size_t{parts_} + 1);
  for (uint32_t p = 0; p < parts_; ++p) {
    out.begin[p] = static_cast<uint32_t>(out.bytes.size());
    out.bytes.append(leaf(t[position_[p]]));
  }
  out.begin[parts_] = static_cast<uint32_t>(out.bytes.size());
}

// Every id the new limit allows gets its directory entry first (the ids
// handed out so far plus one per insertion before the next TableFull), so
// that a failed allocation leaves the store as it was.
void TreeStore::resize_nodes(size_t capacity) {
  const size_t ids = nodes();
  pairs_.cover(std::min<size_t>(ids + tree_detail::IdTable::limit_for(capacity), tree_detail::IdTable::kMaxIds));
  node_table_.rebuild(
      capacity, static_cast<uint32_t>(ids), [&](uint32_t id) { return pairs_.get_or_unset(id) != kUnset; },
      [&](uint32_t id) { return mix(pairs_[id]); });
}

void TreeStore::resize_leaves(size_t capacity) {
  const size_t ids = leaves();
  leaf_offsets_.cover(std::min<size_t>(ids + tree_detail::IdTable::limit_for(capacity), tree_detail::IdTable::kMaxIds));
  leaf_table_.rebuild(
      capacity, static_cast<uint32_t>(ids), [&](uint32_t id) { return leaf_offsets_.get_or_unset(id) != kUnset; },
      [&](uint32_t id) { return leaf_hash(id); });
}

void TreeStore::grow() {
  using tree_detail::IdTable;
  const bool leaves_full = leaf_table_.overflowed(), nodes_full = node_table_.overflowed();
  if (leaves_full) resize_leaves(std::max(leaf_table_.capacity() * 2, IdTable::capacity_for(leaf_table_.size())));
  if (nodes_full || !leaves_full)
    resize_nodes(std::max(node_table_.capacity() * 2, IdTable::capacity_for(node_table_.size())));
}

void TreeStore::load_leaf(const std::string* bytes) {
  const uint32_t id = next_leaf_.fetch_add(1, std::memory_order_relaxed);
  uint64_t& slot = leaf_offsets_.slot(id);
  if (!bytes) return;  // lost: stays kUnset
  char head[10];
  const size_t h = put_length(head, bytes->size());
  const uint64_t off = arena_.append(h + bytes->size());
  char* p = arena_.at(off);
  std::memcpy(p, head, h);
  if (!bytes->empty()) std::memcpy(p + h, bytes->data(), bytes->size());
  slot = off;
}

void TreeStore::load_node(uint64_t pair) {
  const uint32_t id = next_node_.fetch_add(1, std::memory_order_relaxed);
  pairs_.slot(id) = pair;
}

void TreeStore::load_index() {
  using tree_detail::IdTable;
  resize_leaves(std::max(leaf_table_.capacity(), IdTable::capacity_for(leaves())));
  resize_nodes(std::max(node_table_.capacity(), IdTable::capacity_for(nodes())));
}

bool TreeStore::checked_before(std::vector<uint32_t>& at, std::unordered_set<uint64_t>& more, uint32_t position,
                               uint32_t id) {
  uint32_t& first = at[id];
  if (first == position + 1) return true;
  if (first == 0) {
    first = position + 1;
    return false;
  }
  return !more.insert(uint64_t{position} << 32 | id).second;
}

void TreeStore::drop_index() {
  node_table_.drop();
  leaf_table_.drop();
}

void TreeStore::reserve(size_t more_nodes, size_t more_leaves) {
  const size_t nodes_cap = tree_detail::IdTable::capacity_for(node_table_.size() + more_nodes);
  if (nodes_cap > node_table_.capacity()) resize_nodes(nodes_cap);
  const size_t leaves_cap = tree_detail::IdTable::capacity_for(leaf_table_.size() + more_leaves);
  if (leaves_cap > leaf_table_.capacity()) resize_leaves(leaves_cap);
}

TreeStore::Memory TreeStore::memory() const {
  Memory m;
  m.node_slots = node_table_.memory_bytes();
  m.node_pairs = pairs_.memory_bytes();
  m.leaf_slots = leaf_table_.memory_bytes();
  m.leaf_offsets = leaf_offsets_.memory_bytes();
  m.leaf_arena = arena_.memory_bytes();
  return m;
}

}  // namespace ddsmc::hashing
