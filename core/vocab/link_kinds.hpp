// The kinds of link a run reports, as one table (issue 17): adding a kind is one row in link_kinds.cpp (or one
// register_link_kind call from outside the tree), plus the links that the bodies create of it. links.csv's `class` column, the steady-state windows of `dualpath claims`
// (core/analysis/link_window.cpp), the columns of sweep.csv (cli/sweep_cmd.cpp), the trace's counter tracks
// (core/metrics/trace_counters.cpp) and the report's link figure (analysis/report.py, handed this table as JSON by
// `dualpath report`) all read it. Vocabulary of the whole core, so it lives in model/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dualpath {

// The kind of hardware a link models; links.csv groups and plots by it.
enum class LinkClass : uint8_t {
  SnicDown,  // storage -> node DRAM direction of a node's storage NIC
  SnicUp,    // node DRAM -> storage direction
  CnicRd,    // a GPU's compute NIC reading memory over PCIe (HBM or host DRAM): everything leaving that NIC's side
  CnicWr,    // the same NIC writing memory: everything arriving on that side
  Pcie,      // one direction of a GPU's PCIe link between host DRAM and the GPU/CNIC switch
  Dram,      // a node's host DRAM, half duplex: reads and writes share its bandwidth
  Storage,   // a storage server's NIC or SSD
};

struct LinkKind {
  LinkClass cls;
  const char* name;  // links.csv `class`, e.g. "cnic_rd"
  enum Scope : uint8_t { PerNode, PerGpu, PerServer } scope;
  // Link-name suffixes that split the kind by direction (a PCIe link per direction: "pcie5_h2d", "pcie5_d2h");
  // empty when each link is one kind already.
  std::vector<std::string_view> directions;
  bool sweep_column = false;  // sweep.csv has its mean utilisation (util_<name>)
  bool kv_counter = false;    // trace counters split it into KV and model traffic
  const char* plot_field = "";  // links.csv column the report's link figure plots ("": not plotted)
  const char* plot_title = "";
};

// Every kind, in the order reports list them: the built-in rows, then those registered since.
const std::vector<LinkKind>& link_kinds();
// Adds a kind from outside this file (docs/architecture.md "How to add a link kind";
// tests/core/link_kind_extension_test.cpp tries it) and returns its class, the next value after the last row's
// (`row.cls` is ignored). std::invalid_argument when a kind has that name, or the name or a direction is not text a
// CSV column holds as is. Not thread-safe, and it moves the rows: register before runs start.
LinkClass register_link_kind(LinkKind row);
const LinkKind& link_kind(LinkClass c);
const LinkKind* find_link_kind(std::string_view name);  // nullptr when no kind has that name

// The per-side kinds a steady-state window averages ("snic_down", ..., PCIe as "pcie_h2d" and "pcie_d2h"): every
// kind on compute nodes, with each direction of a split kind as its own.
std::vector<std::string> side_kinds();
// The side kind of a links.csv row: its class, plus the direction suffix of its link name for a split kind.
std::string side_kind_of(std::string_view cls, std::string_view link);
// How many links of a side kind `nodes` compute nodes of `gpus_per_node` GPUs have.
int side_kind_links(std::string_view side_kind, int nodes, int gpus_per_node);

// The table for analysis/report.py: [{"name", "per_gpu", "directions", "plot_field", "plot_title"}, ...].
nlohmann::json link_kinds_json();

}  // namespace dualpath
