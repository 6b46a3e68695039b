#include "engine/explore.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "engine/level.hpp"
#include "engine/parallel.hpp"
#include "engine/workers.hpp"
#include "hashing/tree_store.hpp"

namespace ddsmc::engine {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

using Worker = SliceWorker;

class Bfs {
 public:
  Bfs(const System& system, const ExploreOptions& opts, ExploreResult& res)
      : system_(system), opts_(opts), res_(res), g_(res.graph), store_(res.graph.store()),
        threads_(opts.threads ? opts.threads : hardware_threads()), pool_(threads_), arena_(static_cast<int>(threads_)) {
    workers_.push_back(std::make_unique<Worker>(system, opts.on_bound, store_.tree(), cancel()));
    res.threads = threads_;
    if (opts.spill) g_.spill_to(opts.spill);
  }

  // The BFS queue is the ids not expanded yet, [first, num_states()): it is
  // expanded a slice at a time, the slice committed before the next starts.
  // A slice is a BFS level, or its first kSlice states when wider, so that
  // what a slice holds while it runs (its sources' edges, its new states)
  // stays bounded however wide the levels grow. That keeps the sequential
  // numbering: see docs/engine.md §9.
  // `resume`: the first state of the queue of a restored graph, or
  // kNoState to start from the initial state.
  void run(StateId resume = kNoState) {
    StateId first = 0;
    if (resume == kNoState) start_initial();
    else first = resume;
    build_workers();
    while (res_.complete && first < g_.num_states()) {
      if (first != resume && opts_.checkpoint && opts_.checkpoint_due && opts_.checkpoint_due()) checkpoint(first);
      const StateId end = first + std::min<StateId>(g_.num_states() - first, kSlice);
      run_level(first, end);
      first = end;
    }
  }

  // The graph so far, for opts_.checkpoint.
  void checkpoint(StateId next) {
    ExplorePoint p(g_);
    p.states = g_.num_states();
    p.next = next;
    p.transitions = g_.num_edges();
    p.pruned_states = res_.pruned_states;
    p.canonical = res_.canonical;
    for (const auto& w : workers_) p.canonical += w->expander.stats();
    p.sizes = res_.sizes;
    for (const auto& w : workers_) p.sizes |= w->expander.sizes();
    p.seconds = res_.seconds + since(start_);
    opts_.checkpoint(p);
  }

  void finish_stats() {
    for (const auto& w : workers_) {
      res_.canonical += w->expander.stats();
      res_.sizes |= w->expander.sizes();
    }
  }

  void stop(std::string reason) {
    res_.complete = false;
    res_.incomplete_reason = std::move(reason);
  }

 private:
  const Cancellation& cancel() const { return opts_.cancel ? *opts_.cancel : Cancellation::none(); }

  // The workers after the first (which start_initial() uses), under
  // cancellation and --memory like the rest of the exploration: a signal
  // or the limit stops their building too.
  void build_workers() {
    Cancellation building(cancel());
    while (workers_.size() < threads_) {
      building.poll();
      check_memory_for(1);
      workers_.push_back(std::make_unique<Worker>(system_, opts_.on_bound, store_.tree(), cancel()));
    }
  }

  void start_initial() {
    hashing::GlobalState init = system_.initial_state();
    const uint32_t root = intern_growing([&] { return workers_[0]->expander.intern(init); }, [&] { grow_store(); });
    workers_[0]->expander.note_sizes(init);
    std::vector<uint64_t> labels(g_.label_words());
    g_.labels_of(init, system_, labels.data());
    g_.fill_state(g_.add_states(1), root, labels.data());
    store_.bind(root, 0);
    if (auto v = system_.check_bounds(init)) {
      res_.violation = v;
      res_.violating_state = 0;
      stop("bound");
    }
  }

  // Expands the slice [first, end) in rounds (so that the table can grow
  // between them and progress shows), then commits it.
  void run_level(StateId first, StateId end) {
    const uint64_t room = slice_room(opts_.max_states, g_.num_states());
    Slice slice(g_, arena_, workers_, first, end, first, room);
    const bool stop_at_violation = opts_.on_bound == OnBound::Stop;
    const StateId round = round_sources(threads_);
    for (StateId lo = first; lo < end;) {
      // Near a --max-states cut-off, rounds shrink to the sources expected to
      // reach it, so that a cut-off after a few states of a wide level does
      // not wait for a whole round of them.
      StateId n = round;
      if (opts_.max_states) {
        const uint64_t left = room - std::min<uint64_t>(room, slice.new_states());
        const double sources = double(left) / std::max(new_rate_, 1e-3) + double(threads_);
        n = static_cast<StateId>(std::min(static_cast<double>(n), sources));
      }
      const StateId hi = std::min<StateId>(end, lo + n);
      if (opts_.generators_changed && opts_.generators_changed(g_.num_states() + slice.new_states()))
        for (auto& w : workers_) w->expander.renew_generator();
      reserve_for(hi - lo, g_.num_states() + slice.new_states(), room);
      const uint64_t new_before = slice.new_states();
      slice.expand_round(
          workers_, lo, hi,
          [&](StateId s, Worker& w, uint32_t slot) {
            w.cancel.poll();
            if ((s & 255) == 0) maybe_report_progress(slice, end - s);  // (the clock: 1.5 % of a flooding run per state)
            LocalRouter router{w.expander, slice, system_, g_};
            slice.expand(s, s, router, slot);
          },
          [&] { grow_store(); });
      expanded_ += hi - lo;
      found_ += slice.new_states() - new_before;
      new_rate_ = double(found_) / double(expanded_);
      lo = hi;
      if (cut_certain(slice.new_states(), slice.found_violation(), room, stop_at_violation)) break;
    }
    KeyOrder numbering(g_, stop_at_violation);
    const Slice::Outcome out = slice.finish(numbering);
    transitions_.fetch_add(out.transitions, std::memory_order_relaxed);
    res_.pruned_states += out.pruned;
    if (out.cut.violating != kNoState) {
      hashing::GlobalState s;
      hashing::decode(g_.bytes(out.cut.violating), system_.layout(), s);
      res_.violation = system_.check_bounds(s);
      res_.violating_state = out.cut.violating;
      res_.violating_parent = out.cut.halted;
      stop("bound");
    } else if (out.cut.max_states) {
      stop("max-states");
    }
  }

