// Network symmetry against full exploration (issue 23): on symmetric
// networks, every example and random programs of the reference generator
// give the same verdicts (and always-partial's node), the same bound
// stops, at 1 and 2 threads, with --symmetry as without; and every trace
// of the symmetric check lifts to a concrete run that replays with its
// claim.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "engine/analysis.hpp"
#include "engine/bfs_tree.hpp"
#include "engine/d2c/replay.hpp"
#include "engine/d2c/symmetry.hpp"
#include "engine/d2c/system.hpp"
#include "engine/d2c/trace.hpp"
#include "engine/quotient.hpp"
#include "engine/quotient_lasso.hpp"
#include "engine/state_store.hpp"
#include "model/load.hpp"
#include "tests/engine/reference_support.hpp"
#include "tests/engine/replay_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;

namespace {

// A concrete lasso or path lifted and replayed against its claim: "" when it does.
std::string replays(const engine::CompiledModel& cm, const engine::ConcreteLasso& l, bool lasso,
                    const engine::TraceClaim& claim) {
  if (l.states.empty()) return "no concrete lasso";
  std::vector<engine::Hop> hops;
  for (size_t i = 0; i < l.edges.size(); ++i)
    hops.push_back({l.edges[i], lasso && i + 1 == l.edges.size() ? l.loop_start : i + 1});
  auto run = engine::lift(cm, [&](engine::StateId s) { return l.states[s]; }, hops);
  if (!run) return "does not lift";
  const std::optional<size_t> loop = lasso ? std::optional<size_t>(l.loop_start) : std::nullopt;
  engine::ReplayResult r = engine::replay(cm, test::to_replay(*run), loop, nullptr, claim);
  return r.ok() ? "" : "step " + std::to_string(r.steps_ok) + ": " + r.problem;
}

struct Outcome {
  bool complete = false;
  std::string reason;
  std::optional<engine::BoundViolation::Kind> bound;
  uint64_t states = 0;
  std::vector<engine::Verdict> verdicts;  // per property, per fairness (channel, none)
};

// One check: full exploration and analysis, or the quotient under the
// system's group with every trace replayed (failures go to `trouble`).
Outcome check(const model::Model& m, bool symmetric, size_t threads, engine::OnBound on_bound, uint64_t max_states,
              std::string& trouble) {
  engine::CompiledModel cm = engine::compile(m);
  engine::D2cSystem system(cm);
  if (symmetric) system.set_symmetry(std::make_shared<hashing::SymmetryGroup>(engine::system_symmetry(m).group));
  engine::ExploreOptions eo;
  eo.threads = threads;
  eo.on_bound = on_bound;
  eo.max_states = max_states;
  engine::ExploreResult res = engine::explore(system, eo);
  Outcome o{res.complete, res.incomplete_reason, {}, res.graph.num_states(), {}};
  if (res.violation) {
    o.bound = res.violation->kind;
    if (system.symmetry()) {
      const auto path = engine::bfs_tree_path(res.graph, res.violating_state, res.violating_parent);
      engine::TraceClaim claim;
      claim.kind = engine::TraceClaim::Kind::Bound;
      const auto cp = engine::concrete_path(system, res.graph, path, engine::Cancellation::none());
      const std::string why = cp ? replays(cm, *cp, false, claim) : "no concrete path";
      if (!why.empty()) trouble += "bound trace: " + why + "\n";
    }
    return o;
  }
  for (auto f : {engine::Fairness::Channel, engine::Fairness::None})
    for (auto p : engine::kAllProperties) {
      if (!system.symmetry()) {
        o.verdicts.push_back(engine::analyze(res.graph, p, f, res.complete));
        continue;
      }
      std::optional<engine::QuotientFinding> finding;
      engine::Verdict v = engine::analyze_quotient(res.graph, *system.symmetry(), p, f, res.complete,
                                                   engine::Cancellation::none(), &finding);
      if (finding) {
        engine::TraceClaim claim;
        claim.property = p;
        claim.kind = *v.holds ? engine::TraceClaim::Kind::Witness : engine::TraceClaim::Kind::Counterexample;
        claim.never_faulty = v.node;
        claim.fairness = f;
        const auto l = engine::concrete_lasso(system, res.graph, *finding, f, engine::Cancellation::none());
        const std::string why = l ? replays(cm, *l, true, claim) : "no concrete lasso";
        if (!why.empty())
          trouble += std::string(engine::property_name(p)) + (f == engine::Fairness::None ? " (none)" : "") +
                     ": " + why + "\n";
      }
      o.verdicts.push_back(std::move(v));
    }
  return o;
}

// Both checks agree (the symmetric one at `threads`); "" when they do.
std::string compare(const model::Model& m, size_t threads, engine::OnBound on_bound, uint64_t max_states,
                    bool* comparable = nullptr) {
  std::string trouble;
  const Outcome full = check(m, false, 1, on_bound, max_states, trouble);
  if (comparable) *comparable = full.complete || full.bound;
  if (!full.complete && !full.bound) return "";  // cut by max-states: too big to compare
  const Outcome sym = check(m, true, threads, on_bound, max_states, trouble);
  if (full.bound != sym.bound) return "the bound stops differ\n" + trouble;
  if (full.complete != sym.complete) return "complete differs: " + sym.reason + "\n" + trouble;
  if (full.complete && sym.states > full.states) return "more states with symmetry\n" + trouble;
  for (size_t i = 0; i < full.verdicts.size(); ++i) {
    const auto& a = full.verdicts[i];
    const auto& b = sym.verdicts[i];
    if (a.holds != b.holds || a.node != b.node)
      trouble += std::string(engine::property_name(a.property)) + (i >= 4 ? " (none)" : "") + ": verdict " +
                 (a.holds ? (*a.holds ? "holds" : "fails") : "undecided") + " vs " +
                 (b.holds ? (*b.holds ? "holds" : "fails") : "undecided") + ", node " +
                 (a.node ? std::to_string(*a.node) : "-") + " vs " + (b.node ? std::to_string(*b.node) : "-") + "\n";
  }
  return trouble;
}

std::optional<model::Model> load(const std::string& path, const std::string& network) {
  model::Diagnostics diag(path);
  model::Overrides o;
  if (!network.empty()) o.network_spec = network;
  return model::load_model(path, o, diag);
}

}  // namespace

