"""The studies and the analytic models from Python (docs/python.md, "The command line's verbs, returning data"):
capacity and plan run their studies (core/study/) in this process, their runs on threads, so a Python policy can be
probed and planned; analyze_bandwidth and analyze_cost return the command line's JSON; the band runs the command
line. Each returns what the command writes, as data."""
import json
import os
import tempfile

from . import _dualpath
from ._cli import run_cli
from ._dualpath import InputError
from . import Scenario, _names, _threads, _value_text


def _in_folder(out, prefix, body):
    """Runs body(folder) in `out` (made, kept) or in a temporary folder (removed)."""
    if out is not None:
        os.makedirs(os.fspath(out), exist_ok=True)
        return body(os.fspath(out))
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        return body(os.path.join(tmp, "out"))


def _duration_text(value, what):
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(f"{what}: expected a duration such as \"4 s\" or a number of seconds, found {value!r}")
    return value if isinstance(value, str) else f"{value} s"


def capacity(scenario, policies=None, slo_ttft=None, slo_tpot=None, resolution=None, jobs=None, out=None, band=None,
             max_probe_duration=None):
    """The SLO capacity search of `dualpath capacity` (docs/capacity.md) on an online scenario: returns
    capacity.json as a dict ({"policies": {name: {"capacity_aps", "lowest_failing_aps", "probes", ...}}}), the same
    bytes the command line writes. The probes run on threads of this process (native engine), so `policies` may
    name a policy registered from Python. band: calibrations ("ideal,paper-cluster" or a list), one search each
    (--band, run by the command line): returns band.json ({"policies": {name: {"capacity_aps": {"low", "high",
    "low_calibration", "high_calibration"}, ...}}, "members": [...]}) with each member's capacity.json under
    "capacity" (docs/calibration.md)."""
    if not isinstance(scenario, Scenario):
        scenario = Scenario(scenario)
    if band is not None:
        return _capacity_band(scenario, policies, slo_ttft, slo_tpot, resolution, jobs, out, band, max_probe_duration)
    names = _names(policies, "policies") if policies is not None else ["basic", "dualpath"]
    if resolution is None:
        resolution = 0.02
    if isinstance(resolution, bool) or not isinstance(resolution, (int, float)):
        raise InputError(f"resolution: expected a fraction such as 0.02, found {resolution!r}")
    n_jobs = 0 if jobs is None else _threads(jobs, "jobs")
    with tempfile.TemporaryDirectory(prefix="dualpath-capacity-") as tmp:
        path, overlays, overrides = scenario._file_args(tmp)

        def body(folder):
            _dualpath.capacity_study(path, overlays, overrides, names,
                                     _duration_text("4 s" if slo_ttft is None else slo_ttft, "slo_ttft"),
                                     _duration_text("50 ms" if slo_tpot is None else slo_tpot, "slo_tpot"),
                                     float(resolution), n_jobs,
                                     "" if max_probe_duration is None
                                     else _duration_text(max_probe_duration, "max_probe_duration"), folder)
            with open(os.path.join(folder, "capacity.json")) as f:
                return json.load(f)
        return _in_folder(out, "dualpath-capacity-", body)


def _capacity_band(scenario, policies, slo_ttft, slo_tpot, resolution, jobs, out, band, max_probe_duration):
    """capacity(band=...): `dualpath capacity --band` as a child process."""
    with tempfile.TemporaryDirectory(prefix="dualpath-capacity-") as tmp:
        args = ["capacity", *scenario._cli_args(tmp), "--no-plot", "--band", _band_text(band)]
        if policies is not None:
            args += ["--policy", ",".join(_names(policies, "policies"))]
        for flag, v in (("--slo-ttft", slo_ttft), ("--slo-tpot", slo_tpot), ("--resolution", resolution),
                        ("--jobs", jobs), ("--max-probe-duration", max_probe_duration)):
            if v is not None:
                args += [flag, str(v)]

        def body(folder):
            run_cli(args + ["--out", folder])
            return _read_band(folder, "capacity.json", "capacity")
        return _in_folder(out, "dualpath-capacity-", body)


def _band_text(band):
    if isinstance(band, (list, tuple)):
        band = [os.fspath(b) if isinstance(b, os.PathLike) else b for b in band]
    return ",".join(_names(band, "band"))


