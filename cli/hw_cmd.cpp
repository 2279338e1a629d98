// dualpath hw run SCENARIO [--set k=v]... --out DIR [--storage-dir DIR] [--snic-rate RATE] [--transport ucx|memcpy]
//                 [--ucx-tls TLS] [--no-io-uring] [--buffered] [--verify-every N] [--keep-storage] [--quiet]
// dualpath hw calibrate [--storage-dir DIR] [--out FILE] [--block-size SIZE] [--blocks N] [--transport ...]
// The hardware body (hw/, docs/hw.md): real files, io_uring, UCX; compute is emulated (no GPU is used).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cli/child_runs.hpp"
#include "cli/commands.hpp"
#include "cli/number_format.hpp"
#include "cli/scenario_options.hpp"
#include "cli/name_list.hpp"
#include "core/config/output_file.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/config/units.hpp"
#include "core/run/summary_sections.hpp"
#include "core/metrics/summary.hpp"
#include "core/sched/policy_registry.hpp"
#include "hw/hw_choices.hpp"  // the option names (header-only: builds without the hardware backend)
#ifdef DUALPATH_HAVE_HW
#include "hw/calibrate.hpp"
#include "hw/gpu/gpu_calibrate.hpp"
#include "hw/node_resources.hpp"
#include "hw/run_hw.hpp"
#ifdef DUALPATH_HW_RANKS
#include "hw/mpi_launch.hpp"
#endif
#endif

