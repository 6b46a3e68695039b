#include "app/check_identity.hpp"

#include <fmt/format.h>

#include "engine/placement.hpp"

namespace ddsmc::app {
namespace {

// "LENGTH:BYTES", so that no field can run into the next.
void field(std::string& id, std::string_view bytes) {
  id += fmt::format("{}:", bytes.size());
  id += bytes;
}

// The network as built: node names in id order, then every node's
// neighbours (ascending), which fix the edges, arcs and their ids.
std::string network_text(const model::Network& net) {
  std::string text;
  for (const std::string& name : net.names()) field(text, name);
  for (model::NodeId n = 0; n < net.num_nodes(); ++n) {
    text += fmt::format("{}:", n);
    for (model::NodeId k : net.neighbors(n)) text += fmt::format("{},", k);
    text += ';';
  }
  return text;
}

std::string bound_text(const std::optional<uint32_t>& b) { return b ? std::to_string(*b) : std::string("none"); }

// The partition key's rule as parse() normalises it (nodes+arcs/1 is all):
// the states' owners depend on it, so a checkpoint does.
std::string placement_text(const std::string& rule) {
  auto r = engine::PlacementRule::parse(rule);
  return r ? r->text() : rule;
}

}  // namespace

std::string check_identity(const CheckOptions& o, const model::Model& m, const std::string& model_bytes) {
  std::string id;
  field(id, model_bytes);
  field(id, network_text(m.network));
  for (const std::string& part : {std::to_string(m.bounds.input), bound_text(m.bounds.state),
                                  bound_text(m.bounds.channel), o.property, o.fairness, o.on_bound,
                                  std::to_string(o.max_states), placement_text(o.partition_key), o.symmetry})
    field(id, part);
  return id;
}

}  // namespace ddsmc::app
