"""Policies written in Python: one that reimplements Basic's rule gives Basic's results exactly, one that
reimplements DualPath's read-side rule (§6.1: the node with the shorter storage read queue, ties to the PE) gives
DualPath's; a placement written in Python is the one used; every impossible answer or exception ends the run
with dualpath.PolicyError naming the policy and the decision, never a crash."""
import pytest

import dualpath as dp


class PyBasic(dp.Policy):
    features = {}  # PE reads only, the batch's whole KV in HBM, round-robin placement

    def choose_read_side(self, view, request):
        return "pe"


class PyDualPath(dp.Policy):
    features = {"layerwise": True, "dual_path": True, "scheduler": True}

    def choose_read_side(self, view, request):
        pe = view.node(view.engine(request.pe).node).read_queue_tokens
        de = view.node(view.engine(request.de).node).read_queue_tokens
        return "de" if de < pe else "pe"


dp.register_policy("py-basic", PyBasic)
dp.register_policy("py-dualpath", PyDualPath)


def same_run(a, b):
    """Everything a run measured is equal (the policy's name aside)."""
    for key in ("results", "links", "waits", "reuse", "features", "rounds_total"):
        assert a.summary[key] == b.summary[key], key
    assert a.requests.equals(b.requests) and a.waits.equals(b.waits) and a.links.equals(b.links)


@pytest.fixture(scope="module")
def scenario(default_scenario):
    return dp.Scenario(default_scenario, set={"workload.agents": 32})


def test_python_basic_is_basic(scenario):
    same_run(dp.run(scenario, "py-basic"), dp.run(scenario, "basic"))


def test_python_dualpath_read_rule_is_dualpath(scenario):
    py, cpp = dp.run(scenario, "py-dualpath"), dp.run(scenario, "dualpath")
    same_run(py, cpp)
    assert (py.requests["read_side"] == "de").sum() > 0  # the rule did send reads through the DE node


def test_scenario_toggles_apply_to_a_python_policy(scenario):
    # policy.dual_path = false switches its DE path off, as for a built-in policy: a "de" answer is then refused.
    with pytest.raises(dp.PolicyError, match=r"policy py-dualpath: choose_read_side returned \"de\", but the DE "
                                             r"read path is off"):
        dp.run(scenario.with_set({"policy.dual_path": False}), "py-dualpath")


def test_a_python_placement_is_used(scenario):
    class FirstEngine(PyBasic):
        def place_prefill(self, view, group, waiting):
            first = view.pe_groups[group][0]
            return [(i, first) for i in range(len(waiting))]

    dp.register_policy("py-first-engine", FirstEngine)
    r = dp.run(scenario, "py-first-engine")
    assert set(r.requests["pe"]) == {0} and r.results["rounds"] == len(r.requests)
    assert set(dp.run(scenario, "py-basic").requests["pe"]) == set(range(8))


def failing(name, method, body, features=None):
    cls = type(name, (dp.Policy,), {"features": features or {}, method: body})
    dp.register_policy(name, cls)
    return name


@pytest.mark.parametrize("policy, message", [
    (failing("py-raises", "choose_read_side", lambda self, v, r: 1 / 0),
     "policy py-raises: choose_read_side raised ZeroDivisionError: division by zero"),
    (failing("py-bad-side", "choose_read_side", lambda self, v, r: "nvme"),
     "policy py-bad-side: choose_read_side returned \"nvme\", expected \"pe\", \"de\" or a split's PE tokens"),
    (failing("py-bad-type", "choose_read_side", lambda self, v, r: 1.5),
     "policy py-bad-type: choose_read_side returned float, expected \"pe\", \"de\" or an int"),
    (failing("py-big-split", "choose_read_side", lambda self, v, r: r.hit + 1, {"dual_path": True}),
     "policy py-big-split: choose_read_side returned a split of"),
    (failing("py-far-engine", "place_prefill", lambda self, v, g, w: [(0, 99)] if w else []),
     "policy py-far-engine: place_prefill returned (0, 99): engine 99 is not an engine of this group"),
    (failing("py-twice", "place_prefill", lambda self, v, g, w: [(0, v.pe_groups[g][0])] * 2 if w else []),
     "policy py-twice: place_prefill placed queue index 0 twice"),
    (failing("py-bad-index", "place_prefill", lambda self, v, g, w: [(len(w), v.pe_groups[g][0])] if w else []),
     "policy py-bad-index: place_prefill returned ("),
    (failing("py-bad-route", "route_decode", lambda self, v, q: [7] * len(q)),
     "policy py-bad-route: route_decode returned decode group 7, outside 0..1 (exclusive)"),
    (failing("py-short-route", "route_decode", lambda self, v, q: []),
     "policy py-short-route: route_decode returned 0 groups for"),
    (failing("py-not-a-list", "place_decode", lambda self, v, g, q: "all"),
     "policy py-not-a-list: place_decode returned str, expected a list of (queue index, engine) pairs"),
])
def test_an_impossible_answer_is_a_policy_error(scenario, policy, message):
    with pytest.raises(dp.PolicyError) as e:
        dp.run(scenario, policy)
    assert str(e.value).startswith(message), str(e.value)
    assert "\n" not in str(e.value)


def test_registration_errors():
    with pytest.raises(dp.InputError, match="a built-in policy has this name"):
        dp.register_policy("basic", PyBasic)
    with pytest.raises(dp.InputError, match="expected a subclass of dualpath.Policy"):
        dp.register_policy("py-x", object)
    with pytest.raises(dp.InputError, match=r"features\[\"turbo\"\]: unknown feature"):
        dp.register_policy("py-turbo", type("T", (dp.Policy,), {"features": {"turbo": True}}))
    with pytest.raises(dp.InputError, match="expected lower-case letters"):
        dp.register_policy("Py Policy", PyBasic)


def test_the_command_line_cannot_run_a_python_policy(scenario):
    # The band runs the dualpath command line (capacity and plan run in this process: test_capacity_study.py).
    with pytest.raises(dp.InputError, match="py-basic is a Python policy, which runs in this process only"):
        dp.run_band(scenario.with_set({"policy.name": "py-basic"}))
