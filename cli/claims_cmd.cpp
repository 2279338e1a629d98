// dualpath claims [--only 1,3] [--out DIR] [--jobs N] [--scenarios DIR] [--sim-set k=v]... [--verbose]
// Re-checks the bandwidth claims of issue 5 (docs/claims.md) on small scenarios (scenarios/claims/): runs the
// simulations it needs as child processes, compares them with the §4.2 model (core/analysis/bandwidth_model.hpp),
// prints a table (claim, check, expected, measured, PASS/FAIL) and exits 1 when any check fails.
//
// Steady-state utilisation comes from each run's links.csv over the window [25%, 75%] of its simulated time
// (steady.json stops at 40 s: the window is [10 s, 30 s]), which leaves out the ramp-up (the agents' first
// rounds, all compute) and, in complete runs, the drain.
//
// --sim-set applies an override to the simulations only, not to the analytic model: a way to show that the suite
// fails when the simulated platform departs from the model (e.g. --sim-set topology.dram_bw="1 PB/s": DRAM that
// costs nothing makes the DRAM rows of claim 1 fail).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/child_runs.hpp"
#include "cli/commands.hpp"
#include "cli/name_list.hpp"
#include "core/analysis/bandwidth_model.hpp"
#include "core/analysis/link_window.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/metrics/summary.hpp"

namespace dualpath::cli {
namespace {

namespace fs = std::filesystem;
using namespace dualpath::analysis;

// Tolerances (docs/claims.md explains each).
constexpr double kLinkTol = 0.03;        // claim 1: |simulated - model| per link kind, fraction of capacity
constexpr double kSaturated = 0.95;      // claims 1-3: a link at or above this is saturated
constexpr double kIdle = 0.05;           // claim 2: DE SNICs under Basic
constexpr double kGrowthTol = 1.10;      // claim 3: read rate at 8P1D / 4P1D (SNICs in use grow 1.8x)
constexpr double kCapTol = 0.03;         // claim 3: read rate <= analytic cap + this (SNIC units, relative)
constexpr double kRatioSlack = 0.01;     // claim 4: Basic/DualPath JCT <= (P+D)/P · (1 + this)
constexpr double kApproach = 0.95;       // claim 4: at the cheapest compute, ratio >= this · (P+D)/P
constexpr double kEqualJct = 0.05;       // claim 5: max/min JCT - 1 within a group
constexpr double kSplitReach = 0.95;     // claim 6: the split policy reads at least this share of the LP cap
constexpr double kReadOnce = 0.02;       // claim 6: |bytes read / hit KV of the reads started - 1|
constexpr double kWindowStart = 0.25, kWindowEnd = 0.75;

// Steady-state points: compute 16x cheaper (storage-bound), and 320 GB DRAM buffers per node (the paper's Qwen
// value) so that buffer capacity, which §4.2 does not model, never caps the reads: with 80 GB the DE buffer is
// full at 3P1D and 4P1D (docs/claims.md, "Buffer capacity").
const std::vector<std::string> kSteadySets = {"topology.gpu.flops=15824 TFLOPS", "topology.gpu.hbm_bw=53.6 TB/s",
                                              "topology.dram_buffer_bytes=320 GB"};

struct Point {
  std::string id;        // folder name under --out
  std::string scenario;  // steady.json or jct.json
  std::string policy;
  int P = 1, D = 1;
  std::vector<std::string> sets;  // besides P, D, policy
  std::string label;              // for the table, e.g. "2P1D DualPath"
};

std::vector<std::string> all_sets(const Point& p) {
  std::vector<std::string> s = {"deployment.prefill_nodes=" + std::to_string(p.P),
                                "deployment.decode_nodes=" + std::to_string(p.D), "policy.name=" + p.policy};
  s.insert(s.end(), p.sets.begin(), p.sets.end());
  return s;
}

std::string policy_label(const std::string& p) {
  return p == "dualpath" ? "DualPath" : p == "basic" ? "Basic" : p == "dualpath-split" ? "DualPath-split" : p;
}

Point steady(const std::string& policy, int P, int D) {
  Point p{"steady_" + policy + "_" + std::to_string(P) + "p" + std::to_string(D) + "d", "steady.json", policy, P, D,
          kSteadySets, std::to_string(P) + "P" + std::to_string(D) + "D " + policy_label(policy)};
  return p;
}

// compute: 1, 4 or 16 (GPU FLOP/s and HBM bandwidth multiplier); snic_gbps: 400 unless said.
Point jct(const std::string& policy, int P, int D, int compute, int snic_gbps = 400) {
  Point p;
  p.id = "jct_" + policy + "_" + std::to_string(P) + "p" + std::to_string(D) + "d_x" + std::to_string(compute) +
         (snic_gbps != 400 ? "_snic" + std::to_string(snic_gbps) : "");
  p.scenario = "jct.json";
  p.policy = policy;
  p.P = P, p.D = D;
  if (compute != 1) {
    std::ostringstream f, h;
    f << "topology.gpu.flops=" << 989 * compute << " TFLOPS";
    h << "topology.gpu.hbm_bw=" << 3.35 * compute << " TB/s";
    p.sets = {f.str(), h.str()};
  }
  if (snic_gbps != 400) p.sets.push_back("topology.snic_bw=" + std::to_string(snic_gbps) + " Gbps");
  p.label = std::to_string(P) + "P" + std::to_string(D) + "D " + policy_label(policy) +
            (compute != 1 ? " x" + std::to_string(compute) : "") +
            (snic_gbps != 400 ? " SNIC " + std::to_string(snic_gbps) + "G" : "");
  return p;
}

struct Row {
  std::string claim, check, expected, measured;
  bool pass = true;
};

std::string f2(double v, int prec = 3) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(prec) << v;
  return o.str();
}

class Claims {
 public:
  Claims(std::string scen_dir, std::string out, std::vector<std::string> sim_sets, bool verbose)
      : scen_dir_(std::move(scen_dir)), out_(std::move(out)), sim_sets_(std::move(sim_sets)), verbose_(verbose) {}

