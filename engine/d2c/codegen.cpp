#include "engine/d2c/codegen.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>

#include "engine/d2c/codegen_abi_text.hpp"  // generated (in the build tree)

namespace ddsmc::engine {
namespace {

// The text of engine/d2c/codegen_abi.hpp, which every generated file starts
// with: kCodegenAbiText, generated from the header at build time
// (engine/CMakeLists.txt), so there is one copy.
const char* const kAbi = kCodegenAbiText;

// The runtime every generated file carries: the same algorithms as
// engine/d2c/relation.cpp and step.cpp, with the arity a template argument.
const char* const kRuntime = R"RT(
// ---- runtime (mirrors engine/d2c/relation.cpp and step.cpp) ----------------
#include <algorithm>
#include <cstring>

namespace {

using W = uint32_t;

inline uint64_t hash_run(const W* run, size_t len) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
  for (size_t i = 0; i < len; ++i) {
    h ^= run[i];
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 29);
}

// Open addressing over ids whose runs the owner stores (as RunIndex).
struct Index {
  std::vector<uint64_t> slots;
  size_t size = 0;
  void clear() { slots.clear(); size = 0; }
  void grow() {
    std::vector<uint64_t> old;
    old.swap(slots);
    slots.assign(std::max<size_t>(64, old.size() * 2), 0);
    const size_t mask = slots.size() - 1;
    for (uint64_t s : old) {
      if (s == 0) continue;
      size_t i = (s >> 32) & mask;
      while (slots[i] != 0) i = (i + 1) & mask;
      slots[i] = s;
    }
  }
  template <class Same>
  bool insert(uint64_t h, uint32_t id, Same&& same) {
    if (2 * (size + 1) > slots.size()) grow();
    const uint64_t frag = h >> 32;
    const size_t mask = slots.size() - 1;
    for (size_t i = frag & mask;; i = (i + 1) & mask) {
      const uint64_t s = slots[i];
      if (s == 0) {
        slots[i] = frag << 32 | (uint64_t{id} + 1);
        ++size;
        return true;
      }
      if ((s >> 32) == frag && same(static_cast<uint32_t>(s) - 1)) return false;
    }
  }
};
constexpr uint32_t kIndexFrom = 16;

// A derived relation: n tuples of A words, insertion order, no duplicates.
template <uint32_t A>
struct Rel {
  std::vector<W> t;
  uint32_t n = 0;
  Index idx;
  bool indexed = false;
  const W* data() const { return t.data(); }
  void drop_index() { if (indexed) { idx.clear(); indexed = false; } }
  void clear() { t.clear(); n = 0; drop_index(); }
  void truncate(uint32_t m) {
    if (m >= n) return;
    t.resize(size_t{m} * A);
    n = m;
    drop_index();
  }
  bool same(const W* x, uint32_t i) const {
    const W* y = t.data() + size_t{i} * A;
    for (uint32_t k = 0; k < A; ++k)
      if (x[k] != y[k]) return false;
    return true;
  }
  bool insert(const W* x) {
    if constexpr (A == 0) {
      if (n) return false;
      n = 1;
      return true;
    } else {
      if (!indexed && n >= kIndexFrom) {
        indexed = true;
        for (uint32_t i = 0; i < n; ++i) idx.insert(hash_run(t.data() + size_t{i} * A, A), i, [](uint32_t) { return false; });
      }
      if (indexed) {
        if (!idx.insert(hash_run(x, A), n, [&](uint32_t i) { return same(x, i); })) return false;
      } else {
        for (uint32_t i = 0; i < n; ++i)
          if (same(x, i)) return false;
      }
      for (uint32_t k = 0; k < A; ++k) t.push_back(x[k]);  // a range insert costs more for a few words
      ++n;
      return true;
    }
  }
  // Appends [pred, tuple] for every tuple, sorted (StepResult::db order).
  void append_sorted(W pred, std::vector<W>& out, std::vector<uint32_t>& order) const {
    if (n == 0) return;
    if constexpr (A == 0) {
      out.push_back(pred);
    } else {
      order.resize(n);
      bool sorted = true;
      for (uint32_t i = 0; i < n; ++i) {
        order[i] = i;
        if (i > 0 && sorted && !less(i - 1, i)) sorted = false;
      }
      if (!sorted) std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return less(a, b); });
      size_t at = out.size();
      out.resize(at + size_t{n} * (A + 1));
      W* o = out.data() + at;
      for (uint32_t i : order) {
        *o++ = pred;
        for (uint32_t k = 0; k < A; ++k) *o++ = t[size_t{i} * A + k];
      }
    }
  }
  bool less(uint32_t a, uint32_t b) const {
    const W* x = t.data() + size_t{a} * A;
    const W* y = t.data() + size_t{b} * A;
    for (uint32_t k = 0; k < A; ++k)
      if (x[k] != y[k]) return x[k] < y[k];
    return false;
  }
};

