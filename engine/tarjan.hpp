// Iterative Tarjan, written once for every view of a graph the analysis
// walks: a property's subgraph of the state graph (engine/fair_scc) and
// the quotient's views, with or without a tracked node (engine/quotient).
//
// A View gives: `Vertex` (an integer type) and `Cursor` (where a vertex's
// walk of its edges stands, default-constructed at the start); size(), the
// vertices are below it; keep(v), whether v is in the view; next(v, c, w),
// the next successor w of v in the view from cursor c on (false at the
// end); poll(), the cancellation point, called once per step of the walk.
// Index is the type of the DFS numbers (at least as wide as the number of
// vertices a walk may visit).
//
// Per vertex it keeps the DFS index and an on-stack bit; the low link
// lives in the DFS frame, since only the vertices on the call stack need
// one. run_from(root, on_scc) calls on_scc(members) for every SCC found
// from root (a vertex already visited or not kept finds none), and stops
// early, returning true, when on_scc returns true.
#pragma once

#include <algorithm>
#include <vector>

namespace ddsmc::engine {

template <class View, class Index>
class Tarjan {
 public:
  using Vertex = typename View::Vertex;
  explicit Tarjan(const View& v) : v_(v), index_(v.size(), kUnvisited), on_stack_(v.size(), false) {}

  template <class OnScc>
  bool run_from(Vertex root, OnScc&& on_scc) {
    if (index_[root] != kUnvisited || !v_.keep(root)) return false;
    struct Frame {
      Vertex v;
      Index low;
      typename View::Cursor cursor;
    };
    std::vector<Frame> call{{root, visit(root), {}}};
    while (!call.empty()) {
      v_.poll();
      Frame& f = call.back();
      Vertex w{};
      if (v_.next(f.v, f.cursor, w)) {
        if (index_[w] == kUnvisited) call.push_back({w, visit(w), {}});  // (f may dangle from here on)
        else if (on_stack_[w]) f.low = std::min(f.low, index_[w]);
        continue;
      }
      const Vertex v = f.v;
      const Index low = f.low;
      call.pop_back();
      if (!call.empty()) call.back().low = std::min(call.back().low, low);
      if (low == index_[v] && on_scc(pop_scc(v))) return true;
    }
    return false;
  }

  // Hands over the per-vertex index array (size() entries), for the
  // caller's later searches to reuse; the walk is done then.
  std::vector<Index> release() { return std::move(index_); }

 private:
  static constexpr Index kUnvisited = static_cast<Index>(~Index{0});
  Index visit(Vertex v) {
    index_[v] = counter_++;
    stack_.push_back(v);
    on_stack_[v] = true;
    return index_[v];
  }
  // The SCC whose root is v: the stack down to v.
  std::vector<Vertex> pop_scc(Vertex v) {
    std::vector<Vertex> members;
    Vertex w;
    do {
      w = stack_.back();
      stack_.pop_back();
      on_stack_[w] = false;
      members.push_back(w);
    } while (w != v);
    return members;
  }

  const View& v_;
  std::vector<Index> index_;
  std::vector<bool> on_stack_;
  std::vector<Vertex> stack_;
  Index counter_ = 0;
};

}  // namespace ddsmc::engine
