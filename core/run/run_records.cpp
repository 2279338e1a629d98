#include "core/run/run_records.hpp"

namespace dualpath {

RunRecords::RunRecords(const std::string& dir, const SloSpec& slo, bool online) : dir_(dir), summary_(slo) {
  if (!dir.empty()) {
    csv_file_ = std::make_unique<AtomicOutputFile>(dir + "/requests.csv");
    write_requests_csv_header(csv_file_->stream());
    csv_ = std::make_unique<CsvNumbers>(csv_file_->stream());
  }
  if (online) working_set_.emplace();
}

RunRecords::~RunRecords() = default;

void RunRecords::settled(const Request& r) {
  if (csv_) write_request_row(*csv_, r);
  summary_.add(r);
  if (working_set_) working_set_->add(r);
}

RunSummary RunRecords::summary(const TransferTotals& totals) { return summary_.take(totals); }

std::optional<WorkingSet> RunRecords::working_set(const std::vector<Agent>& agents, double aps) {
  if (!working_set_) return std::nullopt;
  std::vector<int> rounds;
  rounds.reserve(agents.size());
  for (const auto& a : agents) rounds.push_back(static_cast<int>(a.rounds.size()));
  return working_set_->take(rounds, aps);
}

void RunRecords::commit_requests_csv() {
  if (!csv_file_) return;
  csv_.reset();  // its last lines into the stream
  csv_file_->commit();
}

LinkSampleSink RunRecords::stream_links_csv(const std::vector<LinkInfo>& links) {
  if (dir_.empty()) return [](const LinkSample&) {};
  links_file_ = std::make_unique<AtomicOutputFile>(dir_ + "/links.csv");
  links_csv_ = std::make_unique<LinksCsvWriter>(links_file_->stream(), links);
  return [this](const LinkSample& s) { links_csv_->row(s); };
}

void RunRecords::commit_links_csv(const LinkReport& report) {
  if (dir_.empty()) return;
  if (!links_file_) {
    write_stream_atomically(dir_ + "/links.csv", [&](std::ostream& out) { write_links_csv(out, report); });
    return;
  }
  links_csv_.reset();  // its last lines into the stream
  links_file_->commit();
}

}  // namespace dualpath