// The messages derived so far: [dest, pred, args...] runs, insertion order,
// no duplicates (as MessageSet).
struct MsgSet {
  const uint32_t* arity = nullptr;
  std::vector<W> runs;
  std::vector<size_t> starts;
  Index idx;
  bool indexed = false;
  size_t run_words(const W* run) const { return 2 + arity[run[1]]; }
  void clear() { truncate(0); }
  void truncate(size_t words) {
    if (words >= runs.size()) return;
    runs.resize(words);
    while (!starts.empty() && starts.back() >= words) starts.pop_back();
    if (indexed) { idx.clear(); indexed = false; }
  }
  void add(const W* run) {
    const size_t len = run_words(run);
    auto same = [&](uint32_t i) {
      const W* other = runs.data() + starts[i];
      return run_words(other) == len && std::equal(run, run + len, other);
    };
    const auto n = static_cast<uint32_t>(starts.size());
    if (!indexed && n >= kIndexFrom) {
      indexed = true;
      for (uint32_t i = 0; i < n; ++i) {
        const W* r = runs.data() + starts[i];
        idx.insert(hash_run(r, run_words(r)), i, [](uint32_t) { return false; });
      }
    }
    if (indexed) {
      if (!idx.insert(hash_run(run, len), n, same)) return;
    } else {
      for (uint32_t i = 0; i < n; ++i)
        if (same(i)) return;
    }
    starts.push_back(runs.size());
    runs.insert(runs.end(), run, run + len);
  }
};

// The substitutions of one choice rule, grouped as collect_choice groups
// them: records (x, y, head) sorted, one group per x, one pick per (x, y)
// holding the heads of its records.
struct ChoiceSet {
  uint32_t hw = 0;                    // words per head
  std::vector<W> heads;               // record heads in sorted record order
  std::vector<uint32_t> pick_start;   // per pick: first record; plus the end
  std::vector<uint32_t> group_start;  // per group: first pick; plus the end
  size_t groups() const { return group_start.size() - 1; }
  uint32_t picks(size_t g) const { return group_start[g + 1] - group_start[g]; }
  const W* head_begin(uint32_t pick) const { return heads.data() + size_t{pick_start[pick]} * hw; }
  const W* head_end(uint32_t pick) const { return heads.data() + size_t{pick_start[pick + 1]} * hw; }

  void build(const std::vector<W>& recs, uint32_t n, uint32_t xw, uint32_t yw, uint32_t head_words,
             std::vector<uint32_t>& order) {
    hw = head_words;
    const uint32_t rw = xw + yw + hw;
    heads.clear();
    pick_start.clear();
    group_start.clear();
    order.resize(n);
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    auto rec = [&](uint32_t i) { return recs.data() + size_t{i} * rw; };
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return std::lexicographical_compare(rec(a), rec(a) + rw, rec(b), rec(b) + rw);
    });
    for (uint32_t k = 0; k < n; ++k) {
      const W* r = rec(order[k]);
      const W* p = k == 0 ? nullptr : rec(order[k - 1]);
      bool new_x = k == 0 || !std::equal(r, r + xw, p);
      bool new_y = new_x || !std::equal(r + xw, r + xw + yw, p + xw);
      if (new_x) group_start.push_back(static_cast<uint32_t>(pick_start.size()));
      if (new_y) pick_start.push_back(k);
      heads.insert(heads.end(), r + xw + yw, r + rw);
    }
    pick_start.push_back(n);
    group_start.push_back(static_cast<uint32_t>(pick_start.size() - 1));
  }
};

// Mixed radix over every group of every set, the first digit fastest
// (for_each_outcome): apply(set, pick) for each group, then next().
template <class Apply, class Next>
void for_each_outcome(const ChoiceSet* sets, size_t nsets, Apply&& apply, Next&& next) {
  std::vector<std::pair<size_t, size_t>> flat;  // (set, group)
  for (size_t j = 0; j < nsets; ++j)
    for (size_t g = 0; g < sets[j].groups(); ++g) flat.emplace_back(j, g);
  std::vector<uint32_t> digit(flat.size(), 0);
  while (true) {
    for (size_t k = 0; k < flat.size(); ++k) {
      const ChoiceSet& cs = sets[flat[k].first];
      apply(flat[k].first, cs.group_start[flat[k].second] + digit[k]);
    }
    next();
    size_t k = 0;
    for (; k < flat.size(); ++k) {
      if (++digit[k] < sets[flat[k].first].picks(flat[k].second)) break;
      digit[k] = 0;
    }
    if (k == flat.size()) return;
  }
}

}  // namespace
)RT";

using Kind = ArgOp::Kind;

std::string w(Word v) { return std::to_string(v) + "u"; }

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

class Gen {
 public:
  explicit Gen(const CompiledModel& cm) : cm_(cm), m_(*cm.model) {}

