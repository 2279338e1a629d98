// docs/architecture.md "How to add a link kind", tried once: a kind added in one file (here, this test; in the
// tree, a row of core/vocab/link_kinds.cpp) is written, summed and averaged by everything that reads the table:
// links.csv's `class` column, summary.json's mean utilisation by class, the per-side kinds and their link counts,
// the claims' steady-state windows, and the table handed to the report. Only the links themselves are outside the
// table: a body creates them (here, the report is built by hand as a body would).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/analysis/link_window.hpp"
#include "core/run/link_report.hpp"
#include "core/vocab/link_kinds.hpp"

using namespace dualpath;

namespace {

// An NVLink per GPU, its bandwidth in each direction its own link, like PCIe.
LinkClass nvlink() {
  static const LinkClass c = register_link_kind(LinkKind{LinkClass{}, "nvlink", LinkKind::PerGpu, {"_tx", "_rx"},
                                                         /*sweep_column=*/true, /*kv_counter=*/true,
                                                         "kv_utilisation", "NVLink, KV traffic"});
  return c;
}

// One prefill node and one decode node of two GPUs each; node 0's GPUs send on NVLink, half and all of the time.
LinkReport report() {
  LinkReport r;
  r.interval = 1;
  r.end_time = 2;
  auto link = [&](std::string name, LinkClass cls, int node, int gpu, double util) {
    LinkInfo l;
    l.name = std::move(name), l.cls = cls, l.node = node, l.gpu = gpu, l.bandwidth = 100e9;
    l.bytes_kv = util * l.bandwidth * r.end_time;
    l.mean_utilisation = util;
    r.links.push_back(l);
    const int index = static_cast<int>(r.links.size()) - 1;
    for (int t = 0; t < 2; ++t) r.samples.push_back({double(t), 1.0, index, 0.0, util});
  };
  link("snic0_down", LinkClass::SnicDown, 0, -1, 0.8);
  link("nvlink0_tx", nvlink(), 0, 0, 0.5);
  link("nvlink1_tx", nvlink(), 0, 1, 1.0);
  link("nvlink2_rx", nvlink(), 1, 2, 0.25);
  return r;
}

}  // namespace

TEST(LinkKindExtension, AnAddedKindIsAValidClassWithItsOwnName) {
  const LinkClass c = nvlink();
  EXPECT_EQ(link_kind(c).cls, c);
  EXPECT_STREQ(link_class_name(c), "nvlink");
  EXPECT_EQ(find_link_kind("nvlink"), &link_kind(c));
  EXPECT_EQ(&link_kinds().back(), &link_kind(c));  // listed after the built-in kinds
  for (const auto& k : link_kinds()) {
    if (&k != &link_kind(c)) {
      EXPECT_NE(k.cls, c) << k.name;
    }
  }
  // A second kind of that name, or a name links.csv cannot hold as is, is refused.
  EXPECT_THROW(register_link_kind(LinkKind{LinkClass{}, "nvlink", LinkKind::PerGpu, {}}), std::invalid_argument);
  EXPECT_THROW(register_link_kind(LinkKind{LinkClass{}, "nv,link", LinkKind::PerGpu, {}}), std::invalid_argument);
  EXPECT_THROW(register_link_kind(LinkKind{LinkClass{}, "x", LinkKind::PerGpu, {"_t x"}}), std::invalid_argument);
}

TEST(LinkKindExtension, LinksCsvAndTheSummaryNameAndAverageIt) {
  const LinkReport r = report();
  std::ostringstream csv;
  write_links_csv(csv, r);
  EXPECT_NE(csv.str().find(",nvlink1_tx,nvlink,0,1,"), std::string::npos) << csv.str();
  const LinkFigures f = link_summary(r, /*prefill_nodes=*/1);
  EXPECT_NEAR(f.of_class("nvlink"), (0.5 + 1.0 + 0.25) / 3, 1e-12);  // the mean over the kind's links
  EXPECT_NEAR(f.of_class("snic_down"), 0.8, 1e-12);
  EXPECT_NEAR(f.pe_snic_read, 0.8, 1e-12);  // the new kind is not taken for a SNIC
}

TEST(LinkKindExtension, SideKindsAndTheSteadyStateWindowSplitItByDirection) {
  nvlink();
  const auto kinds = side_kinds();
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "nvlink_tx"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "nvlink_rx"), kinds.end());
  EXPECT_EQ(side_kind_of("nvlink", "nvlink3_rx"), "nvlink_rx");
  EXPECT_EQ(side_kind_links("nvlink_tx", 2, 4), 8);  // one per GPU and direction
  std::ostringstream csv;
  write_links_csv(csv, report());
  std::istringstream in(csv.str());
  const auto w = analysis::window_utilisation(in, /*P=*/1, /*D=*/1, /*g=*/2, 0.0, 2.0);
  EXPECT_NEAR(w.kv_util.at("pe.nvlink_tx").mean, (0.5 + 1.0) / 2, 1e-9);  // both PE GPUs' links
  EXPECT_NEAR(w.kv_util.at("pe.nvlink_tx").min, 0.5, 1e-9);
  EXPECT_NEAR(w.kv_util.at("de.nvlink_rx").mean, 0.25 / 2, 1e-9);  // one of the DE node's two links was idle
  EXPECT_NEAR(w.kv_util.at("de.nvlink_rx").min, 0.0, 1e-12);
}

TEST(LinkKindExtension, TheReportsTableListsIt) {
  nvlink();
  const auto j = link_kinds_json();
  ASSERT_EQ(j.size(), link_kinds().size());
  const auto& row = j.back();
  EXPECT_EQ(row["name"], "nvlink");
  EXPECT_EQ(row["per_gpu"], true);
  EXPECT_EQ(row["directions"], nlohmann::json::array({"_tx", "_rx"}));
  EXPECT_EQ(row["plot_field"], "kv_utilisation");
}
