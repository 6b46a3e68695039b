#include "engine/expander.hpp"

#include "engine/placement.hpp"

#include <algorithm>
#include <stdexcept>

namespace ddsmc::engine {

Expander::Expander(const System& system, OnBound on_bound, hashing::TreeStore& store)
    : system_(system), on_bound_(on_bound), store_(store), gen_(system.generator()), canon_(system.layout()),
      base_(store.tree_size(), hashing::TreeStore::kUnknown),
      decoded_(store.parts(), hashing::TreeStore::kUnknown) {
  gen_->set_skip_violating(on_bound == OnBound::Prune);
  if (system.symmetry())
    sym_ = std::make_unique<hashing::SymmetricCanonicalizer>(system.layout(), *system.symmetry(),
                                                             system.may_have_fresh());
  current_.dbs.resize(system.layout().num_nodes);
  current_.channels.resize(system.layout().num_arcs);
}

const hashing::GlobalState& Expander::canonical_of(const hashing::GlobalState& s) {
  if (sym_) {
    uint32_t element = 0;
    return sym_->canonical_state(s, form_, &element);
  }
  if (system_.may_have_fresh()) return canon_.canonical_state(s, form_);
  ++plain_;  // without fresh constants every state is its own canonical form
  return s;
}

uint32_t Expander::intern(const hashing::GlobalState& s) {
  canonical_ = &canonical_of(s);
  hashing::encode_segmented(*canonical_, system_.layout(), enc_);
  return store_.intern(enc_);
}

const hashing::SegmentedEncoding& Expander::canonical_encoding(const hashing::GlobalState& s) {
  hashing::encode_segmented(canonical_of(s), system_.layout(), succ_enc_);
  return succ_enc_;
}

void Expander::encode_changed(const hashing::GlobalState& succ, const std::vector<uint32_t>& changed) {
  // Room for all of them first: parts_ points into the buffer.
  const auto& layout = system_.layout();
  size_t room = 0;
  for (uint32_t p : changed) room += hashing::encode_part_bound(succ, layout, p);
  if (part_bytes_.size() < room) part_bytes_.resize(2 * room);
  char* w = part_bytes_.data();
  parts_.clear();
  for (uint32_t p : changed) {
    if (!parts_.empty() && parts_.back().part == p) continue;
    char* end = hashing::encode_part(succ, layout, p, w);
    parts_.push_back({p, std::string_view(w, static_cast<size_t>(end - w))});
    w = end;
  }
}

void Expander::load(uint32_t root) {
  // States expanded one after the other are mostly BFS siblings or
  // cousins: they share most leaves, and only the parts whose leaf differs
  // from the one current_ holds are read and decoded again.
  const auto& layout = system_.layout();
  store_.update_tree(root, base_.data());
  for (uint32_t p = 0; p < store_.parts(); ++p) {
    const uint32_t id = base_[store_.position(p)];
    if (decoded_[p] == id) continue;
    decoded_[p] = hashing::TreeStore::kUnknown;
    auto& words = hashing::part_words(current_, layout.num_nodes, p);
    if (!hashing::decode_part(store_.leaf(id), layout, p, words)) throw std::logic_error("stored state does not decode");
    decoded_[p] = id;
  }
}

void Expander::generate(Generator::Sink sink) {
  const auto& layout = system_.layout();
  try {
    gen_->successors(current_, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info) {
      if (!info.violation) {
        if (info.changed_parts)
          for (uint32_t p : *info.changed_parts) sizes_.note_part(succ, layout, p, size_scratch_);
        else
          sizes_.note(succ, layout, size_scratch_);
      }
      sink(label, succ, info);
    });
  } catch (...) {
    std::fill(decoded_.begin(), decoded_.end(), hashing::TreeStore::kUnknown);
    throw;
  }
}

void Expander::place_whole(Candidate& c, std::span<const uint8_t> in_key, FunctionRef<bool(uint64_t)> here) {
  hashing::encode_segmented(*c.state, system_.layout(), succ_enc_);
  c.place = placement_key(succ_enc_, in_key);
  c.here = here(c.place);
  if (c.here)
    c.root = store_.intern(succ_enc_);
  else
    c.encoding = &succ_enc_;
}

