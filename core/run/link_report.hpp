// What a run's links carried: per-link totals and time-averaged utilisation per sampling interval. Both bodies
// produce it (the simulator from its fluid rates, sim/link_meter.hpp; the hardware body from completed operations,
// hw/link_log.hpp), and links.csv and summary.json's "links" are written from it once (link_report.cpp), so a
// report draws both the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/metrics/csv_numbers.hpp"
#include "core/vocab/link_kinds.hpp"
#include "core/run/summary_sections.hpp"

namespace dualpath {

inline const char* link_class_name(LinkClass c) { return link_kind(c).name; }  // links.csv's `class`

struct LinkInfo {
  std::string name;   // e.g. "cnic3_rd", "snic1_down", "dram0", "pcie5_h2d", "stor2_ssd_read"
  LinkClass cls{};
  double bandwidth = 0;  // bytes/s
  double latency = 0;    // seconds a transfer crossing this link adds after its last byte (simulator only)
  int node = -1;         // compute node the link belongs to (-1 for storage servers)
  int gpu = -1;          // global GPU index for per-GPU links (CNIC, PCIe), else -1
  int server = -1;       // storage server index for storage links, else -1
  // Totals over the run, filled when run() returns.
  double bytes_model = 0;       // bytes of model (collective) traffic that crossed the link
  double bytes_kv = 0;          // bytes of KV traffic
  double mean_utilisation = 0;  // (bytes_model + bytes_kv) / (bandwidth * run end time)
  double bytes() const { return bytes_model + bytes_kv; }
};

// Utilisation of one link over one sampling interval [time, time + duration): the exact time average of the
// fluid model's rates, not an instantaneous sample. Rows are sparse: an interval in which a link carried nothing
// has no row for that link. Utilisations lie in [0, 1] up to the max-min solver's precision (~1e-9).
struct LinkSample {
  double time = 0;      // interval start, seconds
  double duration = 0;  // the interval length (shorter for the last interval of a run)
  int link = 0;         // index into LinkReport::links
  double model_utilisation = 0;  // model traffic bytes / (bandwidth * duration)
  double kv_utilisation = 0;     // KV traffic bytes / (bandwidth * duration)
  double utilisation() const { return model_utilisation + kv_utilisation; }
};

struct LinkReport {
  double interval = 0;  // sampling interval, seconds
  double end_time = 0;  // simulated time when the run ended
  std::vector<LinkInfo> links;
  std::vector<LinkSample> samples;  // ordered by interval, then by link index
};

// Where samples go as their intervals close, instead of LinkReport::samples (a long run streams links.csv).
using LinkSampleSink = std::function<void(const LinkSample&)>;

// links.csv: time,duration,link,class,node,gpu,utilisation,model_utilisation,kv_utilisation, one row per sample.
void write_links_csv(std::ostream& out, const LinkReport& rep);
// The same a row at a time: the header when constructed, then each sample as it comes (`links` must outlive it).
class LinksCsvWriter {
 public:
  LinksCsvWriter(std::ostream& out, const std::vector<LinkInfo>& links);
  void row(const LinkSample& s);

 private:
  const std::vector<LinkInfo>& links_;
  CsvNumbers csv_;
};
// summary.json "links": per link class the mean utilisation over the run (averaged over the class's links), the
// mean SNIC read utilisation of prefill and decode nodes (nodes below `prefill_nodes` are prefill nodes), and
// the balance max/avg of bytes read across SNICs.
LinkFigures link_summary(const LinkReport& rep, int prefill_nodes);

}  // namespace dualpath
