"""dualpath from Python (docs/python.md): scenarios loaded and checked by the simulator's own loader, runs whose
results come back as a dict and pandas DataFrames, policies written in Python, and the command line's verbs
(traces, capacity, plan, analyze) returning data.

    import dualpath as dp
    sc = dp.Scenario("scenarios/default.json", set={"workload.agents": 64})
    runs = dp.compare(sc, ["basic", "dualpath"])
    runs["dualpath"].summary["results"]["jct_s"], runs["dualpath"].requests.head()

Bad input raises dp.InputError (a ValueError) with the CLI's one line; a run that cannot finish raises
dp.NoProgressError, a Python policy's mistake dp.PolicyError, a failed command dp.RunError (RuntimeErrors).
"""
import json
import os
import shutil
import tempfile
from collections.abc import Mapping

import pandas as pd

from . import _dualpath
from ._cli import RunError, run_cli
from ._dualpath import ClusterView, EngineState, InputError, NodeState, NoProgressError, PolicyError, QueuedRequest, Request

__all__ = ["Scenario", "Run", "run", "compare", "Policy", "register_policy", "policy_names", "capacity", "plan",
           "analyze_bandwidth", "analyze_cost", "trace", "run_band", "InputError", "NoProgressError", "PolicyError", "RunError",
           "ClusterView", "EngineState", "NodeState", "Request", "QueuedRequest", "version", "DATA_DIR"]

version = _dualpath.version()
DATA_DIR = _dualpath.data_dir()  # the bundled scenarios/, models/, topologies/ and traces/ live here


def _value_text(v):
    """A --set value as the CLI reads it: strings as they are ("400 Gbps"), everything else as JSON."""
    return v if isinstance(v, str) else json.dumps(v)


def _override_list(overrides):
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [f"{k}={_value_text(v)}" for k, v in overrides.items()]
    if isinstance(overrides, str):
        raise InputError("set: expected a dict {key: value} or a list of \"key=value\" texts, found a string")
    return [str(o) for o in overrides]


