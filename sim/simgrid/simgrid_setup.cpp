#include "sim/simgrid/simgrid_setup.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include <simgrid/s4u/Engine.hpp>

namespace dualpath::sim {

std::unique_ptr<simgrid::s4u::Engine> make_engine(int stack_kib, bool full_lmm_update) {
  static bool created = false;
  if (created) throw std::logic_error("simulator: one SimGrid simulation per process (the engine is a singleton)");
  if (stack_kib < 16) throw std::invalid_argument("simulator: actor stack must be at least 16 KiB");
  created = true;

  // Passed as command-line options so they apply before SimGrid creates its models. The log option comes
  // first so that not even the "configuration change" lines of the other options are printed.
  static std::vector<std::string> args = {
      "dualpath-sim",
      "--log=root.thres:critical",
      "--cfg=network/model:CM02",
      "--cfg=network/crosstraffic:0",
      "--cfg=network/TCP-gamma:1e12",
      "--cfg=contexts/stack-size:" + std::to_string(stack_kib),
      std::string("--cfg=network/optim:") + (full_lmm_update ? "Full" : "Lazy"),
  };
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  return std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
}

}  // namespace dualpath::sim
