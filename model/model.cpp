#include "model/model.hpp"

#include <fmt/format.h>

namespace ddsmc::model {

const char* pred_kind_name(PredKind k) {
  switch (k) {
    case PredKind::Input: return "input";
    case PredKind::State: return "state";
    case PredKind::Transport: return "transport";
  }
  return "?";
}

ConstId ConstantTable::intern(const std::string& spelling) {
  auto [it, inserted] = index_.try_emplace(spelling, static_cast<ConstId>(names_.size()));
  if (inserted) names_.push_back(spelling);
  return it->second;
}

std::optional<ConstId> ConstantTable::find(const std::string& spelling) const {
  auto it = index_.find(spelling);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::optional<PredId> Model::find_pred(const std::string& name) const {
  auto it = pred_index.find(name);
  if (it != pred_index.end() && it->second < preds.size() && preds[it->second].name == name) return it->second;
  for (PredId p = 0; p < preds.size(); ++p)
    if (preds[p].name == name) return p;
  return std::nullopt;
}

std::vector<PredId> Model::preds_of_kind(PredKind k) const {
  std::vector<PredId> out;
  for (PredId p = 0; p < preds.size(); ++p)
    if (preds[p].kind == k) out.push_back(p);
  return out;
}

std::string Model::fact_to_string(const Fact& f) const {
  std::string out = f.pred < preds.size() ? preds[f.pred].name : fmt::format("?pred{}", f.pred);
  if (f.args.empty()) return out;
  out += '(';
  for (size_t i = 0; i < f.args.size(); ++i) {
    if (i) out += ", ";
    ConstId c = f.args[i];
    if (constants.is_fixed(c))
      out += constants.spelling(c);
    else
      out += fmt::format("#{}", c - constants.size() + 1);
  }
  out += ')';
  return out;
}

}  // namespace ddsmc::model
