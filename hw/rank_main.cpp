// dualpath-hw: the `hw` commands alone, for MPI ranks (mpirun -np N+1 dualpath-hw hw run SCENARIO --launch mpi).
// A separate executable because SimGrid's SMPI, linked into `dualpath`, defines the same MPI_* symbols as OpenMPI.
#include <iostream>

#include "cli/commands.hpp"
#include "core/config/input_error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"dualpath-hw: the hardware body's commands (dualpath hw ...), for MPI launches"};
  app.require_subcommand(1);
  dualpath::cli::register_hw_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : dualpath::cli::kExitBadInput;
  } catch (const dualpath::InputError& e) {
    std::cerr << "dualpath-hw: error: " << e.what() << "\n";
    return dualpath::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "dualpath-hw: failed: " << e.what() << "\n";
    return dualpath::cli::kExitFailure;
  }
  return 0;
}