def _read_band(folder, member_file, key):
    with open(os.path.join(folder, "band.json")) as f:
        result = json.load(f)
    for m in result["members"]:
        path = os.path.join(m["folder"], member_file)
        if os.path.exists(path):
            with open(path) as f:
                m[key] = json.load(f)
    return result


def run_band(scenario, policies=None, band="ideal,paper-cluster", out=None):
    """`dualpath run --band`: the run once per calibration, each figure as a range (docs/calibration.md). Returns
    band.json as a dict: {"policies": {name: {"jct_s": {"low", "high", "low_calibration", "high_calibration"},
    "ttft_mean_s": ..., "tpot_p50_s": ..., "binds": {calibration: text}}}, "members": [...]}; with one policy each
    member also holds its run's summary.json under "summary". Runs the command line
    (a Python policy cannot run there)."""
    if not isinstance(scenario, Scenario):
        scenario = Scenario(scenario)
    with tempfile.TemporaryDirectory(prefix="dualpath-band-") as tmp:
        args = ["run", *scenario._cli_args(tmp), "--band", _band_text(band)]
        if policies is not None:
            args += ["--policy", ",".join(_names(policies, "policies"))]

        def body(folder):
            run_cli(args + ["--out", folder])
            return _read_band(folder, "summary.json", "summary")
        return _in_folder(out, "dualpath-band-", body)


def _optional_int(value, what, low, high):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"{what}: expected an integer in {low}..{high}, found {value!r}")
    return value


def _optional_number(value, what):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{what}: expected a number, found {value!r}")
    return float(value)


def plan(scenario, nodes=None, budget=None, objective="jct", policy=None, vary=None, resolution=None, slo_ttft=None,
         slo_tpot=None, jobs=None, max_candidates=None, node_hour_cost=None, gpu_hour_cost=None, target_aps=None,
         max_nodes=None, ideal=False, out=None, ties=False, bounds=True):
    """The best P/D split of `dualpath plan` (docs/capacity.md): returns plan.json as a dict (its "splits" and its
    "recommendation"; with a price, each one's "cost"), the same bytes the command line writes. The runs go on
    threads of this process (native engine), so `policy` may name a policy registered from Python. vary: {key:
    [values]} as --vary KEY=V1,V2. target_aps asks the inverse question (objective "capacity"): the fewest nodes
    holding that load, per variant; ties=True decides every split of its answer (to name all that hold), bounds=False
    probes every split (no split ruled out by a bound). A price is one number or, per topology name, {"hopper-8gpu-80g": 98.32,
    "h20-8gpu-96g": 40}. ideal (capacity plans): each variant's best split also carries "ideal" (the Oracle's
    capacity and the §4.2 read bound)."""
    def price(v, what):
        if v is None:
            return ""
        if isinstance(v, dict):
            if not v:
                raise InputError(f"{what}: expected a price or {{topology: price, ...}}, found {{}}")
            return ",".join(f"{k}={p}" for k, p in v.items())
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise InputError(f"{what}: expected a price or {{topology: price, ...}}, found {v!r}")
        if isinstance(v, str) and not v:
            raise InputError(f"{what}: expected a price or TOPOLOGY=PRICE,..., found an empty one")
        return str(v)
    node_hour_cost, gpu_hour_cost = price(node_hour_cost, "node_hour_cost"), price(gpu_hour_cost, "gpu_hour_cost")
    if node_hour_cost and gpu_hour_cost:
        raise InputError("gpu_hour_cost: give node_hour_cost or gpu_hour_cost, not both")
    if objective not in ("jct", "capacity"):
        raise InputError(f"objective: expected \"jct\" or \"capacity\", found {objective!r}")
    if policy is not None and not isinstance(policy, str):
        raise InputError(f"policy: expected a policy name, found {policy!r}")
    nodes = _optional_int(nodes, "nodes", -2 ** 31, 2 ** 31 - 1)
    budget = _optional_int(budget, "budget", -2 ** 63, 2 ** 63 - 1)
    max_candidates = _optional_int(max_candidates, "max_candidates", 1, 1000000)
    max_nodes = _optional_int(max_nodes, "max_nodes", -2 ** 31, 2 ** 31 - 1)
    n_jobs = 0 if jobs is None else _threads(jobs, "jobs")
    resolution, target_aps = _optional_number(resolution, "resolution"), _optional_number(target_aps, "target_aps")
    if sum(v is not None for v in (nodes, budget, target_aps)) > 1:
        raise InputError("nodes / budget / target_aps: give one of them")
    for name, value, default in (("max_nodes", max_nodes, None), ("ties", ties, False), ("bounds", bounds, True)):
        if value is not default and value != default and target_aps is None:
            raise InputError(f"{name}: needs target_aps")
    for name, value in (("ties", ties), ("bounds", bounds)):
        if not isinstance(value, bool):
            raise InputError(f"{name}: expected True or False, found {value!r}")
    if not isinstance(vary, (dict, type(None))):
        raise InputError(f"vary: expected {{key: [values]}}, found {vary!r}")
    varies = [f"{key}=" + ",".join(_value_text(v) for v in values) for key, values in (vary or {}).items()]
    if not isinstance(scenario, Scenario):
        scenario = Scenario(scenario)
    with tempfile.TemporaryDirectory(prefix="dualpath-plan-") as tmp:
        path, overlays, overrides = scenario._file_args(tmp)

        def body(folder):
            _dualpath.plan_study(path, overlays, overrides, objective, policy or "", nodes, budget, n_jobs, resolution,
                                 "" if slo_ttft is None else _duration_text(slo_ttft, "slo_ttft"),
                                 "" if slo_tpot is None else _duration_text(slo_tpot, "slo_tpot"), varies,
                                 max_candidates, node_hour_cost, gpu_hour_cost, bool(ideal), target_aps, max_nodes,
                                 ties, bounds, folder)
            with open(os.path.join(folder, "plan.json")) as f:
                return json.load(f)
        return _in_folder(out, "dualpath-plan-", body)


