// A global state as plain data (docs/reference.md §3.1): every node's DB and every
// arc's channel. Built-in facts (my_name, neighbor) never change, so they are
// not stored. Constants are integer ids: ids below `num_fixed` are fixed
// (node names, program and init constants), the others are fresh data and
// may be renamed (docs/reference.md §3.7).
//
// This header knows nothing of D2C: it needs only each predicate's arity.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ddsmc::hashing {

using Word = uint32_t;

struct StateLayout {
  std::vector<uint32_t> arity;  // indexed by predicate id
  uint32_t num_nodes = 0;
  uint32_t num_arcs = 0;
  uint32_t num_fixed = 0;  // constant ids >= num_fixed are fresh (renamable)
  // Per arc, the node it leaves (may be empty: unknown). Only a hint, for
  // laying out state stores: steps of a node change its DB and its
  // outgoing channels together.
  std::vector<uint32_t> arc_from;
  uint32_t fact_words(Word pred) const { return 1 + arity[pred]; }
};

// A fact is the run of words [pred, arg_1, ..., arg_arity]. Facts compare
// lexicographically as word runs.
struct GlobalState {
  // Per node: its facts concatenated, sorted, without duplicates.
  std::vector<std::vector<Word>> dbs;
  // Per arc: [pred, args..., count] runs sorted by fact, every count >= 1.
  std::vector<std::vector<Word>> channels;
  friend bool operator==(const GlobalState&, const GlobalState&) = default;
};

// The words of part p of s: node p's DB, or, from num_nodes on, arc
// p - num_nodes's channel (the parts of SegmentedEncoding, in that order).
inline const std::vector<Word>& part_words(const GlobalState& s, uint32_t num_nodes, uint32_t p) {
  return p < num_nodes ? s.dbs[p] : s.channels[p - num_nodes];
}
inline std::vector<Word>& part_words(GlobalState& s, uint32_t num_nodes, uint32_t p) {
  return p < num_nodes ? s.dbs[p] : s.channels[p - num_nodes];
}

// One encoder and one decoder for everything that stores, hashes or sends a
// state: LEB128 varints of the words above, nodes first, then arcs, each
// prefixed by its fact (or entry) count.
void encode(const GlobalState& s, const StateLayout& layout, std::string& out);
std::string encode(const GlobalState& s, const StateLayout& layout);
// The encoding split at its parts (node DBs, then channels: part n is node
// n, part num_nodes + a is arc a), so that a successor that differs in a few
// parts is encoded by copying the rest: the hot path of exploration.
struct SegmentedEncoding {
  std::string bytes;            // == encode(s)
  std::vector<uint32_t> begin;  // byte offset of each part, plus the end
};
void encode_segmented(const GlobalState& s, const StateLayout& layout, SegmentedEncoding& out);
// out = encode(s), given base = the segmented encoding of a state that
// differs from s only in the `changed` parts (ascending; repeats allowed).
void encode_patched(const SegmentedEncoding& base, const GlobalState& s, const StateLayout& layout,
                    const uint32_t* changed, size_t num_changed, std::string& out);
// out = the bytes of one part of encode(s) (s.begin[part] .. s.begin[part + 1]
// of its segmented encoding).
void encode_part(const GlobalState& s, const StateLayout& layout, uint32_t part, std::string& out);
// The same bytes written at `out`, which has room for encode_part_bound();
// returns the end. For the hot path: no string, nothing zero-filled.
inline size_t encode_part_bound(const GlobalState& s, const StateLayout& layout, uint32_t part) {
  return 5 * (part_words(s, layout.num_nodes, part).size() + 1);
}
char* encode_part(const GlobalState& s, const StateLayout& layout, uint32_t part, char* out);

// Decodes bytes produced by encode(); returns false on malformed input
// (truncated, trailing bytes, overlong varints, predicate ids out of range,
// unsorted or duplicate facts, zero counts). Accepted bytes are exactly
// encode(out).
bool decode(std::string_view bytes, const StateLayout& layout, GlobalState& out);
// Decodes the bytes of one part (as encode_part() writes them) into `words`
// (s.dbs[part] or s.channels[part - num_nodes]); false on malformed input,
// as decode().
bool decode_part(std::string_view bytes, const StateLayout& layout, uint32_t part, std::vector<Word>& words);

// Sorts and deduplicates a DB / sorts and merges a channel given in any order
// (helpers for whoever builds states and for renaming).
void normalize_db(std::vector<Word>& db, const StateLayout& layout);
void normalize_channel(std::vector<Word>& channel, const StateLayout& layout);

// The runs of a word list ([lead words..., pred, args...]*, `lead` words
// before each fact) as separate vectors, sorted and without duplicates.
std::vector<std::vector<Word>> sorted_runs(const std::vector<Word>& words, size_t lead, const StateLayout& layout);

// The largest sizes met over a set of states, for comparing a run with its
// declared bounds (docs/reference.md §5.5): facts in one node's DB, distinct
// constants in one node's DB (what the state bound limits), and messages in
// one channel, counted with repetition (what the channel bound limits).
// Merging is a maximum, so the figures do not depend on the order states
// are met in, nor on how many times.
struct StateSizes {
  uint32_t db_facts = 0, db_constants = 0, channel_messages = 0;
  StateSizes& operator|=(const StateSizes& o);
  friend bool operator==(const StateSizes&, const StateSizes&) = default;
  // Part p of s (a node's DB below num_nodes, else a channel). `scratch`
  // is reused; the distinct constants are counted only when the DB has more
  // constant occurrences than the largest count so far.
  void note_part(const GlobalState& s, const StateLayout& layout, uint32_t p, std::vector<Word>& scratch);
  void note(const GlobalState& s, const StateLayout& layout, std::vector<Word>& scratch);
};

// The distinct fresh constants of a state, ascending.
std::vector<Word> fresh_constants(const GlobalState& s, const StateLayout& layout);
// The same into `out`, reusing its buffer.
void fresh_constants(const GlobalState& s, const StateLayout& layout, std::vector<Word>& out);

// Applies a renaming of fresh constants (map[c - num_fixed] is the new id of
// fresh constant c; fixed constants, and fresh ids beyond the map, are
// untouched) and re-normalizes.
GlobalState rename(const GlobalState& s, const StateLayout& layout, const std::vector<Word>& map);
// The same into `out` (which must not be `s`), reusing its buffers.
void rename(const GlobalState& s, const StateLayout& layout, const std::vector<Word>& map, GlobalState& out);

}  // namespace ddsmc::hashing
