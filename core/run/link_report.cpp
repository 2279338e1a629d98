#include "core/run/link_report.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <ostream>
#include <utility>

#include "core/metrics/csv_numbers.hpp"

namespace dualpath {

LinksCsvWriter::LinksCsvWriter(std::ostream& out, const std::vector<LinkInfo>& links)
    : links_(links), csv_((out << "time,duration,link,class,node,gpu,utilisation,model_utilisation,kv_utilisation\n", out)) {}

void LinksCsvWriter::row(const LinkSample& s) {
  const auto& l = links_.at(static_cast<size_t>(s.link));
  // %.6g, what the ostream with setprecision(6) wrote before.
  csv_.general(s.time, 6).ch(',').general(s.duration, 6).ch(',').text(l.name).ch(',');
  csv_.text(link_class_name(l.cls)).ch(',').integer(l.node).ch(',').integer(l.gpu).ch(',');
  csv_.general(s.utilisation(), 6).ch(',').general(s.model_utilisation, 6).ch(',').general(s.kv_utilisation, 6);
  csv_.end_line();
}

void write_links_csv(std::ostream& out, const LinkReport& rep) {
  LinksCsvWriter w(out, rep.links);
  for (const auto& s : rep.samples) w.row(s);
}

LinkFigures link_summary(const LinkReport& rep, int prefill_nodes) {
  std::map<std::string, std::pair<double, int>> by_class;
  double pe_snic = 0, de_snic = 0, snic_max = 0, snic_sum = 0;
  int pe_n = 0, de_n = 0, snic_n = 0;
  for (const auto& l : rep.links) {
    auto& [sum, n] = by_class[link_class_name(l.cls)];
    sum += l.mean_utilisation, n += 1;
    if (l.cls == LinkClass::SnicDown) {
      (l.node < prefill_nodes ? pe_snic : de_snic) += l.mean_utilisation;
      (l.node < prefill_nodes ? pe_n : de_n) += 1;
      snic_max = std::max(snic_max, l.bytes());
      snic_sum += l.bytes(), snic_n += 1;
    }
  }
  LinkFigures out;
  for (const auto& [cls, v] : by_class) out.by_class[cls] = v.first / v.second;
  out.pe_snic_read = pe_n ? pe_snic / pe_n : 0.0;
  out.de_snic_read = de_n ? de_snic / de_n : 0.0;
  out.snic_read_balance = snic_sum > 0 ? snic_max / (snic_sum / snic_n) : 0.0;
  return out;
}

}  // namespace dualpath
