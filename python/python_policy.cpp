#include "python/python_policy.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <vector>

#include "core/config/input_error.hpp"
#include "core/sched/policies/round_robin_placement.hpp"
#include "core/sched/policies/scheduler_placement.hpp"
#include "core/sched/policy.hpp"
#include "core/sched/policy_registry.hpp"
#include "python/policy_view.hpp"

namespace py = pybind11;

namespace dualpath::python {
namespace {

// What the Python object answered, or the exception it raised, as one PolicyError line.
[[noreturn]] void fail(const std::string& policy, const char* decision, const std::string& why) {
  throw PolicyError("policy " + policy + ": " + decision + " " + why);
}

template <typename F>
py::object call(const std::string& policy, const char* decision, F&& f) {
  try {
    return f();
  } catch (py::error_already_set& e) {
    std::string what = e.what();  // "ValueError: message" (pybind adds the traceback on later lines)
    if (const auto nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
    fail(policy, decision, "raised " + what);
  }
}

// The Python type's name of an answer ("float", "str"), for a message.
std::string type_name(const py::object& got) { return py::str(py::type::of(got).attr("__name__")); }

// The queue a placement decision sees, as a Python list of QueuedRequest copies (the queue changes after it).
py::list queue_list(const std::deque<QueuedRequest>& q) {
  py::list out;
  for (const auto& r : q) out.append(py::cast(r));
  return out;
}

// Reads a list of (index, engine) pairs and checks each against the queue and the group's engines.
std::vector<Placement> placements(const std::string& policy, const char* decision, const py::object& got,
                                  const std::vector<int>& group, const ClusterView& view, bool decode,
                                  const std::deque<QueuedRequest>& queue) {
  const size_t queue_size = queue.size();
  std::vector<Placement> out;
  std::vector<std::pair<long long, long long>> pairs;
  try {
    pairs = got.cast<std::vector<std::pair<long long, long long>>>();
  } catch (const py::cast_error&) {
    fail(policy, decision, "returned " + type_name(got) +
                               ", expected a list of (queue index, engine) pairs");
  }
  std::set<long long> seen;
  for (const auto& [index, engine] : pairs) {
    const std::string which = "(" + std::to_string(index) + ", " + std::to_string(engine) + ")";
    if (index < 0 || static_cast<size_t>(index) >= queue_size)
      fail(policy, decision, "returned " + which + ": queue index outside 0.." + std::to_string(queue_size) +
                                 " (exclusive)");
    if (!seen.insert(index).second) fail(policy, decision, "placed queue index " + std::to_string(index) + " twice");
    if (std::find(group.begin(), group.end(), engine) == group.end())
      fail(policy, decision, "returned " + which + ": engine " + std::to_string(engine) +
                                 " is not an engine of this group");
    const EngineState& e = view.engines[static_cast<size_t>(engine)];
    if (!e.can_take)
      fail(policy, decision, "returned " + which + ": engine " + std::to_string(engine) +
                                 " cannot take requests now (its node's storage NIC is down)");
    if (decode && !e.hbm.fits(queue[static_cast<size_t>(index)].hbm_need))
      fail(policy, decision, "returned " + which + ": decode engine " + std::to_string(engine) +
                                 " has no HBM room for the request");
    out.push_back({static_cast<size_t>(index), static_cast<int>(engine)});
  }
  return out;
}

// The placement half: each decision the Python class defines goes to it; the others to the built-in placement its
// scheduler feature picks (SchedulerPlacement or RoundRobinPlacement), as a built-in policy would.
class PythonPlacement final : public EnginePlacement {
 public:
  PythonPlacement(std::string name, py::object obj, bool scheduler) : name_(std::move(name)), obj_(std::move(obj)) {
    if (scheduler) builtin_ = std::make_unique<SchedulerPlacement>();
    else builtin_ = std::make_unique<RoundRobinPlacement>();
    own_prefill_ = defines("place_prefill");
    own_route_ = defines("route_decode");
    own_decode_ = defines("place_decode");
  }
  ~PythonPlacement() override {
    py::gil_scoped_acquire gil;  // runs end with the GIL released: its reference goes back under the GIL
    obj_ = py::object();
  }
  PythonPlacement(const PythonPlacement&) = delete;
  PythonPlacement& operator=(const PythonPlacement&) = delete;

  std::vector<Placement> place_prefill(const ClusterView& view, int group,
                                       const std::deque<QueuedRequest>& waiting) override {
    if (!own_prefill_) return builtin_->place_prefill(view, group, waiting);
    return python_placed("place_prefill", view, group, waiting, false);
  }

  std::vector<int> route_decode(const ClusterView& view, const std::deque<QueuedRequest>& global) override {
    if (!own_route_) return builtin_->route_decode(view, global);
    py::gil_scoped_acquire gil;
    const DecisionLease lease(lease_, "route_decode");
    const py::object got =
        call(name_, "route_decode", [&] { return obj_.attr("route_decode")(lease.view(view), queue_list(global)); });
    std::vector<long long> groups;
    try {
      groups = got.cast<std::vector<long long>>();
    } catch (const py::cast_error&) {
      fail(name_, "route_decode", "returned " + type_name(got) +
                                      ", expected a list of decode group indices, one per queued request");
    }
    if (groups.size() != global.size())
      fail(name_, "route_decode", "returned " + std::to_string(groups.size()) + " groups for " +
                                      std::to_string(global.size()) + " queued requests");
    std::vector<int> out;
    for (const long long g : groups) {
      if (g < 0 || static_cast<size_t>(g) >= view.de_groups.size())
        fail(name_, "route_decode", "returned decode group " + std::to_string(g) + ", outside 0.." +
                                        std::to_string(view.de_groups.size()) + " (exclusive)");
      out.push_back(static_cast<int>(g));
    }
    return out;
  }

  std::vector<Placement> place_decode(const ClusterView& view, int group,
                                      const std::deque<QueuedRequest>& queue) override {
    if (!own_decode_) return builtin_->place_decode(view, group, queue);
    return python_placed("place_decode", view, group, queue, true);
  }

  void unrouted(int group, const QueuedRequest& request) override {
    if (!own_route_) builtin_->unrouted(group, request);
  }

 private:
  // place_prefill or place_decode of the Python class, its answer checked against the group and the queue.
  std::vector<Placement> python_placed(const char* method, const ClusterView& view, int group,
                                       const std::deque<QueuedRequest>& queue, bool decode) {
    py::gil_scoped_acquire gil;
    const DecisionLease lease(lease_, method);
    const py::object got =
        call(name_, method, [&] { return obj_.attr(method)(lease.view(view), group, queue_list(queue)); });
    const auto& groups = decode ? view.de_groups : view.pe_groups;
    return placements(name_, method, got, groups[static_cast<size_t>(group)], view, decode, queue);
  }
  bool defines(const char* method) const {
    py::gil_scoped_acquire gil;
    return py::hasattr(obj_, method) && !obj_.attr(method).is_none();
  }
  std::string name_;
  py::object obj_;
  std::shared_ptr<Lease> lease_ = std::make_shared<Lease>(Lease{name_, 0});
  std::unique_ptr<EnginePlacement> builtin_;
  bool own_prefill_ = false, own_route_ = false, own_decode_ = false;
};

class PythonPolicy final : public Policy {
 public:
  PythonPolicy(std::string name, const PolicyFeatures& f, py::object obj)
      : name_(std::move(name)), f_(f), obj_(std::move(obj)), placement_(name_, obj_, f.scheduler) {}
  ~PythonPolicy() override {
    py::gil_scoped_acquire gil;  // the object's last reference may go here, off the interpreter's thread state
    obj_ = py::object();
  }
  PythonPolicy(const PythonPolicy&) = delete;
  PythonPolicy& operator=(const PythonPolicy&) = delete;

  PolicyFeatures features() const override { return f_; }
  EnginePlacement& placement() override { return placement_; }

  ReadSide choose_read_side(const ClusterView& view, const Request& r) override {
    py::gil_scoped_acquire gil;
    const DecisionLease lease(lease_, "choose_read_side");
    const py::object got = call(name_, "choose_read_side",
                                [&] { return obj_.attr("choose_read_side")(lease.view(view), lease.request(r)); });
    split_tokens_ = -1;
    if (py::isinstance<py::str>(got)) {
      const std::string side = got.cast<std::string>();
      if (side == "pe") return ReadSide::Pe;
      if (side == "de") {
        if (!f_.dual_path) fail(name_, "choose_read_side", "returned \"de\", but the DE read path is off (features "
                                                             "dual_path false, or policy.dual_path = false)");
        return ReadSide::De;
      }
      fail(name_, "choose_read_side", "returned \"" + side + "\", expected \"pe\", \"de\" or a split's PE tokens");
    }
    if (py::isinstance<py::int_>(got) && !py::isinstance<py::bool_>(got)) {
      long long tokens = -1;
      try {
        tokens = got.cast<long long>();
      } catch (const py::cast_error&) {  // beyond 64 bits: outside any hit
        tokens = -1;
      }
      if (!f_.dual_path) fail(name_, "choose_read_side", "returned a split, but the DE read path is off");
      if (tokens < 0 || tokens > r.hit)
        fail(name_, "choose_read_side", "returned a split of " + std::string(py::str(got)) +
                                            " PE tokens, outside 0.." + std::to_string(r.hit) + " (the hit)");
      split_tokens_ = tokens;
      return ReadSide::Split;
    }
    fail(name_, "choose_read_side", "returned " + type_name(got) +
                                        ", expected \"pe\", \"de\" or an int (the PE tokens of a split read)");
  }

  int64_t split_pe_tokens(const ClusterView&, const Request&) override { return split_tokens_; }

 private:
  std::string name_;
  PolicyFeatures f_;
  py::object obj_;
  std::shared_ptr<Lease> lease_ = std::make_shared<Lease>(Lease{name_, 0});
  PythonPlacement placement_;
  int64_t split_tokens_ = -1;  // the last choose_read_side's split (the Cluster asks right after)
};

PolicyFeatures features_from(const std::string& name, const py::dict& d) {
  PolicyFeatures f;
  for (const auto& [k, v] : d) {
    const std::string key = py::str(k);
    if (!py::isinstance<py::bool_>(v))
      throw InputError("policy " + name + ": features[\"" + key + "\"]", "expected True or False");
    const bool on = v.cast<bool>();
    if (key == "layerwise") f.layerwise = on;
    else if (key == "dual_path") f.dual_path = on;
    else if (key == "scheduler") f.scheduler = on;
    else if (key == "bypass_io") f.bypass_io = on;
    else
      throw InputError("policy " + name + ": features[\"" + key + "\"]",
                       "unknown feature; expected layerwise, dual_path, scheduler or bypass_io");
  }
  return f;
}

}  // namespace

void register_python_policy(const std::string& name, py::object cls, py::dict features) {
  if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.") != std::string::npos)
    throw InputError("policy name \"" + name + "\"", "expected lower-case letters, digits, '-', '_' or '.'");
  const auto names = policy_names();
  static std::set<std::string> ours;  // names this module registered (which may be registered again)
  if (std::find(names.begin(), names.end(), name) != names.end() && !ours.count(name))
    throw InputError("policy name \"" + name + "\"", "a built-in policy has this name; choose another");
  const PolicyFeatures defaults = features_from(name, features);
  ours.insert(name);
  // The class lives as long as the process: the registry (a static) would otherwise drop its reference after the
  // interpreter has finalised.
  const py::object* kept = new py::object(std::move(cls));
  register_policy(name, defaults, [name, kept](const PolicyFeatures& f) -> std::unique_ptr<Policy> {
    py::gil_scoped_acquire gil;
    py::object obj = call(name, "construction", [&] { return (*kept)(); });
    return std::make_unique<PythonPolicy>(name, f, std::move(obj));
  });
}

void bind_policy_types(py::module_& m) { bind_policy_view_types(m); }

}  // namespace dualpath::python
