#include "core/analysis/bandwidth_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dualpath::analysis {

namespace {

constexpr double kRelTol = 1e-9;

bool close(double a, double b) { return std::fabs(a - b) <= kRelTol * std::max({1.0, std::fabs(a), std::fabs(b)}); }

// One link's load as a linear function of the SNIC utilisations: fraction = a·x_P + b·x_D.
struct Row {
  Link link;
  double a, b, capacity;
  const char* steps;
};

// Each row is the bytes a link carries per PE-SNIC byte (a) and per DE-SNIC byte (b), over the link's own capacity:
// with one kind of node these are the header's fractions (S_P = S_D, B_P = B_D).
std::vector<Row> rows(const BandwidthParams& p, double P, double D) {
  const double g = p.g;
  const Side pe = p.pe(), de = p.de();
  const double Sp = pe.snic(), Sd = de.snic();
  // r = P/D multiplies PE-path bytes landing on one DE GPU/node; 1/r multiplies DE-path bytes on one PE GPU.
  const double r = D > 0 ? P / D : 0;
  const double inv_r = D / P;
  const double has_de = D > 0 ? 1.0 : 0.0;
  std::vector<Row> out = {
      {Link::PeSnic, 1, 0, Sp, "PE 1-2"},
      {Link::DeSnic, 0, has_de, Sd, "DE 1-2"},
      {Link::PeCnicRead, 2 * Sp / (g * pe.B), 0, pe.B, "PE 3, PE 5"},
      {Link::PeCnicWrite, Sp / (g * pe.B), Sd / (g * pe.B) * inv_r, pe.B, "PE 4, DE 5"},
      {Link::DeCnicRead, Sp / (g * de.B) * r, has_de * 2 * Sd / (g * de.B), de.B, "PE 8, DE 3, DE 6"},
      {Link::DeCnicWrite, 2 * Sp / (g * de.B) * r, has_de * Sd / (g * de.B), de.B, "PE 7, PE 9, DE 7"},
      {Link::PeDram, 2 * Sp / pe.M, 0, pe.M, "SNIC write + PE 3"},
      {Link::DeDram, 2 * r * Sp / de.M, has_de * 3 * Sd / de.M, de.M, "DE 1-2 write, DE 3, DE 6; PE 7, PE 8"},
  };
  if (p.pcie > 0) {
    out.push_back({Link::PePcieH2d, Sp / (g * pe.pcie), 0, pe.pcie, "PE 3"});
    out.push_back({Link::PePcieD2h, 0, 0, pe.pcie, "-"});
    out.push_back({Link::DePcieH2d, Sp / (g * de.pcie) * r, has_de * 2 * Sd / (g * de.pcie), de.pcie,
                   "PE 8, DE 3, DE 6"});
    out.push_back({Link::DePcieD2h, Sp / (g * de.pcie) * r, 0, de.pcie, "PE 7"});
  }
  return out;
}

void check_pd(double P, double D) {
  if (!(P > 0) || !std::isfinite(P)) throw std::invalid_argument("P must be a positive number");
  if (!(D >= 0) || !std::isfinite(D)) throw std::invalid_argument("D must be a non-negative number");
}

}  // namespace

void validate(const BandwidthParams& p) {
  if (p.g < 1) throw std::invalid_argument("g (GPUs per node) must be >= 1");
  auto pos = [](double v, const char* what) {
    if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument(std::string(what) + " must be a positive number");
  };
  pos(p.s, "s (SNIC/CNIC bandwidth ratio)");
  pos(p.B, "B (CNIC bandwidth)");
  pos(p.M, "M (DRAM bandwidth)");
  if (!(p.pcie >= 0) || !std::isfinite(p.pcie)) throw std::invalid_argument("PCIe bandwidth must be >= 0");
  for (const auto& [v, what] : {std::pair<double, const char*>{p.de_s, "the decode nodes' s"}, {p.de_B, "the decode nodes' B"},
                                {p.de_M, "the decode nodes' M"}, {p.de_pcie, "the decode nodes' PCIe bandwidth"}})
    if (!(v >= 0) || !std::isfinite(v)) throw std::invalid_argument(std::string(what) + " must be >= 0 (0 = the prefill nodes')");
}

