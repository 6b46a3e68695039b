// The dependency graph among state predicates (head on body, `prev` atoms
// excluded, negative edges marked): stratification (docs/reference.md §2.3,
// rule 5), the completeness of choice bodies (rule 4), and the evaluation
// order of docs/reference.md §2.4 (components in topological order). One iterative Tarjan
// serves all three; paths are found by BFS and the order by Kahn, so nothing
// recurses on the size of the program.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "model/resolve/context.hpp"

namespace ddsmc::model::resolver {
namespace {

class DependencyAnalysis {
 public:
  explicit DependencyAnalysis(Resolution& r) : r_(r) {}

  void run() {
    const uint32_t n = static_cast<uint32_t>(r_.m.preds.size());
    build_graph(n);
    tarjan(n);

    // Rule 5: a negative edge inside an SCC closes a cycle through negation.
    for (const DepEdge& e : r_.edges) {
      if (!e.negative || comp_[e.from] != comp_[e.to]) continue;
      std::string cycle;
      if (e.from == e.to) {
        cycle = fmt::format("{} -> not {}", name(e.from), name(e.to));
      } else if (auto path = path_in_scc(e.to, e.from)) {
        cycle = fmt::format("{} -> not {}", name(e.from), format_path(e.to, *path));
      } else {
        cycle = fmt::format("{} -> not {} -> ... -> {}", name(e.from), name(e.to), name(e.from));
      }
      r_.diag.error(e.loc, fmt::format("unstratified negation: {}, {}", cycle, r_.rule_where(e.rule)));
    }

    // Rule 4: the body of a choice rule is complete before the rule fires.
    // The head h reads q, so q depends on h exactly when they share an SCC.
    for (size_t k : r_.choice_edges) {
      const DepEdge& e = r_.edges[k];
      if (comp_[e.from] != comp_[e.to]) continue;
      std::string msg;
      if (e.from == e.to) {
        msg = fmt::format("choice rule for '{}' reads '{}' itself, so its body is not complete when it chooses",
                          name(e.from), name(e.to));
      } else {
        auto path = path_in_scc(e.to, e.from);
        msg = fmt::format("choice rule for '{}' reads '{}', which depends on '{}' ({})", name(e.from), name(e.to),
                          name(e.from),
                          path ? format_path(e.to, *path) : fmt::format("{} -> ... -> {}", name(e.to), name(e.from)));
      }
      r_.diag.error(e.loc, fmt::format("{}, {}", msg, r_.rule_where(e.rule)));
    }

    order_components(n);
    for (uint32_t i = 0; i < r_.prog.rules.size(); ++i) {
      PredId h = r_.rule_head[i];
      if (h != kNoPred && r_.m.preds[h].kind == PredKind::Transport) r_.m.transport_rules.push_back(i);
    }
  }

 private:
  const std::string& name(PredId p) const { return r_.name(p); }

  // Deduplicated adjacency (CSR) of the state graph: head -> body predicate,
  // negative when some literal for the pair is negated.
  void build_graph(uint32_t n) {
    std::vector<uint32_t> count(n + 1, 0);
    for (const DepEdge& e : r_.edges) ++count[e.from + 1];
    for (uint32_t v = 0; v < n; ++v) count[v + 1] += count[v];
    std::vector<std::pair<PredId, bool>> raw(r_.edges.size());
    {
      std::vector<uint32_t> fill(count.begin(), count.end() - 1);
      for (const DepEdge& e : r_.edges) raw[fill[e.from]++] = {e.to, e.negative};
    }
    adj_begin_.assign(n + 1, 0);
    adj_.clear();
    adj_.reserve(raw.size());
    std::vector<uint32_t> last_src(n, kNone), pos(n, 0);
    for (uint32_t v = 0; v < n; ++v) {
      adj_begin_[v] = static_cast<uint32_t>(adj_.size());
      for (uint32_t k = count[v]; k < count[v + 1]; ++k) {
        auto [to, neg] = raw[k];
        if (last_src[to] == v) {
          adj_[pos[to]].second = adj_[pos[to]].second || neg;
        } else {
          last_src[to] = v;
          pos[to] = static_cast<uint32_t>(adj_.size());
          adj_.emplace_back(to, neg);
        }
      }
    }
    adj_begin_[n] = static_cast<uint32_t>(adj_.size());
  }

