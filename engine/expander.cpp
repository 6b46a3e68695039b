#include "engine/expander.hpp"

#include <stdexcept>

namespace ddsmc::engine {

Expander::Expander(const System& system, OnBound on_bound, hashing::TreeStore& store)
    : system_(system), on_bound_(on_bound), store_(store), gen_(system.generator()), canon_(system.layout()),
      base_(store.tree_size()), part_bytes_(store.parts()) {}

uint32_t Expander::intern(const hashing::GlobalState& s) {
  const hashing::GlobalState* canonical = &s;
  if (system_.may_have_fresh()) {
    canon_.canonicalize(s, form_);
    canonical = &form_.state;
  } else {
    ++plain_;  // without fresh constants every state is its own canonical form
  }
  hashing::encode_segmented(*canonical, system_.layout(), enc_);
  return store_.intern(enc_);
}

const hashing::SegmentedEncoding& Expander::canonical_encoding(const hashing::GlobalState& s) {
  const hashing::GlobalState* canonical = &s;
  if (system_.may_have_fresh()) {
    canon_.canonicalize(s, form_);
    canonical = &form_.state;
  }
  hashing::encode_segmented(*canonical, system_.layout(), succ_enc_);
  return succ_enc_;
}

void Expander::load(uint32_t root) {
  store_.tree_of(root, base_.data());
  store_.materialize_tree(base_.data(), enc_.bytes);
  if (!hashing::decode(enc_.bytes, system_.layout(), current_)) throw std::logic_error("stored state does not decode");
}

void Expander::expand_encoded(uint32_t root, FunctionRef<void(const Candidate&)> out) {
  load(root);
  const bool plain = !system_.may_have_fresh();
  gen_->successors(current_, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info) {
    if (info.violation && on_bound_ == OnBound::Prune) {
      ++pruned_;
      return;
    }
    const hashing::GlobalState* state = &succ;
    if (plain) {
      ++plain_;
    } else {
      canon_.canonicalize(succ, form_);
      state = &form_.state;
    }
    hashing::encode_segmented(*state, system_.layout(), succ_enc_);
    Candidate c{label, 0, state, info.violation.has_value()};
    c.encoding = &succ_enc_;
    out(c);
  });
}

void Expander::expand(uint32_t root, FunctionRef<void(const Candidate&)> out) {
  const auto& layout = system_.layout();
  load(root);
  const bool plain = !system_.may_have_fresh();
  gen_->successors(current_, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info) {
    if (info.violation && on_bound_ == OnBound::Prune) {
      ++pruned_;
      return;
    }
    uint32_t succ_root;
    const hashing::GlobalState* state = &succ;
    if (plain && info.changed_parts) {
      // Only the parts the step changed are encoded and interned; the rest
      // of the tree is the expanded state's.
      parts_.clear();
      for (uint32_t p : *info.changed_parts) {
        if (!parts_.empty() && parts_.back().part == p) continue;
        hashing::encode_part(succ, layout, p, part_bytes_[p]);
        parts_.push_back({p, part_bytes_[p]});
      }
      succ_root = store_.intern_patched(base_.data(), parts_);
      ++plain_;
    } else {
      succ_root = intern(succ);
      if (!plain) state = &form_.state;
    }
    out(Candidate{label, succ_root, state, info.violation.has_value()});
  });
}

hashing::CanonicalStats Expander::stats() const {
  hashing::CanonicalStats st = canon_.stats();
  st.calls += plain_;
  st.fast_path += plain_;
  return st;
}

}  // namespace ddsmc::engine