def analyze_bandwidth(topology, pd_ratios=None, basic=False, decode_topology=None):
    """The §4.2 bandwidth model of `dualpath analyze bandwidth --json` for a topology file, in this process: its
    parameters, the bottleneck-free P/D range and, per P:D ("1:2" or (1, 2)), each link's load and what saturates
    first."""
    pds = []
    for r in pd_ratios or []:
        if isinstance(r, str):
            pds.append(r)
        elif isinstance(r, (tuple, list)) and len(r) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                                  for x in r):
            pds.append(f"{r[0]}:{r[1]}")
        else:
            raise InputError(f"pd_ratios: expected \"P:D\" or a pair of integers (P, D), found {r!r}")
    if not isinstance(basic, bool):
        raise InputError(f"basic: expected True or False, found {basic!r}")
    return json.loads(_dualpath.analyze_bandwidth_json(
        os.fspath(topology), "" if decode_topology is None else os.fspath(decode_topology), pds, basic))


_COST_OPTIONS = {"batch", "context", "de_group", "pe_group", "prefill_tokens", "cached", "fresh", "profile", "public",
                 "calibration"}


def analyze_cost(model, topology, **options):
    """The cost model's decode step by part and a prefill forward of `dualpath analyze cost --json`, in this process.
    options: batch (a number or a list), context, de_group, pe_group, prefill_tokens, cached, fresh, profile (a step
    profile file), public (True: the public measurements beside the model), calibration (a name or file)."""
    unknown = sorted(set(options) - _COST_OPTIONS)
    if unknown:
        raise InputError(f"{unknown[0]}: unknown option of analyze_cost; expected one of {', '.join(sorted(_COST_OPTIONS))}")

    def number(key, whole=False):
        v = options.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int if whole else (int, float)):
            raise InputError(f"{key}: expected {'an integer' if whole else 'a number'}, found {v!r}")
        return v
    batch = options.get("batch", [])
    batches = list(batch) if isinstance(batch, (list, tuple)) else [batch]
    for b in batches:
        if isinstance(b, bool) or not isinstance(b, (int, float)):
            raise InputError(f"batch: expected a number of requests per GPU, found {b!r}")
    public = options.get("public", False)
    if not isinstance(public, bool):
        raise InputError(f"public: expected True or False, found {public!r}")
    text = {k: "" if options.get(k) is None else os.fspath(options[k]) for k in ("profile", "calibration")}
    return json.loads(_dualpath.analyze_cost_json(
        os.fspath(model), os.fspath(topology), text["calibration"], [float(b) for b in batches], number("context"),
        number("de_group", True), number("pe_group", True), number("prefill_tokens"), number("cached", True),
        number("fresh", True), public, text["profile"]))