const char* link_name(Link l) {
  switch (l) {
    case Link::PeSnic: return "PE SNIC";
    case Link::DeSnic: return "DE SNIC";
    case Link::PeCnicRead: return "PE CNIC read";
    case Link::PeCnicWrite: return "PE CNIC write";
    case Link::DeCnicRead: return "DE CNIC read";
    case Link::DeCnicWrite: return "DE CNIC write";
    case Link::PeDram: return "PE DRAM";
    case Link::DeDram: return "DE DRAM";
    case Link::PePcieH2d: return "PE PCIe host->dev";
    case Link::PePcieD2h: return "PE PCIe dev->host";
    case Link::DePcieH2d: return "DE PCIe host->dev";
    case Link::DePcieD2h: return "DE PCIe dev->host";
  }
  return "?";
}

const char* link_key(Link l) {
  switch (l) {
    case Link::PeSnic: return "pe_snic";
    case Link::DeSnic: return "de_snic";
    case Link::PeCnicRead: return "pe_cnic_rd";
    case Link::PeCnicWrite: return "pe_cnic_wr";
    case Link::DeCnicRead: return "de_cnic_rd";
    case Link::DeCnicWrite: return "de_cnic_wr";
    case Link::PeDram: return "pe_dram";
    case Link::DeDram: return "de_dram";
    case Link::PePcieH2d: return "pe_pcie_h2d";
    case Link::PePcieD2h: return "pe_pcie_d2h";
    case Link::DePcieH2d: return "de_pcie_h2d";
    case Link::DePcieD2h: return "de_pcie_d2h";
  }
  return "?";
}

std::vector<LinkLoad> link_loads(const BandwidthParams& p, double P, double D, double x_P, double x_D) {
  validate(p);
  check_pd(P, D);
  if (D == 0 && x_D != 0) throw std::invalid_argument("D = 0 needs x_D = 0");
  std::vector<LinkLoad> out;
  for (const Row& row : rows(p, P, D)) {
    LinkLoad l;
    l.link = row.link;
    l.fraction = row.a * x_P + row.b * x_D;
    l.capacity = row.capacity;
    l.bytes_per_s = l.fraction * row.capacity;
    l.steps = row.steps;
    out.push_back(l);
  }
  return out;
}

LinkLoad most_loaded(const std::vector<LinkLoad>& loads) {
  if (loads.empty()) throw std::invalid_argument("no links");
  LinkLoad best = loads.front();
  for (const auto& l : loads)
    if (l.fraction > best.fraction + kRelTol) best = l;
  return best;
}

