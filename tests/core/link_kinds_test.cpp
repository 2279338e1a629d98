// The table of link kinds (core/vocab/link_kinds.hpp): every LinkClass has a row, and the per-side kinds, their
// link counts and the JSON handed to the report follow from it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/vocab/link_kinds.hpp"
#include "core/run/link_report.hpp"

using namespace dualpath;

TEST(LinkKinds, EveryClassHasOneRowWithAUniqueName) {
  std::set<std::string> names;
  for (auto c : {LinkClass::SnicDown, LinkClass::SnicUp, LinkClass::CnicRd, LinkClass::CnicWr, LinkClass::Pcie,
                 LinkClass::Dram, LinkClass::Storage}) {
    EXPECT_EQ(link_kind(c).cls, c);
    names.insert(link_class_name(c));
    EXPECT_EQ(find_link_kind(link_class_name(c)), &link_kind(c));
  }
  EXPECT_EQ(names.size(), link_kinds().size());
  EXPECT_EQ(find_link_kind("nvlink"), nullptr);
}

TEST(LinkKinds, SideKindsSplitDirectionsAndCountLinksPerNodeOrGpu) {
  const auto kinds = side_kinds();
  const std::set<std::string> got(kinds.begin(), kinds.end());
  const std::set<std::string> want = {"snic_down", "snic_up", "cnic_rd", "cnic_wr", "dram", "pcie_h2d", "pcie_d2h"};
  EXPECT_EQ(got, want);  // storage servers are on no side
  EXPECT_EQ(side_kind_of("pcie", "pcie5_h2d"), "pcie_h2d");
  EXPECT_EQ(side_kind_of("pcie", "pcie5_d2h"), "pcie_d2h");
  EXPECT_EQ(side_kind_of("cnic_rd", "cnic3_rd"), "cnic_rd");
  EXPECT_EQ(side_kind_links("snic_down", 3, 8), 3);  // one per node
  EXPECT_EQ(side_kind_links("cnic_wr", 3, 8), 24);   // one per GPU
  EXPECT_EQ(side_kind_links("pcie_h2d", 2, 4), 8);   // one per GPU and direction
  EXPECT_THROW(side_kind_links("pcie", 2, 4), std::invalid_argument);
  const auto j = link_kinds_json();
  ASSERT_EQ(j.size(), link_kinds().size());
  int plotted = 0;
  for (const auto& k : j) plotted += k["plot_field"].get<std::string>().empty() ? 0 : 1;
  EXPECT_EQ(plotted, 3);  // the report's three link panels: SNIC read, CNIC read side, CNIC write side
}
