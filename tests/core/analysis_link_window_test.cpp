// Steady-state window utilisation from a links.csv text (core/analysis/link_window.hpp).
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "core/analysis/link_window.hpp"

using namespace dualpath::analysis;

namespace {
const char* kHeader = "time,duration,link,class,node,gpu,utilisation,model_utilisation,kv_utilisation\n";
}

TEST(AnalysisLinkWindow, IntegratesOverlapAndCountsMissingLinksAsIdle) {
  // 1P1D, 2 GPUs per node. GPU 2 (DE) cnic write busy 1.0 during [0,1) and 0.5 during [1,2); GPU 3 never appears.
  std::stringstream csv;
  csv << kHeader << "0,1,cnic2_wr,cnic_wr,1,2,1,0,1\n"
      << "1,1,cnic2_wr,cnic_wr,1,2,0.5,0.25,0.25\n"
      << "0,2,snic0_down,snic_down,0,-1,0.8,0,0.8\n"
      << "0,2,pcie0_h2d,pcie,0,0,0.4,0,0.4\n"
      << "0,2,stor0_ssd_read,storage,-1,-1,0.9,0,0.9\n";
  const auto w = window_utilisation(csv, 1, 1, 2, 0.5, 1.5);
  EXPECT_DOUBLE_EQ(w.end_time, 2);
  // GPU 2: (0.5·1 + 0.5·0.5)/1 = 0.75; GPU 3: 0 -> mean 0.375, min 0, max 0.75.
  EXPECT_DOUBLE_EQ(w.util.at("de.cnic_wr").mean, 0.375);
  EXPECT_DOUBLE_EQ(w.util.at("de.cnic_wr").min, 0);
  EXPECT_DOUBLE_EQ(w.util.at("de.cnic_wr").max, 0.75);
  EXPECT_DOUBLE_EQ(w.kv_util.at("de.cnic_wr").mean, (0.5 + 0.125) / 2);
  EXPECT_DOUBLE_EQ(w.get("pe.snic_down"), 0.8);
  EXPECT_DOUBLE_EQ(w.get("pe.pcie_h2d"), 0.2);  // one of two GPUs
  EXPECT_DOUBLE_EQ(w.get("pe.pcie_d2h"), 0);
  EXPECT_DOUBLE_EQ(w.get("de.snic_down"), 0);
  EXPECT_DOUBLE_EQ(w.util.at("de.snic_down").min, 0);
}

TEST(AnalysisLinkWindow, RejectsMalformedInput) {
  std::stringstream bad_header("time,duration\n0,1\n");
  EXPECT_THROW(window_utilisation(bad_header, 1, 1, 8, 0, 1), std::runtime_error);
  std::stringstream bad_num(std::string(kHeader) + "x,1,dram0,dram,0,-1,1,0,1\n");
  EXPECT_THROW(window_utilisation(bad_num, 1, 1, 8, 0, 1), std::runtime_error);
  std::stringstream ok(kHeader);
  EXPECT_THROW(window_utilisation(ok, 1, 1, 8, 1, 1), std::runtime_error);
  std::stringstream end(std::string(kHeader) + "3,0.5,dram0,dram,0,-1,1,0,1\n");
  EXPECT_DOUBLE_EQ(links_end_time(end), 3.5);
}
