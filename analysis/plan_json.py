"""plan.json as `dualpath plan` writes it (core/study/plan_report.cpp, core/study/plan_target.cpp, core/study/plan_ideal.cpp), read and
checked for the plan's page (analysis/plan_report_html.py): load_plan raises ResultsError naming the file and the JSON
path of the first value that is not what plan writes (exit 2 from report.py).
"""
import json

import json_shapes
from json_shapes import ResultsError

# --- plan.json, checked --------------------------------------------------------------------------------------------
# A key ending in ? may be absent; "a|b" takes either; [spec] is an array of spec; {..} an object with those keys.
# A cost figure is null where its rate is unknown (a probe recorded before plans had costs).
COST = {k: "number|null" for k in ("per_hour", "per_agent", "per_million_input_tokens", "per_million_output_tokens")}
COMMON = {"objective": "string", "identity": {"scenario": "string", "set": ["string"], "overlays?": ["string"],
                                              "vary?": ["string"], "policy": "string", "resolution?": "number|null"},
          "cost_basis?": {"node_hour?": "prices", "gpu_hour?": "prices"}}  # one price, or one per topology
FORWARD = dict(COMMON, **{
    "nodes?": "count", "budget_gpus?": "count",
    "splits": [{"P": "count", "D": "count", "feasible": "boolean", "variant?": "string", "in_analytic_range?": "boolean",
                "pe_group_gpus?": "count", "de_group_gpus?": "count", "jct_s?": "number|null",
                "capacity_aps?": "number|null", "lowest_failing_aps?": "number|null", "binds?": "string",
                "search?": "string", "dropped_below?": "string", "why?": "string", "probes?": "int",
                "lower_bound?": "boolean", "cost?": COST,
                "ideal?": {k + "?": "number|null" for k in ("oracle_aps", "oracle_lowest_failing_aps", "read_bound_aps")}}],
    "variants?": [{"label": "string", "nodes": "count", "best?": "string", "runner_up?": "string", "tie?": "boolean",
                   "margin?": "number|null"}],
    "recommendation?": {"split": "string", "value": "number", "binds?": "string", "variant?": "string",
                        "tie?": "boolean", "tied_with?": ["string"], "runner_up?": "string",
                        "runner_up_variant?": "string", "margin?": "number|null", "cost?": COST}})
TARGET = dict(COMMON, **{
    "target_aps": "number", "max_nodes": "count",
    "variants": [{"policy": "string", "label?": "string", "nodes": "count|null", "largest_failing_nodes": "count|null",
                  "cost?": COST, "holding_splits?": [{"split": "string", "binds": "string"}],
                  "undecided_splits?": ["string"], "search?": {"probes": "int", "ruled_out": {}},
                  "decided": [{"nodes": "count", "holds": "boolean", "splits": [
                      {"split": "string", "meets_slo": "boolean", "binds?": "string", "ruled_out?": "string",
                       "bound?": "string",
                       "probe?": {k + "?": "number|null" for k in (
                           "ttft_window_mean_s", "tpot_mean_s", "storage_read_per_s")}}]}]}],
    "recommendation?": {"variant": "string", "nodes": "count", "tie?": "boolean", "tied_with?": ["string"]}})
def check(v, spec, where, path):
    """Raises ResultsError naming `path` and the JSON path of the first value that does not match `spec`."""
    json_shapes.check(v, spec, where, path, "plan.json `dualpath plan`")


def load_plan(path):
    """plan.json, parsed and checked against the shapes core/study/plan_report.cpp and core/study/plan_target.cpp write."""
    p = json_shapes.read_json(path, "a plan.json")
    target = isinstance(p, dict) and "target_aps" in p
    check(p, TARGET if target else FORWARD, "", path)
    bad = ("/objective", 'expected "jct" or "capacity"') if p["objective"] not in ("jct", "capacity") else \
        ("/target_aps", "expected a rate above 0") if target and p["target_aps"] <= 0 else \
        ("/cost_basis", "expected a node_hour or gpu_hour price") if p.get("cost_basis") == {} else \
        ("/nodes", "missing: a plan for --nodes names them here or per variant") if not target and not (
            "nodes" in p or "budget_gpus" in p or p.get("variants")) else None
    if bad:
        found = json.dumps(p.get(bad[0][1:]))
        raise ResultsError(f"{path}: {bad[0]}: {bad[1]}" + ("" if bad[1].startswith("missing") else f", found {found}"))
    return p
