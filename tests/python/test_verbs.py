"""The command line's verbs from Python return data: a generated trace is the CLI's file read back, a conversion
keeps its rows, the statistics are `trace stats --json`, the bandwidth model and cost model are their --json, and a
small capacity search and plan answer as the CLI does."""
import filecmp
import json
import os
import subprocess

import pytest

import dualpath as dp
from dualpath._cli import cli_path


def cli(*args):
    return subprocess.run([cli_path(), *args], check=True, capture_output=True, text=True).stdout


def test_trace_gen_is_the_cli_file(tmp_path):
    df = dp.trace.gen("64k", trajectories=20, seed=3, out=tmp_path / "py.jsonl")
    cli("trace", "gen", "--profile", "64k", "--trajectories", "20", "--seed", "3", "-o", str(tmp_path / "cli.jsonl"))
    assert filecmp.cmp(tmp_path / "py.jsonl", tmp_path / "cli.jsonl", shallow=False)
    assert df["id"].nunique() == 20 and list(df.columns) == ["id", "arrival", "round", "append", "gen", "think",
                                                            "parent", "shared"]
    assert df.equals(dp.trace.gen("64k", trajectories=20, seed=3))  # no file kept without out=


def test_trace_convert_and_stats(data):
    sample = os.path.join(data, "tests", "traces", "burstgpt_sample.csv")
    df = dp.trace.convert(sample, source="burstgpt")
    assert list(df["id"]) == ["bg-2", "bg-3", "bg-5"] and list(df["append"]) == [610, 1200, 1]
    stats = dp.trace.stats(sample, source="burstgpt")
    assert stats["burstgpt"]["models"] == {"ChatGPT": 1, "GPT-4": 2}
    assert stats == json.loads(cli("trace", "stats", sample, "--from", "burstgpt", "--block-tokens", "64",
                                   "--reuse", "hashes", "--json"))


def test_analyze(data):
    topo = os.path.join(data, "topologies", "hopper-8gpu-80g.json")
    bw = dp.analyze_bandwidth(topo, pd_ratios=[(1, 1), "1:2"])
    assert [(r["P"], r["D"]) for r in bw["pd"]] == [(1, 1), (1, 2)] and bw["params"]["g"] == 8
    # In this process (core/study/analyze_bandwidth.hpp), the command line's JSON to the value.
    assert bw == json.loads(cli("analyze", "bandwidth", "--topology", topo, "--pd", "1:1", "--pd", "1:2", "--json"))
    v32 = os.path.join(data, "models", "deepseek-v3.2-660b.json")
    pace = os.path.join(data, "profiles", "ds660b-hopper-table3-pace.json")
    assert dp.analyze_cost(v32, topo, public=True, profile=pace, calibration="paper-cluster") == json.loads(
        cli("analyze", "cost", "--model", v32, "--topology", topo, "--public", "--profile", pace, "--calibration",
            "paper-cluster", "--json"))
    with pytest.raises(dp.InputError, match="speed: unknown option of analyze_cost"):
        dp.analyze_cost(v32, topo, speed=3)
    with pytest.raises(dp.InputError, match="de_group: expected an integer"):
        dp.analyze_cost(v32, topo, de_group=8.5)
    with pytest.raises(dp.InputError, match="--context: expected >= 1 token"):
        dp.analyze_cost(v32, topo, context=0)
    mixed = dp.analyze_bandwidth(topo, decode_topology=os.path.join(data, "topologies", "h20-8gpu-96g.json"))
    assert mixed["params"]["decode"]["topology"] == "h20-8gpu-96g" and mixed["range"] == bw["range"]  # same NICs
    cost = dp.analyze_cost(os.path.join(data, "models", "ds-27b.json"), topo, batch=[1, 8], de_group=8, pe_group=8)
    assert cost == json.loads(cli("analyze", "cost", "--model", os.path.join(data, "models", "ds-27b.json"),
                                  "--topology", topo, "--json", "--batch", "1", "--batch", "8", "--de-group", "8",
                                  "--pe-group", "8"))


def test_capacity_and_plan(data, tmp_path):
    online = dp.Scenario(os.path.join(data, "scenarios", "ds27b-1p1d.json"), set={
        "workload.mode": "online", "workload.aps": 0.5, "workload.duration": "300 s", "workload.stop": "slo-ttft"})
    cap = dp.capacity(online, policies="basic", slo_ttft="0.3 s", resolution=0.2, jobs=2, out=tmp_path / "cap")
    basic = cap["policies"]["basic"]
    assert 0 < basic["capacity_aps"] < basic["lowest_failing_aps"] <= basic["capacity_aps"] * 1.2
    assert os.path.exists(tmp_path / "cap" / "capacity.json")
    offline = dp.Scenario(os.path.join(data, "scenarios", "ds27b-1p1d.json"), set={"workload.agents": 64})
    p = dp.plan(offline, nodes=3, jobs=2, node_hour_cost=98.32)
    assert p["cost_basis"] == {"node_hour": 98.32} and p["recommendation"]["cost"]["per_hour"] == 3 * 98.32
    splits = {f"{s['P']}P{s['D']}D": s for s in p["splits"]}
    assert set(splits) == {"1P2D", "2P1D"} and all(s["jct_s"] > 0 for s in splits.values())
    assert p["recommendation"]["split"] == min(splits, key=lambda k: splits[k]["jct_s"])


def test_plan_prices_each_topology(data):
    """Mixed hardware (issue 65): a decode role on H20 nodes, each node at its topology's price."""
    mixed = dp.Scenario(os.path.join(data, "scenarios", "ds27b-1p1d.json"), set={
        "workload.agents": 16, "workload.trajectories": 16,
        "decode_topology": os.path.join(data, "topologies", "h20-8gpu-96g.json")})
    p = dp.plan(mixed, nodes=3, jobs=2, node_hour_cost={"hopper-8gpu-80g": 98.32, "h20-8gpu-96g": 40})
    assert p["cost_basis"] == {"node_hour": {"hopper-8gpu-80g": 98.32, "h20-8gpu-96g": 40}}
    for s in p["splits"]:
        assert s["cost"]["per_hour"] == s["P"] * 98.32 + s["D"] * 40