  GeneratedStep run() {
    GeneratedStep g;
    if (auto why = check()) {
      g.reason = "unsupported: " + *why;
      return g;
    }
    std::ostringstream o;
    o << "// Generated by ddsmc (engine/d2c/codegen.cpp) from the model's rule plans.\n"
      << "// The step function of one node, with exactly engine::StepEvaluator's semantics.\n";
    o << kAbi << kRuntime;
    tables(o);
    state_struct(o);
    o << "\nnamespace {\n";
    for (size_t ri = 0; ri < cm_.rules.size(); ++ri) {
      if (role_fix_[ri]) join_function(o, ri, Role::Fix);
      if (role_choice_[ri]) join_function(o, ri, Role::Choice);
      if (role_tr_[ri]) join_function(o, ri, Role::Transport);
    }
    emit_function(o);
    transport_function(o);
    for (size_t ci = cm_.components.size(); ci-- > 0;) component_functions(o, ci);
    o << "\n}  // namespace\n";
    entry_points(o);
    g.ok = true;
    g.source = o.str();
    for (const RulePlan& p : cm_.rules) g.deepest_rule = std::max(g.deepest_rule, p.steps.size());
    return g;
  }

 private:
  enum class Role { Fix, Choice, Transport };

  // ---- what the generator accepts -------------------------------------------

  std::optional<std::string> check() {
    const size_t R = cm_.rules.size();
    role_fix_.assign(R, false);
    role_choice_.assign(R, false);
    role_tr_.assign(R, false);
    for (const auto& c : cm_.components) {
      for (uint32_t ri : c.rules) {
        if (ri >= R) return "component rule out of range";
        role_fix_[ri] = true;
      }
      for (uint32_t ri : c.choice_rules) {
        if (ri >= R) return "component choice rule out of range";
        role_choice_[ri] = true;
      }
    }
    for (uint32_t ri : cm_.transport_rules) {
      if (ri >= R) return "transport rule out of range";
      if (cm_.rules[ri].has_choice) role_choice_[ri] = true; else role_tr_[ri] = true;
    }
    for (size_t ri = 0; ri < R; ++ri) {
      const RulePlan& p = cm_.rules[ri];
      const std::string where = "rule " + std::to_string(ri) + ": ";
      if ((role_fix_[ri] || (role_choice_[ri] && !is_transport_rule(ri))) && p.transport_head)
        return where + "a transport head inside a state component";
      if ((role_tr_[ri] || (role_choice_[ri] && is_transport_rule(ri))) && !p.transport_head)
        return where + "a transport rule without a transport head";
      if (role_fix_[ri] && p.has_choice) return where + "a choice rule among a component's plain rules";
      if (!p.transport_head && p.head_pred < model::kNumBuiltins && p.head_pred != model::kError &&
          (role_fix_[ri] || role_choice_[ri]))
        return where + "derives a built-in predicate";
      if (p.head_pred >= cm_.layout.arity.size()) return where + "head predicate out of range";
      // Every variable read must be bound by an earlier step: the
      // interpreter would read a stale value otherwise.
      std::vector<bool> bound(p.num_vars, false);
      auto reads_ok = [&](const ArgOp& op) { return op.kind != Kind::Check || (op.value < p.num_vars && bound[op.value]); };
      for (const PlanStep& st : p.steps) {
        if (st.kind == PlanStep::Kind::Constraint) {
          const auto& c = p.constraints.at(st.index);
          if (!reads_ok(c.lhs) || !reads_ok(c.rhs)) return where + "a constraint reads an unbound variable";
          if (c.lhs.kind == Kind::Bind || c.lhs.kind == Kind::Skip || c.rhs.kind == Kind::Bind || c.rhs.kind == Kind::Skip)
            return where + "a constraint with a binding or anonymous side";
          continue;
        }
        const LiteralPlan& lp = p.literals.at(st.index);
        if (lp.pred >= cm_.layout.arity.size() || lp.args.size() != cm_.layout.arity[lp.pred])
          return where + "a literal's arity does not match its predicate";
        if (lp.has_at && lp.source != Source::Message) return where + "an @ on a non-message literal";
        std::vector<ArgOp> ops = lp.args;
        if (lp.has_at) ops.push_back(lp.at);
        for (const ArgOp& op : ops) {
          if (op.kind == Kind::Bind) {
            if (lp.negated) return where + "a negated literal binds a variable";
            if (op.value >= p.num_vars) return where + "variable out of range";
            bound[op.value] = true;
          } else if (!reads_ok(op)) {
            return where + "a literal reads a variable before it is bound";
          }
        }
      }
      for (const ArgOp& op : p.head_args)
        if (op.kind != Kind::Const && !(op.kind == Kind::Check && reads_ok(op)))
          return where + "a head argument that is not a bound variable or a constant";
      if (p.transport_head && !(p.head_at.kind == Kind::Const || (p.head_at.kind == Kind::Check && reads_ok(p.head_at))))
        return where + "a destination that is not a bound variable or a constant";
      if (p.head_args.size() != cm_.layout.arity[p.head_pred]) return where + "head arity mismatch";
      for (uint32_t v : p.choice_domain)
        if (v >= p.num_vars || !bound[v]) return where + "a choice variable that the body does not bind";
      for (uint32_t v : p.choice_picked)
        if (v >= p.num_vars || !bound[v]) return where + "a choice variable that the body does not bind";
    }
    for (size_t ri = 0; ri < R; ++ri)
      if (int(role_fix_[ri]) + int(role_choice_[ri]) + int(role_tr_[ri]) > 1)
        return "rule " + std::to_string(ri) + " has more than one role";
    return std::nullopt;
  }

