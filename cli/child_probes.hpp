// The command line's probe runner: each probe a `dualpath run` child process (cli/child_runs.hpp), its log in
// <probe folder>/run.log, at most --jobs at once. One simulation per process, as SimGrid needs, and a probe that
// crashes takes only its own process with it.
#pragma once

#include <string>
#include <vector>

#include "cli/child_runs.hpp"
#include "core/study/probe.hpp"
#include "core/study/probe_runner.hpp"

namespace dualpath::cli {

// The probe names the command line still uses beside its runner (the study layer's, core/study/probe.hpp).
using study::aps_text;
using study::check_probe_length;
using study::finished_probe;
using study::make_probe_staging;
using study::positive_duration;
using study::Probe;
using study::probe_dir;
using study::probe_from_json;
using study::probe_json;
using study::ProbeRun;
using study::read_probe;
using study::verdict;

// The `dualpath run` child of a probe at `aps`, writing into `out` (its log in out/run.log).
ChildJob probe_job(const ProbeRun& r, double aps, const std::string& out);

class ChildProbeRunner : public study::ProbeRunner {
 public:
  unsigned slots() const override { return default_parallelism(); }
  using study::ProbeRunner::run;
  void run(const std::vector<study::ProbeTask>& tasks, unsigned parallel,
           const std::function<void(size_t, const study::ProbeEnd&)>& done,
           const std::function<void(size_t)>& started) override;
};

}  // namespace dualpath::cli
