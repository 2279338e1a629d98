// A scenario built in code and run through the simulator's public entry, dualpath::sim::run_scenario
// (sim/run_scenario.hpp), the call `dualpath run` makes. It starts from the bundled default scenario (DS 27B on
// 1P1D, scenarios/default.json), changes fields of the typed Scenario (core/config/scenario.hpp), runs it under
// Basic and DualPath, and prints what each run's summary says: JCT, mean TTFT and the bytes read through each
// side's storage NIC. ctest runs it (examples.api) and compares its output with expected_output.txt beside it.
//
//   build/release/examples/api/dualpath_example_api [SCENARIO]
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "core/config/loader.hpp"
#include "core/run/summary_sections.hpp"
#include "sim/run_scenario.hpp"

namespace fs = std::filesystem;
using namespace dualpath;

int main(int argc, char** argv) try {
  // Loaded and validated as `dualpath run` loads it; load_scenario(file, {"workload.agents=64"}) would apply the
  // same change as a checked --set override instead.
  const std::string file = argc > 1 ? argv[1] : DUALPATH_DATA_DIR "/scenarios/default.json";
  Scenario scenario = load_scenario(file);
  scenario.workload.agents = 64;         // half the default's 128 agents: a run of a second
  scenario.topology.snic_bw = 200e9 / 8;  // a 200 Gbps storage NIC per node (bytes/s), half the topology's
  scenario.sim.engine = NetworkEngine::Native;  // the default; SimGrid allows one run per process

  const fs::path out = fs::temp_directory_path() / ("dualpath-example-api-" + std::to_string(::getpid()));
  std::printf("%s: %s, %d+%d nodes, %d agents, SNIC %.0f Gbps\n", scenario.name.c_str(), scenario.model.name.c_str(),
              scenario.deployment.prefill_nodes, scenario.deployment.decode_nodes, scenario.workload.agents,
              scenario.topology.snic_bw * 8 / 1e9);
  std::printf("%-9s %9s %8s %14s %14s %14s\n", "policy", "rounds", "JCT s", "TTFT mean ms", "read PE GB",
              "read DE GB");
  double basic_jct = 0;
  for (const std::string policy : {"basic", "dualpath"}) {
    scenario.policy.name = policy;
    // Writes the run folder (summary.json, requests.csv, links.csv, ...) and returns what summary.json holds.
    const sim::RunOutcome outcome = sim::run_scenario(scenario, "", (out / policy).string());
    const RunFile run = run_file_from_json(outcome.summary);  // summary.json as a type
    const RunSummary& r = run.results;
    std::printf("%-9s %9lld %8.1f %14.1f %14.1f %14.1f\n", policy.c_str(), static_cast<long long>(r.rounds), r.jct,
                r.ttft.mean * 1e3, r.bytes.storage_read_pe / 1e9, r.bytes.storage_read_de / 1e9);
    if (policy == "basic") basic_jct = r.jct;
    else
      std::printf("%s: %.0f%% of the hit KV read through the decode node, JCT %.2fx Basic's\n", policy.c_str(),
                  100 * r.bytes.storage_read_de / r.bytes.storage_read, r.jct / basic_jct);
  }
  fs::remove_all(out);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "dualpath_example_api: %s\n", e.what());
  return 1;
}