  bool is_transport_rule(size_t ri) const {
    return std::find(cm_.transport_rules.begin(), cm_.transport_rules.end(), ri) != cm_.transport_rules.end();
  }

  uint32_t arity(Word p) const { return cm_.layout.arity[p]; }
  bool is_state_pred(Word p) const {
    return p == model::kError || (p >= model::kNumBuiltins && m_.pred(p).kind == model::PredKind::State);
  }
  bool is_builtin_rel(Word p) const { return p == model::kMyName || p == model::kNeighbor; }

  // ---- tables and the state ---------------------------------------------------

  void tables(std::ostream& o) {
    const size_t P = cm_.layout.arity.size();
    const size_t N = cm_.layout.num_nodes;
    o << "\n// ---- the model's tables ------------------------------------------------\n";
    o << "namespace {\n\nconstexpr uint32_t kNumPreds = " << P << ";\nconstexpr uint32_t kNumNodes = " << N
      << ";\nconstexpr uint32_t kNumFixed = " << cm_.node_of_const.size() << ";\n";
    o << "const uint32_t kArity[kNumPreds] = {";
    for (size_t p = 0; p < P; ++p) o << (p ? ", " : "") << arity(static_cast<Word>(p));
    o << "};\n";
    o << "const uint32_t kNodeConst[kNumNodes] = {";
    for (size_t n = 0; n < N; ++n) o << (n ? ", " : "") << cm_.node_const[n];
    o << "};\n";
    o << "const int32_t kNodeOfConst[kNumFixed + 1] = {";  // + 1: never empty
    for (size_t c = 0; c < cm_.node_of_const.size(); ++c) o << cm_.node_of_const[c] << ", ";
    o << "-1};\n";
    // Per node, ascending: itself and its neighbours, the nodes it has an
    // arc to (a list, not an N x N table: the source grows with the arcs).
    o << "// Per node: the nodes it has an arc to (itself included), ascending.\n";
    for (size_t a = 0; a < N; ++a) {
      o << "const uint32_t kArcs" << a << "[] = {";
      for (size_t b = 0; b < N; ++b)
        if (a == b || m_.network.adjacent(static_cast<model::NodeId>(a), static_cast<model::NodeId>(b)))
          o << b << ", ";
      o << "};\n";
    }
    o << "struct NodeList { const uint32_t* ids; uint32_t size; };\n";
    o << "const NodeList kArcsOf[kNumNodes] = {";
    for (size_t a = 0; a < N; ++a)
      o << (a ? ", " : "") << "{kArcs" << a << ", sizeof kArcs" << a << " / sizeof(uint32_t)}";
    o << "};\n";
    o << "inline bool is_arc(uint32_t me, uint32_t node) {\n"
         "  const NodeList& l = kArcsOf[me];\n"
         "  for (uint32_t i = 0; i < l.size && l.ids[i] <= node; ++i)\n"
         "    if (l.ids[i] == node) return true;\n"
         "  return false;\n"
         "}\n";
    // Built-in facts per node, as [pred, args...] runs (the normalized order).
    o << "// Per node: the built-in facts (my_name, neighbor) as [pred, args...] runs.\n";
    for (size_t n = 0; n < N; ++n) {
      o << "const uint32_t kBuiltins" << n << "[] = {";
      const auto& b = cm_.builtins[n];
      for (size_t i = 0; i < b.size(); ++i) o << (i ? ", " : "") << b[i];
      if (b.empty()) o << "0";
      o << "};\n";
    }
    o << "struct BuiltinRuns { const uint32_t* words; uint32_t size; };\n";
    o << "const BuiltinRuns kBuiltins[kNumNodes] = {";
    for (size_t n = 0; n < N; ++n) o << (n ? ", " : "") << "{kBuiltins" << n << ", " << cm_.builtins[n].size() << "}";
    o << "};\n\n}  // namespace\n";
  }

  std::string rel_name(Word p) const { return "st_" + pred_ident(p); }
  std::string pred_ident(Word p) const {
    std::string s;
    for (char c : m_.pred(p).name) s += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return "p" + std::to_string(p) + "_" + s;
  }

  void state_struct(std::ostream& o) {
    o << "\nnamespace {\n\n// All scratch of one evaluator (one per worker).\nstruct S {\n"
      << "  const ddsmc_gen::Input* in = nullptr;\n  const ddsmc_gen::Hooks* hooks = nullptr;\n"
      << "  uint32_t me = 0;   // the processing node\n  W src = 0;        // the sender's node constant\n"
      << "  uint32_t countdown = 1024;\n"
      << "  // Read-only relations: [pred, args...] runs of the DB, the input and the\n"
      << "  // built-ins, a stride of 1 + arity, pointing at the first argument.\n"
      << "  const W* prev_base[kNumPreds];\n  uint32_t prev_n[kNumPreds];\n"
      << "  const W* in_base[kNumPreds];\n  uint32_t in_n[kNumPreds];\n"
      << "  const W* bi_base[2];\n  uint32_t bi_n[2];\n"
      << "  // The new state's derived relations.\n";
    for (Word p = 0; p < cm_.layout.arity.size(); ++p)
      if (is_state_pred(p)) o << "  Rel<" << arity(p) << "> " << rel_name(p) << ";\n";
    o << "  MsgSet sent;\n  ddsmc_gen::Result res;\n  std::vector<W> buf, recs, picked;\n  std::vector<uint32_t> order;\n  uint32_t nrec = 0;  // records of the choice rule being collected\n"
      << "  S() { sent.arity = kArity; }\n"
      << "  void poll() {\n    if (--countdown == 0) {\n      countdown = 1024;\n"
      << "      if (hooks->poll) hooks->poll(hooks->poll_ctx);\n    }\n  }\n};\n\n}  // namespace\n";
  }

