// Generator::successors edits the expanded state in place (engine/system.hpp):
// each successor is the state with a step's edits, undone after the sink
// call. These check the undo where it is least obvious (a bulk send, which
// normalizes whole channels, onto the very channel the step serves), the
// successors against a copy-and-edit recomputation, and the Expander after
// a sink threw with the state left edited. The random differential tests
// (reference_*_test.cpp) check the restore on every state they expand.
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/successors.hpp"
#include "engine/d2c/system.hpp"
#include "engine/expander.hpp"
#include "hashing/tree_store.hpp"
#include "tests/engine/reference_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;
using hashing::GlobalState;
using hashing::Word;

namespace {

// Every node starts by sending its 24 a-facts to its neighbour and to
// itself: 48 messages of 3 words, over send_messages' bulk threshold, half
// of them on the self-loop whose `start` the step serves.
std::string bulk_model() {
  std::string init;
  for (int i = 1; i <= 24; ++i) init += "a(" + std::to_string(i) + "). ";
  return "state a/1, got/1.\ntransport m/1.\n"
         "a(X) if prev a(X).\ngot(X) if prev got(X).\ngot(X) if m(X)@_.\n"
         "m(X)@N if start@_, prev a(X), neighbor(N).\n"
         "m(X)@Me if start@_, prev a(X), my_name(Me).\n"
         "init { " +
         init + "}\n";
}

// The successor a step's detail describes, recomputed on a copy as replay does.
GlobalState recompute(const engine::CompiledModel& cm, const GlobalState& s, const engine::StepDetail& d) {
  GlobalState t = s;
  if (d.arc == engine::kIdleArc) return t;
  const model::Arc arc = cm.model->network.arc(d.arc);
  t.dbs[arc.dst] = d.result->db;
  engine::channel_remove(t.channels[d.arc], d.payload, cm.layout);
  std::vector<uint32_t> touched;
  engine::send_messages(t, arc.dst, d.result->sent, cm, touched);
  return t;
}

// Expands up to `limit` states breadth-first with `gen`, checking each
// successor against recompute() and the state against its copy afterwards.
size_t check_in_place(const engine::CompiledModel& cm, engine::SuccessorGenerator& gen, size_t limit) {
  std::set<GlobalState, decltype([](const GlobalState& a, const GlobalState& b) {
                          return std::tie(a.dbs, a.channels) < std::tie(b.dbs, b.channels);
                        })>
      seen;
  std::deque<GlobalState> queue{engine::initial_state(cm)};
  seen.insert(queue.front());
  size_t expanded = 0;
  while (!queue.empty() && expanded < limit) {
    const GlobalState s = queue.front();
    queue.pop_front();
    ++expanded;
    GlobalState edited = s;
    gen.successors(edited, [&](const engine::EdgeLabel&, const GlobalState& succ, const engine::StepDetail& d) {
      EXPECT_TRUE(succ == recompute(cm, s, d)) << "a successor differs from its recomputation, on arc " << d.arc;
      if (seen.insert(succ).second) queue.push_back(succ);
    });
    EXPECT_TRUE(edited == s) << "successors() must leave the state as it found it";
    if (edited != s) break;
  }
  return expanded;
}

// A model and its compiled form, which points into it.
struct Loaded {
  std::unique_ptr<model::Model> model;
  engine::CompiledModel cm;
};

Loaded compile_text(const std::string& text, const std::string& network) {
  model::Overrides ov;
  ov.network_spec = network;
  std::string errors;
  auto m = reftest::load_text(text, ov, &errors);
  if (!m) throw std::runtime_error("the model does not load: " + errors);
  Loaded out{std::make_unique<model::Model>(std::move(*m)), {}};
  out.cm = engine::compile(*out.model);
  return out;
}

}  // namespace

TEST(SuccessorInPlace, BulkSendOntoTheServedChannelIsUndone) {
  Loaded loaded = compile_text(bulk_model(), "line:2");
  const engine::CompiledModel& cm = loaded.cm;
  engine::SuccessorGenerator gen(cm);
  EXPECT_EQ(check_in_place(cm, gen, 300), 300u);
}

TEST(SuccessorInPlace, ExamplesAreUndone) {
  for (const char* name : {"flooding", "leader_election", "relay", "spanning_tree", "retry_ack"}) {
    SCOPED_TRACE(name);
    Loaded loaded =
        compile_text(test::read_text(test::source_path(std::string("examples/") + name + ".d2c")), "ring:3");
    const engine::CompiledModel& cm = loaded.cm;
    engine::SuccessorGenerator gen(cm);
    check_in_place(cm, gen, 200);
  }
}

// A sink that throws leaves the Expander's decoded state edited; the next
// expansion, of the same state or another, must still be exact.
TEST(ExpanderInPlace, ExpansionAfterAThrowingSinkIsExact) {
  Loaded loaded = compile_text(test::read_text(test::source_path("examples/flooding.d2c")), "ring:3");
  const engine::CompiledModel& cm = loaded.cm;
  engine::D2cSystem system(cm);
  const uint32_t parts = cm.layout.num_nodes + cm.layout.num_arcs;
  hashing::TreeStore store(parts);
  engine::Expander ex(system, engine::OnBound::Stop, store);
  using Succ = std::pair<uint32_t, uint32_t>;  // root, arc
  auto expand = [&](uint32_t root) {
    std::vector<Succ> out;
    ex.expand(root, [&](const engine::Candidate& c) { out.emplace_back(c.root, c.label.arc); });
    return out;
  };
  // The first states breadth-first, and their successors.
  std::vector<uint32_t> roots{ex.intern(system.initial_state())};
  std::vector<std::vector<Succ>> want;
  std::set<uint32_t> seen(roots.begin(), roots.end());
  for (size_t i = 0; i < roots.size() && i < 40; ++i) {
    want.push_back(expand(roots[i]));
    for (auto [r, arc] : want.back())
      if (seen.insert(r).second) roots.push_back(r);
  }
  EXPECT_EQ(want.size(), 40u);
  struct Stop {};
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_FALSE(want[i].empty());
    EXPECT_THROW(ex.expand(roots[i], [](const engine::Candidate&) { throw Stop{}; }), Stop);
    EXPECT_EQ(expand(roots[i]), want[i]) << "the same state again, state " << i;
    EXPECT_THROW(ex.expand(roots[i], [](const engine::Candidate&) { throw Stop{}; }), Stop);
    const size_t next = (i + 1) % want.size();
    EXPECT_EQ(expand(roots[next]), want[next]) << "another state, state " << next;
  }
}
