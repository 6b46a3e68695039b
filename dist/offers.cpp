#include "dist/offers.hpp"

#include <cstring>
#include <stdexcept>

namespace ddsmc::dist {

// A unit: u32 source_local, varint source (global id), u8 has_base, [the base: a varint
// length per part, then the parts' bytes], then deltas: varint ordinal,
// u8 violating, the label words (u64), varint n, n times (varint part,
// varint length, bytes).

namespace {

void put_part(Writer& out, uint32_t part, std::string_view bytes) {
  out.varint(part);
  out.varint(bytes.size());
  out.bytes(bytes);
}

}  // namespace

void OfferWriter::add(std::vector<std::vector<uint8_t>>& boxes, uint32_t owner, uint32_t source_local, engine::StateId source,
                      uint32_t ordinal, const engine::Candidate& c, std::span<const uint64_t> labels) {
  std::vector<uint8_t>& box = boxes[owner];
  Writer out(box);
  if (open_[owner] == kClosed) {
    begin_bundle(box, kind_);
    open_[owner] = box.size();
    opened_.push_back(owner);
    box.resize(box.size() + 4);  // the length, at close()
    out.u32(source_local);
    out.varint(source);
    out.u8(c.base ? 1 : 0);
    if (c.base) {
      const hashing::SegmentedEncoding& b = *c.base;
      for (size_t p = 0; p + 1 < b.begin.size(); ++p) out.varint(b.begin[p + 1] - b.begin[p]);
      out.bytes(b.bytes);
    }
  }
  out.varint(ordinal);
  out.u8(c.violating);
  for (uint64_t word : labels) out.u64(word);
  if (c.encoding) {  // whole
    const hashing::SegmentedEncoding& e = *c.encoding;
    const auto parts = static_cast<uint32_t>(e.begin.size() - 1);
    out.varint(parts);
    for (uint32_t p = 0; p < parts; ++p) put_part(out, p, std::string_view(e.bytes).substr(e.begin[p], e.begin[p + 1] - e.begin[p]));
  } else {
    if (!c.base) throw std::logic_error("dist: an offer of changed parts without its base");
    out.varint(c.changed.size());
    for (const auto& part : c.changed) put_part(out, part.part, part.bytes);
  }
}

void OfferWriter::close(std::vector<std::vector<uint8_t>>& boxes) {
  for (uint32_t d : opened_) {
    std::vector<uint8_t>& box = boxes[d];
    const auto n = static_cast<uint32_t>(box.size() - open_[d] - 4);
    std::memcpy(box.data() + open_[d], &n, 4);
    open_[d] = kClosed;
  }
  opened_.clear();
}

UnitReader::UnitReader(std::span<const uint8_t> record, uint32_t parts, uint32_t label_words, Scratch& scratch)
    : in_(record), parts_(parts), scratch_(scratch) {
  source_local = in_.u32();
  source = in_.varint();
  has_base_ = in_.u8() != 0;
  if (has_base_) {
    scratch_.begin.assign(size_t{parts} + 1, 0);
    for (uint32_t p = 0; p < parts; ++p) scratch_.begin[p + 1] = scratch_.begin[p] + static_cast<uint32_t>(in_.varint());
    base = in_.bytes(scratch_.begin[parts]);
  }
  scratch_.labels.resize(label_words);
}

bool UnitReader::next() {
  if (in_.done()) return false;
  ordinal = static_cast<uint32_t>(in_.varint());
  violating = in_.u8() != 0;
  for (auto& word : scratch_.labels) word = in_.u64();
  const uint64_t n = in_.varint();
  if (n > parts_ || (!has_base_ && n != parts_)) throw std::logic_error("dist: an offer of too few parts");
  scratch_.changed.clear();
  for (uint64_t i = 0; i < n; ++i) {
    const auto part = static_cast<uint32_t>(in_.varint());
    if (part >= parts_) throw std::logic_error("dist: an offer of no such part");
    scratch_.changed.push_back({part, in_.bytes(in_.varint())});
  }
  return true;
}

uint32_t* BaseSubtrees::start(const hashing::TreeStore& tree, std::string_view base, const uint32_t* begin) {
  const uint32_t parts = tree.parts(), size = tree.tree_size();
  const bool comparable = begin && last_begin_.size() == size_t{parts} + 1 && ids_.size() == size;
  if (!comparable) {
    ids_.assign(size, hashing::TreeStore::kUnknown);
  } else {
    same_.assign(size, 0);
    for (uint32_t p = 0; p < parts; ++p) {
      const std::string_view now = base.substr(begin[p], begin[p + 1] - begin[p]);
      const std::string_view before = std::string_view(last_).substr(last_begin_[p], last_begin_[p + 1] - last_begin_[p]);
      same_[tree.position(p)] = now == before;
    }
    for (uint32_t j = parts; j < size; ++j) {  // (children come before their parent)
      const auto [l, r] = tree.children(j);
      same_[j] = same_[l] && same_[r];
    }
    for (uint32_t j = 0; j < size; ++j)
      if (!same_[j]) ids_[j] = hashing::TreeStore::kUnknown;
  }
  if (begin) {
    last_.assign(base);
    last_begin_.assign(begin, begin + parts + 1);
  } else {
    last_begin_.clear();
  }
  return ids_.data();
}

}  // namespace ddsmc::dist
