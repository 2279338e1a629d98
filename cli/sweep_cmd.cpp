// dualpath sweep SCENARIO --vary key=v1,v2,... [--vary ...] [--overlay FILE]... [--set k=v]... --out DIR [--jobs N]
//                [--no-plot] [--shard I/N | --slurm N [--slurm-opt OPTS] [--submit]]
// Runs the cross product of the --vary lists, one `dualpath run` child process per point (SimGrid allows one
// simulation per process), up to --jobs (default: the core count) at a time, with a progress bar on stderr when
// it is a terminal. Each point runs in a staging folder renamed to DIR/points/<key=value__...>/ when it succeeds
// (its log is run.log there), so a point folder that exists is complete: points already there are skipped and an
// interrupted sweep resumes where it stopped. DIR/sweep.json records the scenario, the overlays, the --set list
// and the varied keys, and a re-run with different ones is refused. Overlays go to every point's child run, before
// the --set list and the varied keys. DIR/sweep.csv is written at the end from the point folders, in point order
// (rows of earlier sweeps into DIR with other values after them), so it is the same bytes however the points ran.
// --shard I/N runs only points with index % N == I and writes no table; --slurm N writes (and with --submit,
// submits) a Slurm array of N shards and a merge job (cli/slurm_jobs.hpp, docs/slurm.md).
// At the end, analysis/plot_sweep.py (run with /usr/bin/python3 and Debian's matplotlib) draws DIR/sweep.png.
// Exit code 0 when every point succeeded, 1 when some failed (their logs are named), 2 on bad input.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/child_runs.hpp"
#include "cli/commands.hpp"
#include "cli/plot_script.hpp"
#include "cli/scenario_options.hpp"
#include "cli/shard.hpp"
#include "cli/slurm_jobs.hpp"
#include "core/analysis/bandwidth_model.hpp"
#include "core/analysis/scenario_bandwidth.hpp"
#include "core/analysis/vary_grid.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/metrics/summary.hpp"
#include "core/run/summary_sections.hpp"
#include "core/vocab/link_kinds.hpp"
#include "core/sched/policy_registry.hpp"
#include "core/config/output_file.hpp"

namespace dualpath::cli {
namespace {

namespace fs = std::filesystem;

struct SweepArgs {
  std::string scenario;
  std::vector<std::string> varies;
  std::vector<std::string> overrides;
  std::vector<std::string> overlays;
  std::string out;
  unsigned jobs = 0;
  bool no_plot = false;
  std::string shard;  // "I/N": run only this slice of the points (cli/shard.hpp)
  SlurmArgs slurm;
};

// CSV with RFC 4180 quoting for cells holding commas, quotes or newlines.
std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::vector<std::string> parse_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cell), cell.clear();
    } else {
      cell += c;
    }
  }
  out.push_back(cell);
  return out;
}

std::string csv_num(double v) {
  if (!std::isfinite(v)) return "";
  std::ostringstream o;
  o << std::setprecision(9) << v;
  return o.str();
}

// The link kinds with a sweep.csv column (util_<kind>: mean utilisation of every link of the kind), from the table.
std::vector<const LinkKind*> sweep_link_kinds() {
  std::vector<const LinkKind*> out;
  for (const auto& k : link_kinds())
    if (k.sweep_column) out.push_back(&k);
  return out;
}

const std::vector<std::string> kMetricColumns = [] {
  std::vector<std::string> c = {"status",     "jct_s",        "prompt_tokens_per_s", "generated_tokens_per_s",
                                "ttft_p50_s", "ttft_p99_s",   "tpot_p50_s",          "kv_hit_rate",
                                "rounds",     "rounds_total", "complete",            "pe_snic_util",
                                "de_snic_util"};
  for (const LinkKind* k : sweep_link_kinds()) c.push_back(std::string("util_") + k->name);
  for (const char* n : {"storage_read_bytes", "read_rate_snics", "P", "D", "pd_ratio", "policy", "analytic_pd_lower",
                        "analytic_pd_upper", "analytic_read_rate_snics"})
    c.push_back(n);
  return c;
}();

struct PointInfo {
  std::vector<std::string> values;  // one per axis
  std::string dir;
  Scenario sc;
};

