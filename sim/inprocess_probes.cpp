#include "sim/inprocess_probes.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "sim/run_scenario.hpp"

namespace dualpath::sim {

InProcessProbeRunner::InProcessProbeRunner(unsigned slots, ThreadWrapper thread)
    : slots_(std::max(1u, slots)), thread_(std::move(thread)) {}

void InProcessProbeRunner::run(const std::vector<study::ProbeTask>& tasks, unsigned parallel,
                               const std::function<void(size_t, const study::ProbeEnd&)>& done,
                               const std::function<void(size_t)>& started) {
  std::atomic<size_t> next{0};
  std::mutex report;  // done() is called one at a time, as the contract says
  auto worker = [&] {
    for (size_t i = next++; i < tasks.size(); i = next++) {
      const study::ProbeTask& t = tasks[i];
      if (started) {
        std::lock_guard<std::mutex> lock(report);
        started(i);
      }
      study::ProbeEnd end;
      try {
        Scenario sc = load_scenario(t.scenario, t.overrides, t.overlays);
        if (!t.policy.empty()) sc.policy.name = t.policy;
        if (sc.sim.engine != NetworkEngine::Native)
          throw InputError("sim.engine", "probes run in this process need the native engine (SimGrid's is one per "
                                         "process): use the dualpath command line for SimGrid probes");
        run_scenario(sc, "", t.out);  // the loader resolved workload.file, as `dualpath run` does
        end.ok = true;
      } catch (const std::exception& e) {
        end.error = e.what();
        std::error_code ec;
        std::filesystem::remove_all(t.out, ec);  // an unfinished run's staging folder counts for nothing
        std::lock_guard<std::mutex> lock(report);
        if (!first_error_) first_error_ = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(report);
      done(i, end);
    }
  };
  const unsigned n = std::max(1u, std::min<unsigned>(parallel, static_cast<unsigned>(tasks.size())));
  std::vector<std::thread> threads;
  for (unsigned k = 1; k < n; ++k)
    threads.emplace_back([&] {
      if (thread_) thread_(worker);
      else worker();
    });
  worker();
  for (auto& th : threads) th.join();
}

}  // namespace dualpath::sim
