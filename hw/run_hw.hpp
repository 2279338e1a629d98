// `dualpath hw run`: one scenario on the hardware body, in single-process mode (the core on the calling thread,
// storage and transport workers on their own threads) or over MPI (the core in rank 0, one node agent per rank).
// Writes the simulator's formats with measured times: summary.json (plus "backend": "hw", "compute" and an "hw"
// object saying what moved the bytes), requests.csv and links.csv.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "hw/event_loop.hpp"
#include "hw/hw_options.hpp"
#include "hw/node_link.hpp"

namespace dualpath::hw {

struct HwRunOutcome {
  nlohmann::json summary;
  bool ok = false;          // every round completed with no storage/transport error
  std::string failure;      // why not
  double wall_seconds = 0;
  bool node_process = false;  // mpi: this process served a node (rank > 0); it wrote nothing and prints nothing
  bool abort_job = false;     // mpi: a node process hung; after reporting, end the job with end_mpi_job()
};

// A mixed-hardware scenario (prefill_topology / decode_topology, issue 65) is the simulator's: the hardware backend
// runs on the machines it is given, and measures their hardware. Throws std::invalid_argument.
void refuse_mixed_hardware(const Scenario& scenario);

// scenario_dir resolves relative trace paths; out_dir is created. Throws InputError on bad input. A storage or
// transport error, or a stall, does not throw: the summary is still written with "complete": false and the
// errors, and the outcome says why.
// With options.launch == Launch::Mpi this is the scheduler rank's part (rank 0); node ranks call run_mpi_node().
HwRunOutcome run_hw_scenario(const Scenario& scenario, const std::string& scenario_dir, const std::string& out_dir,
                             const HwOptions& options);

// Both launch modes: runs the core on `loop` against `nodes` and writes summary.json / requests.csv.
HwRunOutcome drive_and_report(const Scenario& scenario, const std::string& scenario_dir, const std::string& out_dir,
                              const HwOptions& options, EventLoop& loop, NodeLink& nodes);

}  // namespace dualpath::hw