// The CSV row of a finished point: its axis values, then kMetricColumns.
std::vector<std::string> metrics_row(const PointInfo& p) {
  const RunFile run = read_run_file(p.dir + "/summary.json");
  const RunSummary& r = run.results;
  const LinkFigures& l = run.links;
  auto cls = [&](const char* c) { return l.of_class(c); };

  const Scenario& sc = p.sc;
  const int P = sc.deployment.prefill_nodes, D = sc.deployment.decode_nodes;
  const double jct = r.jct;
  const double read = r.bytes.storage_read;
  const auto f = effective_features(sc.policy);
  const analysis::BandwidthParams bp = analysis::bandwidth_params(sc, /*with_pcie=*/false);
  double lo = NAN, hi = NAN, cap = NAN;
  try {
    const auto range = analysis::bottleneck_free_range(bp);
    lo = range.lower, hi = range.upper;
    if (!f.bypass_io && P > 0) cap = analysis::max_read_rate_snics(bp, P, D, f.dual_path && D > 0);
  } catch (const std::invalid_argument&) {
  }
  std::vector<std::string> row = p.values;
  for (const std::string& v :
       {std::string("ok"), csv_num(jct), csv_num(r.prompt_tokens_per_s), csv_num(r.generated_tokens_per_s),
        csv_num(r.ttft.p50), csv_num(r.ttft.p99), csv_num(r.tpot.p50), csv_num(r.hit_rate),
        csv_num(static_cast<double>(r.rounds)), csv_num(static_cast<double>(run.rounds_total)),
        std::string(run.complete ? "1" : "0"), csv_num(l.pe_snic_read),
        csv_num(l.de_snic_read)})
    row.push_back(v);
  for (const LinkKind* k : sweep_link_kinds()) row.push_back(csv_num(cls(k->name)));
  for (const std::string& v :
       {csv_num(read), csv_num(jct > 0 ? read / jct / sc.pe_topology().snic_bw : NAN), std::to_string(P), std::to_string(D),
        csv_num(D > 0 ? static_cast<double>(P) / D : NAN), sc.policy.name, csv_num(lo), csv_num(hi), csv_num(cap)})
    row.push_back(v);
  return row;
}

std::string join_row(const std::vector<std::string>& cells) {
  std::string s;
  for (size_t i = 0; i < cells.size(); ++i) s += (i ? "," : "") + csv_cell(cells[i]);
  return s;
}

std::string fmt_secs(double s) {
  std::ostringstream o;
  if (s >= 3600) o << static_cast<int>(s / 3600) << "h" << std::setw(2) << std::setfill('0')
                   << static_cast<int>(std::fmod(s, 3600) / 60) << "m";
  else if (s >= 60) o << static_cast<int>(s / 60) << "m" << std::setw(2) << std::setfill('0')
                      << static_cast<int>(std::fmod(s, 60)) << "s";
  else o << static_cast<int>(s) << "s";
  return o.str();
}

class Progress {
 public:
  Progress(size_t total, size_t skipped) : total_(total), skipped_(skipped), tty_(::isatty(2) == 1) {
    t0_ = std::chrono::steady_clock::now();
  }
  // On a terminal one updating bar; otherwise (a log, CI, Slurm) one plain line each time a point ends.
  void update(size_t done, size_t failed, size_t running, bool point_ended = false) {
    const size_t width = 30, todo = total_ - skipped_;
    const size_t finished = done + failed;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (!tty_) {
      if (!point_ended) return;
      std::ostringstream o;
      o << "sweep: " << finished << "/" << todo << " points done";
      if (failed) o << " (" << failed << " failed)";
      o << ", " << fmt_secs(el) << " elapsed";
      if (finished < todo) o << ", ~" << fmt_secs(el / static_cast<double>(finished) * static_cast<double>(todo - finished)) << " left";
      std::cerr << o.str() << "\n";
      return;
    }
    const size_t fill = todo ? width * finished / todo : width;
    std::ostringstream o;
    o << "\r[" << std::string(fill, '#') << std::string(width - fill, '-') << "] " << finished << "/" << todo
      << " points, " << running << " running";
    if (failed) o << ", " << failed << " failed";
    o << ", " << fmt_secs(el) << " elapsed";
    if (finished > 0 && finished < todo) o << ", ~" << fmt_secs(el / finished * (todo - finished)) << " left";
    o << "   ";
    std::cerr << o.str() << std::flush;
  }
  void finish() {
    if (tty_) std::cerr << "\n";
  }

