#include "engine/expander.hpp"

#include <stdexcept>

namespace ddsmc::engine {

Expander::Expander(const System& system, OnBound on_bound)
    : system_(system), on_bound_(on_bound), gen_(system.generator()), canon_(system.layout()) {}

const hashing::CanonicalForm& Expander::canonical(const hashing::GlobalState& s) {
  if (system_.may_have_fresh()) {
    canon_.canonicalize(s, form_);
  } else {
    // Without fresh constants every state is its own canonical form.
    hashing::encode(s, system_.layout(), form_.bytes);
    form_.fingerprint = hashing::fingerprint(form_.bytes);
    ++plain_;
  }
  return form_;
}

void Expander::expand(std::string_view bytes, FunctionRef<void(const Candidate&)> out) {
  const auto& layout = system_.layout();
  if (!hashing::decode(bytes, layout, current_)) throw std::logic_error("stored state does not decode");
  const bool plain = !system_.may_have_fresh();
  if (plain) hashing::encode_segmented(current_, layout, base_);
  gen_->successors(current_, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info) {
    if (info.violation && on_bound_ == OnBound::Prune) {
      ++pruned_;
      return;
    }
    const hashing::GlobalState* state = &succ;
    if (plain) {
      // Copy the parts the step left alone from the expanded state's encoding.
      if (info.changed_parts)
        hashing::encode_patched(base_, succ, layout, info.changed_parts->data(), info.changed_parts->size(),
                                form_.bytes);
      else
        hashing::encode(succ, layout, form_.bytes);
      form_.fingerprint = hashing::fingerprint(form_.bytes);
      ++plain_;
    } else {
      canon_.canonicalize(succ, form_);
      state = &form_.state;
    }
    out(Candidate{label, &form_, state, info.violation.has_value()});
  });
}

hashing::CanonicalStats Expander::stats() const {
  hashing::CanonicalStats st = canon_.stats();
  st.calls += plain_;
  st.fast_path += plain_;
  return st;
}

}  // namespace ddsmc::engine
