#include "cli/child_probes.hpp"

namespace dualpath::cli {
namespace {

ChildJob child_of(const study::ProbeTask& t) {
  ChildJob j;
  j.args = {"run", t.scenario, "--quiet", "--out", t.out};
  for (const auto& f : t.overlays) j.args.insert(j.args.end(), {"--overlay", f});
  for (const auto& o : t.overrides) j.args.insert(j.args.end(), {"--set", o});
  if (!t.policy.empty()) j.args.insert(j.args.end(), {"--policy", t.policy});
  j.log_path = t.out + "/" + (t.log_name.empty() ? "run.log" : t.log_name);
  return j;
}

}  // namespace

ChildJob probe_job(const ProbeRun& r, double aps, const std::string& out) {
  return child_of({r.scenario, r.overlays, study::probe_overrides(r, aps), out, "", ""});
}

void ChildProbeRunner::run(const std::vector<study::ProbeTask>& tasks, unsigned parallel,
                           const std::function<void(size_t, const study::ProbeEnd&)>& done,
                           const std::function<void(size_t)>& started) {
  std::vector<ChildJob> jobs;
  for (const auto& t : tasks) jobs.push_back(child_of(t));
  run_child_jobs(jobs, parallel, [&](size_t k) { if (started) started(k); }, [&](size_t k, int code) {
    study::ProbeEnd end;
    end.ok = code == 0;
    if (!end.ok) end.error = "exit " + std::to_string(code) + ": " + log_tail(jobs[k].log_path, 300);
    done(k, end);
  });
}

}  // namespace dualpath::cli
