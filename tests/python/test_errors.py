"""Bad input from Python raises dualpath.InputError (a ValueError) carrying the command line's own one line, never
a crash: a bad key, a bad unit, a missing file, a bad override form; the CLI-backed verbs say the CLI's line too."""
import os
import subprocess

import pytest

import dualpath as dp
from dualpath._cli import cli_path


def cli_error(*args):
    p = subprocess.run([cli_path(), *args], capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith("dualpath: error: ")
    return line[len("dualpath: error: "):]


@pytest.mark.parametrize("key, value", [
    ("workload.agentz", "8"),           # a key the loader does not know
    ("topology.snic_bw", "400 Gbpz"),   # a bad unit
    ("workload.agents", "-3"),          # out of range
    ("policy.name", "nope"),            # unknown policy: at check time in the CLI, at run time here (below)
])
def test_bad_override_is_the_cli_line(default_scenario, key, value):
    if key == "policy.name":
        with pytest.raises(dp.InputError) as e:
            dp.run(dp.Scenario(default_scenario, set={key: value}))
        assert str(e.value).startswith("policy.name: unknown policy 'nope' (known: basic,")
        return
    with pytest.raises(dp.InputError) as e:
        dp.Scenario(default_scenario, set={key: value})
    assert str(e.value) == cli_error("check", default_scenario, "--set", f"{key}={value}")
    assert isinstance(e.value, ValueError) and "\n" not in str(e.value)


def test_missing_file(tmp_path):
    missing = str(tmp_path / "nope.json")
    with pytest.raises(dp.InputError) as e:
        dp.Scenario(missing)
    assert str(e.value) == cli_error("check", missing)


def test_bad_forms():
    with pytest.raises(dp.InputError, match="expected a dict"):
        dp.Scenario(os.path.join(dp.DATA_DIR, "scenarios", "default.json"), set="workload.agents=3")
    with pytest.raises(dp.InputError) as e:  # a dict is named <dict> where a file would be named
        dp.Scenario({"name": "x"}, base_dir=".")
    assert str(e.value).startswith("<dict>: /")
    with pytest.raises(dp.InputError, match="base_dir: applies to a scenario given as a dict"):
        dp.Scenario(os.path.join(dp.DATA_DIR, "scenarios", "default.json"), base_dir="/")


def test_cli_verbs_raise_the_cli_line(tmp_path):
    with pytest.raises(dp.InputError) as e:
        dp.trace.stats(str(tmp_path / "none.jsonl"))
    assert "trace file" in str(e.value) and "does not exist" in str(e.value)
    with pytest.raises(dp.InputError, match="--resolution: expected a fraction in"):
        dp.capacity(dp.Scenario(os.path.join(dp.DATA_DIR, "scenarios", "ds660b-2p4d-online.json")), resolution=1e-9)


def test_a_scenario_refuses_a_policy_check_refuses(default_scenario):
    """Issue 80: dp.Scenario took a policy.name that `dualpath check` refuses; it is refused at construction."""
    with pytest.raises(dp.InputError, match="unknown policy 'nope'"):
        dp.Scenario(default_scenario, set={"policy.name": "nope"})
    with pytest.raises(dp.InputError, match="unknown policy 'nope'"):
        dp.Scenario(default_scenario).with_set({"policy.name": "nope"})