namespace dualpath::cli {
namespace {

// What both `hw run` and `hw calibrate` need to reach storage and the transport, and the scenario they load.
struct HwIoArgs {
  std::string scenario, out, storage_dir, snic_rate, transport = "ucx", ucx_tls = "posix,self";
  std::string compute = "emulated";
  std::vector<std::string> overrides, overlays;
  bool no_uring = false, buffered = false;
};

struct HwRunArgs : HwIoArgs {
  std::string fault, launch = "threads", policies;
  double op_timeout = 120;
  bool keep_storage = false, quiet = false;
  int verify_every = 1;
};

struct HwCalArgs : HwIoArgs {
  std::string block_size;
  int blocks = 256;
  std::string profile;  // --profile FILE: measure a step profile on the GPU instead
};

void add_io_options(CLI::App* cmd, HwIoArgs& a, const std::string& storage_help) {
  add_scenario_options(cmd, a.overrides, a.overlays);
  cmd->add_option("--storage-dir", a.storage_dir, storage_help);
  cmd->add_option("--transport", a.transport, "ucx (default) or memcpy")->check(CLI::IsMember(choice_names(hw::kTransportKinds)));
  cmd->add_option("--ucx-tls", a.ucx_tls, "UCX transports when UCX_TLS is unset (default posix,self; or tcp)");
  cmd->add_flag("--no-io-uring", a.no_uring, "Use the pread/pwrite thread pool instead of io_uring");
  cmd->add_flag("--buffered", a.buffered, "Do not use O_DIRECT");
  cmd->add_option("--compute", a.compute,
                  "emulated (default: cost-model seconds, no GPU), auto (CUDA when a GPU is usable), cuda (required)")
      ->check(CLI::IsMember(choice_names(hw::kComputeModes)));
}

#ifndef DUALPATH_HAVE_HW
[[noreturn]] void no_hw(const std::string& cmd) {
  throw InputError("dualpath " + cmd,
                   "this build has no hardware backend (configure with -DDUALPATH_BUILD_HW=ON; needs libucx-dev and "
                   "liburing-dev)");
}
#endif

#ifdef DUALPATH_HAVE_HW
double parse_rate(const std::string& text) {
  try {
    return units::parse_bandwidth(text);
  } catch (const units::UnitError& e) {
    throw InputError("--snic-rate", e.what());
  }
}
#endif

#if defined(DUALPATH_HAVE_HW) && !defined(DUALPATH_HW_RANKS)
// `hw run` arguments (after the program name) that repeat `a` with this output folder: for mpirun's ranks and for
// one child run per policy.
// An empty storage_dir leaves the child its default (<out>/storage), which it removes after the run.
std::vector<std::string> hw_run_args(const HwRunArgs& a, const std::string& out, const std::string& storage_dir) {
  std::vector<std::string> args = {"hw", "run", a.scenario, "--out", out, "--transport", a.transport, "--ucx-tls",
                                   a.ucx_tls, "--verify-every", std::to_string(a.verify_every), "--launch", a.launch,
                                   "--compute", a.compute};
  if (!storage_dir.empty()) args.insert(args.end(), {"--storage-dir", storage_dir});
  std::ostringstream t;
  t << std::setprecision(17) << a.op_timeout;
  args.insert(args.end(), {"--op-timeout", t.str()});
  for (const auto& o : a.overlays) args.insert(args.end(), {"--overlay", o});
  for (const auto& o : a.overrides) args.insert(args.end(), {"--set", o});
  if (!a.snic_rate.empty()) args.insert(args.end(), {"--snic-rate", a.snic_rate});
  if (a.no_uring) args.push_back("--no-io-uring");
  if (a.buffered) args.push_back("--buffered");
  if (a.keep_storage) args.push_back("--keep-storage");
  if (a.quiet) args.push_back("--quiet");
  if (!a.fault.empty()) args.insert(args.end(), {"--fault", a.fault});
  return args;
}

// `hw run --policy a,b,...`: one real-time run per policy, one after another (they would compete for the SNICs and
// cores if run together), each in its own process and folder <out>/<policy>, like `dualpath run --policy`.
void hw_run_policies(const HwRunArgs& a, const Scenario& sc, const std::vector<std::string>& policies,
                     const std::string& out, const std::string& storage_dir) {
  std::vector<ChildJob> jobs;
  for (const auto& p : policies) {
    HwRunArgs one = a;
    one.policies.clear();
    one.overrides.push_back("policy.name=" + p);
    jobs.push_back(ChildJob{hw_run_args(one, out + "/" + p, storage_dir.empty() ? "" : storage_dir + "/" + p), ""});
  }
  const auto codes = run_child_jobs(jobs, 1, [](size_t) {}, [](size_t, int) {});
  std::vector<std::pair<std::string, double>> jct;
  int failed = 0;
  for (size_t i = 0; i < policies.size(); ++i) {
    if (codes[i] != 0) {
      std::cerr << "dualpath: hw run of policy " << policies[i] << " failed (exit " << codes[i] << ")\n";
      ++failed;
      continue;
    }
    std::ifstream f(out + "/" + policies[i] + "/summary.json");
    jct.emplace_back(policies[i], run_summary_from_json(nlohmann::json::parse(f).at("results")).jct);
  }
  if (!a.quiet && !jct.empty()) {
    std::cout << "hw run of " << sc.name << ": JCT per policy (speed-up relative to " << jct.front().first
              << "); results in " << out << "/<policy>/\n";
    for (const auto& [p, j] : jct)
      std::cout << "  " << std::left << std::setw(10) << p << std::right << std::setw(10) << fixed(j, 3) << " s"
                << std::setw(9) << fixed(jct.front().second / j) << "x\n";
  }
  if (failed) throw CLI::RuntimeError(kExitFailure);
}

bool under_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

// `dualpath hw run --launch mpi`: replaces this process by `mpirun -np N+1 dualpath-hw hw run <the same options>`.
// The ranks run dualpath-hw (next to this executable) because SimGrid's SMPI in this one defines MPI_* too.
// $DUALPATH_MPIRUN overrides the launcher (e.g. "mpirun --hostfile hosts").
[[noreturn]] void spawn_mpi_ranks(const HwRunArgs& a, const Scenario& sc, const std::string& out,
                                  const std::string& storage_dir) {
  if (under_mpi_launcher())
    throw InputError("--launch mpi",
                     "under mpirun/srun, start dualpath-hw (not dualpath): mpirun -np N+1 dualpath-hw hw run ...");
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "dualpath-hw";
  if (ec || !std::filesystem::exists(exe))
    throw InputError("--launch mpi", "dualpath-hw was not built next to this executable (needs libopenmpi-dev)");
  std::vector<std::string> args;
  std::istringstream launcher(std::getenv("DUALPATH_MPIRUN") ? std::getenv("DUALPATH_MPIRUN") : "mpirun");
  for (std::string w; launcher >> w;) args.push_back(w);
  const int ranks = sc.deployment.prefill_nodes + sc.deployment.decode_nodes + 1;
  args.insert(args.end(), {"-np", std::to_string(ranks), "--oversubscribe"});
  if (::geteuid() == 0) args.push_back("--allow-run-as-root");
  args.push_back(exe.string());
  const auto rest = hw_run_args(a, out, storage_dir);
  args.insert(args.end(), rest.begin(), rest.end());
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::cout.flush();
  ::execvp(argv[0], argv.data());
  throw InputError("--launch mpi", "cannot start " + args[0] + ": " + std::strerror(errno) +
                                       " (install openmpi-bin, or set DUALPATH_MPIRUN)");
}
#endif

void hw_run(const HwRunArgs& a) {
#ifdef DUALPATH_HAVE_HW
  std::vector<std::string> overrides = a.overrides;
  if (!a.snic_rate.empty()) {
    // The emulated SNIC is also the scheduler's SNIC (alpha = tokens one node reads in 3 s).
    const double rate = parse_rate(a.snic_rate);
    if (!(rate > 0)) throw InputError("--snic-rate", "expected a bandwidth > 0, found '" + a.snic_rate + "'");
    std::ostringstream o;
    o << std::setprecision(17) << "topology.snic_bw=" << rate << " B/s";
    overrides.push_back(o.str());
  }
  if (a.verify_every < 0) throw InputError("--verify-every", "expected an integer >= 0");
  if (!(a.op_timeout > 0)) throw InputError("--op-timeout", "expected seconds > 0");
  const Scenario sc = load_scenario(a.scenario, overrides, a.overlays);
  const std::string out = !a.out.empty() ? a.out : sc.outputs.dir + "/" + sc.name + "-hw";
  hw::HwOptions opt;
  opt.storage_dir = !a.storage_dir.empty() ? a.storage_dir : out + "/storage";
  opt.io_uring = !a.no_uring;
  opt.direct = !a.buffered;
  opt.verify_every = a.verify_every;
  opt.transport = choice_value(hw::kTransportKinds, a.transport);  // the option's check took only these names
  opt.ucx_tls = a.ucx_tls;
  opt.fault = a.fault.empty() ? hw::HwFault::None : choice_value(hw::kHwFaults, a.fault);
  opt.launch = choice_value(hw::kLaunches, a.launch);
  opt.compute = choice_value(hw::kComputeModes, a.compute);
  opt.op_timeout = a.op_timeout;
  // The loader already resolved workload.file against the scenario's folder: no second base directory.
  hw::HwRunOutcome o;
  try {
    hw::refuse_mixed_hardware(sc);  // before any storage folder is cleared or rank started
  } catch (const std::invalid_argument& e) {
    throw InputError("dualpath hw run", e.what());
  }
#ifndef DUALPATH_HW_RANKS
  if (!a.policies.empty()) {
    const std::vector<std::string> policies = name_list(a.policies, "--policy");
    for (const auto& p : policies) {  // an unknown policy fails here, before any run, listing the known ones
      PolicySpec spec = sc.policy;
      spec.name = p;
      effective_features(spec);
    }
    return hw_run_policies(a, sc, policies, out, a.storage_dir);
  }
  if (opt.launch == hw::Launch::Mpi) spawn_mpi_ranks(a, sc, out, a.storage_dir);  // does not return
#endif
  try {
#ifdef DUALPATH_HW_RANKS
    o = opt.launch == hw::Launch::Mpi ? hw::run_mpi(sc, "", out, opt) : hw::run_hw_scenario(sc, "", out, opt);
#else
    o = hw::run_hw_scenario(sc, "", out, opt);
#endif
  } catch (const std::invalid_argument& e) {
    throw InputError("dualpath hw run", e.what());
  } catch (const InputError&) {
    throw;  // a configuration this backend refuses (e.g. workload.stop): exit 2, not a failed run
  } catch (const std::runtime_error& e) {
    std::cerr << "dualpath: hw run failed: " << e.what() << "\n";
    throw CLI::RuntimeError(kExitFailure);
  }
  if (o.node_process) {  // an MPI node rank: the scheduler rank reports
    if (!o.ok) throw CLI::RuntimeError(kExitFailure);
    return;
  }
  if (!a.keep_storage) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(opt.storage_dir, ec))
      if (e.path().extension() == ".blk") std::filesystem::remove(e.path(), ec);
    if (a.storage_dir.empty()) std::filesystem::remove(opt.storage_dir, ec);
  }
  const auto& h = o.summary["hw"];
  if (h["transport_fallback"].get<bool>())
    std::cerr << "dualpath hw: WARNING: bytes were moved by a memcpy stand-in, NOT by UCX: "
              << h["kv_transport"].get<std::string>() << "\n";
  if (!a.quiet) {
    const RunFile f = run_file_from_json(o.summary);
    const RunSummary& r = f.results;
    const bool measured = o.summary["compute"] == "measured";
    std::cout << "hw run of " << sc.name << " / " << sc.policy.name
              << (measured ? " (MEASURED compute: real GPU kernels)\n" : " (EMULATED compute: no GPU kernels)\n")
              << "  launch: " << h["mode"].get<std::string>() << "; compute: " << h["compute"].get<std::string>() << "\n"
              << "  storage: " << h["storage_engine"].get<std::string>() << ", SNIC "
              << fixed(h["snic_rate_bytes_per_s"].get<double>() / 1e6, 1) << " MB/s per node, "
              << h["storage"]["blocks_read"] << " blocks read (" << h["storage"]["blocks_verified"] << " verified), "
              << h["storage"]["blocks_written"] << " written\n"
              << "  transport: " << h["kv_transport"].get<std::string>() << "; "
              << h["model_transport"].get<std::string>() << "\n"
              << "  rounds " << r.rounds << "/" << f.rounds_total << ", JCT " << fixed(r.jct, 3)
              << " s, TTFT p50 " << fixed(r.ttft.p50, 3) << " s p99 " << fixed(r.ttft.p99, 3) << " s, TPOT p50 "
              << fixed(r.tpot.p50 * 1e3, 2) << " ms, prompt " << fixed(r.prompt_tokens_per_s, 0) << " tok/s, PE SNIC "
              << fixed(100 * f.links.pe_snic_read, 0) << "%, DE SNIC " << fixed(100 * f.links.de_snic_read, 0) << "%\n"
              << "  " << fixed(o.wall_seconds, 2) << " s wall; results in " << out << "/\n";
  }
  if (h.value("read_retries", 0) > 0)
    std::cerr << "dualpath hw: WARNING: " << h["read_retries"] << " storage reads failed and were retried"
              << " (summary.json hw.read_failures), first: " << h["read_failures"][0].get<std::string>() << "\n";
  if (!o.ok) {
    std::cerr << "dualpath: hw run failed: " << o.failure << " (summary.json lists the errors)\n";
#ifdef DUALPATH_HW_RANKS
    if (o.abort_job) {
      std::cerr << "dualpath: ending the MPI job: a node process is unresponsive\n";
      std::cerr.flush();
      hw::end_mpi_job(kExitFailure);
    }
#endif
    throw CLI::RuntimeError(kExitFailure);
  }
#else
  (void)a;
  no_hw("hw run");
#endif
}

