// Policies written in Python (docs/python.md): a `dualpath.Policy` subclass registered under a name becomes a
// C++ Policy (core/sched/policy.hpp) that the Cluster drives like a built-in one. Its features say which mechanisms
// the engines apply; its choose_read_side (and, when the subclass defines them, place_prefill, route_decode and
// place_decode) are called with the GIL held, the rest of the run having released it. Every answer is checked
// before the Cluster acts on it: an impossible one (an engine outside the group, a request placed twice, a DE read
// without the DE read path) and any exception the Python code raises end the run with PolicyError naming the
// policy, the decision and why.
#pragma once

#include <stdexcept>
#include <string>

#include <pybind11/pybind11.h>

namespace dualpath::python {

// A policy's mistake or exception: one line, raised in Python as dualpath.PolicyError.
class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Registers `cls` (a dualpath.Policy subclass) under `name`: each run makes one instance (cls()). Its `features`
// mapping (layerwise, dual_path, scheduler, bypass_io) sets the defaults the scenario's policy toggles override.
void register_python_policy(const std::string& name, pybind11::object cls, pybind11::dict features);

// The view and request types a Python policy reads, bound into module `m`.
void bind_policy_types(pybind11::module_& m);

}  // namespace dualpath::python