class Scenario:
    """A scenario, validated at construction exactly as `dualpath check` validates it.

    source: a scenario file's path, or a dict of the same document (its relative paths resolve against base_dir,
    default the working directory). set: overrides, {"workload.agents": 64} or ["workload.agents=64"], applied
    after the overlay files in order, as --set is."""

    def __init__(self, source, set=None, overlays=(), base_dir=None, calibration=None):
        # calibration: a bundled name ("ideal", "paper-cluster") or a calibration file, as --calibration: the
        # scenario's "calibration" key, under every other override (docs/calibration.md).
        if calibration is not None and (not isinstance(calibration, (str, os.PathLike)) or not os.fspath(calibration)):
            raise InputError(f"calibration: expected a calibration name or file path, found {calibration!r}")
        self._overrides = ([f"calibration={os.fspath(calibration)}"] if calibration is not None else []) + \
            _override_list(set)
        if isinstance(overlays, (str, os.PathLike)):  # one file, not its characters
            overlays = [overlays]
        self._overlays = [os.fspath(o) for o in overlays]
        if isinstance(source, Mapping):
            self._path = None
            self._document = json.loads(json.dumps(source))  # a copy, and a check that it is JSON
            self._base_dir = os.fspath(base_dir) if base_dir is not None else os.getcwd()
        else:
            if base_dir is not None:
                raise InputError("base_dir: applies to a scenario given as a dict (a file's paths resolve against "
                                 "its own folder)")
            self._path = os.fspath(source)
            self._document = None
        self._loaded = self._load()
        # Its policy under its settings, as `dualpath check` refuses them (a Python policy: register it first).
        _dualpath.check_policy(self._loaded)

    def _load(self):
        if self._path is not None:
            return _dualpath.load_scenario(self._path, self._overrides, self._overlays)
        return _dualpath.load_scenario_document(json.dumps(self._document), "<dict>", self._base_dir,
                                                self._overrides, self._overlays)

    @property
    def name(self):
        return self._loaded.name

    @property
    def policy(self):
        """The scenario's policy (policy.name), the one run() uses by default."""
        return self._loaded.policy

    @property
    def path(self):
        return self._path

    def with_set(self, set):
        """A copy with more overrides after this one's."""
        source = self._path if self._path is not None else self._document
        return Scenario(source, self._overrides + _override_list(set), self._overlays,
                        None if self._path is not None else self._base_dir)

    def check(self):
        """The effective configuration as a dict: what `dualpath check` prints (every quantity in SI units)."""
        return json.loads(self._loaded.to_json())

    def _for_policy(self, policy):
        if policy is None or policy == self.policy:
            loaded = self._loaded
        else:
            loaded = self.with_set({"policy.name": policy})._loaded
        _dualpath.check_policy(loaded)
        return loaded

    def _file_args(self, tmp):
        """This scenario as a file, its overlays and its --set list: a dict is written into `tmp`, its relative
        paths made absolute."""
        path = self._path
        if path is None:
            doc = json.loads(json.dumps(self._document))
            absolute = lambda p: p if os.path.isabs(p) else os.path.normpath(os.path.join(self._base_dir, p))
            for key in ("model", "topology", "prefill_topology", "decode_topology"):
                if isinstance(doc.get(key), str):
                    doc[key] = absolute(doc[key])
            if isinstance(doc.get("model"), dict) and isinstance(doc["model"].get("profile"), str):
                doc["model"]["profile"] = absolute(doc["model"]["profile"])
            if isinstance(doc.get("workload"), dict) and isinstance(doc["workload"].get("file"), str):
                doc["workload"]["file"] = absolute(doc["workload"]["file"])
            path = os.path.join(tmp, "scenario.json")
            with open(path, "w") as f:
                json.dump(doc, f)
        return path, list(self._overlays), list(self._overrides)

    def _cli_args(self, tmp):
        """The CLI's arguments for this scenario: its file (_file_args), --overlay and --set. A Python policy lives
        in this process only, so the CLI cannot run it."""
        if self.policy in _python_policies:  # the loaded policy name, overrides applied
            raise InputError(f"policy.name: {self.policy} is a Python policy, which runs in this process only "
                             "(dualpath.run, compare, capacity and plan); the band runs the dualpath command line")
        path, overlays, overrides = self._file_args(tmp)
        args = [path]
        for o in overlays:
            args += ["--overlay", o]
        for o in overrides:
            args += ["--set", o]
        return args

    def __repr__(self):
        return f"Scenario({self._path or '<dict>'!r}, name={self.name!r}, policy={self.policy!r})"


def _read_table(folder, name):
    path = os.path.join(folder, name)
    return pd.read_csv(path) if os.path.exists(path) else pd.DataFrame()


class Run:
    """One simulated run: summary (summary.json as a dict), and requests, waits and links (requests.csv,
    waits.csv, links.csv as DataFrames). folder is where its files are, or None when they were not kept."""

    def __init__(self, policy, summary, folder, tables):
        self.policy = policy
        self.summary = summary
        self.folder = folder
        self.requests, self.waits, self.links = tables

    @property
    def results(self):
        return self.summary["results"]

    @property
    def jct(self):
        """The job completion time, seconds (results.jct_s)."""
        return self.summary["results"]["jct_s"]

    def __repr__(self):
        return f"Run(policy={self.policy!r}, jct={self.jct:.1f} s, rounds={self.results.get('rounds')})"


def _names(value, what):
    """A list of names as the command line's lists take them (core/config/command_values.hpp, comma_items): "a,b" or
    a list of strings; an empty item or one given twice is refused, naming it."""
    if isinstance(value, str):
        items = value.split(",") if value else []
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = list(value)
    else:
        raise InputError(f"{what}: expected \"a,b\" or a list of names, found {value!r}")
    for i, item in enumerate(items):
        if not item:
            raise InputError(f"{what} {value!r}: expected comma-separated names, found an empty one")
        if item in items[:i]:
            raise InputError(f"{what} {value!r}: names \"{item}\" twice; give each once")
    return items