TEST(SymmetryDiff, EveryExampleOnSymmetricNetworks) {
  size_t compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("examples"))) {
    if (entry.path().extension() != ".d2c") continue;
    for (const std::string net : {"", "ring:3", "ring:4", "star:4", "complete:3", "line:3"}) {
      auto m = load(entry.path().string(), net);
      if (!m) continue;  // (an example may need its own network)
      if (engine::system_symmetry(*m).group.trivial()) continue;
      SCOPED_TRACE(entry.path().filename().string() + " on " + (net.empty() ? "its network" : net));
      for (size_t threads : {1, 2}) {
        bool comparable = false;
        EXPECT_EQ(compare(*m, threads, engine::OnBound::Stop, 100000, &comparable), "");
        compared += comparable;
      }
    }
  }
  EXPECT_GE(compared, 30u);
}

TEST(SymmetryDiff, RandomProgramsOnSymmetricNetworks) {
  reftest::Rng rng(2323);
  reftest::GenOptions opt;
  opt.max_state = 2;
  opt.max_transport_arity = 1;
  opt.max_input_arity = 1;
  opt.min_rules = 3;
  opt.max_rules = 6;
  reftest::ProgramGenerator gen(rng, opt), gen_explore(rng, opt);
  const std::vector<std::string> networks = {"ring:3", "ring:4", "star:4", "complete:3", "line:3", "grid:2x2", "grid:2x3"};
  size_t compared = 0, symmetric = 0;
  for (int i = 0; i < 160; ++i) {
    const bool explore_kind = reftest::coin(rng, 0.4);
    const std::string text = explore_kind ? gen_explore.generate_explore() : gen.generate();
    model::Overrides ov;
    ov.network_spec = reftest::pick(rng, networks);
    ov.state_bound = reftest::uni(rng, 1, 2);
    ov.channel_bound = reftest::uni(rng, 1, 2);
    if (explore_kind) ov.input_bound = 1;
    model::Diagnostics diag("random.d2c");
    auto m = model::load_model_text(text, "random.d2c", ov, diag);
    if (!m) continue;
    if (engine::system_symmetry(*m).group.trivial()) continue;
    ++symmetric;
    const auto on_bound = reftest::coin(rng, 0.5) ? engine::OnBound::Prune : engine::OnBound::Stop;
    const size_t threads = reftest::uni(rng, 1, 2);
    bool comparable = false;
    const std::string diff = compare(*m, threads, on_bound, 20000, &comparable);
    EXPECT_EQ(diff, "") << "network " << *ov.network_spec << ", threads " << threads << ", "
                        << (on_bound == engine::OnBound::Prune ? "prune" : "stop") << ":\n" << text;
    compared += comparable;
  }
  EXPECT_GE(symmetric, 60u);
  EXPECT_GE(compared, 50u);
}