 private:
  size_t total_, skipped_;
  bool tty_;
  std::chrono::steady_clock::time_point t0_;
};

void sweep(const SweepArgs& a) {
  if (a.varies.empty()) throw InputError("dualpath sweep", "give at least one --vary key=v1,v2,...");
  std::vector<analysis::VaryAxis> axes;
  for (const auto& v : a.varies) axes.push_back(analysis::parse_vary(v));
  // The cross product, each point validated before anything runs (bad input exits 2 up front).
  std::vector<PointInfo> points;
  for (const auto& variant : analysis::variant_grid(axes)) {
    PointInfo p;
    p.values = variant.values;
    p.sc = analysis::load_variant(a.scenario, a.overrides, variant, a.overlays);
    (void)effective_features(p.sc.policy);
    p.dir = a.out + "/points/" + analysis::variant_slug(variant);
    points.push_back(std::move(p));
  }

  const std::optional<Shard> shard = parse_shard(a.shard);
  if (a.slurm.shards > 0) {
    if (shard) throw InputError("--shard", "--slurm writes the shards' job script itself; give one or the other");
    make_output_folder(a.out, "--out");
    submit_slurm_jobs("sweep", a.out, a.slurm);
    return;
  }
  make_output_folder(a.out, "--out");
  // The sweep's identity: a resume must use the same scenario, --set list and varied keys.
  nlohmann::json meta = {{"scenario", fs::absolute(a.scenario).lexically_normal().string()},
                         {"set", a.overrides},
                         {"vary_keys", nlohmann::json::array()}};
  for (const auto& ax : axes) meta["vary_keys"].push_back(ax.key);
  // Only when given, so folders of sweeps made before overlays existed still resume.
  if (!a.overlays.empty()) meta["overlays"] = a.overlays;
  const std::string meta_path = a.out + "/sweep.json";
  if (std::ifstream in(meta_path); in) {
    nlohmann::json old;
    try {
      old = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception&) {
      throw InputError(meta_path, "not valid JSON; remove it or choose another --out");
    }
    if (old != meta)
      throw InputError(meta_path, "this folder holds a sweep of " + old.dump() + "; this one is " + meta.dump() +
                                      ". Use another --out");
  } else {
    write_json_atomically(meta_path, meta);  // shards may start together
  }

  // A point is done when its folder exists: runs are published by renaming a finished staging folder onto it.
  // Rows of earlier sweeps into this folder with other values are kept from sweep.csv, after this sweep's.
  std::vector<std::string> header;
  for (const auto& ax : axes) header.push_back(ax.key);
  header.insert(header.end(), kMetricColumns.begin(), kMetricColumns.end());
  const std::string csv_path = a.out + "/sweep.csv";
  std::vector<std::string> other_rows;
  if (std::ifstream in(csv_path); in && !shard) {
    std::string line;
    if (std::getline(in, line) && parse_csv_line(line) != header)
      throw InputError(csv_path, "its columns differ from this sweep's; use another --out");
    while (std::getline(in, line)) {
      const auto cells = parse_csv_line(line);
      if (line.empty() || cells.size() != header.size() || cells[axes.size()] != "ok") continue;
      const std::vector<std::string> key(cells.begin(), cells.begin() + static_cast<long>(axes.size()));
      bool current = false;
      for (const auto& p : points) current = current || p.values == key;
      if (!current) other_rows.push_back(line);
    }
  }
  auto done_already = [](const PointInfo& p) { return fs::exists(p.dir + "/summary.json"); };
  std::vector<size_t> todo;
  size_t skipped = 0, others = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    if (done_already(points[i])) ++skipped;
    else if (in_shard(shard, i)) todo.push_back(i);
    else ++others;
  }
  const unsigned jobs = a.jobs ? a.jobs : default_parallelism();
  std::cerr << "sweep: " << points.size() << " points, " << skipped << " already done, running " << todo.size()
            << (shard ? " of shard " + shard->text() + " (" + std::to_string(others) + " left to other shards)" : "")
            << " (" << jobs << " at a time); results in " << a.out << "\n";

  std::vector<ChildJob> cj;
  std::vector<std::string> staging;
  for (size_t i : todo) {
    const auto& p = points[i];
    fs::create_directories(fs::path(p.dir).parent_path());
    staging.push_back(staging_folder(p.dir));
    fs::create_directories(staging.back());
    ChildJob j;
    j.args = {"run", a.scenario, "--quiet", "--out", staging.back()};
    for (const auto& f : a.overlays) j.args.insert(j.args.end(), {"--overlay", f});
    for (const auto& o : a.overrides) j.args.insert(j.args.end(), {"--set", o});
    for (size_t k = 0; k < axes.size(); ++k) j.args.insert(j.args.end(), {"--set", axes[k].key + "=" + p.values[k]});
    j.log_path = staging.back() + "/run.log";
    cj.push_back(std::move(j));
  }
  Progress bar(points.size(), skipped + others);
  size_t done = 0, failed = 0, running = 0;
  std::vector<std::string> failures;
  bar.update(0, 0, 0);
  run_child_jobs(
      cj, jobs,
      [&](size_t) { bar.update(done, failed, ++running); },
      [&](size_t k, int code) {
        --running;
        const auto& p = points[todo[k]];
        if (code == 0 && publish_folder(staging[k], p.dir)) {
          ++done;
        } else {
          ++failed;
          failures.push_back(p.dir + ": exit code " + std::to_string(code) + ": " + log_tail(cj[k].log_path, 300));
        }
        bar.update(done, failed, running, true);
      });
  bar.finish();
  if (shard) {  // the merge (the same command without --shard) writes the table and the plot
    std::cout << "sweep: shard " << shard->text() << ": " << done << " run, " << skipped << " already done, " << failed
              << " failed; merge with the same command without --shard\n";
    for (const auto& f : failures) std::cerr << "sweep: failed: " << f << "\n";
    if (failed) throw CLI::RuntimeError(kExitFailure);
    return;
  }
  // The table, in point order, from the point folders: the same bytes however the points were run.
  std::ostringstream table;
  table << join_row(header) << "\n";
  size_t rows = 0;
  for (const auto& p : points) {
    if (!done_already(p)) continue;
    try {
      table << join_row(metrics_row(p)) << "\n";
      ++rows;
    } catch (const std::exception& e) {
      ++failed;
      failures.push_back(p.dir + ": unreadable outputs (" + e.what() + ")");
    }
  }
  for (const auto& row : other_rows) table << row << "\n";
  {
    const std::string tmp = csv_path + ".tmp";
    std::ofstream(tmp) << table.str();
    fs::rename(tmp, csv_path);
  }
  std::cout << "sweep: " << done << " run, " << skipped << " skipped, " << failed << " failed; " << rows
            << " rows in " << csv_path << "\n";
  for (const auto& f : failures) std::cerr << "sweep: failed: " << f << "\n";

  if (!a.no_plot) {
    const std::string png = a.out + "/sweep.png";
    run_plot_script("sweep", "plot_sweep.py", {csv_path, png}, png);
  }
  if (failed) throw CLI::RuntimeError(kExitFailure);
}

}  // namespace

void register_sweep_command(CLI::App& app) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand("sweep", "Run a scenario over the cross product of --vary lists; CSV and plot");
  cmd->add_option("scenario", args->scenario, "Scenario JSON file")->required();
  cmd->add_option("--vary", args->varies, "key=v1,v2,...: a field and its values (repeatable; cross product)")
      ->take_all()
      ->allow_extra_args(false);
  add_scenario_options(cmd, args->overrides, args->overlays, "Override a field for every point: path=value");
  cmd->add_option("--out", args->out, "Output folder (sweep.csv, sweep.png, points/)")->required();
  cmd->add_option("--jobs", args->jobs, "Points run at once (default: the core count)")->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--no-plot", args->no_plot, "Do not draw sweep.png");
  add_shard_options(cmd, args->shard, args->slurm);
  cmd->callback([args] { sweep(*args); });
}

}  // namespace dualpath::cli