BandwidthRange bottleneck_free_range(const BandwidthParams& p) {
  validate(p);
  // One kind of node: the paper's closed forms (exact: 1/7, 7/2). Mixed hardware: the same constraints with each
  // side's own capacities (the header's second line).
  const bool one = !p.mixed();
  const double g = p.g;
  const Side pe = p.pe(), de = p.de();
  const double s = pe.s, S = pe.snic(), Sd = de.snic(), m = p.M / (p.B * p.s);
  BandwidthRange r;
  auto bound = [&](Link l, Constraint::Kind k, double v, const char* f) {
    r.constraints.push_back({l, k, v, v > 0 && std::isfinite(v), f});
  };
  auto fixed = [&](Link l, double fraction, const char* f) {
    r.constraints.push_back({l, Constraint::Fixed, fraction, fraction <= 1 + kRelTol, f});
  };
  fixed(Link::PeCnicRead, 2 * s / g, "s <= g/2");
  bound(Link::PeCnicWrite, Constraint::Lower,
        s < g ? (one ? s / (g - s) : Sd / (pe.B * (g - s))) : std::numeric_limits<double>::infinity(),
        one ? "P/D >= s/(g-s)" : "P/D >= S_D/(B(g-s))");
  bound(Link::DeCnicRead, Constraint::Upper, one ? (g - 2 * s) / s : (g - 2 * de.s) * de.B / S,
        one ? "P/D <= (g-2s)/s" : "P/D <= (g-2s_D)B_D/S");
  bound(Link::DeCnicWrite, Constraint::Upper, one ? (g - s) / (2 * s) : (g - de.s) * de.B / (2 * S),
        one ? "P/D <= (g-s)/(2s)" : "P/D <= (g-s_D)B_D/(2S)");
  fixed(Link::PeDram, 2 * S / pe.M, one ? "2sB <= M" : "2S <= M");
  bound(Link::DeDram, Constraint::Upper, one ? (m - 3) / 2 : (de.M - 3 * Sd) / (2 * S),
        one ? "P/D <= (M/(Bs)-3)/2" : "P/D <= (M_D-3S_D)/(2S)");

  // The range's bounds, binding constraints and emptiness from its constraints.
  r.lower = 0;
  r.upper = std::numeric_limits<double>::infinity();
  for (const auto& c : r.constraints) {
    if (c.kind == Constraint::Lower) r.lower = std::max(r.lower, c.bound);
    if (c.kind == Constraint::Upper) r.upper = std::min(r.upper, c.bound);
    if (c.kind == Constraint::Fixed && !c.holds) r.violated_fixed.push_back(c.link);
  }
  for (const auto& c : r.constraints) {
    if (c.kind == Constraint::Lower && close(c.bound, r.lower)) r.binding_lower.push_back(c.link);
    if (c.kind == Constraint::Upper && close(c.bound, r.upper)) r.binding_upper.push_back(c.link);
  }
  r.empty = !r.violated_fixed.empty() || !(r.upper > 0) || r.lower > r.upper * (1 + kRelTol) ||
            !std::isfinite(r.lower);
  return r;
}

bool in_range(const BandwidthRange& r, double P, double D) {
  check_pd(P, D);
  if (r.empty || D == 0) return false;
  const double x = P / D;
  return x >= r.lower * (1 - kRelTol) && x <= r.upper * (1 + kRelTol);
}

ReadMix best_read_mix(const BandwidthParams& p, double P, double D, bool dual_path) {
  validate(p);
  check_pd(P, D);
  // Linear program in (x_P, x_D): maximise P·x_P + D·x_D subject to a·x_P + b·x_D <= 1 for every link and
  // 0 <= x <= 1. Two variables: the optimum is at a vertex, so try every intersection of two constraint lines
  // (the first vertex found wins a tie, so the answer is deterministic).
  struct Half {
    double a, b, c;  // a·x_P + b·x_D <= c
  };
  // Mixed hardware: a DE SNIC's byte counts S_D/S prefill SNICs.
  const double de_weight = p.de().snic() / p.pe().snic();
  std::vector<Half> hs = {{-1, 0, 0}, {0, -1, 0}};
  for (const Row& row : rows(p, P, D)) hs.push_back({row.a, row.b, 1});
  if (!dual_path || D == 0) hs.push_back({0, 1, 0});  // Basic: no DE reads
  auto feasible = [&](double xp, double xd) {
    for (const auto& h : hs)
      if (h.a * xp + h.b * xd > h.c + 1e-12) return false;
    return true;
  };
  ReadMix best;
  for (size_t i = 0; i < hs.size(); ++i)
    for (size_t j = i + 1; j < hs.size(); ++j) {
      const double det = hs[i].a * hs[j].b - hs[j].a * hs[i].b;
      if (std::fabs(det) < 1e-15) continue;
      const double xp = (hs[i].c * hs[j].b - hs[j].c * hs[i].b) / det;
      const double xd = (hs[i].a * hs[j].c - hs[j].a * hs[i].c) / det;
      const double snics = P * xp + D * de_weight * xd;
      if (feasible(xp, xd) && snics > best.snics + 1e-12) best = {xp, xd, snics};
    }
  return best;
}

double max_read_rate_snics(const BandwidthParams& p, double P, double D, bool dual_path) {
  return best_read_mix(p, P, D, dual_path).snics;
}

}  // namespace dualpath::analysis