namespace {

// The hand-built case where the plain quotient errs one way: the hub n0
// sends `go` to both leaves and, by choice, `first` to one; a leaf on `go`
// sends `a` to the other leaf, the leaf with `first` starts a token that
// the leaves bounce back to each other (stably), and taking an `a` makes a
// leaf faulty. The fault-free stable cycle is x -> σ(x) -> x, σ = (n1 n2),
// each step serving the arc whose channel the other one leaves holding an
// `a`: fair. In the quotient it is one state with a self-loop labelled σ.
const char* kMirror = R"(
state hub/0.
transport go/0, first/0, tok/0, a/0.
network { n0 - n1. n0 - n2. n1 - n2. }
init at n0 { hub. }
hub if prev hub.
go@N if start@_, hub, neighbor(N).
first@N if start@_, hub, neighbor(N), choice((), (N)).
a@N if go@H, neighbor(N), N != H.
tok@N if first@H, neighbor(N), N != H.
tok@S if tok@S.
error if a@_.
error if prev error.
)";

// The quotient with the permutations dropped from its edges (the plain
// quotient: each edge serves its arc in the representative's frame). With
// `fault_at` >= 0, each state keeps only the fault of the node at that
// position of its representative (always-total on that graph is
// always-partial filtered by "position p not faulty").
engine::StateGraph plain_quotient(const engine::StateGraph& q, const engine::System& system, int fault_at = -1) {
  const hashing::StateLayout& layout = system.layout();
  engine::StateGraph out(layout);
  std::vector<uint64_t> labels(q.label_words());
  for (engine::StateId s = 0; s < q.num_states(); ++s) {
    hashing::GlobalState st;
    EXPECT_TRUE(hashing::decode(q.bytes(s), layout, st));
    hashing::SegmentedEncoding enc;
    hashing::encode_segmented(st, layout, enc);
    engine::StateStore& store = out.store();
    const uint32_t root = engine::intern_growing([&] { return store.tree().intern(enc); }, [&] { store.grow(); });
    q.labels(s, labels.data());
    for (uint32_t n = 0; fault_at >= 0 && n < q.num_nodes(); ++n)
      if (n != static_cast<uint32_t>(fault_at)) labels[n / 64] &= ~(uint64_t{1} << (n % 64));
    out.fill_state(out.add_states(1), root, labels.data());
  }
  for (engine::StateId s = 0; s < q.num_states(); ++s) {
    std::vector<engine::Edge> row;
    for (const engine::Edge& e : q.edges(s))
      row.emplace_back(e.target, engine::served_arc(e.arc(), q.num_arcs()), e.stable());
    std::sort(row.begin(), row.end(), [](const engine::Edge& a, const engine::Edge& b) {
      return a.target != b.target ? a.target < b.target : a.label < b.label;
    });
    row.erase(std::unique(row.begin(), row.end()), row.end());
    out.set_edges(s, row);
  }
  return out;
}

}  // namespace