  // The points each claim needs.
  static std::vector<Point> points_for(int claim) {
    switch (claim) {
      case 1: return {steady("dualpath", 1, 1), steady("dualpath", 2, 1), steady("dualpath", 1, 2),
                      steady("dualpath", 3, 1)};
      case 2: return {steady("basic", 1, 1), steady("basic", 2, 1)};
      case 3: return {steady("dualpath", 4, 1), steady("dualpath", 8, 1)};
      case 4: return {jct("basic", 1, 1, 1), jct("dualpath", 1, 1, 1), jct("basic", 1, 1, 4),
                      jct("dualpath", 1, 1, 4), jct("basic", 1, 1, 16), jct("dualpath", 1, 1, 16)};
      case 5: return {jct("basic", 1, 1, 16), jct("dualpath", 1, 1, 16, 200), jct("basic", 2, 1, 16),
                      jct("dualpath", 1, 1, 16), jct("dualpath", 2, 2, 16, 200), jct("basic", 3, 1, 16),
                      jct("dualpath", 2, 1, 16), jct("dualpath", 1, 2, 16)};
      case 6: return {steady("dualpath-split", 4, 1), steady("dualpath-split", 8, 1)};
    }
    return {};
  }

  void run_points(const std::vector<Point>& pts, unsigned jobs) {
    std::vector<ChildJob> cj;
    for (const auto& p : pts) {
      const std::string dir = out_ + "/" + p.id;
      fs::create_directories(dir);
      ChildJob j;
      j.args = {"run", scen_dir_ + "/" + p.scenario, "--quiet", "--out", dir};
      for (const auto& s : all_sets(p)) j.args.insert(j.args.end(), {"--set", s});
      for (const auto& s : sim_sets_) j.args.insert(j.args.end(), {"--set", s});
      j.log_path = dir + "/run.log";
      cj.push_back(std::move(j));
    }
    std::cerr << "claims: " << pts.size() << " simulations, " << jobs << " at a time, in " << out_ << "\n";
    size_t done = 0;
    const auto codes = run_child_jobs(cj, jobs, nullptr, [&](size_t i, int code) {
      ++done;
      std::cerr << "  [" << done << "/" << pts.size() << "] " << pts[i].label << " ("
                << pts[i].id << ")" << (code ? " FAILED, exit code " + std::to_string(code) : "") << "\n";
    });
    for (size_t i = 0; i < pts.size(); ++i)
      if (codes[i] != 0)
        throw std::runtime_error("simulation " + pts[i].id + " failed (exit code " + std::to_string(codes[i]) +
                                 "): " + log_tail(cj[i].log_path));
  }

