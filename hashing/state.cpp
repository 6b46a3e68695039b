#include "hashing/state.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace ddsmc::hashing {

namespace {

// ---- LEB128 -----------------------------------------------------------------

inline char* put_varint(char* p, uint32_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

// Reads one varint; rejects truncation, values above 32 bits and overlong
// forms (a zero final byte), so every accepted byte string is exactly what
// encode() writes for the decoded state.
inline bool get_varint(const unsigned char*& p, const unsigned char* end, uint32_t& v) {
  uint32_t result = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (p == end) return false;
    const uint32_t b = *p++;
    if (shift == 28 && b > 0x0f) return false;  // would overflow 32 bits
    result |= (b & 0x7f) << shift;
    if (!(b & 0x80)) {
      if (b == 0 && shift > 0) return false;  // overlong
      v = result;
      return true;
    }
  }
  return false;
}

// ---- sorting fact runs --------------------------------------------------------

// Facts of different predicates compare by predicate; facts of one predicate
// have one length, so comparing the run is comparing arity+1 words.
inline int compare_fact(const Word* a, const Word* b, const StateLayout& layout) {
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  const uint32_t n = layout.fact_words(a[0]);
  for (uint32_t i = 1; i < n; ++i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

struct SortScratch {
  std::vector<uint32_t> offsets;
  std::vector<Word> out;
};
thread_local SortScratch sort_scratch;

// Sorts the runs of `words` (each a fact followed by `extra` words); equal
// facts are combined: dropped (extra == 0) or their trailing counts added.
void sort_runs(std::vector<Word>& words, const StateLayout& layout, uint32_t extra) {
  auto& offs = sort_scratch.offsets;
  offs.clear();
  bool sorted = true;
  for (size_t i = 0; i < words.size();) {
    offs.push_back(static_cast<uint32_t>(i));
    if (offs.size() > 1 && sorted && compare_fact(&words[offs[offs.size() - 2]], &words[i], layout) >= 0)
      sorted = false;
    i += layout.fact_words(words[i]) + extra;
  }
  if (sorted) return;  // the common case after a local change: nothing to do
  const Word* w = words.data();
  std::sort(offs.begin(), offs.end(),
            [&](uint32_t a, uint32_t b) { return compare_fact(w + a, w + b, layout) < 0; });
  auto& out = sort_scratch.out;
  out.clear();
  size_t last = 0;  // offset in `out` of the previous run
  for (size_t k = 0; k < offs.size(); ++k) {
    const Word* run = w + offs[k];
    const uint32_t n = layout.fact_words(run[0]);
    if (k > 0 && compare_fact(out.data() + last, run, layout) == 0) {
      if (extra) out[last + n] += run[n];
      continue;
    }
    last = out.size();
    out.insert(out.end(), run, run + n + extra);
  }
  words.swap(out);
}

inline void rename_words(const std::vector<Word>& in, std::vector<Word>& out, const StateLayout& layout,
                         const std::vector<Word>& map, uint32_t extra) {
  out.resize(in.size());
  const uint32_t nf = layout.num_fixed;
  for (size_t i = 0; i < in.size();) {
    const uint32_t n = layout.fact_words(in[i]);
    out[i] = in[i];
    for (uint32_t j = 1; j < n; ++j) {
      const Word c = in[i + j];
      // Ids outside the map stay as they are.
      out[i + j] = (c >= nf && c - nf < map.size()) ? map[c - nf] : c;
    }
    for (uint32_t j = 0; j < extra; ++j) out[i + n + j] = in[i + n + j];
    i += n + extra;
  }
}

// Counts the facts (entries) of one DB (channel) run list.
inline uint32_t count_runs(const std::vector<Word>& words, const StateLayout& layout, uint32_t extra) {
  uint32_t n = 0;
  for (size_t i = 0; i < words.size(); i += layout.fact_words(words[i]) + extra) ++n;
  return n;
}

}  // namespace

// ---- encode / decode ------------------------------------------------------------

void encode(const GlobalState& s, const StateLayout& layout, std::string& out) {
  assert(s.dbs.size() == layout.num_nodes && s.channels.size() == layout.num_arcs);
  size_t words = s.dbs.size() + s.channels.size();
  for (const auto& db : s.dbs) words += db.size();
  for (const auto& ch : s.channels) words += ch.size();
  out.resize(words * 5);  // upper bound: 5 bytes per varint
  char* p = out.data();
  for (const auto& db : s.dbs) {
    p = put_varint(p, count_runs(db, layout, 0));
    for (Word w : db) p = put_varint(p, w);
  }
  for (const auto& ch : s.channels) {
    p = put_varint(p, count_runs(ch, layout, 1));
    for (Word w : ch) p = put_varint(p, w);
  }
  out.resize(static_cast<size_t>(p - out.data()));
}

namespace {

// One part (a DB, extra = 0, or a channel, extra = 1) in the encode() format.
inline char* put_part(char* p, const std::vector<Word>& words, const StateLayout& layout, uint32_t extra) {
  p = put_varint(p, count_runs(words, layout, extra));
  for (Word w : words) p = put_varint(p, w);
  return p;
}

}  // namespace

std::vector<std::vector<Word>> sorted_runs(const std::vector<Word>& words, size_t lead, const StateLayout& layout) {
  std::vector<std::vector<Word>> out;
  for (size_t i = 0; i < words.size();) {
    size_t len = lead + layout.fact_words(words[i + lead]);
    out.emplace_back(words.begin() + i, words.begin() + i + len);
    i += len;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void encode_segmented(const GlobalState& s, const StateLayout& layout, SegmentedEncoding& out) {
  // One pass: each part written in place, its offset noted (the bytes are
  // encode()'s).
  assert(s.dbs.size() == layout.num_nodes && s.channels.size() == layout.num_arcs);
  const uint32_t parts = layout.num_nodes + layout.num_arcs;
  size_t words = parts;
  for (const auto& db : s.dbs) words += db.size();
  for (const auto& ch : s.channels) words += ch.size();
  out.bytes.resize(words * 5);  // upper bound: 5 bytes per varint
  out.begin.resize(parts + 1);
  char* const start = out.bytes.data();
  char* p = start;
  for (uint32_t part = 0; part < parts; ++part) {
    out.begin[part] = static_cast<uint32_t>(p - start);
    const bool node = part < layout.num_nodes;
    p = put_part(p, part_words(s, layout.num_nodes, part), layout, node ? 0 : 1);
  }
  out.begin[parts] = static_cast<uint32_t>(p - start);
  out.bytes.resize(static_cast<size_t>(p - start));
}

void encode_patched(const SegmentedEncoding& base, const GlobalState& s, const StateLayout& layout,
                    const uint32_t* changed, size_t num_changed, std::string& out) {
  size_t extra = 0;
  for (size_t i = 0; i < num_changed; ++i) {
    uint32_t part = changed[i];
    extra += encode_part_bound(s, layout, part);
  }
  out.resize(base.bytes.size() + extra);
  char* p = out.data();
  const char* src = base.bytes.data();
  uint32_t copied_to = 0;  // base offset copied so far
  for (size_t i = 0; i < num_changed; ++i) {
    uint32_t part = changed[i];
    if (i > 0 && part == changed[i - 1]) continue;
    std::memcpy(p, src + copied_to, base.begin[part] - copied_to);
    p += base.begin[part] - copied_to;
    p = part < layout.num_nodes ? put_part(p, s.dbs[part], layout, 0)
                                : put_part(p, s.channels[part - layout.num_nodes], layout, 1);
    copied_to = base.begin[part + 1];
  }
  std::memcpy(p, src + copied_to, base.bytes.size() - copied_to);
  p += base.bytes.size() - copied_to;
  out.resize(static_cast<size_t>(p - out.data()));
}

void encode_part(const GlobalState& s, const StateLayout& layout, uint32_t part, std::string& out) {
  const bool node = part < layout.num_nodes;
  const auto& words = part_words(s, layout.num_nodes, part);
  out.resize(5 * (words.size() + 1));
  out.resize(static_cast<size_t>(put_part(out.data(), words, layout, node ? 0 : 1) - out.data()));
}

char* encode_part(const GlobalState& s, const StateLayout& layout, uint32_t part, char* out) {
  const bool node = part < layout.num_nodes;
  return put_part(out, part_words(s, layout.num_nodes, part), layout, node ? 0 : 1);
}

std::string encode(const GlobalState& s, const StateLayout& layout) {
  std::string out;
  encode(s, layout, out);
  return out;
}

namespace {

// Decodes `count` runs of fact + `extra` words into `words`, checking that
// the facts are strictly increasing and trailing counts are >= 1.
bool decode_runs(const unsigned char*& p, const unsigned char* end, const StateLayout& layout, uint32_t extra,
                 std::vector<Word>& words) {
  uint32_t count = 0;
  if (!get_varint(p, end, count)) return false;
  if (count > static_cast<size_t>(end - p)) return false;  // every run takes >= 1 byte
  words.clear();
  size_t prev = 0;
  for (uint32_t k = 0; k < count; ++k) {
    const size_t start = words.size();
    uint32_t pred = 0;
    if (!get_varint(p, end, pred) || pred >= layout.arity.size()) return false;
    const uint32_t n = layout.fact_words(pred) + extra;
    words.push_back(pred);
    for (uint32_t j = 1; j < n; ++j) {
      uint32_t w = 0;
      if (!get_varint(p, end, w)) return false;
      words.push_back(w);
    }
    if (extra && words.back() == 0) return false;
    if (k > 0 && compare_fact(&words[prev], &words[start], layout) >= 0) return false;
    prev = start;
  }
  return true;
}

}  // namespace

bool decode(std::string_view bytes, const StateLayout& layout, GlobalState& out) {
  auto p = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto end = p + bytes.size();
  out.dbs.resize(layout.num_nodes);
  out.channels.resize(layout.num_arcs);
  for (auto& db : out.dbs)
    if (!decode_runs(p, end, layout, 0, db)) return false;
  for (auto& ch : out.channels)
    if (!decode_runs(p, end, layout, 1, ch)) return false;
  return p == end;
}

bool decode_part(std::string_view bytes, const StateLayout& layout, uint32_t part, std::vector<Word>& words) {
  auto p = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto end = p + bytes.size();
  return decode_runs(p, end, layout, part < layout.num_nodes ? 0 : 1, words) && p == end;
}

// ---- normalisation, fresh constants, renaming -----------------------------------

void normalize_db(std::vector<Word>& db, const StateLayout& layout) { sort_runs(db, layout, 0); }
void normalize_channel(std::vector<Word>& channel, const StateLayout& layout) { sort_runs(channel, layout, 1); }

namespace {
template <class F>
void for_each_arg(const std::vector<Word>& words, const StateLayout& layout, uint32_t extra, F&& f) {
  for (size_t i = 0; i < words.size();) {
    const uint32_t n = layout.fact_words(words[i]);
    for (uint32_t j = 1; j < n; ++j) f(words[i + j]);
    i += n + extra;
  }
}
}  // namespace

StateSizes& StateSizes::operator|=(const StateSizes& o) {
  db_facts = std::max(db_facts, o.db_facts);
  db_constants = std::max(db_constants, o.db_constants);
  channel_messages = std::max(channel_messages, o.channel_messages);
  return *this;
}

void StateSizes::note_part(const GlobalState& s, const StateLayout& layout, uint32_t p, std::vector<Word>& scratch) {
  const std::vector<Word>& words = part_words(s, layout.num_nodes, p);
  if (p >= layout.num_nodes) {  // [pred, args..., count] runs
    uint64_t total = 0;
    for (size_t i = 0; i < words.size(); i += layout.fact_words(words[i]) + 1) total += words[i + layout.fact_words(words[i])];
    channel_messages = std::max(channel_messages, static_cast<uint32_t>(std::min<uint64_t>(total, UINT32_MAX)));
    return;
  }
  uint32_t facts = 0;
  size_t occurrences = 0;
  for (size_t i = 0; i < words.size(); i += layout.fact_words(words[i])) {
    ++facts;
    occurrences += layout.arity[words[i]];
  }
  db_facts = std::max(db_facts, facts);
  if (occurrences <= db_constants) return;  // it cannot hold more distinct ones
  scratch.clear();
  for (size_t i = 0; i < words.size(); i += layout.fact_words(words[i]))
    scratch.insert(scratch.end(), words.begin() + static_cast<std::ptrdiff_t>(i + 1),
                   words.begin() + static_cast<std::ptrdiff_t>(i + layout.fact_words(words[i])));
  std::sort(scratch.begin(), scratch.end());
  db_constants = std::max(db_constants, static_cast<uint32_t>(std::unique(scratch.begin(), scratch.end()) - scratch.begin()));
}

void StateSizes::note(const GlobalState& s, const StateLayout& layout, std::vector<Word>& scratch) {
  for (uint32_t p = 0; p < layout.num_nodes + layout.num_arcs; ++p) note_part(s, layout, p, scratch);
}

void fresh_constants(const GlobalState& s, const StateLayout& layout, std::vector<Word>& out) {
  out.clear();
  auto add = [&](Word c) {
    if (c >= layout.num_fixed) out.push_back(c);
  };
  for (const auto& db : s.dbs) for_each_arg(db, layout, 0, add);
  for (const auto& ch : s.channels) for_each_arg(ch, layout, 1, add);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

std::vector<Word> fresh_constants(const GlobalState& s, const StateLayout& layout) {
  std::vector<Word> out;
  fresh_constants(s, layout, out);
  return out;
}

void rename(const GlobalState& s, const StateLayout& layout, const std::vector<Word>& map, GlobalState& out) {
  assert(&s != &out);
  out.dbs.resize(s.dbs.size());
  out.channels.resize(s.channels.size());
  for (size_t i = 0; i < s.dbs.size(); ++i) {
    rename_words(s.dbs[i], out.dbs[i], layout, map, 0);
    normalize_db(out.dbs[i], layout);
  }
  for (size_t i = 0; i < s.channels.size(); ++i) {
    rename_words(s.channels[i], out.channels[i], layout, map, 1);
    normalize_channel(out.channels[i], layout);
  }
}

GlobalState rename(const GlobalState& s, const StateLayout& layout, const std::vector<Word>& map) {
  GlobalState out;
  rename(s, layout, map, out);
  return out;
}

}  // namespace ddsmc::hashing