  // ---- one join per rule -------------------------------------------------------

  // Where a value of an argument comes from while the literal is matched:
  // a variable bound earlier (vN), the same literal's bind position (u[k]),
  // or a constant.
  std::string value(const ArgOp& op, const std::vector<std::string>& local) const {
    if (op.kind == Kind::Const) return w(op.value);
    if (!local.empty() && op.kind == Kind::Check && !local[op.value].empty()) return local[op.value];
    return "v" + std::to_string(op.value);
  }

  void join_function(std::ostream& o, size_t ri, Role role) {
    const RulePlan& p = cm_.rules[ri];
    const char* prefix = role == Role::Fix ? "fix" : role == Role::Choice ? "choice" : "tr";
    o << "\n// rule " << ri << ": " << one_line(m_.rules[p.rule].text) << "\n";
    o << "// " << (role == Role::Fix ? "heads appended to s.buf; returns whether it fired"
                   : role == Role::Choice ? "records (domain, picked, head) appended to s.recs"
                                          : "[dest, args...] appended to s.buf")
      << "\n";
    o << "[[maybe_unused]] bool " << prefix << "_r" << ri << "(S& s) {\n  bool fired = false;\n";
    if (p.num_vars) {
      o << "  W ";
      for (uint32_t v = 0; v < p.num_vars; ++v) o << (v ? ", " : "") << "v" << v << " = 0";
      o << ";\n";
    }
    std::string indent = "  ";
    int closes = 0;
    for (size_t si = 0; si < p.steps.size(); ++si) {
      const PlanStep& st = p.steps[si];
      if (st.kind == PlanStep::Kind::Constraint) {
        const auto& c = p.constraints[st.index];
        o << indent << "if (" << value(c.lhs, {}) << (c.equal ? " == " : " != ") << value(c.rhs, {}) << ") {\n";
        indent += "  ";
        ++closes;
        continue;
      }
      const LiteralPlan& lp = p.literals[st.index];
      const uint32_t A = arity(lp.pred);
      std::vector<std::string> local(p.num_vars);  // this literal's bind positions
      std::vector<std::string> conds, binds;
      auto arg_ops = [&](const std::string& base) {
        for (size_t k = 0; k < lp.args.size(); ++k) {
          const ArgOp& op = lp.args[k];
          const std::string at = base + "[" + std::to_string(k) + "]";
          switch (op.kind) {
            case Kind::Bind:
              local[op.value] = at;
              binds.push_back("v" + std::to_string(op.value) + " = " + at);
              break;
            case Kind::Check:
            case Kind::Const: conds.push_back(at + " == " + value(op, local)); break;
            case Kind::Skip: break;
          }
        }
      };
      auto conj = [&]() {
        std::string s;
        for (size_t k = 0; k < conds.size(); ++k) s += (k ? " && " : "") + conds[k];
        return s.empty() ? std::string("true") : s;
      };
      std::string lit_text = std::string(lp.negated ? "not " : "") +
                             (lp.source == Source::Prev ? "prev " : lp.source == Source::Input ? "input " : "") +
                             m_.pred(lp.pred).name;
      if (lp.source == Source::Message) {
        conds.push_back("s.in->msg[0] == " + w(lp.pred));
        arg_ops("s.in->msg + 1");
        // rewrite "s.in->msg + 1[k]" into "s.in->msg[k + 1]"
        auto fix = [](std::string& s) {
          const std::string pat = "s.in->msg + 1[";
          for (size_t pos; (pos = s.find(pat)) != std::string::npos;) {
            size_t end = s.find(']', pos);
            int k = std::stoi(s.substr(pos + pat.size(), end - pos - pat.size()));
            s.replace(pos, end - pos + 1, "s.in->msg[" + std::to_string(k + 1) + "]");
          }
        };
        for (auto& c : conds) fix(c);
        for (auto& b : binds) fix(b);
        for (auto& l : local) fix(l);
        if (lp.has_at) {
          switch (lp.at.kind) {
            case Kind::Bind: binds.push_back("v" + std::to_string(lp.at.value) + " = s.src"); break;
            case Kind::Check:
            case Kind::Const: conds.push_back("s.src == " + value(lp.at, local)); break;
            case Kind::Skip: break;
          }
        }
        o << indent << "// " << lit_text << " (the message)\n";
        if (lp.negated) {
          o << indent << "if (!(" << conj() << ")) {\n";
        } else {
          o << indent << "if (" << conj() << ") {\n";
          for (const auto& b : binds) o << indent << "  " << b << ";\n";
        }
        indent += "  ";
        ++closes;
        continue;
      }
      // A relation: base pointer, count and stride.
      std::string base, count;
      uint32_t stride = A + 1;
      if (lp.source == Source::State && !is_builtin_rel(lp.pred)) {
        if (!is_state_pred(lp.pred)) {
          // Not a state predicate: its relation in state_ is always empty.
          base = "static_cast<const W*>(nullptr)";
          count = "0u";
        } else {
          base = "s." + rel_name(lp.pred) + ".data()";
          count = "s." + rel_name(lp.pred) + ".n";
        }
        stride = A;
      } else if (is_builtin_rel(lp.pred) && lp.source != Source::Input) {
        base = "s.bi_base[" + std::to_string(lp.pred) + "]";
        count = "s.bi_n[" + std::to_string(lp.pred) + "]";
      } else if (lp.source == Source::Prev || lp.source == Source::State) {
        base = "s.prev_base[" + std::to_string(lp.pred) + "]";
        count = "s.prev_n[" + std::to_string(lp.pred) + "]";
      } else {
        base = "s.in_base[" + std::to_string(lp.pred) + "]";
        count = "s.in_n[" + std::to_string(lp.pred) + "]";
      }
      arg_ops("u");
      const std::string t = "t" + std::to_string(si);
      o << indent << "// " << lit_text << "/" << A << "\n";
      if (lp.negated) {
        const std::string hit = "hit" + std::to_string(si);
        if (conds.empty()) {
          o << indent << "if (" << count << " == 0) {\n";
        } else {
          o << indent << "bool " << hit << " = false;\n";
          o << indent << "for (uint32_t " << t << " = 0; " << t << " < " << count << "; ++" << t << ") {\n";
          o << indent << "  const W* u = " << base << " + size_t{" << t << "} * " << stride << ";\n";
          o << indent << "  if (" << conj() << ") { " << hit << " = true; break; }\n";
          o << indent << "}\n";
          o << indent << "if (!" << hit << ") {\n";
        }
        indent += "  ";
        ++closes;
        continue;
      }
      o << indent << "for (uint32_t " << t << " = 0, n" << si << " = " << count << "; " << t << " < n" << si << "; ++" << t
        << ") {\n";
      o << indent << "  s.poll();\n";
      if (!conds.empty() || !binds.empty())
        o << indent << "  [[maybe_unused]] const W* u = " << base << " + size_t{" << t << "} * " << stride << ";\n";
      if (!conds.empty()) o << indent << "  if (!(" << conj() << ")) continue;\n";
      for (const auto& b : binds) o << indent << "  " << b << ";\n";
      indent += "  ";
      ++closes;
    }
    // The innermost action.
    o << indent << "s.poll();\n" << indent << "fired = true;\n";
    auto head_values = [&]() {
      std::vector<std::string> vals;
      if (p.transport_head) vals.push_back(value(p.head_at, {}));
      for (const auto& op : p.head_args) vals.push_back(value(op, {}));
      return vals;
    };
    std::vector<std::string> vals;
    const char* target = "s.buf";
    if (role == Role::Choice) {
      target = "s.recs";
      o << indent << "++s.nrec;\n";
      for (uint32_t v : p.choice_domain) vals.push_back("v" + std::to_string(v));
      for (uint32_t v : p.choice_picked) vals.push_back("v" + std::to_string(v));
    }
    for (auto& v : head_values()) vals.push_back(v);
    for (const auto& v : vals) o << indent << target << ".push_back(" << v << ");\n";
    for (int c = 0; c < closes; ++c) {
      indent.resize(indent.size() - 2);
      o << indent << "}\n";
    }
    o << "  return fired;\n}\n";
  }