  // Iterative Tarjan: comp_[p] is p's SCC; SCC ids come out in reverse
  // topological order (an SCC after every SCC it reads).
  void tarjan(uint32_t n) {
    comp_.assign(n, kNone);
    std::vector<uint32_t> index(n, kNone), low(n, 0);
    std::vector<char> on_stack(n, 0);
    std::vector<PredId> stack;
    struct Frame {
      PredId v;
      uint32_t next;  // next edge to look at
    };
    std::vector<Frame> calls;
    uint32_t counter = 0;
    num_comps_ = 0;
    auto enter = [&](PredId v) {
      index[v] = low[v] = counter++;
      stack.push_back(v);
      on_stack[v] = 1;
      calls.push_back({v, adj_begin_[v]});
    };
    for (PredId s = 0; s < n; ++s) {
      if (index[s] != kNone) continue;
      enter(s);
      while (!calls.empty()) {
        PredId v = calls.back().v;
        if (calls.back().next < adj_begin_[v + 1]) {
          PredId w = adj_[calls.back().next++].first;
          if (index[w] == kNone)
            enter(w);
          else if (on_stack[w])
            low[v] = std::min(low[v], index[w]);
          continue;
        }
        if (low[v] == index[v]) {
          PredId w;
          do {
            w = stack.back();
            stack.pop_back();
            on_stack[w] = 0;
            comp_[w] = num_comps_;
          } while (w != v);
          ++num_comps_;
        }
        calls.pop_back();
        if (!calls.empty()) low[calls.back().v] = std::min(low[calls.back().v], low[v]);
      }
    }
  }

  // Shortest path from `from` to `to` inside their common SCC, as the steps
  // after `from` (predicate, whether the edge into it is negative); nullopt
  // once the total search budget is spent (pathological files).
  std::optional<std::vector<std::pair<PredId, bool>>> path_in_scc(PredId from, PredId to) {
    const uint32_t n = static_cast<uint32_t>(r_.m.preds.size());
    if (bfs_stamp_.size() != n) {
      bfs_stamp_.assign(n, 0);
      bfs_parent_.assign(n, {kNone, false});
    }
    if (path_budget_ <= 0) return std::nullopt;
    ++stamp_;
    const uint32_t c = comp_[from];
    std::queue<PredId> queue;
    queue.push(from);
    bfs_stamp_[from] = stamp_;
    bool found = from == to;
    while (!queue.empty() && !found) {
      PredId v = queue.front();
      queue.pop();
      for (uint32_t k = adj_begin_[v]; k < adj_begin_[v + 1]; ++k) {
        --path_budget_;
        auto [w, neg] = adj_[k];
        if (comp_[w] != c || bfs_stamp_[w] == stamp_) continue;
        bfs_stamp_[w] = stamp_;
        bfs_parent_[w] = {v, neg};
        if (w == to) {
          found = true;
          break;
        }
        queue.push(w);
      }
    }
    if (!found) return std::nullopt;
    std::vector<std::pair<PredId, bool>> steps;
    for (PredId v = to; v != from; v = bfs_parent_[v].first) steps.emplace_back(v, bfs_parent_[v].second);
    std::reverse(steps.begin(), steps.end());
    return steps;
  }

  // "q -> not r -> p"; a long path keeps its first and last steps only.
  std::string format_path(PredId from, const std::vector<std::pair<PredId, bool>>& steps) const {
    constexpr size_t kKeep = 5;
    std::string out = name(from);
    for (size_t k = 0; k < steps.size(); ++k) {
      if (steps.size() > 3 * kKeep && k == kKeep) {
        out += fmt::format(" -> ... ({} more) ...", steps.size() - 2 * kKeep);
        k = steps.size() - kKeep - 1;
        continue;
      }
      out += fmt::format(" -> {}{}", steps[k].second ? "not " : "", name(steps[k].first));
    }
    return out;
  }