#ifdef DUALPATH_HAVE_HW
// hw calibrate --scenario S --profile FILE: the step profile of S's model at its group sizes, measured on this GPU
// (hw/gpu/gpu_calibrate.hpp), for `dualpath run S --set model.timing=profile --set model.profile=FILE`.
void hw_calibrate_profile(const HwCalArgs& a) {
  if (a.scenario.empty()) throw InputError("--profile", "needs --scenario (its model, GPU and group sizes)");
  check_output_file(a.profile, "--profile", {a.scenario});  // before measuring (the output rule)
  const Scenario sc = load_scenario(a.scenario, a.overrides, a.overlays);
  try {
    hw::refuse_mixed_hardware(sc);  // the profile is this machine's GPU, for one kind of node
  } catch (const std::invalid_argument& e) {
    throw InputError(a.scenario, e.what());
  }
  const nlohmann::json m = hw::measure_step_profile(sc.model, sc.topology, sc.deployment.pe_group_gpus,
                                                    sc.deployment.de_group_gpus);
  if (!m.value("available", false)) {
    std::cerr << "dualpath: hw calibrate --profile: no GPU to measure on (" << m.value("reason", std::string("?"))
              << "); a profile is measured on the GPU it describes, or written from the roofline with dualpath "
                 "analyze cost --write-profile\n";
    throw CLI::RuntimeError(kExitFailure);
  }
  write_text_atomically(a.profile, m["profile"].dump(1) + "\n");
  std::cout << "wrote " << a.profile << ": step profile measured on " << m["device"].get<std::string>() << " (use: "
            << "dualpath run SCENARIO --set model.timing=profile --set model.profile=" << a.profile << ")\n";
}
#endif

