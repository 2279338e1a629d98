// The `dualpath._dualpath` extension (pybind11): the thin C++ layer under the `dualpath` Python package
// (python/dualpath/__init__.py holds the API a researcher uses; docs/python.md). It loads and checks scenarios with
// the CLI's loader, runs them on the simulator with the GIL released, reads native traces into columns, and
// registers policies written in Python (python_policy.hpp). Errors keep the CLI's one line: InputError becomes
// dualpath.InputError (a ValueError), a run that can never finish dualpath.NoProgressError, a Python policy's
// mistake dualpath.PolicyError (both RuntimeErrors).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/backend/interrupt.hpp"
#include "core/backend/run_errors.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/run/build_info.hpp"
#include "core/sched/policy_registry.hpp"
#include "core/study/analyze_bandwidth.hpp"
#include "core/study/analyze_cost.hpp"
#include "core/study/capacity_study.hpp"
#include "core/study/plan_study.hpp"
#include "core/study/study_streams.hpp"
#include "core/workload/trace_io.hpp"
#include "python/python_policy.hpp"
#include "sim/inprocess_probes.hpp"
#include "sim/run_scenario.hpp"

namespace py = pybind11;
using namespace dualpath;

namespace {

// Runs body() on a worker thread while the calling (interpreter's) thread waits without the GIL, checking for
// Ctrl-C every 50 ms (issue 80: the run itself never returns to the interpreter, so its signal handler would not run
// until the run ended). A pending KeyboardInterrupt asks every run of this process to stop (core/backend/interrupt.hpp:
// the native engine stops at its next clock advance), waits for the worker and raises it. A Python policy takes the
// GIL back for each decision, on the worker.
// Runs body() on this thread (not the interpreter's) with a Python thread state of its own for the whole of it, the
// GIL released: a Python policy's decisions then take the GIL back cheaply (without it, each decision would make and
// drop a thread state, about 10 us).
void with_python_thread(const std::function<void()>& body) {
  py::gil_scoped_acquire state;
  py::gil_scoped_release free;
  body();
}

template <typename F>
void interruptible(F&& body) {
  std::exception_ptr error;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false, interrupted = false;
  {
    py::gil_scoped_release free;
    std::thread worker([&] {
      try {
        with_python_thread(body);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mu);
      done = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(mu);
    while (!done) {
      cv.wait_for(lock, std::chrono::milliseconds(50));
      if (done || interrupted) continue;
      lock.unlock();
      {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) {  // the handler raised (KeyboardInterrupt): it stays set on this thread
          interrupted = true;
          request_interrupt();
        }
      }
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (interrupted) {
    clear_interrupt();
    throw py::error_already_set();
  }
  if (error) std::rethrow_exception(error);
}

// SimGrid's engine is one per process (docs/architecture.md): a second SimGrid run would abort the interpreter.
bool simgrid_used = false;

// Runs a loaded scenario into `out_dir` (made) and returns summary.json's text, on a worker thread (interruptible):
// Ctrl-C stops a native run within a clock advance and raises KeyboardInterrupt (SimGrid's engine cannot be stopped
// from outside: its run ends first).
std::string run(const Scenario& sc, const std::string& out_dir, int threads) {
  if (sc.sim.engine == NetworkEngine::Simgrid) {
    if (simgrid_used)
      throw InputError("sim.engine", "SimGrid runs once per process (its engine is a singleton); run the second "
                                     "SimGrid simulation in a fresh Python process or with the dualpath CLI");
    simgrid_used = true;
  }
  if (threads > 1 && sc.sim.engine != NetworkEngine::Native)
    throw InputError("threads", "more than one thread needs the native engine (sim.engine = \"native\")");
  sim::RunOutcome outcome;
  interruptible([&] {
    sim::RunOptions options;
    options.threads = threads;
    outcome = sim::run_scenario(sc, "", out_dir, options);
  });
  return outcome.summary.dump();
}

// A native trace as columns (one row per round): what pandas.DataFrame(...) takes.
py::dict trace_columns(const std::string& path) {
  Trace t;
  {
    py::gil_scoped_release free;
    t = read_trace(path);
  }
  std::vector<std::string> id, parent;
  std::vector<double> arrival, think;
  std::vector<long long> round, append, gen, shared;
  for (const auto& tr : t.trajectories)
    for (size_t k = 0; k < tr.rounds.size(); ++k) {
      id.push_back(tr.id);
      arrival.push_back(tr.arrival);
      round.push_back(static_cast<long long>(k));
      append.push_back(tr.rounds[k].append);
      gen.push_back(tr.rounds[k].gen);
      think.push_back(tr.rounds[k].think);
      parent.push_back(tr.parent);
      shared.push_back(tr.shared);
    }
  py::dict d;
  d["id"] = id, d["arrival"] = arrival, d["round"] = round, d["append"] = append, d["gen"] = gen,
  d["think"] = think, d["parent"] = parent, d["shared"] = shared;
  return d;
}

// The capacity study of `dualpath capacity` (core/study/capacity_study.hpp) with its probes on threads of this
// process, so a policy registered from Python can be probed; returns capacity.json's text (the same bytes the
// command line writes). A probe's own error (a Python policy's mistake, a run that can never finish) is raised as
// itself; an undecided capacity is InputError, as the command line's exit 2.
std::string capacity_study(const std::string& scenario, const std::vector<std::string>& overlays,
                           const std::vector<std::string>& overrides, const std::vector<std::string>& policies,
                           const std::string& slo_ttft, const std::string& slo_tpot, double resolution, unsigned jobs,
                           const std::string& max_probe_duration, const std::string& out) {
  study::CapacityStudySpec spec;
  spec.scenario = scenario;
  spec.out = out;
  spec.overlays = overlays;
  spec.overrides = overrides;
  spec.policies = policies;
  spec.ttft = study::positive_duration("slo_ttft", slo_ttft);
  spec.tpot = study::positive_duration("slo_tpot", slo_tpot);
  spec.resolution = resolution;
  spec.max_probe_duration =
      max_probe_duration.empty() ? 0 : study::positive_duration("max_probe_duration", max_probe_duration);
  if (jobs > 1024) throw InputError("jobs", "expected 1 to 1024 probes at once, found " + std::to_string(jobs));
  spec.jobs = jobs;
  study::CapacityStudy st;
  std::exception_ptr probe_error;
  interruptible([&] {
    sim::InProcessProbeRunner runner(std::max(1u, std::thread::hardware_concurrency()), with_python_thread);
    st = study::run_capacity_study(spec, runner, nullptr);
    probe_error = runner.first_error();
  });
  if (st.probe_failed) {
    if (probe_error) std::rethrow_exception(probe_error);
    throw std::runtime_error("capacity: a probe's folder could not be published under " + out);
  }
  st.check_decided();
  return st.to_json().dump();
}

// The plan study of `dualpath plan` (core/study/plan_study.hpp) with its runs on threads of this process, so a
// policy registered from Python can be planned; writes OUT/plan.json (what the command line writes), prints nothing.
void plan_study(const std::string& scenario, const std::vector<std::string>& overlays,
                const std::vector<std::string>& overrides, const std::string& objective, const std::string& policy,
                std::optional<int> nodes, std::optional<long long> budget, unsigned jobs,
                std::optional<double> resolution, const std::string& slo_ttft, const std::string& slo_tpot,
                const std::vector<std::string>& vary, std::optional<size_t> max_candidates,
                const std::string& node_hour_cost, const std::string& gpu_hour_cost, bool ideal,
                std::optional<double> target_aps, std::optional<int> max_nodes, bool ties, bool bounds,
                const std::string& out) {
  study::PlanStudySpec spec;
  spec.scenario = scenario, spec.out = out, spec.overlays = overlays, spec.overrides = overrides;
  spec.objective = objective, spec.policy = policy, spec.nodes = nodes, spec.budget = budget, spec.jobs = jobs;
  spec.resolution_given = resolution.has_value();
  if (resolution) spec.resolution = *resolution;
  spec.slo_ttft = slo_ttft, spec.slo_tpot = slo_tpot, spec.vary = vary;
  if (max_candidates) spec.max_candidates = *max_candidates;
  spec.node_hour_cost = node_hour_cost, spec.gpu_hour_cost = gpu_hour_cost, spec.ideal = ideal;
  spec.target_aps = target_aps;
  if (max_nodes) spec.max_nodes = *max_nodes;
  spec.ties = ties, spec.bounds = bounds;
  const study::QuietStudy quiet;  // Python's verbs return data
  study::PlanEnd end;
  std::exception_ptr probe_error;
  interruptible([&] {
    const study::PlanInputs in = study::read_plan_inputs(spec);
    study::PlanSetup setup = study::setup_plan(spec, in);
    sim::InProcessProbeRunner runner(std::max(1u, std::thread::hardware_concurrency()), with_python_thread);
    end = study::run_plan_study(spec, in, setup, runner);
    probe_error = runner.first_error();
  });
  if (end.failed) {
    if (probe_error) std::rethrow_exception(probe_error);
    throw std::runtime_error("plan: a run's folder could not be published under " + out);
  }
}

// `analyze bandwidth --json` and `analyze cost --json` (core/study/analyze_*.hpp), in this process: the same JSON.
std::string analyze_bandwidth_json(const std::string& topology, const std::string& decode_topology,
                                   const std::vector<std::string>& pds, bool basic) {
  return study::analyze_bandwidth({topology, decode_topology, pds, basic}).to_json().dump();
}

std::string analyze_cost_json(const std::string& model, const std::string& topology, const std::string& calibration,
                              const std::vector<double>& batches, std::optional<double> context,
                              std::optional<int> de_group, std::optional<int> pe_group,
                              std::optional<double> prefill_tokens, std::optional<long long> cached,
                              std::optional<long long> fresh, bool public_points, const std::string& profile) {
  study::CostQuestion q;
  q.model = model, q.topology = topology, q.calibration = calibration, q.batches = batches;
  if (context) q.context = *context;
  if (de_group) q.de_group = *de_group;
  if (pe_group) q.pe_group = *pe_group;
  if (prefill_tokens) q.prefill_tokens = *prefill_tokens;
  if (cached) q.cached = *cached;
  if (fresh) q.fresh = *fresh;
  q.public_points = public_points, q.profile = profile;
  return study::analyze_cost(q).to_json().dump();
}

}  // namespace

PYBIND11_MODULE(_dualpath, m) {
  m.doc() = "dualpath's C++ core (use the dualpath package, not this module)";
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<NoProgressError> no_progress(m, "NoProgressError", PyExc_RuntimeError);
  static py::exception<python::PolicyError> policy_error(m, "PolicyError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      input_error(e.what());
    } catch (const NoProgressError& e) {
      no_progress(e.what());
    } catch (const python::PolicyError& e) {
      policy_error(e.what());
    }
  });

  m.def("version", [] { return std::string(build_version()); });
  m.def("data_dir", [] { return std::string(DUALPATH_DATA_DIR); });
  m.def("policy_names", &policy_names);

  py::class_<Scenario>(m, "LoadedScenario", "A validated scenario (core/config/scenario.hpp)")
      .def_readonly("name", &Scenario::name)
      .def_property_readonly("policy", [](const Scenario& s) { return s.policy.name; })
      .def_property_readonly("engine", [](const Scenario& s) {
        return std::string(s.sim.engine == NetworkEngine::Simgrid ? "simgrid" : "native");
      })
      .def("to_json", [](const Scenario& s) { return scenario_to_json(s).dump(); },
           "The effective configuration, as `dualpath check` prints it");

  m.def("load_scenario",
        [](const std::string& path, const std::vector<std::string>& overrides,
           const std::vector<std::string>& overlays) { return load_scenario(path, overrides, overlays); },
        py::arg("path"), py::arg("overrides"), py::arg("overlays"));
  m.def("load_scenario_document",
        [](const std::string& text, const std::string& name, const std::string& base_dir,
           const std::vector<std::string>& overrides, const std::vector<std::string>& overlays) {
          nlohmann::json doc;
          try {
            doc = nlohmann::json::parse(text);
          } catch (const nlohmann::json::exception& e) {
            throw InputError(name, std::string("expected a JSON-serialisable scenario: ") + e.what());
          }
          return load_scenario_document(doc, name, base_dir, overrides, overlays);
        },
        py::arg("text"), py::arg("name"), py::arg("base_dir"), py::arg("overrides"), py::arg("overlays"));
  m.def("check_policy",
        [](const Scenario& s) {
          (void)effective_features(s.policy);  // unknown names and refused combinations, as the CLI says them
        });
  m.def("run", &run, py::arg("scenario"), py::arg("out_dir"), py::arg("threads") = 1);
  m.def("capacity_study", &capacity_study, py::arg("scenario"), py::arg("overlays"), py::arg("overrides"),
        py::arg("policies"), py::arg("slo_ttft"), py::arg("slo_tpot"), py::arg("resolution"), py::arg("jobs"),
        py::arg("max_probe_duration"), py::arg("out"));
  m.def("plan_study", &plan_study, py::arg("scenario"), py::arg("overlays"), py::arg("overrides"),
        py::arg("objective"), py::arg("policy"), py::arg("nodes"), py::arg("budget"), py::arg("jobs"),
        py::arg("resolution"), py::arg("slo_ttft"), py::arg("slo_tpot"), py::arg("vary"), py::arg("max_candidates"),
        py::arg("node_hour_cost"), py::arg("gpu_hour_cost"), py::arg("ideal"), py::arg("target_aps"),
        py::arg("max_nodes"), py::arg("ties"), py::arg("bounds"), py::arg("out"));
  m.def("analyze_bandwidth_json", &analyze_bandwidth_json, py::arg("topology"), py::arg("decode_topology"),
        py::arg("pds"), py::arg("basic"));
  m.def("analyze_cost_json", &analyze_cost_json, py::arg("model"), py::arg("topology"), py::arg("calibration"),
        py::arg("batches"), py::arg("context"), py::arg("de_group"), py::arg("pe_group"), py::arg("prefill_tokens"),
        py::arg("cached"), py::arg("fresh"), py::arg("public_points"), py::arg("profile"));
  m.def("trace_columns", &trace_columns, py::arg("path"));
  m.def("register_policy", &python::register_python_policy, py::arg("name"), py::arg("cls"), py::arg("features"));
  python::bind_policy_types(m);
}
