#include "hw/mpi_launch.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "hw/compute_setup.hpp"
#include "hw/mpi_comm.hpp"
#include "hw/mpi_node_server.hpp"
#include "hw/mpi_nodes.hpp"
#include "hw/node_resources.hpp"

namespace dualpath::hw {

namespace {

// Ends setup on every rank when one failed: rank 0 throws with the reason, the others return it quietly.
HwRunOutcome stop_setup(HwRunOutcome o, int rank, const std::string& what, const std::string& err) {
  mpi::finalize();
  if (rank == 0) throw std::runtime_error(what + ": " + err);
  o.failure = err;
  return o;
}

}  // namespace

HwRunOutcome run_mpi(const Scenario& sc, const std::string& scenario_dir, const std::string& out_dir,
                     const HwOptions& opt) {
  std::string why;
  if (!mpi::init(why)) throw std::invalid_argument("--launch mpi: " + why);
  const int nodes = sc.deployment.prefill_nodes + sc.deployment.decode_nodes;
  const int rank = mpi::rank();
  const int size = mpi::size();
  HwRunOutcome o;
  o.node_process = rank > 0;
  if (size != nodes + 1) {
    mpi::finalize();
    const std::string msg = "--launch mpi: this scenario has " + std::to_string(nodes) + " nodes and needs " +
                            std::to_string(nodes + 1) + " processes (a scheduler + one per node), found " +
                            std::to_string(size) + ": start it with mpirun -np " + std::to_string(nodes + 1);
    if (rank == 0) throw std::invalid_argument(msg);
    o.failure = msg;
    return o;
  }
  if (rank == 0) clear_storage_dir(opt.storage_dir);
  mpi::barrier();

  // Node ranks build their resources; everyone agrees that all succeeded before anyone waits on a partner.
  const int node = rank - 1;
  const int gpn = sc.topology.gpus_per_node;
  std::unique_ptr<NodeResources> res;
  ComputeSetup compute;
  std::string err;
  if (rank > 0) {
    try {
      res = make_node_resources(sc, opt, node * gpn, gpn, 1, true);
      compute = make_compute_setup(sc, opt, node * gpn, gpn);
    } catch (const std::exception& e) {
      err = e.what();
    }
  }
  if (!(err = mpi::agree(err)).empty()) return stop_setup(o, rank, "hw node setup failed", err);

  // UCX endpoints: every rank takes part in every collective, contributing nothing where it has nothing (rank 0)
  // or failed, so one rank's failure cannot leave the others' collectives out of step.
  std::string kv_export, model_export;
  try {
    if (res) kv_export = res->kv->export_peer(), model_export = res->model->export_peer();
  } catch (const std::exception& e) {
    err = e.what();
  }
  const auto kv_all = mpi::allgather(kv_export);
  const auto model_all = mpi::allgather(model_export);
  if (!(err = mpi::agree(err)).empty()) return stop_setup(o, rank, "hw transport setup failed", err);
  try {
    if (res) {
      res->kv->connect_peers(std::vector<std::string>(kv_all.begin() + 1, kv_all.end()), node);
      res->model->connect_peers(std::vector<std::string>(model_all.begin() + 1, model_all.end()), node);
    }
  } catch (const std::exception& e) {
    err = e.what();
  }
  if (!(err = mpi::agree(err)).empty()) return stop_setup(o, rank, "hw transport setup failed", err);
  mpi::barrier();

  if (rank > 0) {
    serve_node(node, opt, *res, compute);
    // Peers may still be reading this node's memory (UCX emulates gets with messages this worker must answer):
    // every rank has served and reported before any tears down.
    mpi::barrier();
    res.reset();
    mpi::finalize();
    o.ok = true;
    return o;
  }
  EventLoop loop;
  MpiNodes link(opt, loop, nodes);
  o = drive_and_report(sc, scenario_dir, out_dir, opt, loop, link);
  if (link.unresponsive()) {
    // A hung node process cannot take part in the barrier or MPI_Finalize: the summary is written, end the job.
    o.abort_job = true;
    return o;
  }
  mpi::barrier();  // the node ranks tear down after this
  mpi::finalize();
  return o;
}

// Exits without MPI_Finalize (a hung rank would never join it); mpirun sees rank 0 fail and ends the other ranks.
// MPI_Abort was tried first: its kill of the hung rank made mpirun report that rank's signal (e.g. 139) as the
// job's exit code, which hid the scheduler's own.
void end_mpi_job(int code) {
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace dualpath::hw