void hw_calibrate(const HwCalArgs& a) {
#ifdef DUALPATH_HAVE_HW
  if (!a.profile.empty()) return hw_calibrate_profile(a);
  if (!a.out.empty()) check_output_file(a.out, "--out", {a.scenario});  // before measuring (the output rule)
  hw::CalibrateOptions o;
  o.storage_dir = !a.storage_dir.empty() ? a.storage_dir : std::filesystem::temp_directory_path().string() +
                                                                   "/dualpath-calibrate";
  std::optional<Scenario> sc;
  if (!a.scenario.empty()) sc = load_scenario(a.scenario, a.overrides, a.overlays);
  else if (!a.overrides.empty() || !a.overlays.empty())
    throw InputError("dualpath hw calibrate", "--set and --overlay need --scenario");
  double bs = sc ? static_cast<double>(hw::block_bytes_of(*sc)) : double(1 << 20);
  if (!a.block_size.empty()) {
    try {
      bs = units::parse_bytes(a.block_size);
    } catch (const units::UnitError& e) {
      throw InputError("--block-size", e.what());
    }
  }
  if (bs < 1 || a.blocks < 1) throw InputError("dualpath hw calibrate", "--block-size and --blocks must be >= 1");
  if (a.compute != "emulated" && !sc) throw InputError("--compute", "the GPU part needs --scenario (its model and GPU)");
  o.block_bytes = static_cast<size_t>(bs);
  o.blocks = a.blocks;
  o.io_uring = !a.no_uring;
  o.direct = !a.buffered;
  o.transport = choice_value(hw::kTransportKinds, a.transport);
  o.ucx_tls = a.ucx_tls;
  o.compute = choice_value(hw::kComputeModes, a.compute);
  if (!a.snic_rate.empty()) {
    o.snic_rate = parse_rate(a.snic_rate);
    if (!(o.snic_rate > 0)) throw InputError("--snic-rate", "expected a bandwidth > 0");
  }
  if (sc) o.model = &sc->model, o.gpu = &sc->topology.gpu;
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  o.description = std::string("dualpath hw calibrate on ") + host + (sc ? " for " + sc->name : std::string()) +
                  (o.snic_rate > 0 ? ", SNIC emulated at " + a.snic_rate : std::string());
  nlohmann::json j;
  try {
    j = hw::calibrate(o);
  } catch (const std::runtime_error& e) {
    std::cerr << "dualpath: hw calibrate failed: " << e.what() << "\n";
    throw CLI::RuntimeError(kExitFailure);
  }
  if (!a.out.empty()) write_text_atomically(a.out, j.dump(2) + "\n");
  const auto& m = j["measured"];
  const auto& s = m["storage"];
  const auto& t = m["transport"];
  std::cout << "storage (" << s["engine"].get<std::string>() << "): write "
            << fixed(s["write_bytes_per_s"].get<double>() / 1e9) << " GB/s, read "
            << fixed(s["read_bytes_per_s"].get<double>() / 1e9) << " GB/s (" << s["blocks"] << " blocks of "
            << s["block_bytes"] << " B, " << s["blocks_verified"] << " verified)\n";
  if (m.contains("snic"))
    std::cout << "paced SNIC at " << fixed(m["snic"]["rate_bytes_per_s"].get<double>() / 1e6, 1)
              << " MB/s: KV payload read "
              << fixed(m["snic"]["read_payload_bytes_per_s"].get<double>() / 1e6, 2) << " MB/s, write "
              << fixed(m["snic"]["write_payload_bytes_per_s"].get<double>() / 1e6, 2) << " MB/s\n";
  std::cout << "transport (" << t["name"].get<std::string>() << "): put "
            << fixed(t["put_bytes_per_s"].get<double>() / 1e9)
            << " GB/s, get " << fixed(t["get_bytes_per_s"].get<double>() / 1e9) << " GB/s\n";
  if (m["gpu"].value("available", false))
    std::cout << "gpu: " << m["gpu"]["device"].dump() << "; fitted " << m["gpu"]["overrides"].dump() << "\n";
  else
    std::cout << "gpu: not measured (" << m["gpu"].value("reason", std::string("?")) << ")\n";
  std::cout << "overlay set: " << j["set"].dump() << "\n";
  if (!a.out.empty()) std::cout << "written to " << a.out << " (use: dualpath run SCENARIO --overlay " << a.out << ")\n";
#else
  (void)a;
  no_hw("hw calibrate");
#endif
}

}  // namespace

