// The paper's §4.2 bottleneck-free bandwidth analysis (digest shared/paper/dualpath.md §3), generalised.
//
// Notation: P prefill and D decode nodes; g GPUs per node, one compute NIC (CNIC) of bandwidth B each; one
// storage NIC (SNIC) of s·B per node; M DRAM bandwidth per node, half duplex (reads and writes add).
// Every hit KV byte read through a PE SNIC takes the PE path (PE 1-9), every byte read through a DE SNIC the DE
// path (DE 1-7); load balancing spreads both evenly over the (PE GPU, DE GPU) pairs. The analysis ignores
// miss-token KV, write-back and model (collective) traffic.
//
// Loads are linear in the SNIC read rates, so link_loads() takes the PE-side and DE-side SNIC utilisations
// x_P, x_D (1 = saturated, the paper's assumption; Basic is x_D = 0). With r = P/D, as fractions of capacity:
//   PE CNIC read   (PE 3, PE 5)            2·s·x_P / g
//   PE CNIC write  (PE 4, DE 5)            (s/g)·(x_P + x_D/r)
//   DE CNIC read   (PE 8, DE 3, DE 6)      (s/g)·(x_P·r + 2·x_D)
//   DE CNIC write  (PE 7, PE 9, DE 7)      (s/g)·(2·x_P·r + x_D)
//   PE DRAM        (SNIC write, CNIC read) 2·s·B·x_P / M
//   DE DRAM        (DE path 1 write + 2 reads, PE path 1 write + 1 read)   (3·x_D + 2·x_P·r)·s·B / M
//   PCIe, when a PCIe bandwidth C is given (per direction, per GPU; DRAM-side crossings only, GPU and CNIC share
//   a switch): PE host->dev s·B·x_P/(g·C), PE dev->host 0, DE host->dev (x_P·r + 2·x_D)·s·B/(g·C),
//   DE dev->host x_P·r·s·B/(g·C).
// With x_P = x_D = 1 the bottleneck-free range is
//   s/(g-s) <= P/D <= min{(g-2s)/s, (g-s)/(2s), (M/(B·s)-3)/2}, provided s <= g/2 (PE CNIC read; the paper's
//   "s <= g" is looser than its own algebra) and 2·s·B <= M (PE DRAM).
// Mixed hardware (each role its own s, B, M, PCIe; PE values unsuffixed, DE values with a D; S = s·B a node's
// SNIC): the same byte flows over each side's own capacities, so with x_P = x_D = 1
//   S_D/(B(g-s)) <= P/D <= min{(g-2s_D)·B_D/S, (g-s_D)·B_D/(2S), (M_D-3S_D)/(2S)}, provided s <= g/2 and 2S <= M,
// which is the line above when both roles are one.
#pragma once

#include <string>
#include <vector>

