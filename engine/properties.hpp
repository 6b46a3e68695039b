// The table of the four properties of docs/reference.md §4.3 (docs/engine.md §10),
// written once for the single-process analysis (engine/analysis.cpp) and
// the distributed one (dist/analysis.cpp), so that both give the same
// verdicts by construction:
//
//   property            H (engine/subgraph.hpp)                      a fair SCC of H
//   sometimes-total     no node faulty; stable edges; roots: all     a witness: holds
//   sometimes-partial   not every node faulty; stable edges; all     a witness: holds
//   always-total        no node faulty; all edges; from state 0;     a counterexample:
//                       the SCC needs a non-stable edge              violated
//   always-partial      per node n, n not faulty (else as            a counterexample for
//                       always-total); the nodes faulty in no        n: violated, `node` n
//                       state give one H, examined once
//
// The subgraphs are examined in that order and the first with a fair SCC
// decides; with none, the verdict is the opposite only on a complete graph
// (an incomplete one leaves it undecided). The lasso is the one the search
// of the first fair SCC builds (its stem through H for always-*).
#pragma once

#include <optional>
#include <vector>

#include "engine/analysis.hpp"
#include "engine/function_ref.hpp"
#include "engine/subgraph.hpp"

namespace ddsmc::engine {

// Whether H has a fair SCC under the caller's fairness, adding what it did
// to `stats`; when it has, `lasso` may receive its lasso (in dist/, rank 0
// only: the answer itself is every rank's).
using FairSccSearch = FunctionRef<bool(const Subgraph& h, AnalysisStats& stats, std::optional<Lasso>& lasso)>;

// The nodes faulty in some state of the graph (all of it, over the ranks
// in dist/): one char per node. Asked for by always-partial only.
using EverFaulty = FunctionRef<std::vector<char>()>;

// The verdict on `p` over the graph `g` (in dist/, a shard: keep_state
// takes its local ids), from the searches `find` runs on the property's
// subgraphs, which poll `cancel`.
Verdict decide(const StateGraph& g, Property p, bool complete, Cancellation& cancel, EverFaulty ever_faulty,
               FairSccSearch find);

}  // namespace ddsmc::engine
