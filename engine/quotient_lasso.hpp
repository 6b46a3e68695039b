// A concrete lasso from a quotient finding (engine/quotient.hpp): the
// witness or counterexample of a check under network symmetry, as a run of
// the concrete system.
//
// The stem is the quotient path lifted edge by edge: with τ_0 = id and
// τ_i = τ_(i-1) ∘ π_(e_i)⁻¹, the concrete path visits τ_i(q_i) and its
// i-th edge serves τ_(i-1)(b_i). It ends at τ_k(r). The cycle is found
// concretely: the concrete SCC D of r (its states up to renaming, every
// successor kept whose orbit representative is a member of C̄, with the
// tracked node's position where it must be) is explored from r into a
// small StateGraph, whose fair SCC from r is D itself (the lift is closed:
// engine/quotient.hpp), and the ordinary lasso search (engine/fair_scc)
// finds a cycle through it and a path to it. That lasso, moved by τ_k, is
// appended to the stem. |D| is at most |H| times |C̄|.
//
// Language-free: it needs the System's generator and faults, and
// hashing's canonical forms.
#pragma once

#include <optional>

#include "engine/analysis.hpp"
#include "engine/quotient.hpp"
#include "engine/system.hpp"

namespace ddsmc::engine {

// The whole analysis of p on a quotient graph `g` of system's group: the
// verdict of analyze_quotient, and its finding made concrete (an empty
// ConcreteLasso when it does not lift: an engine bug). What the one
// process and rank 0 of an MPI job (on the gathered graph) both run.
Verdict analyze_symmetric(const System& system, const StateGraph& g, Property p, Fairness fairness, bool complete,
                          Cancellation& cancel);

// nullopt when the finding does not lift (an engine bug). Polls `cancel`.
std::optional<ConcreteLasso> concrete_lasso(const System& system, const StateGraph& g, const QuotientFinding& f,
                                            Fairness fairness, Cancellation& cancel);

// A path of the quotient from the initial state (each state an edge's
// target from the one before), lifted the same way (loop_start unused);
// nullopt when two states of it are not joined by an edge.
std::optional<ConcreteLasso> concrete_path(const System& system, const StateGraph& g,
                                           const std::vector<StateId>& path, Cancellation& cancel);

}  // namespace ddsmc::engine
