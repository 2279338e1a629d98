"""Calibrations from Python (docs/calibration.md): Scenario(calibration=) is --calibration (ideal is the model
itself, a fitted one is named in the run's summary), a bad one is an InputError, and run_band's ends are the
single-calibration runs."""
import pytest

import dualpath as dp


def test_ideal_is_the_model_and_paper_cluster_is_named(default_scenario):
    small = {"workload.agents": 16}
    plain = dp.run(dp.Scenario(default_scenario, set=small))
    ideal = dp.run(dp.Scenario(default_scenario, set=small, calibration="ideal"))
    paper = dp.run(dp.Scenario(default_scenario, set=small, calibration="paper-cluster"))
    assert ideal.summary["results"] == plain.summary["results"]
    assert ideal.summary["calibration"]["name"] == "ideal"
    assert paper.summary["calibration"]["name"] == "paper-cluster"
    assert paper.summary["config"]["topology"]["fixed_costs"]["decode_request"] == pytest.approx(14.5e-6)
    assert paper.jct > ideal.jct


def test_a_bad_calibration_is_an_input_error(default_scenario):
    with pytest.raises(dp.InputError, match="unknown calibration"):
        dp.Scenario(default_scenario, calibration="nope")
    with pytest.raises(dp.InputError, match="calibration"):
        dp.Scenario(default_scenario, calibration=3)


def test_run_band_ends_are_the_single_runs(default_scenario):
    small = {"workload.agents": 16}
    band = dp.run_band(dp.Scenario(default_scenario, set=small), policies="dualpath")
    jct = band["policies"]["dualpath"]["jct_s"]
    single = {c: dp.run(dp.Scenario(default_scenario, set=small, calibration=c)).jct for c in ("ideal", "paper-cluster")}
    assert {jct["low_calibration"]: jct["low"], jct["high_calibration"]: jct["high"]} == single
    assert [m["summary"]["calibration"]["name"] for m in band["members"]] == ["ideal", "paper-cluster"]
