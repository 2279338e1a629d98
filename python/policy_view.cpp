#include "python/policy_view.hpp"

#include <pybind11/stl.h>

#include <vector>

#include "python/python_policy.hpp"

namespace py = pybind11;

namespace dualpath::python {
namespace {

// A C++ object seen from Python through a decision's lease.
template <typename T>
struct Handle {
  const T* p = nullptr;
  std::shared_ptr<Lease> lease;
  uint64_t generation = 0;
  const char* decision = "";
  const char* type = "";
  const T& get() const {
    if (lease->generation != generation)
      throw PolicyError("policy " + lease->policy + ": the " + type + " handed to " + decision +
                        " was used after that decision returned; it is valid during its call only (keep the values "
                        "you need, not the object)");
    return *p;
  }
};
using ViewHandle = Handle<ClusterView>;
using EngineHandle = Handle<EngineState>;
using NodeHandle = Handle<NodeState>;
using RequestHandle = Handle<Request>;

// A read-only property of a handle: the value `f` reads from the object, checked against the lease first.
template <typename T, typename F>
void field(py::class_<Handle<T>>& c, const char* name, F f, const char* doc = "") {
  c.def_property_readonly(name, [f](const Handle<T>& h) { return f(h.get()); }, doc);
}

}  // namespace

py::object DecisionLease::view(const ClusterView& v) const {
  return py::cast(ViewHandle{&v, lease_, generation_, decision_, "ClusterView"});
}

py::object DecisionLease::request(const Request& r) const {
  return py::cast(RequestHandle{&r, lease_, generation_, decision_, "Request"});
}

void bind_policy_view_types(py::module_& m) {
  py::class_<EngineHandle> engine(m, "EngineState",
                                  "One GPU's engine as a policy sees it (read-only, valid during the decision)");
  field(engine, "gpu", [](const EngineState& e) { return e.gpu; });
  field(engine, "node", [](const EngineState& e) { return e.node; });
  field(engine, "group", [](const EngineState& e) { return e.group; });
  field(engine, "prefill", [](const EngineState& e) { return e.prefill; });
  field(engine, "seq", [](const EngineState& e) { return e.seq; }, "assigned, unfinished requests");
  field(engine, "tok", [](const EngineState& e) { return e.tok; }, "their tokens");
  field(engine, "hbm_free", [](const EngineState& e) { return e.hbm.free(); }, "KV bytes free");
  field(engine, "hbm_capacity", [](const EngineState& e) { return e.hbm.capacity(); });
  field(engine, "can_take", [](const EngineState& e) { return e.can_take; });

  py::class_<NodeHandle> node(m, "NodeState", "One node as a policy sees it (read-only, valid during the decision)");
  field(node, "prefill", [](const NodeState& n) { return n.prefill; });
  field(node, "read_queue_tokens", [](const NodeState& n) { return n.read_queue_tokens; },
        "hit tokens waiting for or being read through this node's storage NIC");
  field(node, "snic_up", [](const NodeState& n) { return n.snic_up; });
  field(node, "buffer_free", [](const NodeState& n) { return n.buffer.free(); });
  field(node, "buffer_capacity", [](const NodeState& n) { return n.buffer.capacity(); });

  py::class_<ViewHandle> view(m, "ClusterView", "The scheduler's snapshot of the cluster (valid during the decision)");
  view.def(
          "engine",
          [](const ViewHandle& h, size_t gpu) {
            return EngineHandle{&h.get().engines.at(gpu), h.lease, h.generation, h.decision, "EngineState"};
          },
          py::arg("gpu"))
      .def(
          "node",
          [](const ViewHandle& h, size_t n) {
            return NodeHandle{&h.get().nodes.at(n), h.lease, h.generation, h.decision, "NodeState"};
          },
          py::arg("node"));
  field(view, "engine_count", [](const ClusterView& v) { return v.engines.size(); });
  field(view, "node_count", [](const ClusterView& v) { return v.nodes.size(); });
  field(view, "pe_groups", [](const ClusterView& v) { return v.pe_groups; });
  field(view, "de_groups", [](const ClusterView& v) { return v.de_groups; });
  field(view, "gpus_per_node", [](const ClusterView& v) { return v.gpus_per_node; });
  field(view, "alpha_tokens", [](const ClusterView& v) { return v.alpha_tokens; });
  field(view, "beta_tokens", [](const ClusterView& v) { return v.beta_tokens; });
  field(view, "z_factor", [](const ClusterView& v) { return v.z_factor; });

  py::class_<RequestHandle> request(m, "Request", "The request being decided on (read-only, valid during the decision)");
  field(request, "id", [](const Request& r) { return r.id; });
  field(request, "agent", [](const Request& r) { return r.agent; });
  field(request, "round", [](const Request& r) { return r.round; });
  field(request, "prompt", [](const Request& r) { return r.prompt; });
  field(request, "hit", [](const Request& r) { return r.hit; });
  field(request, "fresh", [](const Request& r) { return r.fresh; });
  field(request, "gen", [](const Request& r) { return r.gen; });
  field(request, "pe", [](const Request& r) { return r.pe; });
  field(request, "de", [](const Request& r) { return r.de; });
  field(request, "hit_bytes", [](const Request& r) { return r.hit_bytes; });
  field(request, "prompt_bytes", [](const Request& r) { return r.prompt_bytes; });

  py::class_<QueuedRequest>(m, "QueuedRequest", "A request in a placement queue (a copy)")
      .def_readonly("id", &QueuedRequest::id)
      .def_readonly("tokens", &QueuedRequest::tokens)
      .def_readonly("hbm_need", &QueuedRequest::hbm_need);
}

}  // namespace dualpath::python
