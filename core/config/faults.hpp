// The scenario's "faults" list (docs/faults.md): parsing, validation against the deployment and topology, and the
// `run --fault KIND:key=value,...` shorthand, which becomes an override that appends one entry to the list.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/origins.hpp"
#include "core/config/scenario.hpp"

namespace dualpath {

// Reads tree["faults"] (absent = none). Throws InputError naming the file, the JSON path and what was expected:
// an unknown kind, a node out of range, `until` not after `at`, a factor outside (0, 1), a key the kind does not
// take, or a fault the simulator cannot model (docs/faults.md "Limits").
std::vector<FaultSpec> parse_faults(const nlohmann::json& tree, const Origins& origins, const Deployment& deployment,
                                    const Topology& topology);

// "snic-down:node=0,at=300 s,until=600 s" -> the override text "faults/-={...}" (load_scenario applies it like a
// --set, so the entry is validated like one written in the file), labelled so that messages name "--fault TEXT". Throws InputError naming `--fault TEXT` when
// it is not KIND[:key=value[,key=value]...].
std::string fault_override(const std::string& flag);

}  // namespace dualpath