  void claim1() {
    for (const auto& p : points_for(1)) {
      const auto w = window(p);
      const double xp = w.get("pe.snic_down"), xd = w.get("de.snic_down");
      const double min_snic = std::min(w.util.at("pe.snic_down").min, w.util.at("de.snic_down").min);
      const auto params = model_params(p);
      const auto at_measured = link_loads(params, p.P, p.D, xp, xd);
      const auto saturated = link_loads(params, p.P, p.D, 1, 1);
      double worst = 0;
      std::string worst_link;
      std::ostringstream detail;
      for (size_t i = 0; i < at_measured.size(); ++i) {
        const Link l = at_measured[i].link;
        if (l == Link::PeSnic || l == Link::DeSnic) continue;
        const double sim = w.get(window_key(l));
        const double dev = std::fabs(sim - at_measured[i].fraction);
        if (dev > worst) worst = dev, worst_link = link_name(l);
        detail << "      " << std::left << std::setw(20) << link_name(l) << std::right << " sim " << f2(sim)
               << "  model " << f2(at_measured[i].fraction) << "  (saturated " << f2(saturated[i].fraction)
               << ")  |d| " << f2(dev) << (dev > kLinkTol ? "  <-- off" : "") << "\n";
      }
      add({"1", p.label + ": SNICs", ">= " + f2(kSaturated, 2), "min " + f2(min_snic), min_snic >= kSaturated});
      add({"1", p.label + ": links vs §4.2 model", "|d| <= " + f2(kLinkTol, 2),
           "max |d| " + f2(worst) + " (" + worst_link + ")", worst <= kLinkTol});
      if (verbose_ || worst > kLinkTol)
        details_ << "  " << p.label << " (x_P " << f2(xp) << ", x_D " << f2(xd) << ", window [" << f2(w.t0, 1)
                 << ", " << f2(w.t1, 1) << "] s):\n" << detail.str();
    }
  }

  void claim2() {
    for (const auto& p : points_for(2)) {
      const auto w = window(p);
      const double pe_min = w.util.at("pe.snic_down").min, de_max = w.util.at("de.snic_down").max;
      add({"2", p.label + ": PE SNICs busy", ">= " + f2(kSaturated, 2), "min " + f2(pe_min), pe_min >= kSaturated});
      add({"2", p.label + ": DE SNICs carry", "<= " + f2(kIdle, 2), "max " + f2(de_max), de_max <= kIdle});
    }
  }

  void claim3() {
    const auto pts = points_for(3);
    std::vector<double> rates;
    for (const auto& p : pts) {
      const auto w = window(p);
      const auto params = model_params(p);
      const LinkLoad first = most_loaded(link_loads(params, p.P, p.D, 1, 1));
      const std::string key = window_key(first.link);
      const double util = w.get(key);
      // The busiest other link kind (SNICs excluded: they are what should not saturate).
      std::string other_name;
      double other = 0;
      for (const auto& [k, u] : w.util) {
        if (k == key || k.find("snic") != std::string::npos) continue;
        if (u.mean > other) other = u.mean, other_name = k;
      }
      const double pe_snic = w.get("pe.snic_down");
      const double rate = p.P * pe_snic + p.D * w.get("de.snic_down");
      const double cap = max_read_rate_snics(params, p.P, p.D, true);
      rates.push_back(rate);
      add({"3", p.label + ": " + link_name(first.link) + " (model: first to saturate, " + f2(first.fraction, 2) +
                    "x)",
           ">= " + f2(kSaturated, 2) + ", busiest", f2(util) + " (next " + other_name + " " + f2(other) + ")",
           util >= kSaturated && util >= other});
      add({"3", p.label + ": PE SNICs not the bottleneck", "< " + f2(kSaturated, 2), f2(pe_snic),
           pe_snic < kSaturated});
      add({"3", p.label + ": read rate (SNICs)", "<= cap " + f2(cap, 2), f2(rate, 2),
           rate <= cap * (1 + kCapTol)});
    }
    const double snic_growth = static_cast<double>(pts[1].P + pts[1].D) / (pts[0].P + pts[0].D);
    add({"3", pts[1].label + " / " + pts[0].label + " read rate", "<= " + f2(kGrowthTol, 2) + " (SNICs x" +
                                                                       f2(snic_growth, 2) + ")",
         f2(rates[1] / rates[0]), rates[1] / rates[0] <= kGrowthTol});
  }

