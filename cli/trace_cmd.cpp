// dualpath trace gen | stats | convert: synthetic agent traces, their Table 2 statistics, conversion of public traces.
// Bad input surfaces as dualpath::InputError (one line on stderr, exit 2; see cli/main.cpp).
#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <vector>
#include <iostream>
#include <memory>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/config/output_file.hpp"
#include "core/config/input_error.hpp"
#include "core/config/scenario.hpp"
#include "core/kv/zero_service_reuse.hpp"
#include "core/workload/agents.hpp"
#include "core/workload/bailian.hpp"
#include "core/workload/block_hashes.hpp"
#include "core/workload/mooncake.hpp"
#include "core/workload/request_logs.hpp"
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
  std::string reuse = "hashes";
  int block_tokens = PolicySpec{}.block_tokens;
  bool json = false;
};

struct ConvertOptions {
  std::string from;
  std::string in;
  std::string out;
  std::string reuse = "hashes";
};

// The formats `trace convert` reads (traces/FORMAT.md), in the order --help lists them.
constexpr const char* kSourceFormats = "mooncake | bailian | azure | burstgpt";

std::string fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

void run_gen(const GenOptions& o) {
  const SynthParams params = synth_profile(o.profile, table2_reading(o.reading, "--reading"), "--profile");
  // The scenario's own bound on workload.trajectories (core/config/sections.cpp): 2e9 ended in std::bad_alloc.
  if (o.trajectories < 1 || o.trajectories > 10000000)
    throw InputError("--trajectories", "expected an integer in [1, 10000000], found " + std::to_string(o.trajectories));
  if (o.out != "-") check_output_file(o.out, "-o");  // before any work (the output rule)
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

// What a conversion found in its source (a request-level trace), printed by `trace stats --from F` and, in short,
// by `trace convert`: the counts as JSON and as the lines of the text report.
struct Source {
  std::string format;    // "Mooncake", "Bailian", ...
  Trace trace;
  nlohmann::ordered_json facts;
  std::vector<std::string> lines;
  std::string summary;   // one line for `trace convert`
};

std::string pct(double share) { return fixed(100 * share, 2) + "%"; }

ReuseForm reuse_form(const std::string& text) {
  if (text == "hashes") return ReuseForm::Hashes;
  if (text == "prefix") return ReuseForm::Prefix;
  throw InputError("--reuse", "expected 'hashes' (exact reuse from block hashes) or 'prefix' (one shared prefix per "
                              "chain), found '" + text + "'; e.g. --reuse hashes");
}

Source read_source(const std::string& from, const std::string& file, ReuseForm reuse, int block_tokens) {
  Source src;
  if (from == "mooncake") {
    const std::vector<MooncakeRequest> reqs = read_mooncake(file);
    MooncakeConversion c = convert_mooncake(reqs, reuse);
    const double at_block = reusable_share(mooncake_inputs(reqs), kMooncakeBlockTokens, block_tokens);
    src.format = "Mooncake";
    src.facts = {{"requests", c.requests}, {"chains", c.chains}, {"multi_turn_chains", c.multi_turn_chains},
                 {"continued_requests", c.continued_requests}, {"clamped_appends", c.clamped_appends},
                 {"split_requests", c.split_requests}, {"shared_prefix_chains", c.shared_prefix_chains},
                 {"common_prefix_blocks", c.common_prefix_blocks},
                 {"reusable_prefix_share", std::stod(fixed(c.reusable_share, 5))},
                 {"reusable_share_at_block_tokens", std::stod(fixed(at_block, 5))}};
    src.lines = {"requests:        " + std::to_string(c.requests),
                 "chains:          " + std::to_string(c.chains) + " (" + std::to_string(c.multi_turn_chains) +
                     " multi-turn; " + std::to_string(c.continued_requests) + " requests continue an earlier one)",
                 "reusable prefix: " + pct(c.reusable_share) + " of input tokens (512-token prompt blocks an earlier "
                     "request had)",
                 "  at " + std::to_string(block_tokens) + "-token blocks: " + pct(at_block) +
                     " (whole blocks of the simulator's size)",
                 reuse == ReuseForm::Hashes
                     ? "reuse:           block hashes on every trajectory (" + std::to_string(c.split_requests) +
                           " requests shorter than their chain's context start a chain of their own)"
                     : "shared prefixes: " + std::to_string(c.shared_prefix_chains) +
                           " chains start with an earlier chain's content (\"parent\")",
                 "common prefix:   " + std::to_string(c.common_prefix_blocks) + " block(s) shared by every request",
                 "clamped appends: " + std::to_string(c.clamped_appends)};
    src.summary = std::to_string(c.requests) + " requests into " + std::to_string(c.chains) + " trajectories (" +
                  std::to_string(c.multi_turn_chains) + " multi-turn chains, " +
                  (reuse == ReuseForm::Hashes ? "block hashes on each"
                                              : std::to_string(c.shared_prefix_chains) + " sharing an earlier chain's prefix") +
                  "); reusable prefix share " + pct(c.reusable_share);
    src.trace = std::move(c.trace);
  } else if (from == "bailian") {
    if (reuse != ReuseForm::Hashes)
      throw InputError("--reuse", "expected 'hashes' for a Bailian trace (its reuse is in its block hashes), found 'prefix'");
    const std::vector<BailianRequest> reqs = read_bailian(file);
    BailianConversion c = convert_bailian(reqs, file);
    const double at_block = reusable_share(bailian_inputs(reqs), kBailianBlockTokens, block_tokens);
    int64_t multi = 0;
    for (const auto& t : c.trace.trajectories) multi += t.rounds.size() >= 2;
    nlohmann::ordered_json types = nlohmann::ordered_json::object();
    std::string type_text;
    for (const auto& [type, n] : c.types) {
      types[type] = n;
      type_text += (type_text.empty() ? "" : ", ") + type + " " + std::to_string(n);
    }
    src.format = "Bailian";
    src.facts = {{"requests", c.requests}, {"sessions", c.sessions}, {"orphans", c.orphans},
                 {"continued_requests", c.continued}, {"branches", c.branches}, {"split_requests", c.split},
                 {"zero_outputs", c.zero_outputs}, {"types", types},
                 {"reusable_share", std::stod(fixed(c.reusable_share, 5))},
                 {"reusable_share_at_block_tokens", std::stod(fixed(at_block, 5))}};
    src.lines = {"requests:        " + std::to_string(c.requests) + " (" + type_text + ")",
                 "sessions:        " + std::to_string(c.sessions) + " (" + std::to_string(c.orphans) +
                     " whose first turn is not in the file)",
                 "trajectories:    " + std::to_string(c.trace.trajectories.size()) + " (" + std::to_string(c.continued) +
                     " requests continue their parent's; " + std::to_string(c.branches) + " branches and " +
                     std::to_string(c.split) + " context cuts start their own)",
                 "reusable share:  " + pct(c.reusable_share) + " of input tokens (16-token blocks an earlier request had)",
                 "  at " + std::to_string(block_tokens) + "-token blocks: " + pct(at_block) +
                     " (whole blocks of the simulator's size)",
                 "zero outputs:    " + std::to_string(c.zero_outputs) + " (replayed with 1 generated token)"};
    src.summary = std::to_string(c.requests) + " requests of " + std::to_string(c.sessions) + " sessions into " +
                  std::to_string(c.trace.trajectories.size()) + " trajectories (" + std::to_string(multi) +
                  " multi-turn, block hashes on each); reusable share " + pct(c.reusable_share);
    src.trace = std::move(c.trace);
  } else if (from == "azure" || from == "burstgpt") {
    RequestLogConversion c = from == "azure" ? convert_azure(file) : convert_burstgpt(file);
    src.format = from == "azure" ? "Azure" : "BurstGPT";
    nlohmann::ordered_json models = nlohmann::ordered_json::object();
    for (const auto& [m, n] : c.models) models[m] = n;
    src.facts = {{"requests", c.requests}, {"dropped", c.dropped}, {"clamped", c.clamped}};
    if (from == "burstgpt") src.facts["models"] = models;
    src.lines = {"requests:        " + std::to_string(c.requests) + " (" + std::to_string(c.dropped) +
                     " failed ones dropped; " + std::to_string(c.clamped) + " with a zero count replayed with 1 token)",
                 "reuse:           none recorded (one single-round trajectory per request)"};
    if (from == "burstgpt") {  // FORMAT.md promises the per-model counts in the text report too (issue 68)
      std::string model_text;
      for (const auto& [m, n] : c.models) model_text += (model_text.empty() ? "" : ", ") + m + " " + std::to_string(n);
      src.lines.insert(src.lines.begin() + 1, "models:          " + (model_text.empty() ? "none" : model_text) +
                                                  " (requests kept, per Model)");
    }
    src.summary = std::to_string(c.requests) + " requests into " + std::to_string(c.trace.trajectories.size()) +
                  " single-round trajectories (" + std::to_string(c.dropped) + " failed ones dropped; no reuse recorded)";
    src.trace = std::move(c.trace);
  } else {
    throw InputError("--from", "expected one of " + std::string(kSourceFormats) + " (or native for stats), found '" +
                                   from + "'; e.g. --from mooncake");
  }
  return src;
}

// The KV hit rate a replay of the trace sees with service taking no time (core/kv/zero_service_reuse.hpp): one
// agent per trajectory, at the trace's arrival times when every trajectory has one, else all at t = 0.
struct ReplayReuse {
  ZeroServiceReuse reuse;
  int block_tokens = 0;
  bool arrivals = false;
  ZeroServiceReuse prompt_only;  // only prompt blocks persisted (what a prompt-only reusable share counts)
};

ReplayReuse replay_reuse(const Trace& trace, int block_tokens) {
  if (block_tokens < 1 || block_tokens > (1 << 20))
    throw InputError("--block-tokens", "expected an integer in [1, 1048576], found " + std::to_string(block_tokens));
  WorkloadSpec spec;
  spec.source = WorkloadSource::File;
  bool arrivals = true;
  for (const auto& t : trace.trajectories) arrivals = arrivals && t.arrival >= 0;
  spec.mode = arrivals ? ArrivalMode::Online : ArrivalMode::Offline;
  const std::vector<Agent> agents = make_agents(trace, spec);
  return ReplayReuse{zero_service_reuse(agents, block_tokens), block_tokens, arrivals,
                     zero_service_reuse(agents, block_tokens, false)};
}

void print_stats(const std::string& file, const TraceStats& s, int64_t multi_turn, const ReplayReuse& rr,
                 const Source* src, bool json) {
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
              << ",\"kv_hit_rate\":" << fixed(rr.reuse.hit_rate(), 5) << ",\"shared_hit_rate\":" << fixed(shared, 5)
              << ",\"prompt_only_kv_hit_rate\":" << fixed(rr.prompt_only.hit_rate(), 5) << "}";
    if (src) {
      std::string key = src->format;
      for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      std::cout << "," << nlohmann::json(key).dump() << ":" << src->facts.dump();
    }
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
            << " points from prefixes shared between trajectories)\n"
            << "  prompt blocks:   " << fixed(100 * rr.prompt_only.hit_rate(), 2)
            << "%  (the same with generated tokens' blocks never persisted, as a prompt-only share counts)\n";
  if (src) {
    std::cout << src->format << " source:\n";
    for (const auto& line : src->lines) std::cout << "  " << line << "\n";
  }
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
  if (o.block_tokens < 1 || o.block_tokens > (1 << 20))
    throw InputError("--block-tokens", "expected an integer in [1, 1048576], found " + std::to_string(o.block_tokens));
  const Source src = read_source(o.from, o.file, reuse_form(o.reuse), o.block_tokens);
  const ReplayReuse rr = replay_reuse(src.trace, o.block_tokens);
  print_stats(o.file, compute_stats(src.trace, o.file), count_multi_turn(src.trace), rr, &src, o.json);
}

void run_convert(const ConvertOptions& o) {
  if (o.out != "-") check_output_file(o.out, "-o", {o.in});  // never onto its own input, before any reading
  const Source src = read_source(o.from, o.in, reuse_form(o.reuse), PolicySpec{}.block_tokens);
  // A large trace takes seconds per step (3 million requests: ~13 s): say what is under way.
  const bool large = src.trace.trajectories.size() >= 200000;
  if (large)
    std::cerr << "trace convert: " << src.trace.trajectories.size() << " trajectories read; writing " << o.out << "\n";
  write_trace_file(o.out, src.trace);
  if (large) std::cerr << "trace convert: written; replaying at zero service time for the hit rate\n";
  std::cerr << "converted " << src.summary << "; replayed at the trace's arrivals with " << PolicySpec{}.block_tokens
            << "-token blocks, zero service time: KV hit rate "
            << fixed(100 * replay_reuse(src.trace, PolicySpec{}.block_tokens).reuse.hit_rate(), 2) << "%\n";
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
  s->add_option("--from", stats->from, std::string("input format: native | ") + kSourceFormats)->capture_default_str();
  s->add_option("--reuse", stats->reuse, "how a converted Mooncake trace carries reuse: hashes | prefix")
      ->capture_default_str();
  s->add_option("--block-tokens", stats->block_tokens, "Full Block size for the replay hit rate (policy.block_tokens)")
      ->capture_default_str();
  s->add_flag("--json", stats->json, "print one JSON object instead of text");
  s->callback([stats] { run_stats(*stats); });

  auto conv = std::make_shared<ConvertOptions>();
  CLI::App* c = trace->add_subcommand("convert", "Convert a public trace (Mooncake, Bailian, Azure, BurstGPT) into the "
                                                "native format");
  c->add_option("--from", conv->from, std::string("input format: ") + kSourceFormats)->required();
  c->add_option("--reuse", conv->reuse,
                "hashes: each trajectory carries its block hashes (exact reuse across conversations); prefix: one "
                "shared prefix per chain (Mooncake only)")
      ->capture_default_str();
  c->add_option("input", conv->in, "input file")->required();
  c->add_option("-o,--output", conv->out, "output file (- = stdout)")->required();
  c->callback([conv] { run_convert(*conv); });
}

}  // namespace dualpath::cli
