// The whole contract between a modelling language and the exploration
// back-ends, as LTSmin's PINS is for its pins2lts-seq/mc/dist: the layout of
// a state, the initial state, every step of a state with its label, and the
// labels of a state the analysis reads. A back-end (sequential, threaded,
// MPI) and the analysis see only this header, GlobalState bytes and
// hashing/; the D2C implementation lives in engine/d2c/ (D2cSystem), and the
// engine library does not link model/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/function_ref.hpp"
#include "hashing/state.hpp"
#include "hashing/symmetry.hpp"

namespace ddsmc::engine {

// The arc label of the idle self-loop of a state whose channels are all
// empty: the one step that serves no arc.
inline constexpr uint32_t kIdleArc = 0xffffffffu;

// Under network symmetry (System::symmetry) the state graph is the
// quotient by the group: an edge x -> y for a concrete step of x to y'
// also records the element π of the group with π(y') = y up to renaming
// (docs/semantics.md, "Network symmetry"). It rides in the edge's arc:
// arc + num_arcs * π; the idle loop stays kIdleArc (π the identity).
inline uint32_t quotient_arc(uint32_t arc, uint32_t element, uint32_t num_arcs) {
  return arc == kIdleArc ? kIdleArc : arc + num_arcs * element;
}
// The arc an edge's arc field serves, and the group element it carries.
inline uint32_t served_arc(uint32_t arc, uint32_t num_arcs) { return arc == kIdleArc ? kIdleArc : arc % num_arcs; }
inline uint32_t edge_element(uint32_t arc, uint32_t num_arcs) { return arc == kIdleArc ? 0 : arc / num_arcs; }

// The label of a step, and of an edge of the state graph.
struct EdgeLabel {
  uint32_t arc = kIdleArc;
  bool stable = true;  // the processing node's DB did not change
  friend bool operator==(const EdgeLabel&, const EdgeLabel&) = default;
};

// A state over a declared bound (docs/reference.md §3.8).
struct BoundViolation {
  enum class Kind : uint8_t { State, Channel } kind = Kind::State;
  uint32_t where = 0;  // node (state bound) or arc (channel bound)
  uint32_t value = 0;  // distinct constants or payloads found
  uint32_t bound = 0;
};

// What a back-end learns of one step besides its label and successor.
struct StepInfo {
  // The first bound the successor exceeds (the source is within bounds).
  std::optional<BoundViolation> violation;
  // The parts of the state the step changed, ascending (node n is part n,
  // arc a is part num_nodes + a; see hashing::SegmentedEncoding); null for
  // "unknown".
  const std::vector<uint32_t>* changed_parts = nullptr;
};

// Generates the steps of states. Pure and re-entrant: one per worker, all
// scratch inside, nothing shared and mutable.
class Generator {
 public:
  using Sink = FunctionRef<void(const EdgeLabel&, const hashing::GlobalState&, const StepInfo&)>;
  virtual ~Generator() = default;
  // Calls sink once per step of s; the references are valid during the call
  // only. A state with no other step has the idle step (the system is
  // serial). Throws Cancelled when the token set below says so.
  // s is edited in place (a step's successor is s with the few parts it
  // changed, which spares copying the whole state per state expanded): the
  // successor the sink sees may be s itself. When the call returns, s is
  // byte-equal to its value on entry; when it throws (Cancelled, bad_alloc,
  // or whatever the sink throws), s may be left edited and the caller must
  // not rely on its value. A caller with a const state passes a copy.
  virtual void successors(hashing::GlobalState& s, Sink sink) = 0;
  // Never null; the default never stops.
  virtual void set_cancellation(Cancellation* c) = 0;
  // Set when the caller drops every successor over a bound (--on-bound
  // prune): the generator may then drop those it can tell early, before
  // building them, instead of calling the sink, and count them in
  // skipped(). By default every step reaches the sink.
  virtual void set_skip_violating(bool) {}
  virtual uint64_t skipped() const { return 0; }
};

class System {
 public:
  virtual ~System() = default;
  virtual const hashing::StateLayout& layout() const = 0;
  virtual hashing::GlobalState initial_state() const = 0;
  // The first bound the state exceeds (nodes first, then arcs), if any.
  virtual std::optional<BoundViolation> check_bounds(const hashing::GlobalState& s) const = 0;
  // Whether `node` is faulty in s (docs/reference.md §4.1: `error` in its DB).
  virtual bool faulty(const hashing::GlobalState& s, uint32_t node) const = 0;
  // False when no reachable state can hold a fresh constant: the canonical
  // form is then the plain encoding.
  virtual bool may_have_fresh() const = 0;
  virtual std::unique_ptr<Generator> generator() const = 0;
  // The group of node permutations the state space is explored up to
  // (hashing/symmetry.hpp), or nullptr: none (the default). Never a
  // trivial group.
  virtual const hashing::SymmetryGroup* symmetry() const { return nullptr; }
  // The range of the edges' arc fields: num_arcs, times the group's order
  // under symmetry (quotient_arc).
  uint32_t edge_arcs() const {
    const uint64_t n = uint64_t{layout().num_arcs} * (symmetry() ? symmetry()->order() : 1);
    return static_cast<uint32_t>(n);
  }
};

}  // namespace ddsmc::engine
