// The shortcuts of successor generation give what the plain way gives.
// The expander's: every successor it hands out has the root that interning the whole canonical
// encoding of the generator's successor gives, in the generator's order;
// with fresh constants that covers both the successor interned from the
// parts in which its canonical form differs from the expanded state, and
// the successor that repeats the one before it (whose canonical form is
// not computed again), which the models with input below do produce. The
// generator's: a message no input-reading rule can fire with is served
// with the empty input DB alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/successors.hpp"
#include "engine/d2c/system.hpp"
#include "engine/expander.hpp"
#include "engine/state_store.hpp"
#include "hashing/canonical.hpp"
#include "model/load.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;

namespace {

std::optional<model::Model> example(const std::string& name, const std::string& network) {
  model::Diagnostics diag;
  model::Overrides ov;
  if (!network.empty()) ov.network_spec = network;
  return model::load_model(test::source_path("examples/" + name + ".d2c"), ov, diag);
}

// Interns, growing the store as often as it needs (one thread).
template <class F>
auto growing(engine::StateStore& store, F&& f) {
  for (;;) {
    try {
      return f();
    } catch (const hashing::TreeStoreFull&) {
      store.grow();
    }
  }
}

struct Outcome {
  uint64_t successors = 0;
  hashing::CanonicalStats stats;
};

// Breadth-first over up to `limit` states: each state's candidates against
// the generator's successors, canonicalised and interned whole.
Outcome check_model(const std::string& name, const std::string& network, size_t limit) {
  auto m = example(name, network);
  EXPECT_TRUE(m) << name;
  if (!m) return {};
  const engine::CompiledModel cm = engine::compile(*m);
  const engine::D2cSystem system(cm);
  const auto& layout = system.layout();
  engine::StateStore store(layout);
  engine::Expander expander(system, engine::OnBound::Stop, store.tree());
  auto gen = system.generator();
  hashing::Canonicalizer canon(layout);
  hashing::CanonicalForm form;
  hashing::SegmentedEncoding enc;
  auto whole_root = [&](const hashing::GlobalState& s) {
    const hashing::GlobalState& c = system.may_have_fresh() ? canon.canonical_state(s, form) : s;
    hashing::encode_segmented(c, layout, enc);
    return growing(store, [&] { return store.tree().intern(enc); });
  };

  Outcome out;
  std::vector<uint32_t> seen_roots;
  std::deque<uint32_t> queue;
  const uint32_t init = whole_root(system.initial_state());
  queue.push_back(init);
  seen_roots.push_back(init);
  std::string state_bytes;
  while (!queue.empty() && seen_roots.size() < limit) {
    const uint32_t root = queue.front();
    queue.pop_front();
    // The generator's successors of the state, each interned whole.
    store.tree().materialize(root, state_bytes);
    hashing::GlobalState s;
    EXPECT_TRUE(hashing::decode(state_bytes, layout, s));
    std::vector<uint32_t> want;
    gen->successors(s, [&](const engine::EdgeLabel&, const hashing::GlobalState& succ, const engine::StepInfo&) {
      want.push_back(whole_root(succ));
    });
    // The expander's, in the same order (interning may fill the store:
    // the expansion is then redone, as the explorer redoes its round).
    std::vector<uint32_t> got;
    growing(store, [&] {
      got.clear();
      expander.expand(root, [&](const engine::Candidate& c) {
        got.push_back(c.root);
        // The state handed out is the canonical form of the successor.
        hashing::encode_segmented(*c.state, layout, enc);
        std::string bytes;
        store.tree().materialize(c.root, bytes);
        EXPECT_EQ(enc.bytes, bytes) << name;
      });
      return 0;
    });
    EXPECT_EQ(got, want) << name << " " << network << ", state of root " << root;
    out.successors += got.size();
    for (uint32_t r : got)
      if (std::find(seen_roots.begin(), seen_roots.end(), r) == seen_roots.end()) {
        seen_roots.push_back(r);
        queue.push_back(r);
      }
  }
  out.stats = expander.stats();
  return out;
}

}  // namespace

TEST(Expander, FreshSuccessorsHaveTheRootsOfTheirWholeCanonicalEncodings) {
  for (const auto& [name, network] : std::vector<std::pair<std::string, std::string>>{
           {"ring_broadcast", "ring:3"}, {"relay", "ring:3"}, {"gossip", "ring:3"}, {"retry_ack", ""}}) {
    const Outcome o = check_model(name, network, 400);
    EXPECT_GT(o.successors, 0u) << name;
    EXPECT_EQ(o.stats.calls, o.successors) << name;
  }
  // ring_broadcast polls fresh input at every step: some successors repeat
  // the one before (an input class its step ignores), and are not
  // canonicalised again.
  const Outcome rb = check_model("ring_broadcast", "ring:3", 400);
  EXPECT_GT(rb.stats.fast_path, 0u);
  EXPECT_LT(rb.stats.fast_path, rb.stats.calls);
}

