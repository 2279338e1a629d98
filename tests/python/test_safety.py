"""A Python user never reaches undefined behaviour or an endless run (issue 80): a view, engine, node or request kept
past its decision raises dualpath.PolicyError naming the object and the decision; a split too large for C++ is a
PolicyError naming the decision; a placement that never places ends with NoProgressError naming the policy; Ctrl-C
during a run raises KeyboardInterrupt within a second and removes the folder the run made."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import dualpath as dp


class Keeper(dp.Policy):
    """Reads, in each decision, what the previous decision handed it."""
    features = {}
    what = "view"

    def __init__(self):
        self.kept = None

    def choose_read_side(self, view, request):
        if self.kept is not None:
            self.kept.engine_count if self.what == "view" else self.kept.hit if self.what == "request" else \
                self.kept.seq
        self.kept = {"view": view, "request": request, "engine": view.engine(0)}[self.what]
        return "pe"


kept_after_run = []


class KeepOnly(dp.Policy):
    features = {}

    def choose_read_side(self, view, request):
        if not kept_after_run:
            kept_after_run.append((view, request, view.node(0)))
        return "pe"


class HugeSplit(dp.Policy):
    features = {"dual_path": True, "layerwise": True, "scheduler": True}

    def choose_read_side(self, view, request):
        return 10 ** 30


class NeverPlaces(dp.Policy):
    features = {}

    def choose_read_side(self, view, request):
        return "pe"

    def place_prefill(self, view, group, waiting):
        return []


for what in ("view", "request", "engine"):
    dp.register_policy(f"py-keep-{what}", type(f"Keep_{what}", (Keeper,), {"what": what}))
dp.register_policy("py-keep-only", KeepOnly)
dp.register_policy("py-huge-split", HugeSplit)
dp.register_policy("py-never-places", NeverPlaces)


@pytest.fixture(scope="module")
def scenario(default_scenario):
    return dp.Scenario(default_scenario, set={"workload.agents": 8, "workload.trajectories": 8})


@pytest.mark.parametrize("what,type_name", [("view", "ClusterView"), ("request", "Request"), ("engine", "EngineState")])
def test_an_object_kept_past_its_decision_raises(scenario, what, type_name):
    with pytest.raises(dp.PolicyError, match=rf"policy py-keep-{what}: choose_read_side raised PolicyError: policy "
                                             rf"py-keep-{what}: the {type_name} handed to choose_read_side was used "
                                             r"after that decision returned"):
        dp.run(scenario, f"py-keep-{what}")


def test_an_object_read_after_the_run_raises(scenario):
    dp.run(scenario, "py-keep-only")
    view, request, node = kept_after_run[0]
    for obj, type_name in ((view, "ClusterView"), (request, "Request"), (node, "NodeState")):
        with pytest.raises(dp.PolicyError, match=rf"the {type_name} handed to choose_read_side was used after"):
            obj.engine_count if obj is view else obj.hit if obj is request else obj.read_queue_tokens
    with pytest.raises(dp.PolicyError, match="ClusterView handed to choose_read_side"):
        view.engine(0)


def test_a_split_beyond_64_bits_names_the_decision(scenario):
    with pytest.raises(dp.PolicyError, match=r"policy py-huge-split: choose_read_side returned a split of "
                                             r"1000000000000000000000000000000 PE tokens, outside 0\.\."):
        dp.run(scenario, "py-huge-split")


def test_a_placement_that_never_places_ends(scenario):
    t = time.monotonic()
    with pytest.raises(dp.NoProgressError, match=r"policy py-never-places placed no request on an idle prefill "
                                                 r"engine from t = 0.05 s to 3600.05 s while 8 waited.* its place_prefill never places"):
        dp.run(scenario, "py-never-places")
    assert time.monotonic() - t < 60


def test_ctrl_c_stops_a_run(default_scenario, tmp_path):
    out = tmp_path / "run"
    script = textwrap.dedent(f"""
        import signal, sys, time
        sys.path.insert(0, {os.environ.get("DUALPATH_PYTHONPATH", "")!r})
        import dualpath as dp
        sc = dp.Scenario({default_scenario!r}, set={{"workload.agents": 4096, "workload.trajectories": 4096}})
        seen = []

        def on_int(sig, frame):  # Python's own handler, timed: when the interpreter saw Ctrl-C
            seen.append(time.monotonic())
            raise KeyboardInterrupt
        signal.signal(signal.SIGINT, on_int)
        print("started", flush=True)
        try:
            dp.run(sc, "dualpath", out={str(out)!r})
        except KeyboardInterrupt:
            print(f"interrupted {{time.monotonic() - seen[0]:.3f}}", flush=True)
            sys.exit(3)
        print("finished", flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(3)  # loading and the run's start, then well into the simulation
    assert p.poll() is None, "the run ended before it could be interrupted: make it longer"
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    rest, err = p.communicate(timeout=30)
    took = time.monotonic() - sent
    assert p.returncode == 3 and rest.startswith("interrupted "), (p.returncode, rest, err)
    # The run stopped and unwound within a second of the interpreter seeing Ctrl-C (it looks every 50 ms); the
    # whole round trip, process start-up and a loaded CI machine included, within a few.
    stop = float(rest.split()[1])
    assert stop < 1.0, f"the run took {stop:.2f} s to stop after Ctrl-C"
    assert took < 5, f"KeyboardInterrupt came {took:.2f} s after Ctrl-C"
    assert not out.exists(), "the folder the run made is removed"
