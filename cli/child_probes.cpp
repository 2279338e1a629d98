#include "cli/child_probes.hpp"

namespace dualpath::cli {
namespace {

ChildJob child_of(const study::ProbeTask& t) {
  ChildJob j;
  j.args = {"run", t.scenario, "--quiet", "--out", t.out};
  for (const auto& f : t.overlays) j.args.insert(j.args.end(), {"--overlay", f});
  for (const auto& o : t.overrides) j.args.insert(j.args.end(), {"--set", o});
  j.log_path = t.out + "/run.log";
  return j;
}

}  // namespace

ChildJob probe_job(const ProbeRun& r, double aps, const std::string& out) {
  return child_of({r.scenario, r.overlays, study::probe_overrides(r, aps), out});
}

void ChildProbeRunner::run(const std::vector<study::ProbeTask>& tasks, unsigned parallel,
                           const std::function<void(size_t, const study::ProbeEnd&)>& done) {
  std::vector<ChildJob> jobs;
  for (const auto& t : tasks) jobs.push_back(child_of(t));
  run_child_jobs(jobs, parallel, [](size_t) {}, [&](size_t k, int code) {
    study::ProbeEnd end;
    end.ok = code == 0;
    if (!end.ok) end.error = "exit " + std::to_string(code) + ": " + log_tail(jobs[k].log_path, 300);
    done(k, end);
  });
}

}  // namespace dualpath::cli