def _threads(threads, what="threads"):
    """--threads' (and --jobs') rule: an integer in 1..1024."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 1024:
        raise InputError(f"{what}: expected an integer in 1..1024, found {threads!r}")
    return threads


def run(scenario, policy=None, out=None, threads=1):
    """Simulates `scenario` under `policy` (default: its own) and returns a Run. With out=FOLDER the run's files
    are written there, as `dualpath run SCENARIO --out FOLDER` writes them; without, into a temporary folder that is
    removed once the tables are read. The GIL is released while the simulation runs. Ctrl-C stops a native run
    within moments and raises KeyboardInterrupt; a folder the run made is then removed (one that was there before
    is left without a summary.json, the file a run writes last)."""
    if not isinstance(scenario, Scenario):
        scenario = Scenario(scenario)
    loaded = scenario._for_policy(policy)
    threads = _threads(threads)
    keep = out is not None
    folder = os.fspath(out) if keep else tempfile.mkdtemp(prefix="dualpath-run-")
    made = not os.path.exists(folder)
    finished = False
    try:
        summary = json.loads(_dualpath.run(loaded, folder, threads))
        tables = tuple(_read_table(folder, n) for n in ("requests.csv", "waits.csv", "links.csv"))
        finished = True
    finally:
        if not keep or (made and not finished):
            shutil.rmtree(folder, ignore_errors=True)
    return Run(loaded.policy, summary, folder if keep else None, tables)


def compare(scenario, policies, out=None, threads=1):
    """Runs `scenario` under each policy, one after the other; returns {policy: Run}. With out=FOLDER each run's
    files go to FOLDER/<policy>/, as `dualpath run --policy a,b --out FOLDER` lays them out."""
    if not isinstance(scenario, Scenario):
        scenario = Scenario(scenario)
    policies = _names(policies, "policies")
    if not policies:
        raise InputError("policies: expected one or more policy names")
    _threads(threads)
    for p in policies:  # every name is checked before the first run
        scenario._for_policy(p)
    return {p: run(scenario, p, None if out is None else os.path.join(os.fspath(out), p), threads) for p in policies}


# --- policies written in Python ---------------------------------------------------------------------------------

_python_policies = set()


class Policy:
    """Base of a policy written in Python. A subclass sets `features` (a dict of layerwise, dual_path, scheduler,
    bypass_io: the mechanisms the engines apply, default all off) and overrides choose_read_side. It may also define

        place_prefill(self, view, group, waiting) -> [(queue index, engine), ...]
        route_decode(self, view, queue) -> [decode group, ...]        # one per queued request
        place_decode(self, view, group, queue) -> [(queue index, engine), ...]

    which otherwise are the built-in placement's (the paper's scheduler with features["scheduler"], else round
    robin). `view` (ClusterView) and `request` (Request) are valid only during the call. Register it with
    register_policy(name, cls); a scenario then names it in policy.name. One instance is made per run."""

    features = {}

    def choose_read_side(self, view, request):
        """"pe" (read the hit through the PE node), "de" (through the DE node and the compute network; needs
        dual_path), or an int: a split read's hit tokens through the PE node, the rest through the DE node."""
        return "pe"


def register_policy(name, cls):
    """Makes `cls` (a Policy subclass) the policy `name`, for runs in this process."""
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise InputError(f"policy {name}: expected a subclass of dualpath.Policy, found {cls!r}")
    _dualpath.register_policy(name, cls, dict(getattr(cls, "features", {})))
    _python_policies.add(name)


def policy_names():
    """Every policy a scenario may name: the built-in ones and those registered from Python."""
    return list(_dualpath.policy_names())


# --- the command line's verbs, returning data (studies.py, trace.py) ---------------------------------------------

from .studies import analyze_bandwidth, analyze_cost, capacity, plan, run_band  # noqa: E402
from . import trace  # noqa: E402  (the trace verbs use the names above)
