// dualpath trace gen | stats | convert: synthetic agent traces, their Table 2 statistics, Mooncake conversion.
// Bad input surfaces as dualpath::InputError (one line on stderr, exit 2; see cli/main.cpp).
#include <cstdio>
#include <iostream>
#include <memory>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/config/input_error.hpp"
#include "core/config/scenario.hpp"
#include "core/kv/zero_service_reuse.hpp"
#include "core/workload/agents.hpp"
#include "core/workload/mooncake.hpp"
#include "core/workload/synth.hpp"
#include "core/workload/synth_calibrate.hpp"
#include "core/workload/table2.hpp"
#include "core/workload/trace_io.hpp"
#include "core/workload/trace_stats.hpp"

namespace dualpath::cli {

namespace {

struct GenOptions {
  std::string profile;
  std::string reading = name_of(WorkloadSpec{}.table2_reading);  // the scenario default
  int trajectories = 500;
  int64_t seed = 1;  // signed, so that -1 is refused rather than wrapped to 2^64 - 1
  std::string out = "-";
};

struct CalibrateOptions {
  std::string profile;
  std::string reading = name_of(WorkloadSpec{}.table2_reading);
  int seeds = 24;
  int trajectories = 500;
  bool json = false;
};

struct StatsOptions {
  std::string file;
  std::string from = "native";
  int block_tokens = PolicySpec{}.block_tokens;
  bool json = false;
};

struct ConvertOptions {
  std::string from;
  std::string in;
  std::string out;
};

std::string fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

void run_gen(const GenOptions& o) {
  const SynthParams params = synth_profile(o.profile, table2_reading(o.reading, "--reading"), "--profile");
  if (o.trajectories < 1)
    throw InputError("--trajectories", "expected at least 1, found " + std::to_string(o.trajectories));
  const Trace trace = generate_trace(params, o.trajectories, static_cast<uint64_t>(o.seed));
  write_trace_file(o.out, trace);
  size_t rounds = 0;
  for (const auto& t : trace.trajectories) rounds += t.rounds.size();
  if (o.out != "-")  // stdout carries the trace itself
    std::cerr << "trace gen: " << trace.trajectories.size() << " trajectories, " << rounds << " rounds (profile "
              << o.profile << ", seed " << o.seed << ") in " << o.out << "; `dualpath trace stats " << o.out
              << "` shows its Table 2 statistics\n";
}

// Re-derives the stored levers of a profile from the paper's row (docs/workload.md §2): starts from the stored
// parameters, so on a calibrated profile it confirms them; on edited shape parameters it finds new levers.
void run_calibrate(const CalibrateOptions& o) {
  const Table2Reading reading = table2_reading(o.reading, "--reading");
  const Table2Row& row = table2_row(o.profile, "--profile");
  if (o.seeds < 1 || o.seeds > 1000)
    throw InputError("--seeds", "expected an integer in [1, 1000], found " + std::to_string(o.seeds));
  if (o.trajectories < 1 || o.trajectories > 100000)
    throw InputError("--trajectories", "expected an integer in [1, 100000], found " + std::to_string(o.trajectories));
  CalibrationOptions co;
  co.seeds = o.seeds;
  co.trajectories = o.trajectories;
  const CalibrationResult r = calibrate_synth(synth_profile(o.profile, reading, "--profile"), reading, row, co);
  const SynthParams& p = r.params;
  const auto& names = table2_column_names();
  if (o.json) {
    nlohmann::json j = {{"profile", o.profile},
                        {"reading", o.reading},
                        {"seeds", o.seeds},
                        {"trajectories", o.trajectories},
                        {"iterations", r.iterations},
                        {"worst_error", r.worst_error},
                        {"levers",
                         {{"turns_median", p.turns_median},
                          {"append_median", p.append_median},
                          {"append_traj_sigma", p.append_traj_sigma},
                          {"first_median", p.first_median},
                          {"gen_median", p.gen_median}}}};
    for (int i = 0; i < kTable2Columns; ++i) j["columns"][names[i]] = {{"paper", row.values[i]}, {"model", r.values[i]}};
    std::cout << j.dump(1) << "\n";
    return;
  }
  std::cout << "profile " << o.profile << ", reading " << o.reading << ": " << r.iterations
            << " Newton step(s) over " << o.seeds << " seeds x " << o.trajectories << " trajectories\n"
            << "levers: turns_median " << fixed(p.turns_median, 2) << ", append_median " << fixed(p.append_median, 2)
            << ", append_traj_sigma " << fixed(p.append_traj_sigma, 3) << ", first_median "
            << fixed(p.first_median, 1) << ", gen_median " << fixed(p.gen_median, 2) << "\n";
  for (int i = 0; i < kTable2Columns; ++i)
    std::cout << "  " << names[i] << ": model " << fixed(r.values[i], 1) << "  paper " << fixed(row.values[i], 0)
              << "  (" << fixed(100 * (r.values[i] / row.values[i] - 1), 2) << "%)\n";
}

// Extra lines for a Mooncake input: what the chain rebuild found.
struct MooncakeExtras {
  int64_t requests = 0, chains = 0, multi_turn = 0, continued = 0, clamped = 0, shared_chains = 0;
  int common_blocks = 0;
  double reusable_share = 0;
};

// The KV hit rate a replay of the trace sees with service taking no time (core/kv/zero_service_reuse.hpp): one
// agent per trajectory, at the trace's arrival times when every trajectory has one, else all at t = 0.
struct ReplayReuse {
  ZeroServiceReuse reuse;
  int block_tokens = 0;
  bool arrivals = false;
};

ReplayReuse replay_reuse(const Trace& trace, int block_tokens) {
  if (block_tokens < 1 || block_tokens > (1 << 20))
    throw InputError("--block-tokens", "expected an integer in [1, 1048576], found " + std::to_string(block_tokens));
  WorkloadSpec spec;
  spec.source = WorkloadSource::File;
  bool arrivals = true;
  for (const auto& t : trace.trajectories) arrivals = arrivals && t.arrival >= 0;
  spec.mode = arrivals ? ArrivalMode::Online : ArrivalMode::Offline;
  return ReplayReuse{zero_service_reuse(make_agents(trace, spec), block_tokens), block_tokens, arrivals};
}

void print_stats(const std::string& file, const TraceStats& s, int64_t multi_turn, const ReplayReuse& rr,
                 const MooncakeExtras* mc, bool json) {
  const double shared = rr.reuse.prompt_tokens > 0 ? rr.reuse.shared_hit_tokens / rr.reuse.prompt_tokens : 0;
  if (json) {
    std::cout << "{\"file\":" << nlohmann::json(file).dump() << ",\"trajectories\":" << s.trajectories
              << ",\"rounds\":" << s.rounds << ",\"multi_turn_trajectories\":" << multi_turn
              << ",\"turns\":" << fixed(s.turns, 2) << ",\"append_per_turn\":" << fixed(s.append_per_turn, 2)
              << ",\"gen_per_turn\":" << fixed(s.gen_per_turn, 2) << ",\"total\":" << fixed(s.total, 1)
              << ",\"context\":" << fixed(s.context, 1) << ",\"kv_hit_rate\":" << fixed(s.kv_hit_rate, 5)
              << ",\"turns_per_trajectory\":" << fixed(s.turns_per_trajectory, 2)
              << ",\"append_traj_mean\":" << fixed(s.append_traj_mean, 2)
              << ",\"gen_traj_mean\":" << fixed(s.gen_traj_mean, 2)
              << ",\"context_traj_mean\":" << fixed(s.context_traj_mean, 1) << ",\"max_total\":" << s.max_total
              << ",\"replay\":{\"block_tokens\":" << rr.block_tokens << ",\"arrivals\":" << (rr.arrivals ? "true" : "false")
              << ",\"kv_hit_rate\":" << fixed(rr.reuse.hit_rate(), 5) << ",\"shared_hit_rate\":" << fixed(shared, 5) << "}";
    if (mc)
      std::cout << ",\"mooncake\":{\"requests\":" << mc->requests << ",\"chains\":" << mc->chains
                << ",\"multi_turn_chains\":" << mc->multi_turn << ",\"continued_requests\":" << mc->continued
                << ",\"clamped_appends\":" << mc->clamped << ",\"shared_prefix_chains\":" << mc->shared_chains
                << ",\"common_prefix_blocks\":" << mc->common_blocks
                << ",\"reusable_prefix_share\":" << fixed(mc->reusable_share, 5) << "}";
    std::cout << "}\n";
    return;
  }
  std::cout << "trace:             " << file << "\n"
            << "trajectories:      " << s.trajectories << " (" << multi_turn << " with 2+ rounds)\n"
            << "rounds:            " << s.rounds << "\n"
            << "Table 2 columns (per-turn columns are means over rounds; Total is a mean over trajectories):\n"
            << "  turns:           " << fixed(s.turns, 1) << "   (plain mean per trajectory: "
            << fixed(s.turns_per_trajectory, 1) << ")\n"
            << "  append/turn:     " << fixed(s.append_per_turn, 1) << "   (per-trajectory mean: "
            << fixed(s.append_traj_mean, 1) << ")\n"
            << "  gen/turn:        " << fixed(s.gen_per_turn, 1) << "   (per-trajectory mean: "
            << fixed(s.gen_traj_mean, 1) << ")\n"
            << "  total tokens:    " << fixed(s.total, 0) << "   (longest: " << s.max_total << ")\n"
            << "  context:         " << fixed(s.context, 0) << "   (per-trajectory mean: "
            << fixed(s.context_traj_mean, 0) << ")\n"
            << "  KV hit rate:     " << fixed(100 * s.kv_hit_rate, 2) << "%  (context / (context + append))\n"
            << "Replay (one agent per trajectory, " << (rr.arrivals ? "at the trace's arrival times" : "all at t = 0")
            << ", service taking no time, " << rr.block_tokens << "-token blocks):\n"
            << "  KV hit rate:     " << fixed(100 * rr.reuse.hit_rate(), 2) << "%  (" << fixed(100 * shared, 2)
            << " points from prefixes shared between trajectories)\n";
  if (mc)
    std::cout << "Mooncake source:\n"
              << "  requests:        " << mc->requests << "\n"
              << "  chains:          " << mc->chains << " (" << mc->multi_turn << " multi-turn; " << mc->continued
              << " requests continue an earlier one)\n"
              << "  reusable prefix: " << fixed(100 * mc->reusable_share, 2)
              << "% of input tokens (512-token prompt blocks an earlier request had)\n"
              << "  shared prefixes: " << mc->shared_chains << " chains start with an earlier chain's content (\"parent\")\n"
              << "  common prefix:   " << mc->common_blocks << " block(s) shared by every request\n"
              << "  clamped appends: " << mc->clamped << "\n";
}

int64_t count_multi_turn(const Trace& t) {
  int64_t n = 0;
  for (const auto& tr : t.trajectories) n += tr.rounds.size() >= 2;
  return n;
}

void run_stats(const StatsOptions& o) {
  if (o.from == "native") {
    const Trace trace = read_trace(o.file);
    const ReplayReuse rr = replay_reuse(trace, o.block_tokens);
    print_stats(o.file, compute_stats(trace, o.file), count_multi_turn(trace), rr, nullptr, o.json);
    return;
  }
  if (o.from != "mooncake")
    throw InputError("--from", "expected 'native' or 'mooncake', found '" + o.from + "'");
  const MooncakeConversion c = convert_mooncake(read_mooncake(o.file));
  const MooncakeExtras mc{c.requests,        c.chains,          c.multi_turn_chains,    c.continued_requests,
                          c.clamped_appends, c.shared_prefix_chains, c.common_prefix_blocks, c.reusable_share};
  const ReplayReuse rr = replay_reuse(c.trace, o.block_tokens);
  print_stats(o.file, compute_stats(c.trace, o.file), c.multi_turn_chains, rr, &mc, o.json);
}

void run_convert(const ConvertOptions& o) {
  if (o.from != "mooncake") throw InputError("--from", "expected 'mooncake', found '" + o.from + "'");
  const MooncakeConversion c = convert_mooncake(read_mooncake(o.in));
  write_trace_file(o.out, c.trace);
  std::cerr << "converted " << c.requests << " requests into " << c.chains << " trajectories (" << c.multi_turn_chains
            << " multi-turn chains, " << c.shared_prefix_chains << " sharing an earlier chain's prefix); reusable prefix "
            << "share " << fixed(100 * c.reusable_share, 2) << "%; replayed at the trace's arrivals with "
            << PolicySpec{}.block_tokens << "-token blocks, zero service time: KV hit rate "
            << fixed(100 * replay_reuse(c.trace, PolicySpec{}.block_tokens).reuse.hit_rate(), 2) << "%\n";
}

}  // namespace

void register_trace_commands(CLI::App& app) {
  CLI::App* trace = app.add_subcommand("trace", "Generate, inspect and convert agent traces");
  trace->require_subcommand(1);

  auto gen = std::make_shared<GenOptions>();
  CLI::App* g = trace->add_subcommand("gen", "Generate a synthetic trace calibrated to Table 2 of the paper");
  g->add_option("--profile", gen->profile, "MaxLen profile: 32k | 48k | 64k")->required();
  g->add_option("--reading", gen->reading,
                "which reading of Table 2 the profile is calibrated to: rounds | trajectories (docs/workload.md)")
      ->capture_default_str();
  g->add_option("--trajectories,-n", gen->trajectories, "number of trajectories")->capture_default_str();
  g->add_option("--seed", gen->seed, "random seed >= 0 (same seed, same bytes)")
      ->check(CLI::Range(int64_t{0}, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  g->add_option("-o,--output", gen->out, "output file (- = stdout)")->capture_default_str();
  g->callback([gen] { run_gen(*gen); });

  auto cal = std::make_shared<CalibrateOptions>();
  CLI::App* k = trace->add_subcommand("calibrate", "Re-derive a profile's generator levers from Table 2 (Newton)");
  k->add_option("--profile", cal->profile, "MaxLen profile: 32k | 48k | 64k")->required();
  k->add_option("--reading", cal->reading, "Table 2 reading: rounds | trajectories")->capture_default_str();
  k->add_option("--seeds", cal->seeds, "mean over seeds 1..N")->capture_default_str();
  k->add_option("--trajectories,-n", cal->trajectories, "trajectories per seed")->capture_default_str();
  k->add_flag("--json", cal->json, "print one JSON object instead of text");
  k->callback([cal] { run_calibrate(*cal); });

  auto stats = std::make_shared<StatsOptions>();
  CLI::App* s = trace->add_subcommand("stats", "Print the Table 2 statistics of a trace");
  s->add_option("file", stats->file, "trace file")->required();
  s->add_option("--from", stats->from, "input format: native | mooncake")->capture_default_str();
  s->add_option("--block-tokens", stats->block_tokens, "Full Block size for the replay hit rate (policy.block_tokens)")
      ->capture_default_str();
  s->add_flag("--json", stats->json, "print one JSON object instead of text");
  s->callback([stats] { run_stats(*stats); });

  auto conv = std::make_shared<ConvertOptions>();
  CLI::App* c = trace->add_subcommand("convert", "Convert a Mooncake-format trace into the native format");
  c->add_option("--from", conv->from, "input format: mooncake")->required();
  c->add_option("input", conv->in, "input file")->required();
  c->add_option("-o,--output", conv->out, "output file (- = stdout)")->required();
  c->callback([conv] { run_convert(*conv); });
}

}  // namespace dualpath::cli