TEST(SymmetryDiff, MirrorImagesBouncingATokenAreFairThoughThePlainQuotientSaysNot) {
  model::Diagnostics diag("mirror.d2c");
  auto m = model::load_model_text(kMirror, "mirror.d2c", {}, diag);
  ASSERT_TRUE(m) << diag.format_all();
  EXPECT_EQ(compare(*m, 1, engine::OnBound::Stop, 0), "");
  engine::CompiledModel cm = engine::compile(*m);
  engine::D2cSystem system(cm);
  system.set_symmetry(std::make_shared<hashing::SymmetryGroup>(engine::system_symmetry(*m).group));
  ASSERT_EQ(system.symmetry()->order(), 2u);
  engine::ExploreResult res = engine::explore(system, {});
  // The collapse: a fault-free state with a stable self-loop labelled σ.
  bool mirrored_loop = false;
  for (engine::StateId s = 0; s < res.graph.num_states(); ++s)
    for (const engine::Edge& e : res.graph.edges(s))
      mirrored_loop |= e.target == s && e.stable() && engine::edge_element(e.arc(), res.graph.num_arcs()) != 0 &&
                       !res.graph.any_faulty(s);
  EXPECT_TRUE(mirrored_loop);
  const auto p = engine::Property::SometimesTotal;
  const engine::Verdict v = engine::analyze_quotient(res.graph, *system.symmetry(), p, engine::Fairness::Channel,
                                                     true, engine::Cancellation::none(), nullptr);
  EXPECT_EQ(v.holds, std::optional<bool>(true));
  // The plain quotient misses it: no fair stable fault-free SCC.
  const engine::StateGraph plain = plain_quotient(res.graph, system);
  EXPECT_EQ(engine::analyze_sequential(plain, p, engine::Fairness::Channel, true).holds, std::optional<bool>(false));
}

namespace {

// The hand-built case where the plain quotient errs the other way: the
// hub picks a leader leaf L by choice and bounces a token with it, L
// flipping a flag at every token (non-stable); every leaf sends itself `m`
// at its start, which only the leader takes without becoming faulty. So
// in every fault-free cycle the other leaf's self-loop holds `m` forever:
// unfair, and always-total holds. The representatives of that cycle's
// states fall on both sides (L = n1 in some, n2 in others), and in their
// frames each self-loop is empty somewhere on the cycle: the plain
// quotient calls the cycle fair and always-total violated. (Which side a
// representative falls on follows from the hashes of the leaves' DBs, so
// the leaves both hold `w`, and the predicates are declared in an order
// that gives the split; the test asserts that it happens.)
const char* kSplit = R"(
state lead/0, flip/0, w/0, hub/0.
transport first/0, tok/0, m/0.
network { n0 - n1. n0 - n2. }
init at n0 { hub. }
hub if prev hub.
w if start@_, not hub.
w if prev w.
lead if prev lead.
lead if first@_.
first@N if start@_, hub, neighbor(N), choice((), (N)).
m@M if start@_, not hub, my_name(M).
tok@S if first@S.
tok@S if tok@S.
flip if tok@_, not hub, not prev flip.
error if m@_, not prev lead.
error if prev error.
)";

}  // namespace

TEST(SymmetryDiff, ACycleWhoseRepresentativesFallOnBothSidesIsUnfairThoughThePlainQuotientSaysFair) {
  model::Diagnostics diag("split.d2c");
  auto m = model::load_model_text(kSplit, "split.d2c", {}, diag);
  ASSERT_TRUE(m) << diag.format_all();
  EXPECT_EQ(compare(*m, 1, engine::OnBound::Stop, 0), "");
  engine::CompiledModel cm = engine::compile(*m);
  engine::D2cSystem system(cm);
  system.set_symmetry(std::make_shared<hashing::SymmetryGroup>(engine::system_symmetry(*m).group));
  engine::ExploreResult res = engine::explore(system, {});
  // The split: fault-free states whose leader is n1 and others whose leader is n2.
  const model::PredId lead = *m->find_pred("lead");
  bool leader_at[3] = {false, false, false};
  for (engine::StateId s = 0; s < res.graph.num_states(); ++s) {
    if (res.graph.any_faulty(s)) continue;
    hashing::GlobalState st;
    ASSERT_TRUE(hashing::decode(res.graph.bytes(s), system.layout(), st));
    for (uint32_t n = 1; n < 3; ++n)
      for (size_t i = 0; i < st.dbs[n].size(); i += system.layout().fact_words(st.dbs[n][i]))
        leader_at[n] |= st.dbs[n][i] == lead;
  }
  EXPECT_TRUE(leader_at[1] && leader_at[2]);
  const auto p = engine::Property::AlwaysTotal;
  EXPECT_EQ(engine::analyze_quotient(res.graph, *system.symmetry(), p, engine::Fairness::Channel, true,
                                     engine::Cancellation::none(), nullptr)
                .holds,
            std::optional<bool>(true));
  const engine::StateGraph plain = plain_quotient(res.graph, system);
  EXPECT_EQ(engine::analyze_sequential(plain, p, engine::Fairness::Channel, true).holds, std::optional<bool>(false));
}