  // ---- components, transport, emit ---------------------------------------------

  void fixpoint_body(std::ostream& o, const ComponentPlan& comp, const std::string& ind) {
    if (comp.recursive) o << ind << "for (bool changed = true; changed;) {\n" << ind << "  changed = false;\n";
    const std::string in2 = comp.recursive ? ind + "  " : ind;
    for (uint32_t ri : comp.rules) {
      const RulePlan& p = cm_.rules[ri];
      const uint32_t A = arity(p.head_pred);
      const std::string rel = "s." + rel_name(p.head_pred);
      o << in2 << "{  // rule " << ri << "\n";
      o << in2 << "  s.buf.clear();\n";
      o << in2 << "  const bool fired = fix_r" << ri << "(s);\n";
      if (A == 0) {
        o << in2 << "  if (fired && " << rel << ".insert(nullptr)) changed = true;\n";
      } else {
        o << in2 << "  (void)fired;\n";
        o << in2 << "  for (size_t k = 0; k < s.buf.size(); k += " << A << ") {\n";
        o << in2 << "    s.poll();\n";
        o << in2 << "    if (" << rel << ".insert(s.buf.data() + k)) changed = true;\n";
        o << in2 << "  }\n";
      }
      o << in2 << "}\n";
    }
    if (comp.recursive) o << ind << "}\n";
  }

