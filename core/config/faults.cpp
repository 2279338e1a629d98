#include "core/config/faults.hpp"

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "core/config/command_values.hpp"
#include "core/config/input_error.hpp"
#include "core/config/object_reader.hpp"
#include "core/config/overrides.hpp"

namespace dualpath {

namespace {

FaultSpec parse_fault(const ObjectReader& r, const Deployment& dep, const Topology& topo) {
  FaultSpec f;
  const FaultKindRow& row = *find_fault_kind(r.choice("kind", fault_kind_names()));
  f.kind = row.value;
  const std::string kind = row.name;
  const int nodes = dep.prefill_nodes + dep.decode_nodes;
  auto refuse = [&r](const char* key, const std::string& why) {
    if (r.has(key)) r.fail(key, why);
  };
  // What it names (FaultTarget).
  if (row.target == FaultTarget::Storage) {
    refuse("node", kind + " takes no node (it degrades every storage server)");
    if (topo.storage.server_nic_bw <= 0 && topo.storage.ssd_read_bw <= 0 && topo.storage.ssd_write_bw <= 0)
      r.fail("kind", kind + " needs a storage cluster with a bandwidth (topology.storage.server_nic_bw, "
                            "ssd_read_bw or ssd_write_bw > 0); this topology models storage as unlimited");
  } else {
    f.node = static_cast<int>(r.integer("node", 0, nodes - 1));
  }
  if (row.target == FaultTarget::Gpu) {
    f.gpu = static_cast<int>(r.integer("gpu", 0, topo.gpus_per_node - 1));
  } else {
    std::string naming;  // the kinds that name a GPU
    for (const auto& k : fault_kinds())
      if (k.target == FaultTarget::Gpu) naming += std::string(naming.empty() ? "" : ", ") + k.name;
    refuse("gpu", kind + " takes no gpu (only " + naming + " names one)");
  }
  // What it does (FaultEffect): a degrade takes the fraction kept; a loss lasts to the end of the run.
  switch (row.effect) {
    case FaultEffect::LoseNode:
    case FaultEffect::LoseGpu: {
      const std::string what = row.target == FaultTarget::Gpu ? "the GPU's engine" : "the node";
      refuse("factor", kind + " takes no factor (" + what + " is lost)");
      refuse("until", kind + " takes no until: " + what +
                          " does not come back within the run (docs/faults.md \"Limits\")");
      break;
    }
    case FaultEffect::SnicDown:
      refuse("factor", kind + " takes no factor (the NIC carries nothing); use snic-degrade for a slower NIC");
      break;
    case FaultEffect::ScaleSnic:
    case FaultEffect::ScaleStorage:
      f.factor = r.number("factor", Range::open_fraction());  // the fraction of bandwidth kept: 1 is no fault
      break;
  }
  f.at = r.quantity("at", units::Dimension::Duration, Range::non_negative());
  if (r.has("until")) {
    f.until = r.quantity("until", units::Dimension::Duration, Range::non_negative());
    if (!(f.until > f.at)) {
      std::ostringstream m;
      m << "expected a time after `at` (" << f.at << " s)";
      r.fail("until", m.str());
    }
  }
  // A decode node persists every round's KV through its own SNIC; the simulator does not move that KV to another
  // node, so a decode SNIC that never comes back would hold its rounds forever.
  if (row.effect == FaultEffect::SnicDown && f.node >= dep.prefill_nodes && f.until < 0)
    r.fail("until", kind + " on decode node " + std::to_string(f.node) +
                        " needs `until`: a decode node persists KV through its SNIC, and the simulator does not move "
                        "that KV to another node (docs/faults.md \"Limits\")");
  return f;
}

}  // namespace

std::vector<FaultSpec> parse_faults(const nlohmann::json& tree, const Origins& origins, const Deployment& dep,
                                    const Topology& topo) {
  std::vector<FaultSpec> out;
  const auto it = tree.find("faults");
  if (it == tree.end() || it->is_null()) return out;
  if (!it->is_array()) throw InputError(origins.where("/faults"), "expected a list of faults, found " + describe_found(*it));
  for (size_t i = 0; i < it->size(); ++i) {
    const ObjectReader r((*it)[i], pointer_join("/faults", std::to_string(i)), origins,
                         {"kind", "node", "gpu", "factor", "at", "until"});
    out.push_back(parse_fault(r, dep, topo));
  }
  return out;
}

std::string fault_override(const std::string& flag) {
  check_command_text(flag, "--fault");
  const std::string where = "--fault " + flag;
  const size_t colon = flag.find(':');
  nlohmann::json entry = {{"kind", flag.substr(0, colon)}};
  if (entry["kind"].get<std::string>().empty())
    throw InputError(where, "expected KIND[:key=value,...], e.g. snic-down:node=0,at=300s,until=600s");
  if (colon != std::string::npos) {
    const std::string rest = flag.substr(colon + 1);
    size_t start = 0;
    while (start <= rest.size()) {
      size_t comma = rest.find(',', start);
      if (comma == std::string::npos) comma = rest.size();
      const std::string item = rest.substr(start, comma - start);
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw InputError(where, "expected key=value after the kind, found \"" + item + "\"");
      const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
      if (entry.contains(key))  // as the scenario file's reader refuses a repeated key
        throw InputError(where, "repeats the key \"" + key + "\": give each key once");
      nlohmann::json v = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
      entry[key] = v.is_discarded() || !v.is_number() ? nlohmann::json(value) : v;
      start = comma + 1;
    }
  }
  return labelled_override(where, "faults/-=" + entry.dump());
}

}  // namespace dualpath