  void claim4() {
    const auto pts = points_for(4);
    const double bound = static_cast<double>(pts[0].P + pts[0].D) / pts[0].P;
    std::vector<double> ratios;
    for (size_t i = 0; i + 1 < pts.size(); i += 2) {
      const double r = jct_of(pts[i]) / jct_of(pts[i + 1]);
      ratios.push_back(r);
      const std::string compute = pts[i].sets.empty() ? "x1" : pts[i].label.substr(pts[i].label.rfind('x'));
      add({"4", "1P1D Basic/DualPath JCT, compute " + compute, "<= (P+D)/P = " + f2(bound, 2), f2(r),
           r <= bound * (1 + kRatioSlack)});
    }
    bool monotone = true;
    for (size_t i = 1; i < ratios.size(); ++i) monotone = monotone && ratios[i] >= ratios[i - 1] - 0.01;
    std::string seq;
    for (double r : ratios) seq += (seq.empty() ? "" : " -> ") + f2(r, 2);
    add({"4", "ratio grows as compute gets cheaper", "non-decreasing", seq, monotone});
    add({"4", "ratio approaches (P+D)/P at x16", ">= " + f2(kApproach * bound, 2), f2(ratios.back()),
         ratios.back() >= kApproach * bound});
  }

  void claim5() {
    const auto pts = points_for(5);
    // Groups of equal storage bandwidth in use, in units of one 400 Gbps SNIC.
    const std::vector<std::pair<std::string, std::vector<size_t>>> groups = {
        {"1 SNIC", {0, 1}}, {"2 SNICs", {2, 3, 4}}, {"3 SNICs", {5, 6, 7}}};
    for (const auto& [name, idx] : groups) {
      double lo = 1e300, hi = 0;
      std::string list;
      for (size_t i : idx) {
        const double j = jct_of(pts[i]);
        lo = std::min(lo, j), hi = std::max(hi, j);
        list += (list.empty() ? "" : ", ") + pts[i].label.substr(0, pts[i].label.find(" x16")) +
                (pts[i].label.find("SNIC") != std::string::npos ? " (200G SNICs)" : "") + " " + f2(j, 1) + "s";
      }
      add({"5", name + ": " + list, "max/min <= " + f2(1 + kEqualJct, 2), f2(hi / lo), hi / lo <= 1 + kEqualJct});
    }
  }

  // Split reads (issue 20): outside the range the split policy reaches the LP's read-rate cap (the cap of any mix
  // of the two paths, which per-request splits do not raise: docs/split-reads.md), and reads each hit byte once.
  void claim6() {
    for (const auto& p : points_for(6)) {
      const auto w = window(p);
      const double rate = p.P * w.get("pe.snic_down") + p.D * w.get("de.snic_down");
      const double cap = max_read_rate_snics(model_params(p), p.P, p.D, true);
      add({"6", p.label + ": read rate (SNICs)", ">= " + f2(kSplitReach, 2) + " x cap " + f2(cap, 2), f2(rate, 2),
           rate >= kSplitReach * cap && rate <= cap * (1 + kCapTol)});
      // Bytes read over the hit KV of the reads that started (a read whose second half had not started at the cut
      // counts whole here: the tolerance). Both halves reading the whole hit would read it twice.
      std::ifstream sj(out_ + "/" + p.id + "/summary.json");
      const auto s = nlohmann::json::parse(sj);
      const double read = run_summary_from_json(s.at("results")).bytes.storage_read;
      const double kvpt = s.at("config").at("derived").at("kv_bytes_per_token").get<double>();
      const double hit = started_hit_tokens(out_ + "/" + p.id + "/requests.csv") * kvpt;
      const double ratio = hit > 0 ? read / hit : 0;
      add({"6", p.label + ": bytes read / hit KV of reads started", "1 +- " + f2(kReadOnce, 2), f2(ratio),
           std::fabs(ratio - 1) <= kReadOnce});
    }
  }

