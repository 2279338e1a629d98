// An output folder that a resumable command (capacity, plan) owns: its result file records the run's identity
// (scenario, overlays, --set list and the command's own choices) under "identity". The first run claims the
// folder by writing that identity before any child runs, so an interrupted run is resumed only by the same one;
// a different identity is refused (InputError, exit 2). `what` names the command's result in the message.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dualpath::study {

void claim_output_folder(const std::string& folder, const std::string& result_file, const nlohmann::json& identity,
                         const std::string& what);

}  // namespace dualpath::study