void Expander::expand_split(uint32_t root, std::span<const uint8_t> in_key, FunctionRef<bool(uint64_t)> here,
                            FunctionRef<void(const Candidate&)> out) {
  const auto& layout = system_.layout();
  load(root);
  if (sym_) {
    sym_->set_base(current_);
    return expand_split_symmetric(in_key, here, out);
  }
  const bool plain = !system_.may_have_fresh();
  previous_.valid = false;
  // The expanded state's parts and the keys of those in the placement key,
  // which a plain step changes a few of.
  const uint32_t parts = store_.parts();
  hashing::encode_segmented(current_, layout, base_enc_);
  base_keys_.resize(parts);
  uint64_t base_key = 0;
  for (uint32_t p = 0; p < parts; ++p) {
    base_keys_[p] = in_key[p] ? hashing::part_key(std::string_view(base_enc_.bytes).substr(base_enc_.begin[p], base_enc_.begin[p + 1] - base_enc_.begin[p]), p) : 0;
    base_key += base_keys_[p];
  }
  generate([&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info) {
    if (info.violation && on_bound_ == OnBound::Prune) {
      ++pruned_;
      return;
    }
    Candidate c{label, 0, &succ, info.violation.has_value()};
    if (plain) c.base = &base_enc_;
    if (plain && info.changed_parts) {
      ++plain_;
      encode_changed(succ, *info.changed_parts);
      uint64_t key = base_key;
      for (const auto& part : parts_)
        if (in_key[part.part]) key += hashing::part_key(part.bytes, part.part) - base_keys_[part.part];
      c.place = key;
      c.here = here(key);
      if (c.here)
        c.root = store_.intern_patched(base_.data(), parts_);
      else
        c.changed = parts_;
    } else if (!plain && repeats_previous(label, succ, info)) {
      // The same successor as the one before: its placement, and its root
      // or its encoding (succ_enc_ still holds it).
      ++repeated_;
      if (previous_.state) c.state = previous_.state;
      c.place = previous_.place;
      c.here = previous_.here;
      if (c.here)
        c.root = previous_.root;
      else
        c.encoding = &succ_enc_;
    } else {
      if (plain) {
        ++plain_;
      } else {
        c.state = &canon_.canonical_state(succ, form_);
      }
      place_whole(c, in_key, here);
      if (!plain) {
        remember(label, succ, info, c.root, c.state == &succ ? nullptr : c.state);
        previous_.place = c.place;
        previous_.here = c.here;
      }
    }
    out(c);
  });
}

void Expander::generate_symmetric(FunctionRef<void(const EdgeLabel&, const hashing::GlobalState&, const StepInfo&)> out) {
  const uint32_t arcs = system_.layout().num_arcs;
  generate([&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info) {
    if (info.violation && on_bound_ == OnBound::Prune) {
      ++pruned_;
      return;
    }
    uint32_t element = 0;
    const hashing::GlobalState& state = sym_->canonical_state(succ, form_, &element, info.changed_parts);
    out(EdgeLabel{quotient_arc(label.arc, element, arcs), label.stable}, state, info);
  });
}

void Expander::expand_symmetric(FunctionRef<void(const Candidate&)> out) {
  generate_symmetric([&](const EdgeLabel& label, const hashing::GlobalState& state, const StepInfo& info) {
    const uint32_t succ_root = intern_against_source(state, info.changed_parts);
    out(Candidate{label, succ_root, &state, info.violation.has_value()});
  });
}

void Expander::expand_split_symmetric(std::span<const uint8_t> in_key, FunctionRef<bool(uint64_t)> here,
                                      FunctionRef<void(const Candidate&)> out) {
  // Every successor whole, placed by its canonical form under the group
  // (so its owner is the owner of its orbit).
  generate_symmetric([&](const EdgeLabel& label, const hashing::GlobalState& state, const StepInfo& info) {
    Candidate c{label, 0, &state, info.violation.has_value()};
    place_whole(c, in_key, here);
    out(c);
  });
}

