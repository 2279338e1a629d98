"""The studies in this process (issue 78: core/study/ under both faces): dualpath.capacity and dualpath.plan write
the same capacity.json and plan.json bytes, and the same run results, as `dualpath capacity` and `dualpath plan`; a
policy registered from Python is probed and planned like a built-in one (py-cap-basic reimplements Basic, so its
figures are Basic's); its mistakes come back as dualpath.PolicyError, not as a failed child."""
import filecmp
import json
import os
import subprocess

import pytest

import dualpath as dp

ONLINE = {"workload.mode": "online", "workload.aps": 0.5, "workload.duration": "300 s", "workload.stop": "slo-ttft"}


class PyBasic(dp.Policy):
    features = {}

    def choose_read_side(self, view, request):
        return "pe"


class Broken(dp.Policy):
    features = {}

    def choose_read_side(self, view, request):
        return "sideways"


dp.register_policy("py-cap-basic", PyBasic)
dp.register_policy("py-cap-broken", Broken)


@pytest.fixture(scope="module")
def path(data):
    return os.path.join(data, "scenarios", "ds27b-1p1d.json")


def test_same_bytes_as_the_command_line(path, tmp_path):
    sets = [f"{k}={v}" for k, v in ONLINE.items()]
    cli = [dp._cli.cli_path(), "capacity", path, "--policy", "basic,dualpath", "--slo-ttft", "0.3 s",
           "--resolution", "0.2", "--jobs", "2", "--no-plot", "--out", str(tmp_path / "cli")]
    for s in sets:
        cli += ["--set", s]
    subprocess.run(cli, check=True, capture_output=True)
    py = dp.capacity(dp.Scenario(path, set=ONLINE), policies="basic,dualpath", slo_ttft="0.3 s", resolution=0.2,
                     jobs=2, out=tmp_path / "py")
    # The same overrides in the same order, so the same identity: the files are byte for byte the same.
    with open(tmp_path / "cli" / "capacity.json", "rb") as a, open(tmp_path / "py" / "capacity.json", "rb") as b:
        assert a.read() == b.read()
    assert py["policies"]["dualpath"]["capacity_aps"] >= py["policies"]["basic"]["capacity_aps"] > 0
    # Each probe's results too (perf.json holds wall times; run.log is the child's).
    for policy in ("basic", "dualpath"):
        d = tmp_path / "cli" / "probes" / policy
        for probe in sorted(os.listdir(d)):
            for f in ("summary.json", "requests.csv", "links.csv", "waits.csv"):
                assert filecmp.cmp(d / probe / f, tmp_path / "py" / "probes" / policy / probe / f, shallow=False), \
                    f"{policy}/{probe}/{f}"


def test_a_python_policy_is_probed(path, tmp_path):
    sc = dp.Scenario(path, set=ONLINE)
    cap = dp.capacity(sc, policies=["basic", "py-cap-basic"], slo_ttft="0.3 s", resolution=0.2, jobs=2,
                      out=tmp_path / "c")
    basic, py = cap["policies"]["basic"], cap["policies"]["py-cap-basic"]
    assert py["capacity_aps"] == basic["capacity_aps"] > 0 and py["ratio_to_basic"] == 1
    assert [p["meets_slo"] for p in py["probes"]] == [p["meets_slo"] for p in basic["probes"]]
    with open(tmp_path / "c" / "probes" / "py-cap-basic" / f"aps={basic['probes'][0]['aps']:g}" / "summary.json") as f:
        assert json.load(f)["policy"] == "py-cap-basic"


def test_a_python_policys_mistake_is_its_own_error(path, tmp_path):
    with pytest.raises(dp.PolicyError, match=r"policy py-cap-broken: choose_read_side returned \"sideways\""):
        dp.capacity(dp.Scenario(path, set=ONLINE), policies="py-cap-broken", slo_ttft="0.3 s", resolution=0.2,
                    jobs=2, out=tmp_path / "c")


def test_bad_values_are_refused_before_any_probe(path, tmp_path):
    sc = dp.Scenario(path, set=ONLINE)
    for kwargs, message in (({"jobs": 0}, "jobs: expected an integer in 1..1024"),
                            ({"resolution": "fine"}, "resolution: expected a fraction"),
                            ({"resolution": 2}, "--resolution: expected a fraction in"),
                            ({"slo_ttft": -1}, "slo_ttft"),
                            ({"policies": "basic,nope"}, "--policy basic,nope: unknown policy")):
        with pytest.raises(dp.InputError, match=message):
            dp.capacity(sc, out=tmp_path / "bad", **kwargs)
    assert not os.path.exists(tmp_path / "bad" / "probes")


OFFLINE = {"workload.agents": 16, "workload.trajectories": 16}


def test_plan_same_bytes_as_the_command_line(path, tmp_path):
    cli = [dp._cli.cli_path(), "plan", path, "--nodes", "3", "--jobs", "2", "--node-hour-cost", "98.32", "--no-plot",
           "--out", str(tmp_path / "cli")]
    for k, v in OFFLINE.items():
        cli += ["--set", f"{k}={v}"]
    subprocess.run(cli, check=True, capture_output=True)
    py = dp.plan(dp.Scenario(path, set=OFFLINE), nodes=3, jobs=2, node_hour_cost=98.32, out=tmp_path / "py")
    with open(tmp_path / "cli" / "plan.json", "rb") as a, open(tmp_path / "py" / "plan.json", "rb") as b:
        assert a.read() == b.read()
    assert py["recommendation"]["split"] in ("1P2D", "2P1D")
    for split in ("1P2D", "2P1D"):
        for f in ("summary.json", "requests.csv"):
            assert filecmp.cmp(tmp_path / "cli" / "splits" / split / f, tmp_path / "py" / "splits" / split / f,
                               shallow=False), f"{split}/{f}"


def test_a_python_policy_is_planned(path, tmp_path):
    sc = dp.Scenario(path, set=OFFLINE)
    py = dp.plan(sc, nodes=3, jobs=2, policy="py-cap-basic")
    cpp = dp.plan(sc, nodes=3, jobs=2, policy="basic")
    assert py["identity"]["policy"] == "py-cap-basic"
    assert [(s["P"], s["D"], s["jct_s"]) for s in py["splits"]] == [(s["P"], s["D"], s["jct_s"]) for s in cpp["splits"]]


def test_plan_bad_values_are_refused(path):
    sc = dp.Scenario(path, set=OFFLINE)
    for kwargs, message in (({"nodes": 3, "jobs": 0}, "jobs: expected an integer in 1..1024"),
                            ({"nodes": "3"}, "nodes: expected an integer"),
                            ({"nodes": 3, "objective": "speed"}, "objective: expected"),
                            ({"nodes": 3, "budget": 16}, "give one of them"),
                            ({"nodes": 3, "max_nodes": 4}, "max_nodes: needs target_aps"),
                            ({"nodes": 3, "ties": True}, "ties: needs target_aps"),
                            ({"nodes": 3, "bounds": False}, "bounds: needs target_aps"),
                            ({"target_aps": 1, "objective": "capacity", "ties": 1}, "ties: expected True or False"),
                            ({"target_aps": 1, "objective": "capacity", "bounds": "off"},
                             "bounds: expected True or False"),
                            ({"nodes": 3, "node_hour_cost": ""}, "node_hour_cost: expected a price"),
                            ({"nodes": 1}, "--nodes 1: expected 2"),
                            ({}, "expected the cluster size")):
        with pytest.raises(dp.InputError, match=message):
            dp.plan(sc, **kwargs)
