"""The Python layer refuses what the command line refuses (issue 80; tests/cli/lists.sh): an empty or repeated name
in a list, threads outside 1..1024, an empty price map, a P:D that is not a pair; one overlay file given as a path
is one file, not its characters."""
import json

import pytest

import dualpath as dp


@pytest.mark.parametrize("policies", ["basic,,dualpath", "basic,", ["basic", ""], "basic,basic", ["dualpath", "dualpath"], 3])
def test_compare_refuses_bad_lists(default_scenario, policies):
    with pytest.raises(dp.InputError, match="policies"):
        dp.compare(default_scenario, policies)


@pytest.mark.parametrize("threads", [0, 10**6, 1.5, True, "2"])
def test_run_refuses_threads_the_cli_refuses(default_scenario, threads):
    with pytest.raises(dp.InputError, match="threads"):
        dp.run(dp.Scenario(default_scenario, set={"workload.agents": 4}), threads=threads)


def test_plan_refuses_an_empty_price_map(default_scenario):
    with pytest.raises(dp.InputError, match="found {}"):
        dp.plan(default_scenario, nodes=2, node_hour_cost={})


def test_a_pd_ratio_is_a_pair(data):
    topology = f"{data}/topologies/hopper-8gpu-80g.json"
    with pytest.raises(dp.InputError, match="pd_ratios"):
        dp.analyze_bandwidth(topology, pd_ratios=[(1, 2, 3)])
    assert dp.analyze_bandwidth(topology, pd_ratios=[(1, 2)])


def test_band_refuses_a_name_twice(default_scenario):
    with pytest.raises(dp.InputError, match="twice"):
        dp.run_band(default_scenario, band="ideal,ideal")


def test_one_overlay_path_is_one_file(default_scenario, tmp_path):
    overlay = tmp_path / "o.json"
    overlay.write_text(json.dumps({"overlay": 1, "set": {"workload.agents": 6}}))
    for given in (str(overlay), overlay):
        assert dp.Scenario(default_scenario, overlays=given).check()["workload"]["agents"] == 6