  // Room in the store for the new states of a round of `sources` sources,
  // at the rate seen so far (at most one doubling ahead, and no more than
  // --max-states leaves room for), in the tree nodes and leaves per state
  // seen so far; a round that fills the store anyway is redone after it
  // grew.
  void reserve_for(size_t sources, size_t states, uint64_t room) {
    const auto& tree = store_.tree();
    const double expected = std::min({double(sources) * new_rate_, double(states), double(room)}) + 16;
    const double per = 1.0 / double(std::max<size_t>(states, 1));
    const auto nodes = static_cast<size_t>(expected * std::max(1.0, double(tree.nodes()) * per));
    const auto leaves = static_cast<size_t>(expected * std::max(0.1, double(tree.leaves()) * per));
    check_memory_for(store_.bytes_to_reserve(nodes, leaves));
    store_.reserve(nodes, leaves);
  }

  void grow_store() {
    check_memory_for(store_.bytes_to_grow());
    store_.grow();
  }

  // Stops with "memory-limit" (dropping the level in progress) when
  // allocating `bytes` more for the store would pass --memory.
  void check_memory_for(size_t bytes) {
    if (!opts_.memory_limit || !opts_.memory_in_use || bytes == 0) return;
    if (opts_.memory_in_use() + bytes > opts_.memory_limit) throw Cancelled(StopReason::MemoryLimit);
  }

  // From any worker, before every 256th state: the first worker to see that
  // a report is due makes it (queue: roughly, the frontier left plus the
  // new states).
  void maybe_report_progress(const Slice& slice, uint64_t queue) {
    if (!opts_.progress) return;
    const int64_t now = Clock::now().time_since_epoch().count();
    int64_t due = next_progress_.load(std::memory_order_relaxed);
    if (now < due) return;
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opts_.progress_interval));
    if (!next_progress_.compare_exchange_strong(due, now + interval.count(), std::memory_order_relaxed)) return;
    opts_.progress({g_.num_states() + slice.new_states(), transitions_.load(std::memory_order_relaxed),
                    queue + slice.new_states(), opts_.spill ? opts_.spill->bytes() : 0, since(start_)});
  }

  const System& system_;
  const ExploreOptions& opts_;
  ExploreResult& res_;
  StateGraph& g_;
  StateStore& store_;
  size_t threads_;
  WorkerPool pool_;  // lets TBB run threads_ workers, even more than the cores
  tbb::task_arena arena_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<uint64_t> transitions_{0};  // read by the worker that reports progress
  uint64_t expanded_ = 0, found_ = 0;
  double new_rate_ = 1.0;  // new states per expanded state so far
  Clock::time_point start_ = Clock::now();
  std::atomic<int64_t> next_progress_{(start_ + std::chrono::duration_cast<Clock::duration>(
                                                    std::chrono::duration<double>(opts_.progress_interval)))
                                          .time_since_epoch()
                                          .count()};
};

}  // namespace

namespace {

void run_bfs(const System& system, const ExploreOptions& opts, ExploreResult& res, StateId resume) {
  auto start = Clock::now();
  Bfs bfs(system, opts, res);
  // A stop request or an allocation failure ends the exploration with the
  // graph committed so far: the level in progress is dropped (its frontier
  // stays unexpanded). Every StateGraph update is all or nothing, so the
  // graph is consistent whatever threw.
  try {
    bfs.run(resume);
  } catch (const Cancelled& c) {
    if (res.complete) bfs.stop(stop_reason_name(c.reason()));
  } catch (const std::bad_alloc&) {
    if (res.complete) bfs.stop(stop_reason_name(StopReason::OutOfMemory));
  }
  bfs.finish_stats();
  res.memory = res.graph.memory();
  res.seconds += since(start);
}

}  // namespace

ExploreResult explore(const System& system, const ExploreOptions& opts) {
  ExploreResult res(system.layout(), opts.initial_table, system.edge_arcs());
  run_bfs(system, opts, res, kNoState);
  return res;
}

void explore_from(const System& system, const ExploreOptions& opts, ExploreResult& res, StateId next) {
  run_bfs(system, opts, res, next);
}

}  // namespace ddsmc::engine