TEST(Expander, PlainSuccessorsHaveTheRootsOfTheirWholeEncodings) {
  for (const auto& [name, network] :
       std::vector<std::pair<std::string, std::string>>{{"flooding", "ring:4"}, {"leader_election", "ring:3"}}) {
    const Outcome o = check_model(name, network, 300);
    EXPECT_GT(o.successors, 0u) << name;
    EXPECT_EQ(o.stats.fast_path, o.stats.calls) << name;
  }
}

namespace {

std::optional<model::Model> model_text(const std::string& text) {
  model::Diagnostics diag;
  return model::load_model_text(text, "test.d2c", {}, diag);
}

const char* kPollRules = R"(
input     data/1.
state     seen/1.
transport poll/0, val/1.
network ring(3).
bounds { input 1. state 2. channel 2. }
poll@M if start@_, my_name(M).
seen(X) if val(X)@_.
)";

}  // namespace

TEST(SuccessorShortcut, InputMattersOnlyToTheMessagesItsReadersName) {
  auto input_matters = [](const std::string& rule) {
    auto m = model_text(std::string(kPollRules) + rule);
    EXPECT_TRUE(m) << rule;
    const engine::CompiledModel cm = engine::compile(*m);
    std::vector<std::string> out;
    for (const char* p : {"start", "poll", "val"})
      if (cm.input_matters[*m->find_pred(p)]) out.push_back(p);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(input_matters("val(X)@N if poll@_, data(X), neighbor(N).\n"), V{"poll"});
  EXPECT_EQ(input_matters("seen(X) if data(X), val(_)@_, not poll@_.\n"), V{"val"});
  // No positive message literal: any step may read the input.
  EXPECT_EQ(input_matters("seen(X) if data(X).\n"), (V{"start", "poll", "val"}));
  EXPECT_EQ(input_matters("seen(X) if data(X), not poll@_.\n"), (V{"start", "poll", "val"}));
  // No rule reads input.
  EXPECT_EQ(input_matters("val(X)@N if poll@_, seen(X), neighbor(N).\n"), V{});
}

TEST(SuccessorShortcut, SkippedInputDbsGiveNoOtherSuccessor) {
  // Every step of every state of ring_broadcast ring:3 (first 300 states):
  // the successors generated are, as a set of (label, successor), those of
  // every input DB of every served message.
  auto m = example("ring_broadcast", "ring:3");
  ASSERT_TRUE(m);
  const engine::CompiledModel cm = engine::compile(*m);
  engine::SuccessorGenerator gen(cm), full(cm);
  const auto& layout = cm.layout;
  std::deque<hashing::GlobalState> queue{engine::initial_state(cm)};
  std::set<std::string> seen{hashing::encode(queue.front(), layout)};
  size_t skipped = 0;
  while (!queue.empty() && seen.size() < 300) {
    hashing::GlobalState s = queue.front();
    queue.pop_front();
    std::set<std::pair<uint32_t, std::string>> got, want;
    size_t generated = 0;
    gen.successors(s, [&](const engine::EdgeLabel& l, const hashing::GlobalState& succ, const engine::StepDetail&) {
      ++generated;
      got.emplace(l.arc, hashing::encode(succ, layout));
    });
    std::vector<hashing::Word> fresh;
    full.state_fresh(s, fresh);
    size_t all = 0;
    for (uint32_t a = 0; a < layout.num_arcs; ++a)
      for (size_t i = 0; i < s.channels[a].size(); i += layout.fact_words(s.channels[a][i]) + 1) {
        const std::vector<hashing::Word> payload(s.channels[a].begin() + i,
                                                 s.channels[a].begin() + i + layout.fact_words(s.channels[a][i]));
        full.inputs().for_each(fresh, [&](const std::vector<hashing::Word>& input) {
          full.steps(s, a, payload.data(), input, [&](const engine::EdgeLabel& l, const hashing::GlobalState& succ,
                                                        const engine::StepDetail&) {
            ++all;
            want.emplace(l.arc, hashing::encode(succ, layout));
          });
        });
      }
    if (want.empty()) continue;  // the idle step alone
    EXPECT_EQ(got, want);
    skipped += all - generated;
    for (const auto& [arc, bytes] : want)
      if (seen.insert(bytes).second) {
        hashing::GlobalState next;
        ASSERT_TRUE(hashing::decode(bytes, layout, next));
        queue.push_back(std::move(next));
      }
  }
  EXPECT_GE(seen.size(), 300u);
  EXPECT_GT(skipped, 0u);  // the shortcut was taken
}