namespace {

// The hand-built case where filtering by position errs: leaves n1 and n2
// race their `claim` to the hub n0 (faulty throughout, so only the leaves
// matter); the hub chooses the first claimant W, tells the other leaf
// `lose` (which makes it faulty for good), and only after its `ack` tells
// W `win`; then W and the hub bounce a `tick` for ever, W flipping `t` at
// every one (non-stable). So W is never faulty on a fair run that never
// stabilises: always-partial fails, for the leaves' orbit (node n1). The
// node at position n1 of a representative is the winner in some states of
// that cycle and the faulty loser in others (which side a representative
// falls on follows from the hashes of the leaves' DBs, and `t` flips the
// winner's): a filter "position p not faulty" cuts the cycle for p = n1
// and for p = n2, and says always-partial holds. The test asserts both
// filters, on the quotient with only position p's fault kept, under
// fairness none (where no cycle exists before the loser is faulty).
const char* kRace = R"(
state hub/0, decided/0, chosen/1, lost/0, won/0, t/0.
transport claim/0, lose/0, ack/0, win/0, tick/0.
network { n0 - n1. n0 - n2. }
init at n0 { hub. }
hub if prev hub.
error if hub.
claim@N if start@_, not prev hub, neighbor(N).
decided if claim@_, prev hub.
decided if prev decided.
chosen(W) if claim@W, prev hub, not prev decided.
chosen(W) if prev chosen(W).
lose@L if claim@W, prev hub, not prev decided, neighbor(L), L != W.
lost if lose@_.
lost if prev lost.
error if lost.
ack@H if lose@H.
win@W if ack@_, prev chosen(W).
won if win@_.
won if prev won.
tick@H if win@H.
tick@S if tick@S, prev hub.
tick@S if tick@S, prev won.
t if tick@_, prev won, not prev t.
t if prev t, not tick@_.
)";

}  // namespace

TEST(SymmetryDiff, ARaceWinnerNeverFaultyFailsAlwaysPartialThoughEveryPositionFilterSaysItHolds) {
  model::Diagnostics diag("race.d2c");
  auto m = model::load_model_text(kRace, "race.d2c", {}, diag);
  ASSERT_TRUE(m) << diag.format_all();
  EXPECT_EQ(compare(*m, 1, engine::OnBound::Stop, 0), "");  // (every verdict, node and trace)
  engine::CompiledModel cm = engine::compile(*m);
  const auto p = engine::Property::AlwaysPartial;
  {  // Full exploration: the winner's orbit, n1, is never faulty on a fair non-stabilising run.
    engine::D2cSystem full(cm);
    engine::ExploreResult res = engine::explore(full, {});
    for (auto f : {engine::Fairness::Channel, engine::Fairness::None}) {
      const engine::Verdict v = engine::analyze_sequential(res.graph, p, f, true);
      EXPECT_EQ(v.holds, std::optional<bool>(false));
      EXPECT_EQ(v.node, std::optional<uint32_t>(1));
    }
  }
  engine::D2cSystem system(cm);
  system.set_symmetry(std::make_shared<hashing::SymmetryGroup>(engine::system_symmetry(*m).group));
  ASSERT_EQ(system.symmetry()->order(), 2u);
  engine::ExploreResult res = engine::explore(system, {});
  const engine::Verdict v = engine::analyze_quotient(res.graph, *system.symmetry(), p, engine::Fairness::None, true,
                                                     engine::Cancellation::none(), nullptr);
  EXPECT_EQ(v.holds, std::optional<bool>(false));
  EXPECT_EQ(v.node, std::optional<uint32_t>(1));
  for (uint32_t pos = 0; pos < 3; ++pos) {
    SCOPED_TRACE("position " + std::to_string(pos));
    const engine::StateGraph filtered = plain_quotient(res.graph, system, static_cast<int>(pos));
    EXPECT_EQ(engine::analyze_sequential(filtered, engine::Property::AlwaysTotal, engine::Fairness::None, true).holds,
              std::optional<bool>(true));
  }
}
