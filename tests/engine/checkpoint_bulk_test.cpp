// The bulk resume of checkpoint format 4 (engine/checkpoint_body.hpp): a
// part read back holds the store's tree as it was, and its visited set
// finds every state under its id (interning a state's encoding again gives
// its root, and the root its id); a part whose tree section is damaged (a
// pair naming no node, a root past the store, two states with one root, a
// leaf that does not decode), with its checksum made to match, is refused
// with CheckpointError, never read into a wrong graph.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/checkpoint.hpp"
#include "engine/checkpoint_io.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/system.hpp"
#include "model/load.hpp"
#include "tests/test_support.hpp"

namespace ddsmc {
namespace {

struct Flooding {
  model::Model m;  // (the compiled model refers to it)
  engine::CompiledModel cm;
  engine::D2cSystem system;
  explicit Flooding(model::Model model) : m(std::move(model)), cm(engine::compile(m)), system(cm) {}
};

model::Model flooding_model() {
  model::Diagnostics diag;
  model::Overrides ov;
  ov.network_spec = "ring:4";
  auto m = model::load_model(test::source_path("examples/flooding.d2c"), ov, diag);
  if (!m) throw std::runtime_error("flooding.d2c does not load");
  return std::move(*m);
}

// Explores flooding on ring:4, writing a checkpoint at the last slice
// boundary (the most states) into dir; returns the whole exploration.
engine::ExploreResult explore_and_checkpoint(const engine::System& system, const std::string& dir) {
  engine::ExploreOptions eo;
  engine::CheckpointMeta last;
  eo.checkpoint_due = [] { return true; };
  eo.checkpoint = [&](const engine::ExplorePoint& p) {
    last = engine::checkpoint_meta(p);
    last.identity = "bulk";
    last.generation = 7;
    engine::write_checkpoint_part(dir, 0, p, last);
  };
  engine::ExploreResult r = engine::explore(system, eo);
  engine::write_checkpoint_manifest(dir, last);
  return r;
}

uint64_t varint_at(const std::string& s, size_t& at) {
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    const auto b = static_cast<uint8_t>(s.at(at++));
    v |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) return v;
  }
}

std::string varint(uint64_t v) {
  std::string out;
  do {
    out.push_back(static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
    v >>= 7;
  } while (v);
  return out;
}

// Where a part's sections begin (the file's content, its checksum cut off).
struct Sections {
  size_t leaves = 0;    // the first leaf's record
  size_t nodes = 0;     // the first node's pair
  uint64_t nodes_n = 0;
  size_t roots = 0;     // the first state's root
};

Sections sections(const std::string& content, uint64_t states) {
  Sections s;
  uint64_t header = 0;
  std::memcpy(&header, content.data() + 12, 8);
  size_t at = 20 + header;
  for (uint64_t i = 0; i < states; ++i) varint_at(content, at);  // the global ids
  varint_at(content, at);                                         // the tree's part count
  const uint64_t leaves = varint_at(content, at);
  s.leaves = at;
  for (uint64_t i = 0; i < leaves; ++i) {
    const uint64_t n = varint_at(content, at);
    at += n ? n - 1 : 0;
  }
  s.nodes_n = varint_at(content, at);
  s.nodes = at;
  s.roots = at + 8 * s.nodes_n;
  return s;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Rewrites the part with `content` and a checksum that matches it.
void rewrite(const std::string& path, const std::string& content) {
  engine::checkpoint_io::HashedOut out(path);
  out.bytes(content.data(), content.size());
  ASSERT_TRUE(out.finish());
}

class CheckpointBulk : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::temp_dir() + "/bulk-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    one_ = std::make_unique<engine::ExploreResult>(explore_and_checkpoint(f_.system, dir_));
    meta_ = engine::read_checkpoint_manifest(dir_);
    part_ = engine::checkpoint_part_file(dir_, 0, meta_.generation);
    const std::string whole = read_all(part_);
    content_ = whole.substr(0, whole.size() - 8);
    at_ = sections(content_, meta_.states);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Reading the part back throws CheckpointError saying it is corrupted
  // and why.
  void expect_refused(const std::string& content, const char* what, const char* because) {
    rewrite(part_, content);
    engine::ExploreResult r(f_.cm.layout);
    std::vector<engine::StateId> gids;
    try {
      engine::read_checkpoint_part(dir_, 0, meta_, f_.system, r.graph, gids);
      ADD_FAILURE() << what << ": read without an error";
    } catch (const engine::CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("the checkpoint is corrupted (") + because), std::string::npos)
          << what << ": " << e.what();
    }
  }

  Flooding f_{flooding_model()};
  std::string dir_, part_, content_;
  std::unique_ptr<engine::ExploreResult> one_;
  engine::CheckpointMeta meta_;
  Sections at_;
};

