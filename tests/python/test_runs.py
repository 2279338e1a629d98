"""A run from Python is the command line's run: the same files byte for byte (summary.json, requests.csv,
waits.csv, links.csv), the same tables as DataFrames, the same effective configuration; a dict scenario is the
file's; without out= nothing is left behind."""
import filecmp
import glob
import json
import os
import subprocess
import tempfile

import pandas as pd

import dualpath as dp
from dualpath._cli import cli_path

FILES = ("summary.json", "requests.csv", "waits.csv", "links.csv")


def cli(*args):
    return subprocess.run([cli_path(), *args], check=True, capture_output=True, text=True).stdout


def test_run_equals_the_cli_run(tmp_path, default_scenario):
    cli("run", default_scenario, "--set", "workload.agents=32", "--quiet", "--out", str(tmp_path / "cli"))
    r = dp.run(dp.Scenario(default_scenario, set={"workload.agents": 32}), out=tmp_path / "py")
    for f in FILES:
        assert filecmp.cmp(tmp_path / "cli" / f, tmp_path / "py" / f, shallow=False), f"{f} differs"
    assert r.summary == json.loads((tmp_path / "cli" / "summary.json").read_text())
    for name, table in (("requests.csv", r.requests), ("waits.csv", r.waits), ("links.csv", r.links)):
        pd.testing.assert_frame_equal(table, pd.read_csv(tmp_path / "cli" / name))
    assert r.folder == str(tmp_path / "py") and r.policy == "dualpath" and r.jct == r.summary["results"]["jct_s"]


def test_compare_equals_the_cli_side_by_side(tmp_path, default_scenario):
    cli("run", default_scenario, "--set", "workload.agents=16", "--policy", "basic,dualpath", "--quiet",
        "--out", str(tmp_path / "cli"))
    runs = dp.compare(dp.Scenario(default_scenario, set=["workload.agents=16"]), ["basic", "dualpath"],
                      out=tmp_path / "py")
    assert list(runs) == ["basic", "dualpath"]
    for p in runs:
        for f in FILES:
            assert filecmp.cmp(tmp_path / "cli" / p / f, tmp_path / "py" / p / f, shallow=False), f"{p}/{f} differs"
    assert runs["dualpath"].jct < runs["basic"].jct  # DualPath relieves the PE SNIC on this I/O-bound scenario


def test_without_out_nothing_is_left(default_scenario):
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "dualpath-run-*")))
    r = dp.run(dp.Scenario(default_scenario, set={"workload.agents": 8}), policy="basic")
    assert r.folder is None and r.policy == "basic"
    assert len(r.requests) == r.results["rounds"] and not r.links.empty and not r.waits.empty
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "dualpath-run-*"))) == before


def test_check_is_the_cli_check(default_scenario):
    sc = dp.Scenario(default_scenario, set={"topology.snic_bw": "200 Gbps"})
    assert sc.check() == json.loads(cli("check", default_scenario, "--set", "topology.snic_bw=200 Gbps"))
    assert sc.check()["topology"]["snic_bw"] == 25e9


def test_a_dict_scenario_is_the_file(data, default_scenario):
    with open(default_scenario) as f:
        doc = json.load(f)
    from_dict = dp.Scenario(doc, base_dir=os.path.join(data, "scenarios"), set={"workload.agents": 8})
    from_file = dp.Scenario(default_scenario, set={"workload.agents": 8})
    a, b = from_dict.check(), from_file.check()
    assert a.pop("source_file") == "<dict>" and b.pop("source_file") == default_scenario
    assert a == b
    assert dp.run(from_dict).results == dp.run(from_file).results
    # Its relative references resolve against base_dir, so elsewhere they are not found.
    try:
        dp.Scenario(doc, base_dir="/")
        raise AssertionError("a dict scenario's relative model path resolved against the wrong folder")
    except dp.InputError as e:
        assert str(e).startswith("<dict>: /model: cannot load model")


def test_with_set_and_policy_names(default_scenario):
    sc = dp.Scenario(default_scenario).with_set({"policy.name": "basic", "workload.agents": 4})
    assert sc.policy == "basic" and sc.check()["workload"]["agents"] == 4
    assert {"basic", "dualpath", "oracle"} <= set(dp.policy_names())
