// What a run keeps of its requests: requests.csv, streamed into its temporary as requests settle, and the summary
// and working set folded from them; and links.csv, streamed as the link sampling intervals close (core/metrics/summary.hpp, working_set.hpp). Both bodies (sim/run_scenario.cpp,
// hw/run_hw.cpp) hand it to the Cluster as its request sink, so a long online run's memory stays flat: the Cluster
// frees what it has handed over (issue 46; docs/performance.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config/output_file.hpp"
#include "core/metrics/csv_numbers.hpp"
#include "core/metrics/summary.hpp"
#include "core/metrics/working_set.hpp"
#include "core/vocab/request_sink.hpp"
#include "core/run/link_report.hpp"
#include "core/workload/agents.hpp"

namespace dualpath {

class RunRecords final : public RequestSink {
 public:
  // `dir`: the run folder (which must exist) to stream requests.csv into; empty: no file. `online`: the run's
  // working set is measured too.
  RunRecords(const std::string& dir, const SloSpec& slo, bool online);
  ~RunRecords() override;
  void settled(const Request& r) override;

  RunSummary summary(const TransferTotals& totals);  // once, after the run
  // Online runs: the working set against the agents' trajectories; `aps` the run's measured rate (summary().aps).
  std::optional<WorkingSet> working_set(const std::vector<Agent>& agents, double aps);
  void commit_requests_csv();  // requests.csv renamed into place; throws naming the file
  // links.csv streamed as the backend's sampling intervals close: the sink to hand the backend (`links` must outlive
  // the records). Without it, commit_links_csv writes links.csv from the report's samples.
  LinkSampleSink stream_links_csv(const std::vector<LinkInfo>& links);
  void commit_links_csv(const LinkReport& report);

 private:
  std::string dir_;
  std::unique_ptr<AtomicOutputFile> csv_file_;
  std::unique_ptr<CsvNumbers> csv_;
  std::unique_ptr<AtomicOutputFile> links_file_;
  std::unique_ptr<LinksCsvWriter> links_csv_;
  SummaryAccumulator summary_;
  std::optional<WorkingSetAccumulator> working_set_;
};

}  // namespace dualpath