void register_hw_commands(CLI::App& app) {
  CLI::App* hw = app.add_subcommand("hw", "Hardware body: run a scenario on real files and UCX (emulated compute)");
  hw->require_subcommand(1);

  auto ra = std::make_shared<HwRunArgs>();
  CLI::App* run = hw->add_subcommand("run", "Run a scenario in real time; write summary.json and requests.csv");
  run->footer("Multi-process: mpirun -np <nodes+1> dualpath hw run SCENARIO --launch mpi ... (as root add "
              "--allow-run-as-root; on few cores --oversubscribe)");
  run->add_option("scenario", ra->scenario, "Scenario JSON file")->required();
  add_io_options(run, *ra, "Folder for the block files (default: <out>/storage)");
#ifndef DUALPATH_HW_RANKS
  run->add_option("--policy", ra->policies,
                  "Comma-separated policies: one run each, in turn, into <out>/<policy>/ (e.g. basic,dualpath)");
#endif
  run->add_option("--out", ra->out, "Results folder (default: <outputs.dir>/<scenario name>-hw)");
  run->add_option("--snic-rate", ra->snic_rate,
                  "Per-node SNIC rate to emulate, e.g. \"200 MB/s\" (also sets topology.snic_bw)");
  run->add_option("--verify-every", ra->verify_every, "Verify the checksum of every N-th block read (0: none)");
  run->add_flag("--keep-storage", ra->keep_storage, "Keep the block files after the run");
  run->add_flag("--quiet", ra->quiet, "Print nothing on success");
  run->add_option("--launch", ra->launch,
                  "threads (default: one process) or mpi (under mpirun -np N+1: a scheduler rank + one per node)")
      ->check(CLI::IsMember(choice_names(hw::kLaunches)));
  run->add_option("--op-timeout", ra->op_timeout,
                  "mpi: seconds an operation may go unanswered before the run stops (default 120)");
  CLI::Option* fault =
      run->add_option("--fault", ra->fault, "Inject a fault for testing: missing-block, node-silent, snic-down")
          ->group("");
#ifdef DUALPATH_HAVE_HW  // without the backend, `hw run` stops with no_hw before it would use a fault
  fault->check(CLI::IsMember(choice_names(hw::kHwFaults)));
#else
  (void)fault;
#endif
  run->callback([ra] { hw_run(*ra); });

  auto ca = std::make_shared<HwCalArgs>();
  CLI::App* cal = hw->add_subcommand("calibrate", "Measure this machine (storage, paced SNIC, transport, GPU) and "
                                                  "write an overlay for dualpath run --overlay");
  cal->add_option("--scenario", ca->scenario, "Take the block size, model and GPU from this scenario");
  add_io_options(cal, *ca, "Folder for the test block files (default: a temp folder)");
  cal->add_option("--snic-rate", ca->snic_rate, "Also measure one node's SNIC paced at this rate, e.g. \"20 MB/s\"");
  cal->add_option("--out", ca->out, "Write the overlay (measurements + \"set\") to this JSON file");
  cal->add_option("--block-size", ca->block_size, "Block size (default: the scenario's Full Block, else 1 MiB)");
  cal->add_option("--blocks", ca->blocks, "Blocks written and read (default 256)");
  cal->add_option("--profile", ca->profile,
                  "Instead: measure a step profile of the scenario's model on this GPU and write it to this file "
                  "(for model.timing = profile; docs/cost-model.md)");
  cal->callback([ca] { hw_calibrate(*ca); });
}

}  // namespace dualpath::cli