void Expander::expand(uint32_t root, FunctionRef<void(const Candidate&)> out) {
  load(root);
  if (sym_) {
    sym_->set_base(current_);
    return expand_symmetric(out);
  }
  const bool plain = !system_.may_have_fresh();
  previous_.valid = false;
  generate([&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info) {
    if (info.violation && on_bound_ == OnBound::Prune) {
      ++pruned_;
      return;
    }
    uint32_t succ_root;
    const hashing::GlobalState* state = &succ;
    if (plain && info.changed_parts) {
      // Only the parts the step changed are encoded and interned; the rest
      // of the tree is the expanded state's.
      encode_changed(succ, *info.changed_parts);
      succ_root = store_.intern_patched(base_.data(), parts_);
      ++plain_;
    } else if (plain) {
      succ_root = intern(succ);
    } else if (repeats_previous(label, succ, info)) {
      succ_root = previous_.root;
      if (previous_.state) state = previous_.state;
      ++repeated_;
    } else {
      state = &canon_.canonical_state(succ, form_);
      succ_root = intern_against_source(*state, info.changed_parts);
      remember(label, succ, info, succ_root, state == &succ ? nullptr : state);
    }
    out(Candidate{label, succ_root, state, info.violation.has_value()});
  });
}

uint32_t Expander::intern_against_source(const hashing::GlobalState& c, const std::vector<uint32_t>* changed) {
  // current_ is the successor while the generator's sink runs (it edits
  // the expanded state in place): outside the parts the step changed it is
  // still the expanded state, and those parts are encoded in any case (one
  // the renaming happened to leave as it was is found again in the store).
  if (changed && &c == &current_) {
    // The successor is its own canonical form: it differs from the
    // expanded state in the changed parts alone.
    encode_changed(c, *changed);
    return store_.intern_patched(base_.data(), parts_);
  }
  const auto& layout = system_.layout();
  const uint32_t parts = layout.num_nodes + layout.num_arcs;
  differing_.clear();
  size_t k = 0;
  for (uint32_t p = 0; p < parts; ++p) {
    if (changed) {
      while (k < changed->size() && (*changed)[k] < p) ++k;
      if (k < changed->size() && (*changed)[k] == p) {
        differing_.push_back(p);
        continue;
      }
    }
    if (!changed || hashing::part_words(c, layout.num_nodes, p) != hashing::part_words(current_, layout.num_nodes, p))
      differing_.push_back(p);
  }
  encode_changed(c, differing_);
  return store_.intern_patched(base_.data(), parts_);
}

bool Expander::repeats_previous(const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info) const {
  if (!previous_.valid || !info.changed_parts || !(label == previous_.label) || *info.changed_parts != previous_.parts)
    return false;
  const uint32_t nodes = system_.layout().num_nodes;
  for (size_t i = 0; i < previous_.parts.size(); ++i)
    if (hashing::part_words(succ, nodes, previous_.parts[i]) != previous_.words[i]) return false;
  return true;
}

void Expander::remember(const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info, uint32_t root,
                        const hashing::GlobalState* state) {
  previous_.valid = info.changed_parts != nullptr;
  if (!previous_.valid) return;
  previous_.label = label;
  previous_.root = root;
  previous_.state = state;
  previous_.parts = *info.changed_parts;
  const uint32_t nodes = system_.layout().num_nodes;
  if (previous_.words.size() < previous_.parts.size()) previous_.words.resize(previous_.parts.size());
  for (size_t i = 0; i < previous_.parts.size(); ++i) previous_.words[i] = hashing::part_words(succ, nodes, previous_.parts[i]);
}

hashing::CanonicalStats Expander::stats() const {
  hashing::CanonicalStats st = canon_.stats();
  if (sym_) st += sym_->stats();
  // Successors without a canonical form to compute: plain ones, and the
  // repeats of the previous successor.
  st.calls += plain_ + repeated_;
  st.fast_path += plain_ + repeated_;
  return st;
}

}  // namespace ddsmc::engine
