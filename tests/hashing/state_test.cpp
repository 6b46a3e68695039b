// Tests of hashing/state: the byte encoding, its strict decoder, and the
// normalisation and renaming helpers.
#include "hashing/state.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "tests/hashing/random_states.hpp"

namespace ddsmc::hashing {
namespace {

using test::random_layout;
using test::random_state;
using test::Rng;
using test::uniform;

// One node, one arc; p/0, q/2; constants 0..2 fixed.
StateLayout small_layout() {
  StateLayout l;
  l.arity = {0, 2};
  l.num_nodes = 1;
  l.num_arcs = 1;
  l.num_fixed = 3;
  return l;
}

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

TEST(StateEncoding, PinnedFormat) {
  const StateLayout l = small_layout();
  GlobalState s{{{1, 5, 200}}, {{0, 2}}};
  // node 0: 1 fact q(5, 200); arc 0: 1 entry p x2. 200 = 0xC8 0x01 in LEB128.
  EXPECT_EQ(encode(s, l), bytes({1, 1, 5, 0xC8, 0x01, 1, 0, 2}));
  GlobalState empty{{{}}, {{}}};
  EXPECT_EQ(encode(empty, l), bytes({0, 0}));
}

TEST(StateEncoding, RoundTripRandomStates) {
  Rng rng(1);
  for (int iter = 0; iter < 3000; ++iter) {
    const StateLayout layout = random_layout(rng);
    test::StateLimits lim;
    lim.fresh_stride = iter % 3 == 0 ? 1u << 20 : 1;  // large ids: multi-byte varints
    const GlobalState s = random_state(rng, layout, lim);
    const std::string b = encode(s, layout);
    GlobalState back;
    ASSERT_TRUE(decode(b, layout, back));
    EXPECT_EQ(back, s);
    std::string again;
    encode(back, layout, again);
    EXPECT_EQ(again, b);
  }
}

TEST(StateEncoding, ExtremeWords) {
  const StateLayout l = small_layout();
  GlobalState s{{{1, 0, 0xffffffffu}}, {{1, 0x7fu, 0x80u, 0xffffffffu}}};
  GlobalState back;
  ASSERT_TRUE(decode(encode(s, l), l, back));
  EXPECT_EQ(back, s);
}

TEST(StateDecoding, RejectsEveryTruncationAndExtension) {
  Rng rng(2);
  for (int iter = 0; iter < 300; ++iter) {
    const StateLayout layout = random_layout(rng);
    const std::string b = encode(random_state(rng, layout), layout);
    GlobalState out;
    for (size_t n = 0; n < b.size(); ++n) EXPECT_FALSE(decode(std::string_view(b).substr(0, n), layout, out));
    EXPECT_FALSE(decode(b + '\0', layout, out));
  }
}

TEST(StateDecoding, RejectsMalformedInput) {
  const StateLayout l = small_layout();
  GlobalState out;
  EXPECT_TRUE(decode(bytes({1, 1, 5, 6, 1, 0, 2}), l, out));
  EXPECT_FALSE(decode(bytes({1, 2, 5, 6, 1, 0, 2}), l, out));           // pred id 2 out of range
  EXPECT_FALSE(decode(bytes({1, 1, 5, 6, 1, 0, 0}), l, out));           // count 0
  EXPECT_FALSE(decode(bytes({2, 1, 5, 6, 1, 4, 4, 0}), l, out));        // DB facts not increasing
  EXPECT_FALSE(decode(bytes({2, 1, 5, 6, 1, 5, 6, 0}), l, out));        // duplicate DB fact
  EXPECT_TRUE(decode(bytes({2, 1, 5, 6, 1, 5, 7, 0}), l, out));
  EXPECT_FALSE(decode(bytes({0, 2, 0, 1, 0, 1}), l, out));              // channel entry repeated
  EXPECT_FALSE(decode(bytes({1, 1, 0x85, 0x00, 6, 0}), l, out));        // overlong varint
  EXPECT_FALSE(decode(bytes({1, 1, 0xff, 0xff, 0xff, 0xff, 0x1f, 6, 0}), l, out));  // > 32 bits
  EXPECT_TRUE(decode(bytes({1, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 6, 0}), l, out));
  EXPECT_FALSE(decode(bytes({1, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 6, 0}), l, out));  // 6-byte varint
  EXPECT_FALSE(decode(bytes({0xff, 0xff, 0xff, 0xff, 0x0f}), l, out));  // huge count, no data
  EXPECT_FALSE(decode("", l, out));
}

// Random byte strings and mutated encodings: never crash (the sanitizers
// watch), and whatever is accepted is a normalised state encoding to the
// same bytes.
TEST(StateDecoding, FuzzNeverCrashesAndAcceptsOnlyCanonicalBytes) {
  Rng rng(3);
  size_t accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    test::LayoutLimits ll;
    ll.max_nodes = 2;
    ll.max_arcs = 2;
    const StateLayout layout = random_layout(rng, ll);
    std::string b;
    if (iter % 2 == 0) {
      for (uint32_t n = uniform(rng, 0, 24); n > 0; --n) b.push_back(static_cast<char>(uniform(rng, 0, 255)));
    } else {
      b = encode(random_state(rng, layout), layout);
      for (uint32_t n = uniform(rng, 1, 3); n > 0; --n) {
        const uint32_t at = b.empty() ? 0 : uniform(rng, 0, static_cast<uint32_t>(b.size()) - 1);
        switch (uniform(rng, 0, 2)) {
          case 0: if (!b.empty()) b[at] = static_cast<char>(uniform(rng, 0, 255)); break;
          case 1: b.insert(b.begin() + at, static_cast<char>(uniform(rng, 0, 255))); break;
          default: if (!b.empty()) b.erase(b.begin() + at); break;
        }
      }
    }
    GlobalState out;
    if (!decode(b, layout, out)) continue;
    ++accepted;
    EXPECT_EQ(encode(out, layout), b);
    GlobalState norm = out;
    for (auto& db : norm.dbs) normalize_db(db, layout);
    for (auto& ch : norm.channels) normalize_channel(ch, layout);
    EXPECT_EQ(norm, out);
  }
  EXPECT_GT(accepted, 100u);  // the loop does reach the accepting paths
}

// Facts of a DB as a set of word vectors, and a channel as a multiset.
std::set<std::vector<Word>> fact_set(const std::vector<Word>& db, const StateLayout& l) {
  std::set<std::vector<Word>> out;
  for (size_t i = 0; i < db.size(); i += l.fact_words(db[i]))
    out.insert(std::vector<Word>(db.begin() + i, db.begin() + i + l.fact_words(db[i])));
  return out;
}
std::map<std::vector<Word>, uint64_t> entry_counts(const std::vector<Word>& ch, const StateLayout& l) {
  std::map<std::vector<Word>, uint64_t> out;
  for (size_t i = 0; i < ch.size(); i += l.fact_words(ch[i]) + 1)
    out[std::vector<Word>(ch.begin() + i, ch.begin() + i + l.fact_words(ch[i]))] += ch[i + l.fact_words(ch[i])];
  return out;
}

TEST(StateNormalize, SortsDedupesAndMerges) {
  Rng rng(4);
  for (int iter = 0; iter < 2000; ++iter) {
    const StateLayout l = random_layout(rng);
    std::vector<Word> db, ch;
    test::StateLimits lim;
    for (uint32_t n = uniform(rng, 0, 10); n > 0; --n) test::random_fact(rng, l, lim, 3, db);
    for (uint32_t n = uniform(rng, 0, 10); n > 0; --n) {
      test::random_fact(rng, l, lim, 3, ch);
      ch.push_back(uniform(rng, 1, 4));
    }
    const auto facts = fact_set(db, l);
    const auto counts = entry_counts(ch, l);
    normalize_db(db, l);
    normalize_channel(ch, l);
    EXPECT_EQ(fact_set(db, l), facts);
    EXPECT_EQ(entry_counts(ch, l), counts);
    // Sorted strictly: exactly one run per distinct fact / entry, in order.
    std::vector<std::vector<Word>> runs;
    for (size_t i = 0; i < db.size(); i += l.fact_words(db[i]))
      runs.emplace_back(db.begin() + i, db.begin() + i + l.fact_words(db[i]));
    EXPECT_TRUE(std::is_sorted(runs.begin(), runs.end()));
    EXPECT_EQ(runs.size(), facts.size());
    size_t entries = 0;
    for (size_t i = 0; i < ch.size(); i += l.fact_words(ch[i]) + 1) ++entries;
    EXPECT_EQ(entries, counts.size());
    GlobalState s{{db}, {ch}};
    StateLayout one = l;
    one.num_nodes = one.num_arcs = 1;
    GlobalState back;
    EXPECT_TRUE(decode(encode(s, one), one, back));  // the decoder agrees it is normal
    // Idempotent.
    auto db2 = db, ch2 = ch;
    normalize_db(db2, l);
    normalize_channel(ch2, l);
    EXPECT_EQ(db2, db);
    EXPECT_EQ(ch2, ch);
  }
}

TEST(StateFresh, FreshConstantsAreTheIdsAboveNumFixed) {
  StateLayout l = small_layout();
  GlobalState s{{{1, 0, 9, 1, 4, 2}}, {{1, 9, 3, 2}}};
  EXPECT_EQ(fresh_constants(s, l), (std::vector<Word>{3, 4, 9}));  // the count 2 is not a constant
  l.num_fixed = 5;
  EXPECT_EQ(fresh_constants(s, l), (std::vector<Word>{9}));
}

TEST(StateRename, IdentityInverseAndComposition) {
  Rng rng(5);
  for (int iter = 0; iter < 2000; ++iter) {
    const StateLayout l = random_layout(rng);
    const GlobalState s = random_state(rng, l);
    const auto fresh = fresh_constants(s, l);
    EXPECT_EQ(rename(s, l, {}), s);  // empty map: nothing moves
    const std::vector<Word> p = test::random_renaming(rng, s, l, 1000);
    const GlobalState t = rename(s, l, p);
    EXPECT_EQ(test::fact_count(t, l), test::fact_count(s, l));
    // Inverse of p brings s back.
    std::vector<Word> inv;
    for (Word c : fresh) {
      const Word img = p[c - l.num_fixed];
      if (inv.size() <= img - l.num_fixed) inv.resize(img - l.num_fixed + 1, 0xffffffffu);
      inv[img - l.num_fixed] = c;
    }
    EXPECT_EQ(rename(t, l, inv), s);
    // q after p equals (q o p).
    const std::vector<Word> q = test::random_renaming(rng, t, l, 50);
    std::vector<Word> qp(p.size(), 0xffffffffu);
    for (Word c : fresh) qp[c - l.num_fixed] = q[p[c - l.num_fixed] - l.num_fixed];
    GlobalState out;
    rename(t, l, q, out);
    EXPECT_EQ(out, rename(s, l, qp));
    // The result is normal.
    GlobalState back;
    EXPECT_TRUE(decode(encode(out, l), l, back));
    EXPECT_EQ(back, out);
  }
}

TEST(StateRename, NonInjectiveMapMergesFacts) {
  const StateLayout l = small_layout();
  GlobalState s{{{1, 3, 0, 1, 4, 0}}, {{1, 3, 3, 1, 1, 4, 4, 2}}};
  const GlobalState t = rename(s, l, {5, 5});
  EXPECT_EQ(t, (GlobalState{{{1, 5, 0}}, {{1, 5, 5, 3}}}));
}

}  // namespace
}  // namespace ddsmc::hashing
