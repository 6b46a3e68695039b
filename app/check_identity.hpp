// What identifies a check (docs/engine.md §14, docs/dist.md "Consensus on
// the check"): a checkpoint is resumed only by a check of the same
// identity, and the ranks of an MPI job must all have the same one.
//
// It is made of what was loaded, never of paths read again (a pipe,
// /dev/stdin or <(...) gives its bytes once): the model file's bytes as
// the loader read and parsed them, the network as built (its nodes' names
// in id order and its edges, whatever gave it: a generator, an edge-list
// file, a pipe, the model's own declaration), the effective bounds (the
// model's declaration or the options', so `--state-bound 0` on a model
// declaring `state 0` changes nothing), and the options that change the
// result: the property, fairness, --on-bound and --max-states; and
// --partition-key, which changes no result but which rank holds each state
// of a checkpoint (normalised: nodes+arcs/1 is all). Not in it: --threads,
// --backend, --memory, the output paths, the model's path.
#pragma once

#include <string>

#include "app/commands.hpp"
#include "model/model.hpp"

namespace ddsmc::app {

// `model_bytes`: the model file's bytes as model::load_model read them.
// The fields are length-prefixed: two different checks never give the
// same string.
std::string check_identity(const CheckOptions& o, const model::Model& m, const std::string& model_bytes);

}  // namespace ddsmc::app