  void component_functions(std::ostream& o, size_t ci) {
    const ComponentPlan& comp = cm_.components[ci];
    const std::string next = ci + 1 < cm_.components.size() ? "run_from_" + std::to_string(ci + 1) : "transport";
    o << "\n// component " << ci << (comp.recursive ? " (recursive)" : "") << ": rules";
    for (uint32_t ri : comp.rules) o << " " << ri;
    if (!comp.choice_rules.empty()) {
      o << "; choice rules";
      for (uint32_t ri : comp.choice_rules) o << " " << ri;
    }
    o << "\nvoid fix_c" << ci << "(S& s) {\n  [[maybe_unused]] bool changed = false;\n";
    fixpoint_body(o, comp, "  ");
    o << "}\n";
    o << "void run_from_" << ci << "(S& s) {\n";
    if (comp.choice_rules.empty()) {
      o << "  fix_c" << ci << "(s);\n  " << next << "(s);\n}\n";
      return;
    }
    const size_t J = comp.choice_rules.size();
    o << "  ChoiceSet sets[" << J << "];\n";
    for (size_t j = 0; j < J; ++j) {
      const uint32_t ri = comp.choice_rules[j];
      const RulePlan& p = cm_.rules[ri];
      o << "  s.recs.clear();\n  s.nrec = 0;\n  choice_r" << ri << "(s);\n  sets[" << j << "].build(s.recs, s.nrec, " << p.choice_domain.size()
        << ", " << p.choice_picked.size() << ", " << arity(p.head_pred) << ", s.order);\n";
    }
    o << "  // Snapshot of every derived relation, restored after each outcome.\n";
    std::vector<Word> rels;
    for (Word q = 0; q < cm_.layout.arity.size(); ++q)
      if (is_state_pred(q)) rels.push_back(q);
    o << "  const uint32_t snap[" << std::max<size_t>(rels.size(), 1) << "] = {";
    for (size_t k = 0; k < rels.size(); ++k) o << (k ? ", " : "") << "s." << rel_name(rels[k]) << ".n";
    if (rels.empty()) o << "0";
    o << "};\n";
    o << "  for_each_outcome(\n      sets, " << J << ",\n      [&](size_t j, uint32_t pick) {\n";
    o << "        const W* h = sets[j].head_begin(pick);\n        const W* e = sets[j].head_end(pick);\n"
      << "        (void)h; (void)e;\n        switch (j) {\n";
    for (size_t j = 0; j < J; ++j) {
      const RulePlan& p = cm_.rules[comp.choice_rules[j]];
      const uint32_t A = arity(p.head_pred);
      o << "          case " << j << ":";
      if (A == 0)
        o << " s." << rel_name(p.head_pred) << ".insert(nullptr); break;\n";
      else
        o << " for (; h < e; h += " << A << ") s." << rel_name(p.head_pred) << ".insert(h); break;\n";
    }
    o << "        }\n      },\n      [&] {\n        fix_c" << ci << "(s);\n        " << next << "(s);\n";
    for (size_t k = 0; k < rels.size(); ++k) o << "        s." << rel_name(rels[k]) << ".truncate(snap[" << k << "]);\n";
    o << "      });\n}\n";
  }

  void transport_function(std::ostream& o) {
    o << "\n// Transport rules: messages start from none in every outcome.\nvoid transport(S& s) {\n  s.sent.clear();\n";
    std::vector<uint32_t> choice;
    for (uint32_t ri : cm_.transport_rules) {
      const RulePlan& p = cm_.rules[ri];
      if (p.has_choice) {
        choice.push_back(ri);
        continue;
      }
      const uint32_t A = arity(p.head_pred);
      o << "  {  // rule " << ri << "\n    s.buf.clear();\n    tr_r" << ri << "(s);\n";
      o << "    for (size_t k = 0; k < s.buf.size(); k += " << A + 1 << ") {\n";
      o << "      W run[" << A + 2 << "] = {s.buf[k], " << w(p.head_pred);
      for (uint32_t a = 0; a < A; ++a) o << ", s.buf[k + " << a + 1 << "]";
      o << "};\n      s.sent.add(run);\n    }\n  }\n";
    }
    if (choice.empty()) {
      o << "  emit(s);\n}\n";
      return;
    }
    const size_t J = choice.size();
    o << "  ChoiceSet sets[" << J << "];\n";
    for (size_t j = 0; j < J; ++j) {
      const RulePlan& p = cm_.rules[choice[j]];
      o << "  s.recs.clear();\n  s.nrec = 0;\n  choice_r" << choice[j] << "(s);\n  sets[" << j << "].build(s.recs, s.nrec, "
        << p.choice_domain.size() << ", " << p.choice_picked.size() << ", " << arity(p.head_pred) + 1 << ", s.order);\n";
    }
    o << "  const size_t sent_size = s.sent.runs.size();\n  s.picked.clear();\n";
    o << "  static const W kPred[" << J << "] = {";
    for (size_t j = 0; j < J; ++j) o << (j ? ", " : "") << w(cm_.rules[choice[j]].head_pred);
    o << "};\n";
    o << "  for_each_outcome(\n      sets, " << J << ",\n      [&](size_t j, uint32_t pick) {\n"
      << "        const W* h = sets[j].head_begin(pick);\n        const W* e = sets[j].head_end(pick);\n"
      << "        const uint32_t hw = sets[j].hw;\n"
      << "        for (; h < e; h += hw) {\n          s.picked.push_back(h[0]);\n          s.picked.push_back(kPred[j]);\n"
      << "          s.picked.insert(s.picked.end(), h + 1, h + hw);\n        }\n      },\n"
      << "      [&] {\n        for (size_t i = 0; i < s.picked.size(); i += s.sent.run_words(s.picked.data() + i))\n"
      << "          s.sent.add(s.picked.data() + i);\n        s.picked.clear();\n        emit(s);\n"
      << "        s.sent.truncate(sent_size);\n      });\n}\n";
  }

