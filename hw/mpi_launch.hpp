// Multi-process mode: `mpirun -np N+1 dualpath hw run SCENARIO --launch mpi ...` for a cluster of N nodes. Rank 0
// runs the scheduler (the unchanged core, driving an HwBackend whose NodeLink is MpiNodes); rank 1+n is node n's
// process, which owns that node's SNIC bucket, its GPUs' memories (registered with UCX in peer mode) and their
// compute, and serves the scheduler's operations (mpi_node_server). UCX worker addresses and remote keys are
// exchanged with MPI_Allgatherv at start; after that, KV and model bytes move only over UCX, node to node.
#pragma once

#include <string>

#include "core/config/scenario.hpp"
#include "hw/hw_options.hpp"
#include "hw/run_hw.hpp"

namespace dualpath::hw {

// Every rank calls this with the same arguments. Rank 0 returns the run's outcome (summary written); other ranks
// return an outcome with node_process set (nothing written). Throws std::invalid_argument when the number of
// processes does not match the scenario (N nodes need N+1) or the build has no MPI.
HwRunOutcome run_mpi(const Scenario& scenario, const std::string& scenario_dir, const std::string& out_dir,
                     const HwOptions& options);

// Ends the whole MPI job with `code` when a node process is hung and cannot finalize: rank 0 exits at once and
// mpirun ends the other ranks.
[[noreturn]] void end_mpi_job(int code);

}  // namespace dualpath::hw
