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

// Exchanges one transport's peer exports among the node ranks (rank 0 takes part in the collective with nothing).
void connect(Transport* tr, int node) {
  const auto all = mpi::allgather(tr ? tr->export_peer() : std::string());
  if (!tr) return;
  tr->connect_peers(std::vector<std::string>(all.begin() + 1, all.end()), node);
}

}  // namespace

HwRunOutcome run_mpi(const Scenario& sc, const std::string& scenario_dir, const std::string& out_dir,
                     const HwOptions& opt) {
  std::string why;
  if (!mpi::init(why)) throw std::invalid_argument("--launch mpi: " + why);
  const int nodes = sc.deployment.prefill_nodes + sc.deployment.decode_nodes;
  const int rank = mpi::rank();
  HwRunOutcome o;
  o.node_process = rank > 0;
  if (mpi::size() != nodes + 1) {
    mpi::finalize();
    const std::string msg = "--launch mpi: this scenario has " + std::to_string(nodes) + " nodes and needs " +
                            std::to_string(nodes + 1) + " processes (a scheduler + one per node), found " +
                            std::to_string(mpi::size()) + ": start it with mpirun -np " + std::to_string(nodes + 1);
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
  if (!(err = mpi::agree(err)).empty()) {
    mpi::finalize();
    if (rank == 0) throw std::runtime_error("hw node setup failed: " + err);
    o.failure = err;
    return o;
  }
  try {
    connect(res ? res->kv.get() : nullptr, node);
    connect(res ? res->model.get() : nullptr, node);
  } catch (const std::exception& e) {
    err = e.what();
  }
  if (!(err = mpi::agree(err)).empty()) {
    mpi::finalize();
    if (rank == 0) throw std::runtime_error("hw transport setup failed: " + err);
    o.failure = err;
    return o;
  }
  mpi::barrier();

  if (rank > 0) {
    serve_node(node, opt, *res, compute);
    res.reset();
    mpi::finalize();
    o.ok = true;
    return o;
  }
  EventLoop loop;
  MpiNodes link(opt, loop, nodes);
  o = drive_and_report(sc, scenario_dir, out_dir, opt, loop, link);
  if (link.unresponsive()) {
    // A hung node process cannot take part in MPI_Finalize: the summary is written, end the whole job.
    o.abort_job = true;
    return o;
  }
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