  static double started_hit_tokens(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("missing " + path);
    std::string line;
    std::getline(in, line);
    std::vector<std::string> head;
    for (std::istringstream h(line); std::getline(h, line, ',');) head.push_back(line);
    const auto col = [&](const std::string& name) {
      const auto it = std::find(head.begin(), head.end(), name);
      if (it == head.end()) throw std::runtime_error(path + ": no column " + name);
      return static_cast<size_t>(it - head.begin());
    };
    const size_t hit = col("hit"), start = col("read_start");
    double total = 0;
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      for (std::istringstream r(line); std::getline(r, line, ',');) f.push_back(line);
      if (f.size() > std::max(hit, start) && std::stod(f[start]) >= 0) total += std::stod(f[hit]);
    }
    return total;
  }

  bool print() const {
    size_t wc = 5, wk = 5, we = 8, wm = 8;
    for (const auto& r : rows_) {
      wk = std::max(wk, r.check.size());
      we = std::max(we, r.expected.size());
      wm = std::max(wm, r.measured.size());
    }
    auto line = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d,
                    const std::string& e) {
      std::cout << std::left << std::setw(static_cast<int>(wc + 1)) << a << std::setw(static_cast<int>(wk + 2)) << b
                << std::setw(static_cast<int>(we + 2)) << c << std::setw(static_cast<int>(wm + 2)) << d << e << "\n";
    };
    line("claim", "check", "expected", "measured", "result");
    bool ok = true;
    for (const auto& r : rows_) {
      line(r.claim, r.check, r.expected, r.measured, r.pass ? "PASS" : "FAIL");
      ok = ok && r.pass;
    }
    if (!details_.str().empty()) std::cout << "\nper-link detail:\n" << details_.str();
    size_t fails = 0;
    for (const auto& r : rows_) fails += r.pass ? 0 : 1;
    std::cout << "\n" << (ok ? "all " + std::to_string(rows_.size()) + " checks passed"
                             : std::to_string(fails) + " of " + std::to_string(rows_.size()) + " checks FAILED")
              << "\n";
    return ok;
  }

 private:
  void add(Row r) { rows_.push_back(std::move(r)); }

  // The analytic model's parameters: the scenario's topology without --sim-set.
  BandwidthParams model_params(const Point& p) const {
    const Scenario sc = load_scenario(scen_dir_ + "/" + p.scenario, all_sets(p));
    const auto& t = sc.topology;
    return {t.gpus_per_node, t.snic_bw / t.cnic_bw, t.cnic_bw, t.dram_bw, t.pcie_bw};
  }

  WindowUtil window(const Point& p) const {
    const std::string path = out_ + "/" + p.id + "/links.csv";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("missing " + path);
    const double end = links_end_time(in);
    in.clear();
    in.seekg(0);
    const Scenario sc = load_scenario(scen_dir_ + "/" + p.scenario, all_sets(p));
    return window_utilisation(in, p.P, p.D, sc.topology.gpus_per_node, kWindowStart * end, kWindowEnd * end);
  }

  double jct_of(const Point& p) const {
    std::ifstream in(out_ + "/" + p.id + "/summary.json");
    const auto s = nlohmann::json::parse(in);
    if (!s["complete"].get<bool>()) throw std::runtime_error(p.id + " did not complete");
    return run_summary_from_json(s.at("results")).jct;
  }

  static std::string window_key(Link l) {
    switch (l) {
      case Link::PeSnic: return "pe.snic_down";
      case Link::DeSnic: return "de.snic_down";
      case Link::PeCnicRead: return "pe.cnic_rd";
      case Link::PeCnicWrite: return "pe.cnic_wr";
      case Link::DeCnicRead: return "de.cnic_rd";
      case Link::DeCnicWrite: return "de.cnic_wr";
      case Link::PeDram: return "pe.dram";
      case Link::DeDram: return "de.dram";
      case Link::PePcieH2d: return "pe.pcie_h2d";
      case Link::PePcieD2h: return "pe.pcie_d2h";
      case Link::DePcieH2d: return "de.pcie_h2d";
      case Link::DePcieD2h: return "de.pcie_d2h";
    }
    return "";
  }

  std::string scen_dir_, out_;
  std::vector<std::string> sim_sets_;
  bool verbose_;
  std::vector<Row> rows_;
  std::ostringstream details_;
};

