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

// What one worker (one slot of the TBB arena) owns.
struct Worker {
  Worker(const System& system, OnBound on_bound, hashing::TreeStore& store, const Cancellation& c)
      : expander(system, on_bound, store), cancel(c) {
    expander.set_cancellation(&cancel);
  }
  Expander expander;
  Cancellation cancel;  // a copy per worker: it keeps a little state of its own
  Level::Edges edges;
};

// The most sources one slice of the queue takes (see run()): about 16 MiB
// of edge buffers and new states at 10 successors per state; a slice has
// 4 to 16 rounds at 2 to 8 threads.
inline constexpr StateId kSlice = StateId{1} << 17;

class Bfs {
 public:
  Bfs(const System& system, const ExploreOptions& opts, ExploreResult& res)
      : system_(system), opts_(opts), res_(res), g_(res.graph), store_(res.graph.store()),
        threads_(opts.threads ? opts.threads : hardware_threads()), pool_(threads_), arena_(static_cast<int>(threads_)) {
    workers_.push_back(std::make_unique<Worker>(system, opts.on_bound, store_.tree(), cancel()));
    res.threads = threads_;
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
    p.seconds = res_.seconds + since(start_);
    opts_.checkpoint(p);
  }

  void finish_stats() {
    for (const auto& w : workers_) res_.canonical += w->expander.stats();
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

  // Expands the frontier [first, end) in rounds (so that the table can grow
  // between them and progress shows), then commits it.
  void run_level(StateId first, StateId end) {
    const uint64_t room = opts_.max_states ? opts_.max_states - std::min<uint64_t>(opts_.max_states, g_.num_states())
                                           : std::numeric_limits<uint64_t>::max();
    Level level(system_, g_, first, end, room);
    for (auto& w : workers_) w->edges.edges.clear();
    const bool stop_at_violation = opts_.on_bound == OnBound::Stop;
    const StateId round = static_cast<StateId>(std::max<size_t>(1024, 4096 * threads_));
    StateId redo = 0;  // the end of the round TreeStoreFull interrupted (0: none)
    for (StateId lo = first; lo < end;) {
      // Near a --max-states cut-off, rounds shrink to the sources expected to
      // reach it, so that a cut-off after a few states of a wide level does
      // not wait for a whole round of them.
      StateId n = round;
      if (opts_.max_states) {
        const uint64_t left = room - std::min<uint64_t>(room, level.new_states());
        const double sources = double(left) / std::max(new_rate_, 1e-3) + double(threads_);
        n = static_cast<StateId>(std::min<double>(n, sources));
      }
      // A round TreeStoreFull interrupted is redone whole, however far the
      // states it found (which stay in the level) moved the cut-off: a
      // cut-off may fall among them only once all its sources are expanded.
      const StateId hi = redo ? redo : std::min<StateId>(end, lo + n);
      redo = 0;
      reserve_for(hi - lo, g_.num_states() + level.new_states(), room);
      const uint64_t new_before = level.new_states();
      std::vector<size_t> sizes;
      for (auto& w : workers_) sizes.push_back(w->edges.edges.size());
      try {
        arena_.execute([&] {
          parallel_for(lo, hi, 16, [&](const tbb::blocked_range<StateId>& r) {
            const uint32_t slot = worker_slot();
            Worker& w = *workers_[slot];
            for (StateId s = r.begin(); s < r.end(); ++s) {
              w.cancel.poll();
              maybe_report_progress(level, end - s);
              level.expand(s, w.expander, w.edges, slot);
            }
          });
        });
      } catch (const hashing::TreeStoreFull&) {
        for (size_t i = 0; i < workers_.size(); ++i) workers_[i]->edges.edges.resize(sizes[i]);
        level.forget(lo, hi);
        grow_store();
        redo = hi;
        continue;
      }
      expanded_ += hi - lo;
      found_ += level.new_states() - new_before;
      new_rate_ = double(found_) / double(expanded_);
      lo = hi;
      // A cut-off falls among the states found so far: later sources only
      // find states with larger discovery keys.
      if (level.new_states() > room || (stop_at_violation && level.found_violation())) break;
    }
    std::vector<Level::Edges*> buffers;
    for (auto& w : workers_) buffers.push_back(&w->edges);
    Level::Outcome out = arena_.execute([&] { return level.finish(buffers, room, stop_at_violation); });
    transitions_.fetch_add(out.transitions, std::memory_order_relaxed);
    res_.pruned_states += out.pruned;
    if (out.violating) {
      hashing::GlobalState s;
      hashing::decode(g_.bytes(*out.violating), system_.layout(), s);
      res_.violation = system_.check_bounds(s);
      res_.violating_state = *out.violating;
      res_.violating_parent = out.violating_parent;
      stop("bound");
    } else if (out.max_states) {
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

  // From any worker, before a state: the first worker to see that a report
  // is due makes it (queue: roughly, the frontier left plus the new states).
  void maybe_report_progress(const Level& level, uint64_t queue) {
    if (!opts_.progress) return;
    const int64_t now = Clock::now().time_since_epoch().count();
    int64_t due = next_progress_.load(std::memory_order_relaxed);
    if (now < due) return;
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opts_.progress_interval));
    if (!next_progress_.compare_exchange_strong(due, now + interval.count(), std::memory_order_relaxed)) return;
    opts_.progress({g_.num_states() + level.new_states(), transitions_.load(std::memory_order_relaxed),
                    queue + level.new_states(), since(start_)});
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
  ExploreResult res(system.layout(), opts.initial_table);
  run_bfs(system, opts, res, kNoState);
  return res;
}

void explore_from(const System& system, const ExploreOptions& opts, ExploreResult& res, StateId next) {
  run_bfs(system, opts, res, next);
}

}  // namespace ddsmc::engine