  void emit_function(std::ostream& o) {
    o << "\n// One outcome: the new DB (normalized, built-ins excluded) and the messages,\n"
      << "// split into arcs of the node and dropped ones.\nvoid emit(S& s) {\n  ddsmc_gen::Result& r = s.res;\n"
      << "  r.db.clear();\n";
    // Normalized order: by predicate id, then arguments. error (2) first.
    for (Word p = 0; p < cm_.layout.arity.size(); ++p)
      if (is_state_pred(p)) o << "  s." << rel_name(p) << ".append_sorted(" << w(p) << ", r.db, s.order);\n";
    o << "  r.sent.clear();\n  r.dropped.clear();\n  const std::vector<W>& runs = s.sent.runs;\n"
      << "  for (size_t i = 0; i < runs.size();) {\n    const W dest = runs[i];\n"
      << "    const size_t len = 2 + kArity[runs[i + 1]];\n"
      << "    const int32_t node = dest < kNumFixed ? kNodeOfConst[dest] : -1;\n"
      << "    const bool arc = node >= 0 && is_arc(s.me, static_cast<uint32_t>(node));\n"
      << "    std::vector<W>& target = arc ? r.sent : r.dropped;\n"
      << "    target.push_back(arc ? static_cast<W>(node) : dest);\n"
      << "    for (size_t k = i + 1; k < i + len; ++k) target.push_back(runs[k]);\n    i += len;\n  }\n"
      << "  s.hooks->emit(s.hooks->emit_ctx, r);\n}\n";
  }

  void entry_points(std::ostream& o) {
    o << "\n// ---- entry points ------------------------------------------------------\n"
      << "extern \"C\" uint32_t ddsmc_gen_abi_version() { return 2; }\n"
      << "extern \"C\" void* ddsmc_gen_new() { return new S(); }\n"
      << "extern \"C\" void ddsmc_gen_free(void* state) { delete static_cast<S*>(state); }\n"
      << "extern \"C\" void ddsmc_gen_step(void* state, const ddsmc_gen::Input* in, const ddsmc_gen::Hooks* hooks) {\n"
      << "  S& s = *static_cast<S*>(state);\n  s.in = in;\n  s.hooks = hooks;\n  s.me = in->node;\n"
      << "  s.src = kNodeConst[in->msg_src];\n"
      << "  for (uint32_t p = 0; p < kNumPreds; ++p) s.prev_n[p] = s.in_n[p] = 0;\n"
      << "  // The DB and the input are normalized: each predicate's facts are one run.\n"
      << "  for (size_t i = 0; i < in->db_words; i += 1 + kArity[in->db[i]])\n"
      << "    if (s.prev_n[in->db[i]]++ == 0) s.prev_base[in->db[i]] = in->db + i + 1;\n"
      << "  for (size_t i = 0; i < in->input_words; i += 1 + kArity[in->input[i]])\n"
      << "    if (s.in_n[in->input[i]]++ == 0) s.in_base[in->input[i]] = in->input + i + 1;\n"
      << "  const BuiltinRuns& b = kBuiltins[in->node];\n  s.bi_n[0] = s.bi_n[1] = 0;\n"
      << "  s.bi_base[0] = s.bi_base[1] = nullptr;\n"
      << "  for (uint32_t i = 0; i < b.size; i += 1 + kArity[b.words[i]])\n"
      << "    if (s.bi_n[b.words[i]]++ == 0) s.bi_base[b.words[i]] = b.words + i + 1;\n";
    for (Word p = 0; p < cm_.layout.arity.size(); ++p)
      if (is_state_pred(p)) o << "  s." << rel_name(p) << ".clear();\n";
    o << "  s.sent.clear();\n  " << (cm_.components.empty() ? "transport" : "run_from_0") << "(s);\n}\n";
  }

  const CompiledModel& cm_;
  const model::Model& m_;
  std::vector<bool> role_fix_, role_choice_, role_tr_;
};

}  // namespace

GeneratedStep generate_step_source(const CompiledModel& cm) {
  if (!cm.model) return {false, {}, "unsupported: no model"};
  return Gen(cm).run();
}

const std::string& codegen_abi_text() {
  static const std::string text = kAbi;
  return text;
}

}  // namespace ddsmc::engine