struct ClaimsArgs {
  std::string only;
  std::string out = "results/claims";
  std::string scenarios = std::string(DUALPATH_DATA_DIR) + "/scenarios/claims";
  std::vector<std::string> sim_sets;
  unsigned jobs = 0;
  bool verbose = false;
};

void claims(const ClaimsArgs& a) {
  std::set<int> which;
  if (a.only.empty()) {
    which = {1, 2, 3, 4, 5, 6};
  } else {
    for (const std::string& t : name_list(a.only, "--only")) {
      if (t.size() != 1 || t[0] < '1' || t[0] > '6') throw InputError("--only " + a.only, "expected claims 1-6, e.g. 1,3");
      which.insert(t[0] - '0');
    }
  }
  for (const char* f : {"steady.json", "jct.json"})
    if (!fs::exists(a.scenarios + "/" + f)) throw InputError(a.scenarios, std::string("no ") + f + " here");
  std::vector<Point> pts;
  std::set<std::string> seen;
  for (int c : which)
    for (auto& p : Claims::points_for(c))
      if (seen.insert(p.id).second) pts.push_back(p);
  // Validate every simulation's configuration (with --sim-set) before starting any.
  for (const auto& p : pts) {
    auto sets = all_sets(p);
    sets.insert(sets.end(), a.sim_sets.begin(), a.sim_sets.end());
    (void)load_scenario(a.scenarios + "/" + p.scenario, sets);
  }
  Claims c(a.scenarios, a.out, a.sim_sets, a.verbose);
  c.run_points(pts, a.jobs ? a.jobs : default_parallelism());
  if (which.count(1)) c.claim1();
  if (which.count(2)) c.claim2();
  if (which.count(3)) c.claim3();
  if (which.count(4)) c.claim4();
  if (which.count(5)) c.claim5();
  if (which.count(6)) c.claim6();
  if (!a.sim_sets.empty()) {
    std::cout << "simulations run with --sim-set";
    for (const auto& s : a.sim_sets) std::cout << " " << s;
    std::cout << " (the analytic model without)\n";
  }
  if (!c.print()) throw CLI::RuntimeError(kExitFailure);
}

}  // namespace

void register_claims_command(CLI::App& app) {
  auto args = std::make_shared<ClaimsArgs>();
  CLI::App* cmd = app.add_subcommand("claims", "Re-check the bandwidth claims (docs/claims.md); exit 1 on a failure");
  cmd->add_option("--only", args->only, "Comma-separated claims to check (default 1,2,3,4,5,6)");
  cmd->add_option("--out", args->out, "Folder for the simulations' outputs")->capture_default_str();
  cmd->add_option("--scenarios", args->scenarios, "Folder holding steady.json and jct.json")->capture_default_str();
  cmd->add_option("--sim-set", args->sim_sets, "Override for the simulations only, not the analytic model")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--jobs", args->jobs, "Simulations at once (default: the core count)")->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--verbose", args->verbose, "Print every link of claim 1");
  cmd->callback([args] { claims(*args); });
}

}  // namespace dualpath::cli