TEST_F(CheckpointBulk, TheVisitedSetFindsEveryStateAfterAResume) {
  ASSERT_GT(meta_.states, 100u);
  engine::ExploreResult r(f_.cm.layout);
  std::vector<engine::StateId> gids;
  engine::read_checkpoint_part(dir_, 0, meta_, f_.system, r.graph, gids);
  ASSERT_EQ(r.graph.num_states(), meta_.states);
  const engine::StateGraph& g = r.graph;
  std::vector<uint64_t> mine(g.label_words()), theirs(g.label_words());
  hashing::GlobalState s;
  hashing::SegmentedEncoding enc;
  for (engine::StateId id = 0; id < g.num_states(); ++id) {
    const std::string bytes = g.bytes(id);
    ASSERT_EQ(bytes, one_->graph.bytes(id)) << id;
    g.labels(id, mine.data());
    one_->graph.labels(id, theirs.data());
    ASSERT_EQ(mine, theirs) << id;
    ASSERT_EQ(r.graph.store().find(g.root(id)), id) << id;
    // Interning the encoding again finds the same root, and nothing new.
    const size_t nodes = r.graph.store().tree().nodes();
    ASSERT_TRUE(hashing::decode(bytes, f_.cm.layout, s));
    hashing::encode_segmented(s, f_.cm.layout, enc);
    ASSERT_EQ(r.graph.store().tree().intern(enc), g.root(id)) << id;
    ASSERT_EQ(r.graph.store().tree().nodes(), nodes) << id;
  }
  // No other root is in the visited set.
  size_t bound = 0;
  for (uint32_t root = 0; root < r.graph.store().tree().nodes(); ++root)
    bound += r.graph.store().find(root) != engine::StateStore::kNoRef;
  EXPECT_EQ(bound, g.num_states());
}

TEST_F(CheckpointBulk, APairNamingNoNodeIsRefused) {
  ASSERT_GT(at_.nodes_n, 0u);
  std::string bad = content_;
  size_t at = at_.roots;
  const uint64_t root = varint_at(content_, at);  // the first state's
  ASSERT_LT(root, at_.nodes_n);
  const uint64_t wild = uint64_t{0xfffff} << 32 | 0xfffff;
  std::memcpy(bad.data() + at_.nodes + 8 * root, &wild, 8);
  expect_refused(bad, "a wild pair", "a state's tree is damaged");
}

TEST_F(CheckpointBulk, ARootPastTheStoreIsRefused) {
  size_t at = at_.roots;
  varint_at(content_, at);  // the first state's root
  const std::string bad = content_.substr(0, at_.roots) + varint(at_.nodes_n + 3) + content_.substr(at);
  expect_refused(bad, "a root past the store", "a state's tree is damaged");
}

TEST_F(CheckpointBulk, TwoStatesWithOneRootAreRefused) {
  const uint32_t bytes = (f_.cm.layout.num_nodes + f_.cm.layout.num_arcs + 7) / 8;
  size_t at = at_.roots;
  const uint64_t first = varint_at(content_, at);
  at += bytes;  // its labels
  const size_t second = at;
  varint_at(content_, at);
  const std::string bad = content_.substr(0, second) + varint(first) + content_.substr(at);
  expect_refused(bad, "two states with one root", "two states with one encoding");
}

TEST_F(CheckpointBulk, ALeafThatDoesNotDecodeIsRefused) {
  std::string bad = content_;
  size_t at = at_.leaves;
  const uint64_t n = varint_at(bad, at);  // leaf 0: the initial state's
  ASSERT_GT(n, 1u);
  for (uint64_t k = 0; k + 1 < n; ++k) bad[at + k] = static_cast<char>(0xff);  // a varint that never ends
  expect_refused(bad, "a leaf that does not decode", "a state's tree is damaged");
}

TEST_F(CheckpointBulk, ACountPastTheFileIsRefused) {
  // The node count raised: the pairs run into the roots and the file ends early.
  const size_t count_at = at_.nodes - varint(at_.nodes_n).size();
  const std::string bad = content_.substr(0, count_at) + varint(at_.nodes_n + 1000000) + content_.substr(at_.nodes);
  expect_refused(bad, "a node count past the file", "a length runs past its end");
}

TEST_F(CheckpointBulk, AFormat3CheckpointIsRefusedForItsFormat) {
  std::string old = content_;
  const uint32_t three = 3;
  std::memcpy(old.data() + 8, &three, 4);
  rewrite(part_, old);
  engine::ExploreResult r(f_.cm.layout);
  std::vector<engine::StateId> gids;
  try {
    engine::read_checkpoint_part(dir_, 0, meta_, f_.system, r.graph, gids);
    ADD_FAILURE() << "a format-3 part was read";
  } catch (const engine::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("has checkpoint format 3; this ddsmc reads format " + std::to_string(engine::kCheckpointFormat)), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ddsmc