namespace dualpath::analysis {

// One role's capacities: s·B its SNIC, B a CNIC, M its DRAM, pcie a GPU's PCIe link.
struct Side {
  double s, B, M, pcie;
  double snic() const { return s * B; }
};

struct BandwidthParams {
  int g = 8;          // GPUs (and CNICs) per node
  double s = 1;       // SNIC bandwidth / CNIC bandwidth
  double B = 50e9;    // CNIC bandwidth per direction, bytes/s
  double M = 500e9;   // DRAM bandwidth per node (half duplex), bytes/s
  double pcie = 0;    // PCIe bandwidth per GPU per direction, bytes/s; 0 = not modelled
  // The decode nodes' own s, B, M and PCIe where their hardware differs (mixed hardware, issue 65: Scenario's
  // decode_topology); 0 = the prefill nodes' value above. g is one for both roles.
  double de_s = 0, de_B = 0, de_M = 0, de_pcie = 0;
  bool mixed() const { return de_s > 0 || de_B > 0 || de_M > 0 || de_pcie > 0; }
  Side pe() const { return {s, B, M, pcie}; }
  Side de() const {
    return {de_s > 0 ? de_s : s, de_B > 0 ? de_B : B, de_M > 0 ? de_M : M, de_pcie > 0 ? de_pcie : pcie};
  }
};

// Throws std::invalid_argument for g < 1 or a non-positive / non-finite s, B, M (pcie may be 0).
void validate(const BandwidthParams& p);

enum class Link {
  PeSnic,
  DeSnic,
  PeCnicRead,
  PeCnicWrite,
  DeCnicRead,
  DeCnicWrite,
  PeDram,
  DeDram,
  PePcieH2d,
  PePcieD2h,
  DePcieH2d,
  DePcieD2h,
};
const char* link_name(Link l);  // e.g. "DE CNIC write"
const char* link_key(Link l);   // e.g. "de_cnic_wr" (for machine-readable output)

struct LinkLoad {
  Link link;
  double fraction = 0;      // load / capacity
  double bytes_per_s = 0;   // load, per link (per GPU for CNIC/PCIe, per node for SNIC/DRAM)
  double capacity = 0;      // bytes/s
  std::string steps;        // the path steps that load it, e.g. "PE 7, PE 9, DE 7"
};

// Load on one link of each kind for P:D (P, D > 0) with SNIC utilisations x_P (PE side) and x_D (DE side).
// PCIe rows only when p.pcie > 0. D may be 0 only with x_D = 0 (then DE rows are 0); P must be > 0.
std::vector<LinkLoad> link_loads(const BandwidthParams& p, double P, double D, double x_P = 1, double x_D = 1);

// The load on the most loaded link (the one that saturates first as SNIC rates grow together).
LinkLoad most_loaded(const std::vector<LinkLoad>& loads);

// One inequality of the analysis.
struct Constraint {
  Link link;
  enum Kind { Lower, Upper, Fixed } kind;  // lower / upper bound on P/D, or independent of P/D
  double bound = 0;                        // the P/D bound (Lower/Upper); for Fixed, the link's load fraction
  bool holds = true;                       // Fixed: fraction <= 1; Lower/Upper: the bound is meaningful (> 0)
  std::string formula;                     // e.g. "P/D <= (g-s)/(2s)"
};

struct BandwidthRange {
  std::vector<Constraint> constraints;  // every inequality, in the paper's order
  double lower = 0;                     // bottleneck-free P/D range [lower, upper]
  double upper = 0;
  bool empty = false;                   // no P/D is bottleneck-free (a Fixed constraint fails, or lower > upper)
  std::vector<Link> binding_lower;      // constraints that attain the lower bound
  std::vector<Link> binding_upper;      // constraints that attain the upper bound (ties within 1e-9 relative)
  std::vector<Link> violated_fixed;     // Fixed constraints that fail
};

BandwidthRange bottleneck_free_range(const BandwidthParams& p);

// True when P/D lies in the range (inclusive, 1e-9 relative slack).
bool in_range(const BandwidthRange& r, double P, double D);

// Maximum total hit-KV read rate, in units of one (prefill node's) SNIC (s·B), that P:D can sustain with every link at or below
// capacity, choosing x_P, x_D in [0, 1] (policy "dualpath"), or with x_D = 0 (policy "basic"). Inside the range it
// is P + D (DualPath) and P (Basic); outside it the binding link caps it.
double max_read_rate_snics(const BandwidthParams& p, double P, double D, bool dual_path = true);

// The SNIC utilisations that attain that cap: how a policy should mix the two read paths. The LP is over the
// aggregate rates, so it already allows any fractional mix; splitting single requests between the paths
// (dualpath-split) cannot raise the cap, only help a per-request rule reach it (docs/split-reads.md).
struct ReadMix {
  double x_pe = 0, x_de = 0;  // PE-side and DE-side SNIC utilisation (0..1)
  double snics = 0;           // P·x_pe + D·x_de (· S_D/S with mixed hardware): in prefill SNICs
};
ReadMix best_read_mix(const BandwidthParams& p, double P, double D, bool dual_path = true);

}  // namespace dualpath::analysis