  // Kahn's algorithm over the SCC graph, the ready SCC with the smallest
  // predicate id first, so the order depends only on the program.
  void order_components(uint32_t n) {
    const uint32_t nc = num_comps_;
    std::vector<uint32_t> pending(nc, 0), min_pred(nc, kNone);
    std::vector<uint32_t> members_begin(nc + 1, 0);
    for (PredId p = 0; p < n; ++p) {
      min_pred[comp_[p]] = std::min(min_pred[comp_[p]], p);
      ++members_begin[comp_[p] + 1];
    }
    for (uint32_t c = 0; c < nc; ++c) members_begin[c + 1] += members_begin[c];
    std::vector<PredId> members(n);
    {
      std::vector<uint32_t> fill(members_begin.begin(), members_begin.end() - 1);
      for (PredId p = 0; p < n; ++p) members[fill[comp_[p]]++] = p;  // ascending within an SCC
    }
    // dependents: for SCC d, the SCCs that read it (with multiplicity).
    std::vector<uint32_t> dep_begin(nc + 1, 0);
    for (PredId v = 0; v < n; ++v)
      for (uint32_t k = adj_begin_[v]; k < adj_begin_[v + 1]; ++k)
        if (comp_[adj_[k].first] != comp_[v]) ++dep_begin[comp_[adj_[k].first] + 1], ++pending[comp_[v]];
    for (uint32_t c = 0; c < nc; ++c) dep_begin[c + 1] += dep_begin[c];
    std::vector<uint32_t> dependents(dep_begin[nc]);
    {
      std::vector<uint32_t> fill(dep_begin.begin(), dep_begin.end() - 1);
      for (PredId v = 0; v < n; ++v)
        for (uint32_t k = adj_begin_[v]; k < adj_begin_[v + 1]; ++k)
          if (comp_[adj_[k].first] != comp_[v]) dependents[fill[comp_[adj_[k].first]]++] = comp_[v];
    }

    // The rules of each SCC, in source order.
    std::vector<int32_t> comp_slot(nc, -1);
    std::vector<std::vector<uint32_t>> choice_rules(nc), other_rules(nc);
    std::vector<char> has_rules(nc, 0), recursive(nc, 0);
    for (uint32_t i = 0; i < r_.prog.rules.size(); ++i) {
      PredId h = r_.rule_head[i];
      if (h == kNoPred || r_.m.preds[h].kind != PredKind::State) continue;
      uint32_t c = comp_[h];
      has_rules[c] = 1;
      (r_.m.rules[i].choice ? choice_rules[c] : other_rules[c]).push_back(i);
    }
    for (const DepEdge& e : r_.edges)
      if (comp_[e.from] == comp_[e.to]) recursive[comp_[e.from]] = 1;

    using Entry = std::pair<uint32_t, uint32_t>;  // (min pred id, SCC)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (uint32_t c = 0; c < nc; ++c)
      if (pending[c] == 0) ready.push({min_pred[c], c});
    while (!ready.empty()) {
      uint32_t c = ready.top().second;
      ready.pop();
      if (has_rules[c]) {
        Component comp;
        comp.preds.assign(members.begin() + members_begin[c], members.begin() + members_begin[c + 1]);
        comp.choice_rules = std::move(choice_rules[c]);
        comp.rules = std::move(other_rules[c]);
        comp.recursive = recursive[c];
        r_.m.components.push_back(std::move(comp));
      }
      for (uint32_t k = dep_begin[c]; k < dep_begin[c + 1]; ++k)
        if (--pending[dependents[k]] == 0) ready.push({min_pred[dependents[k]], dependents[k]});
    }
  }

  Resolution& r_;
  std::vector<uint32_t> adj_begin_;
  std::vector<std::pair<PredId, bool>> adj_;
  std::vector<uint32_t> comp_;
  uint32_t num_comps_ = 0;
  std::vector<uint32_t> bfs_stamp_;
  std::vector<std::pair<PredId, bool>> bfs_parent_;
  uint32_t stamp_ = 0;
  int64_t path_budget_ = 10'000'000;  // edges looked at by all path searches together
};

}  // namespace

void analyse_dependencies(Resolution& r) { DependencyAnalysis(r).run(); }

}  // namespace ddsmc::model::resolver
