// dualpath-hw: the `hw` commands alone, for MPI ranks (mpirun -np N+1 dualpath-hw hw run SCENARIO --launch mpi).
// A command-line program like `dualpath`, so it lives in cli/; its target is in hw/CMakeLists.txt with the MPI sources.
// A separate executable because SimGrid's SMPI, linked into `dualpath`, defines the same MPI_* symbols as OpenMPI.
#include "cli/app_main.hpp"
#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"dualpath-hw: the hardware body's commands (dualpath hw ...), for MPI launches"};
  app.require_subcommand(1);
  dualpath::cli::register_hw_commands(app);
  return dualpath::cli::run_app(app, argc, argv, "dualpath-hw");
}
